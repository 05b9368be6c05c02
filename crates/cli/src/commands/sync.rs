//! `riverse sync [--rebuild]`

use riverse_agent::{Settings, options::environment_options, sync_environment};
use riverse_python::environment::summary;

use crate::output::{Exit, print};

pub async fn run(settings: &Settings, rebuild: bool) -> anyhow::Result<Exit> {
    let prepared = sync_environment(settings, rebuild)
        .await
        .map_err(anyhow::Error::msg)?;
    let environment = environment_options(settings);
    let line = summary(&settings.tools_dir(), &settings.project_dir, &environment);
    print(&line.unwrap_or_else(|| {
        format!(
            "nothing to install: no tool file in {} declares a package (a `# /// script` block) and it has no requirements.txt",
            settings.tools_dir().display()
        )
    }))?;
    for unmet in &prepared.unmet {
        eprintln!("{}: {}", unmet.file, unmet.error);
    }
    Ok(if prepared.unmet.is_empty() {
        Exit::Success
    } else {
        Exit::Failure
    })
}
