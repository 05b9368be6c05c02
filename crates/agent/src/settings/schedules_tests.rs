use pretty_assertions::assert_eq;
use riverse_skills::SkillSet;

use super::*;
use crate::settings::options::skills_options;

fn settings_in(project: &std::path::Path, yaml: &str) -> Settings {
    Settings::from_yaml(project, None, yaml).unwrap()
}

fn errors(schedules: &[Schedule]) -> Vec<&str> {
    schedules
        .iter()
        .flat_map(|schedule| schedule.errors.iter().map(String::as_str))
        .collect()
}

#[test]
fn a_schedule_reads_every_key() {
    let settings = settings_in(
        std::path::Path::new("/project"),
        "schedules:\n  - name: digest\n    cron: \"0 8 * * 1-5\"\n    timezone: Europe/Berlin\n    message: What changed?\n    catch_up: once\n    approval: auto\n    notify: {webhook: \"http://127.0.0.1:9/hook\"}\n  - {name: plain, cron: \"*/5 * * * *\", skill: packing}\n",
    );
    let [digest, plain] = settings.schedules.as_slice() else {
        panic!("two schedules: {:?}", settings.schedules)
    };
    assert_eq!(digest.errors, Vec::<String>::new());
    assert_eq!(digest.runs, Some(Runs::Message("What changed?".into())));
    assert_eq!(digest.timezone.as_deref(), Some("Europe/Berlin"));
    assert_eq!(
        digest.cadence.as_ref().unwrap().zone().name(),
        "Europe/Berlin"
    );
    assert_eq!(digest.catch_up, CatchUp::Once);
    assert_eq!(digest.approval, ScheduleApproval::Auto);
    assert_eq!(digest.webhook.as_deref(), Some("http://127.0.0.1:9/hook"));
    assert_eq!(digest.message().as_deref(), Some("What changed?"));
    assert_eq!(plain.errors, Vec::<String>::new());
    assert_eq!(plain.catch_up, CatchUp::Skip);
    assert_eq!(plain.approval, ScheduleApproval::Deny);
    assert_eq!(plain.message().as_deref(), Some("/packing"));
    assert_eq!(plain.timezone, None);
}

#[test]
fn a_bad_schedule_is_an_error_naming_it_and_the_value_and_the_others_load() {
    let settings = settings_in(
        std::path::Path::new("/project"),
        r#"schedules:
  - {name: bad_cron, cron: "61 * * * *", message: hi}
  - {name: bad_zone, cron: "0 8 * * *", timezone: Mars/Olympus, message: hi}
  - {name: bad_catch_up, cron: "0 8 * * *", message: hi, catch_up: twice}
  - {name: both, cron: "0 8 * * *", message: hi, skill: packing}
  - {name: neither, cron: "0 8 * * *"}
  - {name: four_fields, cron: "0 8 * *", message: hi, approval: ask}
  - {name: good, cron: "0 8 * * *", message: hi}
"#,
    );
    let names: Vec<&str> = settings.schedules.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "bad_cron",
            "bad_zone",
            "bad_catch_up",
            "both",
            "neither",
            "four_fields",
            "good"
        ]
    );
    let errors = errors(&settings.schedules);
    assert_eq!(errors.len(), 7, "{errors:#?}");
    assert!(
        errors[0].starts_with("schedule \"bad_cron\": cron \"61 * * * *\": "),
        "{}",
        errors[0]
    );
    assert_eq!(
        errors[1..],
        [
            "schedule \"bad_zone\": time zone \"Mars/Olympus\" is not an IANA time zone name (such as \"Europe/Berlin\")",
            "schedule \"bad_catch_up\": catch_up \"twice\" is none of skip, once, all",
            "schedule \"both\": has both message and skill; give one",
            "schedule \"neither\": needs a message or a skill to run",
            "schedule \"four_fields\": cron \"0 8 * *\": 4 fields; a schedule takes five (minute hour day month weekday), as in \"0 20 * * 0\"",
            "schedule \"four_fields\": approval \"ask\" is none of deny, auto",
        ]
    );
    assert!(settings.schedules[6].cadence.is_some());
}

#[test]
fn skills_on_a_schedule_join_and_a_missing_skill_is_named() {
    let project = tempfile::tempdir().unwrap();
    let skills_dir = project.path().join("agent/skills");
    std::fs::create_dir_all(&skills_dir).unwrap();
    std::fs::write(
        skills_dir.join("weekly.yaml"),
        "name: weekly_summary\ndescription: A Sunday evening greeting\ntrigger: {type: schedule, cron: \"0 20 * * 0\"}\nsteps:\n  - respond: Write a short, friendly weekend greeting.\n",
    )
    .unwrap();
    let settings = settings_in(
        project.path(),
        "schedules:\n  - {name: nightly, cron: \"0 1 * * *\", skill: nightly_report}\n  - {name: sunday, cron: \"0 9 * * 0\", skill: Weekly_Summary}\n",
    );
    let skills: SkillSet = riverse_skills::load(&skills_options(&settings));
    let schedules = settings.schedules(&skills);
    let names: Vec<&str> = schedules.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["nightly", "sunday", "weekly_summary"]);
    assert_eq!(
        errors(&schedules),
        [format!(
            "schedule \"nightly\": skill \"nightly_report\" does not exist in {} (or is turned off)",
            skills.dir().display()
        )]
    );
    let weekly = &schedules[2];
    assert_eq!(
        weekly.source,
        ScheduleSource::Skill {
            file: "agent/skills/weekly.yaml".into()
        }
    );
    assert_eq!(weekly.cron, "0 20 * * 0");
    assert_eq!(weekly.message().as_deref(), Some("/weekly_summary"));
    assert!(weekly.cadence.is_some());
}

#[test]
fn schedules_that_are_not_a_list_fail_the_settings() {
    let error = Settings::from_yaml(std::path::Path::new("/p"), None, "schedules: daily\n")
        .unwrap_err()
        .to_string();
    assert!(
        error.starts_with("settings.yaml: schedules: invalid type"),
        "{error}"
    );
}

#[test]
fn an_entry_that_is_not_a_mapping_or_has_no_name_is_named_by_its_place() {
    let settings = settings_in(
        std::path::Path::new("/project"),
        "schedules:\n  - daily\n  - {cron: \"0 8 * * *\", message: hi, every: day}\n",
    );
    let names: Vec<&str> = settings.schedules.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["schedules[0]", "schedules[1]"]);
    assert_eq!(
        errors(&settings.schedules),
        [
            "schedule \"schedules[0]\": expected a mapping (name, cron, message or skill), got daily",
            "schedule \"schedules[1]\": every schedule needs a name",
            "schedule \"schedules[1]\": unknown key every; a schedule takes name, cron, timezone, message, skill, catch_up, approval, notify",
        ]
    );
}
