#!/usr/bin/env bash
# Point selects by key through JDBC prepared statements: Tributary's server against a
# PostgreSQL 15 server on this machine, side by side, by the same client (PointSelectHarness).
#
#   jmh/pgbench-compare.sh [--jfr FILE] [--connections 1,4,16] [--warmup 5] [--seconds 10]
#                          [--rows 100000] [--seed 7] [--relation kv_view|kv]
#
# Builds jmh/target/benchmarks.jar when it is missing or older than the sources, starts a
# throw-away PostgreSQL cluster (initdb into a temporary directory, run as user postgres when
# started as root, loopback port $PG_PORT, default 15450, default settings) and Tributary's server
# (`tributary serve` from the same jar, on a free port), loads both, runs the harness and prints
# a table. Both servers are stopped and the directory removed at the end, also on failure.
# --jfr FILE records a JFR profile (settings=profile) of Tributary's server into FILE.
# Environment: PG_BIN (default /usr/lib/postgresql/15/bin), PG_PORT, JAVA (a JDK >= 21 java),
# TRIBUTARY_JAVA_OPTS (extra server JVM options), MVN_FLAGS (e.g. -o).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
pg_bin="${PG_BIN:-/usr/lib/postgresql/15/bin}"
pg_port="${PG_PORT:-15450}"
jar="$root/jmh/target/benchmarks.jar"

jfr=""
harness_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --jfr) [ $# -ge 2 ] || { echo "pgbench-compare: --jfr needs a file" >&2; exit 2; }; jfr="$(realpath -m "$2")"; shift 2 ;;
    *) harness_args+=("$1"); shift ;;
  esac
done

me=pgbench-compare
# shellcheck source=jmh/side-by-side.sh
. "$root/jmh/side-by-side.sh"
java="$(pick_java)"
side_by_side_prepare
start_postgres ""
start_tributary ""

"$java" -cp "$jar" dev.tributary.bench.PointSelectHarness \
  --target "tributary=jdbc:postgresql://127.0.0.1:$tributary_port/tributary?user=tributary" \
  --target "postgres=jdbc:postgresql://127.0.0.1:$pg_port/postgres?user=postgres" \
  ${harness_args[@]+"${harness_args[@]}"}
