package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Joins of three stored collections whose join columns all have indexes run as delta joins (no
 * intermediate arrangement), and give, after every transaction, the same rows as the same
 * views planned as binary joins in a database without those indexes.
 */
class DeltaJoinPlanTest {
    private static final String[] VIEWS = {
        // a chain
        "SELECT a.x, b.y, c.z FROM a, b, c WHERE a.k = b.k AND b.j = c.j",
        // a cycle: the third equality is checked by no lookup
        "SELECT a.x, b.y, c.z FROM a JOIN b ON a.k = b.k JOIN c ON b.j = c.j AND c.k = a.k",
        // filters on inputs, and a residual predicate
        "SELECT a.x, c.z FROM a, b, c WHERE a.k = b.k AND b.j = c.j AND c.z <> 'z1' AND a.x < b.y",
    };

    private static List<List<List<String>>> run(boolean indexes, int workers) {
        SplittableRandom r = new SplittableRandom(7);
        List<List<List<String>>> out = new ArrayList<>();
        try (Tributary db = Tributary.inMemory(Clock.manual(0), workers)) {
            db.execute("CREATE TABLE a (k int, x text); CREATE TABLE b (k int, j int, y text); CREATE TABLE c (j int, k int, z text)");
            if (indexes) {
                db.execute("CREATE INDEX a_k ON a (k); CREATE INDEX b_k ON b (k); CREATE INDEX b_j ON b (j); CREATE INDEX c_j ON c (j)");
                db.execute("CREATE INDEX b_kj ON b (k, j); CREATE INDEX c_jk ON c (j, k)");
            }
            for (int v = 0; v < VIEWS.length; v++) {
                db.execute("CREATE MATERIALIZED VIEW v" + v + " AS " + VIEWS[v]);
                if (indexes) {
                    String plan = String.join("\n", db.query("EXPLAIN " + VIEWS[v]).text().stream().map(l -> l.get(0)).toList());
                    assertThat(plan).as("view %d", v).contains("DeltaJoin");
                }
            }
            for (int step = 0; step < 30; step++) {
                StringBuilder tx = new StringBuilder("BEGIN;");
                for (int s = 0; s < 1 + r.nextInt(3); s++) {
                    String k = r.nextInt(5) == 0 ? "NULL" : String.valueOf(r.nextInt(3));
                    String j = r.nextInt(5) == 0 ? "NULL" : String.valueOf(r.nextInt(3));
                    switch (r.nextInt(5)) {
                        case 0 -> tx.append("INSERT INTO a VALUES (").append(k).append(", 'x").append(r.nextInt(3)).append("');");
                        case 1 -> tx.append("INSERT INTO b VALUES (").append(k).append(", ").append(j).append(", 'y").append(r.nextInt(3)).append("');");
                        case 2 -> tx.append("INSERT INTO c VALUES (").append(j).append(", ").append(k).append(", 'z").append(r.nextInt(3)).append("');");
                        case 3 -> tx.append("DELETE FROM ").append("abc".charAt(r.nextInt(3))).append(" WHERE k = ").append(r.nextInt(3)).append(";");
                        default -> tx.append("UPDATE b SET j = ").append(j).append(" WHERE y = 'y").append(r.nextInt(3)).append("';");
                    }
                }
                tx.append(r.nextInt(6) == 0 ? "ROLLBACK" : "COMMIT");
                db.execute(tx.toString());
                for (int v = 0; v < VIEWS.length; v++) out.add(db.query("SELECT * FROM v" + v + " ORDER BY 1, 2" + (v == 2 ? "" : ", 3")).text());
            }
        }
        return out;
    }

    @Test
    void deltaJoinsAnswerAsBinaryJoinsDo() {
        List<List<List<String>>> binary = run(false, 1);
        assertThat(binary.stream().mapToInt(List::size).sum()).as("the workload joins something").isGreaterThan(50);
        assertThat(run(true, 1)).isEqualTo(binary);
        assertThat(run(true, 2)).isEqualTo(binary);
    }
}
