//! A stdio MCP server's process: a [`riverse_process::Child`] whose stderr is
//! logged under the server's name and whose death is explained with its exit
//! and the last lines it printed.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use riverse_process::{Child, Relay, Spawned, Target};
use tokio::process::{ChildStdin, ChildStdout, Command};

use crate::Error;

/// What a stdio server is started with.
pub(crate) struct Launch<'a> {
    pub server: &'a str,
    pub command: &'a str,
    pub args: &'a [String],
    pub env: &'a BTreeMap<String, String>,
    /// Not inherited from Riverse's environment, unless `env` sets them.
    pub withheld: &'a [String],
    /// The server runs here; a relative command path resolves against it.
    pub dir: &'a Path,
}

/// A running server process. Dropping it kills the process group at once.
pub(crate) struct ServerProcess {
    child: Child,
}

impl ServerProcess {
    pub(crate) fn spawn(
        launch: Launch<'_>,
    ) -> Result<(ServerProcess, ChildStdout, ChildStdin), Error> {
        let program = if launch.command.contains('/') {
            launch.dir.join(launch.command)
        } else {
            launch.command.into()
        };
        let mut command = Command::new(&program);
        for variable in launch.withheld {
            command.env_remove(variable);
        }
        command
            .args(launch.args)
            .envs(launch.env)
            .current_dir(launch.dir);
        // Servers started through npx, uv or a shell leave children behind:
        // the group of its own lets one signal end them all.
        let relay = Relay {
            target: Target::Mcp,
            label: launch.server.to_owned(),
            marker: None,
        };
        let Spawned {
            child,
            stdin,
            stdout,
        } = Child::spawn(command, relay).map_err(|err| Error::SpawnFailed {
            server: launch.server.to_owned(),
            command: launch.command.to_owned(),
            cause: err.to_string(),
        })?;
        Ok((ServerProcess { child }, stdout, stdin))
    }

    pub(crate) fn is_running(&self) -> bool {
        self.child.exit().is_none()
    }

    /// Why the server is gone, waiting up to `grace` for its exit to be seen,
    /// with the last lines it wrote to stderr.
    pub(crate) async fn death(&self, grace: Duration) -> String {
        match self.exit_within(grace).await {
            Some(how) => format!("the server {how}{}", self.stderr_detail()),
            None => format!("the server closed its connection{}", self.stderr_detail()),
        }
    }

    /// How the process ended, if it does within `grace`.
    pub(crate) async fn exit_within(&self, grace: Duration) -> Option<riverse_process::Exit> {
        let exit = self.child.wait_within(grace).await?;
        self.child.stderr_ended(grace).await;
        Some(exit)
    }

    /// Kills the server and waits up to `grace` for the rest of its stderr.
    pub(crate) async fn stop(&self, grace: Duration) {
        self.child.kill();
        self.child.stderr_ended(grace).await;
    }

    /// `; its stderr ended with: ...`, or nothing when it printed nothing.
    pub(crate) fn stderr_detail(&self) -> String {
        let tail = self.child.stderr_tail();
        if tail.is_empty() {
            return String::new();
        }
        format!("; its stderr ended with: {}", tail.join(" | "))
    }
}
