//! The legacy `date` formatter of JSON-T: a YUI / UNIX `strftime`-style
//! pattern language, formatted the way the reference engine,
//! `@squarespace/template-engine` 2.10.10, does it.
//!
//! Everything here is tuned for output parity with that package, quirks
//! included; they are listed in the doc comment of [`format_date`]. (Its Java
//! original differs in two places: it prints unknown directives literally and
//! does not wrap `%s` to 32 bits. The npm package is followed.)
//!
//! Offsets and abbreviations come from jiff's bundled tzdb, which is newer
//! than the reference's copy: where tzdb has changed since (historical
//! corrections, new rules), the output follows the newer data. The calendar
//! arithmetic is done here so that the reference's hybrid Julian / Gregorian
//! calendar and its floating point millisecond handling are reproduced
//! exactly.

use core::cell::RefCell;
use core::fmt::Write as _;

use jiff::Timestamp;
use jiff::tz::{TimeZone, TimeZoneDatabase};

const MS_PER_DAY: f64 = 86_400_000.0;
/// Julian day number of 1970-01-01.
const JD_UNIX_EPOCH: i64 = 2_440_588;
/// Last Julian day the reference can represent (8652-12-31); the first is 0
/// (4713-01-01 BC, Julian calendar). Dates outside that range make the
/// reference throw, and the formatter then prints nothing.
const JD_MAX: i64 = 4_881_503;
/// First day of the Gregorian calendar (1582-10-15); earlier days are
/// expressed in the proleptic Julian calendar.
const JD_GREGORIAN_CUTOVER: i64 = 2_299_161;
/// Any input further than this from the epoch is out of the representable
/// range whatever the zone offset; rejecting it early also keeps the value
/// inside jiff's timestamp range.
const MAX_ABS_EPOCH_MS: f64 = 2.2e14;

const SHORT_DAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const LONG_DAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];
const SHORT_MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];
const LONG_MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// Returns false (printing nothing) for instants the reference cannot represent: it
/// throws there, which aborts the whole `{var|...}` tag.
///
/// Formats `epoch_ms` (milliseconds since the Unix epoch, as the JSON number given to the template)
/// in time zone `zone_id` with the reference engines' strftime-style `pattern`, appending to `out`.
///
/// Behaviour, matching `@squarespace/template-engine` 2.10.10:
///
/// * Directives: `%a %A %b %B %c %C %d %D %e %F %g %G %h %H %i %I %j %k %l
///   %m %M %n %N %p %P %q %r %R %s %S %t %T %u %U %v %V %w %W %x %X %y %Y %z
///   %Z`; `%%` is a literal `%`, a `%` ending the pattern is kept as is, and
///   any other directive prints nothing (the directive character is
///   swallowed).
/// * `%U` and `%W` are the same Sunday-first week of year in which the week
///   holding January 1 is week 1 (so late December days can be in week 1);
///   `%V`, `%G` and `%g` follow ISO 8601.
/// * `%z` is `+hh:mm` with a colon; `%N` is the millisecond times 10^6
///   (fractions included, printed like a JavaScript number); `%s` is the
///   whole seconds wrapped to a signed 32-bit integer; `%c` is
///   `%a, %b <day>, %Y %i:%M:%S %p %Z` with an unpadded day.
/// * Years are era years (no sign; 1 BC is `1`), while `%G` / `%g` use the
///   signed ISO week year. Days before 1582-10-15 are in the Julian calendar.
/// * Zones: IANA ids and links, matched exactly or in all-lowercase, plus
///   the reference's aliases (`SystemV/*`, `Canada/East-Saskatchewan`,
///   `Etc/Unknown`); anything else is UTC with the abbreviation `UTC`.
///   Daylight-saving rules apply after 2037 too (the reference's zone data
///   stops there and keeps the last offset; real visitors need the right one).
/// * Non-finite inputs and instants whose local day falls outside
///   4713-01-01 BC ..= 8652-12-31 print nothing and return false: the
///   reference throws there, which aborts the whole `{var|...}` tag.
///
/// The caller picks `zone_id`: the reference uses `America/New_York` only
/// when the website has no time zone at all; an empty id here means UTC.
pub fn format_date(epoch_ms: f64, zone_id: &str, pattern: &str, out: &mut String) -> bool {
    if !epoch_ms.is_finite() || epoch_ms.abs() > MAX_ABS_EPOCH_MS {
        return false;
    }

    // Whole milliseconds, the usual input, take an exact integer path.
    let whole_ms = epoch_ms as i64;
    let is_whole = whole_ms as f64 == epoch_ms;
    let floor_ms = if is_whole {
        whole_ms
    } else {
        epoch_ms.floor() as i64
    };

    let zone = resolve_zone_cached(zone_id);
    let info;
    let (offset_secs, abbr) = match &zone {
        Some(tz) => {
            info = tz.to_offset_info(lookup_instant(floor_ms));
            (info.offset().seconds(), info.abbreviation())
        }
        None => (0, "UTC"),
    };

    let date = if is_whole {
        LocalDate::from_whole_ms(whole_ms, offset_secs, abbr)
    } else {
        LocalDate::from_fractional_ms(epoch_ms, offset_secs, abbr)
    };
    match date {
        Some(date) => {
            date.format(pattern, out);
            true
        }
        None => false,
    }
}

/// [`resolve_zone`] behind a one-entry, per-thread memo: a render formats
/// many dates in the same zone, and this skips jiff's global (lock-guarded)
/// zone cache. Allocates only when the zone id changes.
fn resolve_zone_cached(zone_id: &str) -> Option<TimeZone> {
    thread_local! {
        static LAST: RefCell<Option<(Box<str>, Option<TimeZone>)>> = const { RefCell::new(None) };
    }
    LAST.try_with(|cell| {
        let Ok(mut last) = cell.try_borrow_mut() else {
            return resolve_zone(zone_id);
        };
        match &*last {
            Some((id, tz)) if **id == *zone_id => tz.clone(),
            _ => {
                let tz = resolve_zone(zone_id);
                *last = Some((zone_id.into(), tz.clone()));
                tz
            }
        }
    })
    .unwrap_or_else(|_| resolve_zone(zone_id))
}

/// Resolves a zone id the way the reference does: its alias table first,
/// then the tzdb id or link, spelled exactly or entirely in lowercase.
/// `None` means "unknown", which the reference renders as UTC.
fn resolve_zone(zone_id: &str) -> Option<TimeZone> {
    let id = substitute_alias(zone_id);
    let tz = TimeZoneDatabase::bundled().get(id).ok()?;
    let name = tz.iana_name()?;
    let lowercase_form = name.len() == id.len()
        && name
            .bytes()
            .zip(id.bytes())
            .all(|(n, i)| n.to_ascii_lowercase() == i);
    if name == id || lowercase_form {
        Some(tz)
    } else {
        None
    }
}

/// The reference's own zone aliases (exact spelling only).
fn substitute_alias(id: &str) -> &str {
    match id {
        "SystemV/AST4" => "America/Puerto_Rico",
        "SystemV/AST4ADT" => "America/Halifax",
        "SystemV/CST6" => "America/Regina",
        "SystemV/CST6CDT" => "America/Chicago",
        "SystemV/EST5" => "America/Indianapolis",
        "SystemV/EST5EDT" => "America/New_York",
        "SystemV/HST10" => "Pacific/Honolulu",
        "SystemV/MST7" => "America/Phoenix",
        "SystemV/MST7MDT" => "America/Denver",
        "SystemV/PST8" => "Pacific/Pitcairn",
        "SystemV/PST8PDT" => "America/Los_Angeles",
        "SystemV/YST9" => "Pacific/Gambier",
        "SystemV/YST9YDT" => "America/Anchorage",
        "Canada/East-Saskatchewan" => "America/Regina",
        "Etc/Unknown" => "Factory",
        // Links to these cities in the reference's data, while jiff's
        // (rearguard) data keeps the old rule-only zones, which differ before
        // 1967 (no LMT, no war time).
        "EST5EDT" | "est5edt" => "America/New_York",
        "CST6CDT" | "cst6cdt" => "America/Chicago",
        "MST7MDT" | "mst7mdt" => "America/Denver",
        "PST8PDT" | "pst8pdt" => "America/Los_Angeles",
        other => other,
    }
}

/// The instant whose offset and abbreviation apply to `floor_ms` (zone
/// transitions fall on whole seconds, so flooring a fractional input to the
/// millisecond never changes the side of a transition).
fn lookup_instant(floor_ms: i64) -> Timestamp {
    // In range by construction (|epoch_ms| <= MAX_ABS_EPOCH_MS).
    Timestamp::from_millisecond(floor_ms).unwrap_or(Timestamp::UNIX_EPOCH)
}

