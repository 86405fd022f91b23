//! The grammar of one tag: the text between `{` and `}`.
//!
//! Anything that does not parse is not an error: the reference engines print such a tag as
//! literal text (`{a b}`, `{ a }`, `{.foo}`). So every parser here answers "this tag, or
//! `None`", mirroring the reference's matcher step for step, including where it is lenient
//! (trailing words after `.ctx` bindings) and where it is strict (no space before `}` in
//! `{.section a}`).

use std::sync::{Arc, OnceLock};

use nom::IResult;
use nom::Parser;
use nom::bytes::complete::{tag, take_while1};
use nom::character::complete::char;
use nom::combinator::recognize;
use nom::sequence::pair;

use super::path::{VarPath, var_text, word};

/// Arguments as written after a formatter or predicate: the first character is the
/// delimiter and the rest is split on it (`{x|truncate 10 ...}`, `{.equal?:a:b}`).
#[derive(Clone, Default)]
pub struct Args {
    /// The text the arguments are ranges of: a compiled template's source, shared, or a
    /// text of their own; `None` without arguments. One text for all the arguments of a
    /// call: a shared text per argument cost an atomic count each way, and its own text
    /// an allocation.
    text: Option<Arc<str>>,
    /// Each argument's range of `text`, on character boundaries.
    list: Box<[(u32, u32)]>,
    pub delim: Option<char>,
    /// What formatters and predicates read the arguments as, derived from `list` on first
    /// use: most calls of a page never need it, and building it for every tag was a sixth
    /// of a compile. Boxed: calls and tags are moved several times while compiling, and
    /// this keeps them small.
    derived: OnceLock<Box<Derived>>,
}

#[derive(Debug, Clone)]
struct Derived {
    paths: Box<[VarPath]>,
    spaced: Box<str>,
    keywords: Box<[Option<(usize, VarPath)>]>,
}

/// Arguments are equal when they are written the same way.
impl PartialEq for Args {
    fn eq(&self, other: &Args) -> bool {
        self.delim == other.delim && self.iter().eq(other.iter())
    }
}

/// The arguments as written, wherever their text is.
impl std::fmt::Debug for Args {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Args")
            .field("list", &self.iter().collect::<Vec<_>>())
            .field("delim", &self.delim)
            .finish()
    }
}

impl Args {
    fn derived(&self) -> &Derived {
        self.derived.get_or_init(|| {
            Box::new(Derived {
                paths: self.iter().map(VarPath::from_dotted).collect(),
                spaced: self.iter().collect::<Vec<_>>().join(" ").into(),
                keywords: self
                    .iter()
                    .map(|a| {
                        a.find([':', '='])
                            .map(|i| (i, VarPath::from_dotted(&a[i + 1..])))
                    })
                    .collect(),
            })
        })
    }

    /// Each argument read as a variable reference (the reference's `splitVariable`).
    pub fn paths(&self) -> &[VarPath] {
        &self.derived().paths
    }

    /// The arguments joined by single spaces (`date` and `output` use them that way).
    pub fn spaced(&self) -> &str {
        &self.derived().spaced
    }

    /// For `name:path` / `name=path` arguments (the message formatters' keywords), the
    /// split at the first `:` or `=` and the path after it.
    pub fn keywords(&self) -> &[Option<(usize, VarPath)>] {
        &self.derived().keywords
    }

    /// Arguments as written after a formatter name: the first character is the delimiter.
    pub(crate) fn split(raw: &str) -> Args {
        Args::split_in(raw, None)
    }

