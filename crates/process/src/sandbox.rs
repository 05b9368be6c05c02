//! A sandbox a child process can't leave: Landlock file and TCP rules,
//! resource limits, and no new privileges, applied in the child between fork
//! and exec, so the program it runs, and everything that program starts,
//! is held by them from its first instruction.
//!
//! [`Sandbox`] is the policy (the paths a child may read and write, the TCP
//! ports it may connect to, its limits); [`Sandbox::confinement`] prepares it
//! in the parent (the Landlock ruleset, opened once, and a pids cgroup where
//! one is needed) and [`Confinement::apply_to`] has a command's child enter
//! it. Processes are limited by `RLIMIT_NPROC`, which counts every process
//! of the user, except for root, which it does not bind: there a pids
//! cgroup (cgroup v1's `pids` controller) holds the child and all it starts.
//!
//! What Landlock does not cover is not covered here: UDP and Unix sockets,
//! reading metadata (`stat`), and files opened before the sandbox applied.

use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use landlock::{
    ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, NetPort, Ruleset, RulesetAttr,
    RulesetCreated, RulesetCreatedAttr, Scope, path_beneath_rules,
};
use parking_lot::Mutex;
use tokio::process::Command;

mod holds;

/// Where a sandboxed process may connect over TCP.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Network {
    /// Anywhere: TCP is not restricted.
    Any,
    /// Nowhere: no TCP connection, no listening socket.
    Off,
    /// Only to these ports (and it listens on none).
    Ports(Vec<u16>),
}

/// What to do where the kernel can't enforce a sandbox.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Unsupported {
    /// The tool does not run (the default).
    #[default]
    Refuse,
    /// The tool runs unsandboxed, with a warning.
    Run,
}

/// A sandbox policy, its paths absolute.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sandbox {
    /// The settings key it comes from (`tools.notes.sandbox`): every
    /// message about it names it.
    pub label: String,
    /// Readable (and executable) beneath each, beside what is always
    /// readable (the caller adds the interpreter and the tools).
    pub read: Vec<PathBuf>,
    /// Readable and writable beneath each.
    pub write: Vec<PathBuf>,
    pub network: Network,
    pub memory_mb: Option<u64>,
    pub cpu_seconds: Option<u64>,
    pub processes: Option<u64>,
    pub file_size_mb: Option<u64>,
    pub unsupported: Unsupported,
    /// Tools its code may call through Riverse (`ToolRegistry`) although
    /// they reach further than it allows: Riverse checks this, not the
    /// kernel (see [`Sandbox::holds`]).
    pub calls: Vec<String>,
    /// Whether its code may ask Riverse's LLM (`self.sample`); unset, it
    /// may unless `network` is off.
    pub sample: Option<bool>,
}

/// Why a sandbox can't be applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxError {
    pub label: String,
    pub message: String,
}

impl fmt::Display for SandboxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.label, self.message)
    }
}

impl std::error::Error for SandboxError {}

/// Caps the Landlock ABI Riverse uses, to see what a kernel with less (or
/// none: `0`) would do.
pub const ABI_CAP_VARIABLE: &str = "RIVERSE_LANDLOCK_ABI";

/// The Landlock ABI this kernel offers, or less where
/// [`ABI_CAP_VARIABLE`] says so; 0 when it has none (or it is off).
pub fn landlock_abi() -> u32 {
    let cap = std::env::var(ABI_CAP_VARIABLE)
        .ok()
        .and_then(|cap| cap.trim().parse::<u32>().ok())
        .unwrap_or(u32::MAX);
    kernel_abi().min(cap)
}

fn kernel_abi() -> u32 {
    #[allow(unsafe_code)]
    // SAFETY: the version query takes no pointer (NULL, size 0) and only
    // returns a number or an error.
    let version = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<u8>(),
            0usize,
            1u32, // LANDLOCK_CREATE_RULESET_VERSION
        )
    };
    u32::try_from(version).unwrap_or(0)
}

