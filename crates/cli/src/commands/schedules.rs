//! `riverse schedules [--json]` and `riverse schedules run NAME [--json]`
//!
//! The listing reads settings and skills and computes each schedule's next
//! run; no server is asked. `run` runs one schedule now, in the terminal, as
//! `riverse ask` runs a message: its own message, or `/SKILL` for a skill.
//! A call whose approval asks is answered by the schedule's `approval`
//! (`deny` unless `auto`), as nobody is there to ask; `riverse serve` runs
//! them at their times (`riverse_server::start_schedules`).

use chrono::{DateTime, Utc};
use riverse_agent::{Runs, Schedule, ScheduleApproval, ScheduleSource, Settings};
use serde_json::{Value, json};

use super::ask;
use crate::output::{Exit, print, print_json, usage};

pub fn list(settings: &Settings, as_json: bool) -> anyhow::Result<Exit> {
    let schedules = all(settings);
    let now = Utc::now();
    if as_json {
        let listed = schedules
            .iter()
            .map(|schedule| listed_json(schedule, now))
            .collect::<serde_json::Result<Vec<Value>>>()?;
        print_json(&json!({ "schedules": listed }))?;
    } else {
        print(&table(&schedules, now))?;
    }
    Ok(Exit::Success)
}

pub async fn run(settings: &Settings, name: &str, as_json: bool) -> anyhow::Result<Exit> {
    let schedules = all(settings);
    let Some(schedule) = schedules.iter().find(|schedule| schedule.name == name) else {
        let names: Vec<&str> = schedules.iter().map(|s| s.name.as_str()).collect();
        let known = if names.is_empty() {
            "there are none".to_owned()
        } else {
            format!("there are {}", names.join(", "))
        };
        return Err(usage(format!("no schedule named {name:?}; {known}")));
    };
    let message = match schedule.message() {
        Some(message) if schedule.errors.is_empty() => message,
        _ => {
            return Err(usage(format!(
                "schedule {name:?} can't run:\n  {}",
                schedule.errors.join("\n  ")
            )));
        }
    };
    let auto = schedule.approval == ScheduleApproval::Auto;
    ask::run_with(settings, &message, as_json, "schedule", |asker| {
        asker.for_schedule(auto)
    })
    .await
}

/// The settings' schedules, then the skills'.
pub fn all(settings: &Settings) -> Vec<Schedule> {
    settings.load_schedules()
}

/// The zone a schedule's times are read in (as written, else the
/// machine's); `None` when it is not a zone.
fn zone_name(schedule: &Schedule) -> Option<&'static str> {
    riverse_schedules::parse_zone(schedule.timezone.as_deref())
        .ok()
        .map(|zone| zone.name())
}

/// The next run after `now`, in the schedule's zone.
fn next_run(schedule: &Schedule, now: DateTime<Utc>) -> Option<String> {
    let cadence = schedule.cadence.as_ref()?;
    let next = cadence.next_after(now)?;
    Some(next.with_timezone(&cadence.zone()).to_rfc3339())
}

/// A schedule as `--json` lists it: its fields, `timezone` resolved, and
/// `next_run`.
fn listed_json(schedule: &Schedule, now: DateTime<Utc>) -> serde_json::Result<Value> {
    let mut value = serde_json::to_value(schedule)?;
    value["timezone"] = json!(zone_name(schedule));
    value["next_run"] = json!(next_run(schedule, now));
    Ok(value)
}

fn source_text(schedule: &Schedule) -> String {
    match &schedule.source {
        ScheduleSource::Settings { .. } => "settings".to_owned(),
        ScheduleSource::Skill { file } => format!("skill {}", file.display()),
    }
}

fn runs_text(schedule: &Schedule) -> String {
    match &schedule.runs {
        Some(Runs::Message(message)) => format!("message {:?}", first_line(message)),
        Some(Runs::Skill(skill)) => format!("skill {skill}"),
        None => "-".to_owned(),
    }
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or_default()
}

/// One row per schedule, its errors beneath.
fn table(schedules: &[Schedule], now: DateTime<Utc>) -> String {
    if schedules.is_empty() {
        return "no schedules: add `schedules:` to settings.yaml, or a skill with trigger {type: schedule, cron: \"...\"}".to_owned();
    }
    let rows: Vec<[String; 6]> = schedules
        .iter()
        .map(|schedule| {
            [
                schedule.name.clone(),
                source_text(schedule),
                schedule.cron.clone(),
                zone_name(schedule).unwrap_or("-").to_owned(),
                next_run(schedule, now).unwrap_or_else(|| "-".to_owned()),
                runs_text(schedule),
            ]
        })
        .collect();
    let header = ["NAME", "SOURCE", "CRON", "ZONE", "NEXT RUN", "RUNS"];
    let widths: Vec<usize> = (0..5)
        .map(|column| {
            rows.iter()
                .map(|row| row[column].chars().count())
                .chain([header[column].len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |cells: [&str; 6]| {
        let mut out = String::new();
        for (column, width) in widths.iter().enumerate() {
            out.push_str(&format!("{:width$}  ", cells[column]));
        }
        out.push_str(cells[5]);
        out.push('\n');
        out
    };
    let mut out = line(header);
    for (row, schedule) in rows.iter().zip(schedules) {
        out.push_str(&line(row.each_ref().map(String::as_str)));
        for error in &schedule.errors {
            out.push_str(&format!("    └ {error}\n"));
        }
    }
    let usable = schedules.iter().filter(|s| s.errors.is_empty()).count();
    out.push_str(&format!("{usable} of {} usable", schedules.len()));
    out
}
