//! Checkout as one flow: the cart, the buyer's details checked, the cart priced as it will
//! be placed (refusing an empty cart, a subtotal below the minimum, an address nothing
//! ships to, an unusable gift card, a total other than the one the buyer saw), the amount
//! left after the gift card authorised (or the store's pay-later method, within its own
//! budget), the order placed in one transaction (which refuses if the total moved), then
//! numbered with its emails, with the site's other orders waiting ([`super::numbering`]),
//! then the payment captured; or voided when placing failed.
//!
//! It takes plain parts (the store, the outbox, the payment provider, the site, the inputs)
//! and answers the order or a [`CheckoutError`]; `POST /api/commerce/checkout`
//! ([`crate::routes::commerce::checkout`]) translates both.

use std::net::IpAddr;
use std::sync::Arc;

use serde_json::{Map, Value, json};
use tenants::commerce::{CommerceSettings, Refusal};
use tenants::{
    Address, CartKind, Checkout, CheckoutRead, CheckoutTerms, Email, Order, PaymentMethod, Store,
    StoreError, now_ms,
};

use super::payment::{Card, Charge, PaymentError, PaymentProvider};
use crate::email::Outbox;
use crate::http::ApiError;
use crate::http::limits::{Family, Limits};
use crate::http::site::Site;

/// SPEC §5's email message, with an example address.
pub const EMAIL_INVALID: &str =
    "Email is not valid. Email addresses should follow the format user@domain.com.";

/// An address the mailer can send the order confirmation to
/// ([`tenants::email_address::deliverable`]).
pub fn email_valid(email: &str) -> bool {
    tenants::email_address::deliverable(email).is_some()
}

/// What checkout works with besides the site.
pub struct Deps<'a> {
    pub store: &'a Store,
    /// Told when a confirmation is waiting.
    pub outbox: &'a Outbox,
    /// The pay-later budget ([`Family::PayLater`]).
    pub limits: &'a Limits,
    /// Cards, for the store's mode (test or live); shared, because an order placed is
    /// numbered and captured even when its request is gone.
    pub payments: Arc<dyn PaymentProvider>,
    /// Gives placed orders their numbers.
    pub numbering: &'a super::numbering::Numbering,
}

/// The cart to check out.
pub struct CartRef {
    pub id: String,
    /// The visitor's shopping cart (from the cart cookie), not a purchase's own cart
    /// (subscription, gift card) named by its token.
    pub from_cookie: bool,
}

/// How the buyer pays: `method` is `card` (with `card`) or `manual` (the store's pay-later
/// method).
pub struct Payment {
    pub method: String,
    pub card: Option<Card>,
}

/// What the buyer sent.
pub struct Request {
    pub email: Option<String>,
    pub shipping_address: Option<Address>,
    pub billing_address: Option<Address>,
    pub shipping_option_id: Option<String>,
    pub gift_card_code: Option<String>,
    /// The grand total the buyer saw.
    pub expected_grand_total_cents: Option<i64>,
    /// Needed unless a gift card or coupons cover it all.
    pub payment: Option<Payment>,
    /// The buyer's order notes, kept when the store asks for them
    /// (`checkout.orderNotesLabel`).
    pub order_notes: Option<String>,
    /// Who the gift cards bought are for: an email address (blank: the buyer) and a message.
    pub gift_card_recipient: Option<Recipient>,
    /// The member signed in, if any: the paid member areas the order buys are theirs.
    pub member: Option<String>,
    /// Where the checkout came in: the order's emails are written for it.
    pub placed_from: Option<tenants::PlacedFrom>,
}

/// Who a gift card purchase is for, as sent.
pub struct Recipient {
    pub email: Option<String>,
    pub message: Option<String>,
}

/// The longest order notes taken, in characters.
pub const ORDER_NOTES_MAX: usize = 1000;
/// The longest message to a gift card's recipient, in characters.
pub const GIFT_MESSAGE_MAX: usize = 500;

