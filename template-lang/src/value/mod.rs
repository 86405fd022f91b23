//! Values as templates see them: the shared [`Node`] tree, the per-execution [`Val`]
//! (borrowed from the tree where possible), and the reference engines' rules for printing,
//! truthiness, conversion and comparison, all expressed on the borrowed [`View`].

pub mod json;
mod node;
pub mod number;

pub(crate) use node::key;
pub use node::{Key, Node, Object, array_index, key_hash};

use std::cmp::Ordering;
use std::sync::Arc;

use number::{js_parse_float, js_parse_int, push_number};

/// A value during execution: a reference into the data, a value computed by a formatter,
/// or nothing at all ("missing", which differs from JSON `null` in a few places).
#[derive(Clone, Default)]
pub enum Val<'a> {
    #[default]
    Missing,
    Ref(&'a Node),
    Own(Node),
    /// A string a formatter produced; kept as a `String` to avoid a copy into an `Arc`.
    Text(String),
}

/// A borrowed look at any value, which is what the language rules are written against.
#[derive(Clone, Copy)]
pub enum View<'x> {
    Missing,
    Null,
    Bool(bool),
    Num(f64),
    Str(&'x str),
    Arr(&'x [Node]),
    Obj(&'x Object),
}

impl<'x> View<'x> {
    pub fn of(node: &'x Node) -> View<'x> {
        match node {
            Node::Null => View::Null,
            Node::Bool(b) => View::Bool(*b),
            Node::Number(n) => View::Num(*n),
            Node::String(s) => View::Str(s),
            Node::Array(a) => View::Arr(a),
            Node::Object(o) => View::Obj(o),
        }
    }

    pub fn is_missing(self) -> bool {
        matches!(self, View::Missing)
    }

    pub fn is_null(self) -> bool {
        matches!(self, View::Null)
    }

    /// The template language's truthiness: `0`, `NaN`, `false`, `""`, `null`, missing,
    /// empty arrays and empty objects are false.
    pub fn truthy(self) -> bool {
        match self {
            View::Missing | View::Null => false,
            View::Bool(b) => b,
            View::Num(n) => n != 0.0 && !n.is_nan(),
            View::Str(s) => !s.is_empty(),
            View::Arr(a) => !a.is_empty(),
            View::Obj(o) => !o.is_empty(),
        }
    }

    /// Appends the value as `{var}` prints it: scalars as text, null/missing/objects as
    /// nothing, and arrays element by element with commas, each element converted the way
    /// JavaScript's string concatenation converts it (so a `null` element prints `null`,
    /// while nested arrays follow `Array.join`, where null is empty).
    // Always inlined: printing a scalar is a few instructions once the caller's match on the
    // value and this one merge; arrays, rare in output, stay out of line.
    #[inline(always)]
    pub fn print(self, out: &mut String) {
        match self {
            View::Str(s) => out.push_str(s),
            View::Num(n) => push_number(n, out),
            View::Bool(b) => out.push_str(if b { "true" } else { "false" }),
            View::Arr(a) => print_array(a, out),
            View::Missing | View::Null | View::Obj(_) => {}
        }
    }

    /// The reference's `asString`: scalars as text, everything else empty.
    pub fn to_str(self) -> std::borrow::Cow<'x, str> {
        match self {
            View::Str(s) => s.into(),
            View::Num(n) => number::number_to_string(n).into(),
            View::Bool(b) => (if b { "true" } else { "false" }).into(),
            _ => "".into(),
        }
    }

    /// The reference's `asNumber`: strings with a `.` through `parseFloat`, other strings
    /// through `parseInt`, booleans as 0/1, everything else 0.
    pub fn to_number(self) -> f64 {
        match self {
            View::Num(n) => n,
            View::Str(s) => {
                if s.contains('.') {
                    js_parse_float(s)
                } else {
                    js_parse_int(s)
                }
            }
            View::Bool(b) => f64::from(u8::from(b)),
            _ => 0.0,
        }
    }

    /// The reference's `asBoolean` (Jackson's rules): `"true"`, `true` and non-zero integers.
    pub fn to_bool(self) -> bool {
        match self {
            View::Bool(b) => b,
            View::Str(s) => s == "true",
            View::Num(n) => n.fract() == 0.0 && n != 0.0,
            _ => false,
        }
    }

    /// Number of object properties or array elements; 0 for everything else.
    pub fn size(self) -> usize {
        match self {
            View::Arr(a) => a.len(),
            View::Obj(o) => o.len(),
            _ => 0,
        }
    }

    /// Deep equality of JSON values, as the reference's `equals` (missing counts as null).
    pub fn equals(self, other: View<'_>) -> bool {
        match (self.null_if_missing(), other.null_if_missing()) {
            (View::Null, View::Null) => true,
            (View::Bool(a), View::Bool(b)) => a == b,
            (View::Num(a), View::Num(b)) => a == b,
            (View::Str(a), View::Str(b)) => a == b,
            (View::Arr(a), View::Arr(b)) => {
                a.len() == b.len()
                    && a.iter()
                        .zip(b.iter())
                        .all(|(x, y)| View::of(x).equals(View::of(y)))
            }
            (View::Obj(a), View::Obj(b)) => {
                a.len() == b.len()
                    && a.iter().all(|(k, v)| match b.get(k) {
                        Some(w) => View::of(v).equals(View::of(w)),
                        None => false,
                    })
            }
            _ => false,
        }
    }

    fn null_if_missing(self) -> View<'x> {
        match self {
            View::Missing => View::Null,
            v => v,
        }
    }

    /// The reference's `compare`, driven by the type of the left side: numbers compare
    /// numerically (NaN counts as greater), strings by UTF-16 code units, booleans as
    /// false < true, and anything else is either equal (deeply) or "less".
    pub fn compare(self, other: View<'_>) -> Ordering {
        match self {
            View::Num(a) => {
                let b = other.to_number();
                if a < b {
                    Ordering::Less
                } else if a == b {
                    Ordering::Equal
                } else {
                    Ordering::Greater
                }
            }
            View::Str(a) => utf16_cmp(a, &other.to_str()),
            View::Bool(a) => a.cmp(&other.to_bool()),
            _ => {
                if self.equals(other) {
                    Ordering::Equal
                } else {
                    Ordering::Less
                }
            }
        }
    }

    /// Length as JavaScript counts it: UTF-16 code units for strings, elements, or keys.
    pub fn js_length(self) -> Option<usize> {
        match self {
            View::Str(s) => Some(utf16_len(s)),
            View::Arr(a) => Some(a.len()),
            View::Obj(o) => Some(o.len()),
            _ => None,
        }
    }
}

/// Appends `String(value)` as JavaScript computes it.
pub fn push_js_string(node: &Node, out: &mut String) {
    match node {
        Node::Null => out.push_str("null"),
        Node::Object(_) => out.push_str("[object Object]"),
        Node::Array(a) => join_array(a, out),
        other => View::of(other).print(out),
    }
}

/// Appends the elements as JavaScript's `Array.prototype.join(",")`: null elements are
/// empty, objects are `[object Object]`, nested arrays are joined in turn.
pub fn join_array(items: &[Node], out: &mut String) {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        match item {
            Node::Null => {}
            other => push_js_string(other, out),
        }
    }
}

