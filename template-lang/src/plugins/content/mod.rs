//! The content family: formatters and predicates for content items, images, galleries,
//! events and collections, with the platform enumerations they test against.
//!
//! Behaviour follows the reference engine (`@squarespace/template-engine` 2.10.10) to
//! the character, quirks included; the doc comment of each function says what it does,
//! and the tests hold expectations produced by running the reference.

pub(crate) mod calendar;
pub mod enums;
pub(crate) mod formatters;
pub(crate) mod image;
mod predicates;
#[cfg(test)]
pub(crate) mod tests;
#[cfg(test)]
#[rustfmt::skip]
mod tests_data;

pub use formatters::{IMAGE_WIDTHS, INVALID_SOURCE};

use std::sync::Arc;

use crate::compile::Template;
use crate::exec::Ctx;
use crate::exec::context::PartialTarget;
use crate::plugins::util::{PathKey, step};
use crate::value::{Key, Val};

pub fn register(r: &mut super::Registry) {
    formatters::register(r);
    predicates::register(r);
}

/// The reference's `node.get(key)` for a fixed key: an object's property; missing for
/// anything else.
pub(crate) fn get<'a>(v: &Val<'a>, key: Key<'_>) -> Val<'a> {
    v.child_hashed(key.name, key.hash, None)
}

/// The reference's `node.get(i)` / `node.path([i])` for a number: an array element, or an
/// object's property named by the number.
pub(crate) fn get_index<'a>(v: &Val<'a>, i: f64) -> Val<'a> {
    step(v, &PathKey::Num(i))
}

/// Compiles a built-in partial template shipped as a file of this crate. The file's
/// final line break, which editors add, is not part of the template. A template that
/// does not compile renders nothing (the tests make sure every one compiles).
pub(crate) fn builtin(source: &'static str) -> Arc<Template> {
    let source = source.strip_suffix('\n').unwrap_or(source);
    Arc::new(Template::parse_strict(source).unwrap_or_else(|_| Template::empty()))
}

/// Renders a built-in template against `node` in a frame of its own (`private` stops
/// variable lookups there) and returns its text, as the reference's formatters that
/// render markup do.
pub(crate) fn run_builtin<'a>(
    ctx: &mut Ctx<'a>,
    name: &'static str,
    template: &'static Arc<Template>,
    node: Val<'a>,
    private: bool,
) -> String {
    ctx.render_partial(name, PartialTarget::Template(template), node, private, None)
}

/// Why a date the reference's calendar cannot represent (non-finite, or outside
/// 4713 BC ..= AD 8652) fails.
pub(crate) const DATE_OUT_OF_RANGE: &str =
    "date outside the supported range 4713-01-01 BC to 8652-12-31";
