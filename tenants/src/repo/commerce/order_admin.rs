//! The owner's moves on an order (mark paid, fulfil, cancel, refund) and its history.
//!
//! Each move starts by locking the order's row (a no-op `UPDATE`: on PostgreSQL it waits
//! for a concurrent move on the same order and then reads what that left; SQLite has one
//! writer), reads the order, asks the state machine ([`crate::commerce::order_state`])
//! whether the move is legal now, and then makes it, with an `order_event` row, in the same
//! transaction. So two owners acting on one order at once take turns, and the second one is
//! refused if the first one's move made its own illegal.
//!
//! A refund has two steps because the payment provider is asked in between:
//! [`Store::begin_refund`] counts the amount as refunded (a `pending` refund) so that no
//! other refund can give back the same money, and [`Store::finish_refund`] records what the
//! provider said: `done`, or `failed` (the amount and units are refundable again).

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::orders::{Order, fulfil, load_order};
use super::{customer_summary, gift_cards};
use crate::commerce::order_state::{
    Action, Illegal, Payment, RefundRequest, check, check_fulfilment, fulfilment_of,
    payment_after_refund, refund_amount,
};
use crate::error::{Result, StoreError};
use crate::ids::{TenantId, new_id, now_ms};
use crate::params;
use crate::repo::restock::RestockNotice;
use crate::sql::Tx;
use crate::store::Store;

/// What writes a move's emails to the buyer, from the order as the move left it; they are
/// put in the outbox in the move's transaction.
pub type OrderMail<'a> = &'a (dyn Fn(&Order) -> Vec<crate::Email> + Send + Sync);

/// No email (for moves nobody is told about, and tests).
pub fn no_order_mail(_: &Order) -> Vec<crate::Email> {
    Vec::new()
}

async fn send(tx: &mut Tx, tenant: TenantId, mail: OrderMail<'_>, order: &Order) -> Result<()> {
    for email in mail(order) {
        crate::repo::outbox::enqueue_in(tx, tenant, &email).await?;
    }
    Ok(())
}

/// The longest carrier name or tracking number kept.
pub const MAX_TRACKING_CHARS: usize = 200;
/// The longest refund reason kept.
pub const MAX_REASON_CHARS: usize = 500;

/// Units of one line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LineUnits {
    /// The line's position in the order.
    pub position: i64,
    /// Units.
    pub quantity: i64,
}

/// A shipment.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OrderFulfilment {
    /// 24-hex id.
    pub id: String,
    /// Epoch ms.
    pub created_ms: i64,
    /// The carrier, "" when not given.
    pub carrier: String,
    /// The tracking number, "" when not given.
    pub tracking_number: String,
    /// What shipped.
    pub lines: Vec<LineUnits>,
}

/// A refund, and where it stands.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OrderRefund {
    /// 24-hex id.
    pub id: String,
    /// Epoch ms.
    pub created_ms: i64,
    /// What it gives back, minor units.
    pub amount_minor: i64,
    /// The units it names (empty for a refund of an amount).
    pub lines: Vec<LineUnits>,
    /// The owner's reason, "" when none.
    pub reason: String,
    /// `pending` (the provider is being asked), `done` or `failed`.
    pub state: String,
    /// The provider's reference, once done.
    pub reference: Option<String>,
}

/// One entry of an order's history.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OrderEvent {
    /// Epoch ms.
    pub at_ms: i64,
    /// `placed`, `paid`, `fulfilled`, `cancelled`, `refunded`, `refund-failed`,
    /// `confirmation-resent`, `expired`.
    pub kind: String,
    /// The owner's email or the token's name; "" for the store itself.
    pub actor: String,
    /// What happened (amounts, carrier, tracking number, lines ...).
    pub data: Value,
}

/// An order with its shipments, refunds and history: what the owner's order page shows.
#[derive(Clone, Debug, PartialEq)]
pub struct OrderRecord {
    /// The order.
    pub order: Order,
    /// Its shipments, oldest first.
    pub fulfilments: Vec<OrderFulfilment>,
    /// Its refunds, oldest first.
    pub refunds: Vec<OrderRefund>,
    /// Its history, oldest first.
    pub history: Vec<OrderEvent>,
}

