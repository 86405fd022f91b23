//! Weaves the flat stream of instructions into a tree, with the reference engine's state
//! machine: the same blocks, the same error messages, and the same recovery after an
//! error, so that a template with syntax errors still renders exactly as the reference's
//! best effort does.
//!
//! Blocks are built in an arena while open (an `{.or}` branch becomes the receiving node of
//! its block, just as in the reference). Each block's instructions are final as they
//! arrive (adjacent text merged), and a block becomes one instruction as soon as it
//! closes, in the slot its parent kept for it; blocks still open at the end are closed
//! then, innermost first.

use super::tree::{self, Block, Inst, OrBranch, PredicateCall};
use crate::error::{Diagnostic, msg};
use crate::syntax::path::VarPath;
use crate::syntax::scan::Pos;
use crate::syntax::tag::Op;

/// Blocks nest at most this deep; deeper templates are rejected with a syntax error, which
/// keeps compilation and execution recursion bounded whatever the input.
pub const MAX_NESTING: usize = 128;

/// The kinds of block instruction.
pub enum BlockKind {
    Section(VarPath),
    Repeated(VarPath),
    Predicate(PredicateCall),
    If {
        ops: Box<[Op]>,
        vars: Box<[VarPath]>,
    },
    Macro(Box<str>),
}

/// Instructions that are not leaves.
pub enum Control {
    End,
    Eof,
    AlternatesWith,
    Or(Option<PredicateCall>),
}

/// An instruction fed to the assembler.
pub enum Fed {
    Leaf(Inst),
    Open(BlockKind),
    Control(Control),
}

enum NodeKind {
    Root,
    Block(BlockKind),
    Or(Option<PredicateCall>),
}

struct Node {
    kind: NodeKind,
    pos: Pos,
    consequent: Block,
    alternate: Option<usize>,
    alternates_with: Block,
    /// For a block: its index in the consequent of the node it opened in, which holds
    /// [`placeholder`] until the block closes.
    slot: usize,
}

/// What a block's slot holds while the block is open: an empty text, which is never
/// stored otherwise (empty text is dropped) and which nothing merges into.
fn placeholder() -> Inst {
    Inst::Text(Box::default())
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    Root,
    Section,
    Repeated,
    AlternatesWith,
    Predicate,
    OrPredicate,
    If,
    Macro,
    Eof,
    Dead,
}

/// The tree-building state machine.
pub struct Assembler {
    nodes: Vec<Node>,
    /// The open blocks, innermost last: (the node each opened in, the block's node).
    stack: Vec<(usize, usize)>,
    current: usize,
    state: State,
    pub errors: Vec<Diagnostic>,
}

impl Default for Assembler {
    fn default() -> Self {
        Assembler {
            nodes: vec![Node {
                kind: NodeKind::Root,
                pos: Pos::default(),
                consequent: Vec::new(),
                alternate: None,
                alternates_with: Vec::new(),
                slot: 0,
            }],
            stack: Vec::new(),
            current: 0,
            state: State::Root,
            errors: Vec::new(),
        }
    }
}

fn fed_name(fed: &Fed) -> &'static str {
    match fed {
        Fed::Leaf(inst) => match inst {
            Inst::Text(_) => "TEXT",
            Inst::PrintCurrent
            | Inst::Print(_)
            | Inst::TextThenCurrent(_)
            | Inst::TextThenPrint(_)
            | Inst::Variable(_) => "VARIABLE",
            Inst::Bindvar(_) => "BINDVAR",
            Inst::Ctxvar(_) => "CTXVAR",
            Inst::Eval(_) => "EVAL",
            Inst::Include(_) => "INCLUDE",
            Inst::Inject(_) => "INJECT",
            Inst::Section(_) => "SECTION",
            Inst::Repeated(_) => "REPEATED",
            Inst::Predicate(_) => "PREDICATE",
            Inst::If(_) => "IF",
            Inst::Macro(_) => "MACRO",
            Inst::Host(_) => "HOST",
        },
        Fed::Open(kind) => block_name(kind),
        Fed::Control(Control::End) => "END",
        Fed::Control(Control::Eof) => "EOF",
        Fed::Control(Control::AlternatesWith) => "ALTERNATES_WITH",
        Fed::Control(Control::Or(_)) => "OR_PREDICATE",
    }
}

