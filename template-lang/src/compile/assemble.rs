//! Weaves the flat stream of instructions into a tree, with the reference engine's state
//! machine: the same blocks, the same error messages, and the same recovery after an
//! error, so that a template with syntax errors still renders exactly as the reference's
//! best effort does.
//!
//! Blocks are built in an arena while open (an `{.or}` branch becomes the receiving node of
//! its block, just as in the reference). The instructions of the open nodes wait on one
//! stack, each node's above its parent's, final as they arrive (adjacent text merged). A
//! node's list moves off the stack, allocated once at its size, when the node is done
//! with: at its `{.or}` or `{.end}`. A block then becomes one instruction on its parent's
//! part of the stack; blocks still open at the end are closed then, innermost first.

use super::text::TextPool;
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

enum NodeKind {
    Root,
    Block(BlockKind),
    Or(Option<PredicateCall>),
}

struct Node {
    kind: NodeKind,
    pos: Pos,
    /// Set when the node is done with; until then its instructions are on the stack.
    consequent: Block,
    /// Where the node's instructions start on the stack.
    start: usize,
    alternate: Option<usize>,
    alternates_with: Block,
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

/// The tree-building state machine, writing text into the template's [`TextPool`].
pub struct Assembler<'p, 's> {
    pub pool: &'p mut TextPool<'s>,
    nodes: Vec<Node>,
    /// The instructions of the open nodes, innermost last.
    pending: Vec<Inst>,
    /// The open blocks, innermost last: (the node each opened in, the block's node).
    stack: Vec<(usize, usize)>,
    current: usize,
    state: State,
    pub errors: Vec<Diagnostic>,
}

impl<'p, 's> Assembler<'p, 's> {
    /// An assembler for a source of `len` bytes, its lists sized for it up front: demo
    /// and benchmark pages have a tag every 30 bytes or so and a block every 100, and
    /// growing the lists step by step was a tenth of what assembling cost.
    pub fn for_source(len: usize, pool: &'p mut TextPool<'s>) -> Assembler<'p, 's> {
        let mut nodes = Vec::with_capacity(1 + len / 100);
        nodes.push(Node {
            kind: NodeKind::Root,
            pos: Pos::default(),
            consequent: Vec::new(),
            start: 0,
            alternate: None,
            alternates_with: Vec::new(),
        });
        Assembler {
            pool,
            nodes,
            pending: Vec::with_capacity(len / 30),
            stack: Vec::with_capacity(8),
            current: 0,
            state: State::Root,
            errors: Vec::new(),
        }
    }
}

fn leaf_name(inst: &Inst) -> &'static str {
    match inst {
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
    }
}

