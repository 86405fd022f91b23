//! The site's navigations (the template's layout, filled by the owner) and its header and
//! footer.
//!
//! | route | role may | body | answer |
//! |---|---|---|---|
//! | `GET /api/commondata/GetSiteLayout` | content, read | | `{layout: [{identifier, title, links}]}` |
//! | `POST /api/widget/UpdateNavigation` | content, write | `{fieldName, templateId?, navigation: {items}}` | `{identifier, items}` |
//! | `GET /api/site-header-footer` | content, read | | `{header, footer, declared}` |
//! | `PUT /api/site-header-footer` | content, write | `{header, footer}` (objects; `blockFields`' HTML sanitized as rich text) | `{header, footer}` |
//! | `GET`, `PUT`, `DELETE /api/owner/announcement-bar` | design | `{text, style?, clickthroughUrl?}` | `{announcementBar}` |
//!
//! The announcement bar is in the design area, as the Design screen's
//! `/api/owner/site-notices` ([`super::site_notices`]) that keeps the same setting: one
//! setting, one area, two shapes (the whole bar here, a merge patch there).
//!
//! The layout is the template's `navigations` in `template.conf` order (the first is the
//! main navigation), each with the links the owner stored. A navigation item is
//! `{collectionId}` (a collection of this site) or `{externalLink, title}` (an http(s) or
//! mailto URL, a path on the site, or a bare host stored as `https://…`, under 2083
//! characters; or `{url, newWindow}`), with an optional
//! `memberAreaId` (a declared member area) and `items` (one level of children). A
//! navigation holds at most 100 links.
//!
//! `declared` lists the site-wide block fields of the site's template, `[{id, label}]`: each
//! `<squarespace:block-field>` of its region (layout) files, whose HTML every page shows
//! from `footer.blockFields[id]` (the owner app's Design screen edits them there). It is
//! read from the template the server has loaded for the site, empty without a template.

use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use tenants::{HeaderFooter, Store};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::{refused, site_content};
use crate::http::error::store_failure;
use crate::http::extract::{Change, Read, area};
use crate::http::site::Site;
use crate::http::{ApiError, Json, Owner};
use crate::openapi::{OWNER, OwnerErrors};
use crate::server::state::App;

pub const NO_SUCH_NAVIGATION: &str = "That navigation is not in the site's template.";
pub const WRONG_TEMPLATE: &str = "The site's template has changed since this layout was read.";
pub const NO_COLLECTION: &str = "That collection does not exist.";
pub const NO_AREA: &str = "That member area does not exist.";
/// SPEC.md §5's message, its two `{host}`s filled with the two forms a link may take.
pub const BAD_LINK: &str = "Links must be formatted as www.example.com or https://www.example.com";
pub const LINK_TITLE: &str = "An external link needs a title.";
pub const ONE_TARGET: &str = "A link has a collectionId or an externalLink.";
pub const TOO_DEEP: &str = "Links nest one level deep.";
pub const TOO_MANY: &str = "A navigation has at most 100 links.";
pub const NOT_OBJECTS: &str = "The header and the footer are objects.";
pub const BAD_ITEMS: &str = "navigation.items is a list of links.";

const MAX_LINKS: usize = 100;
/// SPEC.md §5: URLs under 2083 characters.
const MAX_URL: usize = 2083;

pub fn routes() -> OpenApiRouter<App> {
    OpenApiRouter::new()
        .routes(routes!(site_layout))
        .routes(routes!(update_navigation))
        .routes(routes!(header_footer, put_header_footer))
        .routes(routes!(
            announcement_bar,
            put_announcement_bar,
            delete_announcement_bar
        ))
}

/// The template's navigations, `(name, title)` in `template.conf` order (none without a
/// template).
pub(crate) async fn template_navigations(
    app: &App,
    site: &Site,
) -> Result<Vec<(String, String)>, crate::pages::folders::FolderError> {
    let loaded = app.caches.folder(&app.store, site).await?;
    Ok(loaded.map_or_else(Vec::new, |l| l.folder.navigations.clone()))
}

/// A template that could not be loaded: logged, and answered with 503.
pub(crate) fn template_unavailable(site: &Site, e: &dyn std::fmt::Display) -> ApiError {
    let t = &site.tenant;
    tracing::error!(tenant = %t.identifier, error = %e, "loading the template failed");
    ApiError::unavailable()
}

