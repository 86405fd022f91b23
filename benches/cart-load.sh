#!/usr/bin/env bash
# Add-to-cart throughput on PostgreSQL, next to pgbench's TPC-B on the same server in the
# same run: how close a store write over HTTP (tenant lookup, crumb, rate limit, JSON, one
# transaction that creates a cart, checks the product, takes the stock and answers with
# the priced cart) comes to PostgreSQL's own standard write transaction.
#
# How: start a throwaway PostgreSQL (initdb + pg_ctl into a temp dir, as the `postgres`
# user when run as root), give `tessera serve` one database and pgbench another, raise the
# demo store's stock so nothing sells out, then alternate wrk runs of add-to-cart (each
# request a new visitor's first add, spread over the store's products) and pgbench runs,
# with the same number of clients. The best run of each counts; the machine is noisy.
#
# usage: benches/cart-load.sh [SECONDS]      (default 10 per run)
# env:   ROUNDS (default 2), CLIENTS (default 16), PGBENCH_SCALE (default 10),
#        TESSERA (a tessera binary; default: built with cargo build --release -p api)
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

# --- PostgreSQL -------------------------------------------------------------------------
start_postgres
pg_psql -c "CREATE DATABASE tessera" -c "CREATE DATABASE bench"
"$pgbin/pgbench" -h 127.0.0.1 -p "$pgport" -U postgres -i -q -s "$scale" bench >/dev/null 2>&1

# --- tessera --------------------------------------------------------------------------
start_server --data-dir "$work/data" \
  --database-url "postgres://postgres@127.0.0.1:$pgport/tessera" --fixtures "$root/fixtures" \
  --cart-writes-per-minute 100000000
# Nothing sells out during the runs.
pg_psql -d tessera -c "UPDATE product_variant SET qty_in_stock = 100000000 WHERE NOT unlimited"
host=loam-lantern.localhost
crumb=$(curl -fs -D - -o /dev/null -H "Host: $host" "http://127.0.0.1:$port/shop" \
  | sed -n 's/^set-cookie: crumb=\([0-9a-f]*\).*/\1/ip' | head -1)
[[ -n "$crumb" ]] || die 1 "no crumb from the shop page"

# The products a request picks from: every physical and digital variant (not
# subscriptions or services, which have rules of their own).
python3 - "$root/fixtures/loam-lantern/collections/shop.json" >"$work/items.lua" <<'PY'
import json, sys
items = json.load(open(sys.argv[1]))["items"]
rows = [(i["id"], v["sku"]) for i in items
        if i.get("productType", 1) in (1, 2) and not i.get("structuredContent", {}).get("isSubscribable")
        for v in i["variants"]]
print("items = {" + ", ".join('{"%s", "%s"}' % r for r in rows) + "}")
PY
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
  local out
  out=$(wrk -t2 -c"$clients" -d"${secs}s" -s "$work/add.lua" "http://127.0.0.1:$port")
  if grep -q "Non-2xx" <<<"$out"; then die 1 "errors during add-to-cart:"$'\n'"$out"; fi
  awk '/^Requests\/sec/ {print $2}' <<<"$out"
}
tpcb() {
  "$pgbin/pgbench" -h 127.0.0.1 -p "$pgport" -U postgres -c "$clients" -j 2 -T "$secs" -M prepared bench 2>/dev/null \
    | awk '/^tps = / {print $3}'
}

version=$("$pgbin/postgres" --version | awk '{print $3}')
echo "PostgreSQL $version, $clients clients, ${secs}s per run, $rounds round(s), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
a=() p=()
for _ in $(seq 1 "$rounds"); do
  # Each run is a subshell: its failure (die) ends the script here (set -e, inherit_errexit;
  # a failing $(...) inside a+=(...) would not).
  r=$(adds)
  a+=("$r")
  r=$(tpcb)
  [[ -n "$r" ]] || die 1 "pgbench printed no tps"
  p+=("$r")
done
ba=$(best "${a[@]}") bp=$(best "${p[@]}")
carts=$(pg_psql -d tessera -c "SELECT count(*) FROM cart")
printf '%-40s %10.0f\n' "add-to-cart requests/s (HTTP, new carts)" "$ba"
printf '%-40s %10.0f\n' "pgbench TPC-B tps (scale $scale)" "$bp"
printf '%-40s %9.0f%%\n' "ratio" "$(python3 -c "print(100*$ba/$bp)")"
echo "($carts carts written; runs: add-to-cart ${a[*]}, pgbench ${p[*]})" >&2
echo "target: add-to-cart at least 50% of pgbench" >&2
