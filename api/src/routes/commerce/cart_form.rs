//! The cart without JavaScript: a page's Add To Cart, and the cart page's quantity and
//! remove, as form posts (`application/x-www-form-urlencoded`, the crumb a field) that
//! answer 303 to a page. The page pipeline makes the forms
//! ([`crate::pages::cart_forms`]); the islands post JSON instead, to the routes of
//! [`super::cart`], whose flows these reuse: the same checks, the same messages.
//!
//! * `POST /api/commerce/shopping-cart/form/add`: `crumb`, `itemId`, the options as
//!   `variant-option-<name>` (the selects and their radio twins; the first value given
//!   counts) or a `sku`, `quantity`, `purchase` (`cart`, `subscription`, `gift-card`) and
//!   `back` (the page the form is on). Added: 303 to `/cart` (with express checkout, to
//!   `/checkout`; a subscription or a gift card, to its own checkout). Refused: 303 back to
//!   `back` with the message (SPEC §5's wording), which the page shows by the button.
//! * `POST /api/commerce/shopping-cart/form/entries/{entryId}`: `crumb` and `quantity`
//!   (or `remove`): 303 to `/cart`, with the message when refused.
//!
//! A missing or wrong crumb (403), a client over the cart's rate (429) and a form that
//! cannot be read get a small page of their own with SPEC's message and a link back: nothing
//! was changed.

