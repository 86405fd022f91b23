//! What a compiled template uses, for tools that check template folders (`tessera check`):
//! every formatter call with its arguments and host tag with its attribute names, where
//! its tag starts, and whether it runs only under a condition (inside a section, a
//! repeated section, a predicate, an `{.if}` or an `{.or}` branch, or a macro). The
//! executor never reads this; it walks the same tree the executor runs.

use super::Template;
use super::tree::{Alternate, Block, Code, Inst, Other};
use crate::syntax::scan::{At, LineIndex, Pos};

/// One thing a template uses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Use {
    /// `{var|name args}` or `{.var @x var|name args}`.
    Formatter {
        name: String,
        args: Vec<String>,
        at: Pos,
        guarded: bool,
    },
    /// `{.include name}`.
    Include {
        name: String,
        at: Pos,
        guarded: bool,
    },
    /// `<prefix:name attr="…">`: each attribute with its value when it is plain text
    /// (`None` when it has tags, so depends on the data).
    HostTag {
        name: String,
        attrs: Vec<(String, Option<String>)>,
        at: Pos,
        guarded: bool,
    },
}

struct Walk<'t> {
    code: Code<'t>,
    text: &'t str,
    lines: LineIndex,
    out: Vec<Use>,
    /// The names of the macros defined (`{.macro name}`), in order.
    macros: Vec<String>,
}

impl Walk<'_> {
    fn pos(&self, at: At) -> Pos {
        self.lines.pos(self.text, at)
    }

    /// A block's text when it is nothing but text.
    fn literal(&self, block: Block) -> Option<String> {
        let mut out = String::new();
        for inst in block.of(self.code.insts) {
            match inst {
                Inst::Text(span) => out.push_str(span.of(self.text)),
                _ => return None,
            }
        }
        Some(out)
    }

    fn calls(&mut self, calls: super::tree::Calls, at: At, guarded: bool) {
        let pos = self.pos(at);
        for c in self.code.calls(calls) {
            self.out.push(Use::Formatter {
                name: c.name.to_owned(),
                args: c.args.iter().map(str::to_owned).collect(),
                at: pos,
                guarded,
            });
        }
    }

    fn alt(&mut self, alt: &Alternate) {
        for branch in self.code.branches(*alt) {
            self.block(branch.body, true);
        }
    }

    fn block(&mut self, block: Block, guarded: bool) {
        for inst in block.of(self.code.insts) {
            match *inst {
                Inst::Variable(id) => {
                    let v = self.code.variable(id);
                    self.calls(v.formatters, v.at, guarded);
                }
                Inst::Section(id) => {
                    let s = self.code.section(id);
                    self.block(s.body, true);
                    self.alt(&s.alt);
                }
                Inst::Repeated(id) => {
                    let r = self.code.repeated(id);
                    self.block(r.body, true);
                    self.block(r.alternates_with, true);
                    self.alt(&r.alt);
                }
                Inst::Other(id) => match self.code.other(id) {
                    Other::Predicate(p) => {
                        self.block(p.body, true);
                        self.alt(&p.alt);
                    }
                    Other::If(i) => {
                        self.block(i.body, true);
                        self.alt(&i.alt);
                    }
                    Other::Bindvar(b) => self.calls(b.formatters, b.at, guarded),
                    Other::Include(i) => {
                        let at = self.pos(i.at);
                        self.out.push(Use::Include {
                            name: i.name.to_string(),
                            at,
                            guarded,
                        });
                    }
                    Other::Macro(m) => {
                        self.macros.push(m.name.to_string());
                        self.block(m.body, true)
                    }
                    Other::Host(h) => {
                        let at = self.pos(h.at);
                        self.out.push(Use::HostTag {
                            name: h.name.to_string(),
                            attrs: h
                                .attrs()
                                .map(|(n, v)| (n.to_string(), self.literal(v)))
                                .collect(),
                            at,
                            guarded,
                        });
                        for (_, value) in h.attrs() {
                            self.block(value, guarded);
                        }
                        if let Some(body) = h.body {
                            self.block(body, guarded);
                        }
                    }
                    Other::Ctxvar(_) | Other::Eval(_) | Other::Inject(_) => {}
                },
                Inst::Text(_)
                | Inst::PrintCurrent
                | Inst::Print(_)
                | Inst::TextThenCurrent(_)
                | Inst::TextThenPrint(..) => {}
            }
        }
    }
}

