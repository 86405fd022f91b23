#!/usr/bin/env bash
# Compile time of a real page against the npm reference engine: Squarespace's wright
# framework, the layout its pages render in (site.region) and every block it includes,
# directly or through another block or a `<squarespace:navigation template="...">`, as
# the site renderer compiles them (host tags on), compiled by Tessera and by
# @squarespace/template-engine in alternating rounds of one run. Each round gives each
# engine the same time (SECONDS_PER per page) and counts its compiles; the script prints
# the median µs per compile of each and the median of the rounds' ratios (each round's
# two figures were taken seconds apart, so a busy spell on the machine hits both). Nothing of wright is kept in this repository: give the
# script its template folder or a git directory of its repository.
#
# usage: benches/compile-wright.sh [WRIGHT]
#   WRIGHT (or $WRIGHT): wright's template folder (holding site.region and blocks/), or a
#   git directory of https://github.com/Squarespace/wright-framework, bare or not; from a
#   git directory the newest commit that has site.region is extracted to a temporary
#   folder (the repository's HEAD is a deprecation notice without the template).
# env: ROUNDS (default 11), SECONDS_PER (seconds per engine, page and round, default 0.3);
#      ALSO (workloads of benches/workloads to measure the same way, e.g.
#        "blog-page product-grid"; they have no host tags);
#      OURS (a compile-loop binary to time instead of building this checkout's; building
#        it builds the benches crate, whose dependencies include the whole server);
#      OURS_BASE (another build's compile-loop binary, e.g. a copy from before a change:
#        measured in the same rounds, with its ratio to this build);
#      DIFFTEST (default ../shared/difftest: the npm engine from its node_modules; when
#        that is not installed, the same pinned versions are installed to a temporary
#        folder with npm).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
rounds=${ROUNDS:-11}
seconds=${SECONDS_PER:-0.3}
wright=${1:-${WRIGHT:-}}

how_to_get() {
  cat >&2 <<'EOF'
compile-wright: give the wright framework's template folder or git directory, e.g.
  git clone --bare https://github.com/Squarespace/wright-framework /tmp/wright-framework.git
  benches/compile-wright.sh /tmp/wright-framework.git
EOF
  exit 2
}
[[ -n "$wright" && -e "$wright" ]] || how_to_get

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if [[ -f "$wright/site.region" ]]; then
  folder=$wright
else
  gitdir=$wright
  [[ -d "$wright/.git" ]] && gitdir=$wright/.git
  git --git-dir="$gitdir" rev-parse -q --verify HEAD >/dev/null 2>&1 || how_to_get
  commit=
  for c in $(git --git-dir="$gitdir" rev-list --all --date-order); do
    if git --git-dir="$gitdir" cat-file -e "$c:site.region" 2>/dev/null; then commit=$c; break; fi
  done
  [[ -n "$commit" ]] || { echo "compile-wright: no commit of $wright has site.region" >&2; exit 2; }
  folder=$work/wright
  mkdir -p "$folder"
  git --git-dir="$gitdir" archive "$commit" site.region blocks | tar -x -C "$folder"
  echo "wright at $(git --git-dir="$gitdir" log -1 --format='%h %ad %s' --date=short "$commit")" >&2
fi

# The page: site.region and the closure of the blocks it includes that the folder has
# (blocks it names but does not have, such as social-links.block, the platform supplies).
python3 - "$folder" "$work/wright.json" <<'PY'
import json, pathlib, re, sys
folder, out = pathlib.Path(sys.argv[1]), sys.argv[2]
template = (folder / "site.region").read_text()
uses = re.compile(r'apply\s+([\w.-]+)|<squarespace:navigation\b[^>]*\btemplate="([\w.-]+)"')
def named(source):
    for m in uses.finditer(source):
        name = m.group(1) or m.group(2) + ".block"
        yield name if name.endswith(".block") else name + ".block"
partials, missing, todo = {}, set(), list(named(template))
while todo:
    name = todo.pop()
    if name in partials or name in missing:
        continue
    path = folder / "blocks" / name
    if not path.is_file():
        missing.add(name)
        continue
    partials[name] = path.read_text()
    todo.extend(named(partials[name]))
size = len(template.encode()) + sum(len(s.encode()) for s in partials.values())
print(f"page: site.region and {len(partials)} blocks ({size} bytes): {' '.join(sorted(partials))}"
      + (f"; left to the platform: {' '.join(sorted(missing))}" if missing else ""), file=sys.stderr)
json.dump({"template": template, "partials": dict(sorted(partials.items()))}, open(out, "w"))
PY

difftest=${DIFFTEST:-$root/../shared/difftest}
if [[ -d "$difftest/node_modules/@squarespace/template-engine" ]]; then
  node_modules=$(cd "$difftest/node_modules" && pwd)
