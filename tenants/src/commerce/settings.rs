//! A store's commerce configuration, read from the site settings and the tenant's commerce
//! preferences (`commerce-preferences.json` in the import format; the owner API later).
//!
//! | namespace | keys |
//! |---|---|
//! | `checkout` | `minimumSubtotal` (price): the smallest subtotal that may check out; `orderNotesLabel` (text, at most 200 characters): checkout asks for order notes under this label; `requireShippingPhone` (bool, default false): a shipping address needs a phone number |
//! | `taxes` | `pricesIncludeTax` (bool), `rules`: `[{ name?, country, region?, rate, appliesToShipping? }]` |
//! | `shipping` | `options`: `[{ id, name, countries?, kind, ... }]` with `kind` `flat` (`price`), `free-above` (`price`, `freeAbove`) or `weight` (`rates: [{ upToGrams, price }]`) |
//! | `coupons` | `codes`: `[{ code, kind, percent? , amount?, minimumSubtotal?, startsOn?, expiresOn? }]` with `kind` `percent`, `fixed` or `free-shipping` |
//! | `instalments` | `provider` (`afterpay`), `minimum`, `maximum` (prices), `payments` (default 4) |
//! | `payments` | `testMode` (default true), `manual`: `{ label, instructions }` |
//! | `notifications` | `orderEmail` (bool, default true): the owner is mailed each new order; `orderEmailTo` (an email address, default the site's `websiteSettings.contactEmail`) |
//! | `restock` | `autoNotify` (default true): a variant an owner raises from sold out sends its waiting restock notices by itself; `lowStockAt` (whole number 0-1,000,000, default 5): a variant with counted stock at or under it is low on stock (the owner's inventory filter and dashboard) |
//!
//! Prices are decimal strings in the site currency (`"12.50"`), rates and percentages
//! decimal strings (`"21"`, `"7.5"`), countries ISO 3166-1 alpha-2 codes or `*` (any), a tax
//! rule's region the ISO 3166-2 code of one of its country's regions (`ME` or `US-ME`), dates
//! `YYYY-MM-DD` (a whole day, UTC) or RFC 3339 instants. Other keys of these namespaces are
//! left alone (owners keep other preferences there); the objects inside the lists refuse
//! unknown keys, so a typo is an error rather than a silently ignored rule.

use std::collections::BTreeMap;

use rust_decimal::Decimal;
use serde_json::{Map, Value};

use super::money::parse_price;

/// Everything checkout needs to know about a store.
#[derive(Clone, Debug, PartialEq)]
pub struct CommerceSettings {
    /// The site currency (`websiteSettings.storeSettings.selectedCurrency`, else USD).
    pub currency: String,
    /// `checkout.minimumSubtotal`, minor units.
    pub minimum_subtotal_minor: Option<i64>,
    /// `checkout.orderNotesLabel`: when set, checkout asks for order notes under it.
    pub order_notes_label: Option<String>,
    /// `checkout.requireShippingPhone` (default false): a shipping address needs a phone.
    pub require_shipping_phone: bool,
    /// `storeSettings.multipleQuantityAllowedForServices` (SPEC default true).
    pub multiple_quantity_for_services: bool,
    /// Tax rules.
    pub taxes: Taxes,
    /// Shipping options in the owner's order.
    pub shipping: Vec<ShippingOption>,
    /// Coupon codes.
    pub coupons: Vec<Coupon>,
    /// The instalment provider's limits, when the store offers instalments.
    pub instalments: Option<Instalments>,
    /// How buyers pay.
    pub payments: Payments,
    /// Who is told of new orders.
    pub notifications: Notifications,
    /// Restock notices.
    pub restock: Restock,
}

/// `restock`: the back-in-stock notices.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Restock {
    /// `restock.autoNotify` (default true): when an owner raises a sold-out variant's stock
    /// (the owner API's item and stock routes), its waiting sign-ups are sent their notices
    /// then, once each; off, they wait for the owner's send.
    pub auto_notify: bool,
    /// `restock.lowStockAt` (default [`LOW_STOCK_AT`]): counted stock at or under this is
    /// low (the owner's inventory filter and dashboard).
    pub low_stock_at: i64,
}

/// The low-stock threshold of a store that sets none.
pub const LOW_STOCK_AT: i64 = 5;

impl Default for Restock {
    fn default() -> Self {
        Restock {
            auto_notify: true,
            low_stock_at: LOW_STOCK_AT,
        }
    }
}

/// `notifications`: the owner's email about each new order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Notifications {
    /// `notifications.orderEmail` (default true): the owner gets an email for each new order.
    pub order_email: bool,
    /// Where it goes: `notifications.orderEmailTo`, else the site's
    /// `websiteSettings.contactEmail`; none (no email) when neither is an address.
    pub order_email_to: Option<String>,
}

impl Default for Notifications {
    /// On, with nowhere to send it until the site has an address.
    fn default() -> Self {
        Notifications {
            order_email: true,
            order_email_to: None,
        }
    }
}

/// `taxes`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Taxes {
    /// Prices already include tax (VAT style): the tax shown is the part of the total that
    /// is tax, and it is not added on top.
    pub prices_include_tax: bool,
    /// Rules; the most specific one matching the shipping location applies.
    pub rules: Vec<TaxRule>,
}

