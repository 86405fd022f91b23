//! Taking payment: a provider interface, and the built-in test-mode provider.
//!
//! Checkout authorizes the amount due before placing the order, captures it once the order
//! is committed, and voids it when placing fails; a crash between the two leaves an
//! authorization that lapses, never money taken without an order.
//!
//! Test mode (`payments.testMode`, the default): `4242 4242 4242 4242` is approved (Visa),
//! `4000 0000 0000 0002` is declined, any other number is refused with a hint. No money
//! moves; orders record `testMode`. A live provider plugs in behind the same trait.

use std::future::Future;
use std::pin::Pin;

use serde::Deserialize;

/// Card details as the buyer typed them.
#[derive(Clone, Debug, Default, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", default)]
#[schema(as = CheckoutCard)]
pub struct Card {
    /// 13-19 digits; spaces or dashes allowed.
    #[schema(required = true)]
    pub number: String,
    /// 1-12.
    #[schema(required = true)]
    pub exp_month: i64,
    /// Four digits (two are read as 20xx).
    #[schema(required = true)]
    pub exp_year: i64,
    /// 3-4 digits.
    #[schema(required = true)]
    pub cvc: String,
}

/// What to authorize.
#[derive(Clone, Debug)]
pub struct Charge {
    pub amount_minor: i64,
    pub currency: String,
    pub card: Card,
    /// For the provider's records ("Order at loam-lantern").
    pub description: String,
}

/// An approved authorization.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Authorization {
    /// The provider's reference.
    pub reference: String,
    pub brand: String,
    pub last4: String,
}

/// Why a payment did not go through; the message is for the buyer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PaymentError {
    /// A card field is wrong (`card.number`, `card.expMonth`, `card.cvc` ...).
    Invalid {
        field: &'static str,
        message: String,
    },
    /// The card was declined.
    Declined(String),
    /// The provider could not be reached or is not set up.
    Unavailable(String),
}

pub type Pending<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A payment provider.
pub trait PaymentProvider: Send + Sync {
    /// Reserves `charge` on the card.
    fn authorize<'a>(
        &'a self,
        charge: &'a Charge,
    ) -> Pending<'a, Result<Authorization, PaymentError>>;
    /// Takes the reserved money (after the order is committed).
    fn capture<'a>(&'a self, auth: &'a Authorization) -> Pending<'a, Result<(), PaymentError>>;
    /// Lets the reservation go (when placing the order failed).
    fn void<'a>(&'a self, auth: &'a Authorization) -> Pending<'a, ()>;
    /// Gives back part or all of a captured payment (`reference`, as [`Authorization`]
    /// named it); the provider's reference for the refund.
    fn refund<'a>(&'a self, refund: &'a Refund) -> Pending<'a, Result<String, PaymentError>>;
}

/// What to give back of a captured payment.
#[derive(Clone, Debug)]
pub struct Refund {
    /// The payment's reference ([`Authorization::reference`]).
    pub payment_reference: String,
    pub amount_minor: i64,
    pub currency: String,
    /// For the provider's records ("Refund of order #12 at loam-lantern: damaged").
    pub description: String,
}

/// The approved test card.
pub const TEST_CARD_OK: &str = "4242424242424242";
/// The declined test card.
pub const TEST_CARD_DECLINED: &str = "4000000000000002";
/// What the declined test card is told.
pub const DECLINED: &str = "Your card was declined.";

/// The built-in test-mode provider.
pub struct TestProvider;

fn luhn(digits: &str) -> bool {
    let sum: u32 = digits
        .bytes()
        .rev()
        .enumerate()
        .map(|(i, b)| {
            let d = u32::from(b - b'0');
            if i % 2 == 1 {
                let x = d * 2;
                if x > 9 { x - 9 } else { x }
            } else {
                d
            }
        })
        .sum();
    sum.is_multiple_of(10)
}

/// Checks the card fields (for any provider): the number (13-19 digits, Luhn), the expiry
/// (not past, as of `today` = (year, month)) and the security code (3-4 digits).
pub fn check_card(card: &Card, today: (i64, i64)) -> Result<String, PaymentError> {
    let invalid = |field, message: &str| PaymentError::Invalid {
        field,
        message: message.to_owned(),
    };
    let digits: String = card
        .number
        .chars()
        .filter(|c| *c != ' ' && *c != '-')
        .collect();
    if !(13..=19).contains(&digits.len())
        || !digits.bytes().all(|b| b.is_ascii_digit())
        || !luhn(&digits)
    {
        return Err(invalid("card.number", "Your card number is incorrect."));
    }
    let year = if card.exp_year < 100 {
        card.exp_year + 2000
    } else {
        card.exp_year
    };
    if !(1..=12).contains(&card.exp_month) || year < 2000 {
        return Err(invalid(
            "card.expMonth",
            "Your card's expiration date is incorrect.",
        ));
    }
    if (year, card.exp_month) < today {
        return Err(invalid("card.expYear", "Your card has expired."));
    }
    let cvc = card.cvc.trim();
    if !(3..=4).contains(&cvc.len()) || !cvc.bytes().all(|b| b.is_ascii_digit()) {
        return Err(invalid(
            "card.cvc",
            "Your card's security code is incorrect.",
        ));
    }
    Ok(digits)
}

