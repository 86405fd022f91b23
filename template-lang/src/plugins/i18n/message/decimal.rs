//! The small slice of arbitrary-precision decimal arithmetic the message language needs.
//!
//! The reference keeps plural arguments as exact decimals: the text a number is parsed
//! from decides its visible fraction digits (`"1.0"` has one, `1` has none), `#` prints
//! the decimal back in plain notation with those digits kept, and `offset:` subtracts
//! exactly. [`Dec`] reproduces the parsing rules, plain printing, numeric equality and
//! subtraction of that decimal type, and hands its digits to ICU's plural operands.

use std::cmp::Ordering;

use fixed_decimal::UnsignedDecimal;
use icu_plurals::PluralOperands;

use crate::value::number::number_to_string;

/// An exact decimal: `coef × 10^exp` with a sign, or one of the non-finite values.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Dec {
    NaN,
    Inf { neg: bool },
    Fin(Finite),
}

/// A finite decimal. `coef` holds the coefficient's decimal digits (values 0-9), most
/// significant first, without leading zeros (zero is a single `0`). Negative zero exists:
/// the reference prints `-0` for it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Finite {
    neg: bool,
    coef: Vec<u8>,
    exp: i64,
}

/// The reference refuses exponents of seven or more digits.
const MAX_EXP_DIGITS: usize = 7;

/// How many integer and fraction digits reach the plural operands (ICU keeps 18 each).
const OPERAND_DIGITS: usize = 18;

impl Dec {
    pub(crate) fn zero() -> Dec {
        Dec::int(0)
    }

    pub(crate) fn one() -> Dec {
        Dec::int(1)
    }

    fn int(d: u8) -> Dec {
        Dec::Fin(Finite {
            neg: false,
            coef: vec![d],
            exp: 0,
        })
    }

    /// Parses the reference decimal syntax: `[sign]digits[.digits][(e|E)[sign]digits]`,
    /// plus `NaN`/`nan` and `[+-]Infinity`/`infinity`. No whitespace is allowed. The
    /// reference scans right to left and so also accepts a few odd forms (a sign between
    /// digits, `"1-2"` reads as -12); those are reproduced as well.
    pub(crate) fn parse(s: &str) -> Option<Dec> {
        match s {
            "nan" | "NaN" => return Some(Dec::NaN),
            "infinity" | "+infinity" | "Infinity" | "+Infinity" => {
                return Some(Dec::Inf { neg: false });
            }
            "-infinity" | "-Infinity" => return Some(Dec::Inf { neg: true }),
            _ => {}
        }
        // Digits of the part being read, collected from the right.
        let mut rev_digits: Vec<u8> = Vec::new();
        let mut neg = false;
        let mut exp: i64 = 0;
        let mut seen_exp = false;
        let mut seen_sign = false;
        let mut seen_point = false;
        for &b in s.as_bytes().iter().rev() {
            match b {
                b'e' | b'E' => {
                    if seen_exp || rev_digits.len() >= MAX_EXP_DIGITS || rev_digits.is_empty() {
                        return None;
                    }
                    seen_exp = true;
                    seen_sign = false;
                    let mut n: i64 = 0;
                    for &d in rev_digits.iter().rev() {
                        n = n * 10 + i64::from(d);
                    }
                    exp = if neg { -n } else { n };
                    neg = false;
                    rev_digits.clear();
                }
                b'-' | b'+' => {
                    if rev_digits.is_empty() || seen_sign {
                        return None;
                    }
                    neg = b == b'-';
                    seen_sign = true;
                }
                b'.' => {
                    if seen_point {
                        return None;
                    }
                    seen_point = true;
                    exp -= rev_digits.len() as i64;
                }
                b'0'..=b'9' => rev_digits.push(b - b'0'),
                _ => return None,
            }
        }
        if rev_digits.is_empty() {
            return None;
        }
        rev_digits.reverse();
        let mut coef = rev_digits;
        strip_leading_zeros(&mut coef);
        Some(Dec::Fin(Finite { neg, coef, exp }))
    }

    /// A JavaScript number as the reference's decimal sees it (through `String(n)`).
    pub(crate) fn from_f64(n: f64) -> Dec {
        if n.is_nan() {
            Dec::NaN
        } else if n.is_infinite() {
            Dec::Inf { neg: n < 0.0 }
        } else {
            Dec::parse(&number_to_string(n)).unwrap_or_else(Dec::zero)
        }
    }

