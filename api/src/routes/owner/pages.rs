//! The site's pages as the owner's Pages screen shows them: every collection, placed in the
//! navigations the template declares or in the "Not linked" area, and what the owner
//! changes about one.
//!
//! | route | role may | body | answer |
//! |---|---|---|---|
//! | `GET /api/owner/pages` | content, read | | `{navigations, notLinked, pages, types, memberAreas, templateId}` |
//! | `PATCH /api/owner/pages` | content, write | `{templateId?, navigations?: {name: links}, notLinked?: links}` | as `GET` |
//! | `POST /api/owner/collections` | content (and store for a store), write | `{typeName, title?, urlId?, navigation?, folderId?}` | 201 the page |
//! | `PATCH /api/owner/collections/{id}` | content, write | a JSON Merge Patch of `{title, urlId, enabled, homepage, navigationTitle, password, seoTitle, seoDescription}` | the page |
//! | `DELETE /api/owner/collections/{id}` | content (and store for a store), write | | `{deleted: id}` |
//!
//! **Types.** A page is a collection of a type the template declares
//! ([`page_types`]): the platform's regular page (`page`, type 10) and folder (`folder`),
//! each `collections/<type>.conf` (its `title`, `ordering`, `pageSize`; `folder`/`index`
//! flags), the `systemCollections` of `template.conf`, and the static pages
//! (`pages/<name>.page`, type 7). A `products` page is a store (type 13, with its root
//! category, as SPEC.md §4 creates one) and needs the store role as well.
//!
//! **Placement.** Links are the navigation links of [`super::layout`] (`{collectionId,
//! title?, items?}` or `{externalLink: {url, newWindow}, title, memberAreaId?}`). A page
//! linked in no declared navigation is "not linked"; a not-linked folder keeps its pages
//! under it. One level of folders: only a folder's link has `items` (pages or external
//! links), and a folder never goes inside another. `PATCH /api/owner/pages` replaces the
//! navigations it names (and, with `notLinked`, states the not-linked area); every page's
//! folder (`parentId`) and order follow from the result: a page under a folder's link
//! belongs to that folder, and pages are ordered as they first appear (the navigations in
//! template order, then not linked), so a folder's URL leads to its first page.
//!
//! **A page's settings.** `urlId` is normalised (trimmed, slashes and case dropped) and is 3
//! to 200 of `a-z`, `0-9`, `-`, `_`, `.`, not a path of the platform (`cart`, `config` …):
//! otherwise SPEC.md §5's `{val} is not a valid page URL`; unique in the site. A
//! `password` is stored as an Argon2id hash (the lock screen's, see
//! [`crate::routes::lock_screen`]) and never answered: the page says `passwordProtected`;
//! `null` removes it. `seoTitle` replaces the page's title in the browser's title (the
//! site's title format still applies) and `seoDescription` is the page's
//! `<meta name="description">`. The homepage cannot be disabled or deleted: another page is
//! made the homepage first (`homepage: true`).
//!
//! **Deleting** a page deletes its items and takes its links out of every navigation; a
//! folder's pages stay, moved up to where the folder was (its links' `items` take the
//! folder link's place, and the pages leave the folder).
//!
//! Every change is one write of the store ([`tenants::Store::put_pages`]), so the next page
//! on any node shows it.

use std::collections::BTreeMap;

use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use renderer::folder::TemplateFolder;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use tenants::store_setup::{LIST_VIEW, PRODUCTS_TYPE, ROOT};
use tenants::{Category, Collection, PagesChange, SiteSnapshot};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::layout::{
    NO_SUCH_NAVIGATION, Targets, WRONG_TEMPLATE, check_links, template_navigations,
    template_unavailable,
};
use super::{Deleted, refused, site_content};
use crate::http::body::{MAX_JSON_BODY, json as read_json};
use crate::http::extract::{Change, Read, area, role_may};
use crate::http::owner::{Access, Area};
use crate::http::site::Site;
use crate::http::{ApiError, Created, Json, Owner};
use crate::openapi::{OWNER, OwnerErrors};
use crate::server::state::App;
pub use crate::services::owner::navigation::{FOLDER_IN_FOLDER, NOT_A_FOLDER};
use crate::services::owner::navigation::{
    check_folders, count, into_folder, is_folder, live_links, nav_of, not_linked, placed, unlinked,
    walk,
};

