//! Formatters and predicates, one module per family, registered in one table.
//!
//! A formatter transforms the values of a `{var|formatter args}` tag in place; a predicate
//! decides whether a `{.name? args}` block runs. Each family module has a `register`
//! function, so adding a formatter is one function plus one line.

pub mod commerce;
pub mod content;
pub mod core;
pub mod date;
pub mod i18n;
mod kept;
mod missing;
pub mod slide;
pub mod social;
pub mod util;

use std::sync::OnceLock;

use rustc_hash::FxHashMap;

use crate::exec::Ctx;
use crate::syntax::tag::Args;
use crate::value::Val;

/// A formatter: rewrites `vars[0]` (and may read the others) given its arguments.
pub type FormatterFn = for<'a> fn(&mut Ctx<'a>, &'a Args, &mut [Val<'a>]);

/// The same formatter writing its result straight into the output, used when it is the
/// last of a `{var|...}` chain. Must print exactly what the formatter's result would print.
pub type EmitFn = for<'a> fn(&mut Ctx<'a>, &'a Args, Val<'a>);

/// A predicate: tests the current context given its arguments.
pub type PredicateFn = for<'a> fn(&mut Ctx<'a>, &'a Args) -> bool;

/// The formatters and predicates a template can use, by name.
#[derive(Default)]
pub struct Registry {
    formatters: FxHashMap<&'static str, (FormatterFn, Option<EmitFn>)>,
    predicates: FxHashMap<&'static str, PredicateFn>,
}

impl Registry {
    /// The standard set: every family the reference engines ship.
    pub fn standard() -> &'static Registry {
        static STANDARD: OnceLock<Registry> = OnceLock::new();
        STANDARD.get_or_init(|| {
            let mut r = Registry::default();
            commerce::register(&mut r);
            core::register(&mut r);
            date::register(&mut r);
            i18n::register(&mut r);
            missing::register(&mut r);
            content::register(&mut r);
            social::register(&mut r);
            slide::register(&mut r);
            r
        })
    }

    pub fn add_formatter(&mut self, name: &'static str, f: FormatterFn) {
        self.formatters.insert(name, (f, None));
    }

    /// Adds a formatter that can also write its result straight into the output.
    pub fn add_emitting_formatter(&mut self, name: &'static str, f: FormatterFn, emit: EmitFn) {
        self.formatters.insert(name, (f, Some(emit)));
    }

    pub fn add_predicate(&mut self, name: &'static str, p: PredicateFn) {
        self.predicates.insert(name, p);
    }

    pub fn formatter(&self, name: &str) -> Option<FormatterFn> {
        self.formatters.get(name).map(|(f, _)| *f)
    }

    /// A formatter with its registered name and output-writing variant, in one lookup
    /// (what the compiler keeps for each call).
    pub fn formatter_entry(
        &self,
        name: &str,
    ) -> Option<(&'static str, FormatterFn, Option<EmitFn>)> {
        self.formatters
            .get_key_value(name)
            .map(|(k, (f, e))| (*k, *f, *e))
    }

    /// A predicate with its registered name.
    pub fn predicate_entry(&self, name: &str) -> Option<(&'static str, PredicateFn)> {
        self.predicates.get_key_value(name).map(|(k, p)| (*k, *p))
    }

    pub fn predicate(&self, name: &str) -> Option<PredicateFn> {
        self.predicates.get(name).copied()
    }

    /// Every formatter name, sorted (for tools and tests).
    pub fn formatter_names(&self) -> Vec<&'static str> {
        let mut v: Vec<_> = self.formatters.keys().copied().collect();
        v.sort_unstable();
        v
    }

    /// Every predicate name, sorted.
    pub fn predicate_names(&self) -> Vec<&'static str> {
        let mut v: Vec<_> = self.predicates.keys().copied().collect();
        v.sort_unstable();
        v
    }
}
