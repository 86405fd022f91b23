//! Source text to a compiled [`Template`]: scan, resolve formatter and predicate names,
//! parse expressions, assemble the tree.

mod assemble;
mod onepass;
mod text;
pub mod tree;
pub mod uses;

use std::borrow::Cow;
use std::cell::OnceCell;
use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::error::{Diagnostic, msg};
use crate::exec::expr::{Expr, ExprLimits};
use crate::plugins::Registry;
use crate::syntax::host::HostTagSyntax;
use crate::syntax::scan::{At, LineIndex, Piece, scan_with};
use crate::syntax::tag::{Args, FormatterSyntax, Tag, chain_calls, parse_tag};
pub use assemble::MAX_NESTING;
use assemble::{Assembler, BlockKind, Control};
use text::TextPool;
use tree::{
    Block, Calls, FormatterCall, Inst, Other, Parts, PathEntry, PathId, PathIds, PredicateCall,
    Variable,
};

use crate::syntax::path::{self, Seg};

/// A compiled template: immutable, shareable between threads, executed many times.
#[derive(Debug)]
pub struct Template {
    /// The source and made-up text that the instructions' [`tree::Span`]s cover.
    pub(crate) text: Arc<str>,
    /// Every block's instructions, each block a range ([`Block`]). The lists are the
    /// draft's as they are: boxing them shrank each, a copy per list and template.
    pub(crate) insts: Vec<Inst>,
    /// Every reference ([`PathId`]), and the segments after their heads.
    pub(crate) paths: Vec<PathEntry>,
    pub(crate) segs: Vec<Seg>,
    pub(crate) parts: Parts,
    pub(crate) root: Block,
}

/// The result of compiling: the template (always, best effort) and its syntax errors.
pub struct Compiled {
    pub template: Template,
    pub errors: Vec<Diagnostic>,
}

/// How to compile: expression limits, and the prefix of host tags (if any).
#[derive(Debug, Clone, Default)]
pub struct CompileOptions {
    pub expr_limits: ExprLimits,
    /// Recognise `<{prefix}name ...>` elements as host tags (e.g. `"squarespace:"`).
    /// `None` (the default, and the reference engines' behaviour) leaves them as text.
    pub host_prefix: Option<String>,
}

impl Template {
    /// Compiles `source` with the given formatters and predicates.
    pub fn compile(source: &str, registry: &Registry) -> Compiled {
        compile(source, registry, &CompileOptions::default())
    }

    /// Compiles `source` with options (host tags, limits).
    pub fn compile_with(source: &str, registry: &Registry, options: &CompileOptions) -> Compiled {
        compile(source, registry, options)
    }

    /// Compiles with the standard formatters and predicates, failing on any syntax error.
    pub fn parse_strict(source: &str) -> Result<Template, Vec<Diagnostic>> {
        let c = Template::compile(source, Registry::standard());
        if c.errors.is_empty() {
            Ok(c.template)
        } else {
            Err(c.errors)
        }
    }

    /// A template that renders nothing.
    pub fn empty() -> Template {
        Template {
            text: "".into(),
            insts: Vec::new(),
            paths: Vec::new(),
            segs: Vec::new(),
            parts: Parts::EMPTY,
            root: Block::EMPTY,
        }
    }

    /// What the template's instructions refer to.
    pub(crate) fn code(&self) -> tree::Code<'_> {
        tree::Code {
            text: &self.text,
            insts: &self.insts,
            paths: &self.paths,
            segs: &self.segs,
            parts: &self.parts,
        }
    }
}

/// A template while it compiles: its text, its instruction list and its references,
/// which the template and the sub-templates of its host tags write into.
pub(crate) struct Draft<'s> {
    pub text: TextPool<'s>,
    /// The source, shared by the arguments of the template's formatter and predicate
    /// calls ([`crate::syntax::tag::Args`]); the source that compiles is this text.
    pub names: Arc<str>,
    pub insts: Vec<Inst>,
    pub paths: Vec<PathEntry>,
    pub segs: Vec<Seg>,
    pub parts: Parts,
    /// The source's lines, indexed at the first error.
    lines: OnceCell<LineIndex>,
}

