//! The site's design (issue 44): the style panel generated from the template's tweaks, its
//! live preview, and saving it for every visitor.
//!
//! | route | role may | body | answer |
//! |---|---|---|---|
//! | `GET /api/owner/design` | design, read | | the document |
//! | `PATCH /api/owner/design` | design, change | `{values: {title: value \| null}}` (JSON Merge Patch) | the new document |
//! | `POST /api/owner/design/preview` | design, read | `{values: {title: value \| null}}` | `{css, addClasses, removeClasses}` |
//!
//! The tweaks are the `// tweak: {…}` declarations of the template's stylesheets
//! ([`crate::styles::declared_tweaks`], TEMPLATE-PLATFORM.md §1.8), in the order the
//! template declares them, grouped by their `category` (`General` when they name none).
//! Each has its kind (`color`, `value`, `font`, `dropdown`, `checkbox`), the declaration's
//! limits (`min`, `max`, `step`, `units`, `options`), the template's default and the site's
//! value (`websiteSettings.tweaks`, by title). Values are checked by kind ([`check_value`])
//! and refused with errors by field (`values.<title>`, a font's `values.<title>.<property>`).
//!
//! A `PATCH` stores the values (`null` back to the default; `values: null` all of them,
//! the "Reset"); when the template's stylesheets are LESS, the stylesheet is compiled again
//! with them, and the folder stored as a new template version with that stylesheet, in the
//! same transaction as the values ([`tenants::Store::put_design`]): the next page on any
//! node shows it. Dropdowns and checkboxes change body classes, which need no compiling.
//!
//! The preview compiles the stylesheet with the saved values and the given ones over them
//! and answers it, stored nowhere: the owner app's frame swaps it in for the site's
//! (`/site.css`), with the body classes the values add and remove. It is compiled as every
//! stylesheet from owner input is, bounded in time, memory, output and concurrent
//! compiles ([`crate::styles`]), and needs only read access (an editor previewing cannot
//! change what visitors see).

use std::collections::BTreeSet;

use axum::extract::State;
use renderer::folder::TemplateFiles;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tenants::{TemplateFile, TemplateVersion};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::http::error::store_failure;
use crate::http::extract::{Change, Read, area};
use crate::http::site::Site;
use crate::http::{ApiError, Json, Owner};
use crate::openapi::{OWNER, OwnerErrors};
use crate::server::state::App;
use crate::services::owner::tweaks::{check_value, kind_of};
use crate::styles::{COMPILED_CSS, Declared};

pub const NOT_A_PATCH: &str = "A design change is a JSON object with `values`.";
pub const NO_TEMPLATE: &str = "This site has no template yet.";
pub const NO_SUCH_TWEAK: &str = "This template has no such style setting.";
pub const COMPILE_FAILED: &str = "The stylesheet does not compile with these values";

/// The group of a tweak whose declaration names no `category`.
pub const GENERAL: &str = "General";

pub fn routes() -> OpenApiRouter<App> {
    OpenApiRouter::new()
        .routes(routes!(design_read, design_patch))
        .routes(routes!(design_preview))
}

/// One tweak of the template, as the style panel shows it.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = OwnerTweak)]
pub(crate) struct Tweak {
    /// The declaration's title, the key of its value (`tweak-site-width`).
    title: String,
    /// A readable name for it (`Site width`).
    label: String,
    /// `color`, `value`, `font`, `dropdown` or `checkbox` (another kind the template
    /// declares is shown and checked as `value`).
    #[schema(pattern = "^(color|value|font|dropdown|checkbox)$")]
    kind: String,
    /// The declaration's `category`, else `General`.
    group: String,
    /// The template's default: a string (colour, value, dropdown), a boolean (checkbox), an
    /// object of CSS properties (font); null when the template gives none.
    #[schema(value_type = Value)]
    default: Value,
    /// The value visitors see: the site's own, else the default (as `default`).
    #[schema(value_type = Value)]
    value: Value,
    /// Whether the site sets its own value.
    set: bool,
    /// A dropdown's choices.
    #[serde(skip_serializing_if = "Option::is_none")]
    options: Option<Vec<String>>,
    /// A value's bounds and step, in `units` (`rem`, `px`) when it has them.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<f64>)]
    min: Option<serde_json::Number>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<f64>)]
    max: Option<serde_json::Number>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<f64>)]
    step: Option<serde_json::Number>,
    #[serde(skip_serializing_if = "Option::is_none")]
    units: Option<String>,
}

