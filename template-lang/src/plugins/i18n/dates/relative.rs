//! `relative-time`: the time between two instants as "in 12 days", "2 hours ago",
//! "yesterday".
//!
//! ICU4X formats a value once its unit is known; choosing the unit is ours and follows the
//! reference's cldr-engine (`CalendarDate.relativeTime`, a Temporal-style difference in
//! UTC): without `field:`, the largest non-zero field of the calendar difference (years,
//! months, weeks only with `allowWeeks:true`, days, hours, minutes, seconds) is chosen;
//! the amount is then that whole difference expressed in the chosen field with the smaller
//! fields rolled up as a fraction (months of 30.44 days, years of 365.25), rounded
//! half-even to whole units unless number options say otherwise. Zero prints the field's
//! "now" form ("now", "today", "this week") unless `numericOnly:true` (and not
//! `alwaysNow:true`); 1 and 2 use "tomorrow"/"yesterday"-style words for days and larger.

use std::sync::{Arc, LazyLock, Mutex};

use fixed_decimal::{Decimal, Sign, SignedRoundingMode, UnsignedRoundingMode};
use icu_decimal::DecimalFormatter;
use icu_decimal::options::DecimalFormatterOptions;
use icu_experimental::relativetime::options::{GroupingStrategy, Numeric};
use icu_experimental::relativetime::{RelativeTimeFormatter, RelativeTimeFormatterOptions};
use icu_plurals::{PluralCategory, PluralRules};
use rustc_hash::FxHashMap;
use writeable::Writeable;

use super::datetime::{
    Context, TitleField, capitalize_at, clamp_epoch, should_title, split_option,
};
use super::patterns::Bundle;
use super::raw;
use crate::exec::Ctx;
use crate::plugins::Registry;
use crate::syntax::tag::Args;
use crate::value::Val;
use crate::value::number::js_parse_int;

pub fn register(r: &mut Registry) {
    r.add_formatter("relative-time", relative_time);
}

/// `relative-time OPTIONS...`: with one variable, from now to the value; with two
/// (`{start, end|relative-time}`), from the first to the second (epoch milliseconds).
/// Prints nothing without locale data or when an instant is not a finite number.
fn relative_time<'a>(ctx: &mut Ctx<'a>, args: &'a Args, vars: &mut [Val<'a>]) {
    let Some(locale) = ctx.env.locale.as_ref() else {
        vars[0] = Val::text("");
        return;
    };
    let (start, end) = if vars.len() > 1 {
        (vars[0].view().to_number(), vars[1].view().to_number())
    } else {
        (ctx.now_ms(), vars[0].view().to_number())
    };
    let options: Vec<&str> = args.iter().collect();
    let mut out = String::new();
    format_relative(start, end, &options, locale, &mut out);
    vars[0] = Val::Text(out);
}

/// A relative-time field (`field:` values; `millis` is shown in seconds).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Field {
    Year,
    Month,
    Week,
    Day,
    Hour,
    Minute,
    Second,
    Millis,
}

impl Field {
    const ALL: [Field; 8] = [
        Field::Year,
        Field::Month,
        Field::Week,
        Field::Day,
        Field::Hour,
        Field::Minute,
        Field::Second,
        Field::Millis,
    ];

    fn parse(s: &str) -> Option<Field> {
        Some(match s {
            "year" => Field::Year,
            "month" => Field::Month,
            "week" => Field::Week,
            "day" => Field::Day,
            "hour" => Field::Hour,
            "minute" => Field::Minute,
            "second" => Field::Second,
            "millis" => Field::Millis,
            _ => return None,
        })
    }

    fn flag(self) -> u8 {
        1 << (self as u8)
    }
}

/// `width:` (CLDR date field widths).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
enum FieldWidth {
    #[default]
    Wide,
    Short,
    Narrow,
}

