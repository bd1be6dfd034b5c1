#!/usr/bin/env bash
# Restart after kill -9: Tributary's durable server against PostgreSQL 15 (default settings),
# side by side, with ROWS order rows and 100,000 customers in tables and five stored objects over
# them (three materialized views with joins and aggregates, two indexes): the time from starting
# the killed server again to the first correct answer of each object, checked equal to the
# answer before the kill.
#
#   jmh/restart-compare.sh [ROWS (default 10000000)]
#
# Both servers take a CHECKPOINT after the load (as each would by itself within minutes: Tributary
# every 60 s while writes come, PostgreSQL every checkpoint_timeout), then are killed. Tributary
# restores its tables, materialized views and indexes from the checkpoint (every worker's
# arrangements as they were) and replays the log after it; PostgreSQL's materialized views are
# stored tables and its crash recovery replays the WAL after its checkpoint. CHECKPOINT=0 skips
# the checkpoints: Tributary then rebuilds everything from the tables (rehydration).
# Environment: PG_BIN, PG_PORT (default 15453), JAVA, TRIBUTARY_JAVA_OPTS (default -Xmx8g), MVN_FLAGS, CHECKPOINT.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
pg_bin="${PG_BIN:-/usr/lib/postgresql/15/bin}"
pg_port="${PG_PORT:-15453}"
jar="$root/jmh/target/benchmarks.jar"
jfr=""
rows="${1:-10000000}"
me=restart-compare
# shellcheck source=jmh/side-by-side.sh
. "$root/jmh/side-by-side.sh"
java="$(pick_java)"
side_by_side_prepare
command -v psql >/dev/null || { echo "$me: psql is needed" >&2; exit 1; }

