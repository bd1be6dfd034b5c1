package dev.tributary.server.pgwire;

import static dev.tributary.server.pgwire.WireClient.bind;
import static dev.tributary.server.pgwire.WireClient.close;
import static dev.tributary.server.pgwire.WireClient.describe;
import static dev.tributary.server.pgwire.WireClient.execute;
import static dev.tributary.server.pgwire.WireClient.parse;
import static dev.tributary.server.pgwire.WireClient.query;
import static dev.tributary.server.pgwire.WireClient.sync;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.sql.types.SqlType;
import dev.tributary.sql.types.Values;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The extended query protocol message by message: parameters of every type in binary and text,
 * results in binary (one format for all, one per column) and text, descriptions that come from
 * the prepared statement without running it, row limits, named and unnamed statements and
 * portals, and errors that skip to Sync and leave the connection usable.
 */
class ExtendedProtocolTest extends LocalServerTest {
    /** The columns of table {@code every}, with their OIDs and a value of each in text. */
    private static final String[] NAMES = {"b", "i2", "i4", "i8", "f4", "f8", "n", "t", "vc", "c", "by", "d", "tm", "ts", "tz", "iv"};
    private static final SqlType[] TYPES = {SqlType.BOOLEAN, SqlType.SMALLINT, SqlType.INTEGER, SqlType.BIGINT, SqlType.REAL,
            SqlType.DOUBLE, SqlType.NUMERIC, SqlType.TEXT, SqlType.VARCHAR, SqlType.of(SqlType.Kind.CHAR), SqlType.BYTEA, SqlType.DATE,
            SqlType.TIME, SqlType.TIMESTAMP, SqlType.TIMESTAMPTZ, SqlType.INTERVAL};
    private static final int[] OIDS = {16, 21, 23, 20, 700, 701, 1700, 25, 1043, 1042, 17, 1082, 1083, 1114, 1184, 1186};
    private static final String[] TEXTS = {"true", "-12345", "2000000000", "-9000000000000000000", "1.5", "2.718281828459045",
            "-98765.4321", "héllo 'world'", "varying", "x", "\\x00ff7f", "2024-02-29", "23:59:59.999999",
            "1999-12-31 23:59:59.5", "2000-01-01 00:00:00+00", "3 days 04:05:06.000007"};

    private static byte[] binary(int i) {
        return PgBinary.encode(Values.fromText(TEXTS[i], TYPES[i]), TYPES[i]);
    }