/// The wall-clock fields of one instant in one zone, computed with the same
/// floating point steps as the reference so fractional, negative and
/// boundary inputs come out identically.
struct LocalDate<'a> {
    /// Signed ("extended") year: 0 is 1 BC, -1 is 2 BC.
    ext_year: i64,
    /// 1..=12
    month: i64,
    day_of_month: i64,
    /// 1-based, counted from January 1 of `ext_year` in that day's calendar.
    day_of_year: i64,
    /// 1 = Sunday ..= 7 = Saturday
    day_of_week: i64,
    /// Normally 0..=23; 24 only when float rounding lands exactly on the
    /// end of the day, as it can in the reference.
    hour_of_day: i64,
    minute: i64,
    second: i64,
    /// Milliseconds since local midnight; fractional when the input is, and
    /// then possibly a hair below zero after rounding.
    ms_in_day: f64,
    /// Whether the input was a whole number of milliseconds.
    whole_ms: bool,
    epoch_seconds: i32,
    offset_secs: i32,
    abbr: &'a str,
}

impl<'a> LocalDate<'a> {
    fn from_whole_ms(epoch_ms: i64, offset_secs: i32, abbr: &'a str) -> Option<Self> {
        const DAY: i64 = 86_400_000;
        let local_ms = epoch_ms + i64::from(offset_secs) * 1000;
        let jd = local_ms.div_euclid(DAY) + JD_UNIX_EPOCH;
        let ms_in_day = local_ms.rem_euclid(DAY);
        // Seconds truncate toward zero and wrap like `x | 0` in JavaScript.
        let epoch_seconds = (epoch_ms / 1000) as i32;
        Self::from_parts(
            jd,
            ms_in_day / 1000,
            ms_in_day as f64,
            true,
            epoch_seconds,
            offset_secs,
            abbr,
        )
    }

    /// The reference's floating point steps, replayed exactly.
    fn from_fractional_ms(epoch_ms: f64, offset_secs: i32, abbr: &'a str) -> Option<Self> {
        let offset_ms = f64::from(offset_secs) * 1000.0;
        let local_ms = epoch_ms + offset_ms;
        let days = (local_ms / MS_PER_DAY).floor();
        let ms_in_day = local_ms - days * MS_PER_DAY;
        let local_again = ms_in_day + days * MS_PER_DAY;
        let epoch_seconds = to_int32((local_again - offset_ms) / 1000.0);
        // Rounding can leave `ms_in_day` a hair below zero or exactly at the
        // end of the day; truncation maps the former to 0 seconds and the
        // latter to hour 24, as in the reference.
        let secs_in_day = i64::from(to_int32(ms_in_day / 1000.0));
        let jd = days as i64 + JD_UNIX_EPOCH;
        Self::from_parts(
            jd,
            secs_in_day,
            ms_in_day,
            false,
            epoch_seconds,
            offset_secs,
            abbr,
        )
    }

    fn from_parts(
        jd: i64,
        secs_in_day: i64,
        ms_in_day: f64,
        whole_ms: bool,
        epoch_seconds: i32,
        offset_secs: i32,
        abbr: &'a str,
    ) -> Option<Self> {
        if !(0..=JD_MAX).contains(&jd) {
            return None;
        }
        let (ext_year, month, day_of_month, day_of_year) = if jd >= JD_GREGORIAN_CUTOVER {
            gregorian_from_jd(jd)
        } else {
            julian_from_jd(jd)
        };
        Some(LocalDate {
            ext_year,
            month,
            day_of_month,
            day_of_year,
            day_of_week: (jd + 1) % 7 + 1,
            hour_of_day: secs_in_day / 3600,
            minute: secs_in_day / 60 % 60,
            second: secs_in_day % 60,
            ms_in_day,
            whole_ms,
            epoch_seconds,
            offset_secs,
            abbr,
        })
    }

    /// `%N`: milliseconds within the second times 10^6, zero-padded.
    fn push_nanos(&self, out: &mut String) {
        if self.whole_ms {
            push_padded(out, self.ms_in_day as i64 % 1000 * 1_000_000, b'0', 9);
        } else {
            push_fractional_nanos(out, self.ms_in_day);
        }
    }

    /// Year of the era, as printed by `%Y` and friends.
    fn era_year(&self) -> i64 {
        if self.ext_year < 1 {
            1 - self.ext_year
        } else {
            self.ext_year
        }
    }

    /// Hour on the 12-hour clock, 0..=11 (noon and midnight are 0).
    fn hour12(&self) -> i64 {
        self.hour_of_day % 12
    }

    fn clock_hour12(&self) -> i64 {
        match self.hour12() {
            0 => 12,
            h => h,
        }
    }

    fn is_am(&self) -> bool {
        self.hour_of_day < 12
    }

    /// (week, week-year) with weeks starting on `first_day` (1 = Sunday) and
    /// week 1 being the first week with at least `min_days` days in the year.
    fn week_of_year(&self, first_day: i64, min_days: i64) -> (i64, i64) {
        let doy = self.day_of_year;
        let year = self.ext_year;
        // Position (0..=6) of this day, and of January 1, within their weeks.
        let pos = (self.day_of_week - first_day).rem_euclid(7);
        let jan1_pos = (pos - (doy - 1)).rem_euclid(7);
        let mut week = (doy - 1 + jan1_pos) / 7;
        if 7 - jan1_pos >= min_days {
            week += 1;
        }
        if week == 0 {
            // Still in the last week of the previous year.
            let doy_in_prev = doy + year_length(year - 1);
            return (
                week_number(first_day, min_days, doy_in_prev, self.day_of_week),
                year - 1,
            );
        }
        let len = year_length(year);
        if doy >= len - 5 {
            // Near the end of the year the day may already be in week 1 of
            // the next one.
            let last_pos = (pos + len - doy).rem_euclid(7);
            if 6 - last_pos >= min_days && doy + 7 - pos > len {
                return (1, year + 1);
            }
        }
        (week, year)
    }

    /// `%U` / `%W`: Sunday first, one day suffices for week 1.
    fn us_week(&self) -> i64 {
        self.week_of_year(1, 1).0
    }

    fn iso_week(&self) -> (i64, i64) {
        self.week_of_year(2, 4)
    }

    fn format(&self, pattern: &str, out: &mut String) {
        let bytes = pattern.as_bytes();
        let mut start = 0;
        // Literal runs between directives are short, so a plain scan beats
        // a vectorised search here.
        while let Some(pos) = bytes[start..].iter().position(|&b| b == b'%') {
            let at = start + pos;
            out.push_str(&pattern[start..at]);
            let Some(&directive) = bytes.get(at + 1) else {
                // A lone trailing '%' is literal.
                out.push('%');
                return;
            };
            let mut next = at + 2;
            if directive.is_ascii() {
                self.directive(directive, out);
            } else {
                // Not a directive; the whole character is swallowed. The
                // reference works on UTF-16 units, so for characters outside
                // the BMP only the high surrogate goes and the orphaned low
                // surrogate is printed, which ends up as U+FFFD once the
                // output is encoded.
                let ch = pattern[at + 1..].chars().next().unwrap_or('\u{FFFD}');
                if ch.len_utf16() == 2 {
                    out.push('\u{FFFD}');
                }
                next = at + 1 + ch.len_utf8();
            }
            start = next;
        }
        out.push_str(&pattern[start..]);
    }

