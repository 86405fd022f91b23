//! The immutable data tree templates execute against.
//!
//! A [`Node`] is built once (from JSON, or by the renderer from cached content) and then
//! shared: strings, arrays and objects sit behind `Arc`, so cloning a node is O(1) and a
//! page context can reuse cached pieces without deep copies. Objects keep the key order
//! JavaScript gives them (integer-like keys first, ascending, then insertion order), because
//! the reference engine is JavaScript and that order is visible in `json`, `key-by` and
//! every iteration over an object.

use std::any::Any;
use std::fmt;
use std::sync::{Arc, OnceLock};

use rustc_hash::FxHashMap;

/// One JSON value.
#[derive(Clone, Default)]
pub enum Node {
    #[default]
    Null,
    Bool(bool),
    /// Every number is an IEEE double, as in JavaScript.
    Number(f64),
    String(Arc<str>),
    Array(Arc<[Node]>),
    Object(Arc<Object>),
}

/// Objects with more keys than this get a hash index; smaller ones are scanned.
const INDEX_THRESHOLD: usize = 16;

/// The hash objects index their keys by. Templates compute it once per path segment at
/// compile time, and built-in formatters for their fixed key names at build time (see
/// [`Key`]), so a lookup compares integers and touches key text only on a match.
///
/// A multiply-rotate hash over 8-byte words (the scheme of rustc's FxHash), written as a
/// `const fn` so that constant keys hash during compilation.
pub const fn key_hash(key: &str) -> u64 {
    const K: u64 = 0xf135_7aea_2e62_a9c5;
    // Words are taken with `first_chunk`, which compiles to one load each; indexing byte
    // by byte kept a bounds check per byte and made a hash cost some 65 instructions.
    let mut rest = key.as_bytes();
    let mut h: u64 = 0;
    while let Some(word) = rest.first_chunk::<8>() {
        h = (h ^ u64::from_le_bytes(*word))
            .wrapping_mul(K)
            .rotate_left(26);
        rest = rest.split_at(8).1;
    }
    // The last 0 to 7 bytes in at most three steps (pages hash many short keys at run time).
    let mut tail: u64 = 0;
    let mut shift = 0;
    if let Some(half) = rest.first_chunk::<4>() {
        tail = u32::from_le_bytes(*half) as u64;
        shift = 32;
        rest = rest.split_at(4).1;
    }
    if let Some(pair) = rest.first_chunk::<2>() {
        tail |= (u16::from_le_bytes(*pair) as u64) << shift;
        shift += 16;
        rest = rest.split_at(2).1;
    }
    if let [last] = rest {
        tail |= (*last as u64) << shift;
    }
    // The length keeps "a" and "a\0" apart.
    h = (h ^ tail).wrapping_mul(K).rotate_left(26);
    (h ^ key.len() as u64).wrapping_mul(K)
}

/// An object key with its [`key_hash`], for lookups by a fixed name: `key!("title")`
/// hashes at compile time.
#[derive(Clone, Copy, Debug)]
pub struct Key<'k> {
    pub name: &'k str,
    pub hash: u64,
}

