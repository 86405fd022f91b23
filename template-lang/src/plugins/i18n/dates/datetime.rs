//! `datetime`: an instant (epoch milliseconds) formatted in the website's time zone with
//! CLDR date and time patterns, as the reference's cldr-engine `formatDate` does.
//!
//! The reference builds a request from the options (a date part, a time part and a
//! "wrapper" that joins them) and then formats each part. We keep that structure:
//!
//! * For the Gregorian (and ISO-8601) calendar in the locales of `patterns.rs`, each part
//!   is the reference's own CLDR pattern (standard formats, or the skeleton's best match)
//!   formatted by ICU4X's pattern formatter; zone names and flexible day periods go piece
//!   by piece (see `pieces.rs`).
//! * Otherwise each part is an ICU4X [`DateTimeFormatter`] over a dynamic field set (named
//!   widths map onto `YMD`/`YMDE` and time precisions, skeleton fragments go through the
//!   ICU4X field bag).
//! * The wrapper is the reference's date-time glue for the width (`wrappers.rs`, or the
//!   bundle's), else ICU4X's, recovered by locating a date and a time in a combined format.
//!
//! Formatters are expensive to build, so a [`Plan`] (everything that depends only on the
//! locale and the options) is cached globally by locale + options.

use std::fmt::{self, Write as _};
use std::sync::{Arc, LazyLock, Mutex};

use icu_datetime::DateTimeFormatter;
use icu_datetime::DateTimeFormatterPreferences;
use icu_datetime::fieldbag::DateTimeFieldBag;
use icu_datetime::fieldsets::builder::{DateFields, FieldSetBuilder, ZoneStyle};
use icu_datetime::fieldsets::enums::CompositeFieldSet;
use icu_datetime::options::{Length, TimePrecision};
use icu_locale::preferences::extensions::unicode::keywords::{CalendarAlgorithm, HourCycle};
use jiff::Zoned;
use jiff::tz::{TimeZone, TimeZoneDatabase};
use rustc_hash::FxHashMap;
use writeable::{Part, PartsWrite, Writeable};

use super::pieces;
use super::raw::{self, RawDate, raw_date, skeleton_pattern};
use super::wrappers::wrappers;
use crate::exec::Ctx;
use crate::plugins::Registry;
use crate::plugins::date::time_zone;
use crate::syntax::tag::Args;
use crate::value::{Val, View};

pub fn register(r: &mut Registry) {
    r.add_formatter("datetime", datetime);
}

/// `datetime OPTIONS...`: the value (epoch milliseconds) as a localized date and/or time
/// in the website's zone. Prints nothing without locale data or for a non-number.
fn datetime<'a>(ctx: &mut Ctx<'a>, args: &'a Args, vars: &mut [Val<'a>]) {
    let Some(locale) = ctx.env.locale.as_ref() else {
        vars[0] = Val::text("");
        return;
    };
    let epoch = vars[0].view().to_number();
    let zone = time_zone(ctx);
    let mut out = String::new();
    let options: Vec<&str> = args.iter().collect();
    format_epoch(epoch, &zone.view().to_str(), &options, locale, &mut out);
    vars[0] = Val::Text(out);
}

/// The message formatter's nested `{0 datetime OPTIONS...}`: the first argument (epoch
/// milliseconds) formatted as the `datetime` formatter does, in `zone`. Writes nothing when
/// the argument is absent or not a finite number.
pub fn nested_datetime(
    args: &[Option<View<'_>>],
    options: &[&str],
    zone: &str,
    locale: &icu_locale::Locale,
    out: &mut String,
) {
    let Some(Some(first)) = args.first() else {
        return;
    };
    format_epoch(first.to_number(), zone, options, locale, out);
}

fn format_epoch(
    epoch: f64,
    zone: &str,
    options: &[&str],
    locale: &icu_locale::Locale,
    out: &mut String,
) {
    let Some(zoned) = zoned(epoch, zone) else {
        return;
    };
    let plan = plan_for(locale, options);
    plan.format(&zoned, out);
}

// ---------------------------------------------------------------------------------------
// Options

/// A standard format width (`short`, `medium`, `long`, `full`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Width {
    Short,
    Medium,
    Long,
    Full,
}

impl Width {
    pub(crate) fn parse(s: &str) -> Option<Width> {
        match s {
            "short" => Some(Width::Short),
            "medium" => Some(Width::Medium),
            "long" => Some(Width::Long),
            "full" => Some(Width::Full),
            _ => None,
        }
    }