    pub(crate) fn is_zero(&self) -> bool {
        matches!(self, Dec::Fin(f) if f.is_zero())
    }

    /// Appends the plain (never scientific) notation, keeping trailing fraction zeros:
    /// `1.50`, `1000` for 1e3, `0.00`, `-0`, `NaN`, `-Infinity`.
    pub(crate) fn write(&self, out: &mut String) {
        let f = match self {
            Dec::NaN => return out.push_str("NaN"),
            Dec::Inf { neg } => return out.push_str(if *neg { "-Infinity" } else { "Infinity" }),
            Dec::Fin(f) => f,
        };
        if f.neg {
            out.push('-');
        }
        let len = f.coef.len() as i64;
        let digit = |d: &u8| char::from(b'0' + d);
        if f.is_zero() {
            out.push('0');
            if f.exp < 0 {
                out.push('.');
                push_zeros(out, f.exp.unsigned_abs());
            }
        } else if f.exp >= 0 {
            out.extend(f.coef.iter().map(digit));
            push_zeros(out, f.exp.unsigned_abs());
        } else {
            let int_len = len + f.exp;
            if int_len > 0 {
                let split = int_len as usize;
                out.extend(f.coef[..split].iter().map(digit));
                out.push('.');
                out.extend(f.coef[split..].iter().map(digit));
            } else {
                out.push_str("0.");
                push_zeros(out, int_len.unsigned_abs());
                out.extend(f.coef.iter().map(digit));
            }
        }
    }

    /// The reference's `compare(..) === 0`: numeric equality, zeros equal whatever their
    /// sign or scale, NaN equal to nothing, infinities equal when their signs are.
    pub(crate) fn num_eq(&self, other: &Dec) -> bool {
        match (self, other) {
            (Dec::Inf { neg: a }, Dec::Inf { neg: b }) => a == b,
            (Dec::Fin(a), Dec::Fin(b)) => {
                if a.is_zero() || b.is_zero() {
                    return a.is_zero() && b.is_zero();
                }
                let (ac, ae) = a.stripped();
                let (bc, be) = b.stripped();
                a.neg == b.neg && ae == be && ac == bc
            }
            _ => false,
        }
    }

    /// `self - v` with the reference's rules: exact, at the smaller of the two scales, and
    /// with the same choice of sign for a zero result.
    pub(crate) fn sub(&self, v: &Dec) -> Dec {
        let (u, v) = match (self, v) {
            (Dec::NaN, _) | (_, Dec::NaN) => return Dec::NaN,
            (Dec::Inf { neg: a }, Dec::Inf { neg: b }) => {
                return if a == b {
                    Dec::NaN
                } else {
                    Dec::Inf { neg: *a }
                };
            }
            (Dec::Inf { neg }, _) => return Dec::Inf { neg: *neg },
            (_, Dec::Inf { neg }) => return Dec::Inf { neg: !neg },
            (Dec::Fin(u), Dec::Fin(v)) => (u, v),
        };
        if u.is_zero() {
            let mut r = v.clone();
            r.neg = !r.neg;
            return Dec::Fin(r);
        }
        if v.is_zero() {
            return Dec::Fin(u.clone());
        }
        let exp = u.exp.min(v.exp);
        let a = u.aligned(exp);
        let b = v.aligned(exp);
        // u - v = u + (-v).
        let vneg = !v.neg;
        let (neg, mut coef) = if u.neg == vneg {
            (u.neg, add_digits(&a, &b))
        } else {
            match cmp_digits(&a, &b) {
                Ordering::Greater => (u.neg, sub_digits(&a, &b)),
                Ordering::Less => (vneg, sub_digits(&b, &a)),
                // The reference keeps the sign of the operand with the larger exponent
                // (the left one on a tie) when the difference is zero.
                Ordering::Equal => (if u.exp < v.exp { vneg } else { u.neg }, vec![0]),
            }
        };
        strip_leading_zeros(&mut coef);
        Dec::Fin(Finite { neg, coef, exp })
    }

