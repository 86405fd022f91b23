//! The core formatters: escaping, JSON, strings, numbers, lookups and partials.

use std::sync::{Arc, LazyLock};

use super::super::Registry;
use super::super::util::{self, PathKey};
use crate::error::msg;
use crate::exec::Ctx;
use crate::exec::context::PartialTarget;
use crate::syntax::path::VarPath;
use crate::syntax::tag::Args;
use crate::value::number::{is_js_whitespace, js_parse_int, js_round};
use crate::value::{Node, Val, View, json, push_js_string, utf16_len};

pub fn register(r: &mut Registry) {
    r.add_emitting_formatter("apply", apply, apply_emit);
    r.add_formatter("count", count);
    r.add_formatter("cycle", cycle);
    r.add_formatter("encode-space", encode_space);
    r.add_formatter("encode-uri", encode_uri);
    r.add_formatter("encode-uri-component", encode_uri_component);
    r.add_formatter("find-first", find_first);
    r.add_formatter("find-last", find_last);
    r.add_formatter("format", format);
    r.add_formatter("get", get);
    r.add_emitting_formatter("html", html, html_emit);
    r.add_emitting_formatter("htmlattr", htmlattr, htmlattr_emit);
    r.add_emitting_formatter("htmltag", htmlattr, htmlattr_emit);
    r.add_formatter("iter", iter);
    r.add_formatter("json", json_compact);
    r.add_formatter("json-pretty", json_pretty);
    r.add_formatter("key-by", key_by);
    r.add_formatter("line-breaks", line_breaks);
    r.add_formatter("lookup", lookup);
    r.add_formatter("mod", modulo);
    r.add_formatter("output", output);
    r.add_formatter("pluralize", pluralize);
    r.add_formatter("prop", prop);
    r.add_formatter("raw", raw);
    r.add_formatter("round", round);
    r.add_formatter("safe", safe);
    r.add_formatter("slugify", slugify);
    r.add_formatter("smartypants", smartypants);
    r.add_formatter("str", str);
    r.add_formatter("truncate", truncate);
    r.add_formatter("url-encode", url_encode);
}

fn text_of<'v>(vars: &'v [Val<'_>]) -> std::borrow::Cow<'v, str> {
    vars[0].view().to_str()
}

/// `apply NAME [private] [k=v ...]`: renders a partial or macro against the value.
fn apply<'a>(ctx: &mut Ctx<'a>, args: &'a Args, vars: &mut [Val<'a>]) {
    let node = std::mem::take(&mut vars[0]);
    vars[0] = match prepare_apply(ctx, args) {
        Some((name, target, private, call_args)) => {
            if ctx.enter_partial(name, None) {
                let text = ctx.render_partial(name, target, node, private, call_args);
                ctx.exit_partial();
                Val::Text(text)
            } else {
                Val::text("")
            }
        }
        None => Val::text(""),
    };
}

/// `apply` at the end of a chain: the partial renders straight into the output.
fn apply_emit<'a>(ctx: &mut Ctx<'a>, args: &'a Args, node: Val<'a>) {
    if let Some((name, target, private, call_args)) = prepare_apply(ctx, args)
        && ctx.enter_partial(name, None)
    {
        if ctx.env.keep_applied && !ctx.env.npm_compat && !private && call_args.is_none() {
            crate::plugins::kept::render_applied(ctx, name, target, node);
        } else {
            ctx.render_partial_here(name, target, node, private, call_args);
        }
        ctx.exit_partial();
    }
}

/// The partial to apply, whether it is private, and its `@args`; `None` (after reporting
/// a missing partial) when there is nothing to render.
fn prepare_apply<'a>(
    ctx: &mut Ctx<'a>,
    args: &'a Args,
) -> Option<(&'a str, PartialTarget<'a>, bool, Option<Node>)> {
    let name = args.get(0)?;
    let mut private = false;
    let mut call_args = None;
    if args.len() > 1 {
        let mut entries = Vec::new();
        for arg in args.iter().skip(1) {
            if arg == "private" {
                private = true;
            } else if let Some((k, v)) = arg.split_once('=') {
                entries.push((Arc::from(k), Node::from(v)));
            }
        }
        call_args = Some(Node::object(entries));
    }
    let Some(target) = ctx.partial_named(name) else {
        ctx.error(msg::partial_missing(name), None);
        return None;
    };
    Some((name, target, private, call_args))
}

fn count<'a>(_: &mut Ctx<'a>, _: &'a Args, vars: &mut [Val<'a>]) {
    let n = match vars[0].view() {
        View::Obj(o) => o.len(),
        View::Arr(a) => a.len(),
        View::Str(s) => utf16_len(s),
        _ => 0,
    };
    vars[0] = Val::num(n as f64);
}

