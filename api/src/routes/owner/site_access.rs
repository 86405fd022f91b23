//! Settings → Site access (issue 44): the site password, which puts the whole site behind
//! its lock screen (SPEC.md page type 103) for every visitor who has not entered it.
//!
//! | route | role may | body | answer |
//! |---|---|---|---|
//! | `GET /api/owner/site-access` | access, read | | the document |
//! | `PATCH /api/owner/site-access` | access, change | a JSON Merge Patch of `{password, title, message}` | the new document |
//!
//! The area is [`Area::Access`](crate::http::owner::Area::Access) (admins and website
//! managers): the site password decides who may see the site at all, as the owner accounts
//! decide who may change it; an editor who could take it off would publish a site its
//! owner keeps closed, and one who could set it would close a live store.
//!
//! Kept in `websiteSettings.sitePassword` as `{hash, title, message}`: the password as an
//! Argon2id hash (as a page's, [`super::pages`]), never answered (the document says
//! `passwordSet`), and taken out of the page context by [`crate::pages::site_bridge`]
//! before any page sees the settings. Changing the password changes the key of the unlock
//! cookies ([`crate::routes::lock_screen`]), so every visitor who unlocked with the old
//! one sees the lock screen again. The owner app (`/config`), the owner API, the unlock
//! route and the template's own files are never locked; a signed-in owner sees the site.

use axum::extract::State;
use serde::Serialize;
use serde_json::{Map, Value, json};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::http::error::store_failure;
use crate::http::extract::{Change, Read, area};
use crate::http::{ApiError, Json, Owner};
use crate::openapi::{OWNER, OwnerErrors};
use crate::server::state::App;

/// The `websiteSettings` key.
pub const KEY: &str = "sitePassword";

pub const NOT_A_PATCH: &str = "A change of the site's access is a JSON object of its fields.";
pub const NO_PASSWORD: &str = "Please enter a password, or turn the site password off.";
pub const LONG_PASSWORD: &str = "A password is at most 200 characters.";
pub const LONG_TITLE: &str = "A title is at most 100 characters.";
pub const LONG_MESSAGE: &str = "A message is at most 1000 characters.";
pub const NOT_TEXT: &str = "Please enter text.";
pub const UNKNOWN_FIELD: &str = "Site access has no such field.";

const MAX_PASSWORD: usize = 200;
const MAX_TITLE: usize = 100;
const MAX_MESSAGE: usize = 1000;

pub fn routes() -> OpenApiRouter<App> {
    OpenApiRouter::new().routes(routes!(site_access_read, site_access_patch))
}

/// The renderer's site lock from the stored `sitePassword` (none without a hash).
pub fn site_lock(stored: &Value) -> Option<renderer::site::SiteLock> {
    let text = |k: &str| {
        stored
            .get(k)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    let hash = stored
        .get("hash")
        .and_then(Value::as_str)
        .filter(|h| !h.is_empty())?;
    Some(renderer::site::SiteLock {
        hash: hash.into(),
        title: text("title"),
        message: text("message"),
    })
}

/// Who may see the site.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = OwnerSiteAccess)]
pub(crate) struct SiteAccess {
    /// A site password is set: every visitor sees the lock screen until they enter it.
    /// The password itself is never answered.
    password_set: bool,
    /// The lock screen's heading; "" shows the site's title.
    title: String,
    /// The words under the heading; "" shows the default words.
    message: String,
    /// Read only: what the lock screen says when `message` is "".
    default_message: String,
}

/// What a `PATCH` may name.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = OwnerSiteAccessPatch)]
#[allow(dead_code)]
struct Patch {
    /// The new site password (1-200 characters, stored hashed); null turns the site
    /// password off.
    #[schema(nullable = true)]
    password: Option<String>,
    /// At most 100 characters; null or "" for the site's title.
    title: Option<String>,
    /// At most 1000 characters; null or "" for the default words.
    message: Option<String>,
}

fn document(settings: &tenants::SiteSettings) -> SiteAccess {
    let stored = settings.website_settings.get(KEY);
    let text = |k: &str| {
        stored
            .and_then(|s| s.get(k))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    SiteAccess {
        password_set: stored.and_then(site_lock).is_some(),
        title: text("title"),
        message: text("message"),
        default_message: renderer::render::SITE_LOCK_MESSAGE.to_owned(),
    }
}

/// `GET /api/owner/site-access`: whether a site password is set, and what its lock screen
/// says.
#[utoipa::path(get, path = "/api/owner/site-access", tag = OWNER,
    security(("ownerToken" = [])),
    responses((status = 200, body = SiteAccess), OwnerErrors))]
