#!/usr/bin/env bash
# Which part of a mixed load an abusive statement hurts (issue 25): one Tributary server with a
# 1M-row orders table and the view per_customer (indexed), then for each MIX given, pgbench -M
# prepared for 5 s alone and 5 s beside one runaway statement (count(*) of a cross product of
# generate_series, ended by statement_timeout 7 s), printing the average latency of each script.
#
#   jmh/abuse-mixes.sh [CLIENTS:SCRIPTS ...]      e.g. 4:insert,view 50:select,insert,view (the default)
#
# Scripts (jmh/side-by-side.sh's mixed_load_scripts): select (point select by primary key),
# insert (single-row INSERT), view (point read of per_customer). Needs psql and pgbench; the server comes from bin/tributary (built if needed),
# with $TRIBUTARY_JAVA_OPTS (default -Xmx2g) and port $PORT (default 15700).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
port="${PORT:-15700}"
mixes=("$@")
[ ${#mixes[@]} -gt 0 ] || mixes=(4:insert,view 50:select,insert,view)
work="$(mktemp -d)"
server=""
cleanup() {
  [ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

# shellcheck source=jmh/side-by-side.sh
. "$root/jmh/side-by-side.sh"
mixed_load_scripts "$work" 1000000

TRIBUTARY_JAVA_OPTS="${TRIBUTARY_JAVA_OPTS:--Xmx2g}" "$root/bin/tributary" serve --port "$port" --in-memory --max-connections 260 >"$work/server.log" 2>&1 &
server=$!
for _ in $(seq 1 300); do grep -q "listening on" "$work/server.log" && break; sleep 1; done
grep -q "listening on" "$work/server.log" || { echo "abuse-mixes: the server did not start:" >&2; cat "$work/server.log" >&2; exit 1; }
psql_() { psql -X -q -h 127.0.0.1 -p "$port" -U tributary -d tributary "$@"; }
psql_ -c "SET client_min_messages = warning" -c "CREATE TABLE orders (id bigint PRIMARY KEY, customer_id int, qty int)" \
  -c "INSERT INTO orders SELECT i, i % 100000, i % 10 FROM generate_series(1, 1000000) AS s(i)" \
  -c "CREATE MATERIALIZED VIEW per_customer AS SELECT customer_id, count(*), sum(qty) FROM orders GROUP BY customer_id" \
  -c "CREATE INDEX per_customer_customer_id ON per_customer (customer_id)" >/dev/null
bench() { (cd "$work" && pgbench -n -h 127.0.0.1 -p "$port" -U tributary -M prepared -j 2 "$@" tributary 2>&1); }
bench -c 8 -T 5 -f select.sql@1 -f insert.sql@1 -f view.sql@1 >/dev/null # warm-up
for mix in "${mixes[@]}"; do
  clients="${mix%%:*}"
  scripts=()
  IFS=, read -r -a names <<<"${mix#*:}"
  for s in "${names[@]}"; do scripts+=(-f "$s.sql@1"); done
  for mode in alone beside; do
    runaway=""
    if [ "$mode" = beside ]; then
      PGOPTIONS="-c statement_timeout=7s" psql_ -c "SELECT count(*) FROM generate_series(1,10000000) a, generate_series(1,1000) b" >/dev/null 2>&1 &
      runaway=$!
      sleep 0.3
    fi
    out="$(bench -c "$clients" -T 5 "${scripts[@]}")"
    tps="$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' <<<"$out" | head -n1)"
    lat="$(grep -E '^ - latency average' <<<"$out" | awk '{print $5}' | paste -sd/ -)"
    printf '%-16s %-7s tps %9.0f   latency (ms) per script %s: %s\n' "$mix" "$mode" "$tps" "${mix#*:}" "$lat"
    [ -n "$runaway" ] && wait "$runaway" || true
  done
done
