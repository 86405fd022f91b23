//! Galleries: a gallery page's images in order, each image's words, and the gallery's
//! options (SPEC.md §9 "Gallery options").
//!
//! | route | role may | body | answer |
//! |---|---|---|---|
//! | `GET /api/owner/galleries/{id}` | content, read | | the gallery: `{id, title, urlId, fullUrl, enabled, options, optionTypes, images, maxImages}` |
//! | `PATCH /api/owner/galleries/{id}` | content, write | a JSON Merge Patch of `{options}` | as `GET` |
//! | `PUT /api/owner/galleries/{id}/order` | content, write | `{images: [id, …]}` (every image once) | as `GET` |
//! | `POST /api/owner/galleries/{id}/images` | content, write | `{assetId, title?, caption?, altText?, decorative?}` | 201 the image |
//! | `PATCH /api/owner/galleries/{id}/images/{image}` | content, write | a JSON Merge Patch of `{title, caption, altText, decorative}` | the image |
//! | `DELETE /api/owner/galleries/{id}/images/{image}` | content, write | | `{deleted: id}` |
//!
//! **A gallery** is a page (collection) of the template's `gallery` type
//! (`collections/gallery.conf`, `typeName: "gallery"`, `collection.type` 1); any other
//! page's id is 404 here. Its images are its items (`recordType` 2, image), in the
//! collection's order (`position`); SPEC.md §9's 250 items of a user-orderable collection
//! hold ("A collection has at most 250 items.").
//!
//! **An image** is added from an upload ([`super::assets`], `POST /api/owner/assets`): its
//! `assetUrl` is the upload's URL, its `originalSize` ("WxH") read from the file's header
//! (PNG, JPEG, GIF, WebP). `title` is its title (the site's caption heading), `caption` is
//! plain text stored as the item's `body` (`<p>…</p>`, escaped), and its alt text is
//! required: SPEC.md §5 says alt text is given, "either meaningful or an empty string when
//! decorative": `altText` (at most 250 characters) or `decorative: true` (then stored as
//! `""`), else "Please enter alt text, or mark the image as decorative." by field. An image
//! imported without `altText` answers the alt text the site shows (SPEC.md §3: from the
//! title, else the tag-stripped body, else the file name).
//!
//! **Options** are SPEC.md §9's, each with its type, default and range ([`OPTIONS`]); the
//! answer's `options` has every one (stored value, else default) and `optionTypes` says
//! each one's type, choices or range, default, and for which designs (and with which other
//! option on) it applies — the app shows an option only then; the server stores any valid
//! value. A patched option set to `null` returns to its default. What is wrong is said by
//! field (`options.padding`: "This is a whole number from 0 to 50."). They are stored on
//! the collection (`data.options`) and the page context reads them as
//! `collection.options` (every option, defaults filled), where the platform's
//! `gallery-*?` predicates find them (`{.section collection}{.gallery-design-grid?}…`).
//!
//! Every change is one write of the store, so the next page on any node shows it.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Path, State};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use tenants::{Collection, Item, SiteSnapshot, Store};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::content::{MAX_ITEMS, TOO_MANY_ITEMS};
use super::product_checks::{LONG_ALT, NO_ALT};
use super::{Deleted, refused, site_content};
use crate::http::body::{MAX_JSON_BODY, json as read_json};
use crate::http::error::store_failure;
use crate::http::extract::{Change, Read, area};
use crate::http::{ApiError, Created, Json, Owner};
use crate::openapi::{OWNER, OwnerErrors};
use crate::server::state::App;

pub const NO_GALLERY: &str = "That gallery does not exist.";
pub const NO_IMAGE: &str = "That image does not exist.";
pub const NO_UPLOAD: &str = "That upload does not exist.";
pub const NOT_AN_IMAGE: &str = "Only an image (PNG, JPEG, GIF or WebP) goes in a gallery.";
pub const NOT_AN_OBJECT: &str = "The body is a JSON object.";
pub const NO_SUCH_OPTION: &str = "A gallery has no such option.";
pub const NO_SUCH_SETTING: &str = "A gallery has no such setting.";
pub const NO_SUCH_FIELD: &str = "An image has no such field.";
pub const NOT_TEXT: &str = "This is text.";
pub const NOT_TRUE_FALSE: &str = "This is true or false.";
pub const LONG_TITLE: &str = "A title is at most 200 characters.";
pub const LONG_CAPTION: &str = "A caption is at most 2000 characters.";
pub const BAD_ORDER: &str = "The order names every image of the gallery once.";

/// The `typeName` of a gallery page.
pub const GALLERY_TYPE: &str = "gallery";
/// An image item's `recordType`.
pub const IMAGE_RECORD: i64 = 2;
const MAX_TITLE: usize = 200;
const MAX_CAPTION: usize = 2000;
/// SPEC.md §9: alt text derived from a body is at most 250 characters; we hold typed alt
/// text to the same.
const MAX_ALT: usize = 250;

