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
//! Tenant by host, site content ([`Store::site_content`]) and signing secrets are cached
//! here (moka). Compiled templates are cached by the server (`api::cache`), because this
//! crate knows nothing of templates; the template-version key and its change (a new upload
//! bumps the content version, which reloads [`Tenant::template_version`]) live here.
//!
//! # Using it
//!
//! ```no_run
//! # async fn demo() -> tenants::Result<()> {
//! use tenants::{AddToCart, Store, StoreConfig};
//! // `--database-url`/`DATABASE_URL` picks PostgreSQL, otherwise the file under --data-dir.
//! let store = Store::open(&StoreConfig::from_cli("./data".as_ref(), None)).await?;
//! if let Some(tenant) = store.tenant_by_host("Shop.Example.com:8080").await? {
//!     let site = store.site_content(tenant.id).await?; // cached per content version
//!     let cart = store.create_cart(tenant.id).await?;
//!     if let Some(shop) = site.collection_by_url("shop") {
//!         if let Some(item) = site.items_of(&shop.id).next() {
//!             let add = AddToCart { item_id: item.id.clone(), sku: item.variants[0].sku.clone(), quantity: 1, ..Default::default() };
//!             store.add_to_cart(tenant.id, &cart.id, &add).await?; // stock checked in the same transaction
//!         }
//!     }
//! }
//! store.close().await?; // drop or close a Store inside the Tokio runtime
//! # Ok(()) }
//! ```
//!
//! Tests of any crate can get a real PostgreSQL from `tenants::testing::PgServer` (feature
//! `testing`); `tests/store/common.rs` shows how this crate runs one suite on both backends.
//!
//! # Commerce
//!
//! [`commerce`] holds the store's rules as plain functions: money in minor units, the
//! commerce configuration read from the commerce preferences (taxes, shipping, coupons,
//! instalments, payments), cart totals and the instalment pill. The repository applies them
//! in its transactions: carts and their stock holds, checkout ([`Store::quote_checkout`],
//! [`Store::place_order`]), orders, gift cards, subscriptions and digital files. Business
//! rules a request breaks come back as [`StoreError::Refused`] with a
//! [`commerce::Refusal`].
//!
//! Stock: `qty_in_stock` counts units available to new carts. Adding to a cart takes units
//! in the cart's transaction (one conditional `UPDATE`, so concurrent buyers never oversell),
//! lowering a quantity or removing an entry gives them back, an order keeps them, and
//! [`Store::release_abandoned_carts`] gives back the units of idle carts while keeping the
//! carts; checkout takes them again. Cart activity does not bump the content version, so
//! [`SiteSnapshot`] may show stock as of its load; read live levels with [`Store::stock`].
//!
//! # Limits of this version
//!
//! * PostgreSQL connections are plain TCP (`NoTls`); put TLS in front (or add a TLS
//!   connector) before using a remote database over an untrusted network.
//! * The embedded backend notices writes made by another process (e.g. `tessera import`
//!   into a running server's data directory) within 250 ms by re-checking the tenant
//!   table's versions; there is no NOTIFY in SQLite.
//! * [`Store::site_content`] loads all of a tenant's items; fine for the sizes SPEC.md allows
//!   (at most 250 items per user-orderable collection, 200 products per collection).
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
pub mod commerce;
pub mod copy;
pub mod email_address;
pub mod error;
pub mod form_answers;
pub mod generate;
pub mod ids;
pub mod import;
pub mod member_areas;
pub mod migrate;
pub mod model;
pub mod notify;
pub mod password;
mod repo;
pub mod sql;
mod store;
#[cfg(feature = "testing")]
pub mod testing;

pub use cache::CacheBudget;
pub use error::{Result, StoreError};
pub use ids::{TemplateHash, TemplateVersion, TenantId, new_id, now_ms, secret_digest};
pub use migrate::MigrationReport;
pub use model::*;
pub use repo::analytics::{
    ADD_TO_CART_EVENT, AnalyticsEvent, AnalyticsSummary, DAY_MS, Grain, PURCHASE_EVENT, PageView,
    PageViewSums, PerformanceRecord, SESSION_KEY, SLOT_MS, Tally, TallyKey, VISIT_EVENTS, day_of,
    metric, minted_session, minted_visitor, session_minted_slot, slot_of, visitor_minted_day,
};
pub use repo::api_tokens::ApiToken;
pub use repo::assets::Asset;
pub use repo::content::PagesChange;
pub use repo::inventory::{
    InventoryCursor, InventoryPage, InventoryQuery, InventoryRow, MAX_PAGE, PRODUCT_KINDS,
    ProductQuery, ProductRow, StockUpdate,
};
pub use repo::owner_stats::{MAX_SPANS, OwnerTodo, Span, SpanCounts};
pub use repo::rate_limits::Bucket as RateBucket;
pub use repo::store_settings::{
    OwnerStoreSettings, STORE_NAMESPACES, SettingsProblems, StorePatch, check_store_patch,
    merge_patch,
};
pub use repo::store_setup::{CreatedStore, NewStore};
pub use repo::templates::{KEPT_TEMPLATE_VERSIONS, TemplateVersionInfo, template_hash};
pub mod store_setup {
    //! Store creation's constants and slugs.
    pub use crate::repo::store_setup::{
        FALLBACK_TITLE, LIST_VIEW, MAX_CATEGORIES, MIN_SLUG, PRODUCTS_TYPE, ROOT, slug,
    };
}
pub use repo::commerce::{
    AddToCart, AddedToCart, Address, Cart, CartEntry, CartKind, Checkout, CheckoutQuote,
    CheckoutRead, CheckoutTerms, CustomerQuery, CustomerRow, DigitalFile, GiftCard, GiftCardQuery,
    GiftCardRecipient, GiftCardRow, GiftCardUse, LineUnits, MAX_ORDER_PAGE, MAX_ORDER_SEARCH_CHARS,
    MAX_QUANTITY, MAX_REASON_CHARS, MAX_TRACKING_CHARS, Numbered, Order, OrderDetails, OrderEvent,
    OrderFulfilment, OrderLine, OrderMail, OrderNotes, OrderPage, OrderQuery, OrderRecord,
    OrderRefund, OrderStatus, OrderSummary, PaymentMethod, PlacedFrom, SUBSCRIPTION_CANCELLED,
    StockLevel, Subscription, SubscriptionQuery, SubscriptionRow, no_order_mail,
    normalize_gift_card_code,
};
pub use repo::engagement::{Comment, state as comment_state};
pub use repo::forms::{Form, FormSubmission, Subscriber};
pub use repo::member_areas::{
    AreaChange, Confirmed, Joined, MemberRow, PlanProduct, SignUp, SignedUp,
};
pub use repo::outbox::{Email, QueuedEmail};
pub use repo::owner_accounts::{
    LinkPurpose, LinkUsed, NewOwnerLink, OwnerAccount, OwnerInvite, OwnerSession, SessionLife,
};
pub use repo::restock::{CursorPage, RestockGroup, RestockNotice, RestockSignup};
pub use repo::site_users::{SiteSession, SiteUser};
pub use repo::tenants::normalize_host;
pub use sql::Backend;
pub use store::{EMBEDDED_FILE, Store, StoreConfig, StoreOptions};
