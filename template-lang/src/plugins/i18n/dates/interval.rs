//! `datetime-interval`: two instants as a localized range ("Feb 24 – Jun 19, 2020").
//!
//! The choice of what to show follows the reference's cldr-engine rules: the greatest
//! field that differs between the two instants (in the website's zone) picks a default
//! skeleton (`yMMMd` when the dates differ, else `jm`), time-only skeletons get a date
//! prefix when the dates differ, bare minutes/seconds get an hour, and then
//!
//! * date + time skeleton: a time difference gives "date, time range"; a date difference
//!   gives "start – end" each formatted in full; otherwise one date and time;
//! * date-only skeleton and the same day: the start date alone;
//! * anything else that differs: a range with the reference's CLDR interval pattern (see
//!   `raw.rs`; for other locales an ICU4X range over the skeleton's fields); when only the
//!   seconds (or nothing) differ, the start alone.

use std::sync::{Arc, LazyLock, Mutex};

use icu_datetime::DateTimeFormatter;
use icu_datetime::fieldbag::DateTimeFieldBag;
use icu_datetime::fieldsets::builder::{DateFields, FieldSetBuilder};
use icu_datetime::fieldsets::enums::{CalendarPeriodFieldSet, DateFieldSet, TimeFieldSet};
use icu_datetime::options::Length;
use icu_datetime::parts;
use icu_datetime::range::DateRangeFormatter;
use jiff::Zoned;
use rustc_hash::FxHashMap;
use writeable::{Part, PartsWrite, Writeable};

use super::datetime::{
    Calendar, Context, Glue, Plan, Width, capitalize_at, glue_for, plan_for, prefs, skeleton_prefs,
    split_option, split_skeleton, write_titled_with, zoned,
};
use super::pieces::PieceFormat;
use super::raw;
use crate::exec::Ctx;
use crate::plugins::Registry;
use crate::plugins::date::time_zone;
use crate::syntax::tag::Args;
use crate::value::{Val, View};

pub fn register(r: &mut Registry) {
    r.add_formatter("datetime-interval", datetime_interval);
}

/// `datetime-interval [SKELETON] [skeleton:S] [date:S] [time:S] [context:C]` on two
/// variables (`{start,end|datetime-interval}`). Prints nothing without locale data, with
/// one variable, or when either is not a finite number.
fn datetime_interval<'a>(ctx: &mut Ctx<'a>, args: &'a Args, vars: &mut [Val<'a>]) {
    let Some(locale) = ctx.env.locale.as_ref() else {
        vars[0] = Val::text("");
        return;
    };
    if vars.len() < 2 {
        vars[0] = Val::text("");
        return;
    }
    let start = vars[0].view().to_number();
    let end = vars[1].view().to_number();
    let zone = time_zone(ctx);
    let options: Vec<&str> = args.iter().collect();
    let mut out = String::new();
    format_interval(
        start,
        end,
        &zone.view().to_str(),
        &options,
        locale,
        &mut out,
    );
    vars[0] = Val::Text(out);
}

/// The message formatter's nested `{0;1 datetime-interval OPTIONS...}`: the first two
/// arguments (epoch milliseconds) as a range in `zone`. Writes nothing when either is
/// absent or not a finite number.
pub fn nested_interval(
    args: &[Option<View<'_>>],
    options: &[&str],
    zone: &str,
    locale: &icu_locale::Locale,
    out: &mut String,
) {
    let (Some(Some(start)), Some(Some(end))) = (args.first(), args.get(1)) else {
        return;
    };
    format_interval(
        start.to_number(),
        end.to_number(),
        zone,
        options,
        locale,
        out,
    );
}

/// The reference's `intervalOptions`.
#[derive(Debug, Default, PartialEq)]
struct IntervalOptions<'a> {
    skeleton: Option<&'a str>,
    date: Option<&'a str>,
    time: Option<&'a str>,
    context: Option<Context>,
}