pub const NO_PAGE: &str = "That page does not exist.";
pub const NO_TYPE: &str = "The site's template has no page of this type.";
pub const NO_TITLE: &str = "Please enter a title.";
pub const LONG_TITLE: &str = "A title is at most 200 characters.";
pub const URL_TAKEN: &str = "Another page has this URL.";
pub const NO_FOLDER: &str = "That folder does not exist.";
pub const TOO_MANY: &str = "A navigation has at most 100 links.";
pub const NO_PASSWORD: &str = "Please enter a password, or remove it.";
pub const LONG_PASSWORD: &str = "A password is at most 200 characters.";
pub const LONG_SEO_TITLE: &str = "An SEO title is at most 200 characters.";
pub const LONG_SEO_DESCRIPTION: &str = "An SEO description is at most 1000 characters.";
pub const NOT_TEXT: &str = "This is text.";
pub const NOT_TRUE_FALSE: &str = "This is true or false.";
pub const NO_SUCH_SETTING: &str = "A page has no such setting.";
pub const HOMEPAGE_ENABLED: &str = "The homepage cannot be disabled.";
pub const HOMEPAGE_KEPT: &str = "Make another page the homepage instead.";
pub const FOLDER_HOMEPAGE: &str = "A folder cannot be the homepage.";
pub const DISABLED_HOMEPAGE: &str = "A disabled page cannot be the homepage.";
pub const HOMEPAGE_DELETE: &str =
    "The homepage cannot be deleted. Make another page the homepage first.";
pub const NOT_AN_OBJECT: &str = "The body is a JSON object.";
pub const LINK_NOT_LINKED: &str = "Only pages are not linked: an external link is in a navigation.";
pub const LINKED_TWICE: &str =
    "This page is linked in a navigation, so it is not under Not linked.";

/// SPEC.md §5, with the value the owner typed.
pub fn bad_url(val: &str) -> String {
    format!("{val} is not a valid page URL")
}

const MAX_LINKS: usize = 100;
const MAX_TITLE: usize = 200;
const MAX_PASSWORD: usize = 200;
const MAX_SEO_DESCRIPTION: usize = 1000;
/// SPEC.md §9: a slug has at least 3 characters.
const MIN_URL: usize = 3;
const MAX_URL: usize = 200;
/// First path segments the platform answers itself (a page there would never be reached).
const RESERVED: [&str; 10] = [
    "api", "assets", "scripts", "cart", "checkout", "commerce", "config", "search", "site.css", "s",
];

pub fn routes() -> OpenApiRouter<App> {
    OpenApiRouter::new()
        .routes(routes!(pages, arrange))
        .routes(routes!(patch_collection, delete_collection))
}

/// A type of page the template declares.
#[derive(Clone, Serialize, ToSchema)]
#[schema(as = OwnerPageType)]
#[serde(rename_all = "camelCase")]
pub struct PageType {
    /// `collection.typeName` (what `POST /api/owner/collections` names).
    pub type_name: String,
    /// Its label in the "add page" menu.
    pub title: String,
    /// `collection.type`: 1 collection or folder, 7 template page, 10 page, 13 store.
    #[serde(rename = "type")]
    pub kind: i64,
    /// A folder (it holds pages, not items).
    pub folder: bool,
    #[serde(skip)]
    index: bool,
    #[serde(skip)]
    ordering: String,
    #[serde(skip)]
    page_size: Option<i64>,
    #[serde(skip)]
    new_title: String,
}

fn flag(conf: &Value, key: &str) -> bool {
    matches!(conf.get(key), Some(Value::Bool(true))) || conf.get(key) == Some(&json!("true"))
}

/// `star-parties` → `Star parties`.
fn label(stem: &str) -> String {
    let words = stem.replace(['-', '_'], " ");
    let mut chars = words.chars();
    chars
        .next()
        .map_or(words.clone(), |c| c.to_uppercase().chain(chars).collect())
}

fn default_ordering(type_name: &str) -> &'static str {
    match type_name {
        "blog" => "chronological",
        "events" => "calendar",
        "album" => "music-album",
        _ => "user-orderable",
    }
}

