//! Money as the store keeps it: integer minor units of an ISO currency (cents; yen for JPY),
//! exact decimal strings at the edges, and the one rounding rule for computed amounts.

use rust_decimal::{Decimal, RoundingStrategy};

/// The currencies a store may sell in (SPEC.md §3 "Supported currencies").
pub const SUPPORTED_CURRENCIES: [&str; 27] = [
    "EUR", "USD", "AUD", "NOK", "CAD", "NZD", "DKK", "GBP", "HKD", "CHF", "MXN", "SGD", "SEK",
    "CZK", "ILS", "PHP", "RUB", "PLN", "THB", "MYR", "ARS", "BRL", "COP", "IDR", "INR", "JPY",
    "ZAR",
];

/// The largest price of one unit, minor units (1,000,000,000.00; a billion yen): with at
/// most [`MAX_QUANTITY`](crate::repo::commerce::MAX_QUANTITY) units a line stays under
/// [`MAX_CART_MINOR`].
pub const MAX_PRICE_MINOR: i64 = 100_000_000_000;

/// The largest cart subtotal, minor units (10^15): exact as a JavaScript number, and far
/// from overflowing i64 once tax and shipping are added. A cart that would exceed it is
/// refused ([`crate::commerce::Refusal::TooLarge`]).
pub const MAX_CART_MINOR: i64 = 1_000_000_000_000_000;

/// A line's amount, `quantity × unit` minor units, when it is within the store's bounds.
pub fn line_minor(quantity: i64, unit_minor: i64) -> Option<i64> {
    quantity
        .checked_mul(unit_minor)
        .filter(|t| (0..=MAX_CART_MINOR).contains(t))
}

/// Minor-unit digits of a currency: 2 for every supported currency but JPY, which has 0.
pub fn minor_digits(currency: &str) -> u32 {
    if currency.eq_ignore_ascii_case("JPY") {
        0
    } else {
        2
    }
}

/// `"12.50"` in a currency → minor units (1250). Exact, no floats; at most the currency's
/// digits after the point, no sign, no exponent.
pub fn parse_price(text: &str, currency: &str) -> Result<i64, String> {
    let digits = minor_digits(currency);
    let (int, frac) = text.split_once('.').unwrap_or((text, ""));
    let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if int.is_empty()
        || !all_digits(int)
        || !all_digits(frac)
        || (text.contains('.') && frac.is_empty())
    {
        return Err(format!("{text:?} is not a price like \"12.50\""));
    }
    if frac.len() > digits as usize {
        return Err(format!(
            "{text:?} has more than {digits} decimals for {currency}"
        ));
    }
    let scale = 10i64.pow(digits);
    let whole: i64 = int.parse().map_err(|_| format!("{text:?} is too large"))?;
    let mut f: i64 = if frac.is_empty() {
        0
    } else {
        frac.parse().map_err(|_| format!("{text:?} is malformed"))?
    };
    for _ in frac.len()..digits as usize {
        f *= 10;
    }
    whole
        .checked_mul(scale)
        .and_then(|w| w.checked_add(f))
        .filter(|m| *m <= MAX_PRICE_MINOR)
        .ok_or_else(|| {
            format!(
                "{text:?} is more than the largest price, {}",
                decimal_string(MAX_PRICE_MINOR, currency)
            )
        })
}

/// Minor units as a decimal string: 1250 USD → "12.50", 1250 JPY → "1250", -5 EUR → "-0.05".
pub fn decimal_string(minor: i64, currency: &str) -> String {
    let digits = minor_digits(currency);
    if digits == 0 {
        return minor.to_string();
    }
    let scale = 10u64.pow(digits);
    let sign = if minor < 0 { "-" } else { "" };
    let abs = minor.unsigned_abs();
    format!(
        "{sign}{}.{:0width$}",
        abs / scale,
        abs % scale,
        width = digits as usize
    )
}

/// The one rounding rule for computed amounts (tax, percentage discounts, instalments): an
/// exact decimal amount of minor units rounded to a whole minor unit, halves away from zero
/// (12.5 → 13, -12.5 → -13). Each amount is rounded once, on the cart as a whole, never per
/// line, so totals do not drift with the number of lines.
pub fn round_minor(amount: Decimal) -> i64 {
    let rounded = amount.round_dp_with_strategy(0, RoundingStrategy::MidpointAwayFromZero);
    i64::try_from(rounded).unwrap_or(if rounded.is_sign_negative() {
        i64::MIN
    } else {
        i64::MAX
    })
}

/// `minor × percent / 100`, rounded by [`round_minor`].
pub fn percent_of(minor: i64, percent: Decimal) -> i64 {
    round_minor(Decimal::from(minor) * percent / Decimal::ONE_HUNDRED)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Decimal {
        s.parse().unwrap()
    }

    #[test]
    fn prices_become_minor_units_exactly() {
        assert_eq!(parse_price("12.50", "USD"), Ok(1250));
        assert_eq!(parse_price("12.5", "USD"), Ok(1250));
        assert_eq!(parse_price("12", "EUR"), Ok(1200));
        assert_eq!(parse_price("0.05", "EUR"), Ok(5));
        assert_eq!(parse_price("1500", "JPY"), Ok(1500));
        assert!(parse_price("15.5", "JPY").is_err());
        for bad in ["", ".5", "5.", "-1.00", "1e3", "12.345", "1,00", " 1"] {
            assert!(parse_price(bad, "USD").is_err(), "{bad:?}");
        }
        assert!(parse_price("99999999999999999999", "USD").is_err());
        assert_eq!(parse_price("1000000000.00", "USD"), Ok(MAX_PRICE_MINOR));
        assert!(parse_price("1000000000.01", "USD").is_err());
        assert!(parse_price("92233720368547758.07", "USD").is_err());
    }

    #[test]
    fn line_amounts_are_checked() {
        assert_eq!(line_minor(2, 1250), Some(2500));
        assert_eq!(line_minor(9999, MAX_PRICE_MINOR), Some(999_900_000_000_000));
        assert_eq!(line_minor(2, i64::MAX), None);
        assert_eq!(line_minor(-1, 5), None);
    }

    #[test]
    fn minor_units_print_as_decimal_strings() {
        assert_eq!(decimal_string(1250, "USD"), "12.50");
        assert_eq!(decimal_string(5, "EUR"), "0.05");
        assert_eq!(decimal_string(-199, "GBP"), "-1.99");
        assert_eq!(decimal_string(1250, "JPY"), "1250");
        assert_eq!(decimal_string(0, "USD"), "0.00");
        for minor in [0, 1, 99, 100, 123_456_789] {
            assert_eq!(parse_price(&decimal_string(minor, "EUR"), "EUR"), Ok(minor));
        }
    }

    #[test]
    fn halves_round_away_from_zero() {
        assert_eq!(round_minor(d("12.5")), 13);
        assert_eq!(round_minor(d("12.4999")), 12);
        assert_eq!(round_minor(d("-12.5")), -13);
        assert_eq!(round_minor(d("0.5")), 1);
        // 21% of 9.95: 208.95 cents → 209.
        assert_eq!(percent_of(995, d("21")), 209);
        // 10% of 0.05: half a cent → 1.
        assert_eq!(percent_of(5, d("10")), 1);
        assert_eq!(percent_of(0, d("21")), 0);
    }
}
