//! Turns the store's content snapshot (`tenants::SiteSnapshot`) into what the renderer reads
//! (`renderer::site::SiteContent`): collection and item objects shaped as the page context
//! expects (TEMPLATE-PLATFORM.md §3.4–3.6), products with `structuredContent` variants and
//! money as decimal strings; form blocks in a page's or item's text drawn from the site's
//! forms ([`form_blocks`]).

pub mod form_blocks;

use crate::http::host::link_origin;
use crate::routes::owner::galleries;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use renderer::site::{Collection, NavLink, SiteContent};
use serde_json::{Map, Value, json};
use template_lang::value::Node;

use tenants::commerce::money::decimal_string as money_string;

fn money(minor: i64, currency: &str) -> Value {
    json!({ "currency": currency, "value": money_string(minor, currency) })
}

fn collection_url(c: &tenants::model::Collection) -> String {
    if c.homepage {
        "/".to_string()
    } else {
        format!("/{}", c.url_id)
    }
}

fn collection_node(
    c: &tenants::model::Collection,
    site: &tenants::model::SiteSnapshot,
    shown: usize,
) -> Value {
    let mut o = Map::new();
    o.insert("id".into(), json!(c.id));
    o.insert("urlId".into(), json!(c.url_id));
    o.insert("fullUrl".into(), json!(collection_url(c)));
    o.insert("title".into(), json!(c.title));
    let nav_title = if c.navigation_title.is_empty() {
        &c.title
    } else {
        &c.navigation_title
    };
    o.insert("navigationTitle".into(), json!(nav_title));
    o.insert("description".into(), json!(c.description));
    o.insert("type".into(), json!(c.kind));
    o.insert("typeName".into(), json!(c.type_name));
    o.insert("typeLabel".into(), json!(c.type_name));
    o.insert("ordering".into(), json!(c.ordering));
    o.insert("enabled".into(), json!(c.enabled));
    o.insert("homepage".into(), json!(c.homepage));
    o.insert("regionName".into(), json!("default"));
    if let Some(size) = c.page_size {
        o.insert("pageSize".into(), json!(size));
    }
    let categories: Vec<&str> = site
        .categories
        .iter()
        .filter(|cat| cat.collection_id == c.id && cat.parent_category_id.is_some())
        .map(|cat| cat.display_name.as_str())
        .collect();
    if !categories.is_empty() {
        o.insert("categories".into(), json!(categories));
    }
    o.insert("itemCount".into(), json!(shown));
    for (k, v) in &c.data {
        o.insert(k.clone(), v.clone());
    }
    // A gallery's options (SPEC.md §9), every one with its default filled in, where the
    // platform's `gallery-*?` predicates look (`options` up the stack).
    if galleries::is_gallery(c) {
        o.insert(
            "options".into(),
            Value::Object(galleries::effective_options(c.data.get("options"))),
        );
    }
    // After `data`, so stored data cannot claim otherwise. The hash itself stays out of every
    // node; the renderer keeps it on `Collection::lock`.
    o.insert("passwordProtected".into(), json!(c.password_hash.is_some()));
    Value::Object(o)
}

/// Forms in place of the form blocks of `node`'s rich text `key` (see [`form_blocks`]).
fn place_forms(node: &mut Value, key: &str, forms: &HashMap<&str, &tenants::Form>) {
    if let Some(Value::String(html)) = node.get_mut(key)
        && let Some(filled) = form_blocks::fill(html, forms)
    {
        *html = filled;
    }
}

/// What products show of the store's commerce settings: the instalment pill.
struct ProductExtras<'a> {
    settings: Option<&'a tenants::commerce::CommerceSettings>,
    language: &'a str,
    locale: &'a icu_locale::Locale,
}