/// One tax rule.
#[derive(Clone, Debug, PartialEq)]
pub struct TaxRule {
    /// Shown name ("VAT", "Sales tax"); defaults to "Tax".
    pub name: String,
    /// ISO country code (upper case) or `*` for any country.
    pub country: String,
    /// A region within the country (state, province): its ISO 3166-2 code within the
    /// country (`ME` for `US-ME`), upper case ([`super::places`]).
    pub region: Option<String>,
    /// Percent (`21` for 21%).
    pub rate: Decimal,
    /// Shipping is taxed too.
    pub applies_to_shipping: bool,
}

/// One shipping option.
#[derive(Clone, Debug, PartialEq)]
pub struct ShippingOption {
    /// Stable id the buyer selects.
    pub id: String,
    /// Shown name.
    pub name: String,
    /// Countries it ships to (upper case); empty means everywhere.
    pub countries: Vec<String>,
    /// How its price is worked out.
    pub rate: ShippingRate,
}

/// How a shipping option is priced.
#[derive(Clone, Debug, PartialEq)]
pub enum ShippingRate {
    /// One price.
    Flat {
        /// Minor units.
        price_minor: i64,
    },
    /// One price, free from a subtotal (after discounts) up.
    FreeAbove {
        /// Minor units.
        price_minor: i64,
        /// Minor units.
        free_above_minor: i64,
    },
    /// By the total weight of what ships: the first bracket the weight fits in. Heavier
    /// than the last bracket: the option is not offered.
    ByWeight {
        /// Ascending by `up_to_grams`.
        brackets: Vec<WeightBracket>,
    },
}

/// A by-weight shipping bracket.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WeightBracket {
    /// The heaviest shipment (grams, inclusive) this price covers.
    pub up_to_grams: i64,
    /// Minor units.
    pub price_minor: i64,
}

/// A coupon code.
#[derive(Clone, Debug, PartialEq)]
pub struct Coupon {
    /// Upper case; buyers may type it in any case.
    pub code: String,
    /// What it takes off.
    pub kind: CouponKind,
    /// The smallest subtotal it applies to, minor units.
    pub minimum_subtotal_minor: Option<i64>,
    /// Valid from (epoch ms).
    pub starts_ms: Option<i64>,
    /// Valid until, exclusive (epoch ms).
    pub expires_ms: Option<i64>,
}

/// What a coupon takes off.
#[derive(Clone, Debug, PartialEq)]
pub enum CouponKind {
    /// A percentage of the merchandise subtotal.
    Percent(Decimal),
    /// A fixed amount, minor units (never more than the subtotal).
    Fixed(i64),
    /// Shipping is free.
    FreeShipping,
}

impl CouponKind {
    /// `percent`, `fixed` or `free-shipping`.
    pub fn as_str(&self) -> &'static str {
        match self {
            CouponKind::Percent(_) => "percent",
            CouponKind::Fixed(_) => "fixed",
            CouponKind::FreeShipping => "free-shipping",
        }
    }
}

/// The instalment provider's limits (SPEC.md §9 "Instalments").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instalments {
    /// Provider key: `afterpay` (shown as Afterpay, or Clearpay in the UK).
    pub provider: String,
    /// Minor units.
    pub minimum_minor: i64,
    /// Minor units.
    pub maximum_minor: i64,
    /// Number of payments (SPEC default 4).
    pub payments: i64,
}

/// How buyers pay.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Payments {
    /// Cards go to the built-in test provider and orders record `testMode`.
    pub test_mode: bool,
    /// A pay-later method (bank transfer, pay on collection): orders wait for payment.
    pub manual: Option<ManualPayment>,
}

impl Default for Payments {
    fn default() -> Self {
        Payments {
            test_mode: true,
            manual: None,
        }
    }
}

/// A pay-later payment method.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ManualPayment {
    /// Shown name ("Bank transfer").
    pub label: String,
    /// What the buyer must do, shown on the order-received page.
    pub instructions: String,
}

/// A configuration problem: where (`shipping.options[1].price`) and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SettingsError {
    /// Path of the offending value: namespace, then keys and indexes.
    pub path: String,
    /// What is wrong.
    pub reason: String,
}

impl std::fmt::Display for SettingsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path, self.reason)
    }
}

impl std::error::Error for SettingsError {}

type Res<T> = Result<T, SettingsError>;

fn fail<T>(path: &str, reason: impl Into<String>) -> Res<T> {
    Err(SettingsError {
        path: path.to_owned(),
        reason: reason.into(),
    })
}

/// A JSON object being read, with its path for messages.
struct Obj<'a> {
    path: String,
    map: &'a Map<String, Value>,
}

