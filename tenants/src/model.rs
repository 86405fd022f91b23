//! The records the store reads and writes. Field names follow the page context
//! (TEMPLATE-PLATFORM.md section 3) where the renderer shows them, so it can map them 1:1.
//! Money is always integer minor units (`*_minor`) with a currency code; instants are epoch
//! milliseconds.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::cache::JsonShape;
use crate::error::{Result, StoreError};
use crate::ids::{TemplateHash, TemplateVersion, TenantId};

/// Website status, with SPEC.md's numbers (point 3, "Website status").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[allow(missing_docs)]
pub enum WebsiteStatus {
    Expired,
    PastDue,
    Trial,
    Beta,
    Removed,
    Internal,
    Comped,
    Paid,
    Linked,
    ParkingPage,
    Resold,
    ResoldGrace,
    Enterprise,
}

impl WebsiteStatus {
    const TABLE: [(WebsiteStatus, i64); 13] = [
        (WebsiteStatus::Expired, 1),
        (WebsiteStatus::PastDue, 2),
        (WebsiteStatus::Trial, 3),
        (WebsiteStatus::Beta, 4),
        (WebsiteStatus::Removed, 5),
        (WebsiteStatus::Internal, 6),
        (WebsiteStatus::Comped, 7),
        (WebsiteStatus::Paid, 8),
        (WebsiteStatus::Linked, 11),
        (WebsiteStatus::ParkingPage, 12),
        (WebsiteStatus::Resold, 13),
        (WebsiteStatus::ResoldGrace, 14),
        (WebsiteStatus::Enterprise, 15),
    ];

    /// The SPEC.md number of this status.
    pub fn code(self) -> i64 {
        Self::TABLE
            .iter()
            .find(|(s, _)| *s == self)
            .map(|(_, c)| *c)
            .unwrap_or(0)
    }

    /// The status with SPEC.md number `code`.
    pub fn from_code(code: i64) -> Result<Self> {
        Self::TABLE
            .iter()
            .find(|(_, c)| *c == code)
            .map(|(s, _)| *s)
            .ok_or_else(|| StoreError::decode(format!("unknown website status {code}")))
    }
}

/// A tenant: one website with its own domains, content and commerce state.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Tenant {
    /// The scope of every other row.
    pub id: TenantId,
    /// Unique short name (the site "identifier"/subdomain), used by `tessera import`.
    pub identifier: String,
    /// Display name (the site title at creation).
    pub name: String,
    /// Billing/lifecycle status.
    pub status: WebsiteStatus,
    /// Bumped by every content write; cache entries carry the version they were built from.
    pub content_version: i64,
    /// The active template folder version, if a template was uploaded.
    pub template_version: Option<TemplateVersion>,
    /// The content hash of the active version's files ([`crate::template_hash`]), stored
    /// with the version: a renderer sharing compiled folders by content finds the one this
    /// tenant uses without reading its files. Not part of any JSON the site shows.
    #[serde(skip)]
    pub template_hash: Option<TemplateHash>,
    /// Creation instant, epoch ms.
    pub created_ms: i64,
}

/// A host name that resolves to a tenant.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Domain {
    /// Lower-case host without port.
    pub host: String,
    /// The canonical domain of the site (at most one per tenant).
    #[serde(default)]
    pub primary: bool,
}

impl Domain {
    /// The host a site's absolute links use: its primary domain, else its first configured
    /// one, else the identifier's local name (`<identifier>.localhost`).
    pub fn link_host(domains: &[Domain], identifier: &str) -> String {
        domains
            .iter()
            .find(|d| d.primary)
            .or(domains.first())
            .map_or_else(|| format!("{identifier}.localhost"), |d| d.host.clone())
    }
}

/// Site identity and owner settings: the `website` and `websiteSettings` objects of the
/// page context, kept as JSON objects (the renderer adds derived fields).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SiteSettings {
    /// `website`: siteTitle, siteTagLine, language, timeZone, socialAccounts ...
    #[serde(default)]
    pub website: Map<String, Value>,
    /// `websiteSettings`: title formats, storeSettings, commentsEnabled ...
    #[serde(default)]
    pub website_settings: Map<String, Value>,
}

