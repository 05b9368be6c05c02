//! The table of results the host benchmarks print: one row per measure,
//! beside its baseline, the ratio to it, and its goal.

use std::time::Duration;

use crate::procfs::{Memory, format_kib};
use crate::stats::format_duration;

/// One line of the results.
struct Row {
    measure: String,
    value: String,
    baseline: String,
    ratio: String,
    goal: String,
    verdict: &'static str,
}

#[derive(Default)]
pub struct Table {
    rows: Vec<Row>,
    notes: Vec<String>,
}

impl Table {
    pub fn time(
        &mut self,
        measure: &str,
        value: Duration,
        baseline: Option<(&str, Duration)>,
        goal: Option<Duration>,
    ) {
        self.rows.push(Row {
            measure: measure.to_owned(),
            value: format_duration(value),
            baseline: baseline
                .map(|(name, base)| format!("{name}: {}", format_duration(base)))
                .unwrap_or_default(),
            ratio: baseline
                .map(|(_, base)| ratio(value.as_secs_f64(), base.as_secs_f64()))
                .unwrap_or_default(),
            goal: goal
                .map(|goal| format!("≤ {}", format_duration(goal)))
                .unwrap_or_default(),
            verdict: verdict(goal.map(|goal| value <= goal)),
        });
    }

    pub fn memory(
        &mut self,
        measure: &str,
        value: Memory,
        baseline: Option<(&str, Memory)>,
        goal_kib: Option<u64>,
    ) {
        let show = |memory: Memory| {
            format!(
                "{} (peak {})",
                format_kib(memory.rss_kib),
                format_kib(memory.hwm_kib)
            )
        };
        self.rows.push(Row {
            measure: measure.to_owned(),
            value: show(value),
            baseline: baseline
                .map(|(name, base)| format!("{name}: {}", show(base)))
                .unwrap_or_default(),
            ratio: baseline
                .map(|(_, base)| ratio(value.rss_kib as f64, base.rss_kib as f64))
                .unwrap_or_default(),
            goal: goal_kib
                .map(|goal| format!("≤ {}", format_kib(goal)))
                .unwrap_or_default(),
            verdict: verdict(goal_kib.map(|goal| value.rss_kib <= goal)),
        });
    }

    /// A size in KiB against a baseline, with a goal as a ratio to it.
    pub fn kib(
        &mut self,
        measure: &str,
        value: u64,
        baseline: Option<(&str, u64)>,
        goal_ratio: Option<f64>,
    ) {
        let met = baseline
            .zip(goal_ratio)
            .map(|((_, base), goal)| value as f64 <= base as f64 * goal);
        self.rows.push(Row {
            measure: measure.to_owned(),
            value: format_kib(value),
            baseline: baseline
                .map(|(name, base)| format!("{name}: {}", format_kib(base)))
                .unwrap_or_default(),
            ratio: baseline
                .map(|(_, base)| ratio(value as f64, base as f64))
                .unwrap_or_default(),
            goal: goal_ratio
                .map(|goal| format!("≤ {goal}×"))
                .unwrap_or_default(),
            verdict: verdict(met),
        });
    }

    pub fn note(&mut self, note: String) {
        self.notes.push(note);
    }

    pub fn render(&self) -> String {
        let header = Row {
            measure: "measure".into(),
            value: "riverse".into(),
            baseline: "baseline".into(),
            ratio: "ratio".into(),
            goal: "goal".into(),
            verdict: "",
        };
        let rows: Vec<&Row> = std::iter::once(&header).chain(&self.rows).collect();
        let width = |field: fn(&Row) -> &str| {
            rows.iter()
                .map(|row| field(row).chars().count())
                .max()
                .unwrap_or(0)
        };
        let widths = [
            width(|row| &row.measure),
            width(|row| &row.value),
            width(|row| &row.baseline),
            width(|row| &row.ratio),
            width(|row| &row.goal),
        ];
        let mut out = String::new();
        for row in rows {
            let cells = [
                &row.measure,
                &row.value,
                &row.baseline,
                &row.ratio,
                &row.goal,
            ];
            let mut line = String::new();
            for (cell, width) in cells.iter().zip(widths) {
                line.push_str(&format!("{cell:width$}  "));
            }
            line.push_str(row.verdict);
            out.push_str(line.trim_end());
            out.push('\n');
        }
        for note in &self.notes {
            out.push_str(&format!("- {note}\n"));
        }
        out
    }
}

fn ratio(value: f64, base: f64) -> String {
    if base > 0.0 {
        format!("{:.2}x", value / base)
    } else {
        String::new()
    }
}

fn verdict(met: Option<bool>) -> &'static str {
    match met {
        Some(true) => "met",
        Some(false) => "MISSED",
        None => "",
    }
}
