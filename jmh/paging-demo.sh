#!/usr/bin/env bash
# State larger than the heap (issue 24): a server with a 1 GB heap keeps a join + GROUP BY
# materialized view over ORDERS orders (each ~NOTE bytes of note) and 1M customers, loaded with
# COPY in chunks of 100,000 rows; the view is checked against a model after the load, after updates
# and deletes, and after a kill -9 and a restart from the checkpoint taken after the changes.
# Prints the arrangements' sizes (paged and on the heap) and the heap after a full GC.
#
#   jmh/paging-demo.sh [ORDERS (default 15000000)] [NOTE (default 200)]
#
# Environment: JAVA (a JDK >= 21), HEAP (default 1g), PORT (default 55441), DATA (default a new
# temporary directory, removed at the end).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
orders="${1:-15000000}"
note="${2:-200}"
heap="${HEAP:-1g}"
port="${PORT:-55441}"
java="${JAVA:-/usr/lib/jvm/temurin-25-jdk-amd64/bin/java}"
data="${DATA:-$(mktemp -d /tmp/paging-demo.XXXXXX)}"
python="$(command -v /usr/bin/python3 || command -v python3)"
"$python" -c 'import psycopg2' 2>/dev/null || { echo "paging-demo: python3 with psycopg2 is needed (apt-get install python3-psycopg2)" >&2; exit 1; }
[ -f "$root/server/target/classpath.txt" ] || (cd "$root" && mvn ${MVN_FLAGS:-} -q install -DskipTests)
cp="$root/server/target/classes:$(cat "$root/server/target/classpath.txt")"
pid=""
start() {
  setsid "$java" -Xmx"$heap" --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -cp "$cp" \
    dev.tributary.server.pgwire.PgServer --port "$port" --data "$data" > "$data.log" 2>&1 &
  pid=$!
  for _ in $(seq 1 300); do grep -q listening "$data.log" && return; sleep 1; done
  echo "paging-demo: the server did not start:" >&2; cat "$data.log" >&2; exit 1
}
stop() { [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null; pid=""; }
trap 'stop; [ -z "${DATA:-}" ] && rm -rf "$data" "$data.log"' EXIT
sizes() {
  psql -h 127.0.0.1 -p "$port" -U tributary -d tributary -c \
    "SELECT name, part, records, bytes / 1000000 AS heap_mb, paged_bytes / 1000000 AS paged_mb FROM tributary_internal.arrangement_sizes WHERE records > 0 ORDER BY paged_bytes DESC" \
    -c "SELECT sum(records) AS records, sum(bytes) / 1000000 AS heap_mb, sum(paged_bytes) / 1000000 AS paged_mb FROM tributary_internal.arrangement_sizes"
  "$(dirname "$java")/jcmd" "$pid" GC.run > /dev/null && "$(dirname "$java")/jcmd" "$pid" GC.heap_info | head -2
}
start
echo "== load ($orders orders, ${note}-byte notes, heap $heap)"
"$python" "$root/jmh/paging-demo.py" "$port" 1000000 "$orders" 100000 "$note" load | grep -v '^  orders [0-9]*[1-9]00000:'
sizes
stop
echo "== kill -9, restart"
t0=$(date +%s.%N)
start
echo "recovered in $(echo "$(date +%s.%N) - $t0" | bc) s"
"$python" "$root/jmh/paging-demo.py" "$port" 1000000 "$orders" 100000 "$note" restart
sizes
