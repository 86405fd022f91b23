//! The instalment pill (SPEC.md §4 "Instalment pill", §5 "Instalment availability text",
//! §9 "Instalments"): whether a price can be paid in instalments, and the numbers its text
//! needs. The texts themselves are formatted where money is (the server, in the visitor's
//! locale).

use super::money::round_minor;
use super::pricing::product_type;
use super::settings::Instalments;
use rust_decimal::Decimal;

/// What the pill shows for one amount.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InstalmentQuote {
    /// Provider key (`afterpay`).
    pub provider: String,
    /// The provider's name in this market ("Afterpay", or "Clearpay" in the UK).
    pub brand: &'static str,
    /// Number of payments.
    pub payments: i64,
    /// The provider's limits, minor units.
    pub minimum_minor: i64,
    /// The provider's limits, minor units.
    pub maximum_minor: i64,
    /// The amount is within the limits.
    pub in_range: bool,
    /// Out of range above the maximum ("available for orders up to {maximum}"); otherwise
    /// out of range means below the minimum ("available for orders over {minimum}").
    pub over_maximum: bool,
    /// One payment: the amount divided by the number of payments, minor units.
    pub installment_minor: i64,
}

impl InstalmentQuote {
    /// The limit the out-of-range text names: the maximum when above it, else the minimum.
    pub fn limit_minor(&self) -> i64 {
        if self.over_maximum {
            self.maximum_minor
        } else {
            self.minimum_minor
        }
    }
}

/// The provider's markets (SPEC: US en; CA en and fr; AU en; NZ en; GB en) and its name in
/// each: the first name for en_US, en_CA, fr_CA, en_AU, en_NZ, the second for en_GB.
fn brand(locale: &str) -> Option<&'static str> {
    let norm = locale.replace('_', "-").to_ascii_lowercase();
    match norm.as_str() {
        "en-us" | "en-ca" | "fr-ca" | "en-au" | "en-nz" => Some("Afterpay"),
        "en-gb" => Some("Clearpay"),
        _ => None,
    }
}

/// The pill for `amount_minor` in a store whose site locale is `locale` (`en-US`), or `None`
/// when the store offers no instalments or its locale is not one of the provider's markets.
pub fn quote(
    settings: Option<&Instalments>,
    locale: &str,
    amount_minor: i64,
) -> Option<InstalmentQuote> {
    let s = settings?;
    let brand = brand(locale)?;
    let in_range = (s.minimum_minor..=s.maximum_minor).contains(&amount_minor);
    Some(InstalmentQuote {
        provider: s.provider.clone(),
        brand,
        payments: s.payments,
        minimum_minor: s.minimum_minor,
        maximum_minor: s.maximum_minor,
        in_range,
        over_maximum: amount_minor > s.maximum_minor,
        installment_minor: round_minor(Decimal::from(amount_minor) / Decimal::from(s.payments)),
    })
}

/// Instalments are for physical goods only: a cart is eligible when it is not empty and
/// every line is physical.
pub fn cart_eligible(product_types: impl IntoIterator<Item = i64>) -> bool {
    let mut any = false;
    for t in product_types {
        if t != product_type::PHYSICAL {
            return false;
        }
        any = true;
    }
    any
}

#[cfg(test)]
mod tests {
    use super::*;

    fn afterpay() -> Instalments {
        Instalments {
            provider: "afterpay".into(),
            minimum_minor: 100,
            maximum_minor: 200_000,
            payments: 4,
        }
    }

    #[test]
    fn in_range_amounts_split_into_payments() {
        let q = quote(Some(&afterpay()), "en-US", 5000).unwrap();
        assert!(q.in_range && !q.over_maximum);
        assert_eq!(q.installment_minor, 1250);
        assert_eq!(q.brand, "Afterpay");
        // 49.99 / 4 = 12.4975 → 12.50.
        assert_eq!(
            quote(Some(&afterpay()), "en-US", 4999)
                .unwrap()
                .installment_minor,
            1250
        );
        // The limits are inclusive.
        assert!(quote(Some(&afterpay()), "en-US", 100).unwrap().in_range);
        assert!(quote(Some(&afterpay()), "en-US", 200_000).unwrap().in_range);
    }

    #[test]
    fn out_of_range_names_the_limit_it_broke() {
        let over = quote(Some(&afterpay()), "en-AU", 200_001).unwrap();
        assert!(!over.in_range && over.over_maximum);
        assert_eq!(over.limit_minor(), 200_000);
        let under = quote(Some(&afterpay()), "en-NZ", 99).unwrap();
        assert!(!under.in_range && !under.over_maximum);
        assert_eq!(under.limit_minor(), 100);
    }

    #[test]
    fn markets_and_brands() {
        for l in ["en-US", "en_CA", "fr-CA", "en-AU", "en-NZ"] {
            assert_eq!(quote(Some(&afterpay()), l, 5000).unwrap().brand, "Afterpay");
        }
        assert_eq!(
            quote(Some(&afterpay()), "en-GB", 5000).unwrap().brand,
            "Clearpay"
        );
        for l in ["nl-NL", "fr-FR", "en-IE", "de-CA", ""] {
            assert!(quote(Some(&afterpay()), l, 5000).is_none(), "{l}");
        }
        assert!(quote(None, "en-US", 5000).is_none());
    }

    #[test]
    fn only_carts_of_physical_goods_are_eligible() {
        assert!(cart_eligible([1, 1]));
        assert!(!cart_eligible([1, 2]));
        assert!(!cart_eligible([3]));
        assert!(!cart_eligible([]));
    }
}
