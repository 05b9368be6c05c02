//! What a fork server is spawned with: the socket it receives workers'
//! descriptors on, and where its exit reports go. A leaf of its own, since
//! the worker that becomes a fork server is spawned with it.

use std::os::fd::{AsRawFd, OwnedFd};

use riverse_protocol::ExitedNotification;
use tokio::process::Command;
use tokio::sync::mpsc;

/// What a fork server is spawned with.
pub(crate) struct ForkServerLink {
    /// The fork server's end of the socket descriptors travel on.
    pub socket: OwnedFd,
    /// Where its reader sends the exits the fork server reports.
    pub exited: mpsc::UnboundedSender<ExitedNotification>,
}

impl ForkServerLink {
    /// Lets the child `command` starts inherit the socket; its descriptor.
    #[allow(unsafe_code)]
    pub(crate) fn pass_socket(&self, command: &mut Command) -> i32 {
        let fd = self.socket.as_raw_fd();
        // SAFETY: the closure runs in the forked child before exec and makes
        // one system call, which is async-signal-safe; `fd` is open there,
        // since `self` outlives the spawn.
        unsafe {
            command.pre_exec(move || {
                let fd = std::os::fd::BorrowedFd::borrow_raw(fd);
                rustix::io::fcntl_setfd(fd, rustix::io::FdFlags::empty())
                    .map_err(std::io::Error::from)
            });
        }
        fd
    }
}
