//! Lock screens (SPEC.md page type 103): `POST /api/lock-screen/unlock` checks a
//! password-protected collection's password and sets an unlock cookie; the page route reads
//! those cookies back ([`unlocked`]) and tells the renderer which collections to show.
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
//! per [`ATTEMPT_WINDOW`]; past that the answer is 429 without a
//! verification (an IPv6 client counts by its /64). That stops both guessing and burning
//! the server's CPU.
//! Behind a reverse proxy the client is the one the proxy names, when `serve` trusts that
//! proxy (`--trusted-proxy`, see [`crate::http::client`]); otherwise every client has the proxy's
//! address and shares one count, and the limit then guards the CPU more than any one
//! visitor.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::Response;
use hmac::{Hmac, KeyInit, Mac};
use renderer::site::SiteContent;
use sha2::Sha256;
use tenants::{RateBucket, TenantId};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::http::local_path::local_path;
use crate::http::signing::from_hex;
use crate::openapi::SITE_USERS;
use crate::pages::{error_page, no_site, plain};
use crate::server::App;

/// The route of the unlock form.
pub const UNLOCK_PATH: &str = "/api/lock-screen/unlock";

/// Name prefix of unlock cookies; the collection id follows.
pub const COOKIE_PREFIX: &str = "tessera-unlock-";

/// The largest unlock form body read.
const MAX_BODY: usize = 16 * 1024;

/// Unlock attempts one client address may make on one tenant at once: plenty for a
/// visitor who mistypes, few for guessing.
pub const MAX_ATTEMPTS: u32 = 10;

/// Once those are spent, one more attempt per this long.
pub const ATTEMPT_WINDOW: Duration = Duration::from_secs(60);

/// The answer to an attempt over the limit.
pub const TOO_MANY_ATTEMPTS: &str = "Too many password attempts. Please try again in a minute.";

/// The bucket of unlock attempts per (tenant, client address): [`MAX_ATTEMPTS`] in a
/// burst, then one per [`ATTEMPT_WINDOW`].
pub const ATTEMPTS: RateBucket = RateBucket {
    interval: ATTEMPT_WINDOW,
    burst: MAX_ATTEMPTS,
};

/// Counts an attempt: `None` when admitted, else how long until one would be. Counted
/// before the verification runs, so that a burst of parallel attempts cannot all get
/// through.
async fn admit(
    app: &App,
    tenant: TenantId,
    client: IpAddr,
) -> Result<Option<Duration>, tenants::StoreError> {
    let key = crate::http::limits::bucket_key("unlock", client);
    app.store.spend_rate(tenant, &key, ATTEMPTS).await
}

type HmacSha256 = Hmac<Sha256>;

fn mac(password_hash: &str, tenant: TenantId, collection_id: &str) -> HmacSha256 {
    // HMAC takes keys of any length.
    let mut m = HmacSha256::new_from_slice(password_hash.as_bytes()).expect("any key length");
    m.update(format!("{tenant}:{collection_id}").as_bytes());
    m
}

/// The unlock token of a collection: hex HMAC-SHA256 keyed by its password hash over
/// `<tenant id>:<collection id>`.
pub fn token(password_hash: &str, tenant: TenantId, collection_id: &str) -> String {
    let bytes = mac(password_hash, tenant, collection_id)
        .finalize()
        .into_bytes();
    hex::encode(bytes)
}

/// Whether `token` (hex) is the collection's unlock token; compared in constant time.
pub fn token_matches(
    password_hash: &str,
    tenant: TenantId,
    collection_id: &str,
    token: &str,
) -> bool {
    let Some(bytes) = from_hex(token) else {
        return false;
    };
    mac(password_hash, tenant, collection_id)
        .verify_slice(&bytes)
        .is_ok()
}

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

/// Characters a collection id may have to name a cookie.
fn cookie_safe(id: &str) -> bool {
    !id.is_empty()
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
}

fn see_other(location: &str, cookie: Option<String>) -> Response {
    let mut r = Response::builder()
        .status(StatusCode::SEE_OTHER)
        .header(header::LOCATION, location)
        .header(header::CACHE_CONTROL, "no-store");
    if let Some(c) = cookie {
        r = r.header(header::SET_COOKIE, c);
    }
    r.body(Body::empty()).unwrap_or_else(|_| error_page())
}

/// The unlock form (read pair by pair; other fields are ignored).
#[derive(ToSchema)]
#[schema(as = UnlockForm)]
#[allow(dead_code)] // a shape for the document
struct UnlockShape {
    /// The password-protected collection's id.
    #[schema(rename = "collectionId", min_length = 1)]
    collection_id: String,
    password: String,
    /// A path on this site to go back to (else `/`).
    #[schema(nullable = false)]
    redirect: Option<String>,
}

/// The unlock route.
pub fn routes() -> OpenApiRouter<App> {
    OpenApiRouter::new().routes(routes!(unlock))
}