impl<'k> Key<'k> {
    pub const fn new(name: &'k str) -> Key<'k> {
        Key {
            name,
            hash: key_hash(name),
        }
    }
}

/// A [`Key`] for a literal name, hashed at compile time.
macro_rules! key {
    ($name:literal) => {
        const { $crate::value::Key::new($name) }
    };
}
pub(crate) use key;

/// A JSON object: entries in JavaScript's key order, with their key hashes alongside, and
/// for large objects an open-addressing hash index (a lookup is one probe, usually).
#[derive(Default)]
pub struct Object {
    entries: Box<[(Arc<str>, Node)]>,
    hashes: Box<[u64]>,
    /// A power-of-two table of at most half-full slots, each 0 (empty) or an entry's
    /// position plus one, probed linearly from [`slot_of`] the key hash.
    index: Option<Box<[u32]>>,
    /// One bit per key, chosen by the top six bits of its hash ([`filter_bit`]): a lookup
    /// whose bit is clear misses without scanning. Most lookups while rendering are misses,
    /// since a name is looked up in each enclosing scope until one has it.
    filter: u64,
    /// A value derived from the entries, computed on first use ([`Object::derived`]).
    derived: OnceLock<Box<dyn Any + Send + Sync>>,
}

/// The bit of [`Object::filter`] for a key hash; the top bits of [`key_hash`] come out of
/// its final multiplication, the best-mixed ones.
#[inline(always)]
fn filter_bit(hash: u64) -> u64 {
    1 << (hash >> 58)
}

/// The first slot to probe for `hash` in a table of `len` (a power of two) slots. The hash
/// is mixed once more so that its high bits, which vary most, choose the slot.
#[inline(always)]
fn slot_of(hash: u64, len: usize) -> usize {
    (hash.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - len.trailing_zeros())) as usize
}

impl Object {
    /// Builds an object from entries in insertion order, applying JavaScript's rules: a
    /// repeated key keeps its first position and its last value, and integer-like keys
    /// ("0", "17") come first in ascending numeric order.
    pub fn from_entries(entries: Vec<(Arc<str>, Node)>) -> Object {
        let mut entries = dedupe_keys(entries);
        if entries.iter().any(|(k, _)| array_index(k).is_some()) {
            // A stable sort keeps the insertion order of the non-index keys.
            entries.sort_by_key(|(k, _)| match array_index(k) {
                Some(i) => (0u8, i),
                None => (1u8, 0),
            });
        }
        let hashes = entries.iter().map(|(k, _)| key_hash(k)).collect();
        Object::with_hashes(entries, hashes)
    }

    /// This object with `extra` entries after its own: what [`Object::from_entries`] builds
    /// from both lists, without copying the entries or hashing their keys again. Pages add
    /// the layout's keys to their context this way.
    pub fn extended(self, extra: Vec<(Arc<str>, Node)>) -> Object {
        let mut entries = self.entries.into_vec();
        let appendable = extra.iter().enumerate().all(|(i, (k, _))| {
            array_index(k).is_none()
                && !extra[..i].iter().any(|(seen, _)| seen == k)
                && !entries.iter().any(|(seen, _)| seen == k)
        });
        if !appendable {
            entries.extend(extra);
            return Object::from_entries(entries);
        }
        let mut hashes = self.hashes.into_vec();
        hashes.extend(extra.iter().map(|(k, _)| key_hash(k)));
        entries.extend(extra);
        Object::with_hashes(entries, hashes)
    }

    /// An object of deduplicated, ordered `entries` with their key hashes.
    fn with_hashes(entries: Vec<(Arc<str>, Node)>, hashes: Vec<u64>) -> Object {
        let index = (entries.len() > INDEX_THRESHOLD).then(|| {
            let len = (entries.len() * 2).next_power_of_two();
            let mut table = vec![0u32; len].into_boxed_slice();
            for (i, &h) in hashes.iter().enumerate() {
                let mut slot = slot_of(h, len);
                while table[slot] != 0 {
                    slot = (slot + 1) & (len - 1);
                }
                table[slot] = i as u32 + 1;
            }
            table
        });
        let filter = hashes.iter().fold(0, |f, &h| f | filter_bit(h));
        Object {
            entries: entries.into_boxed_slice(),
            hashes: hashes.into_boxed_slice(),
            index,
            filter,
            derived: OnceLock::new(),
        }
    }

    /// A value derived from this object by `compute`, computed on first use and kept with
    /// it. An object never changes after it is built, and cached content lives for many
    /// renders, so facts that formatters work out from an item (a product's prices and
    /// stock, say) are worked out once per content version instead of on every page.
    /// `None` when a value of another type was derived first; callers then compute.
    pub fn derived<T: Any + Send + Sync>(&self, compute: impl FnOnce(&Object) -> T) -> Option<&T> {
        self.derived
            .get_or_init(|| Box::new(compute(self)))
            .downcast_ref()
    }

