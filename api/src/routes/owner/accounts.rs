//! Signing in to the owner app, and the one-time links that set a password.
//!
//! | route | who | body | answer |
//! |---|---|---|---|
//! | `POST /api/owner/session` | anyone (rate limited per client and per address) | email, password | `Me` and the session cookie |
//! | `GET /api/owner/session` | an owner (session or token) | | `Me` |
//! | `DELETE /api/owner/session` | an owner (session: CSRF header) | | 204, cookie cleared |
//! | `POST /api/owner/password-reset` | anyone (rate limited per client and per address) | email | 202, the same whatever the address |
//! | `POST /api/owner/password` | the holder of a link | token, password | `Me` and the session cookie |
//!
//! The session cookie (`tessera-owner`) is HttpOnly, `SameSite=Strict`, `Path=/`,
//! `Secure` over HTTPS, for the session's 30 days at most; the server ends the session
//! after 14 days unused ([`SESSION_LIFE`]). It holds a random token of which the store
//! keeps the SHA-256; a change made with it carries the session's `csrf` in
//! `X-CSRF-Token` ([`crate::http::extract::OwnerToken`]). It is looked up under the
//! request's site only: a member's session or another site's owner is nobody here.
//!
//! The flows are [`crate::services::owner::accounts`].

use std::collections::BTreeMap;

