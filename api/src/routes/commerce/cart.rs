//! The shopping cart: read it, add to it (SPEC: `POST /api/commerce/shopping-cart/entries` →
//! `{shoppingCart, newlyAdded}`), change an entry's quantity or additional fields, remove
//! it, add and remove coupons, set where it ships and how, and make a cart of its own for one
//! purchase: a subscription (`POST /api/3/commerce/cart/subscription` → `{cartToken}`) or a
//! gift card (`POST /api/3/commerce/cart/gift-card`). Reading the cart, its coupons and where
//! and how it ships also work on such a cart, named by `?cartToken=` instead of the cookie.

use axum::extract::{Path, State};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tenants::commerce::{CommerceSettings, Location};
use tenants::{AddToCart, Cart, CartEntry, CartKind, now_ms};
use utoipa::ToSchema;

use crate::http::call::Call;
use crate::http::commerce::json::{EntryView, ShoppingCart, cart_view, entry_view};
use crate::http::commerce::messages::{
    QUANTITY_NOT_NUMBER, QUANTITY_NOT_WHOLE, TOKEN_CART_FIXED, store_error,
};
use crate::http::commerce::session::{cart_of_token, cart_token, set_cart_cookie};
use crate::http::extract::family::CartWrite;
use crate::http::{ApiError, Json, JsonOrDefault, SetCookies, Write};
use crate::openapi::{COMMERCE, ErrorBody, VisitorErrors, WriteErrors};
use crate::server::state::App;
use crate::services::commerce::checkout::check_place;
use tenants::Store;

/// What visitors are told when their cart cookie names no open cart here.
pub const NO_CART: &str = "Your cart was not found.";
/// What visitors are told about an entry that is not in their cart.
pub const NO_ENTRY: &str = "This item is no longer in your cart.";
/// What visitors are told about an item that is not a product of this store.
pub const NO_PRODUCT: &str = "This product does not exist.";

/// A quantity as sent: a whole number, or a string of one; anything else gets SPEC's
/// message. Missing means 1.
pub fn quantity(v: Option<&Value>) -> Result<i64, ApiError> {
    let not_number = || ApiError::field("quantity", QUANTITY_NOT_NUMBER);
    let not_whole = || ApiError::field("quantity", QUANTITY_NOT_WHOLE);
    let from_f64 = |f: f64| {
        if f.fract() != 0.0 {
            Err(not_whole())
        } else if f.abs() > 1e15 {
            // Far out of range either way; the range check says so.
            Ok(if f < 0.0 { -1 } else { i64::MAX })
        } else {
            Ok(f as i64)
        }
    };
    match v {
        None | Some(Value::Null) => Ok(1),
        Some(Value::Number(n)) => match n.as_i64() {
            Some(i) => Ok(i),
            None => n.as_f64().map_or_else(|| Err(not_number()), from_f64),
        },
        Some(Value::String(s)) => {
            let t = s.trim();
            match t.parse::<i64>() {
                Ok(i) => Ok(i),
                Err(_) => match t.parse::<f64>() {
                    Ok(f) if f.is_finite() && !t.is_empty() => from_f64(f),
                    _ => Err(not_number()),
                },
            }
        }
        Some(_) => Err(not_number()),
    }
}

/// Additional-fields answers: SPEC sends them as text (a JSON document); an object is taken
/// as is. Empty text is none.
fn additional_fields(v: Option<Value>) -> Option<Value> {
    match v? {
        Value::Null => None,
        Value::String(s) if s.trim().is_empty() => None,
        // JSON inside a string is parsed here, past the body's check for U+0000: text that
        // decodes to one stays the text it was.
        Value::String(s) => Some(
            serde_json::from_str(&s)
                .ok()
                .filter(|v| crate::http::body::refuse_nul(v, "").is_ok())
                .unwrap_or(Value::String(s)),
        ),
        other => Some(other),
    }
}

fn required<'a>(field: &str, v: &'a Option<String>) -> Result<&'a str, ApiError> {
    match v.as_deref().map(str::trim) {
        Some(s) if !s.is_empty() => Ok(s),
        _ => Err(ApiError::field(field, "Required")),
    }
}

/// Which cart a call is about.
enum Target {
    /// The visitor's shopping cart, named by the cart cookie.
    Cookie(String),
    /// A purchase's own cart (subscription checkout, the gift-card page), named by
    /// `?cartToken=`.
    Token(String),
}