/// The page types `folder` declares (see the module's notes), the regular page first.
pub fn page_types(folder: Option<&TemplateFolder>) -> Vec<PageType> {
    let mut out: Vec<PageType> = Vec::new();
    let mut add = |type_name: &str, conf: &Value, kind: i64| {
        if out.iter().any(|t| t.type_name == type_name) {
            return;
        }
        let text = |k: &str| conf.get(k).and_then(Value::as_str).map(str::to_owned);
        let folder = flag(conf, "folder") || flag(conf, "index") || type_name == "folder";
        let title = text("title").unwrap_or_else(|| label(type_name));
        out.push(PageType {
            type_name: type_name.to_owned(),
            new_title: text("newTitle").unwrap_or_else(|| title.clone()),
            title,
            kind,
            folder,
            index: flag(conf, "index") || type_name == "index",
            ordering: text("ordering").unwrap_or_else(|| default_ordering(type_name).to_owned()),
            page_size: conf.get("pageSize").and_then(Value::as_i64),
        });
    };
    let empty = json!({});
    add(
        "page",
        &json!({"title": "Page", "newTitle": "New page"}),
        10,
    );
    if let Some(f) = folder {
        for (stem, t) in &f.collections {
            if stem == "page" {
                continue;
            }
            // The folder type is `folder`, whichever of the two names its file has.
            let name = if stem == "folders" { "folder" } else { stem };
            let kind = if name == "products" { PRODUCTS_TYPE } else { 1 };
            add(name, &t.conf, kind);
        }
        if let Some(Value::Array(system)) = f.conf.get("systemCollections") {
            for name in system.iter().filter_map(Value::as_str) {
                let name = if name == "folders" { "folder" } else { name };
                if name == "page" {
                    continue;
                }
                let kind = if name == "products" { PRODUCTS_TYPE } else { 1 };
                add(name, &empty, kind);
            }
        }
    }
    add(
        "folder",
        &json!({"title": "Folder", "newTitle": "New folder"}),
        1,
    );
    if let Some(f) = folder {
        for (stem, p) in &f.pages {
            let title = if p.title.trim().is_empty() {
                label(stem)
            } else {
                p.title.clone()
            };
            add(stem, &json!({"title": title}), 7);
        }
    }
    out
}

/// A page as the Pages screen shows it.
#[derive(Serialize, ToSchema)]
#[schema(as = OwnerPage)]
#[serde(rename_all = "camelCase")]
pub struct PageInfo {
    id: String,
    title: String,
    /// The title navigations show (the title unless the owner set another).
    navigation_title: String,
    url_id: String,
    /// Where the page is on the site (`/` for the homepage).
    full_url: String,
    #[serde(rename = "type")]
    kind: i64,
    type_name: String,
    enabled: bool,
    homepage: bool,
    folder: bool,
    /// A lock screen asks visitors for a password (the password is never answered).
    password_protected: bool,
    seo_title: String,
    seo_description: String,
    /// Its items (posts, events, products …).
    items: usize,
    /// The folder it is in.
    parent_id: Option<String>,
}

fn seo(c: &Collection, key: &str) -> String {
    c.data
        .get("seoData")
        .and_then(|s| s.get(key))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

fn info(site: &SiteSnapshot, c: &Collection) -> PageInfo {
    PageInfo {
        id: c.id.clone(),
        title: c.title.clone(),
        navigation_title: if c.navigation_title.is_empty() {
            c.title.clone()
        } else {
            c.navigation_title.clone()
        },
        url_id: c.url_id.clone(),
        full_url: if c.homepage {
            "/".into()
        } else {
            format!("/{}", c.url_id)
        },
        kind: c.kind,
        type_name: c.type_name.clone(),
        enabled: c.enabled,
        homepage: c.homepage,
        folder: is_folder(c),
        password_protected: c.password_hash.is_some(),
        seo_title: seo(c, "seoTitle"),
        seo_description: seo(c, "seoDescription"),
        items: site.items_of(&c.id).count(),
        parent_id: c.parent_id.clone(),
    }
}

/// A navigation the template declares, with its links.
#[derive(Serialize, ToSchema)]
#[schema(as = OwnerPagesNavigation)]
struct NavigationAnswer {
    identifier: String,
    title: String,
    /// Links as stored (`{collectionId, title?, items?}` or `{externalLink: {url,
    /// newWindow}, title, memberAreaId?}`), without those to deleted pages.
    #[schema(value_type = Vec<Object>)]
    links: Vec<Value>,
}

/// A member area a link may be for.
#[derive(Serialize, ToSchema)]
#[schema(as = OwnerPagesMemberArea)]
struct AreaAnswer {
    id: String,
    title: String,
}

/// Everything the Pages screen shows, in one answer.
#[derive(Serialize, ToSchema)]
#[schema(as = OwnerPages)]
#[serde(rename_all = "camelCase")]
struct PagesAnswer {
    /// The template's navigations, in `template.conf` order.
    navigations: Vec<NavigationAnswer>,
    /// The pages in no navigation (`{collectionId, items?}`: a folder with its pages).
    #[schema(value_type = Vec<Object>)]
    not_linked: Vec<Value>,
    /// Every page, in the site's order.
    pages: Vec<PageInfo>,
    /// What "add page" offers.
    types: Vec<PageType>,
    member_areas: Vec<AreaAnswer>,
    /// The site's template version (what `PATCH` may name), null without one.
    template_id: Option<String>,
}

/// The template's navigations and page types (none without a template).
async fn template_parts(
    app: &App,
    site: &Site,
) -> Result<(Vec<(String, String)>, Vec<PageType>), ApiError> {
    let loaded = app
        .caches
        .folder(&app.store, site)
        .await
        .map_err(|e| template_unavailable(site, &e))?;
    let folder = loaded.as_ref().map(|l| l.folder.as_ref());
    let navs = template_navigations(app, site)
        .await
        .map_err(|e| template_unavailable(site, &e))?;
    Ok((navs, page_types(folder)))
}

async fn answer(app: &App, site: &Site) -> Result<PagesAnswer, ApiError> {
    let content = site_content(&app.store, site.tenant.id).await?;
    let (navs, types) = template_parts(app, site).await?;
    let navigations = navs
        .iter()
        .map(|(name, title)| NavigationAnswer {
            identifier: name.clone(),
            title: title.clone(),
            links: live_links(&nav_of(&content, name), &content),
        })
        .collect();
    let member_areas = tenants::member_areas::member_areas(&content.settings.website_settings)
        .unwrap_or_default()
        .into_iter()
        .map(|a| AreaAnswer {
            id: a.id,
            title: a.title,
        })
        .collect();
    Ok(PagesAnswer {
        navigations,
        not_linked: not_linked(&content, &navs),
        pages: content
            .collections
            .iter()
            .map(|c| info(&content, c))
            .collect(),
        types,
        member_areas,
        template_id: site.template_version.map(|v| v.0.to_string()),
    })
}

/// `GET /api/owner/pages`: the navigations, the not-linked pages, every page, the types
/// of page the template offers.
#[utoipa::path(get, path = "/api/owner/pages", tag = OWNER,
    security(("ownerToken" = [])),
    responses((status = 200, body = PagesAnswer), OwnerErrors))]
