//! Settings → Store: the currency and the commerce preferences checkout reads, in one
//! document.
//!
//! | route | role may | body | answer |
//! |---|---|---|---|
//! | `GET /api/owner/store-settings` | store, read | | the document |
//! | `PATCH /api/owner/store-settings` | store, change | a JSON Merge Patch of the document | the new document |
//!
//! The document is `currency` and the `checkout`, `taxes`, `shipping`, `coupons`,
//! `payments`, `restock` and `notifications` namespaces as stored (the keys of
//! `commerce-preferences.json`, see [`tenants::commerce::settings`]), with what the screen
//! needs beside them: `contactEmail` (where the new-order email goes without
//! `notifications.orderEmailTo`), `products` and `orders` (while either is above 0 the
//! currency stays), `currencies` (the ones a store may use) and `errors` (a stored
//! namespace that does not pass the rules). A `PATCH` merges into the namespaces it names
//! (the keys the screen does not know are kept; a list is replaced whole) and checks each
//! by the import's rules ([`tenants::check_store_patch`]); any problem answers 400 with
//! `errors` by path (`shipping.options[1].price`, `currency`) and nothing is stored. The
//! namespaces stay writable one at a time through [`super::preferences`].

use axum::extract::State;
use serde::Serialize;
use serde_json::{Map, Value};
use tenants::OwnerStoreSettings;
use tenants::commerce::money::SUPPORTED_CURRENCIES;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::http::error::store_failure;
use crate::http::extract::{Change, Read, area};
use crate::http::{ApiError, Json, Owner};
use crate::openapi::{OWNER, OwnerErrors};
use crate::server::state::App;

pub const NOT_A_PATCH: &str = "A patch of the store settings is a JSON object.";

pub fn routes() -> OpenApiRouter<App> {
    OpenApiRouter::new().routes(routes!(read, patch))
}

// The shapes of the namespaces, for the document (the answer carries them as stored, other
// keys included).

/// `checkout`.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct CheckoutSettings {
    /// The smallest subtotal that may check out, a price in the store's currency (`"15.00"`).
    minimum_subtotal: Option<String>,
    /// When set, checkout asks for order notes under this label (at most 200 characters).
    #[schema(max_length = 200)]
    order_notes_label: Option<String>,
    /// A shipping address needs a phone number (default false).
    require_shipping_phone: Option<bool>,
}

/// A tax rule.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct TaxRuleSetting {
    /// Shown name (default "Tax").
    name: Option<String>,
    /// ISO 3166-1 alpha-2 code, or `*` for any country.
    country: String,
    /// The ISO 3166-2 code of one of the country's regions (`ME` or `US-ME`).
    region: Option<String>,
    /// Percent, 0-100, a decimal string (`"21"`, `"8.875"`).
    rate: String,
    /// Shipping is taxed too (default false).
    applies_to_shipping: Option<bool>,
}

/// `taxes`.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct TaxSettings {
    /// Prices already include tax (default false).
    prices_include_tax: Option<bool>,
    /// One per country and region; the most specific one matching the address applies.
    rules: Option<Vec<TaxRuleSetting>>,
}

/// A by-weight bracket.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct WeightRateSetting {
    /// The heaviest shipment (grams, inclusive) this price covers; going up.
    #[schema(minimum = 1)]
    up_to_grams: i64,
    price: String,
}

/// A shipping option.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct ShippingOptionSetting {
    /// Unique among the options.
    id: String,
    name: String,
    /// ISO 3166-1 alpha-2 codes; none means everywhere.
    countries: Option<Vec<String>>,
    /// `flat` (`price`), `free-above` (`price`, `freeAbove`) or `weight` (`rates`).
    #[schema(pattern = "^(flat|free-above|weight)$")]
    kind: String,
    price: Option<String>,
    free_above: Option<String>,
    rates: Option<Vec<WeightRateSetting>>,
}

/// `shipping`.
#[derive(Serialize, ToSchema)]
#[allow(dead_code)]
struct ShippingSettings {
    /// In the order checkout offers them.
    options: Option<Vec<ShippingOptionSetting>>,
}

/// A coupon code.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct CouponSetting {
    /// 3-32 letters, digits, `-` or `_`; buyers type it in any case.
    code: String,
    /// `percent` (`percent`), `fixed` (`amount`) or `free-shipping`.
    #[schema(pattern = "^(percent|fixed|free-shipping)$")]
    kind: String,
    percent: Option<String>,
    amount: Option<String>,
    minimum_subtotal: Option<String>,
    /// `YYYY-MM-DD` (from the start of that day, UTC) or an RFC 3339 time.
    starts_on: Option<String>,
    /// `YYYY-MM-DD` (through the end of that day, UTC) or an RFC 3339 time.
    expires_on: Option<String>,
}

/// `coupons`.
#[derive(Serialize, ToSchema)]
#[allow(dead_code)]
struct CouponSettings {
    codes: Option<Vec<CouponSetting>>,
}

/// The pay-later method.
#[derive(Serialize, ToSchema)]
#[allow(dead_code)]
struct ManualPaymentSetting {
    /// Shown name ("Bank transfer").
    label: String,
    /// What the buyer must do, on the order-received page and in the email.
    instructions: String,
}

/// `payments`.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct PaymentSettings {
    /// Cards go to the built-in test provider (default true).
    test_mode: Option<bool>,
    /// A pay-later method (none when unset).
    manual: Option<ManualPaymentSetting>,
}

