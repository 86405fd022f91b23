//! Signing up with email confirmation, and joining member areas (SPEC.md page types 105 and
//! 106; the areas themselves are declared in the site's settings, see
//! `tenants::member_areas`).
//!
//! | route | who | body / query | answer |
//! |---|---|---|---|
//! | `POST /api/site-users/account` | visitor (crumb, rate limited) | email, password, displayName?, memberAreaId?, redirect? | 202 `{verificationSent, message}` |
//! | `GET /api/site-users/account/confirm` | the emailed link | token | 303 to `redirect`, signed in; a small page when the link is spent |
//! | `POST /api/site-users/account/member-areas` | member (crumb, XSRF header) | memberAreaId | `{memberAreas}` |
//!
//! A sign-up answers the same whether or not the address has an account, so the route
//! cannot be used to find out who is a member; what differs is the email to the address:
//! a confirmation link for a new (or still unconfirmed) account, a note to sign in for a
//! confirmed one. The link carries a random token of which the store keeps only the
//! SHA-256; it works once, for [`LINK_TTL`]. Until it is used the account cannot sign in.
//! Confirming signs the member in (as a sign-in without rememberMe) and joins them to the
//! area they signed up from when it is free; a paid area (one that names a plan product,
//! `tenants::member_areas`) is never joined here: the link lands the member, signed in, back
//! on its join page, whose button sells its plan, and the join route refuses it (403,
//! [`PAID_AREA`]). The flows are [`crate::services::members`].

use std::collections::BTreeMap;

use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use utoipa::openapi::{RefOr, response::Response as DocResponse};
use utoipa::{IntoResponses, ToSchema};

use super::{MemberErrors, session_cookies, visitor_cart};
use crate::email;
use crate::http::call::Call;
use crate::http::error::store_failure;
use crate::http::extract::family::{CrumbOnly, SignIn};
use crate::http::member::MemberWriting;
use crate::http::small_page;
use crate::http::{ApiError, Json, SetCookies, Write};
use crate::openapi::{SITE_USERS, VisitorErrors, WriteErrors};
use crate::server::state::App;
use crate::services::members::{
    self, ConfirmError, JoinError, SignUpError, SignUpInput, SignUpMail,
};
use tenants::Store;

pub use crate::services::members::{LINK_TTL, email_address};

pub const BAD_EMAIL: &str = "Please enter a valid email address.";
pub const SHORT_PASSWORD: &str = "Your password needs at least 8 characters.";
pub const LONG_PASSWORD: &str = "Your password can have at most 256 characters.";
pub const NO_SUCH_AREA: &str = "That member area does not exist.";
/// Ours: joining a paid area through the free join.
pub const PAID_AREA: &str =
    "This member area is paid: join it with the button on its page, which takes you to checkout.";
pub const CHECK_EMAIL: &str =
    "Check your email: we sent you a link to confirm your address and sign in.";
pub const LINK_SPENT: &str = "This link has expired or was already used. Sign up again to get a new one, or sign in if you already confirmed your address.";

#[derive(Deserialize, Default, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = SignUpBody)]
pub(crate) struct Body {
    /// Required: `local@domain.tld`, at most 254 characters once trimmed.
    #[serde(default)]
    #[schema(required = true)]
    email: String,
    /// Required: 8 to 256 characters.
    #[serde(default)]
    #[schema(required = true, min_length = 8, max_length = 256)]
    password: String,
    /// Kept to its first 100 characters.
    #[serde(default)]
    display_name: String,
    /// A member area the site declares, joined on confirming.
    #[serde(default)]
    member_area_id: Option<String>,
    /// A path on this site to land on after confirming (else `/`).
    #[serde(default)]
    redirect: Option<String>,
}

/// A sign-up was taken: the address gets an email (the same answer whether or not it has
/// an account).
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct VerificationSent {
    verification_sent: bool,
    message: &'static str,
}

/// `POST /api/site-users/account`: a sign-up (202 whatever the address).
#[utoipa::path(post, path = "/api/site-users/account", tag = SITE_USERS,
    request_body = Body, security(("crumb" = [])),
    responses((status = 202, body = VerificationSent), WriteErrors))]
pub(super) async fn sign_up(
    State(app): State<App>,
    call: Call,
    _: Write<SignIn>,
    Json(b): Json<Body>,
) -> Result<(StatusCode, Json<VerificationSent>), ApiError> {
    let input = SignUpInput {
        email: b.email,
        password: b.password,
        display_name: b.display_name,
        member_area_id: b.member_area_id,
        redirect: b.redirect,
    };
    let mail = SignUpMail {
        composer: crate::routes::composer(&app, &call),
        site_title: email::site_title(&call).to_owned(),
        origin: call.base_url(),
    };
    members::sign_up(&app.store, &app.outbox, &call.site, input, mail)
        .await
        .map_err(|e| match e {
            SignUpError::Missing => ApiError::bad_request(super::MISSING),
            SignUpError::BadEmail => ApiError::field("email", BAD_EMAIL),
            SignUpError::ShortPassword => ApiError::field("password", SHORT_PASSWORD),
            SignUpError::LongPassword => ApiError::field("password", LONG_PASSWORD),
            SignUpError::NoSuchArea => ApiError::field("memberAreaId", NO_SUCH_AREA),
            SignUpError::Hashing => ApiError::unavailable(),
            SignUpError::Store(e) => store_failure(&e),
        })?;
    Ok((
        StatusCode::ACCEPTED,
        Json(VerificationSent {
            verification_sent: true,
            message: CHECK_EMAIL,
        }),
    ))
}

