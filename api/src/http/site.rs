//! `Host` → tenant → what the request needs of its site: the renderer's view of the content,
//! the commerce settings, the locale and time zone, and the signing secret. One lookup for
//! pages and API calls alike, by the server's layer ([`crate::server::site`]); the
//! per-content-version part is cached in [`crate::cache::Caches`].

use std::collections::HashMap;
use std::sync::Arc;

use axum::extract::Request;
use axum::http::header;
use renderer::site::SiteContent;
use serde_json::Value;
use tenants::commerce::CommerceSettings;
use tenants::{TemplateHash, TemplateVersion, Tenant};

/// What a site's content version gives every request: built once per `(tenant, content
/// version)`.
pub struct SiteBundle {
    /// The renderer's view of the content.
    pub render: Arc<SiteContent>,
    /// The JSON shape of the content it was built from (its cache weight).
    pub content_shape: tenants::cache::JsonShape,
    /// The commerce configuration; a stored namespace that does not read is left out (and
    /// logged), so it always has one.
    pub commerce: Arc<CommerceSettings>,
    /// The site's language tag (`website.language`, default `en-US`).
    pub language: String,
    /// The same as a locale, for money formatting.
    pub locale: icu_locale::Locale,
    /// The site's time zone (`website.timeZone`, default SPEC's America/New_York).
    pub time_zone: String,
    /// `website.id` when the site has one, else the tenant id (the carts' `websiteId`).
    pub website_id: String,
    /// Each product's page and main image, by item id: what a cart line links to and shows.
    pub products: HashMap<String, ProductLink>,
    /// What a restock sign-up shows when it worked (`merchandising.restockSuccessText`), if
    /// the owner set it; the island's default is SPEC's "Signed up!".
    pub restock_success_text: Option<String>,
    /// When the view changes though the content does not: the page context's time-zone
    /// fields (`website.timeZoneOffset`, `timeZoneAbbr`) as the site's zone switches to or
    /// from daylight saving, or a scheduled product's `publishOn` (it joins the lists, its
    /// page and the carts' links then): the bundle is built again from then on. `None`:
    /// never.
    pub stale_after: Option<jiff::Timestamp>,
    /// The announcement bar and cookie banner's markup, built once per content version.
    pub notices: crate::pages::notices::Notices,
    /// Whether the site keeps its visitors unnamed
    /// ([`crate::analytics::page_views::restrictive`]): read once here, not on every page.
    pub restrictive: bool,
}

/// Where a product lives on the site, for its cart lines.
#[derive(Clone, Debug, PartialEq)]
pub struct ProductLink {
    /// The product page (`fullUrl`).
    pub url: String,
    /// The product's main image (`assetUrl`), if it has one.
    pub image: Option<String>,
    /// The product's additional-fields form (`structuredContent.additionalFieldsForm`, when
    /// `additionalFieldsFormId` names one), which its cart lines are edited with.
    pub form: Option<serde_json::Value>,
    /// The product's option names in the order its page shows them
    /// (`structuredContent.variantOptionOrdering`), so a line reads "Size: L, Colour: Oat".
    pub options: Vec<String>,
    /// The product's instalment pill at its lowest price (the item's `installments`), when
    /// the store offers instalments for it.
    pub instalments: Option<serde_json::Value>,
}

/// A context value as plain JSON.
fn to_json(n: &template_lang::value::Node) -> serde_json::Value {
    let mut text = String::new();
    template_lang::value::json::stringify(template_lang::value::View::of(n), None, &mut text);
    serde_json::from_str(&text).unwrap_or(serde_json::Value::Null)
}

/// The products of `content`: every item with a `productType` under `structuredContent`.
fn product_links(content: &SiteContent) -> HashMap<String, ProductLink> {
    let text = |n: &template_lang::value::Node, k: &str| {
        n.pointer(&[k]).and_then(|v| v.as_str()).map(str::to_owned)
    };
    let mut out = HashMap::new();
    for c in &content.collections {
        for item in &c.items {
            if item
                .pointer(&["structuredContent", "productType"])
                .is_none()
            {
                continue;
            }
            if let (Some(id), Some(url)) = (text(item, "id"), text(item, "fullUrl")) {
                let image = text(item, "assetUrl").filter(|s| !s.is_empty());
                let has_form = text(
                    item.pointer(&["structuredContent"]).unwrap_or(item),
                    "additionalFieldsFormId",
                )
                .is_some_and(|f| !f.is_empty());
                let form = item
                    .pointer(&["structuredContent", "additionalFieldsForm"])
                    .filter(|_| has_form)
                    .map(to_json);
                let options = match item.pointer(&["structuredContent", "variantOptionOrdering"]) {
                    Some(list) => list
                        .as_array()
                        .unwrap_or_default()
                        .iter()
                        .filter_map(|o| o.as_str().map(str::to_owned))
                        .collect(),
                    None => Vec::new(),
                };
                let instalments = item.pointer(&["installments"]).map(to_json);
                out.insert(
                    id,
                    ProductLink {
                        url,
                        image,
                        form,
                        options,
                        instalments,
                    },
                );
            }
        }
    }
    out
}

