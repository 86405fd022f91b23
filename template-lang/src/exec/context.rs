//! The state of one execution: the output buffer, the stack of frames that variables
//! resolve against, diagnostics, partial depth and the limits that stop hostile templates.

mod fragment;

use std::borrow::Cow;
use std::cell::{Cell, OnceCell};
use std::sync::Arc;

use rustc_hash::FxHashSet;

use super::Env;
use crate::compile::tree::{Block, Code, Macro, PathId};
use crate::compile::{PartialEntry, Template};
use crate::error::{Diagnostic, Pos, msg};
use crate::syntax::path::{Head, Path, Seg};
use crate::syntax::scan::{At, LineIndex};
use crate::value::{Node, Val, View, child_of};
pub use fragment::Fragment;

/// One level of the context stack: a node, and what sections and formatters bound there.
pub(crate) struct Frame<'a> {
    pub node: Val<'a>,
    /// The iteration index inside a repeated section, or -1.
    pub index: i64,
    /// Resolution does not look past this frame (`apply` with `private`).
    pub stop: bool,
    /// Which push made this frame ([`Ctx::push`] numbers them): with the frame's depth and
    /// node, what identifies the stack from it down for [`Ctx::resolve`]'s memo.
    push: u32,
    pub vars: Vec<(Cow<'a, str>, Val<'a>)>,
    /// Macros by name, with the code of the template that defined them.
    pub macros: Vec<(&'a str, &'a Macro, Code<'a>)>,
}

impl<'a> Frame<'a> {
    fn new(node: Val<'a>, push: u32) -> Frame<'a> {
        Frame {
            node,
            index: -1,
            stop: false,
            push,
            vars: Vec::new(),
            macros: Vec::new(),
        }
    }

    /// Forgets the index, `private` stop, variables and macros, as a new frame has none.
    #[inline]
    fn clear_bindings(&mut self) {
        self.index = -1;
        self.stop = false;
        self.vars.clear();
        self.macros.clear();
    }

    fn var(&self, name: &str) -> Option<&Val<'a>> {
        self.vars
            .iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v)
    }
}

/// What a partial name denotes at a point of execution.
pub enum PartialTarget<'a> {
    /// A compiled partial, shared (hosts that keep its output know it by its address).
    Template(&'a Arc<Template>),
    /// A macro, with the code of the template that defined it.
    Macro(&'a Macro, Code<'a>),
    /// A partial with syntax errors: renders nothing.
    Empty,
}

/// Execution state handed to every instruction, formatter and predicate.
pub struct Ctx<'a> {
    /// The buffer output goes to (swapped while a partial renders into its own).
    pub out: String,
    /// The code of the template whose instructions run: their text is spans of its text,
    /// their blocks ranges of its instructions.
    pub(crate) code: Code<'a>,
    pub env: &'a Env<'a>,
    stack: Vec<Frame<'a>>,
    errors: Vec<Diagnostic>,
    partial_depth: usize,
    /// Instructions left before the instruction limit; 0 once halted, so that one test
    /// stops every later instruction.
    steps_left: u64,
    /// The output limit, copied from the environment's limits to spare a pointer chase in
    /// the check every instruction makes.
    max_output: usize,
    halted: bool,
    /// Set by [`Ctx::fail`]: the current `{var|...}` chain is abandoned.
    failed: bool,
    /// The kind of instruction applying formatters (for the wording of failures).
    pub(crate) applying: &'static str,
    /// The partial being executed, for attributing diagnostics.
    partial: Option<&'a str>,
    /// Where the instruction applying formatters or a predicate starts, with the text of
    /// its template (a macro it applies runs with another), for errors that formatters and
    /// predicates raise without knowing where they were called from.
    at: Option<(At, &'a str)>,
    /// The lines of each text an error was reported in, by the text's address (texts
    /// live as long as the execution): a page can report an error on every pass of a
    /// loop, and working each position out from the start would cost as much as its text.
    line_indexes: Vec<(usize, LineIndex)>,
    reported: FxHashSet<usize>,
    pub(crate) i18n: Option<Box<crate::plugins::i18n::I18nState>>,
    /// The stack height at which a formatter chain runs in the current frame instead of a
    /// frame of its own ([`Ctx::enter_formatters`]); `usize::MAX` when none does.
    shared_frame_at: usize,
    /// Numbers frames as they are pushed ([`Frame::push`]). It wraps after 2^32 pushes,
    /// hundreds of times the pushes the default instruction limit allows.
    pushes: u32,
    /// What names resolved to below the frames of the current node ([`Ctx::resolve`]);
    /// allocated on first use.
    below: OnceCell<Box<[Cell<Below<'a>>; BELOW_SLOTS]>>,
    /// The last partial [`Ctx::partial_named`] found, and the name it was found by.
    last_partial: Option<(&'a str, &'a PartialEntry)>,
    /// Set while [`Ctx::run_recorded`] runs a block.
    recording: Option<Box<fragment::Recording>>,
}

/// Slots of [`Ctx::resolve`]'s memo, a direct-mapped table (a power of two).
const BELOW_SLOTS: usize = 64;

/// One remembered resolution: a path (by address), resolved from the frame at `depth`
/// (numbered `push`, holding the node at `base`) down, gave `value` (`None`: missing).
#[derive(Clone, Copy)]
struct Below<'a> {
    path: usize,
    depth: u32,
    push: u32,
    base: usize,
    value: Option<&'a Node>,
}