impl<'a> IntervalOptions<'a> {
    fn parse(args: &[&'a str]) -> IntervalOptions<'a> {
        let mut o = IntervalOptions::default();
        for arg in args {
            let (key, val) = split_option(arg);
            if val.is_empty() {
                match key {
                    "context" | "skeleton" | "date" | "time" | "" => {}
                    _ => o.skeleton = Some(key),
                }
                continue;
            }
            match key {
                "context" => {
                    if let Some(c) = Context::parse(val) {
                        o.context = Some(c);
                    }
                }
                "skeleton" => o.skeleton = Some(val),
                "date" => o.date = Some(val),
                "time" => o.time = Some(val),
                _ => {}
            }
        }
        o
    }
}

/// The greatest field that differs between two instants, in the reference's terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Difference {
    Era,
    Year,
    Month,
    Day,
    DayPeriod,
    Hour,
    Minute,
    /// Only seconds or nothing differ.
    None,
}

fn difference(a: &Zoned, b: &Zoned) -> Difference {
    if (a.year() > 0) != (b.year() > 0) {
        Difference::Era
    } else if a.year() != b.year() {
        Difference::Year
    } else if a.month() != b.month() {
        Difference::Month
    } else if a.day() != b.day() {
        Difference::Day
    } else if (a.hour() < 12) != (b.hour() < 12) {
        Difference::DayPeriod
    } else if a.hour() != b.hour() {
        Difference::Hour
    } else if a.minute() != b.minute() {
        Difference::Minute
    } else {
        Difference::None
    }
}

/// The largest of the skeleton's fields among era … second (`'s'` when it has none).
fn largest_field(date: &str, time: &str) -> char {
    const ORDER: [&str; 8] = ["G", "yYur", "ML", "d", "abB", "hHKkjJC", "m", "s"];
    for (i, letters) in ORDER.iter().enumerate() {
        let found = if i < 4 { date } else { time }
            .chars()
            .find(|c| letters.contains(*c));
        if let Some(c) = found {
            return c;
        }
    }
    's'
}

fn format_interval(
    start: f64,
    end: f64,
    zone: &str,
    options: &[&str],
    locale: &icu_locale::Locale,
    out: &mut String,
) {
    let (Some(a), Some(b)) = (zoned(start, zone), zoned(end, zone)) else {
        return;
    };
    let o = IntervalOptions::parse(options);
    let diff = difference(&a, &b);
    let date_differs = matches!(
        diff,
        Difference::Era | Difference::Year | Difference::Month | Difference::Day
    );
    let time_differs = matches!(
        diff,
        Difference::DayPeriod | Difference::Hour | Difference::Minute
    );

    let mut skeleton: String = match o.skeleton.filter(|s| !s.is_empty()) {
        Some(s) => s.to_string(),
        None => match (date_differs, o.date) {
            (true, Some(d)) => d.to_string(),
            _ => o.time.unwrap_or("").to_string(),
        },
    };
    if skeleton.is_empty() {
        skeleton = if date_differs { "yMMMd" } else { "jm" }.to_string();
    } else {
        let (date, _) = split_skeleton(&skeleton);
        if date_differs && date.is_empty() {
            // Non-strict: a skeleton with time fields gets a date when the dates differ.
            skeleton.insert_str(0, "yMMMd");
        }
        let (date, time) = split_skeleton(&skeleton);
        match largest_field(&date, &time) {
            's' => skeleton.insert_str(0, "jm"),
            'm' => skeleton.insert(0, 'j'),
            _ => {}
        }
    }
    let (date_skel, time_skel) = split_skeleton(&skeleton);

    if !date_skel.is_empty() && !time_skel.is_empty() {
        if time_differs {
            // The start's date, then the time range, joined by the medium wrapper.
            let mut date = String::new();
            plan_for(locale, &[&format!("skeleton:{date_skel}")])
                .format_in_context(&a, o.context, &mut date);
            let mut range = String::new();
            if raw_range(locale, "", &time_skel, &a, &b, None, &mut range).is_none()
                && let Some(f) = range_formatter(locale, &time_skel)
            {
                f.format(&a, &b, None, &mut range);
            }
            join(
                glue_for(locale, Calendar::Gregory, Width::Medium),
                &date,
                &range,
                out,
            );
        } else if date_differs {
            // Each end in full, joined by the interval fallback.
            let plan = plan_for(locale, &[&format!("skeleton:{skeleton}")]);
            let mut first = String::new();
            plan.format_in_context(&a, o.context, &mut first);
            let mut second = String::new();
            plan.format_in_context(&b, None, &mut second);
            let fallback = fallback_for(locale);
            out.push_str(&fallback.0);
            out.push_str(&first);
            out.push_str(&fallback.1);
            out.push_str(&second);
            out.push_str(&fallback.2);
        } else {
            plan_for(locale, &[&format!("skeleton:{skeleton}"), "wrap:medium"])
                .format_in_context(&a, o.context, out);
        }
        return;
    }

    if !date_differs && time_skel.is_empty() {
        plan_for(locale, &[&format!("skeleton:{skeleton}")]).format_in_context(&a, o.context, out);
        return;
    }
    if diff != Difference::None {
        if raw_range(locale, &date_skel, &time_skel, &a, &b, o.context, out).is_some() {
            return;
        }
        if let Some(f) = range_formatter(locale, &skeleton) {
            let from = out.len();
            let single = plan_for(locale, &[&format!("skeleton:{skeleton}")]);
            f.format(&a, &b, Some(&single), out);
            if let Some(c) = o.context {
                let mut title = String::new();
                single.format_in_context(&a, Some(c), &mut title);
                let mut plain = String::new();
                single.format_in_context(&a, None, &mut plain);
                if title != plain {
                    capitalize_at(out, from);
                }
            }
        }
    } else {
        plan_for(locale, &[&format!("skeleton:{skeleton}")]).format_in_context(&a, o.context, out);
    }
}

/// A date range with the reference's own interval pattern (see [`super::raw`]). `None`
/// when there is none for this locale and skeleton; `Some(())` once written.
fn raw_range(
    locale: &icu_locale::Locale,
    date_skel: &str,
    time_skel: &str,
    a: &Zoned,
    b: &Zoned,
    context: Option<Context>,
    out: &mut String,
) -> Option<()> {
    let bundle = raw::bundle(locale)?;
    let key = raw::range_key(date_skel, time_skel)?;
    let Some(pattern) = raw::interval_pattern(bundle, &key, a, b)? else {
        return Some(());
    };
    let (first, second) = raw::split_interval(pattern);
    let lang = locale.id.language.as_str();
    if pattern.contains(['z', 'v']) {
        // Zone names: piece by piece (no context transform applies to time fields).
        let first = PieceFormat::new(locale, bundle, first)?;
        let second = if second.is_empty() {
            None
        } else {
            Some(PieceFormat::new(locale, bundle, second)?)
        };
        first.format(a, out);
        if let Some(second) = second {
            second.format(b, out);
        }
        return Some(());
    }
    let first = raw::raw_date(locale, first)?;
    let second = if second.is_empty() {
        None
    } else {
        Some(raw::raw_date(locale, second)?)
    };
    write_titled_with(|sink| first.write(a, sink), context, lang, out);
    if let Some(second) = second {
        write_titled_with(|sink| second.write(b, sink), None, lang, out);
    }
    Some(())
}

fn join(glue: Option<Glue>, date: &str, time: &str, out: &mut String) {
    match glue {
        Some(g) => g.join(date, time, out),
        None => {
            out.push_str(date);
            out.push_str(", ");
            out.push_str(time);
        }
    }
}

/// An ICU4X range formatter for one kind of field set (ranges need the specific dynamic
/// field-set types: a `CompositeFieldSet` range only ever uses the fallback pattern).
pub(crate) enum RangeFormat {
    Date(DateRangeFormatter<DateFieldSet>),
    Period(DateRangeFormatter<CalendarPeriodFieldSet>),
    Time(DateRangeFormatter<TimeFieldSet>),
}

impl RangeFormat {
    fn new(locale: &icu_locale::Locale, skeleton: &str) -> Option<RangeFormat> {
        let mut b = DateTimeFieldBag::from_skeleton(skeleton).to_field_set_builder();
        let p = skeleton_prefs(locale, Calendar::Gregory, skeleton);
        if b.time_precision.is_some() {
            // Zone names have no interval patterns: the range shows the times only.
            b.zone_style = None;
            let fs = b.build_time().ok()?;
            return DateRangeFormatter::try_new(p, fs)
                .ok()
                .map(RangeFormat::Time);
        }
        match b.date_fields {
            Some(DateFields::Y | DateFields::M | DateFields::YM) => {
                let fs = b.build_calendar_period().ok()?;
                DateRangeFormatter::try_new(p, fs)
                    .ok()
                    .map(RangeFormat::Period)
            }
            Some(_) => {
                let fs = b.build_date().ok()?;
                DateRangeFormatter::try_new(p, fs)
                    .ok()
                    .map(RangeFormat::Date)
            }
            None => None,
        }
    }

