//! The text of a template while it compiles: its source, followed by whatever text
//! compiling makes up (`{.meta-left}`'s brace, a segment's name in canonical form). A piece of
//! the source becomes a range of it without a copy, so literal text costs no allocation.

use std::mem::MaybeUninit;
use std::sync::Arc;

use super::tree::Span;
use crate::syntax::path::Names;

pub(crate) struct TextPool<'s> {
    source: &'s str,
    /// The made-up text, which follows the source in the template's text (its offsets
    /// start at the source's length). Kept apart from the source, so that the source is
    /// copied once, into the finished text, and only when there is made-up text.
    extra: String,
}

impl<'s> TextPool<'s> {
    /// A pool over `source`. Spans are 32-bit, and the pool grows to at most about twice
    /// the source (made-up text is shorter than the tag that makes it), so a source must
    /// be under 1 GiB; request bodies and template files are limited far below that.
    pub fn new(source: &'s str) -> TextPool<'s> {
        assert!(
            source.len() < 1 << 30,
            "a template's source must be under 1 GiB"
        );
        TextPool {
            source,
            extra: String::new(),
        }
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
        let start = self.len();
        self.reserve();
        self.extra.push_str(piece);
        self.span_from(start)
    }

    /// Room for made-up text, at its first piece: as much as the source and a little, as
    /// the pool is dropped once the template's text is written (growing it from nothing
    /// was a reallocation and a copy for every doubling).
    fn reserve(&mut self) {
        if self.extra.capacity() == 0 {
            self.extra.reserve(self.source.len() + 64);
        }
    }

    fn span_from(&self, start: usize) -> Span {
        Span {
            start: start as u32,
            len: (self.len() - start) as u32,
        }
    }

    /// How long the text is so far (the source and made-up text).
    pub fn len(&self) -> usize {
        self.source.len() + self.extra.len()
    }

    /// Drops made-up text past `len`, which is at least the source's length.
    pub fn truncate(&mut self, len: usize) {
        debug_assert!(len >= self.source.len());
        self.extra.truncate(len - self.source.len());
    }

    /// The text (the source and the made-up text after it), if compiling made any up;
    /// `None` when it is the source alone. Written once, straight into its allocation.
    pub fn finish(self) -> Option<Arc<str>> {
        if self.extra.is_empty() {
            return None;
        }
        let (source, extra) = (self.source.as_bytes(), self.extra.as_bytes());
        let mut text: Arc<[MaybeUninit<u8>]> = Arc::new_uninit_slice(source.len() + extra.len());
        let buf = Arc::get_mut(&mut text).expect("a new Arc is unique");
        let (head, tail) = buf.split_at_mut(source.len());
        for (dst, src) in [(head, source), (tail, extra)] {
            // SAFETY: `dst` and `src` have the same length (the split above), and a new
            // allocation does not overlap them.
            unsafe {
                std::ptr::copy_nonoverlapping(
                    src.as_ptr(),
                    dst.as_mut_ptr().cast::<u8>(),
                    src.len(),
                )
            };
        }
        // SAFETY: every byte was written above; the bytes are two `str`s one after the
        // other, so UTF-8, and `str` has the layout of `[u8]`.
        Some(unsafe {
            let bytes: Arc<[u8]> = text.assume_init();
            Arc::from_raw(Arc::into_raw(bytes) as *const str)
        })
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
        let one = pool.span("1");
        assert_eq!(one, Span { start: 8, len: 1 });
        let text = pool.finish().expect("made-up text");
        assert_eq!(&*text, "ab{c}de{1");
        assert_eq!(brace.of(&text), "{");
        assert_eq!(de.of(&text), "de");
    }

    #[test]
    fn text_of_the_source_alone_is_not_copied() {
        let source = "ab{c}de";
        let mut pool = TextPool::new(source);
        assert_eq!(pool.span(&source[..2]), Span { start: 0, len: 2 });
        assert_eq!(pool.span(&source[2..5]), Span { start: 2, len: 3 });
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
