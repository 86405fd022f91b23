#!/usr/bin/env bash
# Loads a running `tessera serve` with wrk for a fixed time and prints requests per second
# for dynamic pages next to the same bytes served statically by the same server — the
# ceiling, since the static response goes through the same listener, middleware, Host →
# tenant lookup and site-content check, and only skips rendering. One page is also measured
# for a visitor with a non-empty cart (cart cookie and crumb sent; the page shows the cart).
#
# How: start the server once on a throwaway data dir to capture each dynamic page, then
# start it again on a fresh data dir whose fixtures carry those captured bytes as template
# assets of the same tenant, check that both URLs return identical bodies (but for the
# crumbs the pages' cart forms carry, of the same length), and alternate static and
# dynamic runs (the best run of each counts; the machine is noisy).
#
# Analytics: the pages are measured on a server with its defaults (analytics on: every
# page wrk fetches is a new visitor's page view, the costliest kind) and, beside it, on a
# second server on the same fixtures with `--no-analytics`; both run throughout, one idle
# while the other is loaded, and each round runs static and dynamic on one, then the other.
# The table prints both ratios and what analytics costs the dynamic page: `analytics` is
# 1 - (on ratio / off ratio), each server's dynamic rate taken against its own static rate
# measured beside it, so a change in the machine's speed between the two servers' runs
# cancels out (on this shared 2-core machine static rates move by 20% between minutes);
# `raw` is 1 - (dynamic on / dynamic off), the two servers' rates compared directly.
#
# usage: benches/load.sh [SECONDS]          (default 10 per run)
# env:   ROUNDS (default 2), CONNECTIONS (default 32), THREADS (default 1),
#        ANALYTICS_OFF=0 (skip the --no-analytics server),
#        TESSERA (a tessera binary; default: built with cargo build --release -p api),
#        SERVE_ARGS (more arguments for every server, e.g. --no-kept-pages)
# needs: wrk (apt-get install -y wrk), curl, python3
set -euo pipefail
source "$(dirname "$0")/lib.sh"
secs=${1:-10}
rounds=${ROUNDS:-2}
conns=${CONNECTIONS:-32}
threads=${THREADS:-1}
with_off=${ANALYTICS_OFF:-1}
read -r -a serve_args <<<"${SERVE_ARGS:-}"

need_wrk
tessera_binary

# Pages measured: tenant host, path, asset name for the static copy, and "cart" for a
# visitor with one item in their cart.
pages=(
  "loam-lantern.localhost /shop shop.html -"
  "loam-lantern.localhost /shop/__FIRST_PRODUCT__ product.html -"
  "loam-lantern.localhost /shop/__FIRST_PRODUCT__ product-with-cart.html cart"
  "skyward.localhost /notes notes.html -"
)

# The page with each crumb (the no-JavaScript cart forms' hidden field: a signed value,
# new for each visitor without one and signed by each server's own tenant secret) written
# the same: the static copy is the page as the first server made it, so its crumbs differ
# from the second server's while every other byte, and the length, is the same.
same_crumb() { sed -E 's/(name="crumb" value=")[0-9a-f]{64}/\1CRUMB/g'; }

# fetch HOST PATH [COOKIE]
fetch() { curl -fs -H "Host: $1" ${3:+-H "Cookie: $3"} "http://127.0.0.1:$port$2"; }

echo "capturing pages ..." >&2
product=$(python3 - "$root/fixtures/loam-lantern/collections/shop.json" <<'PY'
import json, sys
print(json.load(open(sys.argv[1]))["items"][0]["urlId"])
PY
)
cp -r "$root/fixtures" "$work/fixtures"
resolved=()
for p in "${pages[@]}"; do
  read -r host path asset cart <<<"${p/__FIRST_PRODUCT__/$product}"
  mkdir -p "$work/fixtures/${host%.localhost}/template/assets/load"
  resolved+=("$host $path $asset $cart")
done
# capture PREFIX SERVE_ARGS...: each page as a server with those arguments makes it, as the
# asset load/PREFIXNAME (a page with analytics off differs: its island data says so).
capture() {
  local prefix=$1 host path asset cart cookies; shift
  start_server --data-dir "$work/capture-$prefix" --fixtures "$root/fixtures" "${serve_args[@]}" "$@"
  for p in "${resolved[@]}"; do
    read -r host path asset cart <<<"$p"
    cookies=
    [[ "$cart" == cart ]] && cookies=$(cart_cookies "$host")
    fetch "$host" "$path" "$cookies" >"$work/fixtures/${host%.localhost}/template/assets/load/$prefix$asset"
  done
  stop_server
}
capture on-
[[ "$with_off" != 0 ]] && capture off- --no-analytics

