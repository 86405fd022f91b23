//! The moka caches for what rendering reads, and how writes invalidate them.
//!
//! * tenant by host (including "no such host", so unknown hosts stay cheap);
//! * site content ([`SiteSnapshot`]) per tenant, tagged with the content version it was
//!   loaded at;
//! * signing secrets per tenant (they never change).
//!
//! Compiled templates are the server's to cache (`api::cache`): this crate knows nothing
//! of templates.
//!
//! Every content write bumps the tenant's `content_version` in the same transaction. The
//! writing node invalidates its own entries after commit; on PostgreSQL the write also sends
//! `NOTIFY tessera_invalidate '<tenant>:<kind>:<version>'` and every node's listener
//! (`notify.rs`) drops the entries. A time-to-live bounds staleness if a notification
//! is ever lost (e.g. a second process writing the embedded file).
//!
//! **Unsynced.** On PostgreSQL the caches are only trusted while the listener is known to be
//! listening: from losing its connection (or a heartbeat going unanswered) until `LISTEN`
//! is back and the caches are flushed, [`Caches::synced`] is false and reads bypass the
//! content and host caches (they go to the database). A node therefore never serves what a
//! missed notification should have dropped for longer than the listener takes to notice a
//! dead connection (see `notify.rs` for that bound).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use moka::future::Cache;

use crate::ids::TenantId;
use crate::model::{SiteSnapshot, Tenant};

/// What a write changed; decides which caches to drop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Change {
    /// Content the renderer reads (settings, collections, items, navigation ...).
    Content,
    /// The tenant row or its domains (host resolution changes).
    Tenant,
}

impl Change {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Change::Content => "content",
            Change::Tenant => "tenant",
        }
    }
}

/// The per-store caches.
pub(crate) struct Caches {
    pub(crate) hosts: Cache<String, Option<Arc<Tenant>>>,
    pub(crate) content: Cache<TenantId, Arc<SiteSnapshot>>,
    /// Signing secrets per tenant (they never change; see `repo/secrets.rs`).
    pub(crate) secrets: moka::sync::Cache<TenantId, Arc<[u8; 32]>>,
    /// Highest content version heard of per tenant (from own writes or notifications), so a
    /// load that raced a write is not kept.
    latest: Mutex<HashMap<TenantId, i64>>,
    /// Whether the cached entries can be trusted (see the module doc). Embedded stores are
    /// always synced (they re-check versions instead); PostgreSQL stores start unsynced
    /// until the listener's first `LISTEN`.
    synced: AtomicBool,
    /// Counts flushes, so a load that was running across one is not trusted.
    epoch: AtomicU64,
}

/// How many bytes the store's caches may hold (by the weighers' estimates below); moka
/// evicts the least used entries past it. `tessera serve --cache-mb` sets it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CacheBudget {
    /// Tenant by host (including "no such host").
    pub hosts: u64,
    /// Site content per tenant.
    pub content: u64,
    /// Signing secrets per tenant ([`SECRET_WEIGHT`] each).
    pub secrets: u64,
}

impl Default for CacheBudget {
    /// 8 MB of hosts (about sixteen thousand, at some 500 bytes each), 64 MB of content and
    /// 2 MB of signing secrets (about five thousand).
    fn default() -> Self {
        CacheBudget {
            hosts: 8 << 20,
            content: 64 << 20,
            secrets: 2 << 20,
        }
    }
}

/// The weight of one tenant's signing secret: a cache entry, the tenant id and 32 bytes.
pub const SECRET_WEIGHT: u32 = ENTRY_OVERHEAD as u32 + 8 + 32;

/// What one cache entry costs besides its data: moka's entry, the key, the `Arc`, the
/// hash-table slot. Measured: about 250 bytes with a small key and an `Arc` value
/// (`api/tests/cache_weights.rs`); rounded up.
pub const ENTRY_OVERHEAD: u64 = 320;

/// Bytes of memory a site's content takes per byte of its JSON text: the text of its
/// strings, which the loaded model keeps about as long as in JSON (see
/// [`CONTENT_VALUE_BYTES`] for the rest).
pub const CONTENT_MEMORY_FACTOR: u64 = 2;

/// Bytes of memory a site's content takes per value or key in its JSON: each is a
/// `serde_json::Value`, a `String` header and heap block, a map slot or a struct field,
/// however short its text. With [`CONTENT_MEMORY_FACTOR`] this weighs the demo sites at
/// 1.2–1.8 times what their content holds on the heap, where their ratios of heap bytes to
/// JSON bytes alone run from 2.3 (long page HTML) to 5.9 (a store's many short fields):
/// `api/tests/cache_weights.rs` measures it and fails if a weight falls below the bytes
/// held.
pub const CONTENT_VALUE_BYTES: u64 = 64;

/// The size of a value's JSON text, counted without building it: its bytes, and how many
/// values and object keys it holds (each a `Value`, `String` or map slot in memory, which
/// costs the same however short its text is).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct JsonShape {
    /// The length of the JSON text.
    pub bytes: u64,
    /// Values (scalars, arrays, objects) and object keys.
    pub values: u64,
}

