//! The JSON shapes visitors get: the SPEC.md "Shopping cart" entity with its "Cart entry"
//! lines, the SPEC "Order" with what a buyer needs of it, and the instalment pill. The API
//! answers with them and pages carry the same objects in their context (`shoppingCart`,
//! `order`), so templates and islands read one shape.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, LazyLock, Mutex};

use serde::Serialize;
// `RawValue`: serde_json's `raw_value` feature (axum turns it on).
use serde_json::value::RawValue;
use serde_json::{Value, json};
use tenants::commerce::instalments;
use tenants::commerce::pricing::ShippingQuote;
use tenants::commerce::{CommerceSettings, Location, Totals};
use tenants::{Address, Cart, CartEntry, CartKind, Order, OrderStatus, PaymentMethod, now_ms};
use utoipa::ToSchema;

use super::instalments::{InstalmentPill, instalment_pill};
use super::messages::{coupon_problem, minimum_subtotal};
use super::money::{Money, money_of, money_text};
use super::session;
use crate::http::site::{Site, SiteBundle};

/// A cart entry (SPEC "Cart entry"): id, itemId, quantity, chosenVariant (sku,
/// attributes), additionalFields, title, subTotal, purchasePriceCents, productType; plus the
/// product's page (`url`) and main image (`imageUrl`) while the site still has the product.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = CartEntry)]
pub struct EntryView {
    pub id: String,
    pub item_id: String,
    pub quantity: i64,
    pub chosen_variant: ChosenVariant,
    /// The additional-fields form's answers (as sent: usually an object), if any.
    pub additional_fields: Option<Value>,
    pub title: String,
    /// `quantity × purchasePriceCents`, minor units.
    pub sub_total: i64,
    /// Price per unit, minor units.
    pub purchase_price_cents: i64,
    /// 1 physical, 2 digital, 3 service, 4 gift card.
    pub product_type: i64,
    pub currency: String,
    /// The variant's options on one line ("Size: M, Colour: Red").
    pub variant_description: String,
    pub price: Money,
    pub line_total: Money,
    /// The product's page, while the site has the product.
    pub url: Option<String>,
    /// The product's main image, if it has one.
    pub image_url: Option<String>,
    /// The product's additional-fields form, if it has one.
    #[schema(value_type = Option<Object>)]
    pub additional_fields_form: Option<Value>,
}

/// The variant of a cart entry.
#[derive(Serialize, ToSchema)]
pub struct ChosenVariant {
    pub sku: String,
    /// Option name → chosen value (`{"Size": "M"}`).
    pub attributes: BTreeMap<String, String>,
}

/// [`EntryView`] of an entry.
pub fn entry_view(e: &CartEntry, site: &SiteBundle) -> EntryView {
    let link = site.products.get(&e.item_id);
    EntryView {
        id: e.id.clone(),
        item_id: e.item_id.clone(),
        quantity: e.quantity,
        chosen_variant: ChosenVariant {
            sku: e.sku.clone(),
            attributes: e.attributes.clone(),
        },
        additional_fields: e.additional_fields.clone(),
        title: e.title.clone(),
        sub_total: e.sub_total_minor,
        purchase_price_cents: e.unit_price_minor,
        product_type: e.product_type,
        currency: e.currency.clone(),
        variant_description: variant_description(
            &e.attributes,
            link.map_or(&[][..], |l| &l.options),
        ),
        price: money_of(e.unit_price_minor, &e.currency),
        line_total: money_of(e.sub_total_minor, &e.currency),
        url: link.map(|l| l.url.clone()),
        image_url: link.and_then(|l| l.image.clone()),
        additional_fields_form: link.and_then(|l| l.form.clone()),
    }
}

/// A cart entry as JSON.
pub fn entry_json(e: &CartEntry, site: &SiteBundle) -> Value {
    json!(entry_view(e, site))
}