    fn directive(&self, directive: u8, out: &mut String) {
        match directive {
            b'%' => out.push('%'),
            b'a' => out.push_str(SHORT_DAYS[(self.day_of_week - 1) as usize]),
            b'A' => out.push_str(LONG_DAYS[(self.day_of_week - 1) as usize]),
            b'b' | b'h' => out.push_str(SHORT_MONTHS[(self.month - 1) as usize]),
            b'B' => out.push_str(LONG_MONTHS[(self.month - 1) as usize]),
            b'c' => {
                self.directive(b'a', out);
                out.push_str(", ");
                self.directive(b'b', out);
                out.push(' ');
                push_int(out, self.day_of_month);
                out.push_str(", ");
                self.directive(b'Y', out);
                out.push(' ');
                self.directive(b'i', out);
                out.push(':');
                self.directive(b'M', out);
                out.push(':');
                self.directive(b'S', out);
                out.push(' ');
                self.directive(b'p', out);
                out.push(' ');
                self.directive(b'Z', out);
            }
            b'C' => push_padded(out, self.era_year() / 100, b'0', 2),
            b'd' => push_padded(out, self.day_of_month, b'0', 2),
            b'D' => {
                self.directive(b'm', out);
                out.push('/');
                self.directive(b'd', out);
                out.push('/');
                self.directive(b'y', out);
            }
            b'e' => push_padded(out, self.day_of_month, b' ', 2),
            b'F' => {
                self.directive(b'Y', out);
                out.push('-');
                self.directive(b'm', out);
                out.push('-');
                self.directive(b'd', out);
            }
            b'g' => push_padded(out, self.iso_week().1 % 100, b'0', 2),
            b'G' => push_padded(out, self.iso_week().1, b'0', 4),
            b'H' => push_padded(out, self.hour_of_day, b'0', 2),
            b'i' => push_int(out, self.clock_hour12()),
            b'I' => push_padded(out, self.clock_hour12(), b'0', 2),
            b'j' => push_padded(out, self.day_of_year, b'0', 3),
            b'k' => push_padded(out, self.hour_of_day, b' ', 2),
            b'l' => push_padded(out, self.clock_hour12(), b' ', 2),
            b'm' => push_padded(out, self.month, b'0', 2),
            b'M' => push_padded(out, self.minute, b'0', 2),
            b'n' => out.push('\n'),
            b'N' => self.push_nanos(out),
            b'p' => out.push_str(if self.is_am() { "AM" } else { "PM" }),
            b'P' => out.push_str(if self.is_am() { "am" } else { "pm" }),
            b'q' => push_int(out, (self.month - 1) / 3 + 1),
            b'r' => {
                self.directive(b'i', out);
                out.push(':');
                self.directive(b'M', out);
                out.push(':');
                self.directive(b'S', out);
                out.push(' ');
                self.directive(b'p', out);
            }
            b'R' => {
                self.directive(b'H', out);
                out.push(':');
                self.directive(b'M', out);
            }
            b's' => push_int(out, i64::from(self.epoch_seconds)),
            b'S' => push_padded(out, self.second, b'0', 2),
            b't' => out.push('\t'),
            b'T' => {
                self.directive(b'H', out);
                out.push(':');
                self.directive(b'M', out);
                out.push(':');
                self.directive(b'S', out);
            }
            b'u' => push_int(out, (self.day_of_week + 5) % 7 + 1),
            b'U' | b'W' => push_padded(out, self.us_week(), b'0', 2),
            b'v' => {
                self.directive(b'e', out);
                out.push('-');
                self.directive(b'b', out);
                out.push('-');
                self.directive(b'Y', out);
            }
            b'V' => push_padded(out, self.iso_week().0, b'0', 2),
            b'w' => push_int(out, self.day_of_week - 1),
            b'x' => {
                self.directive(b'm', out);
                out.push('/');
                self.directive(b'd', out);
                out.push('/');
                self.directive(b'Y', out);
            }
            b'X' => {
                self.directive(b'I', out);
                out.push(':');
                self.directive(b'M', out);
                out.push(':');
                self.directive(b'S', out);
                out.push(' ');
                self.directive(b'p', out);
            }
            b'y' => push_padded(out, self.era_year() % 100, b'0', 2),
            b'Y' => push_int(out, self.era_year()),
            b'z' => {
                out.push(if self.offset_secs < 0 { '-' } else { '+' });
                let abs_secs = i64::from(self.offset_secs).abs();
                if abs_secs % 60 == 0 {
                    push_padded(out, abs_secs / 3600, b'0', 2);
                    out.push(':');
                    push_padded(out, abs_secs / 60 % 60, b'0', 2);
                } else {
                    push_fractional_offset(out, abs_secs);
                }
            }
            b'Z' => out.push_str(self.abbr),
            _ => {}
        }
    }
}

/// `%N` for inputs with a fraction of a millisecond, printed the way
/// JavaScript prints the float.
#[cold]
#[inline(never)]
fn push_fractional_nanos(out: &mut String, ms_in_day: f64) {
    push_js_number_padded(out, ms_in_day % 1000.0 * 1e6, b'0', 9);
}

/// `%z` digits for offsets with seconds (local mean time): the minutes are
/// fractional and printed the way JavaScript prints the float.
#[cold]
#[inline(never)]
fn push_fractional_offset(out: &mut String, abs_secs: i64) {
    let total_minutes = (abs_secs * 1000) as f64 / 60_000.0;
    push_padded(out, i64::from(to_int32(total_minutes / 60.0)), b'0', 2);
    out.push(':');
    push_js_number_padded(out, total_minutes % 60.0, b'0', 2);
}

/// Proleptic Gregorian (ext_year, month, day, day_of_year) of a Julian day.
fn gregorian_from_jd(jd: i64) -> (i64, i64, i64, i64) {
    // Civil-from-days over 400-year eras whose years start on March 1.
    let z = jd - JD_UNIX_EPOCH + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy_from_march = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy_from_march + 2) / 153;
    let day = doy_from_march - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let day_of_year = if month <= 2 {
        doy_from_march - 305
    } else {
        doy_from_march + 60 + i64::from(leap)
    };
    (year, month, day, day_of_year)
}

/// Julian calendar (ext_year, month, day, day_of_year) of a Julian day >= 0.
fn julian_from_jd(jd: i64) -> (i64, i64, i64, i64) {
    // Counting from March 1 of 4801 BC keeps every quantity positive.
    let c = jd + 32_082;
    let quad = (4 * c + 3) / 1461;
    let doy_from_march = c - 1461 * quad / 4;
    let mp = (5 * doy_from_march + 2) / 153;
    let day = doy_from_march - (153 * mp + 2) / 5 + 1;
    let month = mp + 3 - 12 * (mp / 10);
    let year = quad - 4800 + mp / 10;
    let y = year + 4799;
    let jan1 = 365 * y + y / 4 - 31_776;
    (year, month, day, jd - jan1 + 1)
}

/// Days from January 1 of `year` to January 1 of `year + 1` in the
/// reference's hybrid calendar: Julian years up to 1580, Gregorian years
/// from 1582, and the ten days dropped at the cutover charged to 1581.
fn year_length(year: i64) -> i64 {
    fn year_start(year: i64) -> i64 {
        let p = year - 1;
        let mut days = 365 * p + p.div_euclid(4);
        if year >= 1582 {
            days += p.div_euclid(400) - p.div_euclid(100) + 2;
        }
        days
    }
    year_start(year + 1) - year_start(year)
}

/// Week number of `day` (1-based, counted in some period whose days of week
/// are known from `dow`, the day of week of `day` itself).
fn week_number(first_day: i64, min_days: i64, day: i64, dow: i64) -> i64 {
    let period_start_pos = (dow - first_day - day + 1).rem_euclid(7);
    let week = (day + period_start_pos - 1) / 7;
    if 7 - period_start_pos >= min_days {
        week + 1
    } else {
        week
    }
}

/// JavaScript's `x | 0` for finite `x` of moderate size.
fn to_int32(x: f64) -> i32 {
    // `as i64` truncates toward zero; `as i32` then wraps modulo 2^32.
    x.trunc() as i64 as i32
}

/// A small fixed buffer for rendering one number without allocating.
struct NumBuf {
    buf: [u8; 48],
    len: usize,
}

impl NumBuf {
    fn new() -> Self {
        NumBuf {
            buf: [0; 48],
            len: 0,
        }
    }

    fn push(&mut self, b: u8) {
        if self.len < self.buf.len() {
            self.buf[self.len] = b;
            self.len += 1;
        }
    }

    fn extend(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.push(b);
        }
    }

    fn as_str(&self) -> &str {
        // Only ASCII is ever written.
        core::str::from_utf8(&self.buf[..self.len]).unwrap_or("")
    }
}

