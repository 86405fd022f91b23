//! Cross-node cache invalidation on PostgreSQL: a dedicated (not pooled) connection runs
//! `LISTEN tessera_invalidate` and applies every notification to this node's caches.
//!
//! Writers send `pg_notify` inside their transaction, so a notification is delivered only if
//! the write committed. Notifications sent while the listener is disconnected are lost, so
//! after every (re)connect the listener flushes all caches; it reconnects with backoff.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::oneshot;
use tokio_postgres::{AsyncMessage, NoTls};

use crate::cache::Caches;
use crate::error::{Result, StoreError};

/// The NOTIFY channel.
pub(crate) const CHANNEL: &str = "tessera_invalidate";

/// Starts the listener task; resolves once the first `LISTEN` is in effect, so writes made
/// after `Store::open` returns are never missed.
pub(crate) async fn spawn_listener(
    config: tokio_postgres::Config,
    caches: Arc<Caches>,
) -> Result<tokio::task::JoinHandle<()>> {
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
    config: tokio_postgres::Config,
    caches: Arc<Caches>,
    ready: oneshot::Sender<()>,
) {
    let mut ready = Some(ready);
    let mut backoff = Duration::from_millis(100);
    loop {
        if let Ok((client, mut conn)) = config.connect(NoTls).await {
            let sql = format!("LISTEN {CHANNEL}");
            let listen = client.batch_execute(&sql);
            tokio::pin!(listen);
            let mut listening = false;
            loop {
                tokio::select! {
                    r = &mut listen, if !listening => {
                        if r.is_err() { break; }
                        listening = true;
                        backoff = Duration::from_millis(100);
                        caches.flush();
                        if let Some(tx) = ready.take() { let _ = tx.send(()); }
                    }
                    m = std::future::poll_fn(|cx| conn.poll_message(cx)) => match m {
                        Some(Ok(AsyncMessage::Notification(n))) => {
                            caches.apply_notification(n.payload()).await;
                        }
                        Some(Ok(_)) => {}
                        Some(Err(_)) | None => break,
                    }
                }
            }
        }
        tokio::time::sleep(backoff).await;
        backoff = (backoff * 2).min(Duration::from_secs(5));
    }
}
