//! Numbers the JavaScript way: printing (`String(n)`), `parseInt(s, 10)`, `parseFloat(s)`.
//!
//! The reference engine is JavaScript, so every number a template prints or reads back from
//! a string must go through these rules: `1.0` prints `1`, `1e21` prints `1e+21`, and
//! `parseFloat("12px")` is 12.

/// Appends `n` as JavaScript's `String(n)` prints it. Always inlined: printing a small
/// integer is a handful of instructions, less than a call (the rest is out of line).
#[inline(always)]
pub fn push_number(n: f64, out: &mut String) {
    match small_integer(n) {
        // Integers are by far the most common case (counts, indexes, years, table cells).
        Some((negative, v)) => {
            // -0 prints as "0", as in JavaScript.
            if negative && v != 0 {
                out.push('-');
            }
            push_digits(v, out);
        }
        None => push_non_integer(n, out),
    }
}

#[cold]
fn push_non_integer(n: f64, out: &mut String) {
    if !push_short_decimal(n, out) {
        let mut buf = ryu_js::Buffer::new();
        out.push_str(buf.format(n));
    }
}

/// Prints `n` when it is a decimal with at most six digits after the point and below 10^9
/// (focal points, ratios, prices as numbers), the way JavaScript does; `false` otherwise.
///
/// JavaScript prints the shortest digits that read back as `n`. In this range a double is
/// finer than 10^-6, so for each count `k` of fraction digits at most one decimal can
/// read back as `n`: the integer `m` nearest to `n·10^k`, when `m / 10^k` (a correctly
/// rounded division, as parsing is) gives `n` again. The smallest such `k` gives the
/// shortest digits. A general shortest-digits search (ryu) costs ten times as much.
fn push_short_decimal(n: f64, out: &mut String) -> bool {
    const SCALES: [f64; 6] = [1e1, 1e2, 1e3, 1e4, 1e5, 1e6];
    let magnitude = n.abs();
    if !(1e-6..1e9).contains(&magnitude) {
        return false;
    }
    for (digits, scale) in (1..).zip(SCALES) {
        let m = (magnitude * scale).round();
        if m / scale != magnitude {
            continue;
        }
        let (m, pow) = (m as u64, scale as u64);
        let fraction = m % pow;
        if fraction == 0 {
            // An integer: not this printer's case.
            return false;
        }
        if n < 0.0 {
            out.push('-');
        }
        push_digits(m / pow, out);
        out.push('.');
        // Leading zeros of the fraction ("0.05"); its last digit is never 0, or fewer
        // digits would have read back.
        for _ in fraction.ilog10() as usize + 1..digits {
            out.push('0');
        }
        push_digits(fraction, out);
        return true;
    }
    false
}

/// `n` as a sign and magnitude when it is an integer below 2^53, where every integer is
/// exact and JavaScript prints all its digits. The test reads the exponent and the fraction
/// bits: the float conversions of an `(n as i64) as f64 == n` round trip sit on the critical
/// path of every printed number and cost more than the digits themselves.
#[inline]
fn small_integer(n: f64) -> Option<(bool, u64)> {
    const FRACTION_BITS: u32 = 52;
    let bits = n.to_bits();
    let negative = bits >> 63 == 1;
    let biased = ((bits >> FRACTION_BITS) & 0x7ff) as u32;
    if biased == 0 {
        // Zero, or a subnormal (which is no integer).
        return (bits << 1 == 0).then_some((negative, 0));
    }
    // The value is 1.fraction × 2^exponent: below 2^0 it has a fraction; from 2^53 on
    // integers are no longer all exact and the general printer decides the digits.
    let exponent = biased
        .checked_sub(1023)
        .filter(|e| *e < FRACTION_BITS + 1)?;
    let mantissa = (bits & ((1 << FRACTION_BITS) - 1)) | (1 << FRACTION_BITS);
    let shift = FRACTION_BITS - exponent;
    (mantissa & ((1 << shift) - 1) == 0).then_some((negative, mantissa >> shift))
}

/// Every number from 00 to 99, two digits each: integers print two digits at a time, as
/// slices of this text. Each piece has a fixed length, so appending it is two stores, where
/// a digit buffer of varying length would go through `memcpy` (and a UTF-8 check).
const PAIRS: &str = "0001020304050607080910111213141516171819202122232425262728293031323334353637383940414243444546474849\
                     5051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899";

/// Appends the decimal digits of `n`. Numbers below 100 (counts, indexes, quantities,
/// table cells) are one fixed-size copy, inline; longer ones go two digits at a time.
#[inline(always)]
fn push_digits(n: u64, out: &mut String) {
    if n < 100 {
        push_below_100(n, out);
    } else {
        push_long_digits(n, out);
    }
}

