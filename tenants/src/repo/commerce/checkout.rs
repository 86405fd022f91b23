//! Checkout: what a cart will cost ([`Store::quote_checkout`]) and placing the order
//! ([`Store::place_order`]) in one transaction: the cart is priced again, lines whose stock
//! hold lapsed take their units again, the gift card is spent, the order is written under a
//! provisional number, the cart is closed, and a paid order delivers its gift cards and
//! subscriptions. Either all of it happens or none. The order's number (and with it its
//! emails) is given after that commit, for many orders at once ([`super::numbering`]).
//!
//! Payment is outside the store: the server asks its payment provider to authorize
//! [`CheckoutQuote::charge_minor`] before placing the order, passes the same amount in
//! [`Checkout::charge_minor`], and captures after the commit (or voids when placing fails).
//! Should the amount due have changed in between (a gift card spent elsewhere), placing
//! refuses with `ChargeChanged` rather than charging a different amount than authorized.

use super::carts::{finish, load_cart, normalize_location, open_for_change};
use super::gift_cards::{self, gift_card_in};
use super::orders::{
    ChosenShipping, OrderCoupon, OrderDetails, OrderStatus, OrderTax, customer_name, fulfil,
    load_order_any,
};
use super::stock::take_stock;
use super::{Address, Cart, Order, PaymentMethod};
use crate::commerce::Refusal;
use crate::commerce::order_state::Fulfilment;
use crate::commerce::pricing::{self, Location, Totals};
use crate::commerce::settings::CommerceSettings;
use crate::error::{Result, StoreError};
use crate::ids::{TenantId, new_id};
use crate::params;
use crate::sql::Tx;
use crate::store::Store;

/// What a checkout is priced with: the addresses, the shipping choice, a gift card, the time.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CheckoutTerms {
    /// Where it ships (required when something ships).
    pub shipping_address: Option<Address>,
    /// Who pays.
    pub billing_address: Option<Address>,
    /// The shipping choice (the cart's own choice when `None`).
    pub shipping_option_id: Option<String>,
    /// A gift card to pay with first.
    pub gift_card_code: Option<String>,
    /// Now, epoch ms (coupon dates, subscription billing).
    pub now_ms: i64,
    /// The buyer's order notes (checked by the caller), kept on the order.
    pub notes: Option<super::OrderNotes>,
    /// Who the gift cards are for (checked by the caller), kept on the order.
    pub gift_card_recipient: Option<super::GiftCardRecipient>,
    /// The member signed in at checkout, if any: a cart that belongs to nobody yet becomes
    /// theirs when the order is placed (a subscription's own cart, say), so the paid member
    /// areas it buys are theirs.
    pub member: Option<String>,
}

/// What a checkout asks for.
#[derive(Clone, Debug)]
pub struct Checkout<'a> {
    /// The store's configuration (prices, tax, shipping, coupons).
    pub settings: &'a CommerceSettings,
    /// Addresses, shipping choice, gift card, time.
    pub terms: CheckoutTerms,
    /// Buyer's email.
    pub customer_email: String,
    /// The grand total the buyer was shown; refused when the total is now different.
    pub expected_total_minor: Option<i64>,
    /// What the payment method covers (authorized by the provider): must be exactly the
    /// grand total less the gift-card part.
    pub charge_minor: i64,
    /// How `charge_minor` is paid.
    pub payment: PaymentMethod,
    /// The payment ran in test mode.
    pub test_mode: bool,
    /// The store's time zone (subscription billing dates).
    pub time_zone: &'a str,
}

/// What checking a cart out would cost right now.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckoutQuote {
    /// The cart.
    pub cart: Cart,
    /// Its totals at the checkout's location.
    pub totals: Totals,
    /// The part a gift card pays, minor units.
    pub gift_card_minor: i64,
    /// The part left for the payment method, minor units.
    pub charge_minor: i64,
}

/// The location a checkout prices at: the shipping address, else the billing address, else
/// what the cart was told.
fn checkout_location(terms: &CheckoutTerms, cart: &Cart) -> Result<Option<Location>> {
    match terms
        .shipping_address
        .as_ref()
        .or(terms.billing_address.as_ref())
    {
        Some(a) => normalize_location(&a.location()).map(Some),
        None => Ok(cart.shipping_location.clone()),
    }
}

