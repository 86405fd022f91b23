//! The legacy `date` formatter: strftime-style patterns in the website's time zone.

mod strftime;

use super::Registry;
use crate::exec::Ctx;
use crate::syntax::path::VarPath;
use crate::syntax::tag::Args;
use std::sync::LazyLock;

use crate::value::{Node, Val};

/// The time zone when the data names none.
pub const DEFAULT_TIME_ZONE: &str = "America/New_York";

pub fn register(r: &mut Registry) {
    r.add_emitting_formatter("date", date, date_emit);
}

/// The website's time zone (`website.timeZone`, read as text), or the default when the
/// data has none.
pub fn time_zone<'a>(ctx: &Ctx<'a>) -> Val<'a> {
    static PATH: LazyLock<VarPath> = LazyLock::new(|| VarPath::from_dotted("website.timeZone"));
    match ctx.resolve(&*PATH) {
        Val::Missing => Val::Own(Node::String(DEFAULT_TIME_ZONE.into())),
        v => v,
    }
}

/// `date PATTERN...`: the value (epoch milliseconds) formatted with the pattern (the
/// arguments joined by spaces). With no pattern it prints nothing.
fn date<'a>(ctx: &mut Ctx<'a>, args: &'a Args, vars: &mut [Val<'a>]) {
    if args.is_empty() {
        vars[0] = Val::text("");
        return;
    }
    let instant = vars[0].view().to_number();
    let zone = time_zone(ctx);
    let mut out = String::new();
    if strftime::format_date(instant, &zone.view().to_str(), args.spaced(), &mut out) {
        vars[0] = Val::Text(out);
    } else {
        ctx.fail("invalid date");
    }
}

/// [`date`] as a tag's last formatter: formats straight into the output. Growing a
/// `String` of its own from empty, a few bytes at a time, made dates most of what a blog
/// page's execution allocated.
fn date_emit<'a>(ctx: &mut Ctx<'a>, args: &'a Args, v: Val<'a>) {
    if args.is_empty() {
        return;
    }
    let instant = v.view().to_number();
    let zone = time_zone(ctx);
    let start = ctx.out.len();
    if !strftime::format_date(instant, &zone.view().to_str(), args.spaced(), &mut ctx.out) {
        // Nothing of a failed date is printed, as when it is formatted on its own.
        ctx.out.truncate(start);
        ctx.fail("invalid date");
    }
}