/// `restock`.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct RestockSettings {
    /// A sold-out variant raised by the owner sends its notices by itself (default true).
    auto_notify: Option<bool>,
    /// Counted stock at or under this is low (default 5).
    #[schema(minimum = 0, maximum = 1_000_000)]
    low_stock_at: Option<i64>,
}

/// `notifications`.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct NotificationSettings {
    /// The owner is mailed each new order (default true).
    order_email: Option<bool>,
    /// Where (default the site's contact email).
    order_email_to: Option<String>,
}

/// The store's settings (Settings → Store).
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = OwnerStoreSettings)]
struct Document {
    /// ISO 4217, one of `currencies`.
    currency: String,
    /// Each namespace as stored, other keys included; `{}` when never set.
    #[schema(value_type = CheckoutSettings)]
    checkout: Map<String, Value>,
    #[schema(value_type = TaxSettings)]
    taxes: Map<String, Value>,
    #[schema(value_type = ShippingSettings)]
    shipping: Map<String, Value>,
    #[schema(value_type = CouponSettings)]
    coupons: Map<String, Value>,
    #[schema(value_type = PaymentSettings)]
    payments: Map<String, Value>,
    #[schema(value_type = RestockSettings)]
    restock: Map<String, Value>,
    #[schema(value_type = NotificationSettings)]
    notifications: Map<String, Value>,
    /// Read only: the site's contact address, where the new-order email goes without
    /// `notifications.orderEmailTo`.
    contact_email: Option<String>,
    /// Read only: products with a price, and orders; while either is above 0 the
    /// currency cannot change.
    products: i64,
    orders: i64,
    /// Read only: the currencies a store may use.
    currencies: Vec<String>,
    /// Read only: path → problem, for a stored namespace that does not pass the rules
    /// (stored before they were checked): the store reads it as if unset.
    #[serde(skip_serializing_if = "Map::is_empty")]
    #[schema(value_type = Option<Object>)]
    errors: Map<String, Value>,
}

impl From<OwnerStoreSettings> for Document {
    fn from(s: OwnerStoreSettings) -> Document {
        let mut ns = s.namespaces;
        let mut take = |n: &str| ns.remove(n).unwrap_or_default();
        Document {
            currency: s.currency,
            checkout: take("checkout"),
            taxes: take("taxes"),
            shipping: take("shipping"),
            coupons: take("coupons"),
            payments: take("payments"),
            restock: take("restock"),
            notifications: take("notifications"),
            contact_email: s.contact_email,
            products: s.products,
            orders: s.orders,
            currencies: SUPPORTED_CURRENCIES.map(str::to_owned).to_vec(),
            errors: s
                .problems
                .into_iter()
                .map(|(k, v)| (k, Value::String(v)))
                .collect(),
        }
    }
}

/// What a `PATCH` may name.
#[derive(Serialize, ToSchema)]
#[schema(as = OwnerStoreSettingsPatch)]
#[allow(dead_code)]
struct Patch {
    /// A new currency: refused while the store has products or orders in another one.
    currency: Option<String>,
    checkout: Option<CheckoutSettings>,
    taxes: Option<TaxSettings>,
    shipping: Option<ShippingSettings>,
    coupons: Option<CouponSettings>,
    payments: Option<PaymentSettings>,
    restock: Option<RestockSettings>,
    notifications: Option<NotificationSettings>,
}

/// `GET /api/owner/store-settings`: the currency and the store's commerce preferences.
#[utoipa::path(get, path = "/api/owner/store-settings", tag = OWNER,
    security(("ownerToken" = [])),
    responses((status = 200, body = Document), OwnerErrors))]
async fn read(
    State(app): State<App>,
    owner: Owner<area::Store, Read>,
) -> Result<Json<Document>, ApiError> {
    let s = app
        .store
        .owner_store_settings(owner.site.tenant.id)
        .await
        .map_err(|e| store_failure(&e))?;
    Ok(Json(s.into()))
}

/// `PATCH /api/owner/store-settings`: changes the settings the body names, all or nothing.
#[utoipa::path(patch, path = "/api/owner/store-settings", tag = OWNER,
    request_body(content = Patch, content_type = "application/merge-patch+json",
        description = "A JSON Merge Patch (RFC 7396) of the document: `currency` and the \
        namespaces it names are changed, a key set to null (or \"\") is removed, an object \
        is merged key by key and a list (`shipping.options`, `coupons.codes` …) is replaced \
        whole. Each namespace it touches is checked by the import's rules, in the currency \
        the patch leaves (a new currency reads every stored price again): any problem \
        answers 400 with `errors` by path (`shipping.options[1].price`) and nothing is \
        stored. Other top-level keys are refused."),
    security(("ownerToken" = [])),
    responses((status = 200, body = Document, description = "The settings as stored."), OwnerErrors))]
async fn patch(
    State(app): State<App>,
    owner: Owner<area::Store, Change>,
    Json(body): Json<Value>,
) -> Result<Json<Document>, ApiError> {
    let Value::Object(patch) = body else {
        return Err(ApiError::bad_request(NOT_A_PATCH));
    };
    let done = app
        .store
        .patch_store_settings(owner.site.tenant.id, &patch)
        .await
        .map_err(|e| super::refused(&e, NOT_A_PATCH))?;
    match done {
        Ok(s) => Ok(Json(s.into())),
        Err(problems) => Err(ApiError::fields(
            problems
                .into_iter()
                .map(|(k, v)| (k, Value::String(v)))
                .collect(),
        )),
    }
}
