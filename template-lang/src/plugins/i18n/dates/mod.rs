//! Locale-aware dates and times: `datetime`, `datetime-interval`, `relative-time` and
//! `timesince`, plus the message formatter's nested `datetime` / `datetime-interval`.
//!
//! ICU4X (CLDR 49) formats the fields; the glue the reference's cldr-engine adds on top
//! (option grammar, date/time/wrapper requests, interval rules, context capitalisation,
//! relative-time unit choice, `timesince` phrases) is ours.

mod datetime;
mod interval;
mod pieces;
#[rustfmt::skip]
mod patterns;
mod raw;
mod relative;
mod timesince;
mod wrappers;

#[cfg(test)]
mod tests;

use crate::plugins::Registry;

pub use datetime::nested_datetime;
pub use interval::nested_interval;

pub fn register(r: &mut Registry) {
    datetime::register(r);
    interval::register(r);
    relative::register(r);
    timesince::register(r);
}
