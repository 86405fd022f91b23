//! The core predicates: comparisons, parity and counts.

use std::cmp::Ordering;
use std::sync::LazyLock;

use super::super::Registry;
use crate::exec::Ctx;
use crate::syntax::path::VarPath;
use crate::syntax::tag::Args;
use crate::value::{Node, Val, View};

pub fn register(r: &mut Registry) {
    r.add_predicate("debug?", debug);
    r.add_predicate("equal?", |c, a| compare(c, a, |x, y| x.equals(y)));
    r.add_predicate("notEqual?", |c, a| compare(c, a, |x, y| !x.equals(y)));
    r.add_predicate("greaterThan?", |c, a| {
        compare(c, a, |x, y| x.compare(y) == Ordering::Greater)
    });
    r.add_predicate("greaterThanOrEqual?", |c, a| {
        compare(c, a, |x, y| x.compare(y) != Ordering::Less)
    });
    r.add_predicate("lessThan?", |c, a| {
        compare(c, a, |x, y| x.compare(y) == Ordering::Less)
    });
    r.add_predicate("lessThanOrEqual?", |c, a| {
        compare(c, a, |x, y| x.compare(y) != Ordering::Greater)
    });
    r.add_predicate("even?", |c, a| parity(c, a, 0.0));
    r.add_predicate("odd?", |c, a| parity(c, a, 1.0));
    r.add_predicate("nth?", nth);
    r.add_predicate("plural?", |c, _| c.node().view().to_number() > 1.0);
    r.add_predicate("singular?", |c, _| c.node().view().to_number() == 1.0);
}

/// Does the argument look like a JSON literal (so it is parsed rather than resolved)?
fn is_json_start(arg: &str) -> bool {
    let b = arg.as_bytes();
    match b.first() {
        Some(b'"' | b'[' | b'{') => true,
        Some(c) if c.is_ascii_digit() => true,
        Some(b'-') => b.get(1).is_some_and(u8::is_ascii_digit),
        _ => matches!(arg, "true" | "false" | "null"),
    }
}

/// Argument `i` as a value: a JSON literal if it parses as one, else a variable reference.
pub fn resolve_arg<'a>(ctx: &Ctx<'a>, args: &'a Args, i: usize) -> Val<'a> {
    let arg = args.get(i).unwrap_or_default();
    if let Some(n) = small_integer(arg) {
        return Val::num(n);
    }
    if is_json_start(arg)
        && let Ok(node) = Node::from_json_str(arg)
    {
        return Val::Own(node);
    }
    ctx.resolve(&args.paths()[i])
}

/// A JSON integer literal of at most 15 digits (`3`, `-10`, `2015`; not `01`), as the JSON
/// parser would read it. Comparisons with small integers (`{.equal? @index 1}`,
/// `{.greaterThan? count 10}`) are the common case, and running the JSON parser on every
/// evaluation was most of their cost. Such numbers are exact in an f64.
fn small_integer(arg: &str) -> Option<f64> {
    let digits = arg.strip_prefix('-').unwrap_or(arg).as_bytes();
    let negative = digits.len() < arg.len();
    // `-0` is left to the parser, which knows its sign.
    let well_formed = matches!(digits, [b'0'] if !negative) || matches!(digits, [b'1'..=b'9', ..]);
    if !well_formed || digits.len() > 15 || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let n = digits
        .iter()
        .fold(0.0, |n, d| n * 10.0 + f64::from(d - b'0'));
    Some(if negative { -n } else { n })
}

/// One argument compares the current node with it; two compare them with each other.
fn compare<'a>(ctx: &mut Ctx<'a>, args: &'a Args, f: fn(View<'_>, View<'_>) -> bool) -> bool {
    match args.len() {
        0 => false,
        1 => {
            let b = resolve_arg(ctx, args, 0);
            f(ctx.node().view(), b.view())
        }
        _ => {
            let a = resolve_arg(ctx, args, 0);
            let b = resolve_arg(ctx, args, 1);
            f(a.view(), b.view())
        }
    }
}

fn debug<'a>(ctx: &mut Ctx<'a>, _: &'a Args) -> bool {
    static DEBUG: LazyLock<VarPath> = LazyLock::new(|| VarPath::from_dotted("debug"));
    ctx.resolve(&*DEBUG).view().truthy()
}

/// `even?` / `odd?` of the current node or of a named variable (numbers only).
fn parity<'a>(ctx: &mut Ctx<'a>, args: &'a Args, rem: f64) -> bool {
    let v = match args.path(0) {
        Some(path) => ctx.resolve(path),
        None => ctx.node().clone(),
    };
    match v.view() {
        View::Num(n) => n.abs() % 2.0 == rem,
        _ => false,
    }
}

/// `nth? m` (current node) or `nth? n m`: n is a multiple of m (integers only, m != 0).
fn nth<'a>(ctx: &mut Ctx<'a>, args: &'a Args) -> bool {
    if args.is_empty() {
        return false;
    }
    let (n, m) = if args.len() == 2 {
        (resolve_arg(ctx, args, 0), resolve_arg(ctx, args, 1))
    } else {
        (ctx.node().clone(), resolve_arg(ctx, args, 0))
    };
    match (n.view(), m.view()) {
        (View::Num(n), View::Num(m)) if n.fract() == 0.0 && m.fract() == 0.0 && m != 0.0 => {
            n.abs() % m.abs() == 0.0
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_integers_read_as_the_json_parser_reads_them() {
        for arg in [
            "0",
            "7",
            "-3",
            "10",
            "2015",
            "-42",
            "123456789012345",
            "-999999999999999",
        ] {
            let Ok(Node::Number(expected)) = Node::from_json_str(arg) else {
                panic!("{arg} is a JSON number");
            };
            let n = small_integer(arg).expect(arg);
            assert_eq!(n.to_bits(), expected.to_bits(), "{arg}");
        }
        // Everything else goes to the JSON parser (or is a variable name).
        for arg in [
            "",
            "-",
            "-0",
            "01",
            "-01",
            "1.5",
            "1e3",
            "1234567890123456",
            "12a",
            "a1",
            "+1",
            " 1",
        ] {
            assert_eq!(small_integer(arg), None, "{arg}");
        }
    }
}