#[inline(always)]
fn push_below_100(n: u64, out: &mut String) {
    let at = n as usize * 2;
    if n >= 10 {
        out.push_str(&PAIRS[at..at + 2]);
    } else {
        // The second digit of "0n".
        out.push_str(&PAIRS[at + 1..at + 2]);
    }
}

fn push_long_digits(n: u64, out: &mut String) {
    if n >= 100 {
        push_long_digits(n / 100, out);
        let at = (n % 100) as usize * 2;
        out.push_str(&PAIRS[at..at + 2]);
    } else {
        push_below_100(n, out);
    }
}

/// `String(n)` as an owned string.
pub fn number_to_string(n: f64) -> String {
    let mut s = String::new();
    push_number(n, &mut s);
    s
}

/// JavaScript's StrWhiteSpaceChar set, used by `trim`, `parseInt` and `parseFloat`.
pub fn is_js_whitespace(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{0B}' | '\u{0C}' | '\r' | ' ' | '\u{A0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200A}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202F}'
                | '\u{205F}'
                | '\u{3000}'
                | '\u{FEFF}'
    )
}

/// `String.prototype.trim()`.
pub fn js_trim(s: &str) -> &str {
    s.trim_matches(is_js_whitespace)
}

/// `parseInt(s, 10)`: leading whitespace, an optional sign, then the longest run of digits.
pub fn js_parse_int(s: &str) -> f64 {
    let s = s.trim_start_matches(is_js_whitespace);
    let (neg, digits) = split_sign(s);
    let end = digits
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(digits.len());
    if end == 0 {
        return f64::NAN;
    }
    let v: f64 = digits[..end].parse().unwrap_or(f64::NAN);
    if neg { -v } else { v }
}

/// `parseFloat(s)`: leading whitespace, then the longest prefix that is a decimal literal
/// (or `Infinity`).
pub fn js_parse_float(s: &str) -> f64 {
    let s = s.trim_start_matches(is_js_whitespace);
    let (neg, rest) = split_sign(s);
    let sign = if neg { -1.0 } else { 1.0 };
    if rest.starts_with("Infinity") {
        return sign * f64::INFINITY;
    }
    let b = rest.as_bytes();
    let mut i = 0;
    let int_digits = count_digits(&b[i..]);
    i += int_digits;
    let mut frac_digits = 0;
    if i < b.len() && b[i] == b'.' {
        frac_digits = count_digits(&b[i + 1..]);
        if int_digits > 0 || frac_digits > 0 {
            i += 1 + frac_digits;
        }
    }
    if int_digits == 0 && frac_digits == 0 {
        return f64::NAN;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        let mut j = i + 1;
        if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
            j += 1;
        }
        let exp_digits = count_digits(&b[j..]);
        if exp_digits > 0 {
            i = j + exp_digits;
        }
    }
    let text = &rest[..i];
    let text = text.strip_suffix('.').unwrap_or(text);
    sign * text.parse::<f64>().unwrap_or(f64::NAN)
}

fn split_sign(s: &str) -> (bool, &str) {
    match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    }
}

fn count_digits(b: &[u8]) -> usize {
    b.iter().take_while(|c| c.is_ascii_digit()).count()
}

/// `Math.round`: halves round towards +Infinity.
pub fn js_round(n: f64) -> f64 {
    if !n.is_finite() || n.fract() == 0.0 {
        return n;
    }
    // floor(n + 0.5) computed without the rounding error of the addition.
    let f = n.floor();
    if n - f >= 0.5 { f + 1.0 } else { f }
}

