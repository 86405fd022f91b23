//! Locale-aware formatters. The message language (`message`, `plural`) lives in
//! [`message`]; the CLDR number and date formatters plug into it as nested formatters.

pub(crate) mod currencies;
pub mod dates;
pub mod message;
pub mod numbers;
pub mod options;

use std::sync::{Arc, LazyLock, Mutex};

use rustc_hash::FxHashMap;

use super::Registry;
use crate::exec::Ctx;
use crate::syntax::tag::Args;
use crate::value::{Val, View};
use message::{MessageFormatter, NestedFormat};

/// Per-execution locale state, built on first use.
pub struct I18nState {
    messages: Arc<MessageFormatter>,
}

/// The message formatter of `locale`, shared by every execution: building one loads plural
/// rules, and its cache of parsed messages only pays off across executions (a page formats
/// the same few messages for every product).
fn shared_formatter(locale: &icu_locale::Locale) -> Arc<MessageFormatter> {
    /// Locales come from sites and the CLI; past this many the map starts over.
    const LOCALES_MAX: usize = 64;
    static SHARED: LazyLock<Mutex<FxHashMap<icu_locale::Locale, Arc<MessageFormatter>>>> =
        LazyLock::new(Default::default);
    // A poisoned lock only means another thread panicked mid-insert; the map is still valid.
    let mut shared = SHARED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(f) = shared.get(locale) {
        return f.clone();
    }
    if shared.len() >= LOCALES_MAX {
        shared.clear();
    }
    let f = Arc::new(MessageFormatter::new(locale));
    shared.insert(locale.clone(), f.clone());
    f
}

pub fn register(r: &mut Registry) {
    dates::register(r);
    r.add_formatter("message", message);
    r.add_formatter("plural", message);
    numbers::register(r);
}

/// The CLDR formatters a message can nest (`{0 currency}`, `{0 decimal maxfrac:2}`).
struct Nested<'l> {
    locale: &'l icu_locale::Locale,
    /// The website's time zone, for nested dates.
    zone: &'l str,
}

impl NestedFormat for Nested<'_> {
    fn format(
        &self,
        name: &str,
        args: &[Option<View<'_>>],
        options: &[&str],
        out: &mut String,
    ) -> bool {
        match name {
            "currency" | "money" => numbers::nested_currency(args, options, self.locale, out),
            "decimal" | "number" => numbers::nested_decimal(args, options, self.locale, out),
            "datetime" => dates::nested_datetime(args, options, self.zone, self.locale, out),
            "datetime-interval" => {
                dates::nested_interval(args, options, self.zone, self.locale, out)
            }
            _ => return false,
        }
        true
    }
}

/// `message ARGS...` / `plural ARGS...`: formats the value as a message with positional
/// (`a.b`) and keyword (`name:a.b` or `name=a.b`) arguments, resolved in the enclosing
/// scope.
fn message<'a>(ctx: &mut Ctx<'a>, args: &'a Args, vars: &mut [Val<'a>]) {
    if ctx.env.locale.is_none() {
        vars[0] = Val::text("");
        return;
    }
    let depth = ctx.parent_depth();
    let mut positional: Vec<Val<'a>> = Vec::with_capacity(args.len());
    let mut keyword: Vec<(&'a str, Val<'a>)> = Vec::new();
    for ((arg, path), kw) in args
        .iter()
        .zip(args.paths().iter())
        .zip(args.keywords().iter())
    {
        match kw {
            None => positional.push(ctx.resolve_from(path, depth)),
            Some((i, value)) => {
                let v = ctx.resolve_from(value, depth);
                keyword.push((&arg[..*i], v.clone()));
                positional.push(v);
            }
        }
    }
    // Borrowed where they are strings already: most messages are short patterns such as
    // "{price}", where copies of the zone and the pattern cost more than the formatting.
    let zone_value = super::date::time_zone(ctx);
    let zone = zone_value.view().to_str();
    let pos_views: Vec<View<'_>> = positional.iter().map(Val::view).collect();
    let kw_views: Vec<(&str, View<'_>)> = keyword.iter().map(|(k, v)| (*k, v.view())).collect();
    let mut out = String::new();
    let text = vars[0].view().to_str();
    push_message(ctx, &text, &pos_views, &kw_views, &zone, &mut out);
    vars[0] = Val::Text(out);
}

/// Appends `text` formatted as a message with these arguments, as `{text|message ...}`
/// prints it; nested dates are in time zone `zone`. Without a locale, nothing.
pub(crate) fn push_message(
    ctx: &mut Ctx<'_>,
    text: &str,
    positional: &[View<'_>],
    keyword: &[(&str, View<'_>)],
    zone: &str,
    out: &mut String,
) {
    let env = ctx.env;
    let Some(locale) = env.locale.as_ref() else {
        return;
    };
    let state = ctx.i18n.get_or_insert_with(|| {
        Box::new(I18nState {
            messages: shared_formatter(locale),
        })
    });
    let nested = Nested { locale, zone };
    state
        .messages
        .format(text, positional, keyword, &nested, out);
}