/// [`template_navigations`], a failure answered with 503.
async fn navigations(app: &App, site: &Site) -> Result<Vec<(String, String)>, ApiError> {
    template_navigations(app, site)
        .await
        .map_err(|e| template_unavailable(site, &e))
}

/// The site's navigations, in the template's order.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct SiteLayout {
    layout: Vec<LayoutNavigation>,
    /// The site's template version (what `UpdateNavigation` may name), null without one.
    template_id: Option<String>,
}

/// One navigation of the template, with the links stored for it.
#[derive(Serialize, ToSchema)]
struct LayoutNavigation {
    /// Its name in `template.conf` (what `UpdateNavigation`'s `fieldName` names).
    identifier: String,
    title: String,
    /// The stored links (as `UpdateNavigation` answers them, or as imported).
    #[schema(value_type = Vec<Object>)]
    links: Vec<Value>,
}

/// `GET /api/commondata/GetSiteLayout`: the navigations and their links.
#[utoipa::path(get, path = "/api/commondata/GetSiteLayout", tag = OWNER,
    security(("ownerToken" = [])),
    responses((status = 200, body = SiteLayout), OwnerErrors))]
async fn site_layout(
    State(app): State<App>,
    owner: Owner<area::Content, Read>,
) -> Result<Json<SiteLayout>, ApiError> {
    let site = &owner.site;
    let content = site_content(&app.store, site.tenant.id).await?;
    let layout: Vec<LayoutNavigation> = navigations(&app, site)
        .await?
        .into_iter()
        .map(|(name, title)| LayoutNavigation {
            links: content.navigation(&name).to_vec(),
            identifier: name,
            title,
        })
        .collect();
    Ok(Json(SiteLayout {
        layout,
        template_id: site.template_version.map(|v| v.0.to_string()),
    }))
}

/// A navigation's new links.
#[derive(Deserialize, Default, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub(crate) struct NavigationBody {
    /// The navigation's name in `template.conf`.
    #[schema(required = true)]
    field_name: String,
    /// The template version the layout was read with (409 when the site's has changed).
    template_id: Option<String>,
    /// The links (none when absent).
    navigation: NavigationItems,
}

#[derive(Deserialize, Serialize, Default, ToSchema)]
#[serde(default)]
pub(crate) struct NavigationItems {
    /// At most 100 links in all, children included.
    #[schema(value_type = Option<Vec<NavigationLinkIn>>, max_items = 100)]
    items: Value,
}

/// A link as sent: `collectionId` or `externalLink` (with a `title`).
#[derive(ToSchema)]
#[allow(dead_code)] // a shape for the document; links are checked as JSON values
#[serde(rename_all = "camelCase")]
struct NavigationLinkIn {
    /// A collection of this site.
    collection_id: Option<String>,
    external_link: Option<ExternalLinkIn>,
    /// Needed with `externalLink`.
    title: Option<String>,
    /// A member area the site declares.
    member_area_id: Option<String>,
    /// Children, one level deep.
    #[schema(no_recursion)]
    items: Option<Vec<NavigationLinkIn>>,
}

/// An http, https or mailto URL under 2083 characters, or `{url, newWindow}`.
#[derive(ToSchema)]
#[allow(dead_code)] // a shape for the document
#[serde(untagged)]
enum ExternalLinkIn {
    Url(String),
    Link(ExternalLinkParts),
}

#[derive(ToSchema)]
#[allow(dead_code)] // a shape for the document
#[serde(rename_all = "camelCase")]
struct ExternalLinkParts {
    #[schema(max_length = 2082)]
    url: String,
    #[serde(default)]
    new_window: bool,
}

/// A link as stored.
#[derive(ToSchema)]
#[allow(dead_code)] // a shape for the document; links are built as JSON values
#[serde(rename_all = "camelCase")]
struct NavigationLink {
    #[serde(skip_serializing_if = "Option::is_none")]
    collection_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    external_link: Option<ExternalLink>,
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    member_area_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(no_recursion)]
    items: Option<Vec<NavigationLink>>,
}

/// An external link as stored.
#[derive(ToSchema)]
#[schema(as = NavigationExternalLink)]
#[allow(dead_code)] // a shape for the document
#[serde(rename_all = "camelCase")]
struct ExternalLink {
    url: String,
    new_window: bool,
}