    /// CLDR plural operands of the absolute value. Non-finite values count as 0, as in
    /// the reference. At most 18 integer digits (the lowest ones, marked as large) and 18
    /// fraction digits are kept.
    pub(crate) fn operands(&self) -> PluralOperands {
        let f = match self {
            Dec::Fin(f) => f,
            _ => return PluralOperands::from(0u64),
        };
        let mut s = String::with_capacity(2 * OPERAND_DIGITS + 4);
        let len = f.coef.len() as i64;
        let int_len = (len + f.exp).max(0);
        let digit_at = |pos: i64| -> u8 {
            // Digit at position `pos` counted from the left of the coefficient.
            if pos >= 0 && pos < len {
                f.coef[pos as usize]
            } else {
                0
            }
        };
        if int_len == 0 || f.is_zero() {
            s.push('0');
        } else {
            let keep = int_len.min(OPERAND_DIGITS as i64);
            if keep < int_len {
                // Keeps the magnitude above 10^18, like ICU does for long integers.
                s.push('1');
            }
            for p in (int_len - keep)..int_len {
                s.push(char::from(b'0' + digit_at(p)));
            }
        }
        if f.exp < 0 {
            s.push('.');
            let frac_len = f.exp.unsigned_abs().min(OPERAND_DIGITS as u64) as i64;
            for p in 0..frac_len {
                s.push(char::from(b'0' + digit_at(len + f.exp + p)));
            }
        }
        match UnsignedDecimal::try_from_str(&s) {
            Ok(d) => PluralOperands::from(&d),
            Err(_) => PluralOperands::from(0u64),
        }
    }
}

impl Finite {
    fn is_zero(&self) -> bool {
        self.coef.len() == 1 && self.coef[0] == 0
    }

    /// Coefficient without trailing zeros, and the matching exponent.
    fn stripped(&self) -> (&[u8], i64) {
        let zeros = self.coef.iter().rev().take_while(|&&d| d == 0).count();
        let keep = self.coef.len() - zeros;
        (&self.coef[..keep], self.exp + zeros as i64)
    }

    /// The coefficient rescaled to exponent `exp` (which is not above `self.exp`).
    fn aligned(&self, exp: i64) -> Vec<u8> {
        let shift = (self.exp - exp).max(0) as usize;
        let mut c = Vec::with_capacity(self.coef.len() + shift);
        c.extend_from_slice(&self.coef);
        c.resize(self.coef.len() + shift, 0);
        c
    }
}

fn push_zeros(out: &mut String, n: u64) {
    out.extend(std::iter::repeat_n('0', n as usize));
}

fn strip_leading_zeros(c: &mut Vec<u8>) {
    let zeros = c.iter().take_while(|&&d| d == 0).count();
    if zeros == c.len() {
        c.clear();
        c.push(0);
    } else if zeros > 0 {
        c.drain(..zeros);
    }
}

fn cmp_digits(a: &[u8], b: &[u8]) -> Ordering {
    // Both have no leading zeros (after alignment they only gained trailing ones).
    a.len().cmp(&b.len()).then_with(|| a.cmp(b))
}

fn add_digits(a: &[u8], b: &[u8]) -> Vec<u8> {
    let n = a.len().max(b.len());
    let mut r = vec![0u8; n + 1];
    let mut carry = 0u8;
    for i in 0..n {
        let x = if i < a.len() { a[a.len() - 1 - i] } else { 0 };
        let y = if i < b.len() { b[b.len() - 1 - i] } else { 0 };
        let s = x + y + carry;
        r[n - i] = s % 10;
        carry = s / 10;
    }
    r[0] = carry;
    r
}