fn control_name(control: &Control) -> &'static str {
    match control {
        Control::End => "END",
        Control::Eof => "EOF",
        Control::AlternatesWith => "ALTERNATES_WITH",
        Control::Or(_) => "OR_PREDICATE",
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

impl Assembler<'_, '_> {
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
            start: self.pending.len(),
            alternate: None,
            alternates_with: Vec::new(),
        });
        self.nodes.len() - 1
    }

    /// Closes the innermost open block: it becomes an instruction in its parent.
    fn pop(&mut self) {
        if let Some((parent, block)) = self.stack.pop() {
            self.close(parent, block);
            self.state = self.state_for(parent);
        }
    }

    /// Moves the current node's instructions off the stack: the node is done with.
    fn settle_current(&mut self) {
        let node = &mut self.nodes[self.current];
        node.consequent = self.pending.split_off(node.start);
    }

    fn close(&mut self, parent: usize, block: usize) {
        self.settle_current();
        let inst = self.build_block(block);
        self.pending.push(inst);
        self.current = parent;
    }

    /// Whether input still counts after `{.eof}`: the first thing that follows it is an
    /// error (named by `name`), and everything after that is ignored.
    fn ended(&mut self, name: impl FnOnce() -> &'static str, pos: Pos) -> bool {
        match self.state {
            State::Dead => true,
            State::Eof => {
                self.error(msg::transition_from_eof(name()), pos);
                self.state = State::Dead;
                true
            }
            _ => false,
        }
    }

    /// Feeds literal text (a piece of the source, or made-up text) at `pos`.
    pub fn text(&mut self, piece: &str, pos: Pos) {
        let span = self.pool.span(piece);
        self.leaf(Inst::Text(span), pos);
    }

    /// Feeds a leaf instruction at `pos`. Leaves are most of what arrives; they go straight
    /// to the current list.
    pub fn leaf(&mut self, inst: Inst, pos: Pos) {
        if self.ended(|| leaf_name(&inst), pos) {
            return;
        }
        if self.state == State::AlternatesWith {
            let list = &mut self.nodes[self.current].alternates_with;
            push_merged(list, inst, 0, self.pool);
        } else {
            let start = self.nodes[self.current].start;
            push_merged(&mut self.pending, inst, start, self.pool);
        }
    }

    /// Opens a block at `pos`.
    pub fn open(&mut self, kind: BlockKind, pos: Pos) {
        if self.ended(|| block_name(&kind), pos) {
            return;
        }
        if self.stack.len() >= MAX_NESTING {
            self.error(msg::nesting_too_deep(MAX_NESTING), pos);
            return;
        }
        // The reference adds the block to the current node's consequent, even in the
        // alternates-with state (where the rest goes to the separator block): it lands on
        // the stack when it closes.
        let id = self.new_node(NodeKind::Block(kind), pos);
        self.stack.push((self.current, id));
        self.current = id;
        self.state = self.state_for(id);
    }

    /// Feeds `{.end}`, `{.eof}`, `{.alternates with}` or `{.or}` at `pos`.
    pub fn control(&mut self, control: Control, pos: Pos) {
        if self.ended(|| control_name(&control), pos) {
            return;
        }
        let current_name = self.node_name(self.current);
        match (self.state, control) {
            (State::Root, Control::Eof) => self.state = State::Eof,
            (State::Root, control) => {
                self.error(msg::not_allowed_at_root(control_name(&control)), pos);
            }
            (_, Control::Eof) => {
                self.error(msg::eof_in_block(current_name), pos);
            }
            (State::Repeated, Control::AlternatesWith) => {
                self.state = State::AlternatesWith;
            }
            (_, Control::AlternatesWith) => {
                self.error(
                    msg::not_allowed_in_block("ALTERNATES_WITH", current_name),
                    pos,
                );
            }
            (State::Macro, Control::Or(_)) => {
                self.error(msg::not_allowed_in_block("OR_PREDICATE", current_name), pos);
            }
            (_, Control::End) => self.pop(),
            (State::OrPredicate, Control::Or(call)) => {
                if matches!(self.nodes[self.current].kind, NodeKind::Or(None)) {
                    self.error(msg::dead_code("OR_PREDICATE"), pos);
                } else {
                    self.link_or(call, pos);
                }
            }
            (_, Control::Or(call)) => {
                self.link_or(call, pos);
                self.state = State::OrPredicate;
            }
        }
    }

    fn link_or(&mut self, call: Option<PredicateCall>, pos: Pos) {
        self.settle_current();
        let id = self.new_node(NodeKind::Or(call), pos);
        self.nodes[self.current].alternate = Some(id);
        self.current = id;
    }

    /// Finishes the tree. Unclosed blocks stay in it (the errors were reported at EOF).
    pub fn finish(mut self) -> (Block, Vec<Diagnostic>) {
        while let Some((parent, block)) = self.stack.pop() {
            self.close(parent, block);
        }
        (self.pending, self.errors)
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

/// Appends `inst` to the list that starts at `start` in `block`, merging adjacent literal
/// text into one instruction and fusing text with a plain variable tag that follows it.
/// Empty text is dropped.
fn push_merged(block: &mut Block, inst: Inst, start: usize, pool: &mut TextPool) {
    if matches!(&inst, Inst::Text(t) if t.is_empty()) {
        return;
    }
    let len = block.len();
    let Some(Inst::Text(prev)) = block.last_mut().filter(|_| len > start) else {
        block.push(inst);
        return;
    };
    match inst {
        Inst::Text(next) => *prev = pool.join(*prev, next),
        Inst::PrintCurrent => {
            let text = *prev;
            *block.last_mut().expect("the text") = Inst::TextThenCurrent(text);
        }
        Inst::Print(path) => {
            let text = *prev;
            *block.last_mut().expect("the text") = Inst::TextThenPrint(Box::new((text, *path)));
        }
        other => block.push(other),
    }
}