pub fn routes() -> OpenApiRouter<App> {
    OpenApiRouter::new()
        .routes(routes!(gallery, patch_gallery))
        .routes(routes!(reorder))
        .routes(routes!(add_image))
        .routes(routes!(patch_image, delete_image))
}

// ---------------------------------------------------------------------------------------
// Options
// ---------------------------------------------------------------------------------------

/// An option's type and range.
#[derive(Clone, Copy)]
pub enum Kind {
    Bool(bool),
    /// The allowed values (with their labels) and the default value.
    Choice(&'static [(&'static str, &'static str)], &'static str),
    /// A whole number from `min` to `max`, and the default.
    Range(i64, i64, i64),
}

/// One of SPEC.md §9's gallery options.
pub struct GalleryOption {
    pub name: &'static str,
    pub label: &'static str,
    pub kind: Kind,
    /// The designs it applies to (empty: every design).
    pub designs: &'static [&'static str],
    /// Another (boolean) option it applies with, when on.
    pub needs: Option<&'static str>,
}

const DESIGNS: &[(&str, &str)] = &[
    ("slideshow", "Slideshow"),
    ("slider", "Slider"),
    ("grid", "Grid"),
    ("stacked", "Stacked"),
];
const ASPECTS: &[(&str, &str)] = &[
    ("square", "Square 1:1"),
    ("standard", "Standard 3:2"),
    ("standard-vertical", "Standard vertical 2:3"),
    ("four-three", "Four-three 4:3"),
    ("three-four-vertical", "Three-four vertical 3:4"),
    ("widescreen", "Widescreen 16:9"),
    ("anamorphic-widescreen", "Anamorphic widescreen 2.40:1"),
];
const POSITIONS: &[(&str, &str)] = &[
    ("top", "Top"),
    ("top-left", "Top left"),
    ("top-right", "Top right"),
    ("center", "Center"),
    ("bottom", "Bottom"),
    ("bottom-left", "Bottom left"),
    ("bottom-right", "Bottom right"),
];
const ALIGNMENTS: &[(&str, &str)] = &[("left", "Left"), ("center", "Center"), ("right", "Right")];
const THEMES: &[(&str, &str)] = &[("dark", "Dark"), ("light", "Light")];

const SLIDES: &[&str] = &["slideshow", "slider"];
const CROPPED: &[&str] = &["slideshow", "slider", "grid"];
const SPACED: &[&str] = &["slider", "grid", "stacked"];
const BOXED: &[&str] = &["grid", "stacked"];

const fn opt(
    name: &'static str,
    label: &'static str,
    kind: Kind,
    designs: &'static [&'static str],
    needs: Option<&'static str>,
) -> GalleryOption {
    GalleryOption {
        name,
        label,
        kind,
        designs,
        needs,
    }
}

/// SPEC.md §9's gallery options (name, type, default, range), in its order, with the
/// designs each applies to (our choice: the spec leaves the dependencies unsaid).
pub const OPTIONS: &[GalleryOption] = &[
    opt("design", "Design", Kind::Choice(DESIGNS, "grid"), &[], None),
    opt("autoplay", "Autoplay", Kind::Bool(false), SLIDES, None),
    opt(
        "autoplay-duration",
        "Autoplay duration (seconds)",
        Kind::Range(1, 10, 5),
        SLIDES,
        Some("autoplay"),
    ),
    opt("controls", "Show controls", Kind::Bool(false), SLIDES, None),
    opt("auto-crop", "Crop images", Kind::Bool(true), CROPPED, None),
    opt(
        "aspect-ratio",
        "Aspect ratio",
        Kind::Choice(ASPECTS, "square"),
        CROPPED,
        Some("auto-crop"),
    ),
    opt(
        "square-thumbs",
        "Square thumbnails",
        Kind::Bool(true),
        &["slideshow"],
        Some("thumbnails"),
    ),
    opt(
        "thumbnails",
        "Show thumbnails",
        Kind::Bool(false),
        &["slideshow"],
        None,
    ),
    opt(
        "thumbnail-strip-height",
        "Thumbnail strip height (px)",
        Kind::Range(0, 200, 80),
        &["slideshow"],
        Some("thumbnails"),
    ),
    opt(
        "thumbnail-strip-margin",
        "Thumbnail strip margin (px)",
        Kind::Range(0, 60, 20),
        &["slideshow"],
        Some("thumbnails"),
    ),
    opt(
        "show-meta-basic",
        "Show title and caption",
        Kind::Bool(true),
        &[],
        None,
    ),
    opt(
        "show-meta",
        "Show image details",
        Kind::Bool(true),
        &[],
        None,
    ),
    opt(
        "show-meta-only-title",
        "Only the title",
        Kind::Bool(false),
        &[],
        Some("show-meta"),
    ),
    opt(
        "meta-position",
        "Details position",
        Kind::Choice(POSITIONS, "bottom"),
        SLIDES,
        Some("show-meta"),
    ),
    opt(
        "show-meta-on-hover",
        "Details on hover only",
        Kind::Bool(false),
        BOXED,
        Some("show-meta"),
    ),
    opt(
        "active-alignment",
        "Active image alignment",
        Kind::Choice(ALIGNMENTS, "center"),
        &["slider"],
        None,
    ),
    opt(
        "thumbnails-per-row",
        "Images per row",
        Kind::Range(1, 10, 4),
        &["grid"],
        None,
    ),
    opt(
        "padding",
        "Spacing (px)",
        Kind::Range(0, 50, 20),
        SPACED,
        None,
    ),
    opt(
        "lightbox",
        "Open in a lightbox",
        Kind::Bool(false),
        BOXED,
        None,
    ),
    opt(
        "lightboxTheme",
        "Lightbox theme",
        Kind::Choice(THEMES, "dark"),
        BOXED,
        Some("lightbox"),
    ),
    opt(
        "max-width",
        "Largest image width (px)",
        Kind::Range(100, 300, 300),
        &["grid"],
        None,
    ),
    opt(
        "newWindow",
        "Open image links in a new window",
        Kind::Bool(false),
        &[],
        None,
    ),
    opt(
        "transparentBackground",
        "Transparent background",
        Kind::Bool(false),
        SLIDES,
        None,
    ),
];