impl<'a> Obj<'a> {
    fn of(path: String, v: &'a Value) -> Res<Obj<'a>> {
        match v {
            Value::Object(map) => Ok(Obj { path, map }),
            _ => fail(&path, "must be an object"),
        }
    }

    fn at(&self, key: &str) -> String {
        format!("{}.{key}", self.path)
    }

    /// Refuses keys other than `known`.
    fn only(&self, known: &[&str]) -> Res<()> {
        match self.map.keys().find(|k| !known.contains(&k.as_str())) {
            Some(k) => fail(
                &self.at(k),
                format!("unknown key (known: {})", known.join(", ")),
            ),
            None => Ok(()),
        }
    }

    fn str(&self, key: &str) -> Res<Option<&'a str>> {
        match self.map.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(_) => fail(&self.at(key), "must be a string"),
        }
    }

    fn required_str(&self, key: &str) -> Res<&'a str> {
        match self.str(key)? {
            Some(s) if !s.trim().is_empty() => Ok(s),
            _ => fail(&self.at(key), "is required"),
        }
    }

    fn bool(&self, key: &str, default: bool) -> Res<bool> {
        match self.map.get(key) {
            None | Some(Value::Null) => Ok(default),
            Some(Value::Bool(b)) => Ok(*b),
            Some(_) => fail(&self.at(key), "must be true or false"),
        }
    }

    fn int(&self, key: &str) -> Res<Option<i64>> {
        match self.map.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => match v.as_i64() {
                Some(n) => Ok(Some(n)),
                None => fail(&self.at(key), "must be a whole number"),
            },
        }
    }

    fn price(&self, key: &str, currency: &str) -> Res<Option<i64>> {
        match self.str(key)? {
            None => Ok(None),
            Some(s) => parse_price(s, currency)
                .map(Some)
                .or_else(|r| fail(&self.at(key), r)),
        }
    }

    fn required_price(&self, key: &str, currency: &str) -> Res<i64> {
        self.price(key, currency)?
            .map_or_else(|| fail(&self.at(key), "is required"), Ok)
    }

    fn list(&self, key: &str) -> Res<&'a [Value]> {
        match self.map.get(key) {
            None | Some(Value::Null) => Ok(&[]),
            Some(Value::Array(a)) => Ok(a),
            Some(_) => fail(&self.at(key), "must be a list"),
        }
    }

    /// A percentage: a decimal string from 0 to 100.
    fn percent(&self, key: &str) -> Res<Decimal> {
        let text = self.required_str(key)?;
        match text.parse::<Decimal>() {
            Ok(d) if d >= Decimal::ZERO && d <= Decimal::ONE_HUNDRED => Ok(d),
            Ok(_) => fail(&self.at(key), format!("{text:?} is not between 0 and 100")),
            Err(_) => fail(
                &self.at(key),
                format!("{text:?} is not a percentage like \"21\" or \"7.5\""),
            ),
        }
    }

    /// `YYYY-MM-DD` (the start of that day in UTC, or the start of the next day when
    /// `end_of_day`) or an RFC 3339 instant, as epoch ms.
    fn instant(&self, key: &str, end_of_day: bool) -> Res<Option<i64>> {
        let Some(text) = self.str(key)? else {
            return Ok(None);
        };
        if let Ok(ts) = text.parse::<jiff::Timestamp>() {
            return Ok(Some(ts.as_millisecond()));
        }
        let date: jiff::civil::Date = match text.parse() {
            Ok(d) => d,
            Err(_) => {
                return fail(
                    &self.at(key),
                    format!("{text:?} is not a date like \"2026-12-31\" or an RFC 3339 time"),
                );
            }
        };
        let date = if end_of_day {
            date.tomorrow().unwrap_or(date)
        } else {
            date
        };
        match date.to_zoned(jiff::tz::TimeZone::UTC) {
            Ok(z) => Ok(Some(z.timestamp().as_millisecond())),
            Err(e) => fail(&self.at(key), e.to_string()),
        }
    }
}

fn country_code(path: &str, text: &str, any_allowed: bool) -> Res<String> {
    let up = text.trim().to_ascii_uppercase();
    if any_allowed && up == "*" {
        return Ok(up);
    }
    match super::places::country(&up) {
        Some(c) => Ok(c.code.to_owned()),
        None => fail(
            path,
            format!(
                "{text:?} is not an ISO 3166 country code{}",
                if any_allowed { " or *" } else { "" }
            ),
        ),
    }
}

/// A tax rule's region: the code of one of the country's ISO 3166-2 regions (`ME`, or
/// `US-ME`), kept as its code within the country.
fn region_code(path: &str, country: &str, text: &str) -> Res<String> {
    match super::places::region(country, text) {
        Some(r) => Ok(r.code.to_owned()),
        None if super::places::has_regions(country) => fail(
            path,
            format!(
                "{text:?} is not a region code of {country} (ISO 3166-2, such as the ME of US-ME)"
            ),
        ),
        None => fail(path, format!("{country} has no regions")),
    }
}

/// Coupon codes: 3 to 32 letters, digits, `-` or `_`, kept in upper case.
pub fn normalize_coupon_code(code: &str) -> Option<String> {
    let up = code.trim().to_ascii_uppercase();
    let ok = (3..=32).contains(&up.len())
        && up
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    ok.then_some(up)
}

/// The site currency: `websiteSettings.storeSettings.selectedCurrency` (else its
/// `defaultCurrency`), upper case, else USD (SPEC.md §9 "Money and numbers").
pub fn site_currency(website_settings: &Map<String, Value>) -> String {
    website_settings
        .get("storeSettings")
        .and_then(Value::as_object)
        .and_then(|s| {
            s.get("selectedCurrency")
                .or_else(|| s.get("defaultCurrency"))
        })
        .and_then(Value::as_str)
        .map(|c| c.trim().to_ascii_uppercase())
        .filter(|c| !c.is_empty())
        .unwrap_or_else(|| "USD".to_owned())
}

