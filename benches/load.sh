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
# The servers' own CPU time per request (user + system, from /proc; the least of the
# rounds) is printed beside the rates: `µs stat` and `µs on` for the static copy and the
# page with analytics on, `µs off` for the page on the other server; `ratio` is static over
# dynamic CPU, what the page's rate would be against static if the server's CPU were all
# that limited it (stricter than the rates' ratio, which share wrk's CPU); `cpu` is
# analytics' cost by it, 1 - (off / on). These move much less between runs than the rates:
# wrk, the other server and the rest of the machine are not in them.
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
port_off= pid_off=
if [[ "$with_off" != 0 ]]; then
  pid=
  start_server --data-dir "$work/data3" --fixtures "$work/fixtures" "${serve_args[@]}" --no-analytics
  port_off=$port pid_off=$pid
  check_copies off-
fi
before_cleanup() { kill "$pid_on" 2>/dev/null && wait "$pid_on" 2>/dev/null; }

# ticks PID: the process's CPU time so far (user + system), in clock ticks.
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# rps HOST PATH [COOKIE]: requests per second of one wrk run against $port (non-2xx
# responses fail the run), and the server's ($server_pid) CPU microseconds per request.
rps() {
  local out t0 t1
  t0=$(ticks "$server_pid")
  out=$(wrk -t"$threads" -c"$conns" -d"${secs}s" -H "Host: $1" ${3:+-H "Cookie: $3"} "http://127.0.0.1:$port$2")
  t1=$(ticks "$server_pid")
  if grep -q "Non-2xx" <<<"$out"; then echo "load.sh: errors on $1$2:" >&2; echo "$out" >&2; exit 1; fi
  awk -v t="$((t1 - t0))" -v hz="$(getconf CLK_TCK)" \
    '/ requests in / {n = $1} /^Requests\/sec/ {r = $2} END {printf "%s %.2f\n", r, t * 1e6 / hz / n}' <<<"$out"
}

pct() { python3 -c "print(f'{100*$1/$2:.0f}%')"; }

echo "wrk: $threads thread(s), $conns connections, ${secs}s per run, $rounds round(s), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)${SERVE_ARGS:+, servers with $SERVE_ARGS}" >&2
printf '%-56s %7s %10s %10s %6s %10s %10s %6s %9s %5s %7s %7s %7s %5s %6s\n' page bytes "dyn r/s" "static r/s" ratio \
  "off: dyn" "off: stat" ratio "analytics" raw "µs stat" "µs on" "µs off" "ratio" cpu
least() { python3 -c 'import sys; print(min(float(x) for x in sys.argv[1:]))' "$@"; }
for p in "${resolved[@]}"; do
  read -r host path asset cart <<<"$p"
  dyn=() sta=() dyn_off=() sta_off=() cpu=() cpu_off=() cpu_sta=()
  for _ in $(seq 1 "$rounds"); do
    port=$port_on server_pid=$pid_on
    read -r r c < <(rps "$host" "/assets/load/on-$asset"); sta+=("$r") cpu_sta+=("$c")
    read -r r c < <(rps "$host" "$path" "${cookies_of[$port/on-$asset]:-}"); dyn+=("$r") cpu+=("$c")
    if [[ -n "$port_off" ]]; then
      port=$port_off server_pid=$pid_off
      read -r r _ < <(rps "$host" "/assets/load/off-$asset"); sta_off+=("$r")
      read -r r c < <(rps "$host" "$path" "${cookies_of[$port/off-$asset]:-}"); dyn_off+=("$r") cpu_off+=("$c")
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
    c_sta=$(least "${cpu_sta[@]}") c_on=$(least "${cpu[@]}") c_off=$(least "${cpu_off[@]}")
    c_cost=$(python3 -c "print(f'{100*(1-$c_off/$c_on):.1f}%')")
    printf '%-56s %7d %10.0f %10.0f %6s %10.0f %10.0f %6s %9s %5s %7.1f %7.1f %7.1f %5s %6s\n' "$label" "$bytes" "$d" "$s" \
      "$(pct "$d" "$s")" "$d_off" "$s_off" "$(pct "$d_off" "$s_off")" "$cost" "$raw" "$c_sta" "$c_on" "$c_off" \
      "$(pct "$c_sta" "$c_on")" "$c_cost"
  else
    printf '%-56s %7d %10.0f %10.0f %6s\n' "$label" "$bytes" "$d" "$s" "$(pct "$d" "$s")"
  fi
done
echo "targets (issue 46): dynamic at least 80% of static with analytics on; analytics (1 - ratio on / ratio off, and by the servers' CPU per page) at most 5%" >&2
