//! The owner API: what a site's owner changes without the import format, behind a token
//! of the site with a role that may do it ([`crate::http::owner`]). One module per part:
//!
//! - [`accounts`]: signing in to the owner app, and the links that set passwords;
//! - [`access`]: owner accounts, invitations and API tokens (Settings → Access);
//! - [`store_setup`]: creating a store (SPEC.md §4) and its categories;
//! - [`layout`]: the navigations and the header and footer;
//! - [`pages`]: the Pages screen: adding, arranging, changing and deleting pages;
//! - [`preferences`]: commerce preferences, a namespace at a time;
//! - [`store_settings`]: Settings → Store, the currency and the preferences checkout reads;
//! - [`languages`]: the multilingual settings;
//! - [`site_access`]: the site password and its lock screen (Settings → Site access);
//! - [`site_notices`]: the announcement bar and the cookie banner;
//! - [`content`]: collections' items and products, and stock;
//! - [`orders`]: the orders, their CSV export, an order's page and the moves on it;
//! - [`dashboard`]: the dashboard and the analytics of a period;
//! - [`inventory`]: every variant's stock, changed many at once;
//! - [`products`]: the product list;
//! - [`customers`]: buyers, members and subscribers, and one customer's orders;
//! - [`paging`]: what the owner app's lists share (limit, cursor, search);
//! - [`forms`]: the form builder: forms, their fields and settings;
//! - [`listings`]: form answers and subscribers, and their CSV exports;
//! - [`templates`]: template versions: uploading one (checked first), listing them, switching;
//! - [`design`]: the style panel's tweaks, their live preview and saving them;
//! - [`identity`]: the site's title, tagline, logo, icon and business information;
//! - [`assets`]: uploaded images and PDFs, and serving them;
//! - [`galleries`]: a gallery page's images (order, words, alt text) and its options;
//! - [`rich_text`]: owners' rich text (posts, events, pages, descriptions), sanitized before it is stored;
//! - [`community`]: comment moderation and likes, members, member areas.
//!
//! Handlers read the call through [`crate::http::extract`] (`Owner<area::X, Read|Change>`,
//! `Json<T>`); store creation and template uploads are flows of
//! [`crate::services::owner`], which the handlers translate to and from HTTP.
//!
//! Every change goes through the store, which bumps the site's content version, so every
//! node serves it at once.

use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;

use tenants::{Store, TenantId};

use crate::http::ApiError;
use crate::http::error::store_failure;
use crate::server::state::App;

pub mod access;
pub mod accounts;
pub mod assets;
pub mod community;
pub mod content;
pub mod customers;
pub mod dashboard;
pub mod design;
pub mod forms;
pub mod galleries;
pub mod identity;
pub mod inventory;
pub mod languages;
pub mod layout;
pub mod listings;
pub mod orders;
pub mod pages;
pub mod paging;
pub mod preferences;
pub mod product_checks;
pub mod products;
pub mod rich_text;
pub mod site_access;
pub mod site_notices;
pub mod store_settings;
pub mod store_setup;
pub mod templates;

/// Every owner route, with its description. Two parts must not name different schemas
/// alike ([`crate::openapi::check_names`]).
pub fn routes() -> OpenApiRouter<App> {
    let parts = [
        accounts::routes(),
        access::routes(),
        store_setup::routes(),
        layout::routes(),
        pages::routes(),
        preferences::routes(),
        store_settings::routes(),
        languages::routes(),
        site_access::routes(),
        content::routes(),
        dashboard::routes(),
        inventory::routes(),
        products::routes(),
        customers::routes(),
        forms::routes(),
        listings::routes(),
        orders::routes(),
        templates::routes(),
        design::routes(),
        identity::routes(),
        site_notices::routes(),
        assets::routes(),
        galleries::routes(),
        community::routes(),
    ];
    let mut all = OpenApiRouter::new();
    for part in parts {
        crate::openapi::check_names(all.get_openapi(), part.get_openapi());
        all = all.merge(part);
    }
    all
}

/// The answer to a deletion: the id of what is gone.
#[derive(Serialize, ToSchema)]
#[schema(as = OwnerDeleted)]
pub struct Deleted {
    pub deleted: String,
}

/// A site as stored (cached per content version).
pub async fn site_content(
    store: &Store,
    tenant: TenantId,
) -> Result<std::sync::Arc<tenants::SiteSnapshot>, ApiError> {
    store
        .site_content(tenant)
        .await
        .map_err(|e| store_failure(&e))
}

/// A refusal from the store as the owner reads it: `NotFound` as 404 with `missing`,
/// `Invalid` as 400, anything else a store failure.
pub fn refused(e: &tenants::StoreError, missing: &str) -> ApiError {
    match e {
        tenants::StoreError::NotFound(_) => ApiError::not_found(missing),
        tenants::StoreError::Invalid(m) => ApiError::bad_request(m.clone()),
        e => store_failure(e),
    }
}