/// SPEC.md §5's message for an address that is not one (`notifications.orderEmailTo`).
pub const NOT_AN_EMAIL: &str = "Please enter a valid email";

/// The namespaces a store's commerce preferences may have: those read here, plus
/// `merchandising` (the product pages' scarcity, sold-out and restock texts) and `store`.
/// Anything else is a typo or junk, refused by the import and the owner API alike.
pub const NAMESPACES: [&str; 10] = [
    "checkout",
    "coupons",
    "instalments",
    "merchandising",
    "notifications",
    "payments",
    "restock",
    "shipping",
    "store",
    "taxes",
];

/// Checks one namespace's preferences by the rules [`CommerceSettings::from_site`] reads
/// them with (a namespace not in [`NAMESPACES`] is refused): what the import and the owner
/// API run before they store a namespace, so a stored preference never breaks the store.
pub fn check_namespace(
    website_settings: &Map<String, Value>,
    namespace: &str,
    preferences: &Map<String, Value>,
) -> Result<(), SettingsError> {
    if !NAMESPACES.contains(&namespace) {
        return fail(
            namespace,
            format!("unknown namespace (known: {})", NAMESPACES.join(", ")),
        );
    }
    let one = BTreeMap::from([(namespace.to_owned(), preferences.clone())]);
    CommerceSettings::from_site(website_settings, &one).map(|_| ())
}

impl CommerceSettings {
    /// Reads the settings as [`CommerceSettings::from_site`] does, but never fails: a
    /// namespace that does not read (stored before its rules were checked on the way in) is
    /// left out, as if it were not set, and its problem returned for the log. Payments left
    /// out are live mode with no pay-later method, never test mode: a broken `payments`
    /// must not let the test cards buy from a live store.
    pub fn from_site_lenient(
        website_settings: &Map<String, Value>,
        preferences: &BTreeMap<String, Map<String, Value>>,
    ) -> (CommerceSettings, Vec<SettingsError>) {
        let mut kept = BTreeMap::new();
        let mut problems = Vec::new();
        let mut payments_dropped = false;
        for (namespace, prefs) in preferences {
            let one = BTreeMap::from([(namespace.clone(), prefs.clone())]);
            match CommerceSettings::from_site(website_settings, &one) {
                Ok(_) => {
                    kept.insert(namespace.clone(), prefs.clone());
                }
                Err(e) => {
                    payments_dropped |= namespace == "payments";
                    problems.push(e);
                }
            }
        }
        // Each namespace reads on its own, so the ones kept read together.
        let mut settings = CommerceSettings::from_site(website_settings, &kept)
            .expect("namespaces that read alone read together");
        if payments_dropped {
            settings.payments = Payments {
                test_mode: false,
                manual: None,
            };
        }
        (settings, problems)
    }

    /// Reads the settings from the site's `websiteSettings` and the commerce preferences
    /// (namespace → object). Fails on the first problem, naming where it is.
    pub fn from_site(
        website_settings: &Map<String, Value>,
        preferences: &BTreeMap<String, Map<String, Value>>,
    ) -> Result<CommerceSettings, SettingsError> {
        let store = website_settings
            .get("storeSettings")
            .and_then(Value::as_object);
        let currency = site_currency(website_settings);
        let multiple_quantity_for_services = store
            .and_then(|s| s.get("multipleQuantityAllowedForServices"))
            .and_then(Value::as_bool)
            .unwrap_or(true);
        let empty = Map::new();
        let ns = |name: &str| Obj {
            path: name.to_owned(),
            map: preferences.get(name).unwrap_or(&empty),
        };
        let checkout = ns("checkout");
        let minimum_subtotal_minor = checkout.price("minimumSubtotal", &currency)?;
        let order_notes_label = checkout
            .str("orderNotesLabel")?
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(str::to_owned);
        if order_notes_label
            .as_deref()
            .is_some_and(|l| l.chars().count() > 200)
        {
            return fail(&checkout.at("orderNotesLabel"), "at most 200 characters");
        }
        let require_shipping_phone = checkout.bool("requireShippingPhone", false)?;
        Ok(CommerceSettings {
            minimum_subtotal_minor,
            order_notes_label,
            require_shipping_phone,
            multiple_quantity_for_services,
            taxes: taxes(&ns("taxes"))?,
            shipping: shipping(&ns("shipping"), &currency)?,
            coupons: coupons(&ns("coupons"), &currency)?,
            instalments: instalments(&ns("instalments"), &currency)?,
            payments: payments(&ns("payments"))?,
            notifications: notifications(&ns("notifications"), website_settings)?,
            restock: restock(&ns("restock"))?,
            currency,
        })
    }

    /// A store with nothing configured (USD, no tax, no shipping options, no coupons).
    pub fn plain(currency: &str) -> CommerceSettings {
        CommerceSettings {
            currency: currency.to_owned(),
            minimum_subtotal_minor: None,
            order_notes_label: None,
            require_shipping_phone: false,
            multiple_quantity_for_services: true,
            taxes: Taxes::default(),
            shipping: Vec::new(),
            coupons: Vec::new(),
            instalments: None,
            payments: Payments::default(),
            notifications: Notifications::default(),
            restock: Restock::default(),
        }
    }