/// The site's design: the template's tweaks with their values.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = OwnerDesign)]
pub(crate) struct Design {
    /// In the order the template declares them.
    tweaks: Vec<Tweak>,
    /// The groups, in the order their first tweak comes.
    groups: Vec<String>,
    /// Whether the stylesheets are compiled (LESS): colour, value and font tweaks then
    /// change the stylesheet; in a folder of plain CSS only dropdowns and checkboxes (body
    /// classes) change the site.
    compiled: bool,
    /// The template version the site serves (a save of the stylesheet makes a new one).
    template_version: i64,
    /// The editor page kinds (SPEC.md §2) the frame can show, with the site's page for
    /// each (null when the site has none).
    previews: Vec<PreviewPage>,
}

/// One of SPEC.md §2's editor page kinds and where the site shows it.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = OwnerPreviewPage)]
pub(crate) struct PreviewPage {
    /// `SPLASH_PAGE`, `LOCK_SCREEN`, `POPUP_OVERLAY` or `CHECKOUT`.
    kind: String,
    /// `Splash page`, `Lock screen`, `Popup overlay`, `Checkout`.
    label: String,
    /// The site's path that shows it: the first splash page (a collection of type 8), the
    /// first page with a password (its lock screen, for whoever has not given it),
    /// `/checkout`; null when the site has none (Tessera renders no popup overlay).
    path: Option<String>,
}

/// Where the site shows each editor page kind.
fn previews(site: &Site) -> Vec<PreviewPage> {
    let collections = &site.content.render.collections;
    let first = |f: &dyn Fn(&renderer::site::Collection) -> bool| {
        collections.iter().find(|c| f(c)).map(|c| c.full_url())
    };
    [
        (
            "SPLASH_PAGE",
            "Splash page",
            first(&|c| c.number("type") == Some(8.0)),
        ),
        ("LOCK_SCREEN", "Lock screen", first(&|c| c.lock.is_some())),
        ("POPUP_OVERLAY", "Popup overlay", None),
        ("CHECKOUT", "Checkout", Some("/checkout".to_owned())),
    ]
    .into_iter()
    .map(|(kind, label, path)| PreviewPage {
        kind: kind.to_owned(),
        label: label.to_owned(),
        path,
    })
    .collect()
}

/// A change to the values: each title to its new value, or null for the default; `values`
/// null: every value back to the default.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = OwnerDesignPatch)]
pub(crate) struct DesignPatch {
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    values: Option<Map<String, Value>>,
}

/// The stylesheet compiled with values not saved, and the body classes they change.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = OwnerDesignPreview)]
pub(crate) struct Preview {
    /// The site's stylesheet with these values (null for a folder of plain CSS, whose
    /// stylesheet they do not change).
    css: Option<String>,
    /// Body classes these values give that the saved ones do not.
    add_classes: Vec<String>,
    /// Body classes the saved values give that these do not.
    remove_classes: Vec<String>,
}

/// `tweak-site-width` → `Site width`; `Site Max Width` stays.
fn label(title: &str) -> String {
    let bare = title.strip_prefix("tweak-").unwrap_or(title);
    let words = bare.replace(['-', '_'], " ");
    let mut chars = words.trim().chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => title.to_owned(),
    }
}

/// What the site has stored for `d` (by title, else by its variable's name).
fn stored<'a>(d: &Declared, tweaks: &'a Map<String, Value>) -> Option<&'a Value> {
    tweaks.get(&d.title).or_else(|| {
        d.name
            .as_ref()
            .and_then(|n| tweaks.get(n).or_else(|| tweaks.get(&format!("@{n}"))))
    })
}

fn number(json: &Map<String, Value>, key: &str) -> Option<serde_json::Number> {
    json.get(key).and_then(|v| match v {
        Value::Number(n) => Some(n.clone()),
        _ => None,
    })
}

fn document(
    site: &Site,
    declared: &[Declared],
    tweaks: &Map<String, Value>,
    compiled: bool,
    version: TemplateVersion,
) -> Design {
    let mut groups: Vec<String> = Vec::new();
    let tweaks = declared
        .iter()
        .map(|d| {
            let group = d
                .json
                .get("category")
                .and_then(Value::as_str)
                .filter(|c| !c.trim().is_empty())
                .unwrap_or(GENERAL)
                .to_owned();
            if !groups.contains(&group) {
                groups.push(group.clone());
            }
            let default = d.default.clone().unwrap_or(Value::Null);
            let own = stored(d, tweaks).cloned();
            let options = (d.kind == "dropdown").then(|| {
                d.json
                    .get("options")
                    .and_then(Value::as_array)
                    .map(|o| {
                        o.iter()
                            .filter_map(Value::as_str)
                            .map(str::to_owned)
                            .collect()
                    })
                    .unwrap_or_default()
            });
            Tweak {
                title: d.title.clone(),
                label: label(&d.title),
                kind: kind_of(d).to_owned(),
                group,
                value: own.clone().unwrap_or_else(|| default.clone()),
                default,
                set: own.is_some(),
                options,
                min: number(&d.json, "min"),
                max: number(&d.json, "max"),
                step: number(&d.json, "step"),
                units: d
                    .json
                    .get("units")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
            }
        })
        .collect();
    Design {
        tweaks,
        groups,
        compiled,
        template_version: version.0,
        previews: previews(site),
    }
}