/// A collection (a page, blog, events list, store, folder or index).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Collection {
    /// 24-hex id (generated on import when absent).
    #[serde(default)]
    pub id: String,
    /// Slug: the collection's URL is `/<urlId>`.
    pub url_id: String,
    /// Title shown on the page.
    pub title: String,
    /// Title shown in navigation (defaults to the title).
    #[serde(default)]
    pub navigation_title: String,
    /// HTML description.
    #[serde(default)]
    pub description: String,
    /// Platform kind (`collection.type`): 1 generic, 7 template page, 10 page, 13 products.
    #[serde(rename = "type")]
    pub kind: i64,
    /// Template type: the `collections/<typeName>.conf` stem (`blog`, `products`, `page`...).
    pub type_name: String,
    /// `chronological`, `user-orderable`, `calendar` or `music-album`.
    #[serde(default = "default_ordering")]
    pub ordering: String,
    /// Disabled collections are not routed.
    #[serde(default = "yes")]
    pub enabled: bool,
    /// The site's home page (`/`).
    #[serde(default)]
    pub homepage: bool,
    /// Parent folder/index, if any.
    #[serde(default)]
    pub parent_id: Option<String>,
    /// Order among siblings.
    #[serde(default)]
    pub position: i64,
    /// Items per list page; `None` = platform default.
    #[serde(default)]
    pub page_size: Option<i64>,
    /// Every other context field (`regionName`, `mainContent`, `mainImage`, `features` ...).
    #[serde(default)]
    pub data: Map<String, Value>,
    /// The lock screen's password as an Argon2id PHC string (`None`: a public collection).
    /// Never serialized, so it cannot reach JSON output; the plain password is never stored.
    #[serde(skip)]
    pub password_hash: Option<String>,
}

fn default_ordering() -> String {
    "user-orderable".into()
}
fn yes() -> bool {
    true
}

/// A product variant with its price and stock.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Variant {
    /// Stock-keeping unit, unique within its product.
    pub sku: String,
    /// Option name → value (`{"Size": "M"}`).
    #[serde(default)]
    pub attributes: BTreeMap<String, String>,
    /// ISO currency code.
    pub currency: String,
    /// Price in minor units (cents; yen for JPY).
    pub price_minor: i64,
    /// Sale price in minor units (meaningful when `on_sale`).
    #[serde(default)]
    pub sale_price_minor: i64,
    /// Whether the sale price applies.
    #[serde(default)]
    pub on_sale: bool,
    /// Units available (not held by carts or sold).
    #[serde(default)]
    pub qty_in_stock: i64,
    /// Stock is not tracked.
    #[serde(default)]
    pub unlimited: bool,
    /// Shipping weight of one unit, grams (by-weight shipping rates).
    #[serde(default)]
    pub weight_grams: i64,
}

/// Whether visitors see an item (the owner always does): shown, a draft, or shown from its
/// `publishOn` on. The import format's and the owner API's `visibility`, in these words.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Visibility {
    /// Shown (every item before visibility existed).
    #[default]
    Visible,
    /// A draft: only the owner sees it.
    Hidden,
    /// Hidden until its `publishOn`, shown from then on (nothing runs then: readers compare
    /// with the time they read at).
    Scheduled,
}