use axum::extract::{FromRef, State};
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use utoipa::openapi::{RefOr, response::Response as DocResponse};
use utoipa::{IntoResponses, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::http::call::Call;
use crate::http::cookies;
use crate::http::error::store_failure;
use crate::http::extract::{Authenticated, OwnerToken, Principal};
use crate::http::limits::{Family, Limits};
use crate::http::member::described;
use crate::http::owner::{
    Access, Area, CSRF_FAIL, SESSION_COOKIE, SESSION_LIFE, allows, role_name,
};
use crate::http::{ApiError, Json, SetCookies};
use crate::openapi::{OWNER, OwnerErrors, WriteErrors};
use crate::routes::forms::page_post::authority;
use crate::server::state::App;
use crate::services::owner::accounts::{
    self as flows, LinkMail, PasswordRule, SignInError, UseLinkError,
};

/// Designed here (SPEC.md does not show them).
pub const WRONG: &str = "Your email or password is incorrect.";
pub const NO_EMAIL: &str = "Please enter your email address.";
pub const NO_PASSWORD: &str = "Please enter your password.";
pub const BAD_EMAIL: &str = "Please enter a valid email address.";
pub const RESET_SENT: &str =
    "If that address has an account, a link to reset its password is on its way.";
pub const SHORT_PASSWORD: &str = "Your password needs at least 8 characters.";
pub const LONG_PASSWORD: &str = "Your password can have at most 128 characters.";
pub const LINK_SPENT: &str =
    "This link has expired or was already used. Ask for a new one from the sign-in page.";
pub const NOT_SIGNED_IN: &str = "You are not signed in.";
pub const OTHER_ORIGIN: &str = "Sign in from the site's own owner app.";

pub fn routes() -> OpenApiRouter<App> {
    OpenApiRouter::new()
        .routes(routes!(sign_in, me, sign_out))
        .routes(routes!(password_reset))
        .routes(routes!(set_password))
}

/// What each area allows the caller: `write`, `read`, or null for nothing.
#[derive(Serialize, ToSchema, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "lowercase")]
#[schema(as = OwnerGrant)]
pub enum Grant {
    Read,
    Write,
}

/// The areas a role may use, each `write`, `read` or null.
#[derive(Serialize, ToSchema)]
#[schema(as = OwnerAreas)]
pub struct Areas {
    content: Option<Grant>,
    design: Option<Grant>,
    store: Option<Grant>,
    orders: Option<Grant>,
    forms: Option<Grant>,
    analytics: Option<Grant>,
    comments: Option<Grant>,
    languages: Option<Grant>,
    access: Option<Grant>,
}

fn grant(role: u8, area: Area) -> Option<Grant> {
    if allows(role, area, Access::Write) {
        Some(Grant::Write)
    } else if allows(role, area, Access::Read) {
        Some(Grant::Read)
    } else {
        None
    }
}

impl Areas {
    pub fn of(role: u8) -> Areas {
        let g = |area| grant(role, area);
        Areas {
            content: g(Area::Content),
            design: g(Area::Design),
            store: g(Area::Store),
            orders: g(Area::Orders),
            forms: g(Area::Forms),
            analytics: g(Area::Analytics),
            comments: g(Area::Comments),
            languages: g(Area::Languages),
            access: g(Area::Access),
        }
    }
}

/// A signed-in owner account.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = OwnerMeAccount)]
pub struct MeAccount {
    id: String,
    email: String,
    /// SPEC.md §3's role number.
    role: u8,
    /// The role's name (`admin`, `store-manager` …).
    role_name: String,
}

/// The site the call is about, as the owner app names it.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = OwnerMeSite)]
pub struct MeSite {
    /// The site's identifier (`loam-lantern`).
    identifier: String,
    /// The site's title, as its pages show it.
    title: String,
    /// The store's ISO currency code.
    currency: String,
}

impl MeSite {
    fn of(call: &Call) -> MeSite {
        MeSite {
            identifier: call.site.tenant.identifier.clone(),
            title: crate::email::site_title_of(&call.site).to_owned(),
            currency: call.settings().currency.clone(),
        }
    }
}

/// Who is calling, on which site, and what they may do.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = OwnerMe)]
pub struct Me {
    /// The signed-in account; null when the call carries a token.
    account: Option<MeAccount>,
    /// What the app sends in `X-CSRF-Token` on every change; null for a token.
    csrf: Option<String>,
    site: MeSite,
    areas: Areas,
}

impl Me {
    fn of(call: &Call, owner: &Authenticated) -> Me {
        let (account, csrf) = match &owner.principal {
            Principal::Account { account, session } => (
                Some(MeAccount {
                    id: account.id.clone(),
                    email: account.email.clone(),
                    role: owner.role,
                    role_name: role_name(owner.role),
                }),
                Some(session.csrf.clone()),
            ),
            Principal::Token { .. } => (None, None),
        };
        Me {
            account,
            csrf,
            site: MeSite::of(call),
            areas: Areas::of(owner.role),
        }
    }

    fn signed_in(
        call: &Call,
        account: tenants::OwnerAccount,
        session: tenants::OwnerSession,
    ) -> Me {
        Me::of(
            call,
            &Authenticated {
                role: u8::try_from(account.role).unwrap_or(0),
                principal: Principal::Account { account, session },
            },
        )
    }
}

/// The session cookie of a new session.
fn session_cookie(call: &Call, session: &tenants::OwnerSession) -> SetCookies {
    SetCookies(vec![cookies::set_strict(
        SESSION_COOKIE,
        &session.token,
        cookies::Options {
            http_only: true,
            https: call.client.https,
            max_age: Some(std::time::Duration::from_millis(SESSION_LIFE.max_ms as u64)),
        },
    )])
}

/// 403 for a browser call from a page of another origin (its `Origin` is not this host):
/// no other site signs a visitor in, or mails them links, from its pages. Calls without
/// `Origin` (scripts, curl) pass.
fn same_origin(call: &Call) -> Result<(), ApiError> {
    let Some(origin) = call
        .headers
        .get(axum::http::header::ORIGIN)
        .and_then(|v| v.to_str().ok())
    else {
        return Ok(());
    };
    let host = call.host();
    if authority(origin).is_some_and(|a| a.eq_ignore_ascii_case(&host)) {
        Ok(())
    } else {
        Err(ApiError::new(StatusCode::FORBIDDEN, OTHER_ORIGIN))
    }
}

/// Spends one try of the owner's sign-in family for the client, then for the address.
async fn limit(app: &App, call: &Call, email: &str) -> Result<(), ApiError> {
    let limits = Limits::from_ref(app);
    let tenant = call.site.tenant.id;
    limits
        .check(Family::OwnerSignIn, tenant, call.client.ip)
        .await?;
    let email = email.trim().to_lowercase();
    if !email.is_empty() {
        limits
            .check_subject(Family::OwnerSignIn, tenant, &email)
            .await?;
    }
    Ok(())
}

#[derive(Deserialize, Default, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = OwnerSignIn)]
pub(crate) struct SignIn {
    /// Required (400 naming the field when blank).
    #[serde(default)]
    #[schema(required = true)]
    email: String,
    /// Required (400 naming the field when empty).
    #[serde(default)]
    #[schema(required = true)]
    password: String,
}

/// What signing in, asking for a reset and using a link can get besides their answer.
struct PublicErrors;

impl IntoResponses for PublicErrors {
    fn responses() -> BTreeMap<String, RefOr<DocResponse>> {
        let mut r = WriteErrors::responses();
        r.insert("401".to_owned(), described(&r["400"], WRONG));
        r.insert(
            "403".to_owned(),
            described(&r["403"], "The call comes from a page of another origin."),
        );
        r
    }
}

/// `POST /api/owner/session`: signs an owner in to the owner app.
///
/// 401 with the same message for an unknown address and a wrong password.
#[utoipa::path(post, path = "/api/owner/session", tag = OWNER,
    request_body = SignIn,
    responses(
        (status = 200, body = Me,
            headers(("Set-Cookie" = String, description = "The session: `tessera-owner`, HttpOnly, SameSite=Strict."))),
        PublicErrors))]
