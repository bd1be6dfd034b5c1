package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.sql.SqlException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An operator that fails (here: runs the heap out of memory) fails its own dataflow only (and
 * the CREATE, if it fails while building): reading
 * what is built on it reports 53200 (out of memory; XX000 for other causes) naming the object, the operator and the cause, the server log
 * has the stack trace, and the other objects, sessions and statements go on. Before, the worker
 * thread died with the failure and every later statement waited for it forever (issue 23).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FailureContainmentTest {
    private static List<String> rows(Tributary db, String sql) {
        List<String> out = new ArrayList<>();
        for (List<String> r : db.query(sql).text()) out.add(String.join("|", r));
        return out;
    }

    @Test
    void aViewThatRunsOutOfMemoryFailsAloneAndEverythingElseGoesOn() {
        String logged;
        try (ServerLog.Capture log = ServerLog.capture(); Tributary db = Tributary.inMemory(Clock.manual(0), 2)) {
            db.execute("CREATE TABLE t (a int)");
            db.execute("CREATE MATERIALIZED VIEW fine AS SELECT count(*) AS n, sum(a) AS s FROM t");
            db.execute("INSERT INTO t VALUES (1), (2)");
            // each row a few hundred megabytes, far more of them than the test's heap holds: a
            // CREATE whose build fails so fails, and leaves nothing behind
            assertThatThrownBy(() -> db.execute("CREATE MATERIALIZED VIEW huge AS SELECT repeat('x', 200000000) || i AS s FROM generate_series(1, 64) AS g(i)"))
                    .isInstanceOfSatisfying(SqlException.class, e -> assertThat(e.sqlState()).isEqualTo("53200"));
            assertThatThrownBy(() -> db.query("SELECT * FROM huge")).isInstanceOfSatisfying(SqlException.class, e -> assertThat(e.sqlState()).isEqualTo("42P01"));
            // built over no rows, the same view fails once they come
            db.execute("CREATE TABLE copies (n int)");
            db.execute("CREATE MATERIALIZED VIEW huge AS SELECT repeat('x', 200000000) || i AS s FROM copies, generate_series(1, 64) AS g(i)");
            db.execute("CREATE MATERIALIZED VIEW above AS SELECT length(s) AS l FROM huge");
            db.execute("INSERT INTO copies VALUES (1)");
            assertThatThrownBy(() -> db.query("SELECT count(*) FROM huge")).isInstanceOfSatisfying(SqlException.class, e -> {
                assertThat(e.sqlState()).isEqualTo("53200");
                assertThat(e.getMessage()).startsWith("out of memory: ").contains("materialized view \"huge\" failed").contains("operator '").contains("OutOfMemoryError");
                assertThat(e.hint()).contains("larger heap");
            });
            // what is built on it cannot be read either, and says why
            assertThatThrownBy(() -> db.query("SELECT * FROM above")).isInstanceOfSatisfying(SqlException.class,
                    e -> assertThat(e.getMessage()).contains("materialized view \"huge\" failed"));
            // a subscription to it ends with the error instead of waiting for changes that never come
            java.util.concurrent.CompletableFuture<SqlException> ended = new java.util.concurrent.CompletableFuture<>();
            Subscription s = db.subscribe("SUBSCRIBE above", new Subscription.Listener() {
                public void onChanges(Result batch) {}

                public void onError(SqlException error) {
                    ended.complete(error);
                }
            });
            db.execute("ADVANCE CLOCK BY INTERVAL '1 second'");
            assertThat(ended.getNow(null)).isNotNull().satisfies(e -> assertThat(e.getMessage()).contains("materialized view \"huge\" failed"));
            s.close();
            // everything else goes on: other views, writes, reads, other sessions
            db.execute("INSERT INTO t VALUES (3)");
            assertThat(rows(db, "SELECT * FROM fine")).containsExactly("3|6");
            Tributary.Connection other = db.session();
            assertThat(other.execute("SELECT sum(a) FROM t").get(0).text()).containsExactly(List.of("6"));
            assertThat(rows(db, "SELECT 1 + 1")).containsExactly("2");
            // dropping the failed views frees the names; the same definition over less data works
            db.execute("DROP MATERIALIZED VIEW huge CASCADE");
            db.execute("CREATE MATERIALIZED VIEW huge AS SELECT repeat('x', 3) || i AS s FROM copies, generate_series(1, 2) AS g(i)");
            assertThat(rows(db, "SELECT s FROM huge ORDER BY s")).containsExactly("xxx1", "xxx2");
            logged = log.text();
        }
        assertThat(logged).contains("ERROR:  dataflow 'mv:huge' failed").contains("java.lang.OutOfMemoryError").contains("\tat ");
    }
}
