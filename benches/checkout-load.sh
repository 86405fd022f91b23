#!/usr/bin/env bash
# Checkout throughput on PostgreSQL, next to pgbench's TPC-B on the same server in the same
# run: how close a visitor's order placed over HTTP with the test card comes to
# PostgreSQL's own standard write transaction.
#
# One measured request is one `POST /api/commerce/checkout` of a cart made beforehand: the
# visitor's cart cookie and crumb, an email of its own, a Dutch shipping address and the approved test
# card (4242 4242 4242 4242); the server prices the cart, authorises the card with the
# test-mode provider, places the order (stock, order and lines, the confirmation email in
# the outbox, the buyer's summary), captures, and answers 201 with the order.
#
# How: a throwaway PostgreSQL (as cart-load.sh), `tessera serve` on one database and
# pgbench (scale 10) on another, the demo store's stock raised so nothing sells out. Each
# round: a wrk run of add-to-cart that makes carts (each request a new visitor's first add,
# two of one physical or digital variant of loam-lantern, so every cart is over the
# store's minimum subtotal; the cart cookies are kept), then a wrk run of checkouts, each
# of a different one of those carts, then a pgbench run, all with the same number of
# clients. Any answer other than 2xx fails the run (a cart used twice would answer 409,
# so running out of carts fails too), and after each checkout run the orders in the
# database must have grown by the number of checkouts wrk counted (up to the requests
# still in flight when it stopped). The best run of each counts; the machine is noisy.
# Each checkout run also prints PostgreSQL's WAL flushes (pg_stat_wal.wal_sync) per order
# placed: a figure the machine's load moves much less than the rates; and the CPU time per
# order of the server, of PostgreSQL (every process of the throwaway server) and of wrk,
# from their ticks in /proc around the run (utime + stime; wrk's from /usr/bin/time); and
# the emails the mailer has not sent yet a second after the run (work it leaves for later).
#
# usage: benches/checkout-load.sh [SECONDS]      (default 10 per run)
# env:   ROUNDS (default 2), CLIENTS (default 16), PGBENCH_SCALE (default 10),
#        TESSERA (a tessera binary; default: built with cargo build --release -p api),
#        PROFILE (a file: `perf record --call-graph dwarf` of the server during each checkout run, written
#        there; read it with `perf report -i FILE`)
# needs: wrk, curl, python3, /usr/bin/time, PostgreSQL server binaries (/usr/lib/postgresql/*/bin)
set -euo pipefail
shopt -s inherit_errexit
source "$(dirname "$0")/lib.sh"
secs=${1:-10}
rounds=${ROUNDS:-2}
clients=${CLIENTS:-16}
scale=${PGBENCH_SCALE:-10}
threads=2

need_wrk
find_postgres
tessera_binary

store_bench_setup --cart-writes-per-minute 100000000 --checkouts-per-minute 100000000

# Makes carts: each answer's cart cookie goes to carts-N.txt of wrk thread N.
cat >"$work/carts.lua" <<LUA
dofile("$work/items.lua")
wrk.method = "POST"
wrk.headers["Host"] = "$host"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["X-CSRF-Token"] = "$crumb"
wrk.headers["Cookie"] = "crumb=$crumb"
local threads_made = 0
function setup(thread)
  thread:set("tid", threads_made)
  threads_made = threads_made + 1
end
local n, out = 0, nil
function init(args)
  out = io.open("$work/round/carts-" .. tid .. ".txt", "w")
  out:setvbuf("line")
