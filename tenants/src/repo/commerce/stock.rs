//! Stock: taking and giving back units, live levels, the owner's restock, and the sweep that
//! gives back the units of abandoned carts.

use super::StockLevel;
use crate::cache::Change;
use crate::error::{Result, StoreError};
use crate::ids::TenantId;
use crate::params;
use crate::repo::restock::{RestockNotice, notify_restocked_in, sold_out};
use crate::sql::{Row, Tx};
use crate::store::Store;

/// Takes `qty` units of a variant if available; `OutOfStock` otherwise (nothing changed).
pub(super) async fn take_stock(
    tx: &mut Tx,
    tenant: TenantId,
    item_id: &str,
    sku: &str,
    qty: i64,
) -> Result<()> {
    let n = tx
        .execute(
            "UPDATE product_variant SET qty_in_stock = CASE WHEN unlimited THEN qty_in_stock ELSE qty_in_stock - $4 END \
             WHERE tenant_id = $1 AND item_id = $2 AND sku = $3 AND (unlimited OR qty_in_stock >= $4)",
            params![tenant, item_id, sku, qty],
        )
        .await?;
    if n == 0 {
        Err(StoreError::OutOfStock {
            sku: sku.to_owned(),
            requested: qty,
        })
    } else {
        Ok(())
    }
}

/// Gives back each row's `(item_id, sku, quantity)` units: the rows of a query's
/// `item_id, sku, quantity` columns, taken in (item, sku) order, as every stock change
/// locks variant rows (so two transactions never deadlock).
pub(super) async fn return_rows(tx: &mut Tx, tenant: TenantId, rows: Vec<Row>) -> Result<()> {
    return_rows_notifying(tx, tenant, rows, None)
        .await
        .map(|_| ())
}

/// [`return_rows`], and when `notice` is given, each variant the units raise from sold out
/// tells its waiting restock sign-ups in `tx` ([`notify_restocked_in`]), as an owner's
/// raise does ([`Store::set_stock_notifying`]). How many were told.
pub(super) async fn return_rows_notifying(
    tx: &mut Tx,
    tenant: TenantId,
    rows: Vec<Row>,
    notice: Option<&RestockNotice<'_>>,
) -> Result<u64> {
    let mut units = Vec::with_capacity(rows.len());
    for r in rows {
        units.push((r.text(0)?, r.text(1)?, r.i64(2)?));
    }
    units.sort();
    let mut told = 0;
    for (item, sku, qty) in &units {
        // The row locked and its level read before the units go back (as a raise does).
        let was = match notice {
            Some(_) => old_levels_in(tx, tenant, item, Some(sku)).await?.pop(),
            None => None,
        };
        return_stock(tx, tenant, item, sku, *qty).await?;
        if let (Some(notice), Some((_, was_qty, unlimited))) = (notice, was)
            && sold_out(was_qty, unlimited)
            && !sold_out(was_qty + qty, unlimited)
        {
            told += notify_restocked_in(tx, tenant, item, sku, notice).await?;
        }
    }
    Ok(told)
}

/// The `(sku, qty_in_stock, unlimited)` of a product's variants (of one, with `sku`), the
/// rows locked for the rest of `tx` (a no-op `UPDATE`, which waits for a concurrent change
/// and then reads what it left, on both backends).
pub(crate) async fn old_levels_in(
    tx: &mut Tx,
    tenant: TenantId,
    item_id: &str,
    sku: Option<&str>,
) -> Result<Vec<(String, i64, bool)>> {
    let rows = match sku {
        Some(sku) => {
            tx.query(
                "UPDATE product_variant SET qty_in_stock = qty_in_stock WHERE tenant_id = $1 AND item_id = $2 \
                 AND sku = $3 RETURNING sku, qty_in_stock, unlimited",
                params![tenant, item_id, sku],
            )
            .await?
        }
        None => {
            tx.query(
                "UPDATE product_variant SET qty_in_stock = qty_in_stock WHERE tenant_id = $1 AND item_id = $2 \
                 RETURNING sku, qty_in_stock, unlimited",
                params![tenant, item_id],
            )
            .await?
        }
    };
    rows.iter()
        .map(|r| Ok((r.text(0)?, r.i64(1)?, r.bool(2)?)))
        .collect()
}

/// Gives `qty` units back (no-op for unlimited variants or deleted products).
pub(super) async fn return_stock(
    tx: &mut Tx,
    tenant: TenantId,
    item_id: &str,
    sku: &str,
    qty: i64,
) -> Result<()> {
    tx.execute(
        "UPDATE product_variant SET qty_in_stock = qty_in_stock + $4 \
         WHERE tenant_id = $1 AND item_id = $2 AND sku = $3 AND NOT unlimited",
        params![tenant, item_id, sku, qty],
    )
    .await?;
    Ok(())
}

