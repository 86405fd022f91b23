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
//! Cookies: `tessera-member` holds the session (HttpOnly). The session ends on the server
//! 12 hours after sign-in either way ([`SESSION_TTL`]); with rememberMe the cookie persists
//! across browser restarts with `Max-Age` 12 hours, without it it is a browser-session
//! cookie. The store keeps only the token's SHA-256;
//! `SiteUserInfo` is what pages' scripts read, `{"authenticated":true,"siteUserId":"…"}`
//! URL-encoded (one that does not parse means signed out). Calls a member makes carry the
//! session's `xsrfToken` in `X-XSRF-Token` as well as the crumb (a member signed in by an
//! emailed link reads it from `GET /api/site-users/account`: a page of another origin
//! cannot read that answer, so handing it out there is as safe as putting it in a page).
//!
//! The cart follows the member: signing in makes the visitor's cart theirs (or moves its
//! entries into the cart they already have, on any device), and the cart cookie names it.
//! Signing out forgets it on this device; with `cloneCart=true` the visitor keeps a copy.

use std::collections::BTreeMap;
use std::time::Duration;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use serde::{Deserialize, Serialize};
use serde_json::json;
use tenants::{SiteSession, SiteUser};
use utoipa::openapi::{RefOr, response::Response as DocResponse};
use utoipa::{IntoResponses, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::http::ApiError;
use crate::http::body::{MAX_JSON_BODY, json as read_json};
use crate::http::call::{Call, respond, with_cookies};
use crate::http::cookies;
use crate::http::error::{json_response, store_failure};
use crate::http::limits::Family;
use crate::openapi::{SITE_USERS, VisitorErrors, WriteErrors};
use crate::routes::commerce::session::{CART_COOKIE, set_cart_cookie};
use crate::server::App;

pub mod sign_up;

/// The session cookie.
pub const SESSION_COOKIE: &str = "tessera-member";
/// The cookie pages' scripts read (SPEC.md §6).
pub const INFO_COOKIE: &str = "SiteUserInfo";
/// The header a member's calls carry the session's `xsrfToken` in.
pub const XSRF_HEADER: &str = "x-xsrf-token";

/// How long a session lasts on the server from sign-in, with or without rememberMe.
/// rememberMe only decides whether the cookie outlives the browser (then with this
/// `Max-Age`, so it never outlives the session either).
pub const SESSION_TTL: Duration = Duration::from_secs(12 * 3600);

/// Designed here (SPEC.md does not show them).
pub const MISSING: &str = "Please enter your email address and password.";
pub const WRONG: &str = "Your email address or password is incorrect.";
pub const SIGNED_OUT: &str = "You are not signed in.";
pub const XSRF_FAIL: &str = "Your sign-in could not be confirmed. Please reload the page.";
pub const BAD_LANGUAGE: &str = "That language is not supported.";
pub const NOT_CONFIRMED: &str =
    "Please confirm your email address first: use the link we sent you when you signed up.";

pub fn routes() -> OpenApiRouter<App> {
    OpenApiRouter::new()
        .routes(routes!(sign_in, sign_out))
        .routes(routes!(set_locale))
        .routes(routes!(account, sign_up::sign_up))
        .routes(routes!(sign_up::confirm))
        .routes(routes!(sign_up::join))
}

/// What a signed-in member's change can get besides its answer: 400, 401 (not signed in),
/// 403 (the crumb, or `X-XSRF-Token` not the session's), 404, 413 and 503; no rate limit.
pub(crate) struct MemberErrors;

impl IntoResponses for MemberErrors {
    fn responses() -> BTreeMap<String, RefOr<DocResponse>> {
        let mut r = WriteErrors::responses();
        r.remove("429");
        r.insert("401".to_owned(), described(&r["403"], SIGNED_OUT));
        r.insert(
            "403".to_owned(),
            described(
                &r["403"],
                "The crumb is missing or wrong (`crumbFail: true`), or `X-XSRF-Token` is not the session's.",
            ),
        );
        r
    }
}

/// An error answer like `like`, with other words.
pub(crate) fn described(like: &RefOr<DocResponse>, description: &str) -> RefOr<DocResponse> {
    let mut r = like.clone();
    if let RefOr::T(a) = &mut r {
        a.description = description.to_owned();
    }
    r
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
    let mut keys = crate::routes::lock_screen::unlocked(headers, site, tenant);
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
    let session = app
        .store
        .create_session(tenant, &user.id, SESSION_TTL.as_millis() as i64)
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
        max_age: remember.then_some(SESSION_TTL),
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

/// The signed-in member of a state-changing call, as an extractor ([`member_writing`]).
pub struct MemberWriting(pub SiteSession, pub SiteUser);

impl axum::extract::FromRequestParts<App> for MemberWriting {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        app: &App,
    ) -> Result<Self, ApiError> {
        let call = Call::from_request_parts(parts, app).await?;
        let (session, user) = member_writing(app, &call).await?;
        Ok(MemberWriting(session, user))
    }
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
            // Constant time: `==` would tell by its timing how much of a guess was right.
            bool::from(subtle::ConstantTimeEq::ct_eq(
                v.as_bytes(),
                session.xsrf_token.as_bytes(),
            ))
        })
}

/// `SiteUserInfo`'s value for a member.
fn info_value(user: &SiteUser) -> String {
    let json = json!({"authenticated": true, "siteUserId": user.id}).to_string();
    percent_encoding::utf8_percent_encode(&json, percent_encoding::NON_ALPHANUMERIC).to_string()
}

