//! How many bytes the server's caches may hold (`tessera serve --cache-mb`), how that
//! budget is split between them, and how each entry is weighed.
//!
//! The caches are moka caches weighed in estimated bytes, not entries, so a node's memory
//! follows the budget whether its tenants are small blogs or large stores. Estimates:
//!
//! * a site's content (store cache) and its renderer view (app cache): the JSON size of
//!   the content times a factor for the in-memory model (maps, string headers, the
//!   renderer's value tree and product links);
//! * a compiled template folder: the bytes of its files times a factor (the parsed
//!   templates next to the public files, which are kept as they are);
//! * a host, a template hash: small fixed costs.
//!
//! Tenants on the same template share one compiled folder (keyed by a hash of its files),
//! so the folder budget counts designs, not tenants.

use tenants::CacheBudget;
use tenants::cache::weight;

/// The default of `--cache-mb`.
pub const DEFAULT_CACHE_MB: u64 = 256;

/// Memory per byte of a site's JSON content held by the renderer's view of it (value tree,
/// product links, commerce settings). A rough factor on the high side.
pub const SITE_MEMORY_FACTOR: u64 = 4;

/// Memory per byte of template files in a compiled folder (public files as they are, the
/// parsed templates and stylesheet). A rough factor on the high side.
pub const FOLDER_MEMORY_FACTOR: u64 = 4;

/// The weight of one (tenant, template version) → hash entry.
pub const HASH_ENTRY_WEIGHT: u32 = 128;

/// What one cache entry costs besides its data.
const ENTRY_OVERHEAD: u64 = 256;

/// The app's share of the budget, in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AppBudget {
    /// Compiled template folders.
    pub folders: u64,
    /// Sites' renderer views by content version.
    pub sites: u64,
    /// Template hashes by (tenant, version).
    pub template_hashes: u64,
}

impl Default for AppBudget {
    fn default() -> Self {
        split(DEFAULT_CACHE_MB << 20).1
    }
}

/// Splits `total` bytes: 4 % hosts and 2 % template hashes (small entries, one per
/// tenant), 35 % site content in the store and 40 % its renderer view (the two forms a
/// visited site is held in), 19 % compiled folders (one per design in use).
pub fn split(total: u64) -> (CacheBudget, AppBudget) {
    let part = |percent: u64| total / 100 * percent;
    (
        CacheBudget {
            hosts: part(4),
            content: part(35),
        },
        AppBudget {
            folders: part(19),
            sites: part(40),
            template_hashes: part(2),
        },
    )
}

/// A compiled folder's weight from its files' bytes.
pub fn folder_weight(source_bytes: u64) -> u32 {
    weight(ENTRY_OVERHEAD + source_bytes * FOLDER_MEMORY_FACTOR)
}

/// A site view's weight from its content's JSON bytes.
pub fn site_weight(content_bytes: u64) -> u32 {
    weight(ENTRY_OVERHEAD + content_bytes * SITE_MEMORY_FACTOR)
}

#[cfg(test)]
mod tests {
    use super::*;
    use moka::future::Cache;

    #[test]
    fn the_split_adds_up_and_weights_grow_with_size() {
        let (store, app) = split(100 << 20);
        let sum = store.hosts + store.content + app.folders + app.sites + app.template_hashes;
        assert_eq!(sum, 100 << 20);
        assert!(folder_weight(200_000) > folder_weight(5_000));
        assert!(site_weight(60_000) > site_weight(20_000));
    }

    #[tokio::test]
    async fn the_site_budget_evicts_by_bytes() {
        let sites: Cache<u32, u64> = Cache::builder()
            .max_capacity(1 << 20)
            .weigher(|_, bytes: &u64| site_weight(*bytes))
            .build();
        // 100 sites of 50 kB content: about 200 kB each, five fit in 1 MiB.
        for t in 0..100 {
            sites.insert(t, 50_000).await;
        }
        sites.run_pending_tasks().await;
        assert!(sites.weighted_size() <= 1 << 20);
        assert!(
            (1..=5).contains(&sites.entry_count()),
            "{}",
            sites.entry_count()
        );
    }
}
