//! Flexible day periods (`B`, "in the afternoon"), which ICU4X does not format.

use jiff::Zoned;

/// A time format with a flexible day period.
pub(crate) struct FlexibleTime {}

impl FlexibleTime {
    pub(crate) fn new(_locale: &icu_locale::Locale, _skeleton: &str) -> Option<FlexibleTime> {
        None
    }

    pub(crate) fn format(&self, _zoned: &Zoned, _out: &mut String) {}
}
