package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.sql.SqlException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * UNIQUE constraints and unique indexes: every write is checked against each of its table's
 * unique indexes (NULLs never conflict), in and out of transaction blocks, against other
 * sessions' commits, and after a restart; INSERT ... ON CONFLICT DO UPDATE runs prepared with
 * parameters. An oracle test replays random writes against a model of the table that checks
 * the constraints itself.
 */
class UniqueConstraintTest {
    private static List<String> rows(Tributary db, String sql) {
        List<String> out = new ArrayList<>();
        for (List<String> r : db.query(sql).text()) out.add(String.join("|", r.stream().map(v -> v == null ? "NULL" : v).toList()));
        return out;
    }

    private static List<String> rows(Result r) {
        List<String> out = new ArrayList<>();
        for (List<String> row : r.text()) out.add(String.join("|", row.stream().map(v -> v == null ? "NULL" : v).toList()));
        return out;
    }

    @Test
    void aPreparedUpsertBindsItsParametersInDoUpdate() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0), 2)) {
            db.execute("CREATE TABLE stock (sku text PRIMARY KEY, qty int NOT NULL, seen int DEFAULT 0)");
            Tributary.Connection s = db.session();
            Prepared p = s.prepare("INSERT INTO stock VALUES ($1, $2) ON CONFLICT (sku) DO UPDATE SET qty = stock.qty + $2, seen = stock.seen + 1"
                    + " WHERE excluded.qty <> 0 RETURNING qty, seen", List.of());
            assertThat(rows(s.execute(p, Arrays.asList("a", 5L)))).containsExactly("5|0");
            assertThat(rows(s.execute(p, Arrays.asList("a", 7L)))).containsExactly("12|1");
            assertThat(rows(s.execute(p, Arrays.asList("a", 0L)))).as("WHERE false: nothing updated, nothing returned").isEmpty();
            assertThat(rows(s.execute(p, Arrays.asList("b", 1L)))).containsExactly("1|0");
            SqlRows.fails("23502", () -> s.execute(p, Arrays.asList("c", null)));
            assertThat(rows(db, "SELECT * FROM stock ORDER BY sku")).containsExactly("a|12|1", "b|1|0");
        }
    }

    @Test
    void theFirstOfTwoBlocksToCommitAKeyWins() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0), 2)) {
            db.execute("CREATE TABLE users (id int PRIMARY KEY, email text UNIQUE)");
            Tributary.Connection a = db.session();
            Tributary.Connection b = db.session();
            a.execute("BEGIN");
            a.execute("INSERT INTO users VALUES (1, 'x@y')");
            b.execute("INSERT INTO users VALUES (2, 'x@y')");
            SqlRows.fails("23505", "duplicate key value violates unique constraint \"users_email_key\"", () -> a.execute("COMMIT"));
            assertThat(rows(db, "SELECT * FROM users")).containsExactly("2|x@y");
            // a block that frees a key may take it again; NULLs never conflict
            a.execute("BEGIN");
            a.execute("UPDATE users SET email = NULL WHERE id = 2");
            a.execute("INSERT INTO users VALUES (3, 'x@y'), (4, NULL), (5, NULL)");
            a.execute("COMMIT");
            assertThat(rows(db, "SELECT id, email FROM users ORDER BY id")).containsExactly("2|NULL", "3|x@y", "4|NULL", "5|NULL");
        }
    }

    @Test
    void constraintsAndUniqueIndexesSurviveARestart(@TempDir Path dir) {
        try (Tributary db = Tributary.open(dir.resolve("data"), Clock.manual(1_000), 2)) {
            db.execute("CREATE TABLE r (id int PRIMARY KEY, e text UNIQUE, f int, CONSTRAINT idf UNIQUE (id, f))");
            db.execute("CREATE UNIQUE INDEX r_lower ON r (lower(e))");
            db.execute("ALTER TABLE r ADD CONSTRAINT r_f UNIQUE (f)");
            db.execute("INSERT INTO r VALUES (1, 'a', 10), (2, 'b', 20)");
            db.execute("ALTER TABLE r DROP CONSTRAINT idf");
        }
        try (Tributary db = Tributary.open(dir.resolve("data"), Clock.manual(0), 2)) {
            SqlRows.fails("23505", "duplicate key value violates unique constraint \"r_e_key\"", () -> db.execute("INSERT INTO r VALUES (3, 'a', 30)"));
            SqlRows.fails("23505", "duplicate key value violates unique constraint \"r_lower\"", () -> db.execute("INSERT INTO r VALUES (3, 'B', 30)"));
            SqlRows.fails("23505", "duplicate key value violates unique constraint \"r_f\"", () -> db.execute("INSERT INTO r VALUES (3, 'c', 10)"));
            db.execute("INSERT INTO r VALUES (3, 'c', 30)");
            assertThat(rows(db, "SELECT conname, contype FROM pg_constraint ORDER BY conname")).containsExactly("r_e_key|u", "r_f|u", "r_pkey|p");
            assertThat(rows(db, "SELECT count(*) FROM pg_indexes WHERE tablename = 'r'")).containsExactly("4");
        }
    }

    /**
     * Random INSERTs, UPDATEs, DELETEs and upserts, alone and in blocks, on a table with a
     * primary key, a UNIQUE column and a two-column unique index, over small domains so that
     * keys collide often: each statement succeeds or fails with 23505 as a model that checks the
     * constraints after the statement says, and the table then equals the model.
     */
    @Test
    void randomWritesAgreeWithAModelThatChecksTheConstraints() {
        for (long seed = 1; seed <= 3; seed++) {
            try (Tributary db = Tributary.inMemory(Clock.manual(0), 2)) {
                db.execute("CREATE TABLE t (id int PRIMARY KEY, b int UNIQUE, c int, d int)");
                db.execute("CREATE UNIQUE INDEX t_cd ON t (c, d)");
                Random random = new Random(seed);
                Model model = new Model();
                Tributary.Connection s = db.session();
                for (int step = 0; step < 300; step++) {
                    boolean block = random.nextInt(5) == 0;
                    Map<Integer, Integer[]> before = model.copy();
                    if (block) s.execute("BEGIN");
                    boolean failed = false;
                    int statements = block ? 1 + random.nextInt(3) : 1;
                    for (int k = 0; k < statements && !failed; k++) {
                        String sql = model.randomStatement(random);
                        boolean ok = model.apply(sql);
                        try {
                            s.execute(sql);
                            assertThat(ok).as("seed %d step %d: %s succeeded; the model says it violates a constraint", seed, step, sql).isTrue();
                        } catch (SqlException e) {
                            assertThat(e.sqlState()).as("seed %d step %d: %s: %s", seed, step, sql, e.getMessage()).isEqualTo("23505");
                            assertThat(ok).as("seed %d step %d: %s failed (%s); the model says it is fine", seed, step, sql, e.getMessage()).isFalse();
                            failed = true;
                        }
                    }
                    if (block) {
                        s.execute(failed ? "ROLLBACK" : "COMMIT");
                        if (failed) model.rows = before;
                    }
                    assertThat(rows(db, "SELECT id, b, c, d FROM t ORDER BY id")).as("seed %d step %d", seed, step).isEqualTo(model.render());
                }
            }
        }
    }

    /** The table as the oracle keeps it: id to (b, c, d), NULL as null. */
    private static final class Model {
        Map<Integer, Integer[]> rows = new TreeMap<>();

        Map<Integer, Integer[]> copy() {
            Map<Integer, Integer[]> c = new TreeMap<>();
            rows.forEach((k, v) -> c.put(k, v.clone()));
            return c;
        }

        List<String> render() {
            List<String> out = new ArrayList<>();
            rows.forEach((id, r) -> out.add(id + "|" + text(r[0]) + "|" + text(r[1]) + "|" + text(r[2])));
            return out;
        }

        private static String text(Integer v) {
            return v == null ? "NULL" : v.toString();
        }

        private static Integer small(Random random) {
            return random.nextInt(6) == 0 ? null : random.nextInt(6);
        }

        private static String sql(Integer v) {
            return v == null ? "NULL" : v.toString();
        }

        /** The SQL of one random write; {@link #apply} then says what it does. */
        String randomStatement(Random random) {
            int id = random.nextInt(10);
            Integer b = small(random), c = small(random), d = small(random);
            return switch (random.nextInt(6)) {
                case 0, 1 -> "INSERT INTO t VALUES (" + id + ", " + sql(b) + ", " + sql(c) + ", " + sql(d) + ")";
                case 2 -> "UPDATE t SET b = " + sql(b) + ", c = " + sql(c) + " WHERE id = " + id;
                case 3 -> "DELETE FROM t WHERE id = " + id;
                case 4 -> "INSERT INTO t VALUES (" + id + ", " + sql(b) + ", " + sql(c) + ", " + sql(d) + ") ON CONFLICT (b) DO UPDATE SET c = excluded.c";
                default -> "INSERT INTO t VALUES (" + id + ", " + sql(b) + ", " + sql(c) + ", " + sql(d) + ") ON CONFLICT DO NOTHING";
            };
        }

        /** Applies {@code sql} (one of {@link #randomStatement}'s) to the model; false, leaving it unchanged, when a constraint would be violated. */
        boolean apply(String sql) {
            Map<Integer, Integer[]> next = copy();
            String[] w = sql.replaceAll("[(),=]", " ").trim().split("\\s+");
            if (sql.startsWith("DELETE")) {
                next.remove(Integer.parseInt(w[w.length - 1]));
            } else if (sql.startsWith("UPDATE")) {
                int id = Integer.parseInt(w[w.length - 1]);
                Integer[] r = next.get(id);
                if (r != null) {
                    r[0] = value(w[4]);
                    r[1] = value(w[6]);
                }
            } else {
                int id = Integer.parseInt(w[4]);
                Integer[] r = {value(w[5]), value(w[6]), value(w[7])};
                if (sql.contains("DO NOTHING")) {
                    if (conflicts(next, id, r)) return true;
                    next.put(id, r);
                } else if (sql.contains("DO UPDATE")) {
                    Integer holder = null;
                    for (Map.Entry<Integer, Integer[]> e : next.entrySet()) if (r[0] != null && r[0].equals(e.getValue()[0])) holder = e.getKey();
                    if (holder != null) {
                        next.get(holder)[1] = r[1];
                    } else {
                        if (next.containsKey(id)) return false;
                        next.put(id, r);
                    }
                } else {
                    if (next.containsKey(id)) return false;
                    next.put(id, r);
                }
            }
            if (!valid(next)) return false;
            rows = next;
            return true;
        }

        private static Integer value(String s) {
            return s.equals("NULL") ? null : Integer.valueOf(s);
        }

        private static boolean conflicts(Map<Integer, Integer[]> rows, int id, Integer[] r) {
            if (rows.containsKey(id)) return true;
            for (Integer[] o : rows.values()) {
                if (r[0] != null && r[0].equals(o[0])) return true;
                if (r[1] != null && r[2] != null && r[1].equals(o[1]) && r[2].equals(o[2])) return true;
            }
            return false;
        }

        private static boolean valid(Map<Integer, Integer[]> rows) {
            Set<Integer> bs = new HashSet<>();
            Set<List<Integer>> cds = new HashSet<>();
            for (Integer[] r : rows.values()) {
                if (r[0] != null && !bs.add(r[0])) return false;
                if (r[1] != null && r[2] != null && !cds.add(List.of(r[1], r[2]))) return false;
            }
            return true;
        }
    }
}
