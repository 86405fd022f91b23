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
//! area they signed up from.

use std::collections::BTreeMap;
use std::time::Duration;

use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use serde_json::json;
use utoipa::openapi::{RefOr, response::Response as DocResponse};
use utoipa::{IntoResponses, ToSchema};

use super::{MemberErrors, member_writing, start_session};
use crate::email::{self, compose};
use crate::http::ApiError;
use crate::http::body::{MAX_JSON_BODY, json as read_json};
use crate::http::call::{Call, respond, with_cookies};
use crate::http::error::{json_response, store_failure};
use crate::http::limits::Family;
use crate::http::local_path::local_path;
use crate::http::signing::random_hex;
use crate::http::small_page;
use crate::openapi::{SITE_USERS, VisitorErrors, WriteErrors};
use crate::server::App;

/// The confirmation link's route.
pub const CONFIRM_PATH: &str = "/api/site-users/account/confirm";

/// How long a confirmation link works.
pub const LINK_TTL: Duration = Duration::from_secs(48 * 3600);

/// Passwords shorter than this are refused.
pub const MIN_PASSWORD: usize = 8;
/// Longer ones too (Argon2 would hash anything; a limit keeps a request's cost bounded).
pub const MAX_PASSWORD: usize = 256;

pub const BAD_EMAIL: &str = "Please enter a valid email address.";
pub const SHORT_PASSWORD: &str = "Your password needs at least 8 characters.";
pub const LONG_PASSWORD: &str = "Your password can have at most 256 characters.";
pub const NO_SUCH_AREA: &str = "That member area does not exist.";
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
struct VerificationSent {
    verification_sent: bool,
    message: &'static str,
}

/// An email address as a sign-up accepts it, lower-cased: one the mailer can send the
/// confirmation link to ([`tenants::email_address::deliverable`]).
pub fn email_address(raw: &str) -> Option<String> {
    tenants::email_address::deliverable(raw).map(str::to_lowercase)
}

/// The area `id` if the call's site declares it, else a 400 on `memberAreaId`.
fn declared_area(call: &Call, id: &str) -> Result<String, ApiError> {
    let id = id.trim();
    match call.site.content.render.member_area(id) {
        Some(_) => Ok(id.to_owned()),
        None => Err(ApiError::field("memberAreaId", NO_SUCH_AREA)),
    }
}

/// `POST /api/site-users/account`: a sign-up (202 whatever the address).
#[utoipa::path(post, path = "/api/site-users/account", tag = SITE_USERS,
    request_body = Body, security(("crumb" = [])),
    responses((status = 202, body = VerificationSent), WriteErrors))]