/// Appends an event to an order's history (call with the order locked or new).
pub(super) async fn record_event(
    tx: &mut Tx,
    tenant: TenantId,
    order_id: &str,
    at_ms: i64,
    kind: &str,
    actor: &str,
    data: Value,
) -> Result<()> {
    let seq = tx
        .query_one(
            "SELECT COALESCE(MAX(seq), 0) + 1 FROM order_event WHERE tenant_id = $1 AND order_id = $2",
            params![tenant, order_id],
        )
        .await?
        .i64(0)?;
    tx.execute(
        "INSERT INTO order_event (tenant_id, order_id, seq, at_ms, kind, actor, data) \
         VALUES ($1, $2, $3, $4, $5, $6, $7)",
        params![tenant, order_id, seq, at_ms, kind, actor, data.to_string()],
    )
    .await?;
    Ok(())
}

/// Locks the order's row for the rest of `tx` and reads it; `NotFound` for none.
async fn lock(tx: &mut Tx, tenant: TenantId, order_id: &str) -> Result<Order> {
    let n = tx
        .execute(
            "UPDATE customer_order SET status = status WHERE tenant_id = $1 AND id = $2",
            params![tenant, order_id],
        )
        .await?;
    if n == 0 {
        return Err(StoreError::NotFound(format!("order {order_id}")));
    }
    reload(tx, tenant, order_id).await
}

async fn reload(tx: &mut Tx, tenant: TenantId, order_id: &str) -> Result<Order> {
    load_order(tx, tenant, order_id)
        .await?
        .ok_or_else(|| StoreError::NotFound(format!("order {order_id}")))
}

/// Rolls back and refuses.
async fn refuse<T>(tx: Tx, why: Illegal) -> Result<T> {
    tx.rollback().await?;
    Err(StoreError::Illegal(why))
}

/// Sets the order's fulfilment from its lines (after a change to them).
async fn settle_fulfilment(tx: &mut Tx, tenant: TenantId, order_id: &str) -> Result<Order> {
    let order = reload(tx, tenant, order_id).await?;
    let f = fulfilment_of(&order.line_states());
    if f != order.fulfilment {
        tx.execute(
            "UPDATE customer_order SET fulfilment = $3 WHERE tenant_id = $1 AND id = $2",
            params![tenant, order_id, f.as_str()],
        )
        .await?;
        return reload(tx, tenant, order_id).await;
    }
    Ok(order)
}

fn bounded(what: &str, s: &str, max: usize) -> Result<String> {
    let s = s.trim();
    if s.chars().count() > max || s.chars().any(char::is_control) {
        return Err(StoreError::Invalid(format!(
            "{what}: at most {max} characters, without control characters"
        )));
    }
    Ok(s.to_owned())
}

fn units(lines: &[(i64, i64)]) -> Vec<LineUnits> {
    lines
        .iter()
        .map(|&(position, quantity)| LineUnits { position, quantity })
        .collect()
}

impl Store {
    /// An order with its shipments, refunds and history.
    pub async fn order_record(
        &self,
        tenant: TenantId,
        order_id: &str,
    ) -> Result<Option<OrderRecord>> {
        let mut tx = self.snapshot().await?;
        let Some(order) = load_order(&mut tx, tenant, order_id).await? else {
            tx.commit().await?;
            return Ok(None);
        };
        let mut fulfilments = Vec::new();
        for r in tx
            .query(
                "SELECT id, created_ms, carrier, tracking_number, lines FROM order_fulfilment \
                 WHERE tenant_id = $1 AND order_id = $2 ORDER BY created_ms, id",
                params![tenant, order_id],
            )
            .await?
        {
            fulfilments.push(OrderFulfilment {
                id: r.text(0)?,
                created_ms: r.i64(1)?,
                carrier: r.text(2)?,
                tracking_number: r.text(3)?,
                lines: r.json(4)?,
            });
        }
        let mut refunds = Vec::new();
        for r in tx
            .query(
                "SELECT id, created_ms, amount_minor, lines, reason, state, reference FROM order_refund \
                 WHERE tenant_id = $1 AND order_id = $2 ORDER BY created_ms, id",
                params![tenant, order_id],
            )
            .await?
        {
            refunds.push(OrderRefund {
                id: r.text(0)?,
                created_ms: r.i64(1)?,
                amount_minor: r.i64(2)?,
                lines: r.json(3)?,
                reason: r.text(4)?,
                state: r.text(5)?,
                reference: r.opt_text(6)?,
            });
        }
        let mut history = Vec::new();
        for r in tx
            .query(
                "SELECT at_ms, kind, actor, data FROM order_event WHERE tenant_id = $1 AND order_id = $2 ORDER BY seq",
                params![tenant, order_id],
            )
            .await?
        {
            history.push(OrderEvent {
                at_ms: r.i64(0)?,
                kind: r.text(1)?,
                actor: r.text(2)?,
                data: r.json(3)?,
            });
        }
        tx.commit().await?;
        Ok(Some(OrderRecord {
            order,
            fulfilments,
            refunds,
            history,
        }))
    }

