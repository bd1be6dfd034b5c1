package dev.tributary.server.pgwire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * CREATE SOURCE, CREATE JOB, ALTER JOB and DROP of both through the PostgreSQL JDBC driver's
 * defaults: over the extended protocol an autocommitted statement runs in the implicit
 * transaction before Sync, which is not a transaction block for them (as for PostgreSQL's
 * CREATE DATABASE); an explicit block still is (25001).
 */
class JdbcSourcesTest extends LocalServerTest {
    @TempDir
    Path dir;

    private Connection connect() throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + server.port() + "/tributary?user=tributary");
    }

    @Test
    void sourcesAndJobsAreMadeWithTheDriversDefaults() throws Exception {
        Path in = Files.createDirectory(dir.resolve("in"));
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE jdbc_out (id int)");
            s.execute("CREATE SOURCE jdbc_in (id int) FROM DIRECTORY (PATH '" + in + "') FORMAT CSV");
            s.execute("CREATE JOB jdbc_job AS INSERT INTO jdbc_out SELECT id FROM jdbc_in STREAM");
            s.execute("ALTER JOB jdbc_job PAUSE");
            s.execute("ALTER JOB jdbc_job RESUME");
            c.setAutoCommit(false);
            assertThatThrownBy(() -> s.execute("DROP JOB jdbc_job")).isInstanceOfSatisfying(SQLException.class,
                    e -> assertThat(e.getSQLState()).isEqualTo("25001"));
            c.rollback();
            c.setAutoCommit(true);
            s.execute("DROP JOB jdbc_job");
            s.execute("DROP SOURCE jdbc_in");
            s.execute("DROP TABLE jdbc_out");
        }
    }

    /**
     * INSERT INTO FUNCTION url over a STREAM through the driver (the extended protocol, which runs
     * it outside the coordinator as the simple one does): it runs until the driver's cancel
     * request, which ends it with 57014, while other statements run meanwhile.
     */
    @Test
    void insertIntoUrlRunsUntilTheDriverCancelsIt() throws Exception {
        try (dev.tributary.server.HttpReceiver receiver = new dev.tributary.server.HttpReceiver(0); Connection c = connect(); Statement s = c.createStatement();
                Connection other = connect(); Statement o = other.createStatement()) {
            o.execute("CREATE TABLE posted (k int)");
            java.util.concurrent.CompletableFuture<Void> running = java.util.concurrent.CompletableFuture.runAsync(() -> {
                try {
                    s.execute("INSERT INTO FUNCTION url('" + receiver.url() + "') SELECT k FROM posted STREAM");
                } catch (SQLException e) {
                    throw new java.util.concurrent.CompletionException(e);
                }
            });
            long until = System.nanoTime() + dev.tributary.server.HttpReceiver.WAIT_MS * 1_000_000;
            while (!db.query("SELECT count(*) FROM tributary_internal.subscriptions").text().equals(java.util.List.of(java.util.List.of("1")))) {
                assertThat(System.nanoTime()).as("the statement's subscription runs").isLessThan(until);
                Thread.onSpinWait();
            }
            o.execute("INSERT INTO posted VALUES (7)");
            receiver.await(bodies -> dev.tributary.server.HttpReceiver.accumulated(bodies, "k").equals(java.util.List.of("7|1")));
            s.cancel();
            assertThatThrownBy(() -> running.get(dev.tributary.server.HttpReceiver.WAIT_MS, java.util.concurrent.TimeUnit.MILLISECONDS))
                    .hasCauseInstanceOf(SQLException.class)
                    .cause().satisfies(e -> assertThat(((SQLException) e).getSQLState()).isEqualTo("57014"));
            o.execute("DROP TABLE posted");
        }
    }

    /**
     * A FETCH that waits for a subscription's rows (a cursor over a STREAM, WITH (timeout)) waits
     * outside the coordinator over the extended protocol too: another connection's statements run
     * meanwhile, and its write is what the waiting FETCH gets.
     */
    @Test
    void aWaitingFetchDoesNotHoldOthersUp() throws Exception {
        try (Connection c = connect(); Statement s = c.createStatement(); Connection other = connect(); Statement o = other.createStatement()) {
            o.execute("CREATE TABLE fetched (k int)");
            c.setAutoCommit(false);
            s.execute("DECLARE f CURSOR FOR SELECT k FROM fetched STREAM FROM NOW");
            java.util.concurrent.CompletableFuture<java.util.List<Integer>> waiting = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                java.util.List<Integer> got = new java.util.ArrayList<>();
                try (java.sql.ResultSet r = s.executeQuery("FETCH 10 f WITH (timeout = '60s')")) {
                    while (r.next()) got.add(r.getInt("k"));
                } catch (SQLException e) {
                    throw new java.util.concurrent.CompletionException(e);
                }
                return got;
            });
            // the FETCH is waiting (or about to): these run now, not after its 60 s
            long started = System.nanoTime();
            o.execute("CREATE TABLE meanwhile (k int)");
            o.execute("INSERT INTO fetched VALUES (7)");
            assertThat(waiting.get(30, java.util.concurrent.TimeUnit.SECONDS)).containsExactly(7);
            assertThat(System.nanoTime() - started).as("the other connection waited for the FETCH's timeout").isLessThan(java.util.concurrent.TimeUnit.SECONDS.toNanos(30));
            c.rollback();
        }
    }
}