async fn pages(
    State(app): State<App>,
    owner: Owner<area::Content, Read>,
) -> Result<Json<PagesAnswer>, ApiError> {
    Ok(Json(answer(&app, &owner.site).await?))
}

/// The pages' new places.
#[derive(Deserialize, Default, ToSchema)]
#[schema(as = OwnerPagesArrangement)]
#[serde(rename_all = "camelCase", default)]
pub(crate) struct Arrangement {
    /// The template version the pages were read with (409 when the site's has changed).
    template_id: Option<String>,
    /// Navigation name → its links, replaced whole (the navigations not named are kept).
    #[schema(value_type = Option<Object>)]
    navigations: Option<Map<String, Value>>,
    /// The not-linked area (`[{collectionId, items?}]`): only pages, a folder with its pages.
    #[schema(value_type = Option<Vec<Object>>)]
    not_linked: Option<Value>,
}

/// `PATCH /api/owner/pages`: moves pages and links: replaces the named navigations (and,
/// when given, states the not-linked area); pages take their folders and order from it.
#[utoipa::path(patch, path = "/api/owner/pages", tag = OWNER,
    request_body = Arrangement, security(("ownerToken" = [])),
    responses((status = 200, body = PagesAnswer, description = "The pages as they are now."),
        (status = 409, body = crate::openapi::ErrorBody,
            description = "`templateId` is not the site's template version any more."),
        OwnerErrors))]
async fn arrange(
    State(app): State<App>,
    owner: Owner<area::Content, Change>,
    Json(b): Json<Arrangement>,
) -> Result<Json<PagesAnswer>, ApiError> {
    let site = &owner.site;
    if let Some(t) = b.template_id.as_deref().filter(|t| !t.is_empty())
        && site.template_version.map(|v| v.0.to_string()).as_deref() != Some(t)
    {
        return Err(ApiError::new(StatusCode::CONFLICT, WRONG_TEMPLATE));
    }
    let content = site_content(&app.store, site.tenant.id).await?;
    let (navs, _) = template_parts(&app, site).await?;
    let to = Targets::of(&content);
    let mut errors = Map::new();
    let mut replaced: BTreeMap<String, Value> = BTreeMap::new();
    for (name, links) in b.navigations.unwrap_or_default() {
        let path = format!("navigations.{name}");
        if !navs.iter().any(|(n, _)| *n == name) {
            errors.insert(path, NO_SUCH_NAVIGATION.into());
            continue;
        }
        let mut count = 0;
        let checked = check_links(&links, &path, 0, &to, &mut count, &mut errors);
        if count > MAX_LINKS {
            errors.insert(path.clone(), TOO_MANY.into());
        }
        check_folders(&content, &checked, &path, false, &mut errors);
        replaced.insert(name, Value::Array(checked));
    }
    let free = match b.not_linked {
        None | Some(Value::Null) => None,
        Some(links) => {
            let mut count = 0;
            let checked = check_links(&links, "notLinked", 0, &to, &mut count, &mut errors);
            check_folders(&content, &checked, "notLinked", false, &mut errors);
            Some(checked)
        }
    };
    // The navigations as they will be, in template order.
    let after: Vec<Value> = navs
        .iter()
        .map(|(n, _)| {
            replaced
                .get(n)
                .cloned()
                .unwrap_or_else(|| nav_of(&content, n))
        })
        .collect();
    if let Some(checked) = &free {
        let mut linked = Vec::new();
        for links in &after {
            walk(links, None, &mut linked);
        }
        for (i, l) in checked.iter().enumerate() {
            let mut each = vec![(i, None, l)];
            if let Some(Value::Array(children)) = l.get("items") {
                each.extend(children.iter().enumerate().map(|(j, c)| (i, Some(j), c)));
            }
            for (i, j, l) in each {
                let here = match j {
                    Some(j) => format!("notLinked[{i}].items[{j}]"),
                    None => format!("notLinked[{i}]"),
                };
                match l.get("collectionId").and_then(Value::as_str) {
                    None => {
                        errors.entry(here).or_insert(LINK_NOT_LINKED.into());
                    }
                    Some(id) if linked.iter().any(|(k, _)| k == id) => {
                        errors.entry(here).or_insert(LINKED_TWICE.into());
                    }
                    Some(_) => {}
                }
            }
        }
    }
    if !errors.is_empty() {
        return Err(ApiError::fields(errors));
    }
    let free = free.map(Value::Array);
    let collections = placed(&content, &after, free.as_ref());
    let change = PagesChange {
        collections,
        navigations: replaced.into_iter().collect(),
        ..Default::default()
    };
    app.store
        .put_pages(site.tenant.id, &change)
        .await
        .map_err(|e| refused(&e, NO_PAGE))?;
    Ok(Json(answer(&app, site).await?))
}

