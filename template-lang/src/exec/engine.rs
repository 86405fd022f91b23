//! Executes compiled instructions: one function per instruction kind.

use std::borrow::Cow;

use super::context::Ctx;
use super::expr::{ExprScope, Literal};
use crate::compile::tree::{self, Block, FormatterCall, Inst};
use crate::error::msg;
use crate::syntax::path::{Head, VarPath};
use crate::syntax::tag::Op;
use crate::value::{Node, Val, View};

/// Executes a block of instructions.
pub(crate) fn exec_block<'a>(ctx: &mut Ctx<'a>, block: Block) {
    let insts: &'a [Inst] = block.of(ctx.code.insts);
    for inst in insts {
        if !ctx.tick() {
            return;
        }
        exec_inst(ctx, inst);
    }
}

fn exec_inst<'a>(ctx: &mut Ctx<'a>, inst: &'a Inst) {
    match inst {
        Inst::Text(text) => push_text(&mut ctx.out, text.of(ctx.code.text)),
        Inst::PrintCurrent => ctx.print_current(),
        Inst::Print(path) => ctx.print_id(*path),
        Inst::TextThenCurrent(text) => {
            push_text(&mut ctx.out, text.of(ctx.code.text));
            ctx.print_current();
        }
        Inst::TextThenPrint(text, path) => {
            push_text(&mut ctx.out, text.of(ctx.code.text));
            ctx.print_id(*path);
        }
        Inst::Variable(v) => exec_variable(ctx, ctx.code.variable(*v)),
        Inst::Section(s) => exec_section(ctx, ctx.code.section(*s)),
        Inst::Repeated(r) => exec_repeated(ctx, ctx.code.repeated(*r)),
        Inst::Other(id) => exec_other(ctx, ctx.code.other(*id)),
    }
}

fn exec_other<'a>(ctx: &mut Ctx<'a>, other: &'a tree::Other) {
    use tree::Other;
    match other {
        Other::Predicate(p) => {
            ctx.set_at(p.at);
            match test(ctx, &p.call, "PREDICATE") {
                Some(true) => exec_block(ctx, p.body),
                Some(false) => exec_alternates(ctx, &p.alt),
                None => {}
            }
        }
        Other::If(i) => exec_if(ctx, i),
        Other::Bindvar(b) => {
            ctx.set_at(b.at);
            with_resolved(ctx, b.vars, |ctx, vars| {
                ctx.applying = "BINDVAR";
                apply_formatters(ctx, ctx.code.calls(b.formatters), vars);
                ctx.applying = "VARIABLE";
                if !ctx.take_failure() {
                    let value = std::mem::take(&mut vars[0]);
                    ctx.set_var(Cow::Borrowed(&b.name), value);
                }
            });
        }
        Other::Ctxvar(c) => {
            let entries = c
                .bindings
                .iter()
                .map(|(key, path)| {
                    let value = ctx.resolve_id(*path).to_node().unwrap_or(Node::Null);
                    (std::sync::Arc::from(&**key), value)
                })
                .collect();
            ctx.set_var(Cow::Borrowed(&c.name), Val::Own(Node::object(entries)));
        }
        Other::Eval(e) => exec_eval(ctx, e),
        Other::Include(i) => exec_include(ctx, i),
        Other::Inject(i) => {
            let env = ctx.env;
            let value = match env.injects.get(&*i.path) {
                // As in the reference, a falsy document counts as missing.
                Some(node)
                    if View::of(node).truthy()
                        || matches!(node, Node::Array(_) | Node::Object(_)) =>
                {
                    Val::Ref(node)
                }
                _ => Val::Missing,
            };
            ctx.set_var(Cow::Borrowed(&i.name), value);
        }
        Other::Macro(m) => ctx.set_macro(&m.name, m),
        Other::Host(tag) => {
            // What a host tag prints depends on the host's state, which a recording cannot
            // check: output around one is not reused.
            ctx.spoil();
            if let Some(host) = ctx.env.host {
                host.render_tag(ctx, tag);
            }
        }
    }
}

/// Appends template text. Most text between tags is a few bytes (`<td>`, `</li>`, a
/// newline); a copy whose length is known at compile time is a couple of stores, where
/// `push_str` of a length known only at run time calls `memcpy`, which on these sizes cost
/// as much as everything else a small loop body does.
#[inline(always)]
fn push_text(out: &mut String, text: &str) {
    macro_rules! fixed {
        ($($len:literal)*) => {
            match text.len() {
                $($len => out.push_str(&text[..$len]),)*
                _ => out.push_str(text),
            }
        };
    }
    fixed!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16)
}

/// Runs the first `{.or}` branch whose predicate holds.
fn exec_alternates<'a>(ctx: &mut Ctx<'a>, alternates: &tree::Alternate) {
    if *alternates == tree::Alternate::default() {
        return;
    }
    for branch in ctx.code.branches(*alternates) {
        let take = match &branch.call {
            None => Some(true),
            Some(call) => {
                ctx.set_at(branch.at);
                test(ctx, call, "OR_PREDICATE")
            }
        };
        match take {
            Some(true) => {
                exec_block(ctx, branch.body);
                return;
            }
            Some(false) => {}
            // A failed predicate abandons its block: no branch runs.
            None => return,
        }
    }
}