/// The instalment pill of a product (physical, not a subscription) at its lowest selling
/// price, when the store offers instalments in its market.
fn product_instalments(item: &tenants::model::Item, x: &ProductExtras<'_>) -> Option<Value> {
    let settings = x.settings?;
    if item.product_type != Some(tenants::commerce::product_type::PHYSICAL)
        || item.structured_content.get("isSubscribable") == Some(&json!(true))
    {
        return None;
    }
    let v = item.variants.iter().min_by_key(|v| {
        if v.on_sale {
            v.sale_price_minor
        } else {
            v.price_minor
        }
    })?;
    let price = if v.on_sale {
        v.sale_price_minor
    } else {
        v.price_minor
    };
    let currency = if v.currency.is_empty() {
        &settings.currency
    } else {
        &v.currency
    };
    let q =
        tenants::commerce::instalments::quote(settings.instalments.as_ref(), x.language, price)?;
    Some(crate::http::commerce::instalments::instalments_json(
        &q, true, currency, x.locale,
    ))
}

fn item_node(
    item: &tenants::model::Item,
    collection_url_id: &str,
    default_currency: &str,
    extras: &ProductExtras<'_>,
) -> Value {
    let mut o = Map::new();
    o.insert("id".into(), json!(item.id));
    o.insert("collectionId".into(), json!(item.collection_id));
    o.insert("urlId".into(), json!(item.url_id));
    o.insert(
        "fullUrl".into(),
        json!(format!("/{collection_url_id}/{}", item.url_id)),
    );
    o.insert("title".into(), json!(item.title));
    o.insert("body".into(), json!(item.body));
    o.insert("excerpt".into(), json!(item.excerpt));
    o.insert("recordType".into(), json!(item.record_type));
    o.insert("starred".into(), json!(item.starred));
    if let Some(author) = &item.author {
        o.insert("author".into(), author.clone());
    }
    o.insert("addedOn".into(), json!(item.added_on));
    o.insert("publishOn".into(), json!(item.publish_on));
    o.insert("updatedOn".into(), json!(item.updated_on));
    if let Some(start) = item.start_date {
        o.insert("startDate".into(), json!(start));
    }
    if let Some(end) = item.end_date {
        o.insert("endDate".into(), json!(end));
    }
    o.insert("categories".into(), json!(item.categories));
    o.insert("tags".into(), json!(item.tags));
    let mut structured = item.structured_content.clone();
    if let Some(kind) = item.product_type {
        structured.insert("productType".into(), json!(kind));
    }
    if !item.variants.is_empty() {
        let variants: Vec<Value> = item
            .variants
            .iter()
            .map(|v| {
                let currency = if v.currency.is_empty() {
                    default_currency
                } else {
                    &v.currency
                };
                let option_values: Vec<Value> = v
                    .attributes
                    .iter()
                    .map(|(name, value)| json!({ "name": name, "value": value }))
                    .collect();
                json!({
                    "sku": v.sku,
                    "attributes": v.attributes,
                    "optionValues": option_values,
                    "priceMoney": money(v.price_minor, currency),
                    "salePriceMoney": money(v.sale_price_minor, currency),
                    "onSale": v.on_sale,
                    "qtyInStock": v.qty_in_stock,
                    "unlimited": v.unlimited,
                    "price": v.price_minor,
                    "salePrice": v.sale_price_minor,
                })
            })
            .collect();
        // Digital goods carry their single price on structuredContent itself.
        if item.product_type == Some(2)
            && let Some(first) = item.variants.first()
        {
            let currency = if first.currency.is_empty() {
                default_currency
            } else {
                &first.currency
            };
            structured.insert("priceMoney".into(), money(first.price_minor, currency));
            structured.insert(
                "salePriceMoney".into(),
                money(first.sale_price_minor, currency),
            );
            structured.insert("onSale".into(), json!(first.on_sale));
        }
        structured.insert("variants".into(), Value::Array(variants));
        // The options a shopper picks: the stored order when given, else every attribute
        // name of the variants in the order they first appear (an item saved through the
        // owner API or imported without it still shows its pickers).
        if !structured.contains_key("variantOptionOrdering") {
            let mut names: Vec<&str> = Vec::new();
            for v in &item.variants {
                for name in v.attributes.keys() {
                    if !names.contains(&name.as_str()) {
                        names.push(name);
                    }
                }
            }
            if !names.is_empty() {
                structured.insert("variantOptionOrdering".into(), json!(names));
            }
        }
    }
    if !structured.is_empty() {
        o.insert("structuredContent".into(), Value::Object(structured));
    }
    for (k, v) in &item.data {
        o.insert(k.clone(), v.clone());
    }
    if let Some(pill) = product_instalments(item, extras) {
        o.insert("installments".into(), pill);
    }
    Value::Object(o)
}

