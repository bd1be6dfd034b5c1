package dev.tributary.propertytests.sql;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.server.Clock;
import dev.tributary.server.Tributary;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * ASOF JOIN against DuckDB's: materialized views of trades ASOF [LEFT] JOIN prices with each of
 * the four inequalities (and Snowflake's MATCH_CONDITION spelling), kept through random
 * transactions of inserts, updates and deletes on both sides (NULL keys among the trades), equal
 * after every transaction to DuckDB's ASOF JOIN over the same rows. The prices hold one row per
 * (sym, t), as DuckDB leaves the pick among tied right rows open. No trade has a NULL time:
 * DuckDB 1.x matches one with the latest price, where {@code NULL >= p.t} is not true and
 * Tributary matches nothing (server's {@code AsofJoinTest}). Seeds by
 * worker count: 1, 2 and 3 workers; {@code -Dtributary.asof.rounds=N} runs longer.
 */
class AsofJoinOracleTest {
    private static final int ROUNDS = Integer.getInteger("tributary.asof.rounds", 40);
    private static final List<String> VIEWS = List.of(
            "SELECT tr.id, tr.sym, tr.t, p.t AS pt, p.px FROM trades tr ASOF JOIN prices p ON tr.sym = p.sym AND tr.t >= p.t",
            "SELECT tr.id, tr.sym, tr.t, p.t AS pt, p.px FROM trades tr ASOF JOIN prices p ON tr.sym = p.sym AND tr.t > p.t",
            "SELECT tr.id, tr.sym, tr.t, p.t AS pt, p.px FROM trades tr ASOF JOIN prices p ON tr.sym = p.sym AND tr.t <= p.t",
            "SELECT tr.id, tr.sym, tr.t, p.t AS pt, p.px FROM trades tr ASOF JOIN prices p ON p.t > tr.t AND p.sym = tr.sym",
            "SELECT tr.id, tr.sym, tr.t, p.t AS pt, p.px FROM trades tr ASOF LEFT JOIN prices p ON tr.sym = p.sym AND tr.t >= p.t",
            "SELECT tr.id, tr.sym, tr.t, p.t AS pt, p.px FROM trades tr ASOF LEFT JOIN prices p ON tr.sym = p.sym AND tr.t < p.t",
            "SELECT tr.id, p.px FROM trades tr ASOF LEFT JOIN prices p ON tr.sym + 1 = p.sym + 1 AND tr.t + 1 >= p.t");

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3})
    void maintainedAsofJoinsEqualDuckDBs(int workers) throws Exception {
        Random random = new Random(900 + workers);
        try (Tributary db = Tributary.inMemory(Clock.manual(0), workers); Connection duck = DriverManager.getConnection("jdbc:duckdb:")) {
            for (String ddl : List.of("CREATE TABLE trades (id int, sym int, t int, qty int)", "CREATE TABLE prices (sym int, t int, px int)")) {
                db.execute(ddl);
                duck(duck, ddl);
            }
            for (int v = 0; v < VIEWS.size(); v++) db.execute("CREATE MATERIALIZED VIEW v" + v + " AS " + VIEWS.get(v));
            db.execute("CREATE MATERIALIZED VIEW snowflake AS SELECT tr.id, p.px FROM trades tr ASOF JOIN prices p MATCH_CONDITION(tr.t >= p.t) ON tr.sym = p.sym");
            Map<Integer, Integer> trades = new HashMap<>(); // id -> count of rows with that id
            Set<List<Integer>> prices = new HashSet<>();
            int nextId = 0;
            for (int round = 0; round < ROUNDS; round++) {
                List<String> tx = new ArrayList<>();
                for (int c = random.nextInt(5); c >= 0; c--) {
                    int op = random.nextInt(6);
                    if (op < 2) {
                        String sym = random.nextInt(10) == 0 ? "NULL" : String.valueOf(random.nextInt(3));
                        String t = String.valueOf(random.nextInt(30));
                        int id = random.nextInt(4) == 0 && nextId > 0 ? random.nextInt(nextId) : nextId++;
                        tx.add("INSERT INTO trades VALUES (" + id + ", " + sym + ", " + t + ", " + random.nextInt(9) + ")");
                        trades.merge(id, 1, Integer::sum);
                    } else if (op == 2 && !trades.isEmpty()) {
                        int id = new ArrayList<>(trades.keySet()).get(random.nextInt(trades.size()));
                        tx.add(random.nextBoolean() ? "DELETE FROM trades WHERE id = " + id : "UPDATE trades SET t = " + random.nextInt(30) + " WHERE id = " + id);
                        if (tx.get(tx.size() - 1).startsWith("DELETE")) trades.remove(id);
                    } else if (op < 5) {
                        List<Integer> key = List.of(random.nextInt(3), random.nextInt(30));
                        if (prices.add(key)) tx.add("INSERT INTO prices VALUES (" + key.get(0) + ", " + key.get(1) + ", " + random.nextInt(1000) + ")");
                    } else if (!prices.isEmpty()) {
                        List<Integer> key = new ArrayList<>(prices).get(random.nextInt(prices.size()));
                        if (random.nextBoolean()) {
                            tx.add("DELETE FROM prices WHERE sym = " + key.get(0) + " AND t = " + key.get(1));
                            prices.remove(key);
                        } else {
                            tx.add("UPDATE prices SET px = " + random.nextInt(1000) + " WHERE sym = " + key.get(0) + " AND t = " + key.get(1));
                        }
                    }
                }
                db.execute("BEGIN");
                for (String s : tx) db.execute(s);
                db.execute("COMMIT");
                for (String s : tx) duck(duck, s);
                for (int v = 0; v < VIEWS.size(); v++) {
                    assertThat(tributary(db, "SELECT * FROM v" + v)).as("%s\nafter round %d: %s", VIEWS.get(v), round, tx)
                            .isEqualTo(duckDb(duck, VIEWS.get(v)));
                }
                assertThat(tributary(db, "SELECT * FROM snowflake")).as("MATCH_CONDITION, round %d", round)
                        .isEqualTo(duckDb(duck, "SELECT tr.id, p.px FROM trades tr ASOF JOIN prices p ON tr.sym = p.sym AND tr.t >= p.t"));
            }
            assertThat(tributary(db, "SELECT * FROM v0")).as("the run ends with matches").hasSizeGreaterThan(5);
        }
    }

    private static void duck(Connection duck, String sql) throws Exception {
        try (Statement st = duck.createStatement()) {
            st.execute(sql);
        }
    }

    private static List<String> tributary(Tributary db, String sql) {
        List<String> rows = new ArrayList<>();
        for (List<String> row : db.query(sql).text()) rows.add(String.join("|", row.stream().map(v -> v == null ? "NULL" : v).toList()));
        rows.sort(null);
        return rows;
    }

    private static List<String> duckDb(Connection duck, String sql) throws Exception {
        List<String> rows = new ArrayList<>();
        try (Statement st = duck.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            int n = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                List<String> row = new ArrayList<>();
                for (int i = 1; i <= n; i++) row.add(rs.getString(i) == null ? "NULL" : rs.getString(i));
                rows.add(String.join("|", row));
            }
        }
        rows.sort(null);
        return rows;
    }
}
