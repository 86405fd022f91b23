//! Order numbers, given after the order is placed: an order is committed under a
//! provisional number ([`Store::place_order_provisional`]: negative, never a real one), and
//! [`Store::number_orders`] then numbers any number of a site's waiting orders in one
//! transaction: the site's counter is locked, the orders still waiting are read again
//! (another node, or a sweep, may have numbered some since), each gets the next number in
//! the order they were handed in, their emails go into the outbox written with the real
//! number, and it commits — one WAL flush for the group, where taking the number inside
//! each order's own transaction held the counter through one flush per order.
//!
//! Numbers stay gapless, unique and never change: only this transaction moves the counter,
//! and it gives exactly as many numbers as it numbers orders. An order waiting for its
//! number is hidden from every reader of orders ([`super::orders::load_orders`], the owner's
//! lists); what it sold (stock, the buyer's summary, gift cards spent) counts from its
//! commit. Orders left waiting by a node that stopped between the two are found by
//! [`Store::provisional_orders`] (the server's start-up and periodic sweeps).

use super::orders::{Order, load_order_any, load_orders_any};
use crate::error::{Result, StoreError};
use crate::ids::{TenantId, new_id};
use crate::params;
use crate::sql::SqlValue;
use crate::store::Store;

/// An order after [`Store::number_orders`].
#[derive(Clone, Debug)]
pub struct Numbered {
    /// The order with its number.
    pub order: Order,
    /// This call gave the number (and wrote the emails); `false` when the order had been
    /// numbered already, by another node or a sweep, whose emails and payment capture it
    /// then was.
    pub numbered_here: bool,
}

impl Store {
    /// Numbers a site's orders placed under provisional numbers, in one transaction (see
    /// the module docs): each still waiting gets the site's next number, in the order
    /// given, and the emails its `mail` writes of it (with the number) go into the outbox
    /// in the same commit. An order numbered already (or given twice: its second time) is
    /// returned as stored, with `numbered_here: false` and its `mail` not called. The
    /// answer is in the order given.
    pub async fn number_orders<F>(
        &self,
        tenant: TenantId,
        orders: Vec<(Order, F)>,
    ) -> Result<Vec<Numbered>>
    where
        F: FnOnce(&Order) -> Vec<crate::Email>,
    {
        if orders.is_empty() {
            return Ok(Vec::new());
        }
        let mut tx = self.write().await?;
        // The counter's row is locked first; the orders are read after, so an order another
        // transaction numbered meanwhile is seen as numbered (PostgreSQL's read committed
        // takes each statement's snapshot when it starts).
        let mut ids: Vec<SqlValue> = params![tenant];
        let mut marks = Vec::with_capacity(orders.len());
        for (o, _) in &orders {
            ids.push(o.id.as_str().into());
            marks.push(format!("${}", ids.len()));
        }
        let mut rows = tx
            .query_all(vec![
                (
                    "UPDATE tenant SET order_seq = order_seq WHERE id = $1 RETURNING order_seq"
                        .to_owned(),
                    params![tenant],
                ),
                (
                    format!(
                        "SELECT id FROM customer_order WHERE tenant_id = $1 AND order_number < 0 AND id IN ({})",
                        marks.join(", ")
                    ),
                    ids,
                ),
            ])
            .await?
            .into_iter();
        let (counter, waiting) = match (rows.next(), rows.next()) {
            (Some(c), Some(w)) => (c, w),
            _ => return Err(StoreError::decode("numbering's reads")),
        };
        let mut last = counter
            .first()
            .ok_or_else(|| StoreError::NotFound(format!("tenant {tenant}")))?
            .i64(0)?;
        let waiting: Vec<String> = waiting.iter().map(|r| r.text(0)).collect::<Result<_>>()?;

        let mut writes = Vec::new();
        let mut emails = Vec::new();
        let mut out: Vec<Numbered> = Vec::with_capacity(orders.len());
        for (mut order, mail) in orders {
            // The same order handed in twice (a checkout that went away left it in its
            // site's queue, and a sweep handed it in again): numbered once.
            if let Some(first) = out
                .iter()
                .find(|n| n.numbered_here && n.order.id == order.id)
            {
                let order = first.order.clone();
                out.push(Numbered {
                    order,
                    numbered_here: false,
                });
                continue;
            }
            if !waiting.contains(&order.id) {
                let stored = load_order_any(&mut tx, tenant, &order.id)
                    .await?
                    .ok_or_else(|| StoreError::NotFound(format!("order {}", order.id)))?;
                out.push(Numbered {
                    order: stored,
                    numbered_here: false,
                });
                continue;
            }
            last += 1;
            order.order_number = last;
            order.details.placed_from = None;
            writes.push((
                "UPDATE customer_order SET order_number = $3, details = $4 \
                 WHERE tenant_id = $1 AND id = $2 AND order_number < 0"
                    .to_owned(),
                params![
                    tenant,
                    order.id.as_str(),
                    last,
                    serde_json::to_string(&order.details)?
                ],
            ));
            emails.extend(
                mail(&order)
                    .iter()
                    .map(|m| crate::repo::outbox::enqueue_statement(tenant, &new_id(), m)),
            );
            out.push(Numbered {
                order,
                numbered_here: true,
            });
        }
        if writes.is_empty() {
            tx.rollback().await?;
            return Ok(out);
        }
        let mut statements = vec![(
            "UPDATE tenant SET order_seq = $2 WHERE id = $1".to_owned(),
            params![tenant, last],
        )];
        statements.extend(writes);
        statements.extend(emails);
        // The numbers, the orders' new rows and their emails with the commit, in one hop.
        tx.commit_after(statements).await?;
        Ok(out)
    }

    /// Tenants with orders still waiting for their number that were placed before
    /// `placed_before_ms`: what a numbering sweep visits.
    pub async fn tenants_with_provisional_orders(
        &self,
        placed_before_ms: i64,
    ) -> Result<Vec<TenantId>> {
        let mut tx = self.read().await?;
        let rows = tx
            .query(
                "SELECT DISTINCT tenant_id FROM customer_order WHERE order_number < 0 AND created_ms < $1 \
                 ORDER BY tenant_id",
                params![placed_before_ms],
            )
            .await?;
        rows.iter().map(|r| Ok(TenantId(r.i64(0)?))).collect()
    }

    /// A tenant's orders still waiting for their number, placed before `placed_before_ms`,
    /// oldest first (the order a sweep numbers them in); each one's
    /// [`super::OrderDetails::placed_from`] says where it was placed from.
    pub async fn provisional_orders(
        &self,
        tenant: TenantId,
        placed_before_ms: i64,
    ) -> Result<Vec<Order>> {
        let mut tx = self.snapshot().await?;
        let mut orders = load_orders_any(
            &mut tx,
            tenant,
            "AND order_number < 0 AND created_ms < $2",
            params![placed_before_ms],
        )
        .await?;
        tx.commit().await?;
        orders.sort_by(|a, b| (a.created_ms, &a.id).cmp(&(b.created_ms, &b.id)));
        Ok(orders)
    }
}
