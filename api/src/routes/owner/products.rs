//! The owner's product list, and what the product form reads and uploads (saving is the
//! item routes' [`super::content`], with [`super::product_checks`]' rules).
//!
//! | route | role may | answer |
//! |---|---|---|
//! | `GET /api/owner/products?q&type&after&limit` | store, read | `{products, next}` by title |
//! | `GET /api/owner/product-form?id` | store, read | `{product, images, digitalFile, stores, categories, forms}` |
//! | `POST /api/owner/product-files?fileName&kind=image\|download` | store, write | 201 `{id, fileName, contentType, size, url}` |
//!
//! A product's uploads are the store role's (the content role's `POST /api/owner/assets`
//! is not the store manager's): `kind=image` takes PNG, JPEG, GIF or WebP; `kind=download`
//! (a digital product's file) those, PDF, ZIP (EPUB too), MP3 and MP4, known from their first
//! bytes, at most 20 MB, with SPEC.md §5's messages ("The file {fileName} does not appear
//! to be a supported image file."). A download is moved out of the public uploads when a
//! product is saved with it (`digitalFile: {assetId}`); until then its address is only
//! the one the upload answered.

use axum::body::Body;
use axum::extract::State;
use axum::http::StatusCode;
use serde::Serialize;
use serde_json::Value;
use tenants::{Item, PRODUCT_KINDS, ProductQuery};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::assets::{AssetAnswer, asset_json, file_name, unsupported_as, upload_bytes};
use super::{paging, product_checks, site_content};
use crate::http::commerce::money::{OwnerMoney, owner_money};
use crate::http::error::store_failure;
use crate::http::extract::{Change, Read, area};
use crate::http::{ApiError, Created, Json, Owner};
use crate::openapi::{OWNER, OwnerErrors};
use crate::server::state::App;

pub const BAD_TYPE: &str =
    "type must be one of physical, digital, service, gift-card, subscription.";
pub const NO_PRODUCT: &str = "That product does not exist.";
pub const BAD_KIND: &str = "kind is image or download.";
/// SPEC.md §5's `{fileTypeMessage}` of each kind of upload.
pub const IMAGE_TYPES: &str = "image ";
pub const DOWNLOAD_TYPES: &str = "PDF, ZIP, MP3, MP4 or image ";

pub fn routes() -> OpenApiRouter<App> {
    OpenApiRouter::new()
        .routes(routes!(products))
        .routes(routes!(product_form))
        .routes(routes!(product_file))
}

/// A store of the site (a products collection).
#[derive(Serialize, ToSchema)]
#[schema(as = OwnerProductFormStore)]
struct StoreChoice {
    id: String,
    title: String,
}

/// A store category a product may be in.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = OwnerProductFormCategory)]
struct CategoryChoice {
    /// The store it belongs to.
    collection_id: String,
    /// The name a product's `categories` lists (at most 25 characters).
    name: String,
}

/// A form whose fields checkout may ask for (`structuredContent.additionalFieldsFormId`).
#[derive(Serialize, ToSchema)]
#[schema(as = OwnerProductFormForm)]
struct FormChoice {
    id: String,
    name: String,
}

/// A product picture as the form edits it.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = OwnerProductImage)]
struct ImageOut {
    /// Where it is served.
    url: String,
    /// What it shows ("" when decorative).
    alt_text: String,
    /// Only decoration: no alt text.
    decorative: bool,
}

/// A digital product's download.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = OwnerDigitalFile)]
struct DigitalFileOut {
    file_name: String,
}

/// Everything the product form shows, in one call.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = OwnerProductForm)]
struct ProductForm {
    /// The product as stored (`GET /api/owner/items/{id}`), `null` for a new one.
    #[schema(value_type = Option<Object>)]
    product: Option<Item>,
    /// Its pictures, first the main one.
    images: Vec<ImageOut>,
    /// A digital product's file, when it has one.
    digital_file: Option<DigitalFileOut>,
    /// The site's stores, for a new product.
    stores: Vec<StoreChoice>,
    /// The stores' categories.
    categories: Vec<CategoryChoice>,
    /// The site's forms (and the one the product names, if not one of them).
    forms: Vec<FormChoice>,
}

