//! Diagnostics: syntax errors found while compiling and errors recorded while executing.
//!
//! The wording follows the reference engines, so template authors who know them recognise
//! every message. Errors are values: compiling always yields a best-effort template and
//! executing always yields output, with the diagnostics beside it.

use std::fmt;

pub use crate::syntax::scan::Pos;

/// When a diagnostic arose.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Found while compiling; the template is still usable (best effort), but invalid.
    Syntax,
    /// Recorded while executing; rendering went on.
    Runtime,
}

/// One syntax or execution error.
#[derive(Debug, Clone, PartialEq)]
pub struct Diagnostic {
    pub phase: Phase,
    pub message: String,
    /// Where in the source, when known.
    pub pos: Option<Pos>,
    /// The partial the position refers to; `None` for the main template.
    pub partial: Option<String>,
}

impl Diagnostic {
    pub fn syntax(message: impl Into<String>, pos: Option<Pos>) -> Diagnostic {
        Diagnostic {
            phase: Phase::Syntax,
            message: message.into(),
            pos,
            partial: None,
        }
    }

    pub fn runtime(message: impl Into<String>, pos: Option<Pos>) -> Diagnostic {
        Diagnostic {
            phase: Phase::Runtime,
            message: message.into(),
            pos,
            partial: None,
        }
    }

    /// Attributes the diagnostic to a partial (its position is within that partial).
    pub fn in_partial(mut self, name: &str) -> Diagnostic {
        self.partial.get_or_insert_with(|| name.to_string());
        self
    }

    /// Writes `file:line:col: message` followed by the offending source line and a caret,
    /// given the source text the position refers to.
    pub fn render(&self, file: &str, source: Option<&str>) -> String {
        let mut s = String::new();
        match (&self.partial, self.pos) {
            (Some(p), Some(pos)) => s.push_str(&format!("{file}: partial '{p}':{pos}: ")),
            (Some(p), None) => s.push_str(&format!("{file}: partial '{p}': ")),
            (None, Some(pos)) => s.push_str(&format!("{file}:{pos}: ")),
            (None, None) => s.push_str(&format!("{file}: ")),
        }
        s.push_str(&self.message);
        if let (Some(src), Some(pos)) = (source, self.pos)
            && let Some(line) = src.split('\n').nth(pos.line as usize - 1)
        {
            let line = line.trim_end_matches('\r');
            s.push_str(&format!(
                "\n  {line}\n  {}^",
                " ".repeat(pos.col as usize - 1)
            ));
        }
        s
    }
}

/// The hint `tessera check` and `tessera dev` give with a stray `{.end}` (or `{.or}` …)
/// whose block tag was never closed: not one of the engine's messages, which stay the
/// reference's.
pub const UNCLOSED_TAG_HINT: &str = "this tag is not closed: it needs a `}`";

impl Diagnostic {
    /// For a syntax error about a `{.end}`, `{.or}` or `{.alternates with}` at root ("Instruction END not
    /// allowed at root"), in `source` (the text the diagnostic's position is in): where the
    /// block tag it was meant to close starts, when one before it was left unclosed — a
    /// `{.section …`, `{.repeated section …`, `{.if …`, `{.macro …` or `{.predicate? …` with
    /// no `}` before the next `{` or with its `}` on a later line, which the engine reads as
    /// text. The nearest such tag before the error; `None` when there is none (or the
    /// diagnostic is another one, or in a partial).
    pub fn unclosed_tag(&self, source: &str) -> Option<Pos> {
        let stray = self.message.starts_with("SyntaxError: Instruction ")
            && self.message.ends_with(" not allowed at root");
        if self.phase != Phase::Syntax || !stray || self.partial.is_some() {
            return None;
        }
        let end = offset_of(source, self.pos?)?;
        let before = &source[..end];
        let mut found = None;
        crate::syntax::scan::scan(before, |piece| match piece {
            crate::syntax::scan::Piece::Text(text) => {
                let base = text.as_ptr() as usize - before.as_ptr() as usize;
                for (k, _) in text.match_indices("{.") {
                    if opens_block(&text[k + 2..]) {
                        found = Some(base + k);
                    }
                }
            }
            // A tag whose `}` is on a later line is no tag either.
            crate::syntax::scan::Piece::Tag(content, at, _)
                if content.contains('\n')
                    && content.strip_prefix('.').is_some_and(opens_block)
                    && crate::syntax::tag::parse_tag(content).is_none() =>
            {
                found = Some(at);
            }
            _ => {}
        });
        let at = found?;
        let line_start = before[..at].rfind('\n').map_or(0, |i| i + 1);
        Some(Pos {
            line: 1 + before[..at].matches('\n').count() as u32,
            col: 1 + before[line_start..at].chars().count() as u32,
        })
    }
}