/// A variant's options as one line, in the product's option order (`order`; options it
/// does not name follow alphabetically): "Size: M, Colour: Red".
pub fn variant_description(
    attributes: &std::collections::BTreeMap<String, String>,
    order: &[String],
) -> String {
    let rank = |k: &String| order.iter().position(|o| o == k).unwrap_or(order.len());
    let mut pairs: Vec<_> = attributes.iter().collect();
    // Stable: equal ranks keep the map's alphabetical order.
    pairs.sort_by_key(|(k, _)| rank(k));
    pairs
        .iter()
        .map(|(k, v)| format!("{k}: {v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The SPEC "Shopping cart" entity, priced: its entries, where and how it ships, taxes,
/// coupons, every total in cents and as money, the instalment pill and the checkout terms.
/// An empty cart that was never saved has no `id` (null).
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ShoppingCart {
    /// Null for an empty cart that was never saved.
    pub id: Option<String>,
    pub website_id: String,
    /// The order placed from it, once checked out.
    pub order_id: Option<String>,
    /// When it was made (milliseconds since 1970); null for an unsaved cart.
    pub created: Option<i64>,
    pub is_purchased: bool,
    /// Counts the cart's changes (0 for an unsaved cart).
    pub revision: i64,
    pub currency: String,
    pub entries: Vec<EntryView>,
    /// Options offered for the cart and its location (empty when nothing ships).
    pub shipping_options: Vec<ShippingOptionView>,
    /// The option charged.
    pub selected_shipping_option: Option<ShippingOptionView>,
    /// Where it ships, once the buyer said.
    #[schema(value_type = Option<LocationSchema>)]
    pub shipping_location: Option<Location>,
    /// Something must ship but no option ships to the location.
    pub shipping_unavailable: bool,
    pub applicable_tax_rules: Vec<TaxRuleView>,
    pub prices_include_tax: bool,
    /// Coupon codes on the cart, in the order added.
    pub coupons: Vec<String>,
    /// Coupons that take something off.
    pub valid_coupons: Vec<ValidCoupon>,
    /// Coupons on the cart that take nothing off, and why.
    pub invalid_coupons: Vec<InvalidCoupon>,
    pub subtotal_cents: i64,
    pub discount_cents: i64,
    pub shipping_cost_cents: i64,
    pub tax_cents: i64,
    pub grand_total_cents: i64,
    pub subtotal: Money,
    pub discount: Money,
    pub shipping_cost: Money,
    pub tax: Money,
    pub grand_total: Money,
    pub total_quantity: i64,
    pub has_digital: bool,
    pub purely_digital: bool,
    pub requires_shipping: bool,
    /// The store's minimum checkout subtotal, if it has one.
    pub minimum_subtotal_cents: Option<i64>,
    /// Why the cart cannot be checked out yet (below the minimum subtotal).
    pub checkout_message: Option<String>,
    /// The instalment pill, when the store offers instalments.
    pub installments: Option<InstalmentPill>,
    pub checkout: CheckoutTermsView,
}

/// Where a cart ships (or, with nothing to ship, where the buyer is).
#[derive(ToSchema)]
#[schema(as = CartLocation)]
#[allow(dead_code)] // the shape of `tenants::commerce::Location` as it serializes
pub struct LocationSchema {
    /// ISO country code, upper case.
    country: String,
    region: Option<String>,
    #[schema(rename = "postalCode")]
    postal_code: Option<String>,
}

/// A shipping option with its price for the cart.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = CartShippingOption)]
pub struct ShippingOptionView {
    pub id: String,
    pub name: String,
    pub cost_cents: i64,
    pub cost: Money,
}

/// A tax rule that applies to the cart.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = CartTaxRule)]
pub struct TaxRuleView {
    pub name: String,
    /// ISO country code, or `*` for any country.
    pub country: String,
    pub region: Option<String>,
    /// Percent, as a decimal string ("21").
    pub rate: String,
    pub applies_to_shipping: bool,
    pub taxable_cents: i64,
    pub tax_cents: i64,
}

/// A coupon that takes something off.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = CartValidCoupon)]
pub struct ValidCoupon {
    pub code: String,
    #[serde(rename = "type")]
    #[schema(value_type = CouponType)]
    pub kind: &'static str,
    pub discount_cents: i64,
}

/// What a coupon takes off.
#[derive(ToSchema)]
#[schema(rename_all = "kebab-case")]
#[allow(dead_code)] // the values of `CouponKind::as_str`
pub enum CouponType {
    Percent,
    Fixed,
    FreeShipping,
}

/// A coupon on the cart that takes nothing off.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = CartInvalidCoupon)]
pub struct InvalidCoupon {
    pub code: String,
    #[schema(value_type = CouponReason)]
    pub reason: &'static str,
    /// The reason in words for the visitor.
    pub message: String,
}

/// Why a coupon takes nothing off.
#[derive(ToSchema)]
#[schema(rename_all = "kebab-case")]
#[allow(dead_code)] // the reasons `coupon_problem` gives
pub enum CouponReason {
    Unknown,
    NotStarted,
    Expired,
    BelowMinimum,
    NothingToDiscount,
}

/// What the checkout page offers, beside the cart.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = CheckoutTerms)]
pub struct CheckoutTermsView {
    /// Country codes the store ships to; null when some option ships anywhere.
    pub ships_to: Option<Vec<String>>,
    /// The countries a shipping address may name, with their regions, when the cart ships:
    /// those the store ships to. Null when nothing in the cart ships or some option ships
    /// anywhere (then every country: `GET /api/commerce/countries`).
    #[schema(value_type = Option<Vec<CountryView>>)]
    pub countries: Option<CountryList>,
    /// The label checkout asks for order notes under (`checkout.orderNotesLabel`); null:
    /// no notes are asked for.
    pub order_notes_label: Option<String>,
    /// A shipping address needs a phone number (`checkout.requireShippingPhone`).
    pub require_shipping_phone: bool,
    /// Cards go to the test provider.
    pub test_mode: bool,
    /// The store's pay-later method, if it has one.
    pub manual_payment: Option<ManualPaymentView>,
}

/// A country an address may name (ISO 3166-1), with its regions.
#[derive(Serialize, ToSchema)]
#[schema(as = Country)]
pub struct CountryView {
    /// Two-letter ISO 3166-1 code.
    pub code: String,
    /// English name.
    pub name: String,
    /// Its regions (ISO 3166-2), by name: an address in this country names one. Empty for a
    /// country without regions.
    pub regions: Vec<RegionView>,
}

/// A region of a country (ISO 3166-2).
#[derive(Serialize, ToSchema)]
#[schema(as = Region)]
pub struct RegionView {
    /// The code within the country (`ME` for `US-ME`): what an address's `region` takes.
    pub code: String,
    /// English name.
    pub name: String,
}

/// Countries with their regions, as `checkout.countries` gives them: made once per list of
/// codes (they depend on nothing else: the places are the crate's ISO tables) and kept as
/// their JSON, which every cart answer then writes as those bytes instead of building and
/// serializing the countries and their regions again (most of a cart answer's bytes).
#[derive(Clone)]
pub struct CountryList(Arc<CountryListParts>);

struct CountryListParts {
    /// As written in answers.
    json: Box<RawValue>,
    /// As pages carry it ([`cart_json`]).
    value: Value,
}

impl Serialize for CountryList {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.json.serialize(s)
    }
}

/// How many lists of countries [`country_list`] keeps; past it, it starts over (stores
/// share a handful of lists; this only bounds a node serving very many different ones).
const COUNTRY_LISTS: usize = 1024;

/// The countries of `codes` (sorted, distinct) with their regions, made once per list.
fn country_list(codes: &[String]) -> CountryList {
    static LISTS: LazyLock<Mutex<HashMap<String, CountryList>>> =
        LazyLock::new(|| Mutex::new(HashMap::new()));
    let key = codes.join(",");
    let mut lists = LISTS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(list) = lists.get(&key) {
        return list.clone();
    }
    let views: Vec<CountryView> = codes
        .iter()
        .filter_map(|c| tenants::commerce::places::country(c))
        .map(country_view)
        .collect();
    let list = CountryList(Arc::new(CountryListParts {
        json: serde_json::value::to_raw_value(&views).expect("countries serialize"),
        value: json!(views),
    }));
    if lists.len() >= COUNTRY_LISTS {
        lists.clear();
    }
    lists.insert(key, list.clone());
    list
}

/// A country with its regions, by name.
pub fn country_view(c: tenants::commerce::places::Country) -> CountryView {
    CountryView {
        code: c.code.to_owned(),
        name: c.name.to_owned(),
        regions: tenants::commerce::places::regions(c.code)
            .into_iter()
            .map(|r| RegionView {
                code: r.code.to_owned(),
                name: r.name.to_owned(),
            })
            .collect(),
    }
}

/// A pay-later method (bank transfer, pay on collection).
#[derive(Serialize, ToSchema)]
#[schema(as = ManualPayment)]
pub struct ManualPaymentView {
    pub label: String,
    pub instructions: String,
}

/// The SPEC "Shopping cart" entity for `cart` (an empty, unsaved cart when `None`) priced
/// as `totals`.
pub fn cart_view(
    cart: Option<&Cart>,
    totals: &Totals,
    settings: &CommerceSettings,
    site: &Site,
) -> ShoppingCart {
    let b: &SiteBundle = &site.content;
    let currency = cart
        .and_then(|c| c.currency.clone())
        .unwrap_or_else(|| settings.currency.clone());
    let selected = totals
        .selected_shipping_option
        .as_ref()
        .and_then(|id| totals.shipping_options.iter().find(|q| &q.id == id));
    let shipping_option = |q: &ShippingQuote| ShippingOptionView {
        id: q.id.clone(),
        name: q.name.clone(),
        cost_cents: q.cost_minor,
        cost: money_of(q.cost_minor, &currency),
    };
    let minimum = settings.minimum_subtotal_minor;
    let below_minimum = minimum.filter(|m| totals.subtotal_minor < *m);
    let entries: Vec<EntryView> = cart.map_or_else(Vec::new, |c| {
        c.entries.iter().map(|e| entry_view(e, b)).collect()
    });
    let eligible =
        cart.is_some_and(|c| instalments::cart_eligible(c.entries.iter().map(|e| e.product_type)));
    let pill = instalments::quote(
        settings.instalments.as_ref(),
        &b.language,
        totals.grand_total_minor,
    )
    .map(|q| instalment_pill(&q, eligible, &currency, &b.locale));
    let m = |minor: i64| money_of(minor, &currency);
    ShoppingCart {
        id: cart.map(|c| c.id.clone()),
        website_id: b.website_id.clone(),
        order_id: cart.and_then(|c| c.order_id.clone()),
        created: cart.map(|c| c.created_ms),
        is_purchased: cart.is_some_and(|c| c.purchased),
        revision: cart.map_or(0, |c| c.revision),
        currency: currency.clone(),
        entries,
        shipping_options: totals
            .shipping_options
            .iter()
            .map(shipping_option)
            .collect(),
        selected_shipping_option: selected.map(shipping_option),
        shipping_location: cart.and_then(|c| c.shipping_location.clone()),
        shipping_unavailable: totals.shipping_unavailable,
        applicable_tax_rules: totals
            .applied_taxes
            .iter()
            .map(|t| TaxRuleView {
                name: t.rule.name.clone(),
                country: t.rule.country.clone(),
                region: t.rule.region.clone(),
                rate: t.rule.rate.normalize().to_string(),
                applies_to_shipping: t.rule.applies_to_shipping,
                taxable_cents: t.taxable_minor,
                tax_cents: t.tax_minor,
            })
            .collect(),
        prices_include_tax: totals.prices_include_tax,
        coupons: cart.map_or_else(Vec::new, |c| c.coupons.clone()),
        valid_coupons: totals
            .valid_coupons
            .iter()
            .map(|a| ValidCoupon {
                code: a.coupon.code.clone(),
                kind: a.coupon.kind.as_str(),
                discount_cents: a.discount_minor,
            })
            .collect(),
        invalid_coupons: totals
            .invalid_coupons
            .iter()
            .map(|r| {
                let (reason, message) = coupon_problem(&r.problem, b, &currency);
                InvalidCoupon {
                    code: r.code.clone(),
                    reason,
                    message,
                }
            })
            .collect(),
        subtotal_cents: totals.subtotal_minor,
        discount_cents: totals.discount_minor,
        shipping_cost_cents: totals.shipping_minor,
        tax_cents: totals.tax_minor,
        grand_total_cents: totals.grand_total_minor,
        subtotal: m(totals.subtotal_minor),
        discount: m(totals.discount_minor),
        shipping_cost: m(totals.shipping_minor),
        tax: m(totals.tax_minor),
        grand_total: m(totals.grand_total_minor),
        total_quantity: totals.total_quantity,
        has_digital: totals.has_digital,
        purely_digital: totals.purely_digital,
        requires_shipping: totals.requires_shipping,
        minimum_subtotal_cents: minimum,
        checkout_message: below_minimum
            .map(|m| minimum_subtotal(&money_text(m, &currency, &b.locale))),
        installments: pill,
        checkout: checkout_terms(settings, totals.requires_shipping),
    }
}

/// [`cart_view`] as JSON (pages carry it as `shoppingCart`).
pub fn cart_json(
    cart: Option<&Cart>,
    totals: &Totals,
    settings: &CommerceSettings,
    site: &Site,
) -> Value {
    let mut view = cart_view(cart, totals, settings, site);
    // The countries as a value of their own, copied in where the view has them (null in the
    // view meanwhile: the key keeps its place), rather than their JSON parsed again.
    let countries = view.checkout.countries.take();
    let mut v = json!(view);
    if let Some(list) = countries {
        v["checkout"]["countries"] = list.0.value.clone();
    }
    v
}

/// What the checkout page offers, beside the cart: where the store ships (`shipsTo`, country
/// codes; null when some option ships anywhere) and, when the cart ships to a list, those
/// countries with their regions for the address's lists; whether cards go to the test provider; and
/// the pay-later method, if the store has one.
fn checkout_terms(settings: &CommerceSettings, ships: bool) -> CheckoutTermsView {
    let anywhere = settings.shipping.iter().any(|o| o.countries.is_empty());
    let ships_to = (!anywhere).then(|| {
        let mut all: Vec<String> = settings
            .shipping
            .iter()
            .flat_map(|o| o.countries.iter().cloned())
            .collect();
        all.sort_unstable();
        all.dedup();
        all
    });
    let countries = ships_to
        .as_ref()
        .filter(|_| ships)
        .map(|codes| country_list(codes));
    CheckoutTermsView {
        ships_to,
        countries,
        order_notes_label: settings.order_notes_label.clone(),
        require_shipping_phone: settings.require_shipping_phone,
        test_mode: settings.payments.test_mode,
        manual_payment: settings
            .payments
            .manual
            .as_ref()
            .map(|m| ManualPaymentView {
                label: m.label.clone(),
                instructions: m.instructions.clone(),
            }),
    }
}

/// "every month", "every 3 months", "every week", "every 2 years".
pub fn interval(value: i64, unit: &str) -> String {
    let unit = unit.to_ascii_lowercase();
    if value == 1 {
        format!("every {unit}")
    } else {
        format!("every {value} {unit}s")
    }
}

/// How an order was paid.
#[derive(Serialize, ToSchema)]
#[serde(tag = "method", rename_all = "lowercase")]
#[schema(as = OrderPayment)]
pub enum PaymentView {
    /// Nothing was left to pay (a gift card or coupons covered it all).
    None,
    /// A card.
    Card { brand: String, last4: String },
    /// The store's pay-later method, with what the buyer must do.
    Manual {
        label: String,
        instructions: Option<String>,
    },
}

fn payment_view(p: &PaymentMethod, settings: &CommerceSettings) -> PaymentView {
    match p {
        PaymentMethod::None => PaymentView::None,
        PaymentMethod::Card { brand, last4, .. } => PaymentView::Card {
            brand: brand.clone(),
            last4: last4.clone(),
        },
        PaymentMethod::Manual { label } => PaymentView::Manual {
            label: label.clone(),
            instructions: settings
                .payments
                .manual
                .as_ref()
                .map(|m| m.instructions.clone()),
        },
    }
}

/// The SPEC "Order" with what its buyer needs of it.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = Order)]
pub struct OrderView {
    pub id: String,
    /// The store's order number (1, 2, ...).
    pub order_number: i64,
    pub purchased_cart_id: String,
    pub website_id: String,
    pub test_mode: bool,
    #[schema(value_type = OrderKind)]
    pub kind: CartKind,
    #[schema(value_type = OrderStatusSchema)]
    pub status: OrderStatus,
    /// Milliseconds since 1970.
    pub created_on: i64,
    /// When it was paid (milliseconds since 1970); null while it waits for payment.
    pub paid_on: Option<i64>,
    pub currency: String,
    pub customer_email: String,
    pub items: Vec<OrderItem>,
    #[schema(value_type = Option<AddressSchema>)]
    pub shipping_address: Option<Address>,
    #[schema(value_type = Option<AddressSchema>)]
    pub billing_address: Option<Address>,
    pub shipping_option: Option<OrderShipping>,
    pub payment: PaymentView,
    /// The gift card that paid part of it (its last four characters).
    pub gift_card: Option<GiftCardPaid>,
    pub coupons: Vec<OrderCoupon>,
    pub taxes: Vec<OrderTax>,
    pub prices_include_tax: bool,
    /// Gift cards this order bought.
    pub gift_cards: Vec<OrderGiftCard>,
    /// Subscriptions this order started.
    pub subscriptions: Vec<OrderSubscription>,
    /// The order status page (with its token).
    pub status_url: String,
    /// The confirmation page (with its token).
    pub confirmation_url: String,
    /// Until when the download links in `items` work (milliseconds since 1970).
    pub downloads_expire_on: i64,
    pub subtotal: Money,
    pub subtotal_cents: i64,
    pub discount_total: Money,
    pub discount_total_cents: i64,
    pub shipping_total: Money,
    pub shipping_total_cents: i64,
    pub tax_total: Money,
    pub tax_total_cents: i64,
    pub grand_total: Money,
    pub grand_total_cents: i64,
    /// The part of the grand total paid with a gift card.
    pub gift_card_total: Money,
    pub gift_card_total_cents: i64,
    /// What the payment method was charged.
    pub amount_charged: Money,
    pub amount_charged_cents: i64,
    /// The buyer's order notes, under the label checkout asked with.
    #[schema(value_type = Option<OrderNotesSchema>)]
    pub notes: Option<tenants::OrderNotes>,
    /// Who the gift cards it bought are for, when the buyer named someone.
    #[schema(value_type = Option<GiftCardRecipientSchema>)]
    pub gift_card_recipient: Option<tenants::GiftCardRecipient>,
}

/// Order notes.
#[derive(ToSchema)]
#[schema(as = OrderNotes)]
#[allow(dead_code)] // `tenants::OrderNotes` as it serializes
pub struct OrderNotesSchema {
    /// The label checkout showed (`checkout.orderNotesLabel`).
    label: String,
    /// What the buyer wrote.
    text: String,
}

/// A gift card purchase's recipient.
#[derive(ToSchema)]
#[schema(as = GiftCardRecipient)]
#[allow(dead_code)] // `tenants::GiftCardRecipient` as it serializes
pub struct GiftCardRecipientSchema {
    email: String,
    message: Option<String>,
}

/// What an order is for.
#[derive(ToSchema)]
#[schema(rename_all = "kebab-case")]
#[allow(dead_code)] // `tenants::CartKind` as it serializes
pub enum OrderKind {
    Cart,
    Subscription,
    GiftCard,
}

/// Whether an order is paid.
#[derive(ToSchema)]
#[schema(as = OrderStatus, rename_all = "kebab-case")]
#[allow(dead_code)] // `tenants::OrderStatus` as it serializes
pub enum OrderStatusSchema {
    Paid,
    AwaitingPayment,
    /// A pay-later order not paid in time (`serve --pay-later-expiry`).
    Expired,
    /// Paid, and part of the charge refunded.
    PartiallyRefunded,
    /// Paid, and all of the charge refunded.
    Refunded,
}

/// A postal address.
#[derive(ToSchema)]
#[schema(as = PostalAddress, rename_all = "camelCase")]
#[allow(dead_code)] // `tenants::Address` as it serializes
pub struct AddressSchema {
    first_name: String,
    last_name: String,
    line1: String,
    line2: Option<String>,
    city: String,
    region: Option<String>,
    postal_code: String,
    /// ISO country code.
    country: String,
    phone: Option<String>,
}

/// A line of an order.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OrderItem {
    /// 0-based position in the order.
    pub position: i64,
    pub item_id: String,
    pub sku: String,
    pub product_name: String,
    /// 1 physical, 2 digital, 3 service, 4 gift card.
    pub product_type: i64,
    /// Option name → chosen value.
    pub attributes: BTreeMap<String, String>,
    pub quantity: i64,
    pub unit_price: Money,
    pub unit_price_cents: i64,
    pub line_total: Money,
    pub line_total_cents: i64,
    pub additional_fields: Option<Value>,
    pub variant_description: String,
    /// A digital line of a paid order: its download link (until `downloadsExpireOn`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub download_url: Option<String>,
    /// A gift-card line: the codes of the cards it issued.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gift_card_codes: Option<Vec<String>>,
}

/// The shipping option an order was charged.
#[derive(Serialize, ToSchema)]
pub struct OrderShipping {
    pub id: String,
    pub name: String,
}

/// The gift card that paid part of an order.
#[derive(Serialize, ToSchema)]
#[schema(as = OrderGiftCardPayment)]
pub struct GiftCardPaid {
    /// Its code's last four characters.
    pub last4: String,
}

/// A coupon as it applied to an order.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OrderCoupon {
    pub code: String,
    pub discount_cents: i64,
    pub discount: Money,
}

