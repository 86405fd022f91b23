//! The operators: precedence, associativity, names, and what the binary ones compute.

use std::borrow::Cow;
use std::cmp::Ordering;

use super::convert::{as_bool, as_num, push_str};
use super::value::{Val, js_compare, loose_eq, strict_eq};
use crate::value::number::to_int32;
use crate::value::utf16_len;

/// Every operator the tokenizer produces, including the "fake" ones that only steer the
/// shunting-yard (`;`, `,`, parentheses).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Op {
    Plus,
    Minus,
    LNot,
    BNot,
    Pow,
    Mul,
    Div,
    Mod,
    Add,
    Sub,
    Shl,
    Shr,
    Lt,
    Gt,
    Eq,
    Neq,
    SEq,
    SNeq,
    LtEq,
    GtEq,
    BAnd,
    BXor,
    BOr,
    LAnd,
    LOr,
    Asn,
    Semi,
    Comma,
    LParen,
    RParen,
}

impl Op {
    /// Precedence, as in JavaScript (higher binds tighter).
    pub(crate) fn prec(self) -> u8 {
        use Op::*;
        match self {
            Plus | Minus | LNot | BNot => 17,
            Pow => 16,
            Mul | Div | Mod => 15,
            Add | Sub => 14,
            Shl | Shr => 13,
            Lt | Gt | LtEq | GtEq => 12,
            Eq | Neq | SEq | SNeq => 11,
            BAnd => 10,
            BXor => 9,
            BOr => 8,
            LAnd => 7,
            LOr => 6,
            Asn => 3,
            Semi | Comma | LParen | RParen => 1,
        }
    }

    pub(crate) fn left_assoc(self) -> bool {
        use Op::*;
        !matches!(self, Plus | Minus | LNot | BNot | Pow | Asn | Comma)
    }

    /// The name used in debug output and error messages.
    pub(crate) fn desc(self) -> &'static str {
        use Op::*;
        match self {
            Plus => "unary plus",
            Minus => "unary minus",
            LNot => "logical not",
            BNot => "bitwise not",
            Pow => "exponent",
            Mul => "multiply",
            Div => "divide",
            Mod => "modulus",
            Add => "add",
            Sub => "subtract",
            Shl => "left shift",
            Shr => "right shift",
            Lt => "less than",
            Gt => "greater than",
            Eq => "equality",
            Neq => "inequality",
            SEq => "strict equality",
            SNeq => "strict inequality",
            LtEq => "less than or equal",
            GtEq => "greater than or equal",
            BAnd => "bitwise and",
            BXor => "bitwise xor",
            BOr => "bitwise or",
            LAnd => "logical and",
            LOr => "logical or",
            Asn => "assign",
            Semi => "semicolon",
            Comma => "comma",
            LParen => "left paren",
            RParen => "right paren",
        }
    }
}

/// Why a binary operator produced no value.
pub(crate) enum BinaryError {
    /// The concatenation would be longer than the limit.
    TooLong,
    /// Not a binary operator (cannot come out of the assembler).
    NotBinary,
}

/// JavaScript's `Math.pow`: NaN for a NaN exponent and for a base of ±1 with an infinite
/// exponent (where IEEE `pow` gives 1), otherwise V8's `pow`.
pub(crate) fn js_pow(x: f64, y: f64) -> f64 {
    if y.is_nan() || (y.is_infinite() && x.abs() == 1.0) {
        f64::NAN
    } else {
        super::pow::pow(x, y)
    }
}

/// The shift count of `<<` and `>>`: ToUint32, masked to five bits.
fn shift_count(n: f64) -> u32 {
    (to_int32(n) as u32) & 31
}

/// Applies a binary operator. `max_len` bounds concatenations (0 = unlimited), in UTF-16 code
/// units as JavaScript counts string length.
pub(crate) fn binary<'e>(
    op: Op,
    a: Val<'e>,
    b: Val<'e>,
    max_len: usize,
) -> Result<Val<'e>, BinaryError> {
    use Op::*;
    let int = |a: &Val<'_>, b: &Val<'_>| (to_int32(as_num(a)), to_int32(as_num(b)));
    let cmp = |test: fn(Ordering) -> bool| Val::Bool(js_compare(&a, &b).is_some_and(test));
    Ok(match op {
        Mul => Val::Num(as_num(&a) * as_num(&b)),
        Div => Val::Num(as_num(&a) / as_num(&b)),
        Mod => Val::Num(as_num(&a) % as_num(&b)),
        Sub => Val::Num(as_num(&a) - as_num(&b)),
        Pow => Val::Num(js_pow(as_num(&a), as_num(&b))),
        Add => {
            if matches!(a, Val::Str(_)) || matches!(b, Val::Str(_)) {
                return concat(a, b, max_len);
            }
            Val::Num(as_num(&a) + as_num(&b))
        }
        Shl => Val::Num(f64::from(
            to_int32(as_num(&a)).wrapping_shl(shift_count(as_num(&b))),
        )),
        Shr => Val::Num(f64::from(
            to_int32(as_num(&a)).wrapping_shr(shift_count(as_num(&b))),
        )),
        Lt => cmp(|o| o == Ordering::Less),
        LtEq => cmp(|o| o != Ordering::Greater),
        Gt => cmp(|o| o == Ordering::Greater),
        GtEq => cmp(|o| o != Ordering::Less),
        Eq => Val::Bool(loose_eq(&a, &b)),
        Neq => Val::Bool(!loose_eq(&a, &b)),
        SEq => Val::Bool(strict_eq(&a, &b)),
        SNeq => Val::Bool(!strict_eq(&a, &b)),
        BAnd => {
            let (x, y) = int(&a, &b);
            Val::Num(f64::from(x & y))
        }
        BXor => {
            let (x, y) = int(&a, &b);
            Val::Num(f64::from(x ^ y))
        }
        BOr => {
            let (x, y) = int(&a, &b);
            Val::Num(f64::from(x | y))
        }
        LAnd => Val::Bool(as_bool(&a) && as_bool(&b)),
        LOr => Val::Bool(as_bool(&a) || as_bool(&b)),
        Plus | Minus | LNot | BNot | Asn | Semi | Comma | LParen | RParen => {
            return Err(BinaryError::NotBinary);
        }
    })
}

/// String concatenation for `+` when either side is a string.
fn concat<'e>(a: Val<'e>, b: Val<'e>, max_len: usize) -> Result<Val<'e>, BinaryError> {
    // Reuse the left string's buffer when it is already owned.
    let mut out = match a {
        Val::Str(Cow::Owned(s)) => s,
        other => {
            let mut s = String::new();
            push_str(&other, &mut s);
            s
        }
    };
    let start = out.len();
    push_str(&b, &mut out);
    // UTF-16 length never exceeds UTF-8 length, so only long strings need counting.
    if max_len > 0 && out.len() > max_len {
        let units = utf16_len(&out[..start]) + utf16_len(&out[start..]);
        if units > max_len {
            return Err(BinaryError::TooLong);
        }
    }
    Ok(Val::Str(Cow::Owned(out)))
}