fn default_of(kind: Kind) -> Value {
    match kind {
        Kind::Bool(b) => json!(b),
        Kind::Choice(_, d) => json!(d),
        Kind::Range(_, _, d) => json!(d),
    }
}

/// What is wrong with `v` as option `o`, if anything.
fn option_problem(o: &GalleryOption, v: &Value) -> Option<String> {
    match o.kind {
        Kind::Bool(_) => (!v.is_boolean()).then(|| NOT_TRUE_FALSE.to_owned()),
        Kind::Choice(choices, _) => {
            let ok = v
                .as_str()
                .is_some_and(|s| choices.iter().any(|(c, _)| *c == s));
            (!ok).then(|| {
                let names: Vec<&str> = choices.iter().map(|(c, _)| *c).collect();
                format!("This is one of {}.", names.join(", "))
            })
        }
        Kind::Range(min, max, _) => {
            let ok = v.as_i64().is_some_and(|n| (min..=max).contains(&n));
            (!ok).then(|| format!("This is a whole number from {min} to {max}."))
        }
    }
}

/// Every option: the stored value when valid, else its default.
pub fn effective_options(stored: Option<&Value>) -> Map<String, Value> {
    OPTIONS
        .iter()
        .map(|o| {
            let v = stored
                .and_then(|s| s.get(o.name))
                .filter(|v| option_problem(o, v).is_none())
                .cloned()
                .unwrap_or_else(|| default_of(o.kind));
            (o.name.to_owned(), v)
        })
        .collect()
}

/// Whether a collection is a gallery.
pub fn is_gallery(c: &Collection) -> bool {
    c.type_name == GALLERY_TYPE
}

// ---------------------------------------------------------------------------------------
// Answers
// ---------------------------------------------------------------------------------------

/// One choice of an option.
#[derive(Serialize, ToSchema)]
#[schema(as = OwnerGalleryChoice)]
struct Choice {
    value: &'static str,
    label: &'static str,
}

/// An option's type, range, default and where it applies.
#[derive(Serialize, ToSchema)]
#[schema(as = OwnerGalleryOptionType)]
#[serde(rename_all = "camelCase")]
struct OptionType {
    /// The option's name (a key of `options`).
    name: &'static str,
    label: &'static str,
    /// `bool`, `choice` or `range` (a whole number from `min` to `max`).
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    choices: Option<Vec<Choice>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    min: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max: Option<i64>,
    #[schema(value_type = Value)]
    default: Value,
    /// The designs it applies to (empty: all).
    designs: Vec<&'static str>,
    /// The option that must be on for it to apply, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    needs: Option<&'static str>,
}

fn option_types() -> Vec<OptionType> {
    OPTIONS
        .iter()
        .map(|o| {
            let (kind, choices, min, max) = match o.kind {
                Kind::Bool(_) => ("bool", None, None, None),
                Kind::Choice(c, _) => (
                    "choice",
                    Some(
                        c.iter()
                            .map(|(value, label)| Choice { value, label })
                            .collect(),
                    ),
                    None,
                    None,
                ),
                Kind::Range(lo, hi, _) => ("range", None, Some(lo), Some(hi)),
            };
            OptionType {
                name: o.name,
                label: o.label,
                kind,
                choices,
                min,
                max,
                default: default_of(o.kind),
                designs: o.designs.to_vec(),
                needs: o.needs,
            }
        })
        .collect()
}

