//! A PEP 503 "simple" package index on a loopback port, so tests can install
//! real Python packages with `pip` and `uv` without reaching the network.
//!
//! It serves the wheels of `python/index-wheels.txt`, downloaded once from
//! PyPI into the workspace's `target/test-wheels` (as [`crate::venv`] makes
//! its environments: the first test to need them downloads them while holding
//! a file lock). `scripts/test` downloads the same before the tests start.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use axum::Router;
use axum::extract::{Path as UrlPath, State};
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use sha2::{Digest, Sha256};

use crate::Loopback;
use crate::once::made_once;
use crate::run::succeed;

const WHEELS: &str = include_str!("../python/index-wheels.txt");

/// `<workspace>/target/test-wheels`, holding every wheel of
/// `python/index-wheels.txt`, downloading them first if needed.
///
/// Panics with pip's output when a download fails: the tests that install
/// from the index can't run without the wheels.
pub fn test_wheels() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/test-wheels");
    made_once(&dir, "riverse-wheels.txt", WHEELS, |dir| {
        // Start empty, so the index serves exactly what the list names.
        if dir.exists() {
            std::fs::remove_dir_all(dir)
                .unwrap_or_else(|err| panic!("remove {}: {err}", dir.display()));
        }
        std::fs::create_dir_all(dir)
            .unwrap_or_else(|err| panic!("create {}: {err}", dir.display()));
        for requirement in requirements() {
            download(dir, requirement);
        }
    });
    dir
}

fn download(dir: &Path, requirement: &str) {
    succeed(
        Command::new("python3")
            .args([
                "-m",
                "pip",
                "download",
                "--quiet",
                "--disable-pip-version-check",
                "--only-binary=:all:",
                "--no-deps",
                "-d",
            ])
            .arg(dir)
            .arg(requirement),
        &format!("pip download {requirement}"),
    );
}

/// The requirements of `python/index-wheels.txt`: its lines that are neither
/// blank nor comments.
fn requirements() -> impl Iterator<Item = &'static str> {
    WHEELS
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
}

/// A package index serving [`test_wheels`] on a loopback port; it stops when
/// dropped.
pub struct PackageIndex {
    server: Loopback,
}

impl PackageIndex {
    /// An index with a server of its own, downloading the wheels first if
    /// needed.
    pub fn serve() -> PackageIndex {
        let app = Router::new()
            .route("/simple", get(root_page))
            .route("/simple/", get(root_page))
            .route("/simple/{project}", get(project_page))
            .route("/simple/{project}/", get(project_page))
            .route("/files/{filename}", get(wheel_file))
            .with_state(test_wheels());
        PackageIndex {
            server: Loopback::serve(app),
        }
    }

    /// One index for the whole test process, started on first use and never
    /// stopped.
    pub fn shared() -> &'static PackageIndex {
        static SHARED: OnceLock<PackageIndex> = OnceLock::new();
        SHARED.get_or_init(PackageIndex::serve)
    }

    /// `http://127.0.0.1:PORT/simple`, for `--index-url`.
    pub fn url(&self) -> String {
        format!("{}/simple", self.server.url())
    }
}

/// `http://127.0.0.1:PORT/simple` for a port that was bound and released, so
/// connections to it are refused: an index that can't be reached.
pub fn unreachable_index_url() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
    let addr = listener.local_addr().expect("the listener's address");
    drop(listener);
    format!("http://{addr}/simple")
}

/// The variables through which uv and pip would find another index, links
/// or configuration: a command given [`installing_from`] has none of them.
const INSTALLER_VARIABLES: &[&str] = &[
    "PIP_INDEX_URL",
    "PIP_EXTRA_INDEX_URL",
    "PIP_FIND_LINKS",
    "PIP_NO_INDEX",
    "PIP_CONFIG_FILE",
    "UV_INDEX",
    "UV_INDEX_URL",
    "UV_DEFAULT_INDEX",
    "UV_EXTRA_INDEX_URL",
    "UV_FIND_LINKS",
    "UV_NO_INDEX",
    "UV_OFFLINE",
    "UV_CONFIG_FILE",
];

/// Makes every uv and pip that `command` starts install from `index_url` and
/// nothing else (no configuration file, no links), with caches under
/// `target/test-installer-cache` that only speed a later run up.
pub fn installing_from(command: &mut Command, index_url: &str) {
    for variable in INSTALLER_VARIABLES {
        command.env_remove(variable);
    }
    let cache = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/test-installer-cache");
    command
        .env("UV_INDEX_URL", index_url)
        .env("PIP_INDEX_URL", index_url)
        .env("UV_NO_CONFIG", "1")
        .env("PIP_CONFIG_FILE", "/dev/null")
        .env("PIP_DISABLE_PIP_VERSION_CHECK", "1")
        .env("UV_CACHE_DIR", cache.join("uv"))
        .env("PIP_CACHE_DIR", cache.join("pip"));
}

