//! Variable references: `@`, `foo.bar`, `items.0.name`, `@index`, `@foo.bar`, `$key`.
//!
//! A reference is a dot-separated list of segments; each segment is digits, a word
//! optionally prefixed with `@` or `$`, or a lone `@`. All-digit segments that fit a
//! signed 32-bit integer also index arrays.

use nom::IResult;
use nom::error::{Error, ErrorKind};

/// One segment of a reference.
#[derive(Debug, Clone, PartialEq)]
pub struct Seg {
    /// The segment as written (digits stay text: they also name object keys).
    pub name: Box<str>,
    /// For all-digit segments up to `i32::MAX`: the array index.
    pub index: Option<u32>,
    /// [`crate::value::key_hash`] of `name`, for fast object lookups.
    pub hash: u64,
}

/// What the first segment of a reference denotes.
#[derive(Debug, Clone, PartialEq)]
pub enum Head {
    /// `@`: the node of the current frame.
    Current,
    /// `@index` (1-based) or `@index0` (0-based): the iteration counter.
    Index { one_based: bool },
    /// `@name`: a variable bound with `.var`, `.ctx`, `.inject`, `.eval` or `apply`.
    Var(Box<str>),
    /// Anything else: a key looked up in each frame's node, innermost first.
    Key(Seg),
}

/// A parsed variable reference.
#[derive(Debug, Clone, PartialEq)]
pub struct VarPath {
    pub head: Head,
    /// The segments after the first, followed downwards from the resolved head.
    pub rest: Box<[Seg]>,
}

impl VarPath {
    /// Parses a complete reference; `None` if `text` is not exactly one reference.
    pub fn parse(text: &str) -> Option<VarPath> {
        match var_ref(text) {
            Ok(("", path)) => Some(path),
            _ => None,
        }
    }

    /// A reference from raw dotted text without validation, as the reference engines treat
    /// formatter and predicate arguments (`splitVariable`): every piece becomes a segment.
    pub fn from_dotted(text: &str) -> VarPath {
        let mut parts = text.split('.').map(make_seg);
        let first = parts.next().unwrap_or_else(|| make_seg(""));
        VarPath {
            head: head_of(first),
            rest: parts.collect(),
        }
    }

    /// The reference written back in dotted form.
    pub fn dotted(&self) -> String {
        let mut s = match &self.head {
            Head::Current => "@".to_string(),
            Head::Index { one_based: true } => "@index".to_string(),
            Head::Index { one_based: false } => "@index0".to_string(),
            Head::Var(name) => name.to_string(),
            Head::Key(seg) => seg.name.to_string(),
        };
        for seg in self.rest.iter() {
            s.push('.');
            s.push_str(&seg.name);
        }
        s
    }

    /// True for a single `@name` segment, the only thing expressions may assign to.
    pub fn as_var_name(&self) -> Option<&str> {
        match (&self.head, self.rest.is_empty()) {
            (Head::Var(name), true) => Some(name),
            _ => None,
        }
    }
}

fn make_seg(text: &str) -> Seg {
    let index = if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
        text.parse::<u64>()
            .ok()
            .filter(|&n| n <= i32::MAX as u64)
            .map(|n| n as u32)
    } else {
        None
    };
    // The reference turns such segments into numbers, so "01" names the key "1".
    let name: Box<str> = match index {
        Some(i) => i.to_string().into(),
        None => text.into(),
    };
    Seg {
        hash: crate::value::key_hash(&name),
        name,
        index,
    }
}

fn head_of(seg: Seg) -> Head {
    match &*seg.name {
        "@" => Head::Current,
        "@index" => Head::Index { one_based: true },
        "@index0" => Head::Index { one_based: false },
        name if name.starts_with('@') => Head::Var(name.into()),
        _ => Head::Key(seg),
    }
}

/// `[a-zA-Z0-9_-]` by table: one load per byte of every name in a template.
const WORD_TAIL: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        t[b] = c.is_ascii_alphanumeric() || c == b'_' || c == b'-';
        b += 1;
    }
    t
};

fn is_word_tail(b: u8) -> bool {
    WORD_TAIL[b as usize]
}