/// An image of a gallery.
#[derive(Serialize, ToSchema)]
#[schema(as = OwnerGalleryImage)]
#[serde(rename_all = "camelCase")]
pub struct Image {
    /// The image's item id.
    id: String,
    url_id: String,
    title: String,
    /// Plain text (the item's body without its tags).
    caption: String,
    /// What a screen reader says ("" when decorative).
    alt_text: String,
    /// Only decoration: no alt text.
    decorative: bool,
    /// Where the image is served.
    asset_url: String,
    /// `WxH`, when known.
    #[serde(skip_serializing_if = "String::is_empty")]
    original_size: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    file_name: String,
    /// The image's own page on the site.
    full_url: String,
}

/// A gallery, as the Galleries screen shows it.
#[derive(Serialize, ToSchema)]
#[schema(as = OwnerGallery)]
#[serde(rename_all = "camelCase")]
struct Gallery {
    id: String,
    title: String,
    url_id: String,
    /// Where it is on the site.
    full_url: String,
    enabled: bool,
    /// Every option (SPEC.md §9): the stored value, else its default.
    #[schema(value_type = Object)]
    options: Map<String, Value>,
    /// Each option's type, choices or range, default and the designs it applies to.
    option_types: Vec<OptionType>,
    /// The images in order.
    images: Vec<Image>,
    /// SPEC.md §9: at most 250 items in a user-orderable collection.
    max_images: usize,
}

fn str_of<'a>(m: &'a Map<String, Value>, k: &str) -> &'a str {
    m.get(k).and_then(Value::as_str).unwrap_or("")
}

/// A body's text without its tags (and with the common entities read).
fn strip_tags(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut in_tag = false;
    for ch in html.chars() {
        match ch {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    out.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&nbsp;", " ")
        .replace("&amp;", "&")
        .trim()
        .to_owned()
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// SPEC.md §3: alt text comes from the title, else the tag-stripped body (at most 250
/// characters, SPEC.md §9), else the file name.
pub fn derived_alt(item: &Item) -> String {
    if !item.title.trim().is_empty() {
        return item.title.trim().to_owned();
    }
    let body = strip_tags(&item.body);
    if !body.is_empty() {
        return body.chars().take(MAX_ALT).collect();
    }
    str_of(&item.data, "filename").to_owned()
}

fn image_of(item: &Item, c: &Collection) -> Image {
    let decorative = item.data.get("decorative").and_then(Value::as_bool) == Some(true);
    let alt_text = match item.data.get("altText").and_then(Value::as_str) {
        _ if decorative => String::new(),
        Some(a) => a.to_owned(),
        None => derived_alt(item),
    };
    Image {
        id: item.id.clone(),
        url_id: item.url_id.clone(),
        title: item.title.clone(),
        caption: strip_tags(&item.body),
        alt_text,
        decorative,
        asset_url: str_of(&item.data, "assetUrl").to_owned(),
        original_size: str_of(&item.data, "originalSize").to_owned(),
        file_name: str_of(&item.data, "filename").to_owned(),
        full_url: format!("/{}/{}", c.url_id, item.url_id),
    }
}

fn gallery_of(site: &SiteSnapshot, c: &Collection) -> Gallery {
    Gallery {
        id: c.id.clone(),
        title: c.title.clone(),
        url_id: c.url_id.clone(),
        full_url: if c.homepage {
            "/".into()
        } else {
            format!("/{}", c.url_id)
        },
        enabled: c.enabled,
        options: effective_options(c.data.get("options")),
        option_types: option_types(),
        images: site.items_of(&c.id).map(|i| image_of(i, c)).collect(),
        max_images: MAX_ITEMS,
    }
}

/// The call's site's gallery `id` (404 for any other page or site).
async fn gallery_for(
    store: &Store,
    tenant: tenants::TenantId,
    id: &str,
) -> Result<(Arc<SiteSnapshot>, Collection), ApiError> {
    let site = site_content(store, tenant).await?;
    match site.collection(id) {
        Some(c) if is_gallery(c) => {
            let c = c.clone();
            Ok((site, c))
        }
        _ => Err(ApiError::not_found(NO_GALLERY)),
    }
}

/// `GET /api/owner/galleries/{id}`: a gallery's images in order and its options.
#[utoipa::path(get, path = "/api/owner/galleries/{id}", tag = OWNER,
    params(("id" = String, Path, description = "The gallery page's (collection's) id.")),
    security(("ownerToken" = [])),
    responses((status = 200, body = Gallery), OwnerErrors))]
async fn gallery(
    State(store): State<Store>,
    Path(id): Path<String>,
    owner: Owner<area::Content, Read>,
) -> Result<Json<Gallery>, ApiError> {
    let (site, c) = gallery_for(&store, owner.site.tenant.id, &id).await?;
    Ok(Json(gallery_of(&site, &c)))
}

/// What `PATCH /api/owner/galleries/{id}` changes.
#[derive(ToSchema)]
#[schema(as = OwnerGalleryPatch)]
#[allow(dead_code)] // a shape for the document; the patch is read as JSON
struct GalleryPatch {
    /// Option name → value (SPEC.md §9; see `optionTypes`); null returns an option to its
    /// default.
    #[schema(value_type = Option<Object>)]
    options: Option<Value>,
}

/// `PATCH /api/owner/galleries/{id}`: changes the gallery's options (JSON Merge Patch).
#[utoipa::path(patch, path = "/api/owner/galleries/{id}", tag = OWNER,
    params(("id" = String, Path, description = "The gallery page's id.")),
    request_body(content = GalleryPatch, content_type = "application/merge-patch+json",
        description = "A JSON Merge Patch (RFC 7396) of `{options}`: each option named is set \
        (checked against its type and range, errors by field as `options.NAME`), one set to \
        null returns to its default, the others keep their values."),
    security(("ownerToken" = [])),
    responses((status = 200, body = Gallery), OwnerErrors))]