/// Prices a cart for checkout and applies the checkout rules: not empty, the minimum
/// subtotal, something that ships has an option that ships there, the gift card exists, is
/// in the order's currency and has a balance.
async fn assess(
    tx: &mut Tx,
    tenant: TenantId,
    cart: Cart,
    settings: &CommerceSettings,
    terms: &CheckoutTerms,
) -> Result<CheckoutQuote> {
    let location = checkout_location(terms, &cart)?;
    let location = location.as_ref();
    let shipping_option = terms.shipping_option_id.as_deref();
    if cart.entries.is_empty() {
        return Err(StoreError::Refused(Refusal::EmptyCart));
    }
    no_longer_for_sale(tx, tenant, &cart).await?;
    member_for_plans(tx, tenant, &cart, terms.member.as_deref()).await?;
    let lines = cart.lines();
    let chosen = shipping_option.or(cart.shipping_option_id.as_deref());
    let totals = pricing::price(
        settings,
        &pricing::Request {
            lines: &lines,
            coupons: &cart.coupons,
            location,
            shipping_option: chosen,
            now_ms: terms.now_ms,
        },
    );
    if let Some(min) = settings.minimum_subtotal_minor
        && totals.subtotal_minor < min
    {
        return Err(StoreError::Refused(Refusal::BelowMinimumSubtotal {
            minimum_minor: min,
        }));
    }
    if totals.requires_shipping && (location.is_none() || totals.shipping_unavailable) {
        return Err(StoreError::Refused(Refusal::ShippingUnavailable));
    }
    if let Some(wanted) = shipping_option
        && totals.requires_shipping
        && totals.selected_shipping_option.as_deref() != Some(wanted)
    {
        return Err(StoreError::Refused(Refusal::ShippingOptionUnavailable));
    }
    let mut gift_card_minor = 0;
    if let Some(code) = terms.gift_card_code.as_deref() {
        let card = gift_card_in(tx, tenant, code)
            .await?
            .ok_or(StoreError::Refused(Refusal::GiftCardUnknown))?;
        if Some(&card.currency) != cart.currency.as_ref() {
            return Err(StoreError::Refused(Refusal::GiftCardCurrency));
        }
        if card.balance_minor == 0 {
            return Err(StoreError::Refused(Refusal::GiftCardEmpty));
        }
        gift_card_minor = card.balance_minor.min(totals.grand_total_minor);
    }
    Ok(CheckoutQuote {
        charge_minor: totals.grand_total_minor - gift_card_minor,
        gift_card_minor,
        totals,
        cart,
    })
}

/// Refuses a cart holding a product visitors no longer see (hidden, or scheduled again for
/// later, since it was added): `NoLongerForSale` with its title. A product deleted since is
/// left to the lines as they are.
async fn no_longer_for_sale(tx: &mut Tx, tenant: TenantId, cart: &Cart) -> Result<()> {
    let now = crate::ids::now_ms();
    let mut seen: Vec<&str> = Vec::new();
    for e in &cart.entries {
        if seen.contains(&e.item_id.as_str()) {
            continue;
        }
        seen.push(&e.item_id);
        let row = tx
            .query_opt(
                "SELECT visibility, publish_on FROM item WHERE tenant_id = $1 AND id = $2",
                params![tenant, e.item_id.as_str()],
            )
            .await?;
        if let Some(r) = row
            && !crate::model::Visibility::stored_shows(&r.text(0)?, r.i64(1)?, now)
        {
            return Err(StoreError::Refused(Refusal::NoLongerForSale {
                item_id: e.item_id.clone(),
                title: e.title.clone(),
            }));
        }
    }
    Ok(())
}

/// Refuses a cart holding a paid member area's plan product when nobody would join it: the
/// cart belongs to no member and no member is signed in at checkout (`SignInToJoin`, with
/// the area's title), so nobody pays for access they do not get.
async fn member_for_plans(
    tx: &mut Tx,
    tenant: TenantId,
    cart: &Cart,
    member: Option<&str>,
) -> Result<()> {
    // Only a line that is no physical good, or a subscription, can be an area's price.
    if member.is_some()
        || (cart.kind == super::CartKind::Cart
            && cart
                .entries
                .iter()
                .all(|e| e.product_type == pricing::product_type::PHYSICAL))
    {
        return Ok(());
    }
    let declared = crate::repo::member_areas::declared_in(tx, tenant).await?;
    let Some(area) = declared.iter().find(|a| {
        cart.entries
            .iter()
            .any(|e| a.plan_product_id.as_deref() == Some(e.item_id.as_str()))
    }) else {
        return Ok(());
    };
    let owned = tx
        .query_opt(
            "SELECT c.site_user_id FROM cart c JOIN site_user u ON u.tenant_id = c.tenant_id \
             AND u.id = c.site_user_id WHERE c.tenant_id = $1 AND c.id = $2",
            params![tenant, cart.id.as_str()],
        )
        .await?;
    if owned.is_none() {
        return Err(StoreError::Refused(Refusal::SignInToJoin {
            area_title: area.title.clone(),
        }));
    }
    Ok(())
}

