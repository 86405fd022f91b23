#!/usr/bin/env bash
# The owner app's lists at 100,000 orders: one site (loam-lantern) given $ORDERS orders from
# $BUYERS distinct buyers (plus members and mailing-list subscribers), on the embedded store
# and on a throwaway PostgreSQL, then each call the Orders, Customers and Dashboard screens
# make is timed over HTTP with an owner token: median and p95 of $RUNS runs per call per
# backend.
#
# How: `tessera serve` imports the fixtures and stops; the orders (one line and a "placed"
# event each; payments, fulfilments, cancellations and refunds varied by number), members
# and subscribers are inserted with one SQL text per table straight into the store
# (sqlite3 / psql), then ANALYZE; a fresh `tessera serve --owner-token` is timed by a
# keep-alive HTTP client (python3). A deep page is reached by following `next` $DEPTH
# times (not timed) and then timed. The CSV export is every order (100,000 rows).
#
# usage: benches/owner-lists.sh
# env:   ORDERS (100000), BUYERS (30000), RUNS (20), CSV_RUNS (3), DEPTH (50),
#        BACKENDS ("embedded postgres"), TESSERA (a tessera binary; otherwise the release
#        build of this tree, built now)
# needs: curl, python3, sqlite3, PostgreSQL server binaries and psql
set -euo pipefail
source "$(dirname "$0")/lib.sh"
orders=${ORDERS:-100000}
buyers=${BUYERS:-30000}
runs=${RUNS:-20}
csv_runs=${CSV_RUNS:-3}
depth=${DEPTH:-50}
backends=${BACKENDS:-embedded postgres}
site=loam-lantern
host=$site.localhost
token=bench-owner-token-0123456789
command -v sqlite3 >/dev/null || die 2 "sqlite3 is not installed (apt-get install -y sqlite3)"
tessera_binary

# series N: `WITH n(i) AS (…)`, 1 to N, in $dialect's words.
series() {
  case $dialect in
    embedded) echo "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $1)" ;;
    postgres) echo "WITH n(i) AS (SELECT generate_series(1, $1)::bigint)" ;;
  esac
}