/// What SPEC.md §3 calls the merchandising context, from the `merchandising` commerce
/// preferences, for the product pages' scarcity, sold-out and restock sign-up formatters:
/// product id → settings, with one restock view per sold-out variant (hidden until chosen
/// when the product has several). `Null` for a site with no products.
fn merchandising(site: &tenants::model::SiteSnapshot, now_ms: i64) -> Node {
    let prefs = site
        .commerce_preferences
        .get("merchandising")
        .cloned()
        .unwrap_or_default();
    let flag = |k: &str, default: bool| prefs.get(k).and_then(Value::as_bool).unwrap_or(default);
    let text = |k: &str| prefs.get(k).cloned().unwrap_or(Value::Null);
    let restock_on = flag("restockNotificationsEnabled", false);
    let messages = json!({
        "buttonText": prefs.get("restockButtonText").and_then(Value::as_str).unwrap_or("Notify Me"),
        "CTAText": prefs.get("restockCTAText").and_then(Value::as_str)
            .unwrap_or("Sign up to be notified when this product is back in stock."),
        "placeholderText": prefs.get("restockPlaceholderText").and_then(Value::as_str)
            .unwrap_or("Email Address"),
        "mailingListDescription": prefs.get("mailingListDescription").and_then(Value::as_str)
            .unwrap_or("Sign up for news and updates"),
        "successMessage": text("restockSuccessText"),
    });
    let mut out = Map::new();
    for item in &site.items {
        if item.product_type.is_none() || !item.shown_at(now_ms) {
            continue;
        }
        let sold_out: Vec<Value> = if restock_on {
            item.variants
                .iter()
                .filter(|v| !v.unlimited && v.qty_in_stock <= 0)
                .map(|v| json!({ "variantId": v.sku, "hiddenByDefault": item.variants.len() > 1 }))
                .collect()
        } else {
            Vec::new()
        };
        out.insert(
            item.id.clone(),
            json!({
                "customSoldOutText": text("customSoldOutText"),
                "scarcityEnabled": flag("scarcityEnabled", false),
                "scarcityText": text("scarcityText"),
                "scarcityThreshold": text("scarcityThreshold"),
                "scarcityShownByDefault": flag("scarcityShownByDefault", false),
                "restockNotificationsEnabled": restock_on,
                "restockNotificationViews": sold_out,
                "restockNotificationMessages": messages,
                "mailingListSignUpEnabled": flag("mailingListSignUpEnabled", false),
                "mailingListOptInByDefault": flag("mailingListOptInByDefault", false),
            }),
        );
    }
    if out.is_empty() {
        Node::Null
    } else {
        Node::from_json(&Value::Object(out))
    }
}

/// Whether a page's or item's text places a form block, so the site's forms are needed to
/// build its content (they are loaded only then).
pub fn needs_forms(site: &tenants::model::SiteSnapshot) -> bool {
    let text = |v: Option<&Value>| {
        v.and_then(Value::as_str)
            .is_some_and(form_blocks::has_placeholder)
    };
    site.collections
        .iter()
        .any(|c| text(c.data.get("mainContent")))
        || site
            .items
            .iter()
            .any(|i| form_blocks::has_placeholder(&i.body))
}

/// The site's time zone (`website.timeZone`, SPEC's America/New_York when unset; UTC when
/// it names no zone jiff knows).
fn site_zone(website: &Map<String, Value>) -> jiff::tz::TimeZone {
    let zone = website
        .get("timeZone")
        .and_then(Value::as_str)
        .unwrap_or("America/New_York");
    jiff::tz::TimeZone::get(zone).unwrap_or(jiff::tz::TimeZone::UTC)
}

