use chrono::{DateTime, Utc};
use pretty_assertions::assert_eq;

use super::*;

fn utc(text: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(text)
        .unwrap()
        .with_timezone(&Utc)
}

fn ticks(cron: &str, zone: &str, from: &str, to: &str) -> Vec<String> {
    let cadence = Cadence::parse(cron, Some(zone)).unwrap();
    let missed = cadence.missed(utc(from), utc(to), 100);
    assert!(!missed.capped);
    missed
        .ticks
        .iter()
        .map(|tick| tick.with_timezone(&cadence.zone()).to_rfc3339())
        .collect()
}

#[test]
fn next_run_is_read_on_the_zones_wall_clock() {
    let sunday_evening = Cadence::parse("0 20 * * 0", Some("Asia/Tokyo")).unwrap();
    // Friday 2026-12-04 23:50 UTC is Saturday 08:50 in Tokyo.
    let next = sunday_evening
        .next_after(utc("2026-12-04T23:50:00Z"))
        .unwrap();
    assert_eq!(next, utc("2026-12-06T11:00:00Z"));
    // Strictly after: a tick is never its own next run.
    assert_eq!(
        sunday_evening.next_after(next).unwrap(),
        utc("2026-12-13T11:00:00Z")
    );
}

#[test]
fn a_daily_run_in_the_spring_gap_runs_once_after_it_in_berlin() {
    // 2026-03-29 02:00 CET becomes 03:00 CEST: 02:30 never happens that day.
    assert_eq!(
        ticks(
            "30 2 * * *",
            "Europe/Berlin",
            "2026-03-27T12:00:00Z",
            "2026-03-30T12:00:00Z"
        ),
        [
            "2026-03-28T02:30:00+01:00",
            "2026-03-29T03:00:00+02:00",
            "2026-03-30T02:30:00+02:00",
        ]
    );
}

#[test]
fn a_daily_run_in_the_autumn_overlap_runs_once_in_berlin() {
    // 2026-10-25 03:00 CEST becomes 02:00 CET: 02:30 happens twice.
    assert_eq!(
        ticks(
            "30 2 * * *",
            "Europe/Berlin",
            "2026-10-24T12:00:00Z",
            "2026-10-26T12:00:00Z"
        ),
        ["2026-10-25T02:30:00+02:00", "2026-10-26T02:30:00+01:00"]
    );
}

#[test]
fn a_daily_run_in_the_spring_gap_runs_once_after_it_in_new_york() {
    // 2026-03-08 02:00 EST becomes 03:00 EDT.
    assert_eq!(
        ticks(
            "15 2 * * *",
            "America/New_York",
            "2026-03-07T12:00:00Z",
            "2026-03-09T12:00:00Z"
        ),
        [
            "2026-03-07T02:15:00-05:00",
            "2026-03-08T03:00:00-04:00",
            "2026-03-09T02:15:00-04:00",
        ][1..]
    );
}

#[test]
fn a_daily_run_in_the_autumn_overlap_runs_once_in_new_york() {
    // 2026-11-01 02:00 EDT becomes 01:00 EST: 01:30 happens twice.
    assert_eq!(
        ticks(
            "30 1 * * *",
            "America/New_York",
            "2026-10-31T12:00:00Z",
            "2026-11-02T12:00:00Z"
        ),
        ["2026-11-01T01:30:00-04:00", "2026-11-02T01:30:00-05:00"]
    );
}

#[test]
fn an_hourly_run_follows_real_hours_across_both_changes() {
    // Berlin's day the clocks go back has 25 hours, the day they go forward
    // 23 (each window is that local day); every tick is a different instant,
    // an hour after the one before.
    for (from, to, hours) in [
        ("2026-10-24T21:59:00Z", "2026-10-25T22:59:00Z", 25),
        ("2026-03-28T22:59:00Z", "2026-03-29T21:59:00Z", 23),
    ] {
        let cadence = Cadence::parse("0 * * * *", Some("Europe/Berlin")).unwrap();
        let missed = cadence.missed(utc(from), utc(to), 100);
        assert_eq!(missed.ticks.len(), hours, "{from}");
        for pair in missed.ticks.windows(2) {
            assert_eq!((pair[1] - pair[0]).num_minutes(), 60, "{pair:?}");
        }
    }
}