impl Target {
    /// `?cartToken=` (404 when it is not one of this site's), else the cookie's cart.
    fn of(call: &Call) -> Result<Option<Target>, ApiError> {
        if let Some(token) = call.query("cartToken") {
            let id =
                cart_of_token(&call.site, &token).ok_or_else(|| ApiError::not_found(NO_CART))?;
            return Ok(Some(Target::Token(id)));
        }
        Ok(call.cart_cookie().map(|c| Target::Cookie(c.id)))
    }

    fn id(&self) -> &str {
        match self {
            Target::Cookie(id) | Target::Token(id) => id,
        }
    }
}

/// The call's open cart: the visitor's shopping cart, or with `?cartToken=` that purchase's
/// own cart (404 when the token is not this site's).
async fn visitor_cart(app: &App, call: &Call) -> Result<Option<Cart>, ApiError> {
    let Some(target) = Target::of(call)? else {
        return Ok(None);
    };
    let cart = app
        .store
        .cart(call.site.tenant.id, target.id())
        .await
        .map_err(|e| crate::http::error::store_failure(&e))?;
    let kind_fits = |c: &Cart| match target {
        Target::Cookie(_) => c.kind == CartKind::Cart,
        Target::Token(_) => c.kind != CartKind::Cart,
    };
    match cart.filter(|c| !c.purchased && kind_fits(c)) {
        Some(c) => Ok(Some(c)),
        None if matches!(target, Target::Token(_)) => Err(ApiError::not_found(NO_CART)),
        None => Ok(None),
    }
}

/// The cookie naming the visitor's cart at its new revision, as an answer's part.
fn cart_cookie_at(call: &Call, cart: &Cart) -> SetCookies {
    SetCookies(vec![set_cart_cookie(&call.site, cart, call.client.https)])
}

fn priced(call: &Call, cart: &Cart, settings: &CommerceSettings) -> ShoppingCart {
    let totals = cart.price(settings, None, now_ms());
    cart_view(Some(cart), &totals, settings, &call.site)
}

/// The answer to a cart change: the cart.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CartChanged {
    pub shopping_cart: ShoppingCart,
}

/// The answer to an add: the cart, and the entry that was added or increased.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CartAdded {
    pub shopping_cart: ShoppingCart,
    pub newly_added: EntryView,
}

/// The answer to an entry's change: the cart, and the entry as it is now.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CartEntryUpdated {
    pub shopping_cart: ShoppingCart,
    pub updated_entry: EntryView,
}

/// A purchase's own cart: its token, and the checkout page that takes it.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TokenCart {
    /// Names the cart in `?cartToken=` (and in checkout's `cartToken`).
    pub cart_token: String,
    /// The page to check it out on, with the token.
    pub checkout_url: String,
}

/// A quantity: a whole number, or text holding one (null or missing means 1).
#[derive(Deserialize, ToSchema)]
#[serde(untagged)]
#[schema(as = CartQuantity)]
#[allow(dead_code)] // the shape `quantity` reads; the body keeps the JSON value
pub(crate) enum QuantitySchema {
    Number(i64),
    Text(String),
}

/// `GET /api/commerce/shopping-cart`: the visitor's cart, priced.
///
/// An empty cart without an id when they have none. With `?cartToken=`, a purchase's own
/// cart (subscription, gift card). The query parameters SPEC names (`mock`, `timecode`,
/// `calculateSubtotal`) are accepted; totals are always calculated.
#[utoipa::path(get, path = "/api/commerce/shopping-cart", tag = COMMERCE,
    params(("cartToken" = Option<String>, Query,
        description = "A purchase's own cart (404 when the token is not this site's).")),
    responses((status = 200, body = ShoppingCart, description = "The cart."), VisitorErrors))]
pub(crate) async fn get_cart(
    State(app): State<App>,
    call: Call,
) -> Result<Json<ShoppingCart>, ApiError> {
    let settings = call.settings();
    let cart = visitor_cart(&app, &call).await?;
    Ok(Json(match &cart {
        Some(c) => priced(&call, c, &settings),
        None => {
            let totals = tenants::commerce::pricing::price(
                &settings,
                &tenants::commerce::pricing::Request {
                    lines: &[],
                    coupons: &[],
                    location: None,
                    shipping_option: None,
                    now_ms: now_ms(),
                },
            );
            cart_view(None, &totals, &settings, &call.site)
        }
    }))
}

