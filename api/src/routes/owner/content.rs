//! Collections' items and products, and stock.
//!
//! | route | role may | body | answer |
//! |---|---|---|---|
//! | `GET /api/owner/collections` | content, read | | `{collections: [{id, urlId, title, type, typeName, items}]}` |
//! | `POST /api/owner/collections` | content (and store for a store), write | a new page | 201 the page ([`super::pages`]) |
//! | `GET /api/owner/collections/{id}/items` | content (store for a store), read | | `{items, collection, authors, timeZone}` |
//! | `POST /api/owner/collections/{id}/items` | content (store for a store), write | an item | 201 the item |
//! | `PUT /api/owner/items/{id}` | as its collection, write | an item | the item |
//! | `PATCH /api/owner/items/{id}` | as its collection, write | a JSON Merge Patch of the item | the item |
//! | `DELETE /api/owner/items/{id}` | as its collection, write | | `{deleted: id}` |
//! | `PUT /api/owner/items/{id}/stock` | store, write | `{sku, quantity?, unlimited?}` | `{sku, quantity, unlimited}` |
//! | `GET /api/owner/collections/{id}/content` | as the collection, read | | `{id, title, typeName, mainContent}` |
//! | `PUT /api/owner/collections/{id}/content` | as the collection, write | `{mainContent}` | `{id, title, typeName, mainContent}` |
//!
//! An item is the import format's item, in its words (`urlId`, `title`, `body`, `excerpt`,
//! `recordType`, `publishOn`, `visibility`, `tags`, `categories`, and for products `productType` and
//! `variants` with `sku`, `attributes`, `price: "12.50"`, `salePrice`, `onSale`, `stock`,
//! `unlimited`, `currency`, `weightGrams`). `recordType` defaults to 11 (a store item) in a
//! store and 1 elsewhere, `productType` to 1 (physical) in a store, a variant's currency to
//! the store's. The stored names `priceMinor`, `salePriceMinor` (minor units) and
//! `qtyInStock` are still read, as aliases (one of each pair per variant). A product needs a
//! type (1-4) and at least one variant, each with a unique SKU, a price from 0 to
//! [`MAX_PRICE_MINOR`] in the store's currency. The page's option pickers come from the
//! variants' `attributes` (see `pages::site_bridge`). Only a store collection holds products: an
//! item of another collection with `productType` or `variants` is refused, so a role
//! without the store area (the editor) cannot put anything on sale.
//! `visibility` is `visible` (the default), `hidden` (a draft: the site shows it nowhere,
//! the owner routes do) or `scheduled` (hidden until `publishOn`, epoch ms, which it then
//! needs; shown from then on); what is wrong with either is said by field.
//! **Rich text.** `body` and `excerpt` (and a page's `mainContent`) are stored sanitized to
//! an allow-list ([`super::rich_text`]): no script, no handlers, no `javascript:` links. Text
//! a change leaves as it was stored (an import's form or layout) is kept as it is. A form
//! block the editor places (`<div … data-block-type="9" data-form-id="ID"></div>`) is kept,
//! and the site draws the form there ([`crate::pages::site_bridge::form_blocks`]).
//! **Posts and events.** `tags` are 1 to 50 characters and `categories` 1 to 25 (SPEC.md
//! §9), none twice: SPEC.md §5's "This tag already exists" / "This category already exists"
//! under `tags[i]` / `categories[i]`, as for products ([`product_checks`]). `author` is `{displayName, …}` (the
//! template context's `author`); `data.commentState` is 1 (comments on) or 0 (off); an
//! event's `startDate` and `endDate` are epoch ms, the end not before the start; its place is
//! `data.location` (`addressTitle`, `addressLine1`, `addressLine2`, `addressCountry`).
//! SPEC.md §9's limits hold: 200 products in a store, 250 items in a user-orderable
//! collection. The item's collection is the path's; an update keeps it. `PATCH` changes
//! only what its body names (RFC 7396: a key set to null is removed, an array such as
//! `variants` is replaced whole) and checks the merged item as `PUT` checks its body.
//!
//! A `PUT`, `PATCH` or stock `PUT` that raises a sold-out variant (to more than 0, or
//! unlimited) tells its waiting restock sign-ups in the same write, each once, unless the
//! store's `restock.autoNotify` is off (`tenants::Store::set_stock_notifying`); the
//! notice is the owner's send's ([`crate::routes::restock`]).

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Path, State};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tenants::commerce::money::MAX_PRICE_MINOR;
use tenants::store_setup::PRODUCTS_TYPE;
use tenants::{Collection, Item, RestockNotice, SiteSnapshot, Store};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::product_checks::{self, take_form_parts};
use super::{Deleted, refused, rich_text, site_content};
use crate::email::Composer;
use crate::http::body::{MAX_JSON_BODY, json as read_json};
use crate::http::error::store_failure;
use crate::http::extract::{OwnerToken, Read, area};
use crate::http::owner::{Access, Area};
use crate::http::site::Site;
use crate::http::{ApiError, Created, Json, Owner};
use crate::openapi::{OWNER, OwnerErrors};
use crate::routes::restock::restock_notice;
use crate::server::state::App;

