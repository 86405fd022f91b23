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

use axum::extract::{Path, Request, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde::{Deserialize, Serialize};
use serde_json::json;
use tenants::store_setup::{LIST_VIEW, ROOT};
use tenants::{Category, NewStore, StoreError};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::{layout, refused};
use crate::http::ApiError;
use crate::http::body::{MAX_JSON_BODY, json as read_json};
use crate::http::call::{Call, respond};
use crate::http::error::json_response;
use crate::http::owner::{Access, Area, begin};
use crate::openapi::{OWNER, OwnerErrors};
use crate::server::App;

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

/// SPEC.md §9: the longest category name.
pub const MAX_CATEGORY_NAME: usize = 25;
const MAX_TITLE: usize = 200;
const RENDERINGS: [&str; 2] = [LIST_VIEW, "GRID_VIEW"];

pub fn routes() -> OpenApiRouter<App> {
    OpenApiRouter::new()
        .routes(routes!(create_store))
        .routes(routes!(create_category))
}

/// A store-setup call: a token whose role may change the store, the path's website being
/// the call's site (else 404), then the body.
async fn store_call<T: serde::de::DeserializeOwned>(
    app: &App,
    req: Request,
    website_id: &str,
) -> Result<(Call, T), ApiError> {
    let (call, body) = begin(app, req, Area::Store, Access::Write).await?;
    if website_id != call.site.content.website_id {
        return Err(ApiError::not_found(NO_WEBSITE));
    }
    Ok((call, read_json(body, MAX_JSON_BODY).await?))
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
    Path(website_id): Path<String>,
    req: Request,
) -> Response {
    respond(
        async {
            let (call, b): (Call, StoreBody) = store_call(&app, req, &website_id).await?;
            let title = b.title.trim();
            if title.is_empty() {
                return Err(ApiError::field("title", NO_TITLE));
            }
            if title.chars().count() > MAX_TITLE {
                return Err(ApiError::field("title", LONG_TITLE));
            }
            let navigation = if b.add_to_navigation {
                let main = layout::navigations(&app, &call)
                    .await?
                    .into_iter()
                    .next()
                    .map(|(name, _)| name);
                Some(main.ok_or_else(|| ApiError::new(StatusCode::CONFLICT, NO_MAIN_NAVIGATION))?)
            } else {
                None
            };
            let made = app
                .store
                .create_store(
                    call.site.tenant.id,
                    &NewStore {
                        title: title.to_owned(),
                        navigation_title: b.navigation_title.trim().to_owned(),
                        description: b.description,
                        url_id: b.url_id,
                        navigation: navigation.clone(),
                    },
                )
                .await
                .map_err(|e| refused(&e, NO_STORE))?;
            let c = made.collection;
            Ok(json_response(
                StatusCode::CREATED,
                &json!(StoreCreated {
                    full_url: format!("/{}", c.url_id),
                    id: c.id,
                    website_id: call.site.content.website_id.clone(),
                    title: c.title,
                    navigation_title: c.navigation_title,
                    url_id: c.url_id,
                    description: c.description,
                    enabled: c.enabled,
                    kind: c.kind,
                    root_category: StoreCategory::from(made.root_category),
                    navigation,
                }),
            ))
        }
        .await,
    )
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
    State(app): State<App>,
    Path((website_id, collection_id)): Path<(String, String)>,
    req: Request,
) -> Response {
    respond(
        async {
            let (call, b): (Call, CategoryBody) = store_call(&app, req, &website_id).await?;
            let name = b.display_name.trim();
            if name.is_empty() {
                return Err(ApiError::field("displayName", NO_NAME));
            }
            if name.chars().count() > MAX_CATEGORY_NAME {
                return Err(ApiError::field("displayName", LONG_NAME));
            }
            let parent = Some(b.parent_category_id.trim().to_owned()).filter(|p| !p.is_empty());
            // Without a type: a root without a parent, a category under one.
            let kind = match b.kind.trim() {
                "" if parent.is_none() => ROOT.to_owned(),
                "" => "CATEGORY".to_owned(),
                k => k.to_ascii_uppercase(),
            };
            let rendering = match b.page_rendering.trim() {
                "" => LIST_VIEW.to_owned(),
                r if RENDERINGS.contains(&r) => r.to_owned(),
                _ => return Err(ApiError::field("pageRendering", BAD_RENDERING)),
            };
            let index = b.display_index.unwrap_or(1);
            if index < 0 {
                return Err(ApiError::field("displayIndex", BAD_INDEX));
            }
            let made = app
                .store
                .add_category(
                    call.site.tenant.id,
                    &Category {
                        id: String::new(),
                        collection_id,
                        display_name: name.to_owned(),
                        parent_category_id: parent.clone(),
                        kind,
                        page_rendering: rendering,
                        display_index: index,
                    },
                )
                .await
                .map_err(|e| match &e {
                    StoreError::NotFound(what) if what.starts_with("category") => {
                        ApiError::field("parentCategoryId", NO_PARENT)
                    }
                    StoreError::Conflict(what) if what == "root category" => {
                        ApiError::new(StatusCode::CONFLICT, ROOT_EXISTS)
                    }
                    StoreError::Conflict(_) => ApiError::field("displayName", CATEGORY_EXISTS),
                    e => refused(e, NO_STORE),
                })?;
            Ok(json_response(
                StatusCode::CREATED,
                &json!(StoreCategory::from(made)),
            ))
        }
        .await,
    )
}
