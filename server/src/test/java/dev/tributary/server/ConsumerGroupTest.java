package dev.tributary.server;

import static dev.tributary.server.SqlRows.fails;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tables read as queues by consumer groups: members of a group share the rows (each to one of
 * them), groups each see every row, a block's COMMIT consumes what its cursor fetched, a block
 * that rolls back (or a session that ends) leaves its rows to the group, and positions survive a
 * restart.
 */
class ConsumerGroupTest {
    @TempDir
    Path dir;

    /** One consumer's turn: BEGIN, DECLARE, FETCH what is there (waiting up to {@code wait}), then COMMIT or ROLLBACK; the ids fetched. */
    private static List<Long> take(Tributary.Connection c, String group, String wait, boolean commit) {
        c.execute("BEGIN");
        c.execute("DECLARE q CURSOR FOR SELECT id FROM queue STREAM CONSUMER GROUP '" + group + "'");
        List<Long> ids = new ArrayList<>();
        for (Object[] r : c.execute("FETCH ALL q WITH (timeout = '" + wait + "')").get(0).rows()) {
            assertThat(r[1]).isEqualTo(1L);
            ids.add(((Number) r[2]).longValue());
        }
        c.execute(commit ? "COMMIT" : "ROLLBACK");
        return ids;
    }

    /** Turns of {@link #take} with COMMIT until {@code n} rows came (a subscription may deliver its times in several batches), at most 50. */
    private static List<Long> takeAll(Tributary.Connection c, String group, int n) {
        List<Long> ids = new ArrayList<>();
        for (int turn = 0; turn < 50 && ids.size() < n; turn++) ids.addAll(take(c, group, "1s", true));
        return ids;
    }

    private static void insert(Tributary db, long from, long to) {
        db.execute("INSERT INTO queue SELECT g, 'job ' || g FROM generate_series(" + from + ", " + to + ") g");
    }

    @Test
    void membersShareAGroupsRowsAndGroupsEachSeeEveryRow() {
        try (Tributary db = Tributary.inMemory()) {
            db.execute("CREATE TABLE queue (id bigint, body text) WITH (APPEND ONLY)");
            Tributary.Connection a = db.session(), b = db.session(), other = db.session();
            // the groups start with their first cursors: nothing of before
            insert(db, -9, 0);
            assertThat(take(a, "workers", "100ms", true)).isEmpty();
            assertThat(take(b, "workers", "100ms", true)).isEmpty();
            assertThat(take(other, "audit", "100ms", true)).isEmpty();
            insert(db, 1, 1000);
            // a and b hold four partitions each while both are members, a's block open while b takes its share
            a.execute("BEGIN");
            a.execute("DECLARE q CURSOR FOR SELECT id FROM queue STREAM CONSUMER GROUP 'workers'");
            List<Long> fromB = take(b, "workers", "1s", true);
            List<Long> fromA = new ArrayList<>();
            for (Object[] r : a.execute("FETCH ALL q WITH (timeout = '1s')").get(0).rows()) fromA.add(((Number) r[2]).longValue());
            a.execute("COMMIT");
            assertThat(fromA).isNotEmpty();
            assertThat(fromB).isNotEmpty();
            Set<Long> all = new HashSet<>(fromA);
            all.addAll(fromB);
            assertThat(fromA.size() + fromB.size()).isEqualTo(1000);
            assertThat(all).hasSize(1000).allMatch(id -> id >= 1 && id <= 1000);
            // the other group sees every row, whatever the first did
            List<Long> audit = take(other, "audit", "1s", true);
            assertThat(new HashSet<>(audit)).hasSize(1000);
            // nothing again, once committed
            assertThat(take(a, "workers", "100ms", true)).isEmpty();
            assertThat(take(b, "workers", "100ms", true)).isEmpty();
        }
    }