use axum::body::Body;
use axum::extract::{FromRef, Path, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use tenants::{CartKind, Store};
use utoipa::ToSchema;

use super::cart::{AddBody, add_item, change_quantity, remove, token_cart};
use crate::http::call::Call;
use crate::http::commerce::messages::{NO_DENOMINATION, VARIANT_UNAVAILABLE, select_options};
use crate::http::limits::{Family, Limits};
use crate::http::local_path::local_path;
use crate::http::small_page::{escape, page};
use crate::http::{ApiError, SetCookies};
use crate::openapi::COMMERCE;
use crate::pages::cart_forms::with_message;
use crate::server::state::App;

/// The largest form read.
const MAX_FORM: usize = 16 * 1024;
/// The cart page.
const CART: &str = "/cart";

/// An answer: on to a page (with cookies), or a small page of its own.
pub(crate) enum Answer {
    SeeOther(SetCookies, String),
    Page(ApiError, String),
}

impl IntoResponse for Answer {
    fn into_response(self) -> Response {
        match self {
            Answer::SeeOther(cookies, to) => {
                let mut r = (cookies, StatusCode::SEE_OTHER).into_response();
                if let Ok(v) = HeaderValue::from_str(&to) {
                    r.headers_mut().insert(header::LOCATION, v);
                }
                r.headers_mut()
                    .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
                r
            }
            Answer::Page(e, back) => {
                let body = format!(
                    "<h1>Your cart was not changed</h1><p role=\"alert\" class=\"cart-error\">{}</p>\
                     <p><a href=\"{}\">Back</a></p>",
                    escape(e.message()),
                    escape(&back)
                );
                let mut r = page(e.status, "Your cart was not changed", &body);
                if let Some(wait) = e.retry_after {
                    r.headers_mut().insert(
                        header::RETRY_AFTER,
                        HeaderValue::from(wait.as_secs().max(1)),
                    );
                }
                r
            }
        }
    }
}

/// A form's fields, once the call's crumb and rate were checked.
struct Form {
    pairs: Vec<(String, String)>,
}

impl Form {
    /// The first non-empty value of `name`.
    fn get(&self, name: &str) -> Option<String> {
        self.pairs
            .iter()
            .filter(|(k, v)| k == name && !v.trim().is_empty())
            .map(|(_, v)| v.clone())
            .next()
    }
}

/// The checks of a form post, in order: its site, its body, its crumb (the `crumb` field
/// against the crumb cookie), then the cart's rate. Refused: a small page.
async fn checked(
    app: &App,
    call: Result<Call, ApiError>,
    body: Body,
    back: impl Fn(&[(String, String)]) -> String,
) -> Result<(Call, Form), Answer> {
    let call = call.map_err(|e| Answer::Page(e, "/".to_owned()))?;
    let raw = crate::http::body::bytes(body, MAX_FORM)
        .await
        .map_err(|e| Answer::Page(e, "/".to_owned()))?;
    let pairs = crate::http::body::form_pairs(&raw).map_err(|e| Answer::Page(e, "/".into()))?;
    let back = back(&pairs);
    let crumb = pairs
        .iter()
        .find(|(k, _)| k == "crumb")
        .map(|(_, v)| v.as_str());
    crate::http::crumb::check(&call.headers, crumb, &call.site.secret)
        .map_err(|e| Answer::Page(e, back.clone()))?;
    Limits::from_ref(app)
        .check(Family::CartWrite, call.site.tenant.id, call.client.ip)
        .await
        .map_err(|e| Answer::Page(e, back))?;
    Ok((call, Form { pairs }))
}

/// The page a form came from (`back`, a path on this site; else `/`).
fn back_of(pairs: &[(String, String)]) -> String {
    let back = pairs
        .iter()
        .find(|(k, _)| k == "back")
        .map(|(_, v)| v.as_str());
    local_path(back).to_owned()
}

/// The variant the form's options name (`variant-option-<name>`, for the product's own
/// options only: a name the product does not have is not read, nor ever printed): its
/// sku, or the message the island would show. A form that sends no option at all names
/// its variant by `sku` (empty: the store's own rules, as for the JSON add).
fn chosen_sku(call: &Call, item_id: &str, form: &Form, gift_card: bool) -> Result<String, String> {
    const PREFIX: &str = "variant-option-";
    let variants = call
        .site
        .content
        .render
        .item_by_id(item_id)
        .and_then(|(_, item)| item.pointer(&["structuredContent", "variants"]))
        .and_then(|v| v.as_array())
        .unwrap_or_default();
    let sent = form.pairs.iter().any(|(k, _)| k.starts_with(PREFIX));
    // The product's options, in the order its variants name them.
    let mut names: Vec<&str> = Vec::new();
    for v in variants {
        for (name, _) in v
            .pointer(&["attributes"])
            .and_then(|a| a.as_object())
            .into_iter()
            .flat_map(|o| o.iter())
        {
            if !names.contains(&&**name) {
                names.push(name);
            }
        }
    }
    if !sent || names.is_empty() {
        return Ok(form.get("sku").unwrap_or_default());
    }
    // The page's order (the options as the form sent them), then any other.
    let mut order: Vec<&str> = Vec::new();
    for (k, _) in &form.pairs {
        if let Some(n) = k.strip_prefix(PREFIX)
            && let Some(known) = names.iter().find(|x| **x == n)
            && !order.contains(known)
        {
            order.push(known);
        }
    }
    for n in &names {
        if !order.contains(n) {
            order.push(n);
        }
    }
    let chosen: Vec<(&str, String)> = order
        .iter()
        .map(|n| (*n, form.get(&format!("{PREFIX}{n}")).unwrap_or_default()))
        .collect();
    let missing: Vec<String> = chosen
        .iter()
        .filter(|(_, v)| v.is_empty())
        .map(|(n, _)| (*n).to_owned())
        .collect();
    if !missing.is_empty() {
        return Err(if gift_card {
            NO_DENOMINATION.to_owned()
        } else {
            select_options(&missing)
        });
    }
    variants
        .iter()
        .find(|v| {
            chosen.iter().all(|(n, value)| {
                v.pointer(&["attributes", n]).and_then(|a| a.as_str()) == Some(value.as_str())
            })
        })
        .and_then(|v| v.pointer(&["sku"]).and_then(|s| s.as_str()))
        .map(str::to_owned)
        .ok_or_else(|| VARIANT_UNAVAILABLE.to_owned())
}

/// The add form, as the document lists it.
#[derive(ToSchema)]
#[schema(as = CartAddForm)]
#[allow(dead_code)] // a shape for the document
struct AddForm {
    /// The crumb (the `crumb` cookie's value; `X-CSRF-Token` may carry it instead).
    crumb: Option<String>,
    /// The product item.
    #[schema(rename = "itemId", min_length = 1)]
    item_id: String,
    /// A chosen value of option `<name>`, as `variant-option-<name>` (repeated: the first
    /// non-empty value counts). Every option sent must be chosen.
    #[schema(rename = "variant-option-{name}")]
    option: Option<String>,
    /// The variant, for a form without options.
    sku: Option<String>,
    /// Units, 1-9999 (1 when missing).
    quantity: Option<String>,
    /// `cart` (the default), `subscription` or `gift-card`: a subscription or a gift card
    /// is a cart of its own, checked out by its token.
    purchase: Option<String>,
    /// The page the form is on (a path on this site), where a refusal comes back to.
    back: Option<String>,
}

/// `POST /api/commerce/shopping-cart/form/add`: Add To Cart without JavaScript.
///
/// Form fields as `CartAddForm`; the rules and messages of `POST
/// /api/commerce/shopping-cart/entries` (or, for `purchase`, of the subscription and
/// gift-card carts). Answered with 303: to `/cart` (`/checkout` with express checkout, the
/// purchase's own checkout for a subscription or gift card), or back to `back` with the
/// message in its query when refused.
#[utoipa::path(post, path = "/api/commerce/shopping-cart/form/add", tag = COMMERCE,
    request_body(content = AddForm, content_type = "application/x-www-form-urlencoded"),
    security(("crumb" = [])),
    responses(
        (status = 303, description = "Added: on to the cart (or checkout). Refused (an option \
            not chosen, a variant sold out or unavailable, a quantity refused, an unknown item): \
            back to `back` with `cart-error` (the message), `cart-error-for` (the item) and \
            `cart-error-sig` in its query; the page shows the message.",
            headers(("Location" = String, description = "`/cart`, `/checkout`, a purchase's checkout, or `back`."),
                ("Set-Cookie" = String, description = "The cart cookie (`tessera-cart`) at the cart's new revision."))),
        (status = 400, description = "A form that cannot be read (a field with a NUL character).",
            body = String, content_type = "text/html"),
        (status = 403, description = "No crumb, or not the visitor's (SPEC's crumb message).",
            body = String, content_type = "text/html"),
        (status = 404, description = "No site has this host.", body = String, content_type = "text/html"),
        (status = 413, description = "The form is larger than 16 KB.", body = String, content_type = "text/html"),
        (status = 429, description = "Too many cart changes from this client; try again in a few seconds.",
            body = String, content_type = "text/html",
            headers(("Retry-After" = u64, description = "Seconds to wait."))),
        (status = 503, description = "The store cannot be reached right now.", body = String, content_type = "text/html")))]