    /// The coupon with this code (any case), if the store has one.
    pub fn coupon(&self, code: &str) -> Option<&Coupon> {
        let code = normalize_coupon_code(code)?;
        self.coupons.iter().find(|c| c.code == code)
    }
}

fn taxes(o: &Obj<'_>) -> Res<Taxes> {
    let mut rules = Vec::new();
    for (i, v) in o.list("rules")?.iter().enumerate() {
        let r = Obj::of(format!("{}.rules[{i}]", o.path), v)?;
        r.only(&["name", "country", "region", "rate", "appliesToShipping"])?;
        let country = country_code(&r.at("country"), r.required_str("country")?, true)?;
        let region = r.str("region")?.map(str::trim).filter(|s| !s.is_empty());
        if region.is_some() && country == "*" {
            return fail(&r.at("region"), "a region needs a country");
        }
        let region = region
            .map(|text| region_code(&r.at("region"), &country, text))
            .transpose()?;
        let rule = TaxRule {
            name: r.str("name")?.unwrap_or("Tax").to_owned(),
            country,
            region,
            rate: r.percent("rate")?,
            applies_to_shipping: r.bool("appliesToShipping", false)?,
        };
        if rules
            .iter()
            .any(|x: &TaxRule| x.country == rule.country && x.region == rule.region)
        {
            return fail(&r.path, "a second rule for the same country and region");
        }
        rules.push(rule);
    }
    Ok(Taxes {
        prices_include_tax: o.bool("pricesIncludeTax", false)?,
        rules,
    })
}

fn shipping(o: &Obj<'_>, currency: &str) -> Res<Vec<ShippingOption>> {
    let mut out: Vec<ShippingOption> = Vec::new();
    for (i, v) in o.list("options")?.iter().enumerate() {
        let s = Obj::of(format!("{}.options[{i}]", o.path), v)?;
        s.only(&[
            "id",
            "name",
            "countries",
            "kind",
            "price",
            "freeAbove",
            "rates",
        ])?;
        let id = s.required_str("id")?.trim().to_owned();
        if out.iter().any(|x| x.id == id) {
            return fail(&s.at("id"), format!("a second option with id {id:?}"));
        }
        let mut countries = Vec::new();
        for (j, c) in s.list("countries")?.iter().enumerate() {
            let path = format!("{}[{j}]", s.at("countries"));
            match c.as_str() {
                Some(c) => countries.push(country_code(&path, c, false)?),
                None => return fail(&path, "must be a country code"),
            }
        }
        let rate = match s.required_str("kind")? {
            "flat" => ShippingRate::Flat {
                price_minor: s.required_price("price", currency)?,
            },
            "free-above" => ShippingRate::FreeAbove {
                price_minor: s.required_price("price", currency)?,
                free_above_minor: s.required_price("freeAbove", currency)?,
            },
            "weight" => {
                let mut brackets: Vec<WeightBracket> = Vec::new();
                for (j, b) in s.list("rates")?.iter().enumerate() {
                    let b = Obj::of(format!("{}[{j}]", s.at("rates")), b)?;
                    b.only(&["upToGrams", "price"])?;
                    let up_to_grams = match b.int("upToGrams")? {
                        Some(g) if g > 0 => g,
                        _ => return fail(&b.at("upToGrams"), "must be a positive whole number"),
                    };
                    if brackets
                        .last()
                        .is_some_and(|l| l.up_to_grams >= up_to_grams)
                    {
                        return fail(&b.at("upToGrams"), "brackets must go up in weight");
                    }
                    brackets.push(WeightBracket {
                        up_to_grams,
                        price_minor: b.required_price("price", currency)?,
                    });
                }
                if brackets.is_empty() {
                    return fail(&s.at("rates"), "needs at least one bracket");
                }
                ShippingRate::ByWeight { brackets }
            }
            other => {
                return fail(
                    &s.at("kind"),
                    format!("{other:?} is not one of flat, free-above, weight"),
                );
            }
        };
        out.push(ShippingOption {
            id,
            name: s.required_str("name")?.to_owned(),
            countries,
            rate,
        });
    }
    Ok(out)
}

fn coupons(o: &Obj<'_>, currency: &str) -> Res<Vec<Coupon>> {
    let mut out: Vec<Coupon> = Vec::new();
    for (i, v) in o.list("codes")?.iter().enumerate() {
        let c = Obj::of(format!("{}.codes[{i}]", o.path), v)?;
        c.only(&[
            "code",
            "kind",
            "percent",
            "amount",
            "minimumSubtotal",
            "startsOn",
            "expiresOn",
        ])?;
        let raw = c.required_str("code")?;
        let Some(code) = normalize_coupon_code(raw) else {
            return fail(
                &c.at("code"),
                format!("{raw:?} is not 3-32 letters, digits, - or _"),
            );
        };
        if out.iter().any(|x| x.code == code) {
            return fail(&c.at("code"), format!("a second coupon {code:?}"));
        }
        let kind = match c.required_str("kind")? {
            "percent" => CouponKind::Percent(c.percent("percent")?),
            "fixed" => CouponKind::Fixed(c.required_price("amount", currency)?),
            "free-shipping" => CouponKind::FreeShipping,
            other => {
                return fail(
                    &c.at("kind"),
                    format!("{other:?} is not one of percent, fixed, free-shipping"),
                );
            }
        };
        let starts_ms = c.instant("startsOn", false)?;
        let expires_ms = c.instant("expiresOn", true)?;
        if let (Some(s), Some(e)) = (starts_ms, expires_ms)
            && e <= s
        {
            return fail(&c.at("expiresOn"), "is not after startsOn");
        }
        out.push(Coupon {
            code,
            kind,
            minimum_subtotal_minor: c.price("minimumSubtotal", currency)?,
            starts_ms,
            expires_ms,
        });
    }
    Ok(out)
}