impl<'s> Draft<'s> {
    /// A draft for `source`, which is `names`' text.
    pub fn new(source: &'s str, names: Arc<str>) -> Draft<'s> {
        debug_assert!(std::ptr::eq(source, &*names));
        Draft {
            text: TextPool::new(source),
            names,
            // Demo and benchmark pages have a tag every 30 bytes or so, and a tag makes
            // at most two instructions (with the text before it): room for that up
            // front, so that the list rarely grows.
            insts: Vec::with_capacity(source.len() / 15),
            // A reference every 40 bytes or so, most with a segment or two after the head.
            paths: Vec::with_capacity(source.len() / 32),
            segs: Vec::with_capacity(source.len() / 32),
            parts: Parts {
                // A chain every 60 bytes or so, most of a call or two; a section every 300
                // (in layouts such as wright's, every 150 or so, and a predicate or `.if`
                // every 120).
                calls: Vec::with_capacity(source.len() / 48),
                variables: Vec::with_capacity(source.len() / 64),
                sections: Vec::with_capacity(source.len() / 128),
                repeats: Vec::new(),
                others: Vec::with_capacity(source.len() / 128),
                // A block with `{.or}` every 600 bytes or so in wright's layout.
                branches: Vec::with_capacity(source.len() / 512),
            },
            lines: OnceCell::new(),
        }
    }

    /// Adds the longest reference at the start of `input` (a piece of the source): its
    /// id and how many bytes it takes.
    pub fn reference(&mut self, input: &str) -> Option<(PathId, usize)> {
        let rest_start = self.segs.len() as u32;
        let (head, n) = path::reference(input, &mut self.text, &mut self.segs)?;
        self.paths.push(PathEntry {
            head,
            rest_start,
            rest_len: self.segs.len() as u32 - rest_start,
        });
        Some((PathId(self.paths.len() as u32 - 1), n))
    }

    /// Adds a reference the tag grammar found (exactly one reference).
    pub fn path(&mut self, text: &str) -> PathId {
        let (id, n) = self
            .reference(text)
            .expect("the grammar's references parse");
        debug_assert_eq!(n, text.len());
        id
    }

    /// Adds references the tag grammar found, in order.
    pub fn references(&mut self, texts: &[&str]) -> PathIds {
        let start = self.paths.len() as u32;
        for text in texts {
            self.path(text);
        }
        PathIds {
            start,
            len: self.paths.len() as u32 - start,
        }
    }

    /// Where the references, calls and made-up text end, to go back to with
    /// [`Draft::rollback`] when the short way declines a tag it has begun to compile.
    pub fn mark(&self) -> Mark {
        Mark {
            paths: self.paths.len(),
            segs: self.segs.len(),
            calls: self.parts.calls.len(),
            text: self.text.len(),
        }
    }

    pub fn rollback(&mut self, mark: Mark) {
        self.paths.truncate(mark.paths);
        self.segs.truncate(mark.segs);
        self.parts.calls.truncate(mark.calls);
        self.text.truncate(mark.text);
    }

    /// Adds a variable tag with formatters.
    pub fn variable(&mut self, variable: Variable) -> Inst {
        self.parts.variables.push(variable);
        Inst::Variable(tree::VarId(self.parts.variables.len() as u32 - 1))
    }

    /// Adds an instruction of the kinds in [`Other`].
    pub fn other(&mut self, other: Other) -> Inst {
        self.parts.others.push(other);
        Inst::Other(tree::OtherId(self.parts.others.len() as u32 - 1))
    }

    /// The line and column of `at` in the source, for a syntax error.
    pub fn pos(&self, at: At) -> crate::error::Pos {
        let source = self.text.source();
        self.lines
            .get_or_init(|| LineIndex::new(source))
            .pos(source, at)
    }
}

/// How long a [`Draft`]'s lists were, to go back to.
#[derive(Clone, Copy)]
pub(crate) struct Mark {
    paths: usize,
    segs: usize,
    calls: usize,
    text: usize,
}

/// Compiles `source`.
pub fn compile(source: &str, registry: &Registry, options: &CompileOptions) -> Compiled {
    compile_source(source, registry, options, true)
}

/// Compiles `source`; with `common`, tags of the common shapes go the short way (the
/// tests compare both ways).
fn compile_source(
    source: &str,
    registry: &Registry,
    options: &CompileOptions,
    common: bool,
) -> Compiled {
    let names: Arc<str> = Arc::from(source);
    let source = &*names;
    let mut draft = Draft::new(source, Arc::clone(&names));
    let (root, errors) = compile_into(source, &mut draft, registry, options, common);
    let template = Template {
        // The shared source, unless compiling made up text after it.
        text: match draft.text.finish() {
            Some(text) => text,
            None => Arc::clone(&names),
        },
        insts: draft.insts,
        paths: draft.paths,
        segs: draft.segs,
        parts: draft.parts,
        root,
    };
    assert!(
        references_lie_in(&template.text, &template.paths, &template.segs),
        "a template's references lie in its lists and text"
    );
    assert!(
        parts_lie_in(&template.insts, &template.parts),
        "a template's instructions' parts lie in its lists"
    );
    Compiled { template, errors }
}

/// Whether every reference's segments are a range of `segs` and every name a range of
/// `text` on character boundaries. The executor reads a template's references without
/// checks ([`tree::Code::path`]); this check, once per template, is what makes that sound
/// whatever ids a host's blocks carry.
fn references_lie_in(text: &str, paths: &[PathEntry], segs: &[Seg]) -> bool {
    segs.iter().all(|seg| seg.lies_in(text))
        && paths.iter().all(|entry| {
            (entry.rest_start as usize + entry.rest_len as usize) <= segs.len()
                && match &entry.head {
                    path::Head::Key(seg) => seg.lies_in(text),
                    _ => true,
                }
        })
}

/// Whether every instruction's id indexes its list in `parts`. The executor reads the
/// parts of variable tags and sections without checks ([`tree::Code::variable`]); a block
/// is a checked range of its template's instructions whatever template it came from, so
/// this check, once per template, makes that sound.
fn parts_lie_in(insts: &[Inst], parts: &Parts) -> bool {
    insts.iter().all(|inst| match *inst {
        Inst::Variable(id) => (id.0 as usize) < parts.variables.len(),
        Inst::Section(id) => (id.0 as usize) < parts.sections.len(),
        Inst::Repeated(id) => (id.0 as usize) < parts.repeats.len(),
        Inst::Other(id) => (id.0 as usize) < parts.others.len(),
        Inst::Text(_)
        | Inst::PrintCurrent
        | Inst::Print(_)
        | Inst::TextThenCurrent(_)
        | Inst::TextThenPrint(..) => true,
    })
}

/// Compiles `source`, a piece of the source of `draft` (all of it, or a host tag's
/// attribute value or body), into `draft`.
fn compile_into(
    source: &str,
    draft: &mut Draft,
    registry: &Registry,
    options: &CompileOptions,
    common: bool,
) -> (Block, Vec<Diagnostic>) {
    // Positions are offsets in the whole source, where a host tag's attribute or body
    // starts at its own offset.
    let whole = draft.text.source();
    let base = (source.as_ptr() as usize)
        .checked_sub(whole.as_ptr() as usize)
        .filter(|b| b + source.len() <= whole.len())
        .expect("a sub-template's source lies in its template's source");
    let at = |offset: usize| At((base + offset) as u32);
    let mut asm = Assembler::for_source(source.len(), draft);
    let mut errors: Vec<Diagnostic> = Vec::new();
    let limits = &options.expr_limits;
    if common {
        let mut lower = Lowering {
            registry,
            options,
            errors: &mut errors,
        };
        let host_prefix = options.host_prefix.as_deref();
        onepass::lower_source(source, base, registry, host_prefix, &mut asm, &mut lower);
    } else {
        let host_prefix = options.host_prefix.as_deref().filter(|prefix| {
            memchr::memmem::find_iter(source.as_bytes(), prefix.as_bytes())
                .any(|i| i > 0 && source.as_bytes()[i - 1] == b'<')
        });
        let mut last_at = at(0);
        scan_with(source, host_prefix, |piece| match piece {
            Piece::Host(tag, offset) => {
                last_at = at(offset);
                let inst = lower_host(tag, last_at, registry, options, &mut errors, asm.draft);
                asm.leaf(inst, last_at);
            }
            Piece::Text(text) => asm.text(text, last_at),
            Piece::Tag(content, offset, raw) => {
                let tag_at = at(offset);
                let ats = (tag_at, last_at);
                if lower_general(content, raw, ats, registry, limits, &mut errors, &mut asm) {
                    last_at = tag_at;
                }
            }
        });
    }
    asm.control(Control::Eof, at(source.len()));
    let (root, asm_errors) = asm.finish();
    errors.extend(asm_errors);
    errors.sort_by_key(|e| e.pos.map(|p| (p.line, p.col)));
    (root, errors)
}

/// What the one-pass loop hands on, lowered as the scanner's way lowers it.
struct Lowering<'a> {
    registry: &'a Registry,
    options: &'a CompileOptions,
    errors: &'a mut Vec<Diagnostic>,
}

