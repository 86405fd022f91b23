//! `GET /api/commerce/inventory/stock/?itemId=` → `{results: [{sku, unlimited, qtyInStock}]}`
//! (SPEC.md §7). Live levels, as this visitor can buy: units their own cart holds count as
//! in stock for them, so SPEC's check ("some result is unlimited, or its qtyInStock exceeds
//! the quantity already in the cart") tells whether they may add one more.

use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde_json::json;
use tenants::CartKind;

use super::cart::NO_PRODUCT;
use super::{Call, respond};
use crate::http::ApiError;
use crate::http::error::{json_response, store_failure};
use crate::server::App;

pub async fn stock(State(app): State<App>, req: Request) -> Response {
    respond(
        async {
            let (call, _) = Call::begin(&app, req).await?;
            let item = call
                .query("itemId")
                .filter(|i| !i.trim().is_empty())
                .ok_or_else(|| ApiError::field("itemId", "Required"))?;
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
                && let Some(cart) = app.store.cart(t, &cookie.id).await.map_err(|e| store_failure(&e))?
                && !cart.purchased
                && cart.kind == CartKind::Cart
            {
                for e in cart.entries.iter().filter(|e| e.held && e.item_id == item.trim()) {
                    if let Some(l) = levels.iter_mut().find(|l| l.sku == e.sku && !l.unlimited) {
                        l.qty_in_stock += e.quantity;
                    }
                }
            }
            let results: Vec<_> = levels
                .iter()
                .map(|l| json!({ "sku": l.sku, "unlimited": l.unlimited, "qtyInStock": l.qty_in_stock }))
                .collect();
            Ok(json_response(StatusCode::OK, &json!({ "results": results })))
        }
        .await,
    )
}