    /// "Mark as paid": a pay-later order awaiting payment becomes paid, and what it bought
    /// is delivered (gift cards issued, subscriptions started, downloads opened, what does
    /// not ship counted as fulfilled). `Illegal` when it is not awaiting payment.
    pub async fn mark_paid(
        &self,
        tenant: TenantId,
        order_id: &str,
        time_zone: &str,
        actor: &str,
        mail: OrderMail<'_>,
    ) -> Result<Order> {
        let now = now_ms();
        let mut tx = self.write().await?;
        let order = lock(&mut tx, tenant, order_id).await?;
        if let Err(why) = check(&order.state(), Action::MarkPaid) {
            return refuse(tx, why).await;
        }
        tx.execute(
            "UPDATE customer_order SET status = $3, paid_ms = $4 WHERE tenant_id = $1 AND id = $2",
            params![tenant, order_id, Payment::Paid.as_str(), now],
        )
        .await?;
        customer_summary::refresh_order(&mut tx, tenant, order_id).await?;
        let order = reload(&mut tx, tenant, order_id).await?;
        fulfil(&mut tx, tenant, &order, time_zone, now).await?;
        record_event(&mut tx, tenant, order_id, now, "paid", actor, json!({})).await?;
        let order = reload(&mut tx, tenant, order_id).await?;
        send(&mut tx, tenant, mail, &order).await?;
        tx.commit().await?;
        Ok(order)
    }

    /// "Mark as fulfilled": ships `lines` (`(position, quantity)`, physical lines only, no
    /// more than each has left) with an optional carrier and tracking number.
    #[allow(clippy::too_many_arguments)]
    pub async fn fulfil_order(
        &self,
        tenant: TenantId,
        order_id: &str,
        lines: &[(i64, i64)],
        carrier: &str,
        tracking_number: &str,
        actor: &str,
        mail: OrderMail<'_>,
    ) -> Result<(Order, OrderFulfilment)> {
        let carrier = bounded("carrier", carrier, MAX_TRACKING_CHARS)?;
        let tracking_number = bounded("trackingNumber", tracking_number, MAX_TRACKING_CHARS)?;
        let now = now_ms();
        let mut tx = self.write().await?;
        let order = lock(&mut tx, tenant, order_id).await?;
        if let Err(why) = check(&order.state(), Action::Fulfil)
            .and_then(|()| check_fulfilment(&order.line_states(), lines))
        {
            return refuse(tx, why).await;
        }
        for &(position, quantity) in lines {
            tx.execute(
                "UPDATE order_line SET fulfilled_quantity = fulfilled_quantity + $4 \
                 WHERE tenant_id = $1 AND order_id = $2 AND position = $3",
                params![tenant, order_id, position, quantity],
            )
            .await?;
        }
        let shipment = OrderFulfilment {
            id: new_id(),
            created_ms: now,
            carrier,
            tracking_number,
            lines: units(lines),
        };
        tx.execute(
            "INSERT INTO order_fulfilment (tenant_id, order_id, id, created_ms, carrier, tracking_number, lines) \
             VALUES ($1, $2, $3, $4, $5, $6, $7)",
            params![
                tenant,
                order_id,
                shipment.id.as_str(),
                now,
                shipment.carrier.as_str(),
                shipment.tracking_number.as_str(),
                serde_json::to_string(&shipment.lines)?
            ],
        )
        .await?;
        record_event(
            &mut tx,
            tenant,
            order_id,
            now,
            "fulfilled",
            actor,
            json!({
                "fulfilmentId": shipment.id,
                "carrier": shipment.carrier,
                "trackingNumber": shipment.tracking_number,
                "lines": shipment.lines,
            }),
        )
        .await?;
        let order = settle_fulfilment(&mut tx, tenant, order_id).await?;
        send(&mut tx, tenant, mail, &order).await?;
        tx.commit().await?;
        Ok((order, shipment))
    }

    /// "Cancel order": the units not shipped go back to stock, what a gift card paid
    /// goes back on the card, the subscriptions the order started that are still active
    /// are cancelled, and the member areas it opened close. A paid order must have its charge given back first
    /// ([`Store::begin_refund`]; `Illegal::RefundFirst` otherwise).
    pub async fn cancel_order(
        &self,
        tenant: TenantId,
        order_id: &str,
        actor: &str,
        mail: OrderMail<'_>,
    ) -> Result<Order> {
        self.cancel_order_notifying(tenant, order_id, actor, mail, None)
            .await
    }

