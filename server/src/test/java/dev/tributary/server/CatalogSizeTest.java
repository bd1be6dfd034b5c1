package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A statement's work does not grow with the objects in the catalog (issue 23: with 200 views,
 * SELECT 1 took 160 ms). Work is counted by what moves, not timed: a constant query goes to no
 * worker, and a write or read of one table moves no dataflow that does not read it, while the
 * views over a written table are complete at the write's time as soon as it commits.
 */
class CatalogSizeTest {
    @Test
    void statementsMoveOnlyTheDataflowsOverWhatTheyTouch() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0), 2)) {
            Coordinator c = db.coordinator();
            db.execute("CREATE TABLE a (x int, y int)");
            db.execute("CREATE TABLE b (x int, w int)");
            db.execute("CREATE TABLE other (x int PRIMARY KEY)");
            db.execute("INSERT INTO a SELECT g, g % 7 FROM generate_series(1, 40) g");
            db.execute("INSERT INTO b SELECT g, g % 5 FROM generate_series(1, 40) g");
            for (int i = 0; i < 20; i++) {
                db.execute("CREATE MATERIALIZED VIEW v" + i + " AS SELECT a.y, count(*), sum(b.w + " + i + ") AS s FROM a JOIN b ON a.x = b.x WHERE a.x > "
                        + (i % 10) + " GROUP BY a.y");
            }
            long viewUpper = c.upperOf("v7");

            long local = c.reads().answeredLocally;
            assertThat(db.query("SELECT 1, version() IS NOT NULL").text()).containsExactly(List.of("1", "t"));
            assertThat(c.reads().answeredLocally - local).as("SELECT 1 goes to no worker").isEqualTo(1);

            for (int i = 1; i <= 5; i++) {
                db.execute("INSERT INTO other VALUES (" + i + ")");
                assertThat(db.query("SELECT count(*) FROM other").text()).containsExactly(List.of(String.valueOf(i)));
                db.query("SELECT 1");
            }
            // a read of v7 waits for v7 to be complete at its read time: had the writes moved a
            // and b, it would read (and wait) past them
            assertThat(db.query("SELECT s FROM v7 WHERE y = 0").text()).containsExactly(List.of("36"));
            assertThat(c.upperOf("other")).as("the written table moved").isGreaterThan(viewUpper);
            assertThat(c.upperOf("v7")).as("writes and reads elsewhere leave the views over a and b where they were").isEqualTo(viewUpper);

            db.execute("INSERT INTO a VALUES (41, 0)");
            db.execute("INSERT INTO b VALUES (41, 3)");
            assertThat(db.query("SELECT s FROM v7 WHERE y = 0").text()).containsExactly(List.of("46"));
            long written = c.upperOf("v7");
            assertThat(written).isGreaterThan(viewUpper);
            for (int i = 0; i < 20; i++) {
                db.query("SELECT count(*) FROM v" + i);
                assertThat(c.upperOf("v" + i)).as("a write moves a view's tables together: reading it moves nothing more").isEqualTo(written);
            }
        }
    }
}
