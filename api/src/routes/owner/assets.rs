//! Files an owner uploads for the site's content to link to: images and PDFs.
//!
//! | route | role may | body | answer |
//! |---|---|---|---|
//! | `POST /api/owner/assets?fileName=NAME` | content, write | the file's bytes | 201 `{id, fileName, contentType, size, url}` |
//! | `GET /api/owner/assets` | content, read | | `{assets}` |
//! | `DELETE /api/owner/assets/{id}` | content, write | | `{deleted: id}` |
//! | `GET /_tessera/files/{id}/{name}` | anyone | | the file |
//!
//! What a file is comes from its first bytes, not from its name or the request's
//! `Content-Type`: PNG, JPEG, GIF, WebP or PDF. Anything else is refused (415) with SPEC.md
//! §5's "The file {fileName} does not appear to be a supported image or PDF file.", and a
//! file over 20 MB (SPEC.md §9: 1,000,000 bytes a megabyte) with "The file {fileName} is too
//! large. The maximum allowed file size is 20 MB." (413). SVG is refused on purpose: it can
//! carry script. Files are served with their type, `nosniff`, and cached for good (an id
//! is never reused).

use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use serde::Serialize;
use tenants::Store;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::{Deleted, refused};
use crate::http::call::Call;
use crate::http::error::store_failure;
use crate::http::extract::{Change, Read, area};
use crate::http::site::Site;
use crate::http::{ApiError, Created, Json, Owner};
use crate::openapi::{OWNER, OwnerErrors};
use crate::server::state::App;

/// SPEC.md §9: a megabyte is 1,000,000 bytes.
pub const MAX_BYTES: usize = 20 * 1_000_000;
pub const MAX_SIZE_TEXT: &str = "20 MB";
pub const NO_NAME: &str = "Please enter a file name";
pub const NO_ASSET: &str = "That file does not exist.";
/// Where uploaded files are served.
pub const FILES: &str = "/_tessera/files/";

pub fn too_large(name: &str) -> String {
    format!("The file {name} is too large. The maximum allowed file size is {MAX_SIZE_TEXT}.")
}

pub fn unsupported(name: &str) -> String {
    unsupported_as(name, "image or PDF ")
}

/// SPEC.md §5's message with its `{fileTypeMessage}` (which ends in a space: "image ").
pub fn unsupported_as(name: &str, file_type_message: &str) -> String {
    format!("The file {name} does not appear to be a supported {file_type_message}file.")
}

pub fn routes() -> OpenApiRouter<App> {
    OpenApiRouter::new()
        .routes(routes!(list, upload))
        .routes(routes!(remove))
        .routes(routes!(serve))
}

/// The type of a file from its first bytes.
pub fn sniff(bytes: &[u8]) -> Option<&'static str> {
    let starts = |p: &[u8]| bytes.starts_with(p);
    if starts(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if starts(&[0xFF, 0xD8, 0xFF]) {
        Some("image/jpeg")
    } else if starts(b"GIF87a") || starts(b"GIF89a") {
        Some("image/gif")
    } else if bytes.len() >= 12 && starts(b"RIFF") && &bytes[8..12] == b"WEBP" {
        Some("image/webp")
    } else if starts(b"%PDF-") {
        Some("application/pdf")
    } else {
        None
    }
}

/// A file name as given, kept to its last path part, at most 200 characters.
pub(crate) fn file_name(call: &Call) -> Result<String, ApiError> {
    let raw = call.query("fileName").unwrap_or_default();
    let name = raw.rsplit(['/', '\\']).next().unwrap_or("").trim();
    if name.is_empty()
        || name == "."
        || name == ".."
        || name.chars().count() > 200
        || name.chars().any(char::is_control)
    {
        return Err(ApiError::field("fileName", NO_NAME));
    }
    Ok(name.to_owned())
}

