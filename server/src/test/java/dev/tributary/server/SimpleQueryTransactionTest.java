package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.sql.SqlException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Several statements in one simple Query message run as PostgreSQL runs them: as one implicit
 * transaction block, rolled back whole by an error; COMMIT or ROLLBACK inside end it early (with
 * PostgreSQL's warning) and the rest runs in a new one; BEGIN inside makes it an ordinary block
 * that outlives the message; cursors may live in it. Each expectation was checked against
 * PostgreSQL 15 with {@code psql -c}.
 */
class SimpleQueryTransactionTest {
    private Tributary db;
    private Tributary.Connection session;

    @BeforeEach
    void open() {
        db = Tributary.inMemory(Clock.manual(0));
        session = db.session();
        db.execute("CREATE TABLE m (x int)");
    }

    @AfterEach
    void close() {
        db.close();
    }

    /** Runs {@code sql} as one Query message; returns the results given before any error. */
    private List<Result> message(String sql) {
        List<Result> results = new ArrayList<>();
        session.executeMessage(sql, results::add, null);
        return results;
    }

    private List<String> rows() {
        List<String> out = new ArrayList<>();
        for (List<String> r : db.execute("SELECT x FROM m ORDER BY x").get(0).text()) out.add(r.get(0));
        return out;
    }

    private static void failsWith(Runnable r, String sqlState) {
        assertThatThrownBy(r::run).isInstanceOf(SqlException.class).satisfies(e -> assertThat(((SqlException) e).sqlState()).isEqualTo(sqlState));
    }

    @Test
    void anErrorRollsBackTheWholeMessage() {
        failsWith(() -> message("INSERT INTO m VALUES (1); SELECT 1/0; INSERT INTO m VALUES (2)"), "22012");
        assertThat(rows()).isEmpty();
        assertThat(session.transactionStatus()).isEqualTo('I');
        // statements of the message see the writes before them
        List<Result> r = message("INSERT INTO m VALUES (7); SELECT count(*) FROM m");
        assertThat(r.get(1).text()).containsExactly(List.of("1"));
        assertThat(rows()).containsExactly("7");
    }

    @Test
    void commitAndRollbackInsideEndTheImplicitBlockEarly() {
        List<Result> results = new ArrayList<>();
        failsWith(() -> session.executeMessage("INSERT INTO m VALUES (3); COMMIT; INSERT INTO m VALUES (4); SELECT 1/0", results::add, null), "22012");
        assertThat(results.get(1).tag()).isEqualTo("COMMIT");
        assertThat(results.get(1).notices()).extracting(Notice::sqlState).containsExactly("25P01");
        assertThat(rows()).containsExactly("3");
        List<Result> r = message("INSERT INTO m VALUES (8); ROLLBACK; INSERT INTO m VALUES (9)");
        assertThat(r.get(1).notices()).extracting(Notice::sqlState).containsExactly("25P01");
        assertThat(rows()).containsExactly("3", "9");
    }

    @Test
    void beginInsideMakesAnOrdinaryBlockThatTakesTheWritesBeforeIt() {
        failsWith(() -> message("INSERT INTO m VALUES (5); BEGIN; INSERT INTO m VALUES (6); COMMIT; SELECT 1/0"), "22012");
        assertThat(rows()).containsExactly("5", "6");
        message("INSERT INTO m VALUES (10); BEGIN; INSERT INTO m VALUES (11)");
        assertThat(session.transactionStatus()).as("the block outlives the message").isEqualTo('T');
        assertThat(rows()).containsExactly("5", "6");
        message("ROLLBACK");
        assertThat(rows()).containsExactly("5", "6");
    }

    @Test
    void aCursorMayLiveInTheImplicitBlockButNotOutsideOne() {
        List<Result> r = message("DECLARE c CURSOR FOR SELECT 1; FETCH ALL c");
        assertThat(r.get(1).text()).containsExactly(List.of("1"));
        failsWith(() -> message("DECLARE d CURSOR FOR SELECT 1"), "25P01");
        failsWith(() -> message("FETCH ALL c"), "34000");
    }

    @Test
    void theJavaApiRunsEachStatementOnItsOwn() {
        failsWith(() -> session.execute("INSERT INTO m VALUES (1); SELECT 1/0"), "22012");
        assertThat(rows()).containsExactly("1");
    }
}