    /// Writes the range; month and weekday names that ICU4X left as placeholders (its
    /// long-width ranges with a year lack the names: "M02 24 – M06 19") are replaced by
    /// the names from formatting each end alone with `single`.
    fn format(&self, a: &Zoned, b: &Zoned, single: Option<&Plan>, out: &mut String) {
        let mut sink = RangeSink {
            out,
            side: Side::Shared,
            names: Vec::new(),
        };
        let _ = match self {
            RangeFormat::Date(f) => f.format(a, b).write_to_parts(&mut sink),
            RangeFormat::Period(f) => f.format(a, b).write_to_parts(&mut sink),
            RangeFormat::Time(f) => f.format(a, b).write_to_parts(&mut sink),
        };
        let names = std::mem::take(&mut sink.names);
        if names
            .iter()
            .all(|n| !is_placeholder(n, &out[n.range.clone()]))
        {
            return;
        }
        let Some(single) = single else { return };
        let side_names = |z: &Zoned| {
            let mut text = String::new();
            let mut sink = RangeSink {
                out: &mut text,
                side: Side::Shared,
                names: Vec::new(),
            };
            single.write_parts(z, &mut sink);
            let names: Vec<(bool, String)> = sink
                .names
                .iter()
                .map(|n| (n.month, text[n.range.clone()].to_string()))
                .collect();
            names
        };
        let (first, second) = (side_names(a), side_names(b));
        for n in names.iter().rev() {
            if !is_placeholder(n, &out[n.range.clone()]) {
                continue;
            }
            let from = if n.side == Side::End { &second } else { &first };
            if let Some((_, name)) = from.iter().find(|(m, _)| *m == n.month) {
                out.replace_range(n.range.clone(), name);
            }
        }
    }
}

/// ICU4X's stand-ins for names it could not load: `M02` for months, English lower-case
/// abbreviations for weekdays.
fn is_placeholder(n: &NameSpan, text: &str) -> bool {
    if n.month {
        text.len() >= 3 && text.starts_with('M') && text[1..3].bytes().all(|c| c.is_ascii_digit())
    } else {
        matches!(text, "sun" | "mon" | "tue" | "wed" | "thu" | "fri" | "sat")
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Side {
    Shared,
    Start,
    End,
}

/// Where a month (or weekday) name was written.
struct NameSpan {
    range: std::ops::Range<usize>,
    month: bool,
    side: Side,
}

/// A parts sink recording month and weekday spans and which end of the range they
/// belong to.
pub(crate) struct RangeSink<'s> {
    out: &'s mut String,
    side: Side,
    names: Vec<NameSpan>,
}

impl std::fmt::Write for RangeSink<'_> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.out.push_str(s);
        Ok(())
    }
}

