//! Money for visitors: minor units as the SPEC money object (`{currency, value}`) and as text
//! in the site's locale ("€12.50", "$1,234.00", "¥1,500"), through the same CLDR formatting
//! the templates' `money` formatter uses.

use serde::Serialize;
use serde_json::{Value, json};
use template_lang::plugins::i18n::numbers::{CurrencyOptions, format_currency, parse_decimal};
use tenants::commerce::money::decimal_string;

/// An amount (SPEC's money object): the currency and the amount as a decimal string
/// (`{"currency": "EUR", "value": "12.50"}`).
#[derive(Serialize, utoipa::ToSchema)]
pub struct Money {
    /// ISO currency code.
    #[schema(example = "EUR")]
    pub currency: String,
    /// The amount in the currency's units, as a decimal string.
    #[schema(example = "12.50")]
    pub value: String,
}

/// Minor units as [`Money`].
pub fn money_of(minor: i64, currency: &str) -> Money {
    Money {
        currency: currency.to_owned(),
        value: decimal_string(minor, currency),
    }
}

/// `{"currency": "EUR", "value": "12.50"}`.
pub fn money(minor: i64, currency: &str) -> Value {
    json!(money_of(minor, currency))
}

/// An amount as the owner's app reads it: minor units, the currency, and the text the
/// site's locale writes it as.
#[derive(Serialize, utoipa::ToSchema)]
#[schema(as = OwnerMoney)]
pub struct OwnerMoney {
    /// The amount in minor units (cents).
    #[schema(example = 1250)]
    pub minor: i64,
    /// ISO currency code.
    #[schema(example = "EUR")]
    pub currency: String,
    /// The amount as the site's locale writes it.
    #[schema(example = "€12.50")]
    pub formatted: String,
}

/// Minor units as [`OwnerMoney`] in `locale`.
pub fn owner_money(minor: i64, currency: &str, locale: &icu_locale::Locale) -> OwnerMoney {
    OwnerMoney {
        minor,
        currency: currency.to_owned(),
        formatted: money_text(minor, currency, locale),
    }
}

/// Minor units as text in `locale`.
pub fn money_text(minor: i64, currency: &str, locale: &icu_locale::Locale) -> String {
    let decimal = decimal_string(minor, currency);
    let mut out = String::new();
    if let Some(n) = parse_decimal(&decimal) {
        format_currency(&n, currency, &CurrencyOptions::parse([]), locale, &mut out);
    }
    if out.is_empty() {
        // A currency CLDR does not know: the code and the amount.
        out = format!("{currency} {decimal}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use icu_locale::locale;

    #[test]
    fn amounts_read_as_in_the_locale() {
        assert_eq!(money_text(1250, "USD", &locale!("en-US")), "$12.50");
        assert_eq!(money_text(123_456, "USD", &locale!("en-US")), "$1,234.56");
        assert_eq!(money_text(1500, "JPY", &locale!("en-US")), "¥1,500");
        let eur = money_text(1250, "EUR", &locale!("nl-NL"));
        assert!(eur.contains("12,50") && eur.contains('€'), "{eur}");
        assert_eq!(
            money(1250, "EUR"),
            json!({"currency": "EUR", "value": "12.50"})
        );
    }
}
