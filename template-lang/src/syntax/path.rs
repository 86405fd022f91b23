//! Variable references: `@`, `foo.bar`, `items.0.name`, `@index`, `@foo.bar`, `$key`.
//!
//! A reference is a dot-separated list of segments; each segment is digits, a word
//! optionally prefixed with `@` or `$`, or a lone `@`. All-digit segments that fit a
//! signed 32-bit integer also index arrays.

use nom::IResult;
use nom::error::{Error, ErrorKind};

use super::span::Span;

/// One segment of a reference.
#[derive(Debug, Clone, Copy)]
pub struct Seg {
    /// The segment as written, a range of its reference's text ([`Path::name`] reads it);
    /// digits stay text, as they also name object keys, but in their canonical form: the
    /// reference turns such segments into numbers, so "01" names the key "1".
    pub name: Span,
    /// For all-digit segments up to `i32::MAX`: the array index.
    pub index: Option<u32>,
    /// [`crate::value::key_hash`] of the name, for fast object lookups.
    pub hash: u64,
}

impl Seg {
    /// Whether the name is a range of `text` on character boundaries, as the executor
    /// reads it unchecked.
    pub(crate) fn lies_in(&self, text: &str) -> bool {
        text.get(self.name.start as usize..self.name.end() as usize)
            .is_some()
    }
}

/// What the first segment of a reference denotes.
#[derive(Debug, Clone)]
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

/// A reference as the executor reads it: its head, and the segments after it, whose
/// names are ranges of `text`. A compiled template keeps its references in lists of its
/// own (see [`crate::compile::tree::PathId`]), their names ranges of its text, so that
/// compiling one allocates nothing; a [`VarPath`] has a text and lists of its own.
#[derive(Clone, Copy)]
pub struct Path<'a> {
    text: &'a str,
    head: &'a Head,
    rest: &'a [Seg],
}

impl<'a> Path<'a> {
    /// The reference with `head` and `rest`, whose names are ranges of `text`.
    ///
    /// # Safety
    ///
    /// The name of every segment in `head` and `rest` is a range of `text` on character
    /// boundaries (the executor's lookups read them unchecked). It is so for segments
    /// made by [`reference`] with the [`Names`] of `text`.
    pub(crate) unsafe fn new(text: &'a str, head: &'a Head, rest: &'a [Seg]) -> Path<'a> {
        debug_assert!(
            rest.iter()
                .chain(match head {
                    Head::Key(seg) => Some(seg),
                    _ => None,
                })
                .all(|seg| seg.lies_in(text)),
            "names lie in their text"
        );
        Path { text, head, rest }
    }

    pub fn head(&self) -> &'a Head {
        self.head
    }

    /// The segments after the first, followed downwards from the resolved head.
    pub fn rest(&self) -> &'a [Seg] {
        self.rest
    }

    /// The name of `seg`, a segment of this reference.
    #[inline]
    pub fn name(&self, seg: &Seg) -> &'a str {
        seg.name.of(self.text)
    }

    /// The head's segment and name, for a reference whose head is a key.
    #[inline(always)]
    pub(crate) fn key(&self) -> Option<(&'a Seg, &'a str)> {
        match self.head {
            // SAFETY: the head's segment is this reference's own.
            Head::Key(seg) => Some((seg, unsafe { self.name_unchecked(seg) })),
            _ => None,
        }
    }

    /// The segments after the head, with their names, for the executor's lookups.
    #[inline(always)]
    pub(crate) fn rest_names(&self) -> impl Iterator<Item = (&'a Seg, &'a str)> + use<'a> {
        let this = *self;
        // SAFETY: the segments are this reference's own.
        self.rest
            .iter()
            .map(move |seg| (seg, unsafe { this.name_unchecked(seg) }))
    }

    /// [`Path::name`] without checks: names are read on every lookup, and checking each
    /// was most of what keeping references in lists of their own cost the executor.
    ///
    /// # Safety
    ///
    /// `seg` is this reference's head or one of its `rest`, whose names lie in `text` on
    /// character boundaries, as [`Path::new`] requires.
    #[inline(always)]
    unsafe fn name_unchecked(&self, seg: &Seg) -> &'a str {
        // SAFETY: the caller's promise.
        unsafe {
            self.text
                .get_unchecked(seg.name.start as usize..seg.name.end() as usize)
        }
    }

    /// The first segment as written (digits canonical).
    pub fn head_name(&self) -> &'a str {
        match self.head {
            Head::Current => "@",
            Head::Index { one_based: true } => "@index",
            Head::Index { one_based: false } => "@index0",
            Head::Var(name) => name,
            Head::Key(seg) => self.name(seg),
        }
    }

    /// The reference written back in dotted form.
    pub fn dotted(&self) -> String {
        let mut s = self.head_name().to_string();
        for seg in self.rest {
            s.push('.');
            s.push_str(self.name(seg));
        }
        s
    }

    /// True for a single `@name` segment, the only thing expressions may assign to.
    pub fn as_var_name(&self) -> Option<&'a str> {
        match (self.head, self.rest.is_empty()) {
            (Head::Var(name), true) => Some(name),
            _ => None,
        }
    }

    /// The reference with a text of its own.
    pub fn to_var_path(&self) -> VarPath {
        let mut text = String::new();
        let mut own = |seg: &Seg| {
            let start = text.len() as u32;
            text.push_str(self.name(seg));
            Seg {
                name: Span {
                    start,
                    len: text.len() as u32 - start,
                },
                ..*seg
            }
        };
        let head = match self.head {
            Head::Key(seg) => Head::Key(own(seg)),
            other => other.clone(),
        };
        let rest = self.rest.iter().map(own).collect();
        VarPath {
            text: text.into_boxed_str(),
            head,
            rest,
        }
    }

    /// Where the reference is kept, which names it for as long as it lives: a compiled
    /// reference is read from the same place every time it runs.
    pub(crate) fn addr(&self) -> usize {
        std::ptr::from_ref(self.head) as usize
    }
}

