//! The site's identity (issue 44): its title, tagline, logo and icon, and the business
//! information templates show (contact address, phone, location), on the Design screen.
//!
//! | route | role may | body | answer |
//! |---|---|---|---|
//! | `GET /api/owner/site-identity` | design, read | | the document |
//! | `PATCH /api/owner/site-identity` | design, change | a JSON Merge Patch of the document | the new document |
//!
//! Where each is kept (the page context's, TEMPLATE-PLATFORM.md §3): `website.siteTitle`,
//! `website.siteTagLine`, `website.logoImageUrl` and `logoImageId` (templates show the logo
//! in place of the title), `website.faviconUrl` and `faviconImageId` (ours: the page's icon
//! in place of the template's), `website.location` (`addressTitle`, `addressLine1`,
//! `addressLine2`, `addressCountry`; other keys such as a map's are kept),
//! `websiteSettings.contactEmail` and `websiteSettings.contactPhoneNumber`,
//! `website.socialAccounts` (`[{serviceName, profileUrl, iconEnabled}]`, the platform's
//! social-links block shows them; a change replaces the list),
//! `websiteSettings.businessHours` (`monday` … `sunday`, each `{text, ranges: [{from, to}]}`
//! in minutes from midnight, `text` written by the server as `08:00–18:00`; a change
//! replaces the week). The logo and
//! the icon are images uploaded with `POST /api/owner/assets`, named by their id. Every
//! problem answers 400 with `errors` by field and nothing is stored.

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

pub const NOT_A_PATCH: &str = "A change of the site's identity is a JSON object of its fields.";
pub const NO_TITLE: &str = "Please enter the site's title.";
pub const LONG_TITLE: &str = "A site title is at most 100 characters.";
pub const LONG_TEXT: &str = "At most 200 characters.";
pub const NOT_TEXT: &str = "Please enter text.";
pub const NO_IMAGE: &str = "That image is not among the site's uploaded files.";
pub const NOT_AN_IMAGE: &str = "Please choose an image (PNG, JPEG, GIF or WebP).";
/// SPEC.md §5's "Please enter a valid email", as the form builder says it.
pub use super::forms::ENTER_VALID_EMAIL as BAD_EMAIL;
pub const BAD_PHONE: &str =
    "A phone number has digits, spaces and + - ( ) . only, at most 40 characters.";
pub const UNKNOWN_FIELD: &str = "The site's identity has no such field.";
pub const NOT_ACCOUNTS: &str = "socialAccounts is a list of {serviceName, profileUrl}.";
pub const UNKNOWN_SERVICE: &str = "Please choose one of the networks offered.";
pub const TOO_MANY_ACCOUNTS: &str = "A site has at most 30 social accounts.";
pub const NOT_HOURS: &str =
    "businessHours has a day (monday … sunday) for each key, each {ranges: [{from, to}]}.";
pub const NO_SUCH_DAY: &str = "Please use a day of the week, monday to sunday.";
pub const BAD_TIME: &str = "A time is minutes from 0 (00:00) to 1440 (24:00).";
pub const CLOSE_AFTER_OPEN: &str = "The closing time must be after the opening time.";
pub const OVERLAP: &str = "A day's hours must not overlap; list them in order.";
pub const TOO_MANY_RANGES: &str = "A day has at most 4 ranges of hours.";

/// The days of `websiteSettings.businessHours`, in order.
pub const DAYS: [&str; 7] = [
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
];
const MAX_RANGES: usize = 4;

/// The networks a social account may be on: the ones the platform's social-links block
/// has an icon for (`renderer/templates/platform/sqs-social-icon-sprite`).
pub const SERVICES: [&str; 29] = [
    "bandcamp",
    "behance",
    "bluesky",
    "discord",
    "dribbble",
    "email",
    "etsy",
    "facebook",
    "flickr",
    "github",
    "instagram",
    "linkedin",
    "mastodon",
    "medium",
    "pinterest",
    "rss",
    "snapchat",
    "soundcloud",
    "spotify",
    "threads",
    "tiktok",
    "tripadvisor",
    "tumblr",
    "twitch",
    "twitter",
    "vimeo",
    "x",
    "yelp",
    "youtube",
];
const MAX_ACCOUNTS: usize = 30;

const MAX_TITLE: usize = 100;
const MAX_TEXT: usize = 200;
const LOCATION: [&str; 4] = [
    "addressTitle",
    "addressLine1",
    "addressLine2",
    "addressCountry",
];

