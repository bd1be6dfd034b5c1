package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.sql.SqlException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * SUBSCRIBE's options on a manual clock: PROGRESS rows after the changes they cover, no snapshot
 * with SNAPSHOT = false, a snapshot at a future AS OF time once the clock passes it, the end at UP
 * TO, the upsert envelope's key states, and the errors for a time before the retained history and
 * for an unknown key column.
 */
class SubscribeOptionsTest {
    /** What a listener received: batches as lines (time|rest), and "done". */
    static final class Events implements Subscription.Listener {
        final LinkedBlockingQueue<Object> queue = new LinkedBlockingQueue<>();

        @Override
        public void onChanges(Result batch) {
            List<String> lines = new ArrayList<>();
            for (List<String> row : batch.text()) {
                List<String> cells = new ArrayList<>();
                for (String c : row) cells.add(c == null ? "" : c);
                lines.add(String.join("|", cells));
            }
            lines.sort(null);
            queue.add(lines);
        }

        @Override
        public void onError(SqlException error) {
            queue.add(error);
        }

        @Override
        public void onDone() {
            queue.add("done");
        }

        Object next() throws InterruptedException {
            Object o = queue.poll(10, TimeUnit.SECONDS);
            assertThat(o).as("an event within 10 s").isNotNull();
            return o;
        }
    }

    @Test
    void progressRowsFollowTheChangesTheyCover() throws Exception {
        try (Tributary db = Tributary.inMemory(Clock.manual(1_000))) {
            db.execute("CREATE TABLE t (a int)");
            Events e = new Events();
            try (Subscription sub = db.subscribe("SUBSCRIBE t WITH (PROGRESS)", e)) {
                assertThat(sub.columns()).containsExactly("change_time", "change_progressed", "change_diff", "a");
                assertThat(e.next()).isEqualTo(List.of());                       // the empty snapshot
                db.execute("INSERT INTO t VALUES (7)");
                db.execute("ADVANCE CLOCK TO '1970-01-01 00:00:02+00'");
                List<Object> seen = new ArrayList<>();
                // until a progress row at or past the new clock time
                while (seen.isEmpty() || !(seen.get(seen.size() - 1) instanceof List<?> last && last.size() == 1
                        && ((String) last.get(0)).contains("|t|") && ((String) last.get(0)).compareTo("1970-01-01 00:00:02") >= 0)) {
                    seen.add(e.next());
                }
                int change = seen.indexOf(List.of("1970-01-01 00:00:01.001+00|f|1|7"));
                assertThat(change).as("the insert, in %s", seen).isGreaterThanOrEqualTo(0);
                // a progress row past the change's time comes after it; one at or before it, before it
                for (int i = 0; i < seen.size(); i++) {
                    @SuppressWarnings("unchecked") List<String> b = (List<String>) seen.get(i);
                    if (b.size() == 1 && b.get(0).contains("|t|")) {
                        assertThat(b.get(0).split("\\|")[0].compareTo("1970-01-01 00:00:01.001+00") > 0 == i > change).as("progress %s at %d, change at %d", b, i, change).isTrue();
                    }
                }
            }
        }
    }

    @Test
    void withoutSnapshotOnlyLaterChangesArrive() throws Exception {
        try (Tributary db = Tributary.inMemory(Clock.manual(1_000))) {
            db.execute("CREATE TABLE t (a int); INSERT INTO t VALUES (1)");
            Events e = new Events();
            try (Subscription sub = db.subscribe("SUBSCRIBE t WITH (SNAPSHOT = false)", e)) {
                db.execute("INSERT INTO t VALUES (2)");
                assertThat(e.next()).isEqualTo(List.of("1970-01-01 00:00:01.002+00|1|2"));
            }
        }
    }

    @Test
    void aFutureAsOfWaitsForTheClockAndFoldsEverythingBeforeIt() throws Exception {
        try (Tributary db = Tributary.inMemory(Clock.manual(1_000))) {
            db.execute("CREATE TABLE t (a int)");
            Events e = new Events();
            try (Subscription sub = db.subscribe("SUBSCRIBE t AS OF 5000", e)) {
                db.execute("INSERT INTO t VALUES (1)");
                db.execute("INSERT INTO t VALUES (2)");
                db.execute("ADVANCE CLOCK TO '1970-01-01 00:00:06+00'");
                assertThat(e.next()).isEqualTo(List.of("1970-01-01 00:00:05+00|1|1", "1970-01-01 00:00:05+00|1|2"));
                db.execute("DELETE FROM t WHERE a = 1");
                assertThat(e.next()).isEqualTo(List.of("1970-01-01 00:00:06.001+00|-1|1"));
            }
        }
    }