/// References are equal when they denote the same thing: the same kind of head and the
/// same names (whatever texts the names are ranges of).
impl PartialEq for Path<'_> {
    fn eq(&self, other: &Path<'_>) -> bool {
        let heads = match (self.head, other.head) {
            (Head::Current, Head::Current) => true,
            (Head::Index { one_based: a }, Head::Index { one_based: b }) => a == b,
            (Head::Var(a), Head::Var(b)) => a == b,
            (Head::Key(a), Head::Key(b)) => self.name(a) == other.name(b),
            _ => false,
        };
        heads
            && self.rest.len() == other.rest.len()
            && self
                .rest
                .iter()
                .zip(other.rest)
                .all(|(a, b)| a.index == b.index && self.name(a) == other.name(b))
    }
}

impl std::fmt::Debug for Path<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&self.dotted(), f)
    }
}

/// A reference with a text of its own: parsed on its own, or made while executing.
#[derive(Clone)]
pub struct VarPath {
    text: Box<str>,
    head: Head,
    rest: Box<[Seg]>,
}

impl VarPath {
    /// Parses a complete reference; `None` if `text` is not exactly one reference.
    pub fn parse(text: &str) -> Option<VarPath> {
        match VarPath::prefix(text) {
            Some((path, n)) if n == text.len() => Some(path),
            _ => None,
        }
    }

    /// The longest reference at the start of `input`, and how many bytes it takes.
    fn prefix(input: &str) -> Option<(VarPath, usize)> {
        let mut names = OwnNames::new(input);
        let mut rest = Vec::new();
        let (head, n) = reference(input, &mut names, &mut rest)?;
        Some((
            VarPath {
                text: names.finish(n),
                head,
                rest: rest.into_boxed_slice(),
            },
            n,
        ))
    }

    /// A reference from raw dotted text without validation, as the reference engines treat
    /// formatter and predicate arguments (`splitVariable`): every piece becomes a segment.
    pub fn from_dotted(text: &str) -> VarPath {
        let mut names = OwnNames::new(text);
        let mut parts = text.split('.');
        let first = parts.next().unwrap_or_default();
        let head = head_of_text(first, &mut names);
        let rest = parts.map(|part| seg_in(part, &mut names)).collect();
        VarPath {
            text: names.finish(text.len()),
            head,
            rest,
        }
    }

    /// A reference to the one key `name`, dots and all.
    pub fn key(name: &str) -> VarPath {
        VarPath {
            text: name.into(),
            head: Head::Key(Seg {
                name: Span {
                    start: 0,
                    len: name.len() as u32,
                },
                index: None,
                hash: crate::value::key_hash(name),
            }),
            rest: Box::new([]),
        }
    }