/// What to put in a cart: a product, its variant, how many, and the additional-fields
/// form's answers.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = AddToCartBody)]
pub(crate) struct AddBody {
    /// The product item.
    #[schema(value_type = String, required = true, min_length = 1)]
    item_id: Option<String>,
    /// The variant (may be left out for a product with one variant).
    #[serde(default)]
    sku: Option<String>,
    /// Units, 1-9999 (1 when missing).
    #[serde(default)]
    #[schema(value_type = Option<QuantitySchema>)]
    quantity: Option<Value>,
    /// SPEC's subscription call names it `qty`.
    #[serde(default)]
    #[schema(value_type = Option<QuantitySchema>)]
    qty: Option<Value>,
    /// The answers, as JSON text (SPEC) or an object.
    #[serde(default)]
    additional_fields: Option<Value>,
}

impl AddBody {
    /// What a page's form asks for: the item, the variant, the quantity as typed.
    pub(super) fn of_form(item_id: String, sku: String, quantity: Option<String>) -> AddBody {
        AddBody {
            item_id: Some(item_id),
            sku: Some(sku),
            quantity: quantity.map(Value::String),
            qty: None,
            additional_fields: None,
        }
    }

    fn add(self, settings: &CommerceSettings) -> Result<AddToCart, ApiError> {
        let item_id = required("itemId", &self.item_id)?.to_owned();
        Ok(AddToCart {
            item_id,
            sku: self.sku.unwrap_or_default().trim().to_owned(),
            quantity: quantity(self.quantity.as_ref().or(self.qty.as_ref()))?,
            additional_fields: additional_fields(self.additional_fields),
            single_service: !settings.multiple_quantity_for_services,
            store_currency: settings.currency.clone(),
        })
    }
}

/// `POST /api/commerce/shopping-cart/entries`: adds an item to the visitor's cart.
///
/// {itemId, sku, quantity, additionalFields} → `{shoppingCart, newlyAdded}`. The first add
/// makes the cart and sets its cookie.
#[utoipa::path(post, path = "/api/commerce/shopping-cart/entries", tag = COMMERCE,
    request_body = AddBody, security(("crumb" = [])),
    responses((status = 200, body = CartAdded, description = "Added.",
            headers(("Set-Cookie" = String, description = "The cart cookie (`tessera-cart`) at the cart's new revision."))),
        (status = 409, body = ErrorBody, description = "Not enough of the item in stock."),
        WriteErrors))]
pub(crate) async fn add_entry(
    State(app): State<App>,
    call: Call,
    _: Write<CartWrite>,
    Json(b): Json<AddBody>,
) -> Result<(SetCookies, Json<CartAdded>), ApiError> {
    let (cookie, added) = add_item(&app, &call, b).await?;
    Ok((cookie, Json(added)))
}

/// Adds `b` to the visitor's cart (made, with its cookie, on the first add): the cookie at
/// the cart's new revision and the answer. The JSON route's and the page form's add
/// ([`super::cart_form`]).
pub(super) async fn add_item(
    app: &App,
    call: &Call,
    b: AddBody,
) -> Result<(SetCookies, CartAdded), ApiError> {
    let settings = call.settings();
    let add = b.add(&settings)?;
    let cookie = call.cart_cookie();
    let added = app
        .store
        .add_to_cart_or_new(
            call.site.tenant.id,
            cookie.as_ref().map(|c| c.id.as_str()),
            &add,
        )
        .await
        .map_err(|e| store_error(&e, &call.site.content, &settings.currency, NO_PRODUCT))?;
    let e = &added.newly_added;
    crate::analytics::record(
        app,
        call,
        tenants::ADD_TO_CART_EVENT,
        json!({"itemId": e.item_id, "sku": e.sku, "quantity": add.quantity}),
    );
    Ok((
        cart_cookie_at(call, &added.shopping_cart),
        CartAdded {
            shopping_cart: priced(call, &added.shopping_cart, &settings),
            newly_added: entry_view(&added.newly_added, &call.site.content),
        },
    ))
}

/// Why a change failed: the request (already an answer), or the store.
enum Failed {
    Api(ApiError),
    Store(tenants::StoreError),
}

impl From<ApiError> for Failed {
    fn from(e: ApiError) -> Failed {
        Failed::Api(e)
    }
}

impl From<tenants::StoreError> for Failed {
    fn from(e: tenants::StoreError) -> Failed {
        Failed::Store(e)
    }
}