#[test]
fn missed_runs_are_capped_and_say_so() {
    let every_minute = Cadence::parse("* * * * *", Some("UTC")).unwrap();
    let from = utc("2026-12-01T00:00:00Z");
    let missed = every_minute.missed(from, utc("2026-12-01T01:00:00Z"), 5);
    assert!(missed.capped);
    assert_eq!(missed.ticks.len(), 5);
    assert_eq!(missed.ticks[0], utc("2026-12-01T00:01:00Z"));
    let whole_hour = every_minute.missed(from, utc("2026-12-01T01:00:00Z"), 60);
    assert!(!whole_hour.capped);
    assert_eq!(whole_hour.ticks.last(), Some(&utc("2026-12-01T01:00:00Z")));
    let week = every_minute.missed(from, utc("2026-12-08T00:00:00Z"), usize::MAX);
    assert!(week.capped);
    assert_eq!(week.ticks.len(), MAX_MISSED);
    assert!(every_minute.missed(from, from, 10).ticks.is_empty());
}

#[test]
fn bad_expressions_and_zones_are_errors_naming_the_value() {
    for (cron, zone, expected) in [
        (
            "0 20 * *",
            Some("UTC"),
            "cron \"0 20 * *\": 4 fields; a schedule takes five (minute hour day month weekday), as in \"0 20 * * 0\"",
        ),
        (
            "0 0 20 * * 0",
            None,
            "cron \"0 0 20 * * 0\": 6 fields; a schedule takes five (minute hour day month weekday), as in \"0 20 * * 0\"",
        ),
        (
            "0 20 * * 0",
            Some("Mars/Olympus"),
            "time zone \"Mars/Olympus\" is not an IANA time zone name (such as \"Europe/Berlin\")",
        ),
    ] {
        let error = Cadence::parse(cron, zone).unwrap_err().to_string();
        assert_eq!(error, expected);
    }
    for (cron, field) in [
        ("61 * * * *", "minute \"61\": "),
        ("0 25 * * *", "hour \"25\": "),
        ("0 8 * * MOON", "weekday \"MOON\": "),
    ] {
        let error = Cadence::parse(cron, None).unwrap_err().to_string();
        let expected = format!("cron {cron:?}: {field}");
        assert!(error.starts_with(&expected), "{error}");
    }
}

#[test]
fn no_zone_is_the_machines() {
    let cadence = Cadence::parse(" 0  20 * * 0 ", None).unwrap();
    assert_eq!(cadence.zone(), machine_zone());
    assert_eq!(cadence.expression(), "0 20 * * 0");
}

#[test]
fn weekday_seven_is_sunday_and_a_day_or_a_weekday_is_enough() {
    let sunday = Cadence::parse("0 20 * * 7", Some("UTC")).unwrap();
    // Friday 2026-12-04: the next Sunday is the 6th.
    let from = utc("2026-12-04T12:00:00Z");
    assert_eq!(sunday.next_after(from), Some(utc("2026-12-06T20:00:00Z")));
    // The 5th (a Saturday) or a Monday: the 5th comes first, then Monday.
    let either = Cadence::parse("0 9 5 * MON", Some("UTC")).unwrap();
    let missed = either.missed(from, utc("2026-12-08T00:00:00Z"), 10);
    assert_eq!(
        missed.ticks,
        [utc("2026-12-05T09:00:00Z"), utc("2026-12-07T09:00:00Z")]
    );
    assert!(Cadence::parse("@daily", Some("UTC")).is_err());
}