const NO_BELOW: Below<'static> = Below {
    path: 0,
    depth: 0,
    push: 0,
    base: 0,
    value: None,
};

impl<'a> Ctx<'a> {
    pub(crate) fn new(env: &'a Env<'a>, root: Val<'a>, out: String) -> Ctx<'a> {
        // Room for the nesting of most pages (the bench pages reach 6 to 9 frames), in a
        // block small enough (10 frames of 96 bytes) for glibc's per-thread cache of freed
        // chunks (up to about 1 KB): the 3 KB of 32 frames went through malloc's slower path
        // on every execution. Deeper pages grow the stack once.
        let mut stack = Vec::with_capacity(10);
        stack.push(Frame::new(root, 0));
        Ctx {
            out,
            code: Code::EMPTY,
            env,
            stack,
            errors: Vec::new(),
            partial_depth: 0,
            steps_left: env.limits.max_instructions,
            max_output: env.limits.max_output,
            halted: false,
            failed: false,
            applying: "VARIABLE",
            partial: None,
            at: None,
            line_indexes: Vec::new(),
            reported: FxHashSet::default(),
            i18n: None,
            shared_frame_at: usize::MAX,
            pushes: 0,
            below: OnceCell::new(),
            last_partial: None,
            recording: None,
        }
    }

    pub(crate) fn finish(self) -> (String, Vec<Diagnostic>) {
        (self.out, self.errors)
    }

    /// Records an execution error; rendering goes on. Without a position, it is reported
    /// where the instruction applying formatters or a predicate starts.
    pub fn error(&mut self, message: String, pos: Option<Pos>) {
        self.spoil();
        let pos = pos.or_else(|| self.at.map(|(at, text)| self.pos_in(at, text)));
        let mut d = Diagnostic::runtime(message, pos);
        if let Some(p) = self.partial {
            d = d.in_partial(p);
        }
        self.errors.push(d);
    }

    /// Records an execution error at `at` in the template that is running (where a host
    /// tag starts, say).
    pub fn error_at(&mut self, message: String, at: At) {
        let pos = self.pos_in(at, self.code.text);
        self.error(message, Some(pos));
    }

    /// The line and column of `at` in `text`, a text of this execution's templates.
    fn pos_in(&mut self, at: At, text: &str) -> Pos {
        let key = text.as_ptr() as usize;
        let i = match self.line_indexes.iter().position(|(k, _)| *k == key) {
            Some(i) => i,
            None => {
                self.line_indexes.push((key, LineIndex::new(text)));
                self.line_indexes.len() - 1
            }
        };
        self.line_indexes[i].1.pos(text, at)
    }

    /// Notes that the instruction at `at` applies formatters or a predicate.
    #[inline(always)]
    pub(crate) fn set_at(&mut self, at: At) {
        self.at = Some((at, self.code.text));
    }

    /// Abandons the formatter chain being applied: where the reference's formatter throws,
    /// the whole tag prints nothing (and a `.var` binds nothing), with this error. Later
    /// formatters in the chain do not run.
    pub fn fail(&mut self, message: &str) {
        self.error(msg::unexpected(self.applying, message), None);
        self.failed = true;
    }

    /// Takes the failure flag set by [`Ctx::fail`].
    pub(crate) fn take_failure(&mut self) -> bool {
        std::mem::take(&mut self.failed)
    }

    pub(crate) fn failing(&self) -> bool {
        self.failed
    }

    /// Records an error only the first time `key` reports it in this execution.
    pub(crate) fn error_once(&mut self, key: usize, message: String, at: At) {
        // Reported once per execution: a replayed block would not report it in the next.
        self.spoil();
        if self.reported.insert(key) {
            self.error_at(message, at);
        }
    }

    /// The current time in epoch milliseconds ([`Env::now_ms`]). Output that depends on it
    /// is never reused ([`Ctx::run_recorded`]).
    pub fn now_ms(&self) -> f64 {
        self.spoil();
        self.env.now_ms()
    }

    pub fn errors(&self) -> &[Diagnostic] {
        &self.errors
    }

    // ---- limits -----------------------------------------------------------------------

    /// Counts one executed instruction; false once execution must stop.
    #[inline(always)]
    pub(crate) fn tick(&mut self) -> bool {
        if self.steps_left == 0 || self.out.len() > self.max_output {
            return self.stop_at_limit();
        }
        self.steps_left -= 1;
        true
    }

    /// Halts at whichever limit was reached (the instruction limit first), once.
    #[cold]
    fn stop_at_limit(&mut self) -> bool {
        if !self.halted {
            let limits = &self.env.limits;
            if self.steps_left == 0 {
                self.halt(msg::instruction_limit(limits.max_instructions));
            } else {
                self.halt(msg::output_limit(limits.max_output));
            }
        }
        false
    }

    fn halt(&mut self, message: String) {
        self.halted = true;
        self.steps_left = 0;
        self.error(message, None);
    }

    pub fn halted(&self) -> bool {
        self.halted
    }

    // ---- frames -----------------------------------------------------------------------

    pub(crate) fn push(&mut self, node: Val<'a>) {
        self.pushes = self.pushes.wrapping_add(1);
        self.stack.push(Frame::new(node, self.pushes));
    }

    pub(crate) fn pop(&mut self) {
        // The root frame is never popped: pushes and pops are paired by construction.
        if self.stack.len() > 1 {
            self.stack.pop();
        }
    }

    pub(crate) fn top(&mut self) -> &mut Frame<'a> {
        self.stack
            .last_mut()
            .expect("the root frame is always there")
    }

