//! The compiled instruction tree that the executor walks.
//!
//! Formatter and predicate names are resolved to functions at compile time, adjacent
//! literal text is merged, and comments are gone, so execution does no lookups by name
//! except for partials and macros (which are dynamic by nature).

use std::borrow::Cow;
use std::sync::Arc;

use crate::exec::expr::Expr;
use crate::plugins::{EmitFn, FormatterFn, PredicateFn};
use crate::syntax::path::{Head, Path, Seg};
use crate::syntax::scan::At;
use crate::syntax::tag::{Args, Op};

/// A sequence of instructions: a range of its template's one instruction list, so that
/// compiling allocates nothing per block. Blocks close inside out, so each block's
/// instructions are already final, and can move to the list in one piece, by the time
/// the block is done with; a block's own instruction then points at that range.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Block {
    start: u32,
    len: u32,
}

impl Block {
    pub const EMPTY: Block = Block { start: 0, len: 0 };

    pub(crate) fn new(start: usize, len: usize) -> Block {
        Block {
            start: start as u32,
            len: len as u32,
        }
    }

    pub fn is_empty(self) -> bool {
        self.len == 0
    }

    /// The instructions of this block in `insts`, the list of the template it is in.
    #[inline(always)]
    pub(crate) fn of(self, insts: &[Inst]) -> &[Inst] {
        &insts[self.start as usize..(self.start + self.len) as usize]
    }
}

/// What a template's instructions refer to: its text (for [`Span`]s), its instruction
/// list (for [`Block`]s) and its references (for [`PathId`]s). The executor runs every
/// block with the code of its template.
#[derive(Debug, Clone, Copy)]
pub struct Code<'a> {
    pub(crate) text: &'a str,
    pub(crate) insts: &'a [Inst],
    pub(crate) paths: &'a [PathEntry],
    pub(crate) segs: &'a [Seg],
}

impl<'a> Code<'a> {
    pub(crate) const EMPTY: Code<'static> = Code {
        text: "",
        insts: &[],
        paths: &[],
        segs: &[],
    };

    /// The reference `id` of this code's template.
    #[inline(always)]
    pub(crate) fn path(&self, id: PathId) -> Path<'a> {
        // Checked: a host may run a block of another template, whose ids are not this
        // one's. Every entry of this template is sound to read, whatever id picks it.
        let entry = &self.paths[id.0 as usize];
        // SAFETY: every reference of a template was checked to have its segments in the
        // template's list of segments and its names in its text when the template was
        // made (`compile::references_lie_in`), and `Code` is made of one template's
        // lists. Not checking each read again took a third off what reading a compiled
        // reference cost the executor.
        unsafe {
            let rest = self.segs.get_unchecked(
                entry.rest_start as usize..(entry.rest_start + entry.rest_len) as usize,
            );
            Path::new(self.text, &entry.head, rest)
        }
    }
}

/// A reference of a template: its index in the template's list of references. The
/// references of a template are in two lists of its own (heads, and the segments after
/// them), their names ranges of its text, so that compiling one allocates nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PathId(pub(crate) u32);

/// The references of one tag (`{a, b|f}`, `{.if a && b}`): consecutive in the template's
/// list of references.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PathIds {
    pub(crate) start: u32,
    pub(crate) len: u32,
}

impl PathIds {
    pub fn len(self) -> usize {
        self.len as usize
    }

    pub fn is_empty(self) -> bool {
        self.len == 0
    }

    pub fn first(self) -> Option<PathId> {
        (self.len > 0).then_some(PathId(self.start))
    }

    pub fn iter(self) -> impl Iterator<Item = PathId> {
        (self.start..self.start + self.len).map(PathId)
    }
}

/// A compiled reference: its head, and its segments after the head as a range of its
/// template's list of segments.
#[derive(Debug)]
pub struct PathEntry {
    pub(crate) head: Head,
    pub(crate) rest_start: u32,
    pub(crate) rest_len: u32,
}

/// Literal text of a template: a range of its text ([`super::Template`] keeps the source
/// and any text that compiling made up, such as text merged across a comment). The
/// executor reads it from the text of the template it is running.
pub use crate::syntax::span::Span;