/// The site's stored tweak values with `values` applied (a merge patch: null removes; no
/// `values` key at all: unchanged; `values: null`: every value removed), each checked;
/// the problems by field.
fn merged(
    declared: &[Declared],
    saved: &Map<String, Value>,
    values: Option<&Map<String, Value>>,
    reset: bool,
) -> Result<Map<String, Value>, Map<String, Value>> {
    let mut out = if reset { Map::new() } else { saved.clone() };
    let mut errors = Map::new();
    for (title, v) in values.into_iter().flatten() {
        let field = format!("values.{title}");
        let Some(d) = declared.iter().find(|d| d.title == *title) else {
            errors.insert(field, Value::String(NO_SUCH_TWEAK.into()));
            continue;
        };
        out.remove(title);
        if let Some(n) = &d.name {
            out.remove(n);
            out.remove(&format!("@{n}"));
        }
        if v.is_null() {
            continue;
        }
        match check_value(d, v) {
            Ok(v) => {
                out.insert(title.clone(), v);
            }
            Err((sub, why)) => {
                errors.insert(format!("{field}{sub}"), Value::String(why));
            }
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

/// The site's template version and its files.
async fn template(
    app: &App,
    site: &Site,
) -> Result<(TemplateVersion, Vec<TemplateFile>), ApiError> {
    let Some(version) = site.template_version else {
        return Err(ApiError::bad_request(NO_TEMPLATE));
    };
    let files = app
        .store
        .template_files(site.tenant.id, version)
        .await
        .map_err(|e| store_failure(&e))?;
    Ok((version, files))
}

fn as_folder(files: &[TemplateFile]) -> TemplateFiles {
    files
        .iter()
        .map(|f| (f.path.clone(), f.content.clone().into()))
        .collect()
}

/// `settings` with `tweaks` in place of the stored ones.
fn with_tweaks(settings: &Map<String, Value>, tweaks: &Map<String, Value>) -> Map<String, Value> {
    let mut settings = settings.clone();
    settings.insert("tweaks".into(), Value::Object(tweaks.clone()));
    settings
}

/// The site's `websiteSettings`, and its stored tweak values.
async fn saved_tweaks(
    app: &App,
    site: &Site,
) -> Result<(Map<String, Value>, Map<String, Value>), ApiError> {
    let content = super::site_content(&app.store, site.tenant.id).await?;
    let settings = content.settings.website_settings.clone();
    let tweaks = settings
        .get("tweaks")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    Ok((settings, tweaks))
}

/// Compiles the folder's stylesheet with `settings`, off the async workers; a problem
/// answers 400 with its place and LESS's message.
async fn compile(
    files: TemplateFiles,
    settings: Map<String, Value>,
) -> Result<Option<String>, ApiError> {
    let compiled =
        tokio::task::spawn_blocking(move || crate::styles::compile_each(&files, &settings))
            .await
            .map_err(|_| ApiError::unavailable())?;
    match compiled.problems.first() {
        Some(p) => Err(ApiError::bad_request(format!(
            "{COMPILE_FAILED}: {}:{}:{}: {}",
            p.file, p.line, p.column, p.message
        ))),
        None => Ok(compiled.css),
    }
}

/// `GET /api/owner/design`: the template's tweaks with the site's values.
#[utoipa::path(get, path = "/api/owner/design", tag = OWNER,
    security(("ownerToken" = [])),
    responses((status = 200, body = Design), OwnerErrors))]
async fn design_read(
    State(app): State<App>,
    owner: Owner<area::Design, Read>,
) -> Result<Json<Design>, ApiError> {
    let (version, files) = template(&app, &owner.site).await?;
    let folder = as_folder(&files);
    let declared = crate::styles::declared_tweaks(&folder);
    let (_, saved) = saved_tweaks(&app, &owner.site).await?;
    Ok(Json(document(
        &owner.site,
        &declared,
        &saved,
        crate::styles::needs_compiling(&folder),
        version,
    )))
}

/// `PATCH /api/owner/design`: saves the values for every visitor.
#[utoipa::path(patch, path = "/api/owner/design", tag = OWNER,
    request_body(content = DesignPatch, content_type = "application/merge-patch+json",
        description = "A JSON Merge Patch (RFC 7396) of the values: each title the body names \
        gets its value (checked by the tweak's kind), null puts it back to the template's \
        default, and `values: null` puts every one back (Reset). Any problem answers 400 with \
        `errors` by field (`values.<title>`) and nothing is stored."),
    security(("ownerToken" = [])),
    responses((status = 200, body = Design, description = "The design as stored."), OwnerErrors))]