pub const NO_COLLECTION: &str = "That collection does not exist.";
pub const NO_ITEM: &str = "That item does not exist.";
pub const NO_TITLE: &str = "Please enter a title.";
pub const BAD_SLUG: &str = "A URL id is 3-200 of a-z, 0-9, '-', '_' or '.'.";
pub const SLUG_TAKEN: &str = "Another item of this collection has this URL id.";
pub const PRODUCT_TYPE: &str =
    "A product's type is 1 (physical), 2 (digital), 3 (service) or 4 (gift card).";
pub const NO_VARIANTS: &str = "A product needs at least one variant.";
pub const SKU_TWICE: &str = "Each variant needs its own SKU.";
pub const NO_SKU: &str = "Please enter a SKU.";
pub const BAD_PRICE: &str = "A price is 0 or more.";
pub const PRICE_TOO_HIGH: &str =
    "A price is at most 100000000000 minor units (1,000,000,000.00 in most currencies).";
pub const NOT_A_STORE: &str =
    "Only a store's items are products: add products to a store collection.";
pub const BAD_CURRENCY: &str = "Prices are in the store's currency.";
pub const BAD_STOCK: &str = "Stock is a whole number from 0.";
pub const NO_VARIANT: &str = "That product has no variant with this SKU.";
pub const TOO_MANY_PRODUCTS: &str = "A store has at most 200 products.";
pub const TOO_MANY_ITEMS: &str = "A collection has at most 250 items.";
pub const NOT_AN_ITEM: &str = "An item is a JSON object with urlId and title.";
pub const NOT_A_PRICE: &str = "A price is a decimal like \"12.50\" in the store's currency.";
pub const PRICE_TWICE: &str = "Send price or priceMinor, not both.";
pub const SALE_PRICE_TWICE: &str = "Send salePrice or salePriceMinor, not both.";
pub const STOCK_TWICE: &str = "Send stock or qtyInStock, not both.";
pub const BAD_VISIBILITY: &str = "Visibility is visible, hidden or scheduled.";
pub const BAD_PUBLISH_ON: &str =
    "publishOn is a date and time as a number: milliseconds since 1970-01-01 UTC.";
pub const NO_PUBLISH_ON: &str = "A scheduled item needs the date and time it shows from.";
pub const EMPTY_TAG: &str = "A tag cannot be empty.";
pub const EMPTY_CATEGORY: &str = "A category cannot be empty.";
pub const BAD_COMMENT_STATE: &str = "commentState is 1 (comments on) or 0 (comments off).";
pub const BAD_DATE: &str =
    "A date is a date and time as a number: milliseconds since 1970-01-01 UTC.";
pub const ENDS_BEFORE: &str = "An event ends after it starts.";
pub const BAD_AUTHOR: &str = "An author is {displayName} of 1 to 100 characters.";

/// SPEC.md §9.
pub const MAX_PRODUCTS: usize = 200;
pub const MAX_ITEMS: usize = 250;

pub fn routes() -> OpenApiRouter<App> {
    OpenApiRouter::new()
        .routes(routes!(collections, super::pages::create_collection))
        .routes(routes!(items, create_item))
        .routes(routes!(item, update_item, patch_item, delete_item))
        .routes(routes!(set_stock))
        .routes(routes!(page_content, set_page_content))
}

fn is_store(c: &Collection) -> bool {
    c.kind == PRODUCTS_TYPE
}

/// The area a collection's items are: the store's, or the site's content.
fn area_of(c: &Collection) -> Area {
    if is_store(c) {
        Area::Store
    } else {
        Area::Content
    }
}

/// The site's collections.
#[derive(Serialize, ToSchema)]
#[schema(as = OwnerCollectionList)]
struct CollectionList {
    collections: Vec<CollectionSummary>,
}

/// A collection, with how many items it holds.
#[derive(Serialize, ToSchema)]
#[schema(as = OwnerCollectionSummary)]
#[serde(rename_all = "camelCase")]
struct CollectionSummary {
    id: String,
    url_id: String,
    title: String,
    /// 1 generic, 7 template page, 10 page, 13 products (a store).
    #[serde(rename = "type")]
    kind: i64,
    /// The template's collection type (`blog`, `products`, `page` …).
    type_name: String,
    enabled: bool,
    /// How many items it has.
    items: usize,
}

/// Items (an item is the import format's item, as stored), with what the owner app's content
/// editor needs beside them: the collection, the authors already named on the site's items
/// and the site's time zone (the one `publishOn` is shown in).
#[derive(Serialize, ToSchema)]
#[schema(as = OwnerItemList)]
#[serde(rename_all = "camelCase")]
struct ItemList {
    #[schema(value_type = Vec<Object>)]
    items: Vec<Item>,
    collection: CollectionSummary,
    /// Every distinct `author` of the site's items (by `displayName`), in name order.
    #[schema(value_type = Vec<Object>)]
    authors: Vec<Value>,
    /// The site's IANA time zone (`website.timeZone`, default America/New_York).
    time_zone: String,
}