    fn length(self) -> Length {
        match self {
            Width::Short => Length::Short,
            Width::Medium => Length::Medium,
            Width::Long | Width::Full => Length::Long,
        }
    }
}

/// The `context:` option: how the first word is capitalised.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Context {
    MiddleOfText,
    BeginSentence,
    Standalone,
    UiListOrMenu,
}

impl Context {
    pub(crate) fn parse(s: &str) -> Option<Context> {
        match s {
            "middle-of-text" => Some(Context::MiddleOfText),
            "begin-sentence" => Some(Context::BeginSentence),
            "standalone" => Some(Context::Standalone),
            "ui-list-or-menu" => Some(Context::UiListOrMenu),
            _ => None,
        }
    }
}

/// The `calendar:` option.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Calendar {
    Gregory,
    Buddhist,
    Iso8601,
    Persian,
    Japanese,
}

impl Calendar {
    /// The reference's `selectCalendar`: `gregorian` is an alias; anything else unknown.
    pub(crate) fn parse(s: &str) -> Option<Calendar> {
        match s {
            "gregorian" | "gregory" => Some(Calendar::Gregory),
            "buddhist" => Some(Calendar::Buddhist),
            "iso8601" => Some(Calendar::Iso8601),
            "persian" => Some(Calendar::Persian),
            "japanese" => Some(Calendar::Japanese),
            _ => None,
        }
    }

    /// Gregorian and ISO-8601 dates share the Gregorian CLDR patterns in the reference.
    pub(crate) fn gregorian_patterns(self) -> bool {
        matches!(self, Calendar::Gregory | Calendar::Iso8601)
    }

    fn algorithm(self) -> CalendarAlgorithm {
        match self {
            Calendar::Gregory => CalendarAlgorithm::Gregory,
            Calendar::Buddhist => CalendarAlgorithm::Buddhist,
            Calendar::Iso8601 => CalendarAlgorithm::Iso8601,
            Calendar::Persian => CalendarAlgorithm::Persian,
            Calendar::Japanese => CalendarAlgorithm::Japanese,
        }
    }
}

/// The parsed `datetime` options (the reference's `datetimeOptions`).
#[derive(Debug, Default, PartialEq)]
struct DateOptions {
    date: Option<Width>,
    time: Option<Width>,
    datetime: Option<Width>,
    skeleton: Option<String>,
    wrap: Option<Width>,
    context: Option<Context>,
    calendar: Option<Calendar>,
}

impl DateOptions {
    fn parse(args: &[&str]) -> DateOptions {
        let mut o = DateOptions::default();
        for arg in args {
            let (key, val) = split_option(arg);
            if val.is_empty() {
                match key {
                    "date" => o.date = Some(Width::Short),
                    "time" => o.time = Some(Width::Short),
                    _ => match Width::parse(key) {
                        Some(w) => o.datetime = Some(w),
                        None => o.skeleton.get_or_insert_with(String::new).push_str(key),
                    },
                }
                continue;
            }
            match key {
                "calendar" => o.calendar = Calendar::parse(val),
                "context" => {
                    if let Some(c) = Context::parse(val) {
                        o.context = Some(c);
                    }
                }
                "date" | "time" | "datetime" => match Width::parse(val) {
                    Some(w) => match key {
                        "date" => o.date = Some(w),
                        "time" => o.time = Some(w),
                        _ => o.datetime = Some(w),
                    },
                    None => o.skeleton.get_or_insert_with(String::new).push_str(val),
                },
                "skeleton" => o.skeleton = Some(val.to_string()),
                "wrap" | "wrapper" | "wrapped" => {
                    if let Some(w) = Width::parse(val) {
                        o.wrap = Some(w);
                    }
                }
                _ => {}
            }
        }
        o
    }
}

/// Splits `key:value` at the first colon (the value is empty without one).
pub(crate) fn split_option(arg: &str) -> (&str, &str) {
    match arg.find(':') {
        Some(i) => (&arg[..i], &arg[i + 1..]),
        None => (arg, ""),
    }
}

// ---------------------------------------------------------------------------------------
// Zones and instants

/// The reference's calendar dates run from Julian day 0 (4713 BC) to Julian day 4881503
/// (8652 AD); instants outside are clamped to those days.
pub(crate) fn clamp_epoch(ms: f64) -> f64 {
    const MIN: f64 = -210_866_803_200_000.0;
    const MAX: f64 = 210_895_142_399_999.0;
    ms.clamp(MIN, MAX)
}

