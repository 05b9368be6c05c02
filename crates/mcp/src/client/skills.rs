//! The skills of configured MCP servers that declare the skills extension
//! (SEP-2640): listed with `skills/list`, named `SERVER__NAME`, and their
//! files read with `resources/read`, each checked against the digest and
//! size its entry lists.
//!
//! A server's skill never shadows a local one: a local skill (enabled or
//! not) that holds the same name keeps it, and the server's is refused,
//! with the reason. Two skills of one server with the same name are told
//! apart by the rest of their path (`SERVER__acme__refunds`).

use std::sync::Arc;

use base64::Engine;
use riverse_skills::{SkillSet, fold};
use rmcp::model::{ReadResourceRequestParams, ResourceContents, Skill, SkillResources};

use super::{McpOptions, ServerLink};
use crate::Error;
use crate::skills::decode;

/// The extension's limits on one skill.
const MAX_FILES: usize = 512;
const MAX_TOTAL_BYTES: u64 = 16 * 1024 * 1024;

/// One skill of a configured MCP server.
pub struct RemoteSkill {
    /// `SERVER__NAME`: the name Riverse knows it by.
    pub name: String,
    /// The server's name in `mcp.servers`.
    pub server: String,
    /// The entry as the server listed it: `uri`, `frontmatter`, `resources`.
    pub entry: Skill,
    /// Why the skill can't be used, when it can't: a local skill holds its
    /// name, or its entry breaks the extension's rules.
    pub refused: Option<String>,
    /// Refused because a local skill holds the name.
    pub conflict: bool,
    link: Arc<ServerLink>,
}

impl std::fmt::Debug for RemoteSkill {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoteSkill")
            .field("name", &self.name)
            .field("server", &self.server)
            .field("uri", &self.entry.uri)
            .field("refused", &self.refused)
            .finish()
    }
}

impl RemoteSkill {
    pub fn description(&self) -> &str {
        &self.entry.frontmatter.description
    }

    /// The bytes of `relative` (`SKILL.md`, `references/guide.md`), read from
    /// the server and checked against the digest and size the entry lists;
    /// a file the entry does not list is not read.
    pub async fn read_file(&self, relative: &str) -> Result<Vec<u8>, Error> {
        let failed = |cause: String| Error::SkillFailed {
            server: self.server.clone(),
            skill: self.name.clone(),
            cause,
        };
        if let Some(why) = &self.refused {
            return Err(failed(why.clone()));
        }
        let root = self.entry.uri.strip_suffix("SKILL.md").unwrap_or_default();
        let SkillResources::Files(files) = &self.entry.resources else {
            return Err(failed("its files have no digests".into()));
        };
        let listed = files
            .iter()
            .find(|file| {
                file.uri
                    .strip_prefix(root)
                    .and_then(decode)
                    .is_some_and(|path| path == relative)
            })
            .ok_or_else(|| failed(format!("{relative:?} is not a file of the skill")))?;
        let connected = self.link.connected().await?;
        let read = connected
            .peer
            .read_resource(ReadResourceRequestParams::new(listed.uri.clone()))
            .await
            .map_err(|err| failed(format!("can't read {}: {err}", listed.uri)))?;
        let bytes = match read.contents.into_iter().next() {
            Some(ResourceContents::TextResourceContents { text, .. }) => text.into_bytes(),
            Some(ResourceContents::BlobResourceContents { blob, .. }) => {
                base64::engine::general_purpose::STANDARD
                    .decode(blob)
                    .map_err(|err| failed(format!("{}: {err}", listed.uri)))?
            }
            _ => return Err(failed(format!("{} came back empty", listed.uri))),
        };
        listed
            .verify(&bytes)
            .map_err(|err| failed(err.to_string()))?;
        Ok(bytes)
    }
}

/// Every configured server's skills, and the servers that could not say.
#[derive(Debug, Default)]
pub struct McpSkills {
    pub skills: Vec<RemoteSkill>,
    /// A server that did not start or could not list its skills.
    pub failures: Vec<Error>,
}

impl McpSkills {
    /// The skills that can be used.
    pub fn usable(&self) -> impl Iterator<Item = &RemoteSkill> {
        self.skills.iter().filter(|skill| skill.refused.is_none())
    }