/// The navigation as stored.
#[derive(Serialize, ToSchema)]
struct NavigationSaved {
    identifier: String,
    #[schema(value_type = Vec<NavigationLink>)]
    items: Value,
}

/// What a stored navigation may link to.
pub(crate) struct Targets<'a> {
    pub collections: &'a tenants::SiteSnapshot,
    pub areas: Vec<String>,
}

impl<'a> Targets<'a> {
    /// The collections and member areas of `content`.
    pub(crate) fn of(content: &'a tenants::SiteSnapshot) -> Targets<'a> {
        let areas = tenants::member_areas::member_areas(&content.settings.website_settings)
            .unwrap_or_default()
            .into_iter()
            .map(|a| a.id)
            .collect();
        Targets {
            collections: content,
            areas,
        }
    }
}

/// An external link as stored, or `None` when it is not one: an http(s) or mailto URL, a
/// path on the site (`/shop`), or a bare host (`www.example.com`, stored as
/// `https://www.example.com`), under 2083 characters and without spaces.
pub(crate) fn external_link(url: &str) -> Option<String> {
    let url = url.trim();
    let lower = url.to_ascii_lowercase();
    if url.is_empty() || url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return None;
    }
    let web = ["http://", "https://", "mailto:"]
        .iter()
        .any(|p| lower.starts_with(p) && lower.len() > p.len());
    let path = url.starts_with('/') && !url.starts_with("//");
    let stored = if web || path {
        url.to_owned()
    } else {
        // A host: labels of letters, digits and '-', at least one dot, then any path.
        let end = url.find(['/', '?', '#']).unwrap_or(url.len());
        let (host, _) = url.split_at(end);
        let host = host.split(':').next().unwrap_or("");
        let labels: Vec<&str> = host.split('.').collect();
        let ok = labels.len() >= 2
            && labels.iter().all(|l| {
                !l.is_empty()
                    && l.len() <= 63
                    && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
            })
            && labels
                .last()
                .is_some_and(|tld| tld.bytes().all(|b| b.is_ascii_alphabetic()));
        if !ok {
            return None;
        }
        format!("https://{url}")
    };
    (stored.len() < MAX_URL).then_some(stored)
}

/// The links of `items` as stored, or the problems by field path.
pub(crate) fn check_links(
    items: &Value,
    path: &str,
    depth: usize,
    to: &Targets,
    count: &mut usize,
    errors: &mut Map<String, Value>,
) -> Vec<Value> {
    let Some(list) = items.as_array() else {
        errors.insert(path.to_owned(), BAD_ITEMS.into());
        return Vec::new();
    };
    let mut out = Vec::new();
    for (i, item) in list.iter().enumerate() {
        let here = format!("{path}[{i}]");
        *count += 1;
        let mut bad = |field: &str, message: &str| {
            errors.insert(
                if field.is_empty() {
                    here.clone()
                } else {
                    format!("{here}.{field}")
                },
                message.into(),
            );
        };
        let Some(o) = item.as_object() else {
            bad("", ONE_TARGET);
            continue;
        };
        let title = o
            .get("title")
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|t| !t.is_empty());
        let mut link = Map::new();
        match (
            o.get("collectionId").and_then(Value::as_str),
            o.get("externalLink"),
        ) {
            (Some(id), None) => {
                if to.collections.collection(id).is_none() {
                    bad("collectionId", NO_COLLECTION);
                }
                link.insert("collectionId".into(), id.into());
            }
            (None, Some(ext)) => {
                let (url, new_window) = match ext {
                    Value::String(u) => (u.trim(), false),
                    Value::Object(e) => (
                        e.get("url").and_then(Value::as_str).unwrap_or("").trim(),
                        e.get("newWindow").and_then(Value::as_bool).unwrap_or(false),
                    ),
                    _ => ("", false),
                };
                let url = match external_link(url) {
                    Some(u) => u,
                    None => {
                        bad("externalLink", BAD_LINK);
                        url.to_owned()
                    }
                };
                if title.is_none() {
                    bad("title", LINK_TITLE);
                }
                link.insert(
                    "externalLink".into(),
                    json!({"url": url, "newWindow": new_window}),
                );
            }
            _ => {
                bad("", ONE_TARGET);
                continue;
            }
        }
        if let Some(t) = title {
            link.insert("title".into(), t.into());
        }
        match o.get("memberAreaId") {
            None | Some(Value::Null) => {}
            Some(Value::String(a)) if a.is_empty() => {}
            Some(Value::String(a)) if to.areas.contains(a) => {
                link.insert("memberAreaId".into(), a.as_str().into());
            }
            Some(_) => bad("memberAreaId", NO_AREA),
        }
        match o.get("items") {
            None | Some(Value::Null) => {}
            Some(Value::Array(children)) if children.is_empty() => {}
            Some(_) if depth >= 1 => bad("items", TOO_DEEP),
            Some(children) => {
                let nested = check_links(
                    children,
                    &format!("{here}.items"),
                    depth + 1,
                    to,
                    count,
                    errors,
                );
                link.insert("items".into(), Value::Array(nested));
            }
        }
        out.push(Value::Object(link));
    }
    out
}

