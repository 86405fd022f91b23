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
use crate::styles::{COMPILED_CSS, Declared};

pub const NOT_A_PATCH: &str = "A design change is a JSON object with `values`.";
pub const NO_TEMPLATE: &str = "This site has no template yet.";
pub const NO_SUCH_TWEAK: &str = "This template has no such style setting.";
pub const BAD_COLOUR: &str = "Please enter a colour as #rgb, #rrggbb, rgb(…) or hsl(…).";
/// SPEC.md §5, Colours.
pub const HUE: &str = "Hue out of bounds.";
pub const SATURATION: &str = "Saturation out of bounds.";
pub const LIGHTNESS: &str = "Lightness out of bounds.";
pub const ALPHA: &str = "Alpha out of bounds.";
pub const MISSING_HSL: &str = "Missing an H/S/L value.";
pub const NOT_AN_OPTION: &str = "Please choose one of the template's options.";
pub const NOT_ON_OFF: &str = "A checkbox is on (true) or off (false).";
pub const BAD_TEXT: &str = "A value is at most 200 characters, without ; { } \\ or line breaks, and closes every quote and bracket it opens.";
pub const NOT_A_FONT: &str = "A font is an object of CSS font properties.";
pub const BAD_FONT_PROPERTY: &str = "Fonts take font-family, font-size, font-weight, font-style, line-height, letter-spacing and text-transform.";
pub const COMPILE_FAILED: &str = "The stylesheet does not compile with these values";

/// The font properties a font tweak may set.
const FONT_PROPERTIES: [&str; 7] = [
    "font-family",
    "font-size",
    "font-weight",
    "font-style",
    "line-height",
    "letter-spacing",
    "text-transform",
];

/// The longest value of a tweak (a font family list included).
const MAX_VALUE: usize = 200;

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

fn kind_of(d: &Declared) -> &str {
    match d.kind.as_str() {
        k @ ("color" | "font" | "dropdown" | "checkbox") => k,
        _ => "value",
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

/// A number that may have a unit: (`62`, `rem`).
fn split_number(text: &str) -> Option<(f64, &str)> {
    let text = text.trim();
    let end = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == '+'))
        .unwrap_or(text.len());
    let n: f64 = text[..end].parse().ok()?;
    n.is_finite().then_some((n, text[end..].trim()))
}

/// A fraction written `0.5` or `50%`.
fn fraction(text: &str) -> Option<f64> {
    let text = text.trim();
    match text.strip_suffix('%') {
        Some(p) => p.trim().parse::<f64>().ok().map(|p| p / 100.0),
        None => text.parse::<f64>().ok(),
    }
    .filter(|n| n.is_finite())
}

/// A colour: `#` and 3 to 6 hex digits, `rgb(a)(…)` or `hsl(a)(…)` (SPEC.md §5's bounds and
/// messages for HSL: hue 0-360, saturation, lightness and alpha 0-1, written as a fraction
/// or a percentage).
pub(crate) fn check_colour(text: &str) -> Result<String, &'static str> {
    let text = text.trim();
    if let Some(hex) = text.strip_prefix('#') {
        return if (3..=6).contains(&hex.len()) && hex.chars().all(|c| c.is_ascii_hexdigit()) {
            Ok(format!("#{}", hex.to_ascii_lowercase()))
        } else {
            Err(BAD_COLOUR)
        };
    }
    let lower = text.to_ascii_lowercase();
    let inner = |name: &str| {
        lower
            .strip_prefix(name)
            .and_then(|r| r.trim_start().strip_prefix('('))
            .and_then(|r| r.strip_suffix(')'))
            .map(|r| {
                r.split([',', '/', ' '])
                    .map(str::trim)
                    .filter(|p| !p.is_empty())
                    .map(str::to_owned)
                    .collect::<Vec<_>>()
            })
    };
    if let Some(parts) = inner("hsla").or_else(|| inner("hsl")) {
        if parts.len() < 3 {
            return Err(MISSING_HSL);
        }
        if parts.len() > 4 {
            return Err(BAD_COLOUR);
        }
        let hue = parts[0].trim_end_matches("deg").parse::<f64>().ok();
        let hue = hue.filter(|h| (0.0..=360.0).contains(h)).ok_or(HUE)?;
        let within = |p: &str, why| fraction(p).filter(|f| (0.0..=1.0).contains(f)).ok_or(why);
        let s = within(&parts[1], SATURATION)?;
        let l = within(&parts[2], LIGHTNESS)?;
        let pct = |f: f64| format!("{}%", (f * 10_000.0).round() / 100.0);
        return match parts.get(3) {
            Some(a) => {
                let a = within(a, ALPHA)?;
                Ok(format!("hsla({hue}, {}, {}, {a})", pct(s), pct(l)))
            }
            None => Ok(format!("hsl({hue}, {}, {})", pct(s), pct(l))),
        };
    }
    if let Some(parts) = inner("rgba").or_else(|| inner("rgb")) {
        let channels_ok = (3..=4).contains(&parts.len())
            && parts[..3].iter().all(|p| match p.strip_suffix('%') {
                Some(p) => p.parse::<f64>().is_ok_and(|n| (0.0..=100.0).contains(&n)),
                None => p.parse::<f64>().is_ok_and(|n| (0.0..=255.0).contains(&n)),
            })
            && parts
                .get(3)
                .is_none_or(|a| fraction(a).is_some_and(|a| (0.0..=1.0).contains(&a)));
        return if channels_ok {
            Ok(lower.replace(' ', ""))
        } else {
            Err(BAD_COLOUR)
        };
    }
    Err(BAD_COLOUR)
}

