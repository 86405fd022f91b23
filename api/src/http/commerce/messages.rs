//! What commerce calls tell visitors: SPEC.md §5 and §8 wording where SPEC has it (quoted
//! exactly), ours where it is silent, and the status of each refusal.

use axum::http::StatusCode;
use serde_json::json;
use tenants::StoreError;
use tenants::commerce::Refusal;
use tenants::commerce::pricing::CouponProblem;

use super::money::money_text;
use crate::http::ApiError;
use crate::http::error::store_failure;
use crate::http::site::SiteBundle;

/// SPEC §5: a sku that is not one of the item's variants.
pub const VARIANT_UNAVAILABLE: &str =
    "Sorry, that item variant is unavailable. Please select another variant.";
/// SPEC §5: not in stock.
pub const NOT_ENOUGH_STOCK: &str = "Sorry, we do not have enough of that item available.";
/// SPEC §5: a quantity that is not numeric.
pub const QUANTITY_NOT_NUMBER: &str = "Quantity must be a number.";
/// SPEC §5: a quantity that is not whole (no full stop in SPEC).
pub const QUANTITY_NOT_WHOLE: &str = "Quantity must be a whole number";
/// SPEC §5: a gift card without a denomination.
pub const NO_DENOMINATION: &str = "Select a denomination for the Gift Card";
/// Ours: a subscription's or gift card's own cart holds one purchase, fixed when it is made.
pub const TOKEN_CART_FIXED: &str = "This cart holds one purchase; its items cannot change.";
/// Ours: SPEC's quantity input runs from 1 to 9999.
pub const QUANTITY_RANGE: &str = "Quantity must be between 1 and 9999.";

/// SPEC §5: the options that must be chosen, by how many are missing.
pub fn select_options(names: &[String]) -> String {
    match names {
        [] => "Please select an option.".to_owned(),
        [one] => format!("Please select the {one} option."),
        [a, b] => format!("Please select the {a} and {b} options."),
        [list @ .., last] => format!("Please select the {} and {last} options.", list.join(", ")),
    }
}

/// SPEC §8: the minimum checkout subtotal.
pub fn minimum_subtotal(amount: &str) -> String {
    format!("To check out, your order subtotal must be {amount} or more.")
}

/// Why a coupon does not apply, as a visitor reads it, and its short reason code.
pub fn coupon_problem(
    p: &CouponProblem,
    site: &SiteBundle,
    currency: &str,
) -> (&'static str, String) {
    match p {
        CouponProblem::Unknown => ("unknown", "This coupon code is not valid.".to_owned()),
        CouponProblem::NotStarted => ("not-started", "This coupon is not active yet.".to_owned()),
        CouponProblem::Expired => ("expired", "This coupon has expired.".to_owned()),
        CouponProblem::BelowMinimum(min) => (
            "below-minimum",
            format!(
                "This coupon needs a subtotal of {} or more.",
                money_text(*min, currency, &site.locale)
            ),
        ),
        CouponProblem::NothingToDiscount => (
            "nothing-to-discount",
            "This coupon does not apply to the items in your cart.".to_owned(),
        ),
    }
}

/// A cart whose amount would pass the store's largest (`tenants` `MAX_CART_MINOR`).
pub const TOO_LARGE: &str = "That is more than one cart can hold.";
/// Answers for a product that asks no questions.
pub const NO_ADDITIONAL_FIELDS: &str = "This product has no additional fields.";

/// Ours: a cart line whose product the owner hid (or scheduled for later) since it was added.
pub fn no_longer_for_sale(title: &str) -> String {
    format!("Sorry, {title} is no longer for sale. Please remove it from your cart.")
}

/// Ours: a checkout (signed out) of a cart holding a paid member area's plan product.
pub fn sign_in_to_join(area_title: &str) -> String {
    format!("Sign in to join {area_title}: the membership you buy is your account's.")
}

/// Ours: why a product cannot be a member area's price (`planProductId`).
pub fn plan_problem(p: tenants::commerce::PlanProblem) -> &'static str {
    use tenants::commerce::PlanProblem as P;
    match p {
        P::NotAProduct => "Choose a product of this store.",
        P::GiftCard => "A gift card cannot be the price of a member area.",
        P::Physical => {
            "Choose a digital, service or subscription product: a physical product cannot be the price of a member area."
        }
        P::Variants => "Choose a product with one variant: the join button sells one price.",
        P::Taken => tenants::member_areas::PLAN_TAKEN,
    }
}