/// When the view of the site built at `now` stops being true though its content has not
/// changed: the derived time-zone fields (`timeZoneOffset`, `timeZoneAbbr`) at the zone's
/// next offset change (a daylight-saving switch), or a scheduled item's `publishOn`,
/// whichever comes first; or never.
pub fn derived_until(
    site: &tenants::model::SiteSnapshot,
    now: jiff::Timestamp,
) -> Option<jiff::Timestamp> {
    let zone = site_zone(&site.settings.website)
        .following(now)
        .next()
        .map(|t| t.timestamp());
    // A scheduled item that starts to show changes every list it is in.
    let scheduled = site
        .next_shown_at(now.as_millisecond())
        .and_then(|ms| jiff::Timestamp::from_millisecond(ms).ok());
    zone.into_iter().chain(scheduled).min()
}

/// The `website` fields the platform derives (TEMPLATE-PLATFORM.md §3.2), the same on every
/// page: the id and identifier, the URLs from the site's configured domains (never a
/// request's Host header), the time zone's offset and abbreviation at `now`, and the
/// switches templates read. An id the owner's settings carry is kept (the order and owner
/// APIs give the same one); the derived URLs and time-zone fields replace stored ones.
fn derive_website(
    website: &mut Map<String, Value>,
    site: &tenants::model::SiteSnapshot,
    now: jiff::Timestamp,
) {
    let tenant = &site.tenant;
    website
        .entry("id")
        .or_insert_with(|| Value::String(tenant.id.to_string()));
    website.insert(
        "identifier".into(),
        Value::String(tenant.identifier.clone()),
    );
    let primary = tenants::model::Domain::link_host(&site.domains, &tenant.identifier);
    // The identifier's own domain (`<identifier>.…`), where the site answers whatever its
    // primary domain is.
    let internal = site
        .domains
        .iter()
        .find(|d| {
            d.host
                .strip_prefix(tenant.identifier.as_str())
                .is_some_and(|rest| rest.starts_with('.'))
        })
        .map_or_else(|| primary.clone(), |d| d.host.clone());
    let base = link_origin(&primary, None);
    website.insert("primaryDomain".into(), Value::String(primary));
    website.insert("baseUrl".into(), Value::String(base.clone()));
    website.insert("authenticUrl".into(), Value::String(base));
    website.insert(
        "internalUrl".into(),
        Value::String(link_origin(&internal, None)),
    );
    let zone = site_zone(website);
    let info = zone.to_offset_info(now);
    // Milliseconds east of UTC, as the platform gives it.
    website.insert(
        "timeZoneOffset".into(),
        json!(i64::from(info.offset().seconds()) * 1000),
    );
    website.insert("timeZoneAbbr".into(), json!(info.abbreviation()));
    // The last change to the content the store keeps times for (its items), else the
    // site's creation.
    let modified = site
        .items
        .iter()
        .map(|i| i.updated_on.max(i.added_on))
        .max()
        .unwrap_or(0)
        .max(tenant.created_ms);
    website.insert("contentModifiedOn".into(), json!(modified));
    website.insert("developerMode".into(), Value::Bool(true));
    website
        .entry("shareButtonOptions")
        .or_insert_with(|| json!({}));
    website.entry("socialAccounts").or_insert_with(|| json!([]));
}

/// Builds the renderer's view of a site from the store's snapshot, with the store's
/// commerce settings (products show the instalment pill) in the site's locale.
pub fn site_content(
    site: &tenants::model::SiteSnapshot,
    commerce: Option<&tenants::commerce::CommerceSettings>,
    locale: &icu_locale::Locale,
    captcha: &Value,
) -> SiteContent {
    site_content_at(site, commerce, locale, captcha, &[], jiff::Timestamp::now())
}

