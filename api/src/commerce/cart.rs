//! The shopping cart: read it, add to it (SPEC: `POST /api/commerce/shopping-cart/entries` →
//! `{shoppingCart, newlyAdded}`), change an entry's quantity or additional fields, remove
//! it, add and remove coupons, set where it ships and how, and make a cart of its own for one
//! purchase: a subscription (`POST /api/3/commerce/cart/subscription` → `{cartToken}`) or a
//! gift card (`POST /api/3/commerce/cart/gift-card`). Reading the cart, its coupons and where
//! and how it ships also work on such a cart, named by `?cartToken=` instead of the cookie.

use axum::extract::{Path, Request, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use tenants::commerce::{CommerceSettings, Location};
use tenants::{AddToCart, Cart, CartEntry, CartKind, now_ms};

use super::json::{cart_json, entry_json};
use super::messages::{QUANTITY_NOT_NUMBER, QUANTITY_NOT_WHOLE, TOKEN_CART_FIXED, store_error};
use super::session::{cart_of_token, cart_token, set_cart_cookie};
use super::{Call, respond, with_cookies};
use crate::http::ApiError;
use crate::http::body::{MAX_JSON_BODY, json as read_json};
use crate::http::error::json_response;
use crate::http::limits::Family;
use crate::server::App;

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
        Value::String(s) => Some(serde_json::from_str(&s).unwrap_or(Value::String(s))),
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

/// The answer to a cart change: 200 with `body`, and the cookie at the cart's new revision.
fn changed(call: &Call, cart: &Cart, body: Value) -> Response {
    with_cookies(
        json_response(StatusCode::OK, &body),
        [set_cart_cookie(&call.site, cart, call.client.https)],
    )
}

fn priced(call: &Call, cart: &Cart, settings: &CommerceSettings) -> Value {
    let totals = cart.price(settings, None, now_ms());
    cart_json(Some(cart), &totals, settings, &call.site)
}

/// `GET /api/commerce/shopping-cart`: the visitor's cart, priced (an empty cart without
/// an id when they have none). The query parameters SPEC names (`mock`, `timecode`,
/// `calculateSubtotal`) are accepted; totals are always calculated.
pub async fn get_cart(State(app): State<App>, req: Request) -> Response {
    respond(
        async {
            let (call, _) = Call::begin(&app, req).await?;
            let settings = call.settings()?;
            let cart = visitor_cart(&app, &call).await?;
            let body = match &cart {
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
                    cart_json(None, &totals, &settings, &call.site)
                }
            };
            Ok(json_response(StatusCode::OK, &body))
        }
        .await,
    )
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct AddBody {
    item_id: Option<String>,
    #[serde(default)]
    sku: Option<String>,
    #[serde(default)]
    quantity: Option<Value>,
    /// SPEC's subscription call names it `qty`.
    #[serde(default)]
    qty: Option<Value>,
    #[serde(default)]
    additional_fields: Option<Value>,
}

impl AddBody {
    fn add(self, settings: &CommerceSettings) -> Result<AddToCart, ApiError> {
        let item_id = required("itemId", &self.item_id)?.to_owned();
        Ok(AddToCart {
            item_id,
            sku: self.sku.unwrap_or_default().trim().to_owned(),
            quantity: quantity(self.quantity.as_ref().or(self.qty.as_ref()))?,
            additional_fields: additional_fields(self.additional_fields),
            single_service: !settings.multiple_quantity_for_services,
        })
    }
}

/// `POST /api/commerce/shopping-cart/entries` {itemId, sku, quantity, additionalFields} →
/// `{shoppingCart, newlyAdded}`. The first add makes the cart and sets its cookie.
pub async fn add_entry(State(app): State<App>, req: Request) -> Response {
    respond(
        async {
            let (call, body) = Call::begin(&app, req).await?;
            call.write(&app, Family::CartWrite)?;
            let settings = call.settings()?;
            let add = read_json::<AddBody>(body, MAX_JSON_BODY)
                .await?
                .add(&settings)?;
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
            let body = json!({
                "shoppingCart": priced(&call, &added.shopping_cart, &settings),
                "newlyAdded": entry_json(&added.newly_added, &call.site.content),
            });
            let e = &added.newly_added;
            crate::analytics::record(
                &app,
                &call,
                tenants::ADD_TO_CART_EVENT,
                json!({"itemId": e.item_id, "sku": e.sku, "quantity": add.quantity}),
            );
            Ok(changed(&call, &added.shopping_cart, body))
        }
        .await,
    )
}

/// What a change to the visitor's cart answers with: the cart, and the entry it changed
/// under its SPEC name (`newlyAdded`, `updatedEntry`).
struct Changed {
    cart: Cart,
    entry: Option<(&'static str, CartEntry)>,
}

impl From<Cart> for Changed {
    fn from(cart: Cart) -> Changed {
        Changed { cart, entry: None }
    }
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

/// A change to the visitor's cart, as every cart route makes it: the site, the crumb and the
/// rate limit, the body (`B::default()` when there is none), the cart the cookie names (404
/// without one; the cookie is signed, so it names a cart of this tenant, and the store
/// refuses one that is no longer open) or, where `carts` allows, the one `?cartToken=`
/// names, then `op`, and the answer `{shoppingCart, ...}` with the cookie at the cart's new
/// revision (a token cart's answer sets no cookie). `missing` is what a missing entry or
/// coupon is called.
async fn change<B: DeserializeOwned + Default>(
    app: &App,
    req: Request,
    missing: &str,
    carts: Carts,
    op: impl AsyncFnOnce(&Call, &CommerceSettings, &str, B) -> Result<Changed, Failed>,
) -> Response {
    respond(
        async {
            let (call, body) = Call::begin(app, req).await?;
            call.write(app, Family::CartWrite)?;
            let settings = call.settings()?;
            let bytes = crate::http::body::bytes(body, MAX_JSON_BODY).await?;
            let b: B = if bytes.iter().all(u8::is_ascii_whitespace) {
                B::default()
            } else {
                crate::http::body::parse(&bytes)?
            };
            let target = Target::of(&call)?.ok_or_else(|| ApiError::not_found(NO_CART))?;
            let token = matches!(target, Target::Token(_));
            if token && carts == Carts::Shopping {
                return Err(ApiError::bad_request(TOKEN_CART_FIXED));
            }
            let done = match op(&call, &settings, target.id(), b).await {
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
            let mut body = json!({ "shoppingCart": priced(&call, &done.cart, &settings) });
            if let Some((name, entry)) = &done.entry {
                body[*name] = entry_json(entry, &call.site.content);
            }
            if token {
                return Ok(json_response(StatusCode::OK, &body));
            }
            Ok(changed(&call, &done.cart, body))
        }
        .await,
    )
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct QuantityBody {
    #[serde(default)]
    quantity: Option<Value>,
}

/// No body.
#[derive(Deserialize, Default)]
struct Empty {}

/// `PUT /api/commerce/shopping-cart/entries/{entryId}` {quantity} → `{shoppingCart,
/// updatedEntry}`: sets the quantity (1-9999; remove with DELETE).
pub async fn set_quantity(
    State(app): State<App>,
    Path(entry_id): Path<String>,
    req: Request,
) -> Response {
    change(
        &app,
        req,
        NO_ENTRY,
        Carts::Shopping,
        async |call, settings, cart, b: QuantityBody| {
            if b.quantity.is_none() {
                return Err(ApiError::field("quantity", "Required").into());
            }
            let q = quantity(b.quantity.as_ref())?;
            let single = !settings.multiple_quantity_for_services;
            let (cart, entry) = app
                .store
                .set_entry_quantity(call.site.tenant.id, cart, &entry_id, q, single)
                .await?;
            Ok(Changed {
                cart,
                entry: Some(("updatedEntry", entry)),
            })
        },
    )
    .await
}

/// `DELETE /api/commerce/shopping-cart/entries/{entryId}` → `{shoppingCart}`.
pub async fn remove_entry(
    State(app): State<App>,
    Path(entry_id): Path<String>,
    req: Request,
) -> Response {
    change(
        &app,
        req,
        NO_ENTRY,
        Carts::Shopping,
        async |call, _, cart, _: Empty| {
            Ok(app
                .store
                .remove_entry(call.site.tenant.id, cart, &entry_id)
                .await?
                .into())
        },
    )
    .await
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct FieldsBody {
    #[serde(default)]
    additional_fields: Option<Value>,
}

/// `PUT /api/commerce/shopping-cart/entries/{entryId}/additionalFields` {itemId, sku,
/// additionalFields} → `{shoppingCart, updatedEntry}`.
pub async fn set_fields(
    State(app): State<App>,
    Path(entry_id): Path<String>,
    req: Request,
) -> Response {
    change(
        &app,
        req,
        NO_ENTRY,
        Carts::Shopping,
        async |call, _, cart, b: FieldsBody| {
            let fields = additional_fields(b.additional_fields)
                .ok_or_else(|| ApiError::field("additionalFields", "Required"))?;
            let (cart, entry) = app
                .store
                .set_entry_fields(call.site.tenant.id, cart, &entry_id, &fields)
                .await?;
            Ok(Changed {
                cart,
                entry: Some(("updatedEntry", entry)),
            })
        },
    )
    .await
}

#[derive(Deserialize, Default)]
struct CouponBody {
    code: Option<String>,
}

/// `POST /api/commerce/shopping-cart/coupons` {code} → `{shoppingCart}`. Unknown, expired
/// and not-yet-valid codes are refused (400, `errors.code`); a code whose minimum subtotal
/// is not met is kept and listed in `invalidCoupons` with its reason.
pub async fn add_coupon(State(app): State<App>, req: Request) -> Response {
    change(
        &app,
        req,
        NO_CART,
        Carts::AlsoToken,
        async |call, settings, cart, b: CouponBody| {
            let code = required("code", &b.code)?;
            let t = call.site.tenant.id;
            Ok(app
                .store
                .add_coupon(t, cart, code, settings, now_ms())
                .await?
                .into())
        },
    )
    .await
}

/// `DELETE /api/commerce/shopping-cart/coupons/{code}` → `{shoppingCart}`.
pub async fn remove_coupon(
    State(app): State<App>,
    Path(code): Path<String>,
    req: Request,
) -> Response {
    let missing = "This coupon is not on your cart.";
    change(
        &app,
        req,
        missing,
        Carts::AlsoToken,
        async |call, _, cart, _: Empty| {
            Ok(app
                .store
                .remove_coupon(call.site.tenant.id, cart, &code)
                .await?
                .into())
        },
    )
    .await
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct LocationBody {
    country: Option<String>,
    #[serde(default)]
    region: Option<String>,
    #[serde(default)]
    postal_code: Option<String>,
}

/// `PUT /api/commerce/shopping-cart/shipping-location` {country, region?, postalCode?} →
/// `{shoppingCart}`: the cart is priced for it (shipping options, tax).
pub async fn set_location(State(app): State<App>, req: Request) -> Response {
    change(
        &app,
        req,
        NO_CART,
        Carts::AlsoToken,
        async |call, _, cart, b: LocationBody| {
            let location = Location {
                country: required("country", &b.country)?.to_owned(),
                region: b.region,
                postal_code: b.postal_code,
            };
            let t = call.site.tenant.id;
            match app
                .store
                .set_shipping_location(t, cart, Some(&location))
                .await
            {
                Ok(cart) => Ok(cart.into()),
                Err(tenants::StoreError::Invalid(reason)) => {
                    Err(ApiError::field("country", reason).into())
                }
                Err(e) => Err(e.into()),
            }
        },
    )
    .await
}

/// `DELETE /api/commerce/shopping-cart/shipping-location` → `{shoppingCart}`.
pub async fn clear_location(State(app): State<App>, req: Request) -> Response {
    change(
        &app,
        req,
        NO_CART,
        Carts::AlsoToken,
        async |call, _, cart, _: Empty| {
            let t = call.site.tenant.id;
            Ok(app.store.set_shipping_location(t, cart, None).await?.into())
        },
    )
    .await
}

#[derive(Deserialize, Default)]
struct OptionBody {
    id: Option<String>,
}

/// `PUT /api/commerce/shopping-cart/shipping-option` {id} → `{shoppingCart}`. An id the
/// store does not have is refused; one not offered for the cart's location is kept, and the
/// cheapest offered option is charged until it is.
pub async fn set_shipping_option(State(app): State<App>, req: Request) -> Response {
    change(
        &app,
        req,
        NO_CART,
        Carts::AlsoToken,
        async |call, settings, cart, b: OptionBody| {
            let id = required("id", &b.id)?;
            if !settings.shipping.iter().any(|o| o.id == id) {
                let message = "That shipping option is not available for this order.";
                return Err(ApiError::field("id", message).into());
            }
            let t = call.site.tenant.id;
            Ok(app
                .store
                .set_shipping_option(t, cart, Some(id))
                .await?
                .into())
        },
    )
    .await
}

/// `POST /api/3/commerce/cart/subscription` {itemId, sku, qty, additionalFields} →
/// `{cartToken, checkoutUrl}`: a cart of its own for one subscription product, reached by
/// its token at `/checkout/subscription?cartToken=...`.
pub async fn subscription_cart(State(app): State<App>, req: Request) -> Response {
    token_cart(&app, req, CartKind::Subscription, "/checkout/subscription").await
}

/// `POST /api/3/commerce/cart/gift-card` {itemId, sku, qty} → `{cartToken, checkoutUrl}`: a
/// cart of its own for one gift card in the chosen denomination, reached by its token on the
/// gift-card page, `/checkout/gift-card?cartToken=...` (SPEC §4: "Gift cards go to a
/// gift-card page with the chosen denomination").
pub async fn gift_card_cart(State(app): State<App>, req: Request) -> Response {
    token_cart(&app, req, CartKind::GiftCard, "/checkout/gift-card").await
}

async fn token_cart(app: &App, req: Request, kind: CartKind, page: &str) -> Response {
    respond(
        async {
            let (call, body) = Call::begin(app, req).await?;
            call.write(app, Family::CartWrite)?;
            let settings = call.settings()?;
            let add = read_json::<AddBody>(body, MAX_JSON_BODY)
                .await?
                .add(&settings)?;
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
            Ok(json_response(
                StatusCode::OK,
                &json!({ "cartToken": token, "checkoutUrl": url }),
            ))
        }
        .await,
    )
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