fn this_month() -> (i64, i64) {
    let now = jiff::Timestamp::now().to_zoned(jiff::tz::TimeZone::UTC);
    (i64::from(now.year()), i64::from(now.month()))
}

impl PaymentProvider for TestProvider {
    fn authorize<'a>(
        &'a self,
        charge: &'a Charge,
    ) -> Pending<'a, Result<Authorization, PaymentError>> {
        Box::pin(async move {
            let digits = check_card(&charge.card, this_month())?;
            match digits.as_str() {
                TEST_CARD_OK => Ok(Authorization {
                    reference: format!("test_{}", crate::http::signing::random_hex(8)),
                    brand: "Visa".into(),
                    last4: digits[digits.len() - 4..].to_owned(),
                }),
                TEST_CARD_DECLINED => Err(PaymentError::Declined(DECLINED.into())),
                _ => Err(PaymentError::Declined(
                    "This store is in test mode: use the test card 4242 4242 4242 4242.".into(),
                )),
            }
        })
    }

    fn capture<'a>(&'a self, _auth: &'a Authorization) -> Pending<'a, Result<(), PaymentError>> {
        Box::pin(async { Ok(()) })
    }

    fn void<'a>(&'a self, _auth: &'a Authorization) -> Pending<'a, ()> {
        Box::pin(async {})
    }

    /// Any positive amount of a test payment is refunded (no money moves).
    fn refund<'a>(&'a self, refund: &'a Refund) -> Pending<'a, Result<String, PaymentError>> {
        Box::pin(async move {
            if refund.amount_minor <= 0 {
                return Err(PaymentError::Declined("Nothing to refund.".into()));
            }
            Ok(format!(
                "test_refund_{}",
                crate::http::signing::random_hex(8)
            ))
        })
    }
}

/// The provider of a store that is not in test mode: none is set up in this version, so
/// card payments are refused (a pay-later method still works).
pub struct NoLiveProvider;

impl PaymentProvider for NoLiveProvider {
    fn authorize<'a>(
        &'a self,
        _charge: &'a Charge,
    ) -> Pending<'a, Result<Authorization, PaymentError>> {
        Box::pin(async {
            Err(PaymentError::Unavailable(
                "Card payments are not set up for this store.".into(),
            ))
        })
    }

    fn capture<'a>(&'a self, _auth: &'a Authorization) -> Pending<'a, Result<(), PaymentError>> {
        Box::pin(async { Ok(()) })
    }

    fn void<'a>(&'a self, _auth: &'a Authorization) -> Pending<'a, ()> {
        Box::pin(async {})
    }

    fn refund<'a>(&'a self, _refund: &'a Refund) -> Pending<'a, Result<String, PaymentError>> {
        Box::pin(async {
            Err(PaymentError::Unavailable(
                "Card payments are not set up for this store.".into(),
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn card(number: &str, month: i64, year: i64, cvc: &str) -> Card {
        Card {
            number: number.into(),
            exp_month: month,
            exp_year: year,
            cvc: cvc.into(),
        }
    }

    fn charge(c: Card) -> Charge {
        Charge {
            amount_minor: 1000,
            currency: "USD".into(),
            card: c,
            description: "test".into(),
        }
    }

    #[tokio::test]
    async fn the_test_cards() {
        let ok = TestProvider
            .authorize(&charge(card("4242 4242 4242 4242", 12, 2099, "123")))
            .await
            .unwrap();
        assert_eq!((ok.brand.as_str(), ok.last4.as_str()), ("Visa", "4242"));
        let declined = TestProvider
            .authorize(&charge(card("4000-0000-0000-0002", 12, 2099, "123")))
            .await;
        assert_eq!(declined, Err(PaymentError::Declined(DECLINED.into())));
        let other = TestProvider
            .authorize(&charge(card("5555555555554444", 12, 2099, "123")))
            .await;
        assert!(
            matches!(other, Err(PaymentError::Declined(m)) if m.contains("4242 4242 4242 4242"))
        );
    }

    #[tokio::test]
    async fn test_payments_refund() {
        let r = |amount_minor| Refund {
            payment_reference: "test_1".into(),
            amount_minor,
            currency: "USD".into(),
            description: "test".into(),
        };
        let done = TestProvider.refund(&r(500)).await.unwrap();
        assert!(done.starts_with("test_refund_"), "{done}");
        assert!(TestProvider.refund(&r(0)).await.is_err());
        assert!(matches!(
            NoLiveProvider.refund(&r(500)).await,
            Err(PaymentError::Unavailable(_))
        ));
    }

    #[test]
    fn card_fields_are_checked() {
        let today = (2026, 11);
        let field = |c: Card| match check_card(&c, today) {
            Err(PaymentError::Invalid { field, .. }) => field,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            field(card("4242 4242 4242 4241", 12, 2030, "123")),
            "card.number"
        );
        assert_eq!(field(card("4242", 12, 2030, "123")), "card.number");
        assert_eq!(
            field(card("4242424242424242", 13, 2030, "123")),
            "card.expMonth"
        );
        assert_eq!(
            field(card("4242424242424242", 10, 2026, "123")),
            "card.expYear"
        );
        assert_eq!(field(card("4242424242424242", 11, 2026, "12")), "card.cvc");
        assert!(check_card(&card("4242424242424242", 11, 26, "1234"), today).is_ok());
    }
}
