//! One skill file read into skills, or into the errors that say why not.
//!
//! A `skills:` list is read an entry at a time, each from the file's text,
//! so that a malformed entry is reported at its own line and key and the
//! entries around it still load.

use std::fmt;
use std::io::Read;
use std::path::Path;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use serde_yaml_ng::Value as Yaml;

use crate::error::LoadError;
use crate::model::{Content, Skill, Source, SourceKind, Trigger};
use crate::raw::{CheckedSkill, Flag, Keywords, RawSkill, RawStep, RawTrigger, nothing_to_apply};

/// A skill file is a page or two of text; anything this large is another file.
const MAX_FILE_BYTES: u64 = 1024 * 1024;

/// What one entry of a file yielded.
pub(crate) struct Parsed {
    pub source: Source,
    pub result: Result<Skill, LoadError>,
}

/// A `*.yaml` file: one skill, or a `skills:` list. `shown` is its path as
/// messages name it.
pub(crate) fn yaml_file(path: &Path, shown: &Path, kind: SourceKind) -> Vec<Parsed> {
    let source = |index: Option<usize>| Source {
        kind,
        file: shown.to_owned(),
        index,
    };
    let whole_file = |error: LoadError| {
        vec![Parsed {
            source: source(None),
            result: Err(error),
        }]
    };
    let text = match read_text(path) {
        Ok(text) => text,
        Err(why) => return whole_file(LoadError::new(shown, None, None, why)),
    };
    let document: Yaml = match serde_yaml_ng::from_str(&text) {
        Ok(document) => document,
        Err(err) => return whole_file(LoadError::from_yaml(shown, &err, 0)),
    };
    let Yaml::Mapping(top) = &document else {
        let message = match document {
            Yaml::Null => "the file is empty: expected a skill (with name) or a skills: list",
            _ => "expected a skill (with name) or a skills: list",
        };
        return whole_file(LoadError::new(shown, Some(1), None, message.into()));
    };
    let Some(list) = top.get("skills") else {
        let result = serde_yaml_ng::from_str::<CheckedSkill>(&text)
            .map_err(|err| LoadError::from_yaml(shown, &err, 0))
            .and_then(|CheckedSkill(raw)| yaml_skill(raw, &document, source(None), shown));
        return vec![Parsed {
            source: source(None),
            result,
        }];
    };
    let entries = match list {
        Yaml::Sequence(entries) => entries.as_slice(),
        Yaml::Null => &[],
        _ => {
            let error = LoadError::new(
                shown,
                None,
                Some("skills"),
                "expected a list of skills".into(),
            );
            return whole_file(error);
        }
    };
    entries
        .iter()
        .enumerate()
        .map(|(index, entry)| {
            let result = entry_at(&text, index)
                .map_err(|err| LoadError::from_yaml(shown, &err, 0))
                .and_then(|raw| yaml_skill(raw, entry, source(Some(index)), shown));
            Parsed {
                source: source(Some(index)),
                result,
            }
        })
        .collect()
}

/// `NAME/SKILL.md`: YAML front matter between `---` lines, then the
/// instruction.
pub(crate) fn skill_md(folder: &Path, shown: &Path) -> Parsed {
    let source = Source {
        kind: SourceKind::Folder,
        file: shown.to_owned(),
        index: None,
    };
    let result = read_text(&folder.join("SKILL.md"))
        .map_err(|why| LoadError::new(shown, None, None, why))
        .and_then(|text| {
            let (front, body) = split_front_matter(&text).ok_or_else(|| {
                let why = "SKILL.md must open with YAML front matter between --- lines (name, description)";
                LoadError::new(shown, Some(1), None, why.into())
            })?;
            // The front matter starts on the line after the opening `---`.
            let yaml_error = |err: serde_yaml_ng::Error| LoadError::from_yaml(shown, &err, 1);
            let document: Yaml = serde_yaml_ng::from_str(front).map_err(yaml_error)?;
            let mut raw: RawSkill = serde_yaml_ng::from_str(front).map_err(yaml_error)?;
            let body = body.trim();
            if body.is_empty() && raw.steps.as_ref().is_none_or(Vec::is_empty) {
                return Err(LoadError::new(shown, None, None, nothing_to_apply(&raw.name.0)));
            }
            raw.instruction = Some(body.to_owned());
            let mut skill = skill(raw, source.clone());
            // Listed as written: the MCP skills extension compares it with the file.
            skill.frontmatter = json_object(&document).map_err(|why| LoadError::new(shown, Some(2), None, why))?;
            skill.content = Content::Folder(folder.to_owned());
            Ok(skill)
        });
    Parsed { source, result }
}

fn read_text(path: &Path) -> Result<String, String> {
    let file = std::fs::File::open(path).map_err(|err| format!("can't read: {err}"))?;
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|err| format!("can't read: {err}"))?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err("larger than 1 MiB; is it a skill?".into());
    }
    let text = String::from_utf8(bytes).map_err(|err| format!("not UTF-8 text ({err})"))?;
    Ok(text
        .strip_prefix('\u{feff}')
        .map(str::to_owned)
        .unwrap_or(text))
}

