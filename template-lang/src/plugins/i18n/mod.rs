//! Locale-aware formatters. The message language (`message`, `plural`) lives in
//! [`message`]; the CLDR number and date formatters plug into it as nested formatters.

pub mod dates;
pub mod message;

use super::Registry;
use crate::exec::Ctx;
use crate::syntax::path::VarPath;
use crate::syntax::tag::Args;
use crate::value::{Val, View};
use message::{MessageFormatter, NoNested};

/// Per-execution locale state, built on first use.
pub struct I18nState {
    messages: MessageFormatter,
}

pub fn register(r: &mut Registry) {
    dates::register(r);
    r.add_formatter("message", message);
    r.add_formatter("plural", message);
}

/// `message ARGS...` / `plural ARGS...`: formats the value as a message with positional
/// (`a.b`) and keyword (`name:a.b` or `name=a.b`) arguments, resolved in the enclosing
/// scope.
fn message<'a>(ctx: &mut Ctx<'a>, args: &'a Args, vars: &mut [Val<'a>]) {
    let Some(locale) = ctx.env.locale.as_ref() else {
        vars[0] = Val::text("");
        return;
    };
    let depth = ctx.parent_depth();
    let mut positional: Vec<Val<'a>> = Vec::with_capacity(args.len());
    let mut keyword: Vec<(&'a str, Val<'a>)> = Vec::new();
    for (arg, path) in args.iter().zip(args.paths.iter()) {
        match arg.find([':', '=']) {
            None => positional.push(ctx.resolve_from(path, depth)),
            Some(i) => {
                let v = ctx.resolve_from(&VarPath::from_dotted(&arg[i + 1..]), depth);
                keyword.push((&arg[..i], v.clone()));
                positional.push(v);
            }
        }
    }
    let state = ctx.i18n.get_or_insert_with(|| {
        Box::new(I18nState {
            messages: MessageFormatter::new(locale),
        })
    });
    let text = vars[0].view().to_str().into_owned();
    let pos_views: Vec<View<'_>> = positional.iter().map(Val::view).collect();
    let kw_views: Vec<(&str, View<'_>)> = keyword.iter().map(|(k, v)| (*k, v.view())).collect();
    let mut out = String::new();
    // The CLDR number and date formatters are not wired in yet, so a nested `{0 currency}`
    // prints nothing.
    state
        .messages
        .format(&text, &pos_views, &kw_views, &NoNested, &mut out);
    vars[0] = Val::Text(out);
}