impl PartsWrite for RangeSink<'_> {
    type SubPartsWrite = Self;

    fn with_part(
        &mut self,
        part: Part,
        mut f: impl FnMut(&mut Self::SubPartsWrite) -> std::fmt::Result,
    ) -> std::fmt::Result {
        let saved = self.side;
        if part == parts::RANGE_START {
            self.side = Side::Start;
        } else if part == parts::RANGE_END {
            self.side = Side::End;
        }
        let begin = self.out.len();
        f(self)?;
        self.side = saved;
        if part == parts::MONTH || part == parts::WEEKDAY {
            self.names.push(NameSpan {
                range: begin..self.out.len(),
                month: part == parts::MONTH,
                side: self.side,
            });
        }
        Ok(())
    }
}

type RangeCache = FxHashMap<String, Option<Arc<RangeFormat>>>;

/// The range formatter for a skeleton, cached by locale + skeleton.
fn range_formatter(locale: &icu_locale::Locale, skeleton: &str) -> Option<Arc<RangeFormat>> {
    static CACHE: LazyLock<Mutex<RangeCache>> = LazyLock::new(Default::default);
    let key = format!("{locale}\u{1}{skeleton}");
    if let Some(f) = CACHE.lock().ok().and_then(|m| m.get(&key).cloned()) {
        return f;
    }
    let f = RangeFormat::new(locale, skeleton).map(Arc::new);
    if let Ok(mut m) = CACHE.lock() {
        if m.len() >= 512 {
            m.clear();
        }
        m.insert(key, f.clone());
    }
    f
}

