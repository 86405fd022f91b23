//! The values on the reduce stack, and the JavaScript semantics of comparing them.

use std::borrow::Cow;
use std::cmp::Ordering;

use super::Literal;
use super::convert::js_to_number;
use crate::value::utf16_cmp;

/// A literal during reduction; strings borrow from the compiled expression where they can,
/// so reducing a parsed expression again does not copy its string constants.
#[derive(Clone, Debug)]
pub(crate) enum Val<'e> {
    Null,
    Bool(bool),
    Num(f64),
    Str(Cow<'e, str>),
}

impl<'e> Val<'e> {
    pub(crate) fn borrow(lit: &'e Literal) -> Val<'e> {
        match lit {
            Literal::Null => Val::Null,
            Literal::Bool(b) => Val::Bool(*b),
            Literal::Num(n) => Val::Num(*n),
            Literal::Str(s) => Val::Str(Cow::Borrowed(s)),
        }
    }

    pub(crate) fn owned(lit: Literal) -> Val<'e> {
        match lit {
            Literal::Null => Val::Null,
            Literal::Bool(b) => Val::Bool(b),
            Literal::Num(n) => Val::Num(n),
            Literal::Str(s) => Val::Str(Cow::Owned(s)),
        }
    }

    pub(crate) fn into_literal(self) -> Literal {
        match self {
            Val::Null => Literal::Null,
            Val::Bool(b) => Literal::Bool(b),
            Val::Num(n) => Literal::Num(n),
            Val::Str(s) => Literal::Str(s.into_owned()),
        }
    }
}

/// JavaScript's `===` between primitives.
pub(crate) fn strict_eq(a: &Val<'_>, b: &Val<'_>) -> bool {
    match (a, b) {
        (Val::Null, Val::Null) => true,
        (Val::Bool(x), Val::Bool(y)) => x == y,
        (Val::Num(x), Val::Num(y)) => x == y,
        (Val::Str(x), Val::Str(y)) => x == y,
        _ => false,
    }
}

/// JavaScript's `==` between primitives (null only equals null here: there is no undefined).
pub(crate) fn loose_eq(a: &Val<'_>, b: &Val<'_>) -> bool {
    match (a, b) {
        (Val::Null, Val::Null) => true,
        (Val::Null, _) | (_, Val::Null) => false,
        (Val::Str(x), Val::Str(y)) => x == y,
        (Val::Bool(x), Val::Bool(y)) => x == y,
        // Booleans compare as numbers; the remaining pairs mix numbers and strings, which
        // also compare as numbers.
        _ => js_to_number(a) == js_to_number(b),
    }
}

/// JavaScript's abstract relational comparison: `None` when either side is NaN.
pub(crate) fn js_compare(a: &Val<'_>, b: &Val<'_>) -> Option<Ordering> {
    if let (Val::Str(x), Val::Str(y)) = (a, b) {
        return Some(utf16_cmp(x, y));
    }
    js_to_number(a).partial_cmp(&js_to_number(b))
}
