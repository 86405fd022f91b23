//! Variable references: `@`, `foo.bar`, `items.0.name`, `@index`, `@foo.bar`, `$key`.
//!
//! A reference is a dot-separated list of segments; each segment is digits, a word
//! optionally prefixed with `@` or `$`, or a lone `@`. All-digit segments that fit a
//! signed 32-bit integer also index arrays.

use std::sync::Arc;

use nom::IResult;
use nom::error::{Error, ErrorKind};

/// A segment's name: a piece of a shared text. A template's references name pieces of
/// one copy of its source, so that compiling a reference costs no allocation per segment
/// (a page has a hundred or so, and their allocations and frees were a tenth of a
/// compile); a name made at run time has a text of its own.
#[derive(Clone)]
pub struct Name {
    text: Arc<str>,
    start: u32,
    end: u32,
}

impl Name {
    /// A name with a text of its own.
    pub fn new(name: &str) -> Name {
        Name {
            text: Arc::from(name),
            start: 0,
            end: name.len() as u32,
        }
    }

    /// The name `piece`, which lies in `text` (as a slice of it, not just equal to a part).
    pub(crate) fn within(text: &Arc<str>, piece: &str) -> Name {
        let start = (piece.as_ptr() as usize).wrapping_sub(text.as_ptr() as usize);
        assert!(
            start <= text.len() && piece.len() <= text.len() - start,
            "a name lies in the text it is made within"
        );
        Name {
            text: Arc::clone(text),
            start: start as u32,
            end: (start + piece.len()) as u32,
        }
    }
}

impl std::ops::Deref for Name {
    type Target = str;

    #[inline]
    fn deref(&self) -> &str {
        // SAFETY: `start..end` is the range of a `&str` within `text` (checked when the
        // name was made), so it is in bounds and on character boundaries; `text` is
        // immutable.
        unsafe {
            self.text
                .get_unchecked(self.start as usize..self.end as usize)
        }
    }
}

impl PartialEq for Name {
    fn eq(&self, other: &Name) -> bool {
        **self == **other
    }
}

impl std::fmt::Debug for Name {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&**self, f)
    }
}

/// One segment of a reference.
#[derive(Debug, Clone, PartialEq)]
pub struct Seg {
    /// The segment as written (digits stay text: they also name object keys).
    pub name: Name,
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
        let mut parts = text.split('.');
        let first = parts.next().unwrap_or_default();
        VarPath {
            head: head_of_text(first, None),
            rest: parts.map(make_seg).collect(),
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
    seg_in(text, None)
}

/// The segment written as `text`, named within `owner` (which `text` lies in) if given.
fn seg_in(text: &str, owner: Option<&Arc<str>>) -> Seg {
    let b = text.as_bytes();
    let index = if b.first().is_some_and(u8::is_ascii_digit) && b.iter().all(u8::is_ascii_digit) {
        text.parse::<u64>()
            .ok()
            .filter(|&n| n <= i32::MAX as u64)
            .map(|n| n as u32)
    } else {
        None
    };
    // The reference turns such segments into numbers, so "01" names the key "1".
    let name = match (index, owner) {
        (Some(i), _) if b[0] == b'0' => Name::new(&i.to_string()),
        (_, Some(owner)) => Name::within(owner, text),
        (_, None) => Name::new(text),
    };
    Seg {
        hash: crate::value::key_hash(&name),
        name,
        index,
    }
}

/// The head a first segment written as `text` denotes (named within `owner`, which
/// `text` lies in, if given); only a key keeps its segment.
fn head_of_text(text: &str, owner: Option<&Arc<str>>) -> Head {
    if !text.starts_with('@') {
        return Head::Key(seg_in(text, owner));
    }
    match text {
        "@" => Head::Current,
        "@index" => Head::Index { one_based: true },
        "@index0" => Head::Index { one_based: false },
        name => Head::Var(name.into()),
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
    match reference(input, None) {
        Some((path, n)) => Ok((&input[n..], path)),
        None => Err(nom::Err::Error(Error::new(input, ErrorKind::Alpha))),
    }
}

/// [`var_ref`] for the compiler's short way: the reference and how many bytes it takes,
/// its names within `owner` (which `input` lies in) if given.
pub(crate) fn reference(input: &str, owner: Option<&Arc<str>>) -> Option<(VarPath, usize)> {
    let b = input.as_bytes();
    let n = segment_len(b)?;
    let head = head_of_text(&input[..n], owner);
    // Most references have one or two segments after the head: their ranges are found
    // first, so that the list is allocated once at its size.
    let mut ranges = [(0u32, 0u32); 8];
    let mut count = 0;
    let mut i = n;
    while b.get(i) == Some(&b'.') && count < ranges.len() {
        let Some(m) = segment_len(&b[i + 1..]) else {
            break;
        };
        ranges[count] = ((i + 1) as u32, m as u32);
        count += 1;
        i += 1 + m;
    }
    let seg = |&(s, m): &(u32, u32)| seg_in(&input[s as usize..(s + m) as usize], owner);
    let rest: Box<[Seg]> = if b.get(i) == Some(&b'.') && segment_len(&b[i + 1..]).is_some() {
        // A longer reference: the rest the slow way. (This loop repeats the one above;
        // both as one iterator made the blog-page compile 6% slower on 2026-11-22.)
        let mut rest: Vec<Seg> = ranges.iter().map(seg).collect();
        while b.get(i) == Some(&b'.') {
            let Some(m) = segment_len(&b[i + 1..]) else {
                break;
            };
            rest.push(seg_in(&input[i + 1..i + 1 + m], owner));
            i += 1 + m;
        }
        rest.into_boxed_slice()
    } else {
        ranges[..count].iter().map(seg).collect()
    };
    Some((VarPath { head, rest }, i))
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
    fn names_within_a_text_read_as_their_piece_of_it() {
        let text: Arc<str> = Arc::from("items.0.title");
        let title = Name::within(&text, &text[8..]);
        assert_eq!(&*title, "title");
        assert_eq!(title, Name::new("title"));
        assert_eq!(format!("{title:?}"), "\"title\"");
        assert_eq!(&*Name::within(&text, &text[5..5]), "");
        // A reference compiled within the text names its pieces, digits made canonical.
        let owned: Arc<str> = Arc::from("a.01.b}");
        let (path, n) = reference(&owned, Some(&owned)).unwrap();
        assert_eq!((path.dotted().as_str(), n), ("a.1.b", 6));
        assert_eq!(path, VarPath::parse("a.01.b").unwrap());
    }

    #[test]
    #[should_panic(expected = "a name lies in the text it is made within")]
    fn a_name_outside_its_text_is_refused() {
        let text: Arc<str> = Arc::from("abc");
        let other = String::from("abc");
        Name::within(&text, &other);
    }

    #[test]
    fn long_references_parse_past_the_first_segments() {
        let source = "a.b.c.d.e.f.g.h.i.j.k|html";
        let (path, n) = reference(source, None).unwrap();
        assert_eq!(&source[n..], "|html");
        assert_eq!(path.dotted(), "a.b.c.d.e.f.g.h.i.j.k");
        assert_eq!(path.rest.len(), 10);
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
