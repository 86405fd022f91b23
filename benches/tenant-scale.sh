#!/usr/bin/env bash
# Many tenants on one node: requests per second and latency of page views with 1, 100,
# 1,000 and 10,000 tenants, on the embedded store and on PostgreSQL, printed as one table
# with ratios to the one-tenant row of the same run.
#
# How: for each backend, gen-tenants grows one store to each N in turn (varied copies of
# the four demo sites: a store, a club blog, a business site, a shop with a course; hosts
# t00001.scale.test ...), then a fresh `tessera serve` (release build) is loaded by
# tenant-load: a mixed phase (Zipf s=1.1 over all N tenants, home/collection/item pages;
# the first request to each tenant since the start timed as its cold first page), then a
# hot phase on the five most visited tenants of tenant 1's design (one at N=1), whose
# requests per second are compared across N. The server's VmRSS is read at the end. At
# the largest N the run is repeated with a small cache budget (--cache-mb $SMALL_MB).
#
# usage: benches/tenant-scale.sh
# env:   SIZES (default "1 100 1000 10000"), BACKENDS (default "embedded postgres"),
#        MIXED_SECS (20), HOT_SECS (10), CONCURRENCY (16), SMALL_MB (32),
#        NO_BUILD=1 (use the release binaries already in the target directory)
# needs: curl, python3, PostgreSQL server binaries (/usr/lib/postgresql/*/bin)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
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
tessera="$target/release/tessera"
gen="$target/release/gen-tenants"
load="$target/release/tenant-load"

work=$(mktemp -d)
chmod 755 "$work"
pid=
pgbin=
as_pg=()
if [[ $(id -u) == 0 ]]; then as_pg=(runuser -u postgres --); fi
cleanup() {
  [[ -n "$pid" ]] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true
  [[ -n "$pgbin" ]] && "${as_pg[@]}" "$pgbin/pg_ctl" -D "$work/pg" stop -m fast >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

start_postgres() {
  pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
  [[ -x "$pgbin/initdb" ]] || { echo "tenant-scale.sh: no PostgreSQL server binaries" >&2; exit 2; }
  pgport=$(free_port)
  mkdir -p "$work/pg"
  [[ $(id -u) == 0 ]] && chown postgres "$work/pg"
  "${as_pg[@]}" "$pgbin/initdb" -D "$work/pg" -U postgres -A trust >/dev/null
  "${as_pg[@]}" "$pgbin/pg_ctl" -D "$work/pg" -l "$work/pg/log" -w \
    -o "-p $pgport -k $work/pg -c listen_addresses=127.0.0.1 -c max_connections=200 -c synchronous_commit=off" start >/dev/null
  "$pgbin/psql" -h 127.0.0.1 -p "$pgport" -U postgres -qtA -c "CREATE DATABASE scale"
}

# serve_and_load BACKEND N CACHE_MB STORE_ARGS...
serve_and_load() {
  local backend=$1 n=$2 mb=$3
  shift 3
  local port
  port=$(free_port)
  RUST_LOG=warn "$tessera" serve --listen "127.0.0.1:$port" --fixtures "$work/no-fixtures" \
    --cache-mb "$mb" "$@" >"$work/serve.out" 2>"$work/serve.err" &
  pid=$!
  for _ in $(seq 1 600); do
    curl -fs "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
    sleep 0.1
  done
  curl -fs "http://127.0.0.1:$port/healthz" >/dev/null || { echo "tenant-scale.sh: the server did not start:" >&2; cat "$work/serve.err" >&2; exit 1; }
  "$load" run --port "$port" --pid "$pid" --tenants "$n" --backend "$backend" --cache-mb "$mb" \
    --fixtures "$root/fixtures" --concurrency "$conc" --mixed-secs "$mixed" --hot-secs "$hot" \
    --out "$work/results.tsv"
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  pid=
}

mkdir -p "$work/no-fixtures"
for backend in $backends; do
  case $backend in
    embedded) store=(--data-dir "$work/data") ;;
    postgres) start_postgres; store=(--database-url "postgres://postgres@127.0.0.1:$pgport/scale") ;;
    *) echo "tenant-scale.sh: unknown backend $backend" >&2; exit 2 ;;
  esac
  have=0
  for n in $sizes; do
    if (( n > have )); then
      "$gen" --from $((have + 1)) --to "$n" --fixtures "$root/fixtures" "${store[@]}" >&2
      have=$n
    fi
    serve_and_load "$backend" "$n" 256 "${store[@]}"
  done
  serve_and_load "$backend" "$have" "$small_mb" "${store[@]}"
done
echo
"$load" table "$work/results.tsv"