/// A tax as it applied to an order.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OrderTax {
    pub name: String,
    /// Percent, as a decimal string.
    pub rate: String,
    pub taxable_cents: i64,
    pub tax_cents: i64,
    pub tax: Money,
}

/// A gift card an order bought.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OrderGiftCard {
    pub code: String,
    pub initial: Money,
    pub balance: Money,
    pub balance_cents: i64,
}

/// A subscription an order started.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OrderSubscription {
    pub id: String,
    pub sku: String,
    pub item_id: String,
    pub billing_period: BillingPeriod,
    /// "every month", "every 3 months" ...
    pub interval: String,
    /// Cycles in all; 0 = it never ends.
    pub num_billing_cycles: i64,
    pub cycles_billed: i64,
    /// When it bills next (milliseconds since 1970); null once every cycle is paid.
    pub next_billing_date: Option<i64>,
    /// `active`, or `completed` once every cycle is paid.
    pub status: String,
    /// What one period costs.
    pub price: Money,
}

/// A subscription's billing period: `value` × `unit`.
#[derive(Serialize, ToSchema)]
pub struct BillingPeriod {
    pub value: i64,
    /// `WEEK`, `MONTH` or `YEAR`.
    pub unit: String,
}

/// The SPEC "Order" (id, purchasedCartId, testMode, websiteId, grandTotal, shippingTotal,
/// taxTotal, items with sku, productName, quantity, unitPrice) with what its buyer needs:
/// number, status, every total in cents and as money, addresses, shipping, payment, coupons,
/// taxes, issued gift cards, subscriptions, download links (paid orders), and the links to
/// its confirmation and status pages.
pub fn order_view(o: &Order, site: &Site) -> OrderView {
    let cur = o.currency.as_str();
    let paid = o.paid_and_standing();
    let settings = &*site.content.commerce;
    let m = |minor: i64| money_of(minor, cur);
    let items = o
        .lines
        .iter()
        .map(|l| {
            let digital = l.product_type == tenants::commerce::product_type::DIGITAL;
            let codes: Vec<String> = o
                .gift_cards
                .iter()
                .filter(|g| g.line_position == l.position)
                .map(|g| g.code.clone())
                .collect();
            OrderItem {
                position: l.position,
                item_id: l.item_id.clone(),
                sku: l.sku.clone(),
                product_name: l.product_name.clone(),
                product_type: l.product_type,
                attributes: l.attributes.clone(),
                quantity: l.quantity,
                unit_price: m(l.unit_price_minor),
                unit_price_cents: l.unit_price_minor,
                line_total: m(l.unit_price_minor * l.quantity),
                line_total_cents: l.unit_price_minor * l.quantity,
                additional_fields: l.additional_fields.clone(),
                variant_description: variant_description(
                    &l.attributes,
                    site.content
                        .products
                        .get(&l.item_id)
                        .map_or(&[][..], |p| &p.options),
                ),
                download_url: (digital && paid)
                    .then(|| session::download_url(site, &o.id, l.position)),
                gift_card_codes: (!codes.is_empty()).then_some(codes),
            }
        })
        .collect();
    OrderView {
        id: o.id.clone(),
        order_number: o.order_number,
        purchased_cart_id: o.cart_id.clone(),
        website_id: site.content.website_id.clone(),
        test_mode: o.test_mode,
        kind: o.kind,
        status: o.status,
        created_on: o.created_ms,
        paid_on: o.paid_ms,
        currency: cur.to_owned(),
        customer_email: o.customer_email.clone(),
        items,
        shipping_address: o.details.shipping_address.clone(),
        billing_address: o.details.billing_address.clone(),
        shipping_option: o.details.shipping_option.as_ref().map(|s| OrderShipping {
            id: s.id.clone(),
            name: s.name.clone(),
        }),
        payment: payment_view(&o.details.payment, settings),
        gift_card: o.details.gift_card.as_ref().map(|c| GiftCardPaid {
            last4: c[c.len().saturating_sub(4)..].to_owned(),
        }),
        coupons: o
            .details
            .coupons
            .iter()
            .map(|c| OrderCoupon {
                code: c.code.clone(),
                discount_cents: c.discount_minor,
                discount: m(c.discount_minor),
            })
            .collect(),
        taxes: o
            .details
            .taxes
            .iter()
            .map(|t| OrderTax {
                name: t.name.clone(),
                rate: t.rate.clone(),
                taxable_cents: t.taxable_minor,
                tax_cents: t.tax_minor,
                tax: m(t.tax_minor),
            })
            .collect(),
        prices_include_tax: o.details.prices_include_tax,
        notes: o.details.notes.clone(),
        gift_card_recipient: o.details.gift_card_recipient.clone(),
        gift_cards: o
            .gift_cards
            .iter()
            .map(|g| OrderGiftCard {
                code: g.code.clone(),
                initial: money_of(g.initial_minor, &g.currency),
                balance: money_of(g.balance_minor, &g.currency),
                balance_cents: g.balance_minor,
            })
            .collect(),
        subscriptions: o
            .subscriptions
            .iter()
            .map(|s| OrderSubscription {
                id: s.id.clone(),
                sku: s.sku.clone(),
                item_id: s.item_id.clone(),
                billing_period: BillingPeriod {
                    value: s.period_value,
                    unit: s.period_unit.clone(),
                },
                interval: interval(s.period_value, &s.period_unit),
                num_billing_cycles: s.num_billing_cycles,
                cycles_billed: s.cycles_billed,
                next_billing_date: s.next_billing_ms,
                status: s.status.clone(),
                price: money_of(s.unit_price_minor * s.quantity, &s.currency),
            })
            .collect(),
        status_url: session::status_url(site, &o.id),
        confirmation_url: session::confirmation_url(site, &o.id),
        downloads_expire_on: now_ms() + session::DOWNLOAD_LINK_LIFETIME.as_millis() as i64,
        subtotal: m(o.subtotal_minor),
        subtotal_cents: o.subtotal_minor,
        discount_total: m(o.discount_minor),
        discount_total_cents: o.discount_minor,
        shipping_total: m(o.shipping_minor),
        shipping_total_cents: o.shipping_minor,
        tax_total: m(o.tax_minor),
        tax_total_cents: o.tax_minor,
        grand_total: m(o.grand_total_minor),
        grand_total_cents: o.grand_total_minor,
        gift_card_total: m(o.gift_card_minor),
        gift_card_total_cents: o.gift_card_minor,
        amount_charged: m(o.charged_minor()),
        amount_charged_cents: o.charged_minor(),
    }
}