/// [`site_content`] as of `now` (the derived time-zone fields are those at `now`; see
/// [`derived_until`]), with the site's `forms` drawn where its texts place them (see
/// [`needs_forms`]).
pub fn site_content_at(
    site: &tenants::model::SiteSnapshot,
    commerce: Option<&tenants::commerce::CommerceSettings>,
    locale: &icu_locale::Locale,
    captcha: &Value,
    forms: &[tenants::Form],
    now: jiff::Timestamp,
) -> SiteContent {
    let forms: HashMap<&str, &tenants::Form> = forms.iter().map(|f| (f.id.as_str(), f)).collect();
    let settings = &site.settings;
    let now_ms = now.as_millisecond();
    let mut website = settings.website.clone();
    derive_website(&mut website, site, now);
    if !captcha.is_null() {
        // The server's captcha, for the forms that show one (`website.captchaSettings`).
        website.insert("captchaSettings".into(), captcha.clone());
    }
    let website = Value::Object(website);
    let mut website_settings = settings.website_settings.clone();
    // The site password's hash stays out of every page context: the renderer keeps it on
    // `SiteContent::site_lock`.
    let site_lock = website_settings
        .remove(crate::routes::owner::site_access::KEY)
        .as_ref()
        .and_then(crate::routes::owner::site_access::site_lock);
    let website_settings = Value::Object(website_settings);
    let default_currency = website_settings
        .pointer("/storeSettings/selectedCurrency")
        .and_then(Value::as_str)
        .unwrap_or("USD")
        .to_string();
    let language = settings
        .website
        .get("language")
        .and_then(Value::as_str)
        .unwrap_or("en-US");
    let extras = ProductExtras {
        settings: commerce,
        language,
        locale,
    };
    let enabled: Vec<&tenants::model::Collection> =
        site.collections.iter().filter(|c| c.enabled).collect();
    let index_of = |id: &str| enabled.iter().position(|c| c.id == id);
    let mut collections: Vec<Collection> = enabled
        .iter()
        .map(|c| {
            // Only what visitors see at `now`: hidden and not-yet-scheduled items are in no
            // list, page, search or cart link of the site.
            let shown = site.shown_items(c, now_ms);
            let mut node = collection_node(c, site, shown.len());
            place_forms(&mut node, "mainContent", &forms);
            let items = shown
                .into_iter()
                .map(|i| {
                    let mut node = item_node(i, &c.url_id, &default_currency, &extras);
                    place_forms(&mut node, "body", &forms);
                    // A gallery's image always says its alt text: as the owner gave it
                    // ("" when decorative), else as SPEC.md §3 derives it.
                    if galleries::is_gallery(c)
                        && let Value::Object(o) = &mut node
                        && !o.get("altText").is_some_and(Value::is_string)
                    {
                        o.insert("altText".into(), json!(galleries::derived_alt(i)));
                    }
                    Node::from_json(&node)
                })
                .collect();
            Collection {
                node: Node::from_json(&node),
                items,
                children: Vec::new(),
                url_id: c.url_id.clone(),
                type_name: c.type_name.clone(),
                lock: c.password_hash.as_deref().map(Arc::from),
                categories: Default::default(),
            }
        })
        .collect();
    for (child, c) in enabled.iter().enumerate() {
        if let Some(parent) = c.parent_id.as_deref().and_then(index_of) {
            collections[parent].children.push(child);
        }
    }
    let navigations: BTreeMap<String, Vec<NavLink>> = site
        .navigations
        .iter()
        .map(|(name, links)| (name.clone(), nav_links(links, &index_of)))
        .collect();
    let homepage = enabled
        .iter()
        .position(|c| c.homepage)
        .or(if enabled.is_empty() { None } else { Some(0) });
    let locale = website
        .get("language")
        .and_then(Value::as_str)
        .unwrap_or("en-US")
        .to_string();
    let block_fields = site
        .header_footer
        .footer
        .get("blockFields")
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.into())))
                .collect()
        })
        .unwrap_or_default();
    SiteContent {
        website: Node::from_json(&website),
        website_settings: Node::from_json(&website_settings),
        collections,
        navigations,
        block_fields,
        homepage,
        merchandising: merchandising(site, now_ms),
        locale,
        header: header_footer_node(&site.header_footer.header),
        footer: header_footer_node(&site.header_footer.footer),
        nav_cache: Default::default(),
        fragments: Default::default(),
        site_lock,
    }
}

