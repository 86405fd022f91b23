//! `POST /api/site-notices/dismiss`: a visitor closes the announcement bar or accepts the
//! cookie banner ([`crate::pages::notices`]) with a plain form, no script: a cookie, and
//! back to the page.

use axum::body::Body;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::http::Visitor;
use crate::http::local_path::local_path;
use crate::http::site::Resolved;
use crate::http::small_page::{error_page, no_site, plain};
use crate::openapi::SITE_USERS;
use crate::pages::notices::{ACCEPTED, ANNOUNCEMENT_COOKIE, COOKIES_COOKIE};
use crate::server::state::App;

/// The largest form read.
const MAX_BODY: usize = 4 * 1024;
/// How long a dismissed announcement stays away (a new one shows at once).
const ANNOUNCEMENT_DAYS: u64 = 30;
/// How long an accepted banner stays away.
const COOKIES_DAYS: u64 = 365;

pub const UNKNOWN_NOTICE: &str = "Unknown notice: `notice` is announcement or cookies.";

pub fn routes() -> OpenApiRouter<App> {
    OpenApiRouter::new().routes(routes!(dismiss))
}

/// The dismiss form.
#[derive(ToSchema)]
#[schema(as = DismissNoticeForm)]
#[allow(dead_code)] // a shape for the document
struct DismissShape {
    /// `announcement` (the announcement bar) or `cookies` (the cookie banner).
    notice: String,
    /// A path on this site to go back to (else `/`).
    #[schema(nullable = false)]
    redirect: Option<String>,
}

/// `POST /api/site-notices/dismiss`: closes the announcement bar (until it changes) or
/// accepts the cookie banner, for this browser.
///
/// Form fields `notice` (`announcement` or `cookies`) and `redirect`. Answers 303 to
/// `redirect` (a same-site path, else `/`) with `tessera-announcement=<the bar's version>`
/// (30 days) or `tessera-cookies=accepted` (a year).
#[utoipa::path(post, path = "/api/site-notices/dismiss", tag = SITE_USERS,
    request_body(content = DismissShape, content_type = "application/x-www-form-urlencoded"),
    responses(
        (status = 303, description = "Back to `redirect`, the notice dismissed.",
            headers(("Location" = String, description = "`redirect` if it is a path on this site, else `/`."),
                ("Set-Cookie" = String, description = "What the next pages read (none when the site shows no announcement)."))),
        (status = 400, description = "`notice` is neither `announcement` nor `cookies`, or the form could not be read.",
            body = String, content_type = "text/plain"),
        (status = 404, description = "No site has this host.", body = String, content_type = "text/plain")))]
async fn dismiss(Resolved(found): Resolved, visitor: Visitor, body: Body) -> Response {
    let found = match found {
        Ok(f) => f,
        Err(why) => return no_site(why),
    };
    let Ok(body) = crate::http::body::bytes(body, MAX_BODY).await else {
        return plain(StatusCode::BAD_REQUEST, "The form could not be read.");
    };
    let (mut notice, mut redirect) = (None, None);
    for (k, v) in form_urlencoded::parse(&body).take(20) {
        match &*k {
            "notice" => notice = Some(v.into_owned()),
            "redirect" => redirect = Some(v.into_owned()),
            _ => {}
        }
    }
    let secure = if visitor.client.https { "; Secure" } else { "" };
    let cookie = match notice.as_deref() {
        Some("announcement") => found.content.notices.version().map(|v| {
            format!(
                "{ANNOUNCEMENT_COOKIE}={v}; Path=/; Max-Age={}; HttpOnly; SameSite=Lax{secure}",
                ANNOUNCEMENT_DAYS * 86_400
            )
        }),
        Some("cookies") => Some(format!(
            "{COOKIES_COOKIE}={ACCEPTED}; Path=/; Max-Age={}; HttpOnly; SameSite=Lax{secure}",
            COOKIES_DAYS * 86_400
        )),
        _ => return plain(StatusCode::BAD_REQUEST, UNKNOWN_NOTICE),
    };
    let mut r = Response::builder()
        .status(StatusCode::SEE_OTHER)
        .header(header::LOCATION, local_path(redirect.as_deref()))
        .header(header::CACHE_CONTROL, "no-store");
    if let Some(c) = cookie {
        r = r.header(header::SET_COOKIE, c);
    }
    r.body(Body::empty())
        .map_or_else(|_| error_page(), IntoResponse::into_response)
}