/// The reference's rounding modes (`round:`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
enum Round {
    Up,
    Down,
    Ceiling,
    Floor,
    HalfUp,
    HalfDown,
    #[default]
    HalfEven,
}

impl Round {
    fn mode(self) -> SignedRoundingMode {
        use UnsignedRoundingMode as U;
        match self {
            Round::Up => SignedRoundingMode::Unsigned(U::Expand),
            Round::Down => SignedRoundingMode::Unsigned(U::Trunc),
            Round::Ceiling => SignedRoundingMode::Ceil,
            Round::Floor => SignedRoundingMode::Floor,
            Round::HalfUp => SignedRoundingMode::Unsigned(U::HalfExpand),
            Round::HalfDown => SignedRoundingMode::Unsigned(U::HalfTrunc),
            Round::HalfEven => SignedRoundingMode::Unsigned(U::HalfEven),
        }
    }
}

/// The parsed `relative-time` options (the reference's `relativetimeOptions`).
#[derive(Debug, Default, PartialEq)]
struct RelativeOptions {
    context: Option<Context>,
    day_of_week: bool,
    field: Option<Field>,
    numeric_only: bool,
    allow_weeks: bool,
    always_now: bool,
    width: FieldWidth,
    group: Option<bool>,
    round: Round,
    min_frac: Option<i16>,
    max_frac: Option<i16>,
    min_sig: Option<i16>,
    max_sig: Option<i16>,
}

/// `parseInt(v, 10)` clamped to 0..=50, 0 when not a number.
fn clamp_int(v: &str) -> i16 {
    let n = js_parse_int(v);
    if n.is_finite() {
        n.clamp(0.0, 50.0) as i16
    } else {
        0
    }
}

impl RelativeOptions {
    fn parse(args: &[&str]) -> RelativeOptions {
        let mut o = RelativeOptions::default();
        for arg in args {
            let (key, val) = split_option(arg);
            match key {
                "context" => {
                    if let Some(c) = Context::parse(val) {
                        o.context = Some(c);
                    }
                }
                "dayOfWeek" => o.day_of_week = val == "true",
                "field" => {
                    if let Some(f) = Field::parse(val) {
                        o.field = Some(f);
                    }
                }
                "numericOnly" => o.numeric_only = val == "true",
                "allowWeeks" => o.allow_weeks = val == "true",
                "alwaysNow" => o.always_now = val == "true",
                "width" => match val {
                    "wide" => o.width = FieldWidth::Wide,
                    "short" => o.width = FieldWidth::Short,
                    "narrow" => o.width = FieldWidth::Narrow,
                    _ => {}
                },
                "group" | "grouping" => o.group = Some(val.is_empty() || val == "true"),
                "no-group" | "no-grouping" => o.group = Some(false),
                "round" | "rounding" => match val {
                    "ceil" | "ceiling" => o.round = Round::Ceiling,
                    "truncate" | "down" => o.round = Round::Down,
                    "up" => o.round = Round::Up,
                    "floor" => o.round = Round::Floor,
                    "half-up" => o.round = Round::HalfUp,
                    "half-down" => o.round = Round::HalfDown,
                    "half-even" => o.round = Round::HalfEven,
                    _ => {}
                },
                "maxfrac" | "maxFrac" | "maximumFractionDigits" => {
                    o.max_frac = Some(clamp_int(val))
                }
                "minfrac" | "minFrac" | "minimumFractionDigits" => {
                    o.min_frac = Some(clamp_int(val))
                }
                "maxsig" | "maxSig" | "maximumSignificantDigits" => {
                    o.max_sig = Some(clamp_int(val))
                }
                "minsig" | "minSig" | "minimumSignificantDigits" => {
                    o.min_sig = Some(clamp_int(val))
                }
                // minint does not show: relative times print at least one integer digit.
                _ => {}
            }
        }
        o
    }