pub(crate) async fn form_add(
    State(app): State<App>,
    call: Result<Call, ApiError>,
    body: Body,
) -> Answer {
    let (call, form) = match checked(&app, call, body, back_of).await {
        Ok(c) => c,
        Err(answer) => return answer,
    };
    let back = back_of(&form.pairs);
    let item_id = form.get("itemId").unwrap_or_default();
    let refused = |message: &str| {
        Answer::SeeOther(
            SetCookies(Vec::new()),
            with_message(&back, &call.site.secret, &item_id, message),
        )
    };
    let purchase = form.get("purchase").unwrap_or_default();
    let sku = match chosen_sku(&call, &item_id, &form, purchase == "gift-card") {
        Ok(sku) => sku,
        Err(message) => return refused(&message),
    };
    let b = AddBody::of_form(item_id.clone(), sku, form.get("quantity"));
    let token = match purchase.as_str() {
        "subscription" => Some((CartKind::Subscription, "/checkout/subscription")),
        "gift-card" => Some((CartKind::GiftCard, "/checkout/gift-card")),
        _ => None,
    };
    if let Some((kind, page)) = token {
        return match token_cart(&app, &call, b, kind, page).await {
            Ok(cart) => Answer::SeeOther(SetCookies(Vec::new()), cart.checkout_url),
            Err(e) => refused(e.message()),
        };
    }
    match add_item(&app, &call, b).await {
        Ok((cookie, _)) => {
            let express = matches!(
                call.site
                    .content
                    .render
                    .website_settings
                    .pointer(&["storeSettings", "expressCheckout"]),
                Some(template_lang::value::Node::Bool(true))
            );
            let to = if express { "/checkout" } else { CART };
            Answer::SeeOther(cookie, to.to_owned())
        }
        Err(e) => refused(e.message()),
    }
}

