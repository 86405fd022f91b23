//! Site members signing in and out (SPEC.md §6 "Site users", §7 the account calls).
//!
//! | route | who | body / query | answer |
//! |---|---|---|---|
//! | `POST /api/site-users/account/session` | visitor (crumb, rate limited) | email, password, rememberMe | `{xsrfToken}` and the cookies below |
//! | `DELETE /api/site-users/account/session` | member (crumb, XSRF header) | cloneCart=true\|false | `{signedOut}`; cookies cleared |
//! | `POST /api/site-users/account/locale` | member (crumb, XSRF header) | language | `{language}` |
//! | `GET /api/site-users/account` | member | | `{id, email, displayName, locale, memberAreas, xsrfToken}` |
//!
//! Signing up and member areas are in [`sign_up`].
//!
//! Cookies: `tessera-member` holds the session (HttpOnly; kept 30 days with rememberMe,
//! else until the browser closes, and the session itself ends after 12 hours);
//! `SiteUserInfo` is what pages' scripts read, `{"authenticated":true,"siteUserId":"…"}`
//! URL-encoded (one that does not parse means signed out). Calls a member makes carry the
//! session's `xsrfToken` in `X-XSRF-Token` as well as the crumb (a member signed in by an
//! emailed link reads it from `GET /api/site-users/account`: a page of another origin
//! cannot read that answer, so handing it out there is as safe as putting it in a page).
//!
//! The cart follows the member: signing in makes the visitor's cart theirs (or moves its
//! entries into the cart they already have, on any device), and the cart cookie names it.
//! Signing out forgets it on this device; with `cloneCart=true` the visitor keeps a copy.

use std::time::Duration;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use axum::routing::{get, post};
use serde::Deserialize;
use serde_json::json;
use tenants::{SiteSession, SiteUser};

use crate::commerce::session::{CART_COOKIE, set_cart_cookie};
use crate::http::ApiError;
use crate::http::body::{MAX_JSON_BODY, json as read_json};
use crate::http::call::{Call, respond, with_cookies};
use crate::http::cookies;
use crate::http::error::{json_response, store_failure};
use crate::http::limits::Family;
use crate::server::App;

pub mod sign_up;

/// The session cookie.
pub const SESSION_COOKIE: &str = "tessera-member";
/// The cookie pages' scripts read (SPEC.md §6).
pub const INFO_COOKIE: &str = "SiteUserInfo";
/// The header a member's calls carry the session's `xsrfToken` in.
pub const XSRF_HEADER: &str = "x-xsrf-token";

/// How long a "remember me" session lasts, and one without it.
pub const REMEMBERED: Duration = Duration::from_secs(30 * 24 * 3600);
pub const NOT_REMEMBERED: Duration = Duration::from_secs(12 * 3600);

/// Designed here (SPEC.md does not show them).
pub const MISSING: &str = "Please enter your email address and password.";
pub const WRONG: &str = "Your email address or password is incorrect.";
pub const SIGNED_OUT: &str = "You are not signed in.";
pub const XSRF_FAIL: &str = "Your sign-in could not be confirmed. Please reload the page.";
pub const BAD_LANGUAGE: &str = "That language is not supported.";
pub const NOT_CONFIRMED: &str =
    "Please confirm your email address first: use the link we sent you when you signed up.";

const SESSION_PATH: &str = "/api/site-users/account/session";

pub fn routes() -> Router<App> {
    Router::new()
        .route(SESSION_PATH, post(sign_in).delete(sign_out))
        .route("/api/site-users/account/locale", post(set_locale))
        .route(
            "/api/site-users/account",
            get(account).post(sign_up::sign_up),
        )
        .route(sign_up::CONFIRM_PATH, get(sign_up::confirm))
        .route("/api/site-users/account/member-areas", post(sign_up::join))
}

/// The member signed in on this request, if any: a live session of this site.
pub async fn member(app: &App, call: &Call) -> Result<Option<(SiteSession, SiteUser)>, ApiError> {
    member_of(app, call.site.tenant.id, &call.headers)
        .await
        .map_err(|e| store_failure(&e))
}

async fn member_of(
    app: &App,
    tenant: tenants::TenantId,
    headers: &HeaderMap,
) -> tenants::Result<Option<(SiteSession, SiteUser)>> {
    for token in cookies::values(headers, SESSION_COOKIE) {
        let found = app.store.session(tenant, token).await?;
        if found.is_some() {
            return Ok(found);
        }
    }
    Ok(None)
}

/// The keys a request holds ([`renderer::render::Request::unlocked`]): the collections its
/// unlock cookies open and the member areas of its signed-in member.
pub async fn visitor_keys(
    app: &App,
    tenant: tenants::TenantId,
    site: &renderer::site::SiteContent,
    headers: &HeaderMap,
) -> Vec<String> {
    let mut keys = crate::lock_screen::unlocked(headers, site, tenant);
    keys.extend(member_area_keys(app, tenant, site, headers).await);
    keys
}

