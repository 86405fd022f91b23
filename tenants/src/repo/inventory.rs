//! The owner's inventory: every product variant's stock in one list, with the restock
//! sign-ups waiting for it, and many variants' stock set in one transaction.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::cache::Change;
use crate::error::Result;
use crate::ids::TenantId;
use crate::params;
use crate::repo::commerce::stock::old_levels_in;
use crate::repo::restock::{RestockNotice, notify_restocked_in, sold_out};
use crate::sql::{Row, SqlValue};
use crate::store::Store;

/// The most rows one page of the inventory holds.
pub const MAX_PAGE: usize = 200;

/// One variant as the inventory shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InventoryRow {
    /// The product's item id.
    pub item_id: String,
    /// The variant's SKU.
    pub sku: String,
    /// The product's title.
    pub product_title: String,
    /// The variant's options (`{"Size": "M"}`).
    pub attributes: BTreeMap<String, String>,
    /// Units in stock; `None` when the variant is unlimited.
    pub stock: Option<i64>,
    /// Restock sign-ups not yet told.
    pub restock_waiting: i64,
    /// The variant's place among its product's (the page's key).
    pub position: i64,
}

/// Where a page of the inventory starts: after this row (title, item id, position).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InventoryCursor(pub String, pub String, pub i64);

/// Which variants, and how many.
#[derive(Clone, Debug, Default)]
pub struct InventoryQuery {
    /// Words the product title or the SKU contains (case-insensitive for ASCII letters).
    pub q: Option<String>,
    /// Only variants with counted stock at or under this.
    pub low_stock: Option<i64>,
    /// After this row.
    pub after: Option<InventoryCursor>,
    /// At most this many (1-[`MAX_PAGE`]).
    pub limit: usize,
}

/// A page of the inventory: rows by product title, product, then variant order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InventoryPage {
    /// The rows.
    pub rows: Vec<InventoryRow>,
    /// Where the next page starts, when there is one.
    pub next: Option<InventoryCursor>,
}

/// A variant's new stock.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StockUpdate {
    /// The product's item id.
    pub item_id: String,
    /// The variant's SKU.
    pub sku: String,
    /// Units in stock (0 or more); ignored when `unlimited`.
    pub qty: i64,
    /// Never sold out.
    pub unlimited: bool,
}

const COLUMNS: &str = "v.item_id, v.sku, i.title, v.attributes, v.qty_in_stock, v.unlimited, \
     v.position, (SELECT COUNT(*) FROM restock_signup r WHERE r.tenant_id = $1 \
     AND r.item_id = v.item_id AND r.sku = v.sku AND r.notified_ms IS NULL)";

fn row_of(r: &Row) -> Result<InventoryRow> {
    let attributes: BTreeMap<String, serde_json::Value> = r.json(3)?;
    Ok(InventoryRow {
        item_id: r.text(0)?,
        sku: r.text(1)?,
        product_title: r.text(2)?,
        attributes: attributes
            .into_iter()
            .map(|(k, v)| {
                let v = match v {
                    serde_json::Value::String(s) => s,
                    other => other.to_string(),
                };
                (k, v)
            })
            .collect(),
        stock: (!r.bool(5)?).then(|| r.i64(4)).transpose()?,
        position: r.i64(6)?,
        restock_waiting: r.i64(7)?,
    })
}

/// `text` as a `LIKE` pattern that finds it anywhere: lower-cased, `\`, `%` and `_`
/// escaped.
pub(crate) fn contains_pattern(text: &str) -> String {
    let mut p = String::from("%");
    for c in text.trim().to_lowercase().chars() {
        if matches!(c, '\\' | '%' | '_') {
            p.push('\\');
        }
        p.push(c);
    }
    p.push('%');
    p
}

