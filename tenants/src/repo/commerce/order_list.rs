//! The owner's list of orders: filters, search (number, email, name) and keyset paging on
//! (placed time, id), newest first, over the `customer_order_by_placed` index.

use serde::{Deserialize, Serialize};

use crate::commerce::order_state::{Fulfilment, Payment};
use crate::error::{Result, StoreError};
use crate::ids::TenantId;
use crate::params;
use crate::sql::{Backend, SqlValue, Tx};
use crate::store::Store;

/// The most orders one page holds.
pub const MAX_ORDER_PAGE: i64 = 200;
/// The longest search string taken.
pub const MAX_ORDER_SEARCH_CHARS: usize = 200;

/// What the owner's list asks for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OrderQuery {
    /// An order number (`12` or `#12`), or part of an email or name (any case).
    pub q: Option<String>,
    /// Only orders whose payment stands so.
    pub payment: Option<Payment>,
    /// Only orders whose shipping stands so.
    pub fulfilment: Option<Fulfilment>,
    /// Only cancelled orders (true) or only the others (false).
    pub cancelled: Option<bool>,
    /// Placed at or after (epoch ms).
    pub from_ms: Option<i64>,
    /// Placed before (epoch ms).
    pub to_ms: Option<i64>,
    /// The previous page's `next` cursor.
    pub after: Option<String>,
    /// Orders per page, 1..=[`MAX_ORDER_PAGE`].
    pub limit: i64,
}

/// One row of the owner's list.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OrderSummary {
    /// 24-hex id.
    pub id: String,
    /// The order number.
    pub number: i64,
    /// When it was placed (epoch ms).
    pub placed_ms: i64,
    /// The buyer's email.
    pub email: String,
    /// The billing (else shipping) name, "".
    pub name: String,
    /// ISO currency code.
    pub currency: String,
    /// The grand total, minor units.
    pub total_minor: i64,
    /// Where its payment stands.
    pub payment: Payment,
    /// Where its shipping stands.
    pub fulfilment: Fulfilment,
    /// It was cancelled.
    pub cancelled: bool,
    /// Units ordered.
    pub item_count: i64,
    /// Placed in test mode.
    pub test_mode: bool,
}

/// A page of the list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OrderPage {
    /// Newest first.
    pub orders: Vec<OrderSummary>,
    /// The cursor of the next page; `None` on the last.
    pub next: Option<String>,
}

/// `placed_ms.id`, the keyset cursor.
fn cursor(o: &OrderSummary) -> String {
    format!("{}.{}", o.placed_ms, o.id)
}

fn parse_cursor(s: &str) -> Result<(i64, String)> {
    let bad = || StoreError::Invalid("after: not a cursor this list gave".into());
    let (ms, id) = s.split_once('.').ok_or_else(bad)?;
    let ms: i64 = ms.parse().map_err(|_| bad())?;
    if id.is_empty() || id.len() > 64 || !id.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return Err(bad());
    }
    Ok((ms, id.to_owned()))
}