/// What the emailed link can get besides the redirect: a page when the link is spent, JSON
/// errors for an unknown site or a store that cannot be reached.
struct ConfirmErrors;

impl IntoResponses for ConfirmErrors {
    fn responses() -> BTreeMap<String, RefOr<DocResponse>> {
        let mut r = VisitorErrors::responses();
        r.remove("400");
        r
    }
}

/// `GET /api/site-users/account/confirm?token=`: the emailed link.
///
/// Confirms the address, signs the member in and sends them on to where they signed up.
#[utoipa::path(get, path = "/api/site-users/account/confirm", tag = SITE_USERS,
    params(("token" = String, Query, description = "The link's token: 64 hex digits.")),
    responses(
        (status = 303, description = "Confirmed and signed in; on to the sign-up's `redirect`.",
            headers(("Location" = String, description = "A path on this site."),
                ("Set-Cookie" = String, description = "The session, `SiteUserInfo` and the cart."))),
        (status = 400, description = "The link has expired, was already used, or is not one.",
            body = String, content_type = "text/html"),
        ConfirmErrors))]
pub(super) async fn confirm(
    State(store): State<Store>,
    call: Call,
) -> Result<Confirmation, ApiError> {
    let token = call.query("token").unwrap_or_default();
    let visitor_cart = visitor_cart(&call);
    match members::confirm(&store, call.site.tenant.id, &token, visitor_cart.as_deref()).await {
        Ok(confirmed) => Ok(Confirmation::SignedIn {
            cookies: session_cookies(&call, &confirmed.signed_in, false),
            location: confirmed.redirect,
        }),
        Err(ConfirmError::Spent) => Ok(Confirmation::Spent {
            site_title: crate::email::site_title(&call).to_owned(),
        }),
        Err(ConfirmError::Store(e)) => Err(store_failure(&e)),
    }
}

/// What the emailed link gets: on to the sign-up's `redirect`, signed in, or a page that
/// says the link is spent.
pub(super) enum Confirmation {
    SignedIn {
        cookies: SetCookies,
        /// A path on the site.
        location: String,
    },
    /// The link is spent: the page says so and leads back to the site's home page.
    Spent { site_title: String },
}

impl IntoResponse for Confirmation {
    fn into_response(self) -> Response {
        match self {
            Confirmation::SignedIn { cookies, location } => {
                let mut r = StatusCode::SEE_OTHER.into_response();
                if let Ok(location) = HeaderValue::from_str(&location) {
                    r.headers_mut().insert(header::LOCATION, location);
                }
                r.headers_mut()
                    .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
                (cookies, r).into_response()
            }
            Confirmation::Spent { site_title } => small_page::page(
                StatusCode::BAD_REQUEST,
                "Link expired",
                &format!(
                    "<p>{}</p><p><a href=\"/\">Back to {}</a></p>",
                    small_page::escape(LINK_SPENT),
                    small_page::escape(&site_title)
                ),
            ),
        }
    }
}

#[derive(Deserialize, Default, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = JoinMemberArea)]
pub(crate) struct Join {
    /// A member area the site declares (400 otherwise).
    #[serde(default)]
    #[schema(required = true)]
    member_area_id: String,
}

/// The member areas the member has joined, by id.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct MemberAreas {
    member_areas: Vec<String>,
}

/// `POST /api/site-users/account/member-areas`: a member joins a free area (403 for a paid
/// one: it is joined by buying its plan).
#[utoipa::path(post, path = "/api/site-users/account/member-areas", tag = SITE_USERS,
    request_body = Join,
    params(("X-XSRF-Token" = String, Header, description = "The session's `xsrfToken`.")),
    security(("crumb" = [])),
    responses((status = 200, body = MemberAreas), MemberErrors))]
pub(super) async fn join(
    State(store): State<Store>,
    call: Call,
    _: Write<CrumbOnly>,
    MemberWriting(_, user): MemberWriting,
    Json(b): Json<Join>,
) -> Result<Json<MemberAreas>, ApiError> {
    let member_areas = members::join(&store, &call.site, &user, &b.member_area_id)
        .await
        .map_err(|e| match e {
            JoinError::NoSuchArea => ApiError::field("memberAreaId", NO_SUCH_AREA),
            JoinError::Paid => ApiError::new(StatusCode::FORBIDDEN, PAID_AREA),
            JoinError::Store(e) => store_failure(&e),
        })?;
    Ok(Json(MemberAreas { member_areas }))
}