/// (front matter, body) of a text that opens with a `---` line.
fn split_front_matter(text: &str) -> Option<(&str, &str)> {
    let (first, mut rest) = text.split_once('\n')?;
    if first.trim_end() != "---" {
        return None;
    }
    let front_start = rest;
    let mut front_len = 0;
    loop {
        let (line, after) = rest.split_once('\n').unwrap_or((rest, ""));
        if line.trim_end() == "---" {
            return Some((&front_start[..front_len], after));
        }
        if !rest.contains('\n') {
            return None;
        }
        front_len += line.len() + 1;
        rest = after;
    }
}

/// The skill an entry makes, its content still to be set by the caller.
fn skill(raw: RawSkill, source: Source) -> Skill {
    let trigger = match (raw.trigger, raw.keywords) {
        (Some(RawTrigger(trigger)), _) => trigger,
        (None, Some(Keywords(keywords))) => Trigger::Keyword { keywords },
        (None, None) => Trigger::Model,
    };
    Skill {
        name: raw.name.0,
        description: raw.description.unwrap_or_default(),
        enabled: raw.enabled.is_none_or(|Flag(enabled)| enabled),
        trigger,
        instruction: raw.instruction.unwrap_or_default(),
        steps: raw
            .steps
            .unwrap_or_default()
            .into_iter()
            .map(|RawStep(step)| step)
            .collect(),
        variables: raw.variables.unwrap_or_default(),
        examples: raw.examples.unwrap_or_default(),
        source,
        frontmatter: Map::new(),
        content: Content::Rendered(String::new()),
    }
}

/// A YAML skill, with a SKILL.md made from its entry: its keys but
/// `instruction` as front matter (`description` always there), the
/// instruction as the body.
fn yaml_skill(
    raw: RawSkill,
    entry: &Yaml,
    source: Source,
    shown: &Path,
) -> Result<Skill, LoadError> {
    let mut skill = skill(raw, source);
    let mut front = entry.as_mapping().cloned().unwrap_or_default();
    front.remove("instruction");
    if !front.contains_key("description") {
        front.insert(
            "description".into(),
            Yaml::String(skill.description.clone()),
        );
    }
    let front = Yaml::Mapping(front);
    skill.frontmatter = json_object(&front).map_err(|why| {
        let key = skill.source.index.map(|index| format!("skills[{index}]"));
        LoadError::new(shown, None, key.as_deref(), why)
    })?;
    let yaml = serde_yaml_ng::to_string(&front).unwrap_or_default();
    skill.content = Content::Rendered(format!("---\n{yaml}---\n\n{}\n", skill.instruction.trim()));
    Ok(skill)
}

fn json_object(yaml: &Yaml) -> Result<Map<String, Value>, String> {
    match serde_json::to_value(yaml) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err("expected a mapping of keys".into()),
        Err(err) => Err(format!("keys must be text ({err})")),
    }
}

/// Entry `index` of the `skills:` list in `text`, read alone: errors carry
/// its own line and key (`skills[1].trigger`).
fn entry_at(text: &str, index: usize) -> Result<RawSkill, serde_yaml_ng::Error> {
    let found = EntryAt(index).deserialize(serde_yaml_ng::Deserializer::from_str(text))?;
    found
        .map(|CheckedSkill(raw)| raw)
        .ok_or_else(|| de::Error::custom(format!("skills[{index}] is missing")))
}

struct EntryAt(usize);

impl<'de> DeserializeSeed<'de> for EntryAt {
    type Value = Option<CheckedSkill>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for EntryAt {
    type Value = Option<CheckedSkill>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a mapping with a skills: list")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut found = None;
        while let Some(key) = map.next_key::<Yaml>()? {
            if key.as_str() == Some("skills") {
                found = map.next_value_seed(ListEntry(self.0))?;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(found)
    }
}

struct ListEntry(usize);

impl<'de> DeserializeSeed<'de> for ListEntry {
    type Value = Option<CheckedSkill>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for ListEntry {
    type Value = Option<CheckedSkill>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of skills")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut found = None;
        let mut index = 0;
        loop {
            if index == self.0 {
                match seq.next_element::<CheckedSkill>()? {
                    Some(skill) => found = Some(skill),
                    None => break,
                }
            } else if seq.next_element::<IgnoredAny>()?.is_none() {
                break;
            }
            index += 1;
        }
        Ok(found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn front_matter_is_split_from_the_body() {
        assert_eq!(
            split_front_matter("---\nname: a\n---\nbody\n"),
            Some(("name: a\n", "body\n"))
        );
        assert_eq!(
            split_front_matter("---\r\nname: a\r\n---\r\nbody"),
            Some(("name: a\r\n", "body"))
        );
        assert_eq!(split_front_matter("---\n---\n"), Some(("", "")));
        assert_eq!(split_front_matter("name: a\n"), None);
        assert_eq!(split_front_matter("---\nname: a\n"), None);
    }
}
