//! Number scanning and the conversions between the literal types.
//!
//! Two different string-to-number rules exist side by side: the expression engine's own
//! `asnum` (the whole string must be one hex or decimal literal, as the tokenizer would read
//! it), used by the arithmetic operators and `num()`, and JavaScript's `ToNumber`, used by the
//! relational and loose-equality operators because those follow JavaScript itself.

use super::value::Val;
use crate::value::number::{is_js_whitespace, js_parse_float, push_number};

/// Why a decimal number could not be scanned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DecimalError {
    /// `1e`, `1e+`: the exponent has no digit.
    ExponentDigit,
    /// `1.2.3`.
    DuplicatePoint,
    /// `1e5.3`.
    PointInExponent,
}

impl DecimalError {
    pub(crate) fn message(self) -> &'static str {
        match self {
            DecimalError::ExponentDigit => "Expected a digit after exponent in decimal number",
            DecimalError::DuplicatePoint => "Duplicate decimal point in number",
            DecimalError::PointInExponent => "Unexpected decimal point in exponent",
        }
    }
}

/// Scans a decimal number starting at `start` (which holds a digit) and returns the end of the
/// accepted text. The grammar is the reference's: digits with at most one `.`, then an optional
/// exponent whose sign may only follow the `e` directly. A second `e`, or a sign anywhere else,
/// ends the number without error.
pub(crate) fn scan_decimal(b: &[u8], start: usize) -> Result<usize, DecimalError> {
    let mut seen_point = false;
    let mut seen_exp = false;
    let mut need_digit = false;
    let mut seen_sign = false;
    let mut j = start;
    while j < b.len() {
        match b[j] {
            b'.' => {
                if seen_point {
                    return Err(DecimalError::DuplicatePoint);
                }
                if seen_exp {
                    return Err(DecimalError::PointInExponent);
                }
                seen_point = true;
            }
            b'e' | b'E' => {
                if seen_exp {
                    break;
                }
                seen_exp = true;
                need_digit = true;
            }
            b'+' | b'-' => {
                if !need_digit || !seen_exp || seen_sign {
                    break;
                }
                seen_sign = true;
            }
            b'0'..=b'9' => need_digit = false,
            _ => break,
        }
        j += 1;
    }
    if need_digit {
        Err(DecimalError::ExponentDigit)
    } else {
        Ok(j)
    }
}

/// The end of the run of hex digits starting at `start`, looking no further than `limit`.
pub(crate) fn scan_hex(b: &[u8], start: usize, limit: usize) -> usize {
    let limit = limit.min(b.len());
    let mut j = start;
    while j < limit && b[j].is_ascii_hexdigit() {
        j += 1;
    }
    j
}

/// The value of a run of digits in a power-of-two radix (`bits` per digit), correctly rounded
/// as V8's `parseInt(s, 16)` and `Number("0x...")` round it. `digits` must be valid.
pub(crate) fn radix_pow2_value(digits: &[u8], bits: u32) -> f64 {
    let digit = |c: u8| -> u64 {
        match c {
            b'0'..=b'9' => u64::from(c - b'0'),
            b'a'..=b'f' => u64::from(c - b'a' + 10),
            b'A'..=b'F' => u64::from(c - b'A' + 10),
            _ => 0,
        }
    };
    let mut i = 0;
    while i < digits.len() && digits[i] == b'0' {
        i += 1;
    }
    // Keep the leading 64 bits (at least 61 significant ones, well past the 53 a double
    // holds), fold everything below into a sticky bit, then scale by the dropped digits.
    let mut mantissa: u64 = 0;
    let mut used_bits = 0u32;
    let mut dropped_bits: i32 = 0;
    let mut sticky = false;
    for &c in &digits[i..] {
        if used_bits + bits <= 64 {
            mantissa = (mantissa << bits) | digit(c);
            if mantissa != 0 {
                used_bits = 64 - mantissa.leading_zeros();
            }
        } else {
            sticky |= digit(c) != 0;
            dropped_bits = dropped_bits.saturating_add(bits as i32);
        }
    }
    if sticky {
        mantissa |= 1;
    }
    let v = mantissa as f64;
    if dropped_bits == 0 {
        v
    } else if dropped_bits > 2000 {
        f64::INFINITY
    } else {
        v * 2f64.powi(dropped_bits)
    }
}

