//! CLDR number formatting: the `decimal` and `money` formatters and the message
//! language's nested `{0 decimal ...}` / `{0 currency ...}`, as `@phensley/cldr`'s
//! `formatDecimal` / `formatCurrency` print them.
//!
//! The digit logic is ours (the reference's: which fraction or significant digits to keep
//! for the options, the pattern and the currency, how to round, how compact numbers
//! scale); ICU4X supplies the locale data and renders the adjusted number: symbols,
//! grouping, currency and percent patterns, compact suffixes and currency names. ICU4X's
//! currency formatter always rounds to the currency's ISO digits, so the amount it prints
//! is replaced by our rendering of it. Money never goes through `f64`: amounts are parsed
//! straight into [`Decimal`].
//!
//! Checked against the reference with randomized options in en, de, fr, ja and es, and
//! per locale over every language the reference ships. Known differences, all from the
//! newer CLDR in ICU4X (49) or outside everyday use:
//! - a few locales' data: Arabic-script digits (`ar`, `sd`), `ba`, `ht`, `uz` and `fa`
//!   patterns, French long thousands (`1 millier` there, `mille` here), Hindi-style
//!   wrapped exponents;
//! - numbers whose exponent does not fit ICU4X's `i16` magnitudes print nothing;
//! - currency decimal symbols that differ from the number's (e.g. `pt-PT` escudos) keep
//!   ICU4X's rendering of the amount.

use std::fmt::Write;

use fixed_decimal::{Decimal, Sign, SignDisplay, SignedRoundingMode, UnsignedRoundingMode};
use icu_decimal::options::{
    CompactDecimalFormatterOptions, DecimalFormatterOptions, GroupingStrategy,
};
use icu_decimal::{CompactDecimalFormatter, DecimalFormatter};
use icu_experimental::dimension::currency::CurrencyType;
use icu_experimental::dimension::currency::formatter::CurrencyFormatter;
use icu_experimental::dimension::currency::options::{CurrencyFormatterOptions, CurrencyUsage};
use icu_experimental::dimension::percent::formatter::PercentFormatter;
use icu_locale::Locale;

use super::currencies::{fraction_digits, is_known_currency, shows_iso_code};
pub use super::options::{
    CurrencyOptions, CurrencyStyle, DecimalOptions, DecimalStyle, NumberOptions, Round,
};
use crate::exec::Ctx;
use crate::plugins::Registry;
use crate::syntax::tag::Args;
use crate::value::number::number_to_string;
use crate::value::{Val, View};

/// Parses a decimal the way the reference's `new Decimal(text)` does: an optional sign,
/// digits with an optional point, an optional exponent. `None` for anything else (the
/// formatters then print nothing).
pub fn parse_decimal(text: &str) -> Option<Decimal> {
    let (neg, rest) = match text.as_bytes().first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    let (mantissa, exp) = match rest.find(['e', 'E']) {
        Some(i) => {
            let e = &rest[i + 1..];
            let digits = e.strip_prefix(['+', '-']).unwrap_or(e);
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            (&rest[..i], e.parse::<i16>().ok()?)
        }
        None => (rest, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if int.is_empty() && frac.is_empty()
        || !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit())
    {
        return None;
    }
    // fixed_decimal wants at least one integer digit.
    let mut d: Decimal = if int.is_empty() {
        Decimal::try_from_str(&format!("0.{frac}")).ok()?
    } else {
        Decimal::try_from_str(mantissa).ok()?
    };
    if exp != 0 {
        move_point(&mut d, exp);
    }
    if neg {
        d.sign = Sign::Negative;
    }
    Some(d)
}

/// Multiplies by `10^by` keeping the digits' scale, without the leading zeros moving
/// the point left would leave (`0.5` → `50`, not `050`).
pub fn move_point(n: &mut Decimal, by: i16) {
    n.multiply_pow10(by);
    n.absolute.trim_start();
}

/// What `decimal` prints for the reference's non-finite decimals, whatever the style or
/// locale: `NaN`, and `∞` for either infinity.
pub fn non_finite(text: &str) -> Option<&'static str> {
    match text {
        "nan" | "NaN" => Some("NaN"),
        "infinity" | "+infinity" | "Infinity" | "+Infinity" | "-infinity" | "-Infinity" => {
            Some("∞")
        }
        _ => None,
    }
}

