//! The analytics write path: calls hand what they record to a bounded queue and return; one
//! task wakes for the first record, waits [`FLUSH_EVERY`], takes everything that came and
//! writes it in one transaction. A full queue drops the record and counts it: recording a
//! visit never slows a page or a call down, and a slow store cannot make memory grow
//! without bound.
//!
//! Page views the server answers are not stored one row each: the task adds them up per
//! site, roll-up, metric, day or quarter hour and label ([`tenants::Tally`]) and adds those
//! counts to the roll-ups, a few rows per site per write whatever the traffic. Events of
//! the tracking calls (and the server's cart adds and orders) are kept as raw rows too.
//! Labels come from visitors (paths, referrers, cookies), so one write takes at most
//! [`LABELS_PER_METRIC`] rows per site, roll-up and metric; counts past that are dropped and
//! counted ([`Queue::dropped_labels`]).
//!
//! [`Queue::close`] (a clean shutdown) writes everything queued before it returns. A killed
//! process loses what it had not written: at most one window's records ([`FLUSH_EVERY`]
//! unless set; docs/src/operators.md).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use tenants::{AnalyticsEvent, PageView, PageViewSums, PerformanceRecord, Store, Tally, TenantId};
use tokio::sync::{Notify, mpsc};
use tokio::task::JoinHandle;

/// Records waiting at most.
pub const CAPACITY: usize = 10_000;
/// How long a record waits for others to share its write, unless the server says otherwise
/// (`serve --analytics-flush-every`).
pub const FLUSH_EVERY: Duration = Duration::from_millis(250);
/// Rows one write takes per site, roll-up and metric at most (see the module's notes).
pub const LABELS_PER_METRIC: usize = 2_000;

/// What is queued.
pub enum Record {
    /// An event kept as a raw row (and counted).
    Event(TenantId, AnalyticsEvent),
    /// A page view the server answered: counted only.
    PageView(TenantId, PageView),
    Performance(TenantId, PerformanceRecord),
}

#[derive(Default)]
struct Counters {
    dropped: AtomicU64,
    written: AtomicU64,
    dropped_labels: AtomicU64,
}

/// The sending side, shared by every call.
#[derive(Clone)]
pub struct Queue {
    tx: mpsc::Sender<Record>,
    counters: Arc<Counters>,
    stop: Arc<Notify>,
    task: Arc<std::sync::Mutex<Option<JoinHandle<()>>>>,
}

impl Queue {
    /// A queue and the task that writes it to `store` every `flush_every`.
    pub fn start(store: Store, flush_every: Duration) -> Queue {
        Queue::with_capacity(store, CAPACITY, flush_every)
    }

    pub fn with_capacity(store: Store, capacity: usize, flush_every: Duration) -> Queue {
        let (tx, rx) = mpsc::channel(capacity);
        let counters = Arc::new(Counters::default());
        let stop = Arc::new(Notify::new());
        let task = tokio::spawn(write_loop(
            store,
            rx,
            counters.clone(),
            stop.clone(),
            flush_every,
        ));
        Queue {
            tx,
            counters,
            stop,
            task: Arc::new(std::sync::Mutex::new(Some(task))),
        }
    }

    /// Queues a record; when the queue is full it is dropped and counted.
    pub fn push(&self, record: Record) {
        if self.tx.try_send(record).is_err() {
            let n = self.counters.dropped.fetch_add(1, Ordering::Relaxed) + 1;
            if n.is_power_of_two() {
                tracing::warn!(dropped = n, "analytics queue full: records dropped");
            }
        }
    }

    /// Records dropped because the queue was full.
    pub fn dropped(&self) -> u64 {
        self.counters.dropped.load(Ordering::Relaxed)
    }

    /// Records written so far.
    pub fn written(&self) -> u64 {
        self.counters.written.load(Ordering::Relaxed)
    }

    /// Counts not written because their label was past [`LABELS_PER_METRIC`].
    pub fn dropped_labels(&self) -> u64 {
        self.counters.dropped_labels.load(Ordering::Relaxed)
    }