/// Which carts a change applies to.
#[derive(Clone, Copy, PartialEq)]
enum Carts {
    /// The visitor's shopping cart only (its lines: a token cart's one purchase is fixed).
    Shopping,
    /// Also a purchase's own cart named by `?cartToken=` (coupons, where and how it ships).
    AlsoToken,
}

/// A change that gives back the cart alone.
fn alone(cart: Cart) -> (Cart, ()) {
    (cart, ())
}

/// A change to the visitor's cart, as every cart route makes it once its extractors have
/// checked the site, the crumb and the rate limit and read the body (`B::default()` when
/// there is none): the cart the cookie names (404 without one; the cookie is signed, so it
/// names a cart of this tenant, and the store refuses one that is no longer open) or, where
/// `carts` allows, the one `?cartToken=` names, then `op`. Gives back the cookie at the
/// cart's new revision (none for a token cart), the cart priced, and what else `op` gave
/// (the entry it changed). `missing` is what a missing entry or coupon is called.
async fn change<B, E>(
    call: &Call,
    b: B,
    missing: &str,
    carts: Carts,
    op: impl AsyncFnOnce(&CommerceSettings, &str, B) -> Result<(Cart, E), Failed>,
) -> Result<(SetCookies, ShoppingCart, E), ApiError> {
    let settings = call.settings();
    let target = Target::of(call)?.ok_or_else(|| ApiError::not_found(NO_CART))?;
    let token = matches!(target, Target::Token(_));
    if token && carts == Carts::Shopping {
        return Err(ApiError::bad_request(TOKEN_CART_FIXED));
    }
    let (cart, extra) = match op(&settings, target.id(), b).await {
        Ok(done) => done,
        Err(Failed::Api(e)) => return Err(e),
        Err(Failed::Store(e)) => {
            return Err(store_error(
                &e,
                &call.site.content,
                &settings.currency,
                missing,
            ));
        }
    };
    let cookie = if token {
        SetCookies(Vec::new())
    } else {
        cart_cookie_at(call, &cart)
    };
    Ok((cookie, priced(call, &cart, &settings), extra))
}

/// The answer to a change of an entry: the cart, and the entry as it is now.
fn entry_updated(
    call: &Call,
    (cookie, shopping_cart, entry): (SetCookies, ShoppingCart, CartEntry),
) -> (SetCookies, Json<CartEntryUpdated>) {
    let updated_entry = entry_view(&entry, &call.site.content);
    (
        cookie,
        Json(CartEntryUpdated {
            shopping_cart,
            updated_entry,
        }),
    )
}

/// The answer to a change of the cart: the cart.
fn cart_changed(
    (cookie, shopping_cart, ()): (SetCookies, ShoppingCart, ()),
) -> (SetCookies, Json<CartChanged>) {
    (cookie, Json(CartChanged { shopping_cart }))
}

/// An entry's new quantity.
#[derive(Deserialize, Default, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = CartQuantityBody)]
pub(crate) struct QuantityBody {
    /// Units, 1-9999 (remove the entry with DELETE).
    #[serde(default)]
    #[schema(value_type = QuantitySchema, required = true)]
    quantity: Option<Value>,
}

/// No body.
#[derive(Deserialize, Default)]
pub(crate) struct Empty {}

/// `PUT /api/commerce/shopping-cart/entries/{entryId}`: sets an entry's quantity.
///
/// {quantity} → `{shoppingCart, updatedEntry}`: 1-9999 (remove with DELETE).
#[utoipa::path(put, path = "/api/commerce/shopping-cart/entries/{entry_id}", tag = COMMERCE,
    params(("entry_id" = String, Path, description = "The entry's id.")), request_body = QuantityBody, security(("crumb" = [])),
    responses((status = 200, body = CartEntryUpdated, description = "Changed.",
            headers(("Set-Cookie" = String, description = "The cart cookie (`tessera-cart`) at the cart's new revision."))),
        (status = 409, body = ErrorBody,
            description = "Not enough in stock, or the cart was checked out."),
        WriteErrors))]
pub(crate) async fn set_quantity(
    State(app): State<App>,
    Path(entry_id): Path<String>,
    call: Call,
    _: Write<CartWrite>,
    JsonOrDefault(b): JsonOrDefault<QuantityBody>,
) -> Result<(SetCookies, Json<CartEntryUpdated>), ApiError> {
    let done = change_quantity(&app, &call, &entry_id, b.quantity).await?;
    Ok(entry_updated(&call, done))
}