    /// [`Store::cancel_order`], and when `notice` is given, each variant the units put
    /// back raise from sold out tells its waiting restock sign-ups in the same transaction
    /// (as an owner's raise of its stock does: [`Store::set_stock_notifying`]).
    pub async fn cancel_order_notifying(
        &self,
        tenant: TenantId,
        order_id: &str,
        actor: &str,
        mail: OrderMail<'_>,
        notice: Option<&RestockNotice<'_>>,
    ) -> Result<Order> {
        let now = now_ms();
        let mut tx = self.write().await?;
        let order = lock(&mut tx, tenant, order_id).await?;
        let state = order.state();
        if let Err(why) = check(&state, Action::Cancel) {
            return refuse(tx, why).await;
        }
        if state.payment.was_paid() && state.refunded_minor < state.charged_minor {
            return refuse(tx, Illegal::RefundFirst).await;
        }
        let back = tx
            .query(
                "SELECT item_id, sku, quantity - fulfilled_quantity FROM order_line \
                 WHERE tenant_id = $1 AND order_id = $2 AND quantity > fulfilled_quantity",
                params![tenant, order_id],
            )
            .await?;
        let restocked: Vec<Value> = back
            .iter()
            .map(|r| Ok(json!({"sku": r.text(1)?, "quantity": r.i64(2)?})))
            .collect::<Result<_>>()?;
        let notified = super::stock::return_rows_notifying(&mut tx, tenant, back, notice).await?;
        gift_cards::refund_order(&mut tx, tenant, order_id).await?;
        let subscriptions = tx
            .execute(
                "UPDATE subscription SET status = $3, next_billing_ms = NULL \
                 WHERE tenant_id = $1 AND order_id = $2 AND status = $4",
                params![tenant, order_id, super::SUBSCRIPTION_CANCELLED, "active"],
            )
            .await?;
        tx.execute(
            "UPDATE customer_order SET cancelled_ms = $3 WHERE tenant_id = $1 AND id = $2",
            params![tenant, order_id, now],
        )
        .await?;
        let memberships =
            crate::repo::member_areas::revoke_order_in(&mut tx, tenant, order_id).await?;
        customer_summary::refresh_order(&mut tx, tenant, order_id).await?;
        record_event(
            &mut tx,
            tenant,
            order_id,
            now,
            "cancelled",
            actor,
            json!({
                "restocked": restocked,
                "giftCardMinor": order.gift_card_minor,
                "subscriptionsCancelled": subscriptions,
                "restockNotices": notified,
                "membershipsEnded": memberships,
            }),
        )
        .await?;
        let order = reload(&mut tx, tenant, order_id).await?;
        send(&mut tx, tenant, mail, &order).await?;
        tx.commit().await?;
        Ok(order)
    }

    /// "Refund", first step: checks the request against what is left of the charge (and of
    /// each line it names), counts its amount as refunded and records a `pending` refund.
    /// Then ask the payment provider, and record its answer with [`Store::finish_refund`].
    pub async fn begin_refund(
        &self,
        tenant: TenantId,
        order_id: &str,
        request: &RefundRequest,
        reason: &str,
    ) -> Result<(Order, OrderRefund)> {
        let reason = bounded("reason", reason, MAX_REASON_CHARS)?;
        let now = now_ms();
        let mut tx = self.write().await?;
        let order = lock(&mut tx, tenant, order_id).await?;
        let amount = match refund_amount(&order.state(), &order.line_states(), request) {
            Ok(a) => a,
            Err(why) => return refuse(tx, why).await,
        };
        let lines = match request {
            RefundRequest::Lines(l) => l.clone(),
            RefundRequest::Amount(_) => Vec::new(),
        };
        let refunded = order.refunded_minor + amount;
        tx.execute(
            "UPDATE customer_order SET refunded_minor = $3, status = $4 WHERE tenant_id = $1 AND id = $2",
            params![
                tenant,
                order_id,
                refunded,
                payment_after_refund(order.charged_minor(), refunded).as_str()
            ],
        )
        .await?;
        customer_summary::refresh_order(&mut tx, tenant, order_id).await?;
        for &(position, quantity) in &lines {
            tx.execute(
                "UPDATE order_line SET refunded_quantity = refunded_quantity + $4 \
                 WHERE tenant_id = $1 AND order_id = $2 AND position = $3",
                params![tenant, order_id, position, quantity],
            )
            .await?;
        }
        let refund = OrderRefund {
            id: new_id(),
            created_ms: now,
            amount_minor: amount,
            lines: units(&lines),
            reason,
            state: "pending".into(),
            reference: None,
        };
        tx.execute(
            "INSERT INTO order_refund (tenant_id, order_id, id, created_ms, amount_minor, lines, reason, state) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
            params![
                tenant,
                order_id,
                refund.id.as_str(),
                now,
                amount,
                serde_json::to_string(&refund.lines)?,
                refund.reason.as_str(),
                "pending"
            ],
        )
        .await?;
        let order = settle_fulfilment(&mut tx, tenant, order_id).await?;
        tx.commit().await?;
        Ok((order, refund))
    }