/// The interval fallback: text before, between and after the two ends.
type Fallback = (String, String, String);

/// The locale's interval fallback ("{0} – {1}") as (before, between, after), recovered
/// from an ICU4X range over the dynamic composite field set, which always uses it.
fn fallback_for(locale: &icu_locale::Locale) -> Arc<Fallback> {
    static CACHE: LazyLock<Mutex<FxHashMap<String, Arc<Fallback>>>> =
        LazyLock::new(Default::default);
    let key = locale.to_string();
    if let Some(f) = CACHE.lock().ok().and_then(|m| m.get(&key).cloned()) {
        return f;
    }
    let f = Arc::new(
        compute_fallback(locale)
            .unwrap_or_else(|| (String::new(), " \u{2013} ".to_string(), String::new())),
    );
    if let Ok(mut m) = CACHE.lock() {
        if m.len() >= 256 {
            m.clear();
        }
        m.insert(key, f.clone());
    }
    f
}

fn compute_fallback(locale: &icu_locale::Locale) -> Option<(String, String, String)> {
    let a = zoned(1_582_571_080_000.0, "UTC")?;
    let b = zoned(1_592_591_080_000.0, "UTC")?;
    let fs = || {
        let mut builder = FieldSetBuilder::new();
        builder.length = Some(Length::Short);
        builder.date_fields = Some(DateFields::YMD);
        builder.build_composite().ok()
    };
    // Ranges over the dynamic composite field set always use the fallback pattern.
    let range = DateRangeFormatter::try_new(prefs(locale, Calendar::Gregory), fs()?).ok()?;
    let both = range.format(&a, &b).write_to_string().into_owned();
    let single = DateTimeFormatter::try_new(prefs(locale, Calendar::Gregory), fs()?).ok()?;
    let first = single.format(&a).write_to_string().into_owned();
    let second = single.format(&b).write_to_string().into_owned();
    let i = both.find(&first)?;
    let j = both.rfind(&second)?;
    if i + first.len() > j {
        return None;
    }
    Some((
        both[..i].to_string(),
        both[i + first.len()..j].to_string(),
        both[j + second.len()..].to_string(),
    ))
}