/// Compares strings by UTF-16 code units, as JavaScript's relational operators do.
pub fn utf16_cmp(a: &str, b: &str) -> Ordering {
    if a.is_ascii() && b.is_ascii() {
        return a.cmp(b);
    }
    a.encode_utf16().cmp(b.encode_utf16())
}

/// The length of a string in UTF-16 code units (JavaScript's `length`).
pub fn utf16_len(s: &str) -> usize {
    if s.is_ascii() {
        s.len()
    } else {
        s.chars().map(char::len_utf16).sum()
    }
}

impl<'a> Val<'a> {
    pub fn view(&self) -> View<'_> {
        match self {
            Val::Missing => View::Missing,
            Val::Ref(n) => View::of(n),
            Val::Own(n) => View::of(n),
            Val::Text(s) => View::Str(s),
        }
    }

    pub fn is_missing(&self) -> bool {
        matches!(self, Val::Missing)
    }

    pub fn num(n: f64) -> Val<'a> {
        Val::Own(Node::Number(n))
    }

    pub fn bool(b: bool) -> Val<'a> {
        Val::Own(Node::Bool(b))
    }

    pub fn text(s: impl Into<String>) -> Val<'a> {
        Val::Text(s.into())
    }

    /// The node this value denotes, owned (cheap: nodes share their contents).
    pub fn to_node(&self) -> Option<Node> {
        match self {
            Val::Missing => None,
            Val::Ref(n) => Some((*n).clone()),
            Val::Own(n) => Some(n.clone()),
            Val::Text(s) => Some(Node::String(Arc::from(s.as_str()))),
        }
    }

    /// Converts into a value that can be stored and cloned cheaply (no `Text`).
    pub fn into_shared(self) -> Val<'a> {
        match self {
            Val::Text(s) => Val::Own(Node::String(s.into())),
            v => v,
        }
    }

    /// The child `key` of an object (or the `index`-th element of an array when `index`
    /// is given), keeping the borrow when this value is itself borrowed.
    pub fn child(&self, key: &str, index: Option<u32>) -> Val<'a> {
        self.child_hashed(key, key_hash(key), index)
    }

    /// [`Val::child`] with the key's hash precomputed.
    #[inline]
    pub fn child_hashed(&self, key: &str, hash: u64, index: Option<u32>) -> Val<'a> {
        match self {
            Val::Ref(n) => match child_of(n, key, hash, index) {
                Some(c) => Val::Ref(c),
                None => Val::Missing,
            },
            Val::Own(n) => match child_of(n, key, hash, index) {
                Some(c) => Val::Own(c.clone()),
                None => Val::Missing,
            },
            Val::Missing | Val::Text(_) => Val::Missing,
        }
    }

    /// The `i`-th element of an array value.
    #[inline]
    pub fn element(&self, i: usize) -> Val<'a> {
        // Matches rather than `map_or(Val::Missing, ..)`, which builds (and drops) the
        // default on every call.
        match self {
            Val::Ref(Node::Array(a)) => match a.get(i) {
                Some(n) => Val::Ref(n),
                None => Val::Missing,
            },
            Val::Own(Node::Array(a)) => match a.get(i) {
                Some(n) => Val::Own(n.clone()),
                None => Val::Missing,
            },
            _ => Val::Missing,
        }
    }
}

