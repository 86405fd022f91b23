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

use axum::Router;
use axum::extract::{Path, Request, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::post;
use serde::Deserialize;
use serde_json::{Value, json};
use tenants::store_setup::{LIST_VIEW, ROOT};
use tenants::{Category, NewStore, StoreError};

use super::{layout, refused};
use crate::http::ApiError;
use crate::http::body::{MAX_JSON_BODY, json as read_json};
use crate::http::call::{Call, respond};
use crate::http::error::json_response;
use crate::http::owner::{Access, Area, begin};
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

pub fn routes() -> Router<App> {
    Router::new()
        .route(
            "/api/content-service/product/1.1/websites/{website_id}/products",
            post(create_store),
        )
        .route(
            "/api/content-service/product/1.1/websites/{website_id}/products/{collection_id}/categories",
            post(create_category),
        )
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

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct StoreBody {
    title: String,
    navigation_title: String,
    description: String,
    url_id: String,
    /// Sent by the platform's client; a store is always created enabled.
    #[allow(dead_code)]
    enabled: Option<bool>,
    add_to_navigation: bool,
}

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
            let c = &made.collection;
            Ok(json_response(
                StatusCode::CREATED,
                &json!({
                    "id": c.id,
                    "websiteId": call.site.content.website_id,
                    "title": c.title,
                    "navigationTitle": c.navigation_title,
                    "urlId": c.url_id,
                    "fullUrl": format!("/{}", c.url_id),
                    "description": c.description,
                    "enabled": c.enabled,
                    "type": c.kind,
                    "rootCategory": category_json(&made.root_category),
                    "navigation": navigation,
                }),
            ))
        }
        .await,
    )
}

pub fn category_json(c: &Category) -> Value {
    json!({
        "id": c.id,
        "collectionId": c.collection_id,
        "displayName": c.display_name,
        "parentCategoryId": c.parent_category_id.clone().unwrap_or_default(),
        "type": c.kind,
        "pageRendering": c.page_rendering,
        "displayIndex": c.display_index,
    })
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct CategoryBody {
    display_name: String,
    parent_category_id: String,
    #[serde(rename = "type")]
    kind: String,
    page_rendering: String,
    display_index: Option<i64>,
}

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
            Ok(json_response(StatusCode::CREATED, &category_json(&made)))
        }
        .await,
    )
}
