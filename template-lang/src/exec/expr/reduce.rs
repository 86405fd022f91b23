//! The evaluator: reduces each RPN sub-expression on a value stack.

use super::convert::{as_bool, as_num};
use super::lexer::{Token, head_name};
use super::ops::{BinaryError, Op, binary};
use super::value::Val;
use super::{ExprScope, Literal};
use crate::syntax::path::{Head, VarPath};
use crate::value::number::to_int32;

/// A reduce-stack entry.
#[derive(Debug)]
pub(crate) enum Slot<'e> {
    /// No value: an operator's operand was an object or array, or an assignment ended the
    /// sub-expression. Unlike a missing entry, it stops a call's argument scan.
    Undef,
    Val(Val<'e>),
    /// A variable, resolved when an operator (or the end of the expression) consumes it.
    Var(&'e VarPath),
    /// The start of a call's arguments.
    Args,
}

/// The reusable reduce state.
pub(crate) struct Reducer<'e, 's> {
    pub(crate) scope: &'s mut dyn ExprScope,
    pub(crate) stack: Vec<Slot<'e>>,
    pub(crate) errors: Vec<String>,
    pub(crate) max_string_len: usize,
}

impl<'e> Reducer<'e, '_> {
    /// The literal value of a stack entry, resolving variables.
    fn literal(&mut self, slot: Slot<'e>) -> Option<Val<'e>> {
        match slot {
            Slot::Val(v) => Some(v),
            Slot::Var(path) => self.scope.resolve(path).map(Val::owned),
            Slot::Undef | Slot::Args => None,
        }
    }

    fn pop_literal(&mut self) -> Option<Val<'e>> {
        let slot = self.stack.pop()?;
        self.literal(slot)
    }

    /// Reduces one sub-expression, returning the value left on top of the stack.
    pub(crate) fn reduce(&mut self, expr: &'e [Token]) -> Option<Literal> {
        self.stack.clear();
        for t in expr {
            match t {
                Token::Lit(lit) => self.stack.push(Slot::Val(Val::borrow(lit))),
                Token::Var(path) => self.stack.push(Slot::Var(path)),
                Token::Args => self.stack.push(Slot::Args),
                Token::Junk => {}
                Token::Call(f) => {
                    // The arguments run down to the nearest marker, or to an Undef entry,
                    // which is then consumed in the marker's place.
                    let from = self
                        .stack
                        .iter()
                        .rposition(|s| matches!(s, Slot::Undef | Slot::Args));
                    let (start, skip) = match from {
                        Some(k) => (k, 1),
                        None => (0, 0),
                    };
                    let scope = &mut *self.scope;
                    let args = self.stack.drain(start..).skip(skip);
                    let result = f.apply(args.filter_map(|slot| match slot {
                        Slot::Val(v) => Some(v),
                        Slot::Var(path) => scope.resolve(path).map(Val::owned),
                        Slot::Undef | Slot::Args => None,
                    }));
                    match result {
                        Some(v) => self.stack.push(Slot::Val(v)),
                        None => {
                            self.errors
                                .push(format!("Error calling function {}", f.name()));
                            break;
                        }
                    }
                }
                Token::Op(op @ (Op::Minus | Op::Plus | Op::LNot | Op::BNot)) => {
                    let Some(top) = self.stack.pop() else {
                        continue;
                    };
                    // `~` reads its operand unresolved: a variable counts as NaN (so `~@x`
                    // is -1 whenever @x holds a scalar), as in the reference.
                    let var_operand = matches!(top, Slot::Var(_));
                    let new = match self.literal(top) {
                        None => Slot::Undef,
                        Some(v) => Slot::Val(match op {
                            Op::Minus => Val::Num(-as_num(&v)),
                            Op::Plus => Val::Num(as_num(&v)),
                            Op::LNot => Val::Bool(!as_bool(&v)),
                            _ => {
                                let n = if var_operand { f64::NAN } else { as_num(&v) };
                                Val::Num(f64::from(!to_int32(n)))
                            }
                        }),
                    };
                    self.stack.push(new);
                }
                Token::Op(Op::Asn) => {
                    let value = self.pop_literal();
                    let target = self.stack.pop();
                    if let (Some(Slot::Var(path)), Some(value)) = (target, value)
                        && let Some(name) = assignable(path)
                    {
                        self.scope.assign(name, value.into_literal());
                    }
                    // An assignment ends the sub-expression without a value.
                    if let Some(top) = self.stack.last_mut() {
                        *top = Slot::Undef;
                    }
                    break;
                }
                Token::Op(op) => {
                    let b = self.pop_literal();
                    let a = self.pop_literal();
                    let (Some(a), Some(b)) = (a, b) else {
                        self.errors
                            .push(format!("Invalid arguments to operator {}", op.desc()));
                        break;
                    };
                    match binary(*op, a, b, self.max_string_len) {
                        Ok(v) => self.stack.push(Slot::Val(v)),
                        Err(BinaryError::TooLong) => {
                            self.errors.push(format!(
                                "Concatenation would exceed maximum string length {}",
                                self.max_string_len
                            ));
                            break;
                        }
                        Err(BinaryError::NotBinary) => {
                            self.errors.push(format!(
                                "Unexpected operator found during evaluation: {}",
                                op.desc()
                            ));
                            if let Some(top) = self.stack.last_mut() {
                                *top = Slot::Undef;
                            }
                            break;
                        }
                    }
                }
            }
        }
        match self.stack.pop()? {
            Slot::Undef => None,
            slot => match self.literal(slot) {
                Some(v) => Some(v.into_literal()),
                None => {
                    self.errors
                        .push("Reduce error: unexpected token on stack".to_string());
                    None
                }
            },
        }
    }
}

/// The name an assignment binds: a single segment starting with `@`.
fn assignable(path: &VarPath) -> Option<&str> {
    if !path.rest().is_empty() {
        return None;
    }
    match path.head() {
        Head::Current | Head::Index { .. } | Head::Var(_) => Some(head_name(path)),
        Head::Key(_) => None,
    }
}
