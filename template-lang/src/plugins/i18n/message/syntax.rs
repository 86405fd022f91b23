//! Parser for the message language (cldr-engine's ICU-style MessageFormat dialect).
//!
//! A message is text with tags in braces:
//!
//! - `{0}`, `{name}`: an argument, by position or by keyword;
//! - `{0 plural [offset:N] =0{..} one{..} other{..}}` and `{0 selectordinal one{..} ..}`:
//!   choice by exact value or CLDR plural category, where `#` in a choice body stands for
//!   the number (minus the offset);
//! - `{0 select male{..} female{..} other{..}}`: choice by the argument's text;
//! - `{0 decimal maxfrac:2}`, `{0;1 datetime-interval}`: one of the nested formatters
//!   ([`NESTED_FORMATTERS`]) with arguments (`;`-separated) and options;
//! - `{-text}`: printed as `{text}`, untouched.
//!
//! An apostrophe starts quoted text running to the next apostrophe (or the end), `''` is
//! one apostrophe. Commas count as spaces inside tags. Nothing is ever an error: a tag the
//! grammar does not accept prints nothing at the top level and its inner text inside a
//! choice body, an unbalanced `{` prints the rest of the message as it is. These rules,
//! including their oddities, are the reference's (see the tests).

use nom::branch::alt;
use nom::bytes::complete::{tag, take_while1};
use nom::character::complete::{char as ch, digit1};
use nom::combinator::{opt, recognize};
use nom::{IResult, Parser as _};

use super::decimal::Dec;
use crate::value::number::{is_js_whitespace, number_to_string};

/// Formatter names a tag may use besides `plural`, `select` and `selectordinal`: those
/// the reference template engine registers. Other names make the tag invalid.
pub const NESTED_FORMATTERS: [&str; 6] = [
    "money",
    "currency",
    "datetime-interval",
    "datetime",
    "number",
    "decimal",
];

/// Tags nested deeper than this are dropped (print nothing), which bounds recursion.
pub(crate) const MAX_DEPTH: usize = 48;

/// A parsed message.
#[derive(Debug)]
pub(crate) enum Code {
    Text(Box<str>),
    /// `{key}`.
    Arg(Key),
    /// `#` inside a choice body.
    ArgSub,
    Block(Box<[Code]>),
    Plural(Box<Plural>),
    Select(Box<Select>),
    Nested(Box<Nested>),
    /// A tag that parsed but prints nothing (e.g. a plural without choices).
    Noop,
}

/// How an argument is looked up: first among the keyword arguments by `name`, then, for
/// numeric keys, among the positional ones by `index`.
#[derive(Debug)]
pub(crate) struct Key {
    pub name: Box<str>,
    pub index: Option<usize>,
}

#[derive(Debug)]
pub(crate) struct Plural {
    pub key: Key,
    /// Subtracted before choosing a category and printing `#`; `None` when zero.
    pub offset: Option<Dec>,
    pub ordinal: bool,
    pub choices: Vec<PluralChoice>,
}

#[derive(Debug)]
pub(crate) enum PluralChoice {
    /// `=N{..}`: compared with the argument before the offset is applied.
    Exact(Dec, Code),
    Category(Category, Code),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Category {
    Zero,
    One,
    Two,
    Few,
    Many,
    Other,
}

#[derive(Debug)]
pub(crate) struct Select {
    pub key: Key,
    pub choices: Vec<(Box<str>, Code)>,
}

#[derive(Debug)]
pub(crate) struct Nested {
    pub name: &'static str,
    pub args: Vec<Key>,
    pub options: Vec<Box<str>>,
}

/// Parses a message. Never fails: see the module documentation.
pub(crate) fn parse(message: &str) -> Code {
    let mut p = Parser {
        raw: message,
        depth: 0,
    };
    p.outer(0, message.len(), false)
}

type Res<'a, O> = IResult<&'a str, O>;

// ---- tokens ----------------------------------------------------------------------------

/// `[,\s]+`
fn spaces(i: &str) -> Res<'_, &str> {
    take_while1(|c: char| c == ',' || is_js_whitespace(c)).parse(i)
}

