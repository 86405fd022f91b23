//! The compiled instruction tree that the executor walks.
//!
//! Formatter and predicate names are resolved to functions at compile time, adjacent
//! literal text is merged, and comments are gone, so execution does no lookups by name
//! except for partials and macros (which are dynamic by nature).

use std::borrow::Cow;

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
/// list (for [`Block`]s), its references (for [`PathId`]s), and the lists of the parts of
/// its larger instructions. The executor runs every block with the code of its template.
#[derive(Debug, Clone, Copy)]
pub struct Code<'a> {
    pub(crate) text: &'a str,
    pub(crate) insts: &'a [Inst],
    pub(crate) paths: &'a [PathEntry],
    pub(crate) segs: &'a [Seg],
    /// Behind a reference, where the lists read on every instruction are not: the
    /// executor copies the code at every partial and macro it applies.
    pub(crate) parts: &'a Parts,
}

/// The lists of a template that its larger instructions are kept in: formatter calls
/// ([`Calls`]), variable tags with formatters, sections, repeated sections, and the rest.
/// Lists rather than a box per instruction: compiling a page allocated for every one of
/// them, and made the instructions that held the boxes costly to move and drop.
#[derive(Debug)]
pub struct Parts {
    pub(crate) calls: Vec<FormatterCall>,
    pub(crate) variables: Vec<Variable>,
    pub(crate) sections: Vec<Section>,
    pub(crate) repeats: Vec<Repeated>,
    pub(crate) others: Vec<Other>,
    /// The `{.or}` branches of every block that has them, each block's in a row
    /// ([`Alternate`]): a list per template rather than a box per block.
    pub(crate) branches: Vec<OrBranch>,
}

impl Parts {
    pub(crate) const EMPTY: Parts = Parts {
        calls: Vec::new(),
        variables: Vec::new(),
        sections: Vec::new(),
        repeats: Vec::new(),
        others: Vec::new(),
        branches: Vec::new(),
    };
}

static NO_PARTS: Parts = Parts::EMPTY;

impl<'a> Code<'a> {
    pub(crate) const EMPTY: Code<'static> = Code {
        text: "",
        insts: &[],
        paths: &[],
        segs: &[],
        parts: &NO_PARTS,
    };

    /// The calls of a chain of this code's template.
    #[inline(always)]
    pub(crate) fn calls(&self, calls: Calls) -> &'a [FormatterCall] {
        &self.parts.calls[calls.start as usize..(calls.start + calls.len) as usize]
    }

    // The three below read unchecked: `id` comes from an instruction of this code's
    // template (blocks are checked ranges of its instructions), and every instruction of
    // a template was checked to index its lists when the template was made
    // (`compile::parts_lie_in`). They are most of what a page executes after text.

    #[inline(always)]
    pub(crate) fn variable(&self, id: VarId) -> &'a Variable {
        debug_assert!((id.0 as usize) < self.parts.variables.len());
        // SAFETY: see above.
        unsafe { self.parts.variables.get_unchecked(id.0 as usize) }
    }

    #[inline(always)]
    pub(crate) fn section(&self, id: SectionId) -> &'a Section {
        debug_assert!((id.0 as usize) < self.parts.sections.len());
        // SAFETY: see above.
        unsafe { self.parts.sections.get_unchecked(id.0 as usize) }
    }

    #[inline(always)]
    pub(crate) fn repeated(&self, id: RepeatedId) -> &'a Repeated {
        debug_assert!((id.0 as usize) < self.parts.repeats.len());
        // SAFETY: see above.
        unsafe { self.parts.repeats.get_unchecked(id.0 as usize) }
    }

    /// The `{.or}` branches `alt` of this code's template, in order.
    #[inline(always)]
    pub(crate) fn branches(&self, alt: Alternate) -> &'a [OrBranch] {
        &self.parts.branches[alt.start as usize..(alt.start + alt.len) as usize]
    }

    pub(crate) fn other(&self, id: OtherId) -> &'a Other {
        &self.parts.others[id.0 as usize]
    }

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

/// A formatter chain: consecutive calls in its template's list of calls. A template's
/// calls are one list, like its references, so that a chain costs no allocation of its
/// own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Calls {
    pub(crate) start: u32,
    pub(crate) len: u32,
}

impl Calls {
    pub fn len(self) -> usize {
        self.len as usize
    }

    pub fn is_empty(self) -> bool {
        self.len == 0
    }
}

/// A variable tag with formatters: its index in its template's list of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VarId(pub(crate) u32);

/// A section: its index in its template's list of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SectionId(pub(crate) u32);

/// A repeated section: its index in its template's list of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RepeatedId(pub(crate) u32);

/// Any other instruction: its index in its template's list of them ([`Other`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OtherId(pub(crate) u32);

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