/// One compiled instruction.
#[derive(Debug)]
pub enum Inst {
    Text(Span),
    /// `{@}`: prints the current node. Its own instruction because it is the usual body of
    /// loops over scalars, where the loads of a general variable tag showed in profiles.
    PrintCurrent,
    /// A variable tag without formatters: prints what the (first) reference resolves to.
    Print(PathId),
    /// Literal text followed by `{@}`, fused by the assembler: `<td>{@}` is the whole
    /// body of many small loops, and one dispatch instead of two is a measurable share of
    /// it. Counts as one instruction against the budget.
    TextThenCurrent(Span),
    /// Literal text followed by a plain variable tag ([`Inst::Print`]), fused likewise.
    TextThenPrint(Span, PathId),
    Variable(Box<Variable>),
    Section(Box<Section>),
    Repeated(Box<Repeated>),
    Predicate(Box<Predicate>),
    If(Box<If>),
    Bindvar(Box<Bindvar>),
    Ctxvar(Box<Ctxvar>),
    Eval(Box<Eval>),
    Include(Box<Include>),
    Inject(Box<Inject>),
    Macro(Arc<Macro>),
    /// A tag the embedding application implements (see [`crate::exec::Host`]).
    Host(Box<HostTag>),
}

/// The `{.or}` branches after a block's consequent, in order; empty for a plain `{.end}`.
/// The first branch whose predicate holds (or that has none) runs. A flat list rather than
/// a nested chain, so long `{.or}` chains cost no recursion.
pub type Alternate = Box<[OrBranch]>;

/// One `{.or}` or `{.or name? args}` branch.
#[derive(Debug)]
pub struct OrBranch {
    /// `None` for a plain `{.or}`, which always runs its body.
    pub call: Option<PredicateCall>,
    pub body: Block,
    pub at: At,
}

/// A formatter call with its function resolved.
#[derive(Debug)]
pub struct FormatterCall {
    /// The name as registered (formatters are registered under `'static` names).
    pub name: &'static str,
    pub apply: FormatterFn,
    /// Set when this call ends a `{var|...}` chain and the formatter can write its result
    /// straight into the output (saving an intermediate string).
    pub emit: Option<EmitFn>,
    pub args: Args,
}

/// A predicate call with its function resolved; `apply` is `None` for a name that was
/// unknown at compile time (a syntax error), which then evaluates to false.
#[derive(Debug)]
pub struct PredicateCall {
    /// The registered name; owned only for an unknown predicate.
    pub name: Cow<'static, str>,
    pub apply: Option<PredicateFn>,
    pub args: Args,
}

#[derive(Debug)]
pub struct Variable {
    pub vars: PathIds,
    pub formatters: Box<[FormatterCall]>,
    pub at: At,
}

#[derive(Debug)]
pub struct Section {
    pub path: PathId,
    pub body: Block,
    pub alt: Alternate,
}

#[derive(Debug)]
pub struct Repeated {
    pub path: PathId,
    pub body: Block,
    pub alt: Alternate,
    pub alternates_with: Block,
}

/// `{.name? ...}`: runs its body when the predicate holds.
#[derive(Debug)]
pub struct Predicate {
    pub call: PredicateCall,
    pub body: Block,
    pub alt: Alternate,
    pub at: At,
}

#[derive(Debug)]
pub struct If {
    pub ops: Box<[Op]>,
    pub vars: PathIds,
    pub body: Block,
    pub alt: Alternate,
    pub at: At,
}

#[derive(Debug)]
pub struct Bindvar {
    pub name: Box<str>,
    pub vars: PathIds,
    pub formatters: Box<[FormatterCall]>,
    pub at: At,
}

#[derive(Debug)]
pub struct Ctxvar {
    pub name: Box<str>,
    pub bindings: Box<[(Box<str>, PathId)]>,
}

#[derive(Debug)]
pub struct Eval {
    /// The expression text (after the `#` debug marker, if any).
    pub source: Box<str>,
    /// The expression as far as it parsed.
    pub expr: Expr,
    /// Parse errors, reported when the instruction executes (as the reference does); an
    /// expression with errors is not evaluated.
    pub parse_errors: Vec<String>,
    pub debug: bool,
    pub at: At,
}

#[derive(Debug)]
pub struct Include {
    pub name: Box<str>,
    /// `output`: keep what the partial prints (by default it is discarded).
    pub output: bool,
    pub at: At,
}

#[derive(Debug)]
pub struct Inject {
    pub name: Box<str>,
    pub path: Box<str>,
}

#[derive(Debug)]
pub struct Macro {
    pub name: Box<str>,
    pub body: Block,
}

/// A host tag: `<prefix:name attr="..." />` or with a body. Attribute values and the body
/// are compiled templates, evaluated by the host in the scope where the tag sits.
#[derive(Debug)]
pub struct HostTag {
    pub name: Box<str>,
    pub attrs: Box<[(Box<str>, Block)]>,
    pub body: Option<Block>,
    pub at: At,
}

impl HostTag {
    /// The compiled value of attribute `name`.
    pub fn attr(&self, name: &str) -> Option<Block> {
        self.attrs
            .iter()
            .find(|(k, _)| &**k == name)
            .map(|(_, v)| *v)
    }
}