    /// [`Args::split`], the arguments ranges of `owner` (which `raw` lies in) if given,
    /// so that they cost no allocation for their text.
    pub(crate) fn split_in(raw: &str, owner: Option<&Arc<str>>) -> Args {
        let mut chars = raw.chars();
        let Some(delim) = chars.next() else {
            return Args::default();
        };
        let rest = chars.as_str();
        let (text, base) = match owner {
            Some(owner) => {
                let base = (rest.as_ptr() as usize).wrapping_sub(owner.as_ptr() as usize);
                assert!(
                    base <= owner.len() && rest.len() <= owner.len() - base,
                    "arguments lie in the text they are split within"
                );
                (Arc::clone(owner), base)
            }
            None => (Arc::from(rest), 0),
        };
        let range = |start: usize, end: usize| ((base + start) as u32, (base + end) as u32);
        let list = if delim.is_ascii() {
            // Counted first, so that the list is allocated once at its size. Arguments
            // are a few bytes: a plain loop over them costs less than setting up `memchr`
            // or a `char` searcher.
            let d = delim as u8;
            let bytes = rest.as_bytes();
            let mut list = Vec::with_capacity(1 + bytes.iter().filter(|&&b| b == d).count());
            let mut start = 0;
            for (i, &b) in bytes.iter().enumerate() {
                if b == d {
                    list.push(range(start, i));
                    start = i + 1;
                }
            }
            list.push(range(start, rest.len()));
            list.into_boxed_slice()
        } else {
            rest.split(delim)
                .map(|piece| {
                    let start = piece.as_ptr() as usize - rest.as_ptr() as usize;
                    range(start, start + piece.len())
                })
                .collect()
        };
        Args {
            text: Some(text),
            list,
            delim: Some(delim),
            derived: OnceLock::new(),
        }
    }

    /// The predicate / include flavour: a lone empty argument means no arguments.
    fn split_instruction(raw: &str) -> Args {
        Args::split_instruction_in(raw, None)
    }

    /// [`Args::split_instruction`] with names within `owner`, as [`Args::split_in`].
    pub(crate) fn split_instruction_in(raw: &str, owner: Option<&Arc<str>>) -> Args {
        let args = Args::split_in(raw, owner);
        if args.len() == 1 && args.get(0) == Some("") {
            return Args {
                delim: args.delim,
                ..Args::default()
            };
        }
        args
    }

    /// The `i`-th argument as a variable reference.
    pub fn path(&self, i: usize) -> Option<&VarPath> {
        self.paths().get(i)
    }

    pub fn len(&self) -> usize {
        self.list.len()
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    pub fn get(&self, i: usize) -> Option<&str> {
        let &(start, end) = self.list.get(i)?;
        Some(&self.text.as_deref()?[start as usize..end as usize])
    }

    pub fn iter(&self) -> impl Iterator<Item = &str> {
        let text = self.text.as_deref().unwrap_or_default();
        self.list
            .iter()
            .map(move |&(start, end)| &text[start as usize..end as usize])
    }

    /// Arguments from a list (used by built-in partials and tests).
    pub fn from_list(list: &[&str]) -> Args {
        let mut end = 0;
        let ranges = list
            .iter()
            .map(|arg| {
                let start = end;
                end += arg.len();
                (start as u32, end as u32)
            })
            .collect();
        Args {
            text: Some(Arc::from(list.concat())),
            list: ranges,
            delim: Some(' '),
            derived: OnceLock::new(),
        }
    }
}

/// A formatter call as written: `name` plus optional arguments.
#[derive(Debug, Clone, PartialEq)]
pub struct FormatterSyntax<'s> {
    pub name: &'s str,
    pub args: Args,
}

/// `&&` or `||` in `{.if}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    And,
    Or,
}

