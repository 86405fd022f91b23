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
//!
//! The flows (signing in and up, confirming, signing out, joining) are
//! [`crate::services::members`]; the member signed in on a request, and the
//! [`MemberWriting`] extractor of their changes, are [`crate::http::member`].

use std::collections::BTreeMap;

use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use serde_json::json;
use tenants::SiteUser;
use utoipa::openapi::{RefOr, response::Response as DocResponse};
use utoipa::{IntoResponses, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::http::call::Call;
use crate::http::commerce::session::{CART_COOKIE, cart_cookie, set_cart_cookie};
use crate::http::cookies;
use crate::http::error::store_failure;
use crate::http::extract::family::{self, CrumbOnly};
use crate::http::member::{
    MemberWriting, SESSION_COOKIE, SIGNED_OUT, XSRF_FAIL, described, member, xsrf_matches,
};
use crate::http::{ApiError, Json, SetCookies, Write};
use crate::openapi::{SITE_USERS, VisitorErrors, WriteErrors};
use crate::server::state::App;
use crate::services::members::{self, SESSION_TTL, SignInError};
use tenants::Store;

pub mod sign_up;

/// The cookie pages' scripts read (SPEC.md §6).
pub const INFO_COOKIE: &str = "SiteUserInfo";

/// Designed here (SPEC.md does not show them).
pub const MISSING: &str = "Please enter your email address and password.";
pub const WRONG: &str = "Your email address or password is incorrect.";
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

/// The cart the call's cart cookie names, if it is signed for this site.
fn visitor_cart(call: &Call) -> Option<String> {
    cart_cookie(&call.site, &call.headers).map(|c| c.id)
}

/// The cookies of a member signed in on this call: the session, `SiteUserInfo`, and the
/// cart cookie naming their cart.
fn session_cookies(call: &Call, signed_in: &members::SignedIn, remember: bool) -> SetCookies {
    let https = call.client.https;
    let options = |http_only| cookies::Options {
        http_only,
        https,
        max_age: remember.then_some(SESSION_TTL),
    };
    let mut set = vec![
        cookies::set(SESSION_COOKIE, &signed_in.session.token, options(true)),
        cookies::set(INFO_COOKIE, &info_value(&signed_in.user), options(false)),
    ];
    if let Some(cart) = &signed_in.cart {
        set.push(set_cart_cookie(&call.site, cart, https));
    }
    SetCookies(set)
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

/// `POST /api/site-users/account/session`: signs a member in.
///
/// Sets the session cookie (`tessera-member`), `SiteUserInfo`, and the member's cart cookie.
#[utoipa::path(post, path = "/api/site-users/account/session", tag = SITE_USERS,
    request_body = SignIn, security(("crumb" = [])),
    responses(
        (status = 200, body = SignedIn,
            headers(("Set-Cookie" = String, description = "The session, `SiteUserInfo` and the cart."))),
        SignInErrors))]
async fn sign_in(
    State(store): State<Store>,
    call: Call,
    _: Write<family::SignIn>,
    Json(b): Json<SignIn>,
) -> Result<(SetCookies, Json<SignedIn>), ApiError> {
    let visitor_cart = visitor_cart(&call);
    let signed_in = members::sign_in(
        &store,
        call.site.tenant.id,
        &b.email,
        b.password,
        visitor_cart.as_deref(),
    )
    .await
    .map_err(|e| match e {
        SignInError::Missing => ApiError::bad_request(MISSING),
        SignInError::Wrong => ApiError::new(StatusCode::UNAUTHORIZED, WRONG),
        SignInError::NotConfirmed => ApiError::new(StatusCode::FORBIDDEN, NOT_CONFIRMED),
        SignInError::Store(e) => store_failure(&e),
    })?;
    Ok((
        session_cookies(&call, &signed_in, b.remember_me),
        Json(SignedIn {
            xsrf_token: signed_in.session.xsrf_token,
        }),
    ))
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
async fn sign_out(
    State(app): State<App>,
    call: Call,
    _: Write<CrumbOnly>,
) -> Result<(SetCookies, Json<SignedOut>), ApiError> {
    let https = call.client.https;
    let mut set = vec![
        cookies::clear(SESSION_COOKIE, https),
        cookies::clear(INFO_COOKIE, https),
    ];
    if let Some((session, user)) = member(&app, &call).await? {
        if !xsrf_matches(&call.headers, &session) {
            return Err(ApiError::new(StatusCode::FORBIDDEN, XSRF_FAIL));
        }
        let keep = call.query("cloneCart").is_some_and(|v| v == "true");
        let copy = members::sign_out(&app.store, call.site.tenant.id, &session, &user, keep)
            .await
            .map_err(|e| store_failure(&e))?;
        set.push(match copy {
            Some(cart) => set_cart_cookie(&call.site, &cart, https),
            None => cookies::clear(CART_COOKIE, https),
        });
    }
    Ok((SetCookies(set), Json(SignedOut { signed_out: true })))
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
async fn set_locale(
    State(store): State<Store>,
    call: Call,
    _: Write<CrumbOnly>,
    MemberWriting(_, user): MemberWriting,
    Json(b): Json<Locale>,
) -> Result<Json<LocaleSet>, ApiError> {
    let Some(language) = language_tag(b.language.trim()) else {
        return Err(ApiError::field("language", BAD_LANGUAGE));
    };
    store
        .set_site_user_locale(call.site.tenant.id, &user.id, &language)
        .await
        .map_err(|e| store_failure(&e))?;
    Ok(Json(LocaleSet { language }))
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
async fn account(State(app): State<App>, call: Call) -> Result<Json<Account>, ApiError> {
    let Some((session, user)) = member(&app, &call).await? else {
        return Err(ApiError::new(StatusCode::UNAUTHORIZED, SIGNED_OUT));
    };
    let areas = app
        .store
        .member_areas_of(call.site.tenant.id, &user.id)
        .await
        .map_err(|e| store_failure(&e))?;
    Ok(Json(Account {
        id: user.id,
        email: user.email,
        display_name: user.display_name,
        locale: user.locale,
        member_areas: areas,
        xsrf_token: session.xsrf_token,
    }))
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
