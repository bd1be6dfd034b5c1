package dev.tributary.server.pgwire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.server.Clock;
import dev.tributary.server.Tributary;
import java.io.IOException;
import java.math.BigDecimal;
import java.net.InetAddress;
import java.sql.Connection;
import java.sql.Date;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Time;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.postgresql.util.PGInterval;

/**
 * The PostgreSQL JDBC driver (pgjdbc) with its defaults against {@link PgServer}: unnamed
 * statements first, then, from the fifth run, named server-side statements with binary results;
 * {@code prepareThreshold=-1} for named statements and binary transfer from the first run;
 * {@code binaryTransfer=false} for text only. Every type as a parameter and a result, NULLs of
 * every type, batches, transactions, statements reused many times, and 100 connections at once.
 */
class JdbcPreparedTest {
    private Tributary db;
    private PgServer server;

    @BeforeEach
    void start() throws IOException {
        db = Tributary.inMemory(Clock.manual(0));
        server = new PgServer(db, InetAddress.getLoopbackAddress(), 0, 150);
    }

    @AfterEach
    void stop() throws IOException {
        server.close();
        db.close();
    }

    private Connection connect(String options) throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + server.port() + "/tributary?user=tributary" + options);
    }

    private static final String ALL_TYPES = "CREATE TABLE all_types (id int PRIMARY KEY, b boolean, i2 smallint, i4 integer, i8 bigint,"
            + " f4 real, f8 double precision, n numeric(12,3), t text, vc varchar(20), c char(5), by bytea, d date, tm time,"
            + " ts timestamp, tz timestamptz, iv interval)";

    @ParameterizedTest
    @ValueSource(strings = {"", "&prepareThreshold=-1", "&binaryTransfer=false"})
    void everyTypeAsParameterAndResultIncludingNulls(String options) throws SQLException {
        try (Connection c = connect(options); Statement s = c.createStatement()) {
            s.execute(ALL_TYPES);
            try (PreparedStatement ins = c.prepareStatement("INSERT INTO all_types VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
                // enough runs for the default threshold to switch to a named statement and binary on the way
                for (int i = 1; i <= 8; i++) {
                    ins.setInt(1, i);
                    ins.setBoolean(2, i % 2 == 0);
                    ins.setShort(3, (short) (-i * 1000));
                    ins.setInt(4, i * 100_000);
                    ins.setLong(5, i * 10_000_000_000L);
                    ins.setFloat(6, i + 0.25f);
                    ins.setDouble(7, i / 3.0);
                    ins.setBigDecimal(8, new BigDecimal(i + "12345.678").negate());
                    ins.setString(9, "text 'é' " + i);
                    ins.setString(10, "vc" + i);
                    ins.setString(11, "c" + i);
                    ins.setBytes(12, new byte[] {0, (byte) i, (byte) 0xff});
                    ins.setDate(13, Date.valueOf(LocalDate.of(2020, 1, i)));
                    ins.setTime(14, Time.valueOf(LocalTime.of(i, 30, 15)));
                    ins.setTimestamp(15, Timestamp.valueOf(LocalDateTime.of(2024, 2, i, 12, 34, 56, 789_000_000)));
                    ins.setObject(16, OffsetDateTime.of(2024, 3, i, 1, 2, 3, 0, ZoneOffset.ofHours(2)));
                    ins.setObject(17, i + " days 03:04:05.5", Types.OTHER);
                    assertThat(ins.executeUpdate()).isEqualTo(1);
                }
                ins.setInt(1, 100);
                int[] sqlTypes = {Types.BOOLEAN, Types.SMALLINT, Types.INTEGER, Types.BIGINT, Types.REAL, Types.DOUBLE, Types.NUMERIC,
                        Types.VARCHAR, Types.VARCHAR, Types.CHAR, Types.BINARY, Types.DATE, Types.TIME, Types.TIMESTAMP,
                        Types.TIMESTAMP_WITH_TIMEZONE, Types.OTHER};
                for (int k = 0; k < sqlTypes.length; k++) ins.setNull(k + 2, sqlTypes[k]);
                assertThat(ins.executeUpdate()).isEqualTo(1);
            }
            try (PreparedStatement q = c.prepareStatement("SELECT * FROM all_types WHERE id = ?")) {
                for (int round = 0; round < 3; round++) {
                    for (int i = 1; i <= 8; i++) {
                        q.setInt(1, i);
                        try (ResultSet rs = q.executeQuery()) {
                            assertThat(rs.next()).isTrue();
                            assertThat(rs.getInt("id")).isEqualTo(i);
                            assertThat(rs.getBoolean("b")).isEqualTo(i % 2 == 0);
                            assertThat(rs.getShort("i2")).isEqualTo((short) (-i * 1000));
                            assertThat(rs.getObject("i4")).isEqualTo(i * 100_000);
                            assertThat(rs.getLong("i8")).isEqualTo(i * 10_000_000_000L);
                            assertThat(rs.getFloat("f4")).isEqualTo(i + 0.25f);
                            assertThat(rs.getDouble("f8")).isEqualTo(i / 3.0);
                            assertThat(rs.getBigDecimal("n")).isEqualTo(new BigDecimal(i + "12345.678").negate());
                            assertThat(rs.getString("t")).isEqualTo("text 'é' " + i);
                            assertThat(rs.getObject("vc")).isEqualTo("vc" + i);
                            assertThat(rs.getString("c")).isEqualTo("c" + i + "   ");
                            assertThat(rs.getBytes("by")).containsExactly(0, i, 0xff);
                            assertThat(rs.getDate("d").toLocalDate()).isEqualTo(LocalDate.of(2020, 1, i));
                            assertThat(rs.getObject("d", LocalDate.class)).isEqualTo(LocalDate.of(2020, 1, i));
                            assertThat(rs.getTime("tm").toLocalTime()).isEqualTo(LocalTime.of(i, 30, 15));
                            assertThat(rs.getTimestamp("ts").toLocalDateTime()).isEqualTo(LocalDateTime.of(2024, 2, i, 12, 34, 56, 789_000_000));
                            assertThat(rs.getObject("ts", LocalDateTime.class)).isEqualTo(LocalDateTime.of(2024, 2, i, 12, 34, 56, 789_000_000));
                            assertThat(rs.getObject("tz", OffsetDateTime.class).toInstant())
                                    .isEqualTo(OffsetDateTime.of(2024, 3, i, 1, 2, 3, 0, ZoneOffset.ofHours(2)).toInstant());
                            // (stored intervals keep their span, not their months/days split: see RowCodec)
                            assertThat(rs.getString("iv")).isEqualTo(i + " day" + (i > 1 ? "s" : "") + " 03:04:05.5");
                            // (getObject of an interval has the driver look its type up with current_schemas(), not in the catalog yet)
                            assertThat(new PGInterval(rs.getString("iv"))).isEqualTo(new PGInterval(0, 0, i, 3, 4, 5.5));
                            assertThat(rs.next()).isFalse();
                        }
                    }
                }
                for (int round = 0; round < 6; round++) {
                    q.setInt(1, 100);
                    try (ResultSet rs = q.executeQuery()) {
                        assertThat(rs.next()).isTrue();
                        for (int col = 2; col <= 17; col++) {
                            assertThat(rs.getObject(col)).as("column " + col).isNull();
                            rs.getString(col);
                            assertThat(rs.wasNull()).isTrue();
                        }
                    }
                }
            }
            // parameters of every type compared against the stored values, their types inferred from the columns
            try (PreparedStatement q = c.prepareStatement("SELECT id FROM all_types WHERE b = ? AND i2 = ? AND i8 = ? AND n = ? AND vc = ?"
                    + " AND by = ? AND d = ? AND ts = ? AND tz = ? AND iv = ? AND f8 = ?")) {
                for (int round = 0; round < 7; round++) {
                    int i = 1 + round % 8;
                    q.setBoolean(1, i % 2 == 0);
                    q.setShort(2, (short) (-i * 1000));
                    q.setLong(3, i * 10_000_000_000L);
                    q.setBigDecimal(4, new BigDecimal(i + "12345.678").negate());
                    q.setString(5, "vc" + i);
                    q.setBytes(6, new byte[] {0, (byte) i, (byte) 0xff});
                    q.setObject(7, LocalDate.of(2020, 1, i));
                    q.setObject(8, LocalDateTime.of(2024, 2, i, 12, 34, 56, 789_000_000));
                    q.setObject(9, OffsetDateTime.of(2024, 3, i, 0, 2, 3, 0, ZoneOffset.ofHours(1)));
                    q.setObject(10, "P" + i + "DT3H4M5.5S", Types.OTHER);
                    q.setDouble(11, i / 3.0);
                    try (ResultSet rs = q.executeQuery()) {
                        assertThat(rs.next()).as("round " + round).isTrue();
                        assertThat(rs.getInt(1)).isEqualTo(i);
                        assertThat(rs.next()).isFalse();
                    }
                }
            }
            // describing a statement gives the inferred parameter types
            try (PreparedStatement q = c.prepareStatement("SELECT t FROM all_types WHERE i4 = ? AND tm < ?")) {
                var meta = q.getParameterMetaData();
                assertThat(meta.getParameterCount()).isEqualTo(2);
                assertThat(meta.getParameterTypeName(1)).isEqualTo("int4");
                assertThat(meta.getParameterTypeName(2)).isEqualTo("time");
                assertThat(q.getMetaData().getColumnTypeName(1)).isEqualTo("text");
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "&reWriteBatchedInserts=true", "&prepareThreshold=-1"})
    void batchInserts(String options) throws SQLException {
        try (Connection c = connect(options); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE items (id bigint PRIMARY KEY, name text, price numeric(8,2))");
            s.execute("CREATE MATERIALIZED VIEW totals AS SELECT count(*) AS n, sum(price) AS total FROM items");
            try (PreparedStatement ins = c.prepareStatement("INSERT INTO items (id, name, price) VALUES (?, ?, ?)")) {
                for (int i = 1; i <= 250; i++) {
                    ins.setLong(1, i);
                    ins.setString(2, "item " + i);
                    ins.setBigDecimal(3, BigDecimal.valueOf(i, 2));
                    ins.addBatch();
                }
                int[] counts = ins.executeBatch();
                assertThat(counts).hasSize(250);
                for (int n : counts) assertThat(n).isIn(1, Statement.SUCCESS_NO_INFO);
            }
            try (ResultSet rs = s.executeQuery("SELECT n, total FROM totals")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getLong(1)).isEqualTo(250);
                assertThat(rs.getBigDecimal(2)).isEqualByComparingTo(BigDecimal.valueOf(250 * 251 / 2, 2));
            }
            // a batch that hits a duplicate key fails as a whole, as in PostgreSQL: its statements up to
            // the Sync are one implicit transaction, so the row before the duplicate is not kept either
            try (PreparedStatement ins = c.prepareStatement("INSERT INTO items VALUES (?, ?, ?)")) {
                ins.setLong(1, 1000);
                ins.setString(2, "new");
                ins.setBigDecimal(3, BigDecimal.ONE);
                ins.addBatch();
                ins.setLong(1, 1);
                ins.setString(2, "dup");
                ins.setBigDecimal(3, BigDecimal.ONE);
                ins.addBatch();
                assertThatThrownBy(ins::executeBatch).isInstanceOf(java.sql.BatchUpdateException.class);
            }
            try (ResultSet rs = s.executeQuery("SELECT count(*) FROM items WHERE id = 1000")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getLong(1)).isZero();
            }
        }
    }

    /**
     * Autocommitted prepared INSERTs from several connections at once, each Execute directly
     * followed by Sync and so committed in the statement's own turn of the coordinator (its key
     * check not made again at the commit): of the clients inserting the same keys, exactly one
     * gets each key and every other gets 23505.
     */
    /** jsonb as a parameter (a PGobject, a string of type OTHER) and as a result: getObject is a PGobject of type jsonb. */
    @ParameterizedTest
    @ValueSource(strings = {"", "&prepareThreshold=-1", "&binaryTransfer=false"})
    void jsonbAsParameterAndResult(String options) throws SQLException {
        try (Connection c = connect(options); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE docs (id int PRIMARY KEY, j jsonb)");
            try (PreparedStatement ins = c.prepareStatement("INSERT INTO docs VALUES (?, ?)")) {
                for (int i = 1; i <= 6; i++) {
                    ins.setInt(1, i);
                    if (i % 2 == 0) {
                        org.postgresql.util.PGobject o = new org.postgresql.util.PGobject();
                        o.setType("jsonb");
                        o.setValue("{\"n\": " + i + ", \"a\": [1.50, null]}");
                        ins.setObject(2, o);
                    } else {
                        ins.setObject(2, "{\"n\": " + i + "}", Types.OTHER);
                    }
                    ins.executeUpdate();
                }
            }
            try (PreparedStatement q = c.prepareStatement("SELECT id, j, j -> 'a' FROM docs WHERE j @> ? ORDER BY id")) {
                for (int run = 0; run < 6; run++) {
                    q.setObject(1, "{\"n\": 4}", Types.OTHER);
                    try (ResultSet rs = q.executeQuery()) {
                        assertThat(rs.next()).isTrue();
                        assertThat(rs.getInt(1)).isEqualTo(4);
                        Object j = rs.getObject(2);
                        assertThat(j).isInstanceOf(org.postgresql.util.PGobject.class);
                        assertThat(((org.postgresql.util.PGobject) j).getType()).isEqualTo("jsonb");
                        assertThat(((org.postgresql.util.PGobject) j).getValue()).isEqualTo("{\"a\": [1.50, null], \"n\": 4}");
                        assertThat(rs.getString(3)).isEqualTo("[1.50, null]");
                        assertThat(rs.getMetaData().getColumnTypeName(2)).isEqualTo("jsonb");
                        assertThat(rs.next()).isFalse();
                    }
                }
            }
        }
    }

    @Test
    void racingAutocommittedInsertsOfOneKeyLetExactlyOneIn() throws Exception {
        try (Connection c = connect(""); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE once (id int PRIMARY KEY, who int)");
        }
        int clients = 4;
        int keys = 300;
        java.util.concurrent.atomic.AtomicInteger in = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicInteger refused = new java.util.concurrent.atomic.AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        try {
            List<Future<Object>> done = new ArrayList<>();
            for (int w = 0; w < clients; w++) {
                int who = w;
                done.add(pool.submit(() -> {
                    try (Connection c = connect(""); PreparedStatement ins = c.prepareStatement("INSERT INTO once VALUES (?, ?)")) {
                        for (int k = 0; k < keys; k++) {
                            ins.setInt(1, k);
                            ins.setInt(2, who);
                            try {
                                ins.executeUpdate();
                                in.incrementAndGet();
                            } catch (SQLException e) {
                                assertThat(e.getSQLState()).isEqualTo("23505");
                                refused.incrementAndGet();
                            }
                        }
                    }
                    return null;
                }));
            }
            for (Future<Object> f : done) f.get(60, TimeUnit.SECONDS);
        } finally {
            pool.shutdownNow();
        }
        assertThat(in.get()).isEqualTo(keys);
        assertThat(refused.get()).isEqualTo(keys * (clients - 1));
        try (Connection c = connect(""); Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT count(*), count(DISTINCT id) FROM once")) {
            rs.next();
            assertThat(rs.getLong(1)).isEqualTo(keys);
            assertThat(rs.getLong(2)).isEqualTo(keys);
        }
    }

    @Test
    void transactionsCommitAndRollBack() throws SQLException {
        try (Connection c = connect(""); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE acct (id int PRIMARY KEY, balance bigint)");
            c.setAutoCommit(false);
            try (PreparedStatement ins = c.prepareStatement("INSERT INTO acct VALUES (?, ?)");
                 PreparedStatement get = c.prepareStatement("SELECT balance FROM acct WHERE id = ?")) {
                ins.setInt(1, 1);
                ins.setLong(2, 100);
                ins.executeUpdate();
                get.setInt(1, 1);
                try (ResultSet rs = get.executeQuery()) {
                    assertThat(rs.next()).isTrue(); // a block sees its own writes
                    assertThat(rs.getLong(1)).isEqualTo(100);
                }
                c.rollback();
                try (ResultSet rs = get.executeQuery()) {
                    assertThat(rs.next()).isFalse();
                }
                for (int i = 1; i <= 10; i++) {
                    ins.setInt(1, i);
                    ins.setLong(2, i * 10L);
                    ins.executeUpdate();
                }
                c.commit();
                // an error aborts the block: later statements are refused until rollback
                ins.setInt(1, 1);
                assertThatThrownBy(ins::executeUpdate).isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("23505"));
                assertThatThrownBy(get::executeQuery).isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("25P02"));
                c.rollback();
                c.setAutoCommit(true);
                try (PreparedStatement move = c.prepareStatement("UPDATE acct SET balance = balance + ? WHERE id = ?")) {
                    c.setAutoCommit(false);
                    move.setLong(1, -5);
                    move.setInt(2, 1);
                    assertThat(move.executeUpdate()).isEqualTo(1);
                    move.setLong(1, 5);
                    move.setInt(2, 2);
                    assertThat(move.executeUpdate()).isEqualTo(1);
                    c.commit();
                    c.setAutoCommit(true);
                }
                try (ResultSet rs = s.executeQuery("SELECT count(*), sum(balance), min(balance) FROM acct")) {
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getLong(1)).isEqualTo(10);
                    assertThat(rs.getLong(2)).isEqualTo(550);
                    assertThat(rs.getLong(3)).isEqualTo(5);
                }
            }
        }
    }

    @Test
    void namedStatementsReusedManyTimes() throws SQLException {
        try (Connection c = connect("&prepareThreshold=2"); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE kv (k int, v text)");
            s.execute("CREATE MATERIALIZED VIEW kv2 AS SELECT k, upper(v) AS v FROM kv");
            s.execute("CREATE INDEX kv2_k ON kv2 (k)");
            try (PreparedStatement ins = c.prepareStatement("INSERT INTO kv VALUES (?, ?)")) {
                for (int i = 0; i < 300; i++) {
                    ins.setInt(1, i);
                    ins.setString(2, "v" + i);
                    ins.executeUpdate();
                }
            }
            try (PreparedStatement get = c.prepareStatement("SELECT v FROM kv2 WHERE k = ?")) {
                get.setFetchSize(1);
                for (int i = 299; i >= 0; i--) {
                    get.setInt(1, i);
                    try (ResultSet rs = get.executeQuery()) {
                        assertThat(rs.next()).isTrue();
                        assertThat(rs.getString(1)).isEqualTo("V" + i);
                        assertThat(rs.next()).isFalse();
                    }
                }
                // the catalog changes under the named statement: it is bound again, still correct
                s.execute("CREATE INDEX kv2_v ON kv2 (v)");
                get.setInt(1, 7);
                try (ResultSet rs = get.executeQuery()) {
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getString(1)).isEqualTo("V7");
                }
            }
        }
    }

    @Test
    void aHundredConcurrentConnectionsReadAndWrite() throws Exception {
        try (Connection c = connect(""); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE events (client int, seq int, payload text)");
            s.execute("CREATE MATERIALIZED VIEW per_client AS SELECT client, count(*) AS n, max(seq) AS last FROM events GROUP BY client");
            s.execute("CREATE INDEX per_client_client ON per_client (client)");
        }
        int clients = 100;
        int writes = 10;
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        try {
            List<Future<List<Long>>> futures = new ArrayList<>();
            for (int id = 0; id < clients; id++) {
                int client = id;
                futures.add(pool.submit(() -> {
                    List<Long> seen = new ArrayList<>();
                    try (Connection c = connect(client % 2 == 0 ? "" : "&prepareThreshold=-1");
                         PreparedStatement ins = c.prepareStatement("INSERT INTO events VALUES (?, ?, ?)");
                         PreparedStatement get = c.prepareStatement("SELECT n, last FROM per_client WHERE client = ?")) {
                        for (int k = 1; k <= writes; k++) {
                            ins.setInt(1, client);
                            ins.setInt(2, k);
                            ins.setString(3, "c" + client + "#" + k);
                            ins.executeUpdate();
                            get.setInt(1, client);
                            try (ResultSet rs = get.executeQuery()) {
                                if (!rs.next()) throw new AssertionError("client " + client + " lost its rows");
                                if (rs.getInt(2) != k) throw new AssertionError("client " + client + " read last " + rs.getInt(2) + " after writing " + k);
                                seen.add(rs.getLong(1));
                            }
                        }
                    }
                    return seen;
                }));
            }
            List<Long> expected = new ArrayList<>();
            for (long k = 1; k <= writes; k++) expected.add(k);
            for (Future<List<Long>> f : futures) assertThat(f.get(120, TimeUnit.SECONDS)).isEqualTo(expected);
        } finally {
            pool.shutdownNow();
        }
        try (Connection c = connect(""); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*), count(DISTINCT client), sum(n) FROM per_client")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getLong(1)).isEqualTo(clients);
            assertThat(rs.getLong(2)).isEqualTo(clients);
            assertThat(rs.getLong(3)).isEqualTo((long) clients * writes);
        }
    }
}