    /// The reference as the executor reads it.
    pub fn path(&self) -> Path<'_> {
        // SAFETY: the names were made within `text` (`OwnNames`, `to_var_path`, `key`).
        unsafe { Path::new(&self.text, &self.head, &self.rest) }
    }

    pub fn head(&self) -> &Head {
        &self.head
    }

    /// The segments after the first.
    pub fn rest(&self) -> &[Seg] {
        &self.rest
    }

    /// The reference written back in dotted form.
    pub fn dotted(&self) -> String {
        self.path().dotted()
    }

    /// True for a single `@name` segment, the only thing expressions may assign to.
    pub fn as_var_name(&self) -> Option<&str> {
        self.path().as_var_name()
    }
}

impl<'a> From<&'a VarPath> for Path<'a> {
    fn from(path: &'a VarPath) -> Path<'a> {
        path.path()
    }
}

impl PartialEq for VarPath {
    fn eq(&self, other: &VarPath) -> bool {
        self.path() == other.path()
    }
}

impl std::fmt::Debug for VarPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.path().fmt(f)
    }
}

/// Where the names of references being parsed go: each name becomes a range of a text.
pub(crate) trait Names {
    /// The range of `piece`, which is a piece of the text being parsed or, for a name in
    /// canonical form, made up.
    fn span(&mut self, piece: &str) -> Span;
}

/// The names of a [`VarPath`]: the text parsed, then any made-up names.
struct OwnNames<'i> {
    input: &'i str,
    made: String,
}

impl<'i> OwnNames<'i> {
    fn new(input: &'i str) -> OwnNames<'i> {
        OwnNames {
            input,
            made: String::new(),
        }
    }

    /// The text for references that took the first `n` bytes of the input.
    fn finish(self, n: usize) -> Box<str> {
        if self.made.is_empty() {
            self.input[..n].into()
        } else {
            // Made-up names were placed after the whole input.
            let mut text = String::with_capacity(self.input.len() + self.made.len());
            text.push_str(self.input);
            text.push_str(&self.made);
            text.into_boxed_str()
        }
    }
}

impl Names for OwnNames<'_> {
    fn span(&mut self, piece: &str) -> Span {
        let start = (piece.as_ptr() as usize).wrapping_sub(self.input.as_ptr() as usize);
        if start <= self.input.len() && piece.len() <= self.input.len() - start {
            return Span {
                start: start as u32,
                len: piece.len() as u32,
            };
        }
        let start = self.input.len() + self.made.len();
        self.made.push_str(piece);
        Span {
            start: start as u32,
            len: piece.len() as u32,
        }
    }
}

/// The segment written as `text`, its name placed by `names`.
// Inlined: as a call, its entry, exit and the segment returned through memory were about
// a third of what a segment cost (some 270 segments a wright page).
#[inline(always)]
fn seg_in(text: &str, names: &mut impl Names) -> Seg {
    let b = text.as_bytes();
    let index = if b.first().is_some_and(u8::is_ascii_digit) && b.iter().all(u8::is_ascii_digit) {
        text.parse::<u64>()
            .ok()
            .filter(|&n| n <= i32::MAX as u64)
            .map(|n| n as u32)
    } else {
        None
    };
    // The reference turns such segments into numbers, so "01" names the key "1"; "0" is
    // its own canonical form (a range of the text, not a made-up name).
    let canonical;
    let name = match index {
        Some(i) if b[0] == b'0' && b.len() > 1 => {
            canonical = i.to_string();
            &canonical[..]
        }
        _ => text,
    };
    Seg {
        name: names.span(name),
        index,
        hash: crate::value::key_hash(name),
    }
}

/// The segment written as `text`, a word (`[a-zA-Z][a-zA-Z0-9_-]*`, the usual segment):
/// what [`seg_in`] makes of it, without looking for digits.
#[inline(always)]
fn word_seg(text: &str, names: &mut impl Names) -> Seg {
    debug_assert!(text.as_bytes()[0].is_ascii_alphabetic());
    Seg {
        name: names.span(text),
        index: None,
        hash: crate::value::key_hash(text),
    }
}