/// A parsed tag. References are their text (the compiler builds them into its template).
#[derive(Debug, Clone, PartialEq)]
pub enum Tag<'s> {
    Comment,
    Variable {
        vars: Vec<&'s str>,
        formatters: Vec<FormatterSyntax<'s>>,
    },
    Section(&'s str),
    Repeated(&'s str),
    /// `{.name? args}` or `{.if name? args}`.
    Predicate {
        name: &'s str,
        args: Args,
    },
    /// `{.or}` or `{.or name? args}`.
    Or(Option<(&'s str, Args)>),
    If {
        ops: Vec<Op>,
        vars: Vec<&'s str>,
    },
    Bindvar {
        name: &'s str,
        vars: Vec<&'s str>,
        formatters: Vec<FormatterSyntax<'s>>,
    },
    Ctxvar {
        name: &'s str,
        bindings: Vec<(&'s str, &'s str)>,
    },
    Eval(&'s str),
    Include {
        name: &'s str,
        args: Vec<&'s str>,
    },
    Inject {
        name: &'s str,
        path: &'s str,
    },
    Macro(&'s str),
    End,
    Eof,
    AlternatesWith,
    MetaLeft,
    MetaRight,
    Newline,
    Space,
    Tab,
}

/// Parses the contents of a tag; `None` means "print it as text".
pub fn parse_tag(content: &str) -> Option<Tag<'_>> {
    if content.starts_with('#') {
        return Some(Tag::Comment);
    }
    match content.strip_prefix('.') {
        Some(rest) => instruction(rest),
        None => variable(content),
    }
}

/// The white space the grammar allows after a keyword and around `.if` operators.
pub(crate) fn is_ws(c: char) -> bool {
    matches!(c, ' ' | '\u{0C}' | '\n' | '\r' | '\t' | '\u{0B}')
}

fn ws1(input: &str) -> IResult<&str, &str> {
    take_while1(is_ws).parse(input)
}

fn ws0(input: &str) -> &str {
    input.trim_start_matches(is_ws)
}

fn space(input: &str) -> Option<&str> {
    input.strip_prefix(' ')
}

fn predicate_name(input: &str) -> IResult<&str, &str> {
    recognize(pair(word, char('?'))).parse(input)
}

/// `@word`: the name bound by `.var`, `.ctx` and `.inject`.
fn definition(input: &str) -> IResult<&str, &str> {
    recognize(pair(char('@'), word)).parse(input)
}

/// `[./a-zA-Z0-9_-]+`: macro names and inject paths.
fn file_path(input: &str) -> IResult<&str, &str> {
    take_while1(|c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '/' | '_' | '-'))
        .parse(input)
}

/// `var ( *, *var)*`; a separator not followed by a variable fails the whole list.
fn var_list(input: &str) -> Option<(&str, Vec<&str>)> {
    let (mut rest, first) = var_text(input).ok()?;
    let mut vars = vec![first];
    loop {
        let after_sep = rest.trim_start_matches(' ');
        let Some(after_comma) = after_sep.strip_prefix(',') else {
            return Some((rest, vars));
        };
        let (r, v) = var_text(after_comma.trim_start_matches(' ')).ok()?;
        vars.push(v);
        rest = r;
    }
}

/// `|name args?(|name args?)*`, which runs to the end of the tag. `None` when absent;
/// `Some(Err)` when malformed (a pipe not followed by a formatter name, or `||`, which the
/// reference treats as minified script).
fn formatter_chain(input: &str) -> Option<Result<Vec<FormatterSyntax<'_>>, ()>> {
    let chain = input.strip_prefix('|')?;
    Some(
        chain_calls(chain)
            .map(|call| {
                let (name, raw) = call.ok_or(())?;
                Ok(FormatterSyntax {
                    name,
                    args: Args::split(raw),
                })
            })
            .collect(),
    )
}

/// The calls of a formatter chain as written after its first `|`, each as its name and its
/// arguments as written; `None` for a piece that does not start with a name (`{a|}`,
/// `{a||b}` and `{a|html|}` are not tags). Arguments never hold a pipe, so the pieces
/// between pipes are the calls.
pub fn chain_calls(chain: &str) -> impl Iterator<Item = Option<(&str, &str)>> {
    // Split by bytes: a chain is a few bytes, and `str::split` on a `char` set up a
    // searcher that cost more than the search. A pipe is ASCII, so the pieces are on
    // character boundaries.
    let mut rest = Some(chain);
    std::iter::from_fn(move || {
        let piece = rest?;
        let call = match piece.bytes().position(|b| b == b'|') {
            Some(i) => {
                rest = Some(&piece[i + 1..]);
                &piece[..i]
            }
            None => {
                rest = None;
                piece
            }
        };
        Some(word(call).ok().map(|(raw, name)| (name, raw)))
    })
}

fn variable(content: &str) -> Option<Tag<'_>> {
    let (rest, vars) = var_list(content)?;
    let formatters = match formatter_chain(rest) {
        None if rest.is_empty() => Vec::new(),
        Some(Ok(calls)) => calls,
        None | Some(Err(())) => return None,
    };
    Some(Tag::Variable { vars, formatters })
}

/// Keyword table in the reference's matching order (first match on a prefix wins).
const KEYWORDS: &[(&str, Keyword)] = &[
    ("alternates with", Keyword::AlternatesWith),
    ("ctx", Keyword::Ctx),
    ("end", Keyword::End),
    ("eof", Keyword::Eof),
    ("eval", Keyword::Eval),
    ("if", Keyword::If),
    ("include", Keyword::Include),
    ("inject", Keyword::Inject),
    ("macro", Keyword::Macro),
    ("meta-left", Keyword::MetaLeft),
    ("meta-right", Keyword::MetaRight),
    ("newline", Keyword::Newline),
    ("or", Keyword::Or),
    ("repeated section", Keyword::Repeated),
    ("section", Keyword::Section),
    ("space", Keyword::Space),
    ("tab", Keyword::Tab),
    ("var", Keyword::Var),
];

#[derive(Clone, Copy)]
enum Keyword {
    AlternatesWith,
    Ctx,
    End,
    Eof,
    Eval,
    If,
    Include,
    Inject,
    Macro,
    MetaLeft,
    MetaRight,
    Newline,
    Or,
    Repeated,
    Section,
    Space,
    Tab,
    Var,
}

fn instruction(body: &str) -> Option<Tag<'_>> {
    if let Some(t) = predicate(body) {
        return Some(t);
    }
    let (kw, rest) = KEYWORDS
        .iter()
        .find_map(|(name, kw)| body.strip_prefix(name).map(|rest| (*kw, rest)))?;
    let bare = |t: Tag<'static>| rest.is_empty().then_some(t);
    match kw {
        Keyword::AlternatesWith => bare(Tag::AlternatesWith),
        Keyword::End => bare(Tag::End),
        Keyword::Eof => bare(Tag::Eof),
        Keyword::MetaLeft => bare(Tag::MetaLeft),
        Keyword::MetaRight => bare(Tag::MetaRight),
        Keyword::Newline => bare(Tag::Newline),
        Keyword::Space => bare(Tag::Space),
        Keyword::Tab => bare(Tag::Tab),
        Keyword::Var => bindvar(rest),
        Keyword::Ctx => ctxvar(rest),
        Keyword::Eval => {
            let (code, _) = ws1(rest).ok()?;
            Some(Tag::Eval(code))
        }
        Keyword::If => if_tag(rest),
        Keyword::Include => include(rest),
        Keyword::Inject => inject(rest),
        Keyword::Macro => {
            let (r, name) = file_path(space(rest)?).ok()?;
            r.is_empty().then_some(Tag::Macro(name))
        }
        Keyword::Or => or(rest),
        Keyword::Repeated | Keyword::Section => {
            let (r, _) = ws1(rest).ok()?;
            let (r, path) = var_text(r).ok()?;
            if !r.is_empty() {
                return None;
            }
            Some(match kw {
                Keyword::Repeated => Tag::Repeated(path),
                _ => Tag::Section(path),
            })
        }
    }
}

