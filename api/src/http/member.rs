//! The member signed in on a request (SPEC.md §6 "Site users"): a live session of the
//! request's site, named by the session cookie ([`member`]); for a state-changing call,
//! one whose `X-XSRF-Token` header is the session's ([`MemberWriting`]). And the keys a
//! request holds ([`visitor_keys`]): the collections its unlock cookies open and its
//! member's areas, which pages and items behind a lock are shown by.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode};
use tenants::{SiteSession, SiteUser};
use utoipa::openapi::{RefOr, response::Response as DocResponse};

use super::call::Call;
use super::cookies;
use super::error::{ApiError, store_failure};
use crate::server::state::App;

/// The session cookie.
pub const SESSION_COOKIE: &str = "tessera-member";
/// The header a member's calls carry the session's `xsrfToken` in.
pub const XSRF_HEADER: &str = "x-xsrf-token";

/// Designed here (SPEC.md does not show them).
pub const SIGNED_OUT: &str = "You are not signed in.";
pub const XSRF_FAIL: &str = "Your sign-in could not be confirmed. Please reload the page.";

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

/// The signed-in member of a state-changing call, as an extractor: 401 when there is
/// none, 403 when the `X-XSRF-Token` header is not the session's. List it after the
/// crumb's check ([`super::Write`]) and before the body.
pub struct MemberWriting(pub SiteSession, pub SiteUser);

impl FromRequestParts<App> for MemberWriting {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, app: &App) -> Result<Self, ApiError> {
        let call = Call::from_request_parts(parts, app).await?;
        let Some((session, user)) = member(app, &call).await? else {
            return Err(ApiError::new(StatusCode::UNAUTHORIZED, SIGNED_OUT));
        };
        if !xsrf_matches(&call.headers, &session) {
            return Err(ApiError::new(StatusCode::FORBIDDEN, XSRF_FAIL));
        }
        Ok(MemberWriting(session, user))
    }
}

/// Whether the call's `X-XSRF-Token` header is the session's.
pub fn xsrf_matches(headers: &HeaderMap, session: &SiteSession) -> bool {
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

/// An error answer of the document like `like`, with other words (what a member's call
/// can get: [`SIGNED_OUT`] as a 401, the XSRF check in its 403).
pub fn described(like: &RefOr<DocResponse>, description: &str) -> RefOr<DocResponse> {
    let mut r = like.clone();
    if let RefOr::T(a) = &mut r {
        a.description = description.to_owned();
    }
    r
}
