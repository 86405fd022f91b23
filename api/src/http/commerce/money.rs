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

/// Minor units as text in `locale`: [`fresh_money_text`]'s bytes, from the formatter kept
/// for the locale and currency ([`Kept`], made on a thread's first amount in them).
pub fn money_text(minor: i64, currency: &str, locale: &icu_locale::Locale) -> String {
    KEPT.with_borrow_mut(|kept| {
        let i = match kept
            .iter()
            .position(|(l, c, _)| c == currency && l == locale)
        {
            Some(i) => i,
            None => {
                if kept.len() >= KEPT_PAIRS {
                    kept.clear();
                }
                kept.push((
                    locale.clone(),
                    currency.to_owned(),
                    Kept::new(currency, locale),
                ));
                kept.len() - 1
            }
        };
        match &kept[i].2 {
            Some(k) => k
                .text(minor, currency)
                .unwrap_or_else(|| fresh_money_text(minor, currency, locale)),
            None => fresh_money_text(minor, currency, locale),
        }
    })
}

/// How many (locale, currency) pairs a thread keeps formatters for; a thread that meets
/// more starts over.
const KEPT_PAIRS: usize = 32;

thread_local! {
    /// The formatters this thread keeps, by locale and currency (`None`: the pair's text
    /// is not the kept shape; it is always made fresh).
    static KEPT: std::cell::RefCell<Vec<(icu_locale::Locale, String, Option<Kept>)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// A locale and currency's money text kept as its shape: the text around the amount for
/// amounts of zero and more and for those below zero, and the locale's grouped number
/// formatter for the amount itself (building ICU4X's currency and number formatters is most
/// of a fresh text's work). Made only when it writes what [`fresh_money_text`] writes for
/// amounts of every length and both signs; otherwise there is none.
struct Kept {
    number: icu_decimal::DecimalFormatter,
    /// Before and after the amount, for amounts of zero and more.
    plus: (String, String),
    /// Before and after the amount, for amounts below zero.
    minus: (String, String),
}

impl Kept {
    fn new(currency: &str, locale: &icu_locale::Locale) -> Option<Kept> {
        use icu_decimal::options::{DecimalFormatterOptions, GroupingStrategy};
        let number = icu_decimal::DecimalFormatter::try_new(
            locale.into(),
            DecimalFormatterOptions::from(GroupingStrategy::Auto),
        )
        .ok()?;
        // An amount whose digits are all different, so it stands in the text once.
        const PROBE: i64 = 9_876_543_210;
        let around = |minor: i64| -> Option<(String, String)> {
            let text = fresh_money_text(minor, currency, locale);
            let amount = amount_text(&number, minor, currency)?;
            let mut at = text.match_indices(&amount);
            let (i, _) = at.next()?;
            if at.next().is_some() {
                return None;
            }
            Some((text[..i].to_owned(), text[i + amount.len()..].to_owned()))
        };
        let kept = Kept {
            plus: around(PROBE)?,
            minus: around(-PROBE)?,
            number,
        };
        // Every length of amount (grouping changes with it), both signs, and zero.
        let mut checks = vec![0, i64::MAX, i64::MIN + 1];
        let mut m: i64 = 1;
        for _ in 0..18 {
            checks.extend([m, -m, m * 5 + 3, -(m * 5 + 3)]);
            m *= 10;
        }
        let same = checks
            .iter()
            .all(|&m| kept.text(m, currency) == Some(fresh_money_text(m, currency, locale)));
        same.then_some(kept)
    }

    /// The text of `minor` units; `None` for an amount with no positive counterpart
    /// (`i64::MIN`).
    fn text(&self, minor: i64, currency: &str) -> Option<String> {
        let amount = amount_text(&self.number, minor, currency)?;
        let (before, after) = if minor < 0 { &self.minus } else { &self.plus };
        let mut out = String::with_capacity(before.len() + amount.len() + after.len());
        out.push_str(before);
        out.push_str(&amount);
        out.push_str(after);
        Some(out)
    }
}

/// `minor`'s amount without its sign, as `number` writes it at the currency's digits.
fn amount_text(
    number: &icu_decimal::DecimalFormatter,
    minor: i64,
    currency: &str,
) -> Option<String> {
    let n = parse_decimal(&decimal_string(minor.checked_abs()?, currency))?;
    Some(number.format(&n).to_string())
}

/// Minor units as text in `locale`, made with formatters built for this one amount.
fn fresh_money_text(minor: i64, currency: &str, locale: &icu_locale::Locale) -> String {
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

    #[test]
    fn kept_formatters_write_what_fresh_ones_would() {
        let pairs = [
            ("en-US", "USD"),
            ("en-US", "EUR"),
            ("en-GB", "GBP"),
            ("nl-NL", "EUR"),
            ("de-DE", "EUR"),
            ("de-CH", "CHF"),
            ("fr-FR", "EUR"),
            ("fr-CA", "CAD"),
            ("es-ES", "EUR"),
            ("ja-JP", "JPY"),
            ("en-US", "JPY"),
            ("en-IN", "INR"),
            ("sv-SE", "SEK"),
            ("pt-BR", "BRL"),
            ("pt-PT", "CVE"),
            ("ar-EG", "EGP"),
            ("en-US", "XYZ"),
        ];
        let mut amounts = vec![
            0,
            1,
            -1,
            7,
            99,
            100,
            1250,
            -1250,
            100_000,
            123_456,
            999_999_999,
        ];
        // A fixed spread of other amounts of every length.
        let mut x: i64 = 12_345;
        for _ in 0..200 {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            amounts.push(x >> (x as u32 % 60));
        }
        amounts.extend([i64::MAX, i64::MIN, i64::MIN + 1]);
        for (tag, currency) in pairs {
            let locale: icu_locale::Locale = tag.parse().unwrap();
            for &m in &amounts {
                // Twice: the first call may make the kept formatter, the second uses it.
                for _ in 0..2 {
                    assert_eq!(
                        money_text(m, currency, &locale),
                        fresh_money_text(m, currency, &locale),
                        "{m} {currency} in {tag}"
                    );
                }
            }
        }
        // The everyday pairs have a kept formatter (the rest of the texts are made fresh).
        for (tag, currency) in [
            ("en-US", "USD"),
            ("nl-NL", "EUR"),
            ("ja-JP", "JPY"),
            ("en-IN", "INR"),
        ] {
            let locale: icu_locale::Locale = tag.parse().unwrap();
            let kept = Kept::new(currency, &locale).expect("a kept formatter");
            assert_eq!(
                kept.text(123_456, currency).unwrap(),
                fresh_money_text(123_456, currency, &locale)
            );
        }
    }
}