    /// The index of the top frame (0 is the root).
    pub(crate) fn depth(&self) -> usize {
        self.stack.len() - 1
    }

    #[inline]
    pub(crate) fn set_index_at(&mut self, depth: usize, index: i64) {
        if let Some(frame) = self.stack.get_mut(depth) {
            frame.index = index;
        }
    }

    /// The element of the top frame's array at the top frame's iteration index.
    pub(crate) fn top_element(&self) -> Val<'a> {
        let frame = self.stack.last().expect("root frame");
        match usize::try_from(frame.index) {
            Ok(i) => frame.node.element(i),
            Err(_) => Val::Missing,
        }
    }

    /// The `i`-th element of the array of the frame at `depth`.
    #[inline]
    pub(crate) fn element_at(&self, depth: usize, i: usize) -> Val<'a> {
        self.stack
            .get(depth)
            .map_or(Val::Missing, |frame| frame.node.element(i))
    }

    /// Turns the top frame into a fresh frame for `node` (as [`Ctx::push`] would make),
    /// keeping its allocations.
    #[inline]
    pub(crate) fn reset_top(&mut self, node: Val<'a>) {
        let frame = self.top();
        frame.node = node;
        frame.clear_bindings();
    }

    /// [`Ctx::reset_top`] for a borrowed node, as loops over borrowed arrays use.
    #[inline(always)]
    pub(crate) fn reset_top_ref(&mut self, node: &'a Node) {
        let frame = self.top();
        // Overwrites only the pointer when the frame already holds a borrowed node (every
        // element after the first). Assigning a whole new `Val` compiles to a copy through
        // the stack that is read back wider than it was written, which stalls the CPU's
        // store forwarding: a third of the time of a loop with a small body.
        match &mut frame.node {
            Val::Ref(slot) => *slot = node,
            other => *other = Val::Ref(node),
        }
        frame.clear_bindings();
    }

    /// The node of the current frame.
    pub fn node(&self) -> &Val<'a> {
        &self.stack.last().expect("root frame").node
    }

    /// The frame enclosing the current formatter chain's: the one below the current frame,
    /// or the current frame itself when the chain shares it ([`Ctx::enter_formatters`]).
    pub fn parent_depth(&self) -> usize {
        if self.stack.len() == self.shared_frame_at {
            self.stack.len() - 1
        } else {
            self.stack.len().saturating_sub(2)
        }
    }

    /// Gives a formatter chain its frame, holding the tag's first value: a new frame, or,
    /// when that value is the current frame's own node, the current frame. A new frame
    /// holding the same node, with no index, variables or macros, resolves every name as
    /// the frame below it does, and formatters never bind names in their frame (partials
    /// run in frames of their own), so sharing is not observable; it spares a push and a
    /// pop for every `{@|formatter}` tag, the usual form of a list's per-item formatters.
    /// The npm compatibility mode always pushes, since a failed chain leaves its frame on
    /// the stack there. Returns what [`Ctx::leave_formatters`] needs.
    #[inline]
    pub(crate) fn enter_formatters(&mut self, value: &Val<'a>) -> Option<usize> {
        let shared = !self.env.npm_compat
            && matches!((value, self.node()), (Val::Ref(v), Val::Ref(top)) if std::ptr::eq(*v, *top));
        if shared {
            Some(std::mem::replace(
                &mut self.shared_frame_at,
                self.stack.len(),
            ))
        } else {
            self.push(value.clone().into_shared());
            None
        }
    }

    /// Ends a formatter chain entered with [`Ctx::enter_formatters`].
    #[inline]
    pub(crate) fn leave_formatters(&mut self, entered: Option<usize>) {
        // A failed tag loses its own output. The npm engine's thrown error also leaves its
        // frame on the stack, shifting every later scope; only the compatibility mode does
        // that.
        let failed = self.take_failure();
        match entered {
            Some(outer) => self.shared_frame_at = outer,
            None if failed && self.env.npm_compat => {}
            None => self.pop(),
        }
    }

    /// Binds `@name` on the current frame.
    pub fn set_var(&mut self, name: Cow<'a, str>, value: Val<'a>) {
        let value = value.into_shared();
        let frame = self.top();
        match frame.vars.iter_mut().find(|(k, _)| *k == name) {
            Some(slot) => slot.1 = value,
            None => frame.vars.push((name, value)),
        }
    }

    pub(crate) fn set_macro(&mut self, name: &'a str, m: &'a Macro) {
        let code = self.code;
        self.top().macros.push((name, m, code));
    }

    // ---- resolution -------------------------------------------------------------------

    /// Resolves a reference up the stack, as `{name}` does.
    ///
    /// The path lives as long as the execution (a template's, or a formatter's `static`),
    /// so its address names it, and what it resolves to below the frames of the current
    /// node is remembered when those frames are a loop's element. A list applies the same
    /// partial to every element, and the partial's names that the element lacks (site
    /// settings, localized strings, a money format flag) resolve through the same enclosing
    /// frames each time: from the second element on, they come from the memo. An entry is
    /// keyed by the frame where the walk below the current node starts (the loop's own
    /// frame): its depth, its push number and its node. Frames below it cannot change while
    /// it is on the stack (names resolve against nodes, never variables, and only the top
    /// frame's node is ever replaced, which changes the key), so the entry stays right for
    /// as long as it can match. Paths made while executing go through
    /// [`Ctx::resolve_transient`].
    pub fn resolve(&self, path: impl Into<Path<'a>>) -> Val<'a> {
        self.resolve_path(&path.into())
    }

    /// [`Ctx::resolve`]; inlined into the `_id` functions below, as a call more for each
    /// compiled reference showed in profiles.
    #[inline(always)]
    fn resolve_path(&self, path: &Path<'a>) -> Val<'a> {
        let Some((seg, name)) = path.key() else {
            return self.resolve_at(path, self.stack.len() - 1);
        };
        let frames = &self.stack[..];
        let mut i = frames.len() - 1;
        // While recording ([`Ctx::run_recorded`]), only a name found in the top frame,
        // which is inside the recorded scope, takes the usual way.
        let Val::Ref(top) = frames[i].node else {
            if self.recording.is_some() {
                return self.resolve_recorded(frames, path);
            }
            return lookup_key(frames, path);
        };
        match member_node(top, seg, name) {
            Some(Member::Node(child)) => return follow_ref(child, path),
            Some(Member::Length(l)) => return follow(Val::num(l as f64), path),
            None => {}
        }
        if self.recording.is_some() {
            return self.resolve_recorded(frames, path);
        }
        // Past the frames holding the current node (a loop's element, the partial applied
        // to it, the formatters on it), which all lack the name.
        loop {
            if frames[i].stop || i == 0 {
                return Val::Missing;
            }
            i -= 1;
            match frames[i].node {
                Val::Ref(n) if std::ptr::eq(n, top) => {}
                _ => break,
            }
        }
        // Only a loop's own frame is worth remembering from: below it, every element
        // resolves the same names the same way. Elsewhere a name is rarely resolved twice
        // from one frame, and remembering would cost more than it saves.
        let (&Val::Ref(base), true) = (&frames[i].node, frames[i].index >= 0) else {
            return lookup_key(&frames[..=i], path);
        };
        let key = Below {
            path: path.addr(),
            depth: i as u32,
            push: frames[i].push,
            base: std::ptr::from_ref(base) as usize,
            value: None,
        };
        let table = self
            .below
            .get_or_init(|| Box::new([const { Cell::new(NO_BELOW) }; BELOW_SLOTS]));
        // Addresses share their low bits (allocations are aligned), so they are mixed by a
        // multiplication and the slot taken from the high bits.
        let mixed = (key.path ^ key.base.rotate_left(29) ^ i).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let slot = &table[mixed >> (usize::BITS - BELOW_SLOTS.trailing_zeros())];
        let seen = slot.get();
        if (seen.path, seen.depth, seen.push, seen.base)
            == (key.path, key.depth, key.push, key.base)
        {
            return seen.value.map_or(Val::Missing, Val::Ref);
        }
        let value = lookup_key(&frames[..=i], path);
        match value {
            Val::Ref(n) => slot.set(Below {
                value: Some(n),
                ..key
            }),
            Val::Missing => slot.set(key),
            _ => {}
        }
        value
    }

    /// [`Ctx::resolve`] for reference `id` of the template running. Out of line, as are
    /// the other `_id` functions: building the reference inside the executor's loop made
    /// that loop slower than the work it saved.
    #[inline(never)]
    pub(crate) fn resolve_id(&self, id: PathId) -> Val<'a> {
        self.resolve_path(&self.code.path(id))
    }

    /// [`Ctx::print_path`] for reference `id` of the template running.
    #[inline(never)]
    pub(crate) fn print_id(&mut self, id: PathId) {
        let value = self.resolve_path(&self.code.path(id));
        value.view().print(&mut self.out);
    }

    /// [`Ctx::resolve_section`] for reference `id` of the template running.
    #[inline(never)]
    pub(crate) fn resolve_section_id(&self, id: PathId) -> Val<'a> {
        self.resolve_section(&self.code.path(id))
    }

    /// [`Ctx::resolve`] for a path made while executing, which is not remembered.
    pub fn resolve_transient<'p>(&self, path: impl Into<Path<'p>>) -> Val<'a> {
        self.resolve_from(path, self.stack.len() - 1)
    }

    /// Prints the current node, as `{@}` does, where it lies (without a resolved copy).
    #[inline(always)]
    pub(crate) fn print_current(&mut self) {
        let frame = self.stack.last().expect("root frame");
        frame.node.view().print(&mut self.out);
    }

    /// Resolves a reference starting at frame `depth` (0 is the root).
    pub fn resolve_from<'p>(&self, path: impl Into<Path<'p>>, depth: usize) -> Val<'a> {
        self.resolve_at(&path.into(), depth)
    }

    /// [`Ctx::resolve_from`]. The reference is passed by address, here and below: a
    /// copy of it read back wider than it was written stalls the CPU's store forwarding.
    fn resolve_at(&self, path: &Path<'_>, depth: usize) -> Val<'a> {
        let frames = &self.stack[..=depth.min(self.stack.len() - 1)];
        if self.recording.is_some() {
            return self.resolve_recorded(frames, path);
        }
        self.resolve_in(frames, path)
    }

    /// Resolves a reference down `frames`, from the last.
    fn resolve_in(&self, frames: &[Frame<'a>], path: &Path<'_>) -> Val<'a> {
        let head = match path.head() {
            Head::Current => frames[frames.len() - 1].node.clone(),
            Head::Index { one_based } => self.lookup(frames, |f| {
                (f.index >= 0).then(|| Val::num((f.index + i64::from(*one_based)) as f64))
            }),
            Head::Var(name) => self.lookup(frames, |f| f.var(name).cloned()),
            Head::Key(_) => return lookup_key(frames, path),
        };
        follow(head, path)
    }

    fn lookup(
        &self,
        frames: &[Frame<'a>],
        mut find: impl FnMut(&Frame<'a>) -> Option<Val<'a>>,
    ) -> Val<'a> {
        for frame in frames.iter().rev() {
            if let Some(v) = find(frame) {
                return v;
            }
            if frame.stop {
                break;
            }
        }
        Val::Missing
    }

    /// Resolves a section's reference: the first segment against the current frame only.
    pub(crate) fn resolve_section(&self, path: &Path<'a>) -> Val<'a> {
        let frame = self.stack.last().expect("root frame");
        let head = match path.head() {
            Head::Current => frame.node.clone(),
            Head::Index { one_based } => {
                if frame.index >= 0 {
                    Val::num((frame.index + i64::from(*one_based)) as f64)
                } else {
                    Val::Missing
                }
            }
            Head::Var(name) => frame.var(name).cloned().unwrap_or_default(),
            Head::Key(_) => match path.key() {
                Some((seg, name)) => member(&frame.node, seg, name),
                None => Val::Missing,
            },
        };
        let mut v = head;
        for (seg, name) in path.rest_names() {
            v = v.child_hashed(name, seg.hash, seg.index);
        }
        v
    }

    // ---- partials ---------------------------------------------------------------------

    /// Finds a macro (innermost first) or a partial by name.
    pub fn partial(&mut self, name: &str) -> Option<PartialTarget<'a>> {
        if let Some(m) = self.macro_named(name) {
            return Some(PartialTarget::Macro(m.0, m.1));
        }
        let env: &'a Env<'a> = self.env;
        let entry = env.partials.get(name)?;
        Some(self.target_of(name, entry))
    }

    /// [`Ctx::partial`] for a name that lives as long as the execution, such as a
    /// formatter's argument. The last partial found this way is remembered by the name's
    /// address: `apply` in a loop asks for the same one on every iteration, and hashing
    /// and comparing its name each time showed in profiles of list pages.
    pub fn partial_named(&mut self, name: &'a str) -> Option<PartialTarget<'a>> {
        if let Some(m) = self.macro_named(name) {
            return Some(PartialTarget::Macro(m.0, m.1));
        }
        let entry = match self.last_partial {
            // The same address and length: the same text, since `name` cannot change
            // while borrowed.
            Some((last, entry)) if std::ptr::eq(last, name) => entry,
            _ => {
                let env: &'a Env<'a> = self.env;
                let entry = env.partials.get(name)?;
                self.last_partial = Some((name, entry));
                entry
            }
        };
        Some(self.target_of(name, entry))
    }

    /// The innermost macro called `name`; macros shadow partials.
    fn macro_named(&self, name: &str) -> Option<(&'a Macro, Code<'a>)> {
        let found = self.stack.iter().enumerate().rev().find_map(|(i, frame)| {
            let (_, m, code) = frame.macros.iter().rev().find(|(n, ..)| *n == name)?;
            Some((i, (*m, *code)))
        });
        if self.recording.is_some() {
            self.note_macro_lookup(name, found.map(|(i, _)| i));
        }
        found.map(|(_, m)| m)
    }

    fn target_of(&mut self, name: &str, entry: &'a PartialEntry) -> PartialTarget<'a> {
        match entry {
            PartialEntry::Ready(t) => PartialTarget::Template(t),
            PartialEntry::Failed(errors) => {
                self.spoil();
                let key = errors.as_ptr() as usize;
                if self.reported.insert(key) {
                    for e in errors.clone() {
                        self.error(msg::partial_parse_fail(name, &e.message), None);
                    }
                }
                PartialTarget::Empty
            }
        }
    }

    /// Enters a partial; false (with an error) past the recursion limit. As in the
    /// reference, a refused entry is not undone.
    pub fn enter_partial(&mut self, name: &str, at: Option<At>) -> bool {
        self.partial_depth += 1;
        let limit = self.env.limits.max_partial_depth;
        if self.partial_depth > limit {
            let pos = at.map(|at| self.pos_in(at, self.code.text));
            self.error(msg::partial_recursion(name, limit), pos);
            return false;
        }
        true
    }

    pub fn exit_partial(&mut self) {
        self.partial_depth -= 1;
    }

    /// Executes a partial or macro against `node` in its own output buffer and returns
    /// what it printed. `private` stops variable resolution at the partial's frame.
    pub fn render_partial(
        &mut self,
        name: &'a str,
        target: PartialTarget<'a>,
        node: Val<'a>,
        private: bool,
        args: Option<Node>,
    ) -> String {
        let saved = std::mem::take(&mut self.out);
        self.render_partial_here(name, target, node, private, args);
        std::mem::replace(&mut self.out, saved)
    }

    /// [`Ctx::render_partial`] writing straight into the current output, for when the
    /// partial's text would be printed right away anyway.
    pub fn render_partial_here(
        &mut self,
        name: &'a str,
        target: PartialTarget<'a>,
        node: Val<'a>,
        private: bool,
        args: Option<Node>,
    ) {
        self.push(node.into_shared());
        self.top().stop = private;
        if let Some(args) = args {
            self.set_var(Cow::Borrowed("@args"), Val::Own(args));
        }
        self.run_target(name, target);
        self.pop();
    }

    /// Renders `block` in the current scope and returns its text (host tags evaluate their
    /// attribute values this way).
    pub fn render_block(&mut self, block: Block) -> String {
        let saved = std::mem::take(&mut self.out);
        super::engine::exec_block(self, block);
        std::mem::replace(&mut self.out, saved)
    }

    /// Runs `block`, a block of the template that is running (a host tag's body), into
    /// the current output.
    pub fn run_block(&mut self, block: Block) {
        super::engine::exec_block(self, block);
    }

    /// Runs `template` into the current output, in the current scope (for hosts that run
    /// a template inside another's).
    pub fn run_template(&mut self, template: &'a Template) {
        self.run_with_code(template.code(), template.root);
    }

    /// Runs `block`, a block of `code`.
    fn run_with_code(&mut self, code: Code<'a>, block: Block) {
        let outer = std::mem::replace(&mut self.code, code);
        super::engine::exec_block(self, block);
        self.code = outer;
    }

    /// Runs `f` with `node` pushed as the innermost scope (names it lacks resolve further
    /// out, as in a section).
    pub fn with_scope(&mut self, node: Val<'a>, f: impl FnOnce(&mut Ctx<'a>)) {
        self.push(node.into_shared());
        f(self);
        self.pop();
    }

    /// Executes a partial or macro inline, in the current frame.
    pub(crate) fn run_target(&mut self, name: &'a str, target: PartialTarget<'a>) {
        match target {
            PartialTarget::Template(t) => {
                let outer = (self.partial.replace(name), self.at);
                self.run_template(t);
                (self.partial, self.at) = outer;
            }
            PartialTarget::Macro(m, code) => self.run_with_code(code, m.body),
            PartialTarget::Empty => {}
        }
    }
}

/// The first step of a lookup in one frame: an object key, an array element, or the
/// array's `length` (which the reference's JavaScript property access exposes).
fn member<'a>(node: &Val<'a>, seg: &Seg, name: &str) -> Val<'a> {
    member_of(node, seg, name).unwrap_or_default()
}