/// `cycle a b c`: picks the argument for a 1-based counter, wrapping around.
fn cycle<'a>(_: &mut Ctx<'a>, args: &'a Args, vars: &mut [Val<'a>]) {
    let value = vars[0].view().to_number();
    let count = args.len() as f64;
    let mut index = (value - 1.0) % count;
    if index < 0.0 {
        index += count;
    }
    vars[0] = if index.fract() == 0.0 && index >= 0.0 && index < count {
        Val::text(args.get(index as usize).unwrap_or_default())
    } else {
        Val::Missing
    };
}

fn encode_space<'a>(_: &mut Ctx<'a>, _: &'a Args, vars: &mut [Val<'a>]) {
    let s = text_of(vars);
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if is_js_whitespace(c) {
            out.push_str("&nbsp;");
        } else {
            out.push(c);
        }
    }
    vars[0] = Val::Text(out);
}

fn encode_uri<'a>(_: &mut Ctx<'a>, _: &'a Args, vars: &mut [Val<'a>]) {
    vars[0] = Val::Text(util::percent_encode(&text_of(vars), util::ENCODE_URI));
}

fn encode_uri_component<'a>(_: &mut Ctx<'a>, _: &'a Args, vars: &mut [Val<'a>]) {
    vars[0] = Val::Text(util::percent_encode(
        &text_of(vars),
        util::ENCODE_URI_COMPONENT,
    ));
}

fn url_encode<'a>(_: &mut Ctx<'a>, _: &'a Args, vars: &mut [Val<'a>]) {
    vars[0] = Val::Text(util::percent_encode(&text_of(vars), util::ESCAPE));
}

fn find_first<'a>(ctx: &mut Ctx<'a>, args: &'a Args, vars: &mut [Val<'a>]) {
    find_nth(ctx, args, vars, true);
}

fn find_last<'a>(ctx: &mut Ctx<'a>, args: &'a Args, vars: &mut [Val<'a>]) {
    find_nth(ctx, args, vars, false);
}

/// `find-first [lookup] path`: the first (or last) element whose `path` is truthy, where
/// with two arguments each element's string form is first looked up in `lookup`.
fn find_nth<'a>(ctx: &mut Ctx<'a>, args: &'a Args, vars: &mut [Val<'a>], forward: bool) {
    let items = vars[0].clone();
    let len = match items.view() {
        View::Arr(a) if !a.is_empty() => a.len(),
        _ => {
            vars[0] = Val::Missing;
            return;
        }
    };
    let lookup = (args.len() == 2).then(|| ctx.resolve(&args.paths()[0]));
    let path = match args.len() {
        0 => None,
        2 => args.path(1),
        _ => args.path(0),
    };
    let order: Box<dyn Iterator<Item = usize>> = if forward {
        Box::new(0..len)
    } else {
        Box::new((0..len).rev())
    };
    for i in order {
        let element = items.element(i);
        let Some(path) = path else {
            vars[0] = element;
            return;
        };
        let candidate = match &lookup {
            Some(l) => util::step(
                l,
                &PathKey::Str(element.view().to_str().into_owned().into()),
            ),
            None => element.clone(),
        };
        if util::walk(&candidate, path).view().truthy() {
            vars[0] = element;
            return;
        }
    }
    vars[0] = Val::Missing;
}

/// `format a b ...`: fills `{0}`, `{1}` ... in the value with the named variables.
fn format<'a>(ctx: &mut Ctx<'a>, args: &'a Args, vars: &mut [Val<'a>]) {
    let depth = ctx.parent_depth();
    let values: Vec<Val<'a>> = args
        .paths()
        .iter()
        .map(|p| ctx.resolve_from(p, depth))
        .collect();
    let pattern = text_of(vars);
    let mut out = String::with_capacity(pattern.len());
    // -1: outside a placeholder; -2: inside a malformed one; n >= 0: reading an index.
    let mut index: i64 = -1;
    for c in pattern.chars() {
        if index == -2 && c == '}' {
            index = -1;
        } else if index >= 0 {
            match c {
                '0'..='9' => {
                    index = index
                        .saturating_mul(10)
                        .saturating_add(i64::from(c as u8 - b'0'))
                }
                '}' => {
                    if let Some(node) = values.get(index as usize).and_then(|v| v.to_node()) {
                        // Null and missing values insert nothing; the rest as JavaScript's `+`.
                        if !matches!(node, Node::Null) {
                            push_js_string(&node, &mut out);
                        }
                    }
                    index = -1;
                }
                _ => index = -2,
            }
        } else if c == '{' {
            index = 0;
        } else if index != -2 {
            out.push(c);
        }
    }
    vars[0] = Val::Text(out);
}