/// Sets entry `entry_id`'s quantity (`None`: "Required"). The JSON route's and the cart
/// page form's ([`super::cart_form`]).
pub(super) async fn change_quantity(
    app: &App,
    call: &Call,
    entry_id: &str,
    quantity: Option<Value>,
) -> Result<(SetCookies, ShoppingCart, CartEntry), ApiError> {
    let t = call.site.tenant.id;
    change(
        call,
        quantity,
        NO_ENTRY,
        Carts::Shopping,
        async |settings, cart, quantity| {
            if quantity.is_none() {
                return Err(ApiError::field("quantity", "Required").into());
            }
            let q = self::quantity(quantity.as_ref())?;
            let single = !settings.multiple_quantity_for_services;
            Ok(app
                .store
                .set_entry_quantity(t, cart, entry_id, q, single)
                .await?)
        },
    )
    .await
}

/// `DELETE /api/commerce/shopping-cart/entries/{entryId}`: removes an entry.
#[utoipa::path(delete, path = "/api/commerce/shopping-cart/entries/{entry_id}", tag = COMMERCE,
    params(("entry_id" = String, Path, description = "The entry's id.")), security(("crumb" = [])),
    responses((status = 200, body = CartChanged, description = "Removed.",
            headers(("Set-Cookie" = String, description = "The cart cookie (`tessera-cart`) at the cart's new revision."))),
        (status = 409, body = ErrorBody, description = "The cart was checked out."),
        WriteErrors))]
pub(crate) async fn remove_entry(
    State(store): State<Store>,
    Path(entry_id): Path<String>,
    call: Call,
    _: Write<CartWrite>,
    JsonOrDefault(_): JsonOrDefault<Empty>,
) -> Result<(SetCookies, Json<CartChanged>), ApiError> {
    Ok(cart_changed(remove(&store, &call, &entry_id).await?))
}

/// Removes entry `entry_id`. The JSON route's and the cart page form's
/// ([`super::cart_form`]).
pub(super) async fn remove(
    store: &Store,
    call: &Call,
    entry_id: &str,
) -> Result<(SetCookies, ShoppingCart, ()), ApiError> {
    let t = call.site.tenant.id;
    change(call, (), NO_ENTRY, Carts::Shopping, async |_, cart, _| {
        Ok(alone(store.remove_entry(t, cart, entry_id).await?))
    })
    .await
}

/// An entry's additional-fields answers.
#[derive(Deserialize, Default, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = CartFieldsBody)]
pub(crate) struct FieldsBody {
    /// The answers, as JSON text (SPEC) or an object.
    #[serde(default)]
    #[schema(required = true)]
    additional_fields: Option<Value>,
}

/// `PUT /api/commerce/shopping-cart/entries/{entryId}/additionalFields`: sets an entry's additional fields.
///
/// {additionalFields} → `{shoppingCart, updatedEntry}` (other keys, such as SPEC's itemId
/// and sku, are ignored).
#[utoipa::path(put, path = "/api/commerce/shopping-cart/entries/{entry_id}/additionalFields",
    tag = COMMERCE, params(("entry_id" = String, Path, description = "The entry's id.")), request_body = FieldsBody, security(("crumb" = [])),
    responses((status = 200, body = CartEntryUpdated, description = "Changed.",
            headers(("Set-Cookie" = String, description = "The cart cookie (`tessera-cart`) at the cart's new revision."))),
        (status = 409, body = ErrorBody, description = "The cart was checked out."),
        WriteErrors))]
pub(crate) async fn set_fields(
    State(app): State<App>,
    Path(entry_id): Path<String>,
    call: Call,
    _: Write<CartWrite>,
    JsonOrDefault(b): JsonOrDefault<FieldsBody>,
) -> Result<(SetCookies, Json<CartEntryUpdated>), ApiError> {
    let t = call.site.tenant.id;
    let done = change(&call, b, NO_ENTRY, Carts::Shopping, async |_, cart, b| {
        let fields = additional_fields(b.additional_fields)
            .ok_or_else(|| ApiError::field("additionalFields", "Required"))?;
        Ok(app
            .store
            .set_entry_fields(t, cart, &entry_id, &fields)
            .await?)
    })
    .await?;
    Ok(entry_updated(&call, done))
}

/// A coupon code.
#[derive(Deserialize, Default, ToSchema)]
#[schema(as = CouponBody)]
pub(crate) struct CouponBody {
    /// Any case.
    #[schema(value_type = String, required = true, min_length = 1)]
    code: Option<String>,
}

