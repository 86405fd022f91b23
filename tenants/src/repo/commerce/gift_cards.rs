//! Gift cards: issued when an order that bought one is paid, spent by later checkouts.

use serde::{Deserialize, Serialize};

use crate::error::{Result, StoreError};
use crate::ids::{TenantId, new_id, now_ms};
use crate::params;
use crate::sql::{Row, Tx};
use crate::store::Store;

/// A gift card of this store.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GiftCard {
    /// `XXXX-XXXX-XXXX-XXXX` from 32 unambiguous letters and digits (80 random bits).
    pub code: String,
    /// ISO currency code.
    pub currency: String,
    /// The amount bought, minor units.
    pub initial_minor: i64,
    /// What is left to spend, minor units.
    pub balance_minor: i64,
    /// The order that bought it.
    pub order_id: String,
    /// The order line that bought it.
    pub line_position: i64,
    /// Epoch ms.
    pub created_ms: i64,
    /// What names it to the owner (24 hex characters; the code is the buyer's).
    #[serde(default)]
    pub id: String,
}

/// 32 letters and digits that cannot be mistaken for one another (no 0, O, 1 or I).
const ALPHABET: &[u8; 32] = b"23456789ABCDEFGHJKLMNPQRSTUVWXYZ";

fn new_code() -> Result<String> {
    let mut raw = [0u8; 16];
    getrandom::fill(&mut raw).map_err(|e| StoreError::Io(format!("random source: {e}")))?;
    let mut code = String::with_capacity(19);
    for (i, b) in raw.iter().enumerate() {
        if i > 0 && i % 4 == 0 {
            code.push('-');
        }
        code.push(ALPHABET[usize::from(b & 31)] as char);
    }
    Ok(code)
}

/// A code as a buyer may type it (any case, spaces or dashes anywhere) in the stored form,
/// or `None` when it cannot be one.
pub fn normalize_gift_card_code(typed: &str) -> Option<String> {
    let chars: Vec<char> = typed
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '-')
        .map(|c| c.to_ascii_uppercase())
        .collect();
    if chars.len() != 16 || !chars.iter().all(|c| c.is_ascii_alphanumeric()) {
        return None;
    }
    let mut code = String::with_capacity(19);
    for (i, c) in chars.iter().enumerate() {
        if i > 0 && i % 4 == 0 {
            code.push('-');
        }
        code.push(*c);
    }
    Some(code)
}

const COLUMNS: &str =
    "code, currency, initial_minor, balance_minor, order_id, line_position, created_ms, id";

fn from_row(r: &Row) -> Result<GiftCard> {
    Ok(GiftCard {
        code: r.text(0)?,
        currency: r.text(1)?,
        initial_minor: r.i64(2)?,
        balance_minor: r.i64(3)?,
        order_id: r.text(4)?,
        line_position: r.i64(5)?,
        created_ms: r.i64(6)?,
        id: r.text(7)?,
    })
}

pub(super) async fn gift_card_in(
    tx: &mut Tx,
    tenant: TenantId,
    code: &str,
) -> Result<Option<GiftCard>> {
    let Some(code) = normalize_gift_card_code(code) else {
        return Ok(None);
    };
    tx.query_opt(
        &format!("SELECT {COLUMNS} FROM gift_card WHERE tenant_id = $1 AND code = $2"),
        params![tenant, code.as_str()],
    )
    .await?
    .as_ref()
    .map(from_row)
    .transpose()
}

/// The statement reading an order's gift cards, for a batch ([`Tx::query_all`]).
pub(super) fn of_order_statement(
    tenant: TenantId,
    order_id: &str,
) -> (String, Vec<crate::sql::SqlValue>) {
    (
        format!(
            "SELECT {COLUMNS} FROM gift_card WHERE tenant_id = $1 AND order_id = $2 ORDER BY line_position, created_ms, code"
        ),
        params![tenant, order_id],
    )
}

/// The gift cards in [`of_order_statement`]'s rows.
pub(super) fn of_order_rows(rows: &[Row]) -> Result<Vec<GiftCard>> {
    rows.iter().map(from_row).collect()
}

