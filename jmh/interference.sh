#!/usr/bin/env bash
# Latency under interference: p50/p99 of point selects by primary key and of single-row INSERTs,
# first from one pgbench client alone (INSERTs into the table with the primary key), then from 8
# clients alone, then from 8 clients while another client runs an aggregate over 1M rows
# (SELECT customer_id, count(*), sum(qty) FROM orders GROUP BY customer_id) over and over.
# Runs against a server that is already running, so Tributary and PostgreSQL can be measured
# the same way, one after the other:
#
#   jmh/interference.sh PORT [USER] [DB] [SECONDS] [MODE]
#     e.g. bin/tributary serve --port 5488 &  jmh/interference.sh 5488 tributary tributary 20 prepared
#          jmh/interference.sh 5433 postgres postgres 20 prepared
#
# MODE is pgbench's query mode (simple, extended, prepared). It (re)creates tables orders
# (1M rows, primary key id) and interference_log in the database. Needs psql and pgbench.
set -euo pipefail
port="${1:?usage: jmh/interference.sh PORT [USER] [DB] [SECONDS] [MODE]}"
user="${2:-tributary}"
db="${3:-tributary}"
seconds="${4:-20}"
mode="${5:-prepared}"
work="$(mktemp -d "${TMPDIR:-/tmp}/interference.XXXXXX")"
agg_pid=""
cleanup() {
  [ -n "$agg_pid" ] && kill "$agg_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
psql_() { psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U "$user" -d "$db" "$@"; }

psql_ -c "SET client_min_messages = warning" -c "DROP TABLE IF EXISTS orders CASCADE" -c "DROP TABLE IF EXISTS interference_log CASCADE" \
  -c "CREATE TABLE orders (id bigint PRIMARY KEY, customer_id int, qty int)" \
  -c "CREATE TABLE interference_log (client int, v int)" \
  -c "INSERT INTO orders SELECT i, i % 100000, i % 10 FROM generate_series(1, 1000000) AS s(i)" \
  -c "SELECT count(*) FROM orders" >/dev/null
cat >"$work/select.sql" <<'SQL'
\set id random(1, 1000000)
SELECT qty FROM orders WHERE id = :id;
SQL
cat >"$work/insert.sql" <<'SQL'
\set v random(1, 1000000)
INSERT INTO interference_log VALUES (:client_id, :v);
SQL
cat >"$work/insert-key.sql" <<'SQL'
\set id random(2000000, 9000000000000000000)
\set c random(1, 100000)
INSERT INTO orders VALUES (:id, :c, 1);
SQL

# p50 and p99 in ms of each script (field 4 of pgbench's per-transaction log is the script's number)
percentiles() {
  cat "$work"/log.* | awk -v what="$1" '{ print $4, $3 / 1000.0 }' | sort -k1,1n -k2,2g | awk -v what="$1" '
    { n[$1]++; v[$1, n[$1]] = $2 }
    END { split("point select,single-row INSERT", name, ",");
          for (s = 0; s <= 1; s++) { c = n[s]; if (!c) continue;
            p50 = v[s, int(c * 0.50) + 1]; p99 = v[s, int(c * 0.99) + 1 > c ? c : int(c * 0.99) + 1];
            printf "%-28s %-16s %8d done, p50 %7.3f ms, p99 %8.3f ms\n", what, name[s + 1], c, p50, p99 } }'
  rm -f "$work"/log.*
}

run() {
  (cd "$work" && pgbench -n -h 127.0.0.1 -p "$port" -U "$user" -M "$mode" -c 8 -j 2 -T "$seconds" -l --log-prefix=log \
    -f select.sql@1 -f insert.sql@1 "$db" >/dev/null)
  percentiles "$1"
}

# the fixed cost of a statement: one client, point selects and single-row INSERTs into the table
# with the primary key (keys drawn from 2^63: a repeat, which would fail the client, is unlikely)
(cd "$work" && pgbench -n -h 127.0.0.1 -p "$port" -U "$user" -M "$mode" -c 1 -T "$seconds" -l --log-prefix=log \
  -f select.sql@1 -f insert-key.sql@1 "$db" >/dev/null)
percentiles "one client"
run "alone"
(
  n=0
  while true; do
    psql_ -c "SELECT customer_id, count(*), sum(qty) FROM orders GROUP BY customer_id" >/dev/null
    n=$((n + 1))
    echo "$n" >"$work/aggregates"
  done
) &
agg_pid=$!
run "beside a 1M-row aggregate"
kill "$agg_pid" 2>/dev/null || true
agg_pid=""
echo "aggregates completed meanwhile: $(cat "$work/aggregates" 2>/dev/null || echo 0) in ${seconds} s"