    /// The reference's `adjustDecimal` with the `0` pattern: half-even to whole units by
    /// default, or the fraction / significant digits asked for.
    fn adjust(&self, mut n: Decimal) -> Decimal {
        let mode = self.round.mode();
        if self.min_sig.is_some() || self.max_sig.is_some() {
            let mut min_sig = self.min_sig.map_or(-1, i32::from);
            let mut max_sig = self.max_sig.map_or(-1, i32::from);
            if min_sig != -1 && max_sig != -1 && min_sig > max_sig {
                max_sig = min_sig;
            }
            if min_sig == -1 {
                min_sig = max_sig;
            }
            if min_sig >= 0 {
                if max_sig != -1 && precision(&n) > max_sig {
                    let scale = max_sig - precision(&n) + scale(&n);
                    set_scale(&mut n, scale, mode);
                }
                n.absolute.trim_end();
                if precision(&n) < min_sig {
                    let scale = min_sig - precision(&n) + scale(&n);
                    set_scale(&mut n, scale, mode);
                }
                return n;
            }
        }
        let mut min_frac: i32 = 0;
        let mut max_frac: i32 = 0;
        if let Some(m) = self.max_frac {
            max_frac = m.into();
        }
        if let Some(m) = self.min_frac {
            min_frac = match self.max_frac {
                Some(x) => i32::from(x.min(m)),
                None => m.into(),
            };
            if min_frac > max_frac {
                max_frac = min_frac;
            }
        }
        if self.max_frac.is_some() && max_frac < min_frac {
            min_frac = max_frac;
        }
        let target = min_frac.max(scale(&n).min(max_frac));
        set_scale(&mut n, target, mode);
        n.absolute.trim_end();
        if scale(&n) < min_frac {
            set_scale(&mut n, min_frac, mode);
        }
        n
    }
}

/// Digits after the decimal point.
fn scale(n: &Decimal) -> i32 {
    -i32::from((*n.absolute.magnitude_range().start()).min(0))
}

/// Significant digits (1 for zero).
fn precision(n: &Decimal) -> i32 {
    if n.absolute.is_zero() {
        return 1;
    }
    i32::from(n.absolute.nonzero_magnitude_start()) + scale(n) + 1
}

/// Rounds or pads to exactly `scale` fraction digits.
fn set_scale(n: &mut Decimal, scale: i32, mode: SignedRoundingMode) {
    let position = (-scale).clamp(i16::MIN as i32, i16::MAX as i32) as i16;
    n.round_with_mode(position, mode);
    n.absolute.pad_end(position);
}

fn format_relative(
    start: f64,
    end: f64,
    options: &[&str],
    locale: &icu_locale::Locale,
    out: &mut String,
) {
    if !start.is_finite() || !end.is_finite() {
        return;
    }
    let o = RelativeOptions::parse(options);
    let (s, e) = (clamp_epoch(start) as i64, clamp_epoch(end) as i64);
    let (field, mut amount) = relative_amount(s, e, o.field, o.allow_weeks);
    let field = if field == Field::Millis {
        amount /= 1000.0;
        Field::Second
    } else {
        field
    };
    let text = format!("{amount}");
    let Ok(value) = Decimal::try_from_str(&text) else {
        return;
    };
    let n = o.adjust(value);
    let negative = n.sign() == Sign::Negative;
    let abs = n.clone().with_sign(Sign::None);
    let is_zero = abs.absolute.is_zero();
    let group = o.group.unwrap_or(true);
    let Some(f) = formatters(locale, field, o.width, group) else {
        return;
    };
    let lang = locale.id.language.as_str();
    let from = out.len();
    if o.day_of_week && field == Field::Week {
        let weekday = |ms: i64| (ms.div_euclid(86_400_000) + 4).rem_euclid(7) as usize;
        if weekday(s) == weekday(e)
            && let Some(bundle) = raw::bundle(locale)
        {
            format_weekday(&o, bundle, locale, weekday(e), &n, out);
            if let Some(c) = o.context
                && should_title(c, lang, TitleField::Relative)
            {
                capitalize_at(out, from);
            }
            return;
        }
    }
    let special = if is_zero {
        o.always_now || !o.numeric_only
    } else {
        !o.numeric_only && !matches!(field, Field::Hour | Field::Minute | Field::Second)
    };
    let mut written = false;
    if special {
        let value: f64 = abs.to_string().parse().unwrap_or(f64::NAN);
        let small = if is_zero {
            Some(0)
        } else if value == 1.0 {
            Some(1i64)
        } else if value == 2.0 {
            Some(2)
        } else {
            None
        };
        if let Some(k) = small {
            let k = if negative { -k } else { k };
            let value = Decimal::from(k);
            let auto = f.auto.format(value.clone()).write_to_string().into_owned();
            let always = f.always.format(value).write_to_string().into_owned();
            if auto != always || is_zero {
                out.push_str(&auto);
                written = true;
            }
        }
    }
    if !written {
        let _ = f.always.format(n).write_to(out);
    }
    if let Some(c) = o.context
        && should_title(c, lang, TitleField::Relative)
    {
        capitalize_at(out, from);
    }
}