/// One compiled instruction. Every instruction with more to it than an id or two lives
/// in a list of its template ([`Code`]), so that instructions are plain values: an
/// instruction that owned a box had to be dropped wherever the compiler moved or replaced
/// one, which was nearly a tenth of compiling a page of short tags.
#[derive(Debug, Clone, Copy)]
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
    /// The most common instructions after text and plain variables have typed lists of
    /// their own, which the executor reads without a second dispatch.
    Variable(VarId),
    Section(SectionId),
    Repeated(RepeatedId),
    Other(OtherId),
}

/// The instructions that pages have fewer of, in one list per template.
#[derive(Debug)]
pub enum Other {
    Predicate(Predicate),
    If(If),
    Bindvar(Bindvar),
    Ctxvar(Ctxvar),
    Eval(Eval),
    Include(Include),
    Inject(Inject),
    Macro(Macro),
    /// A tag the embedding application implements (see [`crate::exec::Host`]).
    Host(HostTag),
}

impl Other {
    /// The instruction's name in the reference's error messages.
    pub(crate) fn name(&self) -> &'static str {
        match self {
            Other::Predicate(_) => "PREDICATE",
            Other::If(_) => "IF",
            Other::Bindvar(_) => "BINDVAR",
            Other::Ctxvar(_) => "CTXVAR",
            Other::Eval(_) => "EVAL",
            Other::Include(_) => "INCLUDE",
            Other::Inject(_) => "INJECT",
            Other::Macro(_) => "MACRO",
            Other::Host(_) => "HOST",
        }
    }
}

/// The `{.or}` branches after a block's consequent, in order; empty for a plain `{.end}`.
/// The first branch whose predicate holds (or that has none) runs. A flat list rather than
/// a nested chain, so long `{.or}` chains cost no recursion: a range of its template's
/// list of branches ([`Code::branches`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Alternate {
    start: u32,
    len: u32,
}

impl Alternate {
    pub(crate) fn new(start: usize, len: usize) -> Alternate {
        Alternate {
            start: start as u32,
            len: len as u32,
        }
    }
}

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
    pub formatters: Calls,
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
    pub formatters: Calls,
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
    /// The tag's name after the prefix (`navigation`).
    pub name: HostName,
    /// Each attribute's name (a range of the name's text, the template's source) and
    /// compiled value, in source order: one allocation per tag, not one per name.
    attrs: Box<[(u32, u32, Block)]>,
    pub body: Option<Block>,
    pub at: At,
}

/// A host tag's name: a range of its template's source, which it shares (a page's host
/// tags and their attribute names were an allocation each, and a free each when the
/// template dropped).
#[derive(Clone)]
pub struct HostName {
    text: std::sync::Arc<str>,
    start: u32,
    len: u32,
}

impl HostName {
    /// The name `name`, which is a piece of `text`.
    pub(crate) fn new(text: &std::sync::Arc<str>, name: &str) -> HostName {
        let (start, len) = range_in(text, name);
        HostName {
            text: std::sync::Arc::clone(text),
            start,
            len,
        }
    }

    /// Where `piece`, a piece of this name's text (an attribute's name), lies in it.
    pub(crate) fn range(&self, piece: &str) -> (u32, u32) {
        range_in(&self.text, piece)
    }

    fn slice(&self, (start, len): (u32, u32)) -> &str {
        &self.text[start as usize..start as usize + len as usize]
    }
}

impl std::ops::Deref for HostName {
    type Target = str;
    fn deref(&self) -> &str {
        self.slice((self.start, self.len))
    }
}

impl std::fmt::Display for HostName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self)
    }
}

impl std::fmt::Debug for HostName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&**self, f)
    }
}

/// Where `piece`, a slice of `text`, lies in it.
fn range_in(text: &str, piece: &str) -> (u32, u32) {
    let start = (piece.as_ptr() as usize)
        .checked_sub(text.as_ptr() as usize)
        .filter(|s| s + piece.len() <= text.len())
        .expect("a host tag's names are pieces of its template's source");
    (start as u32, piece.len() as u32)
}

impl HostTag {
    /// A host tag named `name`, with `attrs`: each attribute's name, a range of
    /// `name`'s text (see [`HostName::range`]), and its compiled value.
    pub(crate) fn new(
        name: HostName,
        attrs: Box<[(u32, u32, Block)]>,
        body: Option<Block>,
        at: At,
    ) -> HostTag {
        debug_assert!(attrs.iter().all(|&(start, len, _)| {
            name.text
                .get(start as usize..(start + len) as usize)
                .is_some()
        }));
        HostTag {
            name,
            attrs,
            body,
            at,
        }
    }

    /// The compiled value of attribute `name`.
    pub fn attr(&self, name: &str) -> Option<Block> {
        self.attrs().find(|(k, _)| *k == name).map(|(_, v)| v)
    }

    /// Each attribute's name and compiled value, in source order.
    pub fn attrs(&self) -> impl ExactSizeIterator<Item = (&str, Block)> + '_ {
        self.attrs
            .iter()
            .map(|&(start, len, value)| (self.name.slice((start, len)), value))
    }
}
