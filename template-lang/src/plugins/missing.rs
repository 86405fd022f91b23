//! Names the reference engines accept but no longer implement: retired formatters that
//! must parse and print nothing, and a predicate that reports it is not implemented.

use super::Registry;
use crate::error::msg;

/// Retired formatters: templates still use them, so they parse; they leave the value as
/// it is (so `{missing|money-format}` prints nothing, as the corpus expects).
const RETIRED: &[&str] = &[
    "datetimefield",
    "i18n-money-format",
    "money-format",
    "money-string",
    "moneyFormat",
    "unit",
];

pub fn register(r: &mut Registry) {
    for name in RETIRED {
        // The reference's implementation does nothing: the value passes through as it is.
        r.add_formatter(name, |_, _, _| {});
    }
    r.add_predicate("units-metric?", |ctx, _| {
        ctx.error(msg::not_implemented("units-metric?"), None);
        false
    });
}