/// Why checkout did not place an order. No money is held after any of them.
#[derive(Debug, thiserror::Error)]
pub enum CheckoutError {
    /// The cart is not one of this site's open carts of the kind asked for.
    #[error("no such cart")]
    NoCart,
    /// The store could not be read.
    #[error("the store is unavailable: {0}")]
    Unavailable(StoreError),
    /// The cart was already checked out; its order, when it has one.
    #[error("the cart was already checked out")]
    AlreadyPlaced { order_id: Option<String> },
    /// The buyer's details, field → message.
    #[error("fields are missing or invalid")]
    Fields(Map<String, Value>),
    /// The store refused or failed (pricing, stock, placing); amounts are in `currency`.
    #[error("the store refused: {error}")]
    Store { error: StoreError, currency: String },
    /// Paying by card without a card.
    #[error("no card")]
    CardRequired,
    /// A payment method that is neither `card` nor `manual`.
    #[error("unknown payment method")]
    UnknownMethod,
    /// The card was refused, or the provider could not be reached.
    #[error("payment failed: {0:?}")]
    Payment(PaymentError),
    /// The client's pay-later budget is spent (or could not be read): the limiter's answer.
    #[error("pay-later budget: {}", .0.message())]
    PayLaterLimited(ApiError),
}

/// The message for a country that is not an ISO 3166-1 code.
pub const COUNTRY_NOT_LISTED: &str = "Choose a country from the list.";
/// The message for a region that is not one of the country's ISO 3166-2 regions.
pub const REGION_NOT_LISTED: &str = "Choose a region from the list.";

/// The country and region of an address or location checked against the ISO lists
/// ([`tenants::commerce::places`]): field → message into `errors` under `prefix` (empty
/// for a bare location), and the country and region codes kept as the lists write them
/// (`us`, `us-me` → `US`, `ME`). `region_required`: a country with regions needs one (an
/// address); a location being quoted may not have it yet.
pub fn check_place(
    prefix: &str,
    country: &mut String,
    region: &mut Option<String>,
    region_required: bool,
    errors: &mut Map<String, Value>,
) {
    use tenants::commerce::places;
    let key = |field: &str| {
        if prefix.is_empty() {
            field.to_owned()
        } else {
            format!("{prefix}.{field}")
        }
    };
    let text = country.trim();
    if text.is_empty() {
        return; // "Required", said by the caller.
    }
    let Some(c) = places::country(text) else {
        errors.insert(key("country"), json!(COUNTRY_NOT_LISTED));
        return;
    };
    *country = c.code.to_owned();
    match region.as_deref().map(str::trim).filter(|r| !r.is_empty()) {
        Some(r) => match places::region(c.code, r) {
            Some(found) => *region = Some(found.code.to_owned()),
            None => {
                errors.insert(key("region"), json!(REGION_NOT_LISTED));
            }
        },
        None => {
            *region = None;
            if region_required && places::has_regions(c.code) {
                errors.insert(key("region"), json!("Required"));
            }
        }
    }
}

/// Checks an address's fields into `errors` under `prefix` (`shippingAddress.city`), and
/// writes its country and region as their codes.
fn check_address(prefix: &str, a: &mut Address, errors: &mut Map<String, Value>) {
    let mut need = |field: &str, value: &str| {
        let value = value.trim();
        if value.is_empty() {
            errors.insert(format!("{prefix}.{field}"), json!("Required"));
        } else if value.chars().count() > 200 {
            errors.insert(
                format!("{prefix}.{field}"),
                json!("At most 200 characters."),
            );
        }
    };
    need("firstName", &a.first_name);
    need("lastName", &a.last_name);
    need("line1", &a.line1);
    need("city", &a.city);
    need("postalCode", &a.postal_code);
    need("country", &a.country);
    for (field, v) in [
        ("line2", &a.line2),
        ("region", &a.region),
        ("phone", &a.phone),
    ] {
        if v.as_deref().is_some_and(|v| v.chars().count() > 200) {
            errors.insert(
                format!("{prefix}.{field}"),
                json!("At most 200 characters."),
            );
        }
    }
    if !errors.contains_key(&format!("{prefix}.region")) {
        check_place(prefix, &mut a.country, &mut a.region, true, errors);
    }
}