/// `POST /api/commerce/shopping-cart/coupons`: adds a coupon to the cart.
///
/// {code} → `{shoppingCart}`. Unknown, expired and not-yet-valid codes are refused (400,
/// `errors.code`); a code whose minimum subtotal is not met is kept and listed in
/// `invalidCoupons` with its reason.
#[utoipa::path(post, path = "/api/commerce/shopping-cart/coupons", tag = COMMERCE,
    params(("cartToken" = Option<String>, Query, description = "A purchase's own cart instead of the visitor's (404 when the token is not this site's).")), request_body = CouponBody, security(("crumb" = [])),
    responses((status = 200, body = CartChanged,
            description = "Added (a token cart's answer sets no cookie).",
            headers(("Set-Cookie" = String, description = "The cart cookie (`tessera-cart`) at the cart's new revision."))),
        (status = 409, body = ErrorBody, description = "The cart was checked out."),
        WriteErrors))]
pub(crate) async fn add_coupon(
    State(app): State<App>,
    call: Call,
    _: Write<CartWrite>,
    JsonOrDefault(b): JsonOrDefault<CouponBody>,
) -> Result<(SetCookies, Json<CartChanged>), ApiError> {
    let t = call.site.tenant.id;
    let done = change(
        &call,
        b,
        NO_CART,
        Carts::AlsoToken,
        async |settings, cart, b| {
            let code = required("code", &b.code)?;
            let cart = app
                .store
                .add_coupon(t, cart, code, settings, now_ms())
                .await?;
            Ok(alone(cart))
        },
    )
    .await?;
    Ok(cart_changed(done))
}

/// `DELETE /api/commerce/shopping-cart/coupons/{code}`: takes a coupon off the cart.
#[utoipa::path(delete, path = "/api/commerce/shopping-cart/coupons/{code}", tag = COMMERCE,
    params(("code" = String, Path, description = "The coupon code."), ("cartToken" = Option<String>, Query, description = "A purchase's own cart instead of the visitor's (404 when the token is not this site's).")),
    security(("crumb" = [])),
    responses((status = 200, body = CartChanged,
            description = "Removed (a token cart's answer sets no cookie).",
            headers(("Set-Cookie" = String, description = "The cart cookie (`tessera-cart`) at the cart's new revision."))),
        (status = 409, body = ErrorBody, description = "The cart was checked out."),
        WriteErrors))]
pub(crate) async fn remove_coupon(
    State(store): State<Store>,
    Path(code): Path<String>,
    call: Call,
    _: Write<CartWrite>,
    JsonOrDefault(b): JsonOrDefault<Empty>,
) -> Result<(SetCookies, Json<CartChanged>), ApiError> {
    let missing = "This coupon is not on your cart.";
    let t = call.site.tenant.id;
    let done = change(&call, b, missing, Carts::AlsoToken, async |_, cart, _| {
        Ok(alone(store.remove_coupon(t, cart, &code).await?))
    })
    .await?;
    Ok(cart_changed(done))
}

/// Where the cart ships.
#[derive(Deserialize, Default, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = ShippingLocationBody)]
pub(crate) struct LocationBody {
    /// ISO country code.
    #[schema(value_type = String, required = true, min_length = 1)]
    country: Option<String>,
    #[serde(default)]
    region: Option<String>,
    #[serde(default)]
    postal_code: Option<String>,
}

/// `PUT /api/commerce/shopping-cart/shipping-location`: sets where the cart ships.
///
/// {country, region?, postalCode?} → `{shoppingCart}`: the cart is priced for it
/// (shipping options, tax).
#[utoipa::path(put, path = "/api/commerce/shopping-cart/shipping-location", tag = COMMERCE,
    params(("cartToken" = Option<String>, Query, description = "A purchase's own cart instead of the visitor's (404 when the token is not this site's).")), request_body = LocationBody, security(("crumb" = [])),
    responses((status = 200, body = CartChanged,
            description = "Set (a token cart's answer sets no cookie).",
            headers(("Set-Cookie" = String, description = "The cart cookie (`tessera-cart`) at the cart's new revision."))),
        (status = 409, body = ErrorBody, description = "The cart was checked out."),
        WriteErrors))]