/// `GET /api/owner/product-form?id=ID`: what the product form shows: the product (none
/// without `id`), the stores, their categories and the forms it may name.
#[utoipa::path(get, path = "/api/owner/product-form", tag = OWNER,
    operation_id = "owner.product_form",
    params(("id" = Option<String>, Query, description = "The product's item id; none for a new product.")),
    security(("ownerToken" = [])),
    responses((status = 200, body = ProductForm), OwnerErrors))]
async fn product_form(
    State(app): State<App>,
    owner: Owner<area::Store, Read>,
) -> Result<Json<ProductForm>, ApiError> {
    let tenant = owner.site.tenant.id;
    let site = site_content(&app.store, tenant).await?;
    let stores: Vec<&tenants::Collection> = site
        .collections
        .iter()
        .filter(|c| c.kind == tenants::store_setup::PRODUCTS_TYPE)
        .collect();
    let product = match owner.query("id").filter(|i| !i.is_empty()) {
        None => None,
        Some(id) => Some(
            site.items
                .iter()
                .find(|i| i.id == id && stores.iter().any(|s| s.id == i.collection_id))
                .cloned()
                .ok_or_else(|| ApiError::not_found(NO_PRODUCT))?,
        ),
    };
    let digital_file = match &product {
        Some(p) if p.product_type == Some(2) => app
            .store
            .digital_file_name(tenant, &p.id)
            .await
            .map_err(|e| store_failure(&e))?
            .map(|file_name| DigitalFileOut { file_name }),
        _ => None,
    };
    let mut forms: Vec<FormChoice> = app
        .store
        .forms(tenant)
        .await
        .map_err(|e| store_failure(&e))?
        .into_iter()
        .map(|f| FormChoice {
            id: f.id,
            name: f.name,
        })
        .collect();
    if let Some(embedded) = product
        .as_ref()
        .and_then(|p| p.structured_content.get("additionalFieldsForm"))
        && let Some(id) = embedded.get("id").and_then(Value::as_str)
        && !forms.iter().any(|f| f.id == id)
    {
        let name = embedded.get("name").and_then(Value::as_str).unwrap_or(id);
        forms.push(FormChoice {
            id: id.to_owned(),
            name: name.to_owned(),
        });
    }
    let images = product
        .as_ref()
        .map(product_checks::images_of)
        .unwrap_or_default()
        .into_iter()
        .map(|i| ImageOut {
            url: i["url"].as_str().unwrap_or_default().to_owned(),
            alt_text: i["altText"].as_str().unwrap_or_default().to_owned(),
            decorative: i["decorative"].as_bool().unwrap_or(false),
        })
        .collect();
    Ok(Json(ProductForm {
        images,
        digital_file,
        categories: site
            .categories
            .iter()
            .filter(|k| stores.iter().any(|s| s.id == k.collection_id) && k.kind != "ROOT")
            .map(|k| CategoryChoice {
                collection_id: k.collection_id.clone(),
                name: k.display_name.clone(),
            })
            .collect(),
        stores: stores
            .iter()
            .map(|s| StoreChoice {
                id: s.id.clone(),
                title: s.title.clone(),
            })
            .collect(),
        forms,
        product,
    }))
}

/// What a download's first bytes say it is, beyond [`super::assets::sniff`]'s images and
/// PDF: ZIP (and EPUB, a ZIP), MP3, MP4.
fn sniff_download(bytes: &[u8], name: &str) -> Option<&'static str> {
    if let Some(kind) = super::assets::sniff(bytes) {
        return Some(kind);
    }
    let lower = name.to_ascii_lowercase();
    if bytes.starts_with(b"PK\x03\x04") {
        Some(if lower.ends_with(".epub") {
            "application/epub+zip"
        } else {
            "application/zip"
        })
    } else if bytes.starts_with(b"ID3")
        || (bytes.len() >= 2 && bytes[0] == 0xFF && matches!(bytes[1], 0xFB | 0xF3 | 0xF2))
    {
        Some("audio/mpeg")
    } else if bytes.len() >= 12 && &bytes[4..8] == b"ftyp" {
        Some(if lower.ends_with(".m4a") {
            "audio/mp4"
        } else {
            "video/mp4"
        })
    } else {
        None
    }
}