/// A request's site.
#[derive(Clone)]
pub struct Site {
    pub tenant: Arc<Tenant>,
    pub template_version: Option<TemplateVersion>,
    /// The content hash of that version's files, as stored with it (`None` for a version
    /// stored by an older node without one): finds the shared compiled folder.
    pub template_hash: Option<TemplateHash>,
    pub content: Arc<SiteBundle>,
    /// The tenant's signing secret.
    pub secret: Arc<[u8; 32]>,
}

/// Why a request has no site.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoSite {
    /// No tenant has this host (or there is no `Host`).
    UnknownHost,
    /// The store failed (logged).
    Unavailable,
}

/// The `Host` header (or the URI authority on HTTP/2).
pub fn host_of(req: &Request) -> Option<String> {
    host_of_parts(req.headers(), req.uri())
}

/// [`host_of`] from a request's headers and URI.
pub fn host_of_parts(headers: &axum::http::HeaderMap, uri: &axum::http::Uri) -> Option<String> {
    headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .map(str::to_string)
        .or_else(|| uri.authority().map(|a| a.to_string()))
}

/// The request's site as [`crate::server::site::resolve_layer`] found it, in the request's extensions: every
/// reader (the page pipeline, the per-site cap, the [`crate::http::extract`] extractors)
/// takes it from there, so a request's site is looked up once.
#[derive(Clone)]
pub struct Resolved(pub Result<Site, NoSite>);

/// The bundle of a site's content, with the captcha settings its islands are given and the
/// site's forms (drawn where its texts place form blocks; only needed when
/// [`crate::pages::site_bridge::needs_forms`]).
pub fn bundle(
    snapshot: &tenants::SiteSnapshot,
    captcha: &Value,
    forms: &[tenants::Form],
) -> SiteBundle {
    let website = &snapshot.settings.website;
    let text = |k: &str| website.get(k).and_then(Value::as_str).map(str::to_owned);
    // A stored preference that does not read (from before the owner API checked them) is
    // left out and logged: a preference never takes the store down (issue 40, finding 8).
    let (settings, problems) = CommerceSettings::from_site_lenient(
        &snapshot.settings.website_settings,
        &snapshot.commerce_preferences,
    );
    for e in &problems {
        tracing::error!(tenant = %snapshot.tenant.identifier, "commerce settings, left out: {e}");
    }
    let commerce = Arc::new(settings);
    let language = text("language").unwrap_or_else(|| "en-US".to_owned());
    let locale = language
        .parse::<icu_locale::Locale>()
        .unwrap_or(icu_locale::locale!("en-US"));
    let now = jiff::Timestamp::now();
    let render = Arc::new(crate::pages::site_bridge::site_content_at(
        snapshot,
        Some(&commerce),
        &locale,
        captcha,
        forms,
        now,
    ));
    SiteBundle {
        products: product_links(&render),
        restrictive: crate::analytics::page_views::restrictive(&render),
        render,
        content_shape: snapshot.shape,
        commerce,
        language,
        locale,
        time_zone: text("timeZone").unwrap_or_else(|| "America/New_York".to_owned()),
        website_id: text("id").unwrap_or_else(|| snapshot.tenant.id.to_string()),
        restock_success_text: snapshot
            .commerce_preferences
            .get("merchandising")
            .and_then(|m| m.get("restockSuccessText"))
            .and_then(Value::as_str)
            .filter(|t| !t.trim().is_empty())
            .map(str::to_owned),
        stale_after: crate::pages::site_bridge::derived_until(snapshot, now),
        notices: crate::pages::notices::Notices::build(&snapshot.settings.website_settings),
    }
}