    @Test
    void everyTypeInBinaryAndTextBothWays() throws IOException {
        db.execute("CREATE TABLE every (id int, b boolean, i2 smallint, i4 int, i8 bigint, f4 real, f8 double precision, n numeric,"
                + " t text, vc varchar, c char, by bytea, d date, tm time, ts timestamp, tz timestamptz, iv interval)");
        try (WireClient c = WireClient.connect(server.port())) {
            // declared types, all binary: a row with values, then a row of NULLs
            int n = NAMES.length;
            int[] oids = new int[n + 1];
            oids[0] = 23;
            System.arraycopy(OIDS, 0, oids, 1, n);
            StringBuilder sql = new StringBuilder("INSERT INTO every VALUES ($1");
            for (int i = 2; i <= n + 1; i++) sql.append(", $").append(i);
            sql.append(")");
            byte[][] values = new byte[n + 1][];
            values[0] = PgBinary.encode(1L, SqlType.INTEGER);
            for (int i = 0; i < n; i++) values[i + 1] = binary(i);
            byte[][] nulls = new byte[n + 1][];
            nulls[0] = PgBinary.encode(2L, SqlType.INTEGER);
            c.send(parse("ins", sql.toString(), oids), bind("", "ins", new int[] {1}, values, new int[0]), execute("", 0),
                    bind("", "ins", new int[] {1}, nulls, new int[0]), execute("", 0), sync());
            assertThat(c.briefUntilReady()).containsExactly("1", "2", "C INSERT 0 1", "2", "C INSERT 0 1", "Z I");
            // the same with types inferred and text values
            c.send(parse("", sql.toString().replace("VALUES ($1", "VALUES ($1")),
                    bind("", "", textValues(3)), execute("", 0), sync());
            assertThat(c.briefUntilReady()).containsExactly("1", "2", "C INSERT 0 1", "Z I");

            // Describe statement: the inferred parameter type and the columns, formats not yet known (0)
            c.send(parse("sel", "SELECT " + String.join(", ", NAMES) + " FROM every WHERE id = $1"), describe('S', "sel"), sync());
            List<String> described = c.briefUntilReady();
            StringBuilder columns = new StringBuilder();
            for (int i = 0; i < n; i++) columns.append(i == 0 ? "" : "|").append(NAMES[i]).append(':').append(OIDS[i]).append(":0");
            assertThat(described).containsExactly("1", "t 23", "T " + columns, "Z I");

            // binary results, one format for all; the parameter in binary
            for (long id : new long[] {1, 3}) {
                c.send(bind("", "sel", new int[] {1}, new byte[][] {PgBinary.encode(id, SqlType.INTEGER)}, new int[] {1}),
                        describe('P', ""), execute("", 0), sync());
                List<WireClient.Msg> got = c.untilReady();
                assertThat(got.get(1).description()).isEqualTo(columns.toString().replace(":0", ":1"));
                List<byte[]> row = got.get(2).columns();
                for (int i = 0; i < n; i++) assertThat(row.get(i)).as(NAMES[i]).isEqualTo(binary(i));
            }
            // one format per column, alternating; and the NULL row
            int[] mixed = new int[n];
            for (int i = 0; i < n; i++) mixed[i] = i % 2;
            c.send(bind("p", "sel", new int[0], new byte[][] {"1".getBytes()}, mixed), execute("p", 0),
                    bind("q", "sel", new int[0], new byte[][] {"2".getBytes()}, new int[] {1}), execute("q", 0), sync());
            List<WireClient.Msg> got = c.untilReady();
            List<byte[]> row = got.get(1).columns();
            for (int i = 0; i < n; i++) {
                byte[] expected = mixed[i] == 1 ? binary(i) : Values.toText(Values.fromText(TEXTS[i], TYPES[i]), TYPES[i]).getBytes(StandardCharsets.UTF_8);
                assertThat(row.get(i)).as(NAMES[i]).isEqualTo(expected);
            }
            assertThat(got.get(4).columns()).containsOnlyNulls().hasSize(n);
            // text results read back as the values' text forms
            c.send(bind("", "sel", "3"), execute("", 0), sync());
            List<String> text = c.briefUntilReady();
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < n; i++) expected.add(Values.toText(Values.fromText(TEXTS[i], TYPES[i]), TYPES[i]));
            assertThat(text).containsExactly("2", "D " + String.join("|", expected), "C SELECT 1", "Z I");
        }
    }

    /** NaN, the infinities and the infinite dates and timestamps as binary parameters, stored, and sent back in both formats. */
    @Test
    void nonFiniteValuesInBinaryBothWays() throws IOException {
        db.execute("CREATE TABLE special (id int, n numeric, d date, ts timestamp, tz timestamptz)");
        SqlType[] types = {SqlType.NUMERIC, SqlType.DATE, SqlType.TIMESTAMP, SqlType.TIMESTAMPTZ};
        String[][] rows = {{"NaN", "infinity", "infinity", "-infinity"}, {"Infinity", "-infinity", "-infinity", "infinity"},
                {"-Infinity", "infinity", "-infinity", "infinity"}};
        try (WireClient c = WireClient.connect(server.port())) {
            c.send(parse("ins", "INSERT INTO special VALUES ($1, $2, $3, $4, $5)", new int[] {23, 1700, 1082, 1114, 1184}), sync());
            c.briefUntilReady();
            for (int r = 0; r < rows.length; r++) {
                byte[][] values = new byte[5][];
                values[0] = PgBinary.encode((long) r, SqlType.INTEGER);
                for (int i = 0; i < 4; i++) values[i + 1] = PgBinary.encode(Values.fromText(rows[r][i], types[i]), types[i]);
                c.send(bind("", "ins", new int[] {1}, values, new int[0]), execute("", 0), sync());
                assertThat(c.briefUntilReady()).containsExactly("2", "C INSERT 0 1", "Z I");
            }
            c.send(parse("sel", "SELECT n, d, ts, tz FROM special WHERE id = $1"), sync());
            c.briefUntilReady();
            for (int r = 0; r < rows.length; r++) {
                c.send(bind("", "sel", new int[] {1}, new byte[][] {PgBinary.encode((long) r, SqlType.INTEGER)}, new int[] {1}), execute("", 0), sync());
                List<byte[]> row = c.untilReady().get(1).columns();
                for (int i = 0; i < 4; i++) {
                    assertThat(row.get(i)).as(rows[r][i]).isEqualTo(PgBinary.encode(Values.fromText(rows[r][i], types[i]), types[i]));
                }
                c.send(bind("", "sel", String.valueOf(r)), execute("", 0), sync());
                assertThat(c.briefUntilReady()).containsExactly("2", "D " + String.join("|", rows[r]), "C SELECT 1", "Z I");
            }
        }
    }

    private static String[] textValues(long id) {
        String[] v = new String[TEXTS.length + 1];
        v[0] = String.valueOf(id);
        System.arraycopy(TEXTS, 0, v, 1, TEXTS.length);
        return v;
    }

    @Test
    void describeDoesNotRunAndRowLimitsSuspend() throws IOException {
        db.execute("CREATE TABLE t (a int, b text)");
        try (WireClient c = WireClient.connect(server.port())) {
            c.send(parse("ins", "INSERT INTO t VALUES ($1, $2)"), describe('S', "ins"), sync());
            assertThat(c.briefUntilReady()).containsExactly("1", "t 23|25", "n", "Z I");
            assertThat(db.query("SELECT count(*) FROM t").text()).containsExactly(List.of("0"));
            for (int i = 1; i <= 5; i++) {
                c.send(bind("", "ins", String.valueOf(i), i == 3 ? null : "v" + i), describe('P', ""), execute("", 0));
            }
            c.send(sync());
            assertThat(c.briefUntilReady()).containsExactly("2", "n", "C INSERT 0 1", "2", "n", "C INSERT 0 1", "2", "n", "C INSERT 0 1",
                    "2", "n", "C INSERT 0 1", "2", "n", "C INSERT 0 1", "Z I");
            c.send(query("BEGIN"));
            assertThat(c.briefUntilReady()).containsExactly("C BEGIN", "Z T");
            c.send(parse("", "SELECT a, b FROM t WHERE a >= $1 ORDER BY a"), bind("cur", "", "2"), execute("cur", 2), execute("cur", 2),
                    execute("cur", 2), sync());
            assertThat(c.briefUntilReady()).containsExactly("1", "2", "D 2|v2", "D 3|NULL", "s", "D 4|v4", "D 5|v5", "C SELECT 4", "C SELECT 4", "Z T");
            c.send(close('P', "cur"), close('S', ""), execute("cur", 0), sync());
            // an error in a transaction block fails it, protocol-level errors too, as in PostgreSQL
            assertThat(c.briefUntilReady()).containsExactly("3", "3", "E 34000", "Z E");
            c.send(query("COMMIT"));
            assertThat(c.briefUntilReady()).containsExactly("C ROLLBACK", "Z I");
            // portals live until the transaction ends; closing a statement closes its portals
            c.send(parse("st", "SELECT a FROM t WHERE a = $1"), bind("kept", "st", "1"), sync(), execute("kept", 0), sync());
            assertThat(c.briefUntilReady()).containsExactly("1", "2", "Z I");
            assertThat(c.briefUntilReady()).containsExactly("E 34000", "Z I");
            c.send(query("BEGIN"), bind("kept", "st", "1"), sync(), execute("kept", 0), close('S', "st"), execute("kept", 0), sync(),
                    query("ROLLBACK"));
            assertThat(c.briefUntilReady()).containsExactly("C BEGIN", "Z T");
            assertThat(c.briefUntilReady()).containsExactly("2", "Z T");
            assertThat(c.briefUntilReady()).containsExactly("D 1", "C SELECT 1", "3", "E 34000", "Z E");
            assertThat(c.briefUntilReady()).containsExactly("C ROLLBACK", "Z I");
            // statements whose columns only running tells (they change nothing) are run to describe them
            c.send(parse("", "SHOW TABLES"), describe('S', ""), bind("", ""), describe('P', ""), execute("", 0), sync());
            assertThat(c.briefUntilReady()).containsExactly("1", "t ", "T name:25:0", "2", "T name:25:0", "D t", "C SHOW", "Z I");
            // the empty statement
            c.send(parse("", ""), bind("", ""), describe('P', ""), execute("", 0), sync());
            assertThat(c.briefUntilReady()).containsExactly("1", "2", "n", "I", "Z I");
        }
    }

    @Test
    void errorsSkipToSyncAndTheConnectionGoesOn() throws IOException {
        db.execute("CREATE TABLE t (a int, d date)");
        try (WireClient c = WireClient.connect(server.port())) {
            // malformed binary: 22P03, the rest of the batch skipped up to Sync
            c.send(parse("", "INSERT INTO t VALUES ($1, $2)"), bind("", "", new int[] {1}, new byte[][] {{0, 1}, {0, 0, 0, 1}}, new int[0]),
                    execute("", 0), sync());
            assertThat(c.briefUntilReady()).containsExactly("1", "E 22P03", "Z I");
            c.send(parse("", "INSERT INTO t VALUES ($1, $2)"), bind("", "", "x", "2024-01-01"), sync());
            assertThat(c.briefUntilReady()).containsExactly("1", "E 22P02", "Z I");
            c.send(parse("", "INSERT INTO t VALUES ($1, $2)"), bind("", "", "1"), sync());
            assertThat(c.briefUntilReady()).containsExactly("1", "E 08P01", "Z I");
            c.send(parse("", "SELECT $2::int"), sync());
            assertThat(c.briefUntilReady()).containsExactly("E 42P18", "Z I");
            c.send(parse("", "SELECT 1; SELECT 2"), sync());
            assertThat(c.briefUntilReady()).containsExactly("E 42601", "Z I");
            c.send(bind("", "nope"), sync());
            assertThat(c.briefUntilReady()).containsExactly("E 26000", "Z I");
            c.send(parse("s1", "SELECT 1"), parse("s1", "SELECT 2"), sync());
            assertThat(c.briefUntilReady()).containsExactly("1", "E 42P05", "Z I");
            c.send(parse("", "SELECT a FROM t"), bind("", "", new int[0], new byte[0][], new int[] {1, 1}), sync());
            assertThat(c.briefUntilReady()).containsExactly("1", "E 08P01", "Z I");
            c.send(parse("", "SELECT a FROM t"), bind("", "", new int[0], new byte[0][], new int[] {7}), sync());
            assertThat(c.briefUntilReady()).containsExactly("1", "E 22023", "Z I");
            c.send(parse("", "SELECT * FROM t WHERE a = $1", 142), sync()); // xml, a type Tributary does not have
            assertThat(c.briefUntilReady()).containsExactly("E 42704", "Z I");
            // the statements up to a Sync are one transaction: an error drops the writes before it
            c.send(parse("", "INSERT INTO t VALUES ($1, $2)"), bind("", "", "100", "2024-01-01"), execute("", 0),
                    bind("", "", "101", "not a date"), execute("", 0), sync());
            assertThat(c.briefUntilReady()).containsExactly("1", "2", "C INSERT 0 1", "E 22007", "Z I");
            assertThat(db.query("SELECT count(*) FROM t").text()).containsExactly(List.of("0"));
            // BEGIN inside it makes it an ordinary block, keeping what came before
            c.send(parse("", "INSERT INTO t VALUES ($1, $2)"), bind("", "", "200", "2024-01-01"), execute("", 0),
                    parse("", "BEGIN"), bind("", ""), execute("", 0), sync());
            assertThat(c.briefUntilReady()).containsExactly("1", "2", "C INSERT 0 1", "1", "2", "C BEGIN", "Z T");
            c.send(query("ROLLBACK"));
            assertThat(c.briefUntilReady()).containsExactly("C ROLLBACK", "Z I");
            assertThat(db.query("SELECT count(*) FROM t").text()).containsExactly(List.of("0"));
            // and after all that, the statement works
            c.send(parse("", "INSERT INTO t VALUES ($1, $2)"), bind("", "", new int[] {1, 0},
                    new byte[][] {PgBinary.encode(7L, SqlType.INTEGER), "2024-01-01".getBytes()}, new int[0]), execute("", 0),
                    parse("", "SELECT a, d FROM t"), bind("", ""), execute("", 0), sync());
            assertThat(c.briefUntilReady()).containsExactly("1", "2", "C INSERT 0 1", "1", "2", "D 7|2024-01-01", "C SELECT 1", "Z I");
        }
    }
}
