//! How a session with a server begins, whichever protocol the server speaks.
//!
//! Riverse opens a session with `initialize`, as the protocols up to
//! 2025-11-25 have it, which every server of those protocols and every
//! server that speaks both answers. A server of the sessionless 2026-07-28
//! protocol alone refuses it (an unknown method, an unsupported protocol
//! version, a missing `MCP-Protocol-Version` header); Riverse then starts
//! again with `server/discover`, that protocol's opening request, and every
//! later request carries the protocol version and Riverse's capabilities in
//! its `_meta`. A server found to speak only 2026-07-28 is asked
//! `server/discover` first when it is started again, and `initialize` if it
//! refuses that.
//!
//! Riverse does not ask `server/discover` first (rmcp's
//! `ClientLifecycleMode::Auto`): a server that speaks both protocols would
//! then speak 2026-07-28, under which it can't ask a question or for a
//! completion with a request of its own, and the tools written for the
//! protocols before it, which do, would fail.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use rmcp::model::{ErrorCode, ProtocolVersion};
use rmcp::service::{ClientInitializeError, ClientLifecycleMode, RunningService};
use rmcp::{RoleClient, Service};

/// How long a server that refused one opening is given to answer the other.
pub(crate) const OTHER_OPENING_WAIT: Duration = Duration::from_secs(10);

/// The request a session opens with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Opening {
    /// `initialize`, up to 2025-11-25.
    Initialize,
    /// `server/discover`, from 2026-07-28.
    Discover,
}

impl Opening {
    pub(crate) fn mode(self) -> ClientLifecycleMode {
        match self {
            Opening::Initialize => ClientLifecycleMode::Initialize,
            Opening::Discover => ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        }
    }

    pub(crate) fn other(self) -> Opening {
        match self {
            Opening::Initialize => Opening::Discover,
            Opening::Discover => Opening::Initialize,
        }
    }

    /// The method, as errors name it.
    pub(crate) fn method(self) -> &'static str {
        match self {
            Opening::Initialize => "initialize",
            Opening::Discover => "server/discover",
        }
    }

    /// Whether the server's answer says it speaks the other protocol, rather
    /// than that it failed: the other opening is worth trying.
    pub(crate) fn refused_by(self, err: &ClientInitializeError) -> bool {
        match (self, err) {
            (Opening::Initialize, ClientInitializeError::JsonRpcError(error)) => [
                ErrorCode::METHOD_NOT_FOUND,
                ErrorCode::UNSUPPORTED_PROTOCOL_VERSION,
                ErrorCode::HEADER_MISMATCH,
                ErrorCode::INVALID_PARAMS,
            ]
            .contains(&error.code),
            // rmcp passes on as an error only what marks a server of the
            // older protocols (it retries a version the server names).
            (
                Opening::Discover,
                ClientInitializeError::JsonRpcError(_)
                | ClientInitializeError::NoCompatibleProtocolVersion { .. },
            ) => true,
            _ => false,
        }
    }
}

/// Which opening a server was last found to answer.
#[derive(Default)]
pub(crate) struct Lifecycle {
    /// It answered `server/discover` and not `initialize`.
    discovers: AtomicBool,
}

impl Lifecycle {
    /// A server first asked `server/discover` when `discover` holds.
    pub(crate) fn opening_with(discover: bool) -> Lifecycle {
        Lifecycle {
            discovers: AtomicBool::new(discover),
        }
    }

    /// The opening to try first.
    pub(crate) fn first(&self) -> Opening {
        if self.discovers.load(Ordering::Relaxed) {
            Opening::Discover
        } else {
            Opening::Initialize
        }
    }

    /// Notes the opening a session began with.
    pub(crate) fn began(&self, opening: Opening) {
        let discovers = opening == Opening::Discover;
        self.discovers.store(discovers, Ordering::Relaxed);
    }
}

/// The protocol version a session speaks, for logs.
pub(crate) fn version_of<S: Service<RoleClient>>(
    service: &RunningService<RoleClient, S>,
) -> String {
    service
        .peer()
        .peer_info()
        .map(|info| info.protocol_version.to_string())
        .unwrap_or_default()
}