/// An array as the engine prints it: elements joined with commas, each as JavaScript
/// prints it, null as `null`.
fn print_array(items: &[Node], out: &mut String) {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        match item {
            Node::Null => out.push_str("null"),
            other => push_js_string(other, out),
        }
    }
}

/// One step of a path: object key lookup, or array element for numeric segments.
#[inline]
pub fn child_of<'n>(node: &'n Node, key: &str, hash: u64, index: Option<u32>) -> Option<&'n Node> {
    match node {
        Node::Object(o) => o.get_hashed(key, hash),
        Node::Array(a) => a.get(index? as usize),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(json: &str) -> Node {
        Node::from_json_str(json).unwrap()
    }

    fn printed(json: &str) -> String {
        let n = v(json);
        let mut s = String::new();
        View::of(&n).print(&mut s);
        s
    }

    #[test]
    fn printing_matches_the_references() {
        assert_eq!(printed("1.50"), "1.5");
        assert_eq!(printed("null"), "");
        assert_eq!(printed(r#"{"a":1}"#), "");
        assert_eq!(printed("true"), "true");
        assert_eq!(
            printed(r#"[1,null,"x",{"a":1},[2,[3,null]],false]"#),
            "1,null,x,[object Object],2,3,,false"
        );
    }

    #[test]
    fn truthiness() {
        for falsy in ["0", "false", "\"\"", "null", "[]", "{}"] {
            assert!(!View::of(&v(falsy)).truthy(), "{falsy}");
        }
        for truthy in ["1", "-0.5", "true", "\"0\"", "[0]", "{\"a\":0}"] {
            assert!(View::of(&v(truthy)).truthy(), "{truthy}");
        }
        assert!(!View::Missing.truthy());
        assert!(!View::Num(f64::NAN).truthy());
    }

    #[test]
    fn conversions() {
        assert_eq!(View::Str("12.5px").to_number(), 12.5);
        assert_eq!(View::Str("12px").to_number(), 12.0);
        assert!(View::Str("px").to_number().is_nan());
        assert_eq!(View::Bool(true).to_number(), 1.0);
        assert_eq!(View::Null.to_number(), 0.0);
        assert!(View::Str("true").to_bool());
        assert!(!View::Num(1.5).to_bool());
        assert!(View::Num(-2.0).to_bool());
        assert_eq!(View::Num(2.0).to_str(), "2");
        assert_eq!(View::Null.to_str(), "");
    }

    #[test]
    fn equality_is_deep_and_key_order_free() {
        let a = v(r#"{"x":[1,{"y":2}],"z":"s"}"#);
        let b = v(r#"{"z":"s","x":[1,{"y":2}]}"#);
        let c = v(r#"{"z":"s","x":[1,{"y":3}]}"#);
        assert!(View::of(&a).equals(View::of(&b)));
        assert!(!View::of(&a).equals(View::of(&c)));
        assert!(View::Missing.equals(View::Null));
        assert!(!View::Num(1.0).equals(View::Str("1")));
        assert!(!View::Num(f64::NAN).equals(View::Num(f64::NAN)));
    }

    #[test]
    fn comparison_follows_the_left_type() {
        assert_eq!(View::Num(2.0).compare(View::Str("10")), Ordering::Less);
        assert_eq!(View::Str("2").compare(View::Str("10")), Ordering::Greater);
        assert_eq!(
            View::Num(f64::NAN).compare(View::Num(1.0)),
            Ordering::Greater
        );
        assert_eq!(
            View::Bool(true).compare(View::Str("false")),
            Ordering::Greater
        );
        assert_eq!(View::Null.compare(View::Num(0.0)), Ordering::Less);
        assert_eq!(View::Null.compare(View::Missing), Ordering::Equal);
        // U+FF5E sorts after U+1F600 by code point but before it in UTF-16.
        assert_eq!(utf16_cmp("\u{FF5E}", "\u{1F600}"), Ordering::Greater);
    }

    #[test]
    fn lengths_count_utf16_units() {
        assert_eq!(View::Str("a\u{1F600}").js_length(), Some(3));
        assert_eq!(utf16_len("é"), 1);
    }
}
