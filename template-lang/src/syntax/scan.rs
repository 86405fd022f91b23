//! Splits source text into literal text and tags, the way the reference engines do.
//!
//! A tag runs from the last `{` before a `}` to that `}` (so `{a {b}` is the text `{a `
//! followed by the tag `b`); `{##` starts a comment that runs to `##}` or the end of input.
//! What is between the braces is parsed by the compiler: tags that do not parse stay
//! text, braces included.

use memchr::{memchr, memchr2, memmem};

use super::host::{HostTagSyntax, parse_host_tag};

/// A line and column (both 1-based; the column counts characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Pos {
    pub line: u32,
    pub col: u32,
}

impl std::fmt::Display for Pos {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

/// A byte offset in a template's text: where a tag starts. The compiler and the
/// instructions keep this; the line and column, which cost a count of the lines and
/// characters before it, are worked out only for a diagnostic ([`LineIndex::pos`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct At(pub u32);

/// Where the lines of a text start, for working out many positions in it: each then
/// costs a binary search, and in an ASCII text nothing more, so that a template with an
/// error on every tag (a stray `{.end}` repeated, say) takes time linear in its size, not
/// quadratic. Built only once a text has an error to report.
#[derive(Debug)]
pub struct LineIndex {
    /// The offset each line starts at; the first is 0.
    starts: Vec<u32>,
    /// All ASCII: a column is then a byte count.
    ascii: bool,
}

impl LineIndex {
    pub fn new(src: &str) -> LineIndex {
        let mut starts = vec![0];
        starts.extend(memchr::memchr_iter(b'\n', src.as_bytes()).map(|i| i as u32 + 1));
        LineIndex {
            starts,
            ascii: src.is_ascii(),
        }
    }