    /// "Refund", second step: what the provider said about a pending refund. `Ok(reference)`
    /// marks it done; `Err(message)` marks it failed and makes its amount and units
    /// refundable again. Each is recorded in the history. `NotFound` unless the refund is
    /// pending.
    pub async fn finish_refund(
        &self,
        tenant: TenantId,
        order_id: &str,
        refund_id: &str,
        outcome: std::result::Result<String, String>,
        actor: &str,
        mail: OrderMail<'_>,
    ) -> Result<Order> {
        let now = now_ms();
        let mut tx = self.write().await?;
        let order = lock(&mut tx, tenant, order_id).await?;
        let Some(r) = tx
            .query_opt(
                "SELECT amount_minor, lines, reason FROM order_refund \
                 WHERE tenant_id = $1 AND order_id = $2 AND id = $3 AND state = 'pending'",
                params![tenant, order_id, refund_id],
            )
            .await?
        else {
            tx.rollback().await?;
            return Err(StoreError::NotFound(format!("pending refund {refund_id}")));
        };
        let amount = r.i64(0)?;
        let lines: Vec<LineUnits> = r.json(1)?;
        let reason = r.text(2)?;
        let done = outcome.is_ok();
        match outcome {
            Ok(reference) => {
                tx.execute(
                    "UPDATE order_refund SET state = 'done', reference = $4 WHERE tenant_id = $1 AND order_id = $2 AND id = $3",
                    params![tenant, order_id, refund_id, reference.as_str()],
                )
                .await?;
                record_event(
                    &mut tx,
                    tenant,
                    order_id,
                    now,
                    "refunded",
                    actor,
                    json!({"amountMinor": amount, "lines": lines, "reason": reason, "reference": reference}),
                )
                .await?;
            }
            Err(message) => {
                tx.execute(
                    "UPDATE order_refund SET state = 'failed' WHERE tenant_id = $1 AND order_id = $2 AND id = $3",
                    params![tenant, order_id, refund_id],
                )
                .await?;
                let refunded = (order.refunded_minor - amount).max(0);
                tx.execute(
                    "UPDATE customer_order SET refunded_minor = $3, status = $4 WHERE tenant_id = $1 AND id = $2",
                    params![
                        tenant,
                        order_id,
                        refunded,
                        payment_after_refund(order.charged_minor(), refunded).as_str()
                    ],
                )
                .await?;
                customer_summary::refresh_order(&mut tx, tenant, order_id).await?;
                for l in &lines {
                    tx.execute(
                        "UPDATE order_line SET refunded_quantity = refunded_quantity - $4 \
                         WHERE tenant_id = $1 AND order_id = $2 AND position = $3",
                        params![tenant, order_id, l.position, l.quantity],
                    )
                    .await?;
                }
                record_event(
                    &mut tx,
                    tenant,
                    order_id,
                    now,
                    "refund-failed",
                    actor,
                    json!({"amountMinor": amount, "message": message}),
                )
                .await?;
            }
        }
        let order = settle_fulfilment(&mut tx, tenant, order_id).await?;
        if done && order.status == Payment::Refunded {
            // Refunded in full: the member areas it bought close.
            crate::repo::member_areas::revoke_order_in(&mut tx, tenant, order_id).await?;
        }
        if done {
            send(&mut tx, tenant, mail, &order).await?;
        }
        tx.commit().await?;
        Ok(order)
    }

    /// Adds an event to an order's history that changes nothing else ("confirmation
    /// resent"), after checking the state machine allows `action` (when given).
    #[allow(clippy::too_many_arguments)]
    pub async fn record_order_event(
        &self,
        tenant: TenantId,
        order_id: &str,
        action: Option<Action>,
        kind: &str,
        actor: &str,
        data: Value,
        mail: OrderMail<'_>,
    ) -> Result<Order> {
        let mut tx = self.write().await?;
        let order = lock(&mut tx, tenant, order_id).await?;
        if let Some(a) = action
            && let Err(why) = check(&order.state(), a)
        {
            return refuse(tx, why).await;
        }
        record_event(&mut tx, tenant, order_id, now_ms(), kind, actor, data).await?;
        send(&mut tx, tenant, mail, &order).await?;
        tx.commit().await?;
        Ok(order)
    }
}