pub fn routes() -> OpenApiRouter<App> {
    OpenApiRouter::new().routes(routes!(site_identity_read, site_identity_patch))
}

/// An image of the site (an uploaded file).
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = OwnerSiteImage)]
pub(crate) struct Image {
    asset_id: String,
    url: String,
}

/// The postal address templates show (`website.location`).
#[derive(Serialize, ToSchema, Default)]
#[serde(rename_all = "camelCase")]
#[schema(as = OwnerSiteLocation)]
pub(crate) struct Location {
    address_title: String,
    address_line1: String,
    address_line2: String,
    address_country: String,
}

/// The site's identity and business information.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = OwnerSiteIdentity)]
pub(crate) struct Identity {
    /// 1-100 characters.
    site_title: String,
    /// At most 200 characters; "" for none.
    site_tag_line: String,
    /// Shown in place of the title by templates that show a logo; null for none. A `PATCH`
    /// names it by `logoAssetId` (null takes it away).
    #[schema(nullable = true)]
    logo: Option<Image>,
    /// The site's icon in browsers' tabs (else the template's); `faviconAssetId` in a
    /// `PATCH`.
    #[schema(nullable = true)]
    favicon: Option<Image>,
    /// Where visitors write (and the new-order email goes); "" for none.
    contact_email: String,
    /// "" for none.
    contact_phone_number: String,
    /// Each line at most 200 characters; a `PATCH` names the lines it changes.
    location: Location,
    /// The site's social accounts in order (templates' social links): a `PATCH` replaces
    /// the list whole; at most 30.
    social_accounts: Vec<SocialAccount>,
    /// Read only: the networks an account may be on.
    services: Vec<String>,
    /// Opening hours by day, `monday` … `sunday` (every day present; no ranges: closed).
    /// A `PATCH` replaces the week (days it leaves out are closed; null: no hours at all).
    #[schema(value_type = Object)]
    business_hours: Map<String, Value>,
}

/// One day's opening hours (`websiteSettings.businessHours.<day>`).
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = OwnerBusinessDay)]
#[allow(dead_code)] // a shape for the document
struct BusinessDay {
    /// As templates show it: `08:00–18:00, 19:00–22:00`; "" when closed (written by the
    /// server).
    text: String,
    /// In order, not overlapping; at most 4.
    ranges: Vec<HoursRange>,
}

/// Open from `from` to `to`, minutes from midnight (0-1440, `from` < `to`).
#[derive(Serialize, ToSchema)]
#[schema(as = OwnerHoursRange)]
#[allow(dead_code)]
struct HoursRange {
    from: u16,
    to: u16,
}

/// `HH:MM` of minutes from midnight.
fn clock(minutes: u64) -> String {
    format!("{:02}:{:02}", minutes / 60, minutes % 60)
}

/// The week as the document shows it: every day, closed when not stored.
fn week_of(settings: &Map<String, Value>) -> Map<String, Value> {
    let stored = settings.get("businessHours").and_then(Value::as_object);
    DAYS.iter()
        .map(|day| {
            let d = stored.and_then(|s| s.get(*day));
            let ranges = d
                .and_then(|d| d.get("ranges"))
                .cloned()
                .unwrap_or_else(|| Value::Array(Vec::new()));
            let text = d
                .and_then(|d| d.get("text"))
                .cloned()
                .unwrap_or_else(|| Value::String(String::new()));
            (
                (*day).to_owned(),
                serde_json::json!({"text": text, "ranges": ranges}),
            )
        })
        .collect()
}