/// "next Monday", "in 2 Mondays": a week difference that lands on the same weekday
/// (`dayOfWeek:true`), with the reference's CLDR weekday names (ICU4X has none).
fn format_weekday(
    o: &RelativeOptions,
    bundle: &'static Bundle,
    locale: &icu_locale::Locale,
    day: usize,
    n: &Decimal,
    out: &mut String,
) {
    let width = match o.width {
        FieldWidth::Wide => 0,
        FieldWidth::Short => 1,
        FieldWidth::Narrow => 2,
    };
    let (last, this, next, plurals) = bundle.weekdays[width][day];
    let negative = n.sign() == Sign::Negative;
    let abs = n.clone().with_sign(Sign::None);
    let value: f64 = abs.to_string().parse().unwrap_or(f64::NAN);
    if abs.absolute.is_zero() && (o.always_now || !o.numeric_only) {
        out.push_str(this);
        return;
    }
    if !o.numeric_only && value == 1.0 {
        out.push_str(if negative { last } else { next });
        return;
    }
    let Some(numbers) = numbers(locale) else {
        return;
    };
    let category = match numbers.plurals.category_for(&abs) {
        PluralCategory::Zero => "zero",
        PluralCategory::One => "one",
        PluralCategory::Two => "two",
        PluralCategory::Few => "few",
        PluralCategory::Many => "many",
        PluralCategory::Other => "other",
    };
    let pattern = plurals
        .iter()
        .find(|(c, ..)| *c == category)
        .or_else(|| plurals.iter().find(|(c, ..)| *c == "other"))
        .map(|&(_, future, past)| if negative { past } else { future })
        .unwrap_or("");
    let formatter = if o.group.unwrap_or(true) {
        &numbers.grouped
    } else {
        &numbers.plain
    };
    let number = formatter.format(&abs).write_to_string().into_owned();
    out.push_str(&pattern.replace("{0}", &number));
}

/// Plural rules and number formatters for relative weekdays.
struct Numbers {
    plurals: PluralRules,
    grouped: DecimalFormatter,
    plain: DecimalFormatter,
}

fn numbers(locale: &icu_locale::Locale) -> Option<Arc<Numbers>> {
    static CACHE: LazyLock<Mutex<FxHashMap<String, Arc<Numbers>>>> =
        LazyLock::new(Default::default);
    let key = locale.to_string();
    if let Some(n) = CACHE.lock().ok().and_then(|m| m.get(&key).cloned()) {
        return Some(n);
    }
    let mut never = DecimalFormatterOptions::default();
    never.grouping_strategy = Some(GroupingStrategy::Never);
    let n = Arc::new(Numbers {
        plurals: PluralRules::try_new_cardinal(locale.into()).ok()?,
        grouped: DecimalFormatter::try_new(locale.into(), DecimalFormatterOptions::default())
            .ok()?,
        plain: DecimalFormatter::try_new(locale.into(), never).ok()?,
    });
    if let Ok(mut m) = CACHE.lock() {
        if m.len() >= 64 {
            m.clear();
        }
        m.insert(key, n.clone());
    }
    Some(n)
}