impl Template {
    fn walk(&self) -> Walk<'_> {
        let mut w = Walk {
            code: self.code(),
            text: &self.text,
            lines: LineIndex::new(&self.text),
            out: Vec::new(),
            macros: Vec::new(),
        };
        w.block(self.root, false);
        w
    }

    /// Every formatter call, include and host tag of the template, in order.
    pub fn uses(&self) -> Vec<Use> {
        self.walk().out
    }

    /// The names of the macros the template defines (`{.macro name}`, at any depth), in
    /// order: an `apply` of one of them runs the macro, not a partial.
    pub fn macros(&self) -> Vec<String> {
        self.walk().macros
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{CompileOptions, Registry};

    fn uses(src: &str) -> Vec<Use> {
        let opts = CompileOptions {
            host_prefix: Some("squarespace:".into()),
            ..Default::default()
        };
        let c = Template::compile_with(src, Registry::standard(), &opts);
        assert!(c.errors.is_empty(), "{:?}", c.errors);
        c.template.uses()
    }

    #[test]
    fn calls_includes_and_host_tags_with_where_and_whether_guarded() {
        let u = uses(
            "{@|apply top.block}\n{.section a}\n  {b|apply inner.block|html}{.end}\n<squarespace:navigation navigationId=\"main\" template=\"nav\" />",
        );
        assert_eq!(
            u,
            [
                Use::Formatter {
                    name: "apply".into(),
                    args: vec!["top.block".into()],
                    at: Pos { line: 1, col: 1 },
                    guarded: false
                },
                Use::Formatter {
                    name: "apply".into(),
                    args: vec!["inner.block".into()],
                    at: Pos { line: 3, col: 3 },
                    guarded: true
                },
                Use::Formatter {
                    name: "html".into(),
                    args: vec![],
                    at: Pos { line: 3, col: 3 },
                    guarded: true
                },
                Use::HostTag {
                    name: "navigation".into(),
                    attrs: vec![
                        ("navigationId".into(), Some("main".into())),
                        ("template".into(), Some("nav".into()))
                    ],
                    at: Pos { line: 4, col: 1 },
                    guarded: false,
                },
            ]
        );
    }

    #[test]
    fn attribute_values_with_tags_are_not_literal() {
        let u = uses("<squarespace:block-field id=\"intro-{id}\" columns=\"12\" />");
        let Use::HostTag { attrs, .. } = &u[0] else {
            panic!("{u:?}")
        };
        assert_eq!(
            attrs,
            &[("id".into(), None), ("columns".into(), Some("12".into()))]
        );
    }

    #[test]
    fn or_branches_repeated_and_predicates_are_guarded() {
        for src in [
            "{.repeated section a}{@|apply x.block}{.end}",
            "{.section a}{.or}{@|apply x.block}{.end}",
            "{.if a}{@|apply x.block}{.end}",
            "{.equal? a 1}{@|apply x.block}{.end}",
        ] {
            let u = uses(src);
            assert!(
                matches!(&u[0], Use::Formatter { guarded: true, .. }),
                "{src}: {u:?}"
            );
        }
    }

    #[test]
    fn macros_defined_at_any_depth() {
        let opts = CompileOptions::default();
        let c = Template::compile_with(
            "{.macro a}x{.end}{.section s}{.macro b.block}{@|apply a}{.end}{.end}{@|apply b.block}",
            Registry::standard(),
            &opts,
        );
        assert!(c.errors.is_empty(), "{:?}", c.errors);
        assert_eq!(c.template.macros(), ["a", "b.block"]);
    }
}