/// `val` as a page URL: trimmed, without slashes around it, lower case; or SPEC.md §5's
/// message naming what was typed.
pub fn page_url(val: &str) -> Result<String, String> {
    let url = val.trim().trim_matches('/').to_ascii_lowercase();
    let ok = (MIN_URL..=MAX_URL).contains(&url.len())
        && url
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
        && !url.starts_with('.')
        && !RESERVED.contains(&url.as_str());
    if ok {
        Ok(url)
    } else {
        Err(bad_url(val.trim()))
    }
}

/// A free URL for a new page called `title`: its slug, else `page`, then `-2`, `-3` ….
fn free_url(site: &SiteSnapshot, title: &str) -> String {
    let mut base = tenants::store_setup::slug(title);
    base.truncate(MAX_URL - 4);
    let base = base.trim_end_matches('-').to_owned();
    let base = match page_url(&base) {
        Ok(b) => b,
        Err(_) => "page".to_owned(),
    };
    let taken = |u: &str| site.collections.iter().any(|c| c.url_id == u);
    if !taken(&base) {
        return base;
    }
    (2..)
        .map(|n| format!("{base}-{n}"))
        .find(|u| !taken(u))
        .expect("some number is free")
}

/// A new page.
#[derive(Deserialize, Default, ToSchema)]
#[schema(as = OwnerNewPage)]
#[serde(rename_all = "camelCase", default)]
pub(crate) struct NewPage {
    /// One of the `types` `GET /api/owner/pages` offers.
    #[schema(required = true)]
    type_name: String,
    /// Default: the type's title for a new page.
    title: Option<String>,
    /// Default: made from the title (unique).
    url_id: Option<String>,
    /// The navigation it goes at the end of (none: not linked).
    navigation: Option<String>,
    /// A folder it goes into (at the end of the folder's links, wherever the folder is).
    folder_id: Option<String>,
}

/// The text of a title field: trimmed, 1-200 characters.
fn title_of(v: &str, field: &str, errors: &mut Map<String, Value>) -> String {
    let t = v.trim();
    if t.is_empty() {
        errors.insert(field.into(), NO_TITLE.into());
    } else if t.chars().count() > MAX_TITLE {
        errors.insert(field.into(), LONG_TITLE.into());
    }
    t.to_owned()
}

/// `POST /api/owner/collections`: adds a page of a type the template declares, at the end
/// of a navigation, into a folder, or not linked.
#[utoipa::path(post, path = "/api/owner/collections", tag = OWNER,
    request_body = NewPage, security(("ownerToken" = [])),
    responses((status = 201, body = PageInfo, description = "The new page."), OwnerErrors))]
