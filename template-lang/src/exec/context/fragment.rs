//! Reusable output: a block run over a scope, with what it read from outside that scope.
//!
//! A host renders the same block over the same data on many pages (a site's navigation).
//! The block's names mostly resolve in that data, but some resolve further out, in the
//! page (`{localizedStrings.navigation}`), and those can differ from page to page. So while
//! the block runs, every resolution that reaches past the data is recorded with its value,
//! and the output may be printed again in place of a run wherever each recorded name still
//! resolves to the same value ([`Ctx::replay`]), at the same partial depth and in the same
//! locale. Loop counters and variables from outside count as names. What cannot be checked
//! that way, such as host tags, the clock, errors and macros from outside, makes the output
//! not reusable at all.

use std::cell::{Cell, RefCell};
use std::sync::{Arc, Weak};

use super::{Ctx, Frame, member_node};
use crate::syntax::path::{Head, Path, VarPath};
use crate::value::{Node, Object, Val};

/// A block's output and what it depends on outside the scope it ran over.
#[derive(Debug)]
pub struct Fragment {
    output: Box<str>,
    deps: Box<[Dep]>,
    /// The partial depth it ran at: deeper, the partials inside might pass the limit.
    partial_depth: usize,
    /// The locale it ran in, which formatters read from the environment.
    locale: Option<icu_locale::Locale>,
}

impl Fragment {
    /// The text the block printed.
    pub fn output(&self) -> &str {
        &self.output
    }
}

/// One thing read from outside the scope.
#[derive(Debug)]
enum Dep {
    /// A reference and what it resolved to.
    Path(VarPath, Seen),
    /// A partial name that no macro outside the scope shadowed.
    NoMacro(Box<str>),
}

/// The state of a recording run ([`Ctx::run_recorded`]).
pub(super) struct Recording {
    /// The index of the frame holding the scope's data.
    base: usize,
    deps: RefCell<Vec<Dep>>,
    /// Set when the block did something a replay could not reproduce.
    spoiled: Cell<bool>,
}

impl Recording {
    fn record(&self, dep: Dep) {
        let mut deps = self.deps.borrow_mut();
        let seen = deps.iter().any(|d| match (d, &dep) {
            (Dep::Path(a, _), Dep::Path(b, _)) => a == b,
            (Dep::NoMacro(a), Dep::NoMacro(b)) => a == b,
            _ => false,
        });
        if !seen {
            deps.push(dep);
        }
    }
}

/// Where a walk down `frames` (from the last) ends: the first frame where `found` holds or
/// whose `stop` ends resolution, else the root.
fn walk_end(frames: &[Frame<'_>], found: impl Fn(&Frame<'_>) -> bool) -> usize {
    frames.iter().rposition(|f| found(f) || f.stop).unwrap_or(0)
}

/// What a recorded reference resolved to. Arrays and objects are compared by identity (a
/// replay must not cost a deep comparison; an equal copy only means the block runs again)
/// and held weakly: a weak reference keeps the allocation, so no other array or object can
/// take its address, but not the contents, so a fragment kept inside the data it ran over
/// (see `plugins::kept`) makes no cycle.
#[derive(Debug)]
enum Seen {
    Missing,
    Scalar(Node),
    Array(Weak<[Node]>),
    Object(Weak<Object>),
}

impl Seen {
    fn of(value: &Val<'_>) -> Seen {
        let node = match value {
            Val::Missing => return Seen::Missing,
            Val::Text(s) => return Seen::Scalar(Node::from(s.as_str())),
            Val::Ref(n) => *n,
            Val::Own(n) => n,
        };
        match node {
            Node::Array(a) => Seen::Array(Arc::downgrade(a)),
            Node::Object(o) => Seen::Object(Arc::downgrade(o)),
            scalar => Seen::Scalar(scalar.clone()),
        }
    }

    /// True when `now` is the value seen.
    fn is(&self, now: &Val<'_>) -> bool {
        let now = match now {
            Val::Missing => return matches!(self, Seen::Missing),
            Val::Text(s) => return matches!(self, Seen::Scalar(Node::String(x)) if **x == **s),
            Val::Ref(n) => *n,
            Val::Own(n) => n,
        };
        match (self, now) {
            (Seen::Scalar(Node::Null), Node::Null) => true,
            (Seen::Scalar(Node::Bool(a)), Node::Bool(b)) => a == b,
            (Seen::Scalar(Node::Number(a)), Node::Number(b)) => a.to_bits() == b.to_bits(),
            (Seen::Scalar(Node::String(a)), Node::String(b)) => a == b,
            (Seen::Array(a), Node::Array(b)) => std::ptr::addr_eq(a.as_ptr(), Arc::as_ptr(b)),
            (Seen::Object(a), Node::Object(b)) => std::ptr::eq(a.as_ptr(), Arc::as_ptr(b)),
            _ => false,
        }
    }
}

