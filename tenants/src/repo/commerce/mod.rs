//! Carts, stock, checkout, orders, gift cards, subscriptions and digital files.
//!
//! **Stock holds.** `qty_in_stock` counts the units available to new carts. Adding to a cart
//! takes units in the cart's transaction (one conditional `UPDATE`, so concurrent buyers
//! never oversell: PostgreSQL re-checks the condition on the locked row, SQLite has a single
//! writer); lowering a quantity or removing an entry gives them back. An entry whose cart
//! sat idle longer than the hold time gives its units back too
//! ([`crate::Store::release_abandoned_carts`]) but stays in the cart, marked not held; a
//! later change to that entry, or checkout, takes its units again, and fails if they are
//! gone. So stock is decremented for good at checkout, in the order's transaction, and 64
//! carts holding the last unit after their holds lapsed give exactly one order.
//!
//! **Locking.** Every change to a cart starts by updating the cart row (its revision), which
//! on PostgreSQL locks it for the transaction: changes to one cart, checkout and the
//! abandoned-cart sweep take turns. Variant rows are locked in `(item_id, sku)` order, so two
//! checkouts cannot deadlock.
//!
//! Carts and orders do not bump the content version (stock is read live with
//! [`crate::Store::stock`], on every node), so buying does not flush the rendering caches;
//! the stock figures embedded in cached pages follow within the cache's time-to-live. The
//! owner's restock ([`crate::Store::set_stock`]) does bump it.

mod carts;
mod checkout;
mod customer_summary;
mod customers;
mod files;
mod gift_cards;
mod member_carts;
mod numbering;
mod order_admin;
mod order_list;
mod orders;
pub(crate) mod stock;
mod subscriptions;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::commerce::pricing::{self, Line, Location, Totals};
use crate::commerce::settings::CommerceSettings;

pub use checkout::{Checkout, CheckoutQuote, CheckoutRead, CheckoutTerms};
pub use customers::{
    CustomerQuery, CustomerRow, GiftCardQuery, GiftCardRow, GiftCardUse, SUBSCRIPTION_CANCELLED,
    SubscriptionQuery, SubscriptionRow,
};
pub use files::DigitalFile;
pub(crate) use files::{digital_file_from_asset_in, put_digital_file_in};
pub use gift_cards::{GiftCard, normalize_gift_card_code};
pub use numbering::Numbered;
pub use order_admin::{
    LineUnits, MAX_REASON_CHARS, MAX_TRACKING_CHARS, OrderEvent, OrderFulfilment, OrderMail,
    OrderRecord, OrderRefund, no_order_mail,
};
pub use order_list::{MAX_ORDER_PAGE, MAX_ORDER_SEARCH_CHARS, OrderPage, OrderQuery, OrderSummary};
pub use orders::{
    GiftCardRecipient, Order, OrderDetails, OrderLine, OrderNotes, OrderStatus, PlacedFrom,
};
pub use subscriptions::Subscription;
pub(crate) use subscriptions::plan as plan_of;

/// SPEC "Quantity input: minimum 1, maximum 9999".
pub const MAX_QUANTITY: i64 = 9999;

/// What a cart is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CartKind {
    /// The visitor's shopping cart (found by the cart cookie).
    Cart,
    /// One subscription product on its way through subscription checkout (found by its
    /// cart token).
    Subscription,
    /// One gift card, in the chosen denomination, on its way through the gift-card page (found
    /// by its cart token).
    GiftCard,
}

impl CartKind {
    fn as_str(self) -> &'static str {
        match self {
            CartKind::Cart => "cart",
            CartKind::Subscription => "subscription",
            CartKind::GiftCard => "gift-card",
        }
    }

    fn parse(s: &str) -> CartKind {
        match s {
            "subscription" => CartKind::Subscription,
            "gift-card" => CartKind::GiftCard,
            _ => CartKind::Cart,
        }
    }
}

/// A line of a cart.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CartEntry {
    /// 24-hex id.
    pub id: String,
    /// The product item.
    pub item_id: String,
    /// The chosen variant.
    pub sku: String,
    /// The chosen variant's options (`{"Size": "M"}`).
    pub attributes: BTreeMap<String, String>,
    /// Units.
    pub quantity: i64,
    /// Product title at the time of adding.
    pub title: String,
    /// Product type (1 physical, 2 digital, 3 service, 4 gift card).
    pub product_type: i64,
    /// ISO currency code.
    pub currency: String,
    /// Price per unit in minor units when added (the sale price when on sale).
    pub unit_price_minor: i64,
    /// `quantity * unit_price_minor`.
    pub sub_total_minor: i64,
    /// Shipping weight of one unit, grams.
    pub weight_grams: i64,
    /// The additional-fields form answers, if any.
    pub additional_fields: Option<Value>,
    /// Its units are taken from stock (false after the cart was idle past the hold time).
    pub held: bool,
    /// When it was added (epoch ms); entries are listed in this order.
    pub added_ms: i64,
}

