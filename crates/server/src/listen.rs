//! The accept loop: each connection served by hyper under the limits that
//! keep clients that send nothing, or send it slowly, from holding the server.
//!
//! - A connection must send a request's head within `header_timeout`, from
//!   when it opens and again after each reply (an idle kept-alive connection
//!   is closed then too).
//! - At most `max_connections` are open at once, fewer when the process may
//!   not open that many files; one more waits in the kernel's listen queue
//!   until one closes. The open-file limit is raised to its hard limit first.
//! - Bodies have their own deadline, where they are read (`body`).
//!
//! On shutdown the loop stops accepting, asks every connection to finish its
//! request in flight and close, and waits up to a grace period.

use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tower::ServiceExt;

/// Files the process keeps for itself beside its connections: workers'
/// pipes, the database, logs, watched directories.
const RESERVED_FILES: u64 = 128;

/// What a connection may take.
#[derive(Debug, Clone, Copy)]
pub struct ConnectionLimits {
    pub header_timeout: Duration,
    pub max_connections: usize,
}

/// Serves `router` on `listener` until `shutdown` resolves, then waits up to
/// `grace` for connections to finish; `false` when some were still open.
pub async fn serve_connections(
    listener: TcpListener,
    router: Router,
    limits: ConnectionLimits,
    shutdown: impl Future<Output = ()>,
    grace: Duration,
) -> std::io::Result<bool> {
    let open = Arc::new(Semaphore::new(connection_cap(limits.max_connections)));
    let graceful = GracefulShutdown::new();
    let mut shutdown = pin!(shutdown);
    loop {
        let permit = tokio::select! {
            permit = open.clone().acquire_owned() => match permit {
                Ok(permit) => permit,
                Err(_) => break,
            },
            () = &mut shutdown => break,
        };
        let (mut stream, _) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(err) if is_transient(&err) => {
                    // Out of descriptors or a connection reset before it was
                    // taken: wait a moment rather than spin or stop serving.
                    tracing::debug!("accept: {err}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
                Err(err) => return Err(err),
            },
            () = &mut shutdown => break,
        };
        crate::no_delay(&mut stream);
        let service =
            TowerToHyperService::new(router.clone().map_request(
                |request: hyper::Request<Incoming>| request.map(axum::body::Body::new),
            ));
        let mut http = hyper::server::conn::http1::Builder::new();
        http.timer(TokioTimer::new())
            .header_read_timeout(limits.header_timeout);
        let connection = graceful.watch(http.serve_connection(TokioIo::new(stream), service));
        tokio::spawn(async move {
            if let Err(err) = connection.await {
                tracing::debug!("connection: {err}");
            }
            drop(permit);
        });
    }
    drop(listener);
    Ok(tokio::time::timeout(grace, graceful.shutdown())
        .await
        .is_ok())
}

/// An accept error that passes: the next accept may well succeed.
fn is_transient(err: &std::io::Error) -> bool {
    use nix::errno::Errno;
    use std::io::ErrorKind;
    let out_of = [Errno::EMFILE, Errno::ENFILE, Errno::ENOBUFS, Errno::ENOMEM];
    matches!(
        err.kind(),
        ErrorKind::ConnectionAborted | ErrorKind::ConnectionReset | ErrorKind::Interrupted
    ) || err
        .raw_os_error()
        .is_some_and(|code| out_of.contains(&Errno::from_raw(code)))
}

/// `wanted`, or fewer when the open-file limit (raised to its hard limit)
/// leaves less room, so that a flood of connections can't take the
/// descriptors the server needs for everything else.
fn connection_cap(wanted: usize) -> usize {
    let Some(files) = raise_open_file_limit() else {
        return wanted;
    };
    let room = usize::try_from(files.saturating_sub(RESERVED_FILES).max(16)).unwrap_or(usize::MAX);
    if room < wanted {
        tracing::warn!(
            "serving at most {room} connections (serve.max_connections is {wanted}, and the \
             process may open {files} files)"
        );
    }
    wanted.min(room)
}

/// Raises the soft open-file limit to the hard one; the limit now in force.
fn raise_open_file_limit() -> Option<u64> {
    use nix::sys::resource::{Resource, getrlimit, setrlimit};
    let (soft, hard) = getrlimit(Resource::RLIMIT_NOFILE).ok()?;
    if soft < hard && setrlimit(Resource::RLIMIT_NOFILE, hard, hard).is_ok() {
        return Some(hard);
    }
    Some(soft)
}