fn instalments(o: &Obj<'_>, currency: &str) -> Res<Option<Instalments>> {
    if o.map.is_empty() {
        return Ok(None);
    }
    o.only(&["provider", "minimum", "maximum", "payments"])?;
    let provider = o.required_str("provider")?;
    if provider != "afterpay" {
        return fail(
            &o.at("provider"),
            format!("{provider:?} is not a known provider (afterpay)"),
        );
    }
    let minimum_minor = o.required_price("minimum", currency)?;
    let maximum_minor = o.required_price("maximum", currency)?;
    if maximum_minor <= minimum_minor {
        return fail(&o.at("maximum"), "must be above the minimum");
    }
    let payments = o.int("payments")?.unwrap_or(4);
    if !(2..=12).contains(&payments) {
        return fail(&o.at("payments"), "must be from 2 to 12");
    }
    Ok(Some(Instalments {
        provider: provider.to_owned(),
        minimum_minor,
        maximum_minor,
        payments,
    }))
}

fn payments(o: &Obj<'_>) -> Res<Payments> {
    let manual = match o.map.get("manual") {
        None | Some(Value::Null) => None,
        Some(v) => {
            let m = Obj::of(o.at("manual"), v)?;
            m.only(&["label", "instructions"])?;
            Some(ManualPayment {
                label: m.required_str("label")?.to_owned(),
                instructions: m.required_str("instructions")?.to_owned(),
            })
        }
    };
    Ok(Payments {
        test_mode: o.bool("testMode", true)?,
        manual,
    })
}

fn notifications(o: &Obj<'_>, website_settings: &Map<String, Value>) -> Res<Notifications> {
    o.only(&["orderEmail", "orderEmailTo"])?;
    let order_email_to = match o.str("orderEmailTo")? {
        Some(to) if !to.trim().is_empty() => match crate::email_address::deliverable(to) {
            Some(to) => Some(to.to_owned()),
            None => return fail(&o.at("orderEmailTo"), NOT_AN_EMAIL),
        },
        _ => website_settings
            .get("contactEmail")
            .and_then(Value::as_str)
            .and_then(crate::email_address::deliverable)
            .map(str::to_owned),
    };
    Ok(Notifications {
        order_email: o.bool("orderEmail", true)?,
        order_email_to,
    })
}

