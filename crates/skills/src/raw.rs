//! Skills as written, and the checks made while they are read, so that each
//! fault carries the line and key the YAML reader puts on it.
//!
//! A value checked after it is read would be reported at the line of the
//! mapping around it; [`RawTrigger`] and [`RawStep`] therefore check inside
//! their own `visit_map`, and [`SkillName`] inside `visit_str`.

use std::fmt;

use serde::Deserialize;
use serde::de::value::MapAccessDeserializer;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use crate::model::{Step, Trigger, is_valid_skill_name};

/// One skill: a YAML entry, or a SKILL.md's front matter.
#[derive(Deserialize)]
pub(crate) struct RawSkill {
    pub name: SkillName,
    pub description: Option<String>,
    pub enabled: Option<Flag>,
    pub trigger: Option<RawTrigger>,
    pub instruction: Option<String>,
    pub steps: Option<Vec<RawStep>>,
    pub variables: Option<Map<String, Value>>,
    pub examples: Option<Vec<String>>,
    /// SKILL.md's way to give a keyword trigger.
    pub keywords: Option<Keywords>,
}

/// A YAML skill, checked as a whole: it has something to apply.
pub(crate) struct CheckedSkill(pub RawSkill);

impl<'de> Deserialize<'de> for CheckedSkill {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct SkillVisitor;
        impl<'de> Visitor<'de> for SkillVisitor {
            type Value = CheckedSkill;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a skill: name, description, trigger, instruction or steps")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<CheckedSkill, A::Error> {
                let raw = RawSkill::deserialize(MapAccessDeserializer::new(map))?;
                let instruction = raw.instruction.as_deref().unwrap_or_default();
                let steps = raw.steps.as_deref().unwrap_or_default();
                if instruction.trim().is_empty() && steps.is_empty() {
                    return Err(de::Error::custom(nothing_to_apply(&raw.name.0)));
                }
                Ok(CheckedSkill(raw))
            }
        }
        deserializer.deserialize_map(SkillVisitor)
    }
}

pub(crate) fn nothing_to_apply(name: &str) -> String {
    format!("skill {name:?} has neither an instruction nor steps: nothing to apply")
}

pub(crate) struct SkillName(pub String);

impl<'de> Deserialize<'de> for SkillName {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct NameVisitor;
        impl Visitor<'_> for NameVisitor {
            type Value = SkillName;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a skill name")
            }
            fn visit_str<E: de::Error>(self, name: &str) -> Result<SkillName, E> {
                let name = name.trim();
                if is_valid_skill_name(name) {
                    return Ok(SkillName(name.to_owned()));
                }
                Err(E::custom(format!(
                    "{name:?} can't name a skill: use up to 64 letters, digits, _ and - (not - first), as in explain_code"
                )))
            }
        }
        deserializer.deserialize_str(NameVisitor)
    }
}

/// `true`/`false`, also written as text (`"false"`), as Riverse's files do.
pub(crate) struct Flag(pub bool);

impl<'de> Deserialize<'de> for Flag {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct FlagVisitor;
        impl Visitor<'_> for FlagVisitor {
            type Value = Flag;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("true or false")
            }
            fn visit_bool<E: de::Error>(self, value: bool) -> Result<Flag, E> {
                Ok(Flag(value))
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<Flag, E> {
                match text.trim().to_ascii_lowercase().as_str() {
                    "true" | "yes" | "on" => Ok(Flag(true)),
                    "false" | "no" | "off" => Ok(Flag(false)),
                    _ => Err(E::custom(format!("expected true or false, got {text:?}"))),
                }
            }
        }
        deserializer.deserialize_any(FlagVisitor)
    }
}

/// A list of keywords, or one written alone; none of them empty.
pub(crate) struct Keywords(pub Vec<String>);

impl<'de> Deserialize<'de> for Keywords {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeywordsVisitor;
        impl<'de> Visitor<'de> for KeywordsVisitor {
            type Value = Keywords;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a list of keywords")
            }
            fn visit_str<E: de::Error>(self, keyword: &str) -> Result<Keywords, E> {
                checked_keywords(vec![keyword.to_owned()])
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Keywords, A::Error> {
                let mut keywords = Vec::new();
                while let Some(keyword) = seq.next_element::<String>()? {
                    keywords.push(keyword);
                }
                checked_keywords(keywords)
            }
        }
        deserializer.deserialize_any(KeywordsVisitor)
    }
}

