package dev.tributary.server.pgwire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyManager;
import org.postgresql.copy.CopyOut;
import org.postgresql.util.PSQLException;

/**
 * The PostgreSQL JDBC driver's COPY API, cursors and cancel against {@link PgServer}: bulk loads
 * in text and CSV (all or nothing), a COPY of a SUBSCRIBE that streams rows inserted from another
 * connection until cancelled, and FETCH from a cursor over a SUBSCRIBE, with timeouts and with
 * {@link Statement#cancel()}.
 */
@Timeout(60)
class CopyJdbcTest extends LocalServerTest {
    private Connection connect() throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + server.port() + "/tributary?user=tributary&prepareThreshold=0");
    }

    private static List<String> rows(Statement s, String sql) throws SQLException {
        return JdbcRows.rows(s, sql);
    }

    @Test
    void copyInTextAndCsvThenABadRowWritesNothing() throws Exception {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (id int PRIMARY KEY, name text NOT NULL, score double precision DEFAULT 1.5)");
            CopyManager copy = c.unwrap(PGConnection.class).getCopyAPI();
            assertThat(copy.copyIn("COPY t FROM STDIN", new StringReader("1\tone\t10\n2\ttwo\\ttab\t\\N\n"))).isEqualTo(2);
            assertThat(copy.copyIn("COPY t (id, name) FROM STDIN WITH (FORMAT csv, HEADER)",
                    new StringReader("id,name\n3,\"three, quoted\"\n4,\"four \"\"q\"\"\"\n"))).isEqualTo(2);
            assertThat(rows(s, "SELECT id, name, score FROM t ORDER BY id"))
                    .containsExactly("1|one|10", "2|two\ttab|null", "3|three, quoted|1.5", "4|four \"q\"|1.5");

            // line 2 is bad: the error names it, and line 1 is not written either
            assertThatThrownBy(() -> copy.copyIn("COPY t FROM STDIN", new StringReader("5\tfive\t1\n6\tsix\tlots\n")))
                    .isInstanceOfSatisfying(PSQLException.class, e -> {
                        assertThat(e.getSQLState()).isEqualTo("22P02");
                        assertThat(e.getServerErrorMessage().getMessage()).isEqualTo("invalid input syntax for type double precision: \"lots\"");
                        assertThat(e.getServerErrorMessage().getWhere()).isEqualTo("COPY t, line 2, column score: \"lots\"");
                    });
            assertThatThrownBy(() -> copy.copyIn("COPY t (id, name) FROM STDIN (FORMAT csv)", new StringReader("7,seven\n1,again\n")))
                    .isInstanceOfSatisfying(PSQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("23505"));
            // a key repeated within the COPY: the line that repeats it is named
            assertThatThrownBy(() -> copy.copyIn("COPY t (id, name) FROM STDIN (FORMAT csv)", new StringReader("9,nine\n10,ten\n9,again\n")))
                    .isInstanceOfSatisfying(PSQLException.class, e -> {
                        assertThat(e.getSQLState()).isEqualTo("23505");
                        assertThat(e.getServerErrorMessage().getWhere()).isEqualTo("COPY t, line 3");
                    });
            assertThatThrownBy(() -> copy.copyIn("COPY t (id) FROM STDIN", new StringReader("8\n")))
                    .isInstanceOfSatisfying(PSQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("23502"));
            assertThat(rows(s, "SELECT count(*) FROM t")).containsExactly("4");

            // a client that gives up half way (CopyFail) writes nothing, and the connection goes on
            var in = copy.copyIn("COPY t FROM STDIN");
            byte[] line = "9\tnine\t9\n".getBytes(StandardCharsets.UTF_8);
            in.writeToCopy(line, 0, line.length);
            in.cancelCopy();
            assertThat(rows(s, "SELECT count(*) FROM t")).containsExactly("4");

            // inside a transaction block the rows join it
            c.setAutoCommit(false);
            assertThat(copy.copyIn("COPY t (id, name) FROM STDIN", new StringReader("10\tten\n"))).isEqualTo(1);
            assertThat(rows(s, "SELECT count(*) FROM t")).containsExactly("5");
            c.rollback();
            c.setAutoCommit(true);
            assertThat(rows(s, "SELECT count(*) FROM t")).containsExactly("4");
        }
        try (Connection other = connect(); Statement s = other.createStatement()) {
            assertThat(rows(s, "SELECT name FROM t WHERE id = 4")).containsExactly("four \"q\"");
        }
    }

    /**
     * Integers and text are encoded straight from the data's bytes; whatever that does not take
     * (spaces, a plus sign, 19 digits, a value out of range, a NULL in a NOT NULL column) goes the
     * general way, and the rows, errors and contexts are PostgreSQL's either way. A table without
     * a key takes repeated rows, in a small COPY and in one fed by the workers in shares.
     */
    @Test
    void integersAndTextReadStraightFromTheirBytesAsPostgresReadsThem() throws Exception {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE n (a smallint, b int, c bigint NOT NULL, d text, e varchar(5))");
            CopyManager copy = c.unwrap(PGConnection.class).getCopyAPI();
            String data = "1\t2\t3\tplain\tab\n"
                    + " 7\t+8\t-9\ttab\\there\tcd\n"
                    + "-32768\t2147483647\t9223372036854775807\th\u00e9llo\t\\N\n"
                    + "\\N\t\\N\t-9223372036854775808\t\t\n"
                    + "1\t2\t3\tplain\tab\n";
            assertThat(copy.copyIn("COPY n FROM STDIN", new StringReader(data))).isEqualTo(5);
            assertThat(rows(s, "SELECT a, b, c, d, e, d IS NULL FROM n ORDER BY c, a"))
                    .containsExactly("null|null|-9223372036854775808|||f", "7|8|-9|tab\there|cd|f", "1|2|3|plain|ab|f",
                            "1|2|3|plain|ab|f", "-32768|2147483647|9223372036854775807|h\u00e9llo|null|f");
            assertThatThrownBy(() -> copy.copyIn("COPY n FROM STDIN", new StringReader("1\t1\t1\tx\tx\n32768\t1\t1\tx\tx\n")))
                    .isInstanceOfSatisfying(PSQLException.class, e -> {
                        assertThat(e.getSQLState()).isEqualTo("22003");
                        assertThat(e.getServerErrorMessage().getMessage()).isEqualTo("value \"32768\" is out of range for type smallint");
                        assertThat(e.getServerErrorMessage().getWhere()).isEqualTo("COPY n, line 2, column a: \"32768\"");
                    });
            assertThatThrownBy(() -> copy.copyIn("COPY n FROM STDIN", new StringReader("1\t12x\t1\tx\tx\n")))
                    .isInstanceOfSatisfying(PSQLException.class, e -> {
                        assertThat(e.getSQLState()).isEqualTo("22P02");
                        assertThat(e.getServerErrorMessage().getWhere()).isEqualTo("COPY n, line 1, column b: \"12x\"");
                    });
            assertThatThrownBy(() -> copy.copyIn("COPY n FROM STDIN", new StringReader("1\t2\t\\N\tx\ty\n")))
                    .isInstanceOfSatisfying(PSQLException.class, e -> {
                        assertThat(e.getSQLState()).isEqualTo("23502");
                        assertThat(e.getServerErrorMessage().getDetail()).isEqualTo("Failing row contains (1, 2, null, x, y).");
                        assertThat(e.getServerErrorMessage().getWhere()).isEqualTo("COPY n, line 1: \"1\t2\t\\N\tx\ty\"");
                    });
            assertThat(rows(s, "SELECT count(*) FROM n")).containsExactly("5");

            // 6,000 rows, each of 1,000 rows six times: fed to the table in shares, every copy counted
            StringBuilder repeated = new StringBuilder();
            for (int i = 0; i < 6_000; i++) repeated.append(i % 7).append('\t').append(i % 1_000).append("\t0\tr\t\\N\n");
            assertThat(copy.copyIn("COPY n FROM STDIN", new StringReader(repeated.toString()))).isEqualTo(6_000);
            assertThat(rows(s, "SELECT count(*), count(DISTINCT b) FROM n WHERE d = 'r'")).containsExactly("6000|1000");
        }
    }

    /**
     * A COPY large enough to be fed to the table by each of two workers, a share each, into a table with a
     * primary key (its rows then go to the workers without a map of them) and a dependent view:
     * the view counts every row once, and a second COPY that repeats a key writes nothing.
     */
    @Test
    void aLargeCopyReachesADependentViewOnce() throws Exception {
        try (dev.tributary.server.Tributary two = dev.tributary.server.Tributary.inMemory(dev.tributary.server.Clock.manual(0), 2);
             PgServer twoServer = new PgServer(two, java.net.InetAddress.getLoopbackAddress(), 0, 10);
             Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + twoServer.port() + "/tributary?user=tributary");
             Statement s = c.createStatement()) {
            s.execute("CREATE TABLE big (id int PRIMARY KEY, g int, x int)");
            s.execute("CREATE MATERIALIZED VIEW big_g AS SELECT g, count(*) AS n, sum(x) AS sx FROM big GROUP BY g");
            StringBuilder csv = new StringBuilder();
            int rows = 20_000;
            for (int i = 1; i <= rows; i++) csv.append(i).append(',').append(i % 7).append(',').append(i % 100).append('\n');
            CopyManager copy = c.unwrap(PGConnection.class).getCopyAPI();
            assertThat(copy.copyIn("COPY big FROM STDIN (FORMAT csv)", new StringReader(csv.toString()))).isEqualTo(rows);
            long expectedSum = 0;
            for (int i = 1; i <= rows; i++) expectedSum += i % 100;
            assertThat(rows(s, "SELECT sum(n), sum(sx), count(*) FROM big_g")).containsExactly(rows + "|" + expectedSum + "|7");
            assertThat(rows(s, "SELECT n FROM big_g WHERE g = 3")).containsExactly(String.valueOf(rows / 7));

            StringBuilder again = new StringBuilder();
            for (int i = rows + 1; i <= rows + 5_000; i++) again.append(i).append(",1,1\n");
            again.append(rows).append(",1,1\n");
            assertThatThrownBy(() -> copy.copyIn("COPY big FROM STDIN (FORMAT csv)", new StringReader(again.toString())))
                    .isInstanceOfSatisfying(PSQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("23505"));
            assertThat(rows(s, "SELECT sum(n) FROM big_g")).containsExactly(String.valueOf(rows));
        }
    }

    @Test
    void copyOutOfATableAndAQuery() throws Exception {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (id int, name text)");
            s.execute("INSERT INTO t VALUES (1, 'a\tb'), (2, NULL)");
            CopyManager copy = c.unwrap(PGConnection.class).getCopyAPI();
            java.io.StringWriter w = new java.io.StringWriter();
            assertThat(copy.copyOut("COPY (SELECT * FROM t ORDER BY id) TO STDOUT", w)).isEqualTo(2);
            assertThat(w.toString()).isEqualTo("1\ta\\tb\n2\t\\N\n");
            w = new java.io.StringWriter();
            copy.copyOut("COPY (SELECT * FROM t ORDER BY id) TO STDOUT WITH (FORMAT csv, HEADER)", w);
            assertThat(w.toString()).isEqualTo("id,name\n1,a\tb\n2,\n");
        }
    }

    /** Reads one row of a COPY stream as text (a CopyData message holds one row). */
    private static String next(CopyOut out) throws SQLException {
        byte[] b = out.readFromCopy();
        return b == null ? null : new String(b, StandardCharsets.UTF_8);
    }

    @Test
    void copyOfASubscribeStreamsRowsFromAnotherConnectionUntilCancelled() throws Exception {
        try (Connection c = connect(); Connection writer = connect(); Statement w = writer.createStatement()) {
            w.execute("CREATE TABLE t (id int, name text)");
            w.execute("INSERT INTO t VALUES (1, 'first')");
            CopyOut out = c.unwrap(PGConnection.class).getCopyAPI().copyOut("COPY (SUBSCRIBE t) TO STDOUT");
            assertThat(out.getFieldCount()).isEqualTo(4);
            // the snapshot, at the time the subscription started
            assertThat(next(out)).isEqualTo("1970-01-01 00:00:00.001+00\t1\t1\tfirst\n");
            assertThat(db.activeSubscriptions()).isEqualTo(1);
            w.execute("INSERT INTO t VALUES (2, 'second')");
            assertThat(next(out)).isEqualTo("1970-01-01 00:00:00.002+00\t1\t2\tsecond\n");
            w.execute("UPDATE t SET name = 'changed' WHERE id = 1");
            List<String> update = List.of(next(out), next(out));
            assertThat(update).containsExactlyInAnyOrder("1970-01-01 00:00:00.003+00\t-1\t1\tfirst\n", "1970-01-01 00:00:00.003+00\t1\t1\tchanged\n");
            // cancel through a CancelRequest on another socket: the stream ends with 57014
            c.unwrap(org.postgresql.core.BaseConnection.class).cancelQuery();
            assertThatThrownBy(() -> {
                while (true) next(out); // rows still on the way may come first
            }).isInstanceOfSatisfying(PSQLException.class, e -> {
                assertThat(e.getSQLState()).isEqualTo("57014");
                assertThat(e.getServerErrorMessage().getMessage()).isEqualTo("canceling statement due to user request");
            });
            assertThat(out.isActive()).isFalse();
            assertThat(db.activeSubscriptions()).isZero();
            try (Statement s = c.createStatement()) {
                assertThat(rows(s, "SELECT count(*) FROM t")).containsExactly("2");
            }
        }
    }

    @Test
    void droppingTheSourceEndsTheStreamAndTheCursor() throws Exception {
        try (Connection c = connect(); Connection writer = connect(); Statement w = writer.createStatement();
             Connection reader = connect(); Statement r = reader.createStatement()) {
            w.execute("CREATE TABLE t (id int)");
            w.execute("CREATE MATERIALIZED VIEW v AS SELECT count(*) AS n FROM t");
            CopyOut out = c.unwrap(PGConnection.class).getCopyAPI().copyOut("COPY (SUBSCRIBE v) TO STDOUT");
            assertThat(next(out)).isEqualTo("1970-01-01 00:00:00+00\t1\t0\n");
            reader.setAutoCommit(false);
            r.execute("DECLARE c CURSOR FOR SUBSCRIBE v");
            assertThat(rows(r, "FETCH ALL c")).hasSize(1);
            assertThat(db.activeSubscriptions()).isEqualTo(2);
            w.execute("DROP TABLE t CASCADE");
            // the stream is over: CopyDone and COPY n
            assertThat(next(out)).isNull();
            assertThat(out.getHandledRowCount()).isEqualTo(1);
            // and FETCH no longer waits
            assertThat(rows(r, "FETCH ALL c")).isEmpty();
            assertThat(db.activeSubscriptions()).isZero();
            reader.rollback();
            try (Statement s = c.createStatement()) {
                assertThat(rows(s, "SELECT 1")).containsExactly("1");
            }
        }
    }

    @Test
    void fetchFromASubscribeCursorWithTimeouts() throws Exception {
        try (Connection c = connect(); Connection writer = connect(); Statement s = c.createStatement(); Statement w = writer.createStatement()) {
            w.execute("CREATE TABLE t (id int, name text)");
            w.execute("INSERT INTO t VALUES (1, 'a'), (2, 'b')");
            assertThatThrownBy(() -> s.execute("DECLARE c CURSOR FOR SUBSCRIBE t"))
                    .isInstanceOfSatisfying(PSQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("25P01"));
            c.setAutoCommit(false);
            s.execute("DECLARE c CURSOR FOR SUBSCRIBE t");
            assertThat(rows(s, "FETCH 1 c")).hasSize(1);
            assertThat(rows(s, "FETCH ALL FROM c")).hasSize(1);
            // nothing new: the timeout passes and FETCH returns no rows
            assertThat(rows(s, "FETCH ALL c WITH (timeout = '10ms')")).isEmpty();
            assertThat(rows(s, "FETCH FORWARD 5 IN c WITH (timeout = '0s')")).isEmpty();
            w.execute("INSERT INTO t VALUES (3, 'c')");
            // without a timeout FETCH waits for the row
            assertThat(rows(s, "FETCH c")).containsExactly("1970-01-01 00:00:00.002+00|1|3|c");
            w.execute("INSERT INTO t VALUES (4, 'd')");
            assertThat(rows(s, "FETCH ALL c WITH (timeout = '1min')")).containsExactly("1970-01-01 00:00:00.003+00|1|4|d");
            assertThat(db.activeSubscriptions()).isEqualTo(1);
            s.execute("CLOSE c");
            assertThat(db.activeSubscriptions()).isZero();
            assertThatThrownBy(() -> s.execute("FETCH c")).isInstanceOfSatisfying(PSQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("34000"));
            c.rollback();

            // a cursor over a query; cursors end with the transaction
            s.execute("DECLARE q CURSOR FOR SELECT id FROM t ORDER BY id");
            s.execute("DECLARE sub CURSOR FOR SELECT * FROM t EMIT CHANGES");
            assertThat(rows(s, "FETCH 3 q")).containsExactly("1", "2", "3");
            assertThat(rows(s, "FETCH ALL q")).containsExactly("4");
            assertThat(rows(s, "FETCH ALL q")).isEmpty();
            assertThat(db.activeSubscriptions()).isEqualTo(1);
            c.commit();
            assertThat(db.activeSubscriptions()).isZero();
            assertThatThrownBy(() -> s.execute("FETCH q")).isInstanceOfSatisfying(PSQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("34000"));
            c.rollback();
        }
    }

    @Test
    @org.junit.jupiter.api.Timeout(value = 120, unit = TimeUnit.SECONDS)
    void cancelOfAFetchWaitingOnASubscribe() throws Exception {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (id int)");
            c.setAutoCommit(false);
            s.execute("DECLARE c CURSOR FOR SUBSCRIBE t");
            assertThat(rows(s, "FETCH ALL c WITH (timeout = '0s')")).isEmpty(); // the snapshot: an empty table
            CompletableFuture<List<String>> waiting = CompletableFuture.supplyAsync(() -> {
                try {
                    return rows(s, "FETCH ALL c");
                } catch (SQLException e) {
                    throw new java.util.concurrent.CompletionException(e);
                }
            });
            // a cancel that reaches the server before the FETCH does is ignored (as PostgreSQL
            // ignores one between statements), so cancel until the FETCH ends
            while (true) {
                try {
                    s.cancel();
                } catch (SQLException refused) {
                    // the cancel's own connection failed (a loaded machine): the FETCH still waits, so again below
                }
                try {
                    waiting.get(100, TimeUnit.MILLISECONDS);
                    break;
                } catch (TimeoutException stillWaiting) {
                    // the cancel came too early: again
                } catch (ExecutionException e) {
                    break;
                }
            }
            assertThatThrownBy(waiting::join).hasCauseInstanceOf(PSQLException.class)
                    .cause().satisfies(e -> {
                        assertThat(((PSQLException) e).getSQLState()).isEqualTo("57014");
                        assertThat(((PSQLException) e).getServerErrorMessage().getMessage()).isEqualTo("canceling statement due to user request");
                    });
            c.rollback();
            assertThat(db.activeSubscriptions()).isZero();
            assertThat(rows(s, "SELECT count(*) FROM t")).containsExactly("0");
        }
    }
}
