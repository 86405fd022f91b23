//! The argument grammar of the CLDR number formatters (`decimal`, `money` and the nested
//! `{0 decimal ...}` / `{0 currency ...}` message formatters).
//!
//! Each argument is `key` or `key:value`; unknown keys and invalid values are ignored, as
//! the reference does. Digit counts read like JavaScript's `parseInt` (garbage is 0) and are
//! clamped to 0–50.

use crate::value::number::js_parse_int;

/// The largest digit count an option may ask for.
const CLAMP_MAX: u8 = 50;

/// How a number is rounded to the digits kept (CLDR rounding mode names).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Round {
    /// Away from zero.
    Up,
    /// Towards zero (`truncate` is an alias).
    Down,
    /// Towards positive infinity (`ceil` is an alias).
    Ceiling,
    /// Towards negative infinity.
    Floor,
    HalfUp,
    HalfDown,
    #[default]
    HalfEven,
}

/// Digit and grouping options shared by every number style. `None` means "as the pattern
/// or currency says".
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NumberOptions {
    pub group: Option<bool>,
    pub round: Option<Round>,
    pub min_int: Option<u8>,
    pub max_frac: Option<u8>,
    pub min_frac: Option<u8>,
    pub max_sig: Option<u8>,
    pub min_sig: Option<u8>,
}

/// `style:` of `decimal`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DecimalStyle {
    #[default]
    Decimal,
    Short,
    Long,
    Scientific,
    /// Multiplies by 100 and appends the percent sign.
    Percent,
    /// Appends the percent sign to the number as it is.
    PercentScaled,
    /// Multiplies by 1000 and appends the per-mille sign.
    Permille,
    PermilleScaled,
}

/// `style:` of `money`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CurrencyStyle {
    #[default]
    Symbol,
    Accounting,
    Code,
    Name,
    /// Compact: `$123K`.
    Short,
}

/// Options of `decimal`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DecimalOptions {
    pub style: DecimalStyle,
    pub number: NumberOptions,
}

/// Options of `money`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CurrencyOptions {
    pub style: CurrencyStyle,
    /// `symbol:narrow`.
    pub narrow: bool,
    pub number: NumberOptions,
}

/// Splits `key:value` at the first colon; a bare key has an empty value.
fn split(arg: &str) -> (&str, &str) {
    arg.split_once(':').unwrap_or((arg, ""))
}

impl DecimalOptions {
    pub fn parse<'s>(args: impl IntoIterator<Item = &'s str>) -> DecimalOptions {
        let mut o = DecimalOptions::default();
        for arg in args {
            let (key, val) = split(arg);
            if key == "style" {
                o.style = match val {
                    "decimal" | "standard" => DecimalStyle::Decimal,
                    "short" => DecimalStyle::Short,
                    "long" => DecimalStyle::Long,
                    "scientific" => DecimalStyle::Scientific,
                    "percent" => DecimalStyle::Percent,
                    "percent-scaled" => DecimalStyle::PercentScaled,
                    "permille" => DecimalStyle::Permille,
                    "permille-scaled" => DecimalStyle::PermilleScaled,
                    _ => o.style,
                };
            } else {
                o.number.apply(key, val);
            }
        }
        o
    }
}

impl CurrencyOptions {
    pub fn parse<'s>(args: impl IntoIterator<Item = &'s str>) -> CurrencyOptions {
        let mut o = CurrencyOptions::default();
        for arg in args {
            let (key, val) = split(arg);
            match key {
                "style" => {
                    o.style = match val {
                        "symbol" | "standard" => CurrencyStyle::Symbol,
                        "accounting" => CurrencyStyle::Accounting,
                        "code" => CurrencyStyle::Code,
                        "name" => CurrencyStyle::Name,
                        "short" => CurrencyStyle::Short,
                        _ => o.style,
                    }
                }
                "symbol" => match val {
                    "narrow" => o.narrow = true,
                    "default" => o.narrow = false,
                    _ => {}
                },
                _ => o.number.apply(key, val),
            }
        }
        o
    }
}

