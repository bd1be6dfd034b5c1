package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.sql.SqlException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tributary_internal.objects}, a maintained relation: its rows follow the catalog (a new
 * table's row appears, a dropped one's is retracted), its frontiers move with the clock, an object
 * being built is not hydrated until it is, and a SUBSCRIBE, a view and a materialized view over it
 * read it as they read a table. The samples are taken by hand ({@link Coordinator#sampleIntrospection})
 * or by ADVANCE CLOCK, so every step is deterministic.
 */
class IntrospectionObjectsTest {
    private static List<List<String>> rows(Tributary db, String sql) {
        return db.query(sql).text();
    }

    private static final String LISTED = "SELECT schema, name, kind FROM tributary_internal.objects WHERE kind <> 'subscription' ORDER BY id";

    @Test
    void rowsFollowTheCatalog() {
        try (Tributary db = Tributary.inMemory(Clock.manual(1_000), 2)) {
            db.coordinator().sampleIntrospection();
            assertThat(rows(db, LISTED)).isEmpty();
            db.execute("CREATE TABLE t (id int PRIMARY KEY, x int)");
            db.execute("CREATE VIEW v AS SELECT x FROM t");
            db.execute("CREATE MATERIALIZED VIEW m AS SELECT count(*) AS n FROM t");
            db.execute("CREATE SCHEMA s");
            db.execute("CREATE INDEX by_x ON t (x)");
            db.execute("CREATE TABLE s.u (a text)");
            // nothing shows before the next sample: the relation is what was sampled
            assertThat(rows(db, LISTED)).isEmpty();
            db.coordinator().sampleIntrospection();
            assertThat(rows(db, LISTED)).containsExactly(
                    List.of("public", "t", "table"), List.of("public", "t_pkey", "index"), List.of("public", "v", "view"),
                    List.of("public", "m", "materialized view"), List.of("public", "by_x", "index"), List.of("s", "u", "table"));
            // a view has no frontiers of its own; what is stored has, and is hydrated
            assertThat(rows(db, "SELECT name, since IS NULL, upper IS NULL, lag_ms IS NULL, hydrated FROM tributary_internal.objects WHERE name IN ('v', 'm') ORDER BY name"))
                    .containsExactly(List.of("m", "f", "f", "f", "t"), java.util.Arrays.asList("v", "t", "t", "t", null));
            db.execute("DROP MATERIALIZED VIEW m");
            db.execute("DROP TABLE s.u");
            db.coordinator().sampleIntrospection();
            assertThat(rows(db, LISTED)).containsExactly(
                    List.of("public", "t", "table"), List.of("public", "t_pkey", "index"), List.of("public", "v", "view"), List.of("public", "by_x", "index"));
            // the id is pg_class's oid (which lists no primary key index yet)
            assertThat(rows(db, "SELECT count(*) FROM tributary_internal.objects o JOIN pg_class c ON c.oid = o.id AND c.relname = o.name"))
                    .containsExactly(List.of("3"));
        }
    }

    @Test
    void frontiersMoveWithTheClock() {
        try (Tributary db = Tributary.inMemory(Clock.manual(1_000), 1)) {
            db.execute("CREATE TABLE t (x int)");
            db.execute("CREATE MATERIALIZED VIEW m AS SELECT sum(x) AS s FROM t");
            // ADVANCE CLOCK samples at its new time, before its tick moves the inputs there: the
            // sample shows where everything was when the clock reached 5 s, 4 s behind
            db.execute("ADVANCE CLOCK TO 5000");
            assertThat(rows(db, "SELECT name, upper, lag_ms FROM tributary_internal.objects ORDER BY id"))
                    .containsExactly(List.of("t", "1970-01-01 00:00:01.001+00", "4000"), List.of("m", "1970-01-01 00:00:01.001+00", "4000"));
            db.execute("ADVANCE CLOCK TO 5500");
            assertThat(rows(db, "SELECT name, upper, lag_ms, hydrated FROM tributary_internal.objects ORDER BY id"))
                    .containsExactly(List.of("t", "1970-01-01 00:00:05.001+00", "500", "t"), List.of("m", "1970-01-01 00:00:05.001+00", "500", "t"));
            // sampled by hand after the tick: nothing lags
            db.coordinator().sampleIntrospection();
            assertThat(rows(db, "SELECT name, upper, lag_ms FROM tributary_internal.objects ORDER BY id"))
                    .containsExactly(List.of("t", "1970-01-01 00:00:05.501+00", "0"), List.of("m", "1970-01-01 00:00:05.501+00", "0"));
            assertThat(rows(db, "SELECT bool_and(since <= upper) FROM tributary_internal.objects")).containsExactly(List.of("t"));
        }
    }

    @Test
    void anObjectBeingBuiltIsNotHydrated() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0), 2)) {
            db.execute("CREATE TABLE t (id int PRIMARY KEY, g int)");
            db.execute("INSERT INTO t SELECT i, i % 100 FROM generate_series(1, 200000) AS s(i)");
            db.coordinator().ddl().progressNoticeNanos = 0;
            Tributary.Connection s = db.session();
            Tributary.Connection other = db.session();
            List<List<String>> during = new ArrayList<>();
            s.onNotice(n -> {
                // the CREATE waits with the coordinator free: sample and look meanwhile
                if (!during.isEmpty()) return;
                db.coordinator().sampleIntrospection();
                during.addAll(other.execute("SELECT name, hydrated, upper IS NULL, lag_ms IS NULL FROM tributary_internal.objects WHERE name = 'sums'").get(0).text());
            });
            s.execute("CREATE MATERIALIZED VIEW sums AS SELECT g, count(*) FROM t GROUP BY g");
            // no time complete yet: no upper and no lag (not one behind the epoch)
            assertThat(during).containsExactly(List.of("sums", "f", "t", "t"));
            db.coordinator().sampleIntrospection();
            assertThat(rows(db, "SELECT name, hydrated, upper IS NULL, lag_ms < 60000 FROM tributary_internal.objects WHERE name = 'sums'"))
                    .containsExactly(List.of("sums", "t", "f", "t"));
        }
    }

    /** Collects a subscription's data rows (change_diff and the columns), as text. */
    private static final class Changes implements Subscription.Listener {
        final LinkedBlockingQueue<List<String>> rows = new LinkedBlockingQueue<>();

        @Override
        public void onChanges(Result batch) {
            for (List<String> r : batch.text()) rows.add(r.subList(1, r.size()));
        }

        List<String> next() throws InterruptedException {
            List<String> r = rows.poll(20, TimeUnit.SECONDS);
            assertThat(r).as("waiting for a change").isNotNull();
            return r;
        }
    }

    @Test
    void aSubscriptionSeesTablesAppearAndGo() throws Exception {
        try (Tributary db = Tributary.inMemory(Clock.manual(1_000), 2)) {
            db.execute("CREATE TABLE a (x int)");
            db.coordinator().sampleIntrospection();
            Changes changes = new Changes();
            try (Subscription sub = db.subscribe("SUBSCRIBE (SELECT name, kind FROM tributary_internal.objects WHERE kind = 'table')", changes)) {
                assertThat(changes.next()).containsExactly("1", "a", "table");
                db.execute("CREATE TABLE b (x int)");
                db.coordinator().sampleIntrospection();
                assertThat(changes.next()).containsExactly("1", "b", "table");
                db.execute("DROP TABLE a");
                db.coordinator().sampleIntrospection();
                assertThat(changes.next()).containsExactly("-1", "a", "table");
                // the subscription itself is an object too, with its own progress
                assertThat(rows(db, "SELECT count(*) FROM tributary_internal.objects WHERE kind = 'subscription' AND upper IS NOT NULL"))
                        .containsExactly(List.of("1"));
            }
        }
    }

    @Test
    void viewsAndMaterializedViewsOverItStayRight() {
        try (Tributary db = Tributary.inMemory(Clock.manual(1_000), 2)) {
            db.execute("CREATE VIEW kinds AS SELECT kind, count(*) AS n FROM tributary_internal.objects GROUP BY kind");
            db.execute("CREATE MATERIALIZED VIEW kinds_m AS SELECT kind, count(*) AS n FROM tributary_internal.objects GROUP BY kind");
            db.execute("CREATE INDEX kinds_by_kind ON kinds_m (kind)");
            String direct = "SELECT kind, count(*) AS n FROM tributary_internal.objects GROUP BY kind ORDER BY kind";
            for (int round = 0; round < 4; round++) {
                db.execute("CREATE TABLE t" + round + " (x int)");
                if (round % 2 == 1) db.execute("DROP TABLE t" + (round - 1));
                db.execute("ADVANCE CLOCK BY INTERVAL '1 second'");
                List<List<String>> expected = rows(db, direct);
                assertThat(rows(db, "SELECT * FROM kinds_m ORDER BY kind")).isEqualTo(expected);
                assertThat(rows(db, "SELECT * FROM kinds ORDER BY kind")).isEqualTo(expected);
            }
            assertThat(rows(db, "SELECT n FROM kinds_m WHERE kind = 'table'")).containsExactly(List.of("2"));
        }
    }

    @Test
    void theRelationsAreReadOnly() {
        try (Tributary db = Tributary.inMemory(Clock.manual(1_000), 1)) {
            assertThatThrownBy(() -> db.execute("INSERT INTO tributary_internal.objects (name) VALUES ('x')"))
                    .isInstanceOfSatisfying(SqlException.class, e -> assertThat(e.sqlState()).isEqualTo("55000"));
            assertThatThrownBy(() -> db.execute("DELETE FROM tributary_internal.statement_log"))
                    .isInstanceOfSatisfying(SqlException.class, e -> assertThat(e.sqlState()).isEqualTo("55000"));
            assertThatThrownBy(() -> db.execute("DROP TABLE tributary_internal.streams"))
                    .isInstanceOfSatisfying(SqlException.class, e -> assertThat(e.sqlState()).isEqualTo("0A000"));
            assertThatThrownBy(() -> db.execute("CREATE INDEX o ON tributary_internal.objects (name)"))
                    .isInstanceOfSatisfying(SqlException.class, e -> {
                        assertThat(e.sqlState()).isEqualTo("0A000");
                        assertThat(e.getMessage()).isEqualTo("cannot create an index on \"objects\": it is a system relation, maintained by the server");
                    });
        }
    }

    @Test
    void turnedOffTheRelationsAreEmpty() {
        try (Tributary db = Tributary.inMemory(Clock.manual(1_000), 1)) {
            db.execute("CREATE TABLE t (x int)");
            db.coordinator().sampleIntrospection();
            assertThat(rows(db, "SELECT count(*) FROM tributary_internal.objects")).containsExactly(List.of("1"));
            db.coordinator().introspectionInterval(0);
            assertThat(rows(db, "SELECT count(*) FROM tributary_internal.objects")).containsExactly(List.of("0"));
            db.execute("ADVANCE CLOCK BY INTERVAL '1 second'");
            assertThat(rows(db, "SELECT count(*) FROM tributary_internal.objects")).containsExactly(List.of("0"));
            db.coordinator().introspectionInterval(1_000);
            db.execute("ADVANCE CLOCK BY INTERVAL '1 second'");
            assertThat(rows(db, "SELECT count(*) FROM tributary_internal.objects")).containsExactly(List.of("1"));
        }
    }

    @Test
    void aMaterializedViewOverItIsMadeAgainAfterARestart(@TempDir Path dir) {
        try (Tributary db = Tributary.open(dir, Clock.manual(1_000), 1)) {
            db.execute("CREATE TABLE t (x int)");
            db.execute("CREATE MATERIALIZED VIEW tables AS SELECT name FROM tributary_internal.objects WHERE kind = 'table'");
            db.execute("ADVANCE CLOCK BY INTERVAL '1 second'");
            assertThat(rows(db, "SELECT name FROM tables ORDER BY name")).containsExactly(List.of("t"));
            db.execute("CHECKPOINT");
        }
        try (Tributary db = Tributary.open(dir, Clock.manual(2_000), 1)) {
            // empty until the first sample after the restart, then right again
            assertThat(rows(db, "SELECT count(*) FROM tables")).containsExactly(List.of("0"));
            db.execute("ADVANCE CLOCK BY INTERVAL '1 second'");
            assertThat(rows(db, "SELECT name FROM tables")).containsExactly(List.of("t"));
        }
    }
}