/// ICU4X formatters for one field and width: `Auto` (with "yesterday"-style words) and
/// `Always` (numbers only).
struct FieldFormatters {
    auto: RelativeTimeFormatter,
    always: RelativeTimeFormatter,
}

type Key = (String, Field, FieldWidth, bool);

fn formatters(
    locale: &icu_locale::Locale,
    field: Field,
    width: FieldWidth,
    group: bool,
) -> Option<Arc<FieldFormatters>> {
    static CACHE: LazyLock<Mutex<FxHashMap<Key, Arc<FieldFormatters>>>> =
        LazyLock::new(Default::default);
    let key = (locale.to_string(), field, width, group);
    if let Some(f) = CACHE.lock().ok().and_then(|m| m.get(&key).cloned()) {
        return Some(f);
    }
    let make = |numeric: Numeric| {
        let mut options = RelativeTimeFormatterOptions::default().with_numeric(numeric);
        if !group {
            options = options.with_grouping_strategy(GroupingStrategy::Never);
        }
        new_formatter(locale, field, width, options)
    };
    let f = Arc::new(FieldFormatters {
        auto: make(Numeric::Auto)?,
        always: make(Numeric::Always)?,
    });
    if let Ok(mut m) = CACHE.lock() {
        if m.len() >= 256 {
            m.clear();
        }
        m.insert(key, f.clone());
    }
    Some(f)
}

fn new_formatter(
    locale: &icu_locale::Locale,
    field: Field,
    width: FieldWidth,
    options: RelativeTimeFormatterOptions,
) -> Option<RelativeTimeFormatter> {
    type R = RelativeTimeFormatter;
    let prefs = locale.into();
    let f = match (width, field) {
        (FieldWidth::Wide, Field::Year) => R::try_new_long_year(prefs, options),
        (FieldWidth::Wide, Field::Month) => R::try_new_long_month(prefs, options),
        (FieldWidth::Wide, Field::Week) => R::try_new_long_week(prefs, options),
        (FieldWidth::Wide, Field::Day) => R::try_new_long_day(prefs, options),
        (FieldWidth::Wide, Field::Hour) => R::try_new_long_hour(prefs, options),
        (FieldWidth::Wide, Field::Minute) => R::try_new_long_minute(prefs, options),
        (FieldWidth::Wide, _) => R::try_new_long_second(prefs, options),
        (FieldWidth::Short, Field::Year) => R::try_new_short_year(prefs, options),
        (FieldWidth::Short, Field::Month) => R::try_new_short_month(prefs, options),
        (FieldWidth::Short, Field::Week) => R::try_new_short_week(prefs, options),
        (FieldWidth::Short, Field::Day) => R::try_new_short_day(prefs, options),
        (FieldWidth::Short, Field::Hour) => R::try_new_short_hour(prefs, options),
        (FieldWidth::Short, Field::Minute) => R::try_new_short_minute(prefs, options),
        (FieldWidth::Short, _) => R::try_new_short_second(prefs, options),
        (FieldWidth::Narrow, Field::Year) => R::try_new_narrow_year(prefs, options),
        (FieldWidth::Narrow, Field::Month) => R::try_new_narrow_month(prefs, options),
        (FieldWidth::Narrow, Field::Week) => R::try_new_narrow_week(prefs, options),
        (FieldWidth::Narrow, Field::Day) => R::try_new_narrow_day(prefs, options),
        (FieldWidth::Narrow, Field::Hour) => R::try_new_narrow_hour(prefs, options),
        (FieldWidth::Narrow, Field::Minute) => R::try_new_narrow_minute(prefs, options),
        (FieldWidth::Narrow, _) => R::try_new_narrow_second(prefs, options),
    };
    f.ok()
}

