//! Evaluation of parsed messages against arguments.
//!
//! Arguments are converted the way the reference template engine's argument converter
//! does: objects with a `decimalValue` (or else `value`) member stand for that member
//! (money amounts), booleans are 1/0 (text `true`/`false`), null and missing values are
//! 0 (empty text), other objects and arrays are 0 (empty text), strings are parsed as
//! decimals (0 when they are not one). An argument that does not exist at all (a position
//! past the end, an unknown keyword) is NaN as a number and empty as text.

use icu_plurals::{PluralCategory, PluralRules};

use super::NestedFormat;
use super::decimal::Dec;
use super::syntax::{Category, Code, Key, PluralChoice};
use crate::value::View;

/// What `#` stands for in the choice body being evaluated.
enum Sub<'v> {
    /// A plural's number (after the offset, or before it for an exact match).
    Num(Dec),
    /// A select's argument, printed as text.
    Raw(Option<View<'v>>),
}

pub(crate) struct Eval<'e, 'v> {
    pub positional: &'e [View<'v>],
    pub keyword: &'e [(&'e str, View<'v>)],
    pub nested: &'e dyn NestedFormat,
    pub cardinal: Option<&'e PluralRules>,
    pub ordinal: Option<&'e PluralRules>,
}

impl<'v> Eval<'_, 'v> {
    pub(crate) fn run(&self, code: &Code, out: &mut String) {
        self.eval(code, None, out);
    }

    fn get(&self, key: &Key) -> Option<View<'v>> {
        // The last of repeated keywords wins, as with assignments to an object.
        if let Some((_, v)) = self.keyword.iter().rev().find(|(k, _)| **k == *key.name) {
            return Some(*v);
        }
        key.index.and_then(|i| self.positional.get(i).copied())
    }

    fn eval(&self, code: &Code, sub: Option<&Sub<'v>>, out: &mut String) {
        match code {
            Code::Text(t) => out.push_str(t),
            Code::Block(items) => {
                for c in items.iter() {
                    self.eval(c, sub, out);
                }
            }
            Code::Arg(key) => push_text(self.get(key), out),
            Code::ArgSub => match sub {
                Some(Sub::Num(d)) => d.write(out),
                Some(Sub::Raw(v)) => push_text(*v, out),
                None => {}
            },
            Code::Plural(p) => {
                let num = to_decimal(self.get(&p.key));
                let shifted = match &p.offset {
                    Some(o) => num.sub(o),
                    None => num.clone(),
                };
                let rules = if p.ordinal {
                    self.ordinal
                } else {
                    self.cardinal
                };
                let category = match rules {
                    Some(r) => r.category_for(shifted.operands()),
                    None => PluralCategory::Other,
                };
                let mut other = None;
                for choice in &p.choices {
                    match choice {
                        PluralChoice::Exact(v, body) => {
                            if num.num_eq(v) {
                                return self.eval(body, Some(&Sub::Num(num)), out);
                            }
                        }
                        PluralChoice::Category(c, body) => {
                            if matches(*c, category) {
                                return self.eval(body, Some(&Sub::Num(shifted)), out);
                            }
                            if *c == Category::Other {
                                other = Some(body);
                            }
                        }
                    }
                }
                if let Some(body) = other {
                    self.eval(body, Some(&Sub::Num(shifted)), out);
                }
            }
            Code::Select(s) => {
                let arg = self.get(&s.key);
                let mut text = String::new();
                push_text(arg, &mut text);
                let mut other = None;
                for (label, body) in &s.choices {
                    if **label == *text {
                        return self.eval(body, Some(&Sub::Raw(arg)), out);
                    }
                    if &**label == "other" {
                        other = Some(body);
                    }
                }
                if let Some(body) = other {
                    self.eval(body, Some(&Sub::Raw(arg)), out);
                }
            }
            Code::Nested(n) => {
                let args: Vec<Option<View<'v>>> = n.args.iter().map(|k| self.get(k)).collect();
                let options: Vec<&str> = n.options.iter().map(|o| &**o).collect();
                self.nested.format(n.name, &args, &options, out);
            }
            Code::Noop => {}
        }
    }
}

fn matches(c: Category, p: PluralCategory) -> bool {
    matches!(
        (c, p),
        (Category::Zero, PluralCategory::Zero)
            | (Category::One, PluralCategory::One)
            | (Category::Two, PluralCategory::Two)
            | (Category::Few, PluralCategory::Few)
            | (Category::Many, PluralCategory::Many)
            | (Category::Other, PluralCategory::Other)
    )
}

/// The member standing for a money-like object: `decimalValue`, else `value`.
fn amount<'v>(v: View<'v>) -> Option<View<'v>> {
    match v {
        View::Obj(o) => o
            .get("decimalValue")
            .or_else(|| o.get("value"))
            .map(View::of),
        _ => None,
    }
}

/// Appends an argument as text.
pub(crate) fn push_text(arg: Option<View<'_>>, out: &mut String) {
    let Some(v) = arg else {
        return;
    };
    let v = amount(v).unwrap_or(v);
    out.push_str(&v.to_str());
}

/// An argument as a decimal.
pub(crate) fn to_decimal(arg: Option<View<'_>>) -> Dec {
    let Some(v) = arg else {
        return Dec::NaN;
    };
    if let Some(a) = amount(v) {
        return Dec::parse(&a.to_str()).unwrap_or_else(Dec::zero);
    }
    match v {
        View::Bool(true) => Dec::one(),
        View::Num(n) => Dec::from_f64(n),
        View::Str(s) => Dec::parse(s).unwrap_or_else(Dec::zero),
        View::Bool(false) | View::Null | View::Missing | View::Arr(_) | View::Obj(_) => Dec::zero(),
    }
}