/// A checkout's first read: the cart, in a snapshot that its quote then goes on in
/// ([`CheckoutRead::quote`]), so that reading the cart and pricing it is one transaction
/// rather than two. Dropped unquoted, the snapshot ends.
pub struct CheckoutRead {
    tx: Tx,
    tenant: TenantId,
    /// The cart as read.
    pub cart: Cart,
}

impl CheckoutRead {
    /// [`Store::quote_checkout`] of the cart read, in the same snapshot.
    pub async fn quote(
        mut self,
        settings: &CommerceSettings,
        terms: &CheckoutTerms,
    ) -> Result<CheckoutQuote> {
        if self.cart.purchased {
            return Err(StoreError::Refused(Refusal::CartPurchased));
        }
        let quote = assess(&mut self.tx, self.tenant, self.cart, settings, terms).await;
        self.tx.commit().await?;
        quote
    }
}

impl Store {
    /// Reads cart `cart_id` for a checkout (`None` when there is none): the cart, and the
    /// snapshot its quote is made in.
    pub async fn checkout_read(
        &self,
        tenant: TenantId,
        cart_id: &str,
    ) -> Result<Option<CheckoutRead>> {
        let mut tx = self.snapshot().await?;
        let cart = load_cart(&mut tx, tenant, cart_id).await?;
        Ok(cart.map(|cart| CheckoutRead { tx, tenant, cart }))
    }

    /// What checking out `cart_id` would cost with these terms; refuses as
    /// [`Store::place_order`] would (empty cart, minimum subtotal, shipping, gift card).
    /// Changes nothing.
    pub async fn quote_checkout(
        &self,
        tenant: TenantId,
        cart_id: &str,
        settings: &CommerceSettings,
        terms: &CheckoutTerms,
    ) -> Result<CheckoutQuote> {
        let mut tx = self.snapshot().await?;
        let cart = load_cart(&mut tx, tenant, cart_id)
            .await?
            .ok_or_else(|| StoreError::NotFound(format!("cart {cart_id}")))?;
        if cart.purchased {
            return Err(StoreError::Refused(Refusal::CartPurchased));
        }
        let quote = assess(&mut tx, tenant, cart, settings, terms).await;
        tx.commit().await?;
        quote
    }

    /// Places the order for an open cart (see the module docs), returning it. Refusals as
    /// [`Store::quote_checkout`], plus `TotalChanged`, `ChargeChanged`, `PaymentRequired`,
    /// `ManualPaymentUnavailable`, `CartPurchased` (a second checkout of the same cart never
    /// makes a second order) and `OutOfStock` for a line whose hold lapsed and whose units
    /// are gone.
    pub async fn place_order(
        &self,
        tenant: TenantId,
        cart_id: &str,
        c: &Checkout<'_>,
    ) -> Result<Order> {
        self.place_order_with_mail(tenant, cart_id, c, |_| Vec::new())
            .await
    }

    /// [`Store::place_order`], with the order's emails (what `mail` makes of the placed
    /// order: the buyer's confirmation, the owner's notice) put in the outbox with its
    /// number: the order is placed ([`Store::place_order_provisional`]) and then numbered on
    /// its own ([`Store::number_orders`]), so an order numbered always has them, and a
    /// refused checkout never sends one and takes no number.
    pub async fn place_order_with_mail(
        &self,
        tenant: TenantId,
        cart_id: &str,
        c: &Checkout<'_>,
        mail: impl FnOnce(&Order) -> Vec<crate::Email>,
    ) -> Result<Order> {
        let order = self
            .place_order_provisional(tenant, cart_id, c, None)
            .await?;
        self.number_orders(tenant, vec![(order, mail)])
            .await?
            .pop()
            .map(|n| n.order)
            .ok_or_else(|| StoreError::decode("numbering answered no order"))
    }