/// The instant `epoch` (milliseconds) in the zone named `zone_id`; unknown zones are GMT,
/// as in the reference. `None` for non-finite or out-of-range instants.
pub(crate) fn zoned(epoch: f64, zone_id: &str) -> Option<Zoned> {
    if !epoch.is_finite() {
        return None;
    }
    let ms = epoch.floor();
    if ms.abs() > 8.64e15 {
        return None;
    }
    let ts = jiff::Timestamp::from_millisecond(ms as i64).ok()?;
    Some(ts.to_zoned(resolve_zone(zone_id)))
}

/// The IANA zone for an id, through a one-entry per-thread memo (a page formats many dates
/// in the same zone).
fn resolve_zone(zone_id: &str) -> TimeZone {
    thread_local! {
        static LAST: std::cell::RefCell<Option<(Box<str>, TimeZone)>> =
            const { std::cell::RefCell::new(None) };
    }
    // Unknown zones and UTC itself are GMT in the reference ("Greenwich Mean Time").
    let lookup = |id: &str| {
        let db = TimeZoneDatabase::bundled();
        match db.get(id) {
            Ok(tz)
                if !matches!(
                    tz.iana_name(),
                    Some(
                        "UTC"
                            | "Etc/UTC"
                            | "Etc/UCT"
                            | "UCT"
                            | "Etc/Universal"
                            | "Universal"
                            | "Etc/Zulu"
                            | "Zulu"
                    )
                ) =>
            {
                tz
            }
            _ => db.get("Etc/GMT").unwrap_or(TimeZone::UTC),
        }
    };
    LAST.try_with(|cell| {
        let Ok(mut last) = cell.try_borrow_mut() else {
            return lookup(zone_id);
        };
        match &*last {
            Some((id, tz)) if **id == *zone_id => tz.clone(),
            _ => {
                let tz = lookup(zone_id);
                *last = Some((zone_id.into(), tz.clone()));
                tz
            }
        }
    })
    .unwrap_or_else(|_| lookup(zone_id))
}

// ---------------------------------------------------------------------------------------
// Plans

/// One part of a date-time format: an ICU4X formatter plus what the context transform
/// needs to know, or our own day-period ("B") formatter.
pub(crate) enum PartFormat {
    Icu(Box<DateTimeFormatter<CompositeFieldSet>>),
    Raw(Arc<RawDate>),
    Pieces(pieces::PieceFormat),
}

impl PartFormat {
    /// Formats `zoned`, capitalising the first word when `context` asks for it and the
    /// part starts with a month, weekday or era name.
    pub(crate) fn format(
        &self,
        zoned: &Zoned,
        context: Option<Context>,
        lang: &str,
        out: &mut String,
    ) {
        match self {
            PartFormat::Icu(f) => write_titled(&f.format(zoned), context, lang, out),
            PartFormat::Raw(f) => {
                write_titled_with(|sink| f.write(zoned, sink), context, lang, out)
            }
            PartFormat::Pieces(f) => f.format(zoned, out),
        }
    }
}

/// Writes `w`, capitalising its first word when `context` asks for it and the output
/// starts with a month, weekday or era name (the reference transforms the first field only).
pub(crate) fn write_titled(
    w: &impl Writeable,
    context: Option<Context>,
    lang: &str,
    out: &mut String,
) {
    write_titled_with(
        |sink| {
            let _ = w.write_to_parts(sink);
        },
        context,
        lang,
        out,
    );
}

/// [`write_titled`] for any writer of parts.
pub(crate) fn write_titled_with(
    write: impl FnOnce(&mut FirstField<'_>),
    context: Option<Context>,
    lang: &str,
    out: &mut String,
) {
    let start = out.len();
    let mut sink = FirstField {
        out,
        start,
        field: None,
    };
    write(&mut sink);
    if let (Some(context), Some(field)) = (context, sink.field)
        && should_title(context, lang, field)
    {
        capitalize_at(out, start);
    }
}

/// Names the context transform distinguishes (the reference's transform field types).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TitleField {
    Month,
    Weekday,
    Era,
    Relative,
}

/// A parts sink that writes through to a string and records whether the output starts
/// with a named month, weekday or era.
pub(crate) struct FirstField<'s> {
    out: &'s mut String,
    start: usize,
    field: Option<TitleField>,
}