/// Issues one gift card worth `amount_minor` for an order line.
pub(super) async fn issue(
    tx: &mut Tx,
    tenant: TenantId,
    currency: &str,
    amount_minor: i64,
    order_id: &str,
    line_position: i64,
) -> Result<()> {
    // 80 random bits: a collision is not expected, but a taken code is simply drawn again.
    for _ in 0..8 {
        let n = tx
            .execute(
                "INSERT INTO gift_card (tenant_id, code, currency, initial_minor, balance_minor, order_id, line_position, created_ms, id) \
                 VALUES ($1, $2, $3, $4, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING",
                params![tenant, new_code()?, currency, amount_minor, order_id, line_position, now_ms(), new_id()],
            )
            .await?;
        if n == 1 {
            return Ok(());
        }
    }
    Err(StoreError::Conflict(
        "could not draw a free gift card code".into(),
    ))
}

/// Spends `amount_minor` of a card for an order; false when the balance no longer covers
/// it (spent meanwhile), in which case nothing changed.
pub(super) async fn spend(
    tx: &mut Tx,
    tenant: TenantId,
    code: &str,
    amount_minor: i64,
    order_id: &str,
) -> Result<bool> {
    let n = tx
        .execute(
            "UPDATE gift_card SET balance_minor = balance_minor - $3 WHERE tenant_id = $1 AND code = $2 AND balance_minor >= $3",
            params![tenant, code, amount_minor],
        )
        .await?;
    if n == 0 {
        return Ok(false);
    }
    tx.execute(
        "INSERT INTO gift_card_use (tenant_id, code, order_id, amount_minor, created_ms) VALUES ($1, $2, $3, $4, $5)",
        params![tenant, code, order_id, amount_minor, now_ms()],
    )
    .await?;
    Ok(true)
}

/// Puts back on their cards what gift cards paid of an order that will not be paid (an
/// expired pay-later order) or was cancelled; the uses stay in the cards' history, marked
/// given back (`refunded_ms`), and are not given back twice.
pub(super) async fn refund_order(tx: &mut Tx, tenant: TenantId, order_id: &str) -> Result<()> {
    let uses = tx
        .query(
            "SELECT code, amount_minor FROM gift_card_use WHERE tenant_id = $1 AND order_id = $2 \
             AND refunded_ms IS NULL ORDER BY code",
            params![tenant, order_id],
        )
        .await?;
    for u in &uses {
        tx.execute(
            "UPDATE gift_card SET balance_minor = balance_minor + $3 WHERE tenant_id = $1 AND code = $2",
            params![tenant, u.text(0)?, u.i64(1)?],
        )
        .await?;
    }
    tx.execute(
        "UPDATE gift_card_use SET refunded_ms = $3 WHERE tenant_id = $1 AND order_id = $2 \
         AND refunded_ms IS NULL",
        params![tenant, order_id, now_ms()],
    )
    .await?;
    Ok(())
}

impl Store {
    /// The gift card with this code (typed in any case, with or without dashes).
    pub async fn gift_card(&self, tenant: TenantId, code: &str) -> Result<Option<GiftCard>> {
        let mut tx = self.read().await?;
        gift_card_in(&mut tx, tenant, code).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_grouped_and_unambiguous() {
        let a = new_code().unwrap();
        assert_eq!(a.len(), 19);
        assert_eq!(a.matches('-').count(), 3);
        assert!(a.chars().all(|c| c == '-' || ALPHABET.contains(&(c as u8))));
        assert!(!a.contains(['0', 'O', '1', 'I']));
        assert_ne!(a, new_code().unwrap());
        assert_eq!(normalize_gift_card_code(&a).as_deref(), Some(a.as_str()));
    }

    #[test]
    fn typed_codes_normalize() {
        assert_eq!(
            normalize_gift_card_code(" abcd efgh-jkmn pqrs ").as_deref(),
            Some("ABCD-EFGH-JKMN-PQRS")
        );
        assert_eq!(normalize_gift_card_code("ABCD-EFGH-JKMN"), None);
        assert_eq!(normalize_gift_card_code("ABCD-EFGH-JKMN-PQR$"), None);
        assert_eq!(normalize_gift_card_code(""), None);
    }
}
