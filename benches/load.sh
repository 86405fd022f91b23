#!/usr/bin/env bash
# Loads a running `tessera serve` with wrk for a fixed time and prints requests per second
# for dynamic pages next to the same bytes served statically by the same server — the
# ceiling, since the static response goes through the same listener, middleware, Host →
# tenant lookup and site-content check, and only skips rendering. One page is also measured
# for a visitor with a non-empty cart (cart cookie and crumb sent; the page shows the cart).
#
# How: start the server once on a throwaway data dir to capture each dynamic page, then
# start it again on a fresh data dir whose fixtures carry those captured bytes as template
# assets of the same tenant, check that both URLs return identical bodies, and alternate
# static and dynamic runs (the best run of each counts; the machine is noisy).
#
# usage: benches/load.sh [SECONDS]          (default 10 per run)
# env:   ROUNDS (default 2), CONNECTIONS (default 32), THREADS (default 1),
#        TESSERA (a tessera binary; default: built with cargo build --release -p api)
# needs: wrk (apt-get install -y wrk), curl, python3
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
secs=${1:-10}
rounds=${ROUNDS:-2}
conns=${CONNECTIONS:-32}
threads=${THREADS:-1}

command -v wrk >/dev/null || { echo "load.sh: wrk is not installed (apt-get install -y wrk)" >&2; exit 2; }
if [[ -z "${TESSERA:-}" ]]; then
  (cd "$root" && cargo build --release -q -p api)
  TESSERA="$root/target/release/tessera"
fi

# Pages measured: tenant host, path, asset name for the static copy, and "cart" for a
# visitor with one item in their cart.
pages=(
  "loam-lantern.localhost /shop shop.html -"
  "loam-lantern.localhost /shop/__FIRST_PRODUCT__ product.html -"
  "loam-lantern.localhost /shop/__FIRST_PRODUCT__ product-with-cart.html cart"
  "skyward.localhost /notes notes.html -"
)

work=$(mktemp -d)
pid=
cleanup() {
  [[ -n "$pid" ]] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# start FIXTURES_DIR DATA_DIR: starts the server and waits until it answers.
start() {
  port=$(free_port)
  RUST_LOG=warn "$TESSERA" serve --listen "127.0.0.1:$port" --data-dir "$2" --fixtures "$1" \
    >"$work/serve.out" 2>"$work/serve.err" &
  pid=$!
  for _ in $(seq 1 300); do
    curl -fs "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  echo "load.sh: the server did not start:" >&2; cat "$work/serve.err" >&2; exit 1
}
stop() { kill "$pid"; wait "$pid" 2>/dev/null || true; pid=; }

# fetch HOST PATH [COOKIE]
fetch() { curl -fs -H "Host: $1" ${3:+-H "Cookie: $3"} "http://127.0.0.1:$port$2"; }

# cart_cookies HOST: a visitor's cookies (crumb and cart) after adding the first product's
# first variant to a new cart on the running server.
cart_cookies() {
  local jar="$work/jar-$port" item sku
  rm -f "$jar"
  curl -fs -c "$jar" -H "Host: $1" "http://127.0.0.1:$port/" -o /dev/null
  local crumb; crumb=$(awk '$6 == "crumb" {print $7}' "$jar")
  read -r item sku < <(python3 - "$root/fixtures/loam-lantern/collections/shop.json" <<'PY'
import json, sys
i = json.load(open(sys.argv[1]))["items"][0]
print(i["id"], i["variants"][0]["sku"])
PY
)
  curl -fs -b "$jar" -c "$jar" -H "Host: $1" -H "X-CSRF-Token: $crumb" -H "Content-Type: application/json" \
    -d "{\"itemId\":\"$item\",\"sku\":\"$sku\"}" "http://127.0.0.1:$port/api/commerce/shopping-cart/entries" -o /dev/null
  awk '$6 == "crumb" || $6 == "tessera-cart" {printf "%s%s=%s", sep, $6, $7; sep="; "}' "$jar"
}

echo "capturing pages ..." >&2
start "$root/fixtures" "$work/data1"
product=$(python3 - "$root/fixtures/loam-lantern/collections/shop.json" <<'PY'
import json, sys
print(json.load(open(sys.argv[1]))["items"][0]["urlId"])
PY
)
cp -r "$root/fixtures" "$work/fixtures"
resolved=()
for p in "${pages[@]}"; do
  read -r host path asset cart <<<"${p/__FIRST_PRODUCT__/$product}"
  tenant=${host%.localhost}
  mkdir -p "$work/fixtures/$tenant/template/assets/load"
  cookies=
  [[ "$cart" == cart ]] && cookies=$(cart_cookies "$host")
  fetch "$host" "$path" "$cookies" >"$work/fixtures/$tenant/template/assets/load/$asset"
  resolved+=("$host $path $asset $cart")
done
stop

start "$work/fixtures" "$work/data2"
# The cart visitor's cookies on this server (a new cart with the same item).
declare -A cookies_of=()
for p in "${resolved[@]}"; do
  read -r host path asset cart <<<"$p"
  cookies=
  if [[ "$cart" == cart ]]; then cookies=$(cart_cookies "$host"); cookies_of[$asset]=$cookies; fi
  if ! cmp -s <(fetch "$host" "$path" "$cookies") <(fetch "$host" "/assets/load/$asset"); then
    echo "load.sh: $host$path and its static copy differ:" >&2
    diff <(fetch "$host" "$path" "$cookies") <(fetch "$host" "/assets/load/$asset") | head -20 >&2; exit 1
  fi
done

# rps HOST PATH [COOKIE]: requests per second of one wrk run (non-2xx responses fail the
# run).
rps() {
  local out
  out=$(wrk -t"$threads" -c"$conns" -d"${secs}s" -H "Host: $1" ${3:+-H "Cookie: $3"} "http://127.0.0.1:$port$2")
  if grep -q "Non-2xx" <<<"$out"; then echo "load.sh: errors on $1$2:" >&2; echo "$out" >&2; exit 1; fi
  awk '/^Requests\/sec/ {print $2}' <<<"$out"
}
best() { python3 -c 'import sys; print(max(float(x) for x in sys.argv[1:]))' "$@"; }

echo "wrk: $threads thread(s), $conns connections, ${secs}s per run, $rounds round(s), $(nproc) cores" >&2
printf '%-44s %9s %12s %12s %7s\n' page bytes "dynamic r/s" "static r/s" ratio
for p in "${resolved[@]}"; do
  read -r host path asset cart <<<"$p"
  dyn=() sta=()
  for _ in $(seq 1 "$rounds"); do
    sta+=("$(rps "$host" "/assets/load/$asset")")
    dyn+=("$(rps "$host" "$path" "${cookies_of[$asset]:-}")")
  done
  d=$(best "${dyn[@]}") s=$(best "${sta[@]}")
  bytes=$(wc -c <"$work/fixtures/${host%.localhost}/template/assets/load/$asset")
  label="$host$path"
  [[ "$cart" == cart ]] && label="$label (cart)"
  printf '%-44s %9d %12.0f %12.0f %6.0f%%\n' "$label" "$bytes" "$d" "$s" \
    "$(python3 -c "print(100*$d/$s)")"
done
echo "target: dynamic at least 50% of static" >&2