impl fmt::Write for FirstField<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.out.push_str(s);
        Ok(())
    }
}

impl PartsWrite for FirstField<'_> {
    type SubPartsWrite = Self;

    fn with_part(
        &mut self,
        part: Part,
        mut f: impl FnMut(&mut Self::SubPartsWrite) -> fmt::Result,
    ) -> fmt::Result {
        let begin = self.out.len();
        f(self)?;
        if begin == self.start && self.out.len() > begin && self.field.is_none() {
            let text = &self.out[begin..];
            let named = !text.starts_with(|c: char| c.is_numeric());
            self.field = if part == icu_datetime::parts::MONTH && named {
                Some(TitleField::Month)
            } else if part == icu_datetime::parts::WEEKDAY {
                Some(TitleField::Weekday)
            } else if part == icu_datetime::parts::ERA {
                Some(TitleField::Era)
            } else {
                None
            };
        }
        Ok(())
    }
}

/// The reference's context transform: `begin-sentence` always capitalises, `standalone`
/// and `ui-list-or-menu` only where the locale's CLDR context transforms say so.
pub(crate) fn should_title(context: Context, lang: &str, field: TitleField) -> bool {
    match context {
        Context::MiddleOfText => false,
        Context::BeginSentence => true,
        Context::Standalone => transform_flags(lang, field)[0],
        Context::UiListOrMenu => transform_flags(lang, field)[1],
    }
}

/// CLDR `contextTransforms` (as shipped with the reference's CLDR data) for the languages
/// that have any for these fields: `[standalone, ui-list-or-menu]` title-casing.
fn transform_flags(lang: &str, field: TitleField) -> [bool; 2] {
    const TT: [bool; 2] = [true, true];
    const TN: [bool; 2] = [true, false];
    const NT: [bool; 2] = [false, true];
    const NN: [bool; 2] = [false, false];
    match field {
        TitleField::Relative => match lang {
            "cs" | "el" | "en" | "hr" | "id" | "nl" | "pl" | "pt" | "ru" | "tr" | "uk" => TT,
            "fi" | "nb" | "nn" | "no" => TN,
            _ => NN,
        },
        TitleField::Month => match lang {
            "es" | "it" | "nl" | "ru" | "uk" => TT,
            "fr" | "ht" | "pl" => TN,
            "cs" | "hr" | "sk" => NT,
            _ => NN,
        },
        TitleField::Weekday => match lang {
            "es" | "it" | "nl" | "pt" | "ru" | "uk" => TT,
            "fr" | "ht" | "pl" => TN,
            "cs" | "hr" | "sk" => NT,
            _ => NN,
        },
        TitleField::Era => match lang {
            "ru" => TT,
            _ => NN,
        },
    }
}

/// Upper-cases the character at byte `at` (the reference upper-cases the first UTF-16
/// unit; for the letters that start CLDR names this is the same).
pub(crate) fn capitalize_at(s: &mut String, at: usize) {
    let Some(c) = s[at..].chars().next() else {
        return;
    };
    if !c.is_lowercase() {
        return;
    }
    let buf: String = c.to_uppercase().collect();
    s.replace_range(at..at + c.len_utf8(), &buf);
}

/// The "wrapper" joining a date and a time: `{1}` is the date, `{0}` the time.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Glue {
    pub(crate) before: String,
    pub(crate) between: String,
    pub(crate) after: String,
    pub(crate) date_first: bool,
}

impl Glue {
    pub(crate) fn join(&self, date: &str, time: &str, out: &mut String) {
        out.push_str(&self.before);
        if self.date_first {
            out.push_str(date);
            out.push_str(&self.between);
            out.push_str(time);
        } else {
            out.push_str(time);
            out.push_str(&self.between);
            out.push_str(date);
        }
        out.push_str(&self.after);
    }
}

/// Everything needed to format instants for one locale + option set.
pub(crate) struct Plan {
    date: Option<PartFormat>,
    time: Option<PartFormat>,
    glue: Option<Glue>,
    context: Option<Context>,
    lang: String,
}

impl Plan {
    pub(crate) fn format(&self, zoned: &Zoned, out: &mut String) {
        self.format_in_context(zoned, self.context, out);
    }

