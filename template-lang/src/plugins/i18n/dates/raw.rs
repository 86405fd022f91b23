//! Date skeletons the reference's way: its CLDR `availableFormats` / `intervalFormats`
//! patterns (see `patterns.rs`) formatted with ICU4X's pattern formatter.
//!
//! ICU4X's semantic field sets follow the locale's standard date formats, which for a
//! skeleton such as `yMMMd` differ from the CLDR skeleton pattern in many locales (German
//! `24.02.2020` instead of `24. Feb. 2020`, Japanese `2020/02/24` instead of
//! `2020年2月24日`). For the Gregorian calendar and the bundles in `patterns.rs`, date
//! skeletons made of era, year, month, weekday and day use the reference's own patterns.

use std::sync::{Arc, LazyLock, Mutex};

use icu_calendar::{Date, Gregorian};
use icu_datetime::input::{DateTime, Time};
use icu_datetime::pattern::{DateTimePattern, FixedCalendarDateTimeNames};
use jiff::Zoned;
use rustc_hash::FxHashMap;
use writeable::{PartsWrite, TryWriteable};

use super::patterns::{BUNDLES, Bundle};

/// A date pattern with the names it needs.
pub(crate) struct RawDate {
    names: FixedCalendarDateTimeNames<Gregorian>,
    pattern: DateTimePattern,
}

impl RawDate {
    fn new(locale: &icu_locale::Locale, pattern: &str) -> Option<RawDate> {
        let pattern: DateTimePattern = pattern.parse().ok()?;
        let mut names = FixedCalendarDateTimeNames::<Gregorian>::try_new(locale.into()).ok()?;
        names.include_for_pattern(&pattern).ok()?;
        Some(RawDate { names, pattern })
    }

    /// Writes `zoned`'s local date through the pattern.
    pub(crate) fn write<S: PartsWrite + ?Sized>(&self, zoned: &Zoned, sink: &mut S) {
        let Ok(date) =
            Date::try_new_gregorian(zoned.year().into(), zoned.month() as u8, zoned.day() as u8)
        else {
            return;
        };
        let Ok(time) = Time::try_new(
            zoned.hour() as u8,
            zoned.minute() as u8,
            zoned.second() as u8,
            0,
        ) else {
            return;
        };
        let input = DateTime { date, time };
        let _ = self
            .names
            .with_pattern_unchecked(&self.pattern)
            .format(&input)
            .try_write_to_parts(sink);
    }
}

/// The bundle for a locale id (`en`, `de-AT`...), if we have one.
pub(crate) fn bundle(locale: &icu_locale::Locale) -> Option<&'static Bundle> {
    let id = locale.to_string();
    BUNDLES.iter().find(|b| b.ids.contains(&id.as_str()))
}

/// The table key for the date half of a skeleton: era, year, month (numeric, abbreviated
/// or wide), weekday (abbreviated or wide) and day, in that order; `None` for anything
/// else (quarters, weeks, stand-alone forms, two-digit widths...).
pub(crate) fn date_key(date: &str) -> Option<String> {
    let mut counts = [0usize; 5];
    for c in date.chars() {
        let i = "GyMEd".find(c)?;
        counts[i] += 1;
    }
    let mut key = String::new();
    match counts[0] {
        0 => {}
        1..=3 => key.push('G'),
        _ => return None,
    }
    match counts[1] {
        0 => {}
        1 => key.push('y'),
        _ => return None,
    }
    match counts[2] {
        0 => {}
        1 => key.push('M'),
        3 => key.push_str("MMM"),
        4 => key.push_str("MMMM"),
        _ => return None,
    }
    match counts[3] {
        0 => {}
        1..=3 => key.push('E'),
        4 => key.push_str("EEEE"),
        _ => return None,
    }
    match counts[4] {
        0 => {}
        1 => key.push('d'),
        _ => return None,
    }
    (!key.is_empty()).then_some(key)
}

