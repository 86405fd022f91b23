//! `tessera import DIR`: loads one tenant from a folder, in one transaction.
//!
//! # Folder format
//!
//! ```text
//! DIR/
//!   tenant.json                  required  { identifier, name, status?, domains: ["host" | {host, primary}] }
//!   site.json                    optional  { website: {...}, websiteSettings: {...} }
//!   navigation.json              optional  { "<navigationId>": [NavItem] }
//!   header-footer.json           optional  { header, footer }
//!   multilingual.json            optional  any JSON object ({ languages: [...] })
//!   commerce-preferences.json    optional  { "<namespace>": { key: value } }
//!   forms.json                   optional  [ { id?, name, fields, settings? } ]
//!   site-users.json              optional  [ { email, displayName?, password, memberAreas? } ]
//!                                          (confirmed members; the password is stored as an
//!                                          Argon2id hash; memberAreas: ids of areas joined)
//!   collections/<urlId>.json     one per collection, with its items inline
//!   template/                    required  the template folder (template.conf, regions, ...)
//! ```
//!
//! A collection file: `{ id? (24 hex digits; default: a new id), urlId? (default: file
//! stem), title, type, typeName, navigationTitle?, description?, ordering?, enabled?,
//! homepage?, pageSize?, position?, parent? (urlId of a folder), data?, categories?:
//! ["name"], password?, memberArea?, items?: [Item] }`. Fixed ids keep pages byte-identical
//! across imports.
//!
//! `memberArea` (the id of one of `websiteSettings.memberAreas` in `site.json`, see
//! [`crate::member_areas`]) keeps the collection, its items and child collections for the
//! members of that area (page type 105); everyone else gets the area's join page (106).
//!
//! `password` (plain text, non-empty) protects the collection with a lock screen (page type
//! 103): visitors see a password form instead of the collection, its items and, for a folder
//! or index, its child collections. The importer hashes it with Argon2id and stores only the
//! hash (a PHC string); the plain text never reaches the database.
//!
//! An item: `{ id?, urlId, title, recordType? (default 11, a store item, in a store
//! collection (type 13); 1 elsewhere), body?, excerpt?, productType? (default 1 for a store item),
//! starred?, author?, publishOn?, addedOn?, startDate?, endDate? (epoch ms, `YYYY-MM-DD` or
//! RFC 3339), categories?, tags?, structuredContent?, data?, variants?: [Variant],
//! download? }`. `download` (digital products only) is the path, relative to DIR, of the file
//! the product delivers to its buyers (at most 50 MB), e.g. `downloads/guide.pdf`.
//!
//! A variant: `{ sku, attributes?: {option: value}, price: "12.50", salePrice?, onSale?,
//! stock?: n, unlimited?, currency?, weightGrams? }`. Prices are decimal strings in the currency's
//! units (2 decimals, JPY 0); the store keeps minor units. The currency defaults to
//! `websiteSettings.storeSettings.selectedCurrency`, else USD.
//!
//! `commerce-preferences.json` is checked as the store's commerce configuration (taxes,
//! shipping, coupons, instalments, payments; see [`crate::commerce::settings`]): a problem
//! names its path, e.g. `commerce-preferences.json: shipping.options[1].price: ...`; a
//! namespace not in [`crate::commerce::settings::NAMESPACES`] is refused.
//!
//! A navigation item: `{ collection: "<urlId>", title?, items?: [NavItem] }` or
//! `{ title, externalLink: { url, newWindow? } }`; stored with `collectionId`.
//!
//! Unknown fields are errors (they are usually typos). Every file is parsed and checked
//! before anything is written; then all writes run in one transaction, so a failure leaves
//! nothing behind. Errors name the file, the field path and the reason.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::cache::Change;
use crate::error::StoreError;
use crate::ids::{TemplateVersion, new_id};
use crate::model::{
    Collection, HeaderFooter, Item, SiteSettings, TemplateFile, Tenant, Variant, WebsiteStatus,
};
use crate::repo::commerce::{self, DigitalFile};
use crate::repo::{content, forms, templates, tenants};
use crate::store::Store;

/// Why an import failed: which file, which field (a JSON path like
/// `items[2].variants[0].price`, when known) and the reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportError {
    /// The file, relative to the import folder.
    pub file: PathBuf,
    /// The field path inside the file, if the problem is in one field.
    pub field: Option<String>,
    /// What is wrong.
    pub reason: String,
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.field {
            Some(field) => write!(f, "{}: {field}: {}", self.file.display(), self.reason),
            None => write!(f, "{}: {}", self.file.display(), self.reason),
        }
    }
}