/// A value safe to give the stylesheet, at most [`MAX_VALUE`] characters.
fn check_text(v: &Value) -> Result<String, String> {
    let text = match v {
        Value::String(s) => s.trim().to_owned(),
        Value::Number(n) => n.to_string(),
        _ => return Err(BAD_TEXT.into()),
    };
    if text.chars().count() > MAX_VALUE || !crate::styles::safe_value(&text) {
        return Err(BAD_TEXT.into());
    }
    Ok(text)
}

/// A `value` tweak: within its `min`/`max`, in its `units` (a bare number gets them).
fn check_measure(d: &Declared, v: &Value) -> Result<String, String> {
    let text = check_text(v)?;
    let units = d.json.get("units").and_then(Value::as_str).unwrap_or("");
    let (min, max) = (
        d.json.get("min").and_then(Value::as_f64),
        d.json.get("max").and_then(Value::as_f64),
    );
    if units.is_empty() && min.is_none() && max.is_none() {
        return Ok(text);
    }
    let range = match (min, max) {
        (Some(lo), Some(hi)) => format!(" from {lo} to {hi}"),
        (Some(lo), None) => format!(" of at least {lo}"),
        (None, Some(hi)) => format!(" of at most {hi}"),
        (None, None) => String::new(),
    };
    let unit_text = if units.is_empty() {
        String::new()
    } else {
        format!(" ({units})")
    };
    let why = format!("Please enter a number{range}{unit_text}.");
    let Some((n, unit)) = split_number(&text) else {
        return Err(why);
    };
    if !units.is_empty() && !unit.is_empty() && unit != units {
        return Err(why);
    }
    if min.is_some_and(|lo| n < lo) || max.is_some_and(|hi| n > hi) {
        return Err(why);
    }
    let unit = if unit.is_empty() { units } else { unit };
    Ok(format!("{n}{unit}"))
}