    /// The value for `key`, if present.
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.get_hashed(key, key_hash(key))
    }

    /// The value for `key`, whose [`key_hash`] is `hash`.
    #[inline]
    pub fn get_hashed(&self, key: &str, hash: u64) -> Option<&Node> {
        if self.filter & filter_bit(hash) == 0 {
            return None;
        }
        match &self.index {
            Some(index) => {
                let mask = index.len() - 1;
                let mut slot = slot_of(hash, index.len());
                loop {
                    let at = index[slot] as usize;
                    if at == 0 {
                        return None;
                    }
                    if self.hashes[at - 1] == hash && same_key(&self.entries[at - 1].0, key) {
                        return Some(&self.entries[at - 1].1);
                    }
                    slot = (slot + 1) & mask;
                }
            }
            None => self
                .hashes
                .iter()
                .zip(self.entries.iter())
                .find(|(h, (k, _))| **h == hash && same_key(k, key))
                .map(|(_, (_, v))| v),
        }
    }

    /// The position of `key` among the entries, for [`Object::value_at`]. A scan: it is
    /// for values worked out once per object ([`Object::derived`]), not for lookups.
    pub fn position(&self, key: &str) -> Option<usize> {
        self.entries.iter().position(|(k, _)| &**k == key)
    }

    /// The value of the entry at `position` (see [`Object::position`]).
    pub fn value_at(&self, position: usize) -> &Node {
        &self.entries[position].1
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Entries in JavaScript's key order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&Arc<str>, &Node)> {
        self.entries.iter().map(|(k, v)| (k, v))
    }
}

/// Key equality, inlined for the short keys templates use (a `memcmp` call costs more than
/// the comparison itself there).
#[inline(always)]
fn same_key(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let n = a.len();
    if n != b.len() {
        return false;
    }
    let word = |s: &[u8], at: usize| u64::from_le_bytes(s[at..at + 8].try_into().unwrap_or([0; 8]));
    let half = |s: &[u8], at: usize| u32::from_le_bytes(s[at..at + 4].try_into().unwrap_or([0; 4]));
    match n {
        0 => true,
        1..=3 => a.iter().zip(b).all(|(x, y)| x == y),
        4..=8 => half(a, 0) == half(b, 0) && half(a, n - 4) == half(b, n - 4),
        9..=16 => word(a, 0) == word(b, 0) && word(a, n - 8) == word(b, n - 8),
        _ => a == b,
    }
}

fn dedupe_keys(mut entries: Vec<(Arc<str>, Node)>) -> Vec<(Arc<str>, Node)> {
    if entries.len() <= 1 {
        return entries;
    }
    // Objects built while rendering are small and rarely repeat a key: compare pairwise
    // and keep the vector as it is, instead of building a hash map per object.
    if entries.len() <= 16 {
        let repeated =
            (1..entries.len()).any(|i| entries[..i].iter().any(|(k, _)| *k == entries[i].0));
        if !repeated {
            return entries;
        }
        let mut out: Vec<(Arc<str>, Node)> = Vec::with_capacity(entries.len());
        for (k, v) in entries.drain(..) {
            match out.iter_mut().find(|(seen, _)| *seen == k) {
                Some(slot) => slot.1 = v,
                None => out.push((k, v)),
            }
        }
        return out;
    }
    let mut seen: FxHashMap<Arc<str>, usize> = FxHashMap::default();
    let mut out: Vec<(Arc<str>, Node)> = Vec::with_capacity(entries.len());
    for (k, v) in entries {
        match seen.get(&k) {
            Some(&i) => out[i].1 = v,
            None => {
                seen.insert(k.clone(), out.len());
                out.push((k, v));
            }
        }
    }
    out
}