/// What checkout keeps besides the addresses: the order notes under the store's label, and
/// the gift cards' recipient (none when the email is blank: the buyer gets the code).
struct Extras {
    notes: Option<tenants::OrderNotes>,
    recipient: Option<tenants::GiftCardRecipient>,
}

/// The buyer's email and addresses checked against the cart and the store's settings (the
/// shipping address is needed when something ships, its phone when the store says so;
/// order notes and a gift card's recipient are bounded): field → message for each problem.
fn check_details(
    r: &mut Request,
    ships: bool,
    gifts: bool,
    settings: &CommerceSettings,
) -> Result<Extras, CheckoutError> {
    let mut errors = Map::new();
    let too_long = |max: usize| json!(format!("At most {max} characters."));
    let notes = match (
        &settings.order_notes_label,
        r.order_notes.as_deref().map(str::trim),
    ) {
        (Some(label), Some(text)) if !text.is_empty() => {
            if text.chars().count() > ORDER_NOTES_MAX {
                errors.insert("orderNotes".into(), too_long(ORDER_NOTES_MAX));
            }
            Some(tenants::OrderNotes {
                label: label.clone(),
                text: text.to_owned(),
            })
        }
        _ => None,
    };
    let recipient = match r.gift_card_recipient.as_ref().filter(|_| gifts) {
        Some(Recipient { email, message }) => {
            let email = email.as_deref().map(str::trim).unwrap_or("");
            let message = message.as_deref().map(str::trim).filter(|m| !m.is_empty());
            if !email.is_empty() && !email_valid(email) {
                errors.insert("giftCardRecipient.email".into(), json!(EMAIL_INVALID));
            }
            if message.is_some_and(|m| m.chars().count() > GIFT_MESSAGE_MAX) {
                errors.insert(
                    "giftCardRecipient.message".into(),
                    too_long(GIFT_MESSAGE_MAX),
                );
            }
            (!email.is_empty()).then(|| tenants::GiftCardRecipient {
                email: email.to_owned(),
                message: message.map(str::to_owned),
            })
        }
        None => None,
    };
    if ships
        && settings.require_shipping_phone
        && let Some(a) = &r.shipping_address
        && a.phone.as_deref().is_none_or(|p| p.trim().is_empty())
    {
        errors.insert("shippingAddress.phone".into(), json!("Required"));
    }
    let email = r.email.as_deref().map(str::trim).unwrap_or("");
    if email.is_empty() {
        errors.insert("email".into(), json!("Required"));
    } else if !email_valid(email) {
        errors.insert("email".into(), json!(EMAIL_INVALID));
    }
    match &mut r.shipping_address {
        Some(a) => check_address("shippingAddress", a, &mut errors),
        None if ships => {
            errors.insert("shippingAddress".into(), json!("Required"));
        }
        None => {}
    }
    if let Some(a) = &mut r.billing_address {
        check_address("billingAddress", a, &mut errors);
    }
    if errors.is_empty() {
        Ok(Extras { notes, recipient })
    } else {
        Err(CheckoutError::Fields(errors))
    }
}

/// The cart `cart` names, if it is of the kind it was named for (a token names a
/// purchase's own cart, the cookie the visitor's shopping cart), read in the snapshot its
/// quote is then made in.
async fn the_cart(
    store: &Store,
    site: &Site,
    cart: &CartRef,
) -> Result<CheckoutRead, CheckoutError> {
    store
        .checkout_read(site.tenant.id, &cart.id)
        .await
        .map_err(CheckoutError::Unavailable)?
        .filter(|r| (r.cart.kind == CartKind::Cart) == cart.from_cookie)
        .ok_or(CheckoutError::NoCart)
}