impl Store {
    /// A page of the site's variants ([`InventoryQuery`]).
    pub async fn inventory(&self, tenant: TenantId, q: &InventoryQuery) -> Result<InventoryPage> {
        let limit = q.limit.clamp(1, MAX_PAGE);
        let mut values: Vec<SqlValue> = params![tenant];
        let mut sql = format!(
            "SELECT {COLUMNS} FROM product_variant v JOIN item i ON i.tenant_id = $1 \
             AND i.id = v.item_id WHERE v.tenant_id = $1"
        );
        fn next(values: &mut Vec<SqlValue>, v: SqlValue) -> usize {
            values.push(v);
            values.len()
        }
        if let Some(low) = q.low_stock {
            let n = next(&mut values, low.into());
            sql.push_str(&format!(" AND NOT v.unlimited AND v.qty_in_stock <= ${n}"));
        }
        if let Some(text) = q.q.as_deref().filter(|t| !t.trim().is_empty()) {
            let n = next(&mut values, contains_pattern(text).into());
            sql.push_str(&format!(
                " AND (LOWER(i.title) LIKE ${n} ESCAPE '\\' OR LOWER(v.sku) LIKE ${n} ESCAPE '\\')"
            ));
        }
        if let Some(InventoryCursor(title, item, position)) = &q.after {
            let a = next(&mut values, title.as_str().into());
            let b = next(&mut values, item.as_str().into());
            let c = next(&mut values, (*position).into());
            sql.push_str(&format!(
                " AND (i.title > ${a} OR (i.title = ${a} AND (v.item_id > ${b} \
                 OR (v.item_id = ${b} AND v.position > ${c}))))"
            ));
        }
        let n = next(&mut values, (limit as i64 + 1).into());
        sql.push_str(&format!(
            " ORDER BY i.title, v.item_id, v.position LIMIT ${n}"
        ));
        let mut tx = self.read().await?;
        let rows = tx.query(&sql, values).await?;
        tx.commit().await?;
        let mut rows = rows.iter().map(row_of).collect::<Result<Vec<_>>>()?;
        let next = if rows.len() > limit {
            rows.truncate(limit);
            rows.last()
                .map(|r| InventoryCursor(r.product_title.clone(), r.item_id.clone(), r.position))
        } else {
            None
        };
        Ok(InventoryPage { rows, next })
    }

    /// The inventory rows of these variants (of this site), in the order asked; a variant
    /// the site does not have is left out.
    pub async fn inventory_of(
        &self,
        tenant: TenantId,
        variants: &[(String, String)],
    ) -> Result<Vec<InventoryRow>> {
        let mut tx = self.read().await?;
        let mut out = Vec::with_capacity(variants.len());
        for (item, sku) in variants {
            let row = tx
                .query_opt(
                    &format!(
                        "SELECT {COLUMNS} FROM product_variant v JOIN item i ON i.tenant_id = $1 \
                         AND i.id = v.item_id WHERE v.tenant_id = $1 AND v.item_id = $2 AND v.sku = $3"
                    ),
                    params![tenant, item.as_str(), sku.as_str()],
                )
                .await?;
            if let Some(r) = row {
                out.push(row_of(&r)?);
            }
        }
        tx.commit().await?;
        Ok(out)
    }

