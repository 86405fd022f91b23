//! A new template version, uploaded: checked first ([`crate::services::owner::templates`]),
//! exactly as `tessera check` checks a folder (its LESS compiled with the site's tweaks), and refused with every error as
//! `file:line:col: message` while the site keeps serving the version it had. A folder that
//! passes becomes the site's template version at once, on every node.
//!
//! | route | role may | body | answer |
//! |---|---|---|---|
//! | `POST /api/owner/template` | design, write | `{files: [{path, text} \| {path, base64}]}` | 201 `{templateVersion, files, warnings}` |
//!
//! Paths are relative (`template.conf`, `collections/blog.list`, `assets/logo.png`), at
//! most 255 characters, without `..`; at most 2000 files, 20 MB in all.

use axum::body::Body;
use axum::extract::State;
use base64::Engine;
use renderer::folder::TemplateFiles;
use serde::{Deserialize, Serialize};
use tenants::Store;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::http::body::json as read_json;
use crate::http::error::store_failure;
use crate::http::extract::{Change, area};
use crate::http::{ApiError, Created, Owner};
use crate::openapi::{OWNER, OwnerErrors};
use crate::server::state::App;
use crate::services::owner::templates::{self as flow, UploadError};

pub const REFUSED: &str = "The template has problems, so the site keeps its current version.";
pub const NO_FILES: &str = "Please send the template's files.";
pub const BAD_PATH: &str = "A path is relative, at most 255 characters, without '..'.";
pub const BAD_CONTENT: &str = "A file has either text or base64 content.";
pub const TOO_MANY_FILES: &str = "A template has at most 2000 files.";

const MAX_FILES: usize = 2000;
/// The largest upload (SPEC.md §9: a megabyte is 1,000,000 bytes); base64 grows by a third.
pub const MAX_UPLOAD: usize = 28_000_000;

pub fn routes() -> OpenApiRouter<App> {
    OpenApiRouter::new().routes(routes!(upload))
}

/// A template folder's files.
#[derive(Deserialize, ToSchema)]
#[schema(as = TemplateUpload)]
pub(crate) struct Upload {
    /// 1-2000 files, 20 MB in all.
    #[serde(default)]
    #[schema(required = true, min_items = 1, max_items = 2000)]
    files: Vec<UploadFile>,
}

/// One file: its path and either `text` or `base64` content.
#[derive(Deserialize, ToSchema)]
#[schema(as = TemplateUploadFile)]
pub(crate) struct UploadFile {
    /// Relative (`collections/blog.list`), at most 255 characters, without `..`.
    #[serde(default)]
    #[schema(required = true, min_length = 1, max_length = 255)]
    path: String,
    /// The content as text.
    text: Option<String>,
    /// The content as base64 (for binary files).
    #[schema(content_encoding = "base64")]
    base64: Option<String>,
}

/// The template version the site now serves.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct TemplateUploaded {
    template_version: i64,
    /// How many files it has.
    files: usize,
    /// The check's warnings, `file:line:col: message`.
    warnings: Vec<String>,
}

/// A refused upload: the error answer, with every problem the check found when the
/// template itself is what is wrong.
#[derive(ToSchema)]
#[allow(dead_code)] // a shape for the document; errors are built as JSON values
struct TemplateRefused {
    message: String,
    /// Field → message, for the body's fields.
    errors: Option<std::collections::BTreeMap<String, String>>,
    /// The check's errors, `file:line:col: message` (only when the template was checked).
    problems: Option<Vec<String>>,
}

fn path_ok(p: &str) -> bool {
    !p.is_empty()
        && p.len() <= 255
        && !p.starts_with('/')
        && !p.contains('\\')
        && p.split('/')
            .all(|part| !part.is_empty() && part != ".." && part != ".")
}

/// The upload's files, or the first thing wrong with them by field.
pub(crate) fn files_of(upload: Upload) -> Result<TemplateFiles, ApiError> {
    if upload.files.is_empty() {
        return Err(ApiError::field("files", NO_FILES));
    }
    if upload.files.len() > MAX_FILES {
        return Err(ApiError::field("files", TOO_MANY_FILES));
    }
    let mut files = TemplateFiles::new();
    for (i, f) in upload.files.into_iter().enumerate() {
        if !path_ok(&f.path) {
            return Err(ApiError::field(&format!("files[{i}].path"), BAD_PATH));
        }
        let bytes = match (f.text, f.base64) {
            (Some(t), None) => t.into_bytes(),
            (None, Some(b)) => base64::engine::general_purpose::STANDARD
                .decode(b.trim())
                .map_err(|_| ApiError::field(&format!("files[{i}].base64"), BAD_CONTENT))?,
            _ => return Err(ApiError::field(&format!("files[{i}]"), BAD_CONTENT)),
        };
        files.insert(f.path, bytes.into());
    }
    Ok(files)
}

/// `POST /api/owner/template`: uploads a new template version, checked first.
///
/// A folder that passes becomes the site's template version at once; one with errors is
/// refused and the site keeps the version it had.
#[utoipa::path(post, path = "/api/owner/template", tag = OWNER,
    operation_id = "owner.upload_template",
    request_body = Upload, security(("ownerToken" = [])),
    responses((status = 201, body = TemplateUploaded, description = "The new version, served at once."),
        OwnerErrors,
        (status = 400, body = TemplateRefused,
            description = "The body is not a template upload (the message says why), or the \
                template has problems: `problems` lists them and the site keeps its version.")))]
async fn upload(
    State(store): State<Store>,
    owner: Owner<area::Design, Change>,
    body: Body,
) -> Result<Created<TemplateUploaded>, ApiError> {
    // Up to `MAX_UPLOAD`, more than `Json` takes.
    let files = files_of(read_json(body, MAX_UPLOAD).await?)?;
    let uploaded = flow::upload(&store, owner.site.tenant.id, files)
        .await
        .map_err(|e| match e {
            UploadError::Refused(problems) => {
                let mut e = ApiError::bad_request(REFUSED);
                e.body["problems"] = problems.into();
                e
            }
            UploadError::CheckFailed => ApiError::unavailable(),
            UploadError::Store(e) => store_failure(&e),
        })?;
    Ok(Created(TemplateUploaded {
        template_version: uploaded.version.0,
        files: uploaded.files,
        warnings: uploaded.warnings,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_stay_inside_the_folder() {
        for ok in ["template.conf", "collections/blog.list", "assets/a b.png"] {
            assert!(path_ok(ok), "{ok}");
        }
        for bad in [
            "",
            "/etc/passwd",
            "../x",
            "a/../../x",
            "a//b",
            "a\\b",
            "./x",
        ] {
            assert!(!path_ok(bad), "{bad}");
        }
    }
}
