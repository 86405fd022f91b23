//! Lock screens (SPEC.md page type 103): `POST /api/lock-screen/unlock` checks a
//! password-protected collection's password and sets an unlock cookie; the page route reads
//! those cookies back ([`unlocked`]) and tells the renderer which collections to show.
//!
//! The site password (the owner's Settings → Site access) is the same form with
//! `lock=site` in place of `collectionId`, and its own cookie, [`SITE_COOKIE`], whose token
//! is the HMAC of `site:<tenant id>` under the site password's hash
//! ([`crate::services::lock_screen::site_token`]): a page's cookie never opens the site,
//! the site's never opens a page, and a new site password ends every earlier site cookie.
//! [`site_unlocked`] reads it back for the page route.
//!
//! The cookie is `tessera-unlock-<collection id>=<token>` (`Path=/; HttpOnly; SameSite=Lax`,
//! plus `Secure` when a trusted proxy says the visitor came over HTTPS; a browser-session
//! cookie), where the token is the hex HMAC-SHA256, keyed by the stored password hash, of
//! `<tenant id>:<collection id>`. No server secret is needed: the hash never leaves the
//! server, a token is good for one collection of one tenant only, and changing the password
//! changes the key, so every cookie issued before stops working.
//!
//! Each attempt costs one Argon2 verification (tens of milliseconds of CPU, on the blocking
//! pool), so attempts are limited per client address and tenant ([`ATTEMPTS`], a bucket
//! in the store, so the limit holds across nodes): [`MAX_ATTEMPTS`] at once, then one more
//! per [`ATTEMPT_WINDOW`] ([`crate::services::lock_screen`]); past that the answer is 429 without a
//! verification (an IPv6 client counts by its /64). That stops both guessing and burning
//! the server's CPU.
//! Behind a reverse proxy the client is the one the proxy names, when `serve` trusts that
//! proxy (`--trusted-proxy`, see [`crate::http::client`]); otherwise every client has the proxy's
//! address and shares one count, and the limit then guards the CPU more than any one
//! visitor.

use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use renderer::site::SiteContent;
use tenants::{Store, TenantId};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::http::Visitor;
use crate::http::local_path::local_path;
use crate::http::site::{NoSite, Resolved};
use crate::http::small_page::{error_page, no_site, plain};
use crate::openapi::SITE_USERS;
use crate::server::state::App;
pub use crate::services::lock_screen::{
    ATTEMPT_WINDOW, ATTEMPTS, MAX_ATTEMPTS, site_token, site_token_matches, token, token_matches,
};
use crate::services::lock_screen::{AttemptError, Lock, attempt};

/// The route of the unlock form.
pub const UNLOCK_PATH: &str = "/api/lock-screen/unlock";

/// Name prefix of unlock cookies; the collection id follows.
pub const COOKIE_PREFIX: &str = "tessera-unlock-";

/// The site password's unlock cookie (not under [`COOKIE_PREFIX`]).
pub const SITE_COOKIE: &str = "tessera-site-unlock";

/// The `lock` form field's value that names the site password.
pub const SITE_LOCK: &str = "site";

/// The largest unlock form body read.
const MAX_BODY: usize = 16 * 1024;

/// The answer to an attempt over the limit.
pub const TOO_MANY_ATTEMPTS: &str = "Too many password attempts. Please try again in a minute.";

/// Ids of the password-protected collections of `site` that the request's unlock cookies
/// open (each token checked against the collection's current hash).
pub fn unlocked(headers: &HeaderMap, site: &SiteContent, tenant: TenantId) -> Vec<String> {
    let mut ids: Vec<String> = Vec::new();
    for value in headers.get_all(header::COOKIE) {
        let Ok(value) = value.to_str() else {
            continue;
        };
        for pair in value.split(';') {
            let Some((name, token)) = pair.trim().split_once('=') else {
                continue;
            };
            let Some(id) = name.strip_prefix(COOKIE_PREFIX) else {
                continue;
            };
            let Some(hash) = site
                .collections
                .iter()
                .find(|c| c.id() == id)
                .and_then(|c| c.lock.as_deref())
            else {
                continue;
            };
            if token_matches(hash, tenant, id, token.trim_matches('"'))
                && !ids.iter().any(|i| i == id)
            {
                ids.push(id.to_string());
            }
        }
    }
    ids
}

/// Whether the request may see `site`: it has no site password, or one of the request's
/// [`SITE_COOKIE`]s is the current password's token.
pub fn site_unlocked(headers: &HeaderMap, site: &SiteContent, tenant: TenantId) -> bool {
    let Some(lock) = &site.site_lock else {
        return true;
    };
    crate::http::cookies::values(headers, SITE_COOKIE)
        .any(|t| site_token_matches(&lock.hash, tenant, t.trim_matches('"')))
}

