//! The owner's product list (editing is the item routes' [`super::content`]).
//!
//! | route | role may | answer |
//! |---|---|---|
//! | `GET /api/owner/products?q&type&after&limit` | store, read | `{products, next}` by title |

use axum::extract::State;
use serde::Serialize;
use tenants::{PRODUCT_KINDS, ProductQuery};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::paging;
use crate::http::commerce::money::{OwnerMoney, owner_money};
use crate::http::error::store_failure;
use crate::http::extract::{Read, area};
use crate::http::{ApiError, Json, Owner};
use crate::openapi::{OWNER, OwnerErrors};
use crate::server::state::App;

pub const BAD_TYPE: &str =
    "type must be one of physical, digital, service, gift-card, subscription.";

pub fn routes() -> OpenApiRouter<App> {
    OpenApiRouter::new().routes(routes!(products))
}

/// A product in the owner's list.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = OwnerProductRow)]
struct Product {
    /// The item id (`/api/owner/items/{id}` edits it).
    id: String,
    title: String,
    /// `physical`, `digital`, `service`, `gift-card` or `subscription`.
    #[serde(rename = "type")]
    kind: String,
    /// The product's main image, if it has one.
    image: Option<String>,
    /// Its lowest price now (a variant's sale price when on sale).
    price: OwnerMoney,
    /// A variant is on sale.
    on_sale: bool,
    /// Units in stock over its variants; `null` when one is unlimited.
    stock: Option<i64>,
    /// The site shows it (its store is enabled).
    visible: bool,
}

/// A page of products.
#[derive(Serialize, ToSchema)]
#[schema(as = OwnerProducts)]
struct Products {
    products: Vec<Product>,
    /// The next page's `after`; `null` on the last page.
    next: Option<String>,
}

/// `GET /api/owner/products`: the site's products (the items of its stores), by title.
#[utoipa::path(get, path = "/api/owner/products", tag = OWNER,
    params(
        ("q" = Option<String>, Query, max_length = 100, description = "Words the title contains."),
        ("type" = Option<String>, Query, description = "physical, digital, service, gift-card or subscription."),
        ("after" = Option<String>, Query, description = "The `next` of the page before."),
        ("limit" = Option<u32>, Query, minimum = 1, maximum = 200, description = "Rows a page (50 unless given)."),
    ),
    security(("ownerToken" = [])),
    responses((status = 200, body = Products), OwnerErrors))]
async fn products(
    State(app): State<App>,
    owner: Owner<area::Store, Read>,
) -> Result<Json<Products>, ApiError> {
    let kind = match owner.query("type").filter(|t| !t.is_empty()) {
        None => None,
        Some(t) if PRODUCT_KINDS.contains(&t.as_str()) => Some(t),
        Some(_) => return Err(ApiError::field("type", BAD_TYPE)),
    };
    let query = ProductQuery {
        q: paging::search(&owner)?,
        kind,
        after: paging::after::<(String, String)>(&owner)?,
        limit: paging::limit(&owner)?,
    };
    let (rows, next) = app
        .store
        .product_rows(owner.site.tenant.id, &query)
        .await
        .map_err(|e| store_failure(&e))?;
    let site = &owner.site.content;
    let currency = owner.call.settings().currency.clone();
    let products = rows
        .into_iter()
        .map(|p| Product {
            image: site.products.get(&p.id).and_then(|l| l.image.clone()),
            price: owner_money(p.price_minor, &currency, &site.locale),
            id: p.id,
            title: p.title,
            kind: p.kind,
            on_sale: p.on_sale,
            stock: p.stock,
            visible: p.visible,
        })
        .collect();
    Ok(Json(Products {
        products,
        next: paging::next(next),
    }))
}
