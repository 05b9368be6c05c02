//! A PostgreSQL database of its own for each test, in the server that
//! `RIVERSE_TEST_POSTGRES_URL` names (`crates/store/tests/start-postgres.sh`
//! starts one).

/// A URL whose connections use a fresh, empty schema, or `None` when no
/// server is configured. On CI (`CI` set) a missing server is an error, so
/// the PostgreSQL tests can't be skipped there unnoticed.
pub async fn fresh_postgres_url() -> Option<String> {
    let Some(url) = std::env::var("RIVERSE_TEST_POSTGRES_URL")
        .ok()
        .filter(|url| !url.is_empty())
    else {
        crate::skip(
            "RIVERSE_TEST_POSTGRES_URL is not set (scripts/test starts a PostgreSQL server; see crates/store/tests/start-postgres.sh)",
        );
        return None;
    };
    let (client, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
        .await
        .unwrap_or_else(|err| panic!("connect to RIVERSE_TEST_POSTGRES_URL: {err}"));
    let connection = tokio::spawn(connection);
    let schema = format!("test_{}", uuid::Uuid::new_v4().simple());
    client
        .batch_execute(&format!("CREATE SCHEMA {schema}"))
        .await
        .expect("create a test schema");
    drop(client);
    let _ = connection.await;
    let separator = if url.contains('?') { '&' } else { '?' };
    Some(format!(
        "{url}{separator}options=-c%20search_path%3D{schema}"
    ))
}

/// A PostgreSQL server of a test's own, which the test may stop and start
/// again (the shared one of `RIVERSE_TEST_POSTGRES_URL` must stay up for the
/// others). Its data lives in a temporary directory, removed with it. Like
/// `crates/store/tests/start-postgres.sh`, it needs Debian's postgresql
/// package and runs as the postgres user when the tests run as root.
#[derive(Debug)]
pub struct OwnPostgres {
    bin: std::path::PathBuf,
    dir: std::path::PathBuf,
    port: u16,
}

impl OwnPostgres {
    /// A new server, started; `None` where PostgreSQL is not installed (on
    /// CI, where it must be, that is an error).
    pub fn start() -> Option<OwnPostgres> {
        let Some(bin) = postgres_bin() else {
            crate::skip(
                "PostgreSQL is not installed (apt-get install postgresql, or run scripts/test as root)",
            );
            return None;
        };
        let dir =
            std::env::temp_dir().join(format!("riverse-own-pg-{}", uuid::Uuid::new_v4().simple()));
        std::fs::create_dir_all(&dir).expect("make the data directory");
        let server = OwnPostgres {
            bin,
            dir,
            port: free_port(),
        };
        if is_root() {
            let chown = std::process::Command::new("chown")
                .arg("postgres:")
                .arg(&server.dir)
                .status();
            assert!(
                chown.is_ok_and(|status| status.success()),
                "chown {}",
                server.data()
            );
        }
        server.as_postgres(
            "initdb",
            &[
                "-D",
                &server.data(),
                "-U",
                "postgres",
                "--auth=trust",
                "-E",
                "UTF8",
            ],
        );
        server.resume();
        Some(server)
    }

    /// `postgres://postgres@127.0.0.1:PORT/postgres`
    pub fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }

    /// Stops the server, keeping its data.
    pub fn stop(&self) {
        self.as_postgres("pg_ctl", &["-D", &self.data(), "-m", "fast", "-w", "stop"]);
    }

    /// Starts the server (again), on the same port and data.
    pub fn resume(&self) {
        let options = format!(
            "-p {} -c listen_addresses=127.0.0.1 -k {} -c fsync=off",
            self.port,
            self.data()
        );
        let log = format!("{}/server.log", self.data());
        self.as_postgres(
            "pg_ctl",
            &[
                "-D",
                &self.data(),
                "-l",
                &log,
                "-w",
                "-o",
                &options,
                "start",
            ],
        );
    }

    fn data(&self) -> String {
        self.dir.display().to_string()
    }

    fn as_postgres(&self, program: &str, args: &[&str]) {
        let mut command = self.command(program);
        command.args(args);
        let output = command.output().expect("run a PostgreSQL command");
        assert!(
            output.status.success(),
            "{command:?} failed: {}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }

    /// `program` of the server's installation, as the user that owns it.
    fn command(&self, program: &str) -> std::process::Command {
        let program = self.bin.join(program);
        if !is_root() {
            return std::process::Command::new(program);
        }
        let mut command = std::process::Command::new("runuser");
        command.args(["-u", "postgres", "--"]).arg(program);
        command
    }
}

impl Drop for OwnPostgres {
    fn drop(&mut self) {
        let _ = self
            .command("pg_ctl")
            .args(["-D", &self.data(), "-m", "immediate", "-w", "stop"])
            .output();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The newest installed PostgreSQL's `bin` directory.
fn postgres_bin() -> Option<std::path::PathBuf> {
    let mut found: Vec<std::path::PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(|entry| Some(entry.ok()?.path().join("bin")))
        .filter(|bin| bin.join("pg_ctl").is_file())
        .collect();
    found.sort_by_key(|bin| {
        bin.parent()
            .and_then(|version| version.file_name())
            .and_then(|name| name.to_str()?.parse::<u32>().ok())
            .unwrap_or(0)
    });
    found.pop()
}

fn is_root() -> bool {
    std::process::Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|output| output.stdout.trim_ascii() == b"0")
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|address| address.port())
        .expect("a free loopback port")
}
