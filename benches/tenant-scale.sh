#!/usr/bin/env bash
# Many tenants on one node: requests per second and latency of page views with 1, 100,
# 1,000 and 10,000 tenants, on the embedded store and on PostgreSQL, printed as one table
# with ratios to the one-tenant row of the same run.
#
# How: for each backend, gen-tenants grows one store to each N in turn (varied copies of
# the four demo sites: a store, a club blog, a business site, a shop with a course; hosts
# t00001.scale.test ...), then a fresh `tessera serve` (release build) is loaded by
# tenant-load: a mixed phase (Zipf s=1.1 over the N tenants, home/collection/item pages,
# as fast as 16 connections go; a probe times the first page of tenants not visited yet,
# the cold first page on a saturated node), a steady phase (the same mix at half the
# mixed phase's rate, a node with room to spare; its probe times tenants kept out of the
# mixed phase for it, every eighth after the first 50), then a hot phase on the five most
# visited tenants of tenant 1's design (one at N=1), whose requests per second are
# compared across N. The server's VmRSS is read at the end. At
# the largest N the run is repeated with a small cache budget (--cache-mb $SMALL_MB).
#
# A before/after comparison in one run: BASE=path/to/old/tessera runs every cell with the
# old binary and then with TESSERA (default: this tree's release build), ROUNDS times
# (default 1), on the same generated store; the old binary's rows are labelled "BACKEND
# base". Both binaries must read the same store schema.
#
# usage: benches/tenant-scale.sh
# env:   SIZES (default "1 100 1000 10000"), BACKENDS (default "embedded postgres"),
#        MIXED_SECS (20), HOT_SECS (10), CONCURRENCY (16), SMALL_MB (32),
#        NO_BUILD=1 (use the release binaries already in the target directory),
#        TESSERA (the server binary), BASE (a baseline server binary), ROUNDS (1),
#        COLD_PAGES (0: if set, at the largest N and before its cells, a fresh server per
#        binary and round opens that many never-visited tenants' home pages one at a time,
#        after one tenant of each design, and prints their latency and the server's CPU
#        time per cold page: a cold page's cost without the queueing)
# needs: curl, python3, PostgreSQL server binaries (/usr/lib/postgresql/*/bin)
set -euo pipefail
source "$(dirname "$0")/lib.sh"
sizes=${SIZES:-1 100 1000 10000}
backends=${BACKENDS:-embedded postgres}
mixed=${MIXED_SECS:-20}
hot=${HOT_SECS:-10}
conc=${CONCURRENCY:-16}
small_mb=${SMALL_MB:-32}
target=${CARGO_TARGET_DIR:-$root/target}

if [[ "${NO_BUILD:-}" != 1 ]]; then
  (cd "$root" && cargo build --release -q -p api --bin tessera -p tessera-benches --bin gen-tenants --bin tenant-load)
fi
TESSERA=${TESSERA:-$target/release/tessera}
new=$TESSERA
base=${BASE:-}
rounds=${ROUNDS:-1}
cold_pages=${COLD_PAGES:-0}
gen="$target/release/gen-tenants"
load="$target/release/tenant-load"

# A store of 10,000 tenants takes a while to open.
start_secs=60

# binaries ROUND: the binaries to run, in this round's order: with BASE, the baseline
# first in odd rounds and last in even ones (whichever runs second finds the store's
# files in the page cache).
binaries() {
  if [[ -z "$base" ]]; then echo "$new"
  elif (( $1 % 2 == 1 )); then echo "$base $new"
  else echo "$new $base"; fi
}

# serve_and_load BACKEND N CACHE_MB STORE_ARGS...: one cell per binary (see binaries),
# ROUNDS times.
serve_and_load() {
  local backend=$1 n=$2 mb=$3
  shift 3
  local port round bin label
  for round in $(seq 1 "$rounds"); do
    for bin in $(binaries "$round"); do
      label=$backend
      [[ -n "$base" && "$bin" == "$base" ]] && label="$backend base"
      TESSERA=$bin
      echo "tenant-scale: $label, $n tenants, $mb MB, round $round, load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
      start_server --fixtures "$work/no-fixtures" --cache-mb "$mb" "$@"
      "$load" run --port "$port" --pid "$pid" --tenants "$n" --backend "$label" --cache-mb "$mb" \
        --fixtures "$root/fixtures" --concurrency "$conc" --mixed-secs "$mixed" --hot-secs "$hot" \
        --out "$work/results.tsv"
      stop_server
    done
  done
}

# cpu_ticks PID: the process's user + system CPU time so far, in clock ticks.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

# cold_pages BACKEND STORE_ARGS...: COLD_PAGES cold first pages on an idle server, per
# binary and round (tenants 5 .. COLD_PAGES+4, after tenants 1-4 compiled the designs).
cold_pages() {
  local backend=$1
  shift
  local port round bin label
  for round in $(seq 1 "$rounds"); do
    for bin in $(binaries "$round"); do
      label=$backend
      [[ -n "$base" && "$bin" == "$base" ]] && label="$backend base"
      TESSERA=$bin
      start_server --fixtures "$work/no-fixtures" "$@"
      "$load" cold --port "$port" --from 1 --to 4 --label "designs" >/dev/null
      local before after
      before=$(cpu_ticks "$pid")
      "$load" cold --port "$port" --from 5 --to $((cold_pages + 4)) \
        --label "$label, round $round, load $(cut -d' ' -f1 /proc/loadavg)"
      after=$(cpu_ticks "$pid")
      awk -v t=$((after - before)) -v hz="$(getconf CLK_TCK)" -v n="$cold_pages" \
        'BEGIN { printf "  server CPU per cold page: %.2f ms\n", t * 1000 / hz / n }'
      stop_server
    done
  done
}

mkdir -p "$work/no-fixtures"
for backend in $backends; do
  case $backend in
    embedded) store=(--data-dir "$work/data") ;;
    postgres)
      start_postgres synchronous_commit=off
      pg_psql -c "CREATE DATABASE scale"
      store=(--database-url "postgres://postgres@127.0.0.1:$pgport/scale") ;;
    *) echo "tenant-scale.sh: unknown backend $backend" >&2; exit 2 ;;
  esac
  have=0
  for n in $sizes; do
    if (( n > have )); then
      "$gen" --from $((have + 1)) --to "$n" --fixtures "$root/fixtures" "${store[@]}" >&2
      have=$n
    fi
    if (( cold_pages > 0 )) && [[ "$n" == "${sizes##* }" ]]; then
      cold_pages "$backend" "${store[@]}"
    fi
    serve_and_load "$backend" "$n" 256 "${store[@]}"
  done
  serve_and_load "$backend" "$have" "$small_mb" "${store[@]}"
done
echo
"$load" table "$work/results.tsv"