/// Files a Python program, or a program it runs, reads wherever it runs: the
/// system's programs and libraries, and the parts of `/etc` that name
/// resolution, TLS and time zones read. Not `/etc` itself (`/etc/shadow`),
/// not `/proc` (where other processes' environments can be read), not the
/// home directory.
pub const SYSTEM_READABLE: &[&str] = &[
    "/usr",
    "/lib",
    "/lib64",
    "/lib32",
    "/bin",
    "/sbin",
    "/etc/ssl",
    "/etc/ca-certificates",
    "/etc/pki",
    "/etc/resolv.conf",
    "/etc/hosts",
    "/etc/host.conf",
    "/etc/nsswitch.conf",
    "/etc/gai.conf",
    "/etc/services",
    "/etc/protocols",
    "/etc/localtime",
    "/etc/timezone",
    "/etc/mime.types",
    "/etc/locale.alias",
    "/etc/passwd",
    "/etc/group",
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/alternatives",
    "/dev/urandom",
    "/dev/random",
];

/// The ports of the proxies that `HTTPS_PROXY`, `HTTP_PROXY` and `ALL_PROXY`
/// (either case) name.
pub fn proxy_ports() -> Vec<u16> {
    let names = ["HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY"];
    let mut ports = Vec::new();
    for name in names
        .iter()
        .flat_map(|name| [name.to_string(), name.to_lowercase()])
    {
        if let Some(port) = std::env::var(&name).ok().as_deref().and_then(proxy_port)
            && !ports.contains(&port)
        {
            ports.push(port);
        }
    }
    ports
}

/// The port of a proxy URL (`http://user@host:3128`), or its scheme's.
fn proxy_port(url: &str) -> Option<u16> {
    let url = url.trim();
    if url.is_empty() {
        return None;
    }
    let (scheme, rest) = url.split_once("://").unwrap_or(("http", url));
    let authority = rest.split('/').next()?;
    let host = authority.rsplit('@').next()?;
    // `[::1]:3128`: the port follows the bracket.
    let after_host = host.rsplit_once(']').map_or(host, |(_, after)| after);
    match after_host.rsplit_once(':') {
        Some((_, port)) => port.parse().ok(),
        None => match scheme {
            "https" => Some(443),
            "socks5" | "socks5h" | "socks4" | "socks" => Some(1080),
            _ => Some(80),
        },
    }
}

/// Says once per sandbox what this kernel can't enforce of it.
fn warn_once(label: &str, why: &str) {
    static WARNED: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let mut warned = WARNED.lock();
    if !warned.iter().any(|seen| seen == label) {
        warned.push(label.to_owned());
        tracing::warn!("{label}: {why}; running without it ({label}.if_unsupported: run)");
    }
}

/// Devices every program writes to.
pub const SYSTEM_WRITABLE: &[&str] = &["/dev/null", "/dev/zero", "/dev/full"];

/// A sandbox prepared in the parent, to be entered by each child it is
/// applied to. Cheap to share.
pub struct Confinement {
    /// Taken by the child, which restricts itself with it; the parent's
    /// stays for the next child.
    ruleset: Mutex<Option<RulesetCreated>>,
    limits: Vec<(Resource, u64)>,
    cgroup: Option<PidsCgroup>,
}

#[derive(Debug, Clone, Copy)]
enum Resource {
    Data,
    Cpu,
    Processes,
    FileSize,
}