# check_copies PREFIX: each page on the running server is its static copy's bytes (the
# asset load/PREFIXNAME); sets the cart visitor's cookies on it (a new cart with the same
# item) in cookies_of[$port/NAME].
declare -A cookies_of=()
check_copies() {
  local prefix=$1 host path asset cart cookies
  for p in "${resolved[@]}"; do
    read -r host path asset cart <<<"$p"
    asset=$prefix$asset
    cookies=
    if [[ "$cart" == cart ]]; then cookies=$(cart_cookies "$host"); cookies_of[$port/$asset]=$cookies; fi
    # Twice: the first request renders the page (and keeps it), the second is answered
    # from the kept render.
    for _ in 1 2; do
      if ! cmp -s <(fetch "$host" "$path" "$cookies" | same_crumb) <(fetch "$host" "/assets/load/$asset" | same_crumb); then
        echo "load.sh: $host$path and its static copy differ:" >&2
        diff <(fetch "$host" "$path" "$cookies" | same_crumb) <(fetch "$host" "/assets/load/$asset" | same_crumb) | head -20 >&2; exit 1
      fi
    done
  done
}

# The server with its defaults (analytics on) and, beside it, one with analytics off.
start_server --data-dir "$work/data2" --fixtures "$work/fixtures" "${serve_args[@]}"
port_on=$port pid_on=$pid
check_copies on-
port_off=
if [[ "$with_off" != 0 ]]; then
  pid=
  start_server --data-dir "$work/data3" --fixtures "$work/fixtures" "${serve_args[@]}" --no-analytics
  port_off=$port
  check_copies off-
fi
before_cleanup() { kill "$pid_on" 2>/dev/null && wait "$pid_on" 2>/dev/null; }

# rps HOST PATH [COOKIE]: requests per second of one wrk run against $port (non-2xx
# responses fail the run).
rps() {
  local out
  out=$(wrk -t"$threads" -c"$conns" -d"${secs}s" -H "Host: $1" ${3:+-H "Cookie: $3"} "http://127.0.0.1:$port$2")
  if grep -q "Non-2xx" <<<"$out"; then echo "load.sh: errors on $1$2:" >&2; echo "$out" >&2; exit 1; fi
  awk '/^Requests\/sec/ {print $2}' <<<"$out"
}

pct() { python3 -c "print(f'{100*$1/$2:.0f}%')"; }

echo "wrk: $threads thread(s), $conns connections, ${secs}s per run, $rounds round(s), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)${SERVE_ARGS:+, servers with $SERVE_ARGS}" >&2
printf '%-56s %7s %10s %10s %6s %10s %10s %6s %9s %5s\n' page bytes "dyn r/s" "static r/s" ratio \
  "off: dyn" "off: stat" ratio "analytics" raw
for p in "${resolved[@]}"; do
  read -r host path asset cart <<<"$p"
  dyn=() sta=() dyn_off=() sta_off=()
  for _ in $(seq 1 "$rounds"); do
    port=$port_on
    sta+=("$(rps "$host" "/assets/load/on-$asset")")
    dyn+=("$(rps "$host" "$path" "${cookies_of[$port/on-$asset]:-}")")
    if [[ -n "$port_off" ]]; then
      port=$port_off
      sta_off+=("$(rps "$host" "/assets/load/off-$asset")")
      dyn_off+=("$(rps "$host" "$path" "${cookies_of[$port/off-$asset]:-}")")
    fi
  done
  d=$(best "${dyn[@]}") s=$(best "${sta[@]}")
  bytes=$(wc -c <"$work/fixtures/${host%.localhost}/template/assets/load/on-$asset")
  label="$host$path"
  [[ "$cart" == cart ]] && label="$label (cart)"
  if [[ -n "$port_off" ]]; then
    d_off=$(best "${dyn_off[@]}") s_off=$(best "${sta_off[@]}")
    cost=$(python3 -c "print(f'{100*(1-($d/$s)/($d_off/$s_off)):.0f}%')")
    raw=$(python3 -c "print(f'{100*(1-$d/$d_off):.0f}%')")
    printf '%-56s %7d %10.0f %10.0f %6s %10.0f %10.0f %6s %9s %5s\n' "$label" "$bytes" "$d" "$s" \
      "$(pct "$d" "$s")" "$d_off" "$s_off" "$(pct "$d_off" "$s_off")" "$cost" "$raw"
  else
    printf '%-56s %7d %10.0f %10.0f %6s\n' "$label" "$bytes" "$d" "$s" "$(pct "$d" "$s")"
  fi
done
echo "targets (issue 46): dynamic at least 80% of static with analytics on; analytics (1 - ratio on / ratio off) at most 5%" >&2
