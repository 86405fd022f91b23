#!/usr/bin/env bash
# Executions and compiles per second of Tessera's engine and of the npm reference engine
# (@squarespace/template-engine) on the same workloads, measured in one run on this
# machine, and their ratios. A compile is the template and its partials, parsed and
# compiled to what execution runs. Installs the npm package into a temporary folder.
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

# Our own runner for the reference: compile once, warm up, execute N times, report the mean;
# then the same for compiling the template and its partials. Prints "EXEC_US COMPILE_US".
cat > "$work/run.js" <<'JS'
const fs = require('fs');
const path = require('path');
const { Compiler } = require('@squarespace/template-engine');
const { CLDRFramework } = require('@phensley/cldr');
const [dir, n] = [process.argv[2], Number(process.argv[3])];
const read = (f) => fs.readFileSync(path.join(dir, f), 'utf-8');
const compiler = new Compiler();
const source = read('template.html');
const rawPartials = fs.existsSync(path.join(dir, 'partials.json')) ? JSON.parse(read('partials.json')) : {};
const compileAll = () => {
  const partials = {};
  for (const k of Object.keys(rawPartials)) partials[k] = compiler.parse(rawPartials[k]).code;
  return { code: compiler.parse(source).code, partials };
};
const { code, partials } = compileAll();
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
for (let i = 0; i < Math.min(n, 200); i++) compileAll();
const t1 = process.hrtime.bigint();
for (let i = 0; i < n; i++) compileAll();
const compileUs = Number(process.hrtime.bigint() - t1) / n / 1000;
process.stdout.write(us.toFixed(3) + ' ' + compileUs.toFixed(3) + '\n');
JS

(cd "$root" && cargo build --release -q -p api)
tessera="$root/target/release/tessera"

workloads=("$@")
if [ ${#workloads[@]} -eq 0 ]; then
  for d in "$here"/workloads/*/; do workloads+=("$(basename "$d")"); done
fi

printf '%-16s %12s %12s %7s   %12s %12s %7s\n' workload "exec/s ours" "exec/s npm" ratio "compile/s" "npm" ratio
for w in "${workloads[@]}"; do
  dir="$here/workloads/$w"
  args=("$dir/template.html" --data "$dir/data.json" --now 1735732800000)
  [ -f "$dir/partials.json" ] && args+=(--partials "$dir/partials.json")
  best=(1e18 1e18 1e18 1e18)   # ours exec, npm exec, ours compile, npm compile (us)
  for _ in $(seq "$rounds"); do
    # Alternate the engines so that machine noise hits both alike.
    "$tessera" render "${args[@]}" --repeat "$repeat" 2>"$work/ours.err" >"$work/ours.out"
    ours_exec=$(sed -n 's/^repeat: .* mean \([0-9.]*\) us per execution$/\1/p' "$work/ours.err")
    ours_compile=$(sed -n 's/^repeat: .* mean \([0-9.]*\) us per compile$/\1/p' "$work/ours.err")
    read -r ref_exec ref_compile < <(cd "$work" && OUT_DIR="$work" node run.js "$dir" "$repeat")
    read -r -a best < <(python3 -c "
b = [float(x) for x in '${best[*]}'.split()]
new = [$ours_exec, $ref_exec, $ours_compile, $ref_compile]
print(' '.join(str(min(x, y)) for x, y in zip(b, new)))")
  done
  if ! cmp -s "$work/ours.out" "$work/ref.out"; then
    echo "$w: outputs differ between the engines; the comparison would be meaningless" >&2
    diff <(head -c 2000 "$work/ours.out") <(head -c 2000 "$work/ref.out") >&2 || true
    exit 1
  fi
  python3 - "$w" "${best[@]}" <<'PY'
import sys
name = sys.argv[1]
oe, re_, oc, rc = (float(x) for x in sys.argv[2:])
print(f"{name:<16} {1e6/oe:12.0f} {1e6/re_:12.0f} {re_/oe:6.1f}x   {1e6/oc:12.0f} {1e6/rc:12.0f} {rc/oc:6.1f}x")
PY
done