/// A project name normalized per PEP 503: lowercase, with each run of `-`,
/// `_` and `.` made one `-`.
fn normalize(name: &str) -> String {
    let mut normalized = String::with_capacity(name.len());
    let mut in_separator = false;
    for c in name.chars() {
        if matches!(c, '-' | '_' | '.') {
            if !in_separator {
                normalized.push('-');
            }
            in_separator = true;
        } else {
            normalized.extend(c.to_lowercase());
            in_separator = false;
        }
    }
    normalized
}

/// The file names of the wheels in `dir`.
fn wheels(dir: &Path) -> Vec<String> {
    let entries =
        std::fs::read_dir(dir).unwrap_or_else(|err| panic!("read {}: {err}", dir.display()));
    let mut names: Vec<String> = entries
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
        .filter(|name| name.ends_with(".whl"))
        .collect();
    names.sort();
    names
}

/// The normalized distribution name of a wheel: its file name up to the
/// first `-`.
fn project_of(wheel: &str) -> String {
    normalize(wheel.split('-').next().unwrap_or(wheel))
}

fn page(title: &str, links: impl Iterator<Item = (String, String)>) -> Html<String> {
    let mut html = format!(
        "<!DOCTYPE html>\n<html>\n<head>\n\
         <meta name=\"pypi:repository-version\" content=\"1.0\">\n\
         <title>{title}</title>\n</head>\n<body>\n"
    );
    for (href, text) in links {
        html.push_str(&format!("<a href=\"{href}\">{text}</a><br>\n"));
    }
    html.push_str("</body>\n</html>\n");
    Html(html)
}

async fn root_page(State(dir): State<PathBuf>) -> Html<String> {
    let projects: BTreeSet<String> = wheels(&dir).iter().map(|w| project_of(w)).collect();
    page(
        "Simple index",
        projects
            .into_iter()
            .map(|project| (format!("/simple/{project}/"), project)),
    )
}

async fn project_page(State(dir): State<PathBuf>, UrlPath(project): UrlPath<String>) -> Response {
    let project = normalize(&project);
    let files: Vec<String> = wheels(&dir)
        .into_iter()
        .filter(|wheel| project_of(wheel) == project)
        .collect();
    if files.is_empty() {
        return StatusCode::NOT_FOUND.into_response();
    }
    let links = files.into_iter().map(|file| {
        let bytes = std::fs::read(dir.join(&file))
            .unwrap_or_else(|err| panic!("read the wheel {file}: {err}"));
        let sha256: String = Sha256::digest(&bytes)
            .iter()
            .map(|byte| format!("{byte:02x}"))
            .collect();
        (format!("/files/{file}#sha256={sha256}"), file)
    });
    page(&format!("Links for {project}"), links).into_response()
}

