//! Weaves the flat stream of instructions into a tree, with the reference engine's state
//! machine: the same blocks, the same error messages, and the same recovery after an
//! error, so that a template with syntax errors still renders exactly as the reference's
//! best effort does.
//!
//! Blocks are built in an arena while open (an `{.or}` branch becomes the receiving node of
//! its block, just as in the reference). The instructions of the open nodes wait on one
//! stack, each node's above its parent's, final as they arrive (adjacent text merged). A
//! node's instructions move off the stack to the end of the template's instruction list
//! when the node is done with, at its `{.or}` or `{.end}`, and become a range of it. A
//! block then becomes one instruction on its parent's part of the stack; blocks still open
//! at the end are closed then, innermost first.

use super::Draft;
use super::tree::{self, Block, Inst, OrBranch, PathId, PathIds, PredicateCall};
use crate::error::{Diagnostic, msg};
use crate::syntax::path::Head;
use crate::syntax::scan::At;
use crate::syntax::tag::Op;

/// Blocks nest at most this deep; deeper templates are rejected with a syntax error, which
/// keeps compilation and execution recursion bounded whatever the input.
pub const MAX_NESTING: usize = 128;

/// The kinds of block instruction.
pub enum BlockKind {
    Section(PathId),
    Repeated(PathId),
    Predicate(PredicateCall),
    If { ops: Box<[Op]>, vars: PathIds },
    Macro(Box<str>),
}

/// Instructions that are not leaves.
pub enum Control {
    End,
    Eof,
    AlternatesWith,
    Or(Option<PredicateCall>),
}

/// An open block: its instruction's parts, already in the draft's list of their kind at
/// this index, whose body and alternates are filled in when the block closes. Put there
/// when the block opens, so that closing it moves no predicate call or reference (each
/// went through the node, out of it and into the list, several times a block).
#[derive(Clone, Copy)]
enum OpenBlock {
    Section(u32),
    Repeated(u32),
    Predicate(u32),
    If(u32),
    Macro(u32),
}

enum NodeKind {
    Root,
    Block(OpenBlock),
    Or(Option<PredicateCall>),
}