impl Visibility {
    /// The stored and written word.
    pub fn as_str(self) -> &'static str {
        match self {
            Visibility::Visible => "visible",
            Visibility::Hidden => "hidden",
            Visibility::Scheduled => "scheduled",
        }
    }

    /// The visibility a stored word names (an unknown word reads as hidden: nothing is
    /// shown by mistake).
    pub fn parse(word: &str) -> Option<Visibility> {
        match word {
            "visible" => Some(Visibility::Visible),
            "hidden" => Some(Visibility::Hidden),
            "scheduled" => Some(Visibility::Scheduled),
            _ => None,
        }
    }

    /// Whether visitors see an item with this visibility and `publish_on` at `now_ms`: the
    /// one rule every visitor-facing path applies (the site's view of its content, carts,
    /// checkout).
    pub fn shows(self, publish_on: i64, now_ms: i64) -> bool {
        match self {
            Visibility::Visible => true,
            Visibility::Hidden => false,
            Visibility::Scheduled => publish_on <= now_ms,
        }
    }

    /// [`Visibility::shows`] for a stored word (queries that read an item's `visibility`
    /// and `publish_on` columns alone); a word this binary does not know is hidden.
    pub fn stored_shows(word: &str, publish_on: i64, now_ms: i64) -> bool {
        Visibility::parse(word).is_some_and(|v| v.shows(publish_on, now_ms))
    }
}

/// A collection item: page section, blog post, event or product.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Item {
    /// 24-hex id (generated on import when absent).
    #[serde(default)]
    pub id: String,
    /// The collection it belongs to (set by the importer from the file it sits in).
    #[serde(default)]
    pub collection_id: String,
    /// Slug: the permalink is `/<collection urlId>/<urlId>`.
    pub url_id: String,
    /// Title.
    pub title: String,
    /// HTML body.
    #[serde(default)]
    pub body: String,
    /// HTML excerpt.
    #[serde(default)]
    pub excerpt: String,
    /// Record type (1 text, 11 store item, 12 event ...).
    pub record_type: i64,
    /// Product type for store items (1 physical, 2 digital, 3 service, 4 gift card).
    #[serde(default)]
    pub product_type: Option<i64>,
    /// The "featured" flag.
    #[serde(default)]
    pub starred: bool,
    /// `{ displayName, ... }`.
    #[serde(default)]
    pub author: Option<Value>,
    /// Epoch ms.
    #[serde(default)]
    pub added_on: i64,
    /// Epoch ms; lists order chronological collections by it, and a `scheduled` item shows
    /// from then on.
    #[serde(default)]
    pub publish_on: i64,
    /// Whether visitors see it ([`Item::shown_at`]).
    #[serde(default)]
    pub visibility: Visibility,
    /// Epoch ms.
    #[serde(default)]
    pub updated_on: i64,
    /// Events: start, epoch ms.
    #[serde(default)]
    pub start_date: Option<i64>,
    /// Events: end, epoch ms.
    #[serde(default)]
    pub end_date: Option<i64>,
    /// Order in user-orderable collections.
    #[serde(default)]
    pub position: i64,
    /// Category names.
    #[serde(default)]
    pub categories: Vec<String>,
    /// Tag names.
    #[serde(default)]
    pub tags: Vec<String>,
    /// Kind-specific data (`structuredContent`) other than the variants.
    #[serde(default)]
    pub structured_content: Map<String, Value>,
    /// Product variants with price and stock (store items only).
    #[serde(default)]
    pub variants: Vec<Variant>,
    /// Every other context field (`assetUrl`, `location`, `customContent`, `oembed` ...).
    #[serde(default)]
    pub data: Map<String, Value>,
}

impl Item {
    /// Whether visitors see this item at `now_ms` ([`Visibility::shows`]).
    pub fn shown_at(&self, now_ms: i64) -> bool {
        self.visibility.shows(self.publish_on, now_ms)
    }

    /// When a scheduled item not shown at `now_ms` starts to show.
    pub fn shows_from(&self, now_ms: i64) -> Option<i64> {
        (self.visibility == Visibility::Scheduled && self.publish_on > now_ms)
            .then_some(self.publish_on)
    }
}

/// A store category (SPEC "Root category": type ROOT, LIST_VIEW, display index 1).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Category {
    /// 24-hex id.
    pub id: String,
    /// The store collection.
    pub collection_id: String,
    /// Shown name (at most 25 characters per SPEC).
    pub display_name: String,
    /// Parent category; `None` for the root.
    pub parent_category_id: Option<String>,
    /// `ROOT` or a child kind.
    #[serde(rename = "type")]
    pub kind: String,
    /// `LIST_VIEW` ...
    pub page_rendering: String,
    /// Order among siblings.
    pub display_index: i64,
}