/// Characters a collection id may have to name a cookie.
fn cookie_safe(id: &str) -> bool {
    !id.is_empty()
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
}

/// An attempt answered: 303 to a path on this site, with the unlock cookie when the
/// password was right.
struct SeeOther {
    location: String,
    cookie: Option<String>,
}

impl IntoResponse for SeeOther {
    fn into_response(self) -> Response {
        let mut r = Response::builder()
            .status(StatusCode::SEE_OTHER)
            .header(header::LOCATION, self.location)
            .header(header::CACHE_CONTROL, "no-store");
        if let Some(c) = self.cookie {
            r = r.header(header::SET_COOKIE, c);
        }
        r.body(Body::empty()).unwrap_or_else(|_| error_page())
    }
}

/// An attempt refused before its password was checked (plain text), or whose check failed
/// (the server's error page).
enum Refused {
    NoSite(NoSite),
    Plain(StatusCode, &'static str),
    /// Over the limit: try again after this long.
    TooMany(Duration),
    Failed,
}

impl IntoResponse for Refused {
    fn into_response(self) -> Response {
        match self {
            Refused::NoSite(why) => no_site(why),
            Refused::Plain(status, text) => plain(status, text),
            Refused::TooMany(wait) => {
                let mut response = plain(StatusCode::TOO_MANY_REQUESTS, TOO_MANY_ATTEMPTS);
                response.headers_mut().insert(
                    header::RETRY_AFTER,
                    // Whole seconds, rounded up.
                    HeaderValue::from(wait.as_millis().div_ceil(1000).max(1) as u64),
                );
                response
            }
            Refused::Failed => error_page(),
        }
    }
}

/// The unlock form (read pair by pair; other fields are ignored).
#[derive(ToSchema)]
#[schema(as = UnlockForm)]
#[allow(dead_code)] // a shape for the document
struct UnlockShape {
    /// The password-protected collection's id (not with `lock`).
    #[schema(rename = "collectionId", min_length = 1, nullable = false)]
    collection_id: Option<String>,
    /// `site`: the site password (in place of `collectionId`).
    #[schema(nullable = false)]
    lock: Option<String>,
    password: String,
    /// A path on this site to go back to (else `/`).
    #[schema(nullable = false)]
    redirect: Option<String>,
}

/// The unlock form as sent.
#[derive(Default)]
struct UnlockForm {
    collection_id: Option<String>,
    lock: Option<String>,
    password: Option<String>,
    redirect: Option<String>,
}

/// The form's fields (at most 16 KB, the first 100 pairs read).
async fn read_form(body: Body) -> Result<UnlockForm, Refused> {
    let body = match crate::http::body::bytes(body, MAX_BODY).await {
        Ok(b) => b,
        Err(e) if e.status == StatusCode::PAYLOAD_TOO_LARGE => {
            return Err(Refused::Plain(e.status, "The form is too large."));
        }
        Err(e) if e.status == StatusCode::REQUEST_TIMEOUT => {
            return Err(Refused::Plain(e.status, "The form was not sent in time."));
        }
        Err(_) => {
            return Err(Refused::Plain(
                StatusCode::BAD_REQUEST,
                "The form could not be read.",
            ));
        }
    };
    let mut form = UnlockForm::default();
    for (k, v) in form_urlencoded::parse(&body).take(100) {
        match &*k {
            "collectionId" => form.collection_id = Some(v.into_owned()),
            "lock" => form.lock = Some(v.into_owned()),
            "password" => form.password = Some(v.into_owned()),
            "redirect" => form.redirect = Some(v.into_owned()),
            _ => {}
        }
    }
    Ok(form)
}

/// What the form unlocks (the site or a collection), its password hash, and the password
/// sent (400 in plain words when one is missing, or the site has no such lock).
fn named_lock(site: &SiteContent, form: UnlockForm) -> Result<(Lock, Arc<str>, String), Refused> {
    let bad = |text| Refused::Plain(StatusCode::BAD_REQUEST, text);
    if let Some(lock) = form.lock.filter(|l| !l.is_empty()) {
        if lock != SITE_LOCK {
            return Err(bad("Unknown lock: `lock` may only be `site`."));
        }
        let Some(password) = form.password else {
            return Err(bad("Missing password."));
        };
        let Some(site_lock) = &site.site_lock else {
            return Err(bad("This site has no site password."));
        };
        return Ok((Lock::Site, site_lock.hash.clone(), password));
    }
    let Some(collection_id) = form.collection_id.filter(|c| !c.is_empty()) else {
        return Err(bad("Missing collectionId."));
    };
    let Some(password) = form.password else {
        return Err(bad("Missing password."));
    };
    let Some(hash) = site
        .collections
        .iter()
        .find(|c| c.id() == collection_id)
        .and_then(|c| c.lock.clone())
    else {
        return Err(bad(
            "Unknown collection: no password-protected collection has this id.",
        ));
    };
    if !cookie_safe(&collection_id) {
        return Err(bad("This collection's id cannot name an unlock cookie."));
    }
    Ok((Lock::Collection(collection_id), hash, password))
}

/// The unlock route.
pub fn routes() -> OpenApiRouter<App> {
    OpenApiRouter::new().routes(routes!(unlock))
}

/// `POST /api/lock-screen/unlock`: the lock screen's password form.
///
/// Form fields `collectionId` (or `lock=site` for the site password), `password` and
/// `redirect`, for the tenant named by `Host`.
///
/// * Right password: 303 to `redirect` (a same-site path, else `/`) with the unlock cookie
///   (`tessera-unlock-<collection id>`, or `tessera-site-unlock` for the site).
/// * Wrong password: 303 to `redirect` with `lock-error=1` added to its query, where the lock
///   screen shows "Incorrect password. Please try again.".
/// * Missing `collectionId` or `password`, a collection that does not exist or has no
///   password, `lock` other than `site`, or `lock=site` on a site without a site password:
///   400 with a plain message.
#[utoipa::path(post, path = "/api/lock-screen/unlock", tag = SITE_USERS,
    request_body(content = UnlockShape, content_type = "application/x-www-form-urlencoded"),
    responses(
        (status = 303, description = "Right password: to `redirect` with the unlock cookie. \
            Wrong password: to `redirect` with `lock-error=1` in its query.",
            headers(("Location" = String, description = "`redirect` if it is a path on this site, else `/`."),
                ("Set-Cookie" = String, description = "The unlock cookie (right password only)."))),
        (status = 400, description = "No `collectionId` (or `lock`) or `password`, no password-protected collection has this id, \
            or `lock=site` on a site without a site password.",
            body = String, content_type = "text/plain"),
        (status = 404, description = "No site has this host.", body = String, content_type = "text/plain"),
        (status = 413, description = "The form is larger than 16 KB (or could not be read).",
            body = String, content_type = "text/plain"),
        (status = 429, description = "Too many attempts from this client on this site; try again in a minute.",
            body = String, content_type = "text/plain",
            headers(("Retry-After" = u64, description = "Seconds to wait."))),
        (status = 500, description = "The password check failed.", body = String, content_type = "text/html"),
        (status = 503, description = "The store cannot be reached right now.", body = String, content_type = "text/plain")))]