    /// Places the order (see the module docs) under a provisional number: negative, never
    /// a real one, and hidden from every reader of orders until [`Store::number_orders`]
    /// gives it its own. The site's order counter is not touched, so the placing
    /// transactions of one site do not wait for each other. `placed_from` (where the
    /// checkout came in) is kept with the order until it is numbered, for its emails.
    pub async fn place_order_provisional(
        &self,
        tenant: TenantId,
        cart_id: &str,
        c: &Checkout<'_>,
        placed_from: Option<super::PlacedFrom>,
    ) -> Result<Order> {
        let mut tx = self.write().await?;
        let placed = place_in(&mut tx, tenant, cart_id, c, placed_from).await;
        finish(tx, placed).await
    }
}

async fn place_in(
    tx: &mut Tx,
    tenant: TenantId,
    cart_id: &str,
    c: &Checkout<'_>,
    placed_from: Option<super::PlacedFrom>,
) -> Result<Order> {
    let refuse = |r| Err(StoreError::Refused(r));
    let cart = open_for_change(tx, tenant, cart_id).await?;
    let quote = assess(tx, tenant, cart, c.settings, &c.terms).await?;
    if let Some(member) = c.terms.member.as_deref() {
        // The member checking out: a cart nobody owns yet becomes theirs (what it buys of
        // member areas, [`super::orders::fulfil`], is theirs).
        tx.execute(
            "UPDATE cart SET site_user_id = $3 WHERE tenant_id = $1 AND id = $2 AND site_user_id IS NULL",
            params![tenant, cart_id, member],
        )
        .await?;
    }
    let CheckoutQuote {
        cart,
        totals,
        gift_card_minor,
        charge_minor,
    } = quote;
    if let Some(expected) = c.expected_total_minor
        && expected != totals.grand_total_minor
    {
        return refuse(Refusal::TotalChanged {
            grand_total_minor: totals.grand_total_minor,
        });
    }
    if c.charge_minor != charge_minor {
        return refuse(Refusal::ChargeChanged);
    }
    let payment = if charge_minor == 0 {
        PaymentMethod::None
    } else {
        match &c.payment {
            PaymentMethod::None => return refuse(Refusal::PaymentRequired),
            PaymentMethod::Manual { .. } if c.settings.payments.manual.is_none() => {
                return refuse(Refusal::ManualPaymentUnavailable);
            }
            p => p.clone(),
        }
    };
    let status = if matches!(payment, PaymentMethod::Manual { .. }) {
        OrderStatus::AwaitingPayment
    } else {
        OrderStatus::Paid
    };

    // Lines whose hold lapsed take their units again, in (item, sku) order.
    let mut lapsed: Vec<(&str, &str, i64)> = cart
        .entries
        .iter()
        .filter(|e| !e.held)
        .map(|e| (e.item_id.as_str(), e.sku.as_str(), e.quantity))
        .collect();
    lapsed.sort();
    for (item, sku, qty) in lapsed {
        take_stock(tx, tenant, item, sku, qty).await?;
    }

    let order_id = new_id();
    let gift_card = match (&c.terms.gift_card_code, gift_card_minor) {
        (Some(code), amount) if amount > 0 => {
            let code = gift_cards::normalize_gift_card_code(code).unwrap_or_default();
            if !gift_cards::spend(tx, tenant, &code, amount, &order_id).await? {
                return refuse(Refusal::ChargeChanged);
            }
            Some(code)
        }
        _ => None,
    };

    // The order is written under a provisional number of its own (negative: never a real
    // one) and numbered after its commit ([`Store::number_orders`]): taking the tenant's
    // next number locks its row until a commit, so it is done for many orders at once.
    let number = provisional_number()?;
    let shipping_option = totals.selected_shipping_option.as_ref().and_then(|id| {
        totals
            .shipping_options
            .iter()
            .find(|q| &q.id == id)
            .map(|q| ChosenShipping {
                id: q.id.clone(),
                name: q.name.clone(),
            })
    });
    let details = OrderDetails {
        shipping_address: c
            .terms
            .shipping_address
            .clone()
            .filter(|_| totals.requires_shipping),
        billing_address: c.terms.billing_address.clone(),
        shipping_option,
        payment,
        gift_card,
        coupons: totals
            .valid_coupons
            .iter()
            .map(|a| OrderCoupon {
                code: a.coupon.code.clone(),
                discount_minor: a.discount_minor,
            })
            .collect(),
        taxes: totals
            .applied_taxes
            .iter()
            .map(|t| OrderTax {
                name: t.rule.name.clone(),
                rate: t.rule.rate.normalize().to_string(),
                taxable_minor: t.taxable_minor,
                tax_minor: t.tax_minor,
            })
            .collect(),
        prices_include_tax: totals.prices_include_tax,
        notes: c.terms.notes.clone(),
        gift_card_recipient: c.terms.gift_card_recipient.clone(),
        placed_from,
    };
    let now = c.terms.now_ms;
    let paid_ms = (status == OrderStatus::Paid).then_some(now);
    let fulfilment = if cart
        .entries
        .iter()
        .any(|e| e.product_type == pricing::product_type::PHYSICAL)
    {
        Fulfilment::Unfulfilled
    } else {
        Fulfilment::NotRequired
    };
    // The order, its lines, the cart closed and the "placed" event (the order's first:
    // seq 1) in one hop (pipelined on PostgreSQL), then the buyer's summary, which counts
    // the order.
    let mut writes = Vec::with_capacity(cart.entries.len() + 3);
    writes.push((
        "INSERT INTO customer_order (tenant_id, id, order_number, cart_id, created_ms, currency, subtotal_minor, \
         tax_minor, shipping_minor, discount_minor, grand_total_minor, customer_email, status, test_mode, kind, \
         gift_card_minor, paid_ms, details, fulfilment, customer_name) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20)"
            .to_owned(),
        params![
            tenant,
            order_id.as_str(),
            number,
            cart_id,
            now,
            cart.currency.clone().unwrap_or_else(|| c.settings.currency.clone()),
            totals.subtotal_minor,
            totals.tax_minor,
            totals.shipping_minor,
            totals.discount_minor,
            totals.grand_total_minor,
            c.customer_email.as_str(),
            status.as_str(),
            c.test_mode,
            cart.kind.as_str(),
            gift_card_minor,
            paid_ms,
            serde_json::to_string(&details)?,
            fulfilment.as_str(),
            customer_name(&details)
        ],
    ));
    for (pos, e) in cart.entries.iter().enumerate() {
        writes.push((
            "INSERT INTO order_line (tenant_id, order_id, position, item_id, sku, product_name, quantity, unit_price_minor, \
             product_type, attributes, additional_fields) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)"
                .to_owned(),
            params![
                tenant,
                order_id.as_str(),
                pos as i64,
                e.item_id.as_str(),
                e.sku.as_str(),
                e.title.as_str(),
                e.quantity,
                e.unit_price_minor,
                e.product_type,
                serde_json::to_string(&e.attributes)?,
                e.additional_fields.as_ref().map(|f| f.to_string())
            ],
        ));
    }
    writes.push((
        "UPDATE cart SET purchased = TRUE, held = FALSE, order_id = $3 WHERE tenant_id = $1 AND id = $2"
            .to_owned(),
        params![tenant, cart_id, order_id.as_str()],
    ));
    writes.push((
        "INSERT INTO order_event (tenant_id, order_id, seq, at_ms, kind, actor, data) \
         VALUES ($1, $2, 1, $3, 'placed', '', '{}')"
            .to_owned(),
        params![tenant, order_id.as_str(), now],
    ));
    tx.query_all(writes).await?;
    super::customer_summary::refresh(tx, tenant, c.customer_email.as_str()).await?;
    let mut order = load_order(tx, tenant, &order_id).await?;
    if status == OrderStatus::Paid && fulfil(tx, tenant, &order, c.time_zone, now).await? {
        order = load_order(tx, tenant, &order_id).await?;
    }
    Ok(order)
}

/// A number no real order has (they count up from 1), unique among orders being placed at
/// once: what an order is written with until [`Store::number_orders`] gives it its own.
fn provisional_number() -> Result<i64> {
    let mut raw = [0u8; 8];
    getrandom::fill(&mut raw).map_err(|e| StoreError::Io(format!("random source: {e}")))?;
    Ok(-(i64::from_le_bytes(raw) & i64::MAX).max(1))
}

async fn load_order(tx: &mut Tx, tenant: TenantId, order_id: &str) -> Result<Order> {
    load_order_any(tx, tenant, order_id)
        .await?
        .ok_or_else(|| StoreError::NotFound(format!("order {order_id}")))
}
