//! The announcement bar and the cookie banner (issue 44), on the Design screen: what every
//! visitor page shows at its top (the bar) and at its bottom until accepted (the banner).
//!
//! | route | role may | body | answer |
//! |---|---|---|---|
//! | `GET /api/owner/site-notices` | design, read | | the document |
//! | `PATCH /api/owner/site-notices` | design, change | a JSON Merge Patch of `{announcementBar: {enabled, text, url}, cookieBanner: {enabled, text, buttonLabel}}` | the new document |
//!
//! The bar is the platform's `websiteSettings.announcementBarSettings` (`{text, style?,
//! clickthroughUrl?: {url, newWindow}}`), the same one `GET/PUT/DELETE
//! /api/owner/announcement-bar` ([`super::layout`]) keeps and templates may place
//! themselves: turned off, the key is removed (its text with it), as that `DELETE` does.
//! The banner is `websiteSettings.cookieBanner`. The page path puts them into the page as
//! the server built them once per content version ([`crate::pages::notices`]; the bar only
//! when the template has not shown its text itself); visitors dismiss them with
//! `POST /api/site-notices/dismiss` ([`crate::routes::notices`]), a form, so neither needs a
//! script.

use axum::extract::State;
use serde::Serialize;
use serde_json::{Map, Value};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::http::error::store_failure;
use crate::http::extract::{Change, Read, area};
use crate::http::{ApiError, Json, Owner};
use crate::openapi::{OWNER, OwnerErrors};
use crate::server::state::App;

/// The patch's and the document's name for the bar.
pub const ANNOUNCEMENT_KEY: &str = "announcementBar";
/// Where the bar is kept (the platform's key).
pub const ANNOUNCEMENT_SETTING: &str = "announcementBarSettings";
pub const COOKIE_KEY: &str = "cookieBanner";

pub const NOT_A_PATCH: &str =
    "A change of the site's notices is a JSON object of announcementBar and cookieBanner.";
pub use super::layout::{LONG_ANNOUNCEMENT, NO_ANNOUNCEMENT as NO_TEXT};
pub const LONG_COOKIE_TEXT: &str = "The banner's text is at most 500 characters.";
pub const LONG_LABEL: &str = "A button label is at most 40 characters.";
pub const NOT_TEXT: &str = "Please enter text.";
pub const NOT_A_SWITCH: &str = "This is true or false.";
pub const UNKNOWN_FIELD: &str = "The site's notices have no such field.";

/// What the cookie banner says when the owner wrote nothing.
pub const DEFAULT_COOKIE_TEXT: &str =
    "This site uses cookies to keep your cart and sign-in and to count visits.";
/// Its button's label when the owner wrote none.
pub const DEFAULT_COOKIE_BUTTON: &str = "Accept";

use super::layout::MAX_ANNOUNCEMENT;
const MAX_COOKIE_TEXT: usize = 500;
const MAX_LABEL: usize = 40;

pub fn routes() -> OpenApiRouter<App> {
    OpenApiRouter::new().routes(routes!(site_notices_read, site_notices_patch))
}

/// The bar at the top of every page.
#[derive(Serialize, ToSchema, Clone, Debug, PartialEq, Default)]
#[serde(rename_all = "camelCase")]
#[schema(as = OwnerAnnouncementBar)]
pub struct AnnouncementBar {
    /// Shown on every page.
    pub enabled: bool,
    /// Plain text, 1-500 characters when enabled ("" when off: turning the bar off removes
    /// it).
    pub text: String,
    /// Where the text links to ("" for no link): an http(s) or mailto address, a path on
    /// the site, or a host (stored as `https://` it).
    pub url: String,
}

/// The cookie banner, shown until the visitor accepts.
#[derive(Serialize, ToSchema, Clone, Debug, PartialEq, Default)]
#[serde(rename_all = "camelCase")]
#[schema(as = OwnerCookieBanner)]
pub struct CookieBanner {
    pub enabled: bool,
    /// At most 500 characters; "" for the default words.
    pub text: String,
    /// At most 40 characters; "" for "Accept".
    pub button_label: String,
}