pub(crate) async fn create_collection(
    State(app): State<App>,
    owner: Owner<area::Content, Change>,
    Json(b): Json<NewPage>,
) -> Result<Created<PageInfo>, ApiError> {
    let site = &owner.site;
    let content = site_content(&app.store, site.tenant.id).await?;
    let (navs, types) = template_parts(&app, site).await?;
    let mut errors = Map::new();
    let Some(ty) = types.iter().find(|t| t.type_name == b.type_name.trim()) else {
        return Err(ApiError::field("typeName", NO_TYPE));
    };
    if ty.kind == PRODUCTS_TYPE {
        // A store sells: the store role too.
        role_may(owner.role, Area::Store, Access::Write)?;
    }
    let title = match &b.title {
        Some(t) => title_of(t, "title", &mut errors),
        None => ty.new_title.clone(),
    };
    let url_id = match b.url_id.as_deref().filter(|u| !u.trim().is_empty()) {
        Some(u) => match page_url(u) {
            Ok(u) if content.collections.iter().any(|c| c.url_id == u) => {
                errors.insert("urlId".into(), URL_TAKEN.into());
                u
            }
            Ok(u) => u,
            Err(m) => {
                errors.insert("urlId".into(), m.into());
                String::new()
            }
        },
        None => free_url(&content, &title),
    };
    let navigation = b
        .navigation
        .as_deref()
        .map(str::trim)
        .filter(|n| !n.is_empty());
    if let Some(n) = navigation
        && !navs.iter().any(|(name, _)| name == n)
    {
        errors.insert("navigation".into(), NO_SUCH_NAVIGATION.into());
    }
    let folder = match b.folder_id.as_deref().filter(|f| !f.is_empty()) {
        Some(f) => match content.collection(f).filter(|c| is_folder(c)) {
            Some(c) if ty.folder => {
                errors.insert("folderId".into(), FOLDER_IN_FOLDER.into());
                Some(c)
            }
            Some(c) => Some(c),
            None => {
                errors.insert("folderId".into(), NO_FOLDER.into());
                None
            }
        },
        None => None,
    };
    let mut data = Map::new();
    if ty.folder {
        data.insert("folder".into(), true.into());
        data.insert("folderBehavior".into(), if ty.index { 1 } else { 2 }.into());
    }
    let collection = Collection {
        id: tenants::new_id(),
        url_id,
        navigation_title: title.clone(),
        title,
        description: String::new(),
        kind: ty.kind,
        type_name: ty.type_name.clone(),
        ordering: ty.ordering.clone(),
        enabled: true,
        homepage: false,
        parent_id: folder.map(|f| f.id.clone()),
        position: content
            .collections
            .iter()
            .map(|c| c.position)
            .max()
            .unwrap_or(0)
            + 1,
        page_size: ty.page_size,
        data,
        password_hash: None,
    };
    let link = json!({"collectionId": collection.id});
    let mut navigations = Vec::new();
    for (name, _) in &navs {
        let links = nav_of(&content, name);
        let new = match (folder, navigation) {
            (Some(f), _) => into_folder(&links, &f.id, &link),
            (None, Some(n)) if n == name => {
                let mut links = links.clone();
                if let Some(list) = links.as_array_mut() {
                    list.push(link.clone());
                }
                Some(links)
            }
            _ => None,
        };
        if let Some(new) = new {
            if count(&new) > MAX_LINKS {
                let field = if folder.is_some() {
                    "folderId"
                } else {
                    "navigation"
                };
                errors.insert(field.into(), TOO_MANY.into());
            }
            navigations.push((name.clone(), new));
        }
    }
    if !errors.is_empty() {
        return Err(ApiError::fields(errors));
    }
    let categories = if ty.kind == PRODUCTS_TYPE {
        // SPEC.md §4: a store has its root category.
        vec![Category {
            id: tenants::new_id(),
            collection_id: collection.id.clone(),
            display_name: collection.title.clone(),
            parent_category_id: None,
            kind: ROOT.to_owned(),
            page_rendering: LIST_VIEW.to_owned(),
            display_index: 1,
        }]
    } else {
        Vec::new()
    };
    let change = PagesChange {
        collections: vec![collection.clone()],
        categories,
        navigations,
        delete: None,
    };
    app.store
        .put_pages(site.tenant.id, &change)
        .await
        .map_err(|e| match e {
            tenants::StoreError::Conflict(_) => ApiError::field("urlId", URL_TAKEN),
            e => refused(&e, NO_PAGE),
        })?;
    Ok(Created(info(&content, &collection)))
}

/// The settings a page's `PATCH` changes.
#[derive(ToSchema)]
#[schema(as = OwnerPagePatch)]
#[allow(dead_code)] // a shape for the document; the patch is read as JSON
#[serde(rename_all = "camelCase")]
struct PagePatch {
    /// 1-200 characters.
    title: Option<String>,
    /// 3-200 of a-z, 0-9, '-', '_', '.' (slashes and case are dropped), unique in the site.
    url_id: Option<String>,
    enabled: Option<bool>,
    /// `true` makes it the homepage (the old one stops being it).
    homepage: Option<bool>,
    /// What navigations show; null or empty: the title.
    navigation_title: Option<String>,
    /// The lock screen's password (1-200 characters, stored hashed, never answered); null
    /// removes it.
    #[schema(nullable = true)]
    password: Option<String>,
    /// Up to 200 characters; null or empty: none.
    seo_title: Option<String>,
    /// Up to 1000 characters; null or empty: none.
    seo_description: Option<String>,
}