impl core::fmt::Write for NumBuf {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        let end = self.len + s.len();
        if end > self.buf.len() {
            return Err(core::fmt::Error);
        }
        self.buf[self.len..end].copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

fn push_int(out: &mut String, n: i64) {
    push_padded(out, n, b'0', 0);
}

/// Left-pads the decimal form of `n` (sign included) to `width` characters
/// (at most 20).
fn push_padded(out: &mut String, n: i64, pad: u8, width: usize) {
    let mut v = n.unsigned_abs();
    if n >= 0 && v < 100 && width <= 2 {
        // The common case: calendar fields.
        if v >= 10 {
            out.push(char::from(b'0' + (v / 10) as u8));
        } else if width == 2 {
            out.push(char::from(pad));
        }
        out.push(char::from(b'0' + (v % 10) as u8));
        return;
    }
    let mut buf = [pad; 24];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    if n < 0 {
        i -= 1;
        buf[i] = b'-';
    }
    let start = i.min(buf.len() - width.min(20));
    // Only ASCII was written.
    out.push_str(core::str::from_utf8(&buf[start..]).unwrap_or_default());
}

fn decimal_digits(mut v: u64) -> usize {
    let mut n = 1;
    while v >= 10 {
        v /= 10;
        n += 1;
    }
    n
}

/// Left-pads JavaScript's `String(x)` to `width` characters.
fn push_js_number_padded(out: &mut String, x: f64, pad: u8, width: usize) {
    if x.fract() == 0.0 && x.abs() < 1e18 {
        push_padded(out, x as i64, pad, width);
        return;
    }
    let mut buf = NumBuf::new();
    write_js_number(&mut buf, x);
    for _ in buf.len..width {
        out.push(char::from(pad));
    }
    out.push_str(buf.as_str());
}

/// JavaScript's Number-to-String for a finite value: the shortest
/// round-tripping digits (ties between two shortest candidates going to the
/// even one), in plain notation for magnitudes in [1e-6, 1e21) and in
/// exponent notation otherwise.
fn write_js_number(buf: &mut NumBuf, x: f64) {
    if x == 0.0 {
        buf.push(b'0');
        return;
    }
    // std renders the shortest round-tripping digits.
    let mut sci = NumBuf::new();
    if write!(sci, "{:e}", x.abs()).is_err() {
        return;
    }
    let Some((mantissa, exp)) = sci.as_str().split_once('e') else {
        return;
    };
    let Ok(exp) = exp.parse::<i32>() else {
        return;
    };
    let mut digits = [0u8; 20];
    let mut len = 0;
    for b in mantissa.bytes().filter(u8::is_ascii_digit) {
        if len == digits.len() {
            return;
        }
        digits[len] = b;
        len += 1;
    }
    round_tie_to_even(x.abs(), &mut digits[..len], exp);
    let digits = &digits[..len];

    if x < 0.0 {
        buf.push(b'-');
    }
    // The decimal point sits after `point` digits.
    let point = exp + 1;
    let k = len as i32;
    if k <= point && point <= 21 {
        buf.extend(digits);
        for _ in k..point {
            buf.push(b'0');
        }
    } else if 0 < point && point <= 21 {
        let (int, frac) = digits.split_at(point as usize);
        buf.extend(int);
        buf.push(b'.');
        buf.extend(frac);
    } else if -6 < point && point <= 0 {
        buf.extend(b"0.");
        for _ in point..0 {
            buf.push(b'0');
        }
        buf.extend(digits);
    } else {
        buf.push(digits[0]);
        if len > 1 {
            buf.push(b'.');
            buf.extend(&digits[1..]);
        }
        // Infallible: the buffer is large enough for any exponent.
        let _ = write!(
            buf,
            "e{}{}",
            if point > 0 { '+' } else { '-' },
            (point - 1).abs()
        );
    }
}

/// When two shortest candidates are equally near, std may print the odd one
/// where JavaScript prints the even one. `digits` (ASCII; its value is
/// `digits` x 10^(exp + 1 - len)) is std's shortest form of `m`; if `m` lies
/// exactly halfway between it and an even neighbour of the same length that
/// also round-trips, switch to the neighbour.
fn round_tie_to_even(m: f64, digits: &mut [u8], exp: i32) {
    let len = digits.len();
    if !(2..=17).contains(&len) || (digits[len - 1] - b'0').is_multiple_of(2) {
        return;
    }
    let s = digits
        .iter()
        .fold(0u64, |acc, d| acc * 10 + u64::from(d - b'0'));
    // Value of the last digit's place: 10^-frac_digits.
    let frac_digits = len as i32 - 1 - exp;
    if !(1..=27).contains(&frac_digits) {
        return;
    }
    // m = mant * 2^q exactly.
    let bits = m.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    let fraction = bits & ((1u64 << 52) - 1);
    let (mant, q) = if biased == 0 {
        (fraction, -1074)
    } else {
        (fraction | (1u64 << 52), biased - 1075)
    };
    // 2m in units of the last digit's place: mant * 2^(q + 1) * 10^frac_digits,
    // which must come out as the odd integer s + neighbour.
    let base = u128::from(mant) * 5u128.pow(frac_digits as u32);
    let shift = frac_digits + q + 1;
    let twice = if shift >= 0 {
        if (base.leading_zeros() as i32) <= shift {
            return;
        }
        base << shift
    } else {
        if (base.trailing_zeros() as i32) < -shift {
            return;
        }
        base >> -shift
    };
    let s2 = u128::from(s) * 2;
    let neighbour = if twice == s2 + 1 {
        s + 1
    } else if twice + 1 == s2 {
        s - 1
    } else {
        return;
    };
    if neighbour % 10 == 0 || decimal_digits(neighbour) != len {
        return;
    }
    let mut check = NumBuf::new();
    if write!(check, "{neighbour}e-{frac_digits}").is_err()
        || check.as_str().parse::<f64>() != Ok(m)
    {
        return;
    }
    digits.copy_from_slice(&check.buf[..len]);
}

#[cfg(test)]
mod tests {
    //! Unless noted otherwise, every expected string below was produced by
    //! running the reference engine (`@squarespace/template-engine` 2.10.10,
    //! `{t|date PATTERN}` with `website.timeZone` set to the zone).

    use super::*;

    fn fmt(epoch_ms: f64, zone: &str, pattern: &str) -> String {
        let mut out = String::new();
        let _ = format_date(epoch_ms, zone, pattern, &mut out);
        out
    }

    /// (epoch_ms, expected) pairs in one zone with one pattern.
    fn check_instants(zone: &str, pattern: &str, cases: &[(f64, &str)]) {
        for &(epoch_ms, expected) in cases {
            assert_eq!(
                fmt(epoch_ms, zone, pattern),
                expected,
                "epoch_ms={epoch_ms:?} zone={zone:?} pattern={pattern:?}"
            );
        }
    }

    /// (epoch_ms, zone, expected) triples with one pattern.
    fn check_zoned(pattern: &str, cases: &[(f64, &str, &str)]) {
        for &(epoch_ms, zone, expected) in cases {
            assert_eq!(
                fmt(epoch_ms, zone, pattern),
                expected,
                "epoch_ms={epoch_ms:?} zone={zone:?} pattern={pattern:?}"
            );
        }
    }

    /// (pattern, expected) pairs at one instant in one zone.
    fn check_patterns(epoch_ms: f64, zone: &str, cases: &[(&str, &str)]) {
        for &(pattern, expected) in cases {
            assert_eq!(
                fmt(epoch_ms, zone, pattern),
                expected,
                "epoch_ms={epoch_ms:?} zone={zone:?} pattern={pattern:?}"
            );
        }
    }

    /// Every directive at the instants of the conformance cases f-date-1 / f-date-2:
    /// (directive, Tokyo at 1613597165345, Tokyo at 1613557565000, New York at 1613597165345,
    /// New York at 1613557565000).
    #[rustfmt::skip]
    const EVERY_DIRECTIVE: &[(&str, &str, &str, &str, &str)] = &[
        ("%a", "Thu", "Wed", "Wed", "Wed"),
        ("%A", "Thursday", "Wednesday", "Wednesday", "Wednesday"),
        ("%b", "Feb", "Feb", "Feb", "Feb"),
        ("%B", "February", "February", "February", "February"),
        ("%c", "Thu, Feb 18, 2021 6:26:05 AM JST", "Wed, Feb 17, 2021 7:26:05 PM JST", "Wed, Feb 17, 2021 4:26:05 PM EST", "Wed, Feb 17, 2021 5:26:05 AM EST"),
        ("%C", "20", "20", "20", "20"),
        ("%d", "18", "17", "17", "17"),
        ("%D", "02/18/21", "02/17/21", "02/17/21", "02/17/21"),
        ("%e", "18", "17", "17", "17"),
        ("%F", "2021-02-18", "2021-02-17", "2021-02-17", "2021-02-17"),
        ("%g", "21", "21", "21", "21"),
        ("%G", "2021", "2021", "2021", "2021"),
        ("%h", "Feb", "Feb", "Feb", "Feb"),
        ("%H", "06", "19", "16", "05"),
        ("%i", "6", "7", "4", "5"),
        ("%I", "06", "07", "04", "05"),
        ("%j", "049", "048", "048", "048"),
        ("%k", " 6", "19", "16", " 5"),
        ("%l", " 6", " 7", " 4", " 5"),
        ("%m", "02", "02", "02", "02"),
        ("%M", "26", "26", "26", "26"),
        ("%n", "\n", "\n", "\n", "\n"),
        ("%N", "345000000", "000000000", "345000000", "000000000"),
        ("%p", "AM", "PM", "PM", "AM"),
        ("%P", "am", "pm", "pm", "am"),
        ("%q", "1", "1", "1", "1"),
        ("%r", "6:26:05 AM", "7:26:05 PM", "4:26:05 PM", "5:26:05 AM"),
        ("%R", "06:26", "19:26", "16:26", "05:26"),
        ("%s", "1613597165", "1613557565", "1613597165", "1613557565"),
        ("%S", "05", "05", "05", "05"),
        ("%t", "\t", "\t", "\t", "\t"),
        ("%T", "06:26:05", "19:26:05", "16:26:05", "05:26:05"),
        ("%u", "4", "3", "3", "3"),
        ("%U", "08", "08", "08", "08"),
        ("%v", "18-Feb-2021", "17-Feb-2021", "17-Feb-2021", "17-Feb-2021"),
        ("%V", "07", "07", "07", "07"),
        ("%w", "4", "3", "3", "3"),
        ("%W", "08", "08", "08", "08"),
        ("%x", "02/18/2021", "02/17/2021", "02/17/2021", "02/17/2021"),
        ("%X", "06:26:05 AM", "07:26:05 PM", "04:26:05 PM", "05:26:05 AM"),
        ("%y", "21", "21", "21", "21"),
        ("%Y", "2021", "2021", "2021", "2021"),
        ("%z", "+09:00", "+09:00", "-05:00", "-05:00"),
        ("%Z", "JST", "JST", "EST", "EST"),
    ];