/// `get a b`: follows the values of the named variables as a path into the value.
fn get<'a>(ctx: &mut Ctx<'a>, args: &'a Args, vars: &mut [Val<'a>]) {
    let mut cur = vars[0].clone();
    for path in args.paths().iter() {
        let key = ctx.resolve(path);
        cur = match key.view() {
            View::Missing => Val::Missing,
            View::Arr(items) => items.iter().fold(cur, |v, k| {
                if v.is_missing() {
                    v
                } else {
                    util::step(&v, &PathKey::from_view(View::of(k)))
                }
            }),
            View::Num(n) => util::step(&cur, &PathKey::Num(n)),
            other => util::step(&cur, &PathKey::Str(other.to_str().into_owned().into())),
        };
        if cur.is_missing() {
            break;
        }
    }
    vars[0] = cur;
}

/// A string value with none of `bytes` needs no rewriting: the formatter can leave it as
/// it is, which saves an allocation on the hot path.
fn unchanged_string(v: &Val<'_>, bytes: &[u8]) -> bool {
    matches!(v.view(), View::Str(s) if !s.bytes().any(|b| bytes.contains(&b)))
}

fn html<'a>(_: &mut Ctx<'a>, _: &'a Args, vars: &mut [Val<'a>]) {
    if unchanged_string(&vars[0], b"&<>") {
        return;
    }
    let s = text_of(vars);
    let mut out = String::with_capacity(s.len() + 8);
    util::escape_html(&s, &mut out);
    vars[0] = Val::Text(out);
}

fn html_emit<'a>(ctx: &mut Ctx<'a>, _: &'a Args, v: Val<'a>) {
    util::escape_html(&v.view().to_str(), &mut ctx.out);
}

fn htmlattr_emit<'a>(ctx: &mut Ctx<'a>, _: &'a Args, v: Val<'a>) {
    util::escape_attr(&v.view().to_str(), &mut ctx.out);
}

fn htmlattr<'a>(_: &mut Ctx<'a>, _: &'a Args, vars: &mut [Val<'a>]) {
    if unchanged_string(&vars[0], b"&<>\"") {
        return;
    }
    let s = text_of(vars);
    let mut out = String::with_capacity(s.len() + 8);
    util::escape_attr(&s, &mut out);
    vars[0] = Val::Text(out);
}

/// `iter`: the 1-based index of the enclosing repeated section.
fn iter<'a>(ctx: &mut Ctx<'a>, _: &'a Args, vars: &mut [Val<'a>]) {
    static INDEX: LazyLock<VarPath> = LazyLock::new(|| VarPath::from_dotted("@index"));
    let index = ctx.resolve(&*INDEX);
    vars[0] = Val::text(index.view().to_str());
}

fn json_compact<'a>(_: &mut Ctx<'a>, _: &'a Args, vars: &mut [Val<'a>]) {
    to_json(vars, None);
}

fn json_pretty<'a>(_: &mut Ctx<'a>, _: &'a Args, vars: &mut [Val<'a>]) {
    to_json(vars, Some(2));
}

fn to_json(vars: &mut [Val<'_>], indent: Option<usize>) {
    if vars[0].is_missing() {
        vars[0] = Val::text("");
        return;
    }
    let mut s = String::new();
    json::stringify(vars[0].view(), indent, &mut s);
    vars[0] = Val::Text(escape_script_tags(s));
}

/// `</` becomes `<\/`, so JSON can sit inside a `<script>` element.
fn escape_script_tags(s: String) -> String {
    if s.contains("</") {
        s.replace("</", "<\\/")
    } else {
        s
    }
}

/// `key-by path`: an object of the array's elements keyed by the value at `path`.
fn key_by<'a>(_: &mut Ctx<'a>, args: &'a Args, vars: &mut [Val<'a>]) {
    let mut entries = Vec::new();
    let path = args
        .path(0)
        .filter(|_| args.get(0).is_some_and(|p| !p.is_empty()));
    if let (View::Arr(items), Some(path)) = (vars[0].view(), path) {
        for item in items {
            let at = util::walk(&Val::Ref(item), path);
            if !at.is_missing() {
                entries.push((Arc::from(util::js_string(at.view())), item.clone()));
            }
        }
    }
    vars[0] = Val::Own(Node::object(entries));
}

fn line_breaks<'a>(_: &mut Ctx<'a>, _: &'a Args, vars: &mut [Val<'a>]) {
    vars[0] = Val::Text(text_of(vars).replace('\n', "<br/>"));
}

