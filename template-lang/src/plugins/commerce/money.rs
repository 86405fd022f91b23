//! Money on product pages (SPEC §9 "Money and numbers"): the CLDR rendering when the site
//! opts in (`featureFlags.useCLDRMoneyFormat`), else the legacy rendering, and the
//! `bookkeeper-money-format` and `percentage-format` formatters.

use std::sync::LazyLock;

use fixed_decimal::{Decimal, SignedRoundingMode, UnsignedRoundingMode};

use super::product::Money;
use crate::exec::Ctx;
use crate::plugins::i18n::currencies::currency_for_region;
use crate::plugins::i18n::numbers::{
    CurrencyOptions, DecimalOptions, format_currency, format_decimal, move_point, parse_decimal,
};
use crate::syntax::path::VarPath;
use crate::syntax::tag::Args;
use crate::value::Val;

/// Appends a price as product pages show it. With `featureFlags.useCLDRMoneyFormat` the
/// amount is formatted for the locale in its currency with the `money` options in `args`
/// (nothing without locale data); otherwise it is the legacy
/// `<span class="sqs-money-native">1,234.50</span>`: two decimals, comma groups, point.
pub fn push_money_string(ctx: &Ctx<'_>, money: Money<'_>, args: &Args, out: &mut String) {
    if cldr_money(ctx) {
        if let Some(locale) = ctx.env.locale.as_ref() {
            let options = CurrencyOptions::parse(args.iter());
            format_currency(&money.amount(), &money.currency(), &options, locale, out);
        }
        return;
    }
    out.push_str("<span class=\"sqs-money-native\">");
    let text = money.amount_text();
    if !push_plain_legacy_amount(&text, out) {
        push_legacy_amount(&money.amount(), out);
    }
    out.push_str("</span>");
}

/// Whether the site opts in to CLDR money (`featureFlags.useCLDRMoneyFormat`).
pub(crate) fn cldr_money(ctx: &Ctx<'_>) -> bool {
    static FLAG: LazyLock<VarPath> =
        LazyLock::new(|| VarPath::from_dotted("featureFlags.useCLDRMoneyFormat"));
    ctx.resolve(&*FLAG).view().truthy()
}

