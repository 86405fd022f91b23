//! Small pages of the server's own: answers to posts and links that are not one of the
//! site's pages (a form sent without JavaScript, a sign-up link), plain and readable.

use axum::body::Body;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;

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
