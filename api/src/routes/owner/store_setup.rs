//! Creating a store (SPEC.md §4 "Store creation") and adding its categories.
//!
//! | route | role may | body | answer |
//! |---|---|---|---|
//! | `POST /api/content-service/product/1.1/websites/{websiteId}/products` | store, write | `{title, navigationTitle?, description?, urlId?, addToNavigation?}` | 201 the store |
//! | `POST …/products/{collectionId}/categories` | store, write | `{displayName, parentCategoryId?, type?, pageRendering?, displayIndex?}` | 201 the category |
//!
//! The steps run in SPEC order in one transaction: a unique URL id (from `urlId`, else the
//! title; a slug under 3 characters uses "Store"; a taken one gets -1, -2 …, the lowest free
//! number), the products collection (always enabled), its root category (ROOT, LIST_VIEW,
//! display index 1, no parent), then, with `addToNavigation`, a link at the end of the main
//! navigation (the first of the template's layout). A site whose template has no
//! navigation answers 409 "Unable to find site main navigation" and nothing is created.

use axum::extract::{FromRequestParts, Path, RawPathParams, State};
use axum::http::StatusCode;
use axum::http::request::Parts;
use serde::{Deserialize, Serialize};
use tenants::Category;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::{layout, refused};
use crate::http::extract::{Change, area};
use crate::http::site::Site;
use crate::http::{ApiError, Created, Json, Owner};
use crate::openapi::{OWNER, OwnerErrors};
use crate::server::state::App;
use crate::services::owner::store_setup::{
    self as flow, AddCategoryError, CategoryRequest, CreateStoreError, StoreRequest,
};
use tenants::Store;

pub const NO_MAIN_NAVIGATION: &str = "Unable to find site main navigation";
pub const NO_TITLE: &str = "Please enter a title.";
pub const LONG_TITLE: &str = "A title has at most 200 characters.";
pub const NO_NAME: &str = "Please enter a category name.";
pub const LONG_NAME: &str = "A category name has at most 25 characters.";
pub const CATEGORY_EXISTS: &str = "This category already exists";
pub const ROOT_EXISTS: &str = "This store already has a root category.";
pub const NO_STORE: &str = "That store does not exist.";
pub const NO_PARENT: &str = "That parent category does not exist.";
pub const NO_WEBSITE: &str = "That website does not exist.";
pub const BAD_RENDERING: &str = "The page rendering is LIST_VIEW or GRID_VIEW.";
pub const BAD_INDEX: &str = "The display index is a whole number from 0.";

pub fn routes() -> OpenApiRouter<App> {
    OpenApiRouter::new()
        .routes(routes!(create_store))
        .routes(routes!(create_category))
}

/// The path's `website_id` is the call's site (404 otherwise): listed after the owner
/// check and before the body, which is read only for the site's own website. (The
/// handlers list `Path` first, as before: a path that does not decode is refused first.)
struct ThisWebsite;

impl FromRequestParts<App> for ThisWebsite {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &App) -> Result<Self, ApiError> {
        let site = Site::from_request_parts(parts, state).await?;
        let params = RawPathParams::from_request_parts(parts, state)
            .await
            .map_err(|_| ApiError::not_found(NO_WEBSITE))?;
        match params.iter().find(|(k, _)| *k == "website_id") {
            Some((_, id)) if id == site.content.website_id => Ok(ThisWebsite),
            _ => Err(ApiError::not_found(NO_WEBSITE)),
        }
    }
}

/// A new store.
#[derive(Deserialize, Default, ToSchema)]
#[serde(rename_all = "camelCase", default)]
#[schema(as = NewStoreBody)]
pub(crate) struct StoreBody {
    /// At most 200 characters, not blank.
    #[schema(required = true, min_length = 1, max_length = 200)]
    title: String,
    /// The title in navigation (the title's when empty).
    navigation_title: String,
    /// HTML description.
    description: String,
    /// The slug to start from (the title's when empty); a taken one gets -1, -2 ….
    url_id: String,
    /// Sent by the platform's client; a store is always created enabled.
    #[allow(dead_code)]
    enabled: Option<bool>,
    /// Add a link to the store at the end of the main navigation.
    add_to_navigation: bool,
}

/// The store just made.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct StoreCreated {
    id: String,
    website_id: String,
    title: String,
    navigation_title: String,
    url_id: String,
    full_url: String,
    description: String,
    enabled: bool,
    /// The collection's kind (13, products).
    #[serde(rename = "type")]
    kind: i64,
    root_category: StoreCategory,
    /// The navigation the store was added to, if asked.
    navigation: Option<String>,
}

/// `POST …/websites/{website_id}/products`: creates a store (SPEC.md §4).
#[utoipa::path(post, path = "/api/content-service/product/1.1/websites/{website_id}/products",
    tag = OWNER, request_body = StoreBody, security(("ownerToken" = [])),
    params(("website_id" = String, Path, description = "The site's website id.")),
    responses((status = 201, body = StoreCreated, description = "The store, its root category and navigation."),
        (status = 409, body = crate::openapi::ErrorBody,
            description = "`addToNavigation` on a site whose template has no navigation: \"Unable to find site main navigation\"."),
        OwnerErrors))]