/// The byte offset of `pos` (1-based line and character column) in `source`.
fn offset_of(source: &str, pos: Pos) -> Option<usize> {
    let line_start = if pos.line <= 1 {
        0
    } else {
        source
            .match_indices('\n')
            .nth(pos.line as usize - 2)
            .map(|(i, _)| i + 1)?
    };
    let line_end = source[line_start..]
        .find('\n')
        .map_or(source.len(), |i| line_start + i);
    let line = &source[line_start..line_end];
    let col = pos.col.max(1) as usize - 1;
    match line.char_indices().nth(col) {
        Some((i, _)) => Some(line_start + i),
        None if line.chars().count() == col => Some(line_end),
        None => None,
    }
}

/// Whether the text after a `{.` begins a tag that opens a block: `section`, `repeated`,
/// `if` or `macro` and a space, or a predicate (`name?`).
fn opens_block(rest: &str) -> bool {
    let word_len = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
        .unwrap_or(rest.len());
    let (word, after) = rest.split_at(word_len);
    match word {
        "" => false,
        "section" | "repeated" | "if" | "macro" => after.starts_with([' ', '\t']),
        _ => after.starts_with('?'),
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(p) = &self.partial {
            write!(f, "partial '{p}': ")?;
        }
        if let Some(pos) = self.pos {
            write!(f, "{pos}: ")?;
        }
        f.write_str(&self.message)
    }
}

/// The messages, in one place so that code and tests share the exact wording.
pub mod msg {
    pub fn formatter_unknown(name: &str) -> String {
        format!("SyntaxError: Formatter '{name}' is unknown")
    }
    pub fn predicate_unknown(name: &str) -> String {
        format!("SyntaxError: Predicate '{name}' is unknown")
    }
    pub fn dead_code(kind: &str) -> String {
        format!("SyntaxError: This {kind} block will never execute.")
    }
    pub fn eof_in_block(kind: &str) -> String {
        format!("SyntaxError: Reached EOF in the middle of {kind}")
    }
    pub fn not_allowed_in_block(kind: &str, parent: &str) -> String {
        format!("SyntaxError: {kind} instruction is not allowed inside {parent} block.")
    }
    pub fn not_allowed_at_root(kind: &str) -> String {
        format!("SyntaxError: Instruction {kind} not allowed at root")
    }
    pub fn transition_from_eof(kind: &str) -> String {
        format!(
            "SyntaxError: {kind} Attempt to transition from the EOF state. This is either a bug in the \
             state machine or instructions were fed to the state machine after EOF."
        )
    }
    pub fn nesting_too_deep(limit: usize) -> String {
        format!("SyntaxError: Blocks are nested deeper than the limit of {limit}")
    }
    pub fn partial_missing(name: &str) -> String {
        format!("RuntimeError: Attempt to apply partial '{name}' which could not be found.")
    }
    pub fn partial_parse_fail(name: &str, message: &str) -> String {
        format!("RuntimeError: Parse of partial \"{name}\" failed: {message}")
    }
    pub fn partial_recursion(name: &str, limit: usize) -> String {
        format!(
            "RuntimeError: Attempt to apply partial '{name}' exceeded maximum recursion depth of {limit}"
        )
    }
    pub fn expression_parse(expr: &str, message: &str) -> String {
        let mut quoted = String::new();
        crate::value::json::quote(expr, &mut quoted);
        format!("RuntimeError: Error parsing expression: {quoted}: {message}")
    }
    pub fn expression_reduce(expr: &str, message: &str) -> String {
        format!("RuntimeError: Error reducing expression: {expr}: {message}")
    }
    pub fn unexpected(kind: &str, message: &str) -> String {
        format!("RuntimeError: Unexpected TypeError error when executing {kind}: {message}")
    }
    pub fn not_implemented(name: &str) -> String {
        format!("RuntimeError: Formatter not yet implemented: \"{name}\"")
    }
    pub fn instruction_limit(limit: u64) -> String {
        format!("RuntimeError: Execution stopped: the instruction limit of {limit} was reached")
    }
    pub fn output_limit(limit: usize) -> String {
        format!("RuntimeError: Execution stopped: the output limit of {limit} bytes was reached")
    }
}