/// `a - b` for `a >= b`.
fn sub_digits(a: &[u8], b: &[u8]) -> Vec<u8> {
    let mut r = a.to_vec();
    let mut borrow = 0u8;
    for i in 0..a.len() {
        let y = if i < b.len() { b[b.len() - 1 - i] } else { 0 } + borrow;
        let idx = a.len() - 1 - i;
        if r[idx] >= y {
            r[idx] -= y;
            borrow = 0;
        } else {
            r[idx] = r[idx] + 10 - y;
            borrow = 1;
        }
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    fn show(d: &Dec) -> String {
        let mut s = String::new();
        d.write(&mut s);
        s
    }

    fn p(s: &str) -> Dec {
        Dec::parse(s).unwrap()
    }

    #[test]
    fn parse_and_print() {
        for (input, printed) in [
            ("0", "0"),
            ("1", "1"),
            ("1.0", "1.0"),
            ("1.50", "1.50"),
            ("007", "7"),
            ("00.10", "0.10"),
            (".5", "0.5"),
            ("5.", "5"),
            ("0.00", "0.00"),
            ("-0", "-0"),
            ("-0.0", "-0.0"),
            ("+5", "5"),
            ("1e3", "1000"),
            ("1.5e2", "150"),
            ("1E-3", "0.001"),
            ("12.5e-1", "1.25"),
            ("0e3", "0"),
            ("1e+21", "1000000000000000000000"),
            (
                "123456789012345678901234567890",
                "123456789012345678901234567890",
            ),
            ("1-2", "-12"),
            ("NaN", "NaN"),
            ("nan", "NaN"),
            ("Infinity", "Infinity"),
            ("-infinity", "-Infinity"),
        ] {
            assert_eq!(show(&p(input)), printed, "{input}");
        }
        for bad in [
            "",
            "-",
            "+",
            ".",
            "e5",
            "1e",
            "1e1234567",
            "1..2",
            "1e2e3",
            "--1",
            " 1",
            "1 ",
            "abc",
            "1,5",
            "١",
            "NAN",
            "inf",
        ] {
            assert!(Dec::parse(bad).is_none(), "{bad}");
        }
        assert_eq!(show(&p("1e123456")).len(), 123457);
    }

    #[test]
    fn from_numbers() {
        assert_eq!(show(&Dec::from_f64(1.0)), "1");
        assert_eq!(show(&Dec::from_f64(-0.0)), "0");
        assert_eq!(show(&Dec::from_f64(1.25)), "1.25");
        assert_eq!(show(&Dec::from_f64(1e21)), "1000000000000000000000");
        assert_eq!(show(&Dec::from_f64(1e-7)), "0.0000001");
        assert_eq!(show(&Dec::from_f64(f64::NAN)), "NaN");
        assert_eq!(show(&Dec::from_f64(f64::NEG_INFINITY)), "-Infinity");
    }

    #[test]
    fn equality() {
        assert!(p("1").num_eq(&p("1.000")));
        assert!(p("100").num_eq(&p("1e2")));
        assert!(p("0").num_eq(&p("-0.00")));
        assert!(!p("1").num_eq(&p("-1")));
        assert!(!p("1").num_eq(&p("10")));
        assert!(!p("0.1").num_eq(&p("1")));
        assert!(!Dec::NaN.num_eq(&Dec::NaN));
        assert!(p("Infinity").num_eq(&p("+Infinity")));
        assert!(!p("Infinity").num_eq(&p("-Infinity")));
    }

    #[test]
    fn subtraction() {
        let cases = [
            ("5", "1", "4"),
            ("1", "5", "-4"),
            ("1.50", "1", "0.50"),
            ("0.00", "1", "-1"),
            ("1", "1", "0"),
            ("-1", "-1", "-0"),
            ("-5.0", "-5", "0.0"),
            ("-3", "2", "-5"),
            ("3", "-2", "5"),
            ("1000", "1", "999"),
            ("1e3", "1", "999"),
            ("0.001", "1", "-0.999"),
            ("99.99", "-1", "100.99"),
        ];
        for (a, b, r) in cases {
            assert_eq!(show(&p(a).sub(&p(b))), r, "{a} - {b}");
        }
        assert_eq!(show(&Dec::NaN.sub(&Dec::one())), "NaN");
        assert_eq!(show(&p("-Infinity").sub(&Dec::one())), "-Infinity");
    }

    #[test]
    fn operands() {
        let ops = |s: &str| p(s).operands();
        assert_eq!(ops("1"), PluralOperands::from(1u64));
        assert_eq!(ops("-1"), PluralOperands::from(1u64));
        assert_eq!(ops("1e3"), PluralOperands::from(1000u64));
        assert_eq!(
            ops("1.0"),
            "1.0"
                .parse::<UnsignedDecimal>()
                .map(|d| PluralOperands::from(&d))
                .unwrap()
        );
        assert_eq!(
            ops("0.05"),
            "0.05"
                .parse::<UnsignedDecimal>()
                .map(|d| PluralOperands::from(&d))
                .unwrap()
        );
        assert_eq!(
            ops("12.5e-1"),
            "1.25"
                .parse::<UnsignedDecimal>()
                .map(|d| PluralOperands::from(&d))
                .unwrap()
        );
        assert_eq!(Dec::NaN.operands(), PluralOperands::from(0u64));
        // Huge values keep their low digits and stay "large".
        let big = ops("1234567890123456789012345");
        assert_ne!(big, PluralOperands::from(0u64));
        let _ = ops("1e9999");
        let _ = ops("1e-9999");
    }
}