impl<'s> onepass::Lower<'s> for Lowering<'_> {
    fn general(
        &mut self,
        content: &'s str,
        raw: &'s str,
        tag_at: At,
        text_at: At,
        asm: &mut Assembler,
    ) -> bool {
        let limits = &self.options.expr_limits;
        let ats = (tag_at, text_at);
        lower_general(content, raw, ats, self.registry, limits, self.errors, asm)
    }

    fn host(&mut self, tag: HostTagSyntax<'s>, at: At, asm: &mut Assembler) {
        let inst = lower_host(tag, at, self.registry, self.options, self.errors, asm.draft);
        asm.leaf(inst, at);
    }
}

/// Feeds a tag to the assembler by the general grammar: `false` when it is not a tag and
/// prints as text (at `text_at`, where text that follows the last tag is reported).
fn lower_general(
    content: &str,
    raw: &str,
    (tag_at, text_at): (At, At),
    registry: &Registry,
    limits: &ExprLimits,
    errors: &mut Vec<Diagnostic>,
    asm: &mut Assembler,
) -> bool {
    let Some(tag) = parse_tag(content) else {
        // Not a tag: the text, braces included.
        asm.text(raw, text_at);
        return false;
    };
    if !lower(tag, tag_at, registry, limits, errors, asm) {
        // An unknown formatter: reported, and the tag prints as text.
        asm.text(raw, tag_at);
    }
    true
}