async fn unlock(
    State(store): State<Store>,
    Resolved(found): Resolved,
    visitor: Visitor,
    body: Body,
) -> Result<SeeOther, Refused> {
    let found = found.map_err(Refused::NoSite)?;
    let (tenant, site) = (&found.tenant, &found.content.render);
    let form = read_form(body).await?;
    let location = local_path(form.redirect.as_deref()).to_string();
    let (lock, hash, password) = named_lock(site, form)?;
    // Requests that do not come through the listener (tests calling the router) share one
    // count.
    let client = visitor.client;
    match attempt(&store, tenant.id, client.ip, &lock, hash, password).await {
        Ok(Some(token)) => {
            let name = match &lock {
                Lock::Site => SITE_COOKIE.to_owned(),
                Lock::Collection(id) => format!("{COOKIE_PREFIX}{id}"),
            };
            Ok(SeeOther {
                location,
                cookie: Some(format!(
                    "{name}={token}; Path=/; HttpOnly; SameSite=Lax{}",
                    if client.https { "; Secure" } else { "" }
                )),
            })
        }
        Ok(None) => {
            let sep = if location.contains('?') { '&' } else { '?' };
            Ok(SeeOther {
                location: format!("{location}{sep}{}=1", renderer::route::LOCK_ERROR_PARAM),
                cookie: None,
            })
        }
        Err(AttemptError::TooMany(wait)) => {
            tracing::warn!(tenant = %tenant.identifier, client = %client.ip, "unlock attempts over the limit");
            Err(Refused::TooMany(wait))
        }
        Err(e @ AttemptError::Store(_)) => {
            tracing::error!(tenant = %tenant.identifier, error = %e, "counting an unlock attempt failed");
            Err(Refused::Plain(
                StatusCode::SERVICE_UNAVAILABLE,
                "Service Unavailable",
            ))
        }
        Err(e @ AttemptError::Check(_)) => {
            tracing::error!(tenant = %tenant.identifier, error = %e, "password check panicked");
            Err(Refused::Failed)
        }
    }
}
