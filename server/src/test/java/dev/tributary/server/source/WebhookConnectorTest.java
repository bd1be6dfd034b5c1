package dev.tributary.server.source;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A webhook connector on a test clock against a context that keeps its commits: idempotency keys
 * forgotten once past their retention (their progress rows retracted in the next commit), and
 * restored from the positions at a new run; JSON bodies cut into records.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WebhookConnectorTest {
    /** A context whose commits move its positions as the server's would; records are text lines. */
    private static final class Context implements SourceContext {
        final TreeMap<String, String> positions = new TreeMap<>();
        final List<Object[]> rows = new ArrayList<>();
        volatile boolean stopping;

        @Override
        public String name() {
            return "hooks";
        }

        @Override
        public Map<String, String> options() {
            return Map.of();
        }

        @Override
        public synchronized Map<String, String> positions() {
            return new TreeMap<>(positions);
        }

        @Override
        public synchronized void commit(List<Object[]> rows, Map<String, String> after) {
            this.rows.addAll(rows);
            after.forEach((part, at) -> {
                if (at == null) positions.remove(part);
                else positions.put(part, at);
            });
        }

        @Override
        public void commitChanges(List<SourceChange> changes, Map<String, String> after) {
            throw new IllegalStateException("commitChanges is a keyed source's; this test's source appends rows (commit)");
        }

        @Override
        public void decodeError(String position, String message) {}

        @Override
        public Decoder decoder() {
            return new Decoder() {
                @Override
                public int recordEnd(byte[] b, int from, int to) {
                    for (int i = from; i < to; i++) if (b[i] == '\n') return i;
                    return -1;
                }

                @Override
                public Object[] decode(byte[] b, int off, int len) throws DecodeException {
                    String s = new String(b, off, len, StandardCharsets.UTF_8);
                    if (s.equals("bad")) throw new DecodeException("bad record");
                    return new Object[] {s};
                }

                @Override
                public boolean header() {
                    return false;
                }

                @Override
                public Records messageRecords() {
                    return Records.LINES;
                }
            };
        }

        @Override
        public boolean stopping() {
            return stopping;
        }

        @Override
        public void pause(long millis) {}

        @Override
        public void state(String state) {}

        synchronized List<String> keys() {
            return positions.keySet().stream().toList();
        }
    }

    /** Runs {@code hook} on a thread of its own until {@link #close}. */
    private record Running(WebhookConnector hook, Context ctx, Thread thread) implements AutoCloseable {
        static Running start(WebhookConnector hook, Context ctx) {
            Thread t = Thread.ofPlatform().daemon().start(() -> hook.run(ctx));
            return new Running(hook, ctx, t);
        }

        WebhookConnector.Outcome post(String body, String key) throws Exception {
            return hook.submit(body.getBytes(StandardCharsets.UTF_8), key).outcome().get(30, TimeUnit.SECONDS);
        }

        @Override
        public void close() throws InterruptedException {
            ctx.stopping = true;
            hook.wakeUp();
            thread.join();
        }
    }

    @Test
    void keysPastTheirRetentionAreForgottenAndRestoredKeysAreKept() throws Exception {
        AtomicLong now = new AtomicLong(1_000_000);
        Map<String, String> options = new HashMap<>(Map.of("IDEMPOTENCY RETENTION", "60"));
        Context ctx = new Context();
        WebhookConnector hook = new WebhookConnector(options, now::get);
        try (Running r = Running.start(hook, ctx)) {
            assertThat(r.post("a\nb", "k1")).isEqualTo(new WebhookConnector.Outcome.Written(2, false));
            now.addAndGet(30_000);
            assertThat(r.post("c", "k2")).isEqualTo(new WebhookConnector.Outcome.Written(1, false));
            assertThat(r.post("a\nb", "k1")).isEqualTo(new WebhookConnector.Outcome.Written(2, true));
            assertThat(ctx.keys()).containsExactly("key:k1", "key:k2");
            assertThat(ctx.positions.get("key:k1")).isEqualTo("1000000 2");
            // k1 is 60 s old: forgotten by the next commit, and written again when sent again
            now.addAndGet(30_000);
            assertThat(r.post("d", null)).isEqualTo(new WebhookConnector.Outcome.Written(1, false));
            assertThat(ctx.keys()).containsExactly("key:k2");
            assertThat(r.post("a\nb", "k1")).isEqualTo(new WebhookConnector.Outcome.Written(2, false));
            // past its retention with no commit in between to forget it: written again, its progress row moved
            now.addAndGet(60_000);
            assertThat(r.post("g", "k1")).isEqualTo(new WebhookConnector.Outcome.Written(1, false));
            assertThat(ctx.keys()).containsExactly("key:k1");
            assertThat(ctx.positions.get("key:k1")).isEqualTo("1120000 1");
            // a bad record refuses the whole body; its key stays free
            assertThat(r.post("e\nbad", "k3")).isEqualTo(new WebhookConnector.Outcome.Refused("record 2: bad record"));
        }
        assertThat(ctx.rows.stream().map(row -> (String) row[0]).toList()).containsExactly("a", "b", "c", "d", "a", "b", "g");
        // a new run (a restart) knows the keys its positions hold
        WebhookConnector again = new WebhookConnector(options, now::get);
        ctx.stopping = false;
        try (Running r = Running.start(again, ctx)) {
            assertThat(r.post("g", "k1")).isEqualTo(new WebhookConnector.Outcome.Written(1, true));
            assertThat(r.post("e", "k3")).isEqualTo(new WebhookConnector.Outcome.Written(1, false));
        }
        // once stopped, requests are refused at once
        assertThat(again.submit(new byte[0], null).outcome().get()).isInstanceOf(WebhookConnector.Outcome.Unavailable.class);
    }

    @Test
    void jsonBodiesAreCutIntoValuesOrElements() throws Exception {
        assertThat(cut("{\"a\": 1}\n{\"b\": [2, \"]\"]}\n")).containsExactly("{\"a\": 1}", "{\"b\": [2, \"]\"]}");
        assertThat(cut("{\n  \"a\": \"x\\\"}\"\n}")).containsExactly("{   \"a\": \"x\\\"}\" }");
        assertThat(cut(" [ 1 , {\"a\": [1,2]}, \"s,t\" ] ")).containsExactly("1", "{\"a\": [1,2]}", "\"s,t\"");
        assertThat(cut("[1]\n[2]")).containsExactly("[1]", "[2]");
        assertThat(cut("[ ]")).isEmpty();
        assertThat(cut("1 true null")).containsExactly("1", "true", "null");
    }

    private static List<String> cut(String body) throws DecodeException {
        byte[] flat = JsonRecords.flatten(body.getBytes(StandardCharsets.UTF_8));
        return JsonRecords.records(flat).stream().map(r -> new String(flat, r[0], r[1] - r[0], StandardCharsets.UTF_8)).toList();
    }
}
