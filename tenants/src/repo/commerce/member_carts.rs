//! A signed-in member's cart, which follows them from device to device: at sign-in the
//! visitor's cart becomes the member's (or, when the member has one already, its entries
//! move into it), and at sign-out the visitor may keep a copy.
//!
//! Units stay taken from stock while they move: an entry moved into the member's cart gives
//! its units back and the member's cart takes them again in the same transaction, so an
//! entry the stock can no longer cover (its hold had lapsed) is left out rather than sold
//! twice.

use super::carts::{add_in, finish, load_cart, new_cart, open_for_change};
use super::{AddToCart, Cart, CartKind};
use crate::error::{Result, StoreError};
use crate::ids::TenantId;
use crate::params;
use crate::sql::Tx;
use crate::store::Store;

use super::stock::return_stock;

/// The member's open shopping cart, the most recently changed if several.
async fn member_cart_id(tx: &mut Tx, tenant: TenantId, user_id: &str) -> Result<Option<String>> {
    let row = tx
        .query_opt(
            "SELECT id FROM cart WHERE tenant_id = $1 AND site_user_id = $2 AND kind = 'cart' \
             AND NOT purchased ORDER BY updated_ms DESC, id LIMIT 1",
            params![tenant, user_id],
        )
        .await?;
    row.map(|r| r.text(0)).transpose()
}

/// What an entry asks for, to add it again elsewhere.
fn again(e: &super::CartEntry) -> AddToCart {
    AddToCart {
        item_id: e.item_id.clone(),
        sku: e.sku.clone(),
        quantity: e.quantity,
        additional_fields: e.additional_fields.clone(),
        single_service: false,
        store_currency: e.currency.clone(),
    }
}

impl Store {
    /// The cart a member has once signed in: `visitor_cart` (the cart the visitor had
    /// before signing in, if open and nobody else's) becomes theirs, or its entries move
    /// into the cart they already have. `None` when there is neither.
    pub async fn sign_in_cart(
        &self,
        tenant: TenantId,
        user_id: &str,
        visitor_cart: Option<&str>,
    ) -> Result<Option<Cart>> {
        let mut tx = self.write().await?;
        let result = async {
            let mine = member_cart_id(&mut tx, tenant, user_id).await?;
            let visitor = match visitor_cart {
                Some(id) => tx
                    .query_opt(
                        "SELECT id FROM cart WHERE tenant_id = $1 AND id = $2 AND kind = 'cart' \
                         AND NOT purchased AND (site_user_id IS NULL OR site_user_id = $3)",
                        params![tenant, id, user_id],
                    )
                    .await?
                    .map(|r| r.text(0))
                    .transpose()?,
                None => None,
            };
            let id = match (mine, visitor) {
                (None, None) => return Ok(None),
                (Some(m), None) => m,
                (Some(m), Some(v)) if m == v => m,
                (None, Some(v)) => {
                    tx.execute(
                        "UPDATE cart SET site_user_id = $3 WHERE tenant_id = $1 AND id = $2",
                        params![tenant, v.as_str(), user_id],
                    )
                    .await?;
                    v
                }
                (Some(m), Some(v)) => {
                    let mut from = open_for_change(&mut tx, tenant, &v).await?;
                    let mut into = open_for_change(&mut tx, tenant, &m).await?;
                    for e in std::mem::take(&mut from.entries) {
                        if e.held {
                            return_stock(&mut tx, tenant, &e.item_id, &e.sku, e.quantity).await?;
                        }
                        tx.execute(
                            "DELETE FROM cart_entry WHERE tenant_id = $1 AND id = $2",
                            params![tenant, e.id.as_str()],
                        )
                        .await?;
                        match add_in(&mut tx, tenant, &mut into, &again(&e)).await {
                            Ok(_) => {}
                            // Stock or a rule says no, or the product is no longer for
                            // sale: that entry stays behind, given back.
                            Err(StoreError::OutOfStock { .. })
                            | Err(StoreError::Refused(_))
                            | Err(StoreError::NotFound(_)) => {}
                            Err(e) => return Err(e),
                        }
                    }
                    m
                }
            };
            load_cart(&mut tx, tenant, &id).await
        }
        .await;
        finish(tx, result).await
    }

    /// A new visitor's shopping cart holding what the member's cart holds (as far as stock
    /// allows; each entry takes its units again): what a member keeps after signing out
    /// with `cloneCart`. `None` when the member has no open cart.
    pub async fn clone_member_cart(&self, tenant: TenantId, user_id: &str) -> Result<Option<Cart>> {
        let mut tx = self.write().await?;
        let result = async {
            let Some(id) = member_cart_id(&mut tx, tenant, user_id).await? else {
                return Ok(None);
            };
            let Some(member) = load_cart(&mut tx, tenant, &id).await? else {
                return Ok(None);
            };
            let mut copy = new_cart(&mut tx, tenant, CartKind::Cart, true).await?;
            for e in &member.entries {
                match add_in(&mut tx, tenant, &mut copy, &again(e)).await {
                    Ok(_)
                    | Err(StoreError::OutOfStock { .. })
                    | Err(StoreError::Refused(_))
                    | Err(StoreError::NotFound(_)) => {}
                    Err(e) => return Err(e),
                }
            }
            load_cart(&mut tx, tenant, &copy.id).await
        }
        .await;
        finish(tx, result).await
    }
}