/// JavaScript's "array index" test for property keys: the canonical decimal form of an
/// integer below 2^32 - 1. Such keys are ordered numerically before all other keys.
pub fn array_index(key: &str) -> Option<u32> {
    let bytes = key.as_bytes();
    if bytes.is_empty() || bytes.len() > 10 || (bytes.len() > 1 && bytes[0] == b'0') {
        return None;
    }
    if !bytes.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let n: u64 = key.parse().ok()?;
    (n < u32::MAX as u64).then_some(n as u32)
}

impl Node {
    pub fn string(s: impl Into<Arc<str>>) -> Node {
        Node::String(s.into())
    }

    pub fn array(items: Vec<Node>) -> Node {
        Node::Array(items.into())
    }

    pub fn object(entries: Vec<(Arc<str>, Node)>) -> Node {
        Node::Object(Arc::new(Object::from_entries(entries)))
    }

    /// Parses JSON text into a node tree.
    pub fn from_json_str(text: &str) -> Result<Node, serde_json::Error> {
        serde_json::from_str(text)
    }

    /// Converts a `serde_json` value (document key order) into a node tree.
    pub fn from_json(value: &serde_json::Value) -> Node {
        match value {
            serde_json::Value::Null => Node::Null,
            serde_json::Value::Bool(b) => Node::Bool(*b),
            serde_json::Value::Number(n) => Node::Number(n.as_f64().unwrap_or(f64::NAN)),
            serde_json::Value::String(s) => Node::String(s.as_str().into()),
            serde_json::Value::Array(a) => Node::array(a.iter().map(Node::from_json).collect()),
            serde_json::Value::Object(o) => Node::object(
                o.iter()
                    .map(|(k, v)| (Arc::from(k.as_str()), Node::from_json(v)))
                    .collect(),
            ),
        }
    }

    pub fn as_object(&self) -> Option<&Object> {
        match self {
            Node::Object(o) => Some(o),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&[Node]> {
        match self {
            Node::Array(a) => Some(a),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Node::String(s) => Some(s),
            _ => None,
        }
    }

    /// Follows object keys from this node; `None` as soon as one is missing.
    pub fn pointer(&self, keys: &[&str]) -> Option<&Node> {
        keys.iter()
            .try_fold(self, |node, key| node.as_object()?.get(key))
    }
}

impl fmt::Debug for Node {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::new();
        crate::value::json::stringify(crate::value::View::of(self), None, &mut s);
        f.write_str(&s)
    }
}

impl From<&str> for Node {
    fn from(s: &str) -> Node {
        Node::String(s.into())
    }
}

impl From<String> for Node {
    fn from(s: String) -> Node {
        Node::String(s.into())
    }
}

impl From<f64> for Node {
    fn from(n: f64) -> Node {
        Node::Number(n)
    }
}

impl From<bool> for Node {
    fn from(b: bool) -> Node {
        Node::Bool(b)
    }
}

impl From<serde_json::Value> for Node {
    fn from(v: serde_json::Value) -> Node {
        Node::from_json(&v)
    }
}

mod de {
    use super::{Node, Object};
    use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
    use std::fmt;
    use std::sync::Arc;

    struct NodeVisitor;

