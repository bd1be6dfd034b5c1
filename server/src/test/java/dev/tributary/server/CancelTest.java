package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.sql.SqlException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A cancel stops a plain query that is still computing (a transient dataflow) with 57014, on
 * every worker, leaves the database serving, and is used up: the next statement runs.
 */
class CancelTest {
    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void cancelStopsALongQuery(int workers) throws Exception {
        try (Tributary db = Tributary.inMemory(Clock.manual(0), workers)) {
            db.execute("CREATE TABLE a (x int)");
            db.execute("INSERT INTO a SELECT * FROM generate_series(1, 3000)");
            Coordinator c = db.coordinator();
            Tributary.Connection s = db.session();
            long built = c.reads().dataflowsBuilt;
            // nine million pairs: seconds of work, far longer than the cancel takes to arrive
            CompletableFuture<List<Result>> query = CompletableFuture.supplyAsync(
                    () -> s.execute("SELECT count(*) FROM a a1, a a2 WHERE a1.x + a2.x > 0 GROUP BY a1.x % 7"));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (c.reads().dataflowsBuilt == built && !query.isDone() && System.nanoTime() < deadline) Thread.onSpinWait();
            s.cancel();
            Throwable failure = null;
            try {
                query.get(60, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                failure = e.getCause();
            }
            assertThat(failure).isInstanceOf(SqlException.class);
            assertThat(((SqlException) failure).sqlState()).isEqualTo("57014");
            // the cancel is used up, and the database and the session go on
            assertThat(s.execute("SELECT count(*) FROM a").get(0).text()).containsExactly(List.of("3000"));
            assertThat(db.execute("SELECT max(x) FROM a").get(0).text()).containsExactly(List.of("3000"));
        }
    }

    /**
     * {@code statement_timeout}, with PostgreSQL's units, stops a statement that runs past it
     * with 57014 (the query below takes minutes without it: the JUnit timeout is what fails if
     * the setting is ignored); the session goes on, and 0 turns it off.
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    @org.junit.jupiter.api.Timeout(value = 120, unit = TimeUnit.SECONDS)
    void statementTimeoutStopsAStatementThatRunsPastIt(int workers) {
        try (Tributary db = Tributary.inMemory(Clock.manual(0), workers)) {
            db.execute("CREATE TABLE a (x int)");
            db.execute("INSERT INTO a SELECT * FROM generate_series(1, 100000)");
            Tributary.Connection s = db.session();
            s.execute("SET statement_timeout = '120s'");
            assertThat(s.execute("SHOW statement_timeout").get(0).text()).containsExactly(List.of("2min"));
            s.execute("SET statement_timeout TO 1500");
            assertThat(s.execute("SHOW statement_timeout").get(0).text()).containsExactly(List.of("1500ms"));
            // accepted with PostgreSQL's units too; Tributary has no lock a statement waits for, so it never fires
            s.execute("SET lock_timeout = '2s'");
            assertThat(s.execute("SHOW lock_timeout").get(0).text()).containsExactly(List.of("2s"));
            s.execute("SET statement_timeout = '200ms'");
            // ten billion pairs
            for (String slow : List.of("SELECT count(*) FROM a a1, a a2 WHERE a1.x + a2.x > 0 GROUP BY a1.x % 7",
                    "INSERT INTO a SELECT a1.x FROM a a1, a a2 WHERE a1.x + a2.x < 0")) {
                Throwable failure = null;
                try {
                    s.execute(slow);
                } catch (SqlException e) {
                    failure = e;
                }
                assertThat(failure).as(slow).isInstanceOf(SqlException.class).hasMessage("canceling statement due to statement timeout");
                assertThat(((SqlException) failure).sqlState()).isEqualTo("57014");
            }
            // nothing was written, and fast statements run under the timeout
            assertThat(s.execute("SELECT count(*) FROM a").get(0).text()).containsExactly(List.of("100000"));
            s.execute("SET statement_timeout = 0");
            assertThat(s.execute("SHOW statement_timeout").get(0).text()).containsExactly(List.of("0"));
            for (String bad : List.of("'12 parsecs'", "'-1s'", "'1.5 weeks'")) {
                Throwable refused = null;
                try {
                    s.execute("SET statement_timeout = " + bad);
                } catch (SqlException e) {
                    refused = e;
                }
                assertThat(refused).as(bad).isInstanceOf(SqlException.class);
                assertThat(((SqlException) refused).sqlState()).isEqualTo("22023");
            }
        }
    }
}