async fn patch_gallery(
    State(store): State<Store>,
    Path(id): Path<String>,
    owner: Owner<area::Content, Change>,
    body: Body,
) -> Result<Json<Gallery>, ApiError> {
    let tenant = owner.site.tenant.id;
    let (_, mut c) = gallery_for(&store, tenant, &id).await?;
    let patch: Value = read_json(body, MAX_JSON_BODY).await?;
    let Value::Object(patch) = patch else {
        return Err(ApiError::bad_request(NOT_AN_OBJECT));
    };
    let mut errors = Map::new();
    let mut stored = c.data.get("options").cloned().unwrap_or_else(|| json!({}));
    if !stored.is_object() {
        stored = json!({});
    }
    for (k, v) in &patch {
        if k != "options" {
            errors.insert(k.clone(), NO_SUCH_SETTING.into());
            continue;
        }
        let Value::Object(given) = v else {
            if !v.is_null() {
                errors.insert("options".into(), NOT_AN_OBJECT.into());
            } else {
                stored = json!({});
            }
            continue;
        };
        for (name, value) in given {
            let Some(o) = OPTIONS.iter().find(|o| o.name == name) else {
                errors.insert(format!("options.{name}"), NO_SUCH_OPTION.into());
                continue;
            };
            if value.is_null() {
                continue;
            }
            if let Some(problem) = option_problem(o, value) {
                errors.insert(format!("options.{name}"), problem.into());
            }
        }
        tenants::merge_patch(&mut stored, v);
    }
    if !errors.is_empty() {
        return Err(ApiError::fields(errors));
    }
    c.data.insert("options".into(), stored);
    store
        .put_collection(tenant, &c)
        .await
        .map_err(|e| refused(&e, NO_GALLERY))?;
    let (site, c) = gallery_for(&store, tenant, &id).await?;
    Ok(Json(gallery_of(&site, &c)))
}

/// The images' new order.
#[derive(Deserialize, ToSchema)]
#[schema(as = OwnerGalleryOrder)]
struct Order {
    /// Every image's id once, in the new order.
    images: Vec<String>,
}

/// `PUT /api/owner/galleries/{id}/order`: puts the images in a new order.
#[utoipa::path(put, path = "/api/owner/galleries/{id}/order", tag = OWNER,
    params(("id" = String, Path, description = "The gallery page's id.")),
    request_body = Order,
    security(("ownerToken" = [])),
    responses((status = 200, body = Gallery), OwnerErrors))]
async fn reorder(
    State(store): State<Store>,
    Path(id): Path<String>,
    owner: Owner<area::Content, Change>,
    body: Body,
) -> Result<Json<Gallery>, ApiError> {
    let tenant = owner.site.tenant.id;
    let (_, c) = gallery_for(&store, tenant, &id).await?;
    let order: Order = read_json(body, MAX_JSON_BODY).await?;
    store
        .reorder_items(tenant, &c.id, &order.images)
        .await
        .map_err(|e| match e {
            tenants::StoreError::Invalid(_) => ApiError::field("images", BAD_ORDER),
            e => refused(&e, NO_GALLERY),
        })?;
    let (site, c) = gallery_for(&store, tenant, &id).await?;
    Ok(Json(gallery_of(&site, &c)))
}

/// An image's words as the owner sends them: what is wrong, by field, goes into `errors`.
fn set_words(item: &mut Item, given: &Map<String, Value>, errors: &mut Map<String, Value>) {
    let mut text = |k: &str| -> Option<String> {
        match given.get(k) {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.trim().to_owned()),
            Some(_) => {
                errors.insert(k.into(), NOT_TEXT.into());
                None
            }
        }
    };
    let title = text("title");
    let caption = text("caption");
    let alt = text("altText");
    if let Some(t) = title {
        if t.chars().count() > MAX_TITLE {
            errors.insert("title".into(), LONG_TITLE.into());
        }
        item.title = t;
    }
    if let Some(c) = caption {
        if c.chars().count() > MAX_CAPTION {
            errors.insert("caption".into(), LONG_CAPTION.into());
        }
        item.body = if c.is_empty() {
            String::new()
        } else {
            format!("<p>{}</p>", escape(&c))
        };
    }
    if let Some(a) = alt {
        item.data.insert("altText".into(), a.into());
    }
    match given.get("decorative") {
        None | Some(Value::Null) => {}
        Some(Value::Bool(d)) => {
            item.data.insert("decorative".into(), (*d).into());
        }
        Some(_) => {
            errors.insert("decorative".into(), NOT_TRUE_FALSE.into());
        }
    }
    let decorative = item.data.get("decorative").and_then(Value::as_bool) == Some(true);
    let alt = item
        .data
        .get("altText")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    if decorative {
        item.data.insert("altText".into(), "".into());
    } else if alt.is_empty() {
        errors.entry("altText").or_insert_with(|| NO_ALT.into());
    } else if alt.chars().count() > MAX_ALT {
        errors.entry("altText").or_insert_with(|| LONG_ALT.into());
    }
}

