//! How many bytes the server's caches may hold (`tessera serve --cache-mb`), how that
//! budget is split between them, and how each entry is weighed.
//!
//! The caches are moka caches weighed in estimated bytes, not entries, so a node's memory
//! follows the budget whether its tenants are small blogs or large stores. Estimates:
//!
//! * a site's content (store cache) and its renderer view (app cache): from the content's
//!   JSON, so much per byte (the text of its strings) and so much per value or key (the
//!   in-memory node each one becomes: maps, string headers, the renderer's value tree);
//! * a compiled template folder: its public files as they are, and its other files times
//!   a factor (they are parsed into templates and a stylesheet);
//! * a host, a template hash: a cache entry's fixed cost.
//!
//! The factors are measured: `tests/cache_weights.rs` builds each cached kind for every
//! demo site under a counting allocator and fails if a weight falls below the heap bytes
//! the entry holds (or far above them); run it with `--nocapture` for the ratios.
//!
//! Tenants on the same template share one compiled folder (keyed by a hash of its files),
//! so the folder budget counts designs, not tenants.

use std::sync::Arc;

use moka::future::Cache;
use tenants::cache::{ENTRY_OVERHEAD, JsonShape, weight};
use tenants::{CacheBudget, Store, TemplateHash, TemplateVersion, TenantId};

use crate::http::site::{Site, SiteBundle};
use crate::pages::folders::{FolderError, LoadedFolder};

/// The server's own caches (the store keeps hosts, content and secrets: `tenants::cache`).
/// Each is weighed in estimated bytes and given its share of the budget ([`split`]).
pub struct Caches {
    /// The content hash of (tenant, template version)s stored without one (by an older
    /// node), hashed from their files once.
    pub(crate) template_hashes: Cache<(TenantId, TemplateVersion), TemplateHash>,
    /// Compiled template folders by the content hash of their files: compiled once per
    /// distinct folder, however many tenants use it.
    pub(crate) folders: Cache<TemplateHash, Arc<LoadedFolder>>,
    /// What a site's content version gives requests (the renderer's view, the commerce
    /// settings ...) by (tenant, content version).
    pub(crate) sites: Cache<(TenantId, i64), Arc<SiteBundle>>,
    /// Carts as pages show them, by (tenant, cart id, revision): a page view with a cart
    /// cookie reads its cart from here, and a change makes a new revision (and key). Kept
    /// five minutes at most: a cart's total depends on the time too (coupon dates).
    pub(crate) page_carts:
        moka::sync::Cache<(TenantId, String, i64), Arc<crate::pages::commerce::PageCart>>,
}

impl Caches {
    /// Empty caches holding at most `budget`'s bytes each.
    pub fn new(budget: &AppBudget) -> Caches {
        Caches {
            template_hashes: Cache::builder()
                .max_capacity(budget.template_hashes)
                .weigher(|_, _| HASH_ENTRY_WEIGHT)
                .build(),
            folders: Cache::builder()
                .max_capacity(budget.folders)
                .weigher(|_, f: &Arc<LoadedFolder>| f.weight())
                .build(),
            sites: Cache::builder()
                .max_capacity(budget.sites)
                .weigher(|_, b: &Arc<SiteBundle>| b.weight())
                .build(),
            page_carts: moka::sync::Cache::builder()
                .max_capacity(budget.page_carts)
                .weigher(|_, _| PAGE_CART_WEIGHT)
                .time_to_live(std::time::Duration::from_secs(300))
                .build(),
        }
    }