struct Node {
    kind: NodeKind,
    at: At,
    /// Set when the node is done with; until then its instructions are on the stack.
    consequent: Block,
    /// Where the node's instructions start on the stack.
    start: u32,
    /// Where a repeated section's separator starts on the separators' stack: the
    /// separator fills while the section's own instructions still arrive (blocks opened
    /// after `{.alternates with}` go to the section's body).
    separator: u32,
    alternate: Option<u32>,
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

/// The tree-building state machine, writing into the template's [`Draft`].
pub(crate) struct Assembler<'p, 's> {
    pub draft: &'p mut Draft<'s>,
    nodes: Vec<Node>,
    /// The instructions of the open nodes, innermost last.
    pending: Vec<Inst>,
    /// The separators of the open repeated sections, innermost last (kept apart from the
    /// nodes, so that a node is small enough to be moved without a call to `memcpy`).
    separators: Vec<Inst>,
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
    pub fn for_source(len: usize, draft: &'p mut Draft<'s>) -> Assembler<'p, 's> {
        let Lists {
            mut nodes,
            mut pending,
            separators,
            stack,
        } = SPARE.with_borrow_mut(Vec::pop).unwrap_or_default();
        nodes.reserve(1 + len / 100);
        pending.reserve(len / 30);
        nodes.push(Node {
            kind: NodeKind::Root,
            at: At::default(),
            consequent: Block::EMPTY,
            start: 0,
            separator: 0,
            alternate: None,
        });
        Assembler {
            draft,
            nodes,
            pending,
            separators,
            stack,
            current: 0,
            state: State::Root,
            errors: Vec::new(),
        }
    }
}

/// An assembler's working lists, empty. A page compiles a dozen templates, and each host
/// tag's attribute values and body with an assembler of their own (38 on wright's
/// layout): each kept its lists for the next on the same thread instead of allocating
/// three and growing one.
#[derive(Default)]
struct Lists {
    nodes: Vec<Node>,
    pending: Vec<Inst>,
    separators: Vec<Inst>,
    stack: Vec<(usize, usize)>,
}

thread_local! {
    /// Spare lists, at most [`SPARE_LISTS`] sets (one per assembler open at a time: a
    /// template's and a host tag's), none with room for more than [`SPARE_NODES`] nodes
    /// or [`SPARE_INSTS`] instructions (a template of about 100 KB; a bigger one's lists
    /// are freed, so that a thread keeps at most about 1 MB).
    static SPARE: std::cell::RefCell<Vec<Lists>> = const { std::cell::RefCell::new(Vec::new()) };
}
const SPARE_LISTS: usize = 4;
const SPARE_NODES: usize = 1 << 10;
const SPARE_INSTS: usize = 1 << 12;

fn leaf_name(inst: &Inst, others: &[tree::Other]) -> &'static str {
    match inst {
        Inst::Text(_) => "TEXT",
        Inst::PrintCurrent
        | Inst::Print(_)
        | Inst::TextThenCurrent(_)
        | Inst::TextThenPrint(..)
        | Inst::Variable(_) => "VARIABLE",
        Inst::Section(_) => "SECTION",
        Inst::Repeated(_) => "REPEATED",
        Inst::Other(id) => others[id.0 as usize].name(),
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

fn open_block_name(block: OpenBlock) -> &'static str {
    match block {
        OpenBlock::Section(_) => "SECTION",
        OpenBlock::Repeated(_) => "REPEATED",
        OpenBlock::Predicate(_) => "PREDICATE",
        OpenBlock::If(_) => "IF",
        OpenBlock::Macro(_) => "MACRO",
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
            NodeKind::Block(block) => open_block_name(*block),
        }
    }

    fn state_for(&self, id: usize) -> State {
        match &self.nodes[id].kind {
            NodeKind::Root => State::Root,
            NodeKind::Or(_) => State::OrPredicate,
            NodeKind::Block(OpenBlock::Section(_)) => State::Section,
            NodeKind::Block(OpenBlock::Repeated(_)) => State::Repeated,
            NodeKind::Block(OpenBlock::Predicate(_)) => State::Predicate,
            NodeKind::Block(OpenBlock::If(_)) => State::If,
            NodeKind::Block(OpenBlock::Macro(_)) => State::Macro,
        }
    }

    fn error(&mut self, message: String, at: At) {
        let pos = self.draft.pos(at);
        self.errors.push(Diagnostic::syntax(message, Some(pos)));
    }