/// Characters allowed in identifiers (Unicode pattern syntax and white space excluded).
fn is_ident_char(c: char) -> bool {
    !matches!(c,
        '\u{09}'..='\u{0d}' | ' ' | '\u{85}' | '\u{200e}' | '\u{200f}' | '\u{2028}' | '\u{2029}'
        | '\u{21}'..='\u{2f}' | '\u{3a}'..='\u{40}' | '\u{5b}'..='\u{5e}' | '\u{60}'
        | '\u{7b}'..='\u{7e}' | '\u{a1}'..='\u{a7}' | '\u{a9}' | '\u{ab}' | '\u{ac}' | '\u{ae}'
        | '\u{b0}' | '\u{b1}' | '\u{b6}' | '\u{bb}' | '\u{bf}' | '\u{d7}' | '\u{f7}'
        | '\u{2010}'..='\u{2027}' | '\u{2030}'..='\u{203e}' | '\u{2041}'..='\u{2053}'
        | '\u{2055}'..='\u{205e}' | '\u{2190}'..='\u{245f}' | '\u{2500}'..='\u{2775}'
        | '\u{2794}'..='\u{2bff}' | '\u{2e00}'..='\u{2e7f}' | '\u{3001}'..='\u{3003}'
        | '\u{3008}'..='\u{3020}' | '\u{3030}' | '\u{fd3e}' | '\u{fd3f}' | '\u{fe45}' | '\u{fe46}')
}

fn identifier(i: &str) -> Res<'_, &str> {
    take_while1(is_ident_char).parse(i)
}

/// An argument reference. The reference's pattern is `0[1..9]+|\d+|identifier`, tried in
/// that order; the odd first branch (a character class of `1`, `.` and `9`) is kept.
fn argument(i: &str) -> Res<'_, &str> {
    alt((
        recognize((ch('0'), take_while1(|c| matches!(c, '1' | '.' | '9')))),
        digit1,
        identifier,
    ))
    .parse(i)
}

/// `[^\s,{}]+`
fn option(i: &str) -> Res<'_, &str> {
    take_while1(|c: char| !(c == ',' || c == '{' || c == '}' || is_js_whitespace(c))).parse(i)
}

/// A formatter name; the longest names come first so prefixes match last. The name may
/// run straight into what follows (`{0 pluralx ..}` reads `plural`), as in the reference.
fn formatter(i: &str) -> Res<'_, &'static str> {
    alt((
        tag("datetime-interval").map(|_| "datetime-interval"),
        tag("selectordinal").map(|_| "selectordinal"),
        tag("currency").map(|_| "currency"),
        tag("datetime").map(|_| "datetime"),
        tag("decimal").map(|_| "decimal"),
        tag("plural").map(|_| "plural"),
        tag("select").map(|_| "select"),
        tag("number").map(|_| "number"),
        tag("money").map(|_| "money"),
    ))
    .parse(i)
}

/// `offset:-?\d+`, giving the signed digits.
fn offset(i: &str) -> Res<'_, &str> {
    let (rest, (_, n)) = (tag("offset:"), recognize((opt(ch('-')), digit1))).parse(i)?;
    Ok((rest, n))
}

enum ChoiceLabel<'a> {
    Exact(&'a str),
    Category(Category),
}

/// `=\d+(\.\d+)?` or a plural category name.
fn plural_choice(i: &str) -> Res<'_, ChoiceLabel<'_>> {
    alt((
        recognize((ch('='), digit1, opt((ch('.'), digit1))))
            .map(|s: &str| ChoiceLabel::Exact(&s[1..])),
        tag("zero").map(|_| ChoiceLabel::Category(Category::Zero)),
        tag("one").map(|_| ChoiceLabel::Category(Category::One)),
        tag("two").map(|_| ChoiceLabel::Category(Category::Two)),
        tag("few").map(|_| ChoiceLabel::Category(Category::Few)),
        tag("many").map(|_| ChoiceLabel::Category(Category::Many)),
        tag("other").map(|_| ChoiceLabel::Category(Category::Other)),
    ))
    .parse(i)
}

/// `parseInt(s, 10)` of a string that starts with an ASCII digit (or `-` and one), the
/// way the reference turns argument and offset text into numbers.
fn leading_int(s: &str) -> f64 {
    let (neg, digits) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s),
    };
    let end = digits
        .bytes()
        .position(|b| !b.is_ascii_digit())
        .unwrap_or(digits.len());
    let n = digits[..end].parse::<f64>().unwrap_or(f64::NAN);
    if neg { -n } else { n }
}