/// A value as the reference's message argument converter reads a number: money-like
/// objects by their amount, numbers through their JavaScript text, `true` as 1, anything
/// unreadable as 0.
fn view_to_decimal(v: View<'_>) -> Decimal {
    let parsed = match v {
        View::Obj(o) => o
            .get("decimalValue")
            .or_else(|| o.get("value"))
            .and_then(|a| parse_decimal(&View::of(a).to_str())),
        View::Num(n) if n.is_finite() => parse_decimal(&number_to_string(n)),
        View::Str(s) => parse_decimal(s),
        View::Bool(true) => Some(Decimal::from(1)),
        _ => None,
    };
    parsed.unwrap_or_default()
}

// ---- digit adjustment -----------------------------------------------------------------

/// The digits a number keeps, resolved from the options, the pattern and the currency (the
/// reference's number context).
struct Digits {
    /// Minimum integer digits; `None` keeps the pattern's single digit, `Some(0)` drops
    /// the zero before the point (`.5`).
    min_int: Option<u8>,
    min_frac: i32,
    max_frac: i32,
    /// Significant-digit mode and its bounds (-1 = unbounded).
    significant: bool,
    min_sig: i32,
    max_sig: i32,
    round: Round,
}

/// A pattern's integer and fraction digits (`#,##0.###` is 1, 0, 3).
#[derive(Clone, Copy)]
struct Pattern {
    min_frac: i32,
    max_frac: i32,
}

const DECIMAL_PATTERN: Pattern = Pattern {
    min_frac: 0,
    max_frac: 3,
};
const PERCENT_PATTERN: Pattern = Pattern {
    min_frac: 0,
    max_frac: 0,
};
const SCIENTIFIC_PATTERN: Pattern = Pattern {
    min_frac: 0,
    max_frac: 0,
};

impl Digits {
    /// `currency_digits` replaces the pattern's fraction digits for money; `scientific`
    /// takes the significant digits from the pattern as the scientific style does.
    fn new(
        o: &NumberOptions,
        pattern: Pattern,
        currency_digits: Option<i32>,
        scientific: bool,
    ) -> Digits {
        Digits::resolve(o, pattern, currency_digits, scientific, None)
    }

    /// The digits of a compact number (`1.2K`): significant digits unless fraction digits
    /// are asked for, at most `max_sig` of them by default.
    fn compact(o: &NumberOptions, currency_digits: Option<i32>, max_sig: i32) -> Digits {
        const COMPACT_PATTERN: Pattern = Pattern {
            min_frac: 0,
            max_frac: 0,
        };
        Digits::resolve(o, COMPACT_PATTERN, currency_digits, false, Some(max_sig))
    }

    fn resolve(
        o: &NumberOptions,
        pattern: Pattern,
        currency_digits: Option<i32>,
        scientific: bool,
        compact_max_sig: Option<i32>,
    ) -> Digits {
        let opt_frac = o.min_frac.is_some() || o.max_frac.is_some();
        let opt_sig = o.min_sig.is_some() || o.max_sig.is_some();
        let compact = compact_max_sig.is_some();
        let significant = ((scientific || compact) && !opt_frac) || opt_sig;
        let mut min_frac = currency_digits.unwrap_or(pattern.min_frac);
        let mut max_frac = currency_digits.unwrap_or(pattern.max_frac);
        let opt_min = o.min_frac.map(i32::from);
        let opt_max = o.max_frac.map(i32::from);
        if let Some(max) = opt_max {
            max_frac = max;
        }
        if let Some(min) = opt_min {
            min_frac = match opt_max {
                Some(max) if max < min => max,
                _ => min,
            };
            if min_frac > max_frac {
                max_frac = min_frac;
            }
        }
        if opt_max.is_some() && max_frac < min_frac {
            min_frac = max_frac;
        }
        let (mut min_sig, mut max_sig) = (-1, -1);
        if significant || scientific {
            let or = |v: Option<u8>, d: i32| v.map_or(d, i32::from);
            let (lo, hi) = match (scientific, compact_max_sig) {
                (true, _) => (pattern.min_frac, pattern.max_frac),
                (false, Some(max)) => (1, max),
                (false, None) => (-1, -1),
            };
            min_sig = or(o.min_sig, lo);
            max_sig = or(o.max_sig, hi);
            if min_sig != -1 && max_sig != -1 && min_sig > max_sig {
                max_sig = min_sig;
            }
            if min_sig == -1 {
                min_sig = max_sig;
            }
        }
        Digits {
            min_int: o.min_int,
            min_frac,
            max_frac,
            significant,
            min_sig,
            max_sig,
            round: o.round.unwrap_or_default(),
        }
    }