/// `%` `_` `\` escaped for `LIKE … ESCAPE '\'`.
fn like_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    for c in s.chars() {
        if matches!(c, '%' | '_' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The page query's SQL and parameters (`$1` tenant).
fn page_sql(tenant: TenantId, q: &OrderQuery, backend: Backend) -> Result<(String, Vec<SqlValue>)> {
    if !(1..=MAX_ORDER_PAGE).contains(&q.limit) {
        return Err(StoreError::Invalid(format!(
            "limit: from 1 to {MAX_ORDER_PAGE}"
        )));
    }
    let mut p = params![tenant];
    let mut sql = String::from(
        "SELECT id, order_number, created_ms, customer_email, customer_name, currency, grand_total_minor, \
         status, fulfilment, cancelled_ms, test_mode, \
         (SELECT CAST(COALESCE(SUM(l.quantity), 0) AS BIGINT) FROM order_line l WHERE l.tenant_id = $1 AND l.order_id = customer_order.id) \
         FROM customer_order WHERE tenant_id = $1 AND order_number > 0",
    );
    let arg = |p: &mut Vec<SqlValue>, v: SqlValue| {
        p.push(v);
        format!("${}", p.len())
    };
    if let Some(text) = q.q.as_deref().map(str::trim).filter(|t| !t.is_empty()) {
        if text.chars().count() > MAX_ORDER_SEARCH_CHARS || text.chars().any(char::is_control) {
            return Err(StoreError::Invalid(format!(
                "q: at most {MAX_ORDER_SEARCH_CHARS} characters"
            )));
        }
        let pattern = format!("%{}%", like_escape(&text.to_lowercase()));
        let like = arg(&mut p, pattern.into());
        let number = text
            .strip_prefix('#')
            .unwrap_or(text)
            .parse::<i64>()
            .ok()
            .filter(|n| *n > 0);
        sql.push_str(&format!(
            " AND (lower(customer_email) LIKE {like} ESCAPE '\\' OR lower(customer_name) LIKE {like} ESCAPE '\\'"
        ));
        if let Some(n) = number {
            let n = arg(&mut p, n.into());
            sql.push_str(&format!(" OR order_number = {n}"));
        }
        sql.push(')');
    }
    // On SQLite `+status`, not `status`: the list walks `customer_order_by_placed` newest
    // first and stops at a page; SQLite took the dashboard's `customer_order_by_state` for
    // these filters, finding every order in that state and sorting them all. (PostgreSQL
    // plans the plain column well and the other badly.)
    let plus = if backend == Backend::Sqlite { "+" } else { "" };
    if let Some(pay) = q.payment {
        let a = arg(&mut p, pay.as_str().into());
        sql.push_str(&format!(" AND {plus}status = {a}"));
    }
    if let Some(f) = q.fulfilment {
        let a = arg(&mut p, f.as_str().into());
        sql.push_str(&format!(" AND {plus}fulfilment = {a}"));
    }
    match q.cancelled {
        Some(true) => sql.push_str(" AND cancelled_ms IS NOT NULL"),
        Some(false) => sql.push_str(" AND cancelled_ms IS NULL"),
        None => {}
    }
    if let Some(from) = q.from_ms {
        let a = arg(&mut p, from.into());
        sql.push_str(&format!(" AND created_ms >= {a}"));
    }
    if let Some(to) = q.to_ms {
        let a = arg(&mut p, to.into());
        sql.push_str(&format!(" AND created_ms < {a}"));
    }
    if let Some(after) = &q.after {
        let (ms, id) = parse_cursor(after)?;
        let a = arg(&mut p, ms.into());
        let b = arg(&mut p, id.into());
        sql.push_str(&format!(" AND (created_ms, id) < ({a}, {b})"));
    }
    let n = arg(&mut p, (q.limit + 1).into());
    sql.push_str(&format!(" ORDER BY created_ms DESC, id DESC LIMIT {n}"));
    Ok((sql, p))
}

async fn page_in(tx: &mut Tx, tenant: TenantId, q: &OrderQuery) -> Result<OrderPage> {
    let (sql, p) = page_sql(tenant, q, tx.backend())?;
    let rows = tx.query(&sql, p).await?;
    let mut orders = Vec::with_capacity(rows.len());
    for r in &rows {
        orders.push(OrderSummary {
            id: r.text(0)?,
            number: r.i64(1)?,
            placed_ms: r.i64(2)?,
            email: r.text(3)?,
            name: r.text(4)?,
            currency: r.text(5)?,
            total_minor: r.i64(6)?,
            payment: Payment::parse(&r.text(7)?)
                .ok_or_else(|| StoreError::decode("an order's payment state"))?,
            fulfilment: Fulfilment::parse(&r.text(8)?)
                .ok_or_else(|| StoreError::decode("an order's fulfilment state"))?,
            cancelled: r.opt_i64(9)?.is_some(),
            test_mode: r.bool(10)?,
            item_count: r.i64(11)?,
        });
    }
    let next = if orders.len() as i64 > q.limit {
        orders.truncate(q.limit as usize);
        orders.last().map(cursor)
    } else {
        None
    };
    Ok(OrderPage { orders, next })
}

impl Store {
    /// A page of the owner's order list (see [`OrderQuery`]). `Invalid` for a limit out of
    /// range, a search string too long or a cursor this list did not give.
    pub async fn order_page(&self, tenant: TenantId, q: &OrderQuery) -> Result<OrderPage> {
        let mut tx = self.read().await?;
        page_in(&mut tx, tenant, q).await
    }

    /// The database's plan for [`Store::order_page`]'s query, one line per step
    /// (`EXPLAIN` on PostgreSQL, `EXPLAIN QUERY PLAN` on SQLite): what the tests read to
    /// check the list uses its index.
    pub async fn explain_order_page(&self, tenant: TenantId, q: &OrderQuery) -> Result<String> {
        let mut tx = self.read().await?;
        let (sql, p) = page_sql(tenant, q, tx.backend())?;
        let lines = match tx.backend() {
            Backend::Postgres => tx
                .query(&format!("EXPLAIN {sql}"), p)
                .await?
                .iter()
                .map(|r| r.text(0))
                .collect::<Result<Vec<_>>>()?,
            Backend::Sqlite => tx
                .query(&format!("EXPLAIN QUERY PLAN {sql}"), p)
                .await?
                .iter()
                .map(|r| r.text(3))
                .collect::<Result<Vec<_>>>()?,
        };
        Ok(lines.join("\n"))
    }

    /// Adds `count` placeholder orders to a tenant (numbers after its last, one a minute
    /// back from `newest_ms`, every tenth awaiting payment), in one statement, and updates
    /// the planner's statistics: for the list's 100,000-order check. Not for production
    /// data: the orders have no lines and no cart.
    #[doc(hidden)]
    pub async fn seed_orders(&self, tenant: TenantId, count: i64, newest_ms: i64) -> Result<()> {
        let mut tx = self.write().await?;
        let base = tx
            .query_one(
                "SELECT COALESCE(MAX(order_number), 0) FROM customer_order WHERE tenant_id = $1",
                params![tenant],
            )
            .await?
            .i64(0)?;
        tx.execute(
            "INSERT INTO customer_order (tenant_id, id, order_number, cart_id, created_ms, currency, subtotal_minor, \
             tax_minor, shipping_minor, discount_minor, grand_total_minor, customer_email, status, test_mode, \
             customer_name) \
             WITH RECURSIVE n(i) AS (SELECT CAST(1 AS BIGINT) UNION ALL SELECT i + 1 FROM n WHERE i < CAST($2 AS BIGINT)) \
             SELECT CAST($1 AS BIGINT), 'seed' || CAST(i + $3 AS TEXT), i + $3, 'seedcart' || CAST(i + $3 AS TEXT), \
             $4 - i * 60000, 'USD', 1000, 0, 0, 0, 1000, 'buyer' || CAST(i AS TEXT) || '@seed.test', \
             CASE WHEN i % 10 = 0 THEN 'awaiting-payment' ELSE 'paid' END, FALSE, 'Seed Buyer' FROM n",
            params![tenant, count, base, newest_ms],
        )
        .await?;
        super::customer_summary::rebuild(&mut tx, tenant).await?;
        if tx.backend() == Backend::Postgres {
            tx.batch("ANALYZE customer_order").await?;
        } else {
            tx.batch("ANALYZE").await?;
        }
        tx.commit().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_and_bad_ones_are_refused() {
        let o = OrderSummary {
            id: "abc123".into(),
            number: 1,
            placed_ms: 1700,
            email: String::new(),
            name: String::new(),
            currency: "USD".into(),
            total_minor: 0,
            payment: Payment::Paid,
            fulfilment: Fulfilment::Unfulfilled,
            cancelled: false,
            item_count: 0,
            test_mode: false,
        };
        assert_eq!(parse_cursor(&cursor(&o)).unwrap(), (1700, "abc123".into()));
        for bad in ["", "1700", "x.abc", "1700.", "1700.a'b", "1700.a.b"] {
            assert!(parse_cursor(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn search_wildcards_are_literal() {
        assert_eq!(like_escape("50%_off\\"), "50\\%\\_off\\\\");
    }
}