/// `name? args`: the arguments are everything after the name.
fn predicate(input: &str) -> Option<Tag<'_>> {
    let (rest, name) = predicate_name(input).ok()?;
    Some(Tag::Predicate {
        name,
        args: Args::split_instruction(rest),
    })
}

fn or(rest: &str) -> Option<Tag<'_>> {
    if rest.is_empty() {
        return Some(Tag::Or(None));
    }
    match predicate(space(rest)?)? {
        Tag::Predicate { name, args } => Some(Tag::Or(Some((name, args)))),
        _ => None,
    }
}

fn if_tag(rest: &str) -> Option<Tag<'_>> {
    let (rest, _) = ws1(rest).ok()?;
    if let Some(t) = predicate(rest) {
        return Some(t);
    }
    let mut vars = Vec::new();
    let mut ops = Vec::new();
    let mut input = rest;
    loop {
        let Ok((r, v)) = var_text(input) else {
            if !ops.is_empty() {
                return None;
            }
            break;
        };
        vars.push(v);
        input = ws0(r);
        let op = if let Ok((r, _)) = tag::<_, _, nom::error::Error<&str>>("&&").parse(input) {
            input = r;
            Op::And
        } else if let Ok((r, _)) = tag::<_, _, nom::error::Error<&str>>("||").parse(input) {
            input = r;
            Op::Or
        } else {
            break;
        };
        ops.push(op);
        input = ws0(input);
    }
    // `{.if }` parses with no variables at all, as in the reference (it fails at run time).
    input.is_empty().then_some(Tag::If { ops, vars })
}

fn bindvar(rest: &str) -> Option<Tag<'_>> {
    let (r, name) = definition(space(rest)?).ok()?;
    let (r, vars) = var_list(space(r)?)?;
    let formatters = match formatter_chain(r) {
        None if r.is_empty() => Vec::new(),
        Some(Ok(calls)) => calls,
        None | Some(Err(())) => return None,
    };
    Some(Tag::Bindvar {
        name,
        vars,
        formatters,
    })
}

