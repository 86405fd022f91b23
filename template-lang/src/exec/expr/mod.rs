//! The expression language of the `{.eval ...}` instruction.
//!
//! An expression is tokenized (`lexer`), assembled into reverse-Polish sub-expressions with
//! the shunting-yard algorithm (`build`) once, then reduced (`reduce`) every time the
//! instruction runs. Semantics follow the reference engine: JavaScript operators over null,
//! booleans, numbers and strings (`ops`, `value`, `convert`, `pow`), the built-in functions
//! (`functions`), the constants `null true false PI E Infinity NaN`, `@name = ...`
//! assignments and `;`-separated parts.
//!
//! Nothing here recurses over the input, so deeply nested parentheses cannot exhaust the
//! stack, and no input panics.
//!
//! # What the caller does (the reference's `executeEval`)
//!
//! * Strip a leading `#` (debug mode) and parse once per instruction; cache the result.
//! * Report each parse error as `Error parsing expression: {JSON.stringify(raw)}: {msg}`.
//! * In debug mode, emit [`Expr::debug_string`] even when parsing failed (use
//!   [`Expr::compile`], which keeps what was assembled).
//! * Reduce only an expression without parse errors, buffering the `assign` calls; report
//!   each reduce error as `Error reducing expression: {raw}: {msg}` (raw not quoted).
//! * If reduce reported any error, drop the buffered assignments and the value. Otherwise
//!   keep the assignments and, if there is a value, emit ` -> ` (debug mode) and then the
//!   value with [`Literal::print`].

mod build;
mod convert;
mod functions;
mod lexer;
mod ops;
mod pow;
mod reduce;
mod value;

#[cfg(test)]
mod tests;

use crate::syntax::path::VarPath;
use crate::value::json::quote;
use crate::value::number::push_number;

use lexer::{Token, head_name};
use reduce::Reducer;

/// Limits that stop hostile expressions.
#[derive(Clone, Copy, Debug)]
pub struct ExprLimits {
    /// The most tokens an expression may have (0 = unlimited).
    pub max_tokens: usize,
    /// The longest string `+` may build, in UTF-16 code units (0 = unlimited).
    pub max_string_len: usize,
}

impl Default for ExprLimits {
    fn default() -> Self {
        ExprLimits {
            max_tokens: 4096,
            max_string_len: 1 << 20,
        }
    }
}

/// A scalar the expression language computes with.
#[derive(Clone, Debug, PartialEq)]
pub enum Literal {
    Null,
    Bool(bool),
    Num(f64),
    Str(String),
}

/// How an expression reads and writes template variables.
pub trait ExprScope {
    /// The value a variable reference resolves to in the template context: `Some(Literal::Null)` for
    /// null or missing, `None` for objects and arrays (which expressions cannot use).
    fn resolve(&mut self, path: &VarPath) -> Option<Literal>;
    /// Binds `@name` (the name includes the `@`).
    fn assign(&mut self, name: &str, value: Literal);
}

/// A compiled expression: one RPN token list per `;`-separated part.
#[derive(Clone, Debug)]
pub struct Expr {
    parts: Vec<Vec<Token>>,
    max_string_len: usize,
    /// The longest part: a bound on the reduce stack's depth, so one allocation suffices.
    max_part_len: usize,
}

impl Expr {
    /// Tokenizes and assembles `src` (the text after `{.eval ` with any leading `#` debug marker already removed).
    /// Errors are the bare messages (e.g. "Unterminated string"); the caller adds the "Error parsing expression: ..." prefix.
    pub fn parse(src: &str, limits: &ExprLimits) -> Result<Expr, Vec<String>> {
        let (expr, errors) = Expr::compile(src, limits);
        if errors.is_empty() {
            Ok(expr)
        } else {
            Err(errors)
        }
    }

    /// Like [`Expr::parse`], but also returns what was assembled when there are errors, for
    /// the debug rendering: the reference prints `EVAL=[...]` of the parts assembled before
    /// an error (`EVAL=[]` after a tokenizer error). An expression with errors must not be
    /// reduced.
    pub fn compile(src: &str, limits: &ExprLimits) -> (Expr, Vec<String>) {
        let (tokens, mut errors) = lexer::tokenize(src, limits.max_tokens);
        let parts = if errors.is_empty() {
            build::assemble(tokens, &mut errors)
        } else {
            Vec::new()
        };
        let max_part_len = parts.iter().map(Vec::len).max().unwrap_or(0);
        let expr = Expr {
            parts,
            max_string_len: limits.max_string_len,
            max_part_len,
        };
        (expr, errors)
    }

    /// Reduces every `;`-separated sub-expression in order; returns the last one's value (if any) and
    /// the errors met (bare messages; the caller adds the "Error reducing expression: ..." prefix).
    /// Evaluation continues with the next sub-expression after an error, as the reference does.
    pub fn reduce(&self, scope: &mut dyn ExprScope) -> (Option<Literal>, Vec<String>) {
        let mut r = Reducer {
            scope,
            stack: Vec::with_capacity(self.max_part_len),
            errors: Vec::new(),
            max_string_len: self.max_string_len,
        };
        let mut last = None;
        for part in &self.parts {
            last = r.reduce(part);
        }
        (last, r.errors)
    }

    /// The reference's debug rendering of the assembled expressions: `EVAL=[[tok tok ...], [...]]`.
    pub fn debug_string(&self) -> String {
        let mut out = String::from("EVAL=[");
        for (i, part) in self.parts.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            out.push('[');
            for (j, t) in part.iter().enumerate() {
                if j > 0 {
                    out.push(' ');
                }
                debug_token(t, &mut out);
            }
            out.push(']');
        }
        out.push(']');
        out
    }
}

fn debug_token(t: &Token, out: &mut String) {
    match t {
        Token::Lit(Literal::Str(s)) => quote(s, out),
        Token::Lit(Literal::Null) => out.push_str("null"),
        Token::Lit(lit) => lit.print(out),
        Token::Op(op) => {
            out.push('<');
            out.push_str(op.desc());
            out.push('>');
        }
        Token::Var(path) => {
            out.push_str(head_name(path));
            let path = path.path();
            for seg in path.rest() {
                out.push('.');
                // The reference splits all-digit segments into numbers: `a.007` shows `a.7`.
                match seg.index {
                    Some(n) => out.push_str(&n.to_string()),
                    None => out.push_str(path.name(seg)),
                }
            }
        }
        Token::Call(f) => {
            out.push_str(f.name());
            out.push_str("()");
        }
        Token::Args => out.push_str("<args>"),
        Token::Junk => out.push_str("<unk>"),
    }
}

impl Literal {
    /// How a result prints into the template output: JavaScript `String(v)`, except that null
    /// prints nothing (the reference emits a null node as the empty string).
    pub fn print(&self, out: &mut String) {
        match self {
            Literal::Null => {}
            Literal::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Literal::Num(n) => push_number(*n, out),
            Literal::Str(s) => out.push_str(s),
        }
    }
}