impl Sandbox {
    /// How `riverse tools` shows it: `read .; write notes; network off;
    /// memory 512 MB`, paths inside `project_dir` relative to it.
    pub fn summary(&self, project_dir: &Path) -> String {
        let shown = |paths: &[PathBuf]| {
            let project =
                std::fs::canonicalize(project_dir).unwrap_or_else(|_| project_dir.to_owned());
            let names: Vec<String> = paths
                .iter()
                .map(|path| match path.strip_prefix(&project) {
                    Ok(inside) if inside.as_os_str().is_empty() => ".".to_owned(),
                    Ok(inside) => inside.display().to_string(),
                    Err(_) => path.display().to_string(),
                })
                .collect();
            if names.is_empty() {
                "nothing".to_owned()
            } else {
                names.join(", ")
            }
        };
        let mut parts = vec![
            format!("read {}", shown(&self.read)),
            format!("write {}", shown(&self.write)),
        ];
        parts.push(match &self.network {
            Network::Any => "network on".to_owned(),
            Network::Off => "network off".to_owned(),
            Network::Ports(ports) => format!(
                "network to ports {}",
                ports
                    .iter()
                    .map(u16::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        });
        let limits: Vec<String> = [
            self.memory_mb.map(|mb| format!("memory {mb} MB")),
            self.cpu_seconds.map(|s| format!("CPU {s} s")),
            self.processes.map(|n| format!("{n} processes")),
            self.file_size_mb.map(|mb| format!("files {mb} MB")),
        ]
        .into_iter()
        .flatten()
        .collect();
        if !limits.is_empty() {
            parts.push(limits.join(", "));
        }
        if !self.calls.is_empty() {
            parts.push(format!("calls {}", self.calls.join(", ")));
        }
        if let Some(sample) = self.sample {
            parts.push(format!("sample {}", if sample { "on" } else { "off" }));
        }
        parts.join("; ")
    }

    /// Prepares this sandbox, with `readable` (the interpreter, the tools)
    /// beside its own paths. `Ok(None)`: the kernel can't enforce it and
    /// the policy accepts running unsandboxed.
    pub fn confinement(
        &self,
        readable: &[PathBuf],
    ) -> Result<Option<Arc<Confinement>>, SandboxError> {
        let fault = |message: String| SandboxError {
            label: self.label.clone(),
            message,
        };
        let abi = landlock_abi();
        let mut network = self.network.clone();
        if abi == 0 || (abi < 4 && network != Network::Any) {
            let why = if abi == 0 {
                "this kernel has no Landlock (or it is off), so the sandbox can't be enforced"
                    .to_owned()
            } else {
                format!(
                    "this kernel's Landlock (ABI {abi}) has no TCP rules (ABI 4, Linux 6.7), so {}.network can't be enforced",
                    self.label
                )
            };
            if self.unsupported == Unsupported::Refuse {
                return Err(fault(format!(
                    "{why}; set {}.if_unsupported: run to run the tool without what can't be enforced",
                    self.label
                )));
            }
            warn_once(&self.label, &why);
            if abi == 0 {
                return Ok(None);
            }
            network = Network::Any;
        }
        if let Network::Ports(ports) = &mut network {
            // A tool that may reach a port through the proxy the environment
            // names must reach the proxy.
            for port in proxy_ports() {
                if !ports.contains(&port) {
                    ports.push(port);
                }
            }
        }
        let ruleset = self
            .ruleset(abi, &network, readable)
            .map_err(|err| fault(format!("can't prepare the Landlock rules: {err}")))?;
        let mut limits = Vec::new();
        if let Some(mb) = self.memory_mb {
            limits.push((Resource::Data, mb.saturating_mul(1024 * 1024)));
        }
        if let Some(seconds) = self.cpu_seconds {
            limits.push((Resource::Cpu, seconds));
        }
        if let Some(mb) = self.file_size_mb {
            limits.push((Resource::FileSize, mb.saturating_mul(1024 * 1024)));
        }
        let mut cgroup = None;
        if let Some(processes) = self.processes {
            // SAFETY: geteuid only returns a number.
            #[allow(unsafe_code)]
            let root = unsafe { libc::geteuid() } == 0;
            if root {
                cgroup = Some(PidsCgroup::create(processes).map_err(|why| {
                    fault(format!("can't limit processes for root ({why}): RLIMIT_NPROC does not bind root, and no pids cgroup could be made"))
                })?);
            } else {
                limits.push((Resource::Processes, processes));
            }
        }
        Ok(Some(Arc::new(Confinement {
            ruleset: Mutex::new(Some(ruleset)),
            limits,
            cgroup,
        })))
    }

    fn ruleset(
        &self,
        abi: u32,
        network: &Network,
        readable: &[PathBuf],
    ) -> Result<RulesetCreated, landlock::RulesetError> {
        let abi = ABI::from(abi.min(7) as i32);
        let read_access = AccessFs::from_read(abi);
        let all_access = AccessFs::from_all(abi);
        let mut ruleset = Ruleset::default()
            .set_compatibility(CompatLevel::HardRequirement)
            .handle_access(all_access)?;
        if *network != Network::Any {
            ruleset = ruleset.handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp)?;
        }
        if abi >= ABI::V6 {
            // A tool can't signal Riverse or another tool's worker, nor reach
            // an abstract socket outside its sandbox.
            ruleset = ruleset.scope(Scope::Signal | Scope::AbstractUnixSocket)?;
        }
        let readable = SYSTEM_READABLE
            .iter()
            .map(PathBuf::from)
            .chain(readable.iter().cloned())
            .chain(self.read.iter().cloned());
        let writable = SYSTEM_WRITABLE
            .iter()
            .map(PathBuf::from)
            .chain(self.write.iter().cloned());
        let mut created = ruleset
            .create()?
            .set_compatibility(CompatLevel::BestEffort)
            .add_rules(path_beneath_rules(readable, read_access))?
            .add_rules(path_beneath_rules(writable, all_access))?;
        if let Network::Ports(ports) = network {
            created = created.set_compatibility(CompatLevel::HardRequirement);
            for &port in ports {
                created = created.add_rule(NetPort::new(port, AccessNet::ConnectTcp))?;
            }
        }
        Ok(created)
    }
}

impl Confinement {
    /// Has `command`'s child enter this sandbox before it runs its program.
    #[allow(unsafe_code)]
    pub fn apply_to(self: &Arc<Self>, command: &mut Command) {
        let confinement = self.clone();
        // SAFETY: the closure runs in the forked child before exec. It takes
        // a lock no thread of the child holds (the parent never takes it),
        // and makes system calls: write, setrlimit, prctl and Landlock's.
        unsafe {
            command.pre_exec(move || confinement.enter());
        }
    }

