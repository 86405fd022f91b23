#!/usr/bin/env bash
# Per-site fairness, measured: a quiet site's latency (p50 and p99 of one client sending one
# request at a time) alone, and again while another site is flooded by many concurrent
# connections, with the per-site in-flight cap off (`--tenant-max-in-flight 0`) and on.
# Two kinds of flood:
#   pages  pages served from the caches (skyward.localhost/ quiet, loam-lantern.localhost/shop
#          flooded): CPU only
#   carts  a visitor's cart, read from the store on every call (GET
#          /api/commerce/shopping-cart with a cart cookie; harbor-lane quiet, loam-lantern
#          flooded): each call holds one of the store's pooled connections
# Prints one table with the ratios (under flood / alone) and what the flood got (answers
# with 200 and 503 a second).
#
# Both clients are wrk on the same machine as the server, so they take CPU from it too: the
# figures compare the runs of one invocation with each other, not with other machines.
#
# usage: benches/fairness.sh [SECONDS]      (default 10 per measurement)
# env:   FLOOD (flood connections, default 256), SHARE (the cap when on, default 8),
#        TESSERA (a tessera binary; default: built with cargo build --release -p api)
# needs: wrk (apt-get install -y wrk), curl, python3
set -euo pipefail
source "$(dirname "$0")/lib.sh"
secs=${1:-10}
flood=${FLOOD:-256}
share=${SHARE:-8}
kinds=${KINDS:-pages carts}

need_wrk
tessera_binary

flood_pid=
before_cleanup() { [[ -z "$flood_pid" ]] || kill "$flood_pid" 2>/dev/null; }
server_log=error

# start CAP: the server on the demo fixtures (imported into $work/data on the first start)
# with this per-site cap; the flood comes from one address, so no per-client cap.
start() {
  start_server --data-dir "$work/data" --fixtures "$root/fixtures" --no-analytics \
    --max-connections-per-client 0 --tenant-max-in-flight "$1"
}

# ms TEXT: a wrk duration (850.00us, 1.20ms, 1.05s) in milliseconds.
ms() { python3 -c '
import sys
t = sys.argv[1]
for unit, f in (("us", 0.001), ("ms", 1.0), ("m", 60000.0), ("s", 1000.0)):
    if t.endswith(unit):
        print(f"{float(t[:-len(unit)]) * f:.2f}"); break' "$1"; }

# quiet: "p50 p99" of the quiet client over $secs seconds, in milliseconds.
quiet() {
  local out
  out=$(wrk -t1 -c1 -d"${secs}s" --latency -H "Host: $quiet_host" ${quiet_cookie:+-H "Cookie: $quiet_cookie"} \
    "http://127.0.0.1:$port$quiet_path")
  if grep -q "Non-2xx" <<<"$out"; then echo "fairness.sh: the quiet site failed:" >&2; echo "$out" >&2; exit 1; fi
  echo "$(ms "$(awk '$1 == "50%" {print $2}' <<<"$out")") $(ms "$(awk '$1 == "99%" {print $2}' <<<"$out")")"
}

ratio() { python3 -c 'import sys; print(f"{float(sys.argv[1]) / max(float(sys.argv[2]), 0.001):.1f}x")' "$1" "$2"; }

echo "quiet: 1 connection; flood: $flood connections; ${secs}s per measurement, $(nproc) cores" >&2
rows=()
for kind in $kinds; do
for cap in 0 "$share"; do
  start "$cap"
  quiet_cookie= flood_cookie=
  case $kind in
    pages) quiet_host=skyward.localhost quiet_path=/ flood_host=loam-lantern.localhost flood_path=/shop ;;
    carts) quiet_host=harbor-lane.localhost flood_host=loam-lantern.localhost
           quiet_path=/api/commerce/shopping-cart flood_path=$quiet_path
           quiet_cookie=$(cart_cookies "$quiet_host") flood_cookie=$(cart_cookies "$flood_host") ;;
    *) echo "fairness.sh: no flood kind $kind (pages, carts)" >&2; exit 2 ;;
  esac
  # Warm the caches.
  curl -fs -H "Host: $quiet_host" ${quiet_cookie:+-H "Cookie: $quiet_cookie"} "http://127.0.0.1:$port$quiet_path" >/dev/null
  curl -fs -H "Host: $flood_host" ${flood_cookie:+-H "Cookie: $flood_cookie"} "http://127.0.0.1:$port$flood_path" >/dev/null
  read -r alone50 alone99 < <(quiet)
  wrk -t1 -c"$flood" -d"$((secs + 4))s" -H "Host: $flood_host" ${flood_cookie:+-H "Cookie: $flood_cookie"} \
    "http://127.0.0.1:$port$flood_path" >"$work/flood.out" 2>&1 &
  flood_pid=$!
  sleep 2
  read -r under50 under99 < <(quiet)
  wait "$flood_pid" || true
  flood_pid=
  total=$(awk '/requests in/ {print $1}' "$work/flood.out")
  refused=$(awk '/Non-2xx/ {print $5}' "$work/flood.out")
  refused=${refused:-0}
  served=$(( (total - refused) / (secs + 4) ))
  refused=$(( refused / (secs + 4) ))
  label=off
  [[ "$cap" != 0 ]] && label="on ($cap)"
  rows+=("$(printf '| %-5s | %-8s | %6s / %-7s | %7s / %-8s | %6s | %6s | %9s | %9s |' "$kind" "$label" \
    "$alone50" "$alone99" "$under50" "$under99" "$(ratio "$under50" "$alone50")" \
    "$(ratio "$under99" "$alone99")" "$served" "$refused")")
  stop_server
done
done
echo "| flood | fairness | alone p50 / p99 ms | flooded p50 / p99 ms | p50 x | p99 x | flood 200/s | flood 503/s |"
echo "|---|---|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
