//! The project's skills served by the MCP skills extension (SEP-2640,
//! `io.modelcontextprotocol/skills`): `skills/list`, `skills/get`, and each
//! file of a skill as a `skill://NAME/PATH` resource read with
//! `resources/read`.
//!
//! The extension takes its skill format from the Agent Skills specification:
//! a name of lowercase letters (any script), digits and single inner hyphens,
//! equal to the last segment of the skill's URI. A Riverse skill whose name
//! breaks that rule (`explain_code`, `Travel`) is left out of what MCP
//! serves, with a log line; it still applies to Riverse's own turns. A name
//! outside ASCII is percent-encoded in the URI (`skill://%E5%A4%A9%E6%B0%97/SKILL.md`).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use base64::Engine;
use riverse_skills::{SkillSet, SkillsOptions};
use rmcp::RoleServer;
use rmcp::model::{
    ErrorData, GetSkillResult, ListResourcesResult, ListSkillsResult, Resource, ResourceContents,
    ServerCapabilities, Skill as McpSkill, SkillFrontmatter, SkillResource, SkillResources,
};
use rmcp::service::Peer;
use tokio::sync::watch;

/// Declares the skills extension and the resources it reads files through,
/// with `listChanged`: a reload is told as `notifications/resources/list_changed`.
pub(crate) fn declare(capabilities: &mut ServerCapabilities) {
    let with = ServerCapabilities::builder()
        .enable_resources()
        .enable_resources_list_changed()
        .enable_skills()
        .build();
    capabilities.resources = with.resources;
    let extensions = capabilities.extensions.get_or_insert_with(Default::default);
    extensions.extend(with.extensions.unwrap_or_default());
}

/// The next replacement of the skills; never, without skills.
pub(crate) async fn changed(changes: &mut Option<watch::Receiver<Arc<SkillSet>>>) -> Option<()> {
    match changes {
        Some(changes) => changes.changed().await.ok(),
        None => std::future::pending().await,
    }
}

/// Sends `notifications/resources/list_changed` at each replacement of the
/// skills, until the client is gone.
pub(crate) async fn notify_changes(
    mut changes: watch::Receiver<Arc<SkillSet>>,
    peer: Peer<RoleServer>,
) {
    changes.mark_unchanged();
    while changes.changed().await.is_ok() {
        changes.mark_unchanged();
        if let Err(err) = peer.notify_resource_list_changed().await {
            tracing::debug!("can't send notifications/resources/list_changed: {err}");
            return;
        }
    }
}

/// How many skills one `skills/list` page holds.
const PAGE: usize = 100;

/// The skills being served: replaced as a whole on reload, and every client
/// session told (`notifications/resources/list_changed`).
#[derive(Clone)]
pub struct LiveSkills {
    sender: Arc<watch::Sender<Arc<SkillSet>>>,
}

impl LiveSkills {
    pub fn new(set: SkillSet) -> Self {
        LiveSkills {
            sender: Arc::new(watch::Sender::new(Arc::new(set))),
        }
    }

    pub fn current(&self) -> Arc<SkillSet> {
        self.sender.borrow().clone()
    }

    /// Serves `set` from now on.
    pub fn replace(&self, set: SkillSet) {
        self.sender.send_replace(Arc::new(set));
    }

    /// Changes from now on.
    pub fn changes(&self) -> watch::Receiver<Arc<SkillSet>> {
        self.sender.subscribe()
    }

    /// Reloads the skills from `options` whenever a file under its directory
    /// changes (checked every `period`), for as long as the handle lives.
    pub fn reload_on_change(&self, options: SkillsOptions, period: Duration) -> ReloadTask {
        let live = self.clone();
        let task = tokio::spawn(async move {
            let mut seen = fingerprint(&options.dir);
            loop {
                tokio::time::sleep(period).await;
                let now = fingerprint(&options.dir);
                if now == seen {
                    continue;
                }
                seen = now;
                let set = riverse_skills::load(&options);
                tracing::info!(target: "reload", "skills changed: {} served", served(&set).len());
                live.replace(set);
            }
        });
        ReloadTask(task)
    }
}

/// Stops the reloading when dropped.
pub struct ReloadTask(tokio::task::JoinHandle<()>);

impl Drop for ReloadTask {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Every file under `dir` with its size and time, in path order.
fn fingerprint(dir: &Path) -> Vec<(PathBuf, u64, Option<SystemTime>)> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(next) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&next) else {
            continue;
        };
        for entry in entries.filter_map(Result::ok) {
            let Ok(meta) = entry.metadata() else { continue };
            if meta.is_dir() && found.len() < 10_000 {
                pending.push(entry.path());
            }
            found.push((entry.path(), meta.len(), meta.modified().ok()));
        }
    }
    found.sort();
    found
}

/// `skill://` and the name, percent-encoded where it is not ASCII.
fn skill_root(name: &str) -> String {
    format!("skill://{}", encode(name))
}

/// Every byte but RFC 3986's unreserved ones (and `/` in a path) as `%XX`.
fn encode(text: &str) -> String {
    text.bytes()
        .map(|byte| match byte {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                char::from(byte).to_string()
            }
            other => format!("%{other:02X}"),
        })
        .collect()
}