#[derive(Deserialize, Default, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = MemberSignIn)]
pub(crate) struct SignIn {
    /// Required (400 when blank).
    #[serde(default)]
    #[schema(required = true)]
    email: String,
    /// Required (400 when empty).
    #[serde(default)]
    #[schema(required = true)]
    password: String,
    /// Keep the session cookie across browser restarts, for the session's 12 hours (else
    /// until the browser closes; the session ends after 12 hours either way).
    #[serde(default)]
    remember_me: bool,
}

/// A member's session token for `X-XSRF-Token`.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = MemberSignedIn)]
struct SignedIn {
    xsrf_token: String,
}

/// What signing in can get besides its answer.
struct SignInErrors;

impl IntoResponses for SignInErrors {
    fn responses() -> BTreeMap<String, RefOr<DocResponse>> {
        let mut r = WriteErrors::responses();
        r.insert("401".to_owned(), described(&r["400"], WRONG));
        r.insert(
            "403".to_owned(),
            described(
                &r["403"],
                "The crumb is missing or wrong (`crumbFail: true`), or the account's address is not confirmed yet.",
            ),
        );
        r
    }
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

/// `POST /api/site-users/account/session`: signs a member in.
///
/// Sets the session cookie (`tessera-member`), `SiteUserInfo`, and the member's cart cookie.
#[utoipa::path(post, path = "/api/site-users/account/session", tag = SITE_USERS,
    request_body = SignIn, security(("crumb" = [])),
    responses(
        (status = 200, body = SignedIn,
            headers(("Set-Cookie" = String, description = "The session, `SiteUserInfo` and the cart."))),
        SignInErrors))]
async fn sign_in(State(app): State<App>, req: Request) -> Response {
    respond(
        async {
            let (call, body) = Call::begin(&app, req).await?;
            call.write(&app, Family::SignIn).await?;
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
            let body = SignedIn {
                xsrf_token: session.xsrf_token,
            };
            Ok(with_cookies(
                json_response(StatusCode::OK, &json!(body)),
                set,
            ))
        }
        .await,
    )
}

/// Signed out.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = MemberSignedOut)]
struct SignedOut {
    signed_out: bool,
}

/// What a call that checks the crumb and nothing else of the request can get: 403, 404, 503.
struct CrumbOnlyErrors;

impl IntoResponses for CrumbOnlyErrors {
    fn responses() -> BTreeMap<String, RefOr<DocResponse>> {
        let mut r = WriteErrors::responses();
        for s in ["400", "413", "429"] {
            r.remove(s);
        }
        r.insert(
            "403".to_owned(),
            described(
                &r["403"],
                "The crumb is missing or wrong (`crumbFail: true`), or `X-XSRF-Token` is not the session's.",
            ),
        );
        r
    }
}

/// `DELETE /api/site-users/account/session?cloneCart=`: signs out.
///
/// Without a session it still clears the cookies (signing out twice is fine).
#[utoipa::path(delete, path = "/api/site-users/account/session", tag = SITE_USERS,
    params(("cloneCart" = Option<bool>, Query, description = "`true`: keep a copy of the member's cart on this device."),
        ("X-XSRF-Token" = Option<String>, Header, description = "The session's `xsrfToken` (needed when signed in).")),
    security(("crumb" = [])),
    responses(
        (status = 200, body = SignedOut,
            headers(("Set-Cookie" = String, description = "Clears the session and `SiteUserInfo`; the cart's cookie is cleared or names the copy."))),
        CrumbOnlyErrors))]
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
                json_response(StatusCode::OK, &json!(SignedOut { signed_out: true })),
                set,
            ))
        }
        .await,
    )
}

#[derive(Deserialize, Default, ToSchema)]
#[schema(as = MemberLocale)]
pub(crate) struct Locale {
    /// A BCP 47 tag (`en`, `pt-BR`, `zh-Hant-TW`), at most 35 characters once trimmed; stored in its
    /// canonical form.
    #[serde(default)]
    #[schema(required = true)]
    language: String,
}

/// The language stored, in its canonical form.
#[derive(Serialize, ToSchema)]
#[schema(as = MemberLanguage)]
struct LocaleSet {
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

/// `POST /api/site-users/account/locale`: the member's language.
#[utoipa::path(post, path = "/api/site-users/account/locale", tag = SITE_USERS,
    request_body = Locale,
    params(("X-XSRF-Token" = String, Header, description = "The session's `xsrfToken`.")),
    security(("crumb" = [])),
    responses((status = 200, body = LocaleSet), MemberErrors))]
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
                &json!(LocaleSet { language }),
            ))
        }
        .await,
    )
}

/// The signed-in member.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = MemberAccount)]
struct Account {
    id: String,
    email: String,
    display_name: String,
    locale: Option<String>,
    /// Ids of the member areas the member has joined.
    member_areas: Vec<String>,
    /// For `X-XSRF-Token` on the member's calls.
    xsrf_token: String,
}

/// What reading the account can get besides it: 401 (not signed in), 404, 503.
struct AccountErrors;

impl IntoResponses for AccountErrors {
    fn responses() -> BTreeMap<String, RefOr<DocResponse>> {
        let mut r = VisitorErrors::responses();
        let signed_out = described(&r["400"], SIGNED_OUT);
        r.remove("400");
        r.insert("401".to_owned(), signed_out);
        r
    }
}

/// `GET /api/site-users/account`: the signed-in member.
#[utoipa::path(get, path = "/api/site-users/account", tag = SITE_USERS,
    responses((status = 200, body = Account), AccountErrors))]
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
            let body = Account {
                id: user.id,
                email: user.email,
                display_name: user.display_name,
                locale: user.locale,
                member_areas: areas,
                xsrf_token: session.xsrf_token,
            };
            Ok(json_response(StatusCode::OK, &json!(body)))
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