fn summary(site: &SiteSnapshot, c: &Collection) -> CollectionSummary {
    CollectionSummary {
        id: c.id.clone(),
        url_id: c.url_id.clone(),
        title: c.title.clone(),
        kind: c.kind,
        type_name: c.type_name.clone(),
        enabled: c.enabled,
        items: site.items_of(&c.id).count(),
    }
}

/// `GET /api/owner/collections`: the site's collections.
#[utoipa::path(get, path = "/api/owner/collections", tag = OWNER,
    security(("ownerToken" = [])),
    responses((status = 200, body = CollectionList), OwnerErrors))]
async fn collections(
    State(store): State<Store>,
    owner: Owner<area::Content, Read>,
) -> Result<Json<CollectionList>, ApiError> {
    let site = site_content(&store, owner.site.tenant.id).await?;
    let collections = site.collections.iter().map(|c| summary(&site, c)).collect();
    Ok(Json(CollectionList { collections }))
}

/// The path's collection of the call's site, once the caller's role may `access` it.
async fn collection_for(
    store: &Store,
    owner: &OwnerToken,
    id: &str,
    access: Access,
) -> Result<(Arc<SiteSnapshot>, Collection), ApiError> {
    let site = site_content(store, owner.site.tenant.id).await?;
    let Some(c) = site.collection(id).cloned() else {
        // Not found for anyone who may read content at all; others learn nothing.
        owner.may(Area::Content, Access::Read)?;
        return Err(ApiError::not_found(NO_COLLECTION));
    };
    owner.may(area_of(&c), access)?;
    Ok((site, c))
}

/// `GET /api/owner/collections/{id}/items`: a collection's items.
#[utoipa::path(get, path = "/api/owner/collections/{id}/items", tag = OWNER,
    params(("id" = String, Path, description = "The collection's id.")),
    security(("ownerToken" = [])),
    responses((status = 200, body = ItemList,
        description = "Its items (a store's need the store role; the others, content's)."),
        OwnerErrors))]
async fn items(
    State(store): State<Store>,
    Path(id): Path<String>,
    owner: OwnerToken,
) -> Result<Json<ItemList>, ApiError> {
    let (site, c) = collection_for(&store, &owner, &id, Access::Read).await?;
    let mut authors = std::collections::BTreeMap::new();
    for author in site.items.iter().filter_map(|i| i.author.as_ref()) {
        if let Some(name) = author.get("displayName").and_then(Value::as_str) {
            authors
                .entry(name.to_owned())
                .or_insert_with(|| author.clone());
        }
    }
    Ok(Json(ItemList {
        items: site.items_of(&c.id).cloned().collect(),
        collection: summary(&site, &c),
        authors: authors.into_values().collect(),
        time_zone: owner.site.content.time_zone.clone(),
    }))
}

/// An item body as the owner sends it, for a collection (a store when `store`) whose prices
/// are in `currency`: the import file's names (`price`, `salePrice`, `stock`) or the stored
/// ones (`priceMinor`, `salePriceMinor`, `qtyInStock`), with the import's defaults.
///
/// The product form's own keys (`images`, `digitalFile`) are read too
/// ([`product_checks::take_form_parts`]): what they and the variants' prices say wrong is
/// the answer's `errors`, checked with the rest when the item can be read at all.
pub(crate) fn parse_item(body: Value, store: bool, currency: &str) -> Result<Parsed, ApiError> {
    let Value::Object(mut o) = body else {
        return Err(ApiError::bad_request(NOT_AN_ITEM));
    };
    let mut errors = Map::new();
    let download = take_form_parts(&mut o, &mut errors);
    // The server names the item and its collection.
    o.remove("id");
    o.remove("collectionId");
    o.entry("recordType")
        .or_insert_with(|| if store { 11 } else { 1 }.into());
    if store {
        o.entry("productType").or_insert_with(|| 1.into());
    }
    // The visibility and its moment, by field rather than as an unreadable item.
    if o.get("visibility")
        .is_some_and(|v| v.as_str().and_then(tenants::Visibility::parse).is_none())
    {
        o.remove("visibility");
        errors.insert("visibility".into(), BAD_VISIBILITY.into());
    }
    if o.get("publishOn")
        .is_some_and(|v| v.as_i64().is_none_or(|ms| ms < 0))
    {
        o.remove("publishOn");
        errors.insert("publishOn".into(), BAD_PUBLISH_ON.into());
    }
    if let Some(Value::Array(variants)) = o.get_mut("variants") {
        for (i, v) in variants.iter_mut().enumerate() {
            if let Value::Object(v) = v {
                import_names(v, currency, &format!("variants[{i}]"), &mut errors);
            }
        }
    }
    for field in ["startDate", "endDate"] {
        if o.get(field)
            .is_some_and(|v| !v.is_null() && v.as_i64().is_none_or(|ms| ms < 0))
        {
            o.remove(field);
            errors.insert(field.into(), BAD_DATE.into());
        }
    }
    let item = match serde_json::from_value::<Item>(Value::Object(o)) {
        Ok(item) => item,
        Err(_) if !errors.is_empty() => return Err(ApiError::fields(errors)),
        Err(e) => {
            let mut err = ApiError::bad_request(NOT_AN_ITEM);
            err.body["detail"] = e.to_string().into();
            return Err(err);
        }
    };
    Ok(Parsed {
        item,
        download,
        errors,
    })
}