    /// The compiled template folder of the site's active template version (`None` if it has
    /// none). Folders are shared by content: the version's hash comes with the tenant row
    /// (stored at upload), so a tenant whose design another tenant already compiled costs no
    /// read of its files; otherwise its files are loaded and compiled once per distinct folder.
    /// A new upload is a new version with its own hash, so it never meets another folder.
    pub async fn folder(
        &self,
        store: &Store,
        site: &Site,
    ) -> Result<Option<Arc<LoadedFolder>>, FolderError> {
        let Some(version) = site.template_version else {
            return Ok(None);
        };
        let tenant = site.tenant.id;
        // A version stored without a hash (by an older node) is hashed from its files once.
        let known = match site.template_hash {
            Some(hash) => Some(hash),
            None => self.template_hashes.get(&(tenant, version)).await,
        };
        if let Some(hash) = known
            && let Some(folder) = self.folders.get(&hash).await
        {
            return Ok(Some(folder));
        }
        let files = store
            .template_files(tenant, version)
            .await
            .map_err(|e| FolderError::Store(e.to_string()))?;
        let hash = match known {
            Some(hash) => hash,
            None => {
                let hash = tenants::template_hash(&files);
                self.template_hashes.insert((tenant, version), hash).await;
                hash
            }
        };
        let identifier = site.tenant.identifier.clone();
        self.folders
            .try_get_with(hash, async move {
                let loaded = tokio::task::spawn_blocking(move || LoadedFolder::compile(files))
                    .await
                    .map_err(|e| FolderError::Compile(e.to_string()))?;
                for p in &loaded.folder.problems {
                    tracing::warn!(tenant = %identifier, "template problem: {p}");
                }
                Ok::<_, FolderError>(Arc::new(loaded))
            })
            .await
            .map(Some)
            .map_err(|e| (*e).clone())
    }
}

// The weights are the cache's business: the kinds it holds know nothing of it.
impl SiteBundle {
    /// Its cache weight ([`site_weight`]).
    pub fn weight(&self) -> u32 {
        site_weight(self.content_shape, self.products.len() as u64)
    }
}

impl LoadedFolder {
    /// Its cache weight ([`folder_weight`]).
    pub fn weight(&self) -> u32 {
        folder_weight(
            self.public_bytes(),
            self.source_bytes().saturating_sub(self.public_bytes()),
        )
    }
}

/// The default of `--cache-mb`.
pub const DEFAULT_CACHE_MB: u64 = 256;

/// Memory per byte of a site's JSON content held by the renderer's view of it: the text of
/// its strings (see [`SITE_VALUE_BYTES`] and [`SITE_PRODUCT_BYTES`] for the rest).
pub const SITE_MEMORY_FACTOR: u64 = 2;

/// Memory per value or key of a site's JSON content held by the renderer's view of it: a
/// node of its value tree each.
pub const SITE_VALUE_BYTES: u64 = 48;

/// Memory per product held by the renderer's view besides its content's values: the
/// fields the view derives for a product (prices as text, variants, instalments) and its
/// cart link. Measured on the demo stores at 3.3 kB (3 products) and 6.9 kB (34
/// products, 60 variants).
///
/// With the other two factors, the demo sites' views weigh 1.3–1.5 times the heap bytes
/// they hold, where those bytes per JSON byte alone run from 2.3 (long page HTML) to 8.3
/// (a store's many short fields and products).
pub const SITE_PRODUCT_BYTES: u64 = 8 << 10;

/// Memory per byte of a compiled folder's files other than its public ones (templates,
/// blocks, configuration, stylesheets): parsed into template trees and one stylesheet, they
/// take 6.3–7.4 times their size in the demo designs. Public files (`assets/`, `scripts/`)
/// are kept as they are: a byte per byte, and up to an eighth more where the allocator
/// rounds a block up to its size class.
pub const FOLDER_MEMORY_FACTOR: u64 = 9;

/// The weight of a cart as pages show it: a cache entry, its key and the cart's value tree,
/// estimated at 4 KiB (a cart of a few lines; a large cart weighs more than it counts, a
/// small one less).
pub const PAGE_CART_WEIGHT: u32 = 4 << 10;

/// The weight of one (tenant, template version) → hash entry: a cache entry and a
/// 32-byte hash.
pub const HASH_ENTRY_WEIGHT: u32 = ENTRY_OVERHEAD as u32 + 32;