/// The cart page's form for one entry, as the document lists it.
#[derive(ToSchema)]
#[schema(as = CartEntryForm)]
#[allow(dead_code)] // a shape for the document
struct EntryForm {
    /// The crumb (the `crumb` cookie's value; `X-CSRF-Token` may carry it instead).
    crumb: Option<String>,
    /// The entry's new quantity, 1-9999.
    quantity: Option<String>,
    /// Any value: remove the entry (the quantity is then not read).
    remove: Option<String>,
}

/// `POST /api/commerce/shopping-cart/form/entries/{entryId}`: the cart page's quantity and
/// remove without JavaScript.
///
/// Form fields as `CartEntryForm`; the rules and messages of `PUT` and `DELETE
/// /api/commerce/shopping-cart/entries/{entryId}`. Answered with 303 to `/cart`, with the
/// message in its query when refused.
#[utoipa::path(post, path = "/api/commerce/shopping-cart/form/entries/{entry_id}", tag = COMMERCE,
    params(("entry_id" = String, Path, description = "The entry's id.")),
    request_body(content = EntryForm, content_type = "application/x-www-form-urlencoded"),
    security(("crumb" = [])),
    responses(
        (status = 303, description = "Changed, or refused (a quantity refused, not enough in \
            stock, no such entry): on to `/cart`, a refusal's message in its query \
            (`cart-error`, `cart-error-sig`), which the cart page shows.",
            headers(("Location" = String, description = "`/cart`."),
                ("Set-Cookie" = String, description = "The cart cookie (`tessera-cart`) at the cart's new revision."))),
        (status = 400, description = "A form that cannot be read (a field with a NUL character).",
            body = String, content_type = "text/html"),
        (status = 403, description = "No crumb, or not the visitor's (SPEC's crumb message).",
            body = String, content_type = "text/html"),
        (status = 404, description = "No site has this host.", body = String, content_type = "text/html"),
        (status = 413, description = "The form is larger than 16 KB.", body = String, content_type = "text/html"),
        (status = 429, description = "Too many cart changes from this client; try again in a few seconds.",
            body = String, content_type = "text/html",
            headers(("Retry-After" = u64, description = "Seconds to wait."))),
        (status = 503, description = "The store cannot be reached right now.", body = String, content_type = "text/html")))]
pub(crate) async fn form_entry(
    State(app): State<App>,
    State(store): State<Store>,
    Path(entry_id): Path<String>,
    call: Result<Call, ApiError>,
    body: Body,
) -> Answer {
    let (call, form) = match checked(&app, call, body, |_| CART.to_owned()).await {
        Ok(c) => c,
        Err(answer) => return answer,
    };
    let done = if form.pairs.iter().any(|(k, _)| k == "remove") {
        remove(&store, &call, &entry_id).await.map(|(c, _, _)| c)
    } else {
        let quantity = form
            .pairs
            .iter()
            .find(|(k, _)| k == "quantity")
            .map(|(_, v)| serde_json::Value::String(v.clone()));
        change_quantity(&app, &call, &entry_id, quantity)
            .await
            .map(|(c, _, _)| c)
    };
    match done {
        Ok(cookie) => Answer::SeeOther(cookie, CART.to_owned()),
        Err(e) => Answer::SeeOther(
            SetCookies(Vec::new()),
            with_message(CART, &call.site.secret, "", e.message()),
        ),
    }
}
