package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.sql.SqlException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * FOREIGN KEY constraints: enforced per statement with their actions, again at COMMIT against
 * other sessions' commits, kept over a restart. An oracle test replays random writes on a
 * parent, child and grandchild table against a model that takes the actions and checks the
 * constraints itself.
 */
class ForeignKeyTest {
    private static List<String> rows(Tributary db, String sql) {
        List<String> out = new ArrayList<>();
        for (List<String> r : db.query(sql).text()) out.add(String.join("|", r.stream().map(v -> v == null ? "NULL" : v).toList()));
        return out;
    }

    @Test
    void aBlockThatReferencesARowAnotherSessionDeletedFailsAtCommit() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0), 2)) {
            db.execute("CREATE TABLE p (id int PRIMARY KEY)");
            db.execute("CREATE TABLE c (id int PRIMARY KEY, pid int REFERENCES p)");
            db.execute("INSERT INTO p VALUES (1), (2)");
            Tributary.Connection a = db.session();
            Tributary.Connection b = db.session();
            a.execute("BEGIN");
            a.execute("INSERT INTO c VALUES (1, 1)");
            b.execute("DELETE FROM p WHERE id = 1"); // nothing committed references it yet
            SqlRows.fails("23503", "insert or update on table \"c\" violates foreign key constraint \"c_pid_fkey\"", () -> a.execute("COMMIT"));
            assertThat(rows(db, "SELECT * FROM c")).isEmpty();
            // and the other way round: a block that deletes a parent another session then references
            a.execute("BEGIN");
            a.execute("DELETE FROM p WHERE id = 2");
            b.execute("INSERT INTO c VALUES (2, 2)");
            SqlRows.fails("23503", "update or delete on table \"p\" violates foreign key constraint \"c_pid_fkey\" on table \"c\"", () -> a.execute("COMMIT"));
            assertThat(rows(db, "SELECT * FROM p")).containsExactly("2");
        }
    }

    @Test
    void copyIsCheckedAndACascadeReachesEveryLevel() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0), 2)) {
            db.execute("CREATE TABLE p (id int PRIMARY KEY)");
            db.execute("CREATE TABLE c (id int PRIMARY KEY, pid int REFERENCES p ON DELETE CASCADE)");
            db.execute("CREATE TABLE g (id int PRIMARY KEY, cid int REFERENCES c ON DELETE CASCADE)");
            db.execute("INSERT INTO p SELECT generate_series(1, 2000)");
            db.execute("INSERT INTO c SELECT i, i % 2000 + 1 FROM generate_series(1, 6000) i");
            db.execute("INSERT INTO g SELECT i, i FROM generate_series(1, 6000) i");
            SqlRows.fails("23503", () -> db.execute("INSERT INTO c SELECT i, i FROM generate_series(6001, 9000) i"));
            db.execute("DELETE FROM p WHERE id <= 1000");
            assertThat(rows(db, "SELECT count(*) FROM c")).containsExactly("3000");
            assertThat(rows(db, "SELECT count(*) FROM g")).containsExactly("3000");
            assertThat(rows(db, "SELECT count(*) FROM g JOIN c ON g.cid = c.id JOIN p ON c.pid = p.id")).containsExactly("3000");
        }
    }

    @Test
    void foreignKeysSurviveARestart(@TempDir Path dir) {
        try (Tributary db = Tributary.open(dir.resolve("data"), Clock.manual(1_000), 2)) {
            db.execute("CREATE TABLE p (id int PRIMARY KEY, code text UNIQUE)");
            db.execute("CREATE TABLE c (id int PRIMARY KEY, pid int REFERENCES p ON DELETE CASCADE, code text)");
            db.execute("ALTER TABLE c ADD CONSTRAINT c_code FOREIGN KEY (code) REFERENCES p (code) ON DELETE SET NULL");
            db.execute("CREATE TABLE e (id int PRIMARY KEY, boss int REFERENCES e)");
            db.execute("INSERT INTO p VALUES (1, 'a'), (2, 'b')");
            db.execute("INSERT INTO c VALUES (1, 1, 'b'), (2, 2, 'a')");
        }
        try (Tributary db = Tributary.open(dir.resolve("data"), Clock.manual(2_000), 2)) {
            SqlRows.fails("23503", () -> db.execute("INSERT INTO c VALUES (3, 3, NULL)"));
            SqlRows.fails("23503", () -> db.execute("INSERT INTO e VALUES (1, 2)"));
            db.execute("DELETE FROM p WHERE id = 1");
            assertThat(rows(db, "SELECT * FROM c")).containsExactly("2|2|NULL");
            assertThat(rows(db, "SELECT conname FROM pg_constraint WHERE contype = 'f' ORDER BY conname")).containsExactly("c_code", "c_pid_fkey", "e_boss_fkey");
            db.execute("ALTER TABLE c DROP CONSTRAINT c_code");
            db.execute("DROP TABLE p CASCADE");
        }
        try (Tributary db = Tributary.open(dir.resolve("data"), Clock.manual(3_000), 2)) {
            db.execute("INSERT INTO c VALUES (5, 99, 'zz')"); // its foreign keys went with p and the DROP CONSTRAINT
            assertThat(rows(db, "SELECT count(*) FROM pg_constraint WHERE contype = 'f'")).containsExactly("1");
        }
    }

    /**
     * Random INSERTs, UPDATEs and DELETEs, alone and in blocks, on parent p, child c (its
     * ON DELETE and ON UPDATE actions chosen per seed) and grandchild g (ON DELETE CASCADE),
     * keys colliding often: each statement succeeds or fails as the model says, and every table
     * then equals the model's.
     */
    @Test
    void randomWritesAgreeWithAModelThatTakesTheActions() {
        String[] onDelete = {"CASCADE", "SET NULL", "NO ACTION", "RESTRICT"};
        String[] onUpdate = {"CASCADE", "NO ACTION", "SET NULL"};
        for (long seed = 1; seed <= 6; seed++) {
            Random random = new Random(seed);
            String delete = onDelete[(int) (seed % onDelete.length)];
            String update = onUpdate[(int) (seed % onUpdate.length)];
            try (Tributary db = Tributary.inMemory(Clock.manual(0), 1 + (int) (seed % 2))) {
                db.execute("CREATE TABLE p (id int PRIMARY KEY, g int)");
                db.execute("CREATE TABLE c (id int PRIMARY KEY, pid int REFERENCES p ON DELETE " + delete + " ON UPDATE " + update + ")");
                db.execute("CREATE TABLE g (id int PRIMARY KEY, cid int REFERENCES c ON DELETE CASCADE)");
                Model model = new Model(delete, update);
                Tributary.Connection s = db.session();
                List<String> log = new ArrayList<>();
                for (int step = 0; step < 250; step++) {
                    Model before = model.copy();
                    boolean block = random.nextInt(4) == 0;
                    int statements = block ? 1 + random.nextInt(4) : 1;
                    boolean failed = false;
                    if (block) s.execute("BEGIN");
                    for (int k = 0; k < statements && !failed; k++) {
                        String sql = model.randomStatement(random);
                        log.add((block ? "  " : "") + sql);
                        if (log.size() > 12) log.remove(0);
                        boolean ok = model.apply(sql);
                        try {
                            s.execute(sql);
                            assertThat(ok).as("seed %d step %d (%s/%s): %s succeeded; the model says it violates a constraint", seed, step, delete, update, sql).isTrue();
                        } catch (SqlException e) {
                            assertThat(e.sqlState()).as("seed %d step %d: %s", seed, step, sql).isIn("23503", "23505");
                            assertThat(ok).as("seed %d step %d (%s/%s): %s failed (%s); the model says it is fine", seed, step, delete, update, sql, e.getMessage()).isFalse();
                            failed = true;
                        }
                    }
                    if (block) s.execute(failed ? "ROLLBACK" : "COMMIT");
                    if (failed) model = before;
                    assertThat(rows(db, "SELECT id, g FROM p ORDER BY id")).as("seed %d step %d (%s/%s) after %s", seed, step, delete, update, log).isEqualTo(Model.render(model.p));
                    assertThat(rows(db, "SELECT id, pid FROM c ORDER BY id")).as("seed %d step %d (%s/%s) after %s", seed, step, delete, update, log).isEqualTo(Model.render(model.c));
                    assertThat(rows(db, "SELECT id, cid FROM g ORDER BY id")).as("seed %d step %d (%s/%s) after %s", seed, step, delete, update, log).isEqualTo(Model.render(model.g));
                }
            }
        }
    }

    /** The three tables as the oracle keeps them: id to the one other column (null for NULL). */
    private static final class Model {
        final String onDelete;
        final String onUpdate;
        TreeMap<Integer, Integer> p = new TreeMap<>();
        TreeMap<Integer, Integer> c = new TreeMap<>();
        TreeMap<Integer, Integer> g = new TreeMap<>();

        Model(String onDelete, String onUpdate) {
            this.onDelete = onDelete;
            this.onUpdate = onUpdate;
        }

        Model copy() {
            Model m = new Model(onDelete, onUpdate);
            m.p = new TreeMap<>(p);
            m.c = new TreeMap<>(c);
            m.g = new TreeMap<>(g);
            return m;
        }

        static List<String> render(TreeMap<Integer, Integer> t) {
            List<String> out = new ArrayList<>();
            t.forEach((k, v) -> out.add(k + "|" + (v == null ? "NULL" : v)));
            return out;
        }

        private static String value(Integer v) {
            return v == null ? "NULL" : String.valueOf(v);
        }

        String randomStatement(Random r) {
            int k = r.nextInt(12);
            return switch (r.nextInt(9)) {
                case 0, 1 -> "INSERT INTO p VALUES (" + k + ", " + r.nextInt(4) + ")";
                case 2, 3 -> "INSERT INTO c VALUES (" + r.nextInt(16) + ", " + value(r.nextInt(6) == 0 ? null : k) + ")";
                case 4 -> "INSERT INTO g VALUES (" + r.nextInt(16) + ", " + r.nextInt(16) + ")";
                case 5 -> "DELETE FROM p WHERE g = " + r.nextInt(4);
                case 6 -> "UPDATE p SET id = id + " + (1 + r.nextInt(3)) + " WHERE g = " + r.nextInt(4);
                case 7 -> "DELETE FROM c WHERE id = " + r.nextInt(16);
                default -> "UPDATE c SET pid = " + k + " WHERE id = " + r.nextInt(16);
            };
        }

        /** Applies {@code sql} (one of {@link #randomStatement}'s); false, leaving the model as it was, when a constraint would be violated. */
        boolean apply(String sql) {
            Model before = copy();
            boolean ok = applyUnchecked(sql);
            if (!ok) {
                p = before.p;
                c = before.c;
                g = before.g;
            }
            return ok;
        }

        private boolean applyUnchecked(String sql) {
            String[] w = sql.replace("(", " ").replace(")", " ").replace(",", " ").trim().split("\\s+");
            if (sql.startsWith("INSERT INTO p")) {
                return p.putIfAbsent(Integer.parseInt(w[4]), Integer.parseInt(w[5])) == null;
            }
            if (sql.startsWith("INSERT INTO c")) {
                Integer pid = w[5].equals("NULL") ? null : Integer.parseInt(w[5]);
                if (c.containsKey(Integer.parseInt(w[4]))) return false;
                c.put(Integer.parseInt(w[4]), pid);
                return pid == null || p.containsKey(pid);
            }
            if (sql.startsWith("INSERT INTO g")) {
                int cid = Integer.parseInt(w[5]);
                if (g.containsKey(Integer.parseInt(w[4]))) return false;
                g.put(Integer.parseInt(w[4]), cid);
                return c.containsKey(cid);
            }
            if (sql.startsWith("DELETE FROM p")) {
                int group = Integer.parseInt(w[6]);
                Set<Integer> gone = new HashSet<>();
                p.forEach((id, gr) -> {
                    if (gr == group) gone.add(id);
                });
                gone.forEach(p::remove);
                return referencesGone(gone, onDelete);
            }
            if (sql.startsWith("UPDATE p")) {
                int by = Integer.parseInt(w[7]);
                int group = Integer.parseInt(w[11]);
                Map<Integer, Integer> moved = new HashMap<>();
                p.forEach((id, gr) -> {
                    if (gr == group) moved.put(id, id + by);
                });
                Map<Integer, Integer> groups = new HashMap<>();
                for (int id : moved.keySet()) groups.put(id, p.remove(id));
                for (Map.Entry<Integer, Integer> m : moved.entrySet()) {
                    if (p.putIfAbsent(m.getValue(), groups.get(m.getKey())) != null) return false; // 23505
                }
                if (onUpdate.equals("CASCADE")) {
                    // as PostgreSQL's row triggers: each row's referencing rows follow it
                    for (Map.Entry<Integer, Integer> e : c.entrySet()) {
                        if (e.getValue() != null && moved.containsKey(e.getValue())) e.setValue(moved.get(e.getValue()));
                    }
                    return true;
                }
                if (onUpdate.equals("SET NULL")) return referencesGone(moved.keySet(), onUpdate);
                Set<Integer> gone = new HashSet<>(moved.keySet());
                gone.removeAll(p.keySet()); // NO ACTION: a key another moved row took is still there
                return referencesGone(gone, onUpdate);
            }
            if (sql.startsWith("DELETE FROM c")) {
                int id = Integer.parseInt(w[6]);
                if (c.containsKey(id)) {
                    c.remove(id);
                    g.values().removeIf(cid -> cid == id);
                }
                return true;
            }
            if (sql.startsWith("UPDATE c")) {
                int pid = Integer.parseInt(w[5]);
                int id = Integer.parseInt(w[9]);
                if (!c.containsKey(id)) return true;
                c.put(id, pid);
                return p.containsKey(pid);
            }
            throw new IllegalArgumentException(sql);
        }

        /** Children referencing a key in {@code gone}: deleted (their grandchildren with them), set NULL, or a violation. */
        private boolean referencesGone(Set<Integer> gone, String action) {
            List<Integer> referencing = new ArrayList<>();
            c.forEach((id, pid) -> {
                if (pid != null && gone.contains(pid)) referencing.add(id);
            });
            if (referencing.isEmpty()) return true;
            switch (action) {
                case "CASCADE" -> {
                    for (int id : referencing) c.remove(id);
                    g.values().removeIf(referencing::contains);
                    return true;
                }
                case "SET NULL" -> {
                    for (int id : referencing) c.put(id, null);
                    return true;
                }
                default -> {
                    return false;
                }
            }
        }
    }
}