/// [`member`], `None` when absent.
#[inline]
fn member_of<'a>(node: &Val<'a>, seg: &Seg, name: &str) -> Option<Val<'a>> {
    match node {
        Val::Ref(n) => match member_node(n, seg, name)? {
            Member::Node(c) => Some(Val::Ref(c)),
            Member::Length(l) => Some(Val::num(l as f64)),
        },
        Val::Own(n) => match member_node(n, seg, name)? {
            Member::Node(c) => Some(Val::Own(c.clone())),
            Member::Length(l) => Some(Val::num(l as f64)),
        },
        Val::Missing | Val::Text(_) => None,
    }
}

enum Member<'n> {
    Node(&'n Node),
    Length(usize),
}

#[inline]
/// `seg`'s step from `node`; `name` is the segment's name.
fn member_node<'n>(node: &'n Node, seg: &Seg, name: &str) -> Option<Member<'n>> {
    match node {
        Node::Object(o) => o.get_hashed(name, seg.hash).map(Member::Node),
        Node::Array(a) => match seg.index {
            Some(i) => a.get(i as usize).map(Member::Node),
            None if name == "length" => Some(Member::Length(a.len())),
            None => None,
        },
        _ => None,
    }
}

/// The hottest lookup in real pages, `{name.rest}`: the first frame (innermost first) that
/// has `seg`, then the rest of the path. Borrowed nodes are walked as plain references and
/// each branch returns its `Val` directly: a `Val` built in one variable and moved through
/// others is copied through the stack with loads wider than its stores, which stalls the
/// CPU's store forwarding, and that was most of a lookup's time.
///
/// A partial applied to a loop's element (`{@|apply card.block}`) runs in a frame holding
/// the same node as the element's frame below it; a name that one lacks, the other does
/// too, so a node just searched in vain is not searched again.
#[inline]
fn lookup_key<'a>(frames: &[Frame<'a>], path: &Path<'_>) -> Val<'a> {
    let Some((seg, name)) = path.key() else {
        return Val::Missing;
    };
    let mut missed: *const Node = std::ptr::null();
    for frame in frames.iter().rev() {
        match &frame.node {
            Val::Ref(n) if std::ptr::eq(*n, missed) => {}
            Val::Ref(n) => match member_node(n, seg, name) {
                Some(Member::Node(child)) => return follow_ref(child, path),
                Some(Member::Length(l)) => return follow(Val::num(l as f64), path),
                None => missed = *n,
            },
            Val::Own(n) => match member_node(n, seg, name) {
                Some(Member::Node(child)) => return follow(Val::Own(child.clone()), path),
                Some(Member::Length(l)) => return follow(Val::num(l as f64), path),
                None => {}
            },
            Val::Missing | Val::Text(_) => {}
        }
        if frame.stop {
            break;
        }
    }
    Val::Missing
}

/// [`follow`] from a borrowed node.
#[inline]
fn follow_ref<'a>(mut node: &'a Node, path: &Path<'_>) -> Val<'a> {
    for (seg, name) in path.rest_names() {
        match child_of(node, name, seg.hash, seg.index) {
            Some(child) => node = child,
            None => return Val::Missing,
        }
    }
    Val::Ref(node)
}

/// Follows the remaining segments; a missing or null value ends the walk.
fn follow<'a>(mut v: Val<'a>, path: &Path<'_>) -> Val<'a> {
    for (seg, name) in path.rest_names() {
        if matches!(v.view(), View::Missing | View::Null) {
            return Val::Missing;
        }
        v = v.child_hashed(name, seg.hash, seg.index);
    }
    v
}