    /// Rounds and pads `n` to the resolved digits.
    fn adjust(&mut self, n: &mut Decimal, scientific: bool) {
        if self.significant && scientific {
            self.min_sig = self.min_sig.max(1);
            self.max_sig = self.max_sig.max(1);
        }
        if self.significant && self.min_sig >= 0 {
            if self.max_sig != -1 && precision(n) > self.max_sig {
                let scale = self.max_sig - precision(n) + scale(n);
                set_scale(n, scale, self.round);
            }
            n.absolute.trim_end();
            let p = precision(n);
            if p < self.min_sig {
                let scale = self.min_sig - p + scale(n);
                set_scale(n, scale, self.round);
            }
        } else {
            let s = self.min_frac.max(scale(n).min(self.max_frac));
            set_scale(n, s, self.round);
            n.absolute.trim_end();
            if scale(n) < self.min_frac {
                set_scale(n, self.min_frac, self.round);
            }
        }
    }
}

/// Digits after the point, trailing zeros included.
fn scale(n: &Decimal) -> i32 {
    -i32::from(*n.absolute.magnitude_range().start())
}

/// Significant digits: from the first non-zero digit to the last digit kept (1 for zero).
fn precision(n: &Decimal) -> i32 {
    if n.absolute.is_zero() {
        return 1;
    }
    i32::from(n.absolute.nonzero_magnitude_start()) + scale(n) + 1
}

/// Rounds to `scale` fraction digits (negative: to tens, hundreds...) and pads with zeros
/// up to it.
///
/// As in the reference, a rounding that drops every digit leaves zero without rounding
/// when more places are dropped than the number has digits, or when it drops them all
/// from a number of at least one: `0.0000001` rounded up to three places is `0.000`,
/// and `5` rounded to tens is `0`; `0.5` rounded up to units is still `1`.
fn set_scale(n: &mut Decimal, scale: i32, round: Round) {
    let Ok(position) = i16::try_from(-scale) else {
        return;
    };
    let dropped = self::scale(n) - scale;
    if dropped > 0 && !n.absolute.is_zero() {
        let p = precision(n);
        if p < dropped || (p == dropped && n.absolute.nonzero_magnitude_start() >= 0) {
            n.absolute = Default::default();
            if position < 0 {
                n.absolute.pad_end(position);
            }
            return;
        }
    }
    n.round_with_mode(position, mode(round));
    if position < 0 {
        n.absolute.pad_end(position);
    }
}

fn mode(r: Round) -> SignedRoundingMode {
    match r {
        Round::Up => SignedRoundingMode::Unsigned(UnsignedRoundingMode::Expand),
        Round::Down => SignedRoundingMode::Unsigned(UnsignedRoundingMode::Trunc),
        Round::Ceiling => SignedRoundingMode::Ceil,
        Round::Floor => SignedRoundingMode::Floor,
        Round::HalfUp => SignedRoundingMode::Unsigned(UnsignedRoundingMode::HalfExpand),
        Round::HalfDown => SignedRoundingMode::Unsigned(UnsignedRoundingMode::HalfTrunc),
        Round::HalfEven => SignedRoundingMode::Unsigned(UnsignedRoundingMode::HalfEven),
    }
}

/// A zero that rounding left negative prints without its sign.
fn drop_negative_zero(n: &mut Decimal) {
    if n.absolute.is_zero() {
        n.sign = Sign::None;
    }
}

fn pad_integer(n: &mut Decimal, min_int: Option<u8>) {
    if let Some(m) = min_int.filter(|&m| m > 1) {
        n.absolute.pad_start(i16::from(m));
    }
}

/// With `minint:0`, a number below one prints without its integer zero (`-.5`): drops
/// the first digit of `text` when it is that zero.
fn drop_integer_zero(text: &mut String, n: &Decimal, min_int: Option<u8>) {
    if min_int != Some(0) || n.absolute.is_zero() || n.absolute.nonzero_magnitude_start() >= 0 {
        return;
    }
    if let Some(i) = text.find(|c: char| c.is_ascii_digit())
        && text[i..].starts_with('0')
        && !text[i + 1..].starts_with(|c: char| c.is_ascii_digit())
    {
        text.remove(i);
    }
}

// ---- rendering ------------------------------------------------------------------------

