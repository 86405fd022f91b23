//! The legacy `date` formatter: strftime-style patterns in the website's time zone.

mod strftime;

use super::Registry;
use crate::exec::Ctx;
use crate::syntax::path::VarPath;
use crate::syntax::tag::Args;
use crate::value::{Val, View};

/// The time zone when the data names none.
pub const DEFAULT_TIME_ZONE: &str = "America/New_York";

pub fn register(r: &mut Registry) {
    r.add_formatter("date", date);
}

/// The website's time zone (`website.timeZone`), or the default.
pub fn time_zone(ctx: &Ctx<'_>) -> String {
    let zone = ctx.resolve(&VarPath::from_dotted("website.timeZone"));
    match zone.view() {
        View::Missing => DEFAULT_TIME_ZONE.to_string(),
        v => v.to_str().into_owned(),
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
    let pattern = args.iter().collect::<Vec<_>>().join(" ");
    let mut out = String::new();
    strftime::format_date(instant, &zone, &pattern, &mut out);
    vars[0] = Val::Text(out);
}
