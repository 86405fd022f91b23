//! One API call as every route family sees it: the request's site (as the server's layer
//! found it), its client (for rate limits), its headers and URI. An extractor
//! ([`crate::http::extract`]).

use axum::http::{HeaderMap, Uri};

use super::client::Client;
use super::host::RequestHost;
use super::site::Site;

/// One API call's context: its site, client, headers and URI.
pub struct Call {
    pub site: Site,
    pub client: Client,
    pub headers: HeaderMap,
    pub uri: Uri,
}

impl Call {
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