async fn sign_in(
    State(app): State<App>,
    call: Call,
    Json(b): Json<SignIn>,
) -> Result<(SetCookies, Json<Me>), ApiError> {
    same_origin(&call)?;
    limit(&app, &call, &b.email).await?;
    let (session, account) = flows::sign_in(&app.store, call.site.tenant.id, &b.email, b.password)
        .await
        .map_err(|e| match e {
            SignInError::NoEmail => ApiError::field("email", NO_EMAIL),
            SignInError::NoPassword => ApiError::field("password", NO_PASSWORD),
            SignInError::Wrong => ApiError::new(StatusCode::UNAUTHORIZED, WRONG),
            SignInError::Store(e) => store_failure(&e),
        })?;
    Ok((
        session_cookie(&call, &session),
        Json(Me::signed_in(&call, account, session)),
    ))
}

/// What reading who one is can get besides the answer.
struct MeErrors;

impl IntoResponses for MeErrors {
    fn responses() -> BTreeMap<String, RefOr<DocResponse>> {
        let mut r = OwnerErrors::responses();
        for s in ["403", "413"] {
            r.remove(s);
        }
        r.insert(
            "401".to_owned(),
            described(&r["401"], "No session or token of this site."),
        );
        r
    }
}

/// `GET /api/owner/session`: who is signed in (or whose token this is), with the session's
/// CSRF token and what the role may do in each area.
#[utoipa::path(get, path = "/api/owner/session", tag = OWNER,
    security(("ownerToken" = []), ("ownerSession" = [])),
    responses((status = 200, body = Me), MeErrors))]
async fn me(token: OwnerToken) -> Result<Json<Me>, ApiError> {
    let Some(owner) = &token.owner else {
        let mut e = ApiError::new(StatusCode::UNAUTHORIZED, NOT_SIGNED_IN);
        e.body["ownerAuthRequired"] = true.into();
        return Err(e);
    };
    Ok(Json(Me::of(&token.call, owner)))
}

/// What signing out can get besides its answer.
struct SignOutErrors;

impl IntoResponses for SignOutErrors {
    fn responses() -> BTreeMap<String, RefOr<DocResponse>> {
        let mut r = OwnerErrors::responses();
        for s in ["401", "413"] {
            r.remove(s);
        }
        r.insert("403".to_owned(), described(&r["403"], CSRF_FAIL));
        r
    }
}

/// `DELETE /api/owner/session`: signs out (the session ends; the cookie is cleared).
///
/// Without a session it still clears the cookie.
#[utoipa::path(delete, path = "/api/owner/session", tag = OWNER,
    params(("X-CSRF-Token" = Option<String>, Header, description = "The session's `csrf` (needed when signed in).")),
    security(("ownerSession" = [])),
    responses(
        (status = 204, description = "Signed out.",
            headers(("Set-Cookie" = String, description = "Clears `tessera-owner`."))),
        SignOutErrors))]
async fn sign_out(
    State(app): State<App>,
    owner: OwnerToken,
) -> Result<(StatusCode, SetCookies, ()), ApiError> {
    if let Some(Authenticated {
        principal: Principal::Account { session, .. },
        ..
    }) = &owner.owner
    {
        app.store
            .delete_owner_session(owner.site.tenant.id, &session.token)
            .await
            .map_err(|e| store_failure(&e))?;
    }
    Ok((
        StatusCode::NO_CONTENT,
        SetCookies(vec![cookies::clear_strict(
            SESSION_COOKIE,
            owner.client.https,
        )]),
        (),
    ))
}

