//! Template versions: a folder uploaded is checked first ([`crate::services::owner::templates`]),
//! exactly as `tessera check` checks a folder (its LESS compiled with the site's tweaks), and refused with every error as
//! `file:line:col: message` (and in `findings`, each with the line of the file it points at)
//! while the site keeps serving the version it had. A folder that passes is stored as the
//! site's next version: `POST /api/owner/template` makes it the one served at once, `POST
//! …/template/versions` keeps it beside the active one until the owner switches to it. A
//! switch (to a newer version, or back to an earlier one) is served by every node from the
//! next page.
//!
//! | route | role may | body | answer |
//! |---|---|---|---|
//! | `POST /api/owner/template` | design, write | `{files: [{path, text} \| {path, base64}]}` | 201 `{templateVersion, files, warnings, findings}`, served at once |
//! | `GET /api/owner/template/versions` | design, read | | `{active, versions}`, the newest first |
//! | `POST /api/owner/template/versions` | design, write | as above | 201 `{templateVersion, files, warnings, findings}`, not served yet |
//! | `POST /api/owner/template/versions/{version}/switch` | design, write | | `{active}` |
//!
//! Paths are relative (`template.conf`, `collections/blog.list`, `assets/logo.png`), at
//! most 255 characters, without `..`; at most 2000 files, 20 MB in all.

use axum::body::Body;
use axum::extract::{Path, State};
use base64::Engine;
use renderer::folder::TemplateFiles;
use serde::{Deserialize, Serialize};
use tenants::Store;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::http::body::json as read_json;
use crate::http::error::store_failure;
use crate::http::extract::{Change, Read, area};
use crate::http::{ApiError, Created, Json, Owner};
use crate::openapi::{OWNER, OwnerErrors};
use crate::server::state::App;
use crate::services::owner::templates::{self as flow, Problem, UploadError};

pub const REFUSED: &str = "The template has problems, so the site keeps its current version.";
pub const NO_FILES: &str = "Please send the template's files.";
pub const BAD_PATH: &str = "A path is relative, at most 255 characters, without '..'.";
pub const BAD_CONTENT: &str = "A file has either text or base64 content.";
pub const TOO_MANY_FILES: &str = "A template has at most 2000 files.";
pub const NO_VERSION: &str = "That template version does not exist.";

const MAX_FILES: usize = 2000;
/// The largest upload (SPEC.md §9: a megabyte is 1,000,000 bytes); base64 grows by a third.
pub const MAX_UPLOAD: usize = 28_000_000;

pub fn routes() -> OpenApiRouter<App> {
    OpenApiRouter::new()
        .routes(routes!(upload))
        .routes(routes!(versions, store_version))
        .routes(routes!(switch))
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

/// A template version stored: the one the site now serves (`POST /api/owner/template`),
/// or one beside it (`POST /api/owner/template/versions`).
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct TemplateUploaded {
    template_version: i64,
    /// How many files it has.
    files: usize,
    /// The check's warnings, `file:line:col: severity: message`.
    warnings: Vec<String>,
    /// The same warnings, each with the line it points at.
    findings: Vec<TemplateProblem>,
}

/// One thing the check found: where, what, and the line of the file it points at.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct TemplateProblem {
    /// The file's path in the folder.
    file: String,
    /// 1-based; 0 when the problem is about the whole file.
    line: u32,
    /// 1-based; 0 when the problem is about the whole file.
    column: u32,
    message: String,
    /// The file's line `line`, as written (at most 240 characters); absent when the
    /// problem has no line.
    #[serde(skip_serializing_if = "Option::is_none")]
    source: Option<String>,
}

fn problem_json(p: &Problem) -> TemplateProblem {
    TemplateProblem {
        file: p.file.clone(),
        line: p.line,
        column: p.column,
        message: p.message.clone(),
        source: p.source.clone(),
    }
}

fn uploaded_json(u: flow::Uploaded) -> TemplateUploaded {
    TemplateUploaded {
        template_version: u.version.0,
        files: u.files,
        warnings: u.warnings.iter().map(|p| p.text.clone()).collect(),
        findings: u.warnings.iter().map(problem_json).collect(),
    }
}

/// An upload's failure as the owner reads it: a refused folder is 400 with its problems.
fn upload_failure(e: UploadError) -> ApiError {
    match e {
        UploadError::Refused(problems) => {
            let mut e = ApiError::bad_request(REFUSED);
            e.body["problems"] = problems
                .iter()
                .map(|p| p.text.clone())
                .collect::<Vec<_>>()
                .into();
            e.body["findings"] =
                serde_json::to_value(problems.iter().map(problem_json).collect::<Vec<_>>())
                    .unwrap_or_default();
            e
        }
        UploadError::CheckFailed => ApiError::unavailable(),
        UploadError::Store(e) => store_failure(&e),
    }
}

