//! The text of a template while it compiles: its source, followed by whatever text
//! compiling makes up (text merged across a comment, `{.meta-left}`'s brace). A piece of
//! the source becomes a range of it without a copy, so literal text costs no allocation.

use super::tree::Span;
use crate::syntax::path::Names;

pub(crate) struct TextPool<'s> {
    source: &'s str,
    /// The source and the made-up text after it; empty until the first made-up piece,
    /// as most templates make up none and then need no copy of their source.
    text: String,
}

impl<'s> TextPool<'s> {
    /// A pool over `source`. Spans are 32-bit, and the pool grows to at most about three
    /// times the source (each piece of merged text is copied once, and made-up text is
    /// shorter than the tag that makes it), so a source must be under 1 GiB; request
    /// bodies and template files are limited far below that.
    pub fn new(source: &'s str) -> TextPool<'s> {
        assert!(
            source.len() < 1 << 30,
            "a template's source must be under 1 GiB"
        );
        TextPool {
            source,
            text: String::new(),
        }
    }

    /// The text, copied from the source when made-up text is first added.
    fn text(&mut self) -> &mut String {
        if self.text.is_empty() {
            self.text.reserve(self.source.len() + 16);
            self.text.push_str(self.source);
        }
        &mut self.text
    }

    /// The source the pool was made over (the offsets of positions are in it).
    pub fn source(&self) -> &'s str {
        self.source
    }

    /// The span of `piece`: its range when it lies in the source (as the scanner's pieces
    /// and host tags' attribute values do), otherwise a copy at the end.
    #[inline]
    pub fn span(&mut self, piece: &str) -> Span {
        let base = self.source.as_ptr() as usize;
        let at = piece.as_ptr() as usize;
        if at >= base && at + piece.len() <= base + self.source.len() {
            Span {
                start: (at - base) as u32,
                len: piece.len() as u32,
            }
        } else {
            self.append(piece)
        }
    }

    /// A copy of `piece` at the end of the text. Apart from the span's fast case, so
    /// that one is inlined where names are made.
    #[cold]
    fn append(&mut self, piece: &str) -> Span {
        let text = self.text();
        let start = text.len();
        text.push_str(piece);
        self.span_from(start)
    }

    /// `a` followed by `b`: the same range extended when `b` starts where `a` ends (so
    /// text around a tag that prints as text stays one range), otherwise a copy of both.
    pub fn join(&mut self, a: Span, b: Span) -> Span {
        if a.end() == b.start {
            return Span {
                start: a.start,
                len: a.len + b.len,
            };
        }
        let text = self.text();
        let start = if a.end() as usize == text.len() {
            a.start as usize
        } else {
            let start = text.len();
            text.extend_from_within(a.start as usize..a.end() as usize);
            start
        };
        text.extend_from_within(b.start as usize..b.end() as usize);
        self.span_from(start)
    }

    fn span_from(&self, start: usize) -> Span {
        Span {
            start: start as u32,
            len: (self.len() - start) as u32,
        }
    }

    /// How long the text is so far (the source and made-up text).
    pub fn len(&self) -> usize {
        if self.text.is_empty() {
            self.source.len()
        } else {
            self.text.len()
        }
    }

    /// Drops made-up text past `len`, which is at least the source's length.
    pub fn truncate(&mut self, len: usize) {
        debug_assert!(len >= self.source.len());
        if !self.text.is_empty() {
            self.text.truncate(len);
        }
    }

    /// The text, if compiling made any up; `None` when it is the source alone.
    pub fn finish(self) -> Option<String> {
        (self.text.len() > self.source.len()).then_some(self.text)
    }
}

/// The names of the template's references are ranges of its text.
impl Names for TextPool<'_> {
    fn span(&mut self, piece: &str) -> Span {
        TextPool::span(self, piece)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_of_the_source_are_ranges_and_others_are_appended() {
        let source = "ab{c}de";
        let mut pool = TextPool::new(source);
        let ab = pool.span(&source[..2]);
        let de = pool.span(&source[5..]);
        assert_eq!(ab, Span { start: 0, len: 2 });
        assert_eq!(de, Span { start: 5, len: 2 });
        let brace = pool.span("{");
        assert_eq!(brace, Span { start: 7, len: 1 });
        let tag = pool.span(&source[2..5]);
        // Adjacent in the source: one range, nothing copied.
        let abtag = pool.join(ab, tag);
        assert_eq!(abtag, Span { start: 0, len: 5 });
        // Apart: a copy of both; then joining onto that copy extends it in place.
        let abde = pool.join(ab, de);
        let abde_brace = pool.join(abde, brace);
        let text = pool.finish().expect("made-up text");
        assert_eq!(abde.of(&text), "abde");
        assert_eq!(abde_brace.of(&text), "abde{");
        assert_eq!(&*text, "ab{c}de{abde{");
        assert_eq!(brace.of(&text), "{");
    }

    #[test]
    fn text_of_the_source_alone_is_not_copied() {
        let source = "ab{c}de";
        let mut pool = TextPool::new(source);
        let ab = pool.span(&source[..2]);
        let tag = pool.span(&source[2..5]);
        assert_eq!(pool.join(ab, tag), Span { start: 0, len: 5 });
        assert_eq!(pool.len(), source.len());
        assert!(pool.finish().is_none());
        // Made-up text that is dropped again leaves the source alone too.
        let mut pool = TextPool::new(source);
        pool.span("x");
        assert_eq!(pool.len(), source.len() + 1);
        pool.truncate(source.len());
        assert!(pool.finish().is_none());
    }
}