    /// Writes the date part (or else the time part) of `zoned` to a parts sink.
    pub(crate) fn write_parts<S: PartsWrite + ?Sized>(&self, zoned: &Zoned, sink: &mut S) {
        match self.date.as_ref().or(self.time.as_ref()) {
            Some(PartFormat::Icu(f)) => {
                let _ = f.format(zoned).write_to_parts(sink);
            }
            Some(PartFormat::Raw(f)) => f.write(zoned, sink),
            _ => {}
        }
    }

    /// Formats with an explicit context transform (`None`: none).
    pub(crate) fn format_in_context(
        &self,
        zoned: &Zoned,
        context: Option<Context>,
        out: &mut String,
    ) {
        match (&self.date, &self.time) {
            (Some(d), Some(t)) => {
                let mut date = String::new();
                d.format(zoned, context, &self.lang, &mut date);
                let mut time = String::new();
                t.format(zoned, None, &self.lang, &mut time);
                match &self.glue {
                    Some(g) => g.join(&date, &time, out),
                    None => {
                        out.push_str(&date);
                        out.push(' ');
                        out.push_str(&time);
                    }
                }
            }
            (Some(p), None) | (None, Some(p)) => p.format(zoned, context, &self.lang, out),
            (None, None) => {}
        }
    }
}

/// Plans built so far, by locale and options; emptied when it gets large.
static PLANS: LazyLock<Mutex<FxHashMap<String, Arc<Plan>>>> = LazyLock::new(Default::default);
const PLAN_CACHE_ENTRIES: usize = 512;

pub(crate) fn plan_for(locale: &icu_locale::Locale, options: &[&str]) -> Arc<Plan> {
    let mut key = String::with_capacity(32);
    let _ = write!(key, "{locale}");
    for o in options {
        key.push('\u{1}');
        key.push_str(o);
    }
    if let Some(p) = PLANS.lock().ok().and_then(|m| m.get(&key).cloned()) {
        return p;
    }
    let plan = Arc::new(build_plan(locale, &DateOptions::parse(options)));
    if let Ok(mut m) = PLANS.lock() {
        if m.len() >= PLAN_CACHE_ENTRIES {
            m.clear();
        }
        m.insert(key, plan.clone());
    }
    plan
}

pub(crate) fn prefs(
    locale: &icu_locale::Locale,
    calendar: Calendar,
) -> DateTimeFormatterPreferences {
    let mut prefs = DateTimeFormatterPreferences::from(locale);
    prefs.calendar_algorithm = Some(calendar.algorithm());
    prefs
}

/// Preferences for a skeleton: its hour letter picks the clock (`h`/`K` 12-hour, `H`/`k`
/// 24-hour, `j` the locale's), as skeleton matching does in the reference.
pub(crate) fn skeleton_prefs(
    locale: &icu_locale::Locale,
    calendar: Calendar,
    skeleton: &str,
) -> DateTimeFormatterPreferences {
    let mut p = prefs(locale, calendar);
    if skeleton.contains(['h', 'K']) {
        p.hour_cycle = Some(HourCycle::H12);
    } else if skeleton.contains(['H', 'k']) {
        p.hour_cycle = Some(HourCycle::H23);
    }
    p
}

/// An ICU4X formatter for a field-set builder; `None` when the combination is invalid.
pub(crate) fn icu_part(
    locale: &icu_locale::Locale,
    calendar: Calendar,
    builder: FieldSetBuilder,
) -> Option<PartFormat> {
    let fs = builder.build_composite().ok()?;
    DateTimeFormatter::try_new(prefs(locale, calendar), fs)
        .ok()
        .map(|f| PartFormat::Icu(Box::new(f)))
}

/// A standard date (0..4) or time (4..8) format the reference's way, for the Gregorian
/// calendar in the bundles of `patterns.rs`.
fn standard_format(
    locale: &icu_locale::Locale,
    calendar: Calendar,
    index: usize,
) -> Option<PartFormat> {
    if !calendar.gregorian_patterns() {
        return None;
    }
    let bundle = raw::bundle(locale)?;
    let pattern = bundle.formats[index];
    if index < 4 {
        raw_date(locale, pattern).map(PartFormat::Raw)
    } else {
        pieces::PieceFormat::new(locale, bundle, pattern).map(PartFormat::Pieces)
    }
}

/// The field set for a standard date width.
pub(crate) fn named_date(width: Width) -> FieldSetBuilder {
    let mut b = FieldSetBuilder::new();
    b.length = Some(width.length());
    b.date_fields = Some(if width == Width::Full {
        DateFields::YMDE
    } else {
        DateFields::YMD
    });
    b
}