/// The answer to a refused commerce request.
pub fn refusal(r: &Refusal, site: &SiteBundle, currency: &str) -> ApiError {
    use StatusCode as S;
    let money = |minor: i64| money_text(minor, currency, &site.locale);
    let (status, message) = match r {
        Refusal::VariantUnavailable => (S::BAD_REQUEST, VARIANT_UNAVAILABLE.to_owned()),
        Refusal::OptionsNotChosen(names) => (S::BAD_REQUEST, select_options(names)),
        Refusal::NoDenomination => (S::BAD_REQUEST, NO_DENOMINATION.to_owned()),
        Refusal::QuantityOutOfRange => return ApiError::field("quantity", QUANTITY_RANGE),
        Refusal::SingleService => (
            S::BAD_REQUEST,
            "This service can be booked one at a time.".to_owned(),
        ),
        Refusal::SubscriptionOnly => (
            S::BAD_REQUEST,
            "Subscriptions are bought one at a time, through their own checkout.".to_owned(),
        ),
        Refusal::NotSubscribable => (
            S::BAD_REQUEST,
            "This product is not sold as a subscription.".to_owned(),
        ),
        Refusal::NotGiftCard => (
            S::BAD_REQUEST,
            "This product is not a gift card.".to_owned(),
        ),
        Refusal::CartPurchased => (
            S::CONFLICT,
            "This cart has already been checked out.".to_owned(),
        ),
        Refusal::EmptyCart => (S::BAD_REQUEST, "Your cart is empty.".to_owned()),
        Refusal::SignInToJoin { area_title } => (S::FORBIDDEN, sign_in_to_join(area_title)),
        Refusal::PlanProduct(p) => return ApiError::field("planProductId", plan_problem(*p)),
        Refusal::CurrencyMismatch => (
            S::BAD_REQUEST,
            "This product is priced in another currency than the items in your cart.".to_owned(),
        ),
        Refusal::BelowMinimumSubtotal { minimum_minor } => {
            (S::BAD_REQUEST, minimum_subtotal(&money(*minimum_minor)))
        }
        Refusal::ShippingUnavailable => {
            return ApiError::field("shippingAddress", "We do not ship to this address.");
        }
        Refusal::ShippingOptionUnavailable => {
            return ApiError::field(
                "shippingOptionId",
                "That shipping option is not available for this order.",
            );
        }
        Refusal::Coupon(p) => {
            let (_, message) = coupon_problem(p, site, currency);
            return ApiError::field("code", message);
        }
        Refusal::GiftCardUnknown => {
            return ApiError::field("giftCardCode", "No gift card has this code.");
        }
        Refusal::GiftCardEmpty => {
            return ApiError::field("giftCardCode", "This gift card has no balance left.");
        }
        Refusal::GiftCardCurrency => {
            return ApiError::field("giftCardCode", "This gift card is in another currency.");
        }
        Refusal::TotalChanged { grand_total_minor } => {
            let mut e = ApiError::new(
                S::CONFLICT,
                format!(
                    "Your order total changed to {}. Please review your order.",
                    money(*grand_total_minor)
                ),
            );
            e.body["grandTotalCents"] = json!(grand_total_minor);
            return e;
        }
        Refusal::ChargeChanged => (
            S::CONFLICT,
            "Your order total changed. Please review your order.".to_owned(),
        ),
        Refusal::PaymentRequired => return ApiError::field("payment", "Choose how to pay."),
        Refusal::ManualPaymentUnavailable => {
            return ApiError::field("payment", "This store does not offer that payment method.");
        }
        Refusal::NotPaid => (
            S::FORBIDDEN,
            "This order is waiting for payment.".to_owned(),
        ),
        Refusal::TooLarge => return ApiError::field("quantity", TOO_LARGE),
        Refusal::NoAdditionalFields => {
            return ApiError::field("additionalFields", NO_ADDITIONAL_FIELDS);
        }
        Refusal::NoLongerForSale { item_id, title } => {
            let mut e = ApiError::new(S::CONFLICT, no_longer_for_sale(title));
            e.body["itemId"] = json!(item_id);
            return e;
        }
    };
    ApiError::new(status, message)
}

/// What a visitor is told when a store call fails: refusals and stock by their messages,
/// missing rows as 404 with `not_found`, anything else as 503 (logged).
pub fn store_error(e: &StoreError, site: &SiteBundle, currency: &str, not_found: &str) -> ApiError {
    match e {
        StoreError::Refused(r) => refusal(r, site, currency),
        StoreError::OutOfStock { .. } => ApiError::new(StatusCode::CONFLICT, NOT_ENOUGH_STOCK),
        StoreError::NotFound(_) => ApiError::not_found(not_found),
        StoreError::Invalid(reason) => ApiError::bad_request(reason.clone()),
        other => store_failure(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn option_messages_follow_spec() {
        let n = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            select_options(&n(&["Size"])),
            "Please select the Size option."
        );
        assert_eq!(
            select_options(&n(&["Size", "Colour"])),
            "Please select the Size and Colour options."
        );
        assert_eq!(
            select_options(&n(&["Size", "Colour", "Wick"])),
            "Please select the Size, Colour and Wick options."
        );
        assert_eq!(
            minimum_subtotal("€15.00"),
            "To check out, your order subtotal must be €15.00 or more."
        );
    }
}