    fn new_node(&mut self, kind: NodeKind, at: At) -> usize {
        self.nodes.push(Node {
            kind,
            at,
            consequent: Block::EMPTY,
            start: self.pending.len() as u32,
            separator: self.separators.len() as u32,
            alternate: None,
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
        let start = self.nodes[self.current].start as usize;
        let block = self.settle(start);
        self.nodes[self.current].consequent = block;
    }

    /// Moves the stack's instructions from `start` up to the template's list.
    fn settle(&mut self, start: usize) -> Block {
        let block = append(&mut self.draft.insts, &self.pending[start..]);
        self.pending.truncate(start);
        block
    }

    fn close(&mut self, parent: usize, block: usize) {
        self.settle_current();
        let inst = self.build_block(block);
        // The block's node and every node after it (its children and `{.or}` branches,
        // and theirs) are done with: only the open blocks, before it, are still used.
        self.nodes.truncate(block);
        self.pending.push(inst);
        self.current = parent;
    }

    /// Whether input still counts after `{.eof}`: the first thing that follows it is an
    /// error (named by `name`), and everything after that is ignored.
    fn ended(&mut self, name: impl FnOnce() -> &'static str, at: At) -> bool {
        match self.state {
            State::Dead => true,
            State::Eof => {
                self.error(msg::transition_from_eof(name()), at);
                self.state = State::Dead;
                true
            }
            _ => false,
        }
    }

    /// Feeds literal text (a piece of the source, or made-up text) at offset `at`.
    // Inlined: a call's entry and exit were about a third of what a piece of text cost.
    #[inline]
    pub fn text(&mut self, piece: &str, at: At) {
        let span = self.draft.text.span(piece);
        self.leaf(Inst::Text(span), at);
    }

    /// Feeds a leaf instruction at offset `at`. Leaves are most of what arrives; they go straight
    /// to the current list.
    // Inlined, with `push_merged`: passed to a call, the instruction was written to the
    // stack in pieces and read back whole, which stalled store forwarding on every tag.
    #[inline(always)]
    pub fn leaf(&mut self, inst: Inst, at: At) {
        if matches!(self.state, State::Eof | State::Dead) {
            let name = leaf_name(&inst, &self.draft.parts.others);
            if self.ended(|| name, at) {
                return;
            }
        }
        if self.state == State::AlternatesWith {
            let start = self.nodes[self.current].separator as usize;
            push_merged(&mut self.separators, inst, start);
        } else {
            let start = self.nodes[self.current].start as usize;
            push_merged(&mut self.pending, inst, start);
        }
    }

    /// Feeds a variable tag without formatters that prints `path`.
    pub fn print(&mut self, path: PathId, at: At) {
        let entry = &self.draft.paths[path.0 as usize];
        if matches!(entry.head, Head::Current) && entry.rest_len == 0 {
            return self.leaf(Inst::PrintCurrent, at);
        }
        self.leaf(Inst::Print(path), at);
    }

    /// Opens a block at offset `at`.
    pub fn open(&mut self, kind: BlockKind, at: At) {
        if self.ended(|| block_name(&kind), at) {
            return;
        }
        if self.stack.len() >= MAX_NESTING {
            self.error(msg::nesting_too_deep(MAX_NESTING), at);
            return;
        }
        // The reference adds the block to the current node's consequent, even in the
        // alternates-with state (where the rest goes to the separator block): it lands on
        // the stack when it closes.
        let block = self.open_parts(kind, at);
        let id = self.new_node(NodeKind::Block(block), at);
        self.stack.push((self.current, id));
        self.current = id;
        self.state = self.state_for(id);
    }

    /// Feeds `{.end}` at offset `at`: what [`Assembler::control`] does with
    /// [`Control::End`], with the usual case (a block open, input not ended) first,
    /// without building and matching a [`Control`].
    #[inline]
    pub fn end(&mut self, at: At) {
        match self.state {
            State::Root | State::Eof | State::Dead => self.control(Control::End, at),
            _ => self.pop(),
        }
    }

    /// Feeds `{.or}` without a predicate at offset `at`: what [`Assembler::control`] does
    /// with `Control::Or(None)`, with the usual case (a block that takes an `{.or}`, input
    /// not ended) first.
    #[inline]
    pub fn or(&mut self, at: At) {
        match self.state {
            State::Root | State::Eof | State::Dead | State::Macro | State::OrPredicate => {
                self.control(Control::Or(None), at)
            }
            _ => {
                self.link_or(None, at);
                self.state = State::OrPredicate;
            }
        }
    }

    /// Feeds `{.end}`, `{.eof}`, `{.alternates with}` or `{.or}` at offset `at`.
    pub fn control(&mut self, control: Control, at: At) {
        if self.ended(|| control_name(&control), at) {
            return;
        }
        let current_name = || self.node_name(self.current);
        match (self.state, control) {
            (State::Root, Control::Eof) => self.state = State::Eof,
            (State::Root, control) => {
                self.error(msg::not_allowed_at_root(control_name(&control)), at);
            }
            (_, Control::Eof) => {
                self.error(msg::eof_in_block(current_name()), at);
            }
            (State::Repeated, Control::AlternatesWith) => {
                self.state = State::AlternatesWith;
            }
            (_, Control::AlternatesWith) => {
                let message = msg::not_allowed_in_block("ALTERNATES_WITH", current_name());
                self.error(message, at);
            }
            (State::Macro, Control::Or(_)) => {
                let message = msg::not_allowed_in_block("OR_PREDICATE", current_name());
                self.error(message, at);
            }
            (_, Control::End) => self.pop(),
            (State::OrPredicate, Control::Or(call)) => {
                if matches!(self.nodes[self.current].kind, NodeKind::Or(None)) {
                    self.error(msg::dead_code("OR_PREDICATE"), at);
                } else {
                    self.link_or(call, at);
                }
            }
            (_, Control::Or(call)) => {
                self.link_or(call, at);
                self.state = State::OrPredicate;
            }
        }
    }

    fn link_or(&mut self, call: Option<PredicateCall>, at: At) {
        self.settle_current();
        let id = self.new_node(NodeKind::Or(call), at);
        self.nodes[self.current].alternate = Some(id as u32);
        self.current = id;
    }

    /// Finishes the tree. Unclosed blocks stay in it (the errors were reported at EOF).
    pub fn finish(mut self) -> (Block, Vec<Diagnostic>) {
        while let Some((parent, block)) = self.stack.pop() {
            self.close(parent, block);
        }
        let root = self.settle(0);
        let mut lists = Lists {
            nodes: self.nodes,
            pending: self.pending,
            separators: self.separators,
            stack: self.stack,
        };
        if lists.nodes.capacity() <= SPARE_NODES && lists.pending.capacity() <= SPARE_INSTS {
            lists.nodes.clear();
            lists.pending.clear();
            lists.separators.clear();
            lists.stack.clear();
            SPARE.with_borrow_mut(|spare| {
                if spare.len() < SPARE_LISTS {
                    spare.push(lists);
                }
            });
        }
        (root, self.errors)
    }

    fn build_alternates(&mut self, id: usize) -> tree::Alternate {
        // Counted first, so that the list is allocated at its size (a list grown and then
        // shrunk into a box was two allocations and a copy).
        let mut count = 0;
        let mut next = self.nodes[id].alternate;
        while let Some(or_id) = next {
            count += 1;
            next = self.nodes[or_id as usize].alternate;
        }
        if count == 0 {
            return tree::Alternate::default();
        }
        let branches = &mut self.draft.parts.branches;
        let first = branches.len();
        branches.reserve(count);
        let mut next = self.nodes[id].alternate;
        while let Some(or_id) = next {
            let node = &mut self.nodes[or_id as usize];
            let body = node.consequent;
            let call = match std::mem::replace(&mut node.kind, NodeKind::Root) {
                NodeKind::Or(call) => call,
                _ => None,
            };
            branches.push(OrBranch {
                call,
                body,
                at: node.at,
            });
            next = node.alternate;
        }
        tree::Alternate::new(first, count)
    }

    /// A block's parts, put in the draft's list of their kind as the block opens (its
    /// body and alternates empty until it closes: [`Assembler::build_block`]).
    fn open_parts(&mut self, kind: BlockKind, at: At) -> OpenBlock {
        let (body, alt) = (Block::EMPTY, tree::Alternate::default());
        let parts = &mut self.draft.parts;
        match kind {
            BlockKind::Section(path) => {
                parts.sections.push(tree::Section { path, body, alt });
                OpenBlock::Section(parts.sections.len() as u32 - 1)
            }
            BlockKind::Repeated(path) => {
                parts.repeats.push(tree::Repeated {
                    path,
                    body,
                    alt,
                    alternates_with: Block::EMPTY,
                });
                OpenBlock::Repeated(parts.repeats.len() as u32 - 1)
            }
            BlockKind::Predicate(call) => {
                parts.others.push(tree::Other::Predicate(tree::Predicate {
                    call,
                    body,
                    alt,
                    at,
                }));
                OpenBlock::Predicate(parts.others.len() as u32 - 1)
            }
            BlockKind::If { ops, vars } => {
                parts.others.push(tree::Other::If(tree::If {
                    ops,
                    vars,
                    body,
                    alt,
                    at,
                }));
                OpenBlock::If(parts.others.len() as u32 - 1)
            }
            BlockKind::Macro(name) => {
                parts
                    .others
                    .push(tree::Other::Macro(tree::Macro { name, body }));
                OpenBlock::Macro(parts.others.len() as u32 - 1)
            }
        }
    }

    /// The instruction of the block at node `id`, which is done with: its body and
    /// alternates written into the parts it put in the draft's lists when it opened.
    fn build_block(&mut self, id: usize) -> Inst {
        let body = self.nodes[id].consequent;
        let alt = self.build_alternates(id);
        let NodeKind::Block(block) = self.nodes[id].kind else {
            unreachable!("only block nodes are children")
        };
        let parts = &mut self.draft.parts;
        match block {
            OpenBlock::Section(i) => {
                let section = &mut parts.sections[i as usize];
                (section.body, section.alt) = (body, alt);
                Inst::Section(tree::SectionId(i))
            }
            OpenBlock::Repeated(i) => {
                let start = self.nodes[id].separator as usize;
                let alternates_with = append(&mut self.draft.insts, &self.separators[start..]);
                self.separators.truncate(start);
                let repeated = &mut self.draft.parts.repeats[i as usize];
                (repeated.body, repeated.alt) = (body, alt);
                repeated.alternates_with = alternates_with;
                Inst::Repeated(tree::RepeatedId(i))
            }
            OpenBlock::Predicate(i) | OpenBlock::If(i) | OpenBlock::Macro(i) => {
                match &mut parts.others[i as usize] {
                    tree::Other::Predicate(p) => (p.body, p.alt) = (body, alt),
                    tree::Other::If(p) => (p.body, p.alt) = (body, alt),
                    tree::Other::Macro(m) => m.body = body,
                    _ => unreachable!("a block's parts are a predicate, an `.if` or a macro"),
                }
                Inst::Other(tree::OtherId(i))
            }
        }
    }
}

/// Appends a finished block's instructions to the template's list (a copy of the
/// slice: extending from a drain went instruction by instruction).
fn append(insts: &mut Vec<Inst>, block: &[Inst]) -> Block {
    let first = insts.len();
    insts.extend_from_slice(block);
    Block::new(first, insts.len() - first)
}

/// Appends `inst` to the list that starts at `start` in `block`, merging literal text
/// that goes on where the text before it ends into one instruction and fusing text with a
/// plain variable tag that follows it. Empty text is dropped.
#[inline(always)]
fn push_merged(block: &mut Vec<Inst>, inst: Inst, start: usize) {
    if matches!(&inst, Inst::Text(t) if t.is_empty()) {
        return;
    }
    let len = block.len();
    let Some(Inst::Text(prev)) = block.last_mut().filter(|_| len > start) else {
        block.push(inst);
        return;
    };
    match inst {
        // Text that goes on where the previous piece ends (around a tag that prints as
        // text) stays one range; text apart from it (across a comment) is a second
        // instruction rather than a copy of both: the same output, and the template's
        // text stays its source.
        Inst::Text(next) if prev.end() == next.start => prev.len += next.len,
        Inst::PrintCurrent => {
            let text = *prev;
            *block.last_mut().expect("the text") = Inst::TextThenCurrent(text);
        }
        Inst::Print(path) => {
            let text = *prev;
            *block.last_mut().expect("the text") = Inst::TextThenPrint(text, path);
        }
        other => block.push(other),
    }
}