    /// Writes everything queued so far and stops the writer (a clean shutdown: call it once
    /// no request can record any more). Records pushed after it are dropped.
    pub async fn close(&self) {
        let task = self.task.lock().ok().and_then(|mut t| t.take());
        if let Some(task) = task {
            self.stop.notify_one();
            if let Err(e) = task.await {
                tracing::error!(error = %e, "the analytics writer failed");
            }
        }
    }
}

async fn write_loop(
    store: Store,
    mut rx: mpsc::Receiver<Record>,
    counters: Arc<Counters>,
    stop: Arc<Notify>,
    flush_every: Duration,
) {
    let mut stopping = false;
    while !stopping {
        // Wait for one, then let the window fill without listening: a task woken for every
        // record costs the pages more than the writing does (benches/page_views.rs).
        let mut first = None;
        tokio::select! {
            r = rx.recv() => match r {
                Some(r) => first = Some(r),
                None => stopping = true,
            },
            () = stop.notified() => stopping = true,
        }
        if !stopping {
            tokio::select! {
                () = tokio::time::sleep(flush_every) => {}
                () = stop.notified() => stopping = true,
            }
        }
        if stopping {
            // Nothing more comes in; what is queued is written below.
            rx.close();
        }
        let mut batch = Batch::default();
        batch.add(first);
        while batch.records < CAPACITY {
            match rx.try_recv() {
                Ok(r) => batch.add(Some(r)),
                Err(_) => break,
            }
        }
        if batch.records > 0 {
            batch.write(&store, &counters).await;
        }
    }
    // Closed: whatever is left (records pushed in the last moment).
    let mut batch = Batch::default();
    while let Ok(r) = rx.try_recv() {
        batch.add(Some(r));
    }
    if batch.records > 0 {
        batch.write(&store, &counters).await;
    }
}

/// One write's worth. Page views are summed as they come (alike ones are one entry) and
/// counted into the tally once, at the write.
struct Batch {
    tally: Tally,
    views: PageViewSums,
    events: Vec<(TenantId, AnalyticsEvent)>,
    perf: std::collections::BTreeMap<TenantId, Vec<PerformanceRecord>>,
    records: usize,
}

impl Default for Batch {
    fn default() -> Batch {
        Batch {
            tally: Tally::with_cap(LABELS_PER_METRIC),
            views: PageViewSums::default(),
            events: Vec::new(),
            perf: Default::default(),
            records: 0,
        }
    }
}

impl Batch {
    fn add(&mut self, r: Option<Record>) {
        let Some(r) = r else { return };
        self.records += 1;
        match r {
            Record::Event(t, e) => self.events.push((t, e)),
            Record::PageView(t, v) => self.views.add(t, v),
            Record::Performance(t, p) => self.perf.entry(t).or_default().push(p),
        }
    }

    /// Counts and events in one transaction; performance records per site.
    async fn write(mut self, store: &Store, counters: &Counters) {
        self.tally.page_view_sums(std::mem::take(&mut self.views));
        if self.tally.dropped() > 0 {
            let before = counters
                .dropped_labels
                .fetch_add(self.tally.dropped(), Ordering::Relaxed);
            tracing::warn!(
                dropped = before + self.tally.dropped(),
                "analytics: too many labels in one write, counts dropped"
            );
        }
        let events: Vec<_> = self.events.iter().map(|(t, e)| (*t, e)).collect();
        if let Err(e) = store.record_analytics(&self.tally, &events).await {
            tracing::warn!(error = %e, rows = self.tally.len(), events = events.len(), "writing analytics failed");
        }
        for (t, list) in self.perf {
            if let Err(e) = store.record_performance(t, &list).await {
                tracing::warn!(tenant = %t, error = %e, lost = list.len(), "writing performance records failed");
            }
        }
        counters
            .written
            .fetch_add(self.records as u64, Ordering::Relaxed);
    }
}