/// The table key for a time skeleton: one hour letter (`h`, `H` or `j`), then optional
/// minutes, seconds and a zone (`z`, `zzzz`, `v`, `vvvv`); `None` for anything else (day
/// periods, padded widths...).
pub(crate) fn time_key(time: &str) -> Option<String> {
    // Bare minutes or seconds keep no hour (the reference then matches `mm:ss`-style
    // patterns).
    match time {
        "m" | "mm" => return Some("m".into()),
        "s" | "ss" => return Some("s".into()),
        "ms" | "mms" | "mss" | "mmss" => return Some("ms".into()),
        _ => {}
    }
    let mut chars = time.chars();
    let hour = chars.next().filter(|c| matches!(c, 'h' | 'H' | 'j'))?;
    let rest: String = chars.collect();
    let zone_at = rest.find(['z', 'v']).unwrap_or(rest.len());
    let (fields, zone) = rest.split_at(zone_at);
    let zone = match zone {
        "" => "",
        "z" | "zz" | "zzz" => "z",
        "zzzz" => "zzzz",
        "v" => "v",
        "vvvv" => "vvvv",
        _ => return None,
    };
    // Minutes and seconds always print two digits in CLDR time patterns.
    let fields = match fields {
        "" => "",
        "m" | "mm" => "m",
        "ms" | "mms" | "mss" | "mmss" => "ms",
        _ => return None,
    };
    Some(format!("{hour}{fields}{zone}"))
}

/// The table key for a skeleton that is all date or all time.
pub(crate) fn range_key(date: &str, time: &str) -> Option<String> {
    match (date.is_empty(), time.is_empty()) {
        (false, true) => date_key(date),
        (true, false) => time_key(time),
        _ => None,
    }
}

/// The reference's pattern for a date skeleton in a bundle.
pub(crate) fn skeleton_pattern(bundle: &Bundle, key: &str) -> Option<&'static str> {
    bundle
        .skeletons
        .binary_search_by(|(k, _)| (*k).cmp(key))
        .ok()
        .map(|i| bundle.skeletons[i].1)
}

/// A cached [`RawDate`] for a locale and pattern.
pub(crate) fn raw_date(locale: &icu_locale::Locale, pattern: &str) -> Option<Arc<RawDate>> {
    static CACHE: LazyLock<Mutex<FxHashMap<String, Option<Arc<RawDate>>>>> =
        LazyLock::new(Default::default);
    let key = format!("{locale}\u{1}{pattern}");
    if let Some(r) = CACHE.lock().ok().and_then(|m| m.get(&key).cloned()) {
        return r;
    }
    let r = RawDate::new(locale, pattern).map(Arc::new);
    if let Ok(mut m) = CACHE.lock() {
        if m.len() >= 1024 {
            m.clear();
        }
        m.insert(key, r.clone());
    }
    r
}

/// The reference's interval pattern for a date skeleton and two dates: the first field
/// of the matched interval skeleton (era, year, month, day) that differs picks it, or the
/// smallest of them when none does. `None` when the bundle has no interval data for the
/// skeleton; `Some(None)` when the picked field has no pattern (the reference prints
/// nothing then).
pub(crate) fn interval_pattern(
    bundle: &Bundle,
    key: &str,
    a: &Zoned,
    b: &Zoned,
) -> Option<Option<&'static str>> {
    let i = bundle
        .intervals
        .binary_search_by(|(k, _, _)| (*k).cmp(key))
        .ok()?;
    let (_, present, patterns) = bundle.intervals[i];
    let mut pick = None;
    for f in present.chars() {
        pick = Some(f);
        let (differs, field) = match f {
            'G' => ((a.year() > 0) != (b.year() > 0), 'G'),
            'y' => (a.year() != b.year(), 'y'),
            'M' => (a.month() != b.month(), 'M'),
            'd' => (a.day() != b.day(), 'd'),
            'a' | 'b' => ((a.hour() < 12) != (b.hour() < 12), 'a'),
            'h' | 'K' => (a.hour() % 12 != b.hour() % 12, 'h'),
            'H' | 'k' => (a.hour() != b.hour(), 'H'),
            'm' | 's' => (a.minute() != b.minute(), 'm'),
            _ => (false, f),
        };
        if differs {
            pick = Some(field);
            break;
        }
    }
    let pick = pick?;
    Some(patterns.iter().find(|(k, _)| *k == pick).map(|(_, p)| *p))
}

/// Splits an interval pattern where its first repeated field begins (the reference's
/// `intervalPatternBoundary`): the start is formatted with the first half, the end with
/// the second.
pub(crate) fn split_interval(pattern: &str) -> (&str, &str) {
    let bytes = pattern.as_bytes();
    let mut seen = [false; 128];
    let mut i = 0;
    let mut quoted = false;
    while i < bytes.len() {
        let c = bytes[i];
        if c == b'\'' {
            quoted = !quoted;
            i += 1;
            continue;
        }
        if !quoted && c.is_ascii_alphabetic() {
            if seen[c as usize] {
                return (&pattern[..i], &pattern[i..]);
            }
            seen[c as usize] = true;
            while i < bytes.len() && bytes[i] == c {
                i += 1;
            }
            continue;
        }
        i += 1;
    }
    (pattern, "")
}
