//! A range of a text, as 32-bit offsets: a compiled template's literal text and the names
//! of its references are ranges of its one text, so compiling allocates nothing per piece.

/// A range of a text; it means something only with the text it was made in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Span {
    pub start: u32,
    pub len: u32,
}

impl Span {
    pub const EMPTY: Span = Span { start: 0, len: 0 };

    /// The text this span covers in `text`, the text it was made in.
    #[inline(always)]
    pub fn of(self, text: &str) -> &str {
        &text[self.start as usize..(self.start + self.len) as usize]
    }

    pub fn is_empty(self) -> bool {
        self.len == 0
    }

    pub(crate) fn end(self) -> u32 {
        self.start + self.len
    }
}
