package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * With several workers each holds a shard of every arrangement; every answer (one-off queries,
 * maintained views, index lookups, subscriptions, errors) must be the same as with one.
 */
class WorkersTest {
    private static final String[] QUERIES = {
        "SELECT * FROM v_counts ORDER BY g",
        "SELECT * FROM v_join ORDER BY 1, 2, 3",
        "SELECT * FROM v_top ORDER BY 1, 2",
        "SELECT g, count(*), sum(x), min(s), max(s), count(DISTINCT x) FROM t GROUP BY g ORDER BY g",
        "SELECT t.id, u.y FROM t LEFT JOIN u ON t.g = u.g ORDER BY 1, 2",
        "SELECT id FROM t WHERE x > (SELECT avg(y) FROM u WHERE u.g = t.g) ORDER BY id",
        "SELECT id FROM t WHERE g NOT IN (SELECT g FROM u WHERE y > 5) ORDER BY id",
        "SELECT g FROM t UNION SELECT g FROM u ORDER BY 1",
        "SELECT s FROM t WHERE id = 7",
        "SELECT count(*) FROM t",
    };

    private static List<List<List<String>>> run(int workers) {
        List<List<List<String>>> answers = new ArrayList<>();
        SplittableRandom random = new SplittableRandom(42);
        try (Tributary db = Tributary.inMemory(Clock.manual(0), workers)) {
            db.execute("CREATE TABLE t (id int PRIMARY KEY, g int, x int, s text); CREATE TABLE u (g int, y int)");
            db.execute("CREATE INDEX t_id ON t (id)");
            db.execute("CREATE MATERIALIZED VIEW v_counts AS SELECT g, count(*) AS n, sum(x) AS sx FROM t GROUP BY g");
            db.execute("CREATE MATERIALIZED VIEW v_join AS SELECT t.id, t.g, u.y FROM t JOIN u ON t.g = u.g");
            db.execute("CREATE MATERIALIZED VIEW v_top AS SELECT g, x FROM t ORDER BY x DESC, g LIMIT 3");
            LinkedBlockingQueue<Result> batches = new LinkedBlockingQueue<>();
            try (Subscription sub = db.subscribe("SUBSCRIBE v_counts", batches::add)) {
                for (int step = 0; step < 25; step++) {
                    int id = random.nextInt(30);
                    switch (random.nextInt(4)) {
                        case 0, 1 -> db.execute("INSERT INTO t SELECT " + id + ", " + random.nextInt(5) + ", " + random.nextInt(10) + ", 's" + random.nextInt(4)
                                + "' WHERE NOT EXISTS (SELECT 1 FROM t WHERE id = " + id + ")");
                        case 2 -> db.execute("INSERT INTO u VALUES (" + random.nextInt(5) + ", " + random.nextInt(10) + ")");
                        default -> db.execute("DELETE FROM t WHERE id = " + id + "; UPDATE u SET y = y + 1 WHERE g = " + random.nextInt(5));
                    }
                    for (String q : QUERIES) answers.add(db.query(q).text());
                }
                // the subscription saw every change: replaying its batches gives the view
                List<List<String>> replay = new ArrayList<>();
                java.util.Map<List<String>, Long> acc = new java.util.TreeMap<>(java.util.Comparator.comparing(Object::toString));
                Result b;
                while ((b = poll(batches)) != null) {
                    for (Object[] row : b.rows()) {
                        List<String> key = List.of(String.valueOf(row[2]), String.valueOf(row[3]), String.valueOf(row[4]));
                        acc.merge(key, (Long) row[1], Long::sum);
                    }
                    acc.values().removeIf(n -> n == 0);
                    if (acc.equals(expected(db))) break;
                }
                for (var e : acc.entrySet()) for (long i = 0; i < e.getValue(); i++) replay.add(e.getKey());
                answers.add(replay);
            }
        }
        return answers;
    }

    private static java.util.Map<List<String>, Long> expected(Tributary db) {
        java.util.Map<List<String>, Long> m = new java.util.TreeMap<>(java.util.Comparator.comparing(Object::toString));
        for (List<String> r : db.query("SELECT * FROM v_counts").text()) m.merge(r, 1L, Long::sum);
        return m;
    }

    private static Result poll(LinkedBlockingQueue<Result> q) {
        try {
            return q.poll(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void twoAndThreeWorkersAnswerExactlyAsOne() {
        List<List<List<String>>> one = run(1);
        assertThat(one).isNotEmpty();
        assertThat(one.stream().filter(a -> !a.isEmpty()).count()).as("the workload produces data").isGreaterThan(60);
        assertThat(run(2)).isEqualTo(one);
        assertThat(run(3)).isEqualTo(one);
    }
}