/// An item body as read: the item, the upload that is to become a digital product's
/// download, and what was wrong in reading it (by field).
pub(crate) struct Parsed {
    pub item: Item,
    pub download: Option<String>,
    pub errors: Map<String, Value>,
}

/// A variant in the import file's words (`price: "12.50"`, `salePrice`, `stock`, no
/// currency) in the stored ones, its problems added to `errors` under `at`.
fn import_names(
    v: &mut Map<String, Value>,
    store_currency: &str,
    at: &str,
    errors: &mut Map<String, Value>,
) {
    let currency = match v.get("currency") {
        Some(Value::String(c)) => c.clone(),
        _ => store_currency.to_owned(),
    };
    v.entry("currency").or_insert_with(|| store_currency.into());
    for (name, stored, twice) in [
        ("price", "priceMinor", PRICE_TWICE),
        ("salePrice", "salePriceMinor", SALE_PRICE_TWICE),
    ] {
        let Some(text) = v.remove(name) else { continue };
        if v.contains_key(stored) {
            errors.insert(format!("{at}.{name}"), twice.into());
            continue;
        }
        let minor = match &text {
            Value::String(t) => tenants::commerce::money::parse_price(t.trim(), &currency).ok(),
            _ => None,
        };
        match minor {
            Some(m) => {
                v.insert(stored.into(), m.into());
            }
            None => {
                errors.insert(format!("{at}.{name}"), NOT_A_PRICE.into());
            }
        }
    }
    if let Some(stock) = v.remove("stock") {
        if v.contains_key("qtyInStock") {
            errors.insert(format!("{at}.stock"), STOCK_TWICE.into());
        } else if stock.as_i64().is_none_or(|n| n < 0) {
            errors.insert(format!("{at}.stock"), BAD_STOCK.into());
        } else {
            v.insert("qtyInStock".into(), stock);
        }
    }
}

/// What is wrong with `item` as an item of `c` (a change of `old`), by field, into `errors`.
fn check_item(
    call_site: &Site,
    site: &SiteSnapshot,
    c: &Collection,
    item: &Item,
    old: Option<&Item>,
    errors: &mut Map<String, Value>,
) {
    let id = old.map(|o| o.id.as_str()).unwrap_or("");
    let mut bad = |field: &str, message: &str| {
        errors
            .entry(field.to_owned())
            .or_insert_with(|| message.into());
    };
    if item.visibility == tenants::Visibility::Scheduled && item.publish_on <= 0 {
        bad("publishOn", NO_PUBLISH_ON);
    }
    if item.title.trim().is_empty() {
        bad("title", NO_TITLE);
    }
    let slug_ok = (1..=200).contains(&item.url_id.len())
        && item
            .url_id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
    // SPEC.md §9: a slug has at least 3 characters (one stored before stays).
    let short =
        item.url_id.len() < product_checks::MIN_SLUG && old.is_none_or(|o| o.url_id != item.url_id);
    if !slug_ok || short {
        bad("urlId", BAD_SLUG);
    } else if site
        .items_of(&c.id)
        .any(|i| i.url_id == item.url_id && i.id != id)
    {
        bad("urlId", SLUG_TAKEN);
    }
    if !is_store(c) {
        // A product's are checked with the product (a store's categories are its own), with
        // the same messages.
        use product_checks::{
            CATEGORY_TWICE, LONG_CATEGORY, LONG_TAG, MAX_CATEGORY, MAX_TAG, TAG_TWICE,
        };
        check_words(
            &item.tags,
            "tags",
            MAX_TAG,
            [EMPTY_TAG, LONG_TAG, TAG_TWICE],
            &mut bad,
        );
        let words = [EMPTY_CATEGORY, LONG_CATEGORY, CATEGORY_TWICE];
        check_words(
            &item.categories,
            "categories",
            MAX_CATEGORY,
            words,
            &mut bad,
        );
    }
    if let Some(state) = item.data.get("commentState")
        && !matches!(state.as_i64(), Some(0 | 1))
    {
        bad("data.commentState", BAD_COMMENT_STATE);
    }
    if let (Some(start), Some(end)) = (item.start_date, item.end_date)
        && end < start
    {
        bad("endDate", ENDS_BEFORE);
    }
    if let Some(author) = &item.author {
        let name = author.get("displayName").and_then(Value::as_str);
        if name.is_none_or(|n| n.trim().is_empty() || n.chars().count() > 100) {
            bad("author", BAD_AUTHOR);
        }
    }
    if !is_store(c) {
        // A product anywhere but a store would be for sale without the store role: the
        // editor may write a blog, not sell (issue 40, finding 5).
        if item.product_type.is_some() {
            bad("productType", NOT_A_STORE);
        }
        if !item.variants.is_empty() {
            bad("variants", NOT_A_STORE);
        }
    } else {
        if !matches!(item.product_type, Some(1..=4)) {
            bad("productType", PRODUCT_TYPE);
        }
        if item.variants.is_empty() {
            bad("variants", NO_VARIANTS);
        }
        let currency = call_site.content.commerce.currency.as_str();
        for (i, v) in item.variants.iter().enumerate() {
            let at = |f: &str| format!("variants[{i}].{f}");
            if v.sku.trim().is_empty() {
                bad(&at("sku"), NO_SKU);
            } else if item.variants[..i].iter().any(|w| w.sku == v.sku) {
                bad(&at("sku"), SKU_TWICE);
            }
            for (field, price) in [
                ("priceMinor", v.price_minor),
                ("salePriceMinor", v.sale_price_minor),
            ] {
                if price < 0 {
                    bad(&at(field), BAD_PRICE);
                } else if price > MAX_PRICE_MINOR {
                    bad(&at(field), PRICE_TOO_HIGH);
                }
            }
            // Every sellable variant is in the store's currency (carts refuse the others).
            if v.currency != currency {
                bad(&at("currency"), BAD_CURRENCY);
            }
            if v.qty_in_stock < 0 {
                bad(&at("qtyInStock"), BAD_STOCK);
            }
        }
        let categories: Vec<&tenants::Category> = site
            .categories
            .iter()
            .filter(|k| k.collection_id == c.id)
            .collect();
        product_checks::check_product(item, old, &categories, errors);
    }
}