    /// Sets the stock of many variants in one transaction; each raised from sold out tells
    /// its waiting restock sign-ups in it when `notice` is given (as
    /// [`Store::set_stock_notifying`] does for one). The variants' rows are locked in
    /// (item, sku) order, as every stock change locks them. `Ok(Err(i))` when `updates[i]`
    /// names no variant of this site (or a negative stock): nothing is changed. Otherwise
    /// how many sign-ups each update told.
    pub async fn set_stocks_notifying(
        &self,
        tenant: TenantId,
        updates: &[StockUpdate],
        notice: Option<&RestockNotice<'_>>,
    ) -> Result<std::result::Result<Vec<u64>, usize>> {
        if let Some(i) = updates.iter().position(|u| u.qty < 0) {
            return Ok(Err(i));
        }
        let mut order: Vec<usize> = (0..updates.len()).collect();
        order.sort_by(|&a, &b| {
            (&updates[a].item_id, &updates[a].sku).cmp(&(&updates[b].item_id, &updates[b].sku))
        });
        let mut tx = self.write().await?;
        let mut told = vec![0; updates.len()];
        for i in order {
            let u = &updates[i];
            let old = old_levels_in(&mut tx, tenant, &u.item_id, Some(&u.sku)).await?;
            let Some(&(_, was_qty, was_unlimited)) = old.first() else {
                tx.rollback().await?;
                return Ok(Err(i));
            };
            let qty = if u.unlimited { was_qty.max(0) } else { u.qty };
            tx.execute(
                "UPDATE product_variant SET qty_in_stock = $4, unlimited = $5 \
                 WHERE tenant_id = $1 AND item_id = $2 AND sku = $3",
                params![tenant, u.item_id.as_str(), u.sku.as_str(), qty, u.unlimited],
            )
            .await?;
            if let Some(notice) = notice
                && sold_out(was_qty, was_unlimited)
                && !sold_out(qty, u.unlimited)
            {
                told[i] = notify_restocked_in(&mut tx, tenant, &u.item_id, &u.sku, notice).await?;
            }
        }
        self.commit_change(tx, tenant, Change::Content).await?;
        Ok(Ok(told))
    }
}

/// A product as the owner's product list shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProductRow {
    /// The item id.
    pub id: String,
    /// The title.
    pub title: String,
    /// What it is: [`PRODUCT_KINDS`].
    pub kind: String,
    /// Its lowest price now (the sale price of a variant on sale), minor units; 0 without
    /// variants.
    pub price_minor: i64,
    /// Whether a variant is on sale.
    pub on_sale: bool,
    /// Units in stock over its variants; `None` when one is unlimited.
    pub stock: Option<i64>,
    /// Whether the site shows it now: its store (collection) is enabled and the product is
    /// visible, or scheduled and its time has come.
    pub visible: bool,
    /// Its own visibility (`visible`, `hidden`, `scheduled`).
    pub visibility: crate::model::Visibility,
    /// When a scheduled product shows from (its `publishOn`, epoch ms); `None` otherwise.
    pub publish_on_ms: Option<i64>,
}

/// The kinds of product: `productType` 1-4, and a subscription (`isSubscribable`).
pub const PRODUCT_KINDS: [&str; 5] = [
    "physical",
    "digital",
    "service",
    "gift-card",
    "subscription",
];

/// Which products, and how many: by title, then id.
#[derive(Clone, Debug, Default)]
pub struct ProductQuery {
    /// Words the title contains (case-insensitive for ASCII letters).
    pub q: Option<String>,
    /// Only this kind ([`PRODUCT_KINDS`]).
    pub kind: Option<String>,
    /// After this product: (title, id).
    pub after: Option<(String, String)>,
    /// At most this many (1-[`MAX_PAGE`]).
    pub limit: usize,
}

/// A subscription product's stored `structuredContent` (compact JSON, as the store writes
/// it) holds this.
const SUBSCRIBABLE: &str = "%\"isSubscribable\":true%";