/// ECMAScript ToInt32, used by the bitwise and shift operators.
pub fn to_int32(n: f64) -> i32 {
    if !n.is_finite() {
        return 0;
    }
    let m = n.trunc().rem_euclid(4294967296.0);
    m as u32 as i32
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(n: f64) -> String {
        number_to_string(n)
    }

    /// The short-decimal printer against the general shortest-digits one, on decimals of
    /// up to seven fraction digits across the range, their neighbouring doubles, and
    /// random bit patterns.
    #[test]
    fn short_decimals_print_as_the_general_printer_does() {
        let general = |n: f64| ryu_js::Buffer::new().format(n).to_string();
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut checked = 0;
        for i in 0..200_000 {
            let digits = (next() % 8) as i32;
            let whole = next() % [10, 1000, 1_000_000, 999_999_999][i % 4];
            let text = format!(
                "{whole}.{:0width$}",
                next() % 10u64.pow(digits as u32),
                width = digits as usize
            );
            let base: f64 = text.parse().unwrap();
            for n in [
                base,
                -base,
                f64::from_bits(base.to_bits() + 1),
                f64::from_bits(base.to_bits().saturating_sub(1)),
                f64::from_bits(next() >> 2),
            ] {
                if small_integer(n).is_some() || !n.is_finite() {
                    continue;
                }
                let mut out = String::new();
                push_non_integer(n, &mut out);
                assert_eq!(out, general(n), "{n:e} ({text})");
                checked += 1;
            }
        }
        assert!(checked > 500_000, "{checked}");
    }

    #[test]
    fn prints_like_javascript() {
        assert_eq!(p(1.0), "1");
        assert_eq!(p(1.5), "1.5");
        assert_eq!(p(-0.0), "0");
        assert_eq!(p(1e21), "1e+21");
        assert_eq!(p(1e-7), "1e-7");
        assert_eq!(p(0.000001), "0.000001");
        assert_eq!(p(123456789012345678901.0), "123456789012345680000");
        assert_eq!(p(1.2895208742556044e24), "1.2895208742556044e+24");
        assert_eq!(p(0.1 + 0.2), "0.30000000000000004");
        assert_eq!(p(-42.0), "-42");
        assert_eq!(p(f64::NAN), "NaN");
        assert_eq!(p(f64::INFINITY), "Infinity");
        assert_eq!(p(f64::NEG_INFINITY), "-Infinity");
        assert_eq!(p(9007199254740993.0), "9007199254740992");
        assert_eq!(p(i64::MIN as f64), "-9223372036854776000");
        assert_eq!(p(999_999_999_999_999.0), "999999999999999");
        assert_eq!(p(-999_999_999_999_999.0), "-999999999999999");
        assert_eq!(p(1e15), "1000000000000000");
        assert_eq!(p(-1e15 - 0.5), "-1000000000000000.5");
        assert_eq!(p(-7.25), "-7.25");
        for n in [
            1_i64,
            9,
            10,
            42,
            99,
            100,
            101,
            999,
            1000,
            1005,
            10203,
            7_000_000,
            123_456_789,
        ] {
            assert_eq!(p(n as f64), n.to_string());
            assert_eq!(p(-n as f64), (-n).to_string());
        }
        assert_eq!(p(4_503_599_627_370_495.5), "4503599627370495.5");
        // Around 2^53, where the integer path hands over to the shortest-digits printer.
        assert_eq!(p(9007199254740991.0), "9007199254740991");
        assert_eq!(p(-9007199254740991.0), "-9007199254740991");
        assert_eq!(p(9007199254740992.0), "9007199254740992");
        assert_eq!(p(0.5), "0.5");
        assert_eq!(p(-0.75), "-0.75");
        assert_eq!(p(f64::MIN_POSITIVE / 4.0), "5.562684646268003e-309");
        assert_eq!(p(f64::MAX), "1.7976931348623157e+308");
    }

    #[test]
    fn integers_print_as_ryu_would() {
        // Every integer path result must equal the general printer's, across magnitudes.
        let mut n = 1.0_f64;
        while n < 1e17 {
            for x in [n, n + 1.0, n * 3.0 + 7.0, -n, -(n - 1.0)] {
                let mut general = ryu_js::Buffer::new();
                assert_eq!(p(x), general.format(x), "{x}");
            }
            n *= 1.7;
            n = n.round();
        }
    }

    #[test]
    fn parse_int_takes_the_leading_digits() {
        assert_eq!(js_parse_int("  42px"), 42.0);
        assert_eq!(js_parse_int("-7"), -7.0);
        assert_eq!(js_parse_int("0x1A"), 0.0);
        assert!(js_parse_int("px").is_nan());
        assert!(js_parse_int("").is_nan());
        assert!(js_parse_int("-").is_nan());
    }

    #[test]
    fn parse_float_takes_the_longest_decimal_prefix() {
        assert_eq!(js_parse_float("3.25abc"), 3.25);
        assert_eq!(js_parse_float(".5"), 0.5);
        assert_eq!(js_parse_float("5."), 5.0);
        assert_eq!(js_parse_float("1e3x"), 1000.0);
        assert_eq!(js_parse_float("1e"), 1.0);
        assert_eq!(js_parse_float("-Infinity"), f64::NEG_INFINITY);
        assert!(js_parse_float(".").is_nan());
        assert!(js_parse_float("abc").is_nan());
    }

    #[test]
    fn round_and_int32_follow_ecmascript() {
        assert_eq!(js_round(2.5), 3.0);
        assert_eq!(js_round(-2.5), -2.0);
        assert_eq!(js_round(-2.6), -3.0);
        assert_eq!(js_round(0.49999999999999994), 0.0);
        assert_eq!(to_int32(4294967296.0 + 5.0), 5);
        assert_eq!(to_int32(2147483648.0), -2147483648);
        assert_eq!(to_int32(-1.9), -1);
        assert_eq!(to_int32(f64::NAN), 0);
    }

    #[test]
    fn trim_uses_the_javascript_set() {
        assert_eq!(js_trim("\u{FEFF}\u{A0} x \u{3000}"), "x");
        assert_eq!(js_trim("\u{85}x"), "\u{85}x");
    }
}
