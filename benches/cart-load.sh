#!/usr/bin/env bash
# Add-to-cart throughput on PostgreSQL, next to pgbench's TPC-B on the same server in the
# same run: how close a store write over HTTP (tenant lookup, crumb, rate limit, JSON, the
# product checked, the stock taken and the cart created with its entry, all or nothing, and
# the priced cart in the answer) comes to PostgreSQL's own standard write transaction.
#
# How: start a throwaway PostgreSQL (initdb + pg_ctl into a temp dir, as the `postgres`
# user when run as root), give `tessera serve` one database and pgbench another, raise the
# demo store's stock so nothing sells out, then alternate wrk runs of add-to-cart (each
# request a new visitor's first add, spread over the store's products) and pgbench runs,
# with the same number of clients. The best run of each counts; the machine is noisy.
#
# usage: benches/cart-load.sh [SECONDS]      (default 10 per run)
# env:   ROUNDS (default 2), CLIENTS (default 16), PGBENCH_SCALE (default 10),
#        TESSERA (a tessera binary; default: built with cargo build --release -p api),
#        PROFILE (a file: `perf record -g` of the server during each add-to-cart run, written
#        there; read it with `perf report -i FILE`)
# needs: wrk, curl, python3, PostgreSQL server binaries (/usr/lib/postgresql/*/bin)
set -euo pipefail
# A failure inside $(...) (adds, below) ends the script, not just the substitution.
shopt -s inherit_errexit
source "$(dirname "$0")/lib.sh"
secs=${1:-10}
rounds=${ROUNDS:-2}
clients=${CLIENTS:-16}
scale=${PGBENCH_SCALE:-10}

need_wrk
find_postgres
tessera_binary

store_bench_setup --cart-writes-per-minute 100000000
# Each request adds one of the physical and digital variants ($work/items.lua).
cat >"$work/add.lua" <<LUA
dofile("$work/items.lua")
wrk.method = "POST"
wrk.headers["Host"] = "$host"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["X-CSRF-Token"] = "$crumb"
wrk.headers["Cookie"] = "crumb=$crumb"
local n = 0
request = function()
  n = n + 1
  local it = items[(n % #items) + 1]
  local body = '{"itemId":"' .. it[1] .. '","sku":"' .. it[2] .. '","quantity":1}'
  return wrk.format(nil, "/api/commerce/shopping-cart/entries", nil, body)
end
LUA
check=$(curl -fs -o /dev/null -w '%{http_code}' -X POST -H "Host: $host" -H "Content-Type: application/json" \
  -H "X-CSRF-Token: $crumb" -H "Cookie: crumb=$crumb" \
  -d "{\"itemId\":\"$(python3 -c "import json;print(json.load(open('$root/fixtures/loam-lantern/collections/shop.json'))['items'][0]['id'])")\",\"sku\":\"FTP-S\"}" \
  "http://127.0.0.1:$port/api/commerce/shopping-cart/entries")
[[ "$check" == 200 ]] || die 1 "a test add-to-cart answered $check"

adds() {
  local out perf_pid=
  if [[ -n "${PROFILE:-}" ]]; then
    perf record -q -F 499 -g -p "$pid" -o "$PROFILE" -- sleep "$secs" 2>/dev/null &
    perf_pid=$!
  fi
  out=$(wrk -t2 -c"$clients" -d"${secs}s" -s "$work/add.lua" "http://127.0.0.1:$port")
  if [[ -n "$perf_pid" ]]; then wait "$perf_pid" || true; fi
  if grep -q "Non-2xx" <<<"$out"; then die 1 "errors during add-to-cart:"$'\n'"$out"; fi
  awk '/^Requests\/sec/ {print $2}' <<<"$out"
}
store_bench_compare "add-to-cart requests/s (HTTP, new carts)" adds
echo "($(pg_psql -d tessera -c "SELECT count(*) FROM cart") carts written)" >&2
echo "target (issue 46): add-to-cart at least 80% of pgbench" >&2
