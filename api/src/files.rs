//! A template folder's public files (`/assets/…`, `/scripts/…`) and its combined scripts
//! (`/scripts/combo/?a.js&b.js`), with content types, ETags and cache headers.

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::Response;

use crate::http::small_page::{error_page, plain};
use crate::pages::folders::LoadedFolder;

/// A template folder file, with a content type, an ETag and cache headers. The bytes are
/// shared with the cached folder, not copied.
pub(crate) fn public_file(loaded: &LoadedFolder, rel: &str, headers: &HeaderMap) -> Response {
    let (Some(bytes), Some(etag)) = (loaded.folder.public.get(rel), loaded.etags.get(rel)) else {
        return plain(StatusCode::NOT_FOUND, "Not Found");
    };
    let fresh = headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim().as_bytes() == etag.as_bytes()));
    if fresh {
        return Response::builder()
            .status(StatusCode::NOT_MODIFIED)
            .header(header::ETAG, etag.clone())
            .body(Body::empty())
            .unwrap_or_else(|_| error_page());
    }
    Response::builder()
        .header(header::CONTENT_TYPE, content_type(rel))
        .header(header::ETAG, etag.clone())
        .header(header::CACHE_CONTROL, "public, max-age=3600")
        .body(Body::from(Bytes::from_owner(bytes.clone())))
        .unwrap_or_else(|_| error_page())
}

/// `/scripts/combo/?a.js&b.js`: the folder's scripts joined in order, as the renderer
/// asks for adjacent `combo="true"` scripts (TEMPLATE-PLATFORM.md §2.2). A name the folder
/// lacks becomes a comment giving its place in the list (the others still run); none found
/// is a 404.
///
/// Nothing of the request is ever written into the body: the names are the visitor's, and
/// a name echoed into JavaScript can close its comment and run (issue 40). The body is
/// made only of the folder's own files and fixed text.
pub(crate) fn combo_scripts(loaded: &LoadedFolder, query: &str, headers: &HeaderMap) -> Response {
    let mut body = Vec::new();
    let mut found = 0;
    for (place, name) in query.split('&').filter(|n| !n.is_empty()).enumerate() {
        let name = percent_encoding::percent_decode_str(name).decode_utf8_lossy();
        let rel = format!("scripts/{}", name.trim_start_matches('/'));
        match loaded.folder.public.get(rel.as_str()) {
            Some(bytes) if rel.ends_with(".js") => {
                body.extend_from_slice(bytes);
                body.extend_from_slice(b"\n;\n");
                found += 1;
            }
            _ => body.extend_from_slice(
                format!(
                    "/* script {} of this list is not in this template */\n",
                    place + 1
                )
                .as_bytes(),
            ),
        }
    }
    if found == 0 {
        return plain(StatusCode::NOT_FOUND, "Not Found");
    }
    let etag = format!("\"{:016x}\"", crate::pages::folders::fnv1a(&body));
    let fresh = headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == etag));
    let builder = Response::builder()
        .header(header::ETAG, &etag)
        .header(header::CACHE_CONTROL, "public, max-age=3600");
    let response = if fresh {
        builder.status(StatusCode::NOT_MODIFIED).body(Body::empty())
    } else {
        builder
            .header(header::CONTENT_TYPE, content_type("combo.js"))
            .body(Body::from(body))
    };
    response.unwrap_or_else(|_| error_page())
}

fn content_type(path: &str) -> &'static str {
    match path.rsplit('.').next().unwrap_or("") {
        "css" => "text/css; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "ico" => "image/x-icon",
        "woff" => "font/woff",
        "woff2" => "font/woff2",
        "json" => "application/json",
        "html" | "htm" => "text/html; charset=utf-8",
        "txt" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}
