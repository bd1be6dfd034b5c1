package dev.tributary.nexmark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import dev.tributary.nexmark.NexmarkGenerator.Kind;
import dev.tributary.server.Clock;
import dev.tributary.server.Result;
import dev.tributary.server.Subscription;
import dev.tributary.server.Tributary;
import dev.tributary.sql.SqlException;
import java.time.LocalDateTime;
import java.math.BigDecimal;
import java.math.MathContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.TestInstance;

/**
 * Every Nexmark query, maintained as a materialized view while the events arrive in chunks, ends
 * with the result DuckDB computes in batch over the same events (read from the same CSV files);
 * and so does the same view created over the loaded events, and the query run once. Multisets of
 * rows, numbers compared to 12 significant digits (an average is a numeric here and a double in
 * DuckDB). {@code -Dtributary.nexmark.events=100000} runs the size; the default is a
 * fifth of it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class NexmarkQueriesTest {
    private static final long EVENTS = Long.getLong("tributary.nexmark.events", 20_000);
    private static final int CHUNKS = 16;

    private Tributary db;
    private Connection duck;

    @BeforeAll
    void load(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        NexmarkGenerator generator = new NexmarkGenerator();
        generator.writeFiles(dir, EVENTS);
        duck = DriverManager.getConnection("jdbc:duckdb:");
        try (Statement st = duck.createStatement()) {
            for (String ddl : NexmarkQueries.TABLES) st.execute(NexmarkQueries.forDuckDb(ddl));
            for (Kind k : Kind.values()) {
                String table = NexmarkLoader.table(k);
                st.execute("COPY " + table + " FROM '" + dir.resolve(table + ".csv") + "' (FORMAT csv, HEADER false)");
            }
            for (String sql : NexmarkQueries.SIDE_INPUT) st.execute(sql.replace("generate_series(0, 9999) AS g(k)", "range(0, 10000) AS g(k)"));
        }
        db = Tributary.inMemory(Clock.manual(0), 2);
        NexmarkLoader.createTables(db);
        for (NexmarkQueries.Query q : queries()) db.execute("CREATE MATERIALIZED VIEW " + q.name() + " AS " + q.sql());
        Tributary.Connection session = db.session();
        for (NexmarkGenerator.Lines chunk : NexmarkLoader.chunks(generator, EVENTS, (int) ((EVENTS + CHUNKS - 1) / CHUNKS))) {
            NexmarkLoader.load(session, chunk, EnumSet.allOf(Kind.class));
        }
        // the streaming queries, on a database of their own: subscribed before the events come,
        // then one event per table far in the future moves the watermark past every window of
        // the events (its own windows stay open, so it is in no result)
        streaming = Tributary.inMemory(Clock.manual(0), 2);
        NexmarkLoader.createTables(streaming);
        for (NexmarkQueries.Query q : NexmarkQueries.STREAMING.values()) {
            Collector c = new Collector();
            c.subscription = streaming.subscribe("SUBSCRIBE (" + q.sql() + ") WITH (PROGRESS)", c);
            streams.put(q.name(), c);
        }
        Tributary.Connection s = streaming.session();
        for (NexmarkGenerator.Lines chunk : NexmarkLoader.chunks(generator, EVENTS, (int) ((EVENTS + CHUNKS - 1) / CHUNKS))) {
            NexmarkLoader.load(s, chunk, EnumSet.allOf(Kind.class));
        }
        streaming.execute("INSERT INTO bid VALUES (0, 0, 0, '', '', TIMESTAMP '" + FAR + "', '')");
        streaming.execute("INSERT INTO person VALUES (0, '', '', '', '', '', TIMESTAMP '" + FAR + "', '')");
        streaming.execute("INSERT INTO auction VALUES (0, '', '', 0, 0, TIMESTAMP '" + FAR + "', TIMESTAMP '" + FAR + "', 0, 0, '')");
    }

    private static final LocalDateTime FAR = LocalDateTime.of(2100, 1, 1, 0, 0);
    private Tributary streaming;

    /** A streaming query's deliveries: its rows (each +1: a window's rows come once) and how far its watermark has gone. */
    private static final class Collector implements Subscription.Listener {
        final List<String> rows = new ArrayList<>();
        final List<String> retracted = new ArrayList<>();
        LocalDateTime progressed = LocalDateTime.MIN;
        SqlException error;
        Subscription subscription;

        @Override
        public synchronized void onChanges(Result batch) {
            for (Object[] r : batch.rows()) {
                if (Boolean.TRUE.equals(r[1])) {
                    progressed = (LocalDateTime) r[0];
                    notifyAll();
                    continue;
                }
                List<String> row = new ArrayList<>();
                for (int i = 3; i < r.length; i++) row.add(r[i] == null ? null : dev.tributary.sql.types.Values.toText(r[i], batch.types().get(i)));
                for (long n = (Long) r[2]; n > 0; n--) rows.add(normalise(row));
                if ((Long) r[2] < 0) retracted.add(normalise(row));
            }
        }

        @Override
        public synchronized void onError(SqlException e) {
            error = e;
            notifyAll();
        }

        /** Waits (up to a minute) until the watermark reaches {@code w}. */
        synchronized void await(LocalDateTime w) throws InterruptedException {
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (progressed.isBefore(w) && error == null && System.nanoTime() < deadline) wait(1_000);
        }
    }

    private final java.util.Map<String, Collector> streams = new java.util.LinkedHashMap<>();

    /**
     * The windowed queries as continuous queries in event time (subscribed before the events came):
     * once the watermark has passed every window of the events, each window's rows came once,
     * never retracted, and they are DuckDB's batch result; and no event came late.
     */
    @TestFactory
    Stream<DynamicTest> eachStreamingQueryGivesEachClosedWindowOnceAsDuckDBComputesIt() {
        return NexmarkQueries.STREAMING.values().stream().map(q -> dynamicTest(q.name(), () -> {
            LocalDateTime watermark = FAR.minus(NexmarkQueries.WATERMARK_DELAY);
            Collector c = streams.get(q.name());
            c.await(watermark);
            List<String> actual;
            synchronized (c) {
                assertThat(c.error).as(q.name()).isNull();
                assertThat(c.progressed).as(q.name() + "'s watermark").isEqualTo(watermark);
                assertThat(c.retracted).as(q.name() + " never retracts a window").isEmpty();
                actual = new ArrayList<>(c.rows);
            }
            actual.sort(null);
            List<String> expected = duckDb(q.duckSql());
            assertThat(expected).as(q.name() + " has rows on this data (or it checks nothing)").isNotEmpty();
            assertThat(actual).as(q.name() + " in event time").isEqualTo(expected);
            assertThat(c.subscription.status().lateRows()).as(q.name() + "'s late rows").isZero();
        }));
    }

    /** q12, over processing time: its windows are ten seconds of commit times, and its counts add up to the bids. */
    @org.junit.jupiter.api.Test
    void q12CountsEveryBidInWindowsOfProcessingTime() throws Exception {
        db.execute("CREATE MATERIALIZED VIEW q12 AS " + NexmarkQueries.Q12.sql());
        try {
            long bids = Long.parseLong(duckDb(NexmarkQueries.Q12.duckSql()).get(0));
            assertThat(db.query("SELECT sum(bid_count) FROM q12").text().get(0).get(0)).isEqualTo(String.valueOf(bids));
            assertThat(db.query("SELECT count(*) FROM q12 WHERE window_end - window_start <> INTERVAL '10 seconds'").text().get(0).get(0)).isEqualTo("0");
        } finally {
            db.execute("DROP MATERIALIZED VIEW q12");
        }
    }

    @AfterAll
    void close() throws Exception {
        for (Collector c : streams.values()) if (c.subscription != null) c.subscription.close();
        if (streaming != null) streaming.close();
        if (db != null) db.close();
        if (duck != null) duck.close();
    }

    @TestFactory
    Stream<DynamicTest> eachQueryMaintainedEqualsDuckDBsBatchResult() {
        return queries().stream().map(q -> dynamicTest(q.name(), () -> {
            List<String> expected = duckDb(q.duckSql());
            assertThat(expected).as(q.name() + " has rows on this data (or it checks nothing)").isNotEmpty();
            assertThat(tributary("SELECT * FROM " + q.name())).as(q.name() + " maintained while the events arrived").isEqualTo(expected);
            db.execute("CREATE MATERIALIZED VIEW " + q.name() + "_late AS " + q.sql());
            try {
                assertThat(tributary("SELECT * FROM " + q.name() + "_late")).as(q.name() + " built over the loaded events").isEqualTo(expected);
            } finally {
                db.execute("DROP MATERIALIZED VIEW " + q.name() + "_late");
            }
        }));
    }

    /** Every query, and q8 as the Flink harness spells it. */
    private static List<NexmarkQueries.Query> queries() {
        List<NexmarkQueries.Query> all = new ArrayList<>(NexmarkQueries.all());
        all.add(NexmarkQueries.Q8_IN_FORM);
        return all;
    }

    private List<String> tributary(String sql) {
        List<String> rows = new ArrayList<>();
        for (List<String> row : db.query(sql).text()) rows.add(normalise(row));
        rows.sort(null);
        return rows;
    }

    private List<String> duckDb(String sql) throws Exception {
        List<String> rows = new ArrayList<>();
        try (Statement st = duck.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            int n = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                List<String> row = new ArrayList<>();
                for (int i = 1; i <= n; i++) row.add(rs.getString(i));
                rows.add(normalise(row));
            }
        }
        rows.sort(null);
        return rows;
    }

    /** One row as text: numbers to 12 significant digits, times without a zero fraction. */
    private static String normalise(List<String> row) {
        StringBuilder sb = new StringBuilder();
        for (String v : row) {
            if (!sb.isEmpty()) sb.append('|');
            if (v == null) {
                sb.append("NULL");
            } else if (v.matches("-?\\d+(\\.\\d+)?([eE][-+]?\\d+)?")) {
                sb.append(new BigDecimal(v).round(new MathContext(12)).stripTrailingZeros().toPlainString());
            } else if (v.matches("\\d{4}-\\d\\d-\\d\\d[ T]\\d\\d:\\d\\d(:\\d\\d(\\.\\d+)?)?")) {
                String t = v.replace('T', ' ');
                if (t.length() == 16) t += ":00";
                if (t.contains(".")) t = t.replaceAll("0+$", "").replaceAll("\\.$", "");
                sb.append(t);
            } else {
                sb.append(v);
            }
        }
        return sb.toString();
    }
}
