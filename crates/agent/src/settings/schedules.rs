//! The `schedules` section, and the schedules of both sources.
//!
//! ```yaml
//! schedules:
//!   - name: morning_digest
//!     cron: "0 8 * * 1-5"          # minute hour day month weekday
//!     timezone: Europe/Berlin      # IANA; default the machine's
//!     message: Summarise what changed yesterday
//!     # skill: weekly_summary      # instead of message
//!     catch_up: skip               # skip | once | all
//!     approval: deny               # deny | auto: a call whose approval asks
//!     notify: {webhook: "https://example.com/hook"}
//! ```
//!
//! Each entry is checked on its own: a bad cron expression, time zone,
//! `catch_up` or `approval`, or a schedule with both or neither of `message`
//! and `skill`, is an error of that schedule naming it and the value, and
//! the other schedules still load. [`Settings::schedules`] adds the skills
//! whose trigger is a schedule, and checks each `skill:` against the skills.

use std::path::PathBuf;

use riverse_schedules::Cadence;
use riverse_skills::{SkillSet, Trigger};
use serde::Serialize;
use serde_yaml_ng::Value;

use super::values::HttpUrl;
use super::{Settings, yaml_text};

/// The keys a schedule entry may have.
const KEYS: [&str; 8] = [
    "name", "cron", "timezone", "message", "skill", "catch_up", "approval", "notify",
];

/// What a run of a schedule is: a message, as `riverse ask MESSAGE`, or a
/// skill applied explicitly, as `/NAME`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Runs {
    Message(String),
    Skill(String),
}

/// `catch_up`: what a server does at start with the runs it missed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CatchUp {
    /// None of them.
    #[default]
    Skip,
    /// One, for all of them.
    Once,
    /// Each, up to a cap.
    All,
}

/// `approval`: the answer a run gives a call whose approval asks; nobody is
/// there to ask.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ScheduleApproval {
    #[default]
    Deny,
    Auto,
}

/// Where a schedule is declared.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ScheduleSource {
    /// `schedules[index]` in settings.
    Settings { index: usize },
    /// A skill with `trigger: {type: schedule}`, in this file.
    Skill { file: PathBuf },
}

/// One schedule, checked; `errors` empty when it can run.
#[derive(Debug, Clone, Serialize)]
pub struct Schedule {
    /// `schedules[N]` for an entry without one.
    pub name: String,
    pub source: ScheduleSource,
    /// As written.
    pub cron: String,
    /// As written; `None` for the machine's zone.
    pub timezone: Option<String>,
    /// The cron expression and zone, parsed; `None` when either is bad.
    #[serde(skip)]
    pub cadence: Option<Cadence>,
    /// `None` when the entry had both or neither of message and skill.
    pub runs: Option<Runs>,
    pub catch_up: CatchUp,
    pub approval: ScheduleApproval,
    /// `notify.webhook`.
    pub webhook: Option<String>,
    /// Each a line naming the schedule and the value at fault.
    pub errors: Vec<String>,
}

impl Schedule {
    /// The message a run sends: the schedule's own, or `/SKILL`.
    pub fn message(&self) -> Option<String> {
        match self.runs.as_ref()? {
            Runs::Message(message) => Some(message.clone()),
            Runs::Skill(skill) => Some(format!("/{skill}")),
        }
    }
}

/// Reads `schedules:`; never fails, as each entry carries its own errors.
pub(super) fn schedules_settings(raw: Vec<Value>) -> Vec<Schedule> {
    let mut schedules: Vec<Schedule> = Vec::new();
    for (index, entry) in raw.into_iter().enumerate() {
        let mut schedule = entry_schedule(index, &entry);
        if schedules.iter().any(|known| known.name == schedule.name) {
            let error = format!(
                "schedule {:?}: the name is already used by another schedule",
                schedule.name
            );
            schedule.errors.push(error);
        }
        schedules.push(schedule);
    }
    schedules
}

