//! The short way through a template: one loop that finds each tag and, for the shapes
//! most tags have, makes its instruction straight from the bytes between the braces.
//!
//! It splits the source exactly as [`crate::syntax::scan`] does and takes a tag only
//! when it means what the general grammar makes of it; every other tag goes to the
//! general grammar (`general`), errors included. The compiler's tests compile templates
//! both ways and compare the results.
//!
//! Why a loop of its own: compiling is mostly a small amount of work per tag, and the
//! general path's layers (the scanner's pieces, the tag's value, the lowering of that
//! value) each cost about as much as the work itself.

use std::borrow::Cow;

use std::cell::RefCell;

use memchr::memchr;
use memchr::memmem::Finder;

use super::assemble::{Assembler, BlockKind, Control};
use super::{known_chain, tree};
use crate::plugins::Registry;
use crate::syntax::host::{HostTagSyntax, parse_host_tag};
use crate::syntax::path::word_len;
use crate::syntax::scan::{At, Opened, find_near, opened};
use crate::syntax::tag::{Args, Op, is_ws};

/// What the loop hands on: tags the short way does not take, and host tags.
pub(super) trait Lower<'s> {
    /// A tag the short way does not take, given its contents, its source text (braces
    /// included), its offset and where text that follows the last tag is reported:
    /// `true` when it counted as a tag, which moves the latter to its offset.
    fn general(
        &mut self,
        content: &'s str,
        raw: &'s str,
        tag_at: At,
        text_at: At,
        asm: &mut Assembler,
    ) -> bool;

    /// A host tag (`<prefix:name ...>`) at its offset.
    fn host(&mut self, tag: HostTagSyntax<'s>, at: At, asm: &mut Assembler);
}

/// Compiles `source`, whose offset 0 is `base` in its template's source, into `asm`:
/// the pieces [`crate::syntax::scan::scan_with`] finds, in its order, host tags included
/// when `host_prefix` is given.
pub(super) fn lower_source<'s>(
    source: &'s str,
    base: usize,
    registry: &Registry,
    host_prefix: Option<&str>,
    asm: &mut Assembler,
    lower: &mut impl Lower<'s>,
) {
    let bytes = source.as_bytes();
    let len = bytes.len();
    let at = |offset: usize| At((base + offset) as u32);
    // Where text that follows is reported: the last tag that counted.
    let mut last_at = at(0);
    let mut idx = 0;
    // Where the next host tag may start: `len` when there is none (searched again only
    // once the loop passes it, as the scanner does).
    let mut next_host = match host_prefix {
        Some(prefix) => find_host(bytes, 0, prefix),
        None => len,
    };
    while idx < len {
        let brace = find_near(b'{', &bytes[idx..]).map_or(len, |k| idx + k);
        if next_host < brace {
            let prefix = host_prefix.expect("host tags are searched for with a prefix");
            let h = next_host;
            match parse_host_tag(source, h, prefix) {
                Some(tag) => {
                    if h > idx {
                        asm.text(&source[idx..h], last_at);
                    }
                    idx = tag.end;
                    last_at = at(h);
                    lower.host(tag, last_at, asm);
                }
                None => {
                    // Not a tag after all: the '<' stays text.
                    asm.text(&source[idx..h + 1], last_at);
                    idx = h + 1;
                }
            }
            if next_host < idx {
                next_host = find_host(bytes, idx, prefix);
            }
            continue;
        }
        if brace == len {
            break;
        }
        let (start, close) = match opened(bytes, brace) {
            Opened::Comment(end) => {
                if brace > idx {
                    asm.text(&source[idx..brace], last_at);
                }
                match end {
                    Some(end) => {
                        idx = end;
                        if next_host < idx {
                            next_host = find_host(bytes, idx, host_prefix.unwrap_or(""));
                        }
                        continue;
                    }
                    // An unclosed comment runs to the end.
                    None => return,
                }
            }
            Opened::Tag { start, close } => (start, close),
            Opened::Unclosed => break,
        };
        if start > idx {
            asm.text(&source[idx..start], last_at);
        }
        idx = close + 1;
        let tag_at = at(start);
        let content = &source[start + 1..close];
        if common(content, tag_at, registry, asm)
            || lower.general(content, &source[start..idx], tag_at, last_at, asm)
        {
            last_at = tag_at;
        }
        if next_host < idx {
            next_host = find_host(bytes, idx, host_prefix.unwrap_or(""));
        }
    }
    if idx < len {
        asm.text(&source[idx..], last_at);
    }
}