/// The field set for a standard time width: short has minutes, medium seconds, long adds
/// the short specific zone name and full the long one.
pub(crate) fn named_time(width: Width) -> FieldSetBuilder {
    let mut b = FieldSetBuilder::new();
    b.length = Some(width.length());
    b.time_precision = Some(match width {
        Width::Short => TimePrecision::Minute,
        _ => TimePrecision::Second,
    });
    b.zone_style = match width {
        Width::Long => Some(ZoneStyle::SpecificShort),
        Width::Full => Some(ZoneStyle::SpecificLong),
        _ => None,
    };
    b
}

/// Date and time halves of a skeleton (the reference's `DateSkeleton.split`): day periods,
/// hours, minutes, seconds and zones are time fields.
pub(crate) fn split_skeleton(skeleton: &str) -> (String, String) {
    let mut date = String::new();
    let mut time = String::new();
    for c in skeleton.chars() {
        match c {
            'G' | 'y' | 'Y' | 'u' | 'U' | 'r' | 'Q' | 'q' | 'M' | 'L' | 'l' | 'w' | 'W' | 'd'
            | 'D' | 'F' | 'g' | 'E' | 'e' | 'c' => date.push(c),
            'a' | 'b' | 'B' | 'h' | 'H' | 'K' | 'k' | 'j' | 'J' | 'C' | 'm' | 's' | 'S' | 'A'
            | 'z' | 'Z' | 'O' | 'v' | 'V' | 'X' | 'x' => time.push(c),
            _ => {}
        }
    }
    (date, time)
}

/// The field set for the date half of a skeleton.
pub(crate) fn skeleton_date(date: &str) -> Option<FieldSetBuilder> {
    if date.is_empty() {
        return None;
    }
    let bag = DateTimeFieldBag::from_skeleton(date);
    let b = bag.to_field_set_builder();
    b.date_fields.is_some().then_some(b)
}

/// The formatter for the time half of a skeleton; flexible day periods (`B`) are ours.
pub(crate) fn skeleton_time(
    locale: &icu_locale::Locale,
    calendar: Calendar,
    time: &str,
) -> Option<PartFormat> {
    if time.is_empty() {
        return None;
    }
    if calendar.gregorian_patterns() {
        let bundle = raw::bundle(locale);
        let pattern = bundle
            .zip(raw::time_key(time))
            .and_then(|(b, key)| skeleton_pattern(b, &key));
        if let (Some(bundle), Some(pattern)) = (bundle, pattern) {
            let part = if pattern.contains(['z', 'v']) {
                pieces::PieceFormat::new(locale, bundle, pattern).map(PartFormat::Pieces)
            } else {
                raw_date(locale, pattern).map(PartFormat::Raw)
            };
            if part.is_some() {
                return part;
            }
        }
    }
    if time.contains('B')
        && let Some(f) = pieces::PieceFormat::flexible(locale, time)
    {
        return Some(PartFormat::Pieces(f));
    }
    let bag = DateTimeFieldBag::from_skeleton(time);
    let b = bag.to_field_set_builder();
    if b.time_precision.is_none() && b.zone_style.is_none() {
        return None;
    }
    let fs = b.build_composite().ok()?;
    DateTimeFormatter::try_new(skeleton_prefs(locale, calendar, time), fs)
        .ok()
        .map(|f| PartFormat::Icu(Box::new(f)))
}

/// The number of month letters in a skeleton's date half.
fn month_width(date: &str) -> usize {
    date.chars().filter(|&c| c == 'M' || c == 'L').count()
}