/// Evaluates a predicate; `None` when it failed ([`Ctx::fail`]), which in the reference
/// is a thrown error that skips the whole block.
fn test<'a>(ctx: &mut Ctx<'a>, call: &'a tree::PredicateCall, kind: &'static str) -> Option<bool> {
    match call.apply {
        Some(f) => {
            let previous = std::mem::replace(&mut ctx.applying, kind);
            let result = f(ctx, &call.args);
            ctx.applying = previous;
            if ctx.take_failure() {
                None
            } else {
                Some(result)
            }
        }
        // Unknown predicates were reported at compile time and count as false.
        None => Some(false),
    }
}

/// Resolves a tag's references (`{a, b|f}`, `{.var @x a|f}`) and hands their values to
/// `then`: on the stack for up to four of them. A `Vec` for every `.var` tag was most of
/// what executing a product grid allocated.
fn with_resolved<'a, R>(
    ctx: &mut Ctx<'a>,
    paths: tree::PathIds,
    then: impl FnOnce(&mut Ctx<'a>, &mut [Val<'a>]) -> R,
) -> R {
    const ON_STACK: usize = 4;
    if paths.len() <= ON_STACK {
        let mut vars: [Val<'a>; ON_STACK] = Default::default();
        for (slot, id) in vars.iter_mut().zip(paths.iter()) {
            *slot = ctx.resolve_id(id);
        }
        then(ctx, &mut vars[..paths.len()])
    } else {
        let mut vars: Vec<Val<'a>> = paths.iter().map(|p| ctx.resolve_id(p)).collect();
        then(ctx, &mut vars)
    }
}

pub(crate) fn apply_formatters<'a>(
    ctx: &mut Ctx<'a>,
    calls: &'a [FormatterCall],
    vars: &mut [Val<'a>],
) {
    for call in calls {
        (call.apply)(ctx, &call.args, vars);
        if ctx.failing() {
            return;
        }
    }
}

/// A variable tag with formatters (plain ones compile to [`Inst::Print`]).
fn exec_variable<'a>(ctx: &mut Ctx<'a>, v: &'a tree::Variable) {
    ctx.set_at(v.at);
    let calls = ctx.code.calls(v.formatters);
    // Formatters run in a frame holding the (unformatted) first value, as in the reference.
    if let (1, Some(first)) = (v.vars.len(), v.vars.first()) {
        let mut vars = [ctx.resolve_id(first)];
        format_and_print(ctx, calls, &mut vars);
    } else {
        with_resolved(ctx, v.vars, |ctx, vars| format_and_print(ctx, calls, vars));
    }
}

fn format_and_print<'a>(ctx: &mut Ctx<'a>, calls: &'a [FormatterCall], vars: &mut [Val<'a>]) {
    let entered = ctx.enter_formatters(&vars[0]);
    match calls.split_last() {
        Some((last, init)) if last.emit.is_some() => {
            apply_formatters(ctx, init, vars);
            if let Some(emit) = last.emit.filter(|_| !ctx.failing()) {
                emit(ctx, &last.args, std::mem::take(&mut vars[0]));
            }
        }
        _ => {
            apply_formatters(ctx, calls, vars);
            if !ctx.failing() {
                vars[0].view().print(&mut ctx.out);
            }
        }
    }
    ctx.leave_formatters(entered);
}

fn exec_section<'a>(ctx: &mut Ctx<'a>, s: &'a tree::Section) {
    let node = ctx.resolve_section_id(s.path);
    if node.view().truthy() {
        ctx.push(node);
        exec_block(ctx, s.body);
        ctx.pop();
    } else {
        // The section's frame is not on the stack while the alternate runs, as in the
        // Java engine (which real sites run): names there resolve against the enclosing
        // scope. The npm engine keeps the (missing) value's frame; see the engine tests.
        if ctx.env.npm_compat {
            ctx.push(node);
            exec_alternates(ctx, &s.alt);
            ctx.pop();
        } else {
            exec_alternates(ctx, &s.alt);
        }
    }
}

