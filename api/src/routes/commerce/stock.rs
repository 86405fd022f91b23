//! `GET /api/commerce/inventory/stock/?itemId=` → `{results: [{sku, unlimited, qtyInStock}]}`
//! (SPEC.md §7). Live levels, as this visitor can buy: units their own cart holds count as
//! in stock for them, so SPEC's check ("some result is unlimited, or its qtyInStock exceeds
//! the quantity already in the cart") tells whether they may add one more.

use axum::extract::State;
use serde::Serialize;
use tenants::CartKind;
use utoipa::ToSchema;

use super::cart::NO_PRODUCT;
use crate::http::call::Call;
use crate::http::error::store_failure;
use crate::http::{ApiError, Json};
use crate::openapi::{COMMERCE, VisitorErrors};
use crate::server::state::App;

/// A product's stock, per variant.
#[derive(Serialize, ToSchema)]
pub struct Stock {
    pub results: Vec<StockResult>,
}

/// One variant's stock, as this visitor can buy it.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StockResult {
    pub sku: String,
    /// Stock is not tracked.
    pub unlimited: bool,
    /// Units this visitor can have (their own cart's held units count as in stock).
    pub qty_in_stock: i64,
}

/// `GET /api/commerce/inventory/stock?itemId=`: a product's live stock, per variant.
///
/// Units the visitor's own cart holds count as in stock for them. 404 for an item that is
/// not a product this store shows.
#[utoipa::path(get, path = "/api/commerce/inventory/stock", tag = COMMERCE,
    params(("itemId" = String, Query, min_length = 1, description = "The product item.")),
    responses((status = 200, body = Stock, description = "The product's variants."),
        VisitorErrors))]
pub async fn stock(State(app): State<App>, call: Call) -> Result<Json<Stock>, ApiError> {
    let item = call
        .query("itemId")
        .filter(|i| !i.trim().is_empty())
        .ok_or_else(|| ApiError::field("itemId", "Required"))?;
    // A product the site does not show (hidden, scheduled for later, in a store that is
    // off) has no stock to tell.
    if !call.site.content.products.contains_key(item.trim()) {
        return Err(ApiError::not_found(NO_PRODUCT));
    }
    let t = call.site.tenant.id;
    let mut levels = app
        .store
        .stock(t, item.trim())
        .await
        .map_err(|e| store_failure(&e))?;
    if levels.is_empty() {
        return Err(ApiError::not_found(NO_PRODUCT));
    }
    if let Some(cookie) = call.cart_cookie()
        && let Some(cart) = app
            .store
            .cart(t, &cookie.id)
            .await
            .map_err(|e| store_failure(&e))?
        && !cart.purchased
        && cart.kind == CartKind::Cart
    {
        for e in cart
            .entries
            .iter()
            .filter(|e| e.held && e.item_id == item.trim())
        {
            if let Some(l) = levels.iter_mut().find(|l| l.sku == e.sku && !l.unlimited) {
                l.qty_in_stock += e.quantity;
            }
        }
    }
    let results = levels
        .into_iter()
        .map(|l| StockResult {
            sku: l.sku,
            unlimited: l.unlimited,
            qty_in_stock: l.qty_in_stock,
        })
        .collect();
    Ok(Json(Stock { results }))
}

/// `GET /api/commerce/inventory/stock/?itemId=`: the same, with SPEC's trailing slash.
#[utoipa::path(get, path = "/api/commerce/inventory/stock/", tag = COMMERCE,
    params(("itemId" = String, Query, min_length = 1, description = "The product item.")),
    responses((status = 200, body = Stock, description = "The product's variants."),
        VisitorErrors))]
pub async fn stock_slash(state: State<App>, call: Call) -> Result<Json<Stock>, ApiError> {
    stock(state, call).await
}