/// `item`'s rich text (`body`, `excerpt`) sanitized ([`rich_text`]) where it is new: text
/// stored before (an import's, which may hold a form or a layout the allow-list does not)
/// stays as it was when a change leaves it alone.
fn sanitize_new(item: &mut Item, old: Option<&Item>) {
    if old.is_none_or(|o| o.body != item.body) {
        item.body = rich_text::sanitize(&item.body);
    }
    if old.is_none_or(|o| o.excerpt != item.excerpt) {
        item.excerpt = rich_text::sanitize(&item.excerpt);
    }
}

/// Tags or categories (`field`, each said as `field[i]`): none empty, each at most `max`
/// characters, none twice (compared without case, as the site's filter links are); the
/// messages for each in that order.
fn check_words(
    words: &[String],
    field: &str,
    max: usize,
    [empty, long, twice]: [&str; 3],
    bad: &mut impl FnMut(&str, &str),
) {
    for (i, w) in words.iter().enumerate() {
        let n = w.trim().chars().count();
        let at = format!("{field}[{i}]");
        if n == 0 {
            bad(&at, empty);
        } else if n > max {
            bad(&at, long);
        } else if words[..i]
            .iter()
            .any(|v| v.trim().to_lowercase() == w.trim().to_lowercase())
        {
            bad(&at, twice);
        }
    }
}

/// `item` (a change of `old` when given) checked as an item of `c`, all its problems at
/// once by field: the item's own rules, then for a product its additional-fields form
/// (copied in from the site's forms) and its download (`download`, an upload's id; a
/// digital product needs one unless it has its file already).
#[allow(clippy::too_many_arguments)]
async fn checked(
    store: &Store,
    owner: &OwnerToken,
    site: &SiteSnapshot,
    c: &Collection,
    item: &mut Item,
    old: Option<&Item>,
    download: Option<&str>,
    mut errors: Map<String, Value>,
) -> Result<(), ApiError> {
    check_item(&owner.site, site, c, item, old, &mut errors);
    if is_store(c) {
        let tenant = owner.site.tenant.id;
        let names_form = item
            .structured_content
            .get("additionalFieldsFormId")
            .is_some_and(|f| f.as_str().is_none_or(|f| !f.trim().is_empty()));
        let forms = if names_form {
            store.forms(tenant).await.map_err(|e| store_failure(&e))?
        } else {
            Vec::new()
        };
        product_checks::set_additional_fields(item, old, &forms, &mut errors);
        let digital = item.product_type == Some(2);
        match download {
            Some(_) if !digital => {
                errors.insert("digitalFile".into(), product_checks::NOT_DIGITAL.into());
            }
            Some(asset) => {
                let uploads = store.assets(tenant).await.map_err(|e| store_failure(&e))?;
                if !uploads.iter().any(|a| a.id == asset) {
                    errors.insert("digitalFile".into(), product_checks::NO_UPLOAD.into());
                }
            }
            None if digital => {
                let has = match old {
                    Some(o) => store
                        .digital_file_name(tenant, &o.id)
                        .await
                        .map_err(|e| store_failure(&e))?
                        .is_some(),
                    None => false,
                };
                if !has {
                    errors.insert("digitalFile".into(), product_checks::NO_FILE.into());
                }
            }
            None => {}
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(ApiError::fields(errors))
    }
}

/// `POST /api/owner/collections/{id}/items`: adds an item to a collection.
#[utoipa::path(post, path = "/api/owner/collections/{id}/items", tag = OWNER,
    params(("id" = String, Path, description = "The collection's id.")),
    request_body(content = Object, description = "An item of the import format, in its \
        words: `urlId` (1-200 of a-z, 0-9, '-', '_', '.', unique in the collection), `title`, \
        `recordType` (default 11, a store item, in a store; 1 elsewhere), `visibility` \
        (`visible` (default), `hidden`, or `scheduled`: shown from `publishOn`, epoch ms, on), \
        and for a product \
        `productType` (1-4, default 1) and `variants` (`sku`, `attributes` (option → value: \
        the page's pickers), `price: \"12.50\"`, `salePrice`, `onSale`, `stock`, \
        `unlimited`, `currency` (default the store's), `weightGrams`). The stored names \
        `priceMinor`, `salePriceMinor` and `qtyInStock` are read as aliases. `id` and \
        `collectionId` are ignored."),
    security(("ownerToken" = [])),
    responses((status = 201, body = Object, description = "The item as stored, with its id."),
        OwnerErrors))]