fn decimal_formatter(locale: &Locale, group: bool) -> Option<DecimalFormatter> {
    let strategy = if group {
        GroupingStrategy::Auto
    } else {
        GroupingStrategy::Never
    };
    DecimalFormatter::try_new(locale.into(), DecimalFormatterOptions::from(strategy)).ok()
}

/// A compact formatter; `group` picks the locale's grouping or none inside the number
/// (`1,235` rather than ICU4X's default `1235` for a `0` pattern).
fn compact_formatter(locale: &Locale, long: bool, group: bool) -> Option<CompactDecimalFormatter> {
    let strategy = if group {
        GroupingStrategy::Auto
    } else {
        GroupingStrategy::Never
    };
    let options = CompactDecimalFormatterOptions::from(strategy);
    if long {
        CompactDecimalFormatter::try_new_long(locale.into(), options).ok()
    } else {
        CompactDecimalFormatter::try_new_short(locale.into(), options).ok()
    }
}

/// Formats `n` with `decimal` options, appending to `out`.
pub fn format_decimal(n: &Decimal, options: &DecimalOptions, locale: &Locale, out: &mut String) {
    let o = &options.number;
    let group = o.group.unwrap_or(true);
    let mut n = n.clone();
    match options.style {
        DecimalStyle::Decimal => {
            let mut digits = Digits::new(o, DECIMAL_PATTERN, None, false);
            digits.adjust(&mut n, false);
            drop_negative_zero(&mut n);
            pad_integer(&mut n, digits.min_int);
            if let Some(f) = decimal_formatter(locale, group) {
                let mut text = f.format(&n).to_string();
                drop_integer_zero(&mut text, &n, digits.min_int);
                out.push_str(&text);
            }
        }
        DecimalStyle::Percent
        | DecimalStyle::PercentScaled
        | DecimalStyle::Permille
        | DecimalStyle::PermilleScaled => {
            match options.style {
                DecimalStyle::Percent => move_point(&mut n, 2),
                DecimalStyle::Permille => move_point(&mut n, 3),
                _ => {}
            }
            let mut digits = Digits::new(o, PERCENT_PATTERN, None, false);
            digits.adjust(&mut n, false);
            drop_negative_zero(&mut n);
            pad_integer(&mut n, digits.min_int);
            let Some(df) = decimal_formatter(locale, group) else {
                return;
            };
            let Ok(pf) = PercentFormatter::try_new_with_decimal_formatter(
                locale.into(),
                df,
                Default::default(),
            ) else {
                return;
            };
            let mut text = pf.format(&n).to_string();
            drop_integer_zero(&mut text, &n, digits.min_int);
            if matches!(
                options.style,
                DecimalStyle::Permille | DecimalStyle::PermilleScaled
            ) {
                out.push_str(&text.replace(['%', '٪', '％'], "‰"));
            } else {
                out.push_str(&text);
            }
        }
        DecimalStyle::Scientific => scientific(n, o, locale, out),
        DecimalStyle::Short | DecimalStyle::Long => {
            let long = options.style == DecimalStyle::Long;
            if let Some(f) = compact_formatter(locale, long, group) {
                push_compact(&f, &n, o, None, out);
            }
        }
    }
}

/// The integer digits of a number as the reference counts them (at least 1).
fn integer_digits(n: &Decimal) -> i32 {
    if n.absolute.is_zero() {
        1
    } else {
        (i32::from(n.absolute.nonzero_magnitude_start()) + 1).max(1)
    }
}

/// Scales `n` for a compact pattern and adjusts its digits as the reference does: the
/// pattern for its integer digits gives the power of ten to divide by, the quotient keeps
/// as many significant digits as it has integer digits (two when it has one), and when
/// rounding carries into a new digit the next pattern is taken. Returns the significand
/// and the power of ten.
fn compact_parts(
    f: &CompactDecimalFormatter,
    n: &Decimal,
    o: &NumberOptions,
    currency_digits: Option<i32>,
) -> (Decimal, u8) {
    let magnitude = |digits: i32| i16::try_from(digits - 1).unwrap_or(i16::MAX);
    let scaled = |exponent: u8| {
        let mut q = n.clone();
        move_point(&mut q, -i16::from(exponent));
        q
    };
    let adjust = |q: &Decimal| {
        let q_digits = integer_digits(q);
        let max_sig = if q_digits == 1 { 2 } else { q_digits };
        let mut digits = Digits::compact(o, currency_digits, max_sig);
        let mut q2 = q.clone();
        digits.adjust(&mut q2, false);
        q2
    };
    let digits = integer_digits(n);
    let mut exponent = f.compact_exponent_for_magnitude(magnitude(digits));
    let q1 = scaled(exponent);
    let mut q2 = adjust(&q1);
    if integer_digits(&q2) > integer_digits(&q1) {
        let next = f.compact_exponent_for_magnitude(magnitude(digits + 1));
        if next > exponent {
            exponent = next;
            q2 = adjust(&scaled(exponent));
        }
    }
    drop_negative_zero(&mut q2);
    if let Some(m) = o.min_int {
        pad_integer(&mut q2, Some(m));
    }
    (q2, exponent)
}