fn restock(o: &Obj<'_>) -> Res<Restock> {
    o.only(&["autoNotify", "lowStockAt"])?;
    let low_stock_at = match o.int("lowStockAt")? {
        None => LOW_STOCK_AT,
        Some(n) if (0..=1_000_000).contains(&n) => n,
        Some(_) => {
            return fail(
                &o.at("lowStockAt"),
                "must be a whole number from 0 to 1000000",
            );
        }
    };
    Ok(Restock {
        auto_notify: o.bool("autoNotify", true)?,
        low_stock_at,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn prefs(v: Value) -> BTreeMap<String, Map<String, Value>> {
        serde_json::from_value(v).unwrap()
    }

    fn site(currency: &str) -> Map<String, Value> {
        json!({"storeSettings": {"selectedCurrency": currency}})
            .as_object()
            .unwrap()
            .clone()
    }

    fn error(v: Value) -> String {
        CommerceSettings::from_site(&site("EUR"), &prefs(v))
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn an_unconfigured_store_has_plain_defaults() {
        let s = CommerceSettings::from_site(&Map::new(), &BTreeMap::new()).unwrap();
        assert_eq!(s, CommerceSettings::plain("USD"));
        assert!(s.payments.test_mode);
        assert!(s.multiple_quantity_for_services);
    }

    #[test]
    fn every_namespace_is_read() {
        let s = CommerceSettings::from_site(
            &site("EUR"),
            &prefs(json!({
                "checkout": {"minimumSubtotal": "15.00", "orderNotesLabel": " Gift message ", "requireShippingPhone": true, "termsUrl": "kept"},
                "taxes": {"pricesIncludeTax": true, "rules": [
                    {"name": "BTW", "country": "nl", "rate": "21", "appliesToShipping": true},
                    {"country": "US", "region": "NY", "rate": "8.875"},
                    {"country": "*", "rate": "0"}
                ]},
                "shipping": {"options": [
                    {"id": "local", "name": "Local", "countries": ["NL"], "kind": "free-above", "price": "4.95", "freeAbove": "60.00"},
                    {"id": "parcel", "name": "Parcel", "kind": "weight", "rates": [{"upToGrams": 1000, "price": "6.95"}, {"upToGrams": 5000, "price": "9.95"}]},
                    {"id": "pickup", "name": "Pick up", "kind": "flat", "price": "0"}
                ]},
                "coupons": {"codes": [
                    {"code": "welcome10", "kind": "percent", "percent": "10"},
                    {"code": "FIVE-OFF", "kind": "fixed", "amount": "5.00", "minimumSubtotal": "30.00", "startsOn": "2026-01-01", "expiresOn": "2026-12-31"},
                    {"code": "SHIPFREE", "kind": "free-shipping"}
                ]},
                "instalments": {"provider": "afterpay", "minimum": "1.00", "maximum": "2000.00"},
                "payments": {"testMode": false, "manual": {"label": "Bank transfer", "instructions": "IBAN NL00"}}
            })),
        )
        .unwrap();
        assert_eq!(s.currency, "EUR");
        assert_eq!(s.minimum_subtotal_minor, Some(1500));
        assert_eq!(s.order_notes_label.as_deref(), Some("Gift message"));
        assert!(s.require_shipping_phone);
        assert!(!CommerceSettings::plain("EUR").require_shipping_phone);
        assert!(s.taxes.prices_include_tax);
        assert_eq!(s.taxes.rules[0].country, "NL");
        assert_eq!(s.taxes.rules[1].rate, "8.875".parse::<Decimal>().unwrap());
        assert_eq!(s.taxes.rules[1].name, "Tax");
        assert_eq!(
            s.shipping[0].rate,
            ShippingRate::FreeAbove {
                price_minor: 495,
                free_above_minor: 6000
            }
        );
        assert_eq!(s.shipping[2].rate, ShippingRate::Flat { price_minor: 0 });
        assert_eq!(s.coupon("Welcome10").unwrap().code, "WELCOME10");
        let five = s.coupon("five-off").unwrap();
        assert_eq!(five.kind, CouponKind::Fixed(500));
        assert_eq!(five.starts_ms, Some(1_767_225_600_000));
        // Valid through the last day: expires at the next midnight.
        assert_eq!(five.expires_ms, Some(1_798_761_600_000));
        assert_eq!(s.instalments.as_ref().unwrap().payments, 4);
        assert!(!s.payments.test_mode);
        assert_eq!(s.payments.manual.as_ref().unwrap().label, "Bank transfer");
    }

    #[test]
    fn problems_name_where_they_are() {
        assert_eq!(
            error(
                json!({"shipping": {"options": [{"id": "a", "name": "A", "kind": "flat", "price": "4.95"}, {"id": "b", "name": "B", "kind": "flat", "price": "4,95"}]}})
            ),
            "shipping.options[1].price: \"4,95\" is not a price like \"12.50\""
        );
        assert_eq!(
            error(json!({"taxes": {"rules": [{"country": "NL", "rate": "121"}]}})),
            "taxes.rules[0].rate: \"121\" is not between 0 and 100"
        );
        assert_eq!(
            error(json!({"taxes": {"rules": [{"country": "NL", "rate": "21", "rat": "1"}]}})),
            "taxes.rules[0].rat: unknown key (known: name, country, region, rate, appliesToShipping)"
        );
        assert_eq!(
            error(
                json!({"coupons": {"codes": [{"code": "A B", "kind": "percent", "percent": "5"}]}})
            ),
            "coupons.codes[0].code: \"A B\" is not 3-32 letters, digits, - or _"
        );
        assert_eq!(
            error(json!({"coupons": {"codes": [{"code": "ABC", "kind": "bogo"}]}})),
            "coupons.codes[0].kind: \"bogo\" is not one of percent, fixed, free-shipping"
        );
        assert_eq!(
            error(
                json!({"shipping": {"options": [{"id": "w", "name": "W", "kind": "weight", "rates": [{"upToGrams": 500, "price": "1.00"}, {"upToGrams": 500, "price": "2.00"}]}]}})
            ),
            "shipping.options[0].rates[1].upToGrams: brackets must go up in weight"
        );
        assert_eq!(
            error(
                json!({"instalments": {"provider": "afterpay", "minimum": "10.00", "maximum": "5.00"}})
            ),
            "instalments.maximum: must be above the minimum"
        );
        assert_eq!(
            error(json!({"checkout": {"minimumSubtotal": 15}})),
            "checkout.minimumSubtotal: must be a string"
        );
        assert_eq!(
            error(json!({"taxes": {"rules": [{"country": "Netherlands", "rate": "21"}]}})),
            "taxes.rules[0].country: \"Netherlands\" is not an ISO 3166 country code or *"
        );
    }

    #[test]
    fn tax_rules_name_countries_and_regions_by_their_iso_codes() {
        let rules = |v: Value| {
            CommerceSettings::from_site(&site("USD"), &prefs(json!({"taxes": {"rules": v}})))
                .map(|s| s.taxes.rules)
        };
        let ok = rules(json!([
            {"country": "us", "region": "me", "rate": "5.5"},
            {"country": "US", "region": "US-NY", "rate": "8.875"}
        ]))
        .unwrap();
        assert_eq!(ok[0].region.as_deref(), Some("ME"));
        assert_eq!(ok[1].region.as_deref(), Some("NY"));
        let error = |v: Value| rules(v).unwrap_err().to_string();
        assert_eq!(
            error(json!([{"country": "US", "region": "Maine", "rate": "5.5"}])),
            "taxes.rules[0].region: \"Maine\" is not a region code of US (ISO 3166-2, such as the ME of US-ME)"
        );
        assert_eq!(
            error(json!([{"country": "XX", "rate": "5"}])),
            "taxes.rules[0].country: \"XX\" is not an ISO 3166 country code or *"
        );
        assert_eq!(
            error(json!([
                {"country": "US", "region": "ME", "rate": "5.5"},
                {"country": "US", "region": "us-me", "rate": "5"}
            ])),
            "taxes.rules[1]: a second rule for the same country and region"
        );
    }

    #[test]
    fn a_namespace_is_checked_alone_and_unknown_ones_are_refused() {
        let ns = |v: Value| v.as_object().unwrap().clone();
        let ws = site("EUR");
        assert!(
            check_namespace(
                &ws,
                "checkout",
                &ns(json!({"minimumSubtotal": "5.00", "termsUrl": "/t"}))
            )
            .is_ok()
        );
        let e =
            check_namespace(&ws, "checkout", &ns(json!({"minimumSubtotal": "abc"}))).unwrap_err();
        assert_eq!(e.path, "checkout.minimumSubtotal");
        let e = check_namespace(
            &ws,
            "coupons",
            &ns(json!({"codes": [{"code": "BIG", "kind": "percent", "percent": "150"}]})),
        )
        .unwrap_err();
        assert_eq!(e.path, "coupons.codes[0].percent");
        let e = check_namespace(&ws, "chekout", &Map::new()).unwrap_err();
        assert_eq!(e.path, "chekout");
        assert!(e.reason.starts_with("unknown namespace"));
    }

    #[test]
    fn a_stored_bad_namespace_is_left_out_not_fatal() {
        let (s, problems) = CommerceSettings::from_site_lenient(
            &site("EUR"),
            &prefs(json!({
                "coupons": {"codes": [{"code": "BIG", "kind": "percent", "percent": "150"}]},
                "checkout": {"minimumSubtotal": "15.00"},
                "payments": {"testMode": "yes"}
            })),
        );
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(s.coupons.is_empty());
        assert_eq!(s.minimum_subtotal_minor, Some(1500));
        // A broken payments namespace fails closed: live mode, no pay-later.
        assert!(!s.payments.test_mode && s.payments.manual.is_none());
        let (s, problems) = CommerceSettings::from_site_lenient(&site("EUR"), &BTreeMap::new());
        assert!(problems.is_empty());
        assert_eq!(s, CommerceSettings::plain("EUR"));
    }

    #[test]
    fn yen_prices_have_no_decimals() {
        let s = CommerceSettings::from_site(
            &site("JPY"),
            &prefs(json!({"checkout": {"minimumSubtotal": "1500"}})),
        )
        .unwrap();
        assert_eq!(s.minimum_subtotal_minor, Some(1500));
        let e = CommerceSettings::from_site(
            &site("JPY"),
            &prefs(json!({"checkout": {"minimumSubtotal": "15.00"}})),
        )
        .unwrap_err();
        assert_eq!(e.path, "checkout.minimumSubtotal");
    }

    #[test]
    fn new_orders_are_mailed_to_the_contact_address_unless_told_otherwise() {
        let website = json!({"contactEmail": "hello@shop.test"});
        let website = website.as_object().unwrap();
        let read =
            |p: Value| CommerceSettings::from_site(website, &prefs(p)).map(|s| s.notifications);
        assert_eq!(
            read(json!({})).unwrap(),
            Notifications {
                order_email: true,
                order_email_to: Some("hello@shop.test".into())
            }
        );
        let n = read(
            json!({"notifications": {"orderEmail": false, "orderEmailTo": "orders@shop.test"}}),
        )
        .unwrap();
        assert_eq!(
            (n.order_email, n.order_email_to.as_deref()),
            (false, Some("orders@shop.test"))
        );
        assert!(read(json!({"notifications": {"orderEmailTo": "not an address"}})).is_err());
        assert!(read(json!({"notifications": {"ordersTo": "a@shop.test"}})).is_err());
        let none = CommerceSettings::from_site(&Map::new(), &prefs(json!({}))).unwrap();
        assert_eq!(none.notifications.order_email_to, None);
    }

    #[test]
    fn restock_notices_send_themselves_unless_turned_off() {
        let read =
            |p: Value| CommerceSettings::from_site(&site("EUR"), &prefs(p)).map(|s| s.restock);
        assert_eq!(read(json!({})).unwrap(), Restock::default());
        assert_eq!(read(json!({})).unwrap().low_stock_at, 5);
        assert_eq!(
            read(json!({"restock": {"lowStockAt": 0}}))
                .unwrap()
                .low_stock_at,
            0
        );
        for bad in [json!(-1), json!(1_000_001), json!("5"), json!(2.5)] {
            assert_eq!(
                read(json!({"restock": {"lowStockAt": bad}}))
                    .unwrap_err()
                    .path,
                "restock.lowStockAt"
            );
        }
        assert!(read(json!({"restock": {}})).unwrap().auto_notify);
        assert!(
            !read(json!({"restock": {"autoNotify": false}}))
                .unwrap()
                .auto_notify
        );
        assert_eq!(
            read(json!({"restock": {"autoNotify": "no"}}))
                .unwrap_err()
                .path,
            "restock.autoNotify"
        );
        assert!(read(json!({"restock": {"autoNotfy": false}})).is_err());
        assert!(check_namespace(&site("EUR"), "restock", &Map::new()).is_ok());
    }
}