impl Store {
    /// Live stock of every variant of a product (SPEC stock results), in variant order.
    pub async fn stock(&self, tenant: TenantId, item_id: &str) -> Result<Vec<StockLevel>> {
        let mut tx = self.read().await?;
        let rows = tx
            .query(
                "SELECT sku, qty_in_stock, unlimited FROM product_variant WHERE tenant_id = $1 AND item_id = $2 ORDER BY position",
                params![tenant, item_id],
            )
            .await?;
        rows.iter()
            .map(|r| {
                Ok(StockLevel {
                    sku: r.text(0)?,
                    qty_in_stock: r.i64(1)?,
                    unlimited: r.bool(2)?,
                })
            })
            .collect()
    }

    /// Sets a variant's stock (owner restock), bumping the content version so every node's
    /// pages show it. Returns `NotFound` for an unknown variant.
    pub async fn set_stock(
        &self,
        tenant: TenantId,
        item_id: &str,
        sku: &str,
        qty: i64,
        unlimited: bool,
    ) -> Result<()> {
        self.set_stock_notifying(tenant, item_id, sku, qty, unlimited, None)
            .await
            .map(|_| ())
    }

    /// [`Store::set_stock`], and when `notice` is given and the variant was sold out and no
    /// longer is, its waiting restock sign-ups told in the same transaction (each once, see
    /// [`crate::repo::restock::take_waiting_in`]). Returns how many were told. The
    /// variant's row is locked before its old level is read, so of two raises at once only
    /// the one that finds it sold out sends.
    pub async fn set_stock_notifying(
        &self,
        tenant: TenantId,
        item_id: &str,
        sku: &str,
        qty: i64,
        unlimited: bool,
        notice: Option<&RestockNotice<'_>>,
    ) -> Result<u64> {
        if qty < 0 {
            return Err(StoreError::Invalid("stock must not be negative".into()));
        }
        let mut tx = self.write().await?;
        let old = old_levels_in(&mut tx, tenant, item_id, Some(sku)).await?;
        let Some(&(_, was_qty, was_unlimited)) = old.first() else {
            return Err(StoreError::NotFound(format!(
                "variant {sku} of item {item_id}"
            )));
        };
        tx.execute(
            "UPDATE product_variant SET qty_in_stock = $4, unlimited = $5 WHERE tenant_id = $1 AND item_id = $2 AND sku = $3",
            params![tenant, item_id, sku, qty, unlimited],
        )
        .await?;
        let told = match notice {
            Some(notice) if sold_out(was_qty, was_unlimited) && !sold_out(qty, unlimited) => {
                notify_restocked_in(&mut tx, tenant, item_id, sku, notice).await?
            }
            _ => 0,
        };
        // Pages show the owner's stock figures (sold out, "only N left"), so a restock is a
        // content change on every node; carts and orders move stock without one (see the
        // module doc of `commerce`).
        self.commit_change(tx, tenant, Change::Content).await?;
        Ok(told)
    }

    /// Tenants with carts that hold stock and last changed before `updated_before_ms`: what
    /// the abandoned-cart sweep must visit.
    pub async fn tenants_with_abandoned_carts(
        &self,
        updated_before_ms: i64,
    ) -> Result<Vec<TenantId>> {
        let mut tx = self.read().await?;
        let rows = tx
            .query(
                "SELECT DISTINCT tenant_id FROM cart WHERE held AND updated_ms < $1 ORDER BY tenant_id",
                params![updated_before_ms],
            )
            .await?;
        rows.iter().map(|r| Ok(TenantId(r.i64(0)?))).collect()
    }

    /// Gives back the stock held by this tenant's carts that were not purchased and last
    /// changed before `updated_before_ms` (epoch ms; pass `now_ms() - hold time`); returns
    /// how many carts let go. The carts and their entries stay (a visitor who comes back
    /// finds the cart as they left it); their entries are marked not held, and a later
    /// change or checkout takes the units again if they are still there.
    ///
    /// Each cart is released in its own transaction, after locking it with the idle test
    /// repeated, so a visitor changing the cart at that moment either wins (the cart is no
    /// longer idle and is skipped) or finds it released.
    pub async fn release_abandoned_carts(
        &self,
        tenant: TenantId,
        updated_before_ms: i64,
    ) -> Result<u64> {
        let candidates: Vec<String> = {
            let mut tx = self.read().await?;
            tx.query(
                "SELECT id FROM cart WHERE tenant_id = $1 AND held AND NOT purchased AND updated_ms < $2 ORDER BY id",
                params![tenant, updated_before_ms],
            )
            .await?
            .iter()
            .map(|r| r.text(0))
            .collect::<Result<_>>()?
        };
        let mut released = 0;
        for cart in candidates {
            let mut tx = self.write().await?;
            let locked = tx
                .execute(
                    "UPDATE cart SET held = FALSE WHERE tenant_id = $1 AND id = $2 AND held AND NOT purchased AND updated_ms < $3",
                    params![tenant, cart.as_str(), updated_before_ms],
                )
                .await?;
            if locked == 0 {
                tx.rollback().await?;
                continue;
            }
            let entries = tx
                .query(
                    "UPDATE cart_entry SET held = FALSE WHERE tenant_id = $1 AND cart_id = $2 AND held RETURNING item_id, sku, quantity",
                    params![tenant, cart.as_str()],
                )
                .await?;
            return_rows(&mut tx, tenant, entries).await?;
            tx.commit().await?;
            released += 1;
        }
        Ok(released)
    }
}
