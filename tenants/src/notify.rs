//! Cross-node cache invalidation on PostgreSQL: a dedicated (not pooled) connection runs
//! `LISTEN tessera_invalidate` and applies every notification to this node's caches.
//!
//! Writers send `pg_notify` inside their transaction, so a notification is delivered only if
//! the write committed. Notifications sent while the listener is disconnected are lost, so:
//!
//! * the moment the connection is seen to fail, the caches are marked unsynced and reads go
//!   to the database ([`Caches::unsync`]) until `LISTEN` is back, when the caches are flushed
//!   and trusted again ([`Caches::resync`]); the listener reconnects with backoff;
//! * a connection that dies silently (no reset, no error: a lost route, a frozen server) is
//!   caught by a heartbeat: an empty query every [`HEARTBEAT_EVERY`] that must be answered
//!   within [`HEARTBEAT_TIMEOUT`]. A notification lost on such a connection was sent after
//!   the last answered heartbeat, so the node serves stale data for at most
//!   [`STALENESS_BOUND`] (the README states it).
//!
//! The connection sets `application_name` to `tessera-listener <process id>`
//! ([`APPLICATION_NAME`]), so operators (and the tests, which kill it with
//! `pg_terminate_backend`) can find each node's listener in `pg_stat_activity`.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{mpsc, oneshot};
use tokio_postgres::{AsyncMessage, NoTls};

use crate::cache::Caches;
use crate::error::{Result, StoreError};

/// The NOTIFY channel.
pub(crate) const CHANNEL: &str = "tessera_invalidate";

/// The listener connection's `application_name`, followed by a space and the process id.
pub const APPLICATION_NAME: &str = "tessera-listener";

/// How often the listener checks that its connection still answers.
pub const HEARTBEAT_EVERY: Duration = Duration::from_millis(500);

/// How long a heartbeat (or the `LISTEN` itself) may take before the connection is given up.
pub const HEARTBEAT_TIMEOUT: Duration = Duration::from_secs(1);

/// The longest a node serves cached data after a notification it missed: a heartbeat's
/// interval plus its timeout (a connection that fails visibly is noticed at once).
pub const STALENESS_BOUND: Duration = HEARTBEAT_EVERY.saturating_add(HEARTBEAT_TIMEOUT);

/// Starts the listener task; resolves once the first `LISTEN` is in effect, so writes made
/// after `Store::open` returns are never missed.
pub(crate) async fn spawn_listener(
    config: tokio_postgres::Config,
    caches: Arc<Caches>,
) -> Result<tokio::task::JoinHandle<()>> {
    caches.unsync();
    let (ready_tx, ready_rx) = oneshot::channel();
    let handle = tokio::spawn(listen_forever(config, caches, ready_tx));
    match tokio::time::timeout(Duration::from_secs(30), ready_rx).await {
        Ok(Ok(())) => Ok(handle),
        _ => {
            handle.abort();
            Err(StoreError::Postgres(
                "the invalidation listener could not LISTEN within 30 s".into(),
            ))
        }
    }
}

async fn listen_forever(
    mut config: tokio_postgres::Config,
    caches: Arc<Caches>,
    ready: oneshot::Sender<()>,
) {
    config
        .application_name(format!("{APPLICATION_NAME} {}", std::process::id()))
        .connect_timeout(HEARTBEAT_TIMEOUT * 2);
    let mut ready = Some(ready);
    let mut backoff = Duration::from_millis(100);
    loop {
        if listen_once(&config, &caches, &mut ready).await {
            backoff = Duration::from_millis(100);
        }
        // Whatever ended it, nothing is heard until the next LISTEN.
        caches.unsync();
        tokio::time::sleep(backoff).await;
        backoff = (backoff * 2).min(Duration::from_secs(2));
    }
}

/// One connection's life: LISTEN, then apply notifications and send heartbeats until the
/// connection fails. Returns whether it got as far as listening.
async fn listen_once(
    config: &tokio_postgres::Config,
    caches: &Arc<Caches>,
    ready: &mut Option<oneshot::Sender<()>>,
) -> bool {
    let Ok((client, mut conn)) = config.connect(NoTls).await else {
        return false;
    };
    // The connection is driven by its own task (queries need it polled); notifications
    // come back over a channel, and the moment the connection ends the caches stop being
    // trusted, without waiting for this task to notice.
    let (tx, mut notices) = mpsc::unbounded_channel::<String>();
    let on_loss = caches.clone();
    let driver = tokio::spawn(async move {
        while let Some(Ok(m)) = std::future::poll_fn(|cx| conn.poll_message(cx)).await {
            if let AsyncMessage::Notification(n) = m
                && tx.send(n.payload().to_owned()).is_err()
            {
                break;
            }
        }
        on_loss.unsync();
    });
    let answered = |r| matches!(r, Ok(Ok(_)));
    let sql = format!("LISTEN {CHANNEL}");
    let listen = client.batch_execute(&sql);
    if !answered(tokio::time::timeout(HEARTBEAT_TIMEOUT, listen).await) {
        driver.abort();
        return false;
    }
    caches.resync();
    if let Some(tx) = ready.take() {
        let _ = tx.send(());
    }
    let mut heartbeat = tokio::time::interval(HEARTBEAT_EVERY);
    heartbeat.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            notice = notices.recv() => match notice {
                Some(payload) => { caches.apply_notification(&payload).await; }
                None => break,
            },
            _ = heartbeat.tick() => {
                let ping = client.batch_execute("SELECT 1");
                if !answered(tokio::time::timeout(HEARTBEAT_TIMEOUT, ping).await) {
                    break;
                }
            }
        }
    }
    caches.unsync();
    driver.abort();
    true
}