    /// Midnight and noon on the 12- and 24-hour clocks (2021-07-04, UTC).
    #[rustfmt::skip]
    const TWELVE_HOUR_CLOCK: &[(f64, &str)] = &[
        (1625356807009.0, "00  0 12 12 12 AM am 12:00:07 AM 12:00:07 AM 00:00 00:00:07"),
        (1625358607009.0, "00  0 12 12 12 AM am 12:30:07 AM 12:30:07 AM 00:30 00:30:07"),
        (1625360707009.0, "01  1 01  1 1 AM am 1:05:07 AM 01:05:07 AM 01:05 01:05:07"),
        (1625399947009.0, "11 11 11 11 11 AM am 11:59:07 AM 11:59:07 AM 11:59 11:59:07"),
        (1625400007009.0, "12 12 12 12 12 PM pm 12:00:07 PM 12:00:07 PM 12:00 12:00:07"),
        (1625400067009.0, "12 12 12 12 12 PM pm 12:01:07 PM 12:01:07 PM 12:01 12:01:07"),
        (1625403607009.0, "13 13 01  1 1 PM pm 1:00:07 PM 01:00:07 PM 13:00 13:00:07"),
        (1625443147009.0, "23 23 11 11 11 PM pm 11:59:07 PM 11:59:07 PM 23:59 23:59:07"),
    ];

    /// New York around both 2021 transitions: the last millisecond before, the instant itself, and
    /// an hour either side.
    #[rustfmt::skip]
    const DST_NEW_YORK: &[(f64, &str)] = &[
        (1615705199999.0, "Sun, Mar 14, 2021 1:59:59 AM EST | 2021-03-14 01:59:59 -05:00 EST 1615705199"),
        (1615705200000.0, "Sun, Mar 14, 2021 3:00:00 AM EDT | 2021-03-14 03:00:00 -04:00 EDT 1615705200"),
        (1615701600000.0, "Sun, Mar 14, 2021 1:00:00 AM EST | 2021-03-14 01:00:00 -05:00 EST 1615701600"),
        (1615708800000.0, "Sun, Mar 14, 2021 4:00:00 AM EDT | 2021-03-14 04:00:00 -04:00 EDT 1615708800"),
        (1636264799999.0, "Sun, Nov 7, 2021 1:59:59 AM EDT | 2021-11-07 01:59:59 -04:00 EDT 1636264799"),
        (1636264800000.0, "Sun, Nov 7, 2021 1:00:00 AM EST | 2021-11-07 01:00:00 -05:00 EST 1636264800"),
        (1636261200000.0, "Sun, Nov 7, 2021 1:00:00 AM EDT | 2021-11-07 01:00:00 -04:00 EDT 1636261200"),
        (1636268400000.0, "Sun, Nov 7, 2021 2:00:00 AM EST | 2021-11-07 02:00:00 -05:00 EST 1636268400"),
    ];

    /// Transitions in both hemispheres, with 30- and 45-minute offsets, and a zone whose
    /// abbreviations are numeric.
    #[rustfmt::skip]
    const DST_ELSEWHERE: &[(f64, &str, &str)] = &[
        (1616893199999.0, "Europe/London", "2021-03-28 00:59:59 +00:00 GMT"),
        (1616893200000.0, "Europe/London", "2021-03-28 02:00:00 +01:00 BST"),
        (1635641999999.0, "Europe/London", "2021-10-31 01:59:59 +01:00 BST"),
        (1635642000000.0, "Europe/London", "2021-10-31 01:00:00 +00:00 GMT"),
        (1617465599999.0, "Australia/Sydney", "2021-04-04 02:59:59 +11:00 AEDT"),
        (1617465600000.0, "Australia/Sydney", "2021-04-04 02:00:00 +10:00 AEST"),
        (1633190399999.0, "Australia/Sydney", "2021-10-03 01:59:59 +10:00 AEST"),
        (1633190400000.0, "Australia/Sydney", "2021-10-03 03:00:00 +11:00 AEDT"),
        (1617461999999.0, "Australia/Lord_Howe", "2021-04-04 01:59:59 +11:00 +11"),
        (1617462000000.0, "Australia/Lord_Howe", "2021-04-04 01:30:00 +10:30 +1030"),
        (1633188599999.0, "Australia/Lord_Howe", "2021-10-03 01:59:59 +10:30 +1030"),
        (1633188600000.0, "Australia/Lord_Howe", "2021-10-03 02:30:00 +11:00 +11"),
        (1617458399999.0, "Pacific/Chatham", "2021-04-04 03:44:59 +13:45 +1345"),
        (1617458400000.0, "Pacific/Chatham", "2021-04-04 02:45:00 +12:45 +1245"),
        (1632578399999.0, "Pacific/Chatham", "2021-09-26 02:44:59 +12:45 +1245"),
        (1632578400000.0, "Pacific/Chatham", "2021-09-26 03:45:00 +13:45 +1345"),
        (1615699799999.0, "America/St_Johns", "2021-03-14 01:59:59 -03:30 NST"),
        (1615699800000.0, "America/St_Johns", "2021-03-14 03:00:00 -02:30 NDT"),
        (1636259399999.0, "America/St_Johns", "2021-11-07 01:59:59 -02:30 NDT"),
        (1636259400000.0, "America/St_Johns", "2021-11-07 01:00:00 -03:30 NST"),
        (1541300399999.0, "America/Sao_Paulo", "2018-11-03 23:59:59 -03:00 -03"),
        (1541300400000.0, "America/Sao_Paulo", "2018-11-04 01:00:00 -02:00 -02"),
        (1550368799999.0, "America/Sao_Paulo", "2019-02-16 23:59:59 -02:00 -02"),
        (1550368800000.0, "America/Sao_Paulo", "2019-02-16 23:00:00 -03:00 -03"),
    ];

    /// Days around New Year: `%U`/`%W` put late December into week 1 of the next year, `%V`/`%G`
    /// follow ISO 8601.
    #[rustfmt::skip]
    const WEEK_NUMBERS: &[(f64, &str)] = &[
        (1451131200000.0, "2015-12-26 Sat 360 52 52 52 2015 15 6 6"),
        (1451217600000.0, "2015-12-27 Sun 361 01 01 52 2015 15 7 0"),
        (1451304000000.0, "2015-12-28 Mon 362 01 01 53 2015 15 1 1"),
        (1451390400000.0, "2015-12-29 Tue 363 01 01 53 2015 15 2 2"),
        (1451476800000.0, "2015-12-30 Wed 364 01 01 53 2015 15 3 3"),
        (1451563200000.0, "2015-12-31 Thu 365 01 01 53 2015 15 4 4"),
        (1451649600000.0, "2016-01-01 Fri 001 01 01 53 2015 15 5 5"),
        (1451736000000.0, "2016-01-02 Sat 002 01 01 53 2015 15 6 6"),
        (1451822400000.0, "2016-01-03 Sun 003 02 02 53 2015 15 7 0"),
        (1451908800000.0, "2016-01-04 Mon 004 02 02 01 2016 16 1 1"),
        (1451995200000.0, "2016-01-05 Tue 005 02 02 01 2016 16 2 2"),
        (1545998400000.0, "2018-12-28 Fri 362 52 52 52 2018 18 5 5"),
        (1546084800000.0, "2018-12-29 Sat 363 52 52 52 2018 18 6 6"),
        (1546171200000.0, "2018-12-30 Sun 364 01 01 52 2018 18 7 0"),
        (1546257600000.0, "2018-12-31 Mon 365 01 01 01 2019 19 1 1"),
        (1546344000000.0, "2019-01-01 Tue 001 01 01 01 2019 19 2 2"),
        (1546430400000.0, "2019-01-02 Wed 002 01 01 01 2019 19 3 3"),
        (1546516800000.0, "2019-01-03 Thu 003 01 01 01 2019 19 4 4"),
        (1608897600000.0, "2020-12-25 Fri 360 52 52 52 2020 20 5 5"),
        (1608984000000.0, "2020-12-26 Sat 361 52 52 52 2020 20 6 6"),
        (1609070400000.0, "2020-12-27 Sun 362 01 01 52 2020 20 7 0"),
        (1609156800000.0, "2020-12-28 Mon 363 01 01 53 2020 20 1 1"),
        (1609243200000.0, "2020-12-29 Tue 364 01 01 53 2020 20 2 2"),
        (1609329600000.0, "2020-12-30 Wed 365 01 01 53 2020 20 3 3"),
        (1609416000000.0, "2020-12-31 Thu 366 01 01 53 2020 20 4 4"),
        (1609502400000.0, "2021-01-01 Fri 001 01 01 53 2020 20 5 5"),
        (1609588800000.0, "2021-01-02 Sat 002 01 01 53 2020 20 6 6"),
        (1609675200000.0, "2021-01-03 Sun 003 02 02 53 2020 20 7 0"),
        (1609761600000.0, "2021-01-04 Mon 004 02 02 01 2021 21 1 1"),
        (1609848000000.0, "2021-01-05 Tue 005 02 02 01 2021 21 2 2"),
        (1640347200000.0, "2021-12-24 Fri 358 52 52 51 2021 21 5 5"),
        (1640433600000.0, "2021-12-25 Sat 359 52 52 51 2021 21 6 6"),
        (1640520000000.0, "2021-12-26 Sun 360 01 01 51 2021 21 7 0"),
        (1640606400000.0, "2021-12-27 Mon 361 01 01 52 2021 21 1 1"),
        (1640692800000.0, "2021-12-28 Tue 362 01 01 52 2021 21 2 2"),
        (1640779200000.0, "2021-12-29 Wed 363 01 01 52 2021 21 3 3"),
        (1640865600000.0, "2021-12-30 Thu 364 01 01 52 2021 21 4 4"),
        (1640952000000.0, "2021-12-31 Fri 365 01 01 52 2021 21 5 5"),
        (1641038400000.0, "2022-01-01 Sat 001 01 01 52 2021 21 6 6"),
        (1641124800000.0, "2022-01-02 Sun 002 02 02 52 2021 21 7 0"),
        (1641211200000.0, "2022-01-03 Mon 003 02 02 01 2022 22 1 1"),
        (1641297600000.0, "2022-01-04 Tue 004 02 02 01 2022 22 2 2"),
        (1672401600000.0, "2022-12-30 Fri 364 53 53 52 2022 22 5 5"),
        (1672488000000.0, "2022-12-31 Sat 365 53 53 52 2022 22 6 6"),
        (1672574400000.0, "2023-01-01 Sun 001 01 01 52 2022 22 7 0"),
        (1672660800000.0, "2023-01-02 Mon 002 01 01 01 2023 23 1 1"),
        (1735300800000.0, "2024-12-27 Fri 362 52 52 52 2024 24 5 5"),
        (1735387200000.0, "2024-12-28 Sat 363 52 52 52 2024 24 6 6"),
        (1735473600000.0, "2024-12-29 Sun 364 01 01 52 2024 24 7 0"),
        (1735560000000.0, "2024-12-30 Mon 365 01 01 01 2025 25 1 1"),
        (1735646400000.0, "2024-12-31 Tue 366 01 01 01 2025 25 2 2"),
        (1735732800000.0, "2025-01-01 Wed 001 01 01 01 2025 25 3 3"),
        (1735819200000.0, "2025-01-02 Thu 002 01 01 01 2025 25 4 4"),
        (1735905600000.0, "2025-01-03 Fri 003 01 01 01 2025 25 5 5"),
        (946555200000.0, "1999-12-30 Thu 364 01 01 52 1999 99 4 4"),
        (946641600000.0, "1999-12-31 Fri 365 01 01 52 1999 99 5 5"),
        (946728000000.0, "2000-01-01 Sat 001 01 01 52 1999 99 6 6"),
        (946814400000.0, "2000-01-02 Sun 002 02 02 52 1999 99 7 0"),
        (946900800000.0, "2000-01-03 Mon 003 02 02 01 2000 00 1 1"),
        (946987200000.0, "2000-01-04 Tue 004 02 02 01 2000 00 2 2"),
    ];

