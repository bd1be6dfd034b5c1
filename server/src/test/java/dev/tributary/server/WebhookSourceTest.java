package dev.tributary.server;

import static dev.tributary.server.SqlRows.fails;
import static dev.tributary.server.SqlRows.rows;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.server.http.HttpService;
import dev.tributary.server.http.Webhooks;
import dev.tributary.server.pgwire.PgServer;
import dev.tributary.server.source.SourceRunner;
import dev.tributary.server.source.WebhookConnector;
import dev.tributary.server.storage.StorageController;
import dev.tributary.storage.Blob;
import dev.tributary.storage.Consensus;
import dev.tributary.storage.CasResult;
import dev.tributary.storage.VersionedData;
import dev.tributary.storage.MemoryBlob;
import dev.tributary.storage.MemoryConsensus;
import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Sources FROM WEBHOOK over a real HTTP port: bodies become rows (JSON values, an array's
 * elements, lines, or the whole body) that views follow; a request is answered only once its
 * rows are durable, all or nothing; secrets, idempotency keys (across a crash, and bounded),
 * errors, many concurrent senders, and a source dropped while requests wait.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class WebhookSourceTest {
    private static final long WAIT_MS = 60_000;
    private static final HttpClient CLIENT = HttpClient.newHttpClient();

    @AfterAll
    static void closeClient() {
        CLIENT.close();
    }

    /** A database behind a wire server and an HTTP port serving webhooks, on free loopback ports. */
    private record Served(Tributary db, PgServer server, HttpService http) implements AutoCloseable {
        static Served start(Tributary db) throws IOException {
            PgServer server = new PgServer(db, InetAddress.getLoopbackAddress(), 0, 10);
            HttpService http = HttpService.bind(InetAddress.getLoopbackAddress(), 0);
            Webhooks.install(http, server);
            http.start();
            return new Served(db, server, http);
        }

        HttpResponse<String> post(String path, String body, String... headers) throws IOException, InterruptedException {
            HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + http.port() + path)).POST(HttpRequest.BodyPublishers.ofString(body));
            if (headers.length > 0) b.headers(headers);
            return CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofString());
        }

        HttpResponse<String> post(String path, byte[] body) throws IOException, InterruptedException {
            HttpRequest r = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + http.port() + path)).POST(HttpRequest.BodyPublishers.ofByteArray(body)).build();
            return CLIENT.send(r, HttpResponse.BodyHandlers.ofString());
        }

        HttpResponse<String> get(String path) throws IOException, InterruptedException {
            return CLIENT.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + http.port() + path)).GET().build(), HttpResponse.BodyHandlers.ofString());
        }

        /** Stops serving without closing the database (a crash closes nothing). */
        void stopServing() throws IOException {
            http.close();
            server.close();
        }

        @Override
        public void close() throws IOException {
            stopServing();
            db.close();
        }
    }

    private static void ok(HttpResponse<String> r, String body) {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(r.body()).isEqualTo(body);
    }

    private static void refused(HttpResponse<String> r, int status, String code) {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
        assertThat(r.body()).contains("\"code\":\"" + code + "\"").startsWith("{\"error\":");
    }

    @Test
    void bodiesBecomeRowsAndAViewFollows() throws Exception {
        try (Served s = Served.start(Tributary.inMemory())) {
            Tributary db = s.db();
            db.execute("CREATE SOURCE hooks FROM WEBHOOK BODY FORMAT JSON");
            db.execute("CREATE MATERIALIZED VIEW v AS SELECT count(*) AS n, sum((data->>'n')::int) AS total FROM hooks");
            ok(s.post("/webhook/public/hooks", "{\"n\": 1, \"who\": \"a\"}"), "{\"rows\":1}");
            // JSON lines; one document printed over several lines; an array, one row per element; an empty array
            ok(s.post("/webhook/public/hooks", "{\"n\": 2}\n{\"n\": 3}\n"), "{\"rows\":2}");
            ok(s.post("/webhook/public/hooks", "{\n  \"n\": 4,\n  \"nested\": {\"text\": \"two\\nlines\"}\n}\n"), "{\"rows\":1}");
            ok(s.post("/webhook/public/hooks", " [ {\"n\": 5}, {\"n\": 6, \"list\": [1, {\"a\": \"]\"}]} ,{\"n\":7}]"), "{\"rows\":3}");
            ok(s.post("/webhook/public/hooks", "[]"), "{\"rows\":0}");
            assertThat(rows(db, "SELECT * FROM v")).containsExactly("7|28");
            assertThat(rows(db, "SELECT data FROM hooks WHERE data->>'n' = '4'")).containsExactly("{\"n\": 4, \"nested\": {\"text\": \"two\\nlines\"}}");

            // objects filling columns, CSV with a header, text lines, a binary body whole
            db.execute("CREATE SOURCE orders (id int NOT NULL, item text) FROM WEBHOOK BODY FORMAT JSON");
            ok(s.post("/webhook/public/orders", "[{\"id\": 1, \"item\": \"pen\"}, {\"id\": 2, \"extra\": true}]"), "{\"rows\":2}");
            assertThat(rows(db, "SELECT * FROM orders ORDER BY id")).containsExactly("1|pen", "2|NULL");
            db.execute("CREATE SOURCE csv (id int, name text) FROM WEBHOOK BODY FORMAT CSV (HEADER)");
            ok(s.post("/webhook/public/csv", "id,name\r\n1,\"a,b\"\r\n2,\"two\nlines\"\n3,c"), "{\"rows\":3}");
            assertThat(rows(db, "SELECT * FROM csv ORDER BY id")).containsExactly("1|a,b", "2|two\nlines", "3|c");
            db.execute("CREATE SOURCE lines FROM WEBHOOK BODY FORMAT TEXT");
            ok(s.post("/webhook/public/lines", "one\ntwo\n"), "{\"rows\":2}");
            db.execute("CREATE SOURCE blobs FROM WEBHOOK BODY FORMAT BYTES");
            ok(s.post("/webhook/public/blobs", "one\ntwo\n"), "{\"rows\":1}");
            assertThat(rows(db, "SELECT data FROM blobs")).containsExactly("\\x6f6e650a74776f0a");
            assertThat(rows(db, "SHOW SOURCES")).contains("hooks|webhook|none|running|7|0|NULL|NULL|");
        }
    }

    @Test
    void aProtobufBodyIsOneMessage() throws Exception {
        try (Served s = Served.start(Tributary.inMemory())) {
            Tributary db = s.db();
            db.execute("CREATE SOURCE pb (i32 int, name text) FROM WEBHOOK BODY FORMAT PROTOBUF (MESSAGE 'shop.Order', SCHEMA '"
                    + dev.tributary.server.protobuf.OrderSchema.schemaHex() + "')");
            com.google.protobuf.Descriptors.Descriptor order = dev.tributary.server.protobuf.OrderSchema.orderDescriptor();
            // a newline byte inside the message does not cut it: the body is one record
            byte[] body = com.google.protobuf.DynamicMessage.newBuilder(order).setField(order.findFieldByName("i32"), 10)
                    .setField(order.findFieldByName("name"), "two\nlines").build().toByteArray();
            ok(s.post("/webhook/public/pb", body), "{\"rows\":1}");
            refused(s.post("/webhook/public/pb", new byte[] {0x0f, 0x00}), 400, "22P02");
            assertThat(rows(db, "SELECT i32, name FROM pb")).containsExactly("10|two\nlines");
            assertThat(db.sourceRunner("pb").status().decodeErrors()).isEqualTo(1);
        }
    }

    @Test
    void aBodyThatDoesNotDecodeIsRefusedWholeAndCounted() throws Exception {
        try (Served s = Served.start(Tributary.inMemory())) {
            Tributary db = s.db();
            db.execute("CREATE SOURCE hooks (id int NOT NULL) FROM WEBHOOK BODY FORMAT JSON");
            // the third record is bad: nothing of the request is written
            HttpResponse<String> r = s.post("/webhook/public/hooks", "{\"id\": 1}\n{\"id\": 2}\n{\"id\": \"x\"}\n");
            refused(r, 400, "22P02");
            assertThat(r.body()).contains("record 3: column id: invalid input syntax for type integer: \\\"x\\\"");
            refused(s.post("/webhook/public/hooks", "{\"id\": 1"), 400, "22P02");
            refused(s.post("/webhook/public/hooks", "[{\"id\": 1},,{\"id\": 2}]"), 400, "22P02");
            refused(s.post("/webhook/public/hooks", "{}"), 400, "22P02");
            assertThat(rows(db, "SELECT count(*) FROM hooks")).containsExactly("0");
            SourceRunner.Status st = db.sourceRunner("hooks").status();
            assertThat(st.decodeErrors()).isEqualTo(4);
            assertThat(st.lastError()).isEqualTo("record 1: null value in column \"id\" violates not-null constraint");
            assertThat(st.state()).isEqualTo("running");
            ok(s.post("/webhook/public/hooks", "{\"id\": 1}"), "{\"rows\":1}");
        }
    }

    @Test
    void requestsAreRefusedWithWhatToDo() throws Exception {
        try (Served s = Served.start(Tributary.inMemory())) {
            Tributary db = s.db();
            db.execute("CREATE SOURCE hooks FROM WEBHOOK (SECRET 's3cret', MAX BODY SIZE 1000) BODY FORMAT JSON");
            db.execute("CREATE SCHEMA other");
            db.execute("CREATE SOURCE other.\"Open\" FROM WEBHOOK BODY FORMAT TEXT");
            db.execute("CREATE SOURCE files FROM DIRECTORY (PATH '/nonexistent') FORMAT TEXT");
            // the secret, either way, compared whole
            HttpResponse<String> noSecret = s.post("/webhook/public/hooks", "{}");
            refused(noSecret, 401, "28000");
            assertThat(noSecret.headers().firstValue("WWW-Authenticate")).hasValue("Bearer realm=\"tributary webhook\"");
            refused(s.post("/webhook/public/hooks", "{}", "Authorization", "Bearer s3cre"), 401, "28000");
            refused(s.post("/webhook/public/hooks", "{}", "X-Webhook-Secret", "s3cret!"), 401, "28000");
            ok(s.post("/webhook/public/hooks", "{}", "Authorization", "Bearer s3cret"), "{\"rows\":1}");
            ok(s.post("/webhook/public/hooks", "{}", "X-Webhook-Secret", "s3cret"), "{\"rows\":1}");
            // without a secret: this machine's clients only, and no other site's pages
            ok(s.post("/webhook/other/Open", "a"), "{\"rows\":1}");
            refused(s.post("/webhook/other/Open", "a", "Origin", "http://evil.example"), 403, "28000");
            // sizes, names, methods
            refused(s.post("/webhook/public/hooks", "[" + "1,".repeat(600) + "1]", "X-Webhook-Secret", "s3cret"), 413, "54000");
            // refused by its length before it is read: the client still reads the answer
            refused(s.post("/webhook/public/hooks", "x".repeat(4 << 20), "X-Webhook-Secret", "s3cret"), 413, "54000");
            refused(s.post("/webhook/public/nothing", "{}"), 404, "42P01");
            refused(s.post("/webhook/other/open", "{}"), 404, "42P01");
            refused(s.post("/webhook/hooks", "{}"), 404, "42P01");
            refused(s.post("/webhook/public/files", "{}"), 404, "42809");
            HttpResponse<String> get = s.get("/webhook/public/hooks");
            refused(get, 405, "42601");
            assertThat(get.headers().firstValue("Allow")).hasValue("POST");
            refused(s.post("/webhook/public/hooks", "{}", "X-Webhook-Secret", "s3cret", "Idempotency-Key", "x".repeat(256)), 400, "22023");
            assertThat(rows(db, "SELECT count(*) FROM hooks")).containsExactly("2");
            // what CREATE SOURCE refuses
            fails("0A000", () -> db.execute("CREATE SOURCE t FROM WEBHOOK BODY FORMAT JSON ON DECODE ERROR STOP"));
            fails("42601", () -> db.execute("CREATE SOURCE t FROM WEBHOOK (PATH '/x') BODY FORMAT JSON"));
            fails("22023", () -> db.execute("CREATE SOURCE t FROM WEBHOOK (SECRET '') BODY FORMAT JSON"));
            fails("22023", () -> db.execute("CREATE SOURCE t FROM WEBHOOK (IDEMPOTENCY KEYS 0) BODY FORMAT JSON"));
            fails("22023", () -> db.execute("CREATE SOURCE t FROM WEBHOOK (MAX BODY SIZE 'big') BODY FORMAT JSON"));
        }
    }

    @Test
    void anAnsweredRequestSurvivesACrashAndItsKeyIsNotWrittenTwice() throws Exception {
        MemoryBlob blob = new MemoryBlob();
        MemoryConsensus consensus = new MemoryConsensus();
        // the first server's close (after its crash) must not close the stores the second goes on with
        Tributary first = Tributary.open(StorageController.open(unclosed(blob), unclosed(consensus), m -> {}), Clock.manual(1_000), 1);
        Served one = Served.start(first);
        Served two = null;
        try {
            first.execute("CREATE SOURCE hooks FROM WEBHOOK BODY FORMAT JSON");
            ok(one.post("/webhook/public/hooks", "[{\"n\": 1}, {\"n\": 2}]", "Idempotency-Key", "order-1"), "{\"rows\":2}");
            ok(one.post("/webhook/public/hooks", "[{\"n\": 1}, {\"n\": 2}]", "Idempotency-Key", "order-1"), "{\"rows\":2,\"duplicate\":true}");
            ok(one.post("/webhook/public/hooks", "{\"n\": 3}"), "{\"rows\":1}");
            // a crash: the next server takes the stores over (fencing the first) without the first closing anything
            one.stopServing();
            two = Served.start(Tributary.open(StorageController.open(blob, consensus, m -> {}), Clock.manual(2_000), 1));
            first.sourceRunner("hooks").stop(WAIT_MS);
            Tributary db = two.db();
            // every answered row is there, and the key is remembered
            assertThat(rows(db, "SELECT count(*), sum((data->>'n')::int) FROM hooks")).containsExactly("3|6");
            ok(two.post("/webhook/public/hooks", "[{\"n\": 1}, {\"n\": 2}]", "Idempotency-Key", "order-1"), "{\"rows\":2,\"duplicate\":true}");
            ok(two.post("/webhook/public/hooks", "{\"n\": 4}", "Idempotency-Key", "order-2"), "{\"rows\":1}");
            assertThat(rows(db, "SELECT count(*) FROM hooks")).containsExactly("4");
            assertThat(rows(db, "SELECT part FROM hooks_progress ORDER BY part")).containsExactly("key:order-1", "key:order-2");
        } finally {
            // the crashed one first: the stores it would write to are the newer one's, which fenced it
            first.close();
            if (two != null) two.close();
        }
    }

    @Test
    void keysBeyondTheLimitAreForgottenOldestFirst() throws Exception {
        try (Served s = Served.start(Tributary.inMemory())) {
            Tributary db = s.db();
            db.execute("CREATE SOURCE hooks FROM WEBHOOK (IDEMPOTENCY KEYS 3) BODY FORMAT TEXT");
            for (String k : List.of("a", "b", "c", "d", "e")) ok(s.post("/webhook/public/hooks", k, "Idempotency-Key", k), "{\"rows\":1}");
            assertThat(rows(db, "SELECT part FROM hooks_progress ORDER BY part")).containsExactly("key:c", "key:d", "key:e");
            ok(s.post("/webhook/public/hooks", "e", "Idempotency-Key", "e"), "{\"rows\":1,\"duplicate\":true}");
            ok(s.post("/webhook/public/hooks", "a", "Idempotency-Key", "a"), "{\"rows\":1}");
            assertThat(rows(db, "SELECT text, count(*) FROM hooks GROUP BY text ORDER BY text")).containsExactly("a|2", "b|1", "c|1", "d|1", "e|1");
            assertThat(rows(db, "SELECT part FROM hooks_progress ORDER BY part")).containsExactly("key:a", "key:d", "key:e");
            // SHOW SOURCES lists 20 parts and counts the rest
            db.execute("CREATE SOURCE many FROM WEBHOOK BODY FORMAT TEXT");
            for (int k = 0; k < 22; k++) ok(s.post("/webhook/public/many", "x", "Idempotency-Key", "k" + k), "{\"rows\":1}");
            assertThat(rows(db, "SHOW SOURCES")).filteredOn(r -> r.startsWith("many|"))
                    .singleElement().asString().endsWith(", and 2 more (in the source's progress table)");
        }
    }

    @Test
    void keyedSourcesSetTheRowsOfTheirKeys() throws Exception {
        try (Served s = Served.start(Tributary.inMemory())) {
            Tributary db = s.db();
            // UPSERT: every record is its key's new row (a body has no tombstones); a record without its key refuses the body
            db.execute("CREATE SOURCE latest (id int PRIMARY KEY, v text) FROM WEBHOOK BODY FORMAT JSON ENVELOPE UPSERT");
            ok(s.post("/webhook/public/latest", "[{\"id\": 1, \"v\": \"a\"}, {\"id\": 2, \"v\": \"b\"}, {\"id\": 1, \"v\": \"c\"}]"), "{\"rows\":3}");
            ok(s.post("/webhook/public/latest", "{\"id\": 2, \"v\": \"d\"}"), "{\"rows\":1}");
            refused(s.post("/webhook/public/latest", "{\"id\": 3, \"v\": \"e\"}\n{\"v\": \"f\"}"), 400, "22P02");
            assertThat(rows(db, "SELECT id, v FROM latest ORDER BY id")).containsExactly("1|c", "2|d");
            // DEBEZIUM: deletes come with the events
            db.execute("CREATE SOURCE cdc (id int PRIMARY KEY, v text) FROM WEBHOOK BODY FORMAT JSON ENVELOPE DEBEZIUM");
            ok(s.post("/webhook/public/cdc", "{\"before\": null, \"after\": {\"id\": 1, \"v\": \"a\"}, \"op\": \"c\"}\n"
                    + "{\"before\": null, \"after\": {\"id\": 2, \"v\": \"b\"}, \"op\": \"c\"}"), "{\"rows\":2}");
            ok(s.post("/webhook/public/cdc", "{\"before\": {\"id\": 1, \"v\": \"a\"}, \"after\": null, \"op\": \"d\"}"), "{\"rows\":1}");
            assertThat(rows(db, "SELECT id, v FROM cdc ORDER BY id")).containsExactly("2|b");
        }
    }

    @Test
    void concurrentSendersLandExactlyOnce() throws Exception {
        int threads = 8, perThread = 200;
        try (Served s = Served.start(Tributary.inMemory(Clock.wall(), 2))) {
            Tributary db = s.db();
            db.execute("CREATE SOURCE hooks (id bigint NOT NULL, sender int) FROM WEBHOOK BODY FORMAT JSON");
            db.execute("CREATE MATERIALIZED VIEW v AS SELECT count(*) AS n, count(DISTINCT id) AS ids, sum(id) AS total FROM hooks");
            try (ExecutorService pool = Executors.newFixedThreadPool(threads)) {
                List<Future<List<Integer>>> done = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    int sender = t;
                    done.add(pool.submit(() -> {
                        List<Integer> statuses = new ArrayList<>();
                        for (int i = 0; i < perThread; i++) {
                            long id = (long) sender * perThread + i;
                            // every request also sent again with its key by some sender (here: itself, and the next sender)
                            String body = "{\"id\": " + id + ", \"sender\": " + sender + "}";
                            statuses.add(s.post("/webhook/public/hooks", body, "Idempotency-Key", "id-" + id).statusCode());
                            long other = (long) ((sender + 1) % threads) * perThread + i;
                            statuses.add(s.post("/webhook/public/hooks", "{\"id\": " + other + ", \"sender\": " + sender + "}", "Idempotency-Key", "id-" + other).statusCode());
                        }
                        return statuses;
                    }));
                }
                for (Future<List<Integer>> f : done) assertThat(f.get()).containsOnly(200);
            }
            long n = (long) threads * perThread;
            assertThat(rows(db, "SELECT * FROM v")).containsExactly(n + "|" + n + "|" + n * (n - 1) / 2);
            assertThat(rows(db, "SELECT count(*) FROM hooks_progress")).containsExactly(String.valueOf(n));
        }
    }

    @Test
    void concurrentRequestsWithOneKeyWriteOnce() throws Exception {
        try (Served s = Served.start(Tributary.inMemory())) {
            Tributary db = s.db();
            db.execute("CREATE SOURCE hooks FROM WEBHOOK BODY FORMAT JSON");
            List<CompletableFuture<HttpResponse<String>>> sent = new ArrayList<>();
            for (int i = 0; i < 32; i++) {
                sent.add(CLIENT.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + s.http().port() + "/webhook/public/hooks"))
                        .header("Idempotency-Key", "same").POST(HttpRequest.BodyPublishers.ofString("[1, 2]")).build(), HttpResponse.BodyHandlers.ofString()));
            }
            int firsts = 0;
            for (CompletableFuture<HttpResponse<String>> f : sent) {
                HttpResponse<String> r = f.get();
                assertThat(r.statusCode()).isEqualTo(200);
                if (r.body().equals("{\"rows\":2}")) firsts++;
                else assertThat(r.body()).isEqualTo("{\"rows\":2,\"duplicate\":true}");
            }
            assertThat(firsts).isEqualTo(1);
            assertThat(rows(db, "SELECT count(*) FROM hooks")).containsExactly("2");
        }
    }

    @Test
    void aSourceDroppedWhileRequestsWaitAnswersThem() throws Exception {
        try (Served s = Served.start(Tributary.inMemory())) {
            Tributary db = s.db();
            db.execute("CREATE SOURCE hooks FROM WEBHOOK BODY FORMAT JSON");
            WebhookConnector hook = (WebhookConnector) db.source("public", "hooks").running();
            List<CompletableFuture<HttpResponse<String>>> sent = new ArrayList<>();
            // the coordinator held: the connector's commit waits for it, the other requests queue behind
            Object coordinator = coordinatorOf(db);
            synchronized (coordinator) {
                for (int i = 0; i < 10; i++) {
                    sent.add(CLIENT.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + s.http().port() + "/webhook/public/hooks"))
                            .POST(HttpRequest.BodyPublishers.ofString("{\"i\": " + i + "}")).build(), HttpResponse.BodyHandlers.ofString()));
                }
                long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
                while (hook.waiting() < 10) {
                    assertThat(System.nanoTime()).as("requests arrived: " + hook.waiting()).isLessThan(until);
                    Thread.onSpinWait();
                }
                db.execute("DROP SOURCE hooks");
            }
            int unavailable = 0;
            for (CompletableFuture<HttpResponse<String>> f : sent) {
                HttpResponse<String> r = f.get(WAIT_MS, TimeUnit.MILLISECONDS);
                assertThat(r.statusCode()).as(r.body()).isIn(200, 503);
                if (r.statusCode() == 503) {
                    unavailable++;
                    assertThat(r.body()).contains("\"code\":\"57P01\"").contains("the source stopped");
                }
            }
            assertThat(unavailable).isPositive();
            refused(s.post("/webhook/public/hooks", "{}"), 404, "42P01");
            assertThat(hook.waiting()).isZero();
        }
    }

    private static Blob unclosed(Blob b) {
        return new Blob() {
            public java.util.Optional<byte[]> get(String key) {
                return b.get(key);
            }

            public void put(String key, byte[] value) {
                b.put(key, value);
            }

            public void delete(String key) {
                b.delete(key);
            }

            public List<String> list(String prefix) {
                return b.list(prefix);
            }

            public void close() {}
        };
    }

    private static Consensus unclosed(Consensus c) {
        return new Consensus() {
            public java.util.Optional<VersionedData> head(String key) {
                return c.head(key);
            }

            public CasResult compareAndSet(String key, long expected, byte[] data) {
                return c.compareAndSet(key, expected, data);
            }

            public List<VersionedData> scan(String key, long from, int limit) {
                return c.scan(key, from, limit);
            }

            public List<String> keys(String prefix) {
                return c.keys(prefix);
            }

            public int truncate(String key, long seqNo) {
                return c.truncate(key, seqNo);
            }

            public void close() {}
        };
    }

    private static Object coordinatorOf(Tributary db) throws ReflectiveOperationException {
        var field = Tributary.class.getDeclaredField("coordinator");
        field.setAccessible(true);
        return field.get(db);
    }
}