/// An uploaded file.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct AssetAnswer {
    id: String,
    /// The name it was uploaded with.
    file_name: String,
    /// What its bytes are: `image/png`, `image/jpeg`, `image/gif`, `image/webp` or
    /// `application/pdf`.
    content_type: String,
    /// Bytes.
    size: i64,
    /// When it was uploaded, milliseconds since 1970.
    created_on: i64,
    /// Where it is served (`/_tessera/files/{id}/{name}`).
    pub(crate) url: String,
}

/// A file's bytes, as the request's body.
#[derive(ToSchema)]
#[schema(value_type = String, format = Binary)]
#[allow(dead_code)] // a shape for the document; the body is read as bytes
struct FileBytes(Vec<u8>);

/// The site's uploaded files.
#[derive(Serialize, ToSchema)]
struct AssetList {
    assets: Vec<AssetAnswer>,
}

pub(crate) fn asset_json(a: &tenants::Asset) -> AssetAnswer {
    let name =
        percent_encoding::utf8_percent_encode(&a.file_name, percent_encoding::NON_ALPHANUMERIC);
    AssetAnswer {
        id: a.id.clone(),
        file_name: a.file_name.clone(),
        content_type: a.content_type.clone(),
        size: a.size,
        created_on: a.created_ms,
        url: format!("{FILES}{}/{name}", a.id),
    }
}

/// `POST /api/owner/assets?fileName=NAME`: uploads an image or a PDF.
#[utoipa::path(post, path = "/api/owner/assets", tag = OWNER,
    operation_id = "owner.upload_asset",
    params(("fileName" = String, Query, min_length = 1,
        description = "The file's name (its last path part is kept, at most 200 characters).")),
    request_body(content = inline(FileBytes), content_type = "application/octet-stream",
        description = "The file's bytes, at most 20 MB: a PNG, JPEG, GIF, WebP or PDF, \
            known from its first bytes (the request's Content-Type is not read)."),
    security(("ownerToken" = [])),
    responses((status = 201, body = AssetAnswer, description = "The file, stored."),
        OwnerErrors,
        (status = 413, body = crate::openapi::ErrorBody, description = "Over 20 MB: \
            \"The file {fileName} is too large. The maximum allowed file size is 20 MB.\""),
        (status = 415, body = crate::openapi::ErrorBody, description = "Not an image or PDF \
            this site takes: \"The file {fileName} does not appear to be a supported image or \
            PDF file.\"")))]
async fn upload(
    State(store): State<Store>,
    owner: Owner<area::Content, Change>,
    body: Body,
) -> Result<Created<AssetAnswer>, ApiError> {
    let name = file_name(&owner)?;
    let bytes = upload_bytes(&owner.headers, body, &name).await?;
    let Some(kind) = sniff(&bytes) else {
        return Err(ApiError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            unsupported(&name),
        ));
    };
    let asset = store
        .put_asset(owner.site.tenant.id, &name, kind, bytes.to_vec())
        .await
        .map_err(|e| store_failure(&e))?;
    Ok(Created(asset_json(&asset)))
}

/// An upload's bytes, at most [`MAX_BYTES`] (SPEC.md §5's "too large" naming `name`, 413,
/// before a byte is read when the declared length says so).
pub(crate) async fn upload_bytes(
    headers: &axum::http::HeaderMap,
    body: Body,
    name: &str,
) -> Result<axum::body::Bytes, ApiError> {
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok());
    if declared.is_some_and(|n| n > MAX_BYTES) {
        return Err(ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            too_large(name),
        ));
    }
    crate::http::body::bytes(body, MAX_BYTES)
        .await
        .map_err(|e| {
            if e.status == StatusCode::PAYLOAD_TOO_LARGE {
                ApiError::new(StatusCode::PAYLOAD_TOO_LARGE, too_large(name))
            } else {
                e
            }
        })
}