    /// Leap days and day of year in leap and common years (1900 and 2100 are common, 2000 is leap).
    #[rustfmt::skip]
    const LEAP_YEARS: &[(f64, &str)] = &[
        (1582891200000.0, "2020-02-28 059 Fri 1"),
        (1582977600000.0, "2020-02-29 060 Sat 1"),
        (1583064000000.0, "2020-03-01 061 Sun 1"),
        (1609416000000.0, "2020-12-31 366 Thu 4"),
        (1640952000000.0, "2021-12-31 365 Fri 4"),
        (951825600000.0, "2000-02-29 060 Tue 1"),
        (978264000000.0, "2000-12-31 366 Sun 4"),
        (-2203934400000.0, "1900-02-28 059 Wed 1"),
        (-2203848000000.0, "1900-03-01 060 Thu 1"),
        (-2177496000000.0, "1900-12-31 365 Mon 4"),
        (4107585600000.0, "2100-03-01 060 Mon 1"),
    ];

    /// Zone resolution: exact or all-lowercase ids and links, the reference's aliases, and the UTC
    /// fallback.
    #[rustfmt::skip]
    const ZONES: &[(f64, &str, &str)] = &[
        (1613597165345.0, "Asia/Tokyo", "2021-02-18 06:26:05 +09:00 JST"),
        (1613597165345.0, "asia/tokyo", "2021-02-18 06:26:05 +09:00 JST"),
        (1613597165345.0, "ASIA/TOKYO", "2021-02-17 21:26:05 +00:00 UTC"),
        (1613597165345.0, "Asia/tokyo", "2021-02-17 21:26:05 +00:00 UTC"),
        (1613597165345.0, "Nowhere/Zone", "2021-02-17 21:26:05 +00:00 UTC"),
        (1613597165345.0, "", "2021-02-17 21:26:05 +00:00 UTC"),
        (1613597165345.0, "UTC", "2021-02-17 21:26:05 +00:00 UTC"),
        (1613597165345.0, "utc", "2021-02-17 21:26:05 +00:00 UTC"),
        (1613597165345.0, "Etc/UTC", "2021-02-17 21:26:05 +00:00 UTC"),
        (1613597165345.0, "GMT", "2021-02-17 21:26:05 +00:00 GMT"),
        (1613597165345.0, "Etc/GMT+5", "2021-02-17 16:26:05 -05:00 -05"),
        (1613597165345.0, "Etc/GMT-14", "2021-02-18 11:26:05 +14:00 +14"),
        (1613597165345.0, "US/Eastern", "2021-02-17 16:26:05 -05:00 EST"),
        (1613597165345.0, "us/eastern", "2021-02-17 16:26:05 -05:00 EST"),
        (1613597165345.0, "Etc/Unknown", "2021-02-17 21:26:05 +00:00 -00"),
        (1613597165345.0, "etc/unknown", "2021-02-17 21:26:05 +00:00 UTC"),
        (1613597165345.0, "Factory", "2021-02-17 21:26:05 +00:00 -00"),
        (1613597165345.0, "SystemV/AST4", "2021-02-17 17:26:05 -04:00 AST"),
        (1613597165345.0, "SystemV/AST4ADT", "2021-02-17 17:26:05 -04:00 AST"),
        (1613597165345.0, "SystemV/CST6", "2021-02-17 15:26:05 -06:00 CST"),
        (1613597165345.0, "SystemV/CST6CDT", "2021-02-17 15:26:05 -06:00 CST"),
        (1613597165345.0, "SystemV/EST5", "2021-02-17 16:26:05 -05:00 EST"),
        (1613597165345.0, "SystemV/EST5EDT", "2021-02-17 16:26:05 -05:00 EST"),
        (1613597165345.0, "SystemV/HST10", "2021-02-17 11:26:05 -10:00 HST"),
        (1613597165345.0, "SystemV/MST7", "2021-02-17 14:26:05 -07:00 MST"),
        (1613597165345.0, "SystemV/MST7MDT", "2021-02-17 14:26:05 -07:00 MST"),
        (1613597165345.0, "SystemV/PST8", "2021-02-17 13:26:05 -08:00 -08"),
        (1613597165345.0, "SystemV/PST8PDT", "2021-02-17 13:26:05 -08:00 PST"),
        (1613597165345.0, "SystemV/YST9", "2021-02-17 12:26:05 -09:00 -09"),
        (1613597165345.0, "SystemV/YST9YDT", "2021-02-17 12:26:05 -09:00 AKST"),
        (1613597165345.0, "systemv/est5", "2021-02-17 21:26:05 +00:00 UTC"),
        (1613597165345.0, "Canada/East-Saskatchewan", "2021-02-17 15:26:05 -06:00 CST"),
        (1613597165345.0, "America/Sao_Paulo", "2021-02-17 18:26:05 -03:00 -03"),
        (1613597165345.0, "Asia/Kolkata", "2021-02-18 02:56:05 +05:30 IST"),
        (1613597165345.0, "Asia/Kathmandu", "2021-02-18 03:11:05 +05:45 +0545"),
        (1613597165345.0, "Australia/Eucla", "2021-02-18 06:11:05 +08:45 +0845"),
        (1613597165345.0, "Pacific/Kiritimati", "2021-02-18 11:26:05 +14:00 +14"),
        (1613597165345.0, "Europe/Dublin", "2021-02-17 21:26:05 +00:00 GMT"),
        (1613597165345.0, "EST5EDT", "2021-02-17 16:26:05 -05:00 EST"),
        (1613597165345.0, "est5edt", "2021-02-17 16:26:05 -05:00 EST"),
        (1613597165345.0, "EST", "2021-02-17 16:26:05 -05:00 EST"),
        (1613597165345.0, "HST", "2021-02-17 11:26:05 -10:00 HST"),
        (1613597165345.0, "posixrules", "2021-02-17 21:26:05 +00:00 UTC"),
        (1613597165345.0, "localtime", "2021-02-17 21:26:05 +00:00 UTC"),
        (1613597165345.0, "constructor", "2021-02-17 21:26:05 +00:00 UTC"),
        (1613597165345.0, " Asia/Tokyo", "2021-02-17 21:26:05 +00:00 UTC"),
        (-3773779200000.0, "EST5EDT", "1850-05-31 19:03:58 -04:56.03333333333336 LMT"),
        (-3773779200000.0, "PST8PDT", "1850-05-31 16:07:02 -07:52.96666666666664 LMT"),
        (-839030400000.0, "MST7MDT", "1943-05-31 18:00:00 -06:00 MWT"),
        (-839030400000.0, "cst6cdt", "1943-05-31 19:00:00 -05:00 CWT"),
    ];