/// Compiles a host tag's attribute values and body as sub-templates of the template in
/// `draft` (their positions are in its source).
fn lower_host(
    tag: HostTagSyntax<'_>,
    at: At,
    registry: &Registry,
    options: &CompileOptions,
    errors: &mut Vec<Diagnostic>,
    draft: &mut Draft,
) -> Inst {
    let name = tree::HostName::new(&draft.names, tag.name);
    let mut sub = |text: &str| -> Block {
        if let Some(block) = plain_text(text, draft) {
            return block;
        }
        let (block, sub_errors) = compile_into(text, draft, registry, options, true);
        errors.extend(sub_errors);
        block
    };
    let attrs = tag
        .attrs
        .iter()
        .map(|&(attr, value)| {
            let (start, len) = name.range(attr);
            (start, len, sub(value))
        })
        .collect();
    let body = tag.body.map(sub);
    draft.other(Other::Host(tree::HostTag::new(name, attrs, body, at)))
}

/// A host tag's attribute value or body that is plain text, with no `{` and no `<`
/// (most attribute values: `class="x"`), compiled without an assembler of its own: no
/// tag and no host tag can start in it, so it is its text alone (none when it is empty),
/// as [`compile_into`] makes it.
fn plain_text(text: &str, draft: &mut Draft) -> Option<Block> {
    if memchr::memchr2(b'{', b'<', text.as_bytes()).is_some() {
        return None;
    }
    let first = draft.insts.len();
    if !text.is_empty() {
        let span = draft.text.span(text);
        draft.insts.push(Inst::Text(span));
    }
    Some(Block::new(first, draft.insts.len() - first))
}

/// Feeds a parsed tag to the assembler; `false` means it was not fed and prints as text
/// (an unknown formatter, as in the reference, which reports it and prints the tag).
fn lower(
    tag: Tag<'_>,
    at: At,
    registry: &Registry,
    limits: &ExprLimits,
    errors: &mut Vec<Diagnostic>,
    asm: &mut Assembler,
) -> bool {
    use tree::*;
    match tag {
        // Comments are instructions to the reference's assembler; an empty text keeps
        // their (rare) effect on it, and merges away.
        Tag::Comment => asm.leaf(Inst::Text(Span::EMPTY), at),
        Tag::Variable { vars, formatters } => {
            let Some(formatters) =
                resolve_formatters(formatters, true, registry, (asm.draft, at), errors)
            else {
                return false;
            };
            if formatters.is_empty() && !vars.is_empty() {
                // Only the first reference of `{a, b}` prints without formatters.
                if vars[0] == "@" {
                    asm.leaf(Inst::PrintCurrent, at);
                } else {
                    let path = asm.draft.path(vars[0]);
                    asm.print(path, at);
                }
            } else {
                let variable = Variable {
                    vars: asm.draft.references(&vars),
                    formatters,
                    at,
                };
                let inst = asm.draft.variable(variable);
                asm.leaf(inst, at);
            }
        }
        Tag::Bindvar {
            name,
            vars,
            formatters,
        } => {
            let Some(formatters) =
                resolve_formatters(formatters, false, registry, (asm.draft, at), errors)
            else {
                return false;
            };
            let bind = Bindvar {
                name: name.into(),
                vars: asm.draft.references(&vars),
                formatters,
                at,
            };
            let inst = asm.draft.other(Other::Bindvar(bind));
            asm.leaf(inst, at);
        }
        Tag::Ctxvar { name, bindings } => {
            let bindings = bindings
                .into_iter()
                .map(|(k, v)| (k.into(), asm.draft.path(v)))
                .collect();
            let ctx = Ctxvar {
                name: name.into(),
                bindings,
            };
            let inst = asm.draft.other(Other::Ctxvar(ctx));
            asm.leaf(inst, at);
        }
        Tag::Eval(code) => {
            let (debug, code) = match code.strip_prefix('#') {
                Some(rest) => (true, rest),
                None => (false, code),
            };
            let (expr, parse_errors) = Expr::compile(code, limits);
            let eval = Eval {
                source: code.into(),
                expr,
                parse_errors,
                debug,
                at,
            };
            let inst = asm.draft.other(Other::Eval(eval));
            asm.leaf(inst, at);
        }
        Tag::Include { name, args } => {
            let include = Include {
                name: name.into(),
                output: args.contains(&"output"),
                at,
            };
            let inst = asm.draft.other(Other::Include(include));
            asm.leaf(inst, at);
        }
        Tag::Inject { name, path } => {
            let inject = Inject {
                name: name.into(),
                path: path.into(),
            };
            let inst = asm.draft.other(Other::Inject(inject));
            asm.leaf(inst, at);
        }
        Tag::MetaLeft => asm.text("{", at),
        Tag::MetaRight => asm.text("}", at),
        Tag::Newline => asm.text("\n", at),
        Tag::Space => asm.text(" ", at),
        Tag::Tab => asm.text("\t", at),
        Tag::Section(path) => {
            let path = asm.draft.path(path);
            asm.open(BlockKind::Section(path), at)
        }
        Tag::Repeated(path) => {
            let path = asm.draft.path(path);
            asm.open(BlockKind::Repeated(path), at)
        }
        Tag::If { ops, vars } => {
            let kind = BlockKind::If {
                ops: ops.into(),
                vars: asm.draft.references(&vars),
            };
            asm.open(kind, at);
        }
        Tag::Predicate { name, args } => {
            let call = resolve_predicate(name, args, registry, (asm.draft, at), errors);
            asm.open(BlockKind::Predicate(call), at);
        }
        Tag::Macro(name) => asm.open(BlockKind::Macro(name.into()), at),
        Tag::Or(pred) => {
            let call = pred.map(|(name, args)| {
                resolve_predicate(name, args, registry, (asm.draft, at), errors)
            });
            asm.control(Control::Or(call), at);
        }
        Tag::End => asm.end(at),
        Tag::Eof => asm.control(Control::Eof, at),
        Tag::AlternatesWith => asm.control(Control::AlternatesWith, at),
    }
    true
}