/// `{.ctx @name key=path key=path ...}`. As in the reference, a trailing word that is not
/// followed by `=` ends the list without failing the tag.
fn ctxvar(rest: &str) -> Option<Tag<'_>> {
    let (r, name) = definition(space(rest)?).ok()?;
    let mut input = space(r)?;
    let mut bindings = Vec::new();
    while let Ok((after_key, key)) = word(input) {
        let Some(after_eq) = after_key.strip_prefix('=') else {
            input = after_key;
            break;
        };
        let Ok((after_ref, path)) = var_text(after_eq) else {
            input = after_key;
            break;
        };
        bindings.push((key, path));
        input = ws0(after_ref);
    }
    (!bindings.is_empty() && input.is_empty()).then_some(Tag::Ctxvar { name, bindings })
}

fn include(rest: &str) -> Option<Tag<'_>> {
    // The space is not consumed: it is the delimiter of the arguments.
    rest.strip_prefix(' ')?;
    let args = Args::split_instruction(rest);
    let mut list = args.iter();
    let name_len = list.next()?.len();
    let name = &rest[1..1 + name_len];
    // Re-borrow the remaining arguments from the source to keep them `&'s str`.
    let mut args_out = Vec::with_capacity(args.len() - 1);
    let mut offset = 1 + name_len;
    for a in list {
        offset += 1;
        args_out.push(&rest[offset..offset + a.len()]);
        offset += a.len();
    }
    Some(Tag::Include {
        name,
        args: args_out,
    })
}