impl Key {
    fn from_text(text: &str) -> Key {
        let starts_with_digit = text.as_bytes().first().is_some_and(u8::is_ascii_digit);
        let n = if starts_with_digit {
            leading_int(text)
        } else {
            f64::NAN
        };
        if n.is_finite() {
            // Keyword arguments are JavaScript object properties: a numeric key is looked
            // up by its printed form ("007" finds "7").
            let index = (n < 4_294_967_295.0).then_some(n as usize);
            Key {
                name: number_to_string(n).into(),
                index,
            }
        } else {
            Key {
                name: text.into(),
                index: None,
            }
        }
    }
}

// ---- structure -------------------------------------------------------------------------

struct Parser<'a> {
    raw: &'a str,
    depth: usize,
}

impl<'a> Parser<'a> {
    /// Applies a token parser at `*pos` (input ends at `end`), advancing on success.
    fn token<O>(
        &self,
        pos: &mut usize,
        end: usize,
        mut p: impl FnMut(&'a str) -> Res<'a, O>,
    ) -> Option<O> {
        let input = self.raw.get(*pos..end)?;
        let (rest, out) = p(input).ok()?;
        *pos = end - rest.len();
        Some(out)
    }

    fn byte(&self, i: usize) -> Option<u8> {
        self.raw.as_bytes().get(i).copied()
    }

    /// Text and tags in `raw[s..e]`. `in_choice` marks a choice body, where `#` is
    /// substituted and tags that do not parse print their inner text.
    fn outer(&mut self, s: usize, e: usize, in_choice: bool) -> Code {
        let raw = self.raw;
        let bytes = raw.as_bytes();
        let mut nodes: Vec<Code> = Vec::new();
        let mut buf = String::new();
        let mut i = s;
        let mut run = s;
        while i < e {
            match bytes[i] {
                b'{' => {
                    buf.push_str(&raw[run..i]);
                    if !buf.is_empty() {
                        push_text(&mut nodes, &buf, in_choice);
                        buf.clear();
                    }
                    let hidden = self.byte(i + 1) == Some(b'-');
                    match self.seek(i, e) {
                        None => {
                            push_text(&mut nodes, &raw[i..e], in_choice);
                            i = e;
                        }
                        Some(k) if hidden => {
                            nodes.push(Code::Text(format!("{{{}", &raw[i + 2..=k]).into()));
                            i = k;
                        }
                        Some(k) => {
                            match self.inner(i + 1, k) {
                                Some(code) => nodes.push(code),
                                None => {
                                    if in_choice && i + 1 != k {
                                        push_text(&mut nodes, &raw[i + 1..k], true);
                                    }
                                }
                            }
                            i = k;
                        }
                    }
                    i += 1;
                    run = i;
                }
                b'\'' => {
                    buf.push_str(&raw[run..i]);
                    if self.byte(i + 1) == Some(b'\'') {
                        buf.push('\'');
                        i += 1;
                    } else {
                        i += 1;
                        // The closing quote is searched in the whole message, as the
                        // reference does; for well-formed ranges it is always inside.
                        let k = match raw[i..].find('\'') {
                            Some(off) => i + off,
                            None => e,
                        };
                        buf.push_str(&raw[i..k.max(i)]);
                        i = k;
                    }
                    i += 1;
                    run = i;
                }
                _ => i += 1,
            }
        }
        if run < e {
            buf.push_str(&raw[run..e]);
        }
        if !buf.is_empty() {
            push_text(&mut nodes, &buf, in_choice);
        }
        match nodes.len() {
            0 => Code::Noop,
            1 => nodes.pop().unwrap_or(Code::Noop),
            _ => Code::Block(nodes.into_boxed_slice()),
        }
    }

    /// The tag interior `raw[s..e]` (without braces), or `None` if it is not a valid tag.
    fn inner(&mut self, s: usize, e: usize) -> Option<Code> {
        if self.depth >= MAX_DEPTH {
            return Some(Code::Noop);
        }
        self.depth += 1;
        let code = self.inner_tag(s, e);
        self.depth -= 1;
        code
    }

    fn inner_tag(&mut self, s: usize, e: usize) -> Option<Code> {
        let mut pos = s;
        self.token(&mut pos, e, spaces);
        let mut args = self.arguments(&mut pos, e)?;
        if self.token(&mut pos, e, spaces).is_none() || pos == e {
            return Some(Code::Arg(args.swap_remove(0)));
        }
        let name = self.token(&mut pos, e, formatter)?;
        self.token(&mut pos, e, spaces);
        Some(match name {
            "plural" | "selectordinal" => self.plural(args, name == "selectordinal", &mut pos, e),
            "select" => self.select(args, &mut pos, e),
            _ => {
                let mut options = Vec::new();
                loop {
                    self.token(&mut pos, e, spaces);
                    match self.token(&mut pos, e, option) {
                        Some(o) => options.push(o.into()),
                        None => break,
                    }
                    if pos == e {
                        break;
                    }
                }
                Code::Nested(Box::new(Nested {
                    name,
                    args,
                    options,
                }))
            }
        })
    }

    /// One or more `;`-separated arguments; never empty when `Some`.
    fn arguments(&self, pos: &mut usize, e: usize) -> Option<Vec<Key>> {
        let mut args = Vec::new();
        while let Some(text) = self.token(pos, e, argument) {
            args.push(Key::from_text(text));
            if *pos >= e || self.byte(*pos) != Some(b';') {
                break;
            }
            *pos += 1;
            if *pos == e {
                break;
            }
        }
        (!args.is_empty()).then_some(args)
    }

    fn plural(&mut self, mut args: Vec<Key>, ordinal: bool, pos: &mut usize, e: usize) -> Code {
        let offset = self
            .token(pos, e, offset)
            .map(|n| Dec::from_f64(leading_int(n)))
            .filter(|d| !d.is_zero());
        self.token(pos, e, spaces);
        let mut choices = Vec::new();
        while let Some(label) = self.token(pos, e, plural_choice) {
            let Some(body) = self.choice_body(pos, e) else {
                return Code::Noop;
            };
            choices.push(match label {
                ChoiceLabel::Exact(n) => {
                    PluralChoice::Exact(Dec::parse(n).unwrap_or_else(Dec::zero), body)
                }
                ChoiceLabel::Category(c) => PluralChoice::Category(c, body),
            });
            self.token(pos, e, spaces);
            if *pos == e {
                break;
            }
        }
        if choices.is_empty() {
            return Code::Noop;
        }
        Code::Plural(Box::new(Plural {
            key: args.swap_remove(0),
            offset,
            ordinal,
            choices,
        }))
    }

    fn select(&mut self, mut args: Vec<Key>, pos: &mut usize, e: usize) -> Code {
        let mut choices = Vec::new();
        while let Some(label) = self.token(pos, e, identifier) {
            let Some(body) = self.choice_body(pos, e) else {
                return Code::Noop;
            };
            choices.push((label.into(), body));
            self.token(pos, e, spaces);
            if *pos == e {
                break;
            }
        }
        if choices.is_empty() {
            return Code::Noop;
        }
        Code::Select(Box::new(Select {
            key: args.swap_remove(0),
            choices,
        }))
    }

    /// A `{...}` choice body after optional spaces, or `None` if no brace follows.
    fn choice_body(&mut self, pos: &mut usize, e: usize) -> Option<Code> {
        self.token(pos, e, spaces);
        if *pos >= e || self.byte(*pos) != Some(b'{') {
            return None;
        }
        let s = *pos;
        let k = self.seek(s, e)?;
        let body = if self.byte(s + 1) == Some(b'-') {
            Code::Text(format!("{{{}", &self.raw[s + 2..=k]).into())
        } else {
            self.outer(s + 1, k, true)
        };
        *pos = k + 1;
        Some(body)
    }

    /// The index of the `}` closing the `{` at `i`, skipping quoted text; `None` if it is
    /// not closed before `j` (or a quote is never closed).
    fn seek(&self, mut i: usize, j: usize) -> Option<usize> {
        let bytes = self.raw.as_bytes();
        let mut depth = 0usize;
        while i < j {
            match bytes[i] {
                b'{' => depth += 1,
                b'}' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return Some(i);
                    }
                }
                b'\'' => {
                    if self.byte(i + 1) == Some(b'\'') {
                        i += 1;
                    } else {
                        i = i + 1 + self.raw[i + 1..].find('\'')?;
                    }
                }
                _ => {}
            }
            i += 1;
        }
        None
    }
}

/// Appends text, splitting out `#` substitutions inside choice bodies.
fn push_text(nodes: &mut Vec<Code>, s: &str, in_choice: bool) {
    if !in_choice {
        nodes.push(Code::Text(s.into()));
        return;
    }
    let mut parts = s.split('#');
    if let Some(first) = parts.next()
        && !first.is_empty()
    {
        nodes.push(Code::Text(first.into()));
    }
    for part in parts {
        nodes.push(Code::ArgSub);
        if !part.is_empty() {
            nodes.push(Code::Text(part.into()));
        }
    }
}