fn build_plan(locale: &icu_locale::Locale, o: &DateOptions) -> Plan {
    let calendar = o.calendar.unwrap_or(Calendar::Gregory);
    let lang = locale.id.language.as_str().to_string();
    let mut date_key = o.datetime.or(o.date);
    let time_key = o.datetime.or(o.time);
    let skeleton = o.skeleton.as_deref().unwrap_or("");
    if date_key.is_none() && time_key.is_none() && skeleton.is_empty() {
        date_key = Some(Width::Long);
    }
    let mut wrapper = o.wrap.or(if date_key.is_some() && time_key.is_some() {
        date_key
    } else {
        None
    });

    let mut date = date_key.and_then(|w| {
        standard_format(locale, calendar, w as usize)
            .or_else(|| icu_part(locale, calendar, named_date(w)))
    });
    let mut time = time_key.and_then(|w| {
        standard_format(locale, calendar, 4 + w as usize)
            .or_else(|| icu_part(locale, calendar, named_time(w)))
    });

    if (date_key.is_none() || time_key.is_none()) && !skeleton.is_empty() {
        let (date_skel, time_skel) = split_skeleton(skeleton);
        // With one standard format, only the other half of the skeleton is used.
        let (date_skel, time_skel) = match (date_key, time_key) {
            (Some(_), None) => (String::new(), time_skel),
            (None, Some(_)) => (date_skel, String::new()),
            _ => (date_skel, time_skel),
        };
        let raw = calendar
            .gregorian_patterns()
            .then(|| {
                let pattern = skeleton_pattern(raw::bundle(locale)?, &raw::date_key(&date_skel)?)?;
                raw_date(locale, pattern)
            })
            .flatten();
        let date_fields = skeleton_date(&date_skel);
        let has_date_skel = date_fields.is_some();
        if let Some(r) = raw {
            date = Some(PartFormat::Raw(r));
        } else if let Some(b) = date_fields {
            date = icu_part(locale, calendar, b);
        }
        if let Some(t) = skeleton_time(locale, calendar, &time_skel) {
            time = Some(t);
        }
        if o.wrap.is_none() {
            wrapper = Some(if has_date_skel && date.is_some() && time.is_some() {
                match month_width(&date_skel) {
                    4 if date_skel.contains(['E', 'c', 'e']) => Width::Full,
                    4 => Width::Long,
                    3 => Width::Medium,
                    _ => Width::Short,
                }
            } else {
                date_key.unwrap_or(Width::Short)
            });
        }
    }

    let glue = match (&date, &time, wrapper) {
        (Some(_), Some(_), Some(w)) => glue_for(locale, calendar, w),
        _ => None,
    };
    Plan {
        date,
        time,
        glue,
        context: o.context,
        lang,
    }
}

/// The locale's date-time glue for a width, recovered from ICU4X: a combined date + time
/// is formatted next to the date and the time alone, and the rest is the glue.
pub(crate) fn glue_for(
    locale: &icu_locale::Locale,
    calendar: Calendar,
    width: Width,
) -> Option<Glue> {
    static GLUES: LazyLock<Mutex<FxHashMap<String, Option<Glue>>>> =
        LazyLock::new(Default::default);
    let key = format!("{locale}\u{1}{calendar:?}\u{1}{width:?}");
    if let Some(g) = GLUES.lock().ok().and_then(|m| m.get(&key).cloned()) {
        return g;
    }
    let glue = compute_glue(locale, calendar, width);
    if let Ok(mut m) = GLUES.lock() {
        if m.len() > 256 {
            m.clear();
        }
        m.insert(key, glue.clone());
    }
    glue
}

fn compute_glue(locale: &icu_locale::Locale, calendar: Calendar, width: Width) -> Option<Glue> {
    let table = raw::bundle(locale)
        .map(|b| b.wrappers)
        .or_else(|| wrappers(locale.id.language.as_str()));
    if let Some(table) = table {
        let (before, between, after, date_first) = table[width as usize];
        return Some(Glue {
            before: before.to_string(),
            between: between.to_string(),
            after: after.to_string(),
            date_first,
        });
    }
    let sample = zoned(1_582_571_080_000.0, "UTC")?;
    let mut both = named_date(width);
    both.time_precision = Some(TimePrecision::Minute);
    let mut time = FieldSetBuilder::new();
    time.length = Some(width.length());
    time.time_precision = Some(TimePrecision::Minute);
    let text = |b: FieldSetBuilder| -> Option<String> {
        let fs = b.build_composite().ok()?;
        let f = DateTimeFormatter::try_new(prefs(locale, calendar), fs).ok()?;
        Some(f.format(&sample).write_to_string().into_owned())
    };
    let both = text(both)?;
    let date = text(named_date(width))?;
    let time = text(time)?;
    let d = both.find(&date)?;
    let t = both.find(&time)?;
    let (first, first_len, second, second_len) = if d <= t {
        (d, date.len(), t, time.len())
    } else {
        (t, time.len(), d, date.len())
    };
    if first + first_len > second {
        return None;
    }
    Some(Glue {
        before: both[..first].to_string(),
        between: both[first + first_len..second].to_string(),
        after: both[second + second_len..].to_string(),
        date_first: d <= t,
    })
}