/// The week from a patch, as stored (`text` written), or the problems by field.
fn checked_week(v: &Value, fail: &mut impl FnMut(&str, String)) -> Option<Value> {
    let Value::Object(days) = v else {
        fail("businessHours", NOT_HOURS.into());
        return None;
    };
    let mut week = Map::new();
    let mut ok = true;
    for (day, d) in days {
        let field = format!("businessHours.{day}");
        if !DAYS.contains(&day.as_str()) {
            fail(&field, NO_SUCH_DAY.into());
            ok = false;
            continue;
        }
        let Some(list) = d.get("ranges").and_then(Value::as_array) else {
            fail(&field, NOT_HOURS.into());
            ok = false;
            continue;
        };
        if list.len() > MAX_RANGES {
            fail(&field, TOO_MANY_RANGES.into());
            ok = false;
            continue;
        }
        let mut ranges = Vec::new();
        let mut last_to = None;
        for (i, r) in list.iter().enumerate() {
            let at = |k: &str| format!("{field}[{i}].{k}");
            let time = |k: &str| r.get(k).and_then(Value::as_u64).filter(|m| *m <= 1440);
            let (from, to) = (time("from"), time("to"));
            if from.is_none() {
                fail(&at("from"), BAD_TIME.into());
            }
            if to.is_none() {
                fail(&at("to"), BAD_TIME.into());
            }
            let (Some(from), Some(to)) = (from, to) else {
                ok = false;
                continue;
            };
            if to <= from {
                fail(&at("to"), CLOSE_AFTER_OPEN.into());
                ok = false;
                continue;
            }
            if last_to.is_some_and(|t| from < t) {
                fail(&at("from"), OVERLAP.into());
                ok = false;
            }
            last_to = Some(to);
            ranges.push((from, to));
        }
        let text = ranges
            .iter()
            .map(|(f, t)| format!("{}–{}", clock(*f), clock(*t)))
            .collect::<Vec<_>>()
            .join(", ");
        let ranges: Vec<Value> = ranges
            .iter()
            .map(|(f, t)| serde_json::json!({"from": f, "to": t}))
            .collect();
        week.insert(
            day.clone(),
            serde_json::json!({"text": text, "ranges": ranges}),
        );
    }
    // Days left out are closed.
    for day in DAYS {
        week.entry(day)
            .or_insert_with(|| serde_json::json!({"text": "", "ranges": []}));
    }
    ok.then_some(Value::Object(week))
}

/// A social account (`website.socialAccounts[]`).
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = OwnerSocialAccount)]
pub(crate) struct SocialAccount {
    /// One of `services`.
    service_name: String,
    /// An http(s) address (a `mailto:` one for `email`) under 2083 characters.
    profile_url: String,
}

/// What a `PATCH` may name.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = OwnerSiteIdentityPatch)]
#[allow(dead_code)]
struct Patch {
    site_title: Option<String>,
    site_tag_line: Option<String>,
    /// An uploaded image's id; null: no logo.
    logo_asset_id: Option<String>,
    /// An uploaded image's id; null: the template's icon.
    favicon_asset_id: Option<String>,
    contact_email: Option<String>,
    contact_phone_number: Option<String>,
    #[schema(value_type = Option<Object>)]
    location: Option<Map<String, Value>>,
    social_accounts: Option<Vec<SocialAccount>>,
    /// `{monday: {ranges: [{from, to}]}, …}`: the whole week (days left out are closed).
    #[schema(value_type = Option<Object>)]
    business_hours: Option<Map<String, Value>>,
}

fn text_of(map: &Map<String, Value>, key: &str) -> String {
    map.get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

fn image(website: &Map<String, Value>, url: &str, id: &str) -> Option<Image> {
    let url = website.get(url)?.as_str()?.to_owned();
    Some(Image {
        asset_id: text_of(website, id),
        url,
    })
}

fn document(s: &tenants::SiteSettings) -> Identity {
    let w = &s.website;
    let location = w.get("location").and_then(Value::as_object);
    let line = |k: &str| location.map(|l| text_of(l, k)).unwrap_or_default();
    Identity {
        site_title: text_of(w, "siteTitle"),
        site_tag_line: text_of(w, "siteTagLine"),
        logo: image(w, "logoImageUrl", "logoImageId"),
        favicon: image(w, "faviconUrl", "faviconImageId"),
        contact_email: text_of(&s.website_settings, "contactEmail"),
        contact_phone_number: text_of(&s.website_settings, "contactPhoneNumber"),
        location: Location {
            address_title: line("addressTitle"),
            address_line1: line("addressLine1"),
            address_line2: line("addressLine2"),
            address_country: line("addressCountry"),
        },
        social_accounts: w
            .get("socialAccounts")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|a| {
                Some(SocialAccount {
                    service_name: a.get("serviceName")?.as_str()?.to_owned(),
                    profile_url: a.get("profileUrl")?.as_str()?.to_owned(),
                })
            })
            .collect(),
        services: SERVICES.map(str::to_owned).to_vec(),
        business_hours: week_of(&s.website_settings),
    }
}

/// A social account's address: http(s) (or mailto for email), printable, under 2083
/// characters (SPEC.md §5's URL limit).
fn profile_url_ok(service: &str, url: &str) -> bool {
    let lower = url.to_ascii_lowercase();
    let scheme = ["https://", "http://"]
        .iter()
        .any(|p| lower.starts_with(p) && url.len() > p.len())
        || (service == "email" && lower.starts_with("mailto:") && url.len() > 7);
    scheme && url.len() < 2083 && url.chars().all(|c| !c.is_control() && !c.is_whitespace())
}

