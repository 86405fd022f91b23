//! Names the reference engines accept but no longer implement: retired formatters that
//! must parse and print nothing, and a predicate that reports it is not implemented.

use super::Registry;
use crate::error::msg;

/// Retired formatters: templates still use them, so they parse, and they print nothing.
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
        // The requirement (issue and conformance README) is that they print nothing. The npm
        // engine's no-op lets the value through instead; see README's list of differences.
        r.add_formatter(name, |_, _, vars| vars[0] = crate::value::Val::Missing);
    }
    r.add_predicate("units-metric?", |ctx, _| {
        ctx.error(msg::not_implemented("units-metric?"), None);
        false
    });
}
