//! Small pages of the server's own: answers to posts and links that are not one of the
//! site's pages (a form sent without JavaScript, a sign-up link), plain and readable; and
//! the short plain answers of a request that gets no page (no site, no store, an error).

use axum::body::Body;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::site::NoSite;

/// `text` with HTML's special characters escaped, for text and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The small pages' stylesheet (inline; the security policy allows exactly this text by its
/// hash, [`crate::server::security`]).
pub const STYLE: &str = "body{font:1rem/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem}\
                         .form-errors li{margin:.25rem 0}";

/// A page with `title` and `body` (HTML, already escaped), never cached.
pub fn page(status: StatusCode, title: &str, body: &str) -> Response {
    let html = format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <meta name=\"robots\" content=\"noindex\"><link rel=\"icon\" href=\"data:,\"><title>{}</title>\
         <style>{STYLE}</style></head>\
         <body><main class=\"small-page\">{body}</main></body></html>\n",
        escape(title)
    );
    let mut r = Response::new(Body::from(html));
    *r.status_mut() = status;
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    r.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}

pub fn plain(status: StatusCode, text: &'static str) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        text,
    )
        .into_response()
}

/// The answer of a page request when the store cannot be reached (the database is down or
/// restarting): a short plain 503 with `Retry-After`, saying nothing of why (the reason is
/// logged), and kept by no cache.
pub fn unavailable_page() -> Response {
    let mut r = plain(StatusCode::SERVICE_UNAVAILABLE, "Service Unavailable");
    let h = r.headers_mut();
    h.insert(
        header::RETRY_AFTER,
        HeaderValue::from(crate::http::error::RETRY_AFTER_UNAVAILABLE.as_secs()),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}

/// The plain answer of a page request that has no site.
pub fn no_site(why: NoSite) -> Response {
    match why {
        // An unknown (or malformed) host: a plain 404 with no tenant data.
        NoSite::UnknownHost => plain(StatusCode::NOT_FOUND, "Not Found"),
        NoSite::Unavailable => unavailable_page(),
    }
}

pub fn error_page() -> Response {
    (
        StatusCode::INTERNAL_SERVER_ERROR,
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        renderer::render::ERROR_PAGE,
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_page_without_its_store_is_a_short_plain_503() {
        let r = no_site(NoSite::Unavailable);
        assert_eq!(r.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(r.headers()[header::RETRY_AFTER], "5");
        assert_eq!(r.headers()[header::CACHE_CONTROL], "no-store");
        assert!(
            r.headers()[header::CONTENT_TYPE]
                .to_str()
                .unwrap()
                .starts_with("text/plain")
        );
        let body = axum::body::to_bytes(r.into_body(), 1024).await.unwrap();
        assert_eq!(&body[..], b"Service Unavailable");
        let r = no_site(NoSite::UnknownHost);
        assert_eq!(r.status(), StatusCode::NOT_FOUND);
        assert!(r.headers().get(header::RETRY_AFTER).is_none());
    }
}