/// The member-area keys ([`renderer::site::member_area_key`]) of the member signed in on a
/// request: none for a visitor (no lookup), on a site without member areas, or when the
/// store cannot say (the page then shows the join page, never the content).
async fn member_area_keys(
    app: &App,
    tenant: tenants::TenantId,
    site: &renderer::site::SiteContent,
    headers: &HeaderMap,
) -> Vec<String> {
    // The cookie first: most requests are visitors', and that check is the cheaper one.
    if cookies::values(headers, SESSION_COOKIE).next().is_none()
        || !site.collections.iter().any(|c| c.member_area().is_some())
    {
        return Vec::new();
    }
    let areas = async {
        match member_of(app, tenant, headers).await? {
            Some((_, user)) => app.store.member_areas_of(tenant, &user.id).await,
            None => Ok(Vec::new()),
        }
    };
    match areas.await {
        Ok(areas) => areas
            .iter()
            .map(|a| renderer::site::member_area_key(a))
            .collect(),
        Err(e) => {
            tracing::warn!(error = %e, "member areas of a page request");
            Vec::new()
        }
    }
}

/// Signs `user` in on this call: a new session, the visitor's cart made theirs, and the
/// cookies that say so.
async fn start_session(
    app: &App,
    call: &Call,
    user: &SiteUser,
    remember: bool,
) -> Result<(SiteSession, Vec<String>), ApiError> {
    let tenant = call.site.tenant.id;
    let ttl = if remember { REMEMBERED } else { NOT_REMEMBERED };
    let session = app
        .store
        .create_session(tenant, &user.id, ttl.as_millis() as i64)
        .await
        .map_err(|e| store_failure(&e))?;
    let visitor_cart = call.cart_cookie().map(|c| c.id);
    let cart = app
        .store
        .sign_in_cart(tenant, &user.id, visitor_cart.as_deref())
        .await
        .map_err(|e| store_failure(&e))?;
    let https = call.client.https;
    let options = |http_only| cookies::Options {
        http_only,
        https,
        max_age: remember.then_some(REMEMBERED),
    };
    let mut set = vec![
        cookies::set(SESSION_COOKIE, &session.token, options(true)),
        cookies::set(INFO_COOKIE, &info_value(user), options(false)),
    ];
    if let Some(cart) = &cart {
        set.push(set_cart_cookie(&call.site, cart, https));
    }
    Ok((session, set))
}

/// The signed-in member of a state-changing call: 401 when there is none, 403 when the
/// `X-XSRF-Token` header is not the session's.
pub(crate) async fn member_writing(
    app: &App,
    call: &Call,
) -> Result<(SiteSession, SiteUser), ApiError> {
    let Some((session, user)) = member(app, call).await? else {
        return Err(ApiError::new(StatusCode::UNAUTHORIZED, SIGNED_OUT));
    };
    if !xsrf_matches(&call.headers, &session) {
        return Err(ApiError::new(StatusCode::FORBIDDEN, XSRF_FAIL));
    }
    Ok((session, user))
}

fn xsrf_matches(headers: &HeaderMap, session: &SiteSession) -> bool {
    headers
        .get(XSRF_HEADER)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            crate::http::signing::constant_time_eq(v.as_bytes(), session.xsrf_token.as_bytes())
        })
}

