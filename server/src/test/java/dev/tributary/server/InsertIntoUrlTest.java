package dev.tributary.server;

import static dev.tributary.server.SqlRows.fails;
import static dev.tributary.server.SqlRows.rows;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.sql.SqlException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code INSERT INTO FUNCTION url('...') query}: a one-off query's result POSTed once as one batch
 * of insertions ({@code INSERT 0 n}), retried under the same key with the same body; over a
 * STREAM a statement that POSTs each time's changes until the client cancels it (57014) or its
 * statement_timeout passes; and what it refuses.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class InsertIntoUrlTest {
    @Test
    void aOneOffQueryIsPostedOnceAsInsertionsThroughFailures() throws Exception {
        try (HttpReceiver receiver = new HttpReceiver(2); Tributary db = Tributary.inMemory()) {
            db.execute("CREATE TABLE t (k int, v text)");
            db.execute("INSERT INTO t VALUES (1, 'a'), (2, 'b'), (2, 'b')");
            List<Result> r = db.execute("INSERT INTO FUNCTION url('" + receiver.url() + "') SELECT k, v FROM t WHERE k > 0");
            assertThat(r.get(0).tag()).isEqualTo("INSERT 0 3");
            // two refusals, then the same key and body accepted
            List<HttpReceiver.Request> requests = receiver.requests();
            assertThat(requests).extracting(HttpReceiver.Request::status).containsExactly(503, 503, 200);
            assertThat(requests).extracting(HttpReceiver.Request::key).containsOnly(requests.get(0).key());
            receiver.assertRetriesIdentical();
            String body = receiver.bodies().get(0);
            assertThat(body).contains("\"snapshot\":true,\"part\":1,\"parts\":1");
            assertThat(HttpReceiver.accumulated(receiver.bodies(), "k", "v")).containsExactly("1|a|1", "2|b|2");
            // an empty result posts nothing
            assertThat(db.execute("INSERT INTO FUNCTION url('" + receiver.url() + "') SELECT k, v FROM t WHERE k > 5").get(0).tag()).isEqualTo("INSERT 0 0");
            assertThat(receiver.requests()).hasSize(3);
            // a second statement's keys are its own
            db.execute("INSERT INTO FUNCTION url('" + receiver.url() + "') SELECT k FROM t WHERE k = 1");
            assertThat(receiver.requests().get(3).key()).isNotEqualTo(requests.get(0).key());
        }
    }

    /** A one-off statement whose receiver keeps refusing fails (08001) after a few attempts instead of waiting for ever. */
    @Test
    void aOneOffQueryFailsWhenTheReceiverKeepsRefusing() throws Exception {
        try (HttpReceiver receiver = new HttpReceiver(1_000); Tributary db = Tributary.inMemory()) {
            db.execute("CREATE TABLE t (k int)");
            db.execute("INSERT INTO t VALUES (1)");
            dev.tributary.server.SqlRows.fails("08001", () -> db.execute("INSERT INTO FUNCTION url('" + receiver.url() + "') SELECT k FROM t"));
            assertThat(receiver.requests()).hasSize(Coordinator.ONE_OFF_POST_ATTEMPTS).extracting(HttpReceiver.Request::status).containsOnly(503);
        }
    }

    @Test
    void aStreamIsPostedTimeByTimeUntilTheClientCancels() throws Exception {
        try (HttpReceiver receiver = new HttpReceiver(1); Tributary db = Tributary.inMemory()) {
            db.execute("CREATE TABLE t (k int, v text)");
            db.execute("INSERT INTO t VALUES (0, 'before')");
            Tributary.Connection s = db.session();
            CompletableFuture<List<Result>> running = CompletableFuture.supplyAsync(
                    () -> s.execute("INSERT INTO FUNCTION url('" + receiver.url() + "') SELECT k, v FROM t STREAM"));
            awaitSubscriptions(db, 1);
            db.execute("INSERT INTO t VALUES (1, 'a'), (2, 'b')");
            db.execute("INSERT INTO t VALUES (3, 'c')");
            // the stream from its beginning (the row before it, as its snapshot), then each write
            receiver.await(bodies -> HttpReceiver.accumulated(bodies, "k", "v").equals(List.of("0|before|1", "1|a|1", "2|b|1", "3|c|1")));
            // one batch per time, in time order, each under a key of its own
            List<String> bodies = receiver.bodies();
            assertThat(bodies).hasSize(3);
            assertThat(bodies.get(0)).contains("\"snapshot\":true");
            assertThat(HttpReceiver.time(bodies.get(0))).isLessThan(HttpReceiver.time(bodies.get(1)));
            assertThat(HttpReceiver.time(bodies.get(1))).isLessThan(HttpReceiver.time(bodies.get(2)));
            receiver.assertRetriesIdentical();
            assertThat(running).isNotDone();
            s.cancel();
            assertThat(failure(running).sqlState()).isEqualTo("57014");
            // its subscription is gone, and the session goes on
            awaitSubscriptions(db, 0);
            assertThat(s.execute("SELECT count(*) FROM t").get(0).text()).containsExactly(List.of("4"));
        }
    }

    @Test
    void aStatementTimeoutEndsAStream() throws Exception {
        try (HttpReceiver receiver = new HttpReceiver(0); Tributary db = Tributary.inMemory()) {
            db.execute("CREATE TABLE t (k int)");
            Tributary.Connection s = db.session();
            s.execute("SET statement_timeout = '300ms'");
            SqlException e = SqlRows.error(s, "INSERT INTO FUNCTION url('" + receiver.url() + "') SELECT k FROM t STREAM");
            assertThat(e.sqlState()).isEqualTo("57014");
            assertThat(e.getMessage()).isEqualTo("canceling statement due to statement timeout");
            awaitSubscriptions(db, 0);
        }
    }

    @Test
    void whatItRefuses() {
        try (Tributary db = Tributary.inMemory()) {
            db.execute("CREATE TABLE t (k int)");
            fails("22023", () -> db.execute("INSERT INTO FUNCTION url('ftp://x/y') SELECT k FROM t"));
            fails("22023", () -> db.execute("INSERT INTO FUNCTION url('not a url') SELECT k FROM t"));
            fails("42601", () -> db.execute("INSERT INTO FUNCTION url(1) SELECT k FROM t"));
            fails("42883", () -> db.execute("INSERT INTO FUNCTION s3('http://x/y') SELECT k FROM t"));
            fails("42601", () -> db.execute("INSERT INTO FUNCTION url('http://x/y') SELECT k FROM t RETURNING k"));
            fails("42P01", () -> db.execute("INSERT INTO FUNCTION url('http://127.0.0.1:1/in') SELECT k FROM nothing"));
            fails("25001", () -> db.execute("BEGIN; INSERT INTO FUNCTION url('http://127.0.0.1:1/in') SELECT k FROM t"));
            db.execute("ROLLBACK");
        }
    }

    /** Waits (with a deadline) until {@code n} subscriptions run. */
    static void awaitSubscriptions(Tributary db, int n) {
        long until = System.nanoTime() + HttpReceiver.WAIT_MS * 1_000_000;
        while (!rows(db, "SELECT count(*) FROM tributary_internal.subscriptions").equals(List.of(Integer.toString(n)))) {
            assertThat(System.nanoTime()).as(n + " subscriptions running").isLessThan(until);
            Thread.onSpinWait();
        }
    }

    private static SqlException failure(CompletableFuture<?> f) throws InterruptedException {
        try {
            f.get(HttpReceiver.WAIT_MS, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            assertThat(e.getCause()).isInstanceOf(SqlException.class);
            return (SqlException) e.getCause();
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError("the statement did not end", e);
        }
        throw new AssertionError("the statement succeeded");
    }
}