    impl<'de> Visitor<'de> for NodeVisitor {
        type Value = Node;

        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a JSON value")
        }
        fn visit_bool<E>(self, v: bool) -> Result<Node, E> {
            Ok(Node::Bool(v))
        }
        fn visit_i64<E>(self, v: i64) -> Result<Node, E> {
            Ok(Node::Number(v as f64))
        }
        fn visit_u64<E>(self, v: u64) -> Result<Node, E> {
            Ok(Node::Number(v as f64))
        }
        fn visit_f64<E>(self, v: f64) -> Result<Node, E> {
            Ok(Node::Number(v))
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<Node, E> {
            Ok(Node::String(v.into()))
        }
        fn visit_string<E: de::Error>(self, v: String) -> Result<Node, E> {
            Ok(Node::String(v.into()))
        }
        fn visit_unit<E>(self) -> Result<Node, E> {
            Ok(Node::Null)
        }
        fn visit_none<E>(self) -> Result<Node, E> {
            Ok(Node::Null)
        }
        fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Node, D::Error> {
            Deserialize::deserialize(d)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
            let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
            while let Some(item) = seq.next_element()? {
                items.push(item);
            }
            Ok(Node::Array(items.into()))
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
            let mut entries: Vec<(Arc<str>, Node)> = Vec::new();
            while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                let value: Node = map.next_value()?;
                entries.push((Arc::from(&*key), value));
            }
            Ok(Node::Object(Arc::new(Object::from_entries(entries))))
        }
    }

    impl<'de> Deserialize<'de> for Node {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Node, D::Error> {
            d.deserialize_any(NodeVisitor)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extended_objects_are_built_as_from_both_lists() {
        let entries = |keys: &[&str], base: f64| -> Vec<(Arc<str>, Node)> {
            keys.iter()
                .enumerate()
                .map(|(i, k)| (Arc::from(*k), Node::Number(base + i as f64)))
                .collect()
        };
        let shape = |o: &Object| -> Vec<(String, String)> {
            o.iter()
                .map(|(k, v)| {
                    (
                        k.to_string(),
                        crate::value::View::of(v).to_str().into_owned(),
                    )
                })
                .collect()
        };
        let own: Vec<String> = (0..20).map(|i| format!("key{i}")).collect();
        let own: Vec<&str> = own.iter().map(String::as_str).collect();
        // New keys are appended; a key the object has, a repeated extra key or an
        // integer-like one takes JavaScript's order and last value, as `from_entries` does.
        for extra in [
            &["a", "b", "c"][..],
            &["key3", "z"],
            &["z", "z"],
            &["7", "z"],
            &[],
        ] {
            for size in [2, own.len()] {
                let base = entries(&own[..size], 0.0);
                let want = Object::from_entries([base.clone(), entries(extra, 100.0)].concat());
                let got = Object::from_entries(base).extended(entries(extra, 100.0));
                assert_eq!(shape(&got), shape(&want), "{extra:?} on {size} keys");
                for (k, v) in want.iter() {
                    let found = got
                        .get(k)
                        .map(|n| crate::value::View::of(n).to_str().into_owned());
                    assert_eq!(
                        found,
                        Some(crate::value::View::of(v).to_str().into_owned()),
                        "{k}"
                    );
                }
                assert!(got.get("missing").is_none());
            }
        }
    }

    #[test]
    fn derived_values_are_computed_once_per_object() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let calls = AtomicUsize::new(0);
        let count_keys = |o: &Object| {
            calls.fetch_add(1, Ordering::Relaxed);
            o.len()
        };
        let o = Object::from_entries(vec![
            (Arc::from("a"), Node::Null),
            (Arc::from("b"), Node::Null),
        ]);
        assert_eq!(o.derived(count_keys), Some(&2));
        assert_eq!(o.derived(count_keys), Some(&2));
        assert_eq!(calls.load(Ordering::Relaxed), 1);
        // Another object derives its own; a value of another type is not there to read.
        let p = Object::from_entries(vec![(Arc::from("a"), Node::Null)]);
        assert_eq!(p.derived(count_keys), Some(&1));
        assert_eq!(calls.load(Ordering::Relaxed), 2);
        assert_eq!(o.derived(|_| "text"), None);
    }