/// Site header and footer objects (`GET /api/site-header-footer`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct HeaderFooter {
    /// Header object.
    #[serde(default)]
    pub header: Value,
    /// Footer object.
    #[serde(default)]
    pub footer: Value,
}

/// One template folder file of a template version.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TemplateFile {
    /// Path inside the folder, `/`-separated (`collections/blog.list`).
    pub path: String,
    /// Raw bytes (text files are UTF-8).
    pub content: Vec<u8>,
}

/// Everything the renderer reads for a tenant, loaded in one snapshot and cached per
/// content version (see [`crate::Store::site_content`]).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SiteSnapshot {
    /// The tenant as of this snapshot.
    pub tenant: Tenant,
    /// Its domains, primary first.
    pub domains: Vec<Domain>,
    /// `website` / `websiteSettings`.
    pub settings: SiteSettings,
    /// Collections ordered by position then title.
    pub collections: Vec<Collection>,
    /// All items with variants, categories and tags, by collection then position.
    pub items: Vec<Item>,
    /// Store categories.
    pub categories: Vec<Category>,
    /// Named navigations (`template.conf` `navigations[].name`) → items array.
    pub navigations: BTreeMap<String, Value>,
    /// Header and footer.
    pub header_footer: HeaderFooter,
    /// Multilingual settings (`languages` list ...).
    pub multilingual: Value,
    /// Commerce preferences per namespace.
    pub commerce_preferences: BTreeMap<String, Map<String, Value>>,
    /// The size of all the above as JSON, measured once when loaded (see
    /// [`SiteSnapshot::measured`]): the caches weigh a site by it, and measuring means
    /// serializing the whole site.
    #[serde(skip)]
    pub shape: JsonShape,
}

impl SiteSnapshot {
    /// The same content with its [`SiteSnapshot::shape`] measured.
    pub fn measured(mut self) -> SiteSnapshot {
        self.shape = crate::cache::json_shape(&self);
        self
    }

    /// The collection with slug `url_id`.
    pub fn collection_by_url(&self, url_id: &str) -> Option<&Collection> {
        self.collections.iter().find(|c| c.url_id == url_id)
    }

