package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.sql.SqlException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * CREATE MATERIALIZED VIEW and CREATE INDEX over existing rows return once the object is built,
 * as in PostgreSQL; meanwhile they report how much of their input they have read, in NOTICEs and
 * in {@code tributary_internal.hydration_progress}; a cancel or {@code statement_timeout} stops
 * them and leaves nothing behind.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class HydrationTest {
    private static final Pattern READ = Pattern.compile("building (materialized view|index) \"(\\w+)\": (\\d+) of (\\d+) rows read \\(\\d+%\\), \\d+\\.\\d s");
    private static final Pattern COMPUTING = Pattern.compile("building (materialized view|index) \"(\\w+)\": all (\\d+) rows read, computing, \\d+\\.\\d s");

    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void createReturnsOnceBuiltAndReportsProgressOnTheWay(int workers) {
        try (Tributary db = Tributary.inMemory(Clock.manual(0), workers)) {
            db.execute("CREATE TABLE t (id int PRIMARY KEY, g int, x int)");
            db.execute("INSERT INTO t SELECT i, i % 1000, i % 7 FROM generate_series(1, 300000) AS s(i)");
            db.coordinator().ddl().progressNoticeNanos = 0; // a notice at every look, not after a second
            Tributary.Connection s = db.session();
            Tributary.Connection other = db.session();
            List<String> notices = new ArrayList<>();
            List<List<String>> seen = new ArrayList<>();
            s.onNotice(n -> {
                notices.add(n.message());
                // another session reads the progress meanwhile (on this thread: the CREATE holds the coordinator now)
                if (seen.isEmpty()) seen.addAll(other.execute("SELECT kind, name, phase, rows_total FROM tributary_internal.hydration_progress").get(0).text());
            });
            s.execute("CREATE MATERIALIZED VIEW sums AS SELECT g, count(*) AS n, sum(x) AS s FROM t GROUP BY g");
            // built when CREATE returns: read at once, and right
            assertThat(db.execute("SELECT count(*), sum(n), sum(s) FROM sums").get(0).text()).containsExactly(List.of("1000", "300000", "899998"));
            assertProgress(notices, "materialized view", "sums", 300000);
            assertThat(seen).hasSize(1);
            assertThat(seen.get(0).subList(0, 2)).containsExactly("materialized view", "sums");
            assertThat(seen.get(0).get(2)).isIn("reading", "computing");
            assertThat(Long.parseLong(seen.get(0).get(3))).isBetween(1L, 300000L);
            // nothing is listed once the builds are done
            assertThat(other.execute("SELECT count(*) FROM tributary_internal.hydration_progress").get(0).text()).containsExactly(List.of("0"));

            notices.clear();
            seen.clear();
            s.execute("CREATE INDEX by_g ON t (g)");
            assertProgress(notices, "index", "by_g", 300000);
            assertThat(seen).hasSize(1);
            assertThat(seen.get(0).subList(0, 2)).containsExactly("index", "by_g");
            assertThat(db.execute("SELECT count(*) FROM t WHERE g = 7").get(0).text()).containsExactly(List.of("300"));
            // the schema is listed, as pg_catalog and information_schema are
            assertThat(db.execute("SELECT nspname FROM pg_namespace WHERE nspname = 'tributary_internal'").get(0).text())
                    .containsExactly(List.of("tributary_internal"));
        }
    }

    /**
     * The notices name the object and count up to the input's size, never back; the input's size
     * is known as its rows reach the workers (with a write just before, they may still be on the
     * way when the build starts), and once all are read the build says it is computing.
     */
    private static void assertProgress(List<String> notices, String kind, String name, long total) {
        assertThat(notices).isNotEmpty();
        long lastDone = -1;
        long lastTotal = 0;
        boolean sawAll = false;
        for (String n : notices) {
            Matcher r = READ.matcher(n);
            Matcher c = COMPUTING.matcher(n);
            long done;
            long of;
            if (r.matches()) {
                assertThat(r.group(1)).isEqualTo(kind);
                assertThat(r.group(2)).isEqualTo(name);
                done = Long.parseLong(r.group(3));
                of = Long.parseLong(r.group(4));
                assertThat(done).isLessThan(of);
            } else {
                assertThat(c.matches()).as(n).isTrue();
                assertThat(c.group(1)).isEqualTo(kind);
                assertThat(c.group(2)).isEqualTo(name);
                done = of = Long.parseLong(c.group(3));
            }
            assertThat(done).as("%s", notices).isGreaterThanOrEqualTo(lastDone);
            assertThat(of).as("%s", notices).isBetween(Math.max(1, lastTotal), total);
            lastDone = done;
            lastTotal = of;
            sawAll |= of == total;
        }
        assertThat(sawAll).as("the whole input counted: %s", notices).isTrue();
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void aCancelStopsABuildAndLeavesNothingBehind(int workers) {
        try (Tributary db = Tributary.inMemory(Clock.manual(0), workers)) {
            db.execute("CREATE TABLE a (x int)");
            db.execute("INSERT INTO a SELECT * FROM generate_series(1, 3000)");
            db.coordinator().ddl().progressNoticeNanos = 0;
            Tributary.Connection s = db.session();
            Tributary.Connection other = db.session();
            s.onNotice(n -> {
                // made on the view while it is built: goes with it
                if (db.execute("SELECT count(*) FROM pg_views WHERE viewname = 'on_pairs'").get(0).text().equals(List.of(List.of("0")))) {
                    other.execute("CREATE VIEW on_pairs AS SELECT n + 1 AS m FROM pairs");
                }
                s.cancel();
            });
            // nine million pairs: seconds of work
            assertThatThrownBy(() -> s.execute("CREATE MATERIALIZED VIEW pairs AS SELECT a1.x % 7 AS k, count(*) AS n FROM a a1, a a2 WHERE a1.x + a2.x > 0 GROUP BY a1.x % 7"))
                    .isInstanceOf(SqlException.class)
                    .satisfies(e -> assertThat(((SqlException) e).sqlState()).isEqualTo("57014"));
            for (String gone : List.of("pairs", "on_pairs")) {
                assertThatThrownBy(() -> db.execute("SELECT * FROM " + gone)).isInstanceOf(SqlException.class)
                        .satisfies(e -> assertThat(((SqlException) e).sqlState()).isEqualTo("42P01"));
            }
            assertThat(db.execute("SELECT count(*) FROM tributary_internal.hydration_progress").get(0).text()).containsExactly(List.of("0"));
            // the name is free again, and the session goes on
            s.onNotice(n -> {});
            s.execute("CREATE MATERIALIZED VIEW pairs AS SELECT count(*) AS n FROM a");
            assertThat(s.execute("SELECT n FROM pairs").get(0).text()).containsExactly(List.of("3000"));
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void statementTimeoutStopsABuild(int workers) {
        try (Tributary db = Tributary.inMemory(Clock.manual(0), workers)) {
            db.execute("CREATE TABLE a (x int)");
            db.execute("INSERT INTO a SELECT * FROM generate_series(1, 100000)");
            Tributary.Connection s = db.session();
            s.execute("SET statement_timeout = '200ms'");
            // ten billion pairs: hours without the timeout (the JUnit timeout fails the test then)
            assertThatThrownBy(() -> s.execute("CREATE MATERIALIZED VIEW pairs AS SELECT a1.x % 7 AS k, count(*) AS n FROM a a1, a a2 WHERE a1.x + a2.x > 0 GROUP BY a1.x % 7"))
                    .isInstanceOf(SqlException.class)
                    .hasMessage("canceling statement due to statement timeout")
                    .satisfies(e -> assertThat(((SqlException) e).sqlState()).isEqualTo("57014"));
            s.execute("SET statement_timeout = 0");
            assertThatThrownBy(() -> db.execute("SELECT * FROM pairs")).isInstanceOf(SqlException.class)
                    .satisfies(e -> assertThat(((SqlException) e).sqlState()).isEqualTo("42P01"));
            // the workers dropped the build: a quick statement is answered at once
            assertThat(s.execute("SELECT count(*) FROM a").get(0).text()).containsExactly(List.of("100000"));
        }
    }

    /**
     * A table's input is promised complete only as far as its last write or read; an index on a
     * table last written before other tables were must still see its build end (it waited
     * forever on a manual clock, where no tick moves idle tables on).
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void anIndexOnATableNotWrittenLatelyIsBuilt(int workers) {
        try (Tributary db = Tributary.inMemory(Clock.manual(0), workers)) {
            db.execute("CREATE TABLE quiet (k int, v int)");
            db.execute("INSERT INTO quiet SELECT i, i FROM generate_series(1, 100) AS s(i)");
            db.execute("CREATE TABLE busy (k int)");
            for (int i = 0; i < 3; i++) db.execute("INSERT INTO busy VALUES (" + i + ")");
            db.execute("CREATE INDEX quiet_k ON quiet (k)");
            db.execute("CREATE MATERIALIZED VIEW quiet_v AS SELECT k FROM quiet WHERE v > 50");
            db.execute("INSERT INTO busy VALUES (9)");
            db.execute("CREATE INDEX quiet_v_k ON quiet_v (k)");
            assertThat(db.query("SELECT v FROM quiet WHERE k = 7").text()).containsExactly(List.of("7"));
            assertThat(db.query("SELECT count(*) FROM quiet_v WHERE k > 90").text()).containsExactly(List.of("10"));
        }
    }

    /**
     * A table written at many times, then left alone while the clock and other tables move on
     * (its since then runs ahead of its upper): a view built over it reads its rows as of one
     * time, so it is readable at once and its aggregate holds one result per group, not one per
     * time the table was written at.
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void aViewOverATableWrittenAtManyTimesIsBuiltAsOfOneTime(int workers) {
        Clock.Manual clock = (Clock.Manual) Clock.manual(0);
        try (Tributary db = Tributary.inMemory(clock, workers)) {
            db.execute("CREATE TABLE quiet (k int, v int)");
            for (int i = 0; i < 10; i++) {
                db.execute("INSERT INTO quiet SELECT j, j % 7 FROM generate_series(" + (i * 100 + 1) + ", " + (i * 100 + 100) + ") AS s(j)");
            }
            db.execute("CREATE TABLE busy (k int)");
            for (int i = 0; i < 3; i++) {
                db.execute("INSERT INTO busy VALUES (" + i + ")");
                clock.advanceTo(clock.now() + 2_000);
                assertThat(db.query("SELECT count(*) FROM busy").text()).containsExactly(List.of(String.valueOf(i + 1)));
            }
            db.execute("CREATE MATERIALIZED VIEW g AS SELECT k % 10 AS g, count(*) AS n, sum(v) AS s FROM quiet GROUP BY 1");
            assertThat(db.query("SELECT count(*), sum(n), sum(s) FROM g").text()).containsExactly(List.of("10", "1000", "3003"));
            ArrangementSize size = db.arrangementSize("g");
            assertThat(size.parts()).filteredOn(p -> p.name().equals("aggregate")).singleElement()
                    .satisfies(p -> assertThat(p.records()).isEqualTo(10));
        }
    }
}