fn block_name(kind: &BlockKind) -> &'static str {
    match kind {
        BlockKind::Section(_) => "SECTION",
        BlockKind::Repeated(_) => "REPEATED",
        BlockKind::Predicate(_) => "PREDICATE",
        BlockKind::If { .. } => "IF",
        BlockKind::Macro(_) => "MACRO",
    }
}

impl Assembler {
    fn node_name(&self, id: usize) -> &'static str {
        match &self.nodes[id].kind {
            NodeKind::Root => "ROOT",
            NodeKind::Or(_) => "OR_PREDICATE",
            NodeKind::Block(kind) => block_name(kind),
        }
    }

    fn state_for(&self, id: usize) -> State {
        match &self.nodes[id].kind {
            NodeKind::Root => State::Root,
            NodeKind::Or(_) => State::OrPredicate,
            NodeKind::Block(BlockKind::Section(_)) => State::Section,
            NodeKind::Block(BlockKind::Repeated(_)) => State::Repeated,
            NodeKind::Block(BlockKind::Predicate(_)) => State::Predicate,
            NodeKind::Block(BlockKind::If { .. }) => State::If,
            NodeKind::Block(BlockKind::Macro(_)) => State::Macro,
        }
    }

    fn error(&mut self, message: String, pos: Pos) {
        self.errors.push(Diagnostic::syntax(message, Some(pos)));
    }

    fn new_node(&mut self, kind: NodeKind, pos: Pos) -> usize {
        self.nodes.push(Node {
            kind,
            pos,
            consequent: Vec::new(),
            alternate: None,
            alternates_with: Vec::new(),
            slot: 0,
        });
        self.nodes.len() - 1
    }

    /// Closes the innermost open block: it becomes an instruction in its slot.
    fn pop(&mut self) {
        if let Some((parent, block)) = self.stack.pop() {
            self.close(parent, block);
            self.current = parent;
            self.state = self.state_for(parent);
        }
    }

    fn close(&mut self, parent: usize, block: usize) {
        let inst = self.build_block(block);
        let slot = self.nodes[block].slot;
        self.nodes[parent].consequent[slot] = inst;
    }

    /// Feeds one instruction at `pos`.
    pub fn accept(&mut self, fed: Fed, pos: Pos) {
        match self.state {
            State::Dead => return,
            State::Eof => {
                let name = fed_name(&fed);
                self.error(msg::transition_from_eof(name), pos);
                self.state = State::Dead;
                return;
            }
            _ => {}
        }
        // Leaves are most of what arrives; they go straight to the current list.
        let fed = match fed {
            Fed::Leaf(inst) => {
                let node = &mut self.nodes[self.current];
                let list = if self.state == State::AlternatesWith {
                    &mut node.alternates_with
                } else {
                    &mut node.consequent
                };
                push_merged(list, inst);
                return;
            }
            Fed::Open(kind) => {
                if self.stack.len() >= MAX_NESTING {
                    self.error(msg::nesting_too_deep(MAX_NESTING), pos);
                    return;
                }
                // The reference adds the block to the current node's consequent, even in
                // the alternates-with state (where the rest goes to the separator block).
                let id = self.new_node(NodeKind::Block(kind), pos);
                let parent = &mut self.nodes[self.current].consequent;
                let slot = parent.len();
                parent.push(placeholder());
                self.nodes[id].slot = slot;
                self.stack.push((self.current, id));
                self.current = id;
                self.state = self.state_for(id);
                return;
            }
            other => other,
        };
        let current_name = self.node_name(self.current);
        match (self.state, fed) {
            (State::Root, Fed::Control(Control::Eof)) => self.state = State::Eof,
            (State::Root, fed @ Fed::Control(_)) => {
                self.error(msg::not_allowed_at_root(fed_name(&fed)), pos);
            }
            (_, Fed::Control(Control::Eof)) => {
                self.error(msg::eof_in_block(current_name), pos);
            }
            (
                State::AlternatesWith | State::Section | State::Predicate | State::If,
                Fed::Control(Control::AlternatesWith),
            )
            | (State::OrPredicate | State::Macro, Fed::Control(Control::AlternatesWith)) => {
                self.error(
                    msg::not_allowed_in_block("ALTERNATES_WITH", current_name),
                    pos,
                );
            }
            (State::Repeated, Fed::Control(Control::AlternatesWith)) => {
                self.state = State::AlternatesWith;
            }
            (State::Eof | State::Dead, _) => unreachable!("handled above"),
            (State::Macro, Fed::Control(Control::Or(_))) => {
                self.error(msg::not_allowed_in_block("OR_PREDICATE", current_name), pos);
            }
            (State::Macro, Fed::Control(Control::End)) => self.pop(),
            (_, Fed::Control(Control::End)) => self.pop(),
            (State::OrPredicate, Fed::Control(Control::Or(call))) => {
                if matches!(self.nodes[self.current].kind, NodeKind::Or(None)) {
                    self.error(msg::dead_code("OR_PREDICATE"), pos);
                } else {
                    self.link_or(call, pos);
                }
            }
            (_, Fed::Control(Control::Or(call))) => {
                self.link_or(call, pos);
                self.state = State::OrPredicate;
            }
            (_, Fed::Leaf(_)) => unreachable!("handled above"),
            (_, Fed::Open(_)) => unreachable!("handled above"),
        }
    }

    fn link_or(&mut self, call: Option<PredicateCall>, pos: Pos) {
        let id = self.new_node(NodeKind::Or(call), pos);
        self.nodes[self.current].alternate = Some(id);
        self.current = id;
    }

    /// Finishes the tree. Unclosed blocks stay in it (the errors were reported at EOF).
    pub fn finish(mut self) -> (Block, Vec<Diagnostic>) {
        while let Some((parent, block)) = self.stack.pop() {
            self.close(parent, block);
        }
        let root = std::mem::take(&mut self.nodes[0].consequent);
        (root, self.errors)
    }

    fn build_alternates(&mut self, id: usize) -> tree::Alternate {
        let mut branches = Vec::new();
        let mut next = self.nodes[id].alternate;
        while let Some(or_id) = next {
            let node = &mut self.nodes[or_id];
            let body = std::mem::take(&mut node.consequent);
            let call = match std::mem::replace(&mut node.kind, NodeKind::Root) {
                NodeKind::Or(call) => call,
                _ => None,
            };
            branches.push(OrBranch {
                call,
                body,
                pos: node.pos,
            });
            next = node.alternate;
        }
        branches.into_boxed_slice()
    }

    fn build_block(&mut self, id: usize) -> Inst {
        let body = std::mem::take(&mut self.nodes[id].consequent);
        let alt = self.build_alternates(id);
        let pos = self.nodes[id].pos;
        let kind = match std::mem::replace(&mut self.nodes[id].kind, NodeKind::Root) {
            NodeKind::Block(kind) => kind,
            _ => unreachable!("only block nodes are children"),
        };
        match kind {
            BlockKind::Section(path) => Inst::Section(Box::new(tree::Section { path, body, alt })),
            BlockKind::Repeated(path) => {
                let alternates_with = std::mem::take(&mut self.nodes[id].alternates_with);
                Inst::Repeated(Box::new(tree::Repeated {
                    path,
                    body,
                    alt,
                    alternates_with,
                }))
            }
            BlockKind::Predicate(call) => Inst::Predicate(Box::new(tree::Predicate {
                call,
                body,
                alt,
                pos,
            })),
            BlockKind::If { ops, vars } => Inst::If(Box::new(tree::If {
                ops,
                vars,
                body,
                alt,
                pos,
            })),
            BlockKind::Macro(name) => Inst::Macro(std::sync::Arc::new(tree::Macro { name, body })),
        }
    }
}

/// Appends `inst`, merging adjacent literal text into one instruction and fusing text
/// with a plain variable tag that follows it. Empty text is dropped, and nothing merges
/// into an open block's [`placeholder`].
fn push_merged(block: &mut Block, inst: Inst) {
    if matches!(&inst, Inst::Text(t) if t.is_empty()) {
        return;
    }
    let Some(Inst::Text(prev)) = block
        .last_mut()
        .filter(|i| !matches!(i, Inst::Text(t) if t.is_empty()))
    else {
        block.push(inst);
        return;
    };
    match inst {
        Inst::Text(next) => {
            let mut s = String::with_capacity(prev.len() + next.len());
            s.push_str(prev);
            s.push_str(&next);
            *prev = s.into_boxed_str();
        }
        Inst::PrintCurrent => {
            let text = std::mem::take(prev);
            *block.last_mut().expect("the text") = Inst::TextThenCurrent(text);
        }
        Inst::Print(path) => {
            let text = std::mem::take(prev);
            *block.last_mut().expect("the text") = Inst::TextThenPrint(Box::new((text, *path)));
        }
        other => block.push(other),
    }
}