fn inject(rest: &str) -> Option<Tag<'_>> {
    let (r, name) = definition(space(rest)?).ok()?;
    let (_, path) = file_path(space(r)?).ok()?;
    // Anything after the path is an argument list the reference parses and ignores.
    Some(Tag::Inject { name, path })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Option<Tag<'_>> {
        parse_tag(s)
    }

    fn vars(t: &Tag) -> Vec<String> {
        match t {
            Tag::Variable { vars, .. } | Tag::Bindvar { vars, .. } | Tag::If { vars, .. } => {
                vars.iter().map(|v| v.to_string()).collect()
            }
            _ => panic!("no vars in {t:?}"),
        }
    }

    #[test]
    fn variables_and_formatters() {
        let t = p("a.b, c ,d|html|truncate 10 ...|date %Y %m").unwrap();
        assert_eq!(vars(&t), ["a.b", "c", "d"]);
        let Tag::Variable { formatters, .. } = t else {
            panic!()
        };
        assert_eq!(formatters.len(), 3);
        assert_eq!(formatters[1].name, "truncate");
        assert!(formatters[1].args.iter().eq(["10", "..."]));
        assert_eq!(formatters[2].args.len(), 2);
        assert!(formatters[0].args.is_empty());
        // A formatter followed by a lone delimiter gets one empty argument.
        let Tag::Variable { formatters, .. } = p("a|html ").unwrap() else {
            panic!()
        };
        assert!(formatters[0].args.iter().eq([""]));
        let Tag::Variable { formatters, .. } = p("a|fmt:x:y").unwrap() else {
            panic!()
        };
        assert_eq!(formatters[0].args.delim, Some(':'));
    }

    /// Arguments split at every delimiter, keeping empty pieces, whatever the text
    /// around them (the first character is the delimiter).
    #[test]
    fn arguments_split_at_every_delimiter() {
        let split = |raw: &str| -> Vec<String> {
            let owner: Arc<str> = Arc::from(raw);
            let args = Args::split_in(&owner, Some(&owner));
            args.iter().map(str::to_string).collect()
        };
        assert_eq!(split(" a b"), ["a", "b"]);
        assert_eq!(split(":a::b:"), ["a", "", "b", ""]);
        assert_eq!(split(" é à ü"), ["é", "à", "ü"]);
        assert_eq!(split("/"), [""]);
        assert_eq!(split("éaébé"), ["a", "b", ""]);
        assert!(split("").is_empty());
    }

    #[test]
    fn arguments_read_alike_wherever_their_text_is() {
        // Within a template's source (shared), in a text of their own, or from a list.
        let source: Arc<str> = Arc::from("{a|truncate 10 ...}");
        let within = Args::split_in(&source[11..18], Some(&source));
        let own = Args::split(" 10 ...");
        assert!(within.iter().eq(["10", "..."]));
        assert_eq!(within, own);
        assert_eq!(format!("{within:?}"), format!("{own:?}"));
        assert_eq!((within.get(1), within.get(2)), (Some("..."), None));
        // Listed arguments keep their spaces.
        let listed = Args::from_list(&["a b", "", "c"]);
        assert!(listed.iter().eq(["a b", "", "c"]));
        assert_eq!(listed.spaced(), "a b  c");
        assert!(Args::from_list(&[]).is_empty());
    }

    #[test]
    #[should_panic(expected = "arguments lie in the text they are split within")]
    fn arguments_outside_their_text_are_refused() {
        let source: Arc<str> = Arc::from(" a b");
        Args::split_in(" a b", Some(&source));
    }

    #[test]
    fn text_that_only_looks_like_a_tag() {
        for s in [
            "a b",
            " a ",
            "a,",
            "a|",
            "a||b",
            "a|html|",
            "a |html",
            "",
            "-1",
            "a.",
            ".foo",
            ".",
            ".section",
            ".section a ",
            ".sectiona",
            ".repeated  section a",
            ".end x",
            ".endx",
            ".var x a",
            ".var @x",
            ".ctx @c",
            ".include",
            ".include ",
            ".inject @x",
            ".macro",
            ".if",
            ".if a &&",
            ".if a b",
            ".if -",
            ".eval",
            ".or ",
            ".or  equal?",
            ".orx",
            ".meta-left x",
        ] {
            assert_eq!(p(s), None, "{s:?} should be text");
        }
    }

    #[test]
    fn instructions() {
        assert_eq!(p(".end"), Some(Tag::End));
        assert_eq!(p(".alternates with"), Some(Tag::AlternatesWith));
        assert_eq!(p("# any } text"), Some(Tag::Comment));
        assert!(matches!(p(".section a.b"), Some(Tag::Section("a.b"))));
        assert!(matches!(
            p(".repeated section\titems"),
            Some(Tag::Repeated(_))
        ));
        assert_eq!(p(".eval  1 + 2"), Some(Tag::Eval("1 + 2")));
        assert_eq!(p(".eval "), Some(Tag::Eval("")));
        assert_eq!(p(".macro card.html"), Some(Tag::Macro("card.html")));
        assert_eq!(
            p(".inject @x ./a/b.json extra"),
            Some(Tag::Inject {
                name: "@x",
                path: "./a/b.json"
            })
        );
        assert_eq!(
            p(".include m output"),
            Some(Tag::Include {
                name: "m",
                args: vec!["output"]
            })
        );
        assert_eq!(
            p(".include  m"),
            Some(Tag::Include {
                name: "",
                args: vec!["m"]
            })
        );
    }

    #[test]
    fn predicates_and_or() {
        assert_eq!(
            p(".equal? a \"b c\""),
            Some(Tag::Predicate {
                name: "equal?",
                args: Args::from_list(&["a", "\"b", "c\""])
            })
        );
        assert!(
            matches!(p(".plural?"), Some(Tag::Predicate { name: "plural?", args }) if args.is_empty())
        );
        assert!(matches!(
            p(".if odd? n"),
            Some(Tag::Predicate { name: "odd?", .. })
        ));
        assert_eq!(p(".or"), Some(Tag::Or(None)));
        assert!(matches!(
            p(".or equal? a 1"),
            Some(Tag::Or(Some(("equal?", _))))
        ));
    }

    #[test]
    fn if_expressions() {
        let t = p(".if a || b.c&&d ").unwrap();
        assert_eq!(vars(&t), ["a", "b.c", "d"]);
        let Tag::If { ops, .. } = t else { panic!() };
        assert_eq!(ops, [Op::Or, Op::And]);
    }

    #[test]
    fn bindings() {
        let Some(Tag::Ctxvar { name, bindings }) = p(".ctx @c a=x.y b=z") else {
            panic!()
        };
        assert_eq!(name, "@c");
        assert_eq!(bindings.len(), 2);
        // The reference accepts a dangling word after the last binding.
        assert!(matches!(p(".ctx @c a=x junk"), Some(Tag::Ctxvar { .. })));
        assert_eq!(p(".ctx @c a=x junk="), None);
        let Some(Tag::Bindvar {
            name, formatters, ..
        }) = p(".var @v a.b|json")
        else {
            panic!()
        };
        assert_eq!((name, formatters.len()), ("@v", 1));
    }
}
