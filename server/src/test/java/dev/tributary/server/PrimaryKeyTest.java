package dev.tributary.server;

import static dev.tributary.server.SqlRows.error;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.sql.SqlException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A table with a primary key is arranged by it, and that arrangement is the index
 * {@code <table>_pkey}: point reads, UPDATE and DELETE by key seek it instead of scanning the
 * table, joins on the key read it, and key checks count in it (no other copy of the table is
 * kept). Issue 23: {@code WHERE id = $1} on a primary key scanned the table.
 */
class PrimaryKeyTest {
    private static List<String> rows(Tributary db, String sql) {
        List<String> out = new ArrayList<>();
        for (List<String> r : db.query(sql).text()) out.add(String.join("|", r.stream().map(v -> v == null ? "NULL" : v).toList()));
        return out;
    }


    @Test
    void readsUpdatesAndDeletesByKeySeekThePrimaryKey() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0), 2)) {
            db.execute("CREATE TABLE orders (id bigint PRIMARY KEY, customer int, qty int)");
            db.execute("INSERT INTO orders SELECT i, i % 100, i % 7 FROM generate_series(1, 5000) AS s(i)");
            Coordinator c = db.coordinator();
            assertThat(String.join("\n", rows(db, "EXPLAIN SELECT qty FROM orders WHERE id = 42"))).contains("lookup in index orders_pkey");
            long seeks = c.reads().seeks;
            long scans = c.reads().scans;
            long built = c.reads().dataflowsBuilt;
            assertThat(rows(db, "SELECT customer, qty FROM orders WHERE id = 42")).containsExactly("42|0");
            db.execute("UPDATE orders SET qty = qty + 100 WHERE id = 42");
            db.execute("DELETE FROM orders WHERE id = 43");
            assertThat(rows(db, "SELECT id, qty FROM orders WHERE id = 42")).containsExactly("42|100");
            assertThat(rows(db, "SELECT id FROM orders WHERE id = 43")).isEmpty();
            assertThat(c.reads().seeks - seeks).as("reads, the update and the delete seek the key").isEqualTo(5);
            assertThat(c.reads().scans - scans).as("none scans the table").isZero();
            assertThat(c.reads().dataflowsBuilt - built).as("nor builds a dataflow").isZero();
            assertThat(rows(db, "SELECT count(*), sum(qty) FROM orders")).containsExactly("4999|" + (expectedQty() + 100 - 1));
        }
    }

    @Test
    void inListsAndAnyOfAnArraySeekEachKey() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0), 2)) {
            db.execute("CREATE TABLE orders (id bigint PRIMARY KEY, customer int, qty int)");
            db.execute("INSERT INTO orders SELECT i, i % 100, i % 7 FROM generate_series(1, 5000) AS s(i)");
            Coordinator c = db.coordinator();
            assertThat(String.join("\n", rows(db, "EXPLAIN SELECT * FROM orders WHERE id IN (1, 2, 3, 2)"))).contains("3 lookups in index orders_pkey");
            long seeks = c.reads().seeks;
            long scans = c.reads().scans;
            // duplicates, NULL and a value outside the column's range find nothing twice
            assertThat(rows(db, "SELECT id FROM orders WHERE id IN (10, 20, 20, NULL, 99999999999999999) ORDER BY id")).containsExactly("10", "20");
            assertThat(rows(db, "SELECT id FROM orders WHERE id = ANY(ARRAY[7, 8, 4000000]) ORDER BY id")).containsExactly("7", "8");
            db.execute("UPDATE orders SET qty = -1 WHERE id IN (100, 200, 300)");
            db.execute("DELETE FROM orders WHERE id IN (101, 201) AND qty >= 0");
            assertThat(rows(db, "SELECT id, qty FROM orders WHERE id IN (100, 101, 200, 201, 300) ORDER BY id")).containsExactly("100|-1", "200|-1", "300|-1");
            assertThat(rows(db, "SELECT id FROM orders WHERE id IN (5) AND customer = 6")).isEmpty();
            assertThat(c.reads().seeks - seeks).as("every statement seeks").isEqualTo(6);
            assertThat(c.reads().scans - scans).as("none scans").isZero();
            assertThat(rows(db, "SELECT count(*) FROM orders")).containsExactly("4998");
        }
    }

    private static long expectedQty() {
        long s = 0;
        for (long i = 1; i <= 5000; i++) s += i % 7;
        return s;
    }

    @Test
    void aJoinOnTheKeyReadsTheTablesOwnArrangement() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0))) {
            db.execute("CREATE TABLE customers (id int PRIMARY KEY, region text)");
            db.execute("CREATE TABLE orders (id bigint PRIMARY KEY, customer int, qty int)");
            String plan = String.join("\n", rows(db, "EXPLAIN SELECT o.id, c.region FROM orders o JOIN customers c ON o.customer = c.id"));
            assertThat(plan).contains("through index customers_pkey");
        }
    }

    @Test
    void keysAreCheckedAgainstWhatIsCommittedWhenABlockCommits() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0), 2)) {
            db.execute("CREATE TABLE t (id int PRIMARY KEY, v text)");
            db.execute("INSERT INTO t VALUES (1, 'a')");
            Tributary.Connection s = db.session();
            assertThat(error(s, "INSERT INTO t VALUES (1, 'b')").sqlState()).isEqualTo("23505");
            assertThat(error(s, "INSERT INTO t VALUES (2, 'b'), (2, 'c')").sqlState()).isEqualTo("23505");
            // a key freed and taken again in one statement is no duplicate
            s.execute("UPDATE t SET id = id + 1");
            assertThat(rows(db, "SELECT * FROM t")).containsExactly("2|a");
            // two blocks take one key: the first to commit wins
            Tributary.Connection a = db.session();
            Tributary.Connection b = db.session();
            a.execute("BEGIN");
            a.execute("INSERT INTO t VALUES (7, 'from a')");
            b.execute("BEGIN");
            b.execute("INSERT INTO t VALUES (7, 'from b')");
            b.execute("COMMIT");
            SqlException lost = error(a, "COMMIT");
            assertThat(lost.sqlState()).isEqualTo("23505");
            assertThat(lost.detail()).isEqualTo("Key (id)=(7) already exists.");
            assertThat(rows(db, "SELECT v FROM t WHERE id = 7")).containsExactly("from b");
            // the primary key's index goes only with its table
            assertThatThrownBy(() -> db.execute("DROP INDEX t_pkey")).isInstanceOfSatisfying(SqlException.class, e -> {
                assertThat(e.sqlState()).isEqualTo("2BP01");
                assertThat(e.getMessage()).isEqualTo("cannot drop index t_pkey because constraint t_pkey on table t requires it");
            });
            assertThatThrownBy(() -> db.execute("CREATE TABLE t2 (id int PRIMARY KEY); CREATE TABLE t2_pkey (x int PRIMARY KEY); CREATE TABLE t2 (y int)"))
                    .isInstanceOfSatisfying(SqlException.class, e -> assertThat(e.sqlState()).isEqualTo("42P07"));
            db.execute("DROP TABLE t");
            db.execute("CREATE TABLE t (id int PRIMARY KEY)");
            db.execute("INSERT INTO t VALUES (1)");
            assertThat(rows(db, "SELECT * FROM t")).containsExactly("1");
        }
    }

    /**
     * Key checks read the primary key's shards as the workers last published them plus the
     * commits the workers have not applied yet, which the coordinator keeps (commits are queued,
     * not waited for): each write sees every commit before it, also right after a commit too
     * large for its keys to be kept.
     */
    @Test
    void keyChecksSeeEveryCommitBeforeThemWithoutWaitingForTheWorkers() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0), 2)) {
            Coordinator c = db.coordinator();
            db.execute("CREATE TABLE t (id int PRIMARY KEY, v int)");
            db.execute("INSERT INTO t SELECT g, 0 FROM generate_series(1, 5000) g");
            assertThat(error(db.session(), "INSERT INTO t VALUES (5000, 1)").sqlState()).isEqualTo("23505");
            long published = c.writes().publishedKeyChecks;
            Tributary.Connection s = db.session();
            for (int i = 5001; i <= 5300; i++) {
                s.execute("INSERT INTO t VALUES (" + i + ", 1)");
                assertThat(error(s, "INSERT INTO t VALUES (" + i + ", 2)").sqlState()).as("key %d just committed", i).isEqualTo("23505");
                s.execute("DELETE FROM t WHERE id = " + (i - 1));
                s.execute("INSERT INTO t VALUES (" + (i - 1) + ", 3)");
            }
            assertThat(rows(db, "SELECT count(*), count(DISTINCT id), sum(v) FROM t")).containsExactly("5300|5300|" + (300 * 3 + 1));
            assertThat(c.writes().publishedKeyChecks - published).as("checks answered without a round trip to the workers").isGreaterThan(0);
        }
    }

    /**
     * A write of many keys (more than the coordinator checks itself) is checked on the workers,
     * each seeking its own share of the keys: a duplicate is found whichever worker holds it.
     */
    @Test
    void manyKeysAreCheckedOnTheWorkerThatHoldsEach() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0), 2)) {
            db.execute("CREATE TABLE t (id int PRIMARY KEY, v int)");
            db.execute("INSERT INTO t SELECT g, 0 FROM generate_series(1, 5000) g");
            for (int k = 1; k <= 40; k++) {
                int existing = k * 97;
                String write = "INSERT INTO t SELECT g, 1 FROM generate_series(" + (10000 * k) + ", " + (10000 * k + 999) + ") g UNION ALL SELECT "
                        + existing + ", 1";
                assertThat(error(db.session(), write).sqlState()).as("key %d among 1001", existing).isEqualTo("23505");
            }
            db.execute("INSERT INTO t SELECT g, 1 FROM generate_series(5001, 7000) g");
            assertThat(rows(db, "SELECT count(*), count(DISTINCT id), sum(v) FROM t")).containsExactly("7000|7000|2000");
            // fewer rows than keys to check: the workers read their rows instead of seeking each key
            db.execute("CREATE TABLE small (id int PRIMARY KEY)");
            db.execute("INSERT INTO small SELECT g FROM generate_series(1, 100) g");
            for (int existing = 1; existing <= 100; existing += 9) {
                String write = "INSERT INTO small SELECT g FROM generate_series(1000, 1999) g UNION ALL SELECT " + existing;
                assertThat(error(db.session(), write).sqlState()).as("key %d among 1001", existing).isEqualTo("23505");
            }
            db.execute("INSERT INTO small SELECT g FROM generate_series(101, 2000) g");
            assertThat(rows(db, "SELECT count(*), count(DISTINCT id) FROM small")).containsExactly("2000|2000");
        }
    }

    /**
     * In a transaction block each write's keys are checked against the committed rows and the
     * block's own writes so far (kept per key as the block writes, not recounted per statement):
     * a key the block deleted can be written again once, a key it wrote cannot be written twice,
     * and what a block keeps or drops is right after COMMIT and ROLLBACK.
     */
    @Test
    void aBlockChecksItsKeysAgainstItsOwnWrites() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0), 2)) {
            db.execute("CREATE TABLE t (id int PRIMARY KEY, v text)");
            db.execute("INSERT INTO t VALUES (5, 'committed')");
            Tributary.Connection s = db.session();
            s.execute("BEGIN");
            s.execute("INSERT INTO t VALUES (1, 'a')");
            assertThat(error(s, "INSERT INTO t VALUES (1, 'b')").sqlState()).isEqualTo("23505");
            s.execute("ROLLBACK");
            s.execute("BEGIN");
            for (int i = 10; i < 2000; i++) s.execute("INSERT INTO t VALUES (" + i + ", 'x')");
            s.execute("DELETE FROM t WHERE id = 5");
            s.execute("INSERT INTO t VALUES (5, 'again')");
            assertThat(error(s, "INSERT INTO t VALUES (5, 'twice')").sqlState()).isEqualTo("23505");
            s.execute("ROLLBACK");
            s.execute("BEGIN");
            s.execute("INSERT INTO t VALUES (1, 'a')");
            s.execute("DELETE FROM t WHERE id = 1");
            s.execute("INSERT INTO t VALUES (1, 'b')");
            s.execute("UPDATE t SET v = 'c' WHERE id = 1");
            s.execute("DELETE FROM t WHERE id = 5");
            s.execute("INSERT INTO t VALUES (5, 'replaced')");
            s.execute("COMMIT");
            assertThat(rows(db, "SELECT id, v FROM t ORDER BY id")).containsExactly("1|c", "5|replaced");
            assertThat(error(s, "INSERT INTO t VALUES (1, 'd')").sqlState()).isEqualTo("23505");
            // a failed block forgets its keys: the next block may write them
            s.execute("BEGIN");
            s.execute("INSERT INTO t VALUES (2, 'a')");
            s.execute("ROLLBACK");
            s.execute("INSERT INTO t VALUES (2, 'b')");
            assertThat(rows(db, "SELECT v FROM t WHERE id = 2")).containsExactly("b");
        }
    }

    private static void assertSeeks(Coordinator c, int expected, Runnable statement) {
        long seeks = c.reads().seeks;
        long scans = c.reads().scans;
        statement.run();
        assertThat(c.reads().seeks - seeks).as("seeks").isEqualTo(expected);
        assertThat(c.reads().scans - scans).as("scans").isZero();
    }

    /** Ranges of an integer key no wider than a seek's keys seek each value, in SELECT, UPDATE and DELETE alike; a wider one scans. */
    @Test
    void integerRangesOnTheKeySeekEachValue() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0), 2)) {
            db.execute("CREATE TABLE orders (id bigint PRIMARY KEY, qty int)");
            db.execute("INSERT INTO orders SELECT i, i % 7 FROM generate_series(1, 50000) AS s(i)");
            Coordinator c = db.coordinator();
            assertThat(String.join("\n", rows(db, "EXPLAIN SELECT qty FROM orders WHERE id BETWEEN 100 AND 119"))).contains("20 lookups");
            assertSeeks(c, 1, () -> assertThat(rows(db, "SELECT id FROM orders WHERE id >= 100 AND id < 103 ORDER BY id")).containsExactly("100", "101", "102"));
            assertSeeks(c, 1, () -> assertThat(rows(db, "SELECT id FROM orders WHERE 49998 < id AND id <= 55000 ORDER BY id")).containsExactly("49999", "50000"));
            assertSeeks(c, 0, () -> assertThat(rows(db, "SELECT id FROM orders WHERE id > 5 AND id < 5")).isEmpty());
            assertSeeks(c, 1, () -> db.execute("UPDATE orders SET qty = 100 WHERE id BETWEEN 10 AND 12"));
            assertSeeks(c, 1, () -> db.execute("DELETE FROM orders WHERE id > 20 AND id <= 22"));
            assertThat(rows(db, "SELECT id, qty FROM orders WHERE qty = 100 OR id IN (21, 22) ORDER BY id")).containsExactly("10|100", "11|100", "12|100");
            long scansBefore = c.reads().scans;
            assertThat(rows(db, "SELECT id FROM orders WHERE id BETWEEN 1 AND 40000")).hasSize(39998);
            assertThat(rows(db, "SELECT id FROM orders WHERE id > -9223372036854775807 AND id < 9223372036854775807")).hasSize(49998);
            assertThat(c.reads().scans - scansBefore).as("too wide a range scans").isEqualTo(2);
        }
    }
}