/// `POST /api/widget/UpdateNavigation`: replaces a navigation's links.
#[utoipa::path(post, path = "/api/widget/UpdateNavigation", tag = OWNER,
    request_body = NavigationBody, security(("ownerToken" = [])),
    responses((status = 200, body = NavigationSaved, description = "The links as stored."),
        (status = 409, body = crate::openapi::ErrorBody,
            description = "`templateId` is not the site's template version any more."),
        OwnerErrors))]
async fn update_navigation(
    State(app): State<App>,
    owner: Owner<area::Content, Change>,
    Json(b): Json<NavigationBody>,
) -> Result<Json<NavigationSaved>, ApiError> {
    let site = &owner.site;
    let name = b.field_name.trim();
    if !navigations(&app, site)
        .await?
        .iter()
        .any(|(n, _)| n == name)
    {
        return Err(ApiError::field("fieldName", NO_SUCH_NAVIGATION));
    }
    if let Some(t) = b.template_id.as_deref().filter(|t| !t.is_empty())
        && site.template_version.map(|v| v.0.to_string()).as_deref() != Some(t)
    {
        return Err(ApiError::new(StatusCode::CONFLICT, WRONG_TEMPLATE));
    }
    let content = site_content(&app.store, site.tenant.id).await?;
    let to = Targets::of(&content);
    let mut errors = Map::new();
    let mut count = 0;
    let items = if b.navigation.items.is_null() {
        json!([])
    } else {
        b.navigation.items
    };
    let links = check_links(&items, "navigation.items", 0, &to, &mut count, &mut errors);
    if count > MAX_LINKS {
        errors.insert("navigation.items".into(), TOO_MANY.into());
    }
    if !errors.is_empty() {
        return Err(ApiError::fields(errors));
    }
    let links = Value::Array(links);
    app.store
        .put_navigation(site.tenant.id, name, &links)
        .await
        .map_err(|e| refused(&e, NO_SUCH_NAVIGATION))?;
    Ok(Json(NavigationSaved {
        identifier: name.to_owned(),
        items: links,
    }))
}

/// The header and footer objects.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct HeaderFooterAnswer {
    #[schema(value_type = Object)]
    header: Value,
    #[schema(value_type = Object)]
    footer: Value,
    /// The site-wide block fields the site's template declares in its region files (what
    /// `footer.blockFields` fills on every page); only in `GET`'s answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    declared: Option<Vec<DeclaredField>>,
    /// Whether the template's region files print the footer's plain text (`footer.text`);
    /// only in `GET`'s answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    footer_text: Option<bool>,
}

/// A `<squarespace:block-field>` of the template's region files.
#[derive(Serialize, ToSchema)]
struct DeclaredField {
    /// The key of its HTML in `footer.blockFields`.
    id: String,
    /// What the template calls it (its `label`, else its id).
    label: String,
}

/// `GET /api/site-header-footer`: the site's header and footer.
#[utoipa::path(get, path = "/api/site-header-footer", tag = OWNER,
    security(("ownerToken" = [])),
    responses((status = 200, body = HeaderFooterAnswer), OwnerErrors))]