/// A URL id from a file name: its stem's letters and digits, dashes between, made unique
/// in the gallery.
fn url_id_for(name: &str, site: &SiteSnapshot, c: &Collection) -> String {
    let stem = name.rsplit_once('.').map_or(name, |(s, _)| s);
    let mut slug = String::new();
    for ch in stem.chars().flat_map(char::to_lowercase) {
        if ch.is_ascii_alphanumeric() {
            slug.push(ch);
        } else if !slug.ends_with('-') && !slug.is_empty() {
            slug.push('-');
        }
    }
    let mut slug: String = slug.trim_matches('-').chars().take(80).collect();
    if slug.len() < 3 {
        slug = format!("image-{slug}").trim_matches('-').to_owned();
    }
    let taken = |s: &str| site.items_of(&c.id).any(|i| i.url_id == s);
    if !taken(&slug) {
        return slug;
    }
    (2..)
        .map(|n| format!("{slug}-{n}"))
        .find(|s| !taken(s))
        .unwrap_or(slug)
}

/// A new image.
#[derive(ToSchema)]
#[schema(as = OwnerGalleryImageNew)]
#[allow(dead_code)] // a shape for the document; the body is read as JSON
#[serde(rename_all = "camelCase")]
struct NewImage {
    /// An upload's id (`POST /api/owner/assets`): a PNG, JPEG, GIF or WebP.
    asset_id: String,
    /// Its title (default: none).
    title: Option<String>,
    /// Plain text shown with it.
    caption: Option<String>,
    /// Required unless `decorative`; at most 250 characters.
    alt_text: Option<String>,
    decorative: Option<bool>,
}

/// `POST /api/owner/galleries/{id}/images`: adds an uploaded image at the gallery's end.
#[utoipa::path(post, path = "/api/owner/galleries/{id}/images", tag = OWNER,
    params(("id" = String, Path, description = "The gallery page's id.")),
    request_body = NewImage,
    security(("ownerToken" = [])),
    responses((status = 201, body = Image, description = "The image, added last."),
        OwnerErrors))]
async fn add_image(
    State(store): State<Store>,
    Path(id): Path<String>,
    owner: Owner<area::Content, Change>,
    body: Body,
) -> Result<Created<Image>, ApiError> {
    let tenant = owner.site.tenant.id;
    let (site, c) = gallery_for(&store, tenant, &id).await?;
    let body: Value = read_json(body, MAX_JSON_BODY).await?;
    let Value::Object(given) = body else {
        return Err(ApiError::bad_request(NOT_AN_OBJECT));
    };
    let mut errors = Map::new();
    for k in given.keys() {
        if !["assetId", "title", "caption", "altText", "decorative"].contains(&k.as_str()) {
            errors.insert(k.clone(), NO_SUCH_FIELD.into());
        }
    }
    let mut item = blank_image(&c.id);
    set_words(&mut item, &given, &mut errors);
    let asset = match given.get("assetId").and_then(Value::as_str) {
        Some(a) => store
            .asset(tenant, a)
            .await
            .map_err(|e| store_failure(&e))?,
        None => None,
    };
    let asset = match asset {
        None => {
            errors.insert("assetId".into(), NO_UPLOAD.into());
            None
        }
        Some((a, _)) if !a.content_type.starts_with("image/") => {
            errors.insert("assetId".into(), NOT_AN_IMAGE.into());
            None
        }
        Some(found) => Some(found),
    };
    if !errors.is_empty() {
        return Err(ApiError::fields(errors));
    }
    let (asset, bytes) = asset.expect("checked above");
    let count = site.items_of(&c.id).count();
    if count >= MAX_ITEMS {
        return Err(ApiError::bad_request(TOO_MANY_ITEMS));
    }
    let url = super::assets::asset_json(&asset).url;
    item.url_id = url_id_for(&asset.file_name, &site, &c);
    item.position = site.items_of(&c.id).map(|i| i.position).max().unwrap_or(0) + 1;
    let now = tenants::now_ms();
    item.added_on = now;
    item.updated_on = now;
    item.publish_on = now;
    item.data.insert("assetUrl".into(), url.into());
    item.data
        .insert("filename".into(), asset.file_name.clone().into());
    item.data
        .insert("contentType".into(), asset.content_type.clone().into());
    item.data
        .insert("mainImageId".into(), asset.id.clone().into());
    if let Some((w, h)) = image_size(&bytes) {
        item.data
            .insert("originalSize".into(), format!("{w}x{h}").into());
    }
    item.id = store
        .put_item(tenant, &item)
        .await
        .map_err(|e| refused(&e, NO_GALLERY))?;
    Ok(Created(image_of(&item, &c)))
}