/// `GET /api/owner/site-identity`: the site's title, tagline, logo, icon and business
/// information.
#[utoipa::path(get, path = "/api/owner/site-identity", tag = OWNER,
    security(("ownerToken" = [])),
    responses((status = 200, body = Identity), OwnerErrors))]
async fn site_identity_read(
    State(app): State<App>,
    owner: Owner<area::Design, Read>,
) -> Result<Json<Identity>, ApiError> {
    let content = super::site_content(&app.store, owner.site.tenant.id).await?;
    Ok(Json(document(&content.settings)))
}

/// A text field of the patch: trimmed, at most `max` characters; null is "".
fn text_field(v: &Value, max: usize, long: &str) -> Result<String, String> {
    let t = match v {
        Value::Null => String::new(),
        Value::String(s) => s.trim().to_owned(),
        _ => return Err(NOT_TEXT.into()),
    };
    if t.chars().count() > max || t.chars().any(char::is_control) {
        return Err(long.into());
    }
    Ok(t)
}

/// What a patch changes: (`website` keys, `websiteSettings` keys, location lines), a
/// value of null removing the key.
type Changes = (Map<String, Value>, Map<String, Value>, Map<String, Value>);

/// `PATCH /api/owner/site-identity`: changes the fields the body names, all or nothing.
#[utoipa::path(patch, path = "/api/owner/site-identity", tag = OWNER,
    request_body(content = Patch, content_type = "application/merge-patch+json",
        description = "A JSON Merge Patch (RFC 7396) of the document: each field named is \
        changed (null or \"\" clears it, but the title, which is required), `location` line \
        by line; `logoAssetId` and `faviconAssetId` name uploaded images. Any problem answers \
        400 with `errors` by field and nothing is stored. Other keys are refused."),
    security(("ownerToken" = [])),
    responses((status = 200, body = Identity, description = "As stored."), OwnerErrors))]
