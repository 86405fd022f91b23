//! The core family: formatters and predicates every template relies on.

mod formatters;
mod predicates;
mod smarty;

pub use predicates::resolve_arg;

pub fn register(r: &mut super::Registry) {
    formatters::register(r);
    predicates::register(r);
}