fn entry_schedule(index: usize, entry: &Value) -> Schedule {
    let Some(map) = entry.as_mapping() else {
        let name = format!("schedules[{index}]");
        return Schedule {
            errors: vec![format!(
                "schedule {name:?}: expected a mapping (name, cron, message or skill), got {}",
                yaml_text(entry)
            )],
            name,
            source: ScheduleSource::Settings { index },
            cron: String::new(),
            timezone: None,
            cadence: None,
            runs: None,
            catch_up: CatchUp::default(),
            approval: ScheduleApproval::default(),
            webhook: None,
        };
    };
    let mut errors = Vec::new();
    let text = |key: &str, errors: &mut Vec<String>| match map.get(key) {
        None | Some(Value::Null) => None,
        Some(Value::String(value)) => Some(value.clone()),
        Some(other) => {
            errors.push(format!("{key}: expected text, got {}", yaml_text(other)));
            None
        }
    };
    let name = text("name", &mut errors).filter(|name| !name.trim().is_empty());
    let cron = text("cron", &mut errors).unwrap_or_default();
    let timezone = text("timezone", &mut errors).filter(|zone| !zone.trim().is_empty());
    let message = text("message", &mut errors);
    let skill = text("skill", &mut errors);
    let catch_up = text("catch_up", &mut errors);
    let approval = text("approval", &mut errors);
    if name.is_none() {
        errors.push("every schedule needs a name".into());
    }
    for key in map.keys() {
        let known = key.as_str().is_some_and(|key| KEYS.contains(&key));
        if !known {
            errors.push(format!(
                "unknown key {}; a schedule takes {}",
                yaml_text(key),
                KEYS.join(", ")
            ));
        }
    }
    let cadence = if cron.trim().is_empty() {
        errors.push("cron: missing; five fields, as in \"0 20 * * 0\"".into());
        None
    } else {
        Cadence::parse(&cron, timezone.as_deref())
            .map_err(|err| errors.push(err.to_string()))
            .ok()
    };
    let runs = match (message, skill) {
        (Some(message), None) => Some(Runs::Message(message)),
        (None, Some(skill)) => Some(Runs::Skill(skill.trim().to_owned())),
        (Some(_), Some(_)) => {
            errors.push("has both message and skill; give one".into());
            None
        }
        (None, None) => {
            errors.push("needs a message or a skill to run".into());
            None
        }
    };
    let catch_up = catch_up_of(catch_up.as_deref(), &mut errors);
    let approval = approval_of(approval.as_deref(), &mut errors);
    let webhook = notify_webhook(map.get("notify"), &mut errors);
    let name = name.unwrap_or_else(|| format!("schedules[{index}]"));
    Schedule {
        errors: errors
            .into_iter()
            .map(|error| format!("schedule {name:?}: {error}"))
            .collect(),
        name,
        source: ScheduleSource::Settings { index },
        cron,
        timezone,
        cadence,
        runs,
        catch_up,
        approval,
        webhook,
    }
}

/// `catch_up`: `skip` (the default), `once` or `all`.
fn catch_up_of(text: Option<&str>, errors: &mut Vec<String>) -> CatchUp {
    match text.map(str::trim) {
        None | Some("skip") => CatchUp::Skip,
        Some("once") => CatchUp::Once,
        Some("all") => CatchUp::All,
        Some(other) => {
            errors.push(format!("catch_up {other:?} is none of skip, once, all"));
            CatchUp::Skip
        }
    }
}

/// `approval`: `deny` (the default) or `auto`.
fn approval_of(text: Option<&str>, errors: &mut Vec<String>) -> ScheduleApproval {
    match text.map(str::trim) {
        None | Some("deny") => ScheduleApproval::Deny,
        Some("auto") => ScheduleApproval::Auto,
        Some(other) => {
            errors.push(format!("approval {other:?} is none of deny, auto"));
            ScheduleApproval::Deny
        }
    }
}

/// `notify: {webhook: URL}`.
fn notify_webhook(notify: Option<&Value>, errors: &mut Vec<String>) -> Option<String> {
    let notify = notify.filter(|notify| !notify.is_null())?;
    let webhook = notify.as_mapping().and_then(|map| map.get("webhook"));
    match webhook {
        Some(Value::String(url)) => HttpUrl::parse(url)
            .map(|url| url.as_str().to_owned())
            .map_err(|why| errors.push(format!("notify.webhook: {why}")))
            .ok(),
        _ => {
            errors.push(format!(
                "notify: expected {{webhook: URL}}, got {}",
                yaml_text(notify)
            ));
            None
        }
    }
}

impl Settings {
    /// [`Settings::schedules`] with the project's skills, loaded from
    /// `skills.dir`.
    pub fn load_schedules(&self) -> Vec<Schedule> {
        let skills = riverse_skills::load(&super::options::skills_options(self));
        self.schedules(&skills)
    }

    /// Every schedule: the settings' in order, then the skills whose trigger
    /// is a schedule. A `skill:` that names no enabled skill, and a skill
    /// whose name a settings schedule took, are errors of that schedule.
    pub fn schedules(&self, skills: &SkillSet) -> Vec<Schedule> {
        let mut schedules = self.schedules.clone();
        for schedule in &mut schedules {
            if let Some(Runs::Skill(name)) = &schedule.runs
                && skills.get(name).is_none()
            {
                let error = format!(
                    "schedule {:?}: skill {name:?} does not exist in {} (or is turned off)",
                    schedule.name,
                    skills.dir().display()
                );
                schedule.errors.push(error);
            }
        }
        for skill in skills.scheduled() {
            let Trigger::Schedule { cron } = &skill.trigger else {
                continue;
            };
            let mut errors = Vec::new();
            let cadence = Cadence::parse(cron, None)
                .map_err(|err| errors.push(format!("schedule {:?}: {err}", skill.name)))
                .ok();
            if schedules.iter().any(|known| known.name == skill.name) {
                errors.push(format!(
                    "schedule {:?}: the name is already used by a schedule in settings",
                    skill.name
                ));
            }
            schedules.push(Schedule {
                name: skill.name.clone(),
                source: ScheduleSource::Skill {
                    file: skill.source.file.clone(),
                },
                cron: cron.clone(),
                timezone: None,
                cadence,
                runs: Some(Runs::Skill(skill.name.clone())),
                catch_up: CatchUp::default(),
                approval: ScheduleApproval::default(),
                webhook: None,
                errors,
            });
        }
        schedules
    }
}

#[cfg(test)]
#[path = "schedules_tests.rs"]
mod tests;