/// Appends `n` in compact form (`1.2K`, `123 thousand`).
fn push_compact(
    f: &CompactDecimalFormatter,
    n: &Decimal,
    o: &NumberOptions,
    currency_digits: Option<i32>,
    out: &mut String,
) {
    let (q, exponent) = compact_parts(f, n, o, currency_digits);
    out.push_str(&render_compact(f, n, &q, exponent, o.min_int));
}

/// The significand `q` times ten to `exponent` in compact form (ICU4X's own compaction of
/// `n` should the exponent not fit its patterns).
fn render_compact(
    f: &CompactDecimalFormatter,
    n: &Decimal,
    q: &Decimal,
    exponent: u8,
    min_int: Option<u8>,
) -> String {
    let mut text = match f.format_with_exponent(q, exponent) {
        Ok(t) => t.to_string(),
        Err(_) => f.format(n).to_string(),
    };
    drop_integer_zero(&mut text, q, min_int);
    text
}

/// `style:scientific`: significant digits (one by default), then `E` and the exponent
/// unless it is zero (`1E+5` for 123456.789 in English; `1×10^−3` in Swedish).
fn scientific(mut n: Decimal, o: &NumberOptions, locale: &Locale, out: &mut String) {
    let mut digits = Digits::new(o, SCIENTIFIC_PATTERN, None, true);
    digits.adjust(&mut n, true);
    // `minint:N` keeps N integer digits in the coefficient (`100E+3`).
    let int_digits = o.min_int.filter(|&m| m > 1).map_or(1, i16::from);
    let top = if n.absolute.is_zero() {
        0
    } else {
        n.absolute.nonzero_magnitude_start()
    };
    let exponent = top - (int_digits - 1);
    let mut coeff = n;
    move_point(&mut coeff, -exponent);
    digits.adjust(&mut coeff, true);
    let Some(f) = decimal_formatter(locale, false) else {
        return;
    };
    let _ = write!(out, "{}", f.format(&coeff));
    if exponent != 0 {
        out.push_str(exponent_symbol(locale));
        // The locale's own signs and digits: format ±exponent and keep the sign.
        let mut e = Decimal::from(exponent);
        e.apply_sign_display(SignDisplay::Always);
        let _ = write!(out, "{}", f.format(&e));
    }
}

/// CLDR's exponent symbol: `E` except in a few locales. (A few more, e.g. Hindi's
/// `[1E+3]` wrapping, are not reproduced.)
fn exponent_symbol(locale: &Locale) -> &'static str {
    let language = locale.id.language.as_str();
    let region = locale.id.region.as_ref().map(|r| r.as_str());
    match (language, region) {
        ("sv" | "et" | "lt", _) | ("en", Some("SE")) => "×10^",
        ("el" | "sk" | "sl", _) => "e",
        ("uk", _) => "Е",
        _ => "E",
    }
}

/// Formats `n` in currency `code` with `money` options, appending to `out`.
///
/// Codes the reference does not know (`XYZ`, `usd`, `EURO`) print as it prints them: no
/// symbol (`\u{a0}5.00`), no name (`5.00 `), the code as given for `style:code`.
pub fn format_currency(
    n: &Decimal,
    code: &str,
    options: &CurrencyOptions,
    locale: &Locale,
    out: &mut String,
) {
    if is_known_currency(code) {
        return format_known_currency(n, code, code, options, locale, out);
    }
    // Format as the ISO "no currency" code, then drop it.
    const PLACEHOLDER: &str = "XXX";
    let mut text = String::new();
    let shown = if options.style == CurrencyStyle::Code {
        code
    } else {
        ""
    };
    format_known_currency(n, PLACEHOLDER, shown, options, locale, &mut text);
    out.push_str(&text.replace(PLACEHOLDER, ""));
}