    /// Local mean time offsets have seconds, which `%z` prints as fractional minutes.
    #[rustfmt::skip]
    const LMT_OFFSETS: &[(f64, &str, &str)] = &[
        (-5364662400000.0, "America/New_York", "1799-12-31 19:03:58 -04:56.03333333333336 LMT"),
        (-5364662400000.0, "Europe/Amsterdam", "1800-01-01 00:17:30 +00:17.5 LMT"),
        (-5364662400000.0, "Asia/Kolkata", "1800-01-01 05:53:28 +05:53.46666666666664 LMT"),
        (-5364662400000.0, "Africa/Monrovia", "1799-12-31 23:16:52 -00:43.13333333333333 LMT"),
        (-5364662400000.0, "Pacific/Apia", "1800-01-01 12:33:04 +12:33.06666666666672 LMT"),
        (-2717650801000.0, "America/New_York", "1883-11-18 12:03:57 -04:56.03333333333336 LMT"),
        (-2717650800000.0, "America/New_York", "1883-11-18 12:00:00 -05:00 EST"),
    ];

    /// Daylight-saving rules keep applying after 2037. (The reference's zone data ends
    /// there and keeps the last offset; this is a deliberate difference.)
    #[rustfmt::skip]
    const AFTER_2037: &[(f64, &str, &str)] = &[
        (2130019200000.0, "America/New_York", "2037-06-30 20:00:00 -04:00 EDT"),
        (2224713600000.0, "America/New_York", "2040-06-30 20:00:00 -04:00 EDT"),
        (2208988800000.0, "America/New_York", "2039-12-31 19:00:00 -05:00 EST"),
        (2224713600000.0, "Australia/Sydney", "2040-07-01 10:00:00 +10:00 AEST"),
        (2208988800000.0, "Australia/Sydney", "2040-01-01 11:00:00 +11:00 AEDT"),
        (2542924800000.0, "Europe/Berlin", "2050-08-01 02:00:00 +02:00 CEST"),
        (3805228800000.0, "Asia/Tokyo", "2090-08-01 09:00:00 +09:00 JST"),
    ];

    /// Fractional, negative and 32-bit-overflowing inputs.
    #[rustfmt::skip]
    const NUMBERS: &[(f64, &str)] = &[
        (1.5, "1970-01-01 00:00:00 001500000 0 AM 12"),
        (-1.0, "1969-12-31 23:59:59 999000000 0 PM 11"),
        (-1.5, "1969-12-31 23:59:59 998500000 0 PM 11"),
        (0.5, "1970-01-01 00:00:00 000500000 0 AM 12"),
        (-0.5, "1969-12-31 23:59:59 999500000 0 PM 11"),
        (1e-07, "1970-01-01 00:00:00 0.09999999999999999 0 AM 12"),
        (1613597165345.5, "2021-02-17 21:26:05 345500000 1613597165 PM 09"),
        (1613597165345.1, "2021-02-17 21:26:05 345100097.65625 1613597165 PM 09"),
        (2.675, "1970-01-01 00:00:00 002675000 0 AM 12"),
        (999.9999999, "1970-01-01 00:00:00 999999999.9 0 AM 12"),
        (-1e-10, "1969-12-31 24:00:00 000000000 0 PM 12"),
        (-153403200001.56635, "1965-02-20 11:59:59 998433654.7851562 -153403200 AM 11"),
        (28339199000.141148, "1970-11-24 23:59:59 141147.61352539062 28339199 PM 11"),
        (2147483648000.0, "2038-01-19 03:14:08 000000000 -2147483648 AM 03"),
        (2147483647999.0, "2038-01-19 03:14:07 999000000 2147483647 AM 03"),
        (-2147483648000.0, "1901-12-13 20:45:52 000000000 -2147483648 PM 08"),
        (-2147483649000.0, "1901-12-13 20:45:51 000000000 2147483647 PM 08"),
        (4294967296000.0, "2106-02-07 06:28:16 000000000 0 AM 06"),
        (-1099511627776.0, "1935-02-28 04:06:12 224000000 -1099511627 AM 04"),
        (65536.0, "1970-01-01 00:01:05 536000000 65 AM 12"),
    ];

    /// Non-finite and out-of-range inputs print nothing.
    #[rustfmt::skip]
    const OUT_OF_RANGE: &[(f64, &str)] = &[
        (f64::NAN, ""),
        (f64::INFINITY, ""),
        (f64::NEG_INFINITY, ""),
        (9007199254740992.0, ""),
        (1000000000000000.0, ""),
        (-1000000000000000.0, ""),
        (1e21, ""),
        (1.2345678901234567e19, ""),
    ];

    /// The first and last representable local days (Julian day 0 and 8652-12-31).
    #[rustfmt::skip]
    const RANGE_EDGES: &[(f64, &str, &str)] = &[
        (-210866803200000.0, "UTC", "4713-01-01 00:00:00 Mon 001 01 01 -4712 -12 47 13 4713 -413405696 UTC"),
        (-210866803200001.0, "UTC", ""),
        (-210866803200000.0, "Asia/Tokyo", "4713-01-01 09:18:59 Mon 001 01 01 -4712 -12 47 13 4713 -413405696 LMT"),
        (-210866769661000.0, "Asia/Tokyo", "4713-01-01 18:37:58 Mon 001 01 01 -4712 -12 47 13 4713 -413372157 LMT"),
        (-210866803200000.0, "America/New_York", ""),
        (210895142399999.0, "UTC", "8652-12-31 23:59:59 Fri 366 01 53 8652 52 86 52 8652 441744895 UTC"),
        (210895142400000.0, "UTC", ""),
        (210895142399999.0, "America/New_York", "8652-12-31 18:59:59 Fri 366 01 53 8652 52 86 52 8652 441744895 EST"),
        (210895142399999.0, "Asia/Tokyo", ""),
    ];

    /// Julian calendar before 1582-10-15, era years before year 1, and the signed ISO week year.
    #[rustfmt::skip]
    const JULIAN_AND_BC: &[(f64, &str)] = &[
        (-12219379200001.0, "1582-10-03 Wed 276 40 40 1582 82 15 82 1582"),
        (-12219292800001.0, "1582-10-04 Thu 277 40 40 1582 82 15 82 1582"),
        (-12219292800000.0, "1582-10-15 Fri 288 42 41 1582 82 15 82 1582"),
        (-12219206400000.0, "1582-10-16 Sat 289 42 41 1582 82 15 82 1582"),
        (-100000000000000.0, "1200-02-26 Thu 057 09 09 -1199 -99 12 00 1200"),
        (-200000000000000.0, "4369-05-07 Fri 128 19 19 -4368 -68 43 69 4369"),
        (-62135596800000.0, "1-01-03 Mon 003 02 01 0001 01 00 01 1"),
        (-62135596800001.0, "1-01-02 Sun 002 02 53 0000 00 00 01 1"),
        (-62167219200000.0, "1-01-03 Sat 003 01 01 0000 00 00 01 1"),
        (-12244089600000.0, "1581-12-22 Fri 356 01 51 1581 81 15 81 1581"),
        (-12212553600000.0, "1583-01-01 Sat 001 01 52 1582 82 15 83 1583"),
    ];

    /// Pattern syntax: escapes, a trailing `%`, unknown directives, non-ASCII text.
    #[rustfmt::skip]
    const PATTERNS: &[(&str, &str)] = &[
        ("", ""),
        ("%", "%"),
        ("%%", "%"),
        ("%%%", "%%"),
        ("a%", "a%"),
        ("100%", "100%"),
        ("%Q%E%O", ""),
        ("%Y%", "2021%"),
        ("%%Y", "%Y"),
        ("%%%Y", "%2021"),
        ("%c%c", "Wed, Feb 17, 2021 4:26:05 PM ESTWed, Feb 17, 2021 4:26:05 PM EST"),
        ("%é%Y", "2021"),
        ("%😀x", "\u{FFFD}x"),
        ("日本%Y語", "日本2021語"),
        ("%Z%z", "EST-05:00"),
        ("no directives", "no directives"),
        ("%-d %_d %0d", "d d d"),
        ("%:z", "z"),
        ("%s%N", "1613597165345000000"),
    ];

    #[test]
    fn every_directive() {
        for &(directive, tokyo1, tokyo2, ny1, ny2) in EVERY_DIRECTIVE {
            let got = [
                fmt(1_613_597_165_345.0, "Asia/Tokyo", directive),
                fmt(1_613_557_565_000.0, "Asia/Tokyo", directive),
                fmt(1_613_597_165_345.0, "America/New_York", directive),
                fmt(1_613_557_565_000.0, "America/New_York", directive),
            ];
            assert_eq!(got, [tokyo1, tokyo2, ny1, ny2], "{directive}");
        }
    }

    #[test]
    fn every_directive_in_one_pattern() {
        // The directives are independent: one long pattern is the
        // concatenation of the single-directive outputs.
        let mut pattern = String::new();
        let mut expected = String::new();
        for &(directive, _, _, ny1, _) in EVERY_DIRECTIVE {
            pattern.push_str(directive);
            pattern.push('|');
            expected.push_str(ny1);
            expected.push('|');
        }
        assert_eq!(
            fmt(1_613_597_165_345.0, "America/New_York", &pattern),
            expected
        );
    }

