//! How a child ended, as messages say it.

use std::fmt;
use std::os::unix::process::ExitStatusExt;
use std::process::ExitStatus;

use nix::sys::signal::Signal;

/// How a child process ended. Displayed as the rest of a sentence whose subject
/// the caller names: "the worker " + "was killed by signal 11 (SIGSEGV)".
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Exit {
    /// It exited by itself with this status.
    Status(i32),
    /// A signal ended it (its number).
    Signal(i32),
    /// Its status could not be read; the text says why.
    Unknown(String),
}

impl Exit {
    pub fn from_status(status: ExitStatus) -> Exit {
        match (status.code(), status.signal()) {
            (Some(code), _) => Exit::Status(code),
            (None, Some(signal)) => Exit::Signal(signal),
            (None, None) => Exit::Unknown("no status and no signal".into()),
        }
    }

    /// Whether a SIGKILL ended it (a deadline's kill, or the kernel's OOM killer).
    pub fn is_sigkill(&self) -> bool {
        *self == Exit::Signal(Signal::SIGKILL as i32)
    }
}

impl fmt::Display for Exit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Exit::Status(code) => write!(f, "exited with status {code}"),
            Exit::Signal(number) => match Signal::try_from(*number) {
                Ok(signal) => write!(f, "was killed by signal {number} ({})", signal.as_str()),
                Err(_) => write!(f, "was killed by signal {number}"),
            },
            Exit::Unknown(why) => write!(f, "ended with an unknown status ({why})"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exits_read_as_the_rest_of_a_sentence() {
        assert_eq!(Exit::Status(3).to_string(), "exited with status 3");
        assert_eq!(
            Exit::Signal(11).to_string(),
            "was killed by signal 11 (SIGSEGV)"
        );
        assert_eq!(Exit::Signal(99).to_string(), "was killed by signal 99");
        assert_eq!(Exit::from_status(ExitStatus::from_raw(9)), Exit::Signal(9));
        assert_eq!(
            Exit::from_status(ExitStatus::from_raw(3 << 8)),
            Exit::Status(3)
        );
    }
}
