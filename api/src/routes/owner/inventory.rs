//! The owner's inventory: every variant's stock in one table, edited in place.
//!
//! | route | role may | answer |
//! |---|---|---|
//! | `GET /api/owner/inventory?q&lowStock&after&limit` | store, read | `{variants, next}` by product title, product, then variant order |
//! | `PATCH /api/owner/inventory` `{updates: [{itemId, sku, stock}]}` | store, change | `{variants}`: the changed rows |
//!
//! `lowStock=true` keeps the variants with counted stock at or under the store's
//! `restock.lowStockAt` (default 5). A `PATCH` changes its 1-200 variants in one
//! transaction (all or none); `stock: null` makes a variant unlimited. A variant raised
//! from sold out tells its waiting restock sign-ups in the same write, unless the store's
//! `restock.autoNotify` is off, as the item routes do ([`super::content`]).

use std::collections::{BTreeMap, HashSet};

use axum::extract::State;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tenants::{InventoryCursor, InventoryQuery, InventoryRow, RestockNotice, StockUpdate};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::paging;
use crate::http::error::store_failure;
use crate::http::extract::{Change, Read, area};
use crate::http::{ApiError, Json, Owner};
use crate::openapi::{OWNER, OwnerErrors};
use crate::server::state::App;

/// The most variants one `PATCH` changes.
pub const MAX_UPDATES: usize = 200;

pub const NO_UPDATES: &str = "List the variants to change, 1 to 200 of them.";
pub const NOT_AN_UPDATE: &str = "Each change is {itemId, sku, stock}.";
pub const BAD_STOCK: &str = "Stock is a whole number from 0, or null for unlimited.";
pub const NO_VARIANT: &str = "That variant does not exist.";
pub const TWICE: &str = "This variant is listed twice.";
pub const BAD_LOW_STOCK: &str = "lowStock must be true or false.";

pub fn routes() -> OpenApiRouter<App> {
    OpenApiRouter::new().routes(routes!(inventory, change_inventory))
}

/// A variant in the inventory.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = OwnerInventoryRow)]
struct Variant {
    /// The product's item id.
    item_id: String,
    sku: String,
    product_title: String,
    /// The variant's options (`{"Size": "M"}`).
    attributes: BTreeMap<String, String>,
    /// Units in stock; `null` when unlimited.
    stock: Option<i64>,
    /// Restock sign-ups waiting for their notice.
    restock_waiting: i64,
}

impl From<InventoryRow> for Variant {
    fn from(r: InventoryRow) -> Variant {
        Variant {
            item_id: r.item_id,
            sku: r.sku,
            product_title: r.product_title,
            attributes: r.attributes,
            stock: r.stock,
            restock_waiting: r.restock_waiting,
        }
    }
}

/// A page of the inventory.
#[derive(Serialize, ToSchema)]
#[schema(as = OwnerInventory)]
struct Inventory {
    variants: Vec<Variant>,
    /// The next page's `after`; `null` on the last page.
    next: Option<String>,
}

/// The variants a `PATCH` changed.
#[derive(Serialize, ToSchema)]
#[schema(as = OwnerInventoryChanged)]
struct Changed {
    /// In the order of the updates.
    variants: Vec<Variant>,
}

/// `GET /api/owner/inventory`: every product variant, with its stock and waiting restock
/// sign-ups, by product title.
#[utoipa::path(get, path = "/api/owner/inventory", tag = OWNER,
    params(
        ("q" = Option<String>, Query, max_length = 100, description = "Words the product title or the SKU contains."),
        ("lowStock" = Option<bool>, Query, description = "Only variants with counted stock at or under `restock.lowStockAt` (default 5)."),
        ("after" = Option<String>, Query, description = "The `next` of the page before."),
        ("limit" = Option<u32>, Query, minimum = 1, maximum = 200, description = "Rows a page (50 unless given)."),
    ),
    security(("ownerToken" = [])),
    responses((status = 200, body = Inventory), OwnerErrors))]
async fn inventory(
    State(app): State<App>,
    owner: Owner<area::Store, Read>,
) -> Result<Json<Inventory>, ApiError> {
    let low_stock = match owner.query("lowStock").as_deref() {
        None | Some("" | "false" | "0") => None,
        Some("true" | "1") => Some(owner.call.settings().restock.low_stock_at),
        Some(_) => return Err(ApiError::field("lowStock", BAD_LOW_STOCK)),
    };
    let query = InventoryQuery {
        q: paging::search(&owner)?,
        low_stock,
        after: paging::after::<InventoryCursor>(&owner)?,
        limit: paging::limit(&owner)?,
    };
    let page = app
        .store
        .inventory(owner.site.tenant.id, &query)
        .await
        .map_err(|e| store_failure(&e))?;
    Ok(Json(Inventory {
        variants: page.rows.into_iter().map(Variant::from).collect(),
        next: paging::next(page.next),
    }))
}