pub(crate) async fn set_location(
    State(app): State<App>,
    call: Call,
    _: Write<CartWrite>,
    JsonOrDefault(b): JsonOrDefault<LocationBody>,
) -> Result<(SetCookies, Json<CartChanged>), ApiError> {
    let t = call.site.tenant.id;
    let done = change(&call, b, NO_CART, Carts::AlsoToken, async |_, cart, b| {
        let mut location = Location {
            country: required("country", &b.country)?.to_owned(),
            region: b.region,
            postal_code: b.postal_code,
        };
        // The country and region from their lists; the region may come later.
        let mut errors = serde_json::Map::new();
        check_place(
            "",
            &mut location.country,
            &mut location.region,
            false,
            &mut errors,
        );
        if !errors.is_empty() {
            return Err(ApiError::fields(errors).into());
        }
        match app
            .store
            .set_shipping_location(t, cart, Some(&location))
            .await
        {
            Ok(cart) => Ok(alone(cart)),
            Err(tenants::StoreError::Invalid(reason)) => {
                Err(ApiError::field("country", reason).into())
            }
            Err(e) => Err(e.into()),
        }
    })
    .await?;
    Ok(cart_changed(done))
}

/// `DELETE /api/commerce/shopping-cart/shipping-location`: forgets where the cart ships.
#[utoipa::path(delete, path = "/api/commerce/shopping-cart/shipping-location", tag = COMMERCE,
    params(("cartToken" = Option<String>, Query, description = "A purchase's own cart instead of the visitor's (404 when the token is not this site's).")), security(("crumb" = [])),
    responses((status = 200, body = CartChanged,
            description = "Cleared (a token cart's answer sets no cookie).",
            headers(("Set-Cookie" = String, description = "The cart cookie (`tessera-cart`) at the cart's new revision."))),
        (status = 409, body = ErrorBody, description = "The cart was checked out."),
        WriteErrors))]
pub(crate) async fn clear_location(
    State(store): State<Store>,
    call: Call,
    _: Write<CartWrite>,
    JsonOrDefault(b): JsonOrDefault<Empty>,
) -> Result<(SetCookies, Json<CartChanged>), ApiError> {
    let t = call.site.tenant.id;
    let done = change(&call, b, NO_CART, Carts::AlsoToken, async |_, cart, _| {
        Ok(alone(store.set_shipping_location(t, cart, None).await?))
    })
    .await?;
    Ok(cart_changed(done))
}

/// A shipping option of the store.
#[derive(Deserialize, Default, ToSchema)]
#[schema(as = ShippingOptionBody)]
pub(crate) struct OptionBody {
    /// The option's id (`shippingOptions[].id`).
    #[schema(value_type = String, required = true, min_length = 1)]
    id: Option<String>,
}

/// `PUT /api/commerce/shopping-cart/shipping-option`: chooses how the cart ships.
///
/// {id} → `{shoppingCart}`. An id the store does not have is refused; one not offered for
/// the cart's location is kept, and the cheapest offered option is charged until it is;
/// before the cart has a location, no option is chosen or charged.
#[utoipa::path(put, path = "/api/commerce/shopping-cart/shipping-option", tag = COMMERCE,
    params(("cartToken" = Option<String>, Query, description = "A purchase's own cart instead of the visitor's (404 when the token is not this site's).")), request_body = OptionBody, security(("crumb" = [])),
    responses((status = 200, body = CartChanged,
            description = "Chosen (a token cart's answer sets no cookie).",
            headers(("Set-Cookie" = String, description = "The cart cookie (`tessera-cart`) at the cart's new revision."))),
        (status = 409, body = ErrorBody, description = "The cart was checked out."),
        WriteErrors))]
pub(crate) async fn set_shipping_option(
    State(store): State<Store>,
    call: Call,
    _: Write<CartWrite>,
    JsonOrDefault(b): JsonOrDefault<OptionBody>,
) -> Result<(SetCookies, Json<CartChanged>), ApiError> {
    let t = call.site.tenant.id;
    let done = change(
        &call,
        b,
        NO_CART,
        Carts::AlsoToken,
        async |settings, cart, b| {
            let id = required("id", &b.id)?;
            if !settings.shipping.iter().any(|o| o.id == id) {
                let message = "That shipping option is not available for this order.";
                return Err(ApiError::field("id", message).into());
            }
            Ok(alone(store.set_shipping_option(t, cart, Some(id)).await?))
        },
    )
    .await?;
    Ok(cart_changed(done))
}

