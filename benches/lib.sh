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

# best X...: the largest.
best() { python3 -c 'import sys; print(max(float(x) for x in sys.argv[1:]))' "$@"; }