/// The announcement bar and the cookie banner.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = OwnerSiteNotices)]
pub(crate) struct Notices {
    announcement_bar: AnnouncementBar,
    cookie_banner: CookieBanner,
    /// Read only: the banner's words when `text` is "".
    default_cookie_text: String,
    /// Read only: its button's label when `buttonLabel` is "".
    default_cookie_button_label: String,
}

/// What a `PATCH` may name.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = OwnerSiteNoticesPatch)]
#[allow(dead_code)]
struct Patch {
    /// Any of `enabled`, `text`, `url`.
    #[schema(value_type = Option<Object>)]
    announcement_bar: Option<Map<String, Value>>,
    /// Any of `enabled`, `text`, `buttonLabel`.
    #[schema(value_type = Option<Object>)]
    cookie_banner: Option<Map<String, Value>>,
}

fn text_of(v: Option<&Value>, key: &str) -> String {
    v.and_then(|o| o.get(key))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

fn on(v: Option<&Value>) -> bool {
    v.and_then(|o| o.get("enabled")).and_then(Value::as_bool) == Some(true)
}

/// The stored announcement bar: on when it has text.
pub fn announcement_of(settings: &Map<String, Value>) -> AnnouncementBar {
    let v = settings.get(ANNOUNCEMENT_SETTING);
    let text = text_of(v, "text").trim().to_owned();
    AnnouncementBar {
        enabled: !text.is_empty(),
        text,
        url: text_of(v.and_then(|v| v.get("clickthroughUrl")), "url"),
    }
}

/// The stored cookie banner (disabled when unset).
pub fn cookie_banner_of(settings: &Map<String, Value>) -> CookieBanner {
    let v = settings.get(COOKIE_KEY);
    CookieBanner {
        enabled: on(v),
        text: text_of(v, "text"),
        button_label: text_of(v, "buttonLabel"),
    }
}

fn document(settings: &tenants::SiteSettings) -> Notices {
    Notices {
        announcement_bar: announcement_of(&settings.website_settings),
        cookie_banner: cookie_banner_of(&settings.website_settings),
        default_cookie_text: DEFAULT_COOKIE_TEXT.to_owned(),
        default_cookie_button_label: DEFAULT_COOKIE_BUTTON.to_owned(),
    }
}

/// `GET /api/owner/site-notices`: the announcement bar and the cookie banner.
#[utoipa::path(get, path = "/api/owner/site-notices", tag = OWNER,
    security(("ownerToken" = [])),
    responses((status = 200, body = Notices), OwnerErrors))]
async fn site_notices_read(
    State(app): State<App>,
    owner: Owner<area::Design, Read>,
) -> Result<Json<Notices>, ApiError> {
    let content = super::site_content(&app.store, owner.site.tenant.id).await?;
    Ok(Json(document(&content.settings)))
}

/// A plain text field: trimmed, at most `max` characters, no control characters; null is "".
fn text_field(v: &Value, max: usize, long: &'static str) -> Result<String, &'static str> {
    let t = match v {
        Value::Null => String::new(),
        Value::String(s) => s.trim().to_owned(),
        _ => return Err(NOT_TEXT),
    };
    if t.chars().count() > max || t.chars().any(char::is_control) {
        return Err(long);
    }
    Ok(t)
}

/// `PATCH /api/owner/site-notices`: changes what the body names, all or nothing.
#[utoipa::path(patch, path = "/api/owner/site-notices", tag = OWNER,
    request_body(content = Patch, content_type = "application/merge-patch+json",
        description = "A JSON Merge Patch (RFC 7396): each field named is changed (null or \"\" \
        clears a text). An enabled announcement bar needs its text; `url` is checked as a \
        navigation's external link is (\"Links must be formatted as www.example.com or \
        https://www.example.com\"). Any problem answers 400 with `errors` by field \
        (`announcementBar.text`) and nothing is stored. Other keys are refused."),
    security(("ownerToken" = [])),
    responses((status = 200, body = Notices, description = "As stored."), OwnerErrors))]