/// [`format_currency`] for ICU4X's `code`; `shown` is the code or name `style:code` and
/// `style:name` print (empty: ICU4X's name).
fn format_known_currency(
    n: &Decimal,
    code: &str,
    shown: &str,
    options: &CurrencyOptions,
    locale: &Locale,
    out: &mut String,
) {
    let Ok(currency) = CurrencyType::try_from_str(code) else {
        return;
    };
    let placeholder = shown != code;
    let o = &options.number;
    let prefs = locale.into();
    let usage = if options.style == CurrencyStyle::Accounting {
        CurrencyUsage::Accounting
    } else {
        CurrencyUsage::Standard
    };
    let icu_options = CurrencyFormatterOptions::from(usage);
    let iso_symbol = placeholder || !options.narrow && shows_iso_code(locale, code);
    if options.style == CurrencyStyle::Short {
        let Some(f) = compact_formatter(locale, false, o.group.unwrap_or(true)) else {
            return;
        };
        let (mut q, exponent) = compact_parts(&f, n, o, Some(fraction_digits(code)));
        let negative = q.sign == Sign::Negative;
        q.sign = Sign::None;
        let number = render_compact(&f, n, &q, exponent, o.min_int);
        // The sign and symbol come from the locale's currency pattern around one unit.
        let standard = if iso_symbol {
            CurrencyFormatter::try_new_code(prefs, currency, icu_options)
        } else if options.narrow {
            CurrencyFormatter::try_new_symbol_narrow(prefs, currency, icu_options)
        } else {
            CurrencyFormatter::try_new_symbol(prefs, currency, icu_options)
        };
        let (Ok(standard), Some(grouped)) = (standard, decimal_formatter(locale, true)) else {
            return;
        };
        let mut one = Decimal::from(1);
        if negative {
            one.sign = Sign::Negative;
        }
        let shell = standard.format_fixed_decimal(&one).to_string();
        for d in (0..=4).rev() {
            let mut probe = Decimal::from(1);
            set_scale(&mut probe, d, Round::HalfUp);
            let probe = grouped.format(&probe).to_string();
            if let Some(text) = substitute(&shell, &probe, &number) {
                return out.push_str(&text);
            }
        }
        return;
    }
    let formatter = match (options.style, options.narrow) {
        // The code goes where the name would: `1,234.57 USD`.
        (CurrencyStyle::Code | CurrencyStyle::Name, _) => {
            CurrencyFormatter::try_new_name(prefs, currency)
        }
        _ if iso_symbol => CurrencyFormatter::try_new_code(prefs, currency, icu_options),
        (_, false) => CurrencyFormatter::try_new_symbol(prefs, currency, icu_options),
        (_, true) => CurrencyFormatter::try_new_symbol_narrow(prefs, currency, icu_options),
    };
    let Ok(formatter) = formatter else {
        return;
    };
    let mut n = n.clone();
    let mut digits = Digits::new(o, DECIMAL_PATTERN, Some(fraction_digits(code)), false);
    digits.adjust(&mut n, false);
    drop_negative_zero(&mut n);
    let shell = formatter.format_fixed_decimal(&n).to_string();
    // ICU4X renders the amount at the currency's ISO digits with default grouping. When
    // ours differ (explicit digits, no grouping, leading zeros), put our rendering of the
    // amount in place of its own.
    let group = o.group.unwrap_or(true);
    let mut ours = n.clone();
    ours.sign = Sign::None;
    pad_integer(&mut ours, digits.min_int);
    let (Some(plain), Some(grouped)) = (
        decimal_formatter(locale, group),
        decimal_formatter(locale, true),
    ) else {
        return out.push_str(&shell);
    };
    let mut ours_text = plain.format(&ours).to_string();
    drop_integer_zero(&mut ours_text, &ours, digits.min_int);
    let ours = ours_text;
    // ICU4X rounded the amount to the currency's digits (half away from zero); find its
    // rendering of it: the candidate that stands in the text as a whole number.
    let k = scale(&n).max(0);
    for d in (0..=k.max(4)).rev() {
        let mut probe = n.clone();
        probe.sign = Sign::None;
        set_scale(&mut probe, d, Round::HalfUp);
        let probe = grouped.format(&probe).to_string();
        if let Some(i) = find_number(&shell, &probe) {
            let (mut before, after) = (&shell[..i], &shell[i + probe.len()..]);
            // The pattern's spacing between a symbol and a digit does not apply when the
            // number starts with the separator (`KWD.5` with `minint:0`).
            if !ours.starts_with(|c: char| c.is_numeric()) {
                before = before.strip_suffix('\u{a0}').unwrap_or(before);
            }
            if matches!(options.style, CurrencyStyle::Code | CurrencyStyle::Name) {
                // ICU4X picks the name's plural form for the amount at the ISO digits;
                // the reference for the amount as printed (`1 US dollar` with `maxfrac:0`).
                let name = if options.style == CurrencyStyle::Name && !placeholder {
                    currency_name(locale, code, &n)
                } else {
                    None
                };
                let unit = match &name {
                    Some(name) => Some(name.as_str()),
                    None => (options.style == CurrencyStyle::Code || placeholder).then_some(shown),
                };
                push_with_unit(locale, before, &ours, after, unit, out);
            } else {
                out.push_str(before);
                out.push_str(&ours);
                out.push_str(after);
            }
            return;
        }
    }
    out.push_str(&shell);
}