end
request = function()
  n = n + 1
  local it = items[((n * 7 + tid) % #items) + 1]
  local body = '{"itemId":"' .. it[1] .. '","sku":"' .. it[2] .. '","quantity":2}'
  return wrk.format(nil, "/api/commerce/shopping-cart/entries", nil, body)
end
response = function(status, headers, body)
  local c = headers["set-cookie"] or headers["Set-Cookie"] or ""
  local v = c:match("tessera%-cart=([^;]+)")
  if status == 200 and v then out:write(v, "\n") end
end
LUA

# Checks out: thread N takes every T-th cart of all the carts made, from the N-th on; past
# the last it asks for a path that answers 404, which fails the run.
cat >"$work/checkout.lua" <<LUA
wrk.method = "POST"
-- Each order is a different visitor's: its own email (one buyer's row in the customer
-- summary each; one email for all would make every order recount that buyer's orders).
local rest = ',"shippingAddress":{"firstName":"Ada","lastName":"de Vries",'
  .. '"line1":"Lindengracht 12","city":"Amsterdam","postalCode":"1015 KD","country":"NL","region":"NH"},'
  .. '"payment":{"method":"card","card":{"number":"4242 4242 4242 4242","expMonth":12,"expYear":2099,"cvc":"123"}}}'
local threads_made = 0
function setup(thread)
  thread:set("tid", threads_made)
  threads_made = threads_made + 1
end
local carts, i = {}, nil
function init(args)
  for t = 0, $threads - 1 do
    for line in io.lines("$work/round/carts-" .. t .. ".txt") do carts[#carts + 1] = line end
  end
  i = tid + 1 - $threads
end
request = function()
  i = i + $threads
  local cart = carts[i]
  if cart == nil then
    return wrk.format("GET", "/api/commerce/out-of-carts", nil, nil)
  end
  -- Headers given to wrk.format replace wrk.headers: all of them here.
  local body = '{"email":"buyer-' .. tid .. '-' .. i .. '@example.com"' .. rest
  return wrk.format(nil, "/api/commerce/checkout", {
    ["Host"] = "$host", ["Content-Type"] = "application/json", ["X-CSRF-Token"] = "$crumb",
    ["Cookie"] = "crumb=$crumb; tessera-cart=" .. cart }, body)
end
-- The first answer other than 201 of each thread, for the message when the run fails.
local told = false
response = function(status, headers, answer)
  if status ~= 201 and not told then
    told = true
    io.stderr:write("checkout answered ", status, ": ", answer:sub(1, 300), "\n")
  end
end
LUA

orders() { pg_psql -d tessera -c "SELECT count(*) FROM customer_order"; }
# The emails in the outbox the mailer has not sent yet: what it leaves for later (the
# pgbench run that follows) when it does not keep up with the checkouts.
unsent() { pg_psql -d tessera -c "SELECT count(*) FROM email_outbox WHERE sent_ms IS NULL"; }
# The WAL flushes PostgreSQL has made so far (every process's fsync of the WAL).
wal_syncs() { pg_psql -d tessera -c "SELECT wal_sync FROM pg_stat_wal"; }

# The CPU ticks (utime + stime, every thread) a process has used so far; 0 once it is gone.
ticks_of() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0; }
# The CPU ticks of every process of the throwaway PostgreSQL (the postmaster and its
# children: the server's pooled connections, the WAL writer, the checkpointer ...).
pg_ticks() {
  local pm total p
  pm=$(head -1 "$work/pg/postmaster.pid")
  total=$(ticks_of "$pm")
  for p in $(ps -o pid= --ppid "$pm"); do total=$((total + $(ticks_of "$p"))); done
  echo "$total"
}
hz=$(getconf CLK_TCK)

# run_wrk SCRIPT WHAT: wrk's output, or out when any answer was not 2xx/3xx. wrk's own CPU
# time (user and system seconds) goes to $work/wrk.cpu.
run_wrk() {
  local out
  out=$(/usr/bin/time -f "%U %S" -o "$work/wrk.cpu" \
    wrk -t"$threads" -c"$clients" -d"${secs}s" -s "$1" "http://127.0.0.1:$port")
  if grep -q "Non-2xx" <<<"$out"; then die 1 "answers other than 2xx/3xx during $2:"$'\n'"$out"; fi
  echo "$out"
}

checkouts() {
  rm -rf "$work/round" && mkdir "$work/round"
  local made out before after done_n
  made=$(run_wrk "$work/carts.lua" "add-to-cart (making carts)")
  echo "carts: $(cat "$work"/round/carts-*.txt | wc -l) made ($(awk '/^Requests\/sec/ {print $2}' <<<"$made") adds/s)" >&2
  before=$(orders)
  local syncs_before syncs
  syncs_before=$(wal_syncs)
  local server_ticks pg_before
  server_ticks=$(ticks_of "$pid") pg_before=$(pg_ticks)
  local perf_pid=
  if [[ -n "${PROFILE:-}" ]]; then
    perf record -q -F 499 --call-graph dwarf,8192 -p "$pid" -o "$PROFILE" -- sleep "$secs" 2>/dev/null &
    perf_pid=$!
  fi
  out=$(run_wrk "$work/checkout.lua" "checkout")
  server_ticks=$(($(ticks_of "$pid") - server_ticks)) pg_before=$(($(pg_ticks) - pg_before))
  if [[ -n "$perf_pid" ]]; then wait "$perf_pid" || true; fi
  sleep 1 # the requests wrk left in flight finish
  after=$(orders)
  syncs=$(($(wal_syncs) - syncs_before))
  done_n=$(awk '/ requests in / {print $1}' <<<"$out")
  if ((after - before < done_n || after - before > done_n + clients)); then
    die 1 "wrk counted $done_n checkouts but $((after - before)) orders were placed:"$'\n'"$out"
  fi
  echo "checkout: $done_n answered 201, $((after - before)) orders placed, $syncs WAL flushes" \
    "($(awk -v s="$syncs" -v n="$((after - before))" 'BEGIN { printf "%.2f", (n ? s / n : 0) }') per order)," \
    "$(unsent) emails not sent yet a second after the run" >&2
  awk -v s="$server_ticks" -v p="$pg_before" -v hz="$hz" -v n="$((after - before))" \
    -v w="$(awk '{print $1 + $2}' "$work/wrk.cpu")" 'BEGIN { if (n) printf \
    "cpu per order: server %.2f ms, postgres %.2f ms, wrk %.2f ms\n", \
    1000 * s / hz / n, 1000 * p / hz / n, 1000 * w / n }' >&2
  awk '/^Requests\/sec/ {print $2}' <<<"$out"
}
store_bench_compare "checkout orders/s (HTTP, test card)" checkouts
echo "($(orders) orders in the database)" >&2
echo "target: checkout at least 30% of pgbench" >&2
