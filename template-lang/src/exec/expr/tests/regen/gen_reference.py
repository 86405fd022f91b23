"""Regenerates ../reference.rs: runs every case of cases.py through the reference engine
(run-reference.js) and records its output and messages. Usage: python3 gen_reference.py"""
import json, os, subprocess, sys
HERE = os.path.dirname(os.path.abspath(__file__)); sys.path.insert(0, HERE)
from cases import *

def rs(s):
    out = ['"']
    for ch in s:
        o = ord(ch)
        if ch == '\\': out.append('\\\\')
        elif ch == '"': out.append('\\"')
        elif ch == '\n': out.append('\\n')
        elif ch == '\r': out.append('\\r')
        elif ch == '\t': out.append('\\t')
        elif o < 0x20 or o == 0x7f or (0x80 <= o < 0xa0) or o in (0x2028, 0x2029, 0xa0, 0xfeff): out.append('\\u{%x}' % o)
        elif 0xd800 <= o <= 0xdfff: out.append('\\u{fffd}')
        else: out.append(ch)
    out.append('"')
    return ''.join(out)

jobs = []  # (group, case-dict)
for name, cases in GROUPS.items():
    for c in cases:
        if isinstance(c, list) and len(c) == 1 and isinstance(c[0], dict):
            c = c[0]
        if isinstance(c, dict):
            d = dict(c)
        else:
            d = {"evals": c}
        d["data"] = DATA
        jobs.append((name, d))
matrix_jobs = []
for op in BINOPS:
    for a in VALUES:
        for b in VALUES:
            matrix_jobs.append(("bin", op, a, b, {"evals": [f"{a} {op} {b}"], "data": DATA}))
for op in UNOPS:
    for a in VALUES:
        matrix_jobs.append(("un", op, a, None, {"evals": [f"{op}{a}"], "data": DATA}))

inp = '\n'.join(json.dumps(d) for _, d in jobs) + '\n' + '\n'.join(json.dumps(j[-1]) for j in matrix_jobs) + '\n'
res = subprocess.run(['node', os.path.join(HERE, 'run-reference.js')], input=inp.encode(), capture_output=True, check=True).stdout.decode('utf-8', 'surrogatepass')
results = [json.loads(l) for l in res.split('\n') if l]
assert len(results) == len(jobs) + len(matrix_jobs)

lines = ["//! Expectations recorded by running the reference engine (@squarespace/template-engine",
         "//! 2.10.10) on each case: `{.eval A}|{.eval B}` rendered against `DATA`.",
         "//! Generated; lone UTF-16 surrogates in outputs are written as U+FFFD (see mod.rs).",
         "", "#![allow(clippy::all)]", "", "use super::Case;", "",
         "pub(super) const DATA: &str = " + rs(json.dumps(DATA)) + ";", ""]
groups = {}
for (name, d), r in zip(jobs, results[:len(jobs)]):
    if r["syntax"]:
        print("SYNTAX", name, d["evals"], r["syntax"], file=sys.stderr); continue
    groups.setdefault(name, []).append((d, r))
for name, items in groups.items():
    lines.append(f"pub(super) const {name.upper()}: &[Case] = &[")
    for d, r in items:
        opts = d.get("opts", {})
        mt = opts.get("maxTokens"); ms = opts.get("maxStringLen")
        lim = f"Some(({mt or 0}, {ms or 0}))" if opts else "None"
        ev = ', '.join(rs(e) for e in d["evals"])
        er = ', '.join(rs(e) for e in r["errors"])
        lines.append(f"    Case {{ evals: &[{ev}], limits: {lim}, out: {rs(r['out'])}, errors: &[{er}] }},")
    lines.append("];")
    lines.append("")
mres = results[len(jobs):]
lines.append("pub(super) const VALUES: &[&str] = &[" + ', '.join(rs(v) for v in VALUES) + "];")
lines.append("")
lines.append("/// For each binary operator, `a OP b` for every pair of `VALUES` (row-major).")
lines.append("pub(super) const BINARY: &[(&str, &[&str])] = &[")
k = 0
for op in BINOPS:
    outs = []
    for a in VALUES:
        for b in VALUES:
            r = mres[k]; k += 1
            assert not r["errors"] and not r["syntax"], (op, a, b, r)
            outs.append(rs(r["out"]))
    lines.append(f"    ({rs(op)}, &[{', '.join(outs)}]),")
lines.append("];")
lines.append("")
lines.append("/// For each unary operator, `OPa` for every value.")
lines.append("pub(super) const UNARY_MATRIX: &[(&str, &[&str])] = &[")
for op in UNOPS:
    outs = []
    for a in VALUES:
        r = mres[k]; k += 1
        assert not r["errors"] and not r["syntax"], (op, a, r)
        outs.append(rs(r["out"]))
    lines.append(f"    ({rs(op)}, &[{', '.join(outs)}]),")
lines.append("];")
open(os.path.join(HERE, "..", "reference.rs"), 'w').write('\n'.join(lines) + '\n')
print("groups:", {n: len(v) for n, v in groups.items()})
