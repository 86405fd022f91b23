//! Flexible day periods (`B`: "2 in the afternoon"), which ICU4X does not format: the
//! reference's `Bh` / `Bhm` / `Bhms` patterns with the hour, minutes and seconds formatted
//! by ICU4X and the period name from the generated table in `patterns.rs`.

use std::sync::Arc;

use jiff::Zoned;

use super::patterns::Bundle;
use super::raw::{RawDate, bundle, raw_date, skeleton_pattern};

/// One piece of a flexible-day-period pattern.
enum Piece {
    Pattern(Arc<RawDate>),
    /// The period name: 0 abbreviated, 1 wide, 2 narrow.
    Period(usize),
}

/// A time format with a flexible day period.
pub(crate) struct FlexibleTime {
    pieces: Vec<Piece>,
    bundle: &'static Bundle,
}

impl FlexibleTime {
    /// For a time skeleton `B…h[m[s]]` in a locale we have patterns for.
    pub(crate) fn new(locale: &icu_locale::Locale, skeleton: &str) -> Option<FlexibleTime> {
        let width = skeleton.chars().filter(|&c| c == 'B').count();
        let rest: String = skeleton.chars().filter(|&c| c != 'B').collect();
        let key = match rest.as_str() {
            "h" | "hm" | "hms" => format!("B{rest}"),
            _ => return None,
        };
        let bundle = bundle(locale)?;
        let pattern = skeleton_pattern(bundle, &key)?;
        let name = match width {
            4 => 1,
            5 => 2,
            _ => 0,
        };
        let mut pieces = Vec::new();
        let mut start = 0;
        let mut quoted = false;
        let bytes = pattern.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'\'' => quoted = !quoted,
                b'B' if !quoted => {
                    if start < i {
                        pieces.push(Piece::Pattern(raw_date(locale, &pattern[start..i])?));
                    }
                    while i < bytes.len() && bytes[i] == b'B' {
                        i += 1;
                    }
                    pieces.push(Piece::Period(name));
                    start = i;
                    continue;
                }
                _ => {}
            }
            i += 1;
        }
        if start < bytes.len() {
            pieces.push(Piece::Pattern(raw_date(locale, &pattern[start..])?));
        }
        Some(FlexibleTime { pieces, bundle })
    }

    pub(crate) fn format(&self, zoned: &Zoned, out: &mut String) {
        let minute =
            u16::try_from(i32::from(zoned.hour()) * 60 + i32::from(zoned.minute())).unwrap_or(0);
        for piece in &self.pieces {
            match piece {
                Piece::Pattern(p) => p.write(
                    zoned,
                    &mut writeable::adapters::CoreWriteAsPartsWrite(&mut *out),
                ),
                Piece::Period(width) => {
                    let period = self
                        .bundle
                        .day_periods
                        .iter()
                        .take_while(|(from, ..)| *from <= minute)
                        .last();
                    if let Some(&(_, abbreviated, wide, narrow)) = period {
                        out.push_str([abbreviated, wide, narrow][*width]);
                    }
                }
            }
        }
    }
}