async fn create_item(
    State(store): State<Store>,
    Path(id): Path<String>,
    owner: OwnerToken,
    body: Body,
) -> Result<Created<Item>, ApiError> {
    let (site, c) = collection_for(&store, &owner, &id, Access::Write).await?;
    // The body is read once the role may write to this collection.
    let body = read_json(body, MAX_JSON_BODY).await?;
    let Parsed {
        mut item,
        download,
        errors,
    } = parse_item(body, is_store(&c), &owner.site.content.commerce.currency)?;
    item.collection_id = c.id.clone();
    sanitize_new(&mut item, None);
    checked(
        &store,
        &owner,
        &site,
        &c,
        &mut item,
        None,
        download.as_deref(),
        errors,
    )
    .await?;
    let count = site.items_of(&c.id).count();
    if is_store(&c) && count >= MAX_PRODUCTS {
        return Err(ApiError::bad_request(TOO_MANY_PRODUCTS));
    }
    if c.ordering == "user-orderable" && count >= MAX_ITEMS {
        return Err(ApiError::bad_request(TOO_MANY_ITEMS));
    }
    if item.position == 0 {
        item.position = site.items_of(&c.id).map(|i| i.position).max().unwrap_or(0) + 1;
    }
    let now = tenants::now_ms();
    item.added_on = now;
    item.updated_on = now;
    if item.publish_on == 0 {
        item.publish_on = now;
    }
    item.id = store
        .put_product_notifying(owner.site.tenant.id, &item, download.as_deref(), None)
        .await
        .map_err(|e| refused(&e, NO_COLLECTION))?
        .0;
    Ok(Created(item))
}

/// The path's item of the call's site, with its collection, once the role may `access` it.
async fn item_for(
    store: &Store,
    owner: &OwnerToken,
    id: &str,
    access: Access,
) -> Result<(Arc<SiteSnapshot>, Collection, Item), ApiError> {
    let site = site_content(store, owner.site.tenant.id).await?;
    let found = site
        .items
        .iter()
        .find(|i| i.id == id)
        .and_then(|i| Some((site.collection(&i.collection_id)?.clone(), i.clone())));
    let Some((c, item)) = found else {
        owner.may(Area::Content, Access::Read)?;
        return Err(ApiError::not_found(NO_ITEM));
    };
    owner.may(area_of(&c), access)?;
    Ok((site, c, item))
}

/// `GET /api/owner/items/{id}`: one item, as stored (what `PATCH` merges into).
#[utoipa::path(get, path = "/api/owner/items/{id}", tag = OWNER,
    operation_id = "owner.item",
    params(("id" = String, Path, description = "The item's id.")),
    security(("ownerToken" = [])),
    responses((status = 200, body = Object, description = "The item as stored (a store's \
        item needs the store role to read; the others, content's)."), OwnerErrors))]
async fn item(
    State(store): State<Store>,
    Path(id): Path<String>,
    owner: OwnerToken,
) -> Result<Json<Item>, ApiError> {
    let (_, _, item) = item_for(&store, &owner, &id, Access::Read).await?;
    Ok(Json(item))
}

/// `PUT /api/owner/items/{id}`: replaces an item (it stays in its collection).
///
/// A variant it raises from sold out sends its waiting restock notices, as the stock route
/// does.
#[utoipa::path(put, path = "/api/owner/items/{id}", tag = OWNER,
    params(("id" = String, Path, description = "The item's id.")),
    request_body(content = Object, description = "An item of the import format, as for \
        creating one."),
    security(("ownerToken" = [])),
    responses((status = 200, body = Object, description = "The item as stored."), OwnerErrors))]
async fn update_item(
    State(app): State<App>,
    Path(id): Path<String>,
    owner: OwnerToken,
    body: Body,
) -> Result<Json<Item>, ApiError> {
    let (site, c, old) = item_for(&app.store, &owner, &id, Access::Write).await?;
    // The body is read once the role may write to the item's collection.
    let body = read_json(body, MAX_JSON_BODY).await?;
    save_item(&app, &owner, &site, &c, &old, body).await
}

