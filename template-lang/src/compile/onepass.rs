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

use memchr::memchr;

use super::assemble::{Assembler, BlockKind, Control};
use super::{known_chain, tree};
use crate::plugins::Registry;
use crate::syntax::path::word;
use crate::syntax::scan::{At, Opened, opened};
use crate::syntax::tag::{Args, is_ws};

/// What to do with a tag the short way does not take, given its contents, its source
/// text (braces included), its offset and where text that follows the last tag is
/// reported: `true` when it counted as a tag, which moves the latter to its offset.
pub(super) type General<'f, 's> = dyn FnMut(&'s str, &'s str, At, At, &mut Assembler) -> bool + 'f;

/// Compiles `source`, whose offset 0 is `base` in its template's source, into `asm`:
/// the pieces [`crate::syntax::scan::scan`] finds, in its order.
pub(super) fn lower_source<'s>(
    source: &'s str,
    base: usize,
    registry: &Registry,
    asm: &mut Assembler,
    general: &mut General<'_, 's>,
) {
    let bytes = source.as_bytes();
    let len = bytes.len();
    let at = |offset: usize| At((base + offset) as u32);
    // Where text that follows is reported: the last tag that counted.
    let mut last_at = at(0);
    let mut idx = 0;
    while idx < len {
        let Some(k) = memchr(b'{', &bytes[idx..]) else {
            break;
        };
        let brace = idx + k;
        let (start, close) = match opened(bytes, brace) {
            Opened::Comment(end) => {
                if brace > idx {
                    asm.text(&source[idx..brace], last_at);
                }
                match end {
                    Some(end) => {
                        idx = end;
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
            || general(content, &source[start..idx], tag_at, last_at, asm)
        {
            last_at = tag_at;
        }
    }
    if idx < len {
        asm.text(&source[idx..], last_at);
    }
}

/// Feeds a tag of one of the common shapes to the assembler; `false` if it has another
/// shape (or names a formatter that does not exist), for the general grammar to judge.
pub(super) fn common(content: &str, at: At, registry: &Registry, asm: &mut Assembler) -> bool {
    let b = content.as_bytes();
    match b.first() {
        None | Some(b'#') => false,
        Some(b'.') => match &b[1..] {
            b"end" => {
                asm.control(Control::End, at);
                true
            }
            b"or" => {
                asm.control(Control::Or(None), at);
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
    if let Ok((rest, stem)) = word(body)
        && let Some(args) = rest.strip_prefix('?')
    {
        // Predicates are registered with their question mark. An unknown name is an
        // error, which the general grammar reports.
        let Some((name, apply)) = registry.predicate_entry(&body[..stem.len() + 1]) else {
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
    } else {
        return false;
    };
    let path_start = rest.len() - rest.trim_start_matches(is_ws).len();
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
        // `{.if a }` is `{.if a}`; anything else after the reference (an operator, a
        // second reference) is the general grammar's.
        Keyword::If if after.trim_start_matches(is_ws).is_empty() => BlockKind::If {
            ops: Box::new([]),
            vars: tree::PathIds {
                start: path.0,
                len: 1,
            },
        },
        _ => {
            asm.draft.rollback(mark);
            return false;
        }
    };
    asm.open(kind, at);
    true
}

enum Keyword {
    Section,
    Repeated,
    If,
}