# seed_sql: the seeding statements (SQL both backends accept, but for `series`); :tenant,
# :now and :base are filled in by `fill`.
seed_sql() {
  cat <<SQL
INSERT INTO customer_order (tenant_id, id, order_number, cart_id, created_ms, currency, subtotal_minor,
  tax_minor, shipping_minor, discount_minor, grand_total_minor, customer_email, status, test_mode, kind,
  gift_card_minor, paid_ms, details, fulfilment, cancelled_ms, refunded_minor, customer_name)
$(series "$orders"), o AS (SELECT i, ((i * 7919) % $buyers) + 1 AS b, 1000 + (i * 37) % 9000 AS total,
  :now - ($orders + 1 - i) * 300000 AS at FROM n)
SELECT :tenant, '5eed0000000000' || CAST(1000000000 + i AS TEXT), :base + i, 'seedcart' || CAST(i AS TEXT), at,
  'USD', total, 0, 0, 0, total,
  CASE WHEN b % 7 = 0 AND i % 2 = 0 THEN 'Buyer' ELSE 'buyer' END || CAST(b AS TEXT) || '@example.com',
  CASE WHEN i % 10 = 0 THEN 'awaiting-payment' WHEN i % 97 = 5 THEN 'expired' WHEN i % 50 = 1 THEN 'refunded'
       WHEN i % 40 = 3 THEN 'partially-refunded' ELSE 'paid' END,
  FALSE, 'order', 0,
  CASE WHEN i % 10 = 0 OR i % 97 = 5 THEN NULL ELSE at + 1000 END,
  '{"billingAddress":{"firstName":"Ada","lastName":"Buyer' || CAST(b AS TEXT) || '","line1":"1 Main St","city":"Springfield","postalCode":"12345","country":"US"}}',
  CASE WHEN i % 3 = 0 THEN 'fulfilled' WHEN i % 7 = 0 THEN 'partially-fulfilled' WHEN i % 11 = 0 THEN 'not-required'
       ELSE 'unfulfilled' END,
  CASE WHEN i % 60 = 7 THEN at + 2000 ELSE NULL END,
  CASE WHEN i % 10 = 0 OR i % 97 = 5 THEN 0 WHEN i % 50 = 1 THEN total WHEN i % 40 = 3 THEN 500 ELSE 0 END,
  'Ada Buyer' || CAST(b AS TEXT)
FROM o;
INSERT INTO order_line (tenant_id, order_id, position, item_id, sku, product_name, quantity, unit_price_minor,
  product_type, attributes, fulfilled_quantity, refunded_quantity)
SELECT tenant_id, id, 0, 'seed-item', 'SEED-1', 'Seed lantern', 1 + order_number % 3, subtotal_minor, 1, '{}', 0, 0
FROM customer_order WHERE tenant_id = :tenant AND id LIKE '5eed%';
INSERT INTO order_event (tenant_id, order_id, seq, at_ms, kind, actor, data)
SELECT tenant_id, id, 1, created_ms, 'placed', '', '{}' FROM customer_order WHERE tenant_id = :tenant AND id LIKE '5eed%';
UPDATE tenant SET order_seq = :base + $orders WHERE id = :tenant;
-- Members: a thousand who bought, a thousand who did not; subscribers: two thousand of each.
INSERT INTO site_user (tenant_id, id, email, password_hash, display_name, created_ms)
$(series 2000) SELECT :tenant, 'seeduser' || CAST(i AS TEXT),
  CASE WHEN i <= 1000 THEN 'buyer' || CAST(i * 29 AS TEXT) ELSE 'member' || CAST(i AS TEXT) END || '@example.com',
  'x', 'Member ' || CAST(i AS TEXT), :now FROM n;
INSERT INTO mailing_list_subscriber (tenant_id, email, source, created_ms)
$(series 4000) SELECT :tenant, CASE WHEN i <= 2000 THEN 'buyer' || CAST(i * 13 AS TEXT) ELSE 'reader' || CAST(i AS TEXT) END || '@example.com',
  'form:seed', :now FROM n;
SQL
  # The customers' summary (migration 20), when the schema has it, rebuilt from the orders
  # by the migration's own statement.
  if [[ $has_summary == 1 ]]; then
    echo "DELETE FROM customer_summary;"
    sed -n '/^INSERT INTO customer_summary/,/GROUP BY/p' "$root/tenants/migrations/0020_customer_summary.sql"
  fi
  echo "ANALYZE;"
}

# fill SQL: :tenant, :now, :base replaced.
fill() { sed -e "s/:tenant/$tenant/g" -e "s/:now/$(date +%s%3N)/g" -e "s/:base/$base/g"; }