async fn header_footer(
    State(app): State<App>,
    owner: Owner<area::Content, Read>,
) -> Result<Json<HeaderFooterAnswer>, ApiError> {
    let site = &owner.site;
    let content = site_content(&app.store, site.tenant.id).await?;
    let loaded = app
        .caches
        .folder(&app.store, site)
        .await
        .map_err(|e| template_unavailable(site, &e))?;
    let footer_text = loaded.as_ref().is_some_and(|l| l.folder.prints_footer_text);
    let declared = loaded.map_or_else(Vec::new, |l| {
        l.folder
            .site_block_fields
            .iter()
            .map(|(id, label)| DeclaredField {
                id: id.clone(),
                label: if label.is_empty() {
                    id.clone()
                } else {
                    label.clone()
                },
            })
            .collect()
    });
    let mut answer = hf_answer(&content.header_footer);
    answer.declared = Some(declared);
    answer.footer_text = Some(footer_text);
    Ok(Json(answer))
}

fn hf_answer(hf: &HeaderFooter) -> HeaderFooterAnswer {
    let object = |v: &Value| if v.is_object() { v.clone() } else { json!({}) };
    HeaderFooterAnswer {
        header: object(&hf.header),
        footer: object(&hf.footer),
        declared: None,
        footer_text: None,
    }
}

/// The new header and footer.
#[derive(Deserialize, ToSchema)]
pub(crate) struct HeaderFooterBody {
    #[serde(default)]
    #[schema(value_type = Object, required = true)]
    header: Value,
    #[serde(default)]
    #[schema(value_type = Object, required = true)]
    footer: Value,
}

/// `PUT /api/site-header-footer`: replaces the header and footer.
#[utoipa::path(put, path = "/api/site-header-footer", tag = OWNER,
    request_body = HeaderFooterBody, security(("ownerToken" = [])),
    responses((status = 200, body = HeaderFooterAnswer, description = "As stored."), OwnerErrors))]
async fn put_header_footer(
    State(store): State<Store>,
    owner: Owner<area::Content, Change>,
    Json(b): Json<HeaderFooterBody>,
) -> Result<Json<HeaderFooterAnswer>, ApiError> {
    if !b.header.is_object() || !b.footer.is_object() {
        return Err(ApiError::bad_request(NOT_OBJECTS));
    }
    let stored = site_content(&store, owner.site.tenant.id).await?;
    let (mut header, mut footer) = (b.header, b.footer);
    sanitize_block_fields(&mut header, &stored.header_footer.header);
    sanitize_block_fields(&mut footer, &stored.header_footer.footer);
    let hf = HeaderFooter { header, footer };
    store
        .put_header_footer(owner.site.tenant.id, &hf)
        .await
        .map_err(|e| store_failure(&e))?;
    Ok(Json(hf_answer(&hf)))
}

/// The site-wide block fields' HTML (`blockFields: {id: html}` in the header or footer, what
/// `<squarespace:block-field>` shows on every page) goes through the owners' rich-text
/// allow-list ([`super::rich_text::sanitize`]) as a post's body does. A field sent back as it
/// is stored stays as stored, so an imported footer's form is not stripped by a change
/// elsewhere.
fn sanitize_block_fields(new: &mut Value, stored: &Value) {
    let Some(fields) = new.get_mut("blockFields").and_then(Value::as_object_mut) else {
        return;
    };
    let stored = stored.get("blockFields");
    for (id, html) in fields.iter_mut() {
        let Value::String(text) = html else { continue };
        if stored.and_then(|s| s.get(id)).and_then(Value::as_str) != Some(text.as_str()) {
            *text = super::rich_text::sanitize(text);
        }
    }
}

/// The longest announcement, in characters.
pub const MAX_ANNOUNCEMENT: usize = 500;
/// An announcement without words.
pub const NO_ANNOUNCEMENT: &str = "Write the announcement, or remove the bar.";
/// An announcement over [`MAX_ANNOUNCEMENT`].
pub const LONG_ANNOUNCEMENT: &str = "An announcement can have at most 500 characters.";
/// A link that is neither a path on the site nor a web address.
pub const BAD_CLICKTHROUGH: &str =
    "Link to a page of the site (/shop) or a web address (https://…).";

/// Where the bar leads when clicked.
#[derive(Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Clickthrough {
    /// A path on the site (`/shop`) or an `http(s)://` address.
    url: String,
    /// Open it in a new window.
    #[serde(default)]
    new_window: bool,
}

/// The announcement bar above the site's header (`websiteSettings.announcementBarSettings`:
/// templates show `text` where they place the bar).
#[derive(Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct AnnouncementBar {
    /// What the bar says: 1-500 characters.
    #[serde(default)]
    #[schema(required = true, min_length = 1, max_length = 500)]
    text: String,
    /// The template's style for it, when the template offers several.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    style: Option<i64>,
    /// Where it leads, if anywhere.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    clickthrough_url: Option<Clickthrough>,
}