/// `lookup name`: resolves the variable whose name is the value of `name`.
fn lookup<'a>(ctx: &mut Ctx<'a>, args: &'a Args, vars: &mut [Val<'a>]) {
    let key = args
        .path(0)
        .filter(|_| args.get(0).is_some_and(|k| !k.is_empty()));
    vars[0] = match key {
        Some(key) => {
            let name = ctx.resolve(key);
            let name = name.view().to_str().into_owned();
            ctx.resolve_transient(&VarPath::from_dotted(&name))
        }
        None => Val::text(""),
    };
}

fn modulo<'a>(_: &mut Ctx<'a>, args: &'a Args, vars: &mut [Val<'a>]) {
    let n = vars[0].view().to_number();
    let d = args.get(0).map_or(f64::NAN, js_parse_int);
    let d = if d.is_nan() || d == 0.0 || !d.is_finite() {
        2.0
    } else {
        d
    };
    vars[0] = Val::num(n % d);
}

fn output<'a>(_: &mut Ctx<'a>, args: &'a Args, vars: &mut [Val<'a>]) {
    vars[0] = Val::text(args.spaced());
}

/// `pluralize [singular] plural`: the suffix for a count (default "" / "s").
fn pluralize<'a>(_: &mut Ctx<'a>, args: &'a Args, vars: &mut [Val<'a>]) {
    let (singular, plural) = match args.len() {
        0 => ("", "s"),
        1 => ("", args.get(0).unwrap_or("s")),
        _ => (args.get(0).unwrap_or(""), args.get(1).unwrap_or("s")),
    };
    let one = vars[0].view().to_number() == 1.0;
    vars[0] = Val::text(if one { singular } else { plural });
}

/// `prop a.b c`: follows each argument as a path into the value.
fn prop<'a>(_: &mut Ctx<'a>, args: &'a Args, vars: &mut [Val<'a>]) {
    let mut cur = vars[0].clone();
    for path in args.paths().iter() {
        cur = util::walk(&cur, path);
        if cur.is_missing() {
            break;
        }
    }
    vars[0] = cur;
}

/// `raw`: JSON of the value (missing counts as null), without script-tag escaping.
fn raw<'a>(_: &mut Ctx<'a>, _: &'a Args, vars: &mut [Val<'a>]) {
    let mut s = String::new();
    match vars[0].view() {
        View::Missing => s.push_str("null"),
        v => json::stringify(v, None, &mut s),
    }
    vars[0] = Val::Text(s);
}

fn round<'a>(_: &mut Ctx<'a>, _: &'a Args, vars: &mut [Val<'a>]) {
    vars[0] = Val::num(js_round(vars[0].view().to_number()));
}

/// `safe`: strips tags from a truthy value; falsy values pass through unchanged.
fn safe<'a>(_: &mut Ctx<'a>, _: &'a Args, vars: &mut [Val<'a>]) {
    if vars[0].view().truthy() && !unchanged_string(&vars[0], b"<") {
        vars[0] = Val::Text(util::strip_complete_tags(&text_of(vars)));
    }
}

fn slugify<'a>(_: &mut Ctx<'a>, _: &'a Args, vars: &mut [Val<'a>]) {
    vars[0] = Val::Text(util::slugify(&text_of(vars)));
}

fn smartypants<'a>(_: &mut Ctx<'a>, _: &'a Args, vars: &mut [Val<'a>]) {
    if unchanged_string(&vars[0], b"'\"-") {
        return;
    }
    vars[0] = Val::Text(super::smarty::smartypants(&text_of(vars)));
}

fn str<'a>(_: &mut Ctx<'a>, _: &'a Args, vars: &mut [Val<'a>]) {
    vars[0] = match vars[0].view() {
        View::Obj(_) | View::Arr(_) => Val::text(""),
        v => Val::text(v.to_str()),
    };
}

/// `truncate [n] [ellipsis]`: at most n UTF-16 units (default 100) plus "...".
fn truncate<'a>(_: &mut Ctx<'a>, args: &'a Args, vars: &mut [Val<'a>]) {
    let limit = args.get(0).map_or(100.0, js_parse_int);
    let ellipsis = args.get(1).unwrap_or("...");
    if limit.is_finite() && limit > 0.0 {
        // A string no longer in bytes than the limit is no longer in UTF-16 units either.
        if matches!(vars[0].view(), View::Str(s) if s.len() <= limit as usize) {
            return;
        }
        vars[0] = Val::Text(util::truncate(&text_of(vars), limit as usize, ellipsis));
    }
}