/// The path's page of the call's site.
fn page_of(site: &SiteSnapshot, id: &str) -> Result<Collection, ApiError> {
    site.collection(id)
        .cloned()
        .ok_or_else(|| ApiError::not_found(NO_PAGE))
}

/// A text setting of a patch: `Some(None)` when null or empty (removed).
fn text(
    v: &Value,
    field: &str,
    max: usize,
    long: &str,
    errors: &mut Map<String, Value>,
) -> Option<Option<String>> {
    match v {
        Value::Null => Some(None),
        Value::String(s) if s.trim().is_empty() => Some(None),
        Value::String(s) if s.trim().chars().count() > max => {
            errors.insert(field.into(), long.into());
            None
        }
        Value::String(s) => Some(Some(s.trim().to_owned())),
        _ => {
            errors.insert(field.into(), NOT_TEXT.into());
            None
        }
    }
}

fn set_seo(c: &mut Collection, key: &str, value: Option<String>) {
    let seo = c.data.entry("seoData").or_insert_with(|| json!({}));
    if !seo.is_object() {
        *seo = json!({});
    }
    match value {
        Some(v) => seo[key] = v.into(),
        None => {
            if let Some(o) = seo.as_object_mut() {
                o.remove(key);
            }
        }
    }
    if c.data
        .get("seoData")
        .and_then(Value::as_object)
        .is_some_and(Map::is_empty)
    {
        c.data.remove("seoData");
    }
}

/// `PATCH /api/owner/collections/{id}`: changes a page's settings (JSON Merge Patch).
#[utoipa::path(patch, path = "/api/owner/collections/{id}", tag = OWNER,
    params(("id" = String, Path, description = "The page's (collection's) id.")),
    request_body(content = PagePatch, content_type = "application/merge-patch+json",
        description = "The settings to change (RFC 7396: the keys it names are set; a key \
        set to null is removed, its default coming back); the others keep their values."),
    security(("ownerToken" = [])),
    responses((status = 200, body = PageInfo, description = "The page as it is now."),
        OwnerErrors))]
