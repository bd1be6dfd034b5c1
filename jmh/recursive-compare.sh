#!/usr/bin/env bash
# A maintained reachability view against recomputing it (ReachabilityCompare): Tributary
# (embedded) maintains WITH RECURSIVE reachability over a random graph as a materialized view and
# applies one-edge changes, timed until the view shows each; DuckDB (in-process) and a PostgreSQL
# 15 server on this machine recompute the same WITH RECURSIVE query over the same edges. All three
# must count the same reachable nodes.
#
#   jmh/recursive-compare.sh [--edges 1000000] [--nodes 250000] [--changes 50] [--repeat 3]
#                            [--workers 2] [--seed 1] [--jfr FILE]
#
# Builds jmh/target/benchmarks.jar when it is missing or older than the sources and starts a
# throw-away PostgreSQL cluster (loopback port $PG_PORT, default 15452, shared_buffers=1GB,
# work_mem=256MB), stopped and removed at the end, also on failure. --jfr FILE records a JFR
# profile of Tributary's changes alone. Environment: PG_BIN (default /usr/lib/postgresql/15/bin),
# PG_PORT, JAVA (a JDK >= 21 java), MVN_FLAGS (e.g. -o), TRIBUTARY_JAVA_OPTS (default -Xmx8g).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
pg_bin="${PG_BIN:-/usr/lib/postgresql/15/bin}"
pg_port="${PG_PORT:-15452}"
jar="$root/jmh/target/benchmarks.jar"
jfr=""
me=recursive-compare
# shellcheck source=jmh/side-by-side.sh
. "$root/jmh/side-by-side.sh"
java="$(pick_java)"
side_by_side_prepare
start_postgres "-c shared_buffers=1GB -c work_mem=256MB -c fsync=off -c synchronous_commit=off"
# shellcheck disable=SC2086
"$java" --enable-native-access=ALL-UNNAMED --add-exports java.base/jdk.internal.misc=ALL-UNNAMED ${TRIBUTARY_JAVA_OPTS:--Xmx8g} \
  -cp "$jar" dev.tributary.bench.ReachabilityCompare --pg "jdbc:postgresql://127.0.0.1:$pg_port/postgres?user=postgres" "$@"
