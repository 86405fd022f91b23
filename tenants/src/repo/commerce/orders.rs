//! Orders: reading them back with their lines, gift cards and subscriptions, marking a
//! pay-later order paid (which delivers what it bought), and expiring the pay-later orders
//! left unpaid (which gives back what they held).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::gift_cards::{self, GiftCard};
use super::subscriptions::{self, Subscription};
use super::{Address, CartKind, PaymentMethod};
use crate::commerce::order_state::{self, Fulfilment, LineState, Payment, State};
use crate::commerce::pricing::product_type;
use crate::error::{Result, StoreError};
use crate::ids::{TenantId, now_ms};
use crate::params;
use crate::sql::Tx;
use crate::store::Store;

/// Where an order's payment stands (the state machine's payment part,
/// [`crate::commerce::order_state`]).
pub type OrderStatus = Payment;

/// A line of an order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OrderLine {
    /// 0-based position in the order.
    pub position: i64,
    /// The product item.
    pub item_id: String,
    /// The variant.
    pub sku: String,
    /// Product title when ordered.
    pub product_name: String,
    /// Product type (1 physical, 2 digital, 3 service, 4 gift card).
    pub product_type: i64,
    /// The variant's options.
    pub attributes: BTreeMap<String, String>,
    /// Units.
    pub quantity: i64,
    /// Price per unit, minor units.
    pub unit_price_minor: i64,
    /// The additional-fields answers.
    pub additional_fields: Option<Value>,
    /// Units shipped (what does not ship counts as shipped once paid).
    pub fulfilled_quantity: i64,
    /// Units refunded.
    pub refunded_quantity: i64,
}

/// A shipping option as ordered.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChosenShipping {
    /// Option id.
    pub id: String,
    /// Shown name.
    pub name: String,
}

/// A coupon as it applied to an order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OrderCoupon {
    /// The code.
    pub code: String,
    /// What it took off, minor units.
    pub discount_minor: i64,
}

/// A tax as it applied to an order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OrderTax {
    /// The rule's name.
    pub name: String,
    /// Percent, as a decimal string.
    pub rate: String,
    /// The amount it applied to, minor units.
    pub taxable_minor: i64,
    /// The tax, minor units.
    pub tax_minor: i64,
}

/// The parts of an order kept as one document.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct OrderDetails {
    /// Where it ships.
    pub shipping_address: Option<Address>,
    /// Who pays.
    pub billing_address: Option<Address>,
    /// The shipping option charged.
    pub shipping_option: Option<ChosenShipping>,
    /// How the part not covered by gift cards was paid.
    pub payment: PaymentMethod,
    /// The gift card that paid part of it (its code), if any.
    pub gift_card: Option<String>,
    /// Coupons that applied.
    pub coupons: Vec<OrderCoupon>,
    /// Taxes that applied.
    pub taxes: Vec<OrderTax>,
    /// Tax was included in the prices.
    pub prices_include_tax: bool,
    /// The buyer's order notes, under the label checkout asked with.
    pub notes: Option<OrderNotes>,
    /// Who the gift cards it bought are for, when the buyer named someone.
    pub gift_card_recipient: Option<GiftCardRecipient>,
    /// Where the checkout came in (kept only while the order waits for its number, so its
    /// emails can be written by whichever node numbers it: see
    /// [`super::numbering`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub placed_from: Option<PlacedFrom>,
}

/// The site address a checkout came in on: what the order's emails are written with when
/// it is numbered.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PlacedFrom {
    /// The host with its port, as the request named the site (`shop.example:8080`).
    pub host: String,
    /// The origin its links point at (`https://shop.example`).
    pub origin: String,
}

/// Order notes (`checkout.orderNotesLabel`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OrderNotes {
    /// The label checkout showed.
    pub label: String,
    /// What the buyer wrote.
    pub text: String,
}

/// The person a gift card purchase is for: they get their own email with the code.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GiftCardRecipient {
    /// Their email address.
    pub email: String,
    /// The buyer's message to them.
    pub message: Option<String>,
}