async fn patch_collection(
    State(app): State<App>,
    Path(id): Path<String>,
    owner: Owner<area::Content, Change>,
    body: Body,
) -> Result<Json<PageInfo>, ApiError> {
    let site = &owner.site;
    let content = site_content(&app.store, site.tenant.id).await?;
    let old = page_of(&content, &id)?;
    // The body is read once the page is known to be this site's.
    let patch: Value = read_json(body, MAX_JSON_BODY).await?;
    let Value::Object(patch) = patch else {
        return Err(ApiError::bad_request(NOT_AN_OBJECT));
    };
    let mut c = old.clone();
    let mut errors = Map::new();
    let mut others = Vec::new();
    let follows = old.navigation_title.is_empty() || old.navigation_title == old.title;
    let mut password: Option<Option<String>> = None;
    for (key, v) in &patch {
        match key.as_str() {
            "title" => match v.as_str() {
                Some(t) => {
                    c.title = title_of(t, "title", &mut errors);
                    if follows {
                        c.navigation_title = c.title.clone();
                    }
                }
                None => {
                    errors.insert("title".into(), NO_TITLE.into());
                }
            },
            "urlId" => match v.as_str().map(page_url) {
                Some(Ok(u))
                    if content
                        .collections
                        .iter()
                        .any(|k| k.url_id == u && k.id != c.id) =>
                {
                    errors.insert("urlId".into(), URL_TAKEN.into());
                }
                Some(Ok(u)) => c.url_id = u,
                // A short URL stored before stays.
                Some(Err(_))
                    if v.as_str().map(|s| s.trim().trim_matches('/'))
                        == Some(old.url_id.as_str()) => {}
                Some(Err(m)) => {
                    errors.insert("urlId".into(), m.into());
                }
                None => {
                    errors.insert("urlId".into(), bad_url(&v.to_string()).into());
                }
            },
            "enabled" => match v {
                Value::Bool(b) => c.enabled = *b,
                Value::Null => c.enabled = true,
                _ => {
                    errors.insert("enabled".into(), NOT_TRUE_FALSE.into());
                }
            },
            "homepage" => match v {
                Value::Bool(b) => c.homepage = *b,
                Value::Null => c.homepage = false,
                _ => {
                    errors.insert("homepage".into(), NOT_TRUE_FALSE.into());
                }
            },
            "navigationTitle" => {
                if let Some(t) = text(v, key, MAX_TITLE, LONG_TITLE, &mut errors) {
                    c.navigation_title = t.unwrap_or_default();
                }
            }
            "seoTitle" => {
                if let Some(t) = text(v, key, MAX_TITLE, LONG_SEO_TITLE, &mut errors) {
                    set_seo(&mut c, "seoTitle", t);
                }
            }
            "seoDescription" => {
                if let Some(t) = text(
                    v,
                    key,
                    MAX_SEO_DESCRIPTION,
                    LONG_SEO_DESCRIPTION,
                    &mut errors,
                ) {
                    set_seo(&mut c, "seoDescription", t);
                }
            }
            "password" => match v {
                Value::Null => password = Some(None),
                Value::String(p) if p.is_empty() => {
                    errors.insert("password".into(), NO_PASSWORD.into());
                }
                Value::String(p) if p.chars().count() > MAX_PASSWORD => {
                    errors.insert("password".into(), LONG_PASSWORD.into());
                }
                Value::String(p) => password = Some(Some(p.clone())),
                _ => {
                    errors.insert("password".into(), NOT_TEXT.into());
                }
            },
            _ => {
                errors.insert(key.clone(), NO_SUCH_SETTING.into());
            }
        }
    }
    if c.navigation_title.is_empty() {
        c.navigation_title = c.title.clone();
    }
    if old.homepage && !c.homepage {
        errors.entry("homepage").or_insert(HOMEPAGE_KEPT.into());
    }
    if c.homepage && !old.homepage {
        if is_folder(&c) {
            errors.entry("homepage").or_insert(FOLDER_HOMEPAGE.into());
        } else if !c.enabled {
            errors.entry("homepage").or_insert(DISABLED_HOMEPAGE.into());
        }
        others.extend(content.collections.iter().filter(|k| k.homepage).map(|k| {
            let mut k = k.clone();
            k.homepage = false;
            k
        }));
    }
    if c.homepage && !c.enabled {
        errors.entry("enabled").or_insert(HOMEPAGE_ENABLED.into());
    }
    if !errors.is_empty() {
        return Err(ApiError::fields(errors));
    }
    if let Some(p) = password {
        c.password_hash = match p {
            None => None,
            // Argon2 takes tens of milliseconds of CPU: off the async workers.
            Some(p) => Some(
                tokio::task::spawn_blocking(move || tenants::password::hash(&p))
                    .await
                    .map_err(|_| ApiError::unavailable())?
                    .map_err(ApiError::bad_request)?,
            ),
        };
    }
    if c != old {
        others.push(c.clone());
        let change = PagesChange {
            collections: others,
            ..Default::default()
        };
        app.store
            .put_pages(site.tenant.id, &change)
            .await
            .map_err(|e| match e {
                tenants::StoreError::Conflict(_) => ApiError::field("urlId", URL_TAKEN),
                e => refused(&e, NO_PAGE),
            })?;
    }
    Ok(Json(info(&content, &c)))
}

/// `DELETE /api/owner/collections/{id}`: deletes a page with its items, and its links; a
/// folder's pages stay, moved up to where the folder was.
#[utoipa::path(delete, path = "/api/owner/collections/{id}", tag = OWNER,
    params(("id" = String, Path, description = "The page's (collection's) id.")),
    security(("ownerToken" = [])),
    responses((status = 200, body = Deleted), OwnerErrors))]
async fn delete_collection(
    State(app): State<App>,
    Path(id): Path<String>,
    owner: Owner<area::Content, Change>,
) -> Result<Json<Deleted>, ApiError> {
    let site = &owner.site;
    let content = site_content(&app.store, site.tenant.id).await?;
    let c = page_of(&content, &id)?;
    if c.kind == PRODUCTS_TYPE {
        // A store's products go with it: the store role too.
        role_may(owner.role, Area::Store, Access::Write)?;
    }
    if c.homepage {
        return Err(ApiError::bad_request(HOMEPAGE_DELETE));
    }
    let navigations = content
        .navigations
        .iter()
        .filter_map(|(name, links)| {
            let new = unlinked(links, &id);
            (new != *links).then(|| (name.clone(), new))
        })
        .collect();
    let collections = content
        .collections
        .iter()
        .filter(|k| k.parent_id.as_deref() == Some(id.as_str()))
        .map(|k| {
            let mut k = k.clone();
            k.parent_id = None;
            k
        })
        .collect();
    let change = PagesChange {
        collections,
        navigations,
        delete: Some(id.clone()),
        ..Default::default()
    };
    app.store
        .put_pages(site.tenant.id, &change)
        .await
        .map_err(|e| refused(&e, NO_PAGE))?;
    Ok(Json(Deleted { deleted: id }))
}