# time_calls BACKEND: the calls timed against the running server, one line each.
time_calls() {
  python3 - "$port" "$host" "$token" "$runs" "$csv_runs" "$depth" "$1" <<'PY'
import http.client, json, statistics, sys, time, urllib.parse
port, host, token, runs, csv_runs, depth, backend = sys.argv[1:]
runs, csv_runs, depth = int(runs), int(csv_runs), int(depth)
conn = http.client.HTTPConnection("127.0.0.1", int(port), timeout=600)
def get(path):
    conn.request("GET", path, headers={"Host": host, "Authorization": "Bearer " + token})
    r = conn.getresponse()
    body = r.read()
    if r.status != 200:
        sys.exit(f"owner-lists.sh: {path} answered {r.status}: {body[:300]!r}")
    return body
def deep(path, key):
    after = None
    for _ in range(depth):
        sep = "&" if "?" in path else "?"
        page = json.loads(get(path + (f"{sep}after={urllib.parse.quote(after)}" if after else "")))
        after = page["next"]
        if after is None:
            sys.exit(f"owner-lists.sh: {path} has fewer than {depth + 1} pages")
    sep = "&" if "?" in path else "?"
    return f"{path}{sep}after={urllib.parse.quote(after)}"
def one(path, check=None):
    body = get(path)
    if check:
        check(body)
    return body
def rows(key, at_least):
    def check(body):
        n = len(json.loads(body)[key])
        if n < at_least:
            sys.exit(f"owner-lists.sh: expected at least {at_least} {key}, got {n}")
    return check
def csv_rows(body):
    n = body.count(b"\n") - 1
    if n < 90000:
        sys.exit(f"owner-lists.sh: the CSV export has {n} rows")
calls = [
    ("orders, first page", "/api/owner/orders", runs, rows("orders", 50)),
    (f"orders, page {depth + 1}", deep("/api/owner/orders", "orders"), runs, rows("orders", 50)),
    ("orders, search by email", "/api/owner/orders?q=buyer12345%40example.com", runs, rows("orders", 1)),
    ("orders, paid & unfulfilled", "/api/owner/orders?payment=paid&fulfilment=unfulfilled", runs, rows("orders", 50)),
    ("orders, CSV export (all)", "/api/owner/orders.csv", csv_runs, csv_rows),
    ("customers, first page", "/api/owner/customers", runs, rows("customers", 50)),
    (f"customers, page {depth + 1}", deep("/api/owner/customers", "customers"), runs, rows("customers", 50)),
    ("customers, search", "/api/owner/customers?q=buyer2345", runs, rows("customers", 1)),
    ("dashboard", "/api/owner/dashboard", runs, None),
]
for name, path, n, check in calls:
    one(path, check)  # warm, and checked
    ms = []
    for _ in range(n):
        t = time.perf_counter()
        get(path)
        ms.append((time.perf_counter() - t) * 1000)
    ms.sort()
    p95 = ms[min(len(ms) - 1, int(round(0.95 * (len(ms) - 1))))]
    print(f"| {backend} | {name} | {statistics.median(ms):.1f} | {p95:.1f} | {n} |", flush=True)
PY
}

# seed BACKEND: the fixtures imported by a first serve, then the orders inserted.
seed() {
  start_server --fixtures "$root/fixtures" "${store[@]}"
  stop_server
  local t0=$SECONDS
  dialect=$1
  case $1 in
    embedded)
      db=(sqlite3 "$work/data/tessera.sqlite3")
      tenant=$("${db[@]}" "SELECT id FROM tenant WHERE identifier = '$site'")
      has_summary=$("${db[@]}" "SELECT COUNT(*) FROM sqlite_master WHERE name = 'customer_summary'")
      base=$("${db[@]}" "SELECT COALESCE(MAX(order_number), 0) FROM customer_order WHERE tenant_id = $tenant")
      { echo "BEGIN;"; seed_sql | fill; echo "COMMIT;"; } \
        | "${db[@]}" >/dev/null ;;
    postgres)
      tenant=$(pg_psql -d owner -c "SELECT id FROM tenant WHERE identifier = '$site'")
      has_summary=$(pg_psql -d owner -c "SELECT COUNT(*) FROM pg_tables WHERE tablename = 'customer_summary'")
      base=$(pg_psql -d owner -c "SELECT COALESCE(MAX(order_number), 0) FROM customer_order WHERE tenant_id = $tenant")
      { echo "BEGIN;"; seed_sql | fill; echo "COMMIT;"; } \
        | pg_psql -d owner -v ON_ERROR_STOP=1 >/dev/null ;;
  esac
  echo "$name: $1: $orders orders from $buyers buyers seeded in $((SECONDS - t0)) s" >&2
}

echo "| backend | call | median ms | p95 ms | runs |"
echo "|---|---|---:|---:|---:|"
for backend in $backends; do
  case $backend in
    embedded) store=(--data-dir "$work/data") ;;
    postgres)
      start_postgres synchronous_commit=off
      pg_psql -c "CREATE DATABASE owner"
      store=(--data-dir "$work/data-pg" --database-url "postgres://postgres@127.0.0.1:$pgport/owner") ;;
    *) die 2 "unknown backend $backend" ;;
  esac
  seed "$backend"
  start_server --fixtures "$work/no-fixtures" --owner-token "$site=$token" "${store[@]}"
  time_calls "$backend"
  stop_server
done
echo "($(nproc) cores; $orders orders from $buyers buyers on one site)" >&2