async fn design_patch(
    State(app): State<App>,
    owner: Owner<area::Design, Change>,
    Json(body): Json<Value>,
) -> Result<Json<Design>, ApiError> {
    let Value::Object(body) = body else {
        return Err(ApiError::bad_request(NOT_A_PATCH));
    };
    let patch: DesignPatch = serde_json::from_value(Value::Object(body.clone()))
        .map_err(|_| ApiError::bad_request(NOT_A_PATCH))?;
    let reset = body.get("values").is_some_and(Value::is_null);
    let site = &owner.site;
    let (version, files) = template(&app, site).await?;
    let folder = as_folder(&files);
    let declared = crate::styles::declared_tweaks(&folder);
    let (settings, saved) = saved_tweaks(&app, site).await?;
    let tweaks =
        merged(&declared, &saved, patch.values.as_ref(), reset).map_err(ApiError::fields)?;
    let compiled = crate::styles::needs_compiling(&folder);
    let mut stylesheet = None;
    if compiled && tweaks != saved {
        let css = compile(folder, with_tweaks(&settings, &tweaks)).await?;
        let css = css.unwrap_or_default().into_bytes();
        let old = files.iter().find(|f| f.path == COMPILED_CSS);
        if old.is_none_or(|f| f.content != css) {
            let mut new: Vec<TemplateFile> = files
                .into_iter()
                .filter(|f| f.path != COMPILED_CSS)
                .collect();
            new.push(TemplateFile {
                path: COMPILED_CSS.to_owned(),
                content: css,
            });
            stylesheet = Some(new);
        }
    }
    let value = if tweaks.is_empty() {
        Value::Null
    } else {
        Value::Object(tweaks.clone())
    };
    let stored = app
        .store
        .put_design(
            site.tenant.id,
            value,
            stylesheet.as_deref().map(|f| (version, f)),
        )
        .await
        .map_err(|e| super::refused(&e, NO_TEMPLATE))?;
    Ok(Json(document(
        site,
        &declared,
        &tweaks,
        compiled,
        stored.unwrap_or(version),
    )))
}

/// `POST /api/owner/design/preview`: the site's stylesheet compiled with values not saved
/// (stored nowhere: only the caller sees it).
#[utoipa::path(post, path = "/api/owner/design/preview", tag = OWNER,
    request_body(content = DesignPatch,
        description = "Values over the saved ones, as a `PATCH` would apply them (null: the \
        default; `values: null`: every default). Checked as a `PATCH` checks them."),
    security(("ownerToken" = [])),
    responses((status = 200, body = Preview), OwnerErrors))]
async fn design_preview(
    State(app): State<App>,
    owner: Owner<area::Design, Read>,
    Json(body): Json<Value>,
) -> Result<Json<Preview>, ApiError> {
    let Value::Object(body) = body else {
        return Err(ApiError::bad_request(NOT_A_PATCH));
    };
    let patch: DesignPatch = serde_json::from_value(Value::Object(body.clone()))
        .map_err(|_| ApiError::bad_request(NOT_A_PATCH))?;
    let reset = body.get("values").is_some_and(Value::is_null);
    let site = &owner.site;
    let (_, files) = template(&app, site).await?;
    let folder = as_folder(&files);
    let declared = crate::styles::declared_tweaks(&folder);
    let (settings, saved) = saved_tweaks(&app, site).await?;
    let tweaks =
        merged(&declared, &saved, patch.values.as_ref(), reset).map_err(ApiError::fields)?;
    let classes = |t: &Map<String, Value>| -> BTreeSet<String> {
        let loaded = crate::styles::tweak_body_classes(&declared, t);
        loaded.into_iter().collect()
    };
    let (before, after) = (classes(&saved), classes(&tweaks));
    let css = if crate::styles::needs_compiling(&folder) {
        compile(folder, with_tweaks(&settings, &tweaks)).await?
    } else {
        None
    };
    Ok(Json(Preview {
        css,
        add_classes: after.difference(&before).cloned().collect(),
        remove_classes: before.difference(&after).cloned().collect(),
    }))
}

#[cfg(test)]
mod tests {
    use super::label;

    #[test]
    fn labels_come_from_titles() {
        assert_eq!(label("tweak-site-width"), "Site width");
        assert_eq!(label("Site Max Width"), "Site Max Width");
    }
}