/// A new image item of collection `collection_id`, with nothing set yet.
fn blank_image(collection_id: &str) -> Item {
    serde_json::from_value(json!({
        "collectionId": collection_id, "urlId": "", "title": "", "recordType": IMAGE_RECORD,
    }))
    .expect("an item's required fields are given")
}

/// The call's site's image `image` of gallery `id`.
async fn image_for(
    store: &Store,
    tenant: tenants::TenantId,
    id: &str,
    image: &str,
) -> Result<(Collection, Item), ApiError> {
    let (site, c) = gallery_for(store, tenant, id).await?;
    let item = site
        .items_of(&c.id)
        .find(|i| i.id == image)
        .cloned()
        .ok_or_else(|| ApiError::not_found(NO_IMAGE))?;
    Ok((c, item))
}

/// What `PATCH …/images/{image}` changes.
#[derive(ToSchema)]
#[schema(as = OwnerGalleryImagePatch)]
#[allow(dead_code)] // a shape for the document; the patch is read as JSON
#[serde(rename_all = "camelCase")]
struct ImagePatch {
    title: Option<String>,
    /// Plain text.
    caption: Option<String>,
    /// Required unless `decorative`; at most 250 characters.
    alt_text: Option<String>,
    decorative: Option<bool>,
}

/// `PATCH /api/owner/galleries/{id}/images/{image}`: changes an image's words.
#[utoipa::path(patch, path = "/api/owner/galleries/{id}/images/{image}", tag = OWNER,
    params(("id" = String, Path, description = "The gallery page's id."),
        ("image" = String, Path, description = "The image's id.")),
    request_body(content = ImagePatch, content_type = "application/merge-patch+json",
        description = "A JSON Merge Patch (RFC 7396) of the image's `title`, `caption`, \
        `altText` and `decorative`; the keys left out keep their values. The result needs \
        alt text or `decorative: true`."),
    security(("ownerToken" = [])),
    responses((status = 200, body = Image), OwnerErrors))]
async fn patch_image(
    State(store): State<Store>,
    Path((id, image)): Path<(String, String)>,
    owner: Owner<area::Content, Change>,
    body: Body,
) -> Result<Json<Image>, ApiError> {
    let tenant = owner.site.tenant.id;
    let (c, mut item) = image_for(&store, tenant, &id, &image).await?;
    let patch: Value = read_json(body, MAX_JSON_BODY).await?;
    let Value::Object(given) = patch else {
        return Err(ApiError::bad_request(NOT_AN_OBJECT));
    };
    let mut errors = Map::new();
    for k in given.keys() {
        if !["title", "caption", "altText", "decorative"].contains(&k.as_str()) {
            errors.insert(k.clone(), NO_SUCH_FIELD.into());
        }
    }
    // An image imported without alt text keeps the one the site showed.
    if !item.data.contains_key("altText") {
        let shown = derived_alt(&item);
        item.data.insert("altText".into(), shown.into());
    }
    // `null` empties a word (for alt text: then `decorative` is needed).
    let mut given = given;
    for k in ["title", "caption", "altText"] {
        if given.get(k) == Some(&Value::Null) {
            given.insert(k.into(), "".into());
        }
    }
    set_words(&mut item, &given, &mut errors);
    if !errors.is_empty() {
        return Err(ApiError::fields(errors));
    }
    item.updated_on = tenants::now_ms();
    store
        .put_item(tenant, &item)
        .await
        .map_err(|e| refused(&e, NO_IMAGE))?;
    Ok(Json(image_of(&item, &c)))
}

/// `DELETE /api/owner/galleries/{id}/images/{image}`: takes an image out of the gallery
/// (its upload stays among the site's files).
#[utoipa::path(delete, path = "/api/owner/galleries/{id}/images/{image}", tag = OWNER,
    params(("id" = String, Path, description = "The gallery page's id."),
        ("image" = String, Path, description = "The image's id.")),
    security(("ownerToken" = [])),
    responses((status = 200, body = Deleted), OwnerErrors))]
async fn delete_image(
    State(store): State<Store>,
    Path((id, image)): Path<(String, String)>,
    owner: Owner<area::Content, Change>,
) -> Result<Json<Deleted>, ApiError> {
    let tenant = owner.site.tenant.id;
    image_for(&store, tenant, &id, &image).await?;
    store
        .delete_item(tenant, &image)
        .await
        .map_err(|e| refused(&e, NO_IMAGE))?;
    Ok(Json(Deleted { deleted: image }))
}

// ---------------------------------------------------------------------------------------
// Image sizes
// ---------------------------------------------------------------------------------------