/// `PATCH /api/owner/items/{id}`: changes what the body names of an item (JSON Merge Patch).
///
/// A variant it raises from sold out sends its waiting restock notices, as the stock route
/// does.
#[utoipa::path(patch, path = "/api/owner/items/{id}", tag = OWNER,
    params(("id" = String, Path, description = "The item's id.")),
    request_body(content = Object, content_type = "application/merge-patch+json",
        description = "A JSON Merge Patch (RFC 7396) of the item as `GET` answers it: the \
        keys it names are set, a key set to null is removed (its default comes back), an \
        object is merged key by key and an array (`variants`, `tags` …) is replaced whole; \
        the keys it leaves out keep their values. A variant may use the import format's \
        words (`price`, `salePrice`, `stock`). The merged item is checked as `PUT` checks \
        its body; `id` and `collectionId` are ignored."),
    security(("ownerToken" = [])),
    responses((status = 200, body = Object, description = "The item as stored."), OwnerErrors))]
async fn patch_item(
    State(app): State<App>,
    Path(id): Path<String>,
    owner: OwnerToken,
    body: Body,
) -> Result<Json<Item>, ApiError> {
    let (site, c, old) = item_for(&app.store, &owner, &id, Access::Write).await?;
    // The body is read once the role may write to the item's collection.
    let patch: Value = read_json(body, MAX_JSON_BODY).await?;
    let mut merged = serde_json::to_value(&old).map_err(|_| ApiError::bad_request(NOT_AN_ITEM))?;
    tenants::merge_patch(&mut merged, &patch);
    save_item(&app, &owner, &site, &c, &old, merged).await
}

/// The writer of restock notices when the store sends them by itself as a sold-out variant
/// comes back ([`crate::routes::restock::auto_composer`]).
async fn restock_composer(app: &App, owner: &OwnerToken) -> Option<Composer> {
    crate::routes::restock::auto_composer(app, owner).await
}

/// `body` as the new state of `old` (an item of `c`), checked and stored; the waiting
/// restock sign-ups of each variant it brings back in stock are told in the same write
/// (each once) when the store says so.
async fn save_item(
    app: &App,
    owner: &OwnerToken,
    site: &SiteSnapshot,
    c: &Collection,
    old: &Item,
    body: Value,
) -> Result<Json<Item>, ApiError> {
    let Parsed {
        mut item,
        download,
        errors,
    } = parse_item(body, is_store(c), &owner.site.content.commerce.currency)?;
    item.id = old.id.clone();
    item.collection_id = c.id.clone();
    sanitize_new(&mut item, Some(old));
    item.added_on = old.added_on;
    item.updated_on = tenants::now_ms();
    checked(
        &app.store,
        owner,
        site,
        c,
        &mut item,
        Some(old),
        download.as_deref(),
        errors,
    )
    .await?;
    // Only a store's items have variants.
    let composer = if is_store(c) {
        restock_composer(app, owner).await
    } else {
        None
    };
    let notice = |product: &str, sku: &str| {
        let composer = composer.as_ref()?;
        Some(restock_notice(
            composer,
            owner,
            product,
            sku,
            Some(&item.title),
        ))
    };
    let notice: Option<&RestockNotice> = composer.is_some().then_some(&notice);
    let (_, told) = app
        .store
        .put_product_notifying(owner.site.tenant.id, &item, download.as_deref(), notice)
        .await
        .map_err(|e| refused(&e, NO_ITEM))?;
    if told > 0 {
        app.outbox.nudge();
    }
    Ok(Json(item))
}

/// `DELETE /api/owner/items/{id}`: deletes an item.
#[utoipa::path(delete, path = "/api/owner/items/{id}", tag = OWNER,
    params(("id" = String, Path, description = "The item's id.")),
    security(("ownerToken" = [])),
    responses((status = 200, body = Deleted), OwnerErrors))]
async fn delete_item(
    State(store): State<Store>,
    Path(id): Path<String>,
    owner: OwnerToken,
) -> Result<Json<Deleted>, ApiError> {
    item_for(&store, &owner, &id, Access::Write).await?;
    store
        .delete_item(owner.site.tenant.id, &id)
        .await
        .map_err(|e| refused(&e, NO_ITEM))?;
    Ok(Json(Deleted { deleted: id }))
}

/// A page's own content: the HTML its template shows as `collection.mainContent` (a regular
/// page's text, a blog's or store's introduction).
#[derive(Serialize, Deserialize, ToSchema)]
#[schema(as = OwnerPageContent)]
#[serde(rename_all = "camelCase")]
struct PageContent {
    /// The page's (collection's) id (ignored in a body).
    #[serde(default)]
    id: String,
    /// The page's title (ignored in a body).
    #[serde(default)]
    title: String,
    /// The page's type (`page`, `blog` …; ignored in a body).
    #[serde(default)]
    type_name: String,
    /// The HTML; stored sanitized to the rich-text allow-list (no script, no handlers).
    main_content: String,
}

fn page_content_of(c: &Collection) -> PageContent {
    PageContent {
        id: c.id.clone(),
        title: c.title.clone(),
        type_name: c.type_name.clone(),
        main_content: c
            .data
            .get("mainContent")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned(),
    }
}