/// `SiteUserInfo`'s value for a member.
fn info_value(user: &SiteUser) -> String {
    let json = json!({"authenticated": true, "siteUserId": user.id}).to_string();
    percent_encoding::utf8_percent_encode(&json, percent_encoding::NON_ALPHANUMERIC).to_string()
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct SignIn {
    #[serde(default)]
    email: String,
    #[serde(default)]
    password: String,
    #[serde(default)]
    remember_me: bool,
}

/// Checks a password off the async workers (Argon2 takes tens of milliseconds). An unknown
/// email is checked against a made-up hash, so it takes as long as a wrong password.
async fn password_ok(password: String, hash: Option<String>) -> bool {
    static DECOY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    tokio::task::spawn_blocking(move || {
        let decoy =
            DECOY.get_or_init(|| tenants::password::hash("decoy-password").unwrap_or_default());
        match &hash {
            Some(h) => tenants::password::verify(&password, h),
            None => {
                tenants::password::verify(&password, decoy);
                false
            }
        }
    })
    .await
    .unwrap_or(false)
}

/// `POST /api/site-users/account/session`.
async fn sign_in(State(app): State<App>, req: Request) -> Response {
    respond(
        async {
            let (call, body) = Call::begin(&app, req).await?;
            call.write(&app, Family::SignIn)?;
            let b: SignIn = read_json(body, MAX_JSON_BODY).await?;
            if b.email.trim().is_empty() || b.password.is_empty() {
                return Err(ApiError::bad_request(MISSING));
            }
            let tenant = call.site.tenant.id;
            let user = app
                .store
                .site_user_by_email(tenant, &b.email)
                .await
                .map_err(|e| store_failure(&e))?;
            let ok = password_ok(b.password, user.as_ref().map(|u| u.password_hash.clone())).await;
            let Some(user) = user.filter(|_| ok) else {
                return Err(ApiError::new(StatusCode::UNAUTHORIZED, WRONG));
            };
            // Said only to someone who knows the password.
            if user.verified_ms.is_none() {
                return Err(ApiError::new(StatusCode::FORBIDDEN, NOT_CONFIRMED));
            }
            let (session, set) = start_session(&app, &call, &user, b.remember_me).await?;
            Ok(with_cookies(
                json_response(StatusCode::OK, &json!({"xsrfToken": session.xsrf_token})),
                set,
            ))
        }
        .await,
    )
}

/// `DELETE /api/site-users/account/session?cloneCart=`: signs out. Without a session it
/// still clears the cookies (signing out twice is fine).
async fn sign_out(State(app): State<App>, req: Request) -> Response {
    respond(
        async {
            let (call, _) = Call::begin(&app, req).await?;
            crate::http::crumb::check(&call.headers, None, &call.site.secret)?;
            let https = call.client.https;
            let mut set = vec![
                cookies::clear(SESSION_COOKIE, https),
                cookies::clear(INFO_COOKIE, https),
            ];
            if let Some((session, user)) = member(&app, &call).await? {
                if !xsrf_matches(&call.headers, &session) {
                    return Err(ApiError::new(StatusCode::FORBIDDEN, XSRF_FAIL));
                }
                let tenant = call.site.tenant.id;
                app.store
                    .delete_session(tenant, &session.token)
                    .await
                    .map_err(|e| store_failure(&e))?;
                let keep = call.query("cloneCart").is_some_and(|v| v == "true");
                let copy = if keep {
                    app.store
                        .clone_member_cart(tenant, &user.id)
                        .await
                        .map_err(|e| store_failure(&e))?
                } else {
                    None
                };
                set.push(match copy {
                    Some(cart) => set_cart_cookie(&call.site, &cart, https),
                    None => cookies::clear(CART_COOKIE, https),
                });
            }
            Ok(with_cookies(
                json_response(StatusCode::OK, &json!({"signedOut": true})),
                set,
            ))
        }
        .await,
    )
}

#[derive(Deserialize, Default)]
struct Locale {
    #[serde(default)]
    language: String,
}

/// The canonical form of a language tag a member may choose (`en`, `en-US`, `pt-BR`,
/// `zh-Hant-TW`, `es-419`; `EN-us` becomes `en-US`), or `None`. ICU4X parses the BCP 47
/// syntax; on top of it the language must be a 2-3 letter code (the 5-8 letter form is
/// reserved and no browser sends it), the separator a hyphen, and the tag at most 35 bytes.
pub fn language_tag(tag: &str) -> Option<String> {
    if tag.len() > 35 || tag.contains('_') {
        return None;
    }
    let id = icu_locale::LanguageIdentifier::try_from_str(tag).ok()?;
    (2..=3)
        .contains(&id.language.as_str().len())
        .then(|| id.to_string())
}

/// `POST /api/site-users/account/locale` {language}.
async fn set_locale(State(app): State<App>, req: Request) -> Response {
    respond(
        async {
            let (call, body) = Call::begin(&app, req).await?;
            crate::http::crumb::check(&call.headers, None, &call.site.secret)?;
            let (_, user) = member_writing(&app, &call).await?;
            let b: Locale = read_json(body, MAX_JSON_BODY).await?;
            let Some(language) = language_tag(b.language.trim()) else {
                return Err(ApiError::field("language", BAD_LANGUAGE));
            };
            app.store
                .set_site_user_locale(call.site.tenant.id, &user.id, &language)
                .await
                .map_err(|e| store_failure(&e))?;
            Ok(json_response(
                StatusCode::OK,
                &json!({"language": language}),
            ))
        }
        .await,
    )
}

/// `GET /api/site-users/account`: the signed-in member (401 when none).
async fn account(State(app): State<App>, req: Request) -> Response {
    respond(
        async {
            let (call, _) = Call::begin(&app, req).await?;
            let Some((session, user)) = member(&app, &call).await? else {
                return Err(ApiError::new(StatusCode::UNAUTHORIZED, SIGNED_OUT));
            };
            let areas = app
                .store
                .member_areas_of(call.site.tenant.id, &user.id)
                .await
                .map_err(|e| store_failure(&e))?;
            Ok(json_response(
                StatusCode::OK,
                &json!({"id": user.id, "email": user.email, "displayName": user.display_name, "locale": user.locale, "memberAreas": areas, "xsrfToken": session.xsrf_token}),
            ))
        }
        .await,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn language_tags() {
        for ok in ["en", "en-US", "pt-BR", "zh-Hant-TW", "es-419"] {
            assert_eq!(language_tag(ok).as_deref(), Some(ok));
        }
        assert_eq!(language_tag("EN-us").as_deref(), Some("en-US"));
        assert_eq!(language_tag("zh-hant-tw").as_deref(), Some("zh-Hant-TW"));
        for bad in [
            "",
            "e",
            "english",
            "en_US",
            "en-",
            "en-U",
            "en-US-",
            "1234",
            "<script>",
            &"en-abcdefgh".repeat(4),
        ] {
            assert_eq!(language_tag(bad), None, "{bad}");
        }
    }
}