/// The [`JsonShape`] of `value`.
pub fn json_shape<T: serde::Serialize + ?Sized>(value: &T) -> JsonShape {
    /// Counts bytes, and outside strings the `,` `:` `[` `{` that each start one more
    /// value or key (the first value of a document has none: one is added).
    struct Count {
        shape: JsonShape,
        in_string: bool,
        escaped: bool,
    }
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.shape.bytes += buf.len() as u64;
            for &b in buf {
                if self.in_string {
                    match b {
                        _ if self.escaped => self.escaped = false,
                        b'\\' => self.escaped = true,
                        b'"' => self.in_string = false,
                        _ => {}
                    }
                } else {
                    match b {
                        b'"' => self.in_string = true,
                        b',' | b':' | b'[' | b'{' => self.shape.values += 1,
                        _ => {}
                    }
                }
            }
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count {
        shape: JsonShape::default(),
        in_string: false,
        escaped: false,
    };
    if serde_json::to_writer(&mut count, value).is_ok() {
        count.shape.values += 1;
    }
    count.shape
}

/// A moka weight (u32) from a byte estimate.
pub fn weight(bytes: u64) -> u32 {
    u32::try_from(bytes).unwrap_or(u32::MAX)
}

/// The weight of a host entry: the host, and the tenant row (or nothing for "no such
/// host").
fn host_weight(host: &str, tenant: &Option<Arc<Tenant>>) -> u32 {
    let tenant = tenant.as_ref().map_or(0, |t| {
        std::mem::size_of::<Tenant>() as u64 + (t.identifier.len() + t.name.len()) as u64
    });
    weight(ENTRY_OVERHEAD + host.len() as u64 + tenant)
}

/// The weight of a site's content, from its [`JsonShape`] (measured when it was loaded):
/// [`CONTENT_MEMORY_FACTOR`] per byte and [`CONTENT_VALUE_BYTES`] per value.
pub fn content_weight(content: &SiteSnapshot) -> u32 {
    let shape = content.shape;
    weight(
        ENTRY_OVERHEAD + shape.bytes * CONTENT_MEMORY_FACTOR + shape.values * CONTENT_VALUE_BYTES,
    )
}

impl Caches {
    /// Caches with the default budget.
    #[allow(dead_code)] // the store opens with a budget; tests and defaults use this
    pub(crate) fn new(ttl: Duration) -> Self {
        Caches::with_budget(ttl, CacheBudget::default())
    }

    pub(crate) fn with_budget(ttl: Duration, budget: CacheBudget) -> Self {
        Caches {
            hosts: Cache::builder()
                .max_capacity(budget.hosts)
                .weigher(|host: &String, tenant: &Option<Arc<Tenant>>| host_weight(host, tenant))
                .time_to_live(ttl)
                .build(),
            content: Cache::builder()
                .max_capacity(budget.content)
                .weigher(|_: &TenantId, content: &Arc<SiteSnapshot>| content_weight(content))
                .time_to_live(ttl)
                .build(),
            secrets: moka::sync::Cache::builder()
                .max_capacity(budget.secrets)
                .weigher(|_, _| SECRET_WEIGHT)
                .build(),
            latest: Mutex::new(HashMap::new()),
            synced: AtomicBool::new(true),
            epoch: AtomicU64::new(0),
        }
    }

    /// Whether reads may use the content and host caches.
    pub(crate) fn synced(&self) -> bool {
        self.synced.load(Ordering::Acquire)
    }

    /// The listener lost its connection: stop trusting the caches until [`Caches::resync`].
    pub(crate) fn unsync(&self) {
        self.synced.store(false, Ordering::Release);
    }

    /// The listener is listening again: drop everything (notifications may have been
    /// missed meanwhile), then trust the caches again.
    pub(crate) fn resync(&self) {
        self.flush();
        self.synced.store(true, Ordering::Release);
    }

    /// The flush count (see [`Caches::flush`]).
    pub(crate) fn epoch(&self) -> u64 {
        self.epoch.load(Ordering::Acquire)
    }

    /// The highest content version known for `tenant` (0 if none heard of).
    pub(crate) fn latest(&self, tenant: TenantId) -> i64 {
        self.latest
            .lock()
            .map(|m| m.get(&tenant).copied().unwrap_or(0))
            .unwrap_or(0)
    }

    /// Records that `tenant` changed to `version` and drops what depends on it.
    pub(crate) async fn changed(&self, tenant: TenantId, change: Change, version: i64) {
        if let Ok(mut m) = self.latest.lock() {
            let e = m.entry(tenant).or_insert(0);
            *e = (*e).max(version);
        }
        self.content.invalidate(&tenant).await;
        if change == Change::Tenant {
            self.hosts.invalidate_all();
        }
    }