/// A placed order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Order {
    /// 24-hex id.
    pub id: String,
    /// Per-tenant sequence number shown to buyers (1, 2, ...).
    pub order_number: i64,
    /// The purchased cart.
    pub cart_id: String,
    /// A shopping-cart order or a subscription order.
    pub kind: CartKind,
    /// Epoch ms.
    pub created_ms: i64,
    /// ISO currency code.
    pub currency: String,
    /// Sum of the lines.
    pub subtotal_minor: i64,
    /// Tax (added, or included in the prices when the details say so).
    pub tax_minor: i64,
    /// Shipping.
    pub shipping_minor: i64,
    /// Discount.
    pub discount_minor: i64,
    /// What the order costs: subtotal − discount + shipping (+ tax when not included).
    pub grand_total_minor: i64,
    /// The part of the grand total paid with a gift card.
    pub gift_card_minor: i64,
    /// Buyer's email.
    pub customer_email: String,
    /// Where its payment stands.
    pub status: OrderStatus,
    /// Where its shipping stands.
    pub fulfilment: Fulfilment,
    /// When it was cancelled (epoch ms).
    pub cancelled_ms: Option<i64>,
    /// What was given back of the charge, minor units.
    pub refunded_minor: i64,
    /// The billing (else shipping) name, "" when none was asked.
    pub customer_name: String,
    /// When it was paid (epoch ms).
    pub paid_ms: Option<i64>,
    /// Paid in test mode (no real payment).
    pub test_mode: bool,
    /// Addresses, shipping, payment, coupons and taxes.
    pub details: OrderDetails,
    /// Lines.
    pub lines: Vec<OrderLine>,
    /// Gift cards this order bought (issued once it is paid).
    pub gift_cards: Vec<GiftCard>,
    /// Subscriptions this order started (once it is paid).
    pub subscriptions: Vec<Subscription>,
}

impl Order {
    /// What the payment method was charged: the grand total less the gift-card part.
    pub fn charged_minor(&self) -> i64 {
        self.grand_total_minor - self.gift_card_minor
    }

    /// Paid, not refunded in full and not cancelled: its downloads are open and its
    /// pages and emails show it paid.
    pub fn paid_and_standing(&self) -> bool {
        matches!(self.status, Payment::Paid | Payment::PartiallyRefunded)
            && self.cancelled_ms.is_none()
    }

    /// Its state, as the state machine sees it.
    pub fn state(&self) -> State {
        State {
            payment: self.status,
            fulfilment: self.fulfilment,
            cancelled: self.cancelled_ms.is_some(),
            charged_minor: self.charged_minor(),
            refunded_minor: self.refunded_minor,
        }
    }

    /// Its lines, as the state machine sees them.
    pub fn line_states(&self) -> Vec<LineState> {
        self.lines
            .iter()
            .map(|l| LineState {
                position: l.position,
                product_type: l.product_type,
                quantity: l.quantity,
                unit_price_minor: l.unit_price_minor,
                fulfilled: l.fulfilled_quantity,
                refunded: l.refunded_quantity,
            })
            .collect()
    }

    /// What the owner may do to it now (before asking whether their role may).
    pub fn actions(&self) -> Vec<order_state::Action> {
        order_state::allowed(&self.state())
    }
}

/// The name the owner searches an order by: the billing name, else the shipping name.
pub(super) fn customer_name(details: &OrderDetails) -> String {
    let name = |a: &Option<Address>| {
        a.as_ref()
            .map(|a| {
                format!("{} {}", a.first_name.trim(), a.last_name.trim())
                    .trim()
                    .to_owned()
            })
            .unwrap_or_default()
    };
    let billing = name(&details.billing_address);
    if billing.is_empty() {
        name(&details.shipping_address)
    } else {
        billing
    }
}

/// Orders matching `filter` (an SQL condition; parameters after `$1` = tenant), newest
/// first, with their lines, gift cards and subscriptions. Only numbered orders: one still
/// waiting for its number ([`super::numbering`]) is not shown anywhere yet.
pub(super) async fn load_orders(
    tx: &mut Tx,
    tenant: TenantId,
    filter: &str,
    extra: Vec<crate::sql::SqlValue>,
) -> Result<Vec<Order>> {
    load_orders_any(tx, tenant, &format!("AND order_number > 0 {filter}"), extra).await
}

/// [`load_orders`], numbered or not: for placing and numbering them.
pub(super) async fn load_orders_any(
    tx: &mut Tx,
    tenant: TenantId,
    filter: &str,
    extra: Vec<crate::sql::SqlValue>,
) -> Result<Vec<Order>> {
    select_orders(tx, tenant, filter, extra, " ORDER BY order_number DESC").await
}

