//! The built-in functions: `max`, `min`, `abs`, `num`, `str`, `bool`.

use std::borrow::Cow;

use super::convert::{as_bool, as_num, push_str};
use super::value::Val;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Func {
    Max,
    Min,
    Abs,
    Num,
    Str,
    Bool,
}

impl Func {
    pub(crate) fn lookup(name: &str) -> Option<Func> {
        Some(match name {
            "max" => Func::Max,
            "min" => Func::Min,
            "abs" => Func::Abs,
            "num" => Func::Num,
            "str" => Func::Str,
            "bool" => Func::Bool,
            _ => return None,
        })
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            Func::Max => "max",
            Func::Min => "min",
            Func::Abs => "abs",
            Func::Num => "num",
            Func::Str => "str",
            Func::Bool => "bool",
        }
    }

    /// Applies the function to its arguments (in call order). `None` when there are none:
    /// every function needs at least one.
    pub(crate) fn apply<'e>(self, mut args: impl Iterator<Item = Val<'e>>) -> Option<Val<'e>> {
        let first = args.next()?;
        Some(match self {
            // Pairwise selection: the running value survives only if it is strictly greater
            // (smaller) than the next one, so a NaN replaces the running value and is in turn
            // replaced by whatever follows it.
            Func::Max => Val::Num(args.fold(as_num(&first), |a, b| {
                let b = as_num(&b);
                if a > b { a } else { b }
            })),
            Func::Min => Val::Num(args.fold(as_num(&first), |a, b| {
                let b = as_num(&b);
                if a < b { a } else { b }
            })),
            Func::Abs => Val::Num(as_num(&first).abs()),
            Func::Num => Val::Num(as_num(&first)),
            Func::Str => match first {
                Val::Str(s) => Val::Str(s),
                other => {
                    let mut s = String::new();
                    push_str(&other, &mut s);
                    Val::Str(Cow::Owned(s))
                }
            },
            Func::Bool => Val::Bool(as_bool(&first)),
        })
    }
}