/// A tweak's value checked by its kind: the value to store, or (the field under
/// `values.<title>`, why).
pub(crate) fn check_value(d: &Declared, v: &Value) -> Result<Value, (String, String)> {
    let here = |why: String| (String::new(), why);
    match kind_of(d) {
        "color" => match v {
            Value::String(s) => check_colour(s)
                .map(Value::String)
                .map_err(|w| here(w.into())),
            _ => Err(here(BAD_COLOUR.into())),
        },
        "checkbox" => match v {
            Value::Bool(b) => Ok(Value::Bool(*b)),
            Value::String(s) if s == "true" || s == "false" => Ok(Value::Bool(s == "true")),
            _ => Err(here(NOT_ON_OFF.into())),
        },
        "dropdown" => {
            let options: Vec<&str> = d
                .json
                .get("options")
                .and_then(Value::as_array)
                .map(|o| o.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            match v.as_str() {
                Some(choice) if options.contains(&choice) => Ok(Value::String(choice.to_owned())),
                _ => Err(here(NOT_AN_OPTION.into())),
            }
        }
        "font" => {
            let Value::Object(font) = v else {
                return Err(here(NOT_A_FONT.into()));
            };
            let mut out = Map::new();
            for (property, value) in font {
                let kebab = crate::styles::kebab_case(property);
                if !FONT_PROPERTIES.contains(&kebab.as_str()) {
                    return Err((format!(".{property}"), BAD_FONT_PROPERTY.into()));
                }
                if value.is_null() {
                    continue;
                }
                let text = check_text(value).map_err(|w| (format!(".{property}"), w))?;
                out.insert(kebab, Value::String(text));
            }
            Ok(Value::Object(out))
        }
        _ => check_measure(d, v).map(Value::String).map_err(here),
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
    use super::*;
    use serde_json::json;

    #[test]
    fn colours_are_checked_as_spec_says() {
        assert_eq!(check_colour("#ABC"), Ok("#abc".into()));
        assert_eq!(check_colour("#1d2a30"), Ok("#1d2a30".into()));
        assert_eq!(check_colour("#1d2a3"), Ok("#1d2a3".into()));
        assert_eq!(check_colour("#12"), Err(BAD_COLOUR));
        assert_eq!(check_colour("#1234567"), Err(BAD_COLOUR));
        assert_eq!(check_colour("#12345g"), Err(BAD_COLOUR));
        assert_eq!(check_colour("red; }"), Err(BAD_COLOUR));
        assert_eq!(
            check_colour("hsl(200, 0.5, 40%)"),
            Ok("hsl(200, 50%, 40%)".into())
        );
        assert_eq!(check_colour("hsl(361, 0.5, 0.4)"), Err(HUE));
        assert_eq!(check_colour("hsl(200, 1.5, 0.4)"), Err(SATURATION));
        assert_eq!(check_colour("hsl(200, 0.5, 140%)"), Err(LIGHTNESS));
        assert_eq!(check_colour("hsla(200, 0.5, 0.4, 2)"), Err(ALPHA));
        assert_eq!(check_colour("hsl(200, 0.5)"), Err(MISSING_HSL));
        assert_eq!(check_colour("rgb(10, 20, 30)"), Ok("rgb(10,20,30)".into()));
        assert_eq!(check_colour("rgb(10, 20, 300)"), Err(BAD_COLOUR));
    }

    fn declared(kind: &str, extra: Value) -> Declared {
        let mut json = json!({"title": "t", "type": kind});
        json.as_object_mut()
            .unwrap()
            .extend(extra.as_object().cloned().unwrap_or_default());
        Declared {
            title: "t".into(),
            kind: kind.into(),
            json: json.as_object().cloned().unwrap(),
            name: Some("t".into()),
            default: None,
        }
    }

    #[test]
    fn values_are_checked_by_kind() {
        let width = declared("value", json!({"min": 40, "max": 80, "units": "rem"}));
        assert_eq!(check_value(&width, &json!("62rem")), Ok(json!("62rem")));
        assert_eq!(check_value(&width, &json!(70)), Ok(json!("70rem")));
        let why = "Please enter a number from 40 to 80 (rem).".to_owned();
        assert_eq!(
            check_value(&width, &json!("90rem")),
            Err((String::new(), why.clone()))
        );
        assert_eq!(
            check_value(&width, &json!("60px")),
            Err((String::new(), why.clone()))
        );
        assert_eq!(
            check_value(&width, &json!("wide")),
            Err((String::new(), why))
        );
        let free = declared("value", json!({}));
        assert_eq!(
            check_value(&free, &json!("1px solid")),
            Ok(json!("1px solid"))
        );
        assert_eq!(
            check_value(&free, &json!("1px; } body {")),
            Err((String::new(), BAD_TEXT.into()))
        );
        let choice = declared("dropdown", json!({"options": ["A", "B"]}));
        assert_eq!(check_value(&choice, &json!("B")), Ok(json!("B")));
        assert_eq!(
            check_value(&choice, &json!("C")),
            Err((String::new(), NOT_AN_OPTION.into()))
        );
        let on = declared("checkbox", json!({}));
        assert_eq!(check_value(&on, &json!(false)), Ok(json!(false)));
        assert_eq!(
            check_value(&on, &json!("yes")),
            Err((String::new(), NOT_ON_OFF.into()))
        );
        let font = declared("font", json!({}));
        assert_eq!(
            check_value(
                &font,
                &json!({"fontSize": "18px", "font-family": "Inter, sans-serif"})
            ),
            Ok(json!({"font-size": "18px", "font-family": "Inter, sans-serif"}))
        );
        assert_eq!(
            check_value(&font, &json!({"color": "red"})),
            Err((".color".into(), BAD_FONT_PROPERTY.into()))
        );
        assert_eq!(label("tweak-site-width"), "Site width");
        assert_eq!(label("Site Max Width"), "Site Max Width");
    }
}
