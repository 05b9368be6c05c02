//! Whether one sandbox holds another: what code inside a sandbox starts
//! through Riverse (a nested tool call) must not reach further than that
//! code could itself.

use std::path::{Path, PathBuf};

use super::{Network, Sandbox};

impl Sandbox {
    /// `Ok` when everything `inner` allows, this sandbox allows too: each
    /// path `inner` reads is readable here, each path it writes is writable
    /// here, each port it connects to is open here. Limits are not compared:
    /// they bound how much a process uses, not what it reaches. `Err` names
    /// the first thing `inner` allows beyond this one.
    pub fn holds(&self, inner: &Sandbox) -> Result<(), String> {
        let readable: Vec<&PathBuf> = self.read.iter().chain(&self.write).collect();
        if let Some(path) = inner.read.iter().find(|path| !beneath(path, &readable)) {
            return Err(format!(
                "it reads {} ({}.read), which {}.read does not allow",
                path.display(),
                inner.label,
                self.label
            ));
        }
        let writable: Vec<&PathBuf> = self.write.iter().collect();
        if let Some(path) = inner.write.iter().find(|path| !beneath(path, &writable)) {
            return Err(format!(
                "it writes {} ({}.write), which {}.write does not allow",
                path.display(),
                inner.label,
                self.label
            ));
        }
        if let Some(reach) = network_beyond(&self.network, &inner.network) {
            return Err(format!(
                "it connects {reach} ({}.network), which {}.network does not allow",
                inner.label, self.label
            ));
        }
        Ok(())
    }

    /// Whether code inside it may ask Riverse's LLM (`self.sample`): as
    /// `sample` says, else unless its network is off.
    pub fn allows_sample(&self) -> bool {
        self.sample.unwrap_or(self.network != Network::Off)
    }
}

fn beneath(path: &Path, roots: &[&PathBuf]) -> bool {
    roots.iter().any(|root| path.starts_with(root))
}

/// What `inner`'s network allows that `outer`'s does not, in words.
fn network_beyond(outer: &Network, inner: &Network) -> Option<String> {
    match (outer, inner) {
        (Network::Any, _) | (_, Network::Off) => None,
        (_, Network::Any) => Some("to any port".into()),
        (Network::Off, Network::Ports(ports)) => {
            ports.first().map(|port| format!("to port {port}"))
        }
        (Network::Ports(open), Network::Ports(ports)) => ports
            .iter()
            .find(|port| !open.contains(port))
            .map(|port| format!("to port {port}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::Unsupported;

    fn sandbox(label: &str, read: &[&str], write: &[&str], network: Network) -> Sandbox {
        Sandbox {
            label: label.into(),
            read: read.iter().map(PathBuf::from).collect(),
            write: write.iter().map(PathBuf::from).collect(),
            network,
            memory_mb: None,
            cpu_seconds: None,
            processes: None,
            file_size_mb: None,
            unsupported: Unsupported::Refuse,
            calls: Vec::new(),
            sample: None,
        }
    }

    #[test]
    fn a_sandbox_holds_one_that_reaches_no_further() {
        let outer = sandbox(
            "python.sandbox",
            &["/p"],
            &["/p/notes"],
            Network::Ports(vec![443]),
        );
        let same = sandbox(
            "tools.a.sandbox",
            &["/p"],
            &["/p/notes"],
            Network::Ports(vec![443]),
        );
        let narrower = sandbox(
            "tools.b.sandbox",
            &["/p/notes"],
            &["/p/notes/x"],
            Network::Off,
        );
        // What it may write, it may read.
        let reads_what_outer_writes = sandbox("tools.c.sandbox", &["/p/notes"], &[], Network::Off);
        for inner in [&same, &narrower, &reads_what_outer_writes] {
            assert_eq!(outer.holds(inner), Ok(()), "{}", inner.label);
        }
        let open = sandbox("tools.d.sandbox", &[], &["/"], Network::Any);
        assert_eq!(open.holds(&narrower), Ok(()));
    }

    #[test]
    fn a_sandbox_names_what_the_other_reaches_beyond_it() {
        let outer = sandbox("tools.evil.sandbox", &["/p"], &[], Network::Off);
        let writer = sandbox("tools.file_write.sandbox", &["/p"], &["/p"], Network::Off);
        assert_eq!(
            outer.holds(&writer).unwrap_err(),
            "it writes /p (tools.file_write.sandbox.write), which tools.evil.sandbox.write does not allow"
        );
        let reader = sandbox("tools.r.sandbox", &["/home"], &[], Network::Off);
        assert_eq!(
            outer.holds(&reader).unwrap_err(),
            "it reads /home (tools.r.sandbox.read), which tools.evil.sandbox.read does not allow"
        );
        // A sibling directory whose name starts alike is not beneath.
        let sibling = sandbox("tools.s.sandbox", &["/pp"], &[], Network::Off);
        assert!(outer.holds(&sibling).is_err());
        let ports = sandbox("tools.n.sandbox", &[], &[], Network::Ports(vec![443, 22]));
        assert_eq!(
            outer.holds(&ports).unwrap_err(),
            "it connects to port 443 (tools.n.sandbox.network), which tools.evil.sandbox.network does not allow"
        );
        let https = sandbox("python.sandbox", &["/p"], &[], Network::Ports(vec![443]));
        assert_eq!(
            https.holds(&ports).unwrap_err(),
            "it connects to port 22 (tools.n.sandbox.network), which python.sandbox.network does not allow"
        );
        let anywhere = sandbox("tools.a.sandbox", &[], &[], Network::Any);
        assert_eq!(
            https.holds(&anywhere).unwrap_err(),
            "it connects to any port (tools.a.sandbox.network), which python.sandbox.network does not allow"
        );
    }

    #[test]
    fn sampling_follows_the_network_unless_set() {
        let mut offline = sandbox("python.sandbox", &[], &[], Network::Off);
        assert!(!offline.allows_sample());
        offline.sample = Some(true);
        assert!(offline.allows_sample());
        let mut https = sandbox("python.sandbox", &[], &[], Network::Ports(vec![443]));
        assert!(https.allows_sample());
        https.sample = Some(false);
        assert!(!https.allows_sample());
    }
}