/// Adds the calls of a variable tag's chain as written after its first `|`, if every
/// call is well-formed and every formatter known; otherwise adds some of them, for the
/// caller to roll back.
///
/// Arguments are named within the draft's source, which `chain` lies in.
fn known_chain(chain: &str, registry: &Registry, draft: &mut Draft) -> Option<Calls> {
    let start = draft.parts.calls.len();
    for call in chain_calls(chain) {
        let (name, raw) = call?;
        let args = Args::split_in(raw, Some(&draft.names));
        draft
            .parts
            .calls
            .push(formatter_call(name, args, registry)?);
    }
    Some(output_from_last(&mut draft.parts.calls, start, true))
}

/// Resolves a chain's formatter names into the draft's calls. With `prints` (a variable
/// tag, not `.var`), the last call keeps the formatter's output-writing variant, if any:
/// its result goes straight to the output.
fn resolve_formatters(
    calls: Vec<FormatterSyntax<'_>>,
    prints: bool,
    registry: &Registry,
    (draft, at): (&mut Draft, At),
    errors: &mut Vec<Diagnostic>,
) -> Option<Calls> {
    let start = draft.parts.calls.len();
    for call in calls {
        let Some(resolved) = formatter_call(call.name, call.args, registry) else {
            errors.push(Diagnostic::syntax(
                msg::formatter_unknown(call.name),
                Some(draft.pos(at)),
            ));
            draft.parts.calls.truncate(start);
            return None;
        };
        draft.parts.calls.push(resolved);
    }
    Some(output_from_last(&mut draft.parts.calls, start, prints))
}

/// A call of the formatter registered as `name`, if there is one.
fn formatter_call(name: &str, args: Args, registry: &Registry) -> Option<FormatterCall> {
    let (name, apply, emit) = registry.formatter_entry(name)?;
    Some(FormatterCall {
        name,
        apply,
        emit,
        args,
    })
}

/// The chain of `calls` from `start` on, of which only the last of a variable tag's
/// (`prints`) keeps its formatter's output-writing variant: its result goes straight to
/// the output.
fn output_from_last(calls: &mut [FormatterCall], start: usize, prints: bool) -> Calls {
    let chain = &mut calls[start..];
    let writers = if prints {
        chain.len().saturating_sub(1)
    } else {
        chain.len()
    };
    for call in &mut chain[..writers] {
        call.emit = None;
    }
    Calls {
        start: start as u32,
        len: chain.len() as u32,
    }
}

fn resolve_predicate(
    name: &str,
    args: crate::syntax::tag::Args,
    registry: &Registry,
    (draft, at): (&Draft, At),
    errors: &mut Vec<Diagnostic>,
) -> PredicateCall {
    match registry.predicate_entry(name) {
        Some((name, apply)) => PredicateCall {
            name: Cow::Borrowed(name),
            apply: Some(apply),
            args,
        },
        None => {
            errors.push(Diagnostic::syntax(
                msg::predicate_unknown(name),
                Some(draft.pos(at)),
            ));
            PredicateCall {
                name: Cow::Owned(name.into()),
                apply: None,
                args,
            }
        }
    }
}

/// Partial templates by name, compiled up front.
#[derive(Default)]
pub struct Partials {
    map: FxHashMap<Box<str>, PartialEntry>,
}

/// A partial, or the syntax errors that keep it from being used.
pub enum PartialEntry {
    Ready(Arc<Template>),
    /// Applying it reports these errors and renders nothing, as in the reference.
    Failed(Vec<Diagnostic>),
}

