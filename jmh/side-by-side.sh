# Sourced (not run) by the side-by-side scripts (pgbench-compare.sh, realistic-compare.sh): what
# they share to run Tributary's server and a throw-away PostgreSQL cluster on this machine.
#
# The sourcing script sets: me (its name, for messages), root, pg_bin, pg_port, jar, jfr (a JFR
# file for Tributary's server, or empty). Then: java="$(pick_java)"; side_by_side_prepare (checks
# the PostgreSQL binaries, builds the jar when older than the sources, makes $work and installs a
# trap that stops both servers and removes $work, printing their logs' tails on failure);
# start_postgres "EXTRA -c OPTIONS"; start_tributary DEFAULT_JAVA_OPTS (sets tributary_pid,
# tributary_port and server_opts; $TRIBUTARY_JAVA_OPTS replaces the default).

# A JDK >= 21 (the build's own is 25): $JAVA, $JAVA_HOME, then the newest under /usr/lib/jvm.
pick_java() {
  local c v best="" best_v=0
  for c in ${JAVA:+"$JAVA"} ${JAVA_HOME:+"$JAVA_HOME/bin/java"} /usr/lib/jvm/*/bin/java; do
    [ -x "$c" ] || continue
    v="$("$c" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.specification\.version = \([0-9]*\).*/\1/p' | head -n1)"
    if [ -n "$v" ] && [ "$v" -ge 21 ] && [ "$v" -gt "$best_v" ]; then best="$c"; best_v="$v"; fi
  done
  [ -n "$best" ] || { echo "$me: no JDK 21 or newer found (set JAVA)" >&2; exit 1; }
  echo "$best"
}

side_by_side_prepare() {
  if [ ! -x "$pg_bin/postgres" ]; then
    echo "$me: no PostgreSQL server binaries in $pg_bin (Debian: apt-get install postgresql-15; or set PG_BIN)" >&2
    exit 1
  fi
  if [ ! -f "$jar" ] || [ -n "$(find "$root"/*/src/main "$root"/pom.xml "$root"/*/pom.xml -newer "$jar" -print -quit)" ]; then
    echo "$me: building jmh/target/benchmarks.jar..." >&2
    # shellcheck disable=SC2086
    (cd "$root" && mvn -q -B -Dstyle.color=never ${MVN_FLAGS:-} -pl jmh -am package -DskipTests) >&2
  fi
  work="$(mktemp -d "${TMPDIR:-/tmp}/$me.XXXXXX")"
  tributary_pid=""
  pg_started=""
  if [ "$(id -u)" = 0 ]; then
    chown postgres "$work"
    as_postgres() { runuser -u postgres -- "$@"; }
  else
    as_postgres() { "$@"; }
  fi
  trap side_by_side_cleanup EXIT
  trap 'exit 130' INT TERM
}

side_by_side_cleanup() {
  local rc=$?
  if [ -n "$tributary_pid" ]; then
    kill "$tributary_pid" 2>/dev/null || true
    wait "$tributary_pid" 2>/dev/null || true
  fi
  if [ -n "$pg_started" ]; then
    as_postgres "$pg_bin/pg_ctl" -D "$work/pgdata" -m fast -w stop >/dev/null 2>&1 || true
  fi
  if [ $rc -ne 0 ]; then
    for log in "$work/postgres.log" "$work/tributary.log"; do
      [ -s "$log" ] && { echo "--- $log (last lines)" >&2; tail -n 20 "$log" >&2; }
    done
  fi
  rm -rf "$work"
  exit $rc
}

# start_postgres "EXTRA": initdb into $work and start on 127.0.0.1:$pg_port, with -c options EXTRA.
start_postgres() {
  echo "$me: starting PostgreSQL ($("$pg_bin/postgres" --version)) on 127.0.0.1:$pg_port" >&2
  as_postgres "$pg_bin/initdb" -D "$work/pgdata" -U postgres --auth=trust -E UTF8 --locale=C >"$work/initdb.log" 2>&1 \
    || { cat "$work/initdb.log" >&2; exit 1; }
  pg_started=yes
  as_postgres "$pg_bin/pg_ctl" -D "$work/pgdata" -l "$work/postgres.log" -w -t 60 \
    -o "-p $pg_port -c listen_addresses=127.0.0.1 -c unix_socket_directories=$work $1" start >/dev/null
}

# start_tributary DEFAULT_JAVA_OPTS [SERVE_ARGS...]: Tributary's server from $jar on a free port, waited for;
# durable in $work/tributary-data unless SERVE_ARGS say otherwise (--in-memory).
start_tributary() {
  local serve_args=("${@:2}")
  [ ${#serve_args[@]} -gt 0 ] || serve_args=(--data "$work/tributary-data")
  server_opts=(--add-exports java.base/jdk.internal.misc=ALL-UNNAMED)
  [ -n "$jfr" ] && server_opts+=("-XX:StartFlightRecording=filename=$jfr,settings=profile,dumponexit=true")
  # the options bin/tributary starts a server with, then the script's or the user's
  while read -r line || [ -n "$line" ]; do
    case "$line" in ''|'#'*) ;; *) server_opts+=("$line") ;; esac
  done <"$root/bin/jvm.options"
  # shellcheck disable=SC2206
  server_opts+=(${TRIBUTARY_JAVA_OPTS:-$1})
  "$java" "${server_opts[@]}" -cp "$jar" dev.tributary.server.pgwire.PgServer --port 0 "${serve_args[@]}" >"$work/tributary.log" 2>&1 &
  tributary_pid=$!
  tributary_port=""
  for _ in $(seq 1 300); do
    tributary_port="$(sed -n 's/.* LOG:  listening on [^ ]*:\([0-9]*\) .*/\1/p' "$work/tributary.log" | head -n1)"
    [ -n "$tributary_port" ] && break
    kill -0 "$tributary_pid" 2>/dev/null || { echo "$me: tributary serve exited" >&2; exit 1; }
    sleep 0.2
  done
  [ -n "$tributary_port" ] || { echo "$me: tributary serve did not start listening within 60 s" >&2; exit 1; }
  echo "$me: tributary serve on 127.0.0.1:$tributary_port (pid $tributary_pid, $("$java" -version 2>&1 | head -n1), ${server_opts[*]}, ${serve_args[*]})" >&2
}

# mixed_load_scripts DIR ROWS: the mixed load's pgbench scripts in DIR (select.sql, a point
# select by primary key on orders of ROWS rows; insert.sql, a single-row INSERT into orders;
# view.sql, a point read of per_customer), shared by abuse-compare.sh and abuse-mixes.sh
mixed_load_scripts() {
  cat >"$1/select.sql" <<SQL
\set id random(1, $2)
SELECT qty FROM orders WHERE id = :id;
SQL
  # keys far above the loaded ones, drawn from 2^63: a repeat, which would fail the client, is unlikely
  cat >"$1/insert.sql" <<'SQL'
\set id random(1000000000000, 9000000000000000000)
\set c random(0, 99999)
INSERT INTO orders VALUES (:id, :c, 1);
SQL
  cat >"$1/view.sql" <<'SQL'
\set c random(0, 99999)
SELECT * FROM per_customer WHERE customer_id = :c;
SQL
}
