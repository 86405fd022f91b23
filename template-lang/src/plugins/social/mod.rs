//! The social family: comments, likes, share and follow buttons, calendar links and
//! Twitter text.
//!
//! Behaviour follows the reference engine (`@squarespace/template-engine` 2.10.10) to
//! the character; the tests hold expectations produced by running it.

mod formatters;
mod predicates;
#[cfg(test)]
mod tests;
#[cfg(test)]
#[rustfmt::skip]
mod tests_data;
mod twitter;

pub fn register(r: &mut super::Registry) {
    formatters::register(r);
    predicates::register(r);
}