/// The site's announcement bar, if it has one.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct AnnouncementBarAnswer {
    #[schema(nullable = true)]
    announcement_bar: Option<AnnouncementBar>,
}

/// Where the bar is kept: one key for these routes and the Design screen's site notices.
use super::site_notices::ANNOUNCEMENT_SETTING as ANNOUNCEMENT_KEY;

/// `GET /api/owner/announcement-bar`: the bar above the site's header.
#[utoipa::path(get, path = "/api/owner/announcement-bar", tag = OWNER,
    security(("ownerToken" = [])),
    responses((status = 200, body = AnnouncementBarAnswer,
        description = "The bar (`null` when the site shows none, or one the owner API cannot read)."),
        OwnerErrors))]
async fn announcement_bar(
    State(store): State<Store>,
    owner: Owner<area::Design, Read>,
) -> Result<Json<AnnouncementBarAnswer>, ApiError> {
    let content = site_content(&store, owner.site.tenant.id).await?;
    let bar = content
        .settings
        .website_settings
        .get(ANNOUNCEMENT_KEY)
        .and_then(|v| serde_json::from_value::<AnnouncementBar>(v.clone()).ok())
        .filter(|b| !b.text.trim().is_empty());
    Ok(Json(AnnouncementBarAnswer {
        announcement_bar: bar,
    }))
}

/// `PUT /api/owner/announcement-bar`: shows (or changes) the bar above the site's header,
/// on every page from the next one on.
#[utoipa::path(put, path = "/api/owner/announcement-bar", tag = OWNER,
    request_body = AnnouncementBar, security(("ownerToken" = [])),
    responses((status = 200, body = AnnouncementBarAnswer, description = "As stored."), OwnerErrors))]
async fn put_announcement_bar(
    State(store): State<Store>,
    owner: Owner<area::Design, Change>,
    Json(mut b): Json<AnnouncementBar>,
) -> Result<Json<AnnouncementBarAnswer>, ApiError> {
    b.text = b.text.trim().to_owned();
    if b.text.is_empty() {
        return Err(ApiError::field("text", NO_ANNOUNCEMENT));
    }
    if b.text.chars().count() > MAX_ANNOUNCEMENT {
        return Err(ApiError::field("text", LONG_ANNOUNCEMENT));
    }
    if let Some(c) = &mut b.clickthrough_url {
        c.url = c.url.trim().to_owned();
        let path = c.url.starts_with('/') && !c.url.starts_with("//");
        let web = ["https://", "http://"].iter().any(|p| {
            c.url
                .get(..p.len())
                .is_some_and(|head| head.eq_ignore_ascii_case(p))
                && c.url.len() > p.len()
        });
        let printable = c
            .url
            .chars()
            .all(|ch| !ch.is_control() && !ch.is_whitespace());
        if !(path || web) || !printable || c.url.len() > 2048 {
            return Err(ApiError::field("clickthroughUrl.url", BAD_CLICKTHROUGH));
        }
    }
    let value = serde_json::to_value(&b).map_err(|e| ApiError::bad_request(e.to_string()))?;
    store
        .set_website_setting(owner.site.tenant.id, ANNOUNCEMENT_KEY, value)
        .await
        .map_err(|e| store_failure(&e))?;
    Ok(Json(AnnouncementBarAnswer {
        announcement_bar: Some(b),
    }))
}

/// `DELETE /api/owner/announcement-bar`: takes the bar away.
#[utoipa::path(delete, path = "/api/owner/announcement-bar", tag = OWNER,
    security(("ownerToken" = [])),
    responses((status = 200, body = AnnouncementBarAnswer, description = "No bar now."), OwnerErrors))]
async fn delete_announcement_bar(
    State(store): State<Store>,
    owner: Owner<area::Design, Change>,
) -> Result<Json<AnnouncementBarAnswer>, ApiError> {
    store
        .set_website_setting(owner.site.tenant.id, ANNOUNCEMENT_KEY, Value::Null)
        .await
        .map_err(|e| store_failure(&e))?;
    Ok(Json(AnnouncementBarAnswer {
        announcement_bar: None,
    }))
}