async fn site_identity_patch(
    State(app): State<App>,
    owner: Owner<area::Design, Change>,
    Json(body): Json<Value>,
) -> Result<Json<Identity>, ApiError> {
    let Value::Object(body) = body else {
        return Err(ApiError::bad_request(NOT_A_PATCH));
    };
    let tenant = owner.site.tenant.id;
    let mut errors = Map::new();
    let (mut website, mut settings, mut location): Changes = Default::default();
    let mut fail = |field: &str, why: String| {
        errors.insert(field.to_owned(), Value::String(why));
    };
    let set = |map: &mut Map<String, Value>, key: &str, t: String| {
        map.insert(
            key.to_owned(),
            if t.is_empty() {
                Value::Null
            } else {
                Value::String(t)
            },
        );
    };
    for (key, v) in &body {
        match key.as_str() {
            "siteTitle" => match text_field(v, MAX_TITLE, LONG_TITLE) {
                Ok(t) if t.is_empty() => fail(key, NO_TITLE.into()),
                Ok(t) => set(&mut website, "siteTitle", t),
                Err(why) => fail(key, why),
            },
            "siteTagLine" => match text_field(v, MAX_TEXT, LONG_TEXT) {
                Ok(t) => set(&mut website, "siteTagLine", t),
                Err(why) => fail(key, why),
            },
            "logoAssetId" | "faviconAssetId" => {
                let (url_key, id_key) = if key == "logoAssetId" {
                    ("logoImageUrl", "logoImageId")
                } else {
                    ("faviconUrl", "faviconImageId")
                };
                match v {
                    Value::Null => {
                        website.insert(url_key.into(), Value::Null);
                        website.insert(id_key.into(), Value::Null);
                    }
                    Value::String(id) => {
                        let found = app
                            .store
                            .assets(tenant)
                            .await
                            .map_err(|e| store_failure(&e))?
                            .into_iter()
                            .find(|a| a.id == *id);
                        match found {
                            None => fail(key, NO_IMAGE.into()),
                            Some(a) if !a.content_type.starts_with("image/") => {
                                fail(key, NOT_AN_IMAGE.into());
                            }
                            Some(a) => {
                                let url = super::assets::asset_json(&a).url;
                                website.insert(url_key.into(), Value::String(url));
                                website.insert(id_key.into(), Value::String(a.id.clone()));
                            }
                        }
                    }
                    _ => fail(key, NO_IMAGE.into()),
                }
            }
            "contactEmail" => match v {
                Value::Null => set(&mut settings, "contactEmail", String::new()),
                Value::String(s) if s.trim().is_empty() => {
                    set(&mut settings, "contactEmail", String::new());
                }
                Value::String(s) => match tenants::email_address::deliverable(s) {
                    Some(email) => set(&mut settings, "contactEmail", email.to_owned()),
                    None => fail(key, BAD_EMAIL.into()),
                },
                _ => fail(key, BAD_EMAIL.into()),
            },
            "contactPhoneNumber" => match text_field(v, 40, BAD_PHONE) {
                Ok(t)
                    if t.chars().all(|c| {
                        c.is_ascii_digit() || matches!(c, ' ' | '+' | '-' | '(' | ')' | '.')
                    }) =>
                {
                    set(&mut settings, "contactPhoneNumber", t);
                }
                _ => fail(key, BAD_PHONE.into()),
            },
            "location" => match v {
                Value::Object(lines) => {
                    for (line, v) in lines {
                        let field = format!("location.{line}");
                        if !LOCATION.contains(&line.as_str()) {
                            fail(&field, UNKNOWN_FIELD.into());
                            continue;
                        }
                        match text_field(v, MAX_TEXT, LONG_TEXT) {
                            Ok(t) => set(&mut location, line, t),
                            Err(why) => fail(&field, why),
                        }
                    }
                }
                _ => fail(key, NOT_A_PATCH.into()),
            },
            "socialAccounts" => match v {
                Value::Null => {
                    website.insert("socialAccounts".into(), Value::Array(Vec::new()));
                }
                Value::Array(list) if list.len() > MAX_ACCOUNTS => {
                    fail(key, TOO_MANY_ACCOUNTS.into());
                }
                Value::Array(list) => {
                    let mut accounts = Vec::new();
                    for (i, a) in list.iter().enumerate() {
                        let field = |f: &str| format!("socialAccounts[{i}].{f}");
                        let Some(a) = a.as_object() else {
                            fail(&format!("socialAccounts[{i}]"), NOT_ACCOUNTS.into());
                            continue;
                        };
                        let service = a.get("serviceName").and_then(Value::as_str).unwrap_or("");
                        let url = a
                            .get("profileUrl")
                            .and_then(Value::as_str)
                            .unwrap_or("")
                            .trim();
                        if !SERVICES.contains(&service) {
                            fail(&field("serviceName"), UNKNOWN_SERVICE.into());
                        }
                        if !profile_url_ok(service, url) {
                            fail(&field("profileUrl"), super::layout::BAD_LINK.into());
                        }
                        accounts.push(serde_json::json!({
                            "serviceName": service,
                            "profileUrl": url,
                            "iconEnabled": true,
                        }));
                    }
                    website.insert("socialAccounts".into(), Value::Array(accounts));
                }
                _ => fail(key, NOT_ACCOUNTS.into()),
            },
            "businessHours" => match v {
                Value::Null => {
                    settings.insert("businessHours".into(), Value::Null);
                }
                v => {
                    let mut problems = Vec::new();
                    let week = checked_week(v, &mut |f: &str, why: String| {
                        problems.push((f.to_owned(), why));
                    });
                    for (f, why) in problems {
                        fail(&f, why);
                    }
                    if let Some(week) = week {
                        settings.insert("businessHours".into(), week);
                    }
                }
            },
            _ => fail(key, UNKNOWN_FIELD.into()),
        }
    }
    if !errors.is_empty() {
        return Err(ApiError::fields(errors));
    }
    let stored = app
        .store
        .update_site_settings(tenant, move |s| {
            let apply = |target: &mut Map<String, Value>, changes: Map<String, Value>| {
                for (k, v) in changes {
                    if v.is_null() {
                        target.remove(&k);
                    } else {
                        target.insert(k, v);
                    }
                }
            };
            apply(&mut s.website, website);
            apply(&mut s.website_settings, settings);
            if !location.is_empty() {
                let mut lines = s
                    .website
                    .get("location")
                    .and_then(Value::as_object)
                    .cloned()
                    .unwrap_or_default();
                apply(&mut lines, location);
                s.website.insert("location".into(), Value::Object(lines));
            }
        })
        .await
        .map_err(|e| store_failure(&e))?;
    Ok(Json(document(&stored)))
}