/// `text` with `%XX` decoded; `None` when that is not UTF-8.
pub(crate) fn decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at] == b'%' {
            let hex = text.get(at + 1..at + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            at += 3;
        } else {
            out.push(bytes[at]);
            at += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// One skill as the extension lists it; `None` (logged) when it can't be
/// served: a name the Agent Skills rules refuse, or files over the limits.
fn entry_of(skill: &riverse_skills::Skill) -> Option<McpSkill> {
    let root = skill_root(&skill.name);
    let files = match skill.manifest() {
        Ok(files) => files,
        Err(err) => {
            tracing::warn!("skill {} is not served over MCP: {err}", skill.name);
            return None;
        }
    };
    let resources = files
        .into_iter()
        .map(|file| {
            SkillResource::new(
                format!("{root}/{}", encode(&file.path)),
                file.digest,
                file.size,
            )
        })
        .collect();
    let mut frontmatter = SkillFrontmatter::new(skill.name.clone(), skill.description.clone());
    for (key, value) in skill.frontmatter() {
        if key != "name" && key != "description" {
            frontmatter.extra.insert(key.clone(), value.clone());
        }
    }
    let entry = McpSkill::new(
        format!("{root}/SKILL.md"),
        frontmatter,
        SkillResources::Files(resources),
    );
    match entry.validate() {
        Ok(()) => Some(entry),
        Err(err) => {
            tracing::debug!("skill {} is not served over MCP: {err}", skill.name);
            None
        }
    }
}

/// The skills of `set` that MCP serves, in load order.
pub fn served(set: &SkillSet) -> Vec<McpSkill> {
    set.skills().filter_map(entry_of).collect()
}

/// `skills/list`: a page of [`PAGE`] skills from `cursor` (an index).
pub fn list(set: &SkillSet, cursor: Option<&str>) -> Result<ListSkillsResult, ErrorData> {
    let all = served(set);
    let start = match cursor {
        None => 0,
        Some(cursor) => cursor
            .parse::<usize>()
            .ok()
            .filter(|start| *start <= all.len())
            .ok_or_else(|| ErrorData::invalid_params(format!("unknown cursor {cursor:?}"), None))?,
    };
    let end = (start + PAGE).min(all.len());
    let mut page = ListSkillsResult::with_all_items(all[start..end].to_vec());
    page.next_cursor = (end < all.len()).then(|| end.to_string());
    Ok(page)
}

/// `skills/get`: the entry of the skill whose `SKILL.md` is at `uri`.
pub fn get(set: &SkillSet, uri: &str) -> Result<GetSkillResult, ErrorData> {
    served(set)
        .into_iter()
        .find(|skill| skill.uri == uri)
        .map(GetSkillResult::new)
        .ok_or_else(|| ErrorData::invalid_params(format!("no skill is served at {uri}"), None))
}

/// `resources/list`: each served skill's `SKILL.md`.
pub fn resources(set: &SkillSet) -> ListResourcesResult {
    let listed = set
        .skills()
        .filter_map(|skill| {
            let entry = entry_of(skill)?;
            let size = match &entry.resources {
                SkillResources::Files(files) => files.first().map(|file| file.size),
                _ => None,
            };
            let mut resource = Resource::new(entry.uri, skill.name.clone())
                .with_description(skill.description.clone())
                .with_mime_type("text/markdown");
            if let Some(size) = size {
                resource = resource.with_size(size);
            }
            Some(resource)
        })
        .collect();
    ListResourcesResult::with_all_items(listed)
}

/// `resources/read` of a `skill://` URI: the file's bytes, as text when they
/// are UTF-8, else base64. A path that leaves the skill's folder, or a skill
/// MCP does not serve, is `-32602`.
pub fn read(set: &SkillSet, uri: &str) -> Result<ResourceContents, ErrorData> {
    let unknown = || ErrorData::invalid_params(format!("no skill file is served at {uri}"), None);
    let skill = set
        .skills()
        .filter(|skill| {
            uri.strip_prefix(&skill_root(&skill.name))
                .is_some_and(|rest| rest.starts_with('/'))
        })
        .find(|skill| entry_of(skill).is_some())
        .ok_or_else(unknown)?;
    let relative = &uri[skill_root(&skill.name).len() + 1..];
    let relative = decode(relative).ok_or_else(unknown)?;
    let bytes = skill
        .read_file(&relative)
        .map_err(|err| ErrorData::invalid_params(format!("{uri}: {err}"), None))?;
    let mime = mime_of(&relative);
    Ok(match String::from_utf8(bytes) {
        Ok(text) => ResourceContents::text(text, uri).with_mime_type(mime.unwrap_or("text/plain")),
        Err(err) => {
            let blob = base64::engine::general_purpose::STANDARD.encode(err.into_bytes());
            let mime = mime.unwrap_or("application/octet-stream");
            ResourceContents::blob(blob, uri).with_mime_type(mime)
        }
    })
}

fn mime_of(path: &str) -> Option<&'static str> {
    let extension = path
        .rsplit_once('.')
        .map(|(_, ext)| ext.to_ascii_lowercase());
    Some(match extension.as_deref()? {
        "md" => "text/markdown",
        "txt" => "text/plain",
        "py" => "text/x-python",
        "json" => "application/json",
        "yaml" | "yml" => "application/yaml",
        "sh" => "text/x-shellscript",
        "png" => "image/png",
        "pdf" => "application/pdf",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_outside_ascii_are_percent_encoded_and_back() {
        assert_eq!(skill_root("天気"), "skill://%E5%A4%A9%E6%B0%97");
        assert_eq!(
            decode("%E5%A4%A9%E6%B0%97/a b").as_deref(),
            Some("天気/a b")
        );
        assert_eq!(encode("references/a b.md"), "references/a%20b.md");
        assert_eq!(decode("%ZZ"), None);
    }
}