gen_customers() { python3 -c '
import sys
w = sys.stdout.write
for i in range(100000): w(f"{i}\tname {i}\tregion{i % 17}\n")'; }
gen_orders() { python3 -c '
import random, sys
random.seed(7)
w = sys.stdout.write
for i in range(int(sys.argv[1])): w(f"{i}\t{random.randrange(100000)}\t{random.randrange(100000) / 100:.2f}\t{random.randrange(5)}\n")' "$rows"; }

schema="CREATE TABLE customers (id int PRIMARY KEY, name text, region text);
CREATE TABLE orders (id bigint PRIMARY KEY, customer int, amount numeric(10,2), status int);"
objects="CREATE MATERIALIZED VIEW per_region AS SELECT c.region, count(*) AS n, sum(o.amount) AS total FROM orders o JOIN customers c ON c.id = o.customer GROUP BY c.region;
CREATE MATERIALIZED VIEW per_customer AS SELECT customer, count(*) AS n, sum(amount) AS total FROM orders GROUP BY customer;
CREATE MATERIALIZED VIEW per_status AS SELECT status, count(*) AS n, max(amount) AS top FROM orders GROUP BY status;
CREATE INDEX orders_by_customer ON orders (customer);
CREATE INDEX per_customer_by_total ON per_customer (total);"
# one answer per object, each read through it
queries=("SELECT * FROM per_region ORDER BY region"
         "SELECT count(*), sum(n), sum(total) FROM per_customer"
         "SELECT * FROM per_status ORDER BY status"
         "SELECT count(*), sum(amount) FROM orders WHERE customer = 4242"
         "SELECT customer, total FROM per_customer WHERE total = (SELECT max(total) FROM per_customer)")

answers() { # answers PSQL_ARGS...: every query's rows, one block each
  local q
  for q in "${queries[@]}"; do psql "$@" -X -A -t -v ON_ERROR_STOP=1 -c "$q"; echo "--"; done
}

now() { date +%s.%N; }
secs() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.2f}')" "$1" "$2"; }

load() { # load NAME PSQL_ARGS...: the tables, their rows and the five objects (progress notices dropped)
  local name=$1 start; shift
  psql "$@" -X -q -v ON_ERROR_STOP=1 -c "$schema"
  start=$(now)
  gen_customers | psql "$@" -X -q -v ON_ERROR_STOP=1 -c "COPY customers FROM STDIN"
  gen_orders | psql "$@" -X -q -v ON_ERROR_STOP=1 -c "COPY orders FROM STDIN"
  psql "$@" -X -q -v ON_ERROR_STOP=1 -c "$objects" 2>/dev/null
  echo "$me: $name: loaded $rows orders and made five objects in $(secs "$start" "$(now)") s" >&2
  if [ "${CHECKPOINT:-1}" != 0 ]; then
    start=$(now)
    psql "$@" -X -q -v ON_ERROR_STOP=1 -c "CHECKPOINT"
    echo "$me: $name: CHECKPOINT in $(secs "$start" "$(now)") s" >&2
  fi
}

# --- Tributary
start_tributary "-Xmx8g"
t=(-h 127.0.0.1 -p "$tributary_port" -U tributary -d tributary)
load tributary "${t[@]}"
start=$(now)
before="$(answers "${t[@]}")"
trib_warm=$(secs "$start" "$(now)")
echo "$me: tributary: the five answers take $trib_warm s on the running server (before the kill)" >&2
bytes=$(du -sb "$work/tributary-data" | cut -f1)
# paging's scratch files (arrangement batches out of the heap) are not durable data: shown apart
spill_bytes=$( [ -d "$work/tributary-data/spill" ] && du -sb "$work/tributary-data/spill" | cut -f1 || echo 0)
kill -9 "$tributary_pid"; wait "$tributary_pid" 2>/dev/null || true
start=$(now)
start_tributary "-Xmx8g"
listening=$(now)
t=(-h 127.0.0.1 -p "$tributary_port" -U tributary -d tributary)
after="$(answers "${t[@]}")"
answered=$(now)
[ "$before" = "$after" ] || { echo "$me: tributary's answers after the restart differ:"; diff <(echo "$before") <(echo "$after"); exit 1; } >&2
echo "$me: tributary: listening $(secs "$start" "$listening") s after the start, every answer right $(secs "$start" "$answered") s after it; data directory $bytes bytes" >&2
grep -E "recovery:|checkpoint at" "$work/tributary.log" >&2 || true
trib_listen=$(secs "$start" "$listening"); trib_answer=$(secs "$start" "$answered")
kill "$tributary_pid"; wait "$tributary_pid" 2>/dev/null || true
tributary_pid=""

# --- PostgreSQL
start_postgres ""
p=(-h 127.0.0.1 -p "$pg_port" -U postgres -d postgres)
load postgres "${p[@]}"
start=$(now)
before_pg="$(answers "${p[@]}")"
pg_warm=$(secs "$start" "$(now)")
[ "$before_pg" = "$before" ] || { echo "$me: PostgreSQL and Tributary answer differently:"; diff <(echo "$before") <(echo "$before_pg"); exit 1; } >&2
pg_bytes=$(psql "${p[@]}" -X -A -t -c "SELECT pg_database_size('postgres')")
as_postgres "$pg_bin/pg_ctl" -D "$work/pgdata" -m immediate -w stop >/dev/null   # SIGQUIT: no checkpoint, crash recovery at start
start=$(now)
as_postgres "$pg_bin/pg_ctl" -D "$work/pgdata" -l "$work/postgres.log" -w -t 300 \
  -o "-p $pg_port -c listen_addresses=127.0.0.1 -c unix_socket_directories=$work" start >/dev/null
listening=$(now)
after_pg="$(answers "${p[@]}")"
answered=$(now)
[ "$before_pg" = "$after_pg" ] || { echo "$me: PostgreSQL's answers after the restart differ" >&2; exit 1; }
echo "$me: postgres: listening $(secs "$start" "$listening") s after the start, every answer right $(secs "$start" "$answered") s after it; database $pg_bytes bytes" >&2

echo
echo "| $rows orders, 100,000 customers, 5 objects | tributary | postgres |"
echo "|---|---:|---:|"
echo "| accepting connections after the start, s | $trib_listen | $(secs "$start" "$listening") |"
echo "| every object's answer right after the start, s | $trib_answer | $(secs "$start" "$answered") |"
echo "| the five answers on the running server before the kill, s | $trib_warm | $pg_warm |"
echo "| bytes on disk | $bytes (of which paging's spill $spill_bytes) | $pg_bytes |"