/// Places the order for `cart`: see the module's notes for the order of work.
/// `confirmation` is called once the payment is authorised and gives what writes the
/// order's emails (the buyer's confirmation, the owner's notice), committed with its number
/// (never lost, never sent for a refused checkout).
pub async fn place<M>(
    deps: Deps<'_>,
    site: &Site,
    settings: &CommerceSettings,
    client: IpAddr,
    cart: CartRef,
    mut r: Request,
    confirmation: impl AsyncFnOnce() -> M,
) -> Result<Order, CheckoutError>
where
    M: FnOnce(&Order) -> Vec<Email> + Send + 'static,
{
    let t = site.tenant.id;
    let read = the_cart(deps.store, site, &cart).await?;
    let cart = read.cart.clone();
    let currency = cart
        .currency
        .clone()
        .unwrap_or_else(|| settings.currency.clone());
    let refused = |error: StoreError| CheckoutError::Store {
        error,
        currency: currency.clone(),
    };
    if cart.purchased {
        return Err(CheckoutError::AlreadyPlaced {
            order_id: cart.order_id.clone(),
        });
    }

    let ships = cart
        .entries
        .iter()
        .any(|e| e.product_type == tenants::commerce::product_type::PHYSICAL);
    let gifts = cart
        .entries
        .iter()
        .any(|e| e.product_type == tenants::commerce::product_type::GIFT_CARD);
    let extras = check_details(&mut r, ships, gifts, settings)?;
    let email = r.email.as_deref().map(str::trim).unwrap_or("");

    let terms = CheckoutTerms {
        shipping_address: r.shipping_address.clone().filter(|_| ships),
        billing_address: r
            .billing_address
            .clone()
            .or_else(|| r.shipping_address.clone()),
        shipping_option_id: r.shipping_option_id.clone().filter(|s| !s.is_empty()),
        gift_card_code: r.gift_card_code.clone().filter(|s| !s.trim().is_empty()),
        now_ms: now_ms(),
        notes: extras.notes,
        gift_card_recipient: extras.recipient,
        member: r.member.clone(),
    };
    let quote = read.quote(settings, &terms).await.map_err(refused)?;
    if let Some(expected) = r.expected_grand_total_cents
        && expected != quote.totals.grand_total_minor
    {
        return Err(refused(StoreError::Refused(Refusal::TotalChanged {
            grand_total_minor: quote.totals.grand_total_minor,
        })));
    }

    // Payment for what the gift card does not cover.
    let mut authorization = None;
    let payment = if quote.charge_minor == 0 {
        PaymentMethod::None
    } else {
        match r.payment {
            None => return Err(refused(StoreError::Refused(Refusal::PaymentRequired))),
            Some(p) if p.method == "manual" => match &settings.payments.manual {
                Some(m) => {
                    // An order nobody pays still holds stock until it expires, and mails
                    // the address typed: a budget of its own, per client.
                    deps.limits
                        .check(Family::PayLater, t, client)
                        .await
                        .map_err(CheckoutError::PayLaterLimited)?;
                    PaymentMethod::Manual {
                        label: m.label.clone(),
                    }
                }
                None => {
                    return Err(refused(StoreError::Refused(
                        Refusal::ManualPaymentUnavailable,
                    )));
                }
            },
            Some(p) if p.method == "card" => {
                let card = p.card.ok_or(CheckoutError::CardRequired)?;
                let charge = Charge {
                    amount_minor: quote.charge_minor,
                    currency: currency.clone(),
                    card,
                    description: format!("Order at {}", site.tenant.identifier),
                };
                let auth = deps
                    .payments
                    .authorize(&charge)
                    .await
                    .map_err(CheckoutError::Payment)?;
                let method = PaymentMethod::Card {
                    brand: auth.brand.clone(),
                    last4: auth.last4.clone(),
                    reference: auth.reference.clone(),
                };
                authorization = Some(auth);
                method
            }
            Some(_) => return Err(CheckoutError::UnknownMethod),
        }
    };

    let confirmation = confirmation().await;
    let placed = deps
        .store
        .place_order_provisional(
            t,
            &cart.id,
            &Checkout {
                settings,
                terms,
                customer_email: email.to_owned(),
                expected_total_minor: Some(quote.totals.grand_total_minor),
                charge_minor: quote.charge_minor,
                payment,
                test_mode: settings.payments.test_mode,
                time_zone: &site.content.time_zone,
            },
            r.placed_from.clone(),
        )
        .await;
    let order = match placed {
        Ok(order) => order,
        Err(e) => {
            if let Some(auth) = &authorization {
                deps.payments.void(auth).await;
            }
            return Err(match e {
                StoreError::Refused(Refusal::CartPurchased) => {
                    let fresh = deps.store.cart(t, &cart.id).await.ok().flatten();
                    CheckoutError::AlreadyPlaced {
                        order_id: fresh.as_ref().unwrap_or(&cart).order_id.clone(),
                    }
                }
                e => refused(e),
            });
        }
    };
    // Stored: from here on the order stands. Answered once numbered, with its emails
    // committed; a numbering that fails leaves it to the sweep (which captures then). The
    // numbering and the capture run as a task of their own: a buyer who hangs up while
    // waiting (which drops this request's future) still has the order numbered, mailed
    // and its card captured now, not at the next sweep.
    let finish = tokio::spawn({
        let store = deps.store.clone();
        let numbering = deps.numbering.clone();
        let payments = deps.payments.clone();
        let outbox = deps.outbox.clone();
        async move {
            let numbered = numbering
                .number(&store, t, order, Box::new(confirmation))
                .await?;
            outbox.nudge();
            // Whoever numbered the order captures it: a sweep on another node that numbered
            // it first captured it too.
            super::numbering::capture_numbered(payments.as_ref(), t, &numbered).await;
            Ok::<_, tenants::StoreError>(numbered.order)
        }
    });
    match finish.await {
        Ok(done) => done.map_err(CheckoutError::Unavailable),
        Err(e) => Err(CheckoutError::Unavailable(tenants::StoreError::Io(
            format!("numbering the order stopped: {e}"),
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_name_each_missing_field() {
        let mut errors = Map::new();
        check_address(
            "shippingAddress",
            &mut Address {
                country: "Netherlands".into(),
                ..Default::default()
            },
            &mut errors,
        );
        for f in ["firstName", "lastName", "line1", "city", "postalCode"] {
            assert_eq!(errors[&format!("shippingAddress.{f}")], "Required");
        }
        assert_eq!(errors["shippingAddress.country"], COUNTRY_NOT_LISTED);
    }

    #[test]
    fn countries_and_regions_come_from_the_lists() {
        let check = |country: &str, region: Option<&str>| {
            let mut errors = Map::new();
            let mut a = Address {
                first_name: "Ada".into(),
                last_name: "L".into(),
                line1: "1 Main St".into(),
                city: "Portland".into(),
                postal_code: "04101".into(),
                country: country.into(),
                region: region.map(str::to_owned),
                ..Default::default()
            };
            check_address("billingAddress", &mut a, &mut errors);
            (errors, a.country, a.region)
        };
        let (errors, country, region) = check("us", Some("us-me"));
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!((country.as_str(), region.as_deref()), ("US", Some("ME")));
        assert_eq!(
            check("US", Some("Maine")).0["billingAddress.region"],
            REGION_NOT_LISTED
        );
        assert_eq!(check("US", None).0["billingAddress.region"], "Required");
        assert_eq!(
            check("US", Some(" ")).0["billingAddress.region"],
            "Required"
        );
        assert_eq!(
            check("XX", None).0["billingAddress.country"],
            COUNTRY_NOT_LISTED
        );
        // Gibraltar has no regions: none is needed, and none is taken.
        let (errors, _, region) = check("gi", None);
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(region, None);
        assert_eq!(
            check("GI", Some("ME")).0["billingAddress.region"],
            REGION_NOT_LISTED
        );
    }
}