/// `POST /api/lock-screen/unlock`: the lock screen's password form.
///
/// Form fields `collectionId`, `password` and `redirect`, for the tenant named by `Host`.
///
/// * Right password: 303 to `redirect` (a same-site path, else `/`) with the unlock cookie.
/// * Wrong password: 303 to `redirect` with `lock-error=1` added to its query, where the lock
///   screen shows "Incorrect password. Please try again.".
/// * Missing `collectionId` or `password`, or a collection that does not exist or has no
///   password: 400 with a plain message.
#[utoipa::path(post, path = "/api/lock-screen/unlock", tag = SITE_USERS,
    request_body(content = UnlockShape, content_type = "application/x-www-form-urlencoded"),
    responses(
        (status = 303, description = "Right password: to `redirect` with the unlock cookie. \
            Wrong password: to `redirect` with `lock-error=1` in its query.",
            headers(("Location" = String, description = "`redirect` if it is a path on this site, else `/`."),
                ("Set-Cookie" = String, description = "The unlock cookie (right password only)."))),
        (status = 400, description = "No `collectionId` or `password`, or no password-protected collection has this id.",
            body = String, content_type = "text/plain"),
        (status = 404, description = "No site has this host.", body = String, content_type = "text/plain"),
        (status = 413, description = "The form is larger than 16 KB (or could not be read).",
            body = String, content_type = "text/plain"),
        (status = 429, description = "Too many attempts from this client on this site; try again in a minute.",
            body = String, content_type = "text/plain",
            headers(("Retry-After" = u64, description = "Seconds to wait."))),
        (status = 500, description = "The password check failed.", body = String, content_type = "text/html"),
        (status = 503, description = "The store cannot be reached right now.", body = String, content_type = "text/plain")))]
pub async fn unlock(State(app): State<App>, req: Request) -> Response {
    let found = match crate::http::site::of_request(&req) {
        Ok(found) => found,
        Err(why) => return no_site(why),
    };
    let (tenant, site) = (found.tenant.clone(), found.content.render.clone());
    // Requests that do not come through the listener (tests calling the router) share one
    // count.
    let peer = req
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0.ip());
    let client = crate::http::client::client_of(peer, req.headers(), &app.trusted_proxies);
    let body = match crate::http::body::bytes(req.into_body(), MAX_BODY).await {
        Ok(b) => b,
        Err(e) if e.status == StatusCode::PAYLOAD_TOO_LARGE => {
            return plain(e.status, "The form is too large.");
        }
        Err(e) if e.status == StatusCode::REQUEST_TIMEOUT => {
            return plain(e.status, "The form was not sent in time.");
        }
        Err(_) => return plain(StatusCode::BAD_REQUEST, "The form could not be read."),
    };
    let mut collection_id = None;
    let mut password = None;
    let mut redirect = None;
    for (k, v) in form_urlencoded::parse(&body).take(100) {
        match &*k {
            "collectionId" => collection_id = Some(v.into_owned()),
            "password" => password = Some(v.into_owned()),
            "redirect" => redirect = Some(v.into_owned()),
            _ => {}
        }
    }
    let Some(collection_id) = collection_id.filter(|c| !c.is_empty()) else {
        return plain(StatusCode::BAD_REQUEST, "Missing collectionId.");
    };
    let Some(password) = password else {
        return plain(StatusCode::BAD_REQUEST, "Missing password.");
    };
    let Some(hash) = site
        .collections
        .iter()
        .find(|c| c.id() == collection_id)
        .and_then(|c| c.lock.clone())
    else {
        return plain(
            StatusCode::BAD_REQUEST,
            "Unknown collection: no password-protected collection has this id.",
        );
    };
    if !cookie_safe(&collection_id) {
        return plain(
            StatusCode::BAD_REQUEST,
            "This collection's id cannot name an unlock cookie.",
        );
    }
    let location = local_path(redirect.as_deref()).to_string();
    match admit(&app, tenant.id, client.ip).await {
        Ok(None) => {}
        Ok(Some(wait)) => {
            tracing::warn!(tenant = %tenant.identifier, client = %client.ip, "unlock attempts over the limit");
            let mut response = plain(StatusCode::TOO_MANY_REQUESTS, TOO_MANY_ATTEMPTS);
            response.headers_mut().insert(
                header::RETRY_AFTER,
                // Whole seconds, rounded up.
                header::HeaderValue::from(wait.as_millis().div_ceil(1000).max(1) as u64),
            );
            return response;
        }
        Err(e) => {
            tracing::error!(tenant = %tenant.identifier, error = %e, "counting an unlock attempt failed");
            return plain(StatusCode::SERVICE_UNAVAILABLE, "Service Unavailable");
        }
    }
    let check: Arc<str> = hash.clone();
    let ok =
        tokio::task::spawn_blocking(move || tenants::password::verify(&password, &check)).await;
    match ok {
        Ok(true) => {
            let cookie = format!(
                "{COOKIE_PREFIX}{collection_id}={}; Path=/; HttpOnly; SameSite=Lax{}",
                token(&hash, tenant.id, &collection_id),
                if client.https { "; Secure" } else { "" }
            );
            see_other(&location, Some(cookie))
        }
        Ok(false) => {
            let sep = if location.contains('?') { '&' } else { '?' };
            let back = format!("{location}{sep}{}=1", renderer::route::LOCK_ERROR_PARAM);
            see_other(&back, None)
        }
        Err(e) => {
            tracing::error!(tenant = %tenant.identifier, error = %e, "password check panicked");
            error_page()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_bound_to_hash_tenant_and_collection() {
        let t = token("$argon2id$a", TenantId(7), "c1");
        assert_eq!(t.len(), 64);
        assert!(token_matches("$argon2id$a", TenantId(7), "c1", &t));
        assert!(!token_matches("$argon2id$b", TenantId(7), "c1", &t));
        assert!(!token_matches("$argon2id$a", TenantId(8), "c1", &t));
        assert!(!token_matches("$argon2id$a", TenantId(7), "c2", &t));
        assert!(!token_matches("$argon2id$a", TenantId(7), "c1", &t[..62]));
        assert!(!token_matches("$argon2id$a", TenantId(7), "c1", "zz"));
        assert!(!token_matches("$argon2id$a", TenantId(7), "c1", ""));
    }
}
