#!/usr/bin/env node
// Renders cases with the reference engine. stdin: JSON lines {evals: [...], data?, opts?};
// stdout: JSON lines {out, errors, syntax}. Each case renders `{.eval A}|{.eval B}|...`.
// The engine is taken from $TEMPLATE_ENGINE, else from shared/difftest beside the repository.
const path = require('path');
const repo = path.resolve(__dirname, '../../../../../..');
const engine = process.env.TEMPLATE_ENGINE ||
  path.join(repo, '..', 'shared', 'difftest', 'node_modules', '@squarespace', 'template-engine');
const { Compiler } = require(engine);
const lines = require('fs').readFileSync(0, 'utf8').split('\n').filter((l) => l.length);
const compiler = new Compiler();
const out = [];
for (const line of lines) {
  const c = JSON.parse(line);
  const parsed = compiler.parse(c.evals.map((e) => '{.eval ' + e + '}').join('|'));
  const { ctx } = compiler.execute({ code: parsed.code, json: c.data || {}, enableExpr: true, exprOpts: c.opts });
  const errors = (ctx.errors || []).map((e) => (e.message || String(e)).replace(/^RuntimeError: /, ''));
  const syntax = parsed.errors.map((e) => e.message || String(e));
  out.push(JSON.stringify({ out: ctx.render(), errors, syntax }));
}
process.stdout.write(out.join('\n') + '\n');