/// `POST /api/owner/product-files?fileName=NAME&kind=image|download`: uploads a product's
/// picture or a digital product's file.
#[utoipa::path(post, path = "/api/owner/product-files", tag = OWNER,
    operation_id = "owner.upload_product_file",
    params(("fileName" = String, Query, min_length = 1,
            description = "The file's name (its last path part is kept, at most 200 characters)."),
        ("kind" = String, Query, description = "`image` (PNG, JPEG, GIF, WebP) or `download` \
            (a digital product's file: those, PDF, ZIP, MP3 or MP4).")),
    request_body(content = Vec<u8>, content_type = "application/octet-stream",
        description = "The file's bytes, at most 20 MB, known from its first bytes."),
    security(("ownerToken" = [])),
    responses((status = 201, body = AssetAnswer, description = "The file, stored: an image's \
            `url` goes in the product's `images`, a download's `id` in its \
            `digitalFile.assetId`."),
        OwnerErrors,
        (status = 413, body = crate::openapi::ErrorBody, description = "Over 20 MB: \
            \"The file {fileName} is too large. The maximum allowed file size is 20 MB.\""),
        (status = 415, body = crate::openapi::ErrorBody, description = "Not a kind this takes: \
            \"The file {fileName} does not appear to be a supported image file.\" (or \
            \"PDF, ZIP, MP3, MP4 or image file.\" for a download)")))]
async fn product_file(
    State(app): State<App>,
    owner: Owner<area::Store, Change>,
    body: Body,
) -> Result<Created<AssetAnswer>, ApiError> {
    let download = match owner.query("kind").as_deref() {
        Some("image") => false,
        Some("download") => true,
        _ => return Err(ApiError::field("kind", BAD_KIND)),
    };
    let name = file_name(&owner)?;
    let bytes = upload_bytes(&owner.headers, body, &name).await?;
    let kind = if download {
        sniff_download(&bytes, &name)
    } else {
        super::assets::sniff(&bytes).filter(|k| k.starts_with("image/"))
    };
    let Some(kind) = kind else {
        let types = if download {
            DOWNLOAD_TYPES
        } else {
            IMAGE_TYPES
        };
        return Err(ApiError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            unsupported_as(&name, types),
        ));
    };
    let asset = app
        .store
        .put_asset(owner.site.tenant.id, &name, kind, bytes.to_vec())
        .await
        .map_err(|e| store_failure(&e))?;
    Ok(Created(asset_json(&asset)))
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
    /// The site shows it now: its store is enabled, and it is visible or its scheduled
    /// time has come.
    visible: bool,
    /// Its own visibility: `visible`, `hidden` (a draft only owners see) or `scheduled`.
    #[schema(value_type = VisibilityDoc)]
    visibility: tenants::Visibility,
    /// When a scheduled product shows from (epoch ms); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    publish_on_ms: Option<i64>,
}

/// A product's visibility (`tenants::Visibility`, as written).
#[derive(ToSchema)]
#[schema(as = OwnerProductVisibility)]
#[allow(dead_code)]
#[serde(rename_all = "lowercase")]
enum VisibilityDoc {
    /// Shown on the site.
    Visible,
    /// A draft: only owners see it.
    Hidden,
    /// Hidden until its `publishOn`, shown from then on.
    Scheduled,
}

/// A page of products.
#[derive(Serialize, ToSchema)]
#[schema(as = OwnerProducts)]
struct Products {
    products: Vec<Product>,
    /// The next page's `after`; `null` on the last page.
    next: Option<String>,
}

/// A product's main image (`assetUrl`), if it has one.
fn image_of(site: &tenants::SiteSnapshot, id: &str) -> Option<String> {
    site.items
        .iter()
        .find(|i| i.id == id)
        .and_then(|i| i.data.get("assetUrl"))
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
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
    // The stored content, not the site's view: a hidden product has its picture too.
    let snapshot = site_content(&app.store, owner.site.tenant.id).await?;
    let currency = owner.call.settings().currency.clone();
    let products = rows
        .into_iter()
        .map(|p| Product {
            image: image_of(&snapshot, &p.id),
            price: owner_money(p.price_minor, &currency, &site.locale),
            id: p.id,
            title: p.title,
            kind: p.kind,
            on_sale: p.on_sale,
            stock: p.stock,
            visible: p.visible,
            visibility: p.visibility,
            publish_on_ms: p.publish_on_ms,
        })
        .collect();
    Ok(Json(Products {
        products,
        next: paging::next(next),
    }))
}