#[derive(Deserialize, Default, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = OwnerPasswordReset)]
pub(crate) struct ResetBody {
    /// The account's address.
    #[serde(default)]
    #[schema(required = true)]
    email: String,
}

/// The answer to a reset request: the same whatever the address.
#[derive(Serialize, ToSchema)]
#[schema(as = OwnerResetRequested)]
pub(crate) struct ResetRequested {
    message: &'static str,
}

/// The site's link email's parts for this call: its composer, title and origin (the
/// site's domain this call came in on, with its port: never the raw `Host`).
pub(crate) async fn link_mail(app: &App, call: &Call) -> LinkMail {
    LinkMail {
        composer: crate::routes::composer(app, call).await,
        site_title: crate::email::site_title(call).to_owned(),
        origin: call.base_url(),
    }
}

/// `POST /api/owner/password-reset`: emails a link to choose a new password (valid one
/// hour, once) if the address has an account here. 202 either way.
#[utoipa::path(post, path = "/api/owner/password-reset", tag = OWNER,
    request_body = ResetBody,
    responses((status = 202, body = ResetRequested), PublicErrors))]
async fn password_reset(
    State(app): State<App>,
    call: Call,
    Json(b): Json<ResetBody>,
) -> Result<(StatusCode, Json<ResetRequested>), ApiError> {
    same_origin(&call)?;
    if b.email.trim().is_empty() {
        return Err(ApiError::field("email", NO_EMAIL));
    }
    let Some(email) = crate::services::members::email_address(&b.email) else {
        return Err(ApiError::field("email", BAD_EMAIL));
    };
    limit(&app, &call, &email).await?;
    let mail = link_mail(&app, &call).await;
    flows::request_reset(&app.store, &app.outbox, call.site.tenant.id, &email, mail)
        .await
        .map_err(|e| store_failure(&e))?;
    Ok((
        StatusCode::ACCEPTED,
        Json(ResetRequested {
            message: RESET_SENT,
        }),
    ))
}

#[derive(Deserialize, Default, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = OwnerSetPassword)]
pub(crate) struct SetPasswordBody {
    /// The `token` of the link (a reset, a first password or an invitation).
    #[serde(default)]
    #[schema(required = true)]
    token: String,
    /// The new password: 8 to 128 characters.
    #[serde(default)]
    #[schema(required = true, min_length = 8, max_length = 128)]
    password: String,
}

/// `POST /api/owner/password`: spends a link with the password it sets, and signs in.
///
/// A reset or first password ends the account's other sessions; an invitation makes the
/// account with the role it was sent with.
#[utoipa::path(post, path = "/api/owner/password", tag = OWNER,
    request_body = SetPasswordBody,
    responses(
        (status = 200, body = Me,
            headers(("Set-Cookie" = String, description = "The new session: `tessera-owner`."))),
        PublicErrors))]
async fn set_password(
    State(app): State<App>,
    call: Call,
    Json(b): Json<SetPasswordBody>,
) -> Result<(SetCookies, Json<Me>), ApiError> {
    same_origin(&call)?;
    Limits::from_ref(&app)
        .check(Family::OwnerSignIn, call.site.tenant.id, call.client.ip)
        .await?;
    let used = flows::use_link(&app.store, call.site.tenant.id, &b.token, b.password)
        .await
        .map_err(|e| match e {
            UseLinkError::Password(PasswordRule::Short) => {
                ApiError::field("password", SHORT_PASSWORD)
            }
            UseLinkError::Password(PasswordRule::Long) => {
                ApiError::field("password", LONG_PASSWORD)
            }
            UseLinkError::Spent => ApiError::field("token", LINK_SPENT),
            UseLinkError::Hashing(_) => ApiError::unavailable(),
            UseLinkError::Store(tenants::StoreError::Conflict(_)) => {
                ApiError::field("token", LINK_SPENT)
            }
            UseLinkError::Store(e) => store_failure(&e),
        })?;
    Ok((
        session_cookie(&call, &used.session),
        Json(Me::signed_in(&call, used.account, used.session)),
    ))
}