impl std::error::Error for ImportError {}

fn err(file: impl Into<PathBuf>, field: Option<String>, reason: impl Into<String>) -> ImportError {
    ImportError {
        file: file.into(),
        field,
        reason: reason.into(),
    }
}

/// What an import wrote.
#[derive(Clone, Debug, PartialEq)]
pub struct ImportReport {
    /// The new tenant.
    pub tenant: Tenant,
    /// Collections written.
    pub collections: usize,
    /// Items written.
    pub items: usize,
    /// Product variants written.
    pub variants: usize,
    /// Template files stored.
    pub template_files: usize,
    /// The template version created.
    pub template_version: TemplateVersion,
}

#[derive(Clone, Deserialize)]
#[serde(untagged)]
pub(crate) enum DomainEntry {
    Host(String),
    Full {
        host: String,
        #[serde(default)]
        primary: bool,
    },
}

#[derive(Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct TenantFile {
    pub(crate) identifier: String,
    pub(crate) name: String,
    #[serde(default = "default_status")]
    pub(crate) status: WebsiteStatus,
    #[serde(default)]
    pub(crate) domains: Vec<DomainEntry>,
}

fn default_status() -> WebsiteStatus {
    WebsiteStatus::Trial
}

#[derive(Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct SiteFile {
    #[serde(default)]
    pub(crate) website: Map<String, Value>,
    #[serde(default)]
    pub(crate) website_settings: Map<String, Value>,
}

#[derive(Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct HeaderFooterFile {
    #[serde(default)]
    header: Value,
    #[serde(default)]
    footer: Value,
}

/// A date: epoch milliseconds, `YYYY-MM-DD` (midnight UTC) or an RFC 3339 timestamp.
#[derive(Deserialize)]
#[serde(untagged)]
enum When {
    Ms(i64),
    Text(String),
}