/// The numbered order `order_id` of the site, if there is one.
pub(super) async fn load_order(
    tx: &mut Tx,
    tenant: TenantId,
    order_id: &str,
) -> Result<Option<Order>> {
    let filter = "AND order_number > 0 AND id = $2";
    Ok(select_orders(tx, tenant, filter, params![order_id], "")
        .await?
        .pop())
}

/// The order `order_id` of the site, numbered or not, if there is one.
pub(super) async fn load_order_any(
    tx: &mut Tx,
    tenant: TenantId,
    order_id: &str,
) -> Result<Option<Order>> {
    Ok(
        select_orders(tx, tenant, "AND id = $2", params![order_id], "")
            .await?
            .pop(),
    )
}

/// The site's orders that `filter` keeps (its parameters from `$2`), in `order_by`. One
/// order by its key is read without an ORDER BY: with one, a generic plan made while the
/// site had few orders walked the site's orders backwards by number looking for the id
/// (seen in the checkout bench: 2,313 buffers and 0.8 ms for the placing's read-back of its
/// own row, against 3 buffers by the primary key).
async fn select_orders(
    tx: &mut Tx,
    tenant: TenantId,
    filter: &str,
    extra: Vec<crate::sql::SqlValue>,
    order_by: &str,
) -> Result<Vec<Order>> {
    let mut p = params![tenant];
    p.extend(extra);
    let rows = tx
        .query(
            &format!(
                "SELECT id, order_number, cart_id, created_ms, currency, subtotal_minor, tax_minor, shipping_minor, \
                 discount_minor, grand_total_minor, customer_email, status, test_mode, kind, gift_card_minor, paid_ms, \
                 details, fulfilment, cancelled_ms, refunded_minor, customer_name FROM customer_order \
                 WHERE tenant_id = $1 {filter}{order_by}"
            ),
            p,
        )
        .await?;
    let mut out = Vec::with_capacity(rows.len());
    for r in &rows {
        let id = r.text(0)?;
        // The order's lines, gift cards and subscriptions in one hop to the database.
        let mut parts = tx
            .query_all(vec![
                (
                    "SELECT position, item_id, sku, product_name, product_type, attributes, quantity, unit_price_minor, \
                     additional_fields, fulfilled_quantity, refunded_quantity FROM order_line WHERE tenant_id = $1 AND order_id = $2 ORDER BY position"
                        .to_owned(),
                    params![tenant, id.as_str()],
                ),
                gift_cards::of_order_statement(tenant, &id),
                subscriptions::of_order_statement(tenant, &id),
            ])
            .await?
            .into_iter();
        let (line_rows, card_rows, subscription_rows) =
            match (parts.next(), parts.next(), parts.next()) {
                (Some(l), Some(g), Some(s)) => (l, g, s),
                _ => return Err(StoreError::decode("an order's parts")),
            };
        let mut lines = Vec::new();
        for l in &line_rows {
            lines.push(OrderLine {
                position: l.i64(0)?,
                item_id: l.text(1)?,
                sku: l.text(2)?,
                product_name: l.text(3)?,
                product_type: l.i64(4)?,
                attributes: l.json(5)?,
                quantity: l.i64(6)?,
                unit_price_minor: l.i64(7)?,
                additional_fields: l
                    .opt_text(8)?
                    .map(|s| serde_json::from_str(&s))
                    .transpose()?,
                fulfilled_quantity: l.i64(9)?,
                refunded_quantity: l.i64(10)?,
            });
        }
        let gift_cards = gift_cards::of_order_rows(&card_rows)?;
        let subscriptions = subscriptions::of_order_rows(&subscription_rows)?;
        out.push(Order {
            order_number: r.i64(1)?,
            cart_id: r.text(2)?,
            created_ms: r.i64(3)?,
            currency: r.text(4)?,
            subtotal_minor: r.i64(5)?,
            tax_minor: r.i64(6)?,
            shipping_minor: r.i64(7)?,
            discount_minor: r.i64(8)?,
            grand_total_minor: r.i64(9)?,
            customer_email: r.text(10)?,
            status: Payment::parse(&r.text(11)?)
                .ok_or_else(|| StoreError::decode("an order's payment state"))?,
            test_mode: r.bool(12)?,
            kind: CartKind::parse(&r.text(13)?),
            gift_card_minor: r.i64(14)?,
            paid_ms: r.opt_i64(15)?,
            details: r.json(16)?,
            fulfilment: Fulfilment::parse(&r.text(17)?)
                .ok_or_else(|| StoreError::decode("an order's fulfilment state"))?,
            cancelled_ms: r.opt_i64(18)?,
            refunded_minor: r.i64(19)?,
            customer_name: r.text(20)?,
            id,
            lines,
            gift_cards,
            subscriptions,
        });
    }
    Ok(out)
}

