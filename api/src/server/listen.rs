//! The accept loop: hyper's HTTP/1 connection builder with the limits `axum::serve` does
//! not have.
//!
//! - A client has [`Limits::header_timeout`] to send a request's headers, counted from when
//!   the server starts waiting for them: a slowloris client that trickles headers is cut
//!   off, and so is a keep-alive connection left idle that long between requests.
//! - At most [`Limits::max_connections`] connections are open at once. Beyond that the loop
//!   stops accepting: new connections wait in the kernel's listen backlog (no memory of
//!   ours) and are taken as others close.
//! - At most [`Limits::max_per_client`] of them from one client address (trusted proxies
//!   excepted, since every visitor behind one shares its address); a connection over that is
//!   closed at once, before any byte is read.
//! - SIGTERM or Ctrl-C stops accepting, and in-flight requests finish.
//!
//! Handlers see the peer address as axum's `ConnectInfo<SocketAddr>`.

use std::collections::HashMap;
use std::future::Future;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::extract::{ConnectInfo, Request};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tower::ServiceExt;

/// What the server lets clients hold, and for how long (the `tessera serve` flags).
#[derive(Clone, Debug)]
pub struct Limits {
    /// How long a client may take to send a request's headers (and how long an idle
    /// keep-alive connection stays open).
    pub header_timeout: Duration,
    /// How long a client may take to send a request's body, from its headers on: past it
    /// the body reader answers 408.
    pub body_timeout: Duration,
    /// Open connections at most.
    pub max_connections: usize,
    /// Open connections from one client address at most; 0: no such cap.
    pub max_per_client: usize,
    /// Peers exempt from `max_per_client` (the trusted reverse proxies).
    pub exempt: Vec<IpAddr>,
    /// Requests one site may have in flight at once; 0: no such cap
    /// ([`crate::server::fairness`]).
    pub tenant_max_in_flight: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(20),
            max_connections: 1024,
            max_per_client: 256,
            exempt: Vec::new(),
            tenant_max_in_flight: 128,
        }
    }
}

/// Serves `service` on `listener` under `limits` until `shutdown` completes, then waits for
/// the open connections' in-flight requests.
pub async fn serve(
    listener: TcpListener,
    service: Router,
    limits: &Limits,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout);
    let open = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let per_client = PerClient::new(limits);
    let graceful = GracefulShutdown::new();
    tokio::pin!(shutdown);
    loop {
        // A free slot first, then accept: over the cap, connections wait in the backlog.
        let slot = tokio::select! {
            slot = open.clone().acquire_owned() => slot.expect("the semaphore is never closed"),
            () = &mut shutdown => break,
        };
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    accept_failed(e).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let Some(client) = per_client.enter(peer.ip()) else {
            // Dropping the stream closes it: the cheapest refusal there is.
            tracing::debug!(%peer, "refused: too many connections from this client");
            continue;
        };
        let _ = stream.set_nodelay(true);
        let service = service.clone().map_request(move |mut req: Request<_>| {
            req.extensions_mut().insert(ConnectInfo(peer));
            req
        });
        let connection =
            builder.serve_connection(TokioIo::new(stream), TowerToHyperService::new(service));
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            // Errors here are the client's (a reset, a header timeout): nothing to answer.
            if let Err(e) = connection.await {
                tracing::debug!(%peer, error = %e, "connection ended");
            }
            drop(client);
            drop(slot);
        });
    }
    drop(listener);
    graceful.shutdown().await;
    Ok(())
}

/// An accept that failed. Most failures are one connection's (reset before it was taken);
/// out of file descriptors, the loop would spin, so it waits a moment.
async fn accept_failed(e: std::io::Error) {
    use std::io::ErrorKind::*;
    if matches!(
        e.kind(),
        ConnectionAborted | ConnectionReset | ConnectionRefused | Interrupted
    ) {
        return;
    }
    tracing::warn!(error = %e, "accepting a connection failed");
    tokio::time::sleep(Duration::from_millis(100)).await;
}

/// Open connections by client address.
#[derive(Clone)]
struct PerClient {
    cap: usize,
    exempt: Arc<[IpAddr]>,
    open: Arc<Mutex<HashMap<IpAddr, usize>>>,
}

/// One open connection of a client; leaving closes its count.
struct ClientSlot {
    of: Option<(PerClient, IpAddr)>,
}

impl PerClient {
    fn new(limits: &Limits) -> PerClient {
        PerClient {
            cap: limits.max_per_client,
            exempt: limits.exempt.clone().into(),
            open: Default::default(),
        }
    }

    /// A slot for one more connection from `ip`, or `None` when it has its share open.
    fn enter(&self, ip: IpAddr) -> Option<ClientSlot> {
        if self.cap == 0 || self.exempt.contains(&ip) {
            return Some(ClientSlot { of: None });
        }
        let mut open = self.open.lock().expect("not poisoned");
        let n = open.entry(ip).or_insert(0);
        if *n >= self.cap {
            return None;
        }
        *n += 1;
        Some(ClientSlot {
            of: Some((self.clone(), ip)),
        })
    }
}

impl Drop for ClientSlot {
    fn drop(&mut self) {
        if let Some((clients, ip)) = self.of.take() {
            let mut open = clients.open.lock().expect("not poisoned");
            if let Some(n) = open.get_mut(&ip) {
                *n -= 1;
                // Only clients with connections open are kept: the map stays small.
                if *n == 0 {
                    open.remove(&ip);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_client_gets_its_share_and_exempt_peers_any() {
        let limits = Limits {
            max_per_client: 2,
            exempt: vec!["10.0.0.1".parse().unwrap()],
            ..Limits::default()
        };
        let clients = PerClient::new(&limits);
        let a: IpAddr = "192.0.2.1".parse().unwrap();
        let first = clients.enter(a).unwrap();
        let _second = clients.enter(a).unwrap();
        assert!(clients.enter(a).is_none());
        assert!(clients.enter("192.0.2.2".parse().unwrap()).is_some());
        let proxy: IpAddr = "10.0.0.1".parse().unwrap();
        let held: Vec<_> = (0..5).map(|_| clients.enter(proxy).unwrap()).collect();
        assert_eq!(held.len(), 5);
        drop(first);
        assert!(
            clients.enter(a).is_some(),
            "a closed connection frees its slot"
        );
        drop(held);
        assert!(!clients.open.lock().unwrap().contains_key(&proxy));
    }
}