/// A variant's new stock.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = OwnerStockUpdate)]
#[allow(dead_code)] // a shape for the document; the body is read field by field
struct Update {
    item_id: String,
    sku: String,
    /// Units in stock (a whole number from 0), or `null` for unlimited.
    #[schema(minimum = 0)]
    stock: Option<i64>,
}

/// `PATCH /api/owner/inventory`'s body.
#[derive(Deserialize, ToSchema)]
#[schema(as = OwnerInventoryPatch)]
#[allow(dead_code)] // a shape for the document; the body is read field by field
struct Patch {
    /// 1-200 variants, each once.
    #[schema(min_items = 1, max_items = 200)]
    updates: Vec<Update>,
}

/// The updates of a body, or its errors by field (`updates.2.stock`).
fn updates_of(body: &Value) -> Result<Vec<StockUpdate>, ApiError> {
    let Some(list) = body.get("updates").and_then(Value::as_array) else {
        return Err(ApiError::field("updates", NO_UPDATES));
    };
    if list.is_empty() || list.len() > MAX_UPDATES {
        return Err(ApiError::field("updates", NO_UPDATES));
    }
    let mut errors = Map::new();
    let mut out = Vec::with_capacity(list.len());
    let mut seen = HashSet::new();
    for (i, u) in list.iter().enumerate() {
        let at = format!("updates.{i}");
        let Some(u) = u.as_object() else {
            errors.insert(at, NOT_AN_UPDATE.into());
            continue;
        };
        let text = |k: &str| {
            u.get(k)
                .and_then(Value::as_str)
                .map(str::trim)
                .filter(|s| !s.is_empty() && s.len() <= 256)
        };
        let (Some(item), Some(sku)) = (text("itemId"), text("sku")) else {
            let field = if text("itemId").is_none() {
                "itemId"
            } else {
                "sku"
            };
            errors.insert(format!("{at}.{field}"), NO_VARIANT.into());
            continue;
        };
        let (qty, unlimited) = match u.get("stock") {
            Some(Value::Null) => (0, true),
            Some(n) => match n.as_i64().filter(|n| *n >= 0) {
                Some(n) => (n, false),
                None => {
                    errors.insert(format!("{at}.stock"), BAD_STOCK.into());
                    continue;
                }
            },
            None => {
                errors.insert(format!("{at}.stock"), BAD_STOCK.into());
                continue;
            }
        };
        if !seen.insert((item.to_owned(), sku.to_owned())) {
            errors.insert(format!("{at}.sku"), TWICE.into());
            continue;
        }
        out.push(StockUpdate {
            item_id: item.to_owned(),
            sku: sku.to_owned(),
            qty,
            unlimited,
        });
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(ApiError::fields(errors))
    }
}

/// `PATCH /api/owner/inventory`: sets many variants' stock at once, all or none.
///
/// A variant raised from sold out (to more than 0, or unlimited) sends its waiting restock
/// notices in the same write, unless `restock.autoNotify` is `false`. A variant this site
/// does not have is 404 naming it (`errors["updates.N.sku"]`), and nothing changes.
#[utoipa::path(patch, path = "/api/owner/inventory", tag = OWNER,
    request_body = Patch,
    security(("ownerToken" = [])),
    responses((status = 200, body = Changed), OwnerErrors))]
async fn change_inventory(
    State(app): State<App>,
    owner: Owner<area::Store, Change>,
    Json(body): Json<Value>,
) -> Result<Json<Changed>, ApiError> {
    let updates = updates_of(&body)?;
    let composer = crate::routes::restock::auto_composer(&app, &owner).await;
    let notice = crate::routes::restock::auto_notice(composer.as_ref(), &owner);
    let notice = notice.as_ref().map(|n| n as &RestockNotice);
    let told = app
        .store
        .set_stocks_notifying(owner.site.tenant.id, &updates, notice)
        .await
        .map_err(|e| store_failure(&e))?;
    let told = match told {
        Ok(told) => told,
        Err(i) => {
            let mut e = ApiError::not_found(NO_VARIANT);
            e.body["errors"] = serde_json::json!({ format!("updates.{i}.sku"): NO_VARIANT });
            return Err(e);
        }
    };
    if told.iter().any(|n| *n > 0) {
        app.outbox.nudge();
    }
    let keys: Vec<_> = updates.into_iter().map(|u| (u.item_id, u.sku)).collect();
    let rows = app
        .store
        .inventory_of(owner.site.tenant.id, &keys)
        .await
        .map_err(|e| store_failure(&e))?;
    Ok(Json(Changed {
        variants: rows.into_iter().map(Variant::from).collect(),
    }))
}
