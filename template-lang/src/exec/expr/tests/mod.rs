//! Tests. `reference.rs` holds cases whose expected output and messages were recorded by
//! running the reference engine, and `pow_cases.rs` results of `**` recorded from Node; the
//! harness below plays the part of the engine's `executeEval` (error prefixes, discarding
//! assignments when reduce fails, debug output). `regen/` has the scripts that record them
//! (`gen_reference.py`, `gen_pow_cases.js`) and a differential fuzzer (`difftest.py`).

mod pow_cases;
mod reference;

use std::collections::HashMap;

use serde_json::Value;

use super::*;
use crate::syntax::path::Head;

/// One recorded case: the `{.eval ...}` sources rendered in sequence (joined with `|`),
/// optional `(max_tokens, max_string_len)` limits, and the reference's output and errors.
pub(super) struct Case {
    pub evals: &'static [&'static str],
    pub limits: Option<(usize, usize)>,
    pub out: &'static str,
    pub errors: &'static [&'static str],
}

/// Template variables over JSON data, with `@name` bindings made by earlier evals.
struct TestScope<'d> {
    data: &'d Value,
    vars: HashMap<String, Literal>,
    /// Bindings of the eval being reduced: kept only if it reduces without error.
    pending: HashMap<String, Literal>,
}

fn literal_of(v: &Value) -> Option<Literal> {
    match v {
        Value::Null => Some(Literal::Null),
        Value::Bool(b) => Some(Literal::Bool(*b)),
        Value::Number(n) => Some(Literal::Num(n.as_f64().unwrap_or(f64::NAN))),
        Value::String(s) => Some(Literal::Str(s.clone())),
        Value::Array(_) | Value::Object(_) => None,
    }
}

impl ExprScope for TestScope<'_> {
    fn resolve(&mut self, path: &VarPath) -> Option<Literal> {
        let path = path.path();
        let mut node = match path.head() {
            Head::Var(name) => {
                let bound = self.pending.get(&**name).or_else(|| self.vars.get(&**name));
                return if path.rest().is_empty() {
                    Some(bound.cloned().unwrap_or(Literal::Null))
                } else {
                    Some(Literal::Null)
                };
            }
            Head::Index { .. } => return Some(Literal::Null),
            Head::Current => Some(self.data),
            Head::Key(seg) => self.data.get(path.name(seg)),
        };
        for seg in path.rest() {
            node = node.and_then(|n| match n {
                Value::Array(items) => seg.index.and_then(|i| items.get(i as usize)),
                other => other.get(path.name(seg)),
            });
        }
        node.map_or(Some(Literal::Null), literal_of)
    }

    fn assign(&mut self, name: &str, value: Literal) {
        self.pending.insert(name.to_string(), value);
    }
}

fn js_quote(s: &str) -> String {
    let mut out = String::new();
    quote(s, &mut out);
    out
}

/// Renders `{.eval A}|{.eval B}|...` the way the reference engine's `executeEval` does.
fn render(evals: &[&str], data: &Value, limits: ExprLimits) -> (String, Vec<String>) {
    let mut scope = TestScope {
        data,
        vars: HashMap::new(),
        pending: HashMap::new(),
    };
    let mut out = String::new();
    let mut errors = Vec::new();
    for (i, src) in evals.iter().enumerate() {
        if i > 0 {
            out.push('|');
        }
        let (raw, debug) = match src.strip_prefix('#') {
            Some(rest) => (rest, true),
            None => (*src, false),
        };
        let (expr, parse_errors) = Expr::compile(raw, &limits);
        // `parse` must agree with `compile`.
        match Expr::parse(raw, &limits) {
            Ok(_) => assert!(parse_errors.is_empty()),
            Err(e) => assert_eq!(e, parse_errors),
        }
        for e in &parse_errors {
            errors.push(format!("Error parsing expression: {}: {e}", js_quote(raw)));
        }
        if debug {
            out.push_str(&expr.debug_string());
        }
        if !parse_errors.is_empty() {
            continue;
        }
        scope.pending.clear();
        let (value, reduce_errors) = expr.reduce(&mut scope);
        for e in &reduce_errors {
            errors.push(format!("Error reducing expression: {raw}: {e}"));
        }
        if reduce_errors.is_empty() {
            let pending = std::mem::take(&mut scope.pending);
            scope.vars.extend(pending);
            if let Some(v) = value {
                if debug {
                    out.push_str(" -> ");
                }
                v.print(&mut out);
            }
        }
    }
    (out, errors)
}