impl NumberOptions {
    /// Applies one `key:value` option; unknown keys do nothing.
    fn apply(&mut self, key: &str, val: &str) {
        match key {
            "group" | "grouping" => self.group = Some(val.is_empty() || val == "true"),
            "no-group" | "no-grouping" => self.group = Some(false),
            "round" | "rounding" => {
                let mode = match val {
                    "up" => Round::Up,
                    "down" | "truncate" => Round::Down,
                    "ceiling" | "ceil" => Round::Ceiling,
                    "floor" => Round::Floor,
                    "half-up" => Round::HalfUp,
                    "half-down" => Round::HalfDown,
                    "half-even" => Round::HalfEven,
                    _ => return,
                };
                self.round = Some(mode);
            }
            "minint" | "minInt" | "minimumIntegerDigits" => self.min_int = Some(digits(val)),
            "maxfrac" | "maxFrac" | "maximumFractionDigits" => self.max_frac = Some(digits(val)),
            "minfrac" | "minFrac" | "minimumFractionDigits" => self.min_frac = Some(digits(val)),
            "maxsig" | "maxSig" | "maximumSignificantDigits" => self.max_sig = Some(digits(val)),
            "minsig" | "minSig" | "minimumSignificantDigits" => self.min_sig = Some(digits(val)),
            _ => {}
        }
    }
}

/// A digit count: `parseInt` of the text (0 when it is not a number), clamped to 0–50.
fn digits(val: &str) -> u8 {
    let n = js_parse_int(val);
    if n.is_nan() || n <= 0.0 {
        0
    } else if n >= f64::from(CLAMP_MAX) {
        CLAMP_MAX
    } else {
        n as u8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_styles_and_aliases() {
        let o = DecimalOptions::parse(["style:standard"]);
        assert_eq!(o.style, DecimalStyle::Decimal);
        let o = DecimalOptions::parse(["style:permille-scaled", "style:bogus"]);
        assert_eq!(o.style, DecimalStyle::PermilleScaled);
        let o = DecimalOptions::parse(["maxFrac:2", "minimumFractionDigits:1", "minsig:3"]);
        assert_eq!(o.number.max_frac, Some(2));
        assert_eq!(o.number.min_frac, Some(1));
        assert_eq!(o.number.min_sig, Some(3));
        assert_eq!(o.number.max_sig, None);
    }

    #[test]
    fn digit_counts_clamp_and_parse_like_parse_int() {
        let o = DecimalOptions::parse(["maxfrac:99", "minfrac:-4", "minint:7px", "maxsig:x"]);
        assert_eq!(o.number.max_frac, Some(50));
        assert_eq!(o.number.min_frac, Some(0));
        assert_eq!(o.number.min_int, Some(7));
        assert_eq!(o.number.max_sig, Some(0));
    }

    #[test]
    fn grouping_and_rounding() {
        assert_eq!(DecimalOptions::parse(["group"]).number.group, Some(true));
        assert_eq!(
            DecimalOptions::parse(["group:no"]).number.group,
            Some(false)
        );
        assert_eq!(
            DecimalOptions::parse(["no-grouping"]).number.group,
            Some(false)
        );
        assert_eq!(
            DecimalOptions::parse(["round:truncate"]).number.round,
            Some(Round::Down)
        );
        assert_eq!(
            DecimalOptions::parse(["rounding:ceil"]).number.round,
            Some(Round::Ceiling)
        );
        assert_eq!(DecimalOptions::parse(["round:sideways"]).number.round, None);
    }

    #[test]
    fn currency_styles_and_width() {
        let o = CurrencyOptions::parse(["style:accounting", "symbol:narrow"]);
        assert_eq!(o.style, CurrencyStyle::Accounting);
        assert!(o.narrow);
        assert_eq!(
            CurrencyOptions::parse(["style:standard"]).style,
            CurrencyStyle::Symbol
        );
        assert_eq!(
            CurrencyOptions::parse(["style:percent"]).style,
            CurrencyStyle::Symbol
        );
    }
}