/// The length of a word (`[a-zA-Z][a-zA-Z0-9_-]*`) at the start of `b`, if one starts there.
fn word_len(b: &[u8]) -> Option<usize> {
    let (first, tail) = b.split_first()?;
    first
        .is_ascii_alphabetic()
        .then(|| 1 + tail.iter().take_while(|&&c| is_word_tail(c)).count())
}

/// `[a-zA-Z][a-zA-Z0-9_-]*`: formatter, predicate, macro-argument and variable names.
///
/// The leaves of the tag grammar are written over bytes: every tag has several, and nom's
/// character-level combinators decoding UTF-8 for each of them were a tenth of a compile.
pub fn word(input: &str) -> IResult<&str, &str> {
    match word_len(input.as_bytes()) {
        Some(n) => Ok((&input[n..], &input[..n])),
        None => Err(nom::Err::Error(Error::new(input, ErrorKind::Alpha))),
    }
}

/// The length of the segment at the start of `b`, trying the alternatives in the
/// reference's order: digits, then a word optionally prefixed with `@` or `$`, then a lone
/// `@`.
fn segment_len(b: &[u8]) -> Option<usize> {
    let first = *b.first()?;
    if first.is_ascii_digit() {
        return Some(b.iter().take_while(|c| c.is_ascii_digit()).count());
    }
    let sigil = usize::from(first == b'@' || first == b'$');
    match word_len(&b[sigil..]) {
        Some(n) => Some(sigil + n),
        None => (first == b'@').then_some(1),
    }
}

/// Parses the longest variable reference at the start of `input`: a segment, then more
/// segments each after a dot (a dot not followed by one is left unread). The segments are
/// built as they are found, without collecting the text and splitting it again.
pub fn var_ref(input: &str) -> IResult<&str, VarPath> {
    let b = input.as_bytes();
    let Some(n) = segment_len(b) else {
        return Err(nom::Err::Error(Error::new(input, ErrorKind::Alpha)));
    };
    let head = head_of(make_seg(&input[..n]));
    let mut rest = Vec::new();
    let mut i = n;
    while b.get(i) == Some(&b'.') {
        let Some(m) = segment_len(&b[i + 1..]) else {
            break;
        };
        rest.push(make_seg(&input[i + 1..i + 1 + m]));
        i += 1 + m;
    }
    Ok((
        &input[i..],
        VarPath {
            head,
            rest: rest.into_boxed_slice(),
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_prefix(s: &str) -> Option<(String, &str)> {
        var_ref(s).ok().map(|(rest, p)| (p.dotted(), rest))
    }

    #[test]
    fn parses_references() {
        assert_eq!(parse_prefix("foo.bar}"), Some(("foo.bar".into(), "}")));
        assert_eq!(parse_prefix("a.0.b"), Some(("a.0.b".into(), "")));
        assert_eq!(parse_prefix("@index0"), Some(("@index0".into(), "")));
        assert_eq!(parse_prefix("@.x"), Some(("@.x".into(), "")));
        assert_eq!(parse_prefix("$x.y"), Some(("$x.y".into(), "")));
        // A dot not followed by a segment is not part of the reference.
        assert_eq!(parse_prefix("a."), Some(("a".into(), ".")));
        // Digits win over words, as in the reference's pattern.
        assert_eq!(parse_prefix("12ab"), Some(("12".into(), "ab")));
        assert_eq!(parse_prefix("@1"), Some(("@".into(), "1")));
        assert_eq!(parse_prefix("-a"), None);
        assert_eq!(parse_prefix("$"), None);
    }

    #[test]
    fn classifies_the_head() {
        assert_eq!(VarPath::parse("@").unwrap().head, Head::Current);
        assert_eq!(
            VarPath::parse("@index").unwrap().head,
            Head::Index { one_based: true }
        );
        assert_eq!(
            VarPath::parse("@foo.x").unwrap().head,
            Head::Var("@foo".into())
        );
        assert_eq!(VarPath::parse("@foo").unwrap().as_var_name(), Some("@foo"));
        assert!(VarPath::parse("foo bar").is_none());
    }

    #[test]
    fn numeric_segments_index_arrays_up_to_i32_max() {
        let p = VarPath::parse("a.2147483647.2147483648").unwrap();
        assert_eq!(p.rest[0].index, Some(2147483647));
        assert_eq!(p.rest[1].index, None);
        assert_eq!(VarPath::from_dotted("7").head, Head::Key(make_seg("7")));
    }
}