/// `GET /api/owner/assets`: the site's uploaded files.
#[utoipa::path(get, path = "/api/owner/assets", tag = OWNER,
    operation_id = "owner.list_assets",
    security(("ownerToken" = [])),
    responses((status = 200, body = AssetList), OwnerErrors))]
async fn list(
    State(store): State<Store>,
    owner: Owner<area::Content, Read>,
) -> Result<Json<AssetList>, ApiError> {
    let assets = store
        .assets(owner.site.tenant.id)
        .await
        .map_err(|e| store_failure(&e))?;
    Ok(Json(AssetList {
        assets: assets.iter().map(asset_json).collect(),
    }))
}

/// `DELETE /api/owner/assets/{id}`: deletes an uploaded file (its URL stops working).
#[utoipa::path(delete, path = "/api/owner/assets/{id}", tag = OWNER,
    operation_id = "owner.delete_asset",
    params(("id" = String, Path, description = "The file's id.")),
    security(("ownerToken" = [])),
    responses((status = 200, body = Deleted), OwnerErrors))]
async fn remove(
    State(store): State<Store>,
    Path(id): Path<String>,
    owner: Owner<area::Content, Change>,
) -> Result<Json<Deleted>, ApiError> {
    store
        .delete_asset(owner.site.tenant.id, &id)
        .await
        .map_err(|e| refused(&e, NO_ASSET))?;
    Ok(Json(Deleted { deleted: id }))
}

/// `GET /_tessera/files/{id}/{name}`: an uploaded file of the request's site.
///
/// The name is for people; the id finds it.
#[utoipa::path(get, path = "/_tessera/files/{id}/{name}", tag = OWNER,
    operation_id = "owner.serve_file",
    params(("id" = String, Path, description = "The file's id."),
        ("name" = String, Path, description = "Any name (the upload's, in `url`).")),
    responses(
        (status = 200, description = "The file, with its type; kept by caches for good.",
            content(("image/png"), ("image/jpeg"), ("image/gif"), ("image/webp"),
                ("application/pdf")),
            headers(("Cache-Control" = String, description = "`public, max-age=31536000, immutable`"),
                ("X-Content-Type-Options" = String, description = "`nosniff`"))),
        (status = 404, body = crate::openapi::ErrorBody,
            description = "No site has this host, or it has no file with this id."),
        (status = 503, body = crate::openapi::ErrorBody,
            description = "The store cannot be reached right now.")))]
async fn serve(
    State(store): State<Store>,
    Path((id, _name)): Path<(String, String)>,
    site: Site,
) -> Result<Response, ApiError> {
    let found = store
        .asset(site.tenant.id, &id)
        .await
        .map_err(|e| store_failure(&e))?;
    let Some((asset, bytes)) = found else {
        return Err(ApiError::not_found(NO_ASSET));
    };
    let mut r = Response::new(Body::from(bytes));
    let h = r.headers_mut();
    if let Ok(v) = HeaderValue::from_str(&asset.content_type) {
        h.insert(header::CONTENT_TYPE, v);
    }
    h.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=31536000, immutable"),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_what_their_bytes_say() {
        assert_eq!(sniff(b"\x89PNG\r\n\x1a\nrest"), Some("image/png"));
        assert_eq!(sniff(&[0xFF, 0xD8, 0xFF, 0xE0]), Some("image/jpeg"));
        assert_eq!(sniff(b"GIF89a.."), Some("image/gif"));
        assert_eq!(sniff(b"RIFF\0\0\0\0WEBPVP8 "), Some("image/webp"));
        assert_eq!(sniff(b"%PDF-1.7"), Some("application/pdf"));
        for no in [
            &b"<svg xmlns='http://www.w3.org/2000/svg'/>"[..],
            b"hello",
            b"",
            b"RIFF\0\0\0\0WAVE",
        ] {
            assert_eq!(sniff(no), None);
        }
        assert_eq!(
            too_large("big.png"),
            "The file big.png is too large. The maximum allowed file size is 20 MB."
        );
    }
}