    /// A usable skill by its `SERVER__NAME`, in any case.
    pub fn get(&self, name: &str) -> Option<&RemoteSkill> {
        let wanted = fold(name);
        self.usable().find(|skill| fold(&skill.name) == wanted)
    }
}

/// Connects to every configured server at once (each within
/// `mcp.startup_timeout`) and lists the skills of those that declare the
/// skills extension; a server that doesn't has none. `local` holds the
/// names no server's skill may take. The connections stay open while the
/// skills live, for [`RemoteSkill::read_file`].
pub async fn mcp_skills(options: McpOptions, local: &SkillSet) -> McpSkills {
    let listings = options.servers.iter().map(|spec| {
        let link = Arc::new(ServerLink::new(spec, &options));
        let timeout = options.startup_timeout;
        async move {
            let listed = tokio::time::timeout(timeout, list(&link)).await;
            let listed = listed.unwrap_or_else(|_| {
                Err(Error::StartupTimedOut {
                    server: link.spec.name.clone(),
                    after: riverse_tool::seconds(timeout),
                    detail: link.release_spawned(),
                })
            });
            (link, listed)
        }
    });
    let mut joined = McpSkills::default();
    for (link, listed) in futures_util::future::join_all(listings).await {
        match listed {
            Ok(entries) => {
                for entry in entries {
                    let skill = named(entry, &link, local, &joined.skills);
                    joined.skills.push(skill);
                }
            }
            Err(err) => joined.failures.push(err),
        }
    }
    joined
}

/// The server's skills, none when it does not declare the extension.
async fn list(link: &Arc<ServerLink>) -> Result<Vec<Skill>, Error> {
    let connected = link.connected().await?;
    let declared = connected
        .peer
        .peer_info()
        .is_some_and(|info| info.capabilities.supports_skills());
    if !declared {
        return Ok(Vec::new());
    }
    connected
        .peer
        .list_all_skills()
        .await
        .map_err(|err| Error::ListFailed {
            server: link.spec.name.clone(),
            cause: format!("skills/list: {err}"),
        })
}

/// `entry` under `SERVER__NAME`, refused when that name is taken locally or
/// the entry breaks the extension's rules.
fn named(
    entry: Skill,
    link: &Arc<ServerLink>,
    local: &SkillSet,
    taken: &[RemoteSkill],
) -> RemoteSkill {
    let server = link.spec.name.clone();
    let mut name = format!("{server}__{}", entry.frontmatter.name);
    let is_taken = |name: &str| taken.iter().any(|skill| fold(&skill.name) == fold(name));
    if is_taken(&name) {
        // Another skill of this server has the name: the path tells them apart.
        let path = entry
            .uri
            .split_once("://")
            .map_or(entry.uri.as_str(), |(_, path)| path);
        let path = path.strip_suffix("/SKILL.md").unwrap_or(path);
        let path = decode(path).unwrap_or_else(|| path.to_owned());
        name = format!("{server}__{}", path.replace('/', "__"));
    }
    let held_locally = local.entries().iter().any(|held| {
        held.name
            .as_deref()
            .is_some_and(|held| fold(held) == fold(&name))
    });
    let refused = if held_locally {
        Some(format!(
            "a local skill holds the name {name}; a server's skill never shadows it"
        ))
    } else if is_taken(&name) {
        Some(format!("the server lists {name} twice"))
    } else {
        check(&entry).err()
    };
    RemoteSkill {
        name,
        server,
        entry,
        refused,
        conflict: held_locally,
        link: link.clone(),
    }
}

/// The extension's rules on an entry: valid, with digests, within limits.
fn check(entry: &Skill) -> Result<(), String> {
    entry.validate().map_err(|err| err.to_string())?;
    let SkillResources::Files(files) = &entry.resources else {
        return Err("its files are \"dynamic\": no digests to check them by".into());
    };
    let total: u64 = files.iter().map(|file| file.size).sum();
    if files.len() > MAX_FILES || total > MAX_TOTAL_BYTES {
        return Err(format!(
            "over the extension's limits ({MAX_FILES} files, 16 MiB): {} files, {total} bytes",
            files.len()
        ));
    }
    Ok(())
}