    /// In the child: joins the cgroup, sets the limits, restricts itself.
    fn enter(&self) -> std::io::Result<()> {
        if let Some(cgroup) = &self.cgroup {
            // "0": the process that writes.
            (&cgroup.procs).write_all(b"0")?;
        }
        for &(resource, value) in &self.limits {
            set_limit(resource, value)?;
        }
        let ruleset = self
            .ruleset
            .lock()
            .take()
            .ok_or_else(|| std::io::Error::other("the sandbox was entered twice"))?;
        ruleset
            .restrict_self()
            .map(|_| ())
            .map_err(|err| std::io::Error::other(err.to_string()))
    }
}

#[allow(unsafe_code)]
fn set_limit(resource: Resource, value: u64) -> std::io::Result<()> {
    let resource = match resource {
        Resource::Data => libc::RLIMIT_DATA,
        Resource::Cpu => libc::RLIMIT_CPU,
        Resource::Processes => libc::RLIMIT_NPROC,
        Resource::FileSize => libc::RLIMIT_FSIZE,
    };
    // Past the soft CPU limit the kernel sends SIGXCPU, which says why; past
    // the hard one, a SIGKILL that does not.
    let hard = match resource {
        libc::RLIMIT_CPU => value.saturating_add(1),
        _ => value,
    };
    let limit = libc::rlimit {
        rlim_cur: value,
        rlim_max: hard,
    };
    // SAFETY: setrlimit reads the struct it is given and nothing else.
    if unsafe { libc::setrlimit(resource, &limit) } == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// Where cgroup v1's pids controller is mounted.
const PIDS_CONTROLLER: &str = "/sys/fs/cgroup/pids";

/// A pids cgroup of Riverse's: every process in it counts against its
/// `pids.max`. Removed when dropped (once empty: its processes are killed
/// with their group).
struct PidsCgroup {
    dir: PathBuf,
    /// `cgroup.procs`, opened for writing: a child joins by writing to it.
    procs: std::fs::File,
}

impl PidsCgroup {
    fn create(max: u64) -> Result<PidsCgroup, String> {
        static NUMBER: AtomicU64 = AtomicU64::new(0);
        let controller = Path::new(PIDS_CONTROLLER);
        if !controller.join("cgroup.procs").exists() {
            return Err(format!("{PIDS_CONTROLLER} is not a pids controller"));
        }
        sweep_stale(controller);
        let dir = controller.join(format!(
            "riverse-{}-{}",
            std::process::id(),
            NUMBER.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir(&dir).map_err(|err| format!("can't make {}: {err}", dir.display()))?;
        let made = || -> std::io::Result<std::fs::File> {
            std::fs::write(dir.join("pids.max"), max.to_string())?;
            std::fs::OpenOptions::new()
                .write(true)
                .open(dir.join("cgroup.procs"))
        };
        match made() {
            Ok(procs) => {
                CGROUPS.lock().push(dir.clone());
                Ok(PidsCgroup { dir, procs })
            }
            Err(err) => {
                let _ = std::fs::remove_dir(&dir);
                Err(format!("can't set up {}: {err}", dir.display()))
            }
        }
    }
}

/// The pids cgroups this process made and has not removed yet.
static CGROUPS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

impl Drop for PidsCgroup {
    fn drop(&mut self) {
        if remove_cgroup(&self.dir) {
            return;
        }
        let dir = self.dir.clone();
        // Its processes may take a moment to end after their kill.
        std::thread::spawn(move || {
            for _ in 0..50 {
                std::thread::sleep(Duration::from_millis(100));
                if remove_cgroup(&dir) {
                    return;
                }
            }
        });
    }
}

/// Removes an empty cgroup of ours; whether it is gone.
fn remove_cgroup(dir: &Path) -> bool {
    let gone = std::fs::remove_dir(dir).is_ok() || !dir.exists();
    if gone {
        CGROUPS.lock().retain(|made| made != dir);
    }
    gone
}

/// Removes the pids cgroups this process made, waiting up to `within` for
/// the processes in them (killed by [`crate::shutdown`]) to end.
pub fn remove_cgroups(within: Duration) {
    let deadline = Instant::now() + within;
    loop {
        let left: Vec<PathBuf> = CGROUPS.lock().clone();
        let busy = left.into_iter().filter(|dir| !remove_cgroup(dir)).count();
        if busy == 0 || Instant::now() >= deadline {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Removes the empty cgroups of Riverse processes that are gone (killed
/// before they could remove their own).
fn sweep_stale(controller: &Path) {
    let Ok(entries) = std::fs::read_dir(controller) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|name| name.strip_prefix("riverse-"))
            .and_then(|rest| rest.split('-').next())
            .and_then(|pid| pid.parse::<i32>().ok())
        else {
            continue;
        };
        let alive = nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None).is_ok();
        if !alive {
            let _ = std::fs::remove_dir(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_proxy_port_is_read_from_its_url() {
        assert_eq!(proxy_port("http://proxy.local:3128"), Some(3128));
        assert_eq!(
            proxy_port("http://user:secret@proxy.local:8080/"),
            Some(8080)
        );
        assert_eq!(proxy_port("https://proxy.local"), Some(443));
        assert_eq!(proxy_port("socks5h://[::1]:9050"), Some(9050));
        assert_eq!(proxy_port("proxy.local:3129"), Some(3129));
        assert_eq!(proxy_port("http://[::1]"), Some(80));
        assert_eq!(proxy_port(""), None);
    }
}