    #[test]
    fn conformance_f_date_3() {
        check_patterns(
            1_613_597_165_345.0,
            "America/New_York",
            &[
                ("%Y %% %d", "2021 % 17"),
                ("%Y-%m-%d %H:%M:%S %Z", "2021-02-17 16:26:05 EST"),
            ],
        );
    }

    #[test]
    fn twelve_hour_clock() {
        check_instants("UTC", "%H %k %I %l %i %p %P %r %X %R %T", TWELVE_HOUR_CLOCK);
    }

    #[test]
    fn dst_transitions_new_york() {
        check_instants("America/New_York", "%c | %F %T %z %Z %s", DST_NEW_YORK);
    }

    #[test]
    fn dst_transitions_elsewhere() {
        check_zoned("%F %T %z %Z", DST_ELSEWHERE);
    }

    #[test]
    fn week_numbers_at_year_boundaries() {
        check_instants("UTC", "%F %a %j %U %W %V %G %g %u %w", WEEK_NUMBERS);
    }

    #[test]
    fn leap_years_and_day_of_year() {
        check_instants("UTC", "%F %j %a %q", LEAP_YEARS);
    }

    #[test]
    fn zone_resolution_and_fallback() {
        check_zoned("%F %T %z %Z", ZONES);
    }

    #[test]
    fn local_mean_time_offsets() {
        check_zoned("%F %T %z %Z", LMT_OFFSETS);
    }

    #[test]
    fn daylight_saving_rules_continue_after_2037() {
        check_zoned("%F %T %z %Z", AFTER_2037);
    }

    #[test]
    fn fractional_negative_and_wrapping_inputs() {
        check_instants("UTC", "%F %T %N %s %p %I", NUMBERS);
    }

    #[test]
    fn out_of_range_inputs_print_nothing() {
        check_instants("UTC", "%F %T", OUT_OF_RANGE);
    }

    #[test]
    fn representable_range_edges() {
        check_zoned("%F %T %a %j %U %V %G %g %C %y %Y %s %Z", RANGE_EDGES);
    }

    #[test]
    fn julian_calendar_and_bc_years() {
        check_instants("UTC", "%F %a %j %U %V %G %g %C %y %Y", JULIAN_AND_BC);
    }

    #[test]
    fn pattern_syntax() {
        check_patterns(1_613_597_165_345.0, "America/New_York", PATTERNS);
    }

    #[test]
    fn appends_to_existing_output() {
        let mut out = String::from("at ");
        let _ = format_date(0.0, "UTC", "%F", &mut out);
        assert!(!format_date(f64::NAN, "UTC", "%F", &mut out));
        let _ = format_date(0.0, "Asia/Tokyo", " %T", &mut out);
        assert_eq!(out, "at 1970-01-01 09:00:00");
    }

    #[test]
    fn zone_memo_follows_the_zone_id() {
        // The per-thread memo must never leak one zone into another.
        let t = 1_613_597_165_345.0;
        for _ in 0..3 {
            assert_eq!(fmt(t, "Asia/Tokyo", "%H %Z"), "06 JST");
            assert_eq!(fmt(t, "Asia/Tokyo", "%H %Z"), "06 JST");
            assert_eq!(fmt(t, "America/New_York", "%H %Z"), "16 EST");
            assert_eq!(fmt(t, "Nowhere", "%H %Z"), "21 UTC");
            assert_eq!(fmt(t, "asia/tokyo", "%H %Z"), "06 JST");
            assert_eq!(fmt(t, "ASIA/TOKYO", "%H %Z"), "21 UTC");
        }
    }

    #[test]
    fn gregorian_fields_agree_with_jiff() {
        // Self-check against jiff's proleptic Gregorian calendar and ISO
        // weeks: every day from 1900 to 2100, then every 5th day over the
        // Gregorian part of the supported range.
        let day_ms = 86_400_000_i64;
        let first = jiff::civil::date(1583, 1, 1);
        let last = jiff::civil::date(8652, 12, 31);
        let mut d = first;
        while d <= last {
            let every_day = (1900..=2100).contains(&d.year());
            let days = d
                .to_zoned(TimeZone::UTC)
                .unwrap()
                .timestamp()
                .as_millisecond()
                / day_ms;
            let noon = (days * day_ms + day_ms / 2) as f64;
            let iso = d.iso_week_date();
            let expected = format!(
                "{} {:02} {:02} {:03} {} {:02} {}",
                d.year(),
                d.month(),
                d.day(),
                d.day_of_year(),
                iso.year(),
                iso.week(),
                d.weekday().to_monday_one_offset(),
            );
            assert_eq!(fmt(noon, "UTC", "%Y %m %d %j %G %V %u"), expected, "{d}");
            d = d
                .checked_add(jiff::Span::new().days(if every_day { 1 } else { 5 }))
                .unwrap();
        }
    }

    #[test]
    fn julian_calendar_days() {
        // Julian day 0 is Monday 4713-01-01 BC in the Julian calendar.
        assert_eq!(julian_from_jd(0), (-4712, 1, 1, 1));
        // 1582-10-04, the last Julian day before the Gregorian reform.
        assert_eq!(julian_from_jd(JD_GREGORIAN_CUTOVER - 1), (1582, 10, 4, 277));
        assert_eq!(gregorian_from_jd(JD_GREGORIAN_CUTOVER), (1582, 10, 15, 288));
        assert_eq!(gregorian_from_jd(JD_UNIX_EPOCH), (1970, 1, 1, 1));
        assert_eq!(gregorian_from_jd(JD_MAX), (8652, 12, 31, 366));
    }

    #[test]
    fn hybrid_year_lengths() {
        assert_eq!(year_length(-4), 366);
        assert_eq!(year_length(-1), 365);
        assert_eq!(year_length(0), 366);
        assert_eq!(year_length(1500), 366);
        assert_eq!(year_length(1580), 366);
        assert_eq!(year_length(1581), 355);
        assert_eq!(year_length(1582), 365);
        assert_eq!(year_length(1600), 366);
        assert_eq!(year_length(1700), 365);
        assert_eq!(year_length(2024), 366);
    }

    #[test]
    fn javascript_number_strings() {
        fn js(x: f64) -> String {
            let mut buf = NumBuf::new();
            write_js_number(&mut buf, x);
            buf.as_str().to_owned()
        }
        // Expected values are what node prints for String(x).
        assert_eq!(js(0.0), "0");
        assert_eq!(js(-0.0), "0");
        assert_eq!(js(0.1), "0.1");
        assert_eq!(js(-2.5), "-2.5");
        assert_eq!(js(1e-6), "0.000001");
        assert_eq!(js(1.5e-7), "1.5e-7");
        assert_eq!(js(-1e-7), "-1e-7");
        assert_eq!(js(1e21), "1e+21");
        assert_eq!(js(1.25e22), "1.25e+22");
        assert_eq!(js(123_456_789.5), "123456789.5");
        assert_eq!(js(0.1 * 3.0), "0.30000000000000004");
        assert_eq!(js(56.033_333_333_333_36), "56.03333333333336");
        // Exactly halfway between two shortest candidates (both sums are
        // exact): JavaScript picks the even one, std the odd one.
        assert_eq!(js(998_433_654.0 + 0.785_156_25), "998433654.7851562");
        assert_eq!(js(141_147.0 + 0.613_525_390_625), "141147.61352539062");
        // Not a tie: the lower candidate is nearer.
        assert_eq!(js(0.1 + 0.7), "0.7999999999999999");
    }

    #[test]
    fn int32_wrapping() {
        assert_eq!(to_int32(2_147_483_648.0), -2_147_483_648);
        assert_eq!(to_int32(-2_147_483_649.0), 2_147_483_647);
        assert_eq!(to_int32(-0.999), 0);
        assert_eq!(to_int32(4_294_967_296.5), 0);
    }

    #[test]
    fn never_panics() {
        // Deterministic pseudo-random inputs: arbitrary f64 bit patterns,
        // zones and byte soup patterns.
        let mut state = 0x9E37_79B9_7F4A_7C15_u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let zones = [
            "UTC",
            "Asia/Tokyo",
            "America/St_Johns",
            "Nowhere",
            "",
            "Factory",
            "asia/kathmandu",
        ];
        let alphabet: Vec<char> = "%%%aAbBcCdDeFgGhHiIjklmMnNpPqrRsStTuUvVwWxXyYzZ é😀\n"
            .chars()
            .collect();
        let mut out = String::new();
        for i in 0..20_000 {
            let epoch_ms = match i % 3 {
                0 => f64::from_bits(next()),
                1 => (next() % 440_000_000_000_000) as f64 - 220_000_000_000_000.0 + 0.5,
                _ => f64::from_bits(next()) % 1e6,
            };
            let pattern: String = (0..next() % 12)
                .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
                .collect();
            out.clear();
            let _ = format_date(epoch_ms, zones[i % zones.len()], &pattern, &mut out);
        }
    }
}