/// [`push_legacy_amount`] for the usual shape of stored amounts, read straight from their
/// text: no sign, no leading zeros, at most 15 integer digits and at most two decimals
/// (`1234.5`), which need no rounding. Product lists print several prices per product,
/// and going through a decimal and back was a tenth of such a page. False (having
/// appended nothing) for any other text.
fn push_plain_legacy_amount(text: &str, out: &mut String) -> bool {
    let (int, frac) = text.split_once('.').unwrap_or((text, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    let plain = !int.is_empty()
        && int.len() <= 15
        && digits(int)
        && (int == "0" || !int.starts_with('0'))
        && frac.len() <= 2
        && digits(frac)
        && frac.is_empty() != text.contains('.');
    if !plain {
        return false;
    }
    for (i, c) in int.char_indices() {
        if i > 0 && (int.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out.push('.');
    out.push_str(frac);
    for _ in frac.len()..2 {
        out.push('0');
    }
    true
}

/// The legacy amount: rounded half away from zero to two decimals, grouped by thousands
/// with commas, point for decimals (`-1,234.50`; a negative amount that rounds to zero
/// keeps its sign, `-0.00`).
///
/// The reference goes through a JavaScript number (cents / 100) and `Intl.NumberFormat`,
/// which rounds the number's shortest decimal form, i.e. the decimal amount itself for
/// every amount of up to 15 significant digits; this works on the decimal directly.
pub fn push_legacy_amount(amount: &Decimal, out: &mut String) {
    let mut d = amount.clone();
    d.round_with_mode(
        -2,
        SignedRoundingMode::Unsigned(UnsignedRoundingMode::HalfExpand),
    );
    d.absolute.pad_end(-2);
    let text = d.to_string();
    let (sign, digits) = match text.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", text.as_str()),
    };
    let (int, frac) = digits.split_once('.').unwrap_or((digits, "00"));
    out.push_str(sign);
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out.push('.');
    out.push_str(frac);
}

/// `bookkeeper-money-format`: an amount in minor units (`12345`) formatted as money in the
/// currency of the locale's region (`$123.45` for en-US). Unreadable amounts count as 0.
pub fn bookkeeper_money_format<'a>(ctx: &mut Ctx<'a>, _: &'a Args, vars: &mut [Val<'a>]) {
    let mut out = String::new();
    if let Some(locale) = ctx.env.locale.as_ref() {
        let mut n = parse_decimal(&vars[0].view().to_str()).unwrap_or_default();
        move_point(&mut n, -2);
        let region = region_of(locale);
        let code = currency_for_region(&region);
        format_currency(&n, code, &CurrencyOptions::default(), locale, &mut out);
    }
    vars[0] = Val::Text(out);
}

/// The locale's region, filled in from likely subtags when it names none (`en` → `US`).
fn region_of(locale: &icu_locale::Locale) -> String {
    if let Some(r) = locale.id.region {
        return r.as_str().to_owned();
    }
    let mut id = locale.id.clone();
    icu_locale::LocaleExpander::new_extended().maximize(&mut id);
    id.region
        .map_or_else(String::new, |r| r.as_str().to_owned())
}

/// `percentage-format [trim]`: the value as a locale decimal with two to three fraction
/// digits (zero to three with `trim`). Unreadable values count as 0.
pub fn percentage_format<'a>(ctx: &mut Ctx<'a>, args: &'a Args, vars: &mut [Val<'a>]) {
    let mut out = String::new();
    if let Some(locale) = ctx.env.locale.as_ref() {
        let trim = args.iter().any(|a| a == "trim");
        let n = parse_decimal(&vars[0].view().to_str()).unwrap_or_default();
        let mut options = DecimalOptions::default();
        options.number.min_frac = Some(if trim { 0 } else { 2 });
        options.number.max_frac = Some(3);
        format_decimal(&n, &options, locale, &mut out);
    }
    vars[0] = Val::Text(out);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn legacy(s: &str) -> String {
        let mut out = String::new();
        push_legacy_amount(&parse_decimal(s).unwrap(), &mut out);
        out
    }

    /// The plain-text shortcut prints what the decimal route prints, for every shape it
    /// takes, and declines everything else.
    #[test]
    fn plain_amounts_print_as_decimals_do() {
        let mut shapes = vec![
            "0".to_string(),
            "0.5".into(),
            "0.05".into(),
            "7".into(),
            "12.5".into(),
            "999.99".into(),
            "100000".into(),
            "123456789012345.67".into(),
        ];
        for digits in 1..=15 {
            let int: String = (1..=digits)
                .map(|d| char::from(b'0' + (d % 10) as u8))
                .collect();
            for frac in ["", ".1", ".09", ".00", ".0"] {
                shapes.push(format!("{int}{frac}"));
            }
        }
        for text in &shapes {
            let mut fast = String::new();
            assert!(push_plain_legacy_amount(text, &mut fast), "{text}");
            assert_eq!(fast, legacy(text), "{text}");
        }
        for text in [
            "",
            ".5",
            "5.",
            "-1",
            "+1",
            "01",
            "00.5",
            "1.005",
            "1e3",
            " 1",
            "1,000",
            "1234567890123456",
        ] {
            let mut out = String::new();
            assert!(!push_plain_legacy_amount(text, &mut out), "{text}");
            assert!(out.is_empty());
        }
    }

    /// Expectations from the reference's legacy rendering (Intl en-US, 2 decimals).
    #[test]
    fn legacy_amounts() {
        assert_eq!(legacy("0"), "0.00");
        assert_eq!(legacy("19.99"), "19.99");
        assert_eq!(legacy("1234.5"), "1,234.50");
        assert_eq!(legacy("1234567.891"), "1,234,567.89");
        assert_eq!(legacy("-1234.5"), "-1,234.50");
        assert_eq!(legacy("0.125"), "0.13");
        assert_eq!(legacy("100"), "100.00");
        assert_eq!(legacy("-0.001"), "-0.00");
        assert_eq!(legacy("1.005"), "1.01");
    }
}
