//! The assembler: Dijkstra's shunting-yard, iteratively turning the token list into one
//! reverse-Polish sub-expression per `;`-separated part.

use super::lexer::Token;
use super::ops::Op;

const E_MISMATCHED: &str = "Mismatched operator found:";

/// Assembles `tokens` into RPN sub-expressions, appending any errors to `errors`.
///
/// Errors do not always stop assembly: a `(` left open at a `;` only drops the part it was in,
/// while an unmatched `)` ends assembly at once. The parts assembled so far are returned
/// either way (the debug rendering shows them).
pub(crate) fn assemble(tokens: Vec<Token>, errors: &mut Vec<String>) -> Vec<Vec<Token>> {
    let mut exprs = Vec::new();
    let mut out: Vec<Token> = Vec::new();
    // Only operators and calls go on this stack.
    let mut ops: Vec<Token> = Vec::new();
    let is_lparen = |t: &Token| matches!(t, Token::Op(Op::LParen));

    for t in tokens {
        match t {
            Token::Op(Op::Semi) => {
                finish(&mut out, &mut ops, &mut exprs, errors);
            }
            Token::Op(Op::LParen) => ops.push(t),
            Token::Op(op @ (Op::Comma | Op::RParen)) => {
                // Output everything back to the innermost open parenthesis.
                while let Some(top) = ops.pop_if(|top| !is_lparen(top)) {
                    out.push(top);
                }
                if op == Op::RParen {
                    if ops.pop().is_none() {
                        errors.push(format!("{E_MISMATCHED} {}", op.desc()));
                        return exprs;
                    }
                    if let Some(call) = ops.pop_if(|top| matches!(top, Token::Call(_))) {
                        out.push(call);
                    }
                }
            }
            Token::Op(op) => {
                // Output operators that bind at least as tightly (all the pending calls
                // too), stopping at an open parenthesis.
                while let Some(top) = ops.pop_if(|top| match top {
                    Token::Op(Op::LParen) => false,
                    Token::Op(prev) => {
                        prev.prec() > op.prec() || (prev.prec() == op.prec() && prev.left_assoc())
                    }
                    _ => true,
                }) {
                    out.push(top);
                }
                ops.push(t);
            }
            Token::Call(_) => {
                out.push(Token::Args);
                ops.push(t);
            }
            other => out.push(other),
        }
    }
    finish(&mut out, &mut ops, &mut exprs, errors);
    exprs
}

/// Ends a sub-expression: flushes the operator stack into it and keeps it unless a
/// parenthesis is left unbalanced (then the rest of the operator stack stays for the next
/// part, as the reference leaves it).
fn finish(
    out: &mut Vec<Token>,
    ops: &mut Vec<Token>,
    exprs: &mut Vec<Vec<Token>>,
    errors: &mut Vec<String>,
) {
    let mut part = std::mem::take(out);
    while let Some(t) = ops.pop() {
        if let Token::Op(op @ (Op::LParen | Op::RParen)) = t {
            errors.push(format!("{E_MISMATCHED} {}", op.desc()));
            return;
        }
        part.push(t);
    }
    if !part.is_empty() {
        exprs.push(part);
    }
}