impl When {
    fn ms(&self) -> Result<i64, String> {
        match self {
            When::Ms(ms) => Ok(*ms),
            When::Text(s) => {
                if let Ok(ts) = s.parse::<jiff::Timestamp>() {
                    return Ok(ts.as_millisecond());
                }
                let date: jiff::civil::Date = s.parse().map_err(|_| {
                    format!("{s:?} is not epoch ms, YYYY-MM-DD or an RFC 3339 timestamp")
                })?;
                date.to_zoned(jiff::tz::TimeZone::UTC)
                    .map(|z| z.timestamp().as_millisecond())
                    .map_err(|e| e.to_string())
            }
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct VariantFile {
    sku: String,
    #[serde(default)]
    attributes: BTreeMap<String, String>,
    price: String,
    #[serde(default)]
    sale_price: Option<String>,
    #[serde(default)]
    on_sale: bool,
    #[serde(default)]
    stock: i64,
    #[serde(default)]
    unlimited: bool,
    #[serde(default)]
    currency: Option<String>,
    #[serde(default)]
    weight_grams: i64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ItemFile {
    #[serde(default)]
    id: Option<String>,
    url_id: String,
    title: String,
    /// 11 (a store item) in a store collection, 1 elsewhere, when absent.
    #[serde(default)]
    record_type: Option<i64>,
    #[serde(default)]
    body: String,
    #[serde(default)]
    excerpt: String,
    #[serde(default)]
    product_type: Option<i64>,
    #[serde(default)]
    starred: bool,
    #[serde(default)]
    author: Option<Value>,
    #[serde(default)]
    publish_on: Option<When>,
    /// `visible` (default), `hidden` or `scheduled` (from `publishOn` on).
    #[serde(default)]
    visibility: Option<String>,
    #[serde(default)]
    added_on: Option<When>,
    #[serde(default)]
    start_date: Option<When>,
    #[serde(default)]
    end_date: Option<When>,
    #[serde(default)]
    categories: Vec<String>,
    #[serde(default)]
    tags: Vec<String>,
    #[serde(default)]
    structured_content: Map<String, Value>,
    #[serde(default)]
    data: Map<String, Value>,
    #[serde(default)]
    variants: Vec<VariantFile>,
    #[serde(default)]
    download: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct CollectionFile {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    url_id: Option<String>,
    title: String,
    #[serde(rename = "type")]
    kind: i64,
    type_name: String,
    #[serde(default)]
    navigation_title: Option<String>,
    #[serde(default)]
    description: String,
    #[serde(default)]
    ordering: Option<String>,
    #[serde(default = "yes")]
    enabled: bool,
    #[serde(default)]
    homepage: bool,
    #[serde(default)]
    page_size: Option<i64>,
    #[serde(default)]
    position: Option<i64>,
    #[serde(default)]
    parent: Option<String>,
    #[serde(default)]
    data: Map<String, Value>,
    #[serde(default)]
    categories: Vec<String>,
    /// Plain-text lock screen password; hashed on import.
    #[serde(default)]
    password: Option<String>,
    /// The member area (`websiteSettings.memberAreas[].id`) the collection belongs to.
    #[serde(default)]
    member_area: Option<String>,
    #[serde(default)]
    items: Vec<ItemFile>,
}

fn yes() -> bool {
    true
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ExternalLink {
    url: String,
    #[serde(default)]
    new_window: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct NavItemFile {
    #[serde(default)]
    collection: Option<String>,
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    external_link: Option<ExternalLink>,
    #[serde(default)]
    items: Vec<NavItemFile>,
}

/// Reads and parses one JSON file; errors carry the file and the field path.
fn read_json<T: DeserializeOwned>(dir: &Path, rel: &str) -> Result<T, ImportError> {
    let text = std::fs::read_to_string(dir.join(rel))
        .map_err(|e| err(rel, None, format!("cannot read: {e}")))?;
    let de = &mut serde_json::Deserializer::from_str(&text);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let field = (path != ".").then_some(path);
        err(rel, field, e.inner().to_string())
    })
}

fn read_optional<T: DeserializeOwned>(dir: &Path, rel: &str) -> Result<Option<T>, ImportError> {
    if dir.join(rel).exists() {
        read_json(dir, rel).map(Some)
    } else {
        Ok(None)
    }
}

pub use crate::commerce::money::parse_price;

/// A collection file parsed: (file, collection, store category names, items, each item's
/// download).
type ParsedCollection = (
    String,
    Collection,
    Vec<String>,
    Vec<Item>,
    Vec<Option<DigitalFile>>,
);

/// Everything parsed and checked, ready to write.
#[derive(Clone)]
pub(crate) struct Parsed {
    pub(crate) tenant: TenantFile,
    pub(crate) site: Option<SiteFile>,
    pub(crate) navigation: BTreeMap<String, Value>,
    pub(crate) header_footer: Option<HeaderFooterFile>,
    pub(crate) multilingual: Option<Value>,
    pub(crate) prefs: BTreeMap<String, Map<String, Value>>,
    pub(crate) forms: Vec<forms::Form>,
    pub(crate) members: Vec<(crate::SiteUser, Vec<String>)>,
    pub(crate) collections: Vec<ParsedCollection>,
    pub(crate) template: Vec<TemplateFile>,
}

/// One member of `site-users.json`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct MemberFile {
    email: String,
    #[serde(default)]
    display_name: String,
    password: String,
    #[serde(default)]
    member_areas: Vec<String>,
}

/// The members of `site-users.json`, their passwords hashed, with the areas they joined
/// (each one of `areas`).
fn read_members(
    dir: &Path,
    areas: &[crate::member_areas::MemberArea],
) -> Result<Vec<(crate::SiteUser, Vec<String>)>, ImportError> {
    const FILE: &str = "site-users.json";
    let list: Vec<MemberFile> = read_optional(dir, FILE)?.unwrap_or_default();
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for (i, m) in list.into_iter().enumerate() {
        let at = |f: &str| Some(format!("[{i}].{f}"));
        let email = m.email.trim().to_lowercase();
        if !email.contains('@') || email.len() > 256 {
            return Err(err(
                FILE,
                at("email"),
                format!("{email:?} is not an email address"),
            ));
        }
        if !seen.insert(email.clone()) {
            return Err(err(FILE, at("email"), format!("{email} is listed twice")));
        }
        if m.password.chars().count() < 8 {
            return Err(err(FILE, at("password"), "needs at least 8 characters"));
        }
        if let Some(a) = m
            .member_areas
            .iter()
            .find(|a| !areas.iter().any(|d| &d.id == *a))
        {
            return Err(err(
                FILE,
                at("memberAreas"),
                format!("{a:?} is not one of websiteSettings.memberAreas in site.json"),
            ));
        }
        let password_hash =
            crate::password::hash(&m.password).map_err(|r| err(FILE, at("password"), r))?;
        let now = crate::ids::now_ms();
        let user = crate::SiteUser {
            id: new_id(),
            email,
            display_name: m.display_name,
            password_hash,
            created_ms: now,
            locale: None,
            verified_ms: Some(now),
        };
        out.push((user, m.member_areas));
    }
    Ok(out)
}

fn read_template(dir: &Path) -> Result<Vec<TemplateFile>, ImportError> {
    let root = dir.join("template");
    if !root.join("template.conf").is_file() {
        return Err(err(
            "template/template.conf",
            None,
            "missing: the template folder needs a template.conf",
        ));
    }
    let mut files = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(d) = stack.pop() {
        let entries = std::fs::read_dir(&d)
            .map_err(|e| err(d.strip_prefix(dir).unwrap_or(&d), None, e.to_string()))?;
        for entry in entries {
            let path = entry
                .map_err(|e| err("template", None, e.to_string()))?
                .path();
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if name.starts_with('.') {
                continue;
            }
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let rel = path.strip_prefix(&root).expect("inside root");
            let rel_s = rel
                .components()
                .map(|c| c.as_os_str().to_str().map(str::to_owned))
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| {
                    err(
                        path.strip_prefix(dir).unwrap_or(&path),
                        None,
                        "file name is not UTF-8",
                    )
                })?
                .join("/");
            let content = std::fs::read(&path)
                .map_err(|e| err(path.strip_prefix(dir).unwrap_or(&path), None, e.to_string()))?;
            files.push(TemplateFile {
                path: rel_s,
                content,
            });
        }
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(files)
}

/// The largest file a digital product may deliver.
const MAX_DOWNLOAD_BYTES: u64 = 50_000_000;

/// Reads the file a digital product delivers (`download`, relative to the tenant folder).
fn read_download(
    dir: &Path,
    file: &str,
    field: Option<String>,
    rel: &str,
) -> Result<DigitalFile, ImportError> {
    let path = dir.join(rel);
    let inside = Path::new(rel)
        .components()
        .all(|c| matches!(c, std::path::Component::Normal(_)));
    if !inside {
        return Err(err(
            file,
            field,
            format!("{rel:?} must be a path inside the tenant folder"),
        ));
    }
    let meta =
        std::fs::metadata(&path).map_err(|e| err(file, field.clone(), format!("{rel}: {e}")))?;
    if !meta.is_file() || meta.len() > MAX_DOWNLOAD_BYTES {
        return Err(err(
            file,
            field,
            format!("{rel} is not a file of at most {MAX_DOWNLOAD_BYTES} bytes"),
        ));
    }
    let content =
        std::fs::read(&path).map_err(|e| err(file, field.clone(), format!("{rel}: {e}")))?;
    let file_name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("download")
        .to_owned();
    let content_type = match file_name.rsplit('.').next().unwrap_or("") {
        "pdf" => "application/pdf",
        "zip" => "application/zip",
        "epub" => "application/epub+zip",
        "mp3" => "audio/mpeg",
        "mp4" => "video/mp4",
        "txt" => "text/plain; charset=utf-8",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        _ => "application/octet-stream",
    }
    .to_owned();
    Ok(DigitalFile {
        file_name,
        content_type,
        content,
    })
}

fn convert_items(
    dir: &Path,
    file: &str,
    items: Vec<ItemFile>,
    currency: &str,
    store: bool,
) -> Result<(Vec<Item>, Vec<Option<DigitalFile>>), ImportError> {
    let mut seen = HashSet::new();
    let mut out = Vec::with_capacity(items.len());
    let mut downloads = Vec::with_capacity(items.len());
    for (i, it) in items.into_iter().enumerate() {
        let at = |field: &str| Some(format!("items[{i}].{field}"));
        if !seen.insert(it.url_id.clone()) {
            return Err(err(
                file,
                at("urlId"),
                format!("duplicate urlId {:?}", it.url_id),
            ));
        }
        let when = |w: &Option<When>, field: &str| -> Result<Option<i64>, ImportError> {
            w.as_ref()
                .map(When::ms)
                .transpose()
                .map_err(|r| err(file, at(field), r))
        };
        let record_type = it.record_type.unwrap_or(if store { 11 } else { 1 });
        let mut skus = HashSet::new();
        let mut variants = Vec::new();
        for (j, v) in it.variants.into_iter().enumerate() {
            let vat = |field: &str| Some(format!("items[{i}].variants[{j}].{field}"));
            if !skus.insert(v.sku.clone()) {
                return Err(err(file, vat("sku"), format!("duplicate sku {:?}", v.sku)));
            }
            let cur = v.currency.clone().unwrap_or_else(|| currency.to_owned());
            let price_minor =
                parse_price(&v.price, &cur).map_err(|r| err(file, vat("price"), r))?;
            let sale_price_minor = match &v.sale_price {
                Some(p) => parse_price(p, &cur).map_err(|r| err(file, vat("salePrice"), r))?,
                None => 0,
            };
            if v.stock < 0 {
                return Err(err(file, vat("stock"), "must not be negative"));
            }
            if v.on_sale && v.sale_price.is_none() {
                return Err(err(
                    file,
                    vat("salePrice"),
                    "a variant on sale needs a salePrice",
                ));
            }
            if v.weight_grams < 0 {
                return Err(err(file, vat("weightGrams"), "must not be negative"));
            }
            variants.push(Variant {
                sku: v.sku,
                attributes: v.attributes,
                currency: cur,
                price_minor,
                sale_price_minor,
                on_sale: v.on_sale,
                qty_in_stock: v.stock,
                unlimited: v.unlimited,
                weight_grams: v.weight_grams,
            });
        }
        if record_type == 11 && variants.is_empty() {
            return Err(err(
                file,
                at("variants"),
                "a store item (recordType 11) needs at least one variant",
            ));
        }
        let publish = when(&it.publish_on, "publishOn")?;
        let visibility = match it.visibility.as_deref() {
            None => crate::model::Visibility::Visible,
            Some(word) => crate::model::Visibility::parse(word).ok_or_else(|| {
                err(
                    file,
                    at("visibility"),
                    "must be \"visible\", \"hidden\" or \"scheduled\"",
                )
            })?,
        };
        if visibility == crate::model::Visibility::Scheduled && publish.is_none() {
            return Err(err(
                file,
                at("publishOn"),
                "a scheduled item needs the moment it shows from",
            ));
        }
        let product_type = it
            .product_type
            .or(if record_type == 11 { Some(1) } else { None });
        downloads.push(match &it.download {
            None => None,
            Some(_) if product_type != Some(crate::commerce::product_type::DIGITAL) => {
                return Err(err(
                    file,
                    at("download"),
                    "only digital products (productType 2) deliver a file",
                ));
            }
            Some(rel) => Some(read_download(dir, file, at("download"), rel)?),
        });
        out.push(Item {
            id: it.id.unwrap_or_default(),
            collection_id: String::new(),
            url_id: it.url_id,
            title: it.title,
            body: it.body,
            excerpt: it.excerpt,
            record_type,
            product_type,
            starred: it.starred,
            author: it.author,
            added_on: when(&it.added_on, "addedOn")?.or(publish).unwrap_or(0),
            publish_on: publish.unwrap_or(0),
            visibility,
            updated_on: 0,
            start_date: when(&it.start_date, "startDate")?,
            end_date: when(&it.end_date, "endDate")?,
            position: i as i64,
            categories: it.categories,
            tags: it.tags,
            structured_content: it.structured_content,
            variants,
            data: it.data,
        });
    }
    Ok((out, downloads))
}

fn convert_nav(
    file: &str,
    path: &str,
    items: Vec<NavItemFile>,
    ids: &HashMap<String, String>,
) -> Result<Value, ImportError> {
    let mut out = Vec::new();
    for (i, it) in items.into_iter().enumerate() {
        let here = format!("{path}[{i}]");
        let mut obj = Map::new();
        match (&it.collection, &it.external_link) {
            (Some(c), None) => {
                let id = ids.get(c).ok_or_else(|| {
                    err(
                        file,
                        Some(format!("{here}.collection")),
                        format!("unknown collection {c:?}"),
                    )
                })?;
                obj.insert("collectionId".into(), Value::String(id.clone()));
            }
            (None, Some(link)) => {
                if it.title.is_none() {
                    return Err(err(
                        file,
                        Some(format!("{here}.title")),
                        "an external link needs a title",
                    ));
                }
                obj.insert(
                    "externalLink".into(),
                    serde_json::json!({ "url": link.url, "newWindow": link.new_window }),
                );
            }
            _ => {
                return Err(err(
                    file,
                    Some(here),
                    "needs exactly one of `collection` and `externalLink`",
                ));
            }
        }
        if let Some(t) = it.title {
            obj.insert("title".into(), Value::String(t));
        }
        if !it.items.is_empty() {
            obj.insert(
                "items".into(),
                convert_nav(file, &format!("{here}.items"), it.items, ids)?,
            );
        }
        out.push(Value::Object(obj));
    }
    Ok(Value::Array(out))
}

pub(crate) fn parse_dir(dir: &Path, progress: &mut dyn FnMut(&str)) -> Result<Parsed, ImportError> {
    if !dir.is_dir() {
        return Err(err(dir, None, "not a directory"));
    }
    progress("reading tenant.json");
    let tenant: TenantFile = read_json(dir, "tenant.json")?;
    if tenant.domains.is_empty() {
        return Err(err(
            "tenant.json",
            Some("domains".into()),
            "a tenant needs at least one domain",
        ));
    }
    let site: Option<SiteFile> = read_optional(dir, "site.json")?;
    let areas =
        match &site {
            Some(s) => crate::member_areas::member_areas(&s.website_settings).map_err(
                |(path, reason)| err("site.json", Some(format!("websiteSettings.{path}")), reason),
            )?,
            None => Vec::new(),
        };
    let currency = site
        .as_ref()
        .and_then(|s| s.website_settings.get("storeSettings"))
        .and_then(|s| s.get("selectedCurrency"))
        .and_then(Value::as_str)
        .unwrap_or("USD")
        .to_owned();

    let mut collections = Vec::new();
    let mut ids = HashMap::new();
    let cdir = dir.join("collections");
    if cdir.is_dir() {
        let mut names: Vec<String> = std::fs::read_dir(&cdir)
            .map_err(|e| err("collections", None, e.to_string()))?
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .filter(|n| n.ends_with(".json"))
            .collect();
        names.sort();
        for (pos, name) in names.into_iter().enumerate() {
            let rel = format!("collections/{name}");
            progress(&format!("reading {rel}"));
            let cf: CollectionFile = read_json(dir, &rel)?;
            let stem = name.trim_end_matches(".json").to_owned();
            let url_id = cf.url_id.clone().unwrap_or(stem);
            let id = cf.id.clone().unwrap_or_else(new_id);
            if ids.insert(url_id.clone(), id.clone()).is_some() {
                return Err(err(
                    &rel,
                    Some("urlId".into()),
                    format!("urlId {url_id:?} is used by another collection"),
                ));
            }
            let (items, downloads) = convert_items(
                dir,
                &rel,
                cf.items,
                &currency,
                cf.kind == crate::store_setup::PRODUCTS_TYPE,
            )?;
            let password_hash = match &cf.password {
                None => None,
                Some(p) if p.trim().is_empty() => {
                    return Err(err(
                        &rel,
                        Some("password".into()),
                        "must not be empty (leave the field out for a public collection)",
                    ));
                }
                Some(p) => Some(
                    crate::password::hash(p).map_err(|r| err(&rel, Some("password".into()), r))?,
                ),
            };
            let mut data = cf.data;
            if let Some(area) = cf.member_area {
                if !areas.iter().any(|a| a.id == area) {
                    return Err(err(
                        &rel,
                        Some("memberArea".into()),
                        format!("{area:?} is not one of websiteSettings.memberAreas in site.json"),
                    ));
                }
                data.insert("memberAreaId".into(), Value::String(area));
            }
            let c = Collection {
                id,
                url_id,
                title: cf.title.clone(),
                navigation_title: cf.navigation_title.unwrap_or(cf.title),
                description: cf.description,
                kind: cf.kind,
                type_name: cf.type_name,
                ordering: cf.ordering.unwrap_or_else(|| "user-orderable".into()),
                enabled: cf.enabled,
                homepage: cf.homepage,
                parent_id: cf.parent.clone(),
                position: cf.position.unwrap_or(pos as i64),
                page_size: cf.page_size,
                data,
                password_hash,
            };
            collections.push((rel, c, cf.categories, items, downloads));
        }
    }
    if collections
        .iter()
        .filter(|(_, c, _, _, _)| c.homepage)
        .count()
        > 1
    {
        return Err(err(
            "collections",
            None,
            "more than one collection has \"homepage\": true",
        ));
    }
    // Parents are given by urlId; resolve them now that every collection has an id.
    for (rel, c, _, _, _) in collections.iter_mut() {
        if let Some(parent) = c.parent_id.take() {
            let id = ids.get(&parent).ok_or_else(|| {
                err(
                    rel.as_str(),
                    Some("parent".into()),
                    format!("unknown collection {parent:?}"),
                )
            })?;
            c.parent_id = Some(id.clone());
        }
    }

    let mut navigation = BTreeMap::new();
    if let Some(nav) = read_optional::<BTreeMap<String, Vec<NavItemFile>>>(dir, "navigation.json")?
    {
        for (name, items) in nav {
            navigation.insert(
                name.clone(),
                convert_nav("navigation.json", &name, items, &ids)?,
            );
        }
    }
    let header_footer: Option<HeaderFooterFile> = read_optional(dir, "header-footer.json")?;
    let multilingual: Option<Value> = read_optional(dir, "multilingual.json")?;
    let prefs: BTreeMap<String, Map<String, Value>> =
        read_optional(dir, "commerce-preferences.json")?.unwrap_or_default();
    let no_settings = Map::new();
    if let Some(ns) = prefs
        .keys()
        .find(|ns| !crate::commerce::settings::NAMESPACES.contains(&ns.as_str()))
    {
        let e = crate::commerce::settings::check_namespace(&no_settings, ns, &Map::new())
            .expect_err("an unknown namespace is refused");
        return Err(err("commerce-preferences.json", Some(e.path), e.reason));
    }
    crate::commerce::CommerceSettings::from_site(
        site.as_ref().map_or(&no_settings, |s| &s.website_settings),
        &prefs,
    )
    .map_err(|e| err("commerce-preferences.json", Some(e.path), e.reason))?;
    let forms: Vec<forms::Form> = read_optional(dir, "forms.json")?.unwrap_or_default();
    let members = read_members(dir, &areas)?;
    progress("reading template/");
    let template = read_template(dir)?;
    Ok(Parsed {
        tenant,
        site,
        navigation,
        header_footer,
        multilingual,
        prefs,
        forms,
        members,
        collections,
        template,
    })
}

/// Imports the tenant in `dir` (format in the module docs), reporting progress through
/// `progress`. Parses and checks every file first, then writes everything in one
/// transaction: on any error nothing is written.
pub async fn import_dir(
    store: &Store,
    dir: &Path,
    progress: &mut dyn FnMut(&str),
) -> Result<ImportReport, ImportError> {
    import_dir_with(store, dir, progress, &|_, _| Ok(Vec::new())).await
}

/// Builds files a template version carries besides the folder's own (the compiled
/// stylesheet), from the folder's files and the site's `websiteSettings`; an `Err` is a
/// problem in a template file, which stops the import.
pub type TemplateBuild<'a> =
    dyn Fn(&[TemplateFile], &Map<String, Value>) -> Result<Vec<TemplateFile>, ImportError> + 'a;

/// [`import_dir`], with `build` adding files to the template version (the server compiles
/// the folder's LESS there: the renderer never runs Node).
pub async fn import_dir_with(
    store: &Store,
    dir: &Path,
    progress: &mut dyn FnMut(&str),
    build: &TemplateBuild<'_>,
) -> Result<ImportReport, ImportError> {
    let mut p = parse_dir(dir, progress)?;
    let no_settings = Map::new();
    let settings = p
        .site
        .as_ref()
        .map_or(&no_settings, |s| &s.website_settings);
    let built = build(&p.template, settings)?;
    p.template.extend(built);
    let db = |file: &str| {
        let file = file.to_owned();
        move |e: StoreError| err(file.clone(), None, e.to_string())
    };
    if store
        .tenant_by_identifier(&p.tenant.identifier)
        .await
        .map_err(db("tenant.json"))?
        .is_some()
    {
        return Err(err(
            "tenant.json",
            Some("identifier".into()),
            format!("a tenant {:?} already exists", p.tenant.identifier),
        ));
    }
    progress("writing (one transaction)");
    let mut tx = store.write().await.map_err(db("tenant.json"))?;
    let w = write_parsed(&mut tx, &p, progress).await?;
    store
        .commit_change(tx, w.tenant, Change::Tenant)
        .await
        .map_err(db("tenant.json"))?;
    let tenant = store.tenant(w.tenant).await.map_err(db("tenant.json"))?;
    progress(&format!(
        "imported tenant {:?} (id {})",
        tenant.identifier, tenant.id
    ));
    Ok(ImportReport {
        tenant,
        collections: p.collections.len(),
        items: w.items,
        variants: w.variants,
        template_files: p.template.len(),
        template_version: w.template_version,
    })
}

/// What [`write_parsed`] wrote.
pub(crate) struct Written {
    pub(crate) tenant: crate::ids::TenantId,
    pub(crate) items: usize,
    pub(crate) variants: usize,
    pub(crate) template_version: TemplateVersion,
}

/// Writes a parsed tenant folder in `tx` (the caller commits): the tenant, its domains,
/// content, forms, members and template version.
pub(crate) async fn write_parsed(
    tx: &mut crate::sql::Tx,
    p: &Parsed,
    progress: &mut dyn FnMut(&str),
) -> Result<Written, ImportError> {
    let db = |file: &str| {
        let file = file.to_owned();
        move |e: StoreError| err(file.clone(), None, e.to_string())
    };
    let t = tenants::insert_tenant(tx, &p.tenant.identifier, &p.tenant.name, p.tenant.status)
        .await
        .map_err(db("tenant.json"))?;
    let first_primary = !p
        .tenant
        .domains
        .iter()
        .any(|d| matches!(d, DomainEntry::Full { primary: true, .. }));
    for (i, d) in p.tenant.domains.iter().enumerate() {
        let (host, primary) = match d {
            DomainEntry::Host(h) => (h.as_str(), first_primary && i == 0),
            DomainEntry::Full { host, primary } => {
                (host.as_str(), *primary || (first_primary && i == 0))
            }
        };
        tenants::insert_domain(tx, t.id, host, primary)
            .await
            .map_err(|e| err("tenant.json", Some(format!("domains[{i}]")), e.to_string()))?;
    }
    if let Some(site) = &p.site {
        let s = SiteSettings {
            website: site.website.clone(),
            website_settings: site.website_settings.clone(),
        };
        content::put_settings_in(tx, t.id, &s)
            .await
            .map_err(db("site.json"))?;
    }
    let (mut n_items, mut n_variants) = (0, 0);
    for (rel, c, categories, items, downloads) in &p.collections {
        let cid = content::put_collection_in(tx, t.id, c)
            .await
            .map_err(db(rel))?;
        for (i, name) in categories.iter().enumerate() {
            let cat = crate::model::Category {
                id: new_id(),
                collection_id: cid.clone(),
                display_name: name.clone(),
                parent_category_id: None,
                kind: if i == 0 {
                    "ROOT".into()
                } else {
                    "CHILD".into()
                },
                page_rendering: "LIST_VIEW".into(),
                display_index: i as i64 + 1,
            };
            content::put_category_in(tx, t.id, &cat)
                .await
                .map_err(db(rel))?;
        }
        for (i, item) in items.iter().enumerate() {
            let item = Item {
                collection_id: cid.clone(),
                ..item.clone()
            };
            let id = content::put_item_in(tx, t.id, &item)
                .await
                .map_err(|e| err(rel.as_str(), Some(format!("items[{i}]")), e.to_string()))?;
            if let Some(Some(file)) = downloads.get(i) {
                commerce::put_digital_file_in(tx, t.id, &id, file)
                    .await
                    .map_err(|e| {
                        err(
                            rel.as_str(),
                            Some(format!("items[{i}].download")),
                            e.to_string(),
                        )
                    })?;
            }
            n_variants += item.variants.len();
        }
        n_items += items.len();
        progress(&format!(
            "{rel}: collection {:?} with {} items{}",
            c.url_id,
            items.len(),
            if c.password_hash.is_some() {
                ", password-protected"
            } else {
                ""
            }
        ));
    }
    for (name, items) in &p.navigation {
        content::put_navigation_in(tx, t.id, name, items)
            .await
            .map_err(db("navigation.json"))?;
    }
    if let Some(hf) = &p.header_footer {
        let hf = HeaderFooter {
            header: hf.header.clone(),
            footer: hf.footer.clone(),
        };
        content::put_header_footer_in(tx, t.id, &hf)
            .await
            .map_err(db("header-footer.json"))?;
    }
    if let Some(m) = &p.multilingual {
        content::put_multilingual_in(tx, t.id, m)
            .await
            .map_err(db("multilingual.json"))?;
    }
    for (ns, prefs) in &p.prefs {
        content::put_commerce_preferences_in(tx, t.id, ns, prefs)
            .await
            .map_err(db("commerce-preferences.json"))?;
    }
    for (i, f) in p.forms.iter().enumerate() {
        forms::put_form_in(tx, t.id, f)
            .await
            .map_err(|e| err("forms.json", Some(format!("[{i}]")), e.to_string()))?;
    }
    for (i, (m, areas)) in p.members.iter().enumerate() {
        crate::repo::site_users::insert_site_user_in(tx, t.id, m)
            .await
            .map_err(|e| err("site-users.json", Some(format!("[{i}]")), e.to_string()))?;
        crate::repo::member_areas::grant_all_in(tx, t.id, &m.id, areas)
            .await
            .map_err(|e| err("site-users.json", Some(format!("[{i}]")), e.to_string()))?;
    }
    let version = templates::put_template_version_in(tx, t.id, &p.template)
        .await
        .map_err(db("template"))?;
    progress(&format!(
        "template/: {} files as template version {version}",
        p.template.len()
    ));
    Ok(Written {
        tenant: t.id,
        items: n_items,
        variants: n_variants,
        template_version: version,
    })
}
