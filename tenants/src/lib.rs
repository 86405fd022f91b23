//! Storage for Tessera: tenants and domains, site content, commerce state and visitor data,
//! behind one interface ([`Store`]) with two backends.
//!
//! # Backends
//!
//! * **PostgreSQL** (tokio-postgres + deadpool-postgres): the production store. Many
//!   `tessera serve` nodes share one database; each node's caches are invalidated through
//!   `LISTEN/NOTIFY` (see the [`cache`] docs and `notify.rs`).
//! * **Embedded** (the default, no server): one SQLite file `data/tessera.sqlite3` through
//!   rusqlite (SQLite compiled in, via deadpool-sqlite), WAL journal with
//!   `synchronous=FULL`, so a committed write is on disk before the call returns and survives
//!   `kill -9` (and power loss).
//!
//! **Why SQLite for the embedded default** (and not redb/fjall/sled): it is SQL, so both
//! backends run the *same* query text (only the DDL differs, by two tokens) and one test
//! suite exercises both; a key-value engine would need every index, filter, tenant-scope
//! check and transaction written a second time. SQLite is the most tested embedded store
//! there is, its WAL mode gives concurrent readers with one writer (writers queue on an
//! async lock in-process), and its file can be inspected with standard tools.
//!
//! # Tenant isolation
//!
//! Every table except `tenant` has `tenant_id` leading its primary key, and every
//! [`Store`] method that touches tenant data takes a [`TenantId`] and puts
//! `tenant_id = $1` in every statement (a test scans the repository SQL to keep it so, and
//! the isolation suite runs every read and write path against a second tenant).
//!
//! # Caches
//!
//! Tenant by host and site content ([`Store::site_content`]) are cached here (moka). Compiled
//! templates are cached by the renderer in a [`TemplateCache`] (generic over the compiled type,
//! keyed by `(TenantId, TemplateVersion)`), because this crate knows nothing of templates;
//! the template-version key and its change (a new upload bumps the content version, which
//! reloads [`Tenant::template_version`]) live here.
//!
//! # Money and time
//!
//! Money is integer minor units plus an ISO currency code; instants are epoch milliseconds.
//!
//! # Import format
//!
//! See [`import`] and `fixtures/README.md`.

#![warn(missing_docs)]

pub mod cache;
pub mod error;
pub mod ids;
pub mod import;
pub mod migrate;
pub mod model;
mod notify;
mod repo;
pub mod sql;
mod store;
#[cfg(feature = "testing")]
pub mod testing;

pub use cache::TemplateCache;
pub use error::{Result, StoreError};
pub use ids::{TemplateVersion, TenantId, new_id, now_ms};
pub use migrate::MigrationReport;
pub use model::*;
pub use repo::analytics::{AnalyticsEvent, PerformanceRecord};
pub use repo::commerce::{
    AddToCart, AddedToCart, Cart, CartEntry, MAX_QUANTITY, NewOrder, Order, OrderLine, StockLevel,
};
pub use repo::forms::{Form, FormSubmission};
pub use repo::restock::{CursorPage, RestockGroup, RestockSignup};
pub use repo::site_users::{SiteSession, SiteUser};
pub use repo::tenants::normalize_host;
pub use sql::Backend;
pub use store::{EMBEDDED_FILE, Store, StoreConfig, StoreOptions};