    @Test
    void upToEndsTheStreamAndDeliversNothingFromItsTimeOn() throws Exception {
        try (Tributary db = Tributary.inMemory(Clock.manual(1_000))) {
            db.execute("CREATE TABLE t (a int)");
            Events e = new Events();
            try (Subscription sub = db.subscribe("SUBSCRIBE t UP TO '1970-01-01 00:00:03+00'", e)) {
                assertThat(e.next()).isEqualTo(List.of());
                db.execute("INSERT INTO t VALUES (1)");
                assertThat(e.next()).isEqualTo(List.of("1970-01-01 00:00:01.001+00|1|1"));
                db.execute("ADVANCE CLOCK TO '1970-01-01 00:00:03+00'");
                db.execute("INSERT INTO t VALUES (2)");           // at 3000: not before UP TO
                db.execute("ADVANCE CLOCK BY INTERVAL '1 second'");
                assertThat(e.next()).isEqualTo("done");
                db.execute("INSERT INTO t VALUES (3)");
                db.execute("ADVANCE CLOCK BY INTERVAL '1 second'");
                assertThat(e.queue).isEmpty();
            }
        }
    }

    @Test
    void theUpsertEnvelopeSaysWhatEachKeyHolds() throws Exception {
        try (Tributary db = Tributary.inMemory(Clock.manual(1_000))) {
            db.execute("CREATE TABLE t (k text, v int)");
            Events e = new Events();
            try (Subscription sub = db.subscribe("SUBSCRIBE t ENVELOPE UPSERT (KEY (k))", e)) {
                assertThat(sub.columns()).containsExactly("change_time", "change_state", "k", "v");
                assertThat(e.next()).isEqualTo(List.of());
                db.execute("INSERT INTO t VALUES ('a', 1), ('b', 1)");
                assertThat(e.next()).isEqualTo(List.of("1970-01-01 00:00:01.001+00|upsert|a|1", "1970-01-01 00:00:01.001+00|upsert|b|1"));
                db.execute("UPDATE t SET v = 2 WHERE k = 'a'");
                assertThat(e.next()).isEqualTo(List.of("1970-01-01 00:00:01.002+00|upsert|a|2"));
                db.execute("INSERT INTO t VALUES ('b', 5)");
                assertThat(e.next()).isEqualTo(List.of("1970-01-01 00:00:01.003+00|key_violation|b|"));
                db.execute("DELETE FROM t WHERE k = 'b'");
                assertThat(e.next()).isEqualTo(List.of("1970-01-01 00:00:01.004+00|delete|b|"));
            }
        }
    }

    @Test
    void badTimesAndKeysAreRefused() {
        try (Tributary db = Tributary.inMemory(Clock.manual(1_000))) {
            db.execute("CREATE TABLE t (k text, v int)");
            db.execute("ADVANCE CLOCK TO '1970-01-01 00:00:05+00'");
            assertThatThrownBy(() -> db.subscribe("SUBSCRIBE t AS OF 1000", b -> {}))
                    .isInstanceOfSatisfying(SqlException.class, x -> {
                        assertThat(x.sqlState()).isEqualTo("72000");
                        assertThat(x.getMessage()).contains("AS OF 1000 is before the history table \"t\" retains: [5000, 5000]");
                    });
            assertThatThrownBy(() -> db.subscribe("SUBSCRIBE t AS OF 9000 UP TO 8000", b -> {}))
                    .isInstanceOfSatisfying(SqlException.class, x -> assertThat(x.sqlState()).isEqualTo("22023"));
            assertThatThrownBy(() -> db.subscribe("SUBSCRIBE t AS OF true", b -> {}))
                    .isInstanceOfSatisfying(SqlException.class, x -> assertThat(x.sqlState()).isEqualTo("42804"));
            assertThatThrownBy(() -> db.subscribe("SUBSCRIBE t ENVELOPE UPSERT (KEY (nope))", b -> {}))
                    .isInstanceOfSatisfying(SqlException.class, x -> assertThat(x.sqlState()).isEqualTo("42703"));
            assertThatThrownBy(() -> db.subscribe("SUBSCRIBE t UP TO 9000 UP TO 9000", b -> {}))
                    .isInstanceOfSatisfying(SqlException.class, x -> assertThat(x.sqlState()).isEqualTo("42601"));
        }
    }
}