/// Where `number` stands in `text` as a whole number: not preceded by a digit, and not
/// followed by a digit or by a separator and a digit (`1.0` is not in `1.01`).
fn find_number(text: &str, number: &str) -> Option<usize> {
    let digit = |c: Option<char>| c.is_some_and(char::is_numeric);
    text.match_indices(number).map(|(i, _)| i).find(|&i| {
        let before = text[..i].chars().next_back();
        let mut after = text[i + number.len()..].chars();
        let (a1, a2) = (after.next(), after.next());
        let separator_then_digit = a1.is_some_and(|c| !c.is_whitespace()) && digit(a2);
        !(digit(before) || digit(a1) || separator_then_digit)
    })
}

/// `shell` with the first `probe` replaced by `ours`; `None` when `probe` is not in it.
fn substitute(shell: &str, probe: &str, ours: &str) -> Option<String> {
    let i = find_number(shell, probe)?;
    Some(format!(
        "{}{ours}{}",
        &shell[..i],
        &shell[i + probe.len()..]
    ))
}

/// The display name of currency `code` in the plural form for `n` as it prints.
fn currency_name(locale: &Locale, code: &str, n: &Decimal) -> Option<String> {
    use icu_experimental::dimension::provider::currency::extended::CurrencyExtendedDataV1;
    use icu_plurals::{PluralOperands, PluralRules};
    use icu_provider::prelude::*;

    let attributes = DataMarkerAttributes::try_from_str(code).ok()?;
    let data_locale = DataLocale::from(locale);
    let request = DataRequest {
        id: DataIdentifierBorrowed::for_marker_attributes_and_locale(attributes, &data_locale),
        ..Default::default()
    };
    // The baked data ICU4X's own currency constructors read.
    let response: DataResponse<CurrencyExtendedDataV1> =
        icu_experimental::provider::Baked.load(request).ok()?;
    let rules = PluralRules::try_new_cardinal(locale.into()).ok()?;
    let name = response.payload.get().get(PluralOperands::from(n), &rules);
    Some(name.to_owned())
}

/// How the reference's CLDR joins a number and a currency name or code where ICU4X's
/// newer data joins them differently (`5.00ユーロ` in Japanese where ICU4X has a space).
enum UnitPattern {
    /// `{0}{1}`.
    Tight,
    /// `{1} {0}`.
    UnitFirst,
    /// `{1}{0}`.
    UnitFirstTight,
}

fn unit_pattern(locale: &Locale) -> Option<UnitPattern> {
    match locale.id.language.as_str() {
        "ja" | "zh" => Some(UnitPattern::Tight),
        "sw" | "my" => Some(UnitPattern::UnitFirst),
        "si" => Some(UnitPattern::UnitFirstTight),
        _ => None,
    }
}

/// A currency-name rendering (`1,234.57 US dollars`), with the name replaced by `code`
/// when given (`1,234.57 USD`), and joined as the reference joins them.
fn push_with_unit(
    locale: &Locale,
    before: &str,
    number: &str,
    after: &str,
    code: Option<&str>,
    out: &mut String,
) {
    let is_space = |c: char| c.is_whitespace() || c == '\u{a0}' || c == '\u{202f}';
    let name = after.trim_start_matches(is_space);
    if name.trim_end_matches(is_space).is_empty() {
        // The name comes first in ICU4X's pattern: leave it, or put the code in its place.
        match code {
            Some(code) => {
                out.push_str(code);
                out.push_str(&before[before.trim_end_matches(is_space).len()..]);
            }
            None => out.push_str(before),
        }
        out.push_str(number);
        out.push_str(after);
        return;
    }
    let gap = &after[..after.len() - name.len()];
    let unit = code.unwrap_or(name);
    // `before` holds the sign here.
    match unit_pattern(locale) {
        Some(UnitPattern::Tight) => {
            out.push_str(before);
            out.push_str(number);
            out.push_str(unit);
        }
        Some(UnitPattern::UnitFirst) => {
            out.push_str(unit);
            out.push(' ');
            out.push_str(before);
            out.push_str(number);
        }
        Some(UnitPattern::UnitFirstTight) => {
            out.push_str(unit);
            out.push_str(before);
            out.push_str(number);
        }
        None => {
            out.push_str(before);
            out.push_str(number);
            out.push_str(gap);
            out.push_str(unit);
        }
    }
}