/// The owner's header or footer object as the page context's `header` / `footer` (none
/// when unset or empty).
fn header_footer_node(v: &Value) -> Node {
    match v {
        Value::Object(o) if !o.is_empty() => Node::from_json(v),
        _ => Node::Null,
    }
}

/// The renderer's links from stored navigation items: `{ collectionId, items? }` or
/// `{ externalLink: { url, newWindow }, title }`. Links to disabled or deleted collections
/// are dropped.
fn nav_links(links: &Value, by_id: &impl Fn(&str) -> Option<usize>) -> Vec<NavLink> {
    let Some(list) = links.as_array() else {
        return Vec::new();
    };
    list.iter()
        .filter_map(|l| {
            if let Some(id) = l.get("collectionId").and_then(Value::as_str) {
                let children = l
                    .get("items")
                    .map(|c| nav_links(c, by_id))
                    .unwrap_or_default();
                return Some(NavLink::Collection {
                    index: by_id(id)?,
                    title: l
                        .get("title")
                        .and_then(Value::as_str)
                        .map(str::trim)
                        .filter(|t| !t.is_empty())
                        .map(str::to_owned),
                    children,
                });
            }
            let ext = l.get("externalLink")?;
            Some(NavLink::External {
                title: l
                    .get("title")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string(),
                url: ext
                    .get("url")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string(),
                new_window: ext
                    .get("newWindow")
                    .and_then(Value::as_bool)
                    .unwrap_or(false),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use tenants::TenantId;
    use tenants::model::{HeaderFooter, SiteSettings, SiteSnapshot, Tenant, WebsiteStatus};

    fn amsterdam() -> SiteSnapshot {
        let mut settings = SiteSettings::default();
        settings
            .website
            .insert("timeZone".into(), json!("Europe/Amsterdam"));
        SiteSnapshot {
            tenant: Tenant {
                id: TenantId(7),
                identifier: "tulip".into(),
                name: "Tulip".into(),
                status: WebsiteStatus::Paid,
                content_version: 1,
                template_version: None,
                template_hash: None,
                created_ms: 0,
            },
            domains: vec![],
            settings,
            collections: vec![],
            items: vec![],
            categories: vec![],
            navigations: BTreeMap::new(),
            header_footer: HeaderFooter::default(),
            multilingual: Value::Null,
            commerce_preferences: BTreeMap::new(),
            shape: Default::default(),
        }
    }

    fn derived(site: &SiteSnapshot, at: &str) -> (Value, Value) {
        let mut website = site.settings.website.clone();
        derive_website(&mut website, site, at.parse().unwrap());
        (
            website["timeZoneOffset"].clone(),
            website["timeZoneAbbr"].clone(),
        )
    }

    #[test]
    fn the_offset_is_the_zones_at_the_time_and_stale_from_its_next_change() {
        let site = amsterdam();
        // Summer time until 01:00 UTC on 25 October 2026, then winter time.
        assert_eq!(
            derived(&site, "2026-10-25T00:30:00Z"),
            (json!(7_200_000), json!("CEST"))
        );
        assert_eq!(
            derived_until(&site, "2026-10-25T00:30:00Z".parse().unwrap()),
            Some("2026-10-25T01:00:00Z".parse().unwrap())
        );
        assert_eq!(
            derived(&site, "2026-10-25T01:00:00Z"),
            (json!(3_600_000), json!("CET"))
        );
        // A zone without changes (UTC) is never stale.
        let mut utc = site.clone();
        utc.settings.website.insert("timeZone".into(), json!("UTC"));
        assert_eq!(
            derived_until(&utc, "2026-10-25T00:30:00Z".parse().unwrap()),
            None
        );
    }
}