pub async fn sign_up(State(app): State<App>, req: Request) -> Response {
    respond(
        async {
            let (call, body) = Call::begin(&app, req).await?;
            call.write(&app, Family::SignIn).await?;
            let b: Body = read_json(body, MAX_JSON_BODY).await?;
            if b.email.trim().is_empty() || b.password.is_empty() {
                return Err(ApiError::bad_request(super::MISSING));
            }
            let Some(email) = email_address(&b.email) else {
                return Err(ApiError::field("email", BAD_EMAIL));
            };
            let length = b.password.chars().count();
            if length < MIN_PASSWORD {
                return Err(ApiError::field("password", SHORT_PASSWORD));
            }
            if length > MAX_PASSWORD {
                return Err(ApiError::field("password", LONG_PASSWORD));
            }
            let area = match b.member_area_id.as_deref().filter(|a| !a.trim().is_empty()) {
                Some(a) => Some(declared_area(&call, a)?),
                None => None,
            };
            let password = b.password;
            let password_hash =
                tokio::task::spawn_blocking(move || tenants::password::hash(&password))
                    .await
                    .map_err(|_| ApiError::unavailable())?
                    .map_err(|e| {
                        tracing::error!(error = %e, "hashing a sign-up's password");
                        ApiError::unavailable()
                    })?;
            let token = random_hex(32);
            let redirect = local_path(b.redirect.as_deref()).to_owned();
            let display_name: String = b.display_name.trim().chars().take(100).collect();
            let s = tenants::SignUp {
                email: email.clone(),
                password_hash,
                display_name: display_name.clone(),
                member_area: area.clone(),
                redirect,
                token_hash: tenants::secret_digest(&token),
                ttl_ms: LINK_TTL.as_millis() as i64,
            };
            let origin = call.base_url();
            let area_title = area.as_deref().and_then(|a| {
                let node = call.site.content.render.member_area(a)?;
                node.pointer(&["title"])?.as_str().map(str::to_owned)
            });
            let composer = crate::routes::composer(&app, &call).await;
            let data = |member: &tenants::SiteUser| {
                json!({
                    "website": {"siteTitle": email::site_title(&call)},
                    "member": {"email": member.email, "displayName": member.display_name},
                    "memberArea": area_title.as_ref().map(|t| json!({"title": t})),
                    "link": format!("{origin}{CONFIRM_PATH}?token={token}"),
                    "linkHours": LINK_TTL.as_secs() / 3600,
                    "signInUrl": format!("{origin}/"),
                })
            };
            app.store
                .sign_up(call.site.tenant.id, &s, |outcome| match outcome {
                    tenants::SignedUp::Created(u) | tenants::SignedUp::Renewed(u) => {
                        composer.email(compose::MEMBER_CONFIRMATION, &data(u), &u.email, None)
                    }
                    tenants::SignedUp::AlreadyMember(u) => {
                        composer.email(compose::MEMBER_EXISTING, &data(u), &u.email, None)
                    }
                })
                .await
                .map_err(|e| store_failure(&e))?;
            app.outbox.nudge();
            let body = VerificationSent {
                verification_sent: true,
                message: CHECK_EMAIL,
            };
            Ok(json_response(StatusCode::ACCEPTED, &json!(body)))
        }
        .await,
    )
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
pub async fn confirm(State(app): State<App>, req: Request) -> Response {
    let spent = || {
        small_page::page(
            StatusCode::BAD_REQUEST,
            "Link expired",
            &format!("<p>{}</p>", small_page::escape(LINK_SPENT)),
        )
    };
    let result = async {
        let (call, _) = Call::begin(&app, req).await?;
        let token = call.query("token").unwrap_or_default();
        if token.len() != 64 || !token.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Ok(None);
        }
        let Some(confirmed) = app
            .store
            .confirm_sign_up(call.site.tenant.id, &tenants::secret_digest(&token))
            .await
            .map_err(|e| store_failure(&e))?
        else {
            return Ok(None);
        };
        let (_, set) = start_session(&app, &call, &confirmed.user, false).await?;
        let mut r = StatusCode::SEE_OTHER.into_response();
        if let Ok(location) = HeaderValue::from_str(local_path(Some(&confirmed.redirect))) {
            r.headers_mut().insert(header::LOCATION, location);
        }
        r.headers_mut()
            .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
        Ok::<_, ApiError>(Some(with_cookies(r, set)))
    }
    .await;
    match result {
        Ok(Some(r)) => r,
        Ok(None) => spent(),
        Err(e) => respond(Err(e)),
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
struct MemberAreas {
    member_areas: Vec<String>,
}

/// `POST /api/site-users/account/member-areas`: a member joins an area.
#[utoipa::path(post, path = "/api/site-users/account/member-areas", tag = SITE_USERS,
    request_body = Join,
    params(("X-XSRF-Token" = String, Header, description = "The session's `xsrfToken`.")),
    security(("crumb" = [])),
    responses((status = 200, body = MemberAreas), MemberErrors))]
pub async fn join(State(app): State<App>, req: Request) -> Response {
    respond(
        async {
            let (call, body) = Call::begin(&app, req).await?;
            crate::http::crumb::check(&call.headers, None, &call.site.secret)?;
            let (_, user) = member_writing(&app, &call).await?;
            let b: Join = read_json(body, MAX_JSON_BODY).await?;
            let area = declared_area(&call, &b.member_area_id)?;
            let tenant = call.site.tenant.id;
            app.store
                .join_member_area(tenant, &user.id, &area)
                .await
                .map_err(|e| store_failure(&e))?;
            let areas = app
                .store
                .member_areas_of(tenant, &user.id)
                .await
                .map_err(|e| store_failure(&e))?;
            Ok(json_response(
                StatusCode::OK,
                &json!(MemberAreas {
                    member_areas: areas
                }),
            ))
        }
        .await,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses() {
        assert_eq!(
            email_address(" Ana@Example.COM ").as_deref(),
            Some("ana@example.com")
        );
        for bad in [
            "",
            "ana",
            "ana@",
            "@example.com",
            "ana@example",
            "ana@.com",
            "ana@x.com.",
            "a b@x.com",
            "a@b@x.com",
            // What the mailer could not send the link to.
            "a\"b@x.com",
            "a,b@x.com",
            "x<attacker@evil.com>",
        ] {
            assert_eq!(email_address(bad), None, "{bad}");
        }
    }
}