/// The head a first segment written as `text` denotes; only a key keeps its segment.
fn head_of_text(text: &str, names: &mut impl Names) -> Head {
    if !text.starts_with('@') {
        return Head::Key(seg_in(text, names));
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
pub(crate) fn word_len(b: &[u8]) -> Option<usize> {
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

/// How many bytes the longest variable reference at the start of `b` takes: a segment,
/// then more segments each after a dot (a dot not followed by one is left unread).
fn reference_len(b: &[u8]) -> Option<usize> {
    let mut i = segment_len(b)?;
    while b.get(i) == Some(&b'.') {
        let Some(m) = segment_len(&b[i + 1..]) else {
            break;
        };
        i += 1 + m;
    }
    Some(i)
}

/// The text of the longest variable reference at the start of `input`, for the tag
/// grammar (the compiler builds the reference from it).
pub fn var_text(input: &str) -> IResult<&str, &str> {
    match reference_len(input.as_bytes()) {
        Some(n) => Ok((&input[n..], &input[..n])),
        None => Err(nom::Err::Error(Error::new(input, ErrorKind::Alpha))),
    }
}

/// Parses the longest variable reference at the start of `input` into a [`VarPath`].
pub fn var_ref(input: &str) -> IResult<&str, VarPath> {
    match VarPath::prefix(input) {
        Some((path, n)) => Ok((&input[n..], path)),
        None => Err(nom::Err::Error(Error::new(input, ErrorKind::Alpha))),
    }
}

/// Parses the longest variable reference at the start of `input`: its head, and how many
/// bytes it takes; the segments after the head are pushed to `rest`, their names placed
/// by `names`. The segments are built as they are found, without collecting the text and
/// splitting it again.
// Inlined (into `Draft::reference`, where the compiler calls it): as a call, its result
// (the head, an enum holding a segment, and the length) went back through memory, and the
// draft's lists were reached through the `Names` and `Vec` pointers passed, for each of
// the about 340 references of a wright page (446.2k -> 436.4k instructions a compile).
#[inline]
pub(crate) fn reference(
    input: &str,
    names: &mut impl Names,
    rest: &mut Vec<Seg>,
) -> Option<(Head, usize)> {
    let b = input.as_bytes();
    // A word first (most segments are), which [`segment_len`] would also take whole: a
    // key, without the checks for digits and `@`.
    let (head, mut i) = match word_len(b) {
        Some(n) => (Head::Key(word_seg(&input[..n], names)), n),
        None => {
            let n = segment_len(b)?;
            (head_of_text(&input[..n], names), n)
        }
    };
    while b.get(i) == Some(&b'.') {
        let after = &b[i + 1..];
        let (seg, m) = match word_len(after) {
            Some(m) => (word_seg(&input[i + 1..i + 1 + m], names), m),
            None => {
                let Some(m) = segment_len(after) else {
                    break;
                };
                (seg_in(&input[i + 1..i + 1 + m], names), m)
            }
        };
        rest.push(seg);
        i += 1 + m;
    }
    Some((head, i))
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
        // The grammar's view of the same references: their extent.
        assert_eq!(var_text("foo.bar}"), Ok(("}", "foo.bar")));
        assert_eq!(var_text("a.|x"), Ok((".|x", "a")));
        assert!(var_text("-a").is_err());
    }

    #[test]
    fn names_are_ranges_of_the_text_parsed() {
        // References in a longer text name pieces of it, digits made canonical (placed
        // after the text).
        struct Within<'t>(&'t str, String);
        impl Names for Within<'_> {
            fn span(&mut self, piece: &str) -> Span {
                let start = piece.as_ptr() as usize - self.0.as_ptr() as usize;
                if start < self.0.len() {
                    return Span {
                        start: start as u32,
                        len: piece.len() as u32,
                    };
                }
                let start = self.0.len() + self.1.len();
                self.1.push_str(piece);
                Span {
                    start: start as u32,
                    len: piece.len() as u32,
                }
            }
        }
        let source = "{a.01.b}";
        let mut names = Within(source, String::new());
        let mut rest = Vec::new();
        let (head, n) = reference(&source[1..], &mut names, &mut rest).unwrap();
        assert_eq!(n, 6);
        let Head::Key(a) = &head else {
            panic!("a key: {head:?}")
        };
        assert_eq!(a.name, Span { start: 1, len: 1 });
        assert_eq!(rest[1].name, Span { start: 6, len: 1 });
        // "01" is made up as "1", after the text.
        assert_eq!(rest[0].name, Span { start: 8, len: 1 });
        assert_eq!(rest[0].index, Some(1));
        let text = format!("{source}{}", names.1);
        // SAFETY: the names were made within `text`, just above.
        let path = unsafe { Path::new(&text, &head, &rest) };
        assert_eq!(path.dotted(), "a.1.b");
        assert_eq!(path, VarPath::parse("a.01.b").unwrap().path());
        assert_eq!(path, VarPath::from_dotted("a.1.b").path());
        assert_ne!(path, VarPath::parse("a.1.c").unwrap().path());
        assert_ne!(path, VarPath::parse("a.1").unwrap().path());
        assert_eq!(format!("{path:?}"), "\"a.1.b\"");
    }

    #[test]
    fn the_word_way_makes_what_the_segment_way_makes() {
        // `reference` takes word segments without looking for digits and `@`: the same
        // heads, segments, hashes and lengths as building every segment with
        // `segment_len`, `head_of_text` and `seg_in`.
        fn by_segments(
            input: &str,
            names: &mut OwnNames,
            rest: &mut Vec<Seg>,
        ) -> Option<(Head, usize)> {
            let b = input.as_bytes();
            let n = segment_len(b)?;
            let head = head_of_text(&input[..n], names);
            let mut i = n;
            while b.get(i) == Some(&b'.') {
                let Some(m) = segment_len(&b[i + 1..]) else {
                    break;
                };
                rest.push(seg_in(&input[i + 1..i + 1 + m], names));
                i += 1 + m;
            }
            Some((head, i))
        }
        fn shown(head: &Head, rest: &[Seg]) -> String {
            format!("{head:?} {rest:?}")
        }
        let inputs = [
            "a",
            "a.b",
            "ab-c_d.e9",
            "a.0",
            "a.01.b",
            "a.2147483648",
            "0.a",
            "007",
            "@",
            "@.x",
            "@index",
            "@index0.a",
            "@foo.bar",
            "$x.y",
            "$",
            "-a",
            "a.",
            "a..b",
            "a.@",
            "a.@b.c",
            "a.$b",
            "a.-b",
            "a b",
            "a|html",
            "a.b}",
            "Zz.9z",
            "é",
            "a.é",
            "",
        ];
        for input in inputs {
            let (mut n1, mut r1) = (OwnNames::new(input), Vec::new());
            let (mut n2, mut r2) = (OwnNames::new(input), Vec::new());
            let a = reference(input, &mut n1, &mut r1);
            let b = by_segments(input, &mut n2, &mut r2);
            assert_eq!(
                a.as_ref().map(|(h, n)| (shown(h, &r1), *n)),
                b.as_ref().map(|(h, n)| (shown(h, &r2), *n)),
                "{input:?}"
            );
            assert_eq!(n1.made, n2.made, "{input:?}");
        }
    }

    #[test]
    fn a_reference_of_its_own_keeps_only_its_text() {
        let (rest, path) = var_ref("a.b + c.d").unwrap();
        assert_eq!(rest, " + c.d");
        assert_eq!(&*path.text, "a.b");
        // Canonical digits need the made-up name as well.
        let (_, path) = var_ref("a.007 + 1").unwrap();
        assert_eq!(path.dotted(), "a.7");
        assert_eq!(path.rest()[0].hash, crate::value::key_hash("7"));
    }

    #[test]
    fn long_references_parse() {
        let source = "a.b.c.d.e.f.g.h.i.j.k|html";
        let (rest, path) = var_ref(source).unwrap();
        assert_eq!(rest, "|html");
        assert_eq!(path.dotted(), "a.b.c.d.e.f.g.h.i.j.k");
        assert_eq!(path.rest().len(), 10);
    }

    #[test]
    fn classifies_the_head() {
        let head = |s: &str| VarPath::parse(s).unwrap().head().clone();
        assert!(matches!(head("@"), Head::Current));
        assert!(matches!(head("@index"), Head::Index { one_based: true }));
        assert!(matches!(head("@index0"), Head::Index { one_based: false }));
        assert!(matches!(head("@foo.x"), Head::Var(name) if &*name == "@foo"));
        assert_eq!(VarPath::parse("@foo").unwrap().as_var_name(), Some("@foo"));
        assert_eq!(VarPath::parse("@foo.x").unwrap().as_var_name(), None);
        assert!(VarPath::parse("foo bar").is_none());
    }

    #[test]
    fn numeric_segments_index_arrays_up_to_i32_max() {
        let p = VarPath::parse("a.2147483647.2147483648").unwrap();
        assert_eq!(p.rest()[0].index, Some(2147483647));
        assert_eq!(p.rest()[1].index, None);
        let seven = VarPath::from_dotted("7");
        assert!(matches!(
            seven.head(),
            Head::Key(Seg { index: Some(7), .. })
        ));
        assert_eq!(seven.path().head_name(), "7");
    }

    #[test]
    fn a_key_of_its_own_keeps_its_dots() {
        let key = VarPath::key("a.b");
        assert_eq!(key.path().head_name(), "a.b");
        assert!(key.rest().is_empty());
        assert_ne!(key, VarPath::from_dotted("a.b"));
    }
}
