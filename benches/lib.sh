# What the bench scripts share (sourced, after `set -euo pipefail`): a work directory that
# goes at exit with the server and PostgreSQL started in it, free ports, `tessera serve`
# started and waited for, a throwaway PostgreSQL, and a visitor's cart cookies.
#
# Sets: here (benches/), root (the repository), name (the script's, for messages), work.
# A script may define `before_cleanup` (run first at exit, e.g. to stop its own clients).

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
name=$(basename "$0")

work=$(mktemp -d)
# PostgreSQL, run as its own user under root, must reach its directory inside.
chmod 755 "$work"
pid=
pgbin=
pg_started=
as_pg=()
if [[ $(id -u) == 0 ]]; then as_pg=(runuser -u postgres --); fi

cleanup() {
  if declare -F before_cleanup >/dev/null; then before_cleanup || true; fi
  [[ -n "$pid" ]] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true
  [[ -n "$pg_started" ]] && "${as_pg[@]}" "$pgbin/pg_ctl" -D "$work/pg" stop -m fast >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

# die CODE MESSAGE: the message on stderr, and out.
die() { local code=$1; shift; echo "$name: $*" >&2; exit "$code"; }

need_wrk() { command -v wrk >/dev/null || die 2 "wrk is not installed (apt-get install -y wrk)"; }

# tessera_binary: $TESSERA, or the release build of this tree (built now).
tessera_binary() {
  if [[ -z "${TESSERA:-}" ]]; then
    (cd "$root" && cargo build --release -q -p api)
    TESSERA="${CARGO_TARGET_DIR:-$root/target}/release/tessera"
  fi
}

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# wait_healthy PORT SECONDS: until /healthz answers, or out with the server's errors.
wait_healthy() {
  for _ in $(seq 1 "$(( $2 * 10 ))"); do
    curl -fs "http://127.0.0.1:$1/healthz" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  echo "$name: the server did not start:" >&2; cat "$work/serve.err" >&2; exit 1
}

# start_server SERVE_ARGS...: `$TESSERA serve` on a free port (sets port and pid), its
# output in $work/serve.out and serve.err, once it answers. RUST_LOG is $server_log (warn
# unless set); it may take $start_secs (30 unless set) to start.
start_server() {
  port=$(free_port)
  RUST_LOG=${server_log:-warn} "$TESSERA" serve --listen "127.0.0.1:$port" "$@" \
    >"$work/serve.out" 2>"$work/serve.err" &
  pid=$!
  wait_healthy "$port" "${start_secs:-30}"
}

stop_server() { kill "$pid"; wait "$pid" 2>/dev/null || true; pid=; }

# find_postgres: sets pgbin to the newest PostgreSQL server binaries, or out.
find_postgres() {
  pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
  [[ -x "$pgbin/initdb" ]] || die 2 "no PostgreSQL server binaries (apt-get install -y postgresql)"
}

# start_postgres [SETTING...]: a throwaway PostgreSQL in $work/pg on a free port (sets
# pgport), trusting local connections as postgres, with max_connections=200 and each
# further `-c` SETTING (name=value); stopped at exit.
start_postgres() {
  [[ -n "$pgbin" ]] || find_postgres
  pgport=$(free_port)
  mkdir -p "$work/pg"
  if [[ $(id -u) == 0 ]]; then chown postgres "$work/pg"; fi
  "${as_pg[@]}" "$pgbin/initdb" -D "$work/pg" -U postgres -A trust >/dev/null
  local settings="-c max_connections=200" s
  for s in "$@"; do settings+=" -c $s"; done
  # Stopped at exit even if the start below gives up waiting.
  pg_started=1
  "${as_pg[@]}" "$pgbin/pg_ctl" -D "$work/pg" -l "$work/pg/log" -w \
    -o "-p $pgport -k $work/pg -c listen_addresses=127.0.0.1 $settings" start >/dev/null
}

# pg_psql ARGS...: psql on the throwaway PostgreSQL as postgres, quiet, rows unaligned.
pg_psql() { "$pgbin/psql" -h 127.0.0.1 -p "$pgport" -U postgres -qtA "$@"; }

# cart_cookies HOST: a visitor's cookies (crumb and cart) on the running server after adding
# the first variant of the first product with variants in the site's shop to a new cart.
cart_cookies() {
  local jar="$work/jar-$port" item sku tenant=${1%.localhost}
  rm -f "$jar"
  curl -fs -c "$jar" -H "Host: $1" "http://127.0.0.1:$port/" -o /dev/null
  local crumb; crumb=$(awk '$6 == "crumb" {print $7}' "$jar")
  read -r item sku < <(python3 - "$root/fixtures/$tenant/collections/shop.json" <<'PY'
import json, sys
i = [i for i in json.load(open(sys.argv[1]))["items"] if i.get("variants")][0]
print(i["id"], i["variants"][0]["sku"])
PY
)
  curl -fs -b "$jar" -c "$jar" -H "Host: $1" -H "X-CSRF-Token: $crumb" -H "Content-Type: application/json" \
    -d "{\"itemId\":\"$item\",\"sku\":\"$sku\"}" "http://127.0.0.1:$port/api/commerce/shopping-cart/entries" -o /dev/null
  awk '$6 == "crumb" || $6 == "tessera-cart" {printf "%s%s=%s", sep, $6, $7; sep="; "}' "$jar"
}

# --- the store's write benches (cart-load.sh, checkout-load.sh) ------------------------
# store_bench_setup [SERVE ARG...]: a throwaway PostgreSQL with pgbench's tables (scale
# $scale) in database `bench`, `tessera serve` on database `tessera` with the fixtures and
# each SERVE ARG, and the demo stock raised so nothing sells out during the runs. Sets host
# (loam-lantern's) and crumb (a visitor's, from its shop page), and writes $work/items.lua:
# `items`, every physical and digital variant as {itemId, sku} (not subscriptions or
# services, which have rules of their own).
store_bench_setup() {
  start_postgres
  pg_psql -c "CREATE DATABASE tessera" -c "CREATE DATABASE bench"
  "$pgbin/pgbench" -h 127.0.0.1 -p "$pgport" -U postgres -i -q -s "$scale" bench >/dev/null 2>&1
  start_server --data-dir "$work/data" \
    --database-url "postgres://postgres@127.0.0.1:$pgport/tessera" --fixtures "$root/fixtures" "$@"
  pg_psql -d tessera -c "UPDATE product_variant SET qty_in_stock = 100000000 WHERE NOT unlimited"
  host=loam-lantern.localhost
  crumb=$(curl -fs -D - -o /dev/null -H "Host: $host" "http://127.0.0.1:$port/shop" \
    | sed -n 's/^set-cookie: crumb=\([0-9a-f]*\).*/\1/ip' | head -1)
  [[ -n "$crumb" ]] || die 1 "no crumb from the shop page"
  python3 - "$root/fixtures/loam-lantern/collections/shop.json" >"$work/items.lua" <<'PY'
import json, sys
items = json.load(open(sys.argv[1]))["items"]
rows = [(i["id"], v["sku"]) for i in items
        if i.get("productType", 1) in (1, 2) and not i.get("structuredContent", {}).get("isSubscribable")
        for v in i["variants"]]
print("items = {" + ", ".join('{"%s", "%s"}' % r for r in rows) + "}")
PY
}

# tpcb: pgbench's TPC-B tps on `bench` with $clients clients for $secs seconds; out if it
# printed none.
tpcb() {
  local tps
  tps=$("$pgbin/pgbench" -h 127.0.0.1 -p "$pgport" -U postgres -c "$clients" -j 2 -T "$secs" -M prepared bench 2>/dev/null \
    | awk '/^tps = / {print $3}')
  [[ -n "$tps" ]] || die 1 "pgbench printed no tps"
  echo "$tps"
}

# store_bench_header: what the runs are (on stderr).
store_bench_header() {
  local version; version=$("$pgbin/postgres" --version | awk '{print $3}')
  echo "PostgreSQL $version, $clients clients, ${secs}s per run, $rounds round(s), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
}

# store_bench_compare WHAT RUN: $rounds rounds of the function RUN (one wrk run, printing
# its rate) and a pgbench run each, alternating; prints the best of each and their ratio
# (WHAT names RUN's rate), and the runs on stderr. Each run is a subshell: its failure (die)
# ends the script here (set -e with inherit_errexit; a failing $(...) inside a+=(...)
# would not).
store_bench_compare() {
  local what=$1 run=$2 r ours=() pg=()
  store_bench_header
  for _ in $(seq 1 "$rounds"); do
    r=$("$run")
    ours+=("$r")
    r=$(tpcb)
    pg+=("$r")
  done
  local bo bp
  bo=$(best "${ours[@]}") bp=$(best "${pg[@]}")
  printf '%-40s %10.0f\n' "$what" "$bo"
  printf '%-40s %10.0f\n' "pgbench TPC-B tps (scale $scale)" "$bp"
  printf '%-40s %9.0f%%\n' "ratio" "$(python3 -c "print(100*$bo/$bp)")"
  echo "(runs: ${ours[*]}, pgbench ${pg[*]}; load average at the end $(cut -d' ' -f1-3 /proc/loadavg))" >&2
}

# best X...: the largest.
best() { python3 -c 'import sys; print(max(float(x) for x in sys.argv[1:]))' "$@"; }
