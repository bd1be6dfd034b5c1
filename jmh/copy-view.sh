#!/usr/bin/env bash
# COPY into a table with a dependent view, as a user with psql does it: three times in a row, a
# fresh table with a primary key and a per-customer view over it, then \copy of a 1M-row orders CSV;
# prints when the COPY returned and when the view showed every row.
#
#   jmh/copy-view.sh [PORT] [CSV]     (default 5488 and /tmp/orders.csv; the CSV is made if missing)
#
# Against a running server: TRIBUTARY_JAVA_OPTS=-Xmx8g bin/tributary serve --port 5488
set -euo pipefail
port="${1:-5488}"
csv="${2:-/tmp/orders.csv}"
rows=1000000
if [ ! -f "$csv" ]; then
  # id, customer (1..100000), product (1..10000), qty (1..10), placed: the side-by-side workload's shape
  awk -v n="$rows" 'BEGIN { srand(42); for (i = 1; i <= n; i++)
      printf "%d,%d,%d,%d,2025-01-01 00:00:00+00\n", i, 1 + int(rand() * 100000), 1 + int(rand() * 10000), 1 + int(rand() * 10) }' > "$csv"
fi
P=(psql -h 127.0.0.1 -p "$port" -U tributary -d tributary -X -q -t -A -v ON_ERROR_STOP=1)
suffix="$(date +%s)"
for r in 1 2 3; do
  t="copy_t${suffix}_$r"
  "${P[@]}" -c "CREATE TABLE $t (id bigint PRIMARY KEY, customer_id int, product_id int, qty int, placed timestamptz)" \
    -c "CREATE MATERIALIZED VIEW ${t}_v AS SELECT customer_id, count(*) AS n, sum(qty) AS q FROM $t GROUP BY customer_id"
  start=$(date +%s.%N)
  "${P[@]}" -c "\\copy $t FROM '$csv' WITH (FORMAT csv)"
  copied=$(date +%s.%N)
  until [ "$("${P[@]}" -c "SELECT sum(n) FROM ${t}_v")" = "$rows" ]; do sleep 0.02; done
  visible=$(date +%s.%N)
  echo "round $r: COPY returned after $(echo "$copied - $start" | bc) s; the view shows every row after $(echo "$visible - $start" | bc) s"
done
