//! The moka caches for what rendering reads, and how writes invalidate them.
//!
//! * tenant by host (including "no such host", so unknown hosts stay cheap);
//! * site content ([`SiteContent`]) per tenant, tagged with the content version it was
//!   loaded at;
//! * compiled templates: [`TemplateCache`], generic over the renderer's compiled type and
//!   keyed by `(TenantId, TemplateVersion)`. This crate knows nothing of templates; the
//!   renderer owns an instance. A new upload gets a new version, so it can never meet a stale
//!   entry; old versions age out (time-to-idle) or are dropped by
//!   [`TemplateCache::invalidate_tenant`].
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

use crate::ids::{TemplateVersion, TenantId};
use crate::model::{SiteContent, Tenant};

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
    pub(crate) content: Cache<TenantId, Arc<SiteContent>>,
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

impl Caches {
    pub(crate) fn new(ttl: Duration) -> Self {
        Caches {
            hosts: Cache::builder()
                .max_capacity(100_000)
                .time_to_live(ttl)
                .build(),
            content: Cache::builder()
                .max_capacity(10_000)
                .time_to_live(ttl)
                .build(),
            secrets: moka::sync::Cache::builder().max_capacity(100_000).build(),
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

/// A cache of values derived from a tenant's template folder (compiled templates), keyed by
/// `(TenantId, TemplateVersion)`. Cheap to clone; clones share entries.
#[derive(Clone)]
pub struct TemplateCache<V: Send + Sync + 'static> {
    inner: Cache<(TenantId, TemplateVersion), Arc<V>>,
}

impl<V: Send + Sync + 'static> TemplateCache<V> {
    /// A cache holding at most `max_versions` template versions; entries unused for
    /// `idle` are dropped.
    pub fn new(max_versions: u64, idle: Duration) -> Self {
        TemplateCache {
            inner: Cache::builder()
                .max_capacity(max_versions)
                .time_to_idle(idle)
                .build(),
        }
    }

    /// The cached value for this version, or the result of `build` (run once even when many
    /// requests miss together). Errors are returned and not cached.
    pub async fn get_or_try_build<E, F>(
        &self,
        tenant: TenantId,
        version: TemplateVersion,
        build: F,
    ) -> Result<Arc<V>, Arc<E>>
    where
        F: Future<Output = Result<V, E>>,
        E: Send + Sync + 'static,
    {
        self.inner
            .try_get_with((tenant, version), async move { build.await.map(Arc::new) })
            .await
    }

    /// The cached value, if present.
    pub async fn get(&self, tenant: TenantId, version: TemplateVersion) -> Option<Arc<V>> {
        self.inner.get(&(tenant, version)).await
    }

    /// Drops every version of one tenant (e.g. when it is removed).
    pub async fn invalidate_tenant(&self, tenant: TenantId) {
        let keys: Vec<_> = self
            .inner
            .iter()
            .map(|(k, _)| *k)
            .filter(|k| k.0 == tenant)
            .collect();
        for k in keys {
            self.inner.invalidate(&k).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn template_cache_builds_once_per_version() {
        let cache: TemplateCache<String> = TemplateCache::new(100, Duration::from_secs(60));
        let t = TenantId(1);
        let a = cache
            .get_or_try_build::<(), _>(t, TemplateVersion(1), async { Ok("v1".into()) })
            .await
            .unwrap();
        let again = cache
            .get_or_try_build::<(), _>(t, TemplateVersion(1), async { Ok("other".into()) })
            .await
            .unwrap();
        assert_eq!(*a, "v1");
        assert_eq!(*again, "v1");
        let b = cache
            .get_or_try_build::<(), _>(t, TemplateVersion(2), async { Ok("v2".into()) })
            .await
            .unwrap();
        assert_eq!(*b, "v2");
        cache.invalidate_tenant(t).await;
        assert!(cache.get(t, TemplateVersion(1)).await.is_none());
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