    #[test]
    fn a_repeated_key_keeps_its_first_position_and_its_last_value() {
        // Both paths: small objects (pairwise) and large ones (hash map).
        for n in [3usize, 40] {
            let mut entries: Vec<(Arc<str>, Node)> = (0..n)
                .map(|i| (Arc::from(format!("k{i}")), Node::Number(i as f64)))
                .collect();
            entries.push((Arc::from("k1"), Node::from("last")));
            let o = Object::from_entries(entries);
            assert_eq!(o.len(), n, "n = {n}");
            let order: Vec<&str> = o.iter().map(|(k, _)| &**k).collect();
            assert_eq!(order[..3], ["k0", "k1", "k2"], "n = {n}");
            assert_eq!(o.get("k1").and_then(Node::as_str), Some("last"), "n = {n}");
            let last = o.get(&format!("k{}", n - 1));
            assert!(
                matches!(last, Some(Node::Number(x)) if *x == (n - 1) as f64),
                "n = {n}"
            );
        }
    }

    fn keys(node: &Node) -> Vec<String> {
        node.as_object()
            .unwrap()
            .iter()
            .map(|(k, _)| k.to_string())
            .collect()
    }

    #[test]
    fn integer_like_keys_come_first_in_ascending_order() {
        let n = Node::from_json_str(r#"{"b":1,"10":2,"a":3,"2":4,"01":5,"4294967295":6,"0":7}"#)
            .unwrap();
        assert_eq!(keys(&n), ["0", "2", "10", "b", "a", "01", "4294967295"]);
    }

    #[test]
    fn repeated_keys_keep_first_position_and_last_value() {
        let n = Node::from_json_str(r#"{"a":1,"b":2,"a":3}"#).unwrap();
        assert_eq!(keys(&n), ["a", "b"]);
        assert!(matches!(n.pointer(&["a"]), Some(Node::Number(v)) if *v == 3.0));
    }

    #[test]
    fn large_objects_are_indexed() {
        let text = format!(
            "{{{}}}",
            (0..40)
                .map(|i| format!("\"k{i}\":{i}"))
                .collect::<Vec<_>>()
                .join(",")
        );
        let n = Node::from_json_str(&text).unwrap();
        let o = n.as_object().unwrap();
        assert!(o.index.is_some());
        assert_eq!(o.len(), 40);
        assert!(matches!(o.get("k33"), Some(Node::Number(v)) if *v == 33.0));
        assert!(o.get("k40").is_none());
    }

    #[test]
    fn every_key_of_an_indexed_object_is_found_and_no_other() {
        for size in [INDEX_THRESHOLD + 1, 40, 64, 1000] {
            let entries = (0..size)
                .map(|i| (Arc::from(format!("key-{i}")), Node::Number(i as f64)))
                .collect();
            let o = Object::from_entries(entries);
            assert!(o.index.is_some(), "{size}");
            for i in 0..size {
                let found = o.get(&format!("key-{i}"));
                assert!(
                    matches!(found, Some(Node::Number(v)) if *v == i as f64),
                    "{size} {i}"
                );
            }
            for i in size..size + 200 {
                assert!(o.get(&format!("key-{i}")).is_none(), "{size} {i}");
            }
            // The right hash with another key's text is not a match.
            assert!(o.get_hashed("key-x", key_hash("key-0")).is_none());
        }
    }

    #[test]
    fn key_comparison_covers_every_length() {
        for n in 0..40 {
            let a: String = (0..n).map(|i| (b'a' + (i % 26) as u8) as char).collect();
            assert!(same_key(&a, &a.clone()), "{n}");
            for i in 0..n {
                let mut b = a.clone().into_bytes();
                b[i] = b'#';
                assert!(!same_key(&a, std::str::from_utf8(&b).unwrap()), "{n} {i}");
            }
            assert!(!same_key(&a, &format!("{a}x")));
        }
    }

    #[test]
    fn big_integers_become_doubles() {
        let n = Node::from_json_str("123456789012345678901").unwrap();
        let Node::Number(v) = n else {
            panic!("not a number: {n:?}")
        };
        assert_eq!(
            crate::value::number::number_to_string(v),
            "123456789012345680000"
        );
    }
}