// ---------------------------------------------------------------------------------------
// The calendar difference (UTC), after cldr-engine's Temporal-style `difference`.

const DAY_MS: f64 = 86_400_000.0;
const HOUR_MS: f64 = 3_600_000.0;
const MINUTE_MS: f64 = 60_000.0;
const SECOND_MS: f64 = 1000.0;
const DEFAULT_FLAGS: u8 = !(1 << 2);

/// A period of time, field by field (fractions allowed).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Period {
    year: f64,
    month: f64,
    week: f64,
    day: f64,
    hour: f64,
    minute: f64,
    second: f64,
    millis: f64,
}

impl Period {
    fn get(&self, f: Field) -> f64 {
        match f {
            Field::Year => self.year,
            Field::Month => self.month,
            Field::Week => self.week,
            Field::Day => self.day,
            Field::Hour => self.hour,
            Field::Minute => self.minute,
            Field::Second => self.second,
            Field::Millis => self.millis,
        }
    }
}

/// The field and amount for `start` → `end` (the reference's `relativeTime`).
fn relative_amount(start: i64, end: i64, field: Option<Field>, weeks: bool) -> (Field, f64) {
    let field = field.unwrap_or_else(|| {
        let p = difference(start, end, None, false, weeks);
        Field::ALL
            .into_iter()
            .find(|&f| p.get(f) != 0.0)
            .unwrap_or(Field::Millis)
    });
    let p = difference(start, end, Some(field), true, weeks);
    let v = p.get(field);
    (field, if v == 0.0 { 0.0 } else { v })
}

/// Days since 1970-01-01 of a proleptic Gregorian date.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The proleptic Gregorian date of a day count since 1970-01-01.
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Normalises a month number (1-based, may overflow) into (year, month).
fn adjust_ym(y: i64, m: i64) -> (i64, i64) {
    let m0 = m - 1;
    (y + m0.div_euclid(12), m0.rem_euclid(12) + 1)
}

/// True when (y1, m1, d1) is past `two` in the direction `sign`.
fn greater_than(sign: i64, y1: i64, m1: i64, d1: i64, two: (i64, i64, i64)) -> bool {
    if y1 != two.0 {
        sign * (y1 - two.0) > 0
    } else if m1 != two.1 {
        sign * (m1 - two.1) > 0
    } else if d1 != two.2 {
        sign * (d1 - two.2) > 0
    } else {
        false
    }
}