/// [`order_view`] as JSON (order pages carry it as `order`; the owner's order list too).
pub fn order_json(o: &Order, site: &Site) -> Value {
    json!(order_view(o, site))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tenants::commerce::settings::{ShippingOption, ShippingRate};

    fn option(id: &str, countries: &[&str]) -> ShippingOption {
        ShippingOption {
            id: id.to_owned(),
            name: id.to_owned(),
            countries: countries.iter().map(|c| (*c).to_owned()).collect(),
            rate: ShippingRate::Flat { price_minor: 100 },
        }
    }

    /// `checkout.countries`, made once per list of codes and kept as its JSON, writes what
    /// the countries built afresh would, in answers (bytes) and in pages (values), the first
    /// time and from the kept list; another list is a list of its own.
    #[test]
    fn kept_country_lists_write_what_fresh_ones_would() {
        let mut settings = CommerceSettings::plain("EUR");
        settings.shipping = vec![option("a", &["NL", "BE"]), option("b", &["DE", "NL"])];
        let fresh = |codes: &[&str]| -> Vec<CountryView> {
            codes
                .iter()
                .filter_map(|c| tenants::commerce::places::country(c))
                .map(country_view)
                .collect()
        };
        let want = fresh(&["BE", "DE", "NL"]);
        assert!(want.iter().all(|c| !c.regions.is_empty()));
        for _ in 0..2 {
            let terms = checkout_terms(&settings, true);
            assert_eq!(
                terms.ships_to.as_deref(),
                Some(&["BE".to_owned(), "DE".to_owned(), "NL".to_owned()][..])
            );
            let list = terms
                .countries
                .expect("a cart that ships lists the countries");
            assert_eq!(
                serde_json::to_string(&list).unwrap(),
                serde_json::to_string(&want).unwrap()
            );
            assert_eq!(list.0.value, json!(want));
        }
        settings.shipping = vec![option("c", &["AT"])];
        let terms = checkout_terms(&settings, true);
        assert_eq!(
            serde_json::to_string(&terms.countries).unwrap(),
            serde_json::to_string(&fresh(&["AT"])).unwrap()
        );
        assert!(checkout_terms(&settings, false).countries.is_none());
    }
}
