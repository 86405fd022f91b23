#!/usr/bin/env bash
# Prints the speed ratios the engine aims for, from the latest criterion results under
# target/criterion (or $CARGO_TARGET_DIR/criterion): Tessera against minijinja and askama on
# big-table and teams, and each large page's execution against a plain copy of its output.
# The targets are reported, not enforced: the exit status is 0 whether they are met or not,
# and 1 only when a result is missing.
#
# usage: cargo bench -- 'peers|execute'    (or plain `cargo bench`)
#        benches/ratios.sh [--all]            (--all: also list every result's median)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
exec python3 - "${CARGO_TARGET_DIR:-$root/target}/criterion" "$@" <<'PY'
import json, pathlib, signal, sys

# Quietly stop when the reader goes away (`benches/ratios.sh | head`).
signal.signal(signal.SIGPIPE, signal.SIG_DFL)
base = pathlib.Path(sys.argv[1])
show_all = "--all" in sys.argv[2:]
# Criterion turns "/" in group names into "_" for directory names, so find each benchmark
# by the full id it records beside its estimates.
times = {}
for meta in base.glob("**/new/benchmark.json"):
    full_id = json.loads(meta.read_text())["full_id"]
    estimates = json.loads((meta.parent / "estimates.json").read_text())
    # The median: the machine is small and shared, and the median shrugs off outliers.
    times[full_id] = estimates["median"]["point_estimate"]

def t(bench):
    if bench not in times:
        sys.exit(f"ratios: no result for {bench} under {base}; run `cargo bench -- 'peers|execute'` first")
    return times[bench]

def fmt(ns):
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3g} {unit}"
    return f"{ns:.3g} ns"

# (what, our benchmark, the other one, how many times faster we aim to be; a target below 1
# means "at most 1/target times slower").
checks = [
    ("big-table vs minijinja", "peers/big-table/tessera", "peers/big-table/minijinja", 10),
    ("big-table vs askama", "peers/big-table/tessera", "peers/big-table/askama", 0.5),
    ("teams vs minijinja", "peers/teams/tessera", "peers/teams/minijinja", 3),
    ("blog-page vs memcpy", "execute/large/blog-page", "execute/memcpy/blog-page", 0.5),
    ("product-grid vs memcpy", "execute/large/product-grid", "execute/memcpy/product-grid", 0.5),
]
def speed(ratio):
    return f"{ratio:.3g}x faster" if ratio >= 1 else f"{1 / ratio:.3g}x slower"

print(f"{'comparison':<24} {'tessera':>9} {'other':>9}  {'tessera is':<14} {'target':<14} met")
for what, ours, other, target in checks:
    a, b = t(ours), t(other)
    ratio = b / a  # > 1: Tessera is faster
    goal = f">= {target:g}x faster" if target >= 1 else f"<= {1 / target:g}x slower"
    met = "yes" if ratio >= target else "NO"
    print(f"{what:<24} {fmt(a):>9} {fmt(b):>9}  {speed(ratio):<14} {goal:<14} {met}")

print("\nTessera against every peer (how many times faster Tessera is; below 1: slower)")
for workload in ("big-table", "teams"):
    ours = t(f"peers/{workload}/tessera")
    row = ", ".join(
        f"{peer} {t(f'peers/{workload}/{peer}') / ours:.2f}x"
        for peer in ("minijinja", "tera", "handlebars", "askama")
    )
    print(f"  {workload:<10} {row}")

if show_all:
    print("\nEvery result (median time per iteration)")
    for bench in sorted(times):
        print(f"  {bench:<36} {fmt(times[bench]):>10}")
PY