async fn wheel_file(State(dir): State<PathBuf>, UrlPath(filename): UrlPath<String>) -> Response {
    if filename.contains('/') || filename.contains("..") || !wheels(&dir).contains(&filename) {
        return StatusCode::NOT_FOUND.into_response();
    }
    match std::fs::read(dir.join(&filename)) {
        Ok(bytes) => ([(header::CONTENT_TYPE, "application/octet-stream")], bytes).into_response(),
        Err(_) => StatusCode::NOT_FOUND.into_response(),
    }
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};
    use std::net::TcpStream;

    use super::*;

    /// A command with no `PIP_*` or `UV_*` settings from the environment, so
    /// the install can use only the index it is given (a `PIP_FIND_LINKS`,
    /// say, would let pip find wheels elsewhere).
    fn hermetic(program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut command = Command::new(program);
        for (name, _) in std::env::vars_os() {
            let name_text = name.to_string_lossy();
            if name_text.starts_with("PIP_") || name_text.starts_with("UV_") {
                command.env_remove(&name);
            }
        }
        command
    }

    /// `GET path` from the index's server: the status code and the body.
    fn http_get(index: &PackageIndex, path: &str) -> (u16, Vec<u8>) {
        let mut stream = TcpStream::connect(index.server.addr).expect("connect to the index");
        write!(
            stream,
            "GET {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
            index.server.addr
        )
        .expect("send the request");
        let mut response = Vec::new();
        stream
            .read_to_end(&mut response)
            .expect("read the response");
        let split = response
            .windows(4)
            .position(|window| window == b"\r\n\r\n")
            .expect("the response has a header");
        let head = String::from_utf8_lossy(&response[..split]).into_owned();
        let status = head
            .split(' ')
            .nth(1)
            .and_then(|code| code.parse().ok())
            .unwrap_or_else(|| panic!("no status in {head:?}"));
        assert!(
            !head
                .to_ascii_lowercase()
                .contains("transfer-encoding: chunked"),
            "this reader can't take a chunked body: {head}"
        );
        (status, response[split + 4..].to_vec())
    }

    #[test]
    fn pip_and_uv_install_from_the_index() {
        let index = PackageIndex::shared();
        let url = index.url();
        let scratch = tempfile::tempdir().expect("create a temporary directory");

        let venv = scratch.path().join("pip-venv");
        succeed(
            Command::new("python3").args(["-m", "venv"]).arg(&venv),
            "python3 -m venv",
        );
        let python = venv.join("bin/python");
        succeed(
            hermetic(&python).args([
                "-m",
                "pip",
                "install",
                "--disable-pip-version-check",
                "--index-url",
                &url,
                "python-dateutil==2.9.0.post0",
            ]),
            "pip install python-dateutil",
        );
        succeed(
            Command::new(&python).args(["-c", "import dateutil, six"]),
            "import dateutil, six",
        );

        let has_uv = Command::new("which")
            .arg("uv")
            .output()
            .is_ok_and(|output| output.status.success());
        if !has_uv {
            eprintln!("uv is not on PATH: only pip was tried");
            return;
        }
        let venv2 = scratch.path().join("uv-venv");
        succeed(
            hermetic("uv")
                .arg("venv")
                .arg(&venv2)
                .args(["--python", "python3"]),
            "uv venv",
        );
        let python2 = venv2.join("bin/python");
        succeed(
            hermetic("uv")
                .args(["pip", "install", "--no-config", "--python"])
                .arg(&python2)
                .args(["--index-url", &url, "markupsafe==3.0.2"]),
            "uv pip install markupsafe",
        );
        succeed(
            Command::new(&python2).args(["-c", "import markupsafe._speedups"]),
            "import markupsafe._speedups",
        );
    }

    #[test]
    fn the_index_serves_pages_and_files_and_404s_the_rest() {
        let index = PackageIndex::shared();

        let (status, body) = http_get(index, "/simple/no-such-package/");
        assert_eq!(status, 404);
        assert!(body.is_empty());

        let (status, body) = http_get(index, "/simple/");
        assert_eq!(status, 200);
        let root = String::from_utf8(body).expect("the root page is text");
        for project in ["six", "markupsafe", "charset-normalizer", "python-dateutil"] {
            assert!(
                root.contains(&format!("<a href=\"/simple/{project}/\">{project}</a>")),
                "{project} is missing from {root}"
            );
        }

        // Any spelling that normalizes to the project's name, with or
        // without the trailing slash.
        let (status, body) = http_get(index, "/simple/Python_Dateutil");
        assert_eq!(status, 200);
        let page = String::from_utf8(body).expect("the project page is text");
        let wheel = "python_dateutil-2.9.0.post0-py2.py3-none-any.whl";
        let bytes = std::fs::read(test_wheels().join(wheel)).expect("read the wheel");
        let sha256: String = Sha256::digest(&bytes)
            .iter()
            .map(|byte| format!("{byte:02x}"))
            .collect();
        assert!(
            page.contains(&format!(
                "<a href=\"/files/{wheel}#sha256={sha256}\">{wheel}</a>"
            )),
            "{page}"
        );

        let (status, body) = http_get(index, "/simple/six/");
        assert_eq!(status, 200);
        let page = String::from_utf8(body).expect("the project page is text");
        assert_eq!(
            page.matches("<a ").count(),
            2,
            "two versions of six: {page}"
        );

        let (status, body) = http_get(index, &format!("/files/{wheel}"));
        assert_eq!(status, 200);
        assert!(body == bytes, "the wheel's bytes");

        for path in [
            "/files/no-such-1.0-py3-none-any.whl",
            "/files/riverse-wheels.txt",
            "/files/..%2Ftest-wheels%2Fsix-1.17.0-py2.py3-none-any.whl",
            "/files/..%2F..%2FCargo.toml",
        ] {
            assert_eq!(http_get(index, path).0, 404, "{path}");
        }
    }

    #[test]
    fn names_normalize_per_pep_503() {
        assert_eq!(normalize("Python_Dateutil"), "python-dateutil");
        assert_eq!(normalize("a-_.b..c"), "a-b-c");
        assert_eq!(
            project_of("MarkupSafe-3.0.2-cp311-cp311-any.whl"),
            "markupsafe"
        );
        assert_eq!(
            project_of("charset_normalizer-3.4.0-py3-none-any.whl"),
            "charset-normalizer"
        );
    }

    #[test]
    fn the_unreachable_index_refuses_connections() {
        let url = unreachable_index_url();
        let addr = url
            .strip_prefix("http://")
            .and_then(|rest| rest.strip_suffix("/simple"))
            .expect("an http URL ending in /simple");
        assert!(TcpStream::connect(addr).is_err());
    }
}
