//! One API call as every route family sees it: the request's site (by `Host`), its client
//! (for rate limits), the crumb check and rate limit of a state-changing call, and the
//! answer or its JSON error.

use crate::http::host::RequestHost;
use std::net::SocketAddr;

use axum::body::Body;
use axum::extract::{ConnectInfo, Request};
use axum::http::{HeaderMap, HeaderValue, Uri, header};
use axum::response::{IntoResponse, Response};

use super::limits::Family;
use super::site::{NoSite, Site};
use super::{ApiError, crumb};
use crate::http::client::{Client, client_of};
use crate::server::App;

/// One API call's context: its site, client, headers and URI.
pub struct Call {
    pub site: Site,
    pub client: Client,
    pub headers: HeaderMap,
    pub uri: Uri,
}

impl Call {
    /// The call's site (404 JSON for an unknown host, 503 when the store fails), and its
    /// body to read.
    pub async fn begin(app: &App, req: Request) -> Result<(Call, Body), ApiError> {
        let site = match super::site::of_request(&req) {
            Ok(s) => s,
            Err(NoSite::UnknownHost) => return Err(ApiError::not_found("Not Found")),
            Err(NoSite::Unavailable) => return Err(ApiError::unavailable()),
        };
        let peer = req
            .extensions()
            .get::<ConnectInfo<SocketAddr>>()
            .map(|c| c.0.ip());
        let client = client_of(peer, req.headers(), &app.trusted_proxies);
        let (parts, body) = req.into_parts();
        Ok((
            Call {
                site,
                client,
                headers: parts.headers,
                uri: parts.uri,
            },
            body,
        ))
    }

    /// A state-changing call: the crumb must match, then the client must be within its rate.
    pub async fn write(&self, app: &App, family: Family) -> Result<(), ApiError> {
        crumb::check(&self.headers, None, &self.site.secret)?;
        app.limits
            .check(family, self.site.tenant.id, self.client.ip)
            .await
    }

    /// The host the call came in on: the domain of the site it was found by, with the port
    /// (checked by [`crate::http::host::strict_host`] before the call began, so it is never
    /// the raw header as sent).
    pub fn host(&self) -> String {
        self.checked_host().authority()
    }

    fn checked_host(&self) -> RequestHost {
        self.headers
            .get(axum::http::header::HOST)
            .and_then(|h| h.to_str().ok())
            .and_then(|h| RequestHost::parse(h).ok())
            .unwrap_or_else(|| RequestHost {
                name: "localhost".into(),
                port: None,
            })
    }

    /// The site's base URL for absolute links (pages, emails): the site's domain this call
    /// came in on, its port, and `https` behind a trusted proxy that says so.
    pub fn base_url(&self) -> String {
        self.checked_host().origin(self.client.https)
    }

    /// A query parameter.
    pub fn query(&self, name: &str) -> Option<String> {
        form_urlencoded::parse(self.uri.query().unwrap_or("").as_bytes())
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.into_owned())
    }
}

/// The response of a handler's body.
pub fn respond(r: Result<Response, ApiError>) -> Response {
    r.unwrap_or_else(IntoResponse::into_response)
}

/// Adds `Set-Cookie` lines to a response.
pub fn with_cookies(mut r: Response, cookies: impl IntoIterator<Item = String>) -> Response {
    for c in cookies {
        if let Ok(v) = HeaderValue::from_str(&c) {
            r.headers_mut().append(header::SET_COOKIE, v);
        }
    }
    r
}