/// The app's share of the budget, in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AppBudget {
    /// Compiled template folders.
    pub folders: u64,
    /// Sites' renderer views by content version.
    pub sites: u64,
    /// Template hashes by (tenant, version).
    pub template_hashes: u64,
    /// Carts as pages show them.
    pub page_carts: u64,
    /// Kept renders of public pages without a query string (`crate::pages::kept`).
    pub kept_pages: u64,
    /// Kept renders of public pages asked for with a query string.
    pub kept_variants: u64,
}

impl Default for AppBudget {
    fn default() -> Self {
        split(DEFAULT_CACHE_MB << 20).1
    }
}

/// Splits `total` bytes: 3 % hosts, 1 % signing secrets and 2 % template hashes (small
/// entries, one per tenant), 35 % site content in the store and 34 % its renderer view (the
/// two forms a visited site is held in), 19 % compiled folders (one per design in use), 2 %
/// carts as pages show them, 3 % kept renders of public pages and 1 % kept renders of their
/// query variants.
pub fn split(total: u64) -> (CacheBudget, AppBudget) {
    let part = |percent: u64| total / 100 * percent;
    (
        CacheBudget {
            hosts: part(3),
            content: part(35),
            secrets: part(1),
        },
        AppBudget {
            folders: part(19),
            sites: part(34),
            template_hashes: part(2),
            page_carts: part(2),
            kept_pages: part(3),
            kept_variants: part(1),
        },
    )
}

/// A compiled folder's weight from its public files' bytes and its other files' bytes.
pub fn folder_weight(public_bytes: u64, parsed_bytes: u64) -> u32 {
    weight(ENTRY_OVERHEAD + public_bytes + public_bytes / 8 + parsed_bytes * FOLDER_MEMORY_FACTOR)
}

/// A site view's weight from the shape of its content's JSON and its number of products.
pub fn site_weight(content: JsonShape, products: u64) -> u32 {
    weight(
        ENTRY_OVERHEAD
            + content.bytes * SITE_MEMORY_FACTOR
            + content.values * SITE_VALUE_BYTES
            + products * SITE_PRODUCT_BYTES,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_split_adds_up_and_weights_grow_with_size() {
        let (store, app) = split(100 << 20);
        let sum = store.hosts
            + store.secrets
            + store.content
            + app.folders
            + app.sites
            + app.template_hashes
            + app.page_carts
            + app.kept_pages
            + app.kept_variants;
        assert_eq!(sum, 100 << 20);
        assert!(folder_weight(200_000, 0) > folder_weight(5_000, 0));
        // Parsed files cost more than public ones kept as they are.
        assert!(folder_weight(0, 10_000) > folder_weight(10_000, 0));
        let shape = |bytes, values| JsonShape { bytes, values };
        assert!(site_weight(shape(60_000, 100), 0) > site_weight(shape(20_000, 100), 0));
        assert!(site_weight(shape(20_000, 2_000), 0) > site_weight(shape(20_000, 100), 0));
        assert!(site_weight(shape(20_000, 100), 10) > site_weight(shape(20_000, 100), 0));
    }

    #[tokio::test]
    async fn the_site_budget_evicts_by_bytes() {
        // 100 sites of 50 kB content; the budget holds five.
        let content = JsonShape {
            bytes: 50_000,
            values: 4_000,
        };
        let budget = 5 * site_weight(content, 0) as u64;
        let sites: Cache<u32, JsonShape> = Cache::builder()
            .max_capacity(budget)
            .weigher(|_, shape: &JsonShape| site_weight(*shape, 0))
            .build();
        for t in 0..100 {
            sites.insert(t, content).await;
        }
        sites.run_pending_tasks().await;
        assert!(sites.weighted_size() <= budget);
        assert!(
            (1..=5).contains(&sites.entry_count()),
            "{}",
            sites.entry_count()
        );
    }
}