async fn site_access_read(
    State(app): State<App>,
    owner: Owner<area::Access, Read>,
) -> Result<Json<SiteAccess>, ApiError> {
    let content = super::site_content(&app.store, owner.site.tenant.id).await?;
    Ok(Json(document(&content.settings)))
}

/// A text field: trimmed, at most `max` characters, no control characters but line breaks
/// (when `lines`); null is "".
fn text_field(v: &Value, max: usize, long: &str, lines: bool) -> Result<String, String> {
    let t = match v {
        Value::Null => String::new(),
        Value::String(s) => s.trim().to_owned(),
        _ => return Err(NOT_TEXT.into()),
    };
    let bad = |c: char| c.is_control() && !(lines && c == '\n');
    if t.chars().count() > max || t.chars().any(bad) {
        return Err(long.into());
    }
    Ok(t)
}

/// `PATCH /api/owner/site-access`: sets or removes the site password and changes the lock
/// screen's words, all or nothing.
#[utoipa::path(patch, path = "/api/owner/site-access", tag = OWNER,
    request_body(content = Patch, content_type = "application/merge-patch+json",
        description = "A JSON Merge Patch (RFC 7396): `password` sets a new site password \
        (every earlier unlock ends) or, null, turns it off; `title` and `message` change the \
        lock screen's words. Any problem answers 400 with `errors` by field and nothing is \
        stored. Other keys are refused."),
    security(("ownerToken" = [])),
    responses((status = 200, body = SiteAccess, description = "As stored."), OwnerErrors))]
async fn site_access_patch(
    State(app): State<App>,
    owner: Owner<area::Access, Change>,
    Json(body): Json<Value>,
) -> Result<Json<SiteAccess>, ApiError> {
    let Value::Object(body) = body else {
        return Err(ApiError::bad_request(NOT_A_PATCH));
    };
    let mut errors = Map::new();
    let mut changes = Map::new();
    // Some(None): off; Some(Some(p)): a new password.
    let mut password: Option<Option<String>> = None;
    for (key, v) in &body {
        match key.as_str() {
            "password" => match v {
                Value::Null => password = Some(None),
                Value::String(p) if p.is_empty() => {
                    errors.insert(key.clone(), NO_PASSWORD.into());
                }
                Value::String(p) if p.chars().count() > MAX_PASSWORD => {
                    errors.insert(key.clone(), LONG_PASSWORD.into());
                }
                Value::String(p) => password = Some(Some(p.clone())),
                _ => {
                    errors.insert(key.clone(), NOT_TEXT.into());
                }
            },
            "title" => match text_field(v, MAX_TITLE, LONG_TITLE, false) {
                Ok(t) => {
                    changes.insert("title".into(), t.into());
                }
                Err(why) => {
                    errors.insert(key.clone(), why.into());
                }
            },
            "message" => match text_field(v, MAX_MESSAGE, LONG_MESSAGE, true) {
                Ok(t) => {
                    changes.insert("message".into(), t.into());
                }
                Err(why) => {
                    errors.insert(key.clone(), why.into());
                }
            },
            _ => {
                errors.insert(key.clone(), UNKNOWN_FIELD.into());
            }
        }
    }
    if !errors.is_empty() {
        return Err(ApiError::fields(errors));
    }
    match password {
        Some(None) => {
            changes.insert("hash".into(), Value::Null);
        }
        Some(Some(p)) => {
            let hash = crate::services::passwords::hash(p)
                .await
                .map_err(|_| ApiError::unavailable())?;
            changes.insert("hash".into(), hash.into());
        }
        None => {}
    }
    let stored = app
        .store
        .update_site_settings(owner.site.tenant.id, move |s| {
            let mut access = s
                .website_settings
                .get(KEY)
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default();
            for (k, v) in changes {
                if v.is_null() || v == json!("") {
                    access.remove(&k);
                } else {
                    access.insert(k, v);
                }
            }
            if access.is_empty() {
                s.website_settings.remove(KEY);
            } else {
                s.website_settings.insert(KEY.into(), Value::Object(access));
            }
        })
        .await
        .map_err(|e| store_failure(&e))?;
    Ok(Json(document(&stored)))
}