// ---- formatters ---------------------------------------------------------------------

pub fn register(r: &mut Registry) {
    r.add_formatter("decimal", decimal);
    r.add_formatter("money", money);
}

/// `decimal OPTIONS...`: the value (read as text) as a locale-formatted number. Nothing
/// without locale data or when the text is not a number.
fn decimal<'a>(ctx: &mut Ctx<'a>, args: &'a Args, vars: &mut [Val<'a>]) {
    let mut out = String::new();
    if let Some(locale) = ctx.env.locale.as_ref() {
        let text = vars[0].view().to_str();
        if let Some(s) = non_finite(&text) {
            out.push_str(s);
        } else if let Some(n) = parse_decimal(&text) {
            format_decimal(&n, &DecimalOptions::parse(args.iter()), locale, &mut out);
        }
    }
    vars[0] = Val::Text(out);
}

/// `money OPTIONS...`: a money object (`decimalValue` + `currencyCode`, or `value` +
/// `currency`) as a locale-formatted amount. Nothing for anything else.
fn money<'a>(ctx: &mut Ctx<'a>, args: &'a Args, vars: &mut [Val<'a>]) {
    let mut out = String::new();
    if let Some(locale) = ctx.env.locale.as_ref() {
        let v = vars[0].view();
        let pair = |a: &str, c: &str| {
            let (a, c) = (member(v, a), member(v, c));
            (!a.is_missing() && !c.is_missing()).then_some((a, c))
        };
        if let Some((amount, code)) =
            pair("decimalValue", "currencyCode").or_else(|| pair("value", "currency"))
            && let Some(n) = parse_decimal(&amount.to_str())
        {
            let options = CurrencyOptions::parse(args.iter());
            format_currency(&n, &code.to_str(), &options, locale, &mut out);
        }
    }
    vars[0] = Val::Text(out);
}

/// An object's member, or missing.
fn member<'x>(v: View<'x>, key: &str) -> View<'x> {
    match v {
        View::Obj(o) => o.get(key).map_or(View::Missing, View::of),
        _ => View::Missing,
    }
}

// ---- message nesting ------------------------------------------------------------------

/// The message language's `{0 currency ...}` / `{0 money ...}`: the first argument is a
/// money object (`decimalValue` + `currencyCode`, or `value` + `currency`).
pub fn nested_currency(
    args: &[Option<View<'_>>],
    options: &[&str],
    locale: &icu_locale::Locale,
    out: &mut String,
) {
    let Some(Some(View::Obj(money))) = args.first() else {
        return;
    };
    let pair = |a: &str, c: &str| Some((money.get(a)?, money.get(c)?));
    let Some((amount, code)) =
        pair("decimalValue", "currencyCode").or_else(|| pair("value", "currency"))
    else {
        return;
    };
    let n = view_to_decimal(View::of(amount));
    let code = View::of(code).to_str();
    format_currency(
        &n,
        &code,
        &CurrencyOptions::parse(options.iter().copied()),
        locale,
        out,
    );
}

/// The message language's `{0 decimal ...}` / `{0 number ...}`.
pub fn nested_decimal(
    args: &[Option<View<'_>>],
    options: &[&str],
    locale: &icu_locale::Locale,
    out: &mut String,
) {
    let Some(Some(v)) = args.first() else {
        return;
    };
    let special = match *v {
        View::Num(n) if !n.is_finite() => non_finite(&number_to_string(n)),
        View::Str(s) => non_finite(s),
        _ => None,
    };
    if let Some(s) = special {
        return out.push_str(s);
    }
    let n = view_to_decimal(*v);
    format_decimal(
        &n,
        &DecimalOptions::parse(options.iter().copied()),
        locale,
        out,
    );
}

#[cfg(test)]
#[path = "numbers_tests.rs"]
mod tests;
