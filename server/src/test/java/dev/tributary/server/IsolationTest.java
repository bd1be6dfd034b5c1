package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.sql.SqlException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A query that computes for a long time holds neither the coordinator nor the workers: other
 * sessions' writes, reads and DDL run meanwhile and see their own results, and the long query
 * still answers exactly or stops when cancelled. Before, every statement waited for it (issue 23:
 * a SELECT 1 waited 15 s behind another client's aggregate). Without that, the statements below
 * wait minutes for the cross join, and the JUnit timeout fails the test.
 */
class IsolationTest {
    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void otherSessionsGoOnWhileALongQueryComputes(int workers) throws Exception {
        try (Tributary db = Tributary.inMemory(Clock.manual(0), workers)) {
            db.execute("CREATE TABLE big (x int)");
            db.execute("INSERT INTO big SELECT * FROM generate_series(1, 100000)");
            db.execute("CREATE TABLE small (k int PRIMARY KEY, v text)");
            db.execute("CREATE MATERIALIZED VIEW counts AS SELECT v, count(*) AS n FROM small GROUP BY v");
            Coordinator c = db.coordinator();
            Tributary.Connection slow = db.session();
            long built = c.reads().dataflowsBuilt;
            // ten billion pairs: minutes of work
            CompletableFuture<List<Result>> query = CompletableFuture.supplyAsync(
                    () -> slow.execute("SELECT count(*) FROM big b1, big b2 WHERE b1.x + b2.x < 0"));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (c.reads().dataflowsBuilt == built && !query.isDone() && System.nanoTime() < deadline) Thread.onSpinWait();
            Tributary.Connection other = db.session();
            for (int i = 0; i < 20; i++) other.execute("INSERT INTO small VALUES (" + i + ", '" + (i % 3) + "')");
            other.execute("UPDATE small SET v = 'x' WHERE k = 0");
            assertThat(other.execute("SELECT v, n FROM counts ORDER BY v").get(0).text())
                    .containsExactly(List.of("0", "6"), List.of("1", "7"), List.of("2", "6"), List.of("x", "1"));
            assertThat(other.execute("SELECT count(*) FROM small s1, small s2 WHERE s1.k < s2.k").get(0).text()).containsExactly(List.of("190"));
            other.execute("CREATE TABLE later (a int)");
            assertThat(query).as("the long query is still computing").isNotDone();
            slow.cancel();
            Throwable failure = null;
            try {
                query.get(60, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                failure = e.getCause();
            }
            assertThat(failure).isInstanceOf(SqlException.class);
            assertThat(((SqlException) failure).sqlState()).isEqualTo("57014");
            assertThat(slow.execute("SELECT count(*) FROM big").get(0).text()).containsExactly(List.of("100000"));
        }
    }
}