fn data() -> Value {
    serde_json::from_str(reference::DATA).unwrap()
}

fn check(cases: &[Case]) {
    let data = data();
    let mut failures = Vec::new();
    for case in cases {
        let limits = match case.limits {
            Some((max_tokens, max_string_len)) => ExprLimits {
                max_tokens,
                max_string_len,
            },
            None => ExprLimits::default(),
        };
        let (out, errors) = render(case.evals, &data, limits);
        if out != case.out || errors != case.errors {
            failures.push(format!(
                "{:?}\n   got: {out:?} {errors:?}\n  want: {:?} {:?}",
                case.evals, case.out, case.errors
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases differ from the reference:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

macro_rules! reference_tests {
    ($($name:ident => $table:ident),* $(,)?) => {
        $(#[test] fn $name() { check(reference::$table); })*
    };
}

reference_tests! {
    stack_and_separators => STACK_AND_SEPARATORS,
    numbers => NUMBERS,
    number_errors => NUMBER_ERRORS,
    strings => STRINGS,
    string_errors => STRING_ERRORS,
    unexpected_characters => UNEXPECTED_CHARACTERS,
    unary_operators => UNARY,
    precedence => PRECEDENCE,
    parentheses => PARENTHESES,
    binary_errors => BINARY_ERRORS,
    functions => FUNCTIONS,
    constants => CONSTANTS,
    variables => VARIABLES,
    assignment => ASSIGNMENT,
    concatenation => CONCATENATION,
    comparison => COMPARISON,
    shifts_and_bitwise => SHIFTS_AND_BITWISE,
    arithmetic => ARITHMETIC,
    logical => LOGICAL,
    debug_rendering => DEBUG,
    limits => LIMITS,
    spec_examples => SPEC_EXAMPLES,
}

#[test]
fn every_binary_operator_on_every_pair_of_types() {
    let data = data();
    let values = reference::VALUES;
    let mut failures = Vec::new();
    for (op, expected) in reference::BINARY {
        assert_eq!(expected.len(), values.len() * values.len());
        for (k, want) in expected.iter().enumerate() {
            let src = format!(
                "{} {op} {}",
                values[k / values.len()],
                values[k % values.len()]
            );
            let (out, errors) = render(&[&src], &data, ExprLimits::default());
            if out != *want || !errors.is_empty() {
                failures.push(format!("{src}: got {out:?} {errors:?}, want {want:?}"));
            }
        }
    }
    for (op, expected) in reference::UNARY_MATRIX {
        for (value, want) in values.iter().zip(expected.iter()) {
            let src = format!("{op}{value}");
            let (out, errors) = render(&[&src], &data, ExprLimits::default());
            if out != *want || !errors.is_empty() {
                failures.push(format!("{src}: got {out:?} {errors:?}, want {want:?}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn eval(src: &str) -> (Option<Literal>, Vec<String>) {
    let data = data();
    let mut scope = TestScope {
        data: &data,
        vars: HashMap::new(),
        pending: HashMap::new(),
    };
    match Expr::parse(src, &ExprLimits::default()) {
        Ok(expr) => expr.reduce(&mut scope),
        Err(errors) => (None, errors),
    }
}

#[test]
fn vertical_tab_is_not_whitespace() {
    // The template parser trims it, so this one is checked against the reference's Expr class
    // directly.
    assert_eq!(
        eval("1 \u{b}").1,
        ["Unexpected control character at 2: \"\\u000b\""]
    );
}

#[test]
fn lone_surrogate_escapes_become_replacement_characters() {
    // Known deviation: JavaScript strings can hold a lone surrogate, Rust strings cannot. The
    // printed output is the same (the reference's output encoder writes U+FFFD too), but the
    // debug rendering shows U+FFFD where the reference shows "\ud83d".
    assert_eq!(
        eval("'\\uD83D' + 'x'").0,
        Some(Literal::Str("\u{fffd}x".into()))
    );
    // A pair spelled as two escapes still combines.
    assert_eq!(eval("'\\uD83D\\uDE00'").0, Some(Literal::Str("😀".into())));
    assert_eq!(
        eval("'\\uDE00\\uD83D'").0,
        Some(Literal::Str("\u{fffd}\u{fffd}".into()))
    );
    assert_eq!(
        eval("'\\uD83Dx\\uDE00'").0,
        Some(Literal::Str("\u{fffd}x\u{fffd}".into()))
    );
}

#[test]
fn limits_default_and_zero_means_unlimited() {
    let d = ExprLimits::default();
    assert_eq!((d.max_tokens, d.max_string_len), (4096, 1 << 20));
    let unlimited = ExprLimits {
        max_tokens: 0,
        max_string_len: 0,
    };
    let src = vec!["1"; 10_000].join(" + ");
    assert!(Expr::parse(&src, &d).is_err());
    let expr = Expr::parse(&src, &unlimited).unwrap();
    let data = data();
    let mut scope = TestScope {
        data: &data,
        vars: HashMap::new(),
        pending: HashMap::new(),
    };
    assert_eq!(expr.reduce(&mut scope).0, Some(Literal::Num(10_000.0)));
    // Doubling a string past the default limit of 1 MiB.
    let mut src = String::from("@s = 'abcdefghijklmnop'");
    for _ in 0..16 {
        src.push_str("; @s = @s + @s");
    }
    src.push_str("; @s + @s");
    let (_, errors) = Expr::parse(&src, &d).unwrap().reduce(&mut scope);
    assert_eq!(
        errors,
        ["Concatenation would exceed maximum string length 1048576"]
    );
}

#[test]
fn printing() {
    let p = |l: Literal| {
        let mut s = String::from("[");
        l.print(&mut s);
        s.push(']');
        s
    };
    assert_eq!(p(Literal::Null), "[]");
    assert_eq!(p(Literal::Bool(true)), "[true]");
    assert_eq!(p(Literal::Bool(false)), "[false]");
    assert_eq!(p(Literal::Num(f64::NAN)), "[NaN]");
    assert_eq!(p(Literal::Num(f64::NEG_INFINITY)), "[-Infinity]");
    assert_eq!(p(Literal::Num(-0.0)), "[0]");
    assert_eq!(p(Literal::Num(1e21)), "[1e+21]");
    assert_eq!(p(Literal::Num(0.5)), "[0.5]");
    assert_eq!(p(Literal::Str("é".into())), "[é]");
}

#[test]
fn parsed_once_reduced_many_times() {
    let expr = Expr::parse("@n = @n + 1; @n * 2; 'x' + @n", &ExprLimits::default()).unwrap();
    let data = data();
    let mut scope = TestScope {
        data: &data,
        vars: HashMap::new(),
        pending: HashMap::new(),
    };
    for i in 1..=3 {
        let (v, errors) = expr.reduce(&mut scope);
        assert!(errors.is_empty());
        assert_eq!(v, Some(Literal::Str(format!("x{i}"))));
        let pending = std::mem::take(&mut scope.pending);
        scope.vars.extend(pending);
    }
}

#[test]
fn deep_nesting_does_not_recurse() {
    let n = 200_000;
    let unlimited = ExprLimits {
        max_tokens: 0,
        max_string_len: 0,
    };
    let data = data();
    let mut scope = TestScope {
        data: &data,
        vars: HashMap::new(),
        pending: HashMap::new(),
    };
    let nested = format!("{}1{}", "(".repeat(n), ")".repeat(n));
    let expr = Expr::parse(&nested, &unlimited).unwrap();
    assert_eq!(expr.reduce(&mut scope).0, Some(Literal::Num(1.0)));
    let open = format!("{}1", "(".repeat(n));
    assert_eq!(
        Expr::parse(&open, &unlimited).unwrap_err(),
        ["Mismatched operator found: left paren"]
    );
    let unary = format!("{}1", "-".repeat(n + 1));
    let expr = Expr::parse(&unary, &unlimited).unwrap();
    assert_eq!(expr.reduce(&mut scope).0, Some(Literal::Num(-1.0)));
    let calls = format!("{}1{}", "max(".repeat(n), ")".repeat(n));
    let expr = Expr::parse(&calls, &unlimited).unwrap();
    assert_eq!(expr.reduce(&mut scope).0, Some(Literal::Num(1.0)));
    let pow = vec!["1"; n].join(" ** ");
    let expr = Expr::parse(&pow, &unlimited).unwrap();
    assert_eq!(expr.reduce(&mut scope).0, Some(Literal::Num(1.0)));
    // The default token limit stops such inputs early anyway.
    assert_eq!(
        Expr::parse(&nested, &ExprLimits::default()).unwrap_err(),
        ["Expression exceeds the maximum number of allowed tokens: 4096"]
    );
}

/// A small deterministic generator (xorshift64*), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn exercise(src: &str, scope: &mut TestScope<'_>) {
    let limits = ExprLimits {
        max_tokens: 64,
        max_string_len: 256,
    };
    let (expr, errors) = Expr::compile(src, &limits);
    let _ = expr.debug_string();
    if errors.is_empty() {
        let _ = expr.reduce(scope);
    }
}

#[test]
fn garbage_input_never_panics() {
    const PIECES: &[&str] = &[
        "1",
        "0x",
        "0x1f",
        "1e",
        "1.5",
        ".",
        "e",
        "E",
        "+",
        "-",
        "*",
        "**",
        "/",
        "%",
        "<<",
        ">>",
        "<",
        ">",
        "<=",
        ">=",
        "==",
        "===",
        "!=",
        "!==",
        "!",
        "~",
        "&",
        "&&",
        "|",
        "||",
        "^",
        "=",
        "(",
        ")",
        ",",
        ";",
        "'",
        "\"",
        "\\",
        "\\x",
        "\\u",
        "\\U",
        "'a'",
        "\"b\\n\"",
        "@a",
        "@",
        "$x",
        "a.b.c",
        "obj",
        "arr",
        "s",
        "n",
        "max",
        "min",
        "abs",
        "num",
        "str",
        "bool",
        "foo",
        "PI",
        "NaN",
        "null",
        "true",
        "constructor",
        "toString",
        " ",
        "\n",
        "\t",
        "\u{a0}",
        "😀",
        "é",
        "\u{1}",
        "#",
        "[",
        "'\\uD83D",
        "'\\U0010FFFF'",
        "'x' + 'y'",
    ];
    let data = data();
    let mut scope = TestScope {
        data: &data,
        vars: HashMap::new(),
        pending: HashMap::new(),
    };
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for _ in 0..20_000 {
        let len = rng.below(24);
        let mut src = String::new();
        for _ in 0..len {
            src.push_str(PIECES[rng.below(PIECES.len())]);
        }
        exercise(&src, &mut scope);
    }
    // Arbitrary characters, including ones outside ASCII.
    for _ in 0..20_000 {
        let len = rng.below(16);
        let src: String = (0..len)
            .map(|_| {
                let c = match rng.below(4) {
                    0 => rng.below(0x80) as u32,
                    1 => rng.below(0x800) as u32,
                    2 => rng.below(0x11_0000) as u32,
                    _ => b"0123456789.eE+-x'\"\\()"[rng.below(21)] as u32,
                };
                char::from_u32(c).unwrap_or('?')
            })
            .collect();
        exercise(&src, &mut scope);
    }
    // Every prefix of some valid expressions.
    for valid in [
        "-13.55e-17 - -15.33e10",
        "\"\\u2019\\U0010fc00\" == \"\\u2018foo\\u2019\"",
        "a.b.c * d.e.f * PI",
        "max(-1, 15, a, num(b, c, f), min(c, abs(7, 8), 9), PI)",
        "@x = 'a\\x41' + str(0x1F ** 2); ~@x >> 1 <= !(s === n) || arr",
    ] {
        for (i, _) in valid.char_indices() {
            exercise(&valid[..i], &mut scope);
        }
    }
}

#[test]
fn pow_matches_the_reference_bit_for_bit() {
    let mut failures = Vec::new();
    for &(x, y, want) in pow_cases::POW {
        let (x, y) = (f64::from_bits(x), f64::from_bits(y));
        let got = ops::js_pow(x, y);
        if got.to_bits() != want && !(got.is_nan() && f64::from_bits(want).is_nan()) {
            failures.push(format!(
                "{x:e} ** {y:e}: got {got:e}, want {:e}",
                f64::from_bits(want)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn compiled_expressions_can_be_shared_between_threads() {
    fn shareable<T: Send + Sync>() {}
    shareable::<Expr>();
}
