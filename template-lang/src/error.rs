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