fn exec_repeated<'a>(ctx: &mut Ctx<'a>, r: &'a tree::Repeated) {
    let node = ctx.resolve_section_id(r.path);
    let len = match node.view() {
        View::Arr(items) if !items.is_empty() => items.len(),
        _ => {
            exec_alternates(ctx, &r.alt);
            return;
        }
    };
    // Elements of a borrowed array are borrowed too: taken straight from the slice, they
    // go into the frame without building a `Val` and copying it there.
    let borrowed: Option<&'a [Node]> = match node {
        Val::Ref(Node::Array(items)) => Some(items),
        _ => None,
    };
    ctx.push(node);
    let frame = ctx.depth();
    ctx.set_index_at(frame, 0);
    // Every element runs in a fresh frame above the loop's. Outside npm compatibility mode
    // the body leaves the stack as it found it, so one frame, emptied between elements,
    // serves them all: building and dropping a frame per element was a fifth of the time of
    // loops with small bodies. In compatibility mode a failed tag can leave a frame behind,
    // so each element gets its own push and pop, as in the reference.
    let reuse = !ctx.env.npm_compat;
    if reuse {
        ctx.push(Val::Missing);
    }
    for i in 0..len {
        if ctx.halted() {
            break;
        }
        if reuse {
            match borrowed {
                Some(items) => ctx.reset_top_ref(&items[i]),
                None => {
                    let element = ctx.element_at(frame, i);
                    ctx.reset_top(element);
                }
            }
        } else {
            // The element comes from the top frame, which is this loop's own frame unless
            // a failed tag left one behind, exactly as in the reference.
            let element = ctx.top_element();
            ctx.push(element);
        }
        exec_block(ctx, r.body);
        if i + 1 < len && !r.alternates_with.is_empty() {
            exec_block(ctx, r.alternates_with);
        }
        if !reuse {
            ctx.pop();
        }
        ctx.set_index_at(frame, i as i64 + 1);
    }
    if reuse {
        ctx.pop();
    }
    ctx.pop();
}

fn exec_if<'a>(ctx: &mut Ctx<'a>, i: &'a tree::If) {
    let Some(first) = i.vars.first() else {
        ctx.error_at(
            msg::unexpected("IF", "Cannot read properties of undefined (reading 'node')"),
            i.at,
        );
        return;
    };
    // Left to right with no precedence, short-circuiting, as the reference does.
    let mut result = ctx.resolve_id(first).view().truthy();
    for (op, path) in i.ops.iter().zip(i.vars.iter().skip(1)) {
        let value = ctx.resolve_id(path).view().truthy();
        match op {
            Op::And => {
                result = result && value;
                if !result {
                    break;
                }
            }
            Op::Or => {
                result = result || value;
                if result {
                    break;
                }
            }
        }
    }
    if result {
        exec_block(ctx, i.body);
    } else {
        exec_alternates(ctx, &i.alt);
    }
}

fn exec_include<'a>(ctx: &mut Ctx<'a>, inc: &'a tree::Include) {
    let Some(target) = ctx.partial(&inc.name) else {
        ctx.error_at(msg::partial_missing(&inc.name), inc.at);
        return;
    };
    // By default the partial runs for its effects (variables, macros) and prints nothing.
    let saved = (!inc.output).then(|| std::mem::take(&mut ctx.out));
    if ctx.enter_partial(&inc.name, Some(inc.at)) {
        ctx.run_target(&inc.name, target);
        ctx.exit_partial();
    }
    if let Some(saved) = saved {
        ctx.out = saved;
    }
}

/// Lets an expression read template variables and bind `@names`, collecting the bindings
/// so they take effect only if the whole `{.eval}` succeeds.
struct EvalScope<'c, 'a> {
    ctx: &'c Ctx<'a>,
    bound: Vec<(String, Literal)>,
}

impl ExprScope for EvalScope<'_, '_> {
    fn resolve(&mut self, path: &VarPath) -> Option<Literal> {
        if let Head::Var(name) = path.head()
            && let Some((_, v)) = self.bound.iter().rev().find(|(k, _)| k == &**name)
        {
            return Some(if path.rest().is_empty() {
                v.clone()
            } else {
                Literal::Null
            });
        }
        match self.ctx.resolve_transient(path).view() {
            View::Missing | View::Null => Some(Literal::Null),
            View::Bool(b) => Some(Literal::Bool(b)),
            View::Num(n) => Some(Literal::Num(n)),
            View::Str(s) => Some(Literal::Str(s.to_string())),
            View::Arr(_) | View::Obj(_) => None,
        }
    }

    fn assign(&mut self, name: &str, value: Literal) {
        self.bound.push((name.to_string(), value));
    }
}

fn literal_node(l: Literal) -> Node {
    match l {
        Literal::Null => Node::Null,
        Literal::Bool(b) => Node::Bool(b),
        Literal::Num(n) => Node::Number(n),
        Literal::Str(s) => Node::from(s),
    }
}

fn exec_eval<'a>(ctx: &mut Ctx<'a>, e: &'a tree::Eval) {
    let key = e as *const tree::Eval as usize;
    for (n, m) in e.parse_errors.iter().enumerate() {
        ctx.error_once(key + n, msg::expression_parse(&e.source, m), e.at);
    }
    let expr = &e.expr;
    if e.debug {
        ctx.out.push_str(&expr.debug_string());
    }
    if !e.parse_errors.is_empty() {
        return;
    }
    let mut scope = EvalScope {
        ctx,
        bound: Vec::new(),
    };
    let (value, errors) = expr.reduce(&mut scope);
    let bound = scope.bound;
    if !errors.is_empty() {
        for m in errors {
            ctx.error_at(msg::expression_reduce(&e.source, &m), e.at);
        }
        return;
    }
    for (name, v) in bound {
        ctx.set_var(Cow::Owned(name), Val::Own(literal_node(v)));
    }
    if let Some(v) = value {
        if e.debug {
            ctx.out.push_str(" -> ");
        }
        let node = literal_node(v);
        View::of(&node).print(&mut ctx.out);
    }
}
