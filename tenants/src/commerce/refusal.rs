//! Why the store refuses a commerce request: the business rules a visitor can run into,
//! as values. The server turns each into its message (SPEC.md §5 and §8 wording where SPEC
//! has one) and status.

use std::fmt;

use super::pricing::CouponProblem;

/// A commerce rule the request breaks. Nothing was changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The sku is not one of the item's variants.
    VariantUnavailable,
    /// The item has options and none was chosen: the option names, in the product's order.
    OptionsNotChosen(Vec<String>),
    /// A gift card was added without choosing its amount.
    NoDenomination,
    /// A quantity outside 1..=9999.
    QuantityOutOfRange,
    /// The store sells this service one at a time (multiple quantities for services off).
    SingleService,
    /// A subscription product: bought through subscription checkout, not the cart.
    SubscriptionOnly,
    /// The product is not sold as a subscription.
    NotSubscribable,
    /// A gift-card purchase of something that is not a gift card.
    NotGiftCard,
    /// The cart was checked out already.
    CartPurchased,
    /// The cart is empty.
    EmptyCart,
    /// The product is priced in another currency than what the cart holds.
    CurrencyMismatch,
    /// The subtotal is below the store's minimum (minor units).
    BelowMinimumSubtotal {
        /// The store's minimum, minor units.
        minimum_minor: i64,
    },
    /// Something must ship and no shipping option ships to the address.
    ShippingUnavailable,
    /// The shipping option asked for is not offered for this cart and address.
    ShippingOptionUnavailable,
    /// A coupon code that cannot be added (unknown, or expired, or not started yet).
    Coupon(CouponProblem),
    /// No gift card has this code.
    GiftCardUnknown,
    /// The gift card has no balance left.
    GiftCardEmpty,
    /// The gift card is in another currency than the order.
    GiftCardCurrency,
    /// The grand total is not what the buyer was shown (it is this now, minor units).
    TotalChanged {
        /// The grand total now.
        grand_total_minor: i64,
    },
    /// What the payment covers no longer matches what is due (a gift card was spent
    /// meanwhile, say); the payment is not taken.
    ChargeChanged,
    /// An amount is due and no payment method was given.
    PaymentRequired,
    /// The store offers no pay-later method.
    ManualPaymentUnavailable,
    /// The order is not paid yet (downloads wait for payment).
    NotPaid,
    /// The cart's amount would pass [`super::money::MAX_CART_MINOR`].
    TooLarge,
    /// Additional-fields answers for a product without an additional-fields form.
    NoAdditionalFields,
    /// A cart line's product is no longer for sale (the owner hid it, or scheduled it for
    /// later, since it was added).
    NoLongerForSale {
        /// The product.
        item_id: String,
        /// Its title as the cart line has it.
        title: String,
    },
    /// The cart holds a paid member area's plan product and nobody is signed in to join it
    /// (a visitor checking out signed out): nobody pays without getting access.
    SignInToJoin {
        /// The area's title.
        area_title: String,
    },
    /// A product that cannot be a member area's price.
    PlanProduct(PlanProblem),
}

/// Why a product cannot be a member area's price ([`Refusal::PlanProduct`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlanProblem {
    /// No product of this site's store has this id.
    NotAProduct,
    /// A gift card: spent like money, not a price.
    GiftCard,
    /// A physical product that is not a subscription: it ships, access does not.
    Physical,
    /// The product has several variants: the join button sells one price.
    Variants,
    /// Another area is sold by it already.
    Taken,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // For logs; visitors get the server's wording.
        write!(f, "{self:?}")
    }
}