/// Where the next `<{prefix}` at or after `from` starts in `bytes`, or `bytes.len()`.
/// Attribute values and bodies are short and are searched byte by byte; a longer text
/// with a searcher kept per thread, as building one cost more than most searches.
fn find_host(bytes: &[u8], from: usize, prefix: &str) -> usize {
    let rest = &bytes[from..];
    if rest.len() < 256 {
        let p = prefix.as_bytes();
        let mut i = 0;
        while let Some(k) = memchr(b'<', &rest[i..]) {
            let lt = i + k;
            if rest[lt + 1..].starts_with(p) {
                return from + lt;
            }
            i = lt + 1;
        }
        return bytes.len();
    }
    thread_local! {
        static FINDER: RefCell<Option<(Box<str>, Finder<'static>)>> = const { RefCell::new(None) };
    }
    FINDER.with_borrow_mut(|cached| {
        let finder = match cached {
            Some((p, finder)) if **p == *prefix => finder,
            _ => {
                let needle = format!("<{prefix}");
                let finder = Finder::new(needle.as_bytes()).into_owned();
                &mut cached.insert((prefix.into(), finder)).1
            }
        };
        finder.find(rest).map_or(bytes.len(), |k| from + k)
    })
}

/// Feeds a tag of one of the common shapes to the assembler; `false` if it has another
/// shape (or names a formatter that does not exist), for the general grammar to judge.
pub(super) fn common(content: &str, at: At, registry: &Registry, asm: &mut Assembler) -> bool {
    let b = content.as_bytes();
    match b.first() {
        None => false,
        // `{#...}`: a comment, which the general grammar lowers to empty text.
        Some(b'#') => {
            asm.leaf(tree::Inst::Text(tree::Span::EMPTY), at);
            true
        }
        Some(b'.') => match &b[1..] {
            b"end" => {
                asm.end(at);
                true
            }
            b"or" => {
                asm.or(at);
                true
            }
            b"alternates with" => {
                asm.control(Control::AlternatesWith, at);
                true
            }
            _ => instruction(content, at, registry, asm),
        },
        Some(b'@') if b.len() == 1 => {
            asm.leaf(tree::Inst::PrintCurrent, at);
            true
        }
        Some(_) => {
            let mark = asm.draft.mark();
            let Some((path, n)) = asm.draft.reference(content) else {
                return false;
            };
            if n == b.len() {
                asm.print(path, at);
                return true;
            }
            // Everything after the first pipe is the chain: a comma or a space after the
            // reference is the general grammar's to judge.
            let formatters = (b[n] == b'|')
                .then(|| known_chain(&content[n + 1..], registry, asm.draft))
                .flatten();
            let Some(formatters) = formatters else {
                asm.draft.rollback(mark);
                return false;
            };
            let inst = asm.draft.variable(tree::Variable {
                vars: tree::PathIds {
                    start: path.0,
                    len: 1,
                },
                formatters,
                at,
            });
            asm.leaf(inst, at);
            true
        }
    }
}

/// The block tags of the common shapes: `{.name? args}` for a known predicate,
/// `{.section path}`, `{.repeated section path}` and `{.if path}`: a keyword, white space,
/// and a reference that runs to the end of the tag (for `.if`, to trailing white space).
fn instruction(content: &str, at: At, registry: &Registry, asm: &mut Assembler) -> bool {
    let body = &content[1..];
    // The grammar tries a predicate before the keywords (`{.section? x}` is one).
    if let Some(stem) = word_len(body.as_bytes())
        && let Some(args) = body[stem..].strip_prefix('?')
    {
        // Predicates are registered with their question mark. An unknown name is an
        // error, which the general grammar reports.
        let Some((name, apply)) = registry.predicate_entry(&body[..stem + 1]) else {
            return false;
        };
        let call = tree::PredicateCall {
            name: Cow::Borrowed(name),
            apply: Some(apply),
            args: Args::split_instruction_in(args, Some(&asm.draft.names)),
        };
        asm.open(BlockKind::Predicate(call), at);
        return true;
    }
    let (keyword, rest) = if let Some(rest) = body.strip_prefix("section") {
        (Keyword::Section, rest)
    } else if let Some(rest) = body.strip_prefix("repeated section") {
        (Keyword::Repeated, rest)
    } else if let Some(rest) = body.strip_prefix("if") {
        (Keyword::If, rest)
    } else if let Some(rest) = body.strip_prefix("var ") {
        return bindvar(rest, at, asm);
    } else {
        return false;
    };
    // White space is ASCII ([`is_ws`]): counted by the byte.
    let path_start = rest.bytes().take_while(|&c| is_ws(char::from(c))).count();
    if path_start == 0 {
        return false;
    }
    let mark = asm.draft.mark();
    let Some((path, n)) = asm.draft.reference(&rest[path_start..]) else {
        return false;
    };
    let after = &rest[path_start + n..];
    let kind = match keyword {
        Keyword::Section if after.is_empty() => BlockKind::Section(path),
        Keyword::Repeated if after.is_empty() => BlockKind::Repeated(path),
        // `{.if a }` is `{.if a}`; `{.if a || b && c}` joins references by operators,
        // with white space around them or not. Anything else after a reference is the
        // general grammar's.
        Keyword::If => match if_ops(after, asm) {
            Some((ops, len)) => BlockKind::If {
                ops,
                vars: tree::PathIds { start: path.0, len },
            },
            None => {
                asm.draft.rollback(mark);
                return false;
            }
        },
        _ => {
            asm.draft.rollback(mark);
            return false;
        }
    };
    asm.open(kind, at);
    true
}

/// What follows the first reference of `{.if a || b && c}`: white space, then `&&` or
/// `||`, white space and a reference, as often as written, and white space to the end.
/// The operators, and how many references there are in all (those after the first
/// added to the draft's, after it); `None` for any other shape, the references added
/// still to be rolled back.
fn if_ops(mut after: &str, asm: &mut Assembler) -> Option<(Box<[Op]>, u32)> {
    let mut ops = Vec::new();
    loop {
        after = after.trim_start_matches(is_ws);
        let op = match after.as_bytes() {
            [] => {
                let len = 1 + ops.len() as u32;
                return Some((ops.into_boxed_slice(), len));
            }
            [b'&', b'&', ..] => Op::And,
            [b'|', b'|', ..] => Op::Or,
            _ => return None,
        };
        ops.push(op);
        after = after[2..].trim_start_matches(is_ws);
        let (_, n) = asm.draft.reference(after)?;
        after = &after[n..];
    }
}

/// `{.var @name path}`, the rest after `var `: a name, one space and a reference that
/// runs to the end of the tag (no second reference, no formatters), as the general
/// grammar lowers it.
fn bindvar(rest: &str, at: At, asm: &mut Assembler) -> bool {
    let Some(word) = rest.strip_prefix('@').and_then(|r| word_len(r.as_bytes())) else {
        return false;
    };
    let name = &rest[..1 + word];
    let Some(path_source) = rest[1 + word..].strip_prefix(' ') else {
        return false;
    };
    let mark = asm.draft.mark();
    match asm.draft.reference(path_source) {
        Some((path, n)) if n == path_source.len() => {
            let calls = asm.draft.parts.calls.len() as u32;
            let inst = asm.draft.other(tree::Other::Bindvar(tree::Bindvar {
                name: name.into(),
                vars: tree::PathIds {
                    start: path.0,
                    len: 1,
                },
                formatters: tree::Calls {
                    start: calls,
                    len: 0,
                },
                at,
            }));
            asm.leaf(inst, at);
            true
        }
        _ => {
            asm.draft.rollback(mark);
            false
        }
    }
}

enum Keyword {
    Section,
    Repeated,
    If,
}