else
  echo "installing @squarespace/template-engine 2.10.10 into $work ($difftest has no node_modules) ..." >&2
  (cd "$work" && npm init -y >/dev/null 2>&1 &&
    npm install --no-audit --no-fund --loglevel=error \
      @squarespace/template-engine@2.10.10 @phensley/cldr@1.14.0 >/dev/null)
  node_modules=$work/node_modules
fi

# The reference's loop: the template and each partial parsed (`Compiler.parse`, as
# compare-reference.sh and the engine's own renderer do), 200 times to warm up, then as
# many times as fit in S seconds; prints "PAGE US" per page, like compile-loop.
cat > "$work/ref-compile.js" <<'JS'
const fs = require('fs');
const path = require('path');
const { Compiler } = require('@squarespace/template-engine');
const [seconds, ...pages] = process.argv.slice(2);
const compiler = new Compiler();
for (const page of pages) {
  let template, partials;
  if (fs.statSync(page).isDirectory()) {
    template = fs.readFileSync(path.join(page, 'template.html'), 'utf-8');
    const p = path.join(page, 'partials.json');
    partials = fs.existsSync(p) ? JSON.parse(fs.readFileSync(p, 'utf-8')) : {};
  } else {
    ({ template, partials } = JSON.parse(fs.readFileSync(page, 'utf-8')));
  }
  const compileAll = () => {
    const out = {};
    for (const k of Object.keys(partials)) out[k] = compiler.parse(partials[k]);
    return { main: compiler.parse(template), partials: out };
  };
  const first = compileAll();
  const errors = [first.main, ...Object.values(first.partials)].flatMap((c) => c.errors);
  if (errors.length) throw new Error(`${page}: syntax errors: ${JSON.stringify(errors)}`);
  for (let i = 0; i < 200; i++) compileAll();
  const t0 = process.hrtime.bigint();
  const until = t0 + BigInt(Math.round(Number(seconds) * 1e9));
  let n = 0;
  while (n < 10 || process.hrtime.bigint() < until) {
    compileAll();
    n++;
  }
  const us = Number(process.hrtime.bigint() - t0) / n / 1000;
  process.stdout.write(`${page} ${us.toFixed(3)}\n`);
}
JS

ours=${OURS:-}
if [[ -z "$ours" ]]; then
  (cd "$root" && cargo build --release -q -p tessera-benches --bin compile-loop)
  ours=$root/target/release/compile-loop
fi

pages=("$work/wright.json")
for w in ${ALSO:-}; do pages+=("$here/workloads/$w"); done

# Alternating rounds: ours as the renderer compiles (host tags on), the reference, ours
# with host tags as text (as the reference reads them), and OURS_BASE if given.
: >"$work/times"
for r in $(seq "$rounds"); do
  "$ours" --seconds "$seconds" --host-prefix squarespace: "${pages[@]}" | sed "s/^/ours $r /" >>"$work/times"
  NODE_PATH=$node_modules node "$work/ref-compile.js" "$seconds" "${pages[@]}" | sed "s/^/npm $r /" >>"$work/times"
  "$ours" --seconds "$seconds" "${pages[@]}" | sed "s/^/ours-text $r /" >>"$work/times"
  if [[ -n "${OURS_BASE:-}" ]]; then
    "$OURS_BASE" --seconds "$seconds" --host-prefix squarespace: "${pages[@]}" | sed "s/^/base $r /" >>"$work/times"
  fi
done

python3 - "$work/times" "$rounds" "$seconds" <<'PY'
import collections, os, statistics, sys
times = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    who, r, page, us = line.split()
    times[(who, os.path.basename(page).removesuffix(".json"))][r] = float(us)
pages = list(dict.fromkeys(page for _, page in times))
base = any(who == "base" for who, _ in times)
med = lambda xs: statistics.median(xs)
def ratio(num, den, page):
    a, b = times[(num, page)], times[(den, page)]
    return med([a[r] / b[r] for r in a])
print(f"µs per compile of the template and its partials: medians of {sys.argv[2]} alternating rounds of {sys.argv[3]} s each;")
print("ratios: the median of the rounds' own ratios")
head = f"{'page':<14} {'tessera':>9} {'npm':>9} {'npm/tessera':>12}   {'host tags as text':>17} {'npm/that':>9}"
if base:
    head += f"   {'OURS_BASE':>9} {'base/tessera':>12}"
print(head)
for page in pages:
    m = {who: med(times[(who, page)].values()) for who in ("ours", "npm", "ours-text", "base") if (who, page) in times}
    line = (f"{page:<14} {m['ours']:9.2f} {m['npm']:9.2f} {ratio('npm', 'ours', page):11.1f}x   "
            f"{m['ours-text']:17.2f} {ratio('npm', 'ours-text', page):8.1f}x")
    if base:
        line += f"   {m['base']:9.2f} {ratio('base', 'ours', page):11.2f}x"
    print(line)
PY
