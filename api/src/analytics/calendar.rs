//! The site's calendar: days in its time zone (`website.timeZone`) as instants, for the
//! owner's dashboard and analytics. A day starts at its local midnight (or the first instant
//! after it, when a clock change skips midnight) and ends where the next one starts, so a
//! day is 23 or 25 hours long when the clocks change.

use jiff::Timestamp;
use jiff::civil::Date;
use jiff::tz::TimeZone;
use tenants::Span;

/// The longest period the owner may ask for, in days.
pub const MAX_DAYS: usize = 366;

/// The site's time zone (UTC for a name the time zone database does not know).
pub fn zone(name: &str) -> TimeZone {
    TimeZone::get(name).unwrap_or(TimeZone::UTC)
}

/// The local date of an instant (`None` outside the range dates can be written in).
pub fn date_of(ms: i64, tz: &TimeZone) -> Option<Date> {
    Some(
        Timestamp::from_millisecond(ms)
            .ok()?
            .to_zoned(tz.clone())
            .date(),
    )
}

/// The first instant of a local date, epoch ms.
fn start_of(date: Date, tz: &TimeZone) -> Option<i64> {
    Some(date.to_zoned(tz.clone()).ok()?.timestamp().as_millisecond())
}

/// The days from `first` to `last` (both included) as instants; `None` when there are more
/// than `max` of them, `last` is before `first`, or a date cannot be written.
pub fn days(first: Date, last: Date, tz: &TimeZone, max: usize) -> Option<Vec<Span>> {
    if last < first {
        return None;
    }
    let mut out = Vec::new();
    let mut day = first;
    let mut start = start_of(day, tz)?;
    loop {
        if out.len() == max {
            return None;
        }
        let next = day.tomorrow().ok()?;
        let end = start_of(next, tz)?;
        out.push(Span {
            start_ms: start,
            end_ms: end,
        });
        if day == last {
            return Some(out);
        }
        (day, start) = (next, end);
    }
}

/// The span from the start of the first of `days` to the end of the last.
pub fn whole(days: &[Span]) -> Option<Span> {
    Some(Span {
        start_ms: days.first()?.start_ms,
        end_ms: days.last()?.end_ms,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use jiff::civil::date;

    #[test]
    fn days_follow_the_clocks() {
        let ny = zone("America/New_York");
        // 2026-03-08: New York springs forward, a 23-hour day; the day before starts at
        // 05:00 UTC.
        let d = days(date(2026, 3, 7), date(2026, 3, 9), &ny, 366).unwrap();
        assert_eq!(d.len(), 3);
        let hours: Vec<_> = d
            .iter()
            .map(|s| (s.end_ms - s.start_ms) / 3_600_000)
            .collect();
        assert_eq!(hours, [24, 23, 24]);
        assert_eq!(d[0].start_ms % 86_400_000, 5 * 3_600_000);
        // Kathmandu is 5:45 ahead: its days start on a quarter hour.
        let k = days(
            date(2026, 1, 1),
            date(2026, 1, 1),
            &zone("Asia/Kathmandu"),
            1,
        )
        .unwrap();
        assert_eq!(k[0].start_ms % 900_000, 0);
        assert_eq!(
            k[0].start_ms % 86_400_000,
            86_400_000 - (5 * 60 + 45) * 60_000
        );
    }

    #[test]
    fn periods_are_bounded() {
        let utc = zone("Nowhere/Unknown");
        assert_eq!(utc, TimeZone::UTC);
        assert!(days(date(2026, 1, 1), date(2026, 12, 31), &utc, 365).is_some());
        assert!(days(date(2026, 1, 1), date(2027, 1, 1), &utc, 365).is_none());
        assert!(days(date(2026, 1, 2), date(2026, 1, 1), &utc, 365).is_none());
        assert_eq!(date_of(0, &utc), Some(date(1970, 1, 1)));
        assert_eq!(date_of(i64::MAX, &utc), None);
    }
}