    /// The line and column of `at` in `src`, the text this index was built over (past
    /// the end counts as the end; inside a character, as that character).
    pub fn pos(&self, src: &str, at: At) -> Pos {
        let mut offset = (at.0 as usize).min(src.len());
        while !src.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.starts.partition_point(|&s| s as usize <= offset);
        let start = self.starts[line - 1] as usize;
        let col = if self.ascii {
            (offset - start) as u32
        } else {
            chars(&src[start..offset])
        };
        Pos {
            line: line as u32,
            col: 1 + col,
        }
    }
}

/// One piece of the source.
#[derive(Debug)]
pub enum Piece<'s> {
    /// Literal text.
    Text(&'s str),
    /// A tag's contents (between the braces) and the offset of its `{` in the scanned
    /// text, with its source text, braces included.
    Tag(&'s str, usize, &'s str),
    /// A host tag (`<prefix:name ...>`) starting at the offset.
    Host(HostTagSyntax<'s>, usize),
}

/// The characters in `s`: most lines are ASCII even in a source that is not, and checking
/// that is cheaper than counting characters.
fn chars(s: &str) -> u32 {
    if s.is_ascii() {
        s.len() as u32
    } else {
        s.chars().count() as u32
    }
}

/// Scans `src`, handing each piece to `emit` in order.
pub fn scan<'s>(src: &'s str, emit: impl FnMut(Piece<'s>)) {
    scan_with(src, None, emit);
}

/// Scans `src`, also recognising host tags `<{prefix}name ...>` when a prefix is given.
pub fn scan_with<'s>(src: &'s str, host_prefix: Option<&str>, mut emit: impl FnMut(Piece<'s>)) {
    let host_open = host_prefix.map(|p| format!("<{p}"));
    let host_finder = host_open.as_deref().map(memmem::Finder::new);
    // Where the next host tag may start (searching again only once we pass it).
    let mut next_host: Option<usize> = None;
    let bytes = src.as_bytes();
    let len = bytes.len();
    let flush = |from: usize, to: usize, emit: &mut dyn FnMut(Piece<'s>)| {
        if from < to {
            emit(Piece::Text(&src[from..to]));
        }
    };
    let mut idx = 0;
    loop {
        let save = idx;
        let brace = memchr(b'{', &bytes[save..]).map(|k| save + k);
        if let (Some(finder), Some(prefix)) = (&host_finder, host_prefix) {
            if next_host.is_none_or(|h| h < save) {
                next_host = finder
                    .find(&bytes[save..])
                    .map(|k| save + k)
                    .or(Some(usize::MAX));
            }
            let host = next_host.filter(|&h| h != usize::MAX && brace.is_none_or(|b| h < b));
            if let Some(h) = host {
                match parse_host_tag(src, h, prefix) {
                    Some(tag) => {
                        flush(save, h, &mut emit);
                        let end = tag.end;
                        emit(Piece::Host(tag, h));
                        idx = end;
                    }
                    None => {
                        // Not a tag after all: the '<' stays text.
                        flush(save, h + 1, &mut emit);
                        idx = h + 1;
                    }
                }
                continue;
            }
        }
        let Some(brace) = brace else {
            flush(save, len, &mut emit);
            return;
        };
        match opened(bytes, brace) {
            Opened::Comment(end) => {
                flush(save, brace, &mut emit);
                match end {
                    Some(end) => idx = end,
                    None => return,
                }
            }
            Opened::Tag { start, close } => {
                flush(save, start, &mut emit);
                emit(Piece::Tag(
                    &src[start + 1..close],
                    start,
                    &src[start..=close],
                ));
                idx = close + 1;
            }
            Opened::Unclosed => {
                flush(save, len, &mut emit);
                return;
            }
        }
    }
}

/// What the `{` at `brace` opens.
pub(crate) enum Opened {
    /// `{##`: a comment, and the offset after its `##}` (none: it runs to the end).
    Comment(Option<usize>),
    /// A tag from `start` (its `{`, the last one before `close`) to `close` (its `}`).
    Tag { start: usize, close: usize },
    /// No `}` follows: the rest is text.
    Unclosed,
}

/// What the `{` at `brace` in `bytes` opens: a comment, or the tag that runs to the next
/// `}` (a further `{` before it moves the tag's start).
// Inlined: as a call it added 2.5% to the instructions of a compile (one per tag).
#[inline(always)]
pub(crate) fn opened(bytes: &[u8], brace: usize) -> Opened {
    if bytes.get(brace + 1) == Some(&b'#') && bytes.get(brace + 2) == Some(&b'#') {
        let end = memmem::find(&bytes[brace + 3..], b"##}").map(|e| brace + 3 + e + 3);
        return Opened::Comment(end);
    }
    let mut start = brace;
    let mut i = brace + 1;
    loop {
        match find_near2(b'{', b'}', &bytes[i..]) {
            None => return Opened::Unclosed,
            Some(k) if bytes[i + k] == b'{' => {
                start = i + k;
                i = start + 1;
            }
            Some(k) => {
                return Opened::Tag {
                    start,
                    close: i + k,
                };
            }
        }
    }
}

/// Where a byte is zero in `w`, as the high bit of that byte: exact for the lowest zero
/// byte (a borrow can only mark bytes above a zero one, and only the lowest is read).
#[inline(always)]
fn zero_bytes(w: u64) -> u64 {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    w.wrapping_sub(LO) & !w & HI
}

/// How many bytes are searched a word at a time before handing over to `memchr`: most
/// tags are under 16 bytes and most text between two tags under 32 (wright's medians are
/// 7 and 13), where `memchr`'s call and set-up cost more than the search.
const NEAR: usize = 32;

/// The eight bytes at `i` in `hay`, `i + 8 <= hay.len()`.
#[inline(always)]
fn word_at(hay: &[u8], i: usize) -> u64 {
    assert!(i + 8 <= hay.len());
    // SAFETY: the eight bytes lie in `hay` (just checked; the search loops check the same
    // before calling, so the assertion is compiled away).
    u64::from_le(unsafe { hay.as_ptr().add(i).cast::<u64>().read_unaligned() })
}

/// The first `a` in `hay`, looked for a word at a time near its start ([`NEAR`]) and then
/// by `memchr`: what `memchr::memchr(a, hay)` returns.
#[inline(always)]
pub(crate) fn find_near(a: u8, hay: &[u8]) -> Option<usize> {
    let pa = u64::from_ne_bytes([a; 8]);
    let mut i = 0;
    while i + 8 <= hay.len() {
        let m = zero_bytes(word_at(hay, i) ^ pa);
        if m != 0 {
            return Some(i + (m.trailing_zeros() / 8) as usize);
        }
        i += 8;
        if i == NEAR {
            return memchr(a, &hay[i..]).map(|k| i + k);
        }
    }
    hay[i..].iter().position(|&c| c == a).map(|k| i + k)
}

/// The first `a` or `b` in `hay`, as [`find_near`] looks: what `memchr::memchr2(a, b,
/// hay)` returns.
#[inline(always)]
pub(crate) fn find_near2(a: u8, b: u8, hay: &[u8]) -> Option<usize> {
    let (pa, pb) = (u64::from_ne_bytes([a; 8]), u64::from_ne_bytes([b; 8]));
    let mut i = 0;
    while i + 8 <= hay.len() {
        let w = word_at(hay, i);
        let m = zero_bytes(w ^ pa) | zero_bytes(w ^ pb);
        if m != 0 {
            return Some(i + (m.trailing_zeros() / 8) as usize);
        }
        i += 8;
        if i == NEAR {
            return memchr2(a, b, &hay[i..]).map(|k| i + k);
        }
    }
    hay[i..]
        .iter()
        .position(|&c| c == a || c == b)
        .map(|k| i + k)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn near_searches_find_what_memchr_finds() {
        // Every length around the word size and the hand-over to memchr, the byte at
        // every place, once and twice, and bytes whose borrows could mislead a word
        // search (0x00, 0x7b - 1, 0x80 and 0xff next to the one looked for).
        let fillers: [u8; 5] = [b'a', 0x00, 0x7a, 0x80, 0xff];
        for len in 0..(NEAR + 20) {
            for &fill in &fillers {
                let mut hay = vec![fill; len];
                assert_eq!(find_near(b'{', &hay), memchr(b'{', &hay));
                assert_eq!(find_near2(b'{', b'}', &hay), memchr2(b'{', b'}', &hay));
                for at in 0..len {
                    hay[at] = b'{';
                    for second in at..len {
                        let keep = hay[second];
                        hay[second] = b'}';
                        assert_eq!(find_near(b'{', &hay), memchr(b'{', &hay));
                        assert_eq!(find_near(b'}', &hay), memchr(b'}', &hay));
                        assert_eq!(find_near2(b'{', b'}', &hay), memchr2(b'{', b'}', &hay));
                        hay[second] = keep;
                    }
                    hay[at] = fill;
                }
            }
        }
    }
    use crate::syntax::tag::{Tag, parse_tag};

    fn pos_of(src: &str, offset: usize) -> Pos {
        LineIndex::new(src).pos(src, At(offset as u32))
    }

    fn pieces(src: &str) -> Vec<String> {
        let mut out = Vec::new();
        scan(src, |p| {
            out.push(match p {
                Piece::Text(t) => format!("T:{t}"),
                Piece::Host(h, at) => format!("H:{}@{}", h.name, pos_of(src, at)),
                Piece::Tag(content, at, raw) => match (parse_tag(content), pos_of(src, at)) {
                    (None, _) => format!("T:{raw}"),
                    (Some(Tag::Comment), pos) => format!("C@{pos}"),
                    (Some(Tag::Variable { .. }), pos) => format!("V@{pos}"),
                    (Some(t), pos) => format!("{t:?}@{pos}")
                        .split('(')
                        .next()
                        .unwrap()
                        .to_string(),
                },
            })
        });
        out
    }

    #[test]
    fn splits_text_and_tags() {
        assert_eq!(
            pieces("a {b} {.end}\n {#c}"),
            ["T:a ", "V@1:3", "T: ", "End@1:7", "T:\n ", "C@2:2"]
        );
    }

    #[test]
    fn the_last_open_brace_starts_the_tag() {
        assert_eq!(
            pieces("{a {.end}")[..2],
            ["T:{a ".to_string(), "End@1:4".to_string()]
        );
        assert_eq!(pieces("x { y"), ["T:x { y"]);
        assert_eq!(pieces("} {a b}"), ["T:} ", "T:{a b}"]);
    }

    #[test]
    fn host_tags_only_with_a_prefix() {
        let src = "a<x:nav id=\"{n}\"/>b{c}<x:q>{d}</x:q><x:bad";
        let mut with = Vec::new();
        scan_with(src, Some("x:"), |p| {
            with.push(match p {
                Piece::Text(t) => format!("T:{t}"),
                Piece::Host(h, at) => format!("H:{}@{}", h.name, pos_of(src, at)),
                Piece::Tag(_, at, _) => format!("V@{}", pos_of(src, at)),
            })
        });
        assert_eq!(
            with,
            [
                "T:a",
                "H:nav@1:2",
                "T:b",
                "V@1:20",
                "H:q@1:23",
                "T:<",
                "T:x:bad"
            ]
        );
        // Without the prefix they are text (and the tags inside them are tags).
        assert_eq!(pieces(src).iter().filter(|p| p.starts_with('V')).count(), 3);
    }

    #[test]
    fn multi_line_comments() {
        assert_eq!(pieces("a{## {b} ##}c"), ["T:a", "T:c"]);
        assert_eq!(pieces("a{## open"), ["T:a"]);
    }

    /// Positions by the definition: lines after newlines, characters since the last one.
    fn naive_pos(src: &str, offset: usize) -> Pos {
        let before = &src[..offset];
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        Pos {
            line: 1 + before.matches('\n').count() as u32,
            col: 1 + before[line_start..].chars().count() as u32,
        }
    }

    #[test]
    fn positions_match_counting_lines_and_characters() {
        // Every offset of mixed and of ASCII-only text, with several positions on one
        // line, on consecutive lines and after empty lines; an offset inside a character
        // counts as that character, and one past the end as the end.
        let mixed = "ab\néü€\n\n𝄞x\nlong line of plain ascii text, then ü\n\u{7f}\u{80}é\n";
        let ascii = "{a}\n\n  {b} {c}\nno tags here\n{d}";
        for src in [mixed, ascii, "", "\n", "x"] {
            let index = LineIndex::new(src);
            for offset in 0..=src.len() + 2 {
                let mut boundary = offset.min(src.len());
                while !src.is_char_boundary(boundary) {
                    boundary -= 1;
                }
                let pos = index.pos(src, At(offset as u32));
                assert_eq!(pos, naive_pos(src, boundary), "{src:?} at {offset}");
            }
        }
    }

    #[test]
    fn positions_count_characters() {
        assert_eq!(pieces("é\n  ü{.end}"), ["T:é\n  ü", "End@2:4"]);
        assert_eq!(pos_of("ab\ncd", 4), Pos { line: 2, col: 2 });
        // Several tags on one line and across lines: each position counts from the last.
        assert_eq!(
            pieces("é{a}ü{b}\n\nx{c}{d}"),
            ["T:é", "V@1:2", "T:ü", "V@1:6", "T:\n\nx", "V@3:2", "V@3:5"]
        );
    }
}