    @Test
    void whatABlockDidNotCommitComesAgain() {
        try (Tributary db = Tributary.inMemory()) {
            db.execute("CREATE TABLE queue (id bigint, body text) WITH (APPEND ONLY)");
            Tributary.Connection a = db.session();
            assertThat(take(a, "g", "100ms", true)).isEmpty();
            insert(db, 1, 300);
            // a FETCH of part of what is there, committed: the rest stays for the group
            a.execute("BEGIN");
            a.execute("DECLARE q CURSOR FOR SELECT id FROM queue STREAM CONSUMER GROUP 'g'");
            List<Long> first = new ArrayList<>();
            for (Object[] r : a.execute("FETCH 100 q WITH (timeout = '1s')").get(0).rows()) first.add(((Number) r[2]).longValue());
            a.execute("COMMIT");
            assertThat(first).hasSize(100);
            // rolled back: delivered again
            List<Long> rolledBack = take(a, "g", "1s", false);
            assertThat(rolledBack).hasSize(200);
            // a session that ends in its block: the same
            Tributary.Connection gone = db.session();
            gone.execute("BEGIN");
            gone.execute("DECLARE q CURSOR FOR SELECT id FROM queue STREAM CONSUMER GROUP 'g'");
            // its share: half the partitions, as a is a member too
            List<Object[]> lost = gone.execute("FETCH ALL q WITH (timeout = '1s')").get(0).rows();
            assertThat(lost).isNotEmpty().hasSizeLessThan(200);
            gone.close();
            List<Long> rest = take(a, "g", "1s", true);
            assertThat(new HashSet<>(rolledBack)).isEqualTo(new HashSet<>(rest));
            Set<Long> all = new HashSet<>(first);
            all.addAll(rest);
            assertThat(all).hasSize(300);
            assertThat(take(a, "g", "100ms", true)).isEmpty();
        }
    }

    @Test
    void positionsSurviveARestart() {
        Path data = dir.resolve("data");
        Set<Long> seen = new HashSet<>();
        try (Tributary db = Tributary.open(data)) {
            db.execute("CREATE TABLE queue (id bigint, body text) WITH (APPEND ONLY)");
            Tributary.Connection a = db.session();
            assertThat(take(a, "g", "100ms", true)).isEmpty();
            insert(db, 1, 500);
            a.execute("BEGIN");
            a.execute("DECLARE q CURSOR FOR SELECT id FROM queue STREAM CONSUMER GROUP 'g'");
            for (Object[] r : a.execute("FETCH 200 q WITH (timeout = '1s')").get(0).rows()) seen.add(((Number) r[2]).longValue());
            a.execute("COMMIT");
            insert(db, 501, 600);
            // fetched, not committed: lost with the server, delivered again after
            take(a, "g", "1s", false);
        }
        try (Tributary db = Tributary.open(data)) {
            insert(db, 601, 700);
            Tributary.Connection a = db.session();
            List<Long> rest = takeAll(a, "g", 500);
            assertThat(rest).hasSize(500).doesNotContainAnyElementsOf(seen);
            seen.addAll(rest);
            assertThat(seen).hasSize(700);
        }
    }

    @Test
    void aGroupIsReadThroughACursorOnly() {
        try (Tributary db = Tributary.inMemory()) {
            db.execute("CREATE TABLE queue (id bigint, body text) WITH (APPEND ONLY)");
            fails("0A000", () -> db.execute("CREATE MATERIALIZED VIEW v AS SELECT id FROM queue STREAM CONSUMER GROUP 'g'"));
            fails("0A000", () -> db.subscribe("SUBSCRIBE (SELECT id FROM queue STREAM CONSUMER GROUP 'g')", batch -> { }));
            fails("42601", () -> db.execute("BEGIN; DECLARE c CURSOR FOR SELECT id FROM queue STREAM FROM NOW CONSUMER GROUP 'g'"));
            db.execute("ROLLBACK");
            fails("42601", () -> db.execute("BEGIN; DECLARE c CURSOR FOR SELECT id FROM queue STREAM CONSUMER GROUP ''"));
            db.execute("ROLLBACK");
            Tributary.Connection a = db.session();
            a.execute("BEGIN");
            a.execute("DECLARE c CURSOR FOR SELECT id FROM queue STREAM CONSUMER GROUP 'g'");
            fails("55006", () -> a.execute("DECLARE d CURSOR FOR SELECT id FROM queue STREAM CONSUMER GROUP 'g'"));
            a.execute("ROLLBACK");
        }
    }
}