    /// Applies a NOTIFY payload `<tenant>:<kind>:<version>`; returns false if malformed.
    pub(crate) async fn apply_notification(&self, payload: &str) -> bool {
        let mut parts = payload.splitn(3, ':');
        let (Some(t), Some(kind), Some(v)) = (parts.next(), parts.next(), parts.next()) else {
            return false;
        };
        let (Ok(t), Ok(v)) = (t.parse::<i64>(), v.parse::<i64>()) else {
            return false;
        };
        let change = if kind == Change::Tenant.as_str() {
            Change::Tenant
        } else {
            Change::Content
        };
        self.changed(TenantId(t), change, v).await;
        true
    }

    /// Drops everything (after the listener reconnects: notifications may have been missed).
    /// Bumps the epoch first, so a load that started before and lands after is re-done.
    pub(crate) fn flush(&self) {
        self.epoch.fetch_add(1, Ordering::AcqRel);
        self.hosts.invalidate_all();
        self.content.invalidate_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn content(tenant: i64, body: usize) -> Arc<SiteSnapshot> {
        Arc::new(
            SiteSnapshot {
                tenant: Tenant {
                    id: TenantId(tenant),
                    identifier: format!("t{tenant}"),
                    name: "A site".into(),
                    status: crate::model::WebsiteStatus::Trial,
                    content_version: 1,
                    template_version: None,
                    template_hash: None,
                    created_ms: 0,
                },
                domains: Vec::new(),
                settings: Default::default(),
                collections: Vec::new(),
                items: Vec::new(),
                categories: Vec::new(),
                navigations: Default::default(),
                header_footer: Default::default(),
                multilingual: serde_json::Value::String("x".repeat(body)),
                commerce_preferences: Default::default(),
                shape: Default::default(),
            }
            .measured(),
        )
    }

    #[test]
    fn weights_grow_with_the_entry() {
        // At least a byte of weight per byte of text.
        assert!(content_weight(&content(1, 10_000)) > content_weight(&content(1, 100)) + 9_900);
        // The same text in many short values weighs more than in one string.
        let mut many = (*content(1, 0)).clone();
        many.multilingual = serde_json::json!(vec!["x"; 2_500]);
        let many = many.measured();
        let many_bytes = json_shape(&many.multilingual).bytes;
        let one = content(1, many_bytes as usize - 2);
        assert_eq!(one.shape.bytes, many.shape.bytes);
        assert!(content_weight(&many) > content_weight(&one) + 2_500 * 32);
        let small = content_weight(&content(1, 100));
        assert!(small as u64 > ENTRY_OVERHEAD, "{small}");
        let t = |name: &str| {
            Some(Arc::new(Tenant {
                name: name.into(),
                ..content(1, 0).tenant.clone()
            }))
        };
        assert!(host_weight("a.example", &t(&"n".repeat(500))) > host_weight("a.example", &t("n")));
        assert!(host_weight("a.example", &None) < host_weight("a.example", &t("n")));
        assert_eq!(json_shape(&"abc").bytes, 5);
    }

    #[test]
    fn json_shapes_count_values_and_keys_not_punctuation_in_strings() {
        let shape = json_shape(&serde_json::json!({"a": 1, "b": [2, 3]}));
        // The object, two keys, 1, the array, 2 and 3.
        assert_eq!(
            shape,
            JsonShape {
                bytes: 17,
                values: 7
            }
        );
        let shape = json_shape(&serde_json::json!({"a,b:[{": "x\\\",y"}));
        assert_eq!(shape.values, 3, "{shape:?}");
        assert_eq!(json_shape(&"plain").values, 1);
    }

    #[tokio::test]
    async fn the_byte_budget_evicts() {
        // Room for ten contents of 10 kB.
        let budget = CacheBudget {
            hosts: 1 << 20,
            content: 10 * content_weight(&content(0, 10_000)) as u64,
            secrets: 1 << 20,
        };
        let c = Caches::with_budget(Duration::from_secs(60), budget);
        for t in 0..100 {
            c.content.insert(TenantId(t), content(t, 10_000)).await;
        }
        c.content.run_pending_tasks().await;
        assert!(
            c.content.weighted_size() <= budget.content,
            "{}",
            c.content.weighted_size()
        );
        let kept = c.content.entry_count();
        assert!((1..=10).contains(&kept), "{kept} entries kept");
        // Small entries: many more fit in the same budget.
        let c = Caches::with_budget(Duration::from_secs(60), budget);
        for t in 0..100 {
            c.content.insert(TenantId(t), content(t, 100)).await;
        }
        c.content.run_pending_tasks().await;
        assert!(c.content.entry_count() > 50, "{}", c.content.entry_count());
    }

    #[tokio::test]
    async fn notification_payloads_are_parsed() {
        let c = Caches::new(Duration::from_secs(60));
        assert!(c.apply_notification("7:content:12").await);
        assert_eq!(c.latest(TenantId(7)), 12);
        assert!(!c.apply_notification("garbage").await);
        assert!(!c.apply_notification("x:content:1").await);
    }
}
