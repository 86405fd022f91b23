//! Patterns formatted piece by piece: the reference's CLDR pattern split where ICU4X's
//! pattern formatter cannot help (flexible day periods `B`, "2 in the afternoon", which
//! ICU4X does not format) or needs a zoned input (time zone names). Dates, hours, minutes
//! and seconds go through ICU4X's pattern formatter, zone names through an ICU4X zone
//! formatter, day period names come from the generated table in `patterns.rs`.

use std::sync::Arc;

use icu_datetime::DateTimeFormatter;
use icu_datetime::fieldsets::builder::{FieldSetBuilder, ZoneStyle};
use icu_datetime::fieldsets::enums::CompositeFieldSet;
use jiff::Zoned;
use writeable::Writeable;
use writeable::adapters::CoreWriteAsPartsWrite;

use super::datetime::{Calendar, prefs};
use super::patterns::Bundle;
use super::raw::{RawDate, bundle, raw_date, skeleton_pattern};

/// One piece of a pattern.
enum Piece {
    Pattern(Arc<RawDate>),
    /// The flexible day period name: 0 abbreviated, 1 wide, 2 narrow.
    Period(usize),
    Zone(Box<DateTimeFormatter<CompositeFieldSet>>),
    /// `v`: the short generic name, or the localized offset when the locale has no such
    /// name (ICU4X falls back to the location format there, the reference to the offset).
    GenericShort(Box<[DateTimeFormatter<CompositeFieldSet>; 3]>),
}

/// A pattern formatted piece by piece.
pub(crate) struct PieceFormat {
    pieces: Vec<Piece>,
    bundle: &'static Bundle,
}

impl PieceFormat {
    /// For a time skeleton `B…h[m[s]]` in a locale we have patterns for.
    pub(crate) fn flexible(locale: &icu_locale::Locale, skeleton: &str) -> Option<PieceFormat> {
        let width = skeleton.chars().filter(|&c| c == 'B').count();
        let rest: String = skeleton.chars().filter(|&c| c != 'B').collect();
        let key = match rest.as_str() {
            "h" | "hm" | "hms" => format!("B{rest}"),
            _ => return None,
        };
        let bundle = bundle(locale)?;
        let pattern = skeleton_pattern(bundle, &key)?;
        let pattern = match width {
            4 => pattern.replace('B', "BBBB"),
            5 => pattern.replace('B', "BBBBB"),
            _ => pattern.to_string(),
        };
        PieceFormat::new(locale, bundle, &pattern)
    }

    /// For a pattern of `bundle` (e.g. one of its standard time formats).
    pub(crate) fn new(
        locale: &icu_locale::Locale,
        bundle: &'static Bundle,
        pattern: &str,
    ) -> Option<PieceFormat> {
        let mut pieces = Vec::new();
        let mut start = 0;
        let mut quoted = false;
        let bytes = pattern.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            let c = bytes[i];
            if c == b'\'' {
                quoted = !quoted;
            } else if !quoted && matches!(c, b'B' | b'z' | b'v' | b'O') {
                if start < i {
                    pieces.push(Piece::Pattern(raw_date(locale, &pattern[start..i])?));
                }
                let run = bytes[i..].iter().take_while(|&&b| b == c).count();
                pieces.push(match (c, run) {
                    (b'B', 4) => Piece::Period(1),
                    (b'B', 5) => Piece::Period(2),
                    (b'B', _) => Piece::Period(0),
                    (b'z', 1..=3) => zone(locale, ZoneStyle::SpecificShort)?,
                    (b'z', _) => zone(locale, ZoneStyle::SpecificLong)?,
                    (b'v', 1) => generic_short(locale)?,
                    (b'v', _) => zone(locale, ZoneStyle::GenericLong)?,
                    (b'O', 1) => zone(locale, ZoneStyle::LocalizedOffsetShort)?,
                    _ => zone(locale, ZoneStyle::LocalizedOffsetLong)?,
                });
                i += run;
                start = i;
                continue;
            }
            i += 1;
        }
        if start < bytes.len() {
            pieces.push(Piece::Pattern(raw_date(locale, &pattern[start..])?));
        }
        Some(PieceFormat { pieces, bundle })
    }

    pub(crate) fn format(&self, zoned: &Zoned, out: &mut String) {
        let minute =
            u16::try_from(i32::from(zoned.hour()) * 60 + i32::from(zoned.minute())).unwrap_or(0);
        for piece in &self.pieces {
            match piece {
                Piece::Pattern(p) => p.write(zoned, &mut CoreWriteAsPartsWrite(&mut *out)),
                Piece::Zone(f) => {
                    let from = out.len();
                    let _ = f.format(zoned).write_to(out);
                    // Offsets only ("UTC-5"), not hyphenated names ("nord-américain").
                    if self.bundle.offset_minus && out[from..].contains('-') {
                        let name = minus_offsets(&out[from..]);
                        out.truncate(from);
                        out.push_str(&name);
                    }
                }
                Piece::GenericShort(f) => {
                    let [generic, location, offset] = &**f;
                    let name = generic.format(zoned).write_to_string().into_owned();
                    if name == location.format(zoned).write_to_string() {
                        let offset = offset.format(zoned).write_to_string().into_owned();
                        if self.bundle.offset_minus {
                            out.push_str(&minus_offsets(&offset));
                        } else {
                            out.push_str(&offset);
                        }
                    } else {
                        out.push_str(&name);
                    }
                }
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

fn zone_formatter(
    locale: &icu_locale::Locale,
    style: ZoneStyle,
) -> Option<DateTimeFormatter<CompositeFieldSet>> {
    let mut b = FieldSetBuilder::new();
    b.zone_style = Some(style);
    let fs = b.build_composite().ok()?;
    DateTimeFormatter::try_new(prefs(locale, Calendar::Gregory), fs).ok()
}

fn zone(locale: &icu_locale::Locale, style: ZoneStyle) -> Option<Piece> {
    Some(Piece::Zone(Box::new(zone_formatter(locale, style)?)))
}

fn generic_short(locale: &icu_locale::Locale) -> Option<Piece> {
    Some(Piece::GenericShort(Box::new([
        zone_formatter(locale, ZoneStyle::GenericShort)?,
        zone_formatter(locale, ZoneStyle::Location)?,
        zone_formatter(locale, ZoneStyle::LocalizedOffsetShort)?,
    ])))
}

/// `-` before a digit becomes U+2212 MINUS SIGN.
fn minus_offsets(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 4);
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '-' && chars.peek().is_some_and(char::is_ascii_digit) {
            out.push('\u{2212}');
        } else {
            out.push(c);
        }
    }
    out
}