async fn site_notices_patch(
    State(app): State<App>,
    owner: Owner<area::Design, Change>,
    Json(body): Json<Value>,
) -> Result<Json<Notices>, ApiError> {
    let Value::Object(body) = body else {
        return Err(ApiError::bad_request(NOT_A_PATCH));
    };
    let tenant = owner.site.tenant.id;
    let content = super::site_content(&app.store, tenant).await?;
    let mut bar = announcement_of(&content.settings.website_settings);
    let mut banner = cookie_banner_of(&content.settings.website_settings);
    let (mut bar_named, mut banner_named) = (false, false);
    let mut errors = Map::new();
    let mut fail = |field: String, why: &str| {
        errors.insert(field, Value::String(why.to_owned()));
    };
    for (key, v) in &body {
        if key != ANNOUNCEMENT_KEY && key != COOKIE_KEY {
            fail(key.clone(), UNKNOWN_FIELD);
            continue;
        }
        let Value::Object(fields) = v else {
            fail(key.clone(), NOT_A_PATCH);
            continue;
        };
        for (name, v) in fields {
            let field = format!("{key}.{name}");
            match (key.as_str(), name.as_str()) {
                (ANNOUNCEMENT_KEY | COOKIE_KEY, "enabled") => match v {
                    Value::Bool(b) if key == ANNOUNCEMENT_KEY => bar.enabled = *b,
                    Value::Bool(b) => banner.enabled = *b,
                    _ => fail(field, NOT_A_SWITCH),
                },
                (ANNOUNCEMENT_KEY, "text") => {
                    match text_field(v, MAX_ANNOUNCEMENT, LONG_ANNOUNCEMENT) {
                        Ok(t) => bar.text = t,
                        Err(why) => fail(field, why),
                    }
                }
                (ANNOUNCEMENT_KEY, "url") => match v {
                    Value::Null => bar.url.clear(),
                    Value::String(s) if s.trim().is_empty() => bar.url.clear(),
                    Value::String(s) => match super::layout::external_link(s) {
                        Some(url) => bar.url = url,
                        None => fail(field, super::layout::BAD_LINK),
                    },
                    _ => fail(field, super::layout::BAD_LINK),
                },
                (COOKIE_KEY, "text") => match text_field(v, MAX_COOKIE_TEXT, LONG_COOKIE_TEXT) {
                    Ok(t) => banner.text = t,
                    Err(why) => fail(field, why),
                },
                (COOKIE_KEY, "buttonLabel") => match text_field(v, MAX_LABEL, LONG_LABEL) {
                    Ok(t) => banner.button_label = t,
                    Err(why) => fail(field, why),
                },
                _ => fail(field, UNKNOWN_FIELD),
            }
        }
        bar_named |= key == ANNOUNCEMENT_KEY;
        banner_named |= key == COOKIE_KEY;
    }
    if bar.enabled && bar.text.is_empty() {
        errors
            .entry("announcementBar.text")
            .or_insert(Value::String(NO_TEXT.to_owned()));
    }
    if !errors.is_empty() {
        return Err(ApiError::fields(errors));
    }
    let stored = app
        .store
        .update_site_settings(tenant, move |s| {
            if bar_named && !bar.enabled {
                s.website_settings.remove(ANNOUNCEMENT_SETTING);
            } else if bar_named {
                // The template's `style` and the link's `newWindow` are kept.
                let mut stored = s
                    .website_settings
                    .get(ANNOUNCEMENT_SETTING)
                    .and_then(Value::as_object)
                    .cloned()
                    .unwrap_or_default();
                stored.insert("text".into(), bar.text.into());
                if bar.url.is_empty() {
                    stored.remove("clickthroughUrl");
                } else {
                    let new_window = stored
                        .get("clickthroughUrl")
                        .and_then(|c| c.get("newWindow"))
                        .cloned()
                        .unwrap_or(Value::Bool(false));
                    stored.insert(
                        "clickthroughUrl".into(),
                        serde_json::json!({"url": bar.url, "newWindow": new_window}),
                    );
                }
                s.website_settings
                    .insert(ANNOUNCEMENT_SETTING.into(), Value::Object(stored));
            }
            if banner_named {
                s.website_settings.insert(
                    COOKIE_KEY.into(),
                    serde_json::json!({"enabled": banner.enabled, "text": banner.text,
                        "buttonLabel": banner.button_label}),
                );
            }
        })
        .await
        .map_err(|e| store_failure(&e))?;
    Ok(Json(document(&stored)))
}