/// Delivers what a paid order bought: a gift card per unit of each gift-card line (worth
/// the unit price), and a subscription per subscription-product line. Whether it changed
/// anything an [`Order`] shows (lines delivered, gift cards, subscriptions): when not, the
/// order read before is still the order.
pub(super) async fn fulfil(
    tx: &mut Tx,
    tenant: TenantId,
    order: &Order,
    time_zone: &str,
    now: i64,
) -> Result<bool> {
    // What does not ship is delivered now.
    let mut changed = order
        .lines
        .iter()
        .any(|l| l.product_type != product_type::PHYSICAL);
    if changed {
        tx.execute(
            "UPDATE order_line SET fulfilled_quantity = quantity WHERE tenant_id = $1 AND order_id = $2 AND product_type <> $3",
            params![tenant, order.id.as_str(), product_type::PHYSICAL],
        )
        .await?;
    }
    for line in &order.lines {
        if line.product_type == product_type::GIFT_CARD {
            for _ in 0..line.quantity {
                gift_cards::issue(
                    tx,
                    tenant,
                    &order.currency,
                    line.unit_price_minor,
                    &order.id,
                    line.position,
                )
                .await?;
            }
        }
        let structured: Option<serde_json::Map<String, Value>> = tx
            .query_opt(
                "SELECT structured_content FROM item WHERE tenant_id = $1 AND id = $2",
                params![tenant, line.item_id.as_str()],
            )
            .await?
            .map(|r| r.json(0))
            .transpose()?;
        let subscribable = structured
            .as_ref()
            .and_then(|s| s.get("isSubscribable"))
            .and_then(Value::as_bool)
            == Some(true);
        if subscribable && let Some(s) = &structured {
            changed = true;
            subscriptions::start(
                tx,
                tenant,
                &order.id,
                line,
                &order.currency,
                s,
                time_zone,
                now,
            )
            .await?;
        }
    }
    grant_areas(tx, tenant, order).await?;
    Ok(changed)
}

/// Puts the order's member in the paid member areas whose plan product it bought
/// ([`crate::member_areas`]), recording the order: the member is the one the order's cart
/// belongs to (checkout refuses a plan product without one, `Refusal::SignInToJoin`).
/// How many areas it opened.
async fn grant_areas(tx: &mut Tx, tenant: TenantId, order: &Order) -> Result<usize> {
    // Only a line that is no physical good, or a subscription, can be an area's price.
    if order
        .lines
        .iter()
        .all(|l| l.product_type == product_type::PHYSICAL)
        && order.kind == CartKind::Cart
    {
        return Ok(0);
    }
    let declared = crate::repo::member_areas::declared_in(tx, tenant).await?;
    let bought: Vec<&str> = declared
        .iter()
        .filter(|a| {
            order
                .lines
                .iter()
                .any(|l| a.plan_product_id.as_deref() == Some(l.item_id.as_str()))
        })
        .map(|a| a.id.as_str())
        .collect();
    if bought.is_empty() {
        return Ok(0);
    }
    let Some(member) = order_member_in(tx, tenant, &order.id).await? else {
        return Ok(0);
    };
    for area in &bought {
        crate::repo::member_areas::grant_paid_in(tx, tenant, &member, area, &order.id).await?;
    }
    Ok(bought.len())
}

/// The member an order's cart belongs to, if it has one who still has an account.
pub(super) async fn order_member_in(
    tx: &mut Tx,
    tenant: TenantId,
    order_id: &str,
) -> Result<Option<String>> {
    tx.query_opt(
        "SELECT u.id FROM customer_order o \
         JOIN cart c ON c.tenant_id = o.tenant_id AND c.id = o.cart_id \
         JOIN site_user u ON u.tenant_id = c.tenant_id AND u.id = c.site_user_id \
         WHERE o.tenant_id = $1 AND o.id = $2",
        params![tenant, order_id],
    )
    .await?
    .map(|r| r.text(0))
    .transpose()
}