/// `POST /api/3/commerce/cart/subscription`: makes a cart of its own for one subscription.
///
/// {itemId, sku, qty, additionalFields} → `{cartToken, checkoutUrl}`: the cart is reached by
/// its token at `/checkout/subscription?cartToken=...`.
#[utoipa::path(post, path = "/api/3/commerce/cart/subscription", tag = COMMERCE,
    request_body = AddBody, security(("crumb" = [])),
    responses((status = 200, body = TokenCart, description = "The cart was made."),
        (status = 409, body = ErrorBody, description = "Not enough of the item in stock."),
        WriteErrors))]
pub(crate) async fn subscription_cart(
    State(app): State<App>,
    call: Call,
    _: Write<CartWrite>,
    Json(b): Json<AddBody>,
) -> Result<Json<TokenCart>, ApiError> {
    token_cart(
        &app,
        &call,
        b,
        CartKind::Subscription,
        "/checkout/subscription",
    )
    .await
    .map(Json)
}

/// `POST /api/3/commerce/cart/gift-card`: makes a cart of its own for one gift card.
///
/// {itemId, sku, qty} → `{cartToken, checkoutUrl}`: the gift card in the chosen
/// denomination, reached by its token on the gift-card page,
/// `/checkout/gift-card?cartToken=...` (SPEC §4: "Gift cards go to a gift-card page with
/// the chosen denomination").
#[utoipa::path(post, path = "/api/3/commerce/cart/gift-card", tag = COMMERCE,
    request_body = AddBody, security(("crumb" = [])),
    responses((status = 200, body = TokenCart, description = "The cart was made."),
        (status = 409, body = ErrorBody, description = "Not enough of the item in stock."),
        WriteErrors))]
pub(crate) async fn gift_card_cart(
    State(app): State<App>,
    call: Call,
    _: Write<CartWrite>,
    Json(b): Json<AddBody>,
) -> Result<Json<TokenCart>, ApiError> {
    token_cart(&app, &call, b, CartKind::GiftCard, "/checkout/gift-card")
        .await
        .map(Json)
}

/// Makes a purchase's own cart of `kind` holding `b`, and its token and checkout `page`
/// (the JSON routes' and the page form's, [`super::cart_form`]).
pub(super) async fn token_cart(
    app: &App,
    call: &Call,
    b: AddBody,
    kind: CartKind,
    page: &str,
) -> Result<TokenCart, ApiError> {
    let settings = call.settings();
    let add = b.add(&settings)?;
    let cart = app
        .store
        .create_token_cart(call.site.tenant.id, kind, &add)
        .await
        .map_err(|e| store_error(&e, &call.site.content, &settings.currency, NO_PRODUCT))?;
    let token = cart_token(&call.site, &cart.id);
    let url = format!(
        "{page}?cartToken={}",
        form_urlencoded::byte_serialize(token.as_bytes()).collect::<String>()
    );
    Ok(TokenCart {
        cart_token: token,
        checkout_url: url,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(v: Value) -> Result<i64, String> {
        quantity(Some(&v)).map_err(|e| e.message().to_owned())
    }

    #[test]
    fn quantities_are_whole_numbers_or_their_text() {
        assert_eq!(q(json!(2)), Ok(2));
        assert_eq!(q(json!("3")), Ok(3));
        assert_eq!(q(json!(" 4 ")), Ok(4));
        assert_eq!(q(json!(5.0)), Ok(5));
        assert_eq!(q(json!(-1)), Ok(-1), "the range is the store's check");
        assert_eq!(quantity(None).unwrap(), 1);
        assert_eq!(quantity(Some(&Value::Null)).unwrap(), 1);
        for v in [
            json!("abc"),
            json!(""),
            json!(true),
            json!([1]),
            json!({}),
            json!("NaN"),
        ] {
            assert_eq!(q(v), Err(QUANTITY_NOT_NUMBER.to_owned()));
        }
        for v in [json!(1.5), json!("2.25")] {
            assert_eq!(q(v), Err(QUANTITY_NOT_WHOLE.to_owned()));
        }
    }

    #[test]
    fn additional_fields_come_as_text_or_objects() {
        assert_eq!(
            additional_fields(Some(json!("{\"a\":1}"))),
            Some(json!({"a": 1}))
        );
        assert_eq!(
            additional_fields(Some(json!({"a": 1}))),
            Some(json!({"a": 1}))
        );
        assert_eq!(
            additional_fields(Some(json!("plain text"))),
            Some(json!("plain text"))
        );
        assert_eq!(additional_fields(Some(json!(" "))), None);
        assert_eq!(additional_fields(None), None);
    }
}