impl Store {
    /// A page of the site's products (items of its stores) and where the next starts.
    pub async fn product_rows(
        &self,
        tenant: TenantId,
        q: &ProductQuery,
    ) -> Result<(Vec<ProductRow>, Option<(String, String)>)> {
        fn next(values: &mut Vec<SqlValue>, v: SqlValue) -> usize {
            values.push(v);
            values.len()
        }
        let limit = q.limit.clamp(1, MAX_PAGE);
        let mut values: Vec<SqlValue> =
            params![tenant, crate::store_setup::PRODUCTS_TYPE, SUBSCRIBABLE];
        let mut sql = String::from(
            "SELECT i.id, i.title, COALESCE(i.product_type, 1), \
             CASE WHEN i.structured_content LIKE $3 THEN 1 ELSE 0 END, c.enabled, \
             MIN(CASE WHEN v.on_sale THEN v.sale_price_minor ELSE v.price_minor END), \
             MAX(CASE WHEN v.on_sale THEN 1 ELSE 0 END), \
             CAST(SUM(CASE WHEN v.unlimited THEN 0 ELSE v.qty_in_stock END) AS BIGINT), \
             MAX(CASE WHEN v.unlimited THEN 1 ELSE 0 END), i.visibility, i.publish_on \
             FROM item i JOIN collection c ON c.tenant_id = $1 AND c.id = i.collection_id \
             LEFT JOIN product_variant v ON v.tenant_id = $1 AND v.item_id = i.id \
             WHERE i.tenant_id = $1 AND c.kind = $2",
        );
        if let Some(text) = q.q.as_deref().filter(|t| !t.trim().is_empty()) {
            let n = next(&mut values, contains_pattern(text).into());
            sql.push_str(&format!(" AND LOWER(i.title) LIKE ${n} ESCAPE '\\'"));
        }
        match q.kind.as_deref() {
            None => {}
            Some("subscription") => sql.push_str(" AND i.structured_content LIKE $3"),
            Some(kind) => {
                let number = PRODUCT_KINDS
                    .iter()
                    .position(|k| *k == kind)
                    .filter(|&p| p < 4)
                    .ok_or_else(|| crate::StoreError::Invalid(format!("no product kind {kind}")))?;
                let n = next(&mut values, (number as i64 + 1).into());
                sql.push_str(&format!(
                    " AND COALESCE(i.product_type, 1) = ${n} AND NOT (i.structured_content LIKE $3)"
                ));
            }
        }
        if let Some((title, id)) = &q.after {
            let a = next(&mut values, title.as_str().into());
            let b = next(&mut values, id.as_str().into());
            sql.push_str(&format!(
                " AND (i.title > ${a} OR (i.title = ${a} AND i.id > ${b}))"
            ));
        }
        let n = next(&mut values, (limit as i64 + 1).into());
        sql.push_str(&format!(
            " GROUP BY i.id, i.title, i.product_type, i.structured_content, c.enabled, i.visibility, i.publish_on \
             ORDER BY i.title, i.id LIMIT ${n}"
        ));
        let mut tx = self.read().await?;
        let rows = tx.query(&sql, values).await?;
        tx.commit().await?;
        let now = crate::ids::now_ms();
        let mut out = rows
            .iter()
            .map(|r| {
                let word = r.text(9)?;
                let publish_on = r.i64(10)?;
                // A word this binary does not know reads as hidden, as the site treats it.
                let visibility = crate::model::Visibility::parse(&word)
                    .unwrap_or(crate::model::Visibility::Hidden);
                let kind = if r.i64(3)? == 1 {
                    "subscription"
                } else {
                    let t = usize::try_from(r.i64(2)?).unwrap_or(1);
                    PRODUCT_KINDS
                        .get(t.wrapping_sub(1))
                        .filter(|_| t <= 4)
                        .copied()
                        .unwrap_or("physical")
                };
                Ok(ProductRow {
                    id: r.text(0)?,
                    title: r.text(1)?,
                    kind: kind.to_owned(),
                    visible: r.bool(4)? && visibility.shows(publish_on, now),
                    visibility,
                    publish_on_ms: (visibility == crate::model::Visibility::Scheduled)
                        .then_some(publish_on),
                    price_minor: r.opt_i64(5)?.unwrap_or(0),
                    on_sale: r.opt_i64(6)? == Some(1),
                    stock: if r.opt_i64(8)? == Some(1) {
                        None
                    } else {
                        Some(r.opt_i64(7)?.unwrap_or(0))
                    },
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let next = if out.len() > limit {
            out.truncate(limit);
            out.last().map(|p| (p.title.clone(), p.id.clone()))
        } else {
            None
        };
        Ok((out, next))
    }
}