impl<'a> Ctx<'a> {
    /// Runs `run` with `node` pushed as the innermost scope, as [`Ctx::with_scope`] does,
    /// and returns its output with what it read from outside that scope, or `None` when
    /// the output cannot be reused ([`Ctx::replay`]): it ran host tags, read the clock,
    /// reported errors, used macros from outside, or ran inside another recording.
    pub fn run_recorded(
        &mut self,
        node: Val<'a>,
        run: impl FnOnce(&mut Ctx<'a>),
    ) -> Option<Fragment> {
        if self.recording.is_some() {
            self.with_scope(node, run);
            return None;
        }
        let start = self.out.len();
        let errors = self.errors.len();
        self.push(node.into_shared());
        self.recording = Some(Box::new(Recording {
            base: self.stack.len() - 1,
            deps: RefCell::default(),
            spoiled: Cell::new(false),
        }));
        run(self);
        let recording = self.recording.take().expect("set above");
        self.pop();
        let clean = !recording.spoiled.get()
            && !self.halted
            && self.errors.len() == errors
            && self.out.len() >= start;
        clean.then(|| Fragment {
            output: self.out[start..].into(),
            deps: recording.deps.into_inner().into_boxed_slice(),
            partial_depth: self.partial_depth,
            locale: self.env.locale.clone(),
        })
    }

    /// Prints `fragment` if everything it read from outside its scope resolves here as it
    /// did when it was recorded; false (printing nothing) otherwise.
    pub fn replay(&mut self, fragment: &Fragment) -> bool {
        if self.recording.is_some()
            || self.partial_depth != fragment.partial_depth
            || self.env.locale != fragment.locale
        {
            return false;
        }
        let unchanged = fragment.deps.iter().all(|dep| match dep {
            Dep::Path(path, seen) => seen.is(&self.resolve_in(&self.stack, &path.path())),
            Dep::NoMacro(name) => self.macro_named(name).is_none(),
        });
        if unchanged {
            self.out.push_str(&fragment.output);
        }
        unchanged
    }

    /// Marks the current recording, if any, as not reusable.
    pub(crate) fn spoil(&self) {
        if let Some(r) = &self.recording {
            r.spoiled.set(true);
        }
    }

    /// Resolves `path` down `frames` while recording: what is found below the recorded
    /// scope is noted as a dependency.
    pub(super) fn resolve_recorded(&self, frames: &[Frame<'a>], path: &Path<'_>) -> Val<'a> {
        let value = self.resolve_in(frames, path);
        let Some(r) = &self.recording else {
            return value;
        };
        // A walk starting below the frame under the scope (never from inside it) is not
        // one a replay can repeat from where the block runs.
        if frames.len() < r.base {
            r.spoiled.set(true);
            return value;
        }
        let end = match path.head() {
            Head::Current => frames.len() - 1,
            Head::Index { .. } => walk_end(frames, |f| f.index >= 0),
            Head::Var(name) => walk_end(frames, |f| f.var(name).is_some()),
            Head::Key(seg) => walk_end(frames, |f| match &f.node {
                Val::Ref(n) => member_node(n, seg, path.name(seg)).is_some(),
                Val::Own(n) => member_node(n, seg, path.name(seg)).is_some(),
                _ => false,
            }),
        };
        if end < r.base {
            r.record(Dep::Path(path.to_var_path(), Seen::of(&value)));
        }
        value
    }

    /// Notes a partial lookup while recording: a macro from outside the scope spoils the
    /// recording, and the absence of one is a dependency.
    pub(super) fn note_macro_lookup(&self, name: &str, found_at: Option<usize>) {
        let Some(r) = &self.recording else {
            return;
        };
        match found_at {
            Some(i) if i < r.base => r.spoiled.set(true),
            Some(_) => {}
            None => r.record(Dep::NoMacro(name.into())),
        }
    }
}
