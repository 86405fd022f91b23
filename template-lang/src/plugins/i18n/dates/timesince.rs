//! `timesince`: English "about 3 weeks ago" phrases in a `<span class="timesince">`.

use super::datetime::clamp_epoch;
use crate::exec::Ctx;
use crate::plugins::Registry;
use crate::syntax::tag::Args;
use crate::value::Val;
use crate::value::number::push_number;

pub fn register(r: &mut Registry) {
    r.add_formatter("timesince", timesince);
}

/// `timesince`: the time from the value (epoch milliseconds) to now as an English phrase,
/// wrapped in `<span class="timesince" data-date="VALUE">`. Without locale data or for a
/// non-number it prints `Invalid date.`, as the reference does.
fn timesince<'a>(ctx: &mut Ctx<'a>, _args: &'a Args, vars: &mut [Val<'a>]) {
    let n = vars[0].view().to_number();
    if ctx.env.locale.is_none() || !n.is_finite() {
        vars[0] = Val::text("Invalid date.");
        return;
    }
    let now = ctx.now_ms();
    let mut out = String::with_capacity(64);
    out.push_str("<span class=\"timesince\" data-date=\"");
    push_number(n, &mut out);
    out.push_str("\">");
    humanize(clamp_epoch(now) - clamp_epoch(n), &mut out);
    out.push_str("</span>");
    vars[0] = Val::Text(out);
}

/// JavaScript's `x | 0` (ToInt32): truncation, then wrapping modulo 2^32.
fn to_int32(x: f64) -> i64 {
    if !x.is_finite() {
        return 0;
    }
    let t = x.trunc() % 4_294_967_296.0;
    let t = if t < 0.0 { t + 4_294_967_296.0 } else { t };
    let t = t as i64;
    if t >= 2_147_483_648 {
        t - 4_294_967_296
    } else {
        t
    }
}

/// The reference's `humanizeDate(delta, false)`: the largest whole unit among years (365
/// days), months (30 days), weeks, days, hours and minutes, else "less than a minute ago"
/// (which also covers instants in the future).
pub(crate) fn humanize(delta_ms: f64, out: &mut String) {
    let mut delta = delta_ms / 1000.0;
    let days = to_int32(delta / 86400.0);
    let years = to_int32(days as f64 / 365.0);
    if years > 0 {
        return plural(years, "year", out);
    }
    let months = to_int32(days as f64 / 30.0);
    if months > 0 {
        return plural(months, "month", out);
    }
    let weeks = to_int32(days as f64 / 7.0);
    if weeks > 0 {
        return plural(weeks, "week", out);
    }
    if days > 0 {
        return plural(days, "day", out);
    }
    delta -= (days * 86400) as f64;
    let hours = to_int32(delta / 3600.0);
    if hours > 0 {
        return plural(hours, "hour", out);
    }
    let mins = to_int32(delta / 60.0);
    if mins > 0 {
        return plural(mins, "minute", out);
    }
    out.push_str("less than a minute ago");
}

/// "about a year ago", "about an hour ago", "about 3 weeks ago".
fn plural(value: i64, unit: &str, out: &mut String) {
    out.push_str("about ");
    if value == 1 {
        out.push_str(if unit == "hour" { "an " } else { "a " });
        out.push_str(unit);
    } else {
        out.push_str(&value.to_string());
        out.push(' ');
        out.push_str(unit);
        out.push('s');
    }
    out.push_str(" ago");
}
