//! UTC calendar fields of an epoch-milliseconds instant, computed as the reference's
//! calendar does: the proleptic Julian calendar before 1582-10-15, the Gregorian one
//! after, and only Julian days 0 (4713-01-01 BC) ..= 4 881 503 (8652-12-31) representable.
//!
//! `same-day?` and `google-calendar-url` read dates in UTC (SPEC.md §9: calendar links use
//! year-month-day plus time in UTC), so no zone data is involved.

const MS_PER_DAY: f64 = 86_400_000.0;
const JD_UNIX_EPOCH: i64 = 2_440_588;
const JD_MAX: i64 = 4_881_503;
const JD_GREGORIAN_CUTOVER: i64 = 2_299_161;
const JD_GREGORIAN_EPOCH: i64 = 1_721_426;
const GREGORIAN_CUTOVER_YEAR: i64 = 1582;

/// Days before the first of each month: common years, leap years.
const MONTH_START: [[i64; 2]; 12] = [
    [0, 0],
    [31, 31],
    [59, 60],
    [90, 91],
    [120, 121],
    [151, 152],
    [181, 182],
    [212, 213],
    [243, 244],
    [273, 274],
    [304, 305],
    [334, 335],
];

/// A UTC date and time of day.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UtcFields {
    /// The era year (1 BC is 1, as the reference prints it).
    pub year: i64,
    /// The signed year (1 BC is 0), which tells eras apart.
    pub extended_year: i64,
    pub month: i64,
    pub day: i64,
    pub day_of_year: i64,
    pub hour: i64,
    pub minute: i64,
    pub second: i64,
}

impl UtcFields {
    /// The fields of `epoch_ms`, or `None` where the reference fails (non-finite input,
    /// or a day outside its supported range): its callers then abandon the whole tag.
    pub fn from_epoch_ms(epoch_ms: f64) -> Option<UtcFields> {
        if !epoch_ms.is_finite() {
            return None;
        }
        let days = (epoch_ms / MS_PER_DAY).floor();
        // Checked in floating point first: far-out inputs must not wrap when converted.
        let jd_f = days + JD_UNIX_EPOCH as f64;
        if !(0.0..=JD_MAX as f64).contains(&jd_f) {
            return None;
        }
        let jd = jd_f as i64;
        // Non-negative and below one day; fractions of a millisecond only truncate.
        let ms_in_day = epoch_ms - days * MS_PER_DAY;
        let secs = (ms_in_day / 1000.0).trunc() as i64;
        let (extended_year, month, day, day_of_year) = if jd >= JD_GREGORIAN_CUTOVER {
            gregorian(jd)
        } else {
            julian(jd)
        };
        Some(UtcFields {
            year: if extended_year < 1 {
                1 - extended_year
            } else {
                extended_year
            },
            extended_year,
            month,
            day,
            day_of_year,
            hour: secs / 3600,
            minute: secs / 60 % 60,
            second: secs % 60,
        })
    }
}

fn is_leap(year: i64) -> bool {
    let leap = year % 4 == 0;
    if year >= GREGORIAN_CUTOVER_YEAR {
        leap && (year % 100 != 0 || year % 400 == 0)
    } else {
        leap
    }
}

/// Month, day of month and 1-based day of year from a 0-based day of year.
fn month_and_day(doy: i64, leap: bool) -> (i64, i64, i64) {
    let col = usize::from(leap);
    let correction = if doy >= MONTH_START[2][col] {
        if leap { 1 } else { 2 }
    } else {
        0
    };
    let month = (12 * (doy + correction) + 6) / 367;
    let dom = doy - MONTH_START[month as usize][col] + 1;
    (month + 1, dom, doy + 1)
}

/// Year, month, day, day of year for a Julian day on or after the Gregorian cutover.
fn gregorian(jd: i64) -> (i64, i64, i64, i64) {
    let days = jd - JD_GREGORIAN_EPOCH;
    let (n400, rem) = (days / 146_097, days % 146_097);
    let (n100, rem) = (rem / 36_524, rem % 36_524);
    let (n4, rem) = (rem / 1_461, rem % 1_461);
    let (n1, rem) = (rem / 365, rem % 365);
    let mut year = 400 * n400 + 100 * n100 + 4 * n4 + n1;
    let doy = if n100 == 4 || n1 == 4 {
        365
    } else {
        year += 1;
        rem
    };
    let (month, day, day_of_year) = month_and_day(doy, is_leap(year));
    (year, month, day, day_of_year)
}

/// The same in the proleptic Julian calendar (any day before the cutover).
fn julian(jd: i64) -> (i64, i64, i64, i64) {
    let days = jd - (JD_GREGORIAN_EPOCH - 2);
    let year = (4 * days + 1464).div_euclid(1461);
    let jan1 = 365 * (year - 1) + (year - 1).div_euclid(4);
    let doy = days - jan1;
    let (month, day, day_of_year) = month_and_day(doy, year % 4 == 0);
    (year, month, day, day_of_year)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ymd_hms(ms: f64) -> (i64, i64, i64, i64, i64, i64) {
        let f = UtcFields::from_epoch_ms(ms).expect("in range");
        (f.year, f.month, f.day, f.hour, f.minute, f.second)
    }

    #[test]
    fn epoch_and_modern_dates() {
        assert_eq!(ymd_hms(0.0), (1970, 1, 1, 0, 0, 0));
        assert_eq!(ymd_hms(-1.0), (1969, 12, 31, 23, 59, 59));
        assert_eq!(ymd_hms(-0.5), (1969, 12, 31, 23, 59, 59));
        // 2016-02-29T12:34:56.789Z
        assert_eq!(ymd_hms(1_456_749_296_789.0), (2016, 2, 29, 12, 34, 56));
        let f = UtcFields::from_epoch_ms(1_483_142_400_000.0).unwrap(); // 2016-12-31
        assert_eq!((f.day_of_year, f.month, f.day), (366, 12, 31));
    }

    #[test]
    fn julian_before_the_cutover_and_eras() {
        // 1582-10-15 (Gregorian) follows 1582-10-04 (Julian).
        assert_eq!(ymd_hms(-12_219_292_800_000.0), (1582, 10, 15, 0, 0, 0));
        assert_eq!(ymd_hms(-12_219_292_800_001.0), (1582, 10, 4, 23, 59, 59));
        // The first representable day, 4713-01-01 BC.
        let first = -(JD_UNIX_EPOCH as f64) * MS_PER_DAY;
        let f = UtcFields::from_epoch_ms(first).unwrap();
        assert_eq!(
            (f.year, f.extended_year, f.month, f.day),
            (4713, -4712, 1, 1)
        );
        assert_eq!(UtcFields::from_epoch_ms(first - 1.0), None);
    }

    #[test]
    fn range_limits() {
        let last = ((JD_MAX - JD_UNIX_EPOCH + 1) as f64) * MS_PER_DAY - 1.0;
        assert_eq!(ymd_hms(last), (8652, 12, 31, 23, 59, 59));
        assert_eq!(UtcFields::from_epoch_ms(last + 1.0), None);
        assert_eq!(UtcFields::from_epoch_ms(f64::NAN), None);
        assert_eq!(UtcFields::from_epoch_ms(f64::INFINITY), None);
        assert_eq!(UtcFields::from_epoch_ms(1e300), None);
    }
}