impl Partials {
    /// Compiles every partial; returns the set and all syntax errors found (each attributed
    /// to its partial).
    pub fn compile<'s>(
        sources: impl IntoIterator<Item = (&'s str, &'s str)>,
        registry: &Registry,
    ) -> (Partials, Vec<Diagnostic>) {
        Partials::compile_with(sources, registry, &CompileOptions::default())
    }

    /// [`Partials::compile`] with compile options (host tags, limits).
    pub fn compile_with<'s>(
        sources: impl IntoIterator<Item = (&'s str, &'s str)>,
        registry: &Registry,
        options: &CompileOptions,
    ) -> (Partials, Vec<Diagnostic>) {
        let sources = sources.into_iter();
        let mut partials = Partials::default();
        // Room for the partials up front (a page's dozen grew the map three times).
        partials.map.reserve(sources.size_hint().0);
        let mut all_errors = Vec::new();
        for (name, source) in sources {
            let c = Template::compile_with(source, registry, options);
            let entry = if c.errors.is_empty() {
                PartialEntry::Ready(Arc::new(c.template))
            } else {
                all_errors.extend(c.errors.iter().cloned().map(|e| e.in_partial(name)));
                PartialEntry::Failed(c.errors)
            };
            partials.map.insert(name.into(), entry);
        }
        (partials, all_errors)
    }

    /// Adds an already compiled partial.
    pub fn insert(&mut self, name: &str, template: Arc<Template>) {
        self.map.insert(name.into(), PartialEntry::Ready(template));
    }

    pub fn get(&self, name: &str) -> Option<&PartialEntry> {
        self.map.get(name)
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fuzzing::xorshift;

    /// Tag contents around the common shapes and their near misses: each is compiled the
    /// short way when it has a common shape, and must compile to what the general grammar
    /// makes of it.
    const CONTENTS: &[&str] = &[
        ".end",
        ".end ",
        ".endx",
        ".or",
        ".or ",
        ".orx",
        ".or equal? a 1",
        ".eof",
        ".alternates with",
        ".section a",
        ".section  a.b",
        ".section\ta.0",
        ".section\n@",
        ".sectiona",
        ".section a ",
        ".section",
        ".section a,b",
        ".section a|html",
        ".section? x",
        ".repeated section items",
        ".repeated section",
        ".repeated  section x",
        ".repeated section @index",
        ".repeated sectionx",
        ".if a",
        ".if a ",
        ".if\ta.b",
        ".if a && b",
        ".if a b",
        ".if a|html",
        ".ifa",
        ".if",
        ".if ",
        ".if @index",
        ".if equal? a 1",
        ".equal? a 1",
        ".equal?",
        ".equal? ",
        ".equal?:a:b",
        ".equal? a é",
        ".greaterThan? n 10",
        ".nope? a",
        ".Equal? a 1",
        ".equal ? a",
        ".var @v a|html",
        ".var @v a",
        ".var @v a.b.0",
        ".var @v @index",
        ".var @v a, b",
        ".var @v a ",
        ".var  @v a",
        ".var @v  a",
        ".var v a",
        ".var @ a",
        ".var @v",
        ".var @v a.01",
        ".var @1 a",
        ".var @v-w_2 a",
        ".var@v a",
        ".varx @v a",
        ".if a || b",
        ".if a||b&&c",
        ".if a ||\tb &&  c.d ",
        ".if a || b.01",
        ".if a ||",
        ".if a || ",
        ".if a |",
        ".if a &&& b",
        ".if a || b c",
        ".if a || b?",
        ".if a? || b",
        ".if a || equal? b",
        ".if a || |html",
        "#c",
        "#",
        "#  a comment {",
        "##",
        "a",
        "a.b.0",
        "a.b.c.d.e.f.g.h",
        "a.b.c.d.e.f.g.h.i",
        "a.b.c.d.e.f.g.h.i.j.k|html",
        ".section a.b.c.d.e.f.g.h.0.1",
        "a.",
        "@",
        "@index",
        "@index0",
        "@x.y",
        "$x",
        "1",
        "01.a",
        // Declined after a made-up name ("1"): the short way takes nothing back with it.
        "a.01 b",
        "a.01|nope",
        ".section a.01 ",
        "-a",
        "a b",
        "a|html",
        "a|html|truncate 10",
        "a|",
        "a||b",
        "a|nope",
        "a|html ",
        "a|truncate 5 ...",
        "a|date:%Y:x",
        "a, b",
        "a ,b|html",
        "a |html",
        "a|html, b",
        "@|html",
        "a.|html",
        "a|apply x.block",
        "a|Html",
        "a|html|",
        "a|html|nope",
        "items|count|pluralize y ies",
        "a|json-pretty",
        "a|truncate",
        "a|safe|truncate 150|htmlattr",
        "a|é",
        "é",
        "a|html é",
    ];
    const TEXTS: &[&str] = &[
        "x",
        " ",
        "\n",
        "{",
        "}",
        "<p>",
        "é",
        "{##c##}",
        "",
        "<x:t a=\"{a.b|html}\" />",
        "<x:t>{.section a}{b}{.end}</x:t>",
    ];

    fn both_ways(source: &str) -> [String; 2] {
        // Host tags on: their attributes and bodies compile as sub-templates, and the
        // template around them takes the scanner's way.
        let options = CompileOptions {
            host_prefix: Some("x:".into()),
            ..CompileOptions::default()
        };
        [true, false].map(|common| {
            let c = compile_source(source, Registry::standard(), &options, common);
            let t = &c.template;
            format!(
                "{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{:?}",
                t.root, t.insts, t.paths, t.segs, t.parts, t.text, c.errors
            )
        })
    }

    #[test]
    fn every_content_alone_compiles_as_the_general_grammar_does() {
        for content in CONTENTS {
            let source = format!("a{{{content}}}b");
            let [short, general] = both_ways(&source);
            assert_eq!(short, general, "{source:?}");
        }
    }

    #[test]
    fn plain_attribute_values_compile_as_the_assembler_makes_them() {
        let options = CompileOptions {
            host_prefix: Some("x:".into()),
            ..CompileOptions::default()
        };
        let source = "ab \u{e9}\n\t c x:y } > \"\u{1F600}";
        let names: Arc<str> = Arc::from(source);
        for start in 0..=source.len() {
            for end in start..=source.len() {
                if !source.is_char_boundary(start) || !source.is_char_boundary(end) {
                    continue;
                }
                let piece = &names[start..end];
                plain_like_assembled(piece, &names, &options);
            }
        }
        let mut draft = Draft::new(&names, Arc::clone(&names));
        for not_plain in ["{", "<", "a{b}", "a<x:y>"] {
            assert!(plain_text(not_plain, &mut draft).is_none());
        }
    }

    /// A piece of the source compiles the same by [`plain_text`] and by the assembler,
    /// after an instruction already in the list.
    fn plain_like_assembled(piece: &str, names: &Arc<str>, options: &CompileOptions) {
        let [plain, assembled] = [true, false].map(|plain| {
            let mut draft = Draft::new(names, Arc::clone(names));
            draft.insts.push(Inst::PrintCurrent);
            let block = if plain {
                plain_text(piece, &mut draft).expect("plain text")
            } else {
                let (block, errors) =
                    compile_into(piece, &mut draft, Registry::standard(), options, true);
                assert!(errors.is_empty());
                block
            };
            format!("{block:?} {:?} {:?}", draft.insts, draft.text.finish())
        });
        assert_eq!(plain, assembled, "{piece:?}");
    }

    /// Whether the short way takes `content` alone.
    fn taken_the_short_way(content: &str) -> bool {
        let names: Arc<str> = Arc::from(content);
        let mut draft = Draft::new(&names, Arc::clone(&names));
        let mut asm = Assembler::for_source(0, &mut draft);
        onepass::common(&names, Default::default(), Registry::standard(), &mut asm)
    }

    #[test]
    fn the_common_shapes_are_taken_the_short_way() {
        // What the short way is for: a shape here going to the general grammar compiles
        // alike (the tests above) but slower.
        for content in [
            ".end",
            ".or",
            ".alternates with",
            ".section a.b",
            ".repeated section items",
            ".if a",
            ".if a || b && c",
            ".var @v a.b",
            "# a comment",
            ".equal? a 1",
            ".greaterThan? likeCount 10",
            ".nth? @index 3",
            "a",
            "@",
            "a|html",
            "title|html|truncate 40",
            "publishOn|date %b %e, %Y",
        ] {
            assert!(taken_the_short_way(content), "{content:?}");
        }
        for content in [
            ".var @v a|html",
            ".if a && b?",
            ".nope? a",
            "a, b",
            "a|nope",
        ] {
            assert!(!taken_the_short_way(content), "{content:?}");
        }
    }

    #[test]
    fn random_templates_compile_as_the_general_grammar_does() {
        // Which contents the short way takes alone (it declines an unknown formatter).
        let taken: Vec<bool> = CONTENTS.iter().map(|c| taken_the_short_way(c)).collect();
        let mut next = xorshift(0x5eed_c0de);
        let mut short_taken = 0;
        for case in 0..3000 {
            let mut source = String::new();
            for _ in 0..1 + next() % 24 {
                let r = next() as usize;
                if r.is_multiple_of(3) {
                    source.push_str(TEXTS[r / 3 % TEXTS.len()]);
                } else {
                    let i = r / 3 % CONTENTS.len();
                    let content = CONTENTS[i];
                    short_taken += usize::from(taken[i]);
                    source.push('{');
                    source.push_str(content);
                    source.push('}');
                }
            }
            let [short, general] = both_ways(&source);
            assert_eq!(short, general, "case {case}: {source:?}");
        }
        // The short way was taken, not just declined.
        assert!(short_taken > 10_000, "{short_taken}");
    }

    #[test]
    fn text_across_a_comment_is_two_ranges_of_the_source() {
        let data = crate::value::Node::from_json_str(r#"{"x": "X"}"#).unwrap();
        let render = |source: &str| {
            let c = Template::compile(source, Registry::standard());
            assert!(c.errors.is_empty(), "{source:?}");
            let out = c.template.render(&data);
            (c.template, out)
        };
        let (t, out) = render("ab{# c #}de{x}f{#d#}{##e##}g");
        // Nothing made up: the template's text is its source.
        assert_eq!(&*t.text, "ab{# c #}de{x}f{#d#}{##e##}g");
        assert_eq!(
            format!("{:?}", t.root.of(&t.insts)),
            "[Text(Span { start: 0, len: 2 }), TextThenPrint(Span { start: 9, len: 2 }, PathId(0)), \
             Text(Span { start: 14, len: 1 }), Text(Span { start: 27, len: 1 })]"
        );
        assert_eq!(out, render("abde{x}fg").1);
        assert_eq!(out, "abdeXfg");
        // Text around a tag that prints as text goes on where the text before ends: one
        // range.
        let (t, out) = render("a{b c}d");
        assert_eq!(
            format!("{:?}", t.root.of(&t.insts)),
            "[Text(Span { start: 0, len: 7 })]"
        );
        assert_eq!(out, "a{b c}d");
    }

    #[test]
    fn a_segment_in_canonical_form_is_a_range_of_the_source() {
        // "0" names the key "0" as written: the template's text is its source alone.
        let source = "{a.0}{b.0.c}{.section d.0}{e}{.end}";
        let c = Template::compile(source, Registry::standard());
        assert!(c.errors.is_empty());
        assert_eq!(&*c.template.text, source);
        // "01" and "00" name the keys "1" and "0", made up after the source.
        let c = Template::compile("{a.01}{b.00}", Registry::standard());
        assert_eq!(&*c.template.text, "{a.01}{b.00}10");
        let names: Vec<&str> = c
            .template
            .segs
            .iter()
            .map(|seg| seg.name.of(&c.template.text))
            .collect();
        assert_eq!(names, ["1", "0"]);
    }

    #[test]
    fn host_tag_names_are_ranges_of_the_source() {
        let options = CompileOptions {
            host_prefix: Some("x:".into()),
            ..CompileOptions::default()
        };
        // A made-up name (`01`) puts text after the source: the names still read right.
        let source = "{a.01}<x:nav a=\"1\" b-c=\"{x}\" async><x:nav d='2' /></x:nav><x:t/>";
        let c = Template::compile_with(source, Registry::standard(), &options);
        assert!(c.errors.is_empty(), "{:?}", c.errors);
        let t = &c.template;
        assert_eq!(&*t.text, format!("{source}1"));
        let hosts: Vec<&tree::HostTag> = t
            .parts
            .others
            .iter()
            .filter_map(|o| match o {
                Other::Host(h) => Some(h),
                _ => None,
            })
            .collect();
        // The inner tag compiles first, as its body does.
        let names: Vec<(String, Vec<&str>)> = hosts
            .iter()
            .map(|h| (h.name.to_string(), h.attrs().map(|(n, _)| n).collect()))
            .collect();
        assert_eq!(
            names,
            [
                ("nav".to_string(), vec!["d"]),
                ("nav".to_string(), vec!["a", "b-c", "async"]),
                ("t".to_string(), vec![]),
            ]
        );
        let outer = hosts[1];
        assert_eq!(&*outer.name, "nav");
        assert_eq!(format!("{:?}", outer.name), "\"nav\"");
        assert!(outer.attr("b-c").is_some() && outer.attr("async").is_some());
        assert_eq!(outer.attr("b"), None);
        assert_eq!(outer.attr("a").map(|b| b.of(&t.insts).len()), Some(1));
        assert_eq!(outer.attr("async").map(|b| b.of(&t.insts).len()), Some(0));
        let uses = c.template.uses();
        assert_eq!(
            format!("{uses:?}").matches("HostTag").count(),
            3,
            "{uses:?}"
        );
    }

    #[test]
    fn or_branches_of_nested_blocks_are_rows_of_one_list() {
        let source = "{.section a}A{.section b}B{.or}b{.end}{.or equal? 1 2}C{.or}-\
                      {.section d}D{.or equal? 1 2}never{.or}d{.end}{.end}|\
                      {.repeated section e}{@}{.or}E{.end}{.if f}F{.or}f{.end}";
        let c = Template::compile(source, Registry::standard());
        assert!(c.errors.is_empty(), "{:?}", c.errors);
        // Seven branches: two for `a`, one each for `b` and `e` and `f`, two for `d`.
        assert_eq!(c.template.parts.branches.len(), 7);
        let render = |json: &str| {
            let data = crate::value::Node::from_json_str(json).unwrap();
            c.template.render(&data)
        };
        assert_eq!(render(r#"{"a": {"b": 1}}"#), "AB|Ef");
        assert_eq!(render(r#"{"a": {"x": 1}}"#), "Ab|Ef");
        assert_eq!(render(r#"{"d": 1}"#), "-D|Ef");
        assert_eq!(render(r#"{"e": [1, 2], "f": 1}"#), "-d|12F");
    }
}