/// A refused upload: the error answer, with every problem the check found when the
/// template itself is what is wrong.
#[derive(ToSchema)]
#[allow(dead_code)] // a shape for the document; errors are built as JSON values
struct TemplateRefused {
    message: String,
    /// Field → message, for the body's fields.
    errors: Option<std::collections::BTreeMap<String, String>>,
    /// The check's errors, `file:line:col: severity: message` (only when the template was
    /// checked).
    problems: Option<Vec<String>>,
    /// The same errors, each with the line it points at.
    findings: Option<Vec<TemplateProblem>>,
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
        .map_err(upload_failure)?;
    Ok(Created(uploaded_json(uploaded)))
}

/// One stored template version.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct TemplateVersionJson {
    version: i64,
    /// When it was uploaded (or imported), ms since 1970.
    created_on: i64,
    /// How many files it has.
    files: i64,
    /// Their size in bytes, all together.
    bytes: i64,
    /// Whether the site serves it now.
    active: bool,
}

/// The site's template versions.
#[derive(Serialize, ToSchema)]
struct TemplateVersions {
    /// The version the site serves (`null` for a site without a template).
    active: Option<i64>,
    /// Every stored version, the newest first.
    versions: Vec<TemplateVersionJson>,
}

/// `GET /api/owner/template/versions`: the site's template versions, the newest first.
#[utoipa::path(get, path = "/api/owner/template/versions", tag = OWNER,
    operation_id = "owner.template_versions",
    security(("ownerToken" = [])),
    responses((status = 200, body = TemplateVersions), OwnerErrors))]
async fn versions(
    State(store): State<Store>,
    owner: Owner<area::Design, Read>,
) -> Result<Json<TemplateVersions>, ApiError> {
    let active = owner.site.tenant.template_version.map(|v| v.0);
    let list = store
        .template_versions(owner.site.tenant.id)
        .await
        .map_err(|e| store_failure(&e))?;
    Ok(Json(TemplateVersions {
        active,
        versions: list
            .into_iter()
            .map(|v| TemplateVersionJson {
                version: v.version.0,
                created_on: v.created_ms,
                files: v.files,
                bytes: v.bytes,
                active: Some(v.version.0) == active,
            })
            .collect(),
    }))
}

/// `POST /api/owner/template/versions`: uploads a template version, checked first, and
/// stores it without serving it.
///
/// A folder with errors is refused with its problems, and nothing is stored; one that
/// passes is the site's newest version, which `…/versions/{version}/switch` makes the one
/// served.
#[utoipa::path(post, path = "/api/owner/template/versions", tag = OWNER,
    operation_id = "owner.store_template_version",
    request_body = Upload, security(("ownerToken" = [])),
    responses((status = 201, body = TemplateUploaded, description = "The version, stored; the site still serves the one it had."),
        OwnerErrors,
        (status = 400, body = TemplateRefused,
            description = "The body is not a template upload (the message says why), or the \
                template has problems: `problems` and `findings` list them and nothing is stored.")))]
async fn store_version(
    State(store): State<Store>,
    owner: Owner<area::Design, Change>,
    body: Body,
) -> Result<Created<TemplateUploaded>, ApiError> {
    let files = files_of(read_json(body, MAX_UPLOAD).await?)?;
    let stored = flow::store(&store, owner.site.tenant.id, files)
        .await
        .map_err(upload_failure)?;
    Ok(Created(uploaded_json(stored)))
}

/// The version the site now serves.
#[derive(Serialize, ToSchema)]
struct TemplateSwitched {
    active: i64,
}

/// `POST /api/owner/template/versions/{version}/switch`: serves a stored version (a newer
/// one, or an earlier one to roll back), from the next page on every node.
#[utoipa::path(post, path = "/api/owner/template/versions/{version}/switch", tag = OWNER,
    operation_id = "owner.switch_template_version",
    params(("version" = i64, Path, description = "The version, as the list numbers it.")),
    security(("ownerToken" = [])),
    responses((status = 200, body = TemplateSwitched), OwnerErrors))]
async fn switch(
    State(store): State<Store>,
    Path(version): Path<String>,
    owner: Owner<area::Design, Change>,
) -> Result<Json<TemplateSwitched>, ApiError> {
    let version = version
        .parse::<i64>()
        .map_err(|_| ApiError::not_found(NO_VERSION))?;
    store
        .switch_template_version(owner.site.tenant.id, tenants::TemplateVersion(version))
        .await
        .map_err(|e| super::refused(&e, NO_VERSION))?;
    Ok(Json(TemplateSwitched { active: version }))
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