fn checked_keywords<E: de::Error>(keywords: Vec<String>) -> Result<Keywords, E> {
    if keywords.iter().any(|keyword| keyword.trim().is_empty()) {
        return Err(E::custom(
            "a keyword is empty, and would match every message",
        ));
    }
    Ok(Keywords(keywords))
}

/// `trigger:` as written, checked as a whole.
pub(crate) struct RawTrigger(pub Trigger);

#[derive(Deserialize)]
struct TriggerFields {
    #[serde(rename = "type")]
    kind: Option<String>,
    keywords: Option<Keywords>,
    cron: Option<String>,
}

impl<'de> Deserialize<'de> for RawTrigger {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct TriggerVisitor;
        impl<'de> Visitor<'de> for TriggerVisitor {
            type Value = RawTrigger;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a trigger: {type: keyword, keywords: [...]} or {type: schedule, cron: \"...\"}")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<RawTrigger, A::Error> {
                let fields = TriggerFields::deserialize(MapAccessDeserializer::new(map))?;
                trigger(fields).map(RawTrigger).map_err(de::Error::custom)
            }
        }
        deserializer.deserialize_map(TriggerVisitor)
    }
}

/// Riverse's default trigger type is `keyword`.
fn trigger(fields: TriggerFields) -> Result<Trigger, String> {
    match fields.kind.as_deref().map(str::trim).unwrap_or("keyword") {
        "keyword" => match fields.keywords {
            Some(Keywords(keywords)) if !keywords.is_empty() => Ok(Trigger::Keyword { keywords }),
            _ => Err("a keyword trigger needs keywords (leave trigger out to have the LLM choose the skill)".into()),
        },
        "schedule" => {
            let cron = fields.cron.unwrap_or_default();
            match cron.split_whitespace().count() {
                5 => Ok(Trigger::Schedule { cron: cron.trim().to_owned() }),
                _ => Err(format!(
                    "cron {cron:?} is not five fields (minute hour day month weekday), as in \"0 20 * * 0\""
                )),
            }
        }
        other => Err(format!("unknown trigger type {other:?}: use keyword or schedule")),
    }
}

/// One of `steps:`, checked as a whole.
pub(crate) struct RawStep(pub Step);

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StepFields {
    tool: Option<String>,
    params: Option<Map<String, Value>>,
    save_as: Option<String>,
    respond: Option<String>,
}

impl<'de> Deserialize<'de> for RawStep {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct StepVisitor;
        impl<'de> Visitor<'de> for StepVisitor {
            type Value = RawStep;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a step: {tool, params, save_as} or {respond: prompt}")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<RawStep, A::Error> {
                let fields = StepFields::deserialize(MapAccessDeserializer::new(map))?;
                step(fields).map(RawStep).map_err(de::Error::custom)
            }
        }
        deserializer.deserialize_map(StepVisitor)
    }
}

fn step(fields: StepFields) -> Result<Step, String> {
    match (fields.tool, fields.respond) {
        (Some(tool), None) => {
            let tool = tool.trim().to_owned();
            if tool.is_empty() {
                return Err("tool must name a tool".into());
            }
            if let Some(name) = &fields.save_as
                && !is_variable_name(name)
            {
                return Err(format!(
                    "save_as {name:?} can't name a variable: use letters, digits and _"
                ));
            }
            Ok(Step::Tool {
                tool,
                params: fields.params.unwrap_or_default(),
                save_as: fields.save_as,
            })
        }
        (None, Some(respond)) if fields.params.is_none() && fields.save_as.is_none() => {
            Ok(Step::Respond { respond })
        }
        (None, Some(_)) => Err("a respond step takes only respond".into()),
        (Some(_), Some(_)) => Err("a step has tool or respond, not both".into()),
        (None, None) => Err("a step needs tool (with params and save_as) or respond".into()),
    }
}

/// What `{name}` can name: letters of any script, digits and `_`.
pub(crate) fn is_variable_name(name: &str) -> bool {
    !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_')
}
