//! The analytics write path: calls hand their events to a bounded queue and return; one task
//! wakes for the first event, waits [`FLUSH_EVERY`], then writes everything that came, in
//! transactions of up to [`BATCH`] events. A full queue drops the event and counts it: recording a visit never
//! slows a page or a call down, and a slow store cannot make memory grow without bound.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use tenants::{AnalyticsEvent, PerformanceRecord, Store, TenantId};
use tokio::sync::mpsc;

/// Events waiting at most.
pub const CAPACITY: usize = 10_000;
/// Events written in one transaction at most.
pub const BATCH: usize = 500;
/// How long an event waits for others to share its transaction.
pub const FLUSH_EVERY: Duration = Duration::from_millis(250);

/// What is queued.
pub enum Record {
    Event(TenantId, AnalyticsEvent),
    Performance(TenantId, PerformanceRecord),
}

/// The sending side, shared by every call.
#[derive(Clone)]
pub struct Queue {
    tx: mpsc::Sender<Record>,
    dropped: Arc<AtomicU64>,
    written: Arc<AtomicU64>,
}

impl Queue {
    /// A queue and the task that writes it to `store`.
    pub fn start(store: Store) -> Queue {
        Queue::with_capacity(store, CAPACITY)
    }

    pub fn with_capacity(store: Store, capacity: usize) -> Queue {
        let (tx, rx) = mpsc::channel(capacity);
        let q = Queue {
            tx,
            dropped: Arc::default(),
            written: Arc::default(),
        };
        tokio::spawn(write_loop(store, rx, q.written.clone()));
        q
    }

    /// Queues a record; when the queue is full it is dropped and counted.
    pub fn push(&self, record: Record) {
        if self.tx.try_send(record).is_err() {
            let n = self.dropped.fetch_add(1, Ordering::Relaxed) + 1;
            if n.is_power_of_two() {
                tracing::warn!(dropped = n, "analytics queue full: records dropped");
            }
        }
    }

    /// Records dropped because the queue was full.
    pub fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }

    /// Records written so far.
    pub fn written(&self) -> u64 {
        self.written.load(Ordering::Relaxed)
    }
}

async fn write_loop(store: Store, mut rx: mpsc::Receiver<Record>, written: Arc<AtomicU64>) {
    let mut batch = Vec::with_capacity(BATCH);
    loop {
        // Wait for one, then let the window fill without listening: a task woken for every
        // event costs the pages more than the writing does (benches/page_views.rs).
        match rx.recv().await {
            Some(r) => batch.push(r),
            None => return,
        }
        tokio::time::sleep(FLUSH_EVERY).await;
        // Everything that came, in transactions of at most BATCH.
        loop {
            while batch.len() < BATCH {
                match rx.try_recv() {
                    Ok(r) => batch.push(r),
                    Err(_) => break,
                }
            }
            if batch.is_empty() {
                break;
            }
            let n = batch.len() as u64;
            let full = batch.len() == BATCH;
            write(&store, std::mem::take(&mut batch)).await;
            written.fetch_add(n, Ordering::Relaxed);
            if !full {
                break;
            }
        }
    }
}

/// Writes a batch, one transaction per tenant and kind.
async fn write(store: &Store, batch: Vec<Record>) {
    use std::collections::BTreeMap;
    let mut events: BTreeMap<TenantId, Vec<AnalyticsEvent>> = BTreeMap::new();
    let mut perf: BTreeMap<TenantId, Vec<PerformanceRecord>> = BTreeMap::new();
    for r in batch {
        match r {
            Record::Event(t, e) => events.entry(t).or_default().push(e),
            Record::Performance(t, p) => perf.entry(t).or_default().push(p),
        }
    }
    for (t, list) in events {
        if let Err(e) = store.record_events(t, &list).await {
            tracing::warn!(tenant = %t, error = %e, lost = list.len(), "writing analytics events failed");
        }
    }
    for (t, list) in perf {
        if let Err(e) = store.record_performance(t, &list).await {
            tracing::warn!(tenant = %t, error = %e, lost = list.len(), "writing performance records failed");
        }
    }
}