    /// Items of one collection, in stored order.
    pub fn items_of<'a>(&'a self, collection_id: &'a str) -> impl Iterator<Item = &'a Item> + 'a {
        self.items
            .iter()
            .filter(move |i| i.collection_id == collection_id)
    }

    /// The collection with this id.
    pub fn collection(&self, id: &str) -> Option<&Collection> {
        self.collections.iter().find(|c| c.id == id)
    }

    /// The home page collection (`homepage: true`), else the first enabled collection.
    pub fn homepage(&self) -> Option<&Collection> {
        self.collections
            .iter()
            .find(|c| c.homepage)
            .or_else(|| self.collections.iter().find(|c| c.enabled))
    }

    /// Items of a collection in the order its `ordering` asks for: `chronological` newest
    /// `publishOn` first, `calendar` by `startDate` (then `publishOn`), anything else
    /// (`user-orderable`, `music-album`) by position. Ties keep the stored order.
    pub fn ordered_items<'a>(&'a self, collection: &Collection) -> Vec<&'a Item> {
        let mut items: Vec<&Item> = self
            .items
            .iter()
            .filter(|i| i.collection_id == collection.id)
            .collect();
        match collection.ordering.as_str() {
            "chronological" => items.sort_by_key(|i| std::cmp::Reverse(i.publish_on)),
            "calendar" => {
                items.sort_by_key(|i| (i.start_date.unwrap_or(i.publish_on), i.publish_on))
            }
            _ => items.sort_by_key(|i| i.position),
        }
        items
    }

    /// [`SiteSnapshot::ordered_items`] that visitors see at `now_ms` ([`Item::shown_at`]):
    /// what the site shows of a collection, the one filter every visitor's view goes through.
    pub fn shown_items<'a>(&'a self, collection: &Collection, now_ms: i64) -> Vec<&'a Item> {
        let mut items = self.ordered_items(collection);
        items.retain(|i| i.shown_at(now_ms));
        items
    }

    /// The earliest moment after `now_ms` that a scheduled item starts to show: a view of
    /// the site built at `now_ms` is out of date from then on, though the content is not.
    pub fn next_shown_at(&self, now_ms: i64) -> Option<i64> {
        self.items.iter().filter_map(|i| i.shows_from(now_ms)).min()
    }

    /// The item with slug `url_id` in a collection (an item permalink).
    pub fn item_by_url(&self, collection_id: &str, url_id: &str) -> Option<&Item> {
        self.items
            .iter()
            .find(|i| i.collection_id == collection_id && i.url_id == url_id)
    }

    /// A named navigation's items (empty when the owner never filled it).
    pub fn navigation(&self, name: &str) -> &[Value] {
        self.navigations
            .get(name)
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(url: &str, position: i64, publish_on: i64, start: Option<i64>) -> Item {
        let mut i: Item = serde_json::from_value(
            serde_json::json!({"urlId": url, "title": url, "recordType": 1}),
        )
        .unwrap();
        i.collection_id = "c".into();
        i.position = position;
        i.publish_on = publish_on;
        i.start_date = start;
        i
    }

    #[test]
    fn items_follow_the_collection_ordering() {
        let tenant = Tenant {
            id: TenantId(1),
            identifier: "t".into(),
            name: "T".into(),
            status: WebsiteStatus::Paid,
            content_version: 1,
            template_version: None,
            template_hash: None,
            created_ms: 0,
        };
        let site = SiteSnapshot {
            tenant,
            domains: vec![],
            settings: SiteSettings::default(),
            collections: vec![],
            items: vec![
                item("a", 0, 100, Some(30)),
                item("b", 1, 300, Some(10)),
                item("c", 2, 200, None),
            ],
            categories: vec![],
            navigations: BTreeMap::new(),
            header_footer: HeaderFooter::default(),
            multilingual: Value::Null,
            commerce_preferences: BTreeMap::new(),
            shape: Default::default(),
        };
        let mut c: Collection =
            serde_json::from_value(serde_json::json!({"id": "c", "urlId": "c", "title": "C", "type": 1, "typeName": "blog"})).unwrap();
        let urls = |c: &Collection| {
            site.ordered_items(c)
                .iter()
                .map(|i| i.url_id.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(urls(&c), ["a", "b", "c"]);
        c.ordering = "chronological".into();
        assert_eq!(urls(&c), ["b", "c", "a"]);
        c.ordering = "calendar".into();
        assert_eq!(urls(&c), ["b", "a", "c"]);

        // Visitors see what is visible, and what is scheduled once its time comes.
        let mut site = site.clone();
        site.items[0].visibility = Visibility::Hidden;
        site.items[1].visibility = Visibility::Scheduled;
        let c = Collection {
            ordering: "user-orderable".into(),
            ..c
        };
        let shown = |at: i64| {
            site.shown_items(&c, at)
                .iter()
                .map(|i| i.url_id.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(shown(299), ["c"]);
        assert_eq!(shown(300), ["b", "c"]);
        assert_eq!(site.next_shown_at(299), Some(300));
        assert_eq!(site.next_shown_at(300), None);
    }

    #[test]
    fn visibility_words_and_rule() {
        for v in [
            Visibility::Visible,
            Visibility::Hidden,
            Visibility::Scheduled,
        ] {
            assert_eq!(Visibility::parse(v.as_str()), Some(v));
            assert_eq!(serde_json::to_value(v).unwrap(), v.as_str());
        }
        assert!(Visibility::Visible.shows(i64::MAX, 0));
        assert!(!Visibility::Hidden.shows(0, i64::MAX));
        assert!(!Visibility::Scheduled.shows(11, 10));
        assert!(Visibility::Scheduled.shows(10, 10));
        // A word this binary does not know hides.
        assert!(!Visibility::stored_shows("draft", 0, 10));
        assert!(Visibility::stored_shows("visible", 0, 10));
    }
}