/// `GET /api/owner/collections/{id}/content`: a page's own content.
#[utoipa::path(get, path = "/api/owner/collections/{id}/content", tag = OWNER,
    params(("id" = String, Path, description = "The page's (collection's) id.")),
    security(("ownerToken" = [])),
    responses((status = 200, body = PageContent,
        description = "Its content (a store's needs the store role; the others, content's)."),
        OwnerErrors))]
async fn page_content(
    State(store): State<Store>,
    Path(id): Path<String>,
    owner: OwnerToken,
) -> Result<Json<PageContent>, ApiError> {
    let (_, c) = collection_for(&store, &owner, &id, Access::Read).await?;
    Ok(Json(page_content_of(&c)))
}

/// `PUT /api/owner/collections/{id}/content`: replaces a page's own content (sanitized).
#[utoipa::path(put, path = "/api/owner/collections/{id}/content", tag = OWNER,
    params(("id" = String, Path, description = "The page's (collection's) id.")),
    request_body = PageContent,
    security(("ownerToken" = [])),
    responses((status = 200, body = PageContent, description = "The content as stored: \
        sanitized to the rich-text allow-list (no script, no handlers, no `javascript:` links)."), OwnerErrors))]
async fn set_page_content(
    State(store): State<Store>,
    Path(id): Path<String>,
    owner: OwnerToken,
    body: Body,
) -> Result<Json<PageContent>, ApiError> {
    let (_, mut c) = collection_for(&store, &owner, &id, Access::Write).await?;
    // The body is read once the role may change this page.
    let b: PageContent = read_json(body, MAX_JSON_BODY).await?;
    if page_content_of(&c).main_content == b.main_content {
        // Unchanged: what was stored stays (an import's form or layout included).
        return Ok(Json(page_content_of(&c)));
    }
    c.data.insert(
        "mainContent".into(),
        rich_text::sanitize(&b.main_content).into(),
    );
    let change = tenants::PagesChange {
        collections: vec![c.clone()],
        ..Default::default()
    };
    store
        .put_pages(owner.site.tenant.id, &change)
        .await
        .map_err(|e| refused(&e, NO_COLLECTION))?;
    Ok(Json(page_content_of(&c)))
}

/// A variant's new stock.
#[derive(Deserialize, Default, ToSchema)]
#[schema(as = OwnerStockBody)]
#[serde(default)]
pub(crate) struct StockBody {
    /// The variant's SKU.
    #[schema(required = true)]
    sku: String,
    /// Units in stock (unchanged when absent).
    #[schema(minimum = 0)]
    quantity: Option<i64>,
    /// Never sold out.
    unlimited: bool,
}

/// A variant's stock as stored.
#[derive(Serialize, ToSchema)]
#[schema(as = OwnerStockSet)]
struct StockSet {
    sku: String,
    quantity: i64,
    unlimited: bool,
}

/// `PUT /api/owner/items/{id}/stock`: sets a product variant's stock.
///
/// A raise from sold out (to more than 0, or unlimited) sends the variant's waiting restock
/// notices in the same write, each signer once, unless the commerce preference
/// `restock.autoNotify` is `false`.
#[utoipa::path(put, path = "/api/owner/items/{id}/stock", tag = OWNER,
    params(("id" = String, Path, description = "The product's item id.")),
    request_body = StockBody, security(("ownerToken" = [])),
    responses((status = 200, body = StockSet), OwnerErrors))]
async fn set_stock(
    State(app): State<App>,
    Path(id): Path<String>,
    owner: OwnerToken,
    body: Body,
) -> Result<Json<StockSet>, ApiError> {
    let (_, c, item) = item_for(&app.store, &owner, &id, Access::Write).await?;
    // A store's item: `item_for` checked the role may change the store.
    if !is_store(&c) {
        return Err(ApiError::not_found(NO_ITEM));
    }
    // The body is read once the item is known to be a product the role may change.
    let b: StockBody = read_json(body, MAX_JSON_BODY).await?;
    let Some(current) = item.variants.iter().find(|v| v.sku == b.sku) else {
        return Err(ApiError::field("sku", NO_VARIANT));
    };
    let quantity = b.quantity.unwrap_or(current.qty_in_stock);
    if quantity < 0 {
        return Err(ApiError::field("quantity", BAD_STOCK));
    }
    // A raise from sold out tells the variant's waiting sign-ups, in the same write.
    let composer = restock_composer(&app, &owner).await;
    let notice = |product: &str, sku: &str| {
        let composer = composer.as_ref()?;
        Some(restock_notice(composer, &owner, product, sku, None))
    };
    let notice: Option<&RestockNotice> = composer.is_some().then_some(&notice);
    let told = app
        .store
        .set_stock_notifying(
            owner.site.tenant.id,
            &id,
            &b.sku,
            quantity,
            b.unlimited,
            notice,
        )
        .await
        .map_err(|e| refused(&e, NO_VARIANT))?;
    if told > 0 {
        app.outbox.nudge();
    }
    Ok(Json(StockSet {
        sku: b.sku,
        quantity,
        unlimited: b.unlimited,
    }))
}