async fn create_store(
    State(app): State<App>,
    Path(_): Path<String>,
    owner: Owner<area::Store, Change>,
    _: ThisWebsite,
    Json(b): Json<StoreBody>,
) -> Result<Created<StoreCreated>, ApiError> {
    let site = &owner.site;
    let navigations = async {
        layout::template_navigations(&app, site)
            .await
            .map_err(|e| e.to_string())
    };
    let asked = StoreRequest {
        title: b.title,
        navigation_title: b.navigation_title,
        description: b.description,
        url_id: b.url_id,
        add_to_navigation: b.add_to_navigation,
    };
    let flow::StoreMade { made, navigation } =
        flow::create_store(&app.store, site.tenant.id, navigations, asked)
            .await
            .map_err(|e| match e {
                CreateStoreError::NoTitle => ApiError::field("title", NO_TITLE),
                CreateStoreError::LongTitle => ApiError::field("title", LONG_TITLE),
                CreateStoreError::NoMainNavigation => {
                    ApiError::new(StatusCode::CONFLICT, NO_MAIN_NAVIGATION)
                }
                CreateStoreError::Template(e) => layout::template_unavailable(site, &e),
                CreateStoreError::Store(e) => refused(&e, NO_STORE),
            })?;
    let c = made.collection;
    Ok(Created(StoreCreated {
        full_url: format!("/{}", c.url_id),
        id: c.id,
        website_id: site.content.website_id.clone(),
        title: c.title,
        navigation_title: c.navigation_title,
        url_id: c.url_id,
        description: c.description,
        enabled: c.enabled,
        kind: c.kind,
        root_category: StoreCategory::from(made.root_category),
        navigation,
    }))
}

/// A store category as the API shows it.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StoreCategory {
    id: String,
    collection_id: String,
    display_name: String,
    /// Empty for the root.
    parent_category_id: String,
    /// `ROOT`, `CATEGORY` or another kind, upper case.
    #[serde(rename = "type")]
    kind: String,
    /// `LIST_VIEW` or `GRID_VIEW`.
    page_rendering: String,
    display_index: i64,
}

impl From<Category> for StoreCategory {
    fn from(c: Category) -> StoreCategory {
        StoreCategory {
            id: c.id,
            collection_id: c.collection_id,
            display_name: c.display_name,
            parent_category_id: c.parent_category_id.unwrap_or_default(),
            kind: c.kind,
            page_rendering: c.page_rendering,
            display_index: c.display_index,
        }
    }
}

/// A new category of a store.
#[derive(Deserialize, Default, ToSchema)]
#[serde(rename_all = "camelCase", default)]
#[schema(as = NewCategoryBody)]
pub(crate) struct CategoryBody {
    /// At most 25 characters, not blank, unique in the store.
    #[schema(required = true, min_length = 1, max_length = 25)]
    display_name: String,
    /// The parent category (none: a root category).
    parent_category_id: String,
    /// The kind (`ROOT` without a parent, `CATEGORY` under one, when empty).
    #[serde(rename = "type")]
    kind: String,
    /// `LIST_VIEW` (when empty) or `GRID_VIEW`.
    #[schema(pattern = "^\\s*(LIST_VIEW|GRID_VIEW)?\\s*$")]
    page_rendering: String,
    /// Order among siblings (1 when absent).
    #[schema(minimum = 0)]
    display_index: Option<i64>,
}

/// `POST …/products/{collection_id}/categories`: adds a category to a store.
#[utoipa::path(post,
    path = "/api/content-service/product/1.1/websites/{website_id}/products/{collection_id}/categories",
    tag = OWNER, request_body = CategoryBody, security(("ownerToken" = [])),
    params(("website_id" = String, Path, description = "The site's website id."),
        ("collection_id" = String, Path, description = "The store's collection id.")),
    responses((status = 201, body = StoreCategory, description = "The category."),
        (status = 409, body = crate::openapi::ErrorBody,
            description = "The store already has a root category."),
        OwnerErrors))]
async fn create_category(
    State(store): State<Store>,
    Path((_, collection_id)): Path<(String, String)>,
    owner: Owner<area::Store, Change>,
    _: ThisWebsite,
    Json(b): Json<CategoryBody>,
) -> Result<Created<StoreCategory>, ApiError> {
    let asked = CategoryRequest {
        display_name: b.display_name,
        parent_category_id: b.parent_category_id,
        kind: b.kind,
        page_rendering: b.page_rendering,
        display_index: b.display_index,
    };
    let made = flow::add_category(&store, owner.site.tenant.id, collection_id, asked)
        .await
        .map_err(|e| match e {
            AddCategoryError::NoName => ApiError::field("displayName", NO_NAME),
            AddCategoryError::LongName => ApiError::field("displayName", LONG_NAME),
            AddCategoryError::BadRendering => ApiError::field("pageRendering", BAD_RENDERING),
            AddCategoryError::BadIndex => ApiError::field("displayIndex", BAD_INDEX),
            AddCategoryError::NoParent => ApiError::field("parentCategoryId", NO_PARENT),
            AddCategoryError::RootExists => ApiError::new(StatusCode::CONFLICT, ROOT_EXISTS),
            AddCategoryError::Exists => ApiError::field("displayName", CATEGORY_EXISTS),
            AddCategoryError::Store(e) => refused(&e, NO_STORE),
        })?;
    Ok(Created(StoreCategory::from(made)))
}
