#!/usr/bin/env bash
# Executions per second of Tessera's engine and of the npm reference engine
# (@squarespace/template-engine) on the same workloads, measured in one run on this
# machine, and their ratio. Installs the npm package into a temporary folder.
#
# usage: benches/compare-reference.sh [WORKLOAD...]   (default: every folder in benches/workloads)
# env:   REPEAT (executions per measurement, default 3000), ROUNDS (default 3; the best round counts)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
repeat=${REPEAT:-3000}
rounds=${ROUNDS:-3}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "installing @squarespace/template-engine 2.10.10 into $work ..." >&2
(cd "$work" && npm init -y >/dev/null 2>&1 &&
  npm install --no-audit --no-fund --loglevel=error \
    @squarespace/template-engine@2.10.10 @phensley/cldr@1.14.0 >/dev/null)

# Our own runner for the reference: compile once, warm up, execute N times, report the mean.
cat > "$work/run.js" <<'JS'
const fs = require('fs');
const path = require('path');
const { Compiler } = require('@squarespace/template-engine');
const { CLDRFramework } = require('@phensley/cldr');
const [dir, n] = [process.argv[2], Number(process.argv[3])];
const read = (f) => fs.readFileSync(path.join(dir, f), 'utf-8');
const compiler = new Compiler();
const code = compiler.parse(read('template.html')).code;
const partials = {};
if (fs.existsSync(path.join(dir, 'partials.json'))) {
  const raw = JSON.parse(read('partials.json'));
  for (const k of Object.keys(raw)) partials[k] = compiler.parse(raw[k]).code;
}
const json = JSON.parse(read('data.json'));
const packs = path.join(path.dirname(require.resolve('@phensley/cldr/package.json')), 'packs');
const cldr = new CLDRFramework({ loader: () => fs.readFileSync(path.join(packs, 'en.json'), 'utf-8') }).get('en');
const run = () => compiler.execute({ code, json, partials, cldr, now: 1735732800000, enableExpr: true, enableInclude: true });
let out = run().ctx.render();
for (let i = 0; i < Math.min(n, 2000); i++) run();
const t0 = process.hrtime.bigint();
for (let i = 0; i < n; i++) out = run().ctx.render();
const us = Number(process.hrtime.bigint() - t0) / n / 1000;
fs.writeFileSync(path.join(process.env.OUT_DIR, 'ref.out'), out);
process.stdout.write(us.toFixed(3) + '\n');
JS

(cd "$root" && cargo build --release -q -p api)
tessera="$root/target/release/tessera"

workloads=("$@")
if [ ${#workloads[@]} -eq 0 ]; then
  for d in "$here"/workloads/*/; do workloads+=("$(basename "$d")"); done
fi

printf '%-16s %14s %14s %8s\n' workload "tessera exec/s" "npm exec/s" ratio
for w in "${workloads[@]}"; do
  dir="$here/workloads/$w"
  args=("$dir/template.html" --data "$dir/data.json" --now 1735732800000)
  [ -f "$dir/partials.json" ] && args+=(--partials "$dir/partials.json")
  best_ours=""; best_ref=""
  for _ in $(seq "$rounds"); do
    # Alternate the engines so that machine noise hits both alike.
    ours=$("$tessera" render "${args[@]}" --repeat "$repeat" 2>&1 >"$work/ours.out" |
      sed -n 's/^repeat: .* mean \([0-9.]*\) us per execution$/\1/p')
    ref=$(cd "$work" && OUT_DIR="$work" node run.js "$dir" "$repeat")
    best_ours=$(python3 -c "print(min(x for x in [$ours, ${best_ours:-1e18}]))")
    best_ref=$(python3 -c "print(min(x for x in [$ref, ${best_ref:-1e18}]))")
  done
  if ! cmp -s "$work/ours.out" "$work/ref.out"; then
    echo "$w: outputs differ between the engines; the comparison would be meaningless" >&2
    diff <(head -c 2000 "$work/ours.out") <(head -c 2000 "$work/ref.out") >&2 || true
    exit 1
  fi
  python3 - "$w" "$best_ours" "$best_ref" <<'PY'
import sys
name, ours, ref = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
print(f"{name:<16} {1e6/ours:14.0f} {1e6/ref:14.0f} {ref/ours:7.1f}x")
PY
done
