//! `riverse tools --json` on a directory of trivial tools, as a whole process,
//! against the same discovery done by one plain Python process, and against
//! the bare interpreter's start (`python -c pass`): the floor no host can go
//! under, and the ratio that shows Riverse's own share drifting.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, ensure};
use serde_json::Value;

use crate::fixtures::{PURE_PYTHON_LISTING, TempProject, tool_source};
use crate::stats::Samples;

pub struct ListingTimes {
    pub riverse: Samples,
    pub pure_python: Samples,
    /// The same two on an empty tools directory: what is paid before any file.
    pub riverse_empty: Samples,
    pub pure_python_empty: Samples,
    /// `python -c pass`, timed beside them.
    pub bare_start: Samples,
}

pub fn measure(
    riverse: &Path,
    interpreter: &Path,
    tools: usize,
    runs: usize,
) -> anyhow::Result<ListingTimes> {
    let full = project(interpreter, tools)?;
    let empty = project(interpreter, 0)?;
    let mut times = ListingTimes {
        riverse: Samples::with_capacity(runs),
        pure_python: Samples::with_capacity(runs),
        riverse_empty: Samples::with_capacity(runs),
        pure_python_empty: Samples::with_capacity(runs),
        bare_start: Samples::with_capacity(runs),
    };
    let contenders = [
        (&full, tools, &mut times.riverse, &mut times.pure_python),
        (
            &empty,
            0,
            &mut times.riverse_empty,
            &mut times.pure_python_empty,
        ),
    ];
    for _ in 0..runs {
        times.bare_start.push(run(interpreter, &["-c", "pass"])?.0);
    }
    for (project, tools, riverse_times, python_times) in contenders {
        let dir = project.path().display().to_string();
        let tools_dir = project.tools_dir().display().to_string();
        let riverse_args = ["--dir", dir.as_str(), "tools", "--json"];
        let python_args = ["-c", PURE_PYTHON_LISTING, tools_dir.as_str()];
        // The first runs warm the page cache (and write the tools' bytecode
        // caches, unless PYTHONDONTWRITEBYTECODE is set); they also check that
        // both list every tool.
        let (_, output) = run(riverse, &riverse_args)?;
        check_listing("riverse tools --json", &output, tools, |tool| {
            tool["status"] == "available"
        })?;
        let (_, output) = run(interpreter, &python_args)?;
        check_listing("the plain Python listing", &output, tools, |_| true)?;
        for _ in 0..runs {
            riverse_times.push(run(riverse, &riverse_args)?.0);
            python_times.push(run(interpreter, &python_args)?.0);
        }
    }
    Ok(times)
}

/// A project of `tools` trivial tool files that runs `interpreter`.
fn project(interpreter: &Path, tools: usize) -> anyhow::Result<TempProject> {
    let project = TempProject::new()?;
    for index in 0..tools {
        let name = format!("tool_{index:03}");
        let body = format!(
            r#"        return ToolResult(success=True, data="{name}: " + params.get("text", ""))"#
        );
        project.tool(&format!("{name}.py"), &tool_source(&name, "text", &body))?;
    }
    let settings = format!(
        "python: {{interpreter: {:?}}}\n",
        interpreter.display().to_string()
    );
    std::fs::write(project.path().join("settings.yaml"), settings)
        .context("can't write settings.yaml")?;
    Ok(project)
}

fn run(program: &Path, args: &[&str]) -> anyhow::Result<(Duration, Output)> {
    let start = Instant::now();
    let output = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .with_context(|| format!("can't start {}", program.display()))?;
    let elapsed = start.elapsed();
    ensure!(
        output.status.success(),
        "{} failed ({}): {}",
        program.display(),
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    Ok((elapsed, output))
}

fn check_listing(
    what: &str,
    output: &Output,
    tools: usize,
    counts: impl Fn(&Value) -> bool,
) -> anyhow::Result<()> {
    let listing: Value = serde_json::from_slice(&output.stdout)
        .with_context(|| format!("{what} printed no JSON document"))?;
    let listed = listing["tools"]
        .as_array()
        .map(|all| all.iter().filter(|tool| counts(tool)).count());
    ensure!(
        listed == Some(tools),
        "{what} listed {listed:?} of {tools} tools; stderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    Ok(())
}