/// An image's width and height from its header: PNG, GIF, JPEG or WebP.
pub fn image_size(b: &[u8]) -> Option<(u32, u32)> {
    let be16 = |i: usize| -> Option<u32> {
        Some(u32::from(u16::from_be_bytes([*b.get(i)?, *b.get(i + 1)?])))
    };
    let le16 = |i: usize| -> Option<u32> {
        Some(u32::from(u16::from_le_bytes([*b.get(i)?, *b.get(i + 1)?])))
    };
    let be32 =
        |i: usize| -> Option<u32> { Some(u32::from_be_bytes(b.get(i..i + 4)?.try_into().ok()?)) };
    let le24 = |i: usize| -> Option<u32> {
        Some(
            u32::from(*b.get(i)?)
                | u32::from(*b.get(i + 1)?) << 8
                | u32::from(*b.get(i + 2)?) << 16,
        )
    };
    let size = if b.starts_with(b"\x89PNG\r\n\x1a\n") && b.get(12..16) == Some(b"IHDR") {
        (be32(16)?, be32(20)?)
    } else if b.starts_with(b"GIF87a") || b.starts_with(b"GIF89a") {
        (le16(6)?, le16(8)?)
    } else if b.starts_with(&[0xFF, 0xD8]) {
        // JPEG: walk the segments to a start-of-frame marker.
        let mut i = 2;
        loop {
            while *b.get(i)? != 0xFF {
                i += 1;
            }
            while *b.get(i)? == 0xFF {
                i += 1;
            }
            let marker = *b.get(i)?;
            i += 1;
            if matches!(marker, 0xD8 | 0x01 | 0xD0..=0xD7) {
                continue;
            }
            let len = be16(i)? as usize;
            if matches!(marker, 0xC0..=0xCF) && !matches!(marker, 0xC4 | 0xC8 | 0xCC) {
                break (be16(i + 5)?, be16(i + 3)?);
            }
            i += len;
        }
    } else if b.len() >= 30 && b.starts_with(b"RIFF") && &b[8..12] == b"WEBP" {
        match &b[12..16] {
            b"VP8 " => (le16(26)? & 0x3FFF, le16(28)? & 0x3FFF),
            b"VP8L" => {
                let bits = u32::from_le_bytes(b.get(21..25)?.try_into().ok()?);
                ((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)
            }
            b"VP8X" => (le24(24)? + 1, le24(27)? + 1),
            _ => return None,
        }
    } else {
        return None;
    };
    (size.0 > 0 && size.1 > 0).then_some(size)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_come_from_headers() {
        let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
        png.extend_from_slice(&640u32.to_be_bytes());
        png.extend_from_slice(&480u32.to_be_bytes());
        assert_eq!(image_size(&png), Some((640, 480)));
        let gif = b"GIF89a\x20\x03\x58\x02rest";
        assert_eq!(image_size(gif), Some((800, 600)));
        // SOI, an APP0 segment of 16 bytes, then SOF0 with height 200, width 300.
        let mut jpeg = vec![0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10];
        jpeg.extend_from_slice(&[0; 14]);
        jpeg.extend_from_slice(&[0xFF, 0xC0, 0x00, 0x11, 0x08, 0x00, 0xC8, 0x01, 0x2C, 3]);
        assert_eq!(image_size(&jpeg), Some((300, 200)));
        assert_eq!(image_size(b"%PDF-1.7"), None);
        assert_eq!(image_size(b"\x89PNG\r\n\x1a\n"), None);
    }

    #[test]
    fn options_keep_the_spec_defaults_and_ranges() {
        let all = effective_options(None);
        assert_eq!(all.len(), 23);
        assert_eq!(all["design"], "grid");
        assert_eq!(all["autoplay-duration"], 5);
        assert_eq!(all["thumbnails-per-row"], 4);
        assert_eq!(all["padding"], 20);
        assert_eq!(all["max-width"], 300);
        assert_eq!(all["aspect-ratio"], "square");
        assert_eq!(all["lightboxTheme"], "dark");
        assert_eq!(all["auto-crop"], true);
        let stored = json!({"padding": 51, "thumbnails-per-row": 2, "design": "carousel"});
        let mixed = effective_options(Some(&stored));
        assert_eq!(mixed["padding"], 20, "an invalid stored value falls back");
        assert_eq!(mixed["thumbnails-per-row"], 2);
        assert_eq!(mixed["design"], "grid");
    }

    #[test]
    fn alt_text_is_derived_as_spec_3_says() {
        let mut item = blank_image("c");
        item.body = "<p>Two &amp; three</p>".into();
        item.data.insert("filename".into(), "a.jpg".into());
        assert_eq!(derived_alt(&item), "Two & three");
        item.title = "Orion".into();
        assert_eq!(derived_alt(&item), "Orion");
        item.title.clear();
        item.body.clear();
        assert_eq!(derived_alt(&item), "a.jpg");
    }
}