impl Store {
    /// One order with its lines, gift cards and subscriptions.
    pub async fn order(&self, tenant: TenantId, order_id: &str) -> Result<Option<Order>> {
        let mut tx = self.snapshot().await?;
        let order = load_order(&mut tx, tenant, order_id).await?;
        tx.commit().await?;
        Ok(order)
    }

    /// The tenant's orders, newest first.
    pub async fn orders(&self, tenant: TenantId) -> Result<Vec<Order>> {
        let mut tx = self.snapshot().await?;
        let orders = load_orders(&mut tx, tenant, "", params![]).await?;
        tx.commit().await?;
        Ok(orders)
    }

    /// Tenants with pay-later orders still awaiting payment that were placed before
    /// `placed_before_ms`: what the expiry sweep must visit.
    pub async fn tenants_with_unpaid_orders(&self, placed_before_ms: i64) -> Result<Vec<TenantId>> {
        let mut tx = self.read().await?;
        let rows = tx
            .query(
                "SELECT DISTINCT tenant_id FROM customer_order WHERE status = $1 AND created_ms < $2 AND cancelled_ms IS NULL \
                 AND order_number > 0 ORDER BY tenant_id",
                params![OrderStatus::AwaitingPayment.as_str(), placed_before_ms],
            )
            .await?;
        rows.iter().map(|r| Ok(TenantId(r.i64(0)?))).collect()
    }

    /// Expires this tenant's pay-later orders placed before `placed_before_ms` (epoch ms;
    /// pass `now_ms() - expiry`) and still awaiting payment: each becomes `expired`, its
    /// units go back to stock and what a gift card paid goes back on the card. Returns how
    /// many expired. Each order is expired in its own transaction, by a conditional update,
    /// so an owner marking it paid at that moment either wins (it stays paid) or finds it
    /// expired.
    pub async fn expire_unpaid_orders(
        &self,
        tenant: TenantId,
        placed_before_ms: i64,
    ) -> Result<u64> {
        let awaiting = OrderStatus::AwaitingPayment.as_str();
        let candidates: Vec<String> = {
            let mut tx = self.read().await?;
            tx.query(
                "SELECT id FROM customer_order WHERE tenant_id = $1 AND status = $2 AND created_ms < $3 \
                 AND cancelled_ms IS NULL AND order_number > 0 ORDER BY id",
                params![tenant, awaiting, placed_before_ms],
            )
            .await?
            .iter()
            .map(|r| r.text(0))
            .collect::<Result<_>>()?
        };
        let mut expired = 0;
        for order in candidates {
            let mut tx = self.write().await?;
            let locked = tx
                .execute(
                    "UPDATE customer_order SET status = $3 WHERE tenant_id = $1 AND id = $2 AND status = $4 AND created_ms < $5 \
                     AND cancelled_ms IS NULL",
                    params![tenant, order.as_str(), OrderStatus::Expired.as_str(), awaiting, placed_before_ms],
                )
                .await?;
            if locked > 0 {
                super::customer_summary::refresh_order(&mut tx, tenant, &order).await?;
            }
            if locked == 0 {
                tx.rollback().await?;
                continue;
            }
            let lines = tx
                .query(
                    "SELECT item_id, sku, quantity FROM order_line WHERE tenant_id = $1 AND order_id = $2",
                    params![tenant, order.as_str()],
                )
                .await?;
            super::stock::return_rows(&mut tx, tenant, lines).await?;
            gift_cards::refund_order(&mut tx, tenant, &order).await?;
            super::order_admin::record_event(
                &mut tx,
                tenant,
                &order,
                now_ms(),
                "expired",
                "",
                serde_json::json!({}),
            )
            .await?;
            tx.commit().await?;
            expired += 1;
        }
        Ok(expired)
    }

    /// Marks an order placed with a pay-later method paid, and delivers what it bought
    /// (gift cards, subscriptions, downloads). `NotFound` for no such order; an order that
    /// is paid already, expired or cancelled is returned unchanged
    /// ([`Store::mark_paid`] says why instead).
    pub async fn mark_order_paid(
        &self,
        tenant: TenantId,
        order_id: &str,
        time_zone: &str,
    ) -> Result<Order> {
        match self
            .mark_paid(
                tenant,
                order_id,
                time_zone,
                "",
                &super::order_admin::no_order_mail,
            )
            .await
        {
            Err(StoreError::Illegal(_)) => self
                .order(tenant, order_id)
                .await?
                .ok_or_else(|| StoreError::NotFound(format!("order {order_id}"))),
            other => other,
        }
    }
}