/// The expression engine's `asnum` for strings: `""` is 0; otherwise the whole string, after
/// one optional sign, must be a hex (`0x..`) or decimal literal, else NaN.
pub(crate) fn str_to_num(s: &str) -> f64 {
    if s.is_empty() {
        return 0.0;
    }
    let b = s.as_bytes();
    let (neg, i) = match b[0] {
        b'-' => (true, 1),
        b'+' => (false, 1),
        _ => (false, 0),
    };
    if i == b.len() {
        return f64::NAN;
    }
    if b[i] == b'0' && matches!(b.get(i + 1), Some(b'x' | b'X')) {
        let end = scan_hex(b, i + 2, b.len());
        if end != b.len() || end == i + 2 {
            return f64::NAN;
        }
        let v = radix_pow2_value(&b[i + 2..], 4);
        return if neg { -v } else { v };
    }
    if !b[i].is_ascii_digit() {
        return f64::NAN;
    }
    match scan_decimal(b, i) {
        Ok(end) if end == b.len() => js_parse_float(s),
        _ => f64::NAN,
    }
}

/// JavaScript's `ToNumber` for strings (`Number(s)`).
pub(crate) fn js_string_to_number(s: &str) -> f64 {
    let t = s.trim_matches(is_js_whitespace);
    if t.is_empty() {
        return 0.0;
    }
    let b = t.as_bytes();
    if b.len() > 2 && b[0] == b'0' {
        let bits = match b[1] {
            b'x' | b'X' => Some(4),
            b'o' | b'O' => Some(3),
            b'b' | b'B' => Some(1),
            _ => None,
        };
        if let Some(bits) = bits {
            let radix = 1u32 << bits;
            let digits = &b[2..];
            return if digits.iter().all(|&c| (c as char).is_digit(radix)) {
                radix_pow2_value(digits, bits)
            } else {
                f64::NAN
            };
        }
    }
    let (neg, body) = match b[0] {
        b'-' => (true, &t[1..]),
        b'+' => (false, &t[1..]),
        _ => (false, t),
    };
    if body == "Infinity" {
        return if neg {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        };
    }
    if !is_decimal_literal(body.as_bytes()) {
        return f64::NAN;
    }
    js_parse_float(t)
}

/// `StrUnsignedDecimalLiteral` without `Infinity`: `1`, `1.`, `.5`, `1.5e-3`.
fn is_decimal_literal(b: &[u8]) -> bool {
    let digits = |from: usize| b[from..].iter().take_while(|c| c.is_ascii_digit()).count();
    let int = digits(0);
    let mut i = int;
    let mut frac = 0;
    if b.get(i) == Some(&b'.') {
        frac = digits(i + 1);
        i += 1 + frac;
    }
    if int == 0 && frac == 0 {
        return false;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let exp = digits(i);
        if exp == 0 {
            return false;
        }
        i += exp;
    }
    i == b.len()
}

/// The engine's `asnum`: how operators and functions read a value as a number.
pub(crate) fn as_num(v: &Val<'_>) -> f64 {
    match v {
        Val::Null => 0.0,
        Val::Bool(b) => f64::from(u8::from(*b)),
        Val::Num(n) => *n,
        Val::Str(s) => str_to_num(s),
    }
}

/// The engine's `asbool`.
pub(crate) fn as_bool(v: &Val<'_>) -> bool {
    match v {
        Val::Null => false,
        Val::Bool(b) => *b,
        Val::Num(n) => *n != 0.0 && !n.is_nan(),
        Val::Str(s) => !s.is_empty(),
    }
}

/// The engine's `asstr`, appended to `out`.
pub(crate) fn push_str(v: &Val<'_>, out: &mut String) {
    match v {
        Val::Null => out.push_str("null"),
        Val::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Val::Num(n) => push_number(*n, out),
        Val::Str(s) => out.push_str(s),
    }
}

/// JavaScript's `ToNumber` for a primitive.
pub(crate) fn js_to_number(v: &Val<'_>) -> f64 {
    match v {
        Val::Str(s) => js_string_to_number(s),
        other => as_num(other),
    }
}