/// A visitor's cart.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Cart {
    /// 24-hex id.
    pub id: String,
    /// Shopping cart or subscription cart.
    pub kind: CartKind,
    /// Epoch ms.
    pub created_ms: i64,
    /// Epoch ms of the last change.
    pub updated_ms: i64,
    /// Counts the changes.
    pub revision: i64,
    /// Set when an order was placed from it.
    pub purchased: bool,
    /// The order placed from it.
    pub order_id: Option<String>,
    /// Lines in the order they were added.
    pub entries: Vec<CartEntry>,
    /// Sum of the lines, minor units.
    pub subtotal_minor: i64,
    /// Sum of the quantities.
    pub total_quantity: i64,
    /// Currency of the lines (`None` when empty).
    pub currency: Option<String>,
    /// Where it ships, once the buyer said.
    pub shipping_location: Option<Location>,
    /// The buyer's shipping choice.
    pub shipping_option_id: Option<String>,
    /// Coupon codes, in the order added (upper case).
    pub coupons: Vec<String>,
    /// Some entry holds stock (the abandoned-cart sweep looks at these carts).
    pub holds_stock: bool,
}

impl Cart {
    /// The lines as pricing sees them.
    pub fn lines(&self) -> Vec<Line> {
        self.entries
            .iter()
            .map(|e| Line {
                product_type: e.product_type,
                quantity: e.quantity,
                unit_price_minor: e.unit_price_minor,
                weight_grams: e.weight_grams,
            })
            .collect()
    }

    /// The cart's totals under `settings` at `now_ms`, at its own shipping location (or
    /// `location` when given) and shipping choice.
    pub fn price(
        &self,
        settings: &CommerceSettings,
        location: Option<&Location>,
        now_ms: i64,
    ) -> Totals {
        let lines = self.lines();
        pricing::price(
            settings,
            &pricing::Request {
                lines: &lines,
                coupons: &self.coupons,
                location: location.or(self.shipping_location.as_ref()),
                shipping_option: self.shipping_option_id.as_deref(),
                now_ms,
            },
        )
    }
}

/// What "add to cart" asks for.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AddToCart {
    /// The product item.
    pub item_id: String,
    /// The variant; empty when none was chosen (allowed for a product with one variant).
    pub sku: String,
    /// Units, 1..=9999.
    pub quantity: i64,
    /// Additional-fields answers.
    #[serde(default)]
    pub additional_fields: Option<Value>,
    /// The store sells services one at a time: a service may only be added once, one unit.
    #[serde(default)]
    pub single_service: bool,
    /// The store's currency: a variant priced in another is not for sale. Empty: any
    /// (callers that add what a cart already held).
    #[serde(default)]
    pub store_currency: String,
}

/// The answer to "add to cart" (SPEC: shoppingCart, newlyAdded).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AddedToCart {
    /// The cart after the change.
    pub shopping_cart: Cart,
    /// The entry that was added or increased.
    pub newly_added: CartEntry,
}

/// Stock of one variant (SPEC stock response: unlimited flag and qtyInStock).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StockLevel {
    /// The variant.
    pub sku: String,
    /// Units available to new carts.
    pub qty_in_stock: i64,
    /// Stock not tracked.
    pub unlimited: bool,
}

/// A postal address.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Address {
    /// Given name.
    pub first_name: String,
    /// Family name.
    pub last_name: String,
    /// Street and number.
    pub line1: String,
    /// More of it.
    pub line2: Option<String>,
    /// City.
    pub city: String,
    /// State or province.
    pub region: Option<String>,
    /// Postal code.
    pub postal_code: String,
    /// ISO country code.
    pub country: String,
    /// Phone number.
    pub phone: Option<String>,
}

impl Address {
    /// Where this address is, for shipping and tax.
    pub fn location(&self) -> Location {
        Location {
            country: self.country.clone(),
            region: self.region.clone(),
            postal_code: Some(self.postal_code.clone()).filter(|p| !p.is_empty()),
        }
    }
}

/// How the part of an order not paid with a gift card was paid.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "method", rename_all = "kebab-case")]
pub enum PaymentMethod {
    /// Nothing was left to pay (a gift card or coupons covered it all).
    #[default]
    None,
    /// A card, authorized by the payment provider.
    #[serde(rename_all = "camelCase")]
    Card {
        /// "Visa" ...
        brand: String,
        /// The card number's last four digits.
        last4: String,
        /// The provider's reference for the payment.
        reference: String,
    },
    /// The store's pay-later method (bank transfer, pay on collection).
    Manual {
        /// Its name.
        label: String,
    },
}