fn difference(e1: i64, e2: i64, field: Option<Field>, fractions: bool, weeks: bool) -> Period {
    let mut r = Period::default();
    let (flags, smallest) = match field {
        Some(f) => (f.flag(), f.flag()),
        None => (DEFAULT_FLAGS, Field::Millis.flag()),
    };
    let has = |f: Field| flags & f.flag() != 0;
    let incr: i64 = match e1.cmp(&e2) {
        std::cmp::Ordering::Equal => return r,
        std::cmp::Ordering::Less => 1,
        std::cmp::Ordering::Greater => -1,
    };
    let day1 = e1.div_euclid(86_400_000);
    let day2 = e2.div_euclid(86_400_000);
    let ms1 = e1.rem_euclid(86_400_000);
    let ms2 = e2.rem_euclid(86_400_000);
    let one = civil_from_days(day1);

    let millis;
    if day1 == day2 {
        millis = (e2 - e1) as f64;
    } else {
        // Step the end date back until the start's time of day does not pass the end.
        let mut dayshift = 0;
        let maxshift = if incr == 1 { 2 } else { 1 };
        if (ms2 - ms1).signum() == -incr {
            dayshift += 1;
        }
        let mut inter = day2;
        let mut delta = 0;
        while dayshift <= maxshift {
            inter = day2 - dayshift * incr;
            delta = e2 - (inter * 86_400_000 + ms1);
            if delta.signum() != -incr {
                break;
            }
            dayshift += 1;
        }
        millis = delta as f64;
        let two = civil_from_days(inter);

        // Years and months, approaching the end date without passing it.
        if has(Field::Year) || has(Field::Month) {
            let mut guess = two.0 - one.0;
            if guess != 0 {
                guess -= incr;
            }
            while !greater_than(incr, one.0 + guess, one.1, one.2, two) {
                r.year = guess as f64;
                guess += incr;
            }
            let mut guess_months = incr;
            let mut seek = adjust_ym(one.0 + r.year as i64, one.1 + guess_months);
            while !greater_than(incr, seek.0, seek.1, one.2, two) {
                r.month = guess_months as f64;
                guess_months += incr;
                seek = adjust_ym(seek.0, seek.1 + incr);
            }
            if !has(Field::Year) {
                r.month += r.year * 12.0;
                r.year = 0.0;
            } else if !has(Field::Month) {
                let year_smallest = smallest == Field::Year.flag();
                if !(fractions && year_smallest) {
                    r.month = 0.0;
                }
            }
        }
        let seek = adjust_ym(one.0 + r.year as i64, one.1 + r.month as i64);
        let clamped_day = one.2.min(days_in_month(seek.0, seek.1));
        let mut day =
            days_from_civil(two.0, two.1, two.2) - days_from_civil(seek.0, seek.1, clamped_day);
        let mut week = 0;
        if (weeks && flags == DEFAULT_FLAGS) || has(Field::Week) {
            week = day / 7;
            day %= 7;
        }
        r.day = day as f64;
        r.week = week as f64;
    }
    r.millis = millis;
    if !has(Field::Day) {
        r.millis += r.day * DAY_MS;
        r.day = 0.0;
    }
    if fractions {
        if smallest <= Field::Day.flag() {
            let days = r.day + r.millis / DAY_MS;
            r.millis = 0.0;
            if smallest == Field::Year.flag() {
                r.year += r.month / 12.0 + (r.week * 7.0 + days) / 365.25;
                r.month = 0.0;
                r.week = 0.0;
                r.day = 0.0;
            } else if smallest == Field::Month.flag() {
                r.month += (r.week * 7.0 + days) / 30.44;
                r.week = 0.0;
                r.day = 0.0;
            } else if smallest == Field::Week.flag() {
                r.week += days / 7.0;
                r.day = 0.0;
            } else {
                r.day = days;
            }
        } else {
            if smallest == Field::Hour.flag() {
                r.hour += (r.minute * MINUTE_MS + r.second * SECOND_MS + r.millis) / HOUR_MS;
                r.minute = 0.0;
                r.second = 0.0;
            }
            if smallest == Field::Minute.flag() {
                r.minute = (r.second * MINUTE_MS + r.millis) / MINUTE_MS;
                r.second = 0.0;
            }
            if smallest == Field::Second.flag() {
                r.second = r.millis / SECOND_MS;
            }
            if smallest != Field::Millis.flag() {
                r.millis = 0.0;
            }
        }
        return r;
    }
    // Whole time fields from the milliseconds (a UTC day is always 24 hours, so the
    // reference's day-length rounding never applies).
    if has(Field::Hour) {
        r.hour = (r.millis / HOUR_MS).trunc();
        r.millis -= r.hour * HOUR_MS;
    }
    if has(Field::Minute) {
        r.minute = (r.millis / MINUTE_MS).trunc();
        r.millis -= r.minute * MINUTE_MS;
    }
    if has(Field::Second) {
        r.second = (r.millis / SECOND_MS).trunc();
        r.millis -= r.second * SECOND_MS;
    }
    if !has(Field::Millis) {
        r.millis = 0.0;
    }
    r
}
