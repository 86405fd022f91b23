//! The message language of the `message` and `plural` formatters: ICU-style messages as
//! cldr-engine's `MessageFormatter` reads them (`{0 plural one{# item} other{# items}}`,
//! `{gender select ...}`, `{0 selectordinal ...}`, nested `{0 decimal ...}` formatters).
//!
//! [`MessageFormatter`] holds the locale's plural rules and a small cache of parsed
//! messages; [`NestedFormat`] supplies the formatters (currency, decimal, datetime...) that
//! messages may call but the language itself does not define. The syntax is described in
//! [`syntax`]; argument conversion in [`eval`].
//!
//! Behaviour follows the reference (cldr-engine 1.14 driven by template-engine 2.10.10)
//! down to its quirks, and is pinned by tables of its outputs (`tests_data.rs`). Known
//! differences, all on inputs no real message has:
//! - tags nested more than 48 deep print nothing (the reference
//!   recurses until its stack runs out);
//! - plural operands keep 18 integer and 18 fraction digits (ICU) where the reference
//!   keeps about 13 and reduces larger values differently, so categories can differ for
//!   numbers with more digits than that in languages whose rules look at them;
//! - keyword names that are JavaScript object builtins (`{toString}`, `{constructor}`)
//!   find nothing here; the reference finds functions, which print as nothing too but
//!   break its nested formatters.

mod decimal;
pub mod eval;
pub mod syntax;

#[cfg(test)]
mod tests;

use std::sync::{Arc, Mutex};

use icu_plurals::PluralRules;
use rustc_hash::FxHashMap;

use crate::value::View;

pub use syntax::NESTED_FORMATTERS;

/// Formats nested `{arg name options...}` calls (currency, decimal, datetime...) that the
/// message language itself does not define. `name` is one of [`NESTED_FORMATTERS`].
///
/// `args` has one entry per `;`-separated argument of the tag: `None` when the argument
/// does not exist at all (a position past the end, an unknown keyword), which the
/// reference treats differently from a value that resolved to missing (`Some(View::Missing)`):
/// e.g. its `decimal` prints nothing for the former and `0` for the latter.
/// Returns false for names it does not know (the tag then prints nothing).
pub trait NestedFormat {
    fn format(
        &self,
        name: &str,
        args: &[Option<View<'_>>],
        options: &[&str],
        out: &mut String,
    ) -> bool;
}

/// A [`NestedFormat`] that knows no formatter: nested tags print nothing.
pub struct NoNested;

impl NestedFormat for NoNested {
    fn format(&self, _: &str, _: &[Option<View<'_>>], _: &[&str], _: &mut String) -> bool {
        false
    }
}

/// Parsed messages kept per formatter; the cache is emptied when it reaches this size.
const CACHE_ENTRIES: usize = 256;
/// Messages longer than this are parsed on every call rather than cached.
const CACHE_MAX_LEN: usize = 8 * 1024;

/// Locale-bound state: cardinal and ordinal plural rules, and a cache of parsed messages.
/// Create once per locale and share (it is `Send + Sync`).
pub struct MessageFormatter {
    cardinal: Option<PluralRules>,
    ordinal: Option<PluralRules>,
    cache: Mutex<FxHashMap<Box<str>, Arc<syntax::Code>>>,
}

impl MessageFormatter {
    /// Plural rules come from ICU's compiled CLDR data with locale fallback (unknown
    /// languages get the root rules, where everything is `other`), except where that data
    /// is newer than the reference's or falls back differently (see `rules_locale`).
    pub fn new(locale: &icu_locale::Locale) -> MessageFormatter {
        let cardinal = rules_locale(locale, false);
        let cardinal = PluralRules::try_new_cardinal((&cardinal).into())
            .or_else(|_| PluralRules::try_new_cardinal(Default::default()))
            .ok();
        let ordinal = rules_locale(locale, true);
        let ordinal = PluralRules::try_new_ordinal((&ordinal).into())
            .or_else(|_| PluralRules::try_new_ordinal(Default::default()))
            .ok();
        MessageFormatter {
            cardinal,
            ordinal,
            cache: Mutex::new(FxHashMap::default()),
        }
    }

    /// Formats `message` with positional and keyword arguments, appending to `out`.
    ///
    /// `{0}` finds a keyword argument named `0` first and then `positional[0]`; `{name}`
    /// only keyword arguments (the last of repeated names wins). The template engine's
    /// `message`/`plural` formatters also append every `key:value` argument to the
    /// positional list, in order; callers must do the same to match it.
    pub fn format(
        &self,
        message: &str,
        positional: &[View<'_>],
        keyword: &[(&str, View<'_>)],
        nested: &dyn NestedFormat,
        out: &mut String,
    ) {
        let code = self.parsed(message);
        eval::Eval {
            positional,
            keyword,
            nested,
            cardinal: self.cardinal.as_ref(),
            ordinal: self.ordinal.as_ref(),
        }
        .run(&code, out);
    }

    fn parsed(&self, message: &str) -> Arc<syntax::Code> {
        if message.len() > CACHE_MAX_LEN {
            return Arc::new(syntax::parse(message));
        }
        // A poisoned lock only means another thread panicked mid-insert; the map is
        // still a valid cache.
        if let Some(code) = self
            .cache
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(message)
        {
            return code.clone();
        }
        let code = Arc::new(syntax::parse(message));
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        if cache.len() >= CACHE_ENTRIES {
            cache.clear();
        }
        cache.insert(message.into(), code.clone());
        code
    }
}

/// The locale whose ICU plural rules match the reference's for `locale`.
///
/// The reference picks rules by language, or by language and region where CLDR has
/// regional rules (only `pt-PT`), ignoring scripts and everything else; ICU's fallback
/// would instead drop e.g. `sr-Latn` to the root rules.
///
/// ICU4X 2.4 also carries newer CLDR plural rules than the reference (@phensley/plurals
/// 1.14) for a few languages. A comparison over every language the reference ships, with
/// integers 0-1100, millions and one- and two-digit decimals up to 30, found these, all
/// of which the older rules of another locale reproduce exactly:
/// - `gl` cardinals have no `many` (for millions) in the reference: English's rules;
/// - `vi` cardinals are always `other` in the reference: root rules;
/// - `af`, `bg` and `es` ordinals are always `other` in the reference: root rules.
fn rules_locale(locale: &icu_locale::Locale, ordinal: bool) -> icu_locale::Locale {
    let language = locale.id.language;
    match (language.as_str(), ordinal) {
        ("gl", false) => return icu_locale::locale!("en"),
        ("vi", false) | ("af" | "bg" | "es", true) => return icu_locale::Locale::UNKNOWN,
        _ => {}
    }
    let region = locale
        .id
        .region
        .filter(|r| language.as_str() == "pt" && r.as_str() == "PT");
    icu_locale::Locale::from(icu_locale::LanguageIdentifier {
        language,
        script: None,
        region,
        variants: Default::default(),
    })
}
