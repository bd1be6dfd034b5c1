package dev.tributary.server;

import dev.tributary.server.http.HttpService;
import dev.tributary.server.http.Webhooks;
import dev.tributary.server.pgwire.PgServer;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * POSTs per second and rows per second into a webhook source, {@code clients} threads each
 * sending small JSON bodies one after another over its own HTTP/1.1 connection, with a
 * materialized view counting the rows; each request is answered only once its rows are durable.
 *
 * <pre>
 * java -cp ... dev.tributary.server.WebhookThroughput [--clients 8] [--seconds 10] [--rows 1]
 *     [--keys] [--data DIR | --in-memory]
 * </pre>
 *
 * {@code --rows n}: each body an array of n objects; {@code --keys}: each request with an
 * Idempotency-Key of its own; {@code --data}: a data directory (fsynced commits) instead of memory.
 */
public final class WebhookThroughput {
    public static void main(String[] args) throws Exception {
        int clients = 8, seconds = 10, rowsPer = 1;
        boolean keys = false;
        Path data = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--clients" -> clients = Integer.parseInt(args[++i]);
                case "--seconds" -> seconds = Integer.parseInt(args[++i]);
                case "--rows" -> rowsPer = Integer.parseInt(args[++i]);
                case "--keys" -> keys = true;
                case "--data" -> data = Path.of(args[++i]);
                case "--in-memory" -> data = null;
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        if (data != null) Files.createDirectories(data);
        try (Tributary db = data == null ? Tributary.inMemory(Clock.wall(), 2) : Tributary.open(data, Clock.wall(), 2)) {
            PgServer server = new PgServer(db, InetAddress.getLoopbackAddress(), 0, 10);
            HttpService http = HttpService.bind(InetAddress.getLoopbackAddress(), 0);
            Webhooks.install(http, server);
            http.start();
            db.execute("CREATE SOURCE hooks (id bigint NOT NULL, client int, note text) FROM WEBHOOK BODY FORMAT JSON");
            db.execute("CREATE MATERIALIZED VIEW n AS SELECT count(*) AS n FROM hooks");
            URI uri = URI.create("http://127.0.0.1:" + http.port() + "/webhook/public/hooks");
            AtomicBoolean measuring = new AtomicBoolean(), done = new AtomicBoolean();
            AtomicLong posts = new AtomicLong(), failures = new AtomicLong();
            List<Thread> threads = new ArrayList<>();
            final int perBody = rowsPer;
            final boolean withKeys = keys;
            for (int c = 0; c < clients; c++) {
                int client = c;
                threads.add(Thread.ofPlatform().start(() -> {
                    try (HttpClient h = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
                        long seq = 0;
                        while (!done.get()) {
                            StringBuilder b = new StringBuilder(perBody > 1 ? "[" : "");
                            for (int r = 0; r < perBody; r++) {
                                if (r > 0) b.append(',');
                                b.append("{\"id\": ").append((long) client << 40 | seq++).append(", \"client\": ").append(client).append(", \"note\": \"a small event\"}");
                            }
                            if (perBody > 1) b.append(']');
                            HttpRequest.Builder req = HttpRequest.newBuilder(uri).POST(HttpRequest.BodyPublishers.ofString(b.toString()));
                            if (withKeys) req.header("Idempotency-Key", client + "-" + seq);
                            HttpResponse<String> resp = h.send(req.build(), HttpResponse.BodyHandlers.ofString());
                            if (resp.statusCode() != 200) failures.incrementAndGet();
                            else if (measuring.get()) posts.incrementAndGet();
                        }
                    } catch (Exception e) {
                        throw new RuntimeException(e);
                    }
                }));
            }
            Thread.sleep(3_000); // warm-up: the JIT and the connections
            long rowsBefore = Long.parseLong(db.query("SELECT n FROM n").text().get(0).get(0));
            long t0 = System.nanoTime();
            measuring.set(true);
            Thread.sleep(seconds * 1000L);
            measuring.set(false);
            double elapsed = (System.nanoTime() - t0) / 1e9;
            long rowsAfter = Long.parseLong(db.query("SELECT n FROM n").text().get(0).get(0));
            done.set(true);
            for (Thread t : threads) t.join();
            System.out.printf("clients %d, rows per body %d, keys %s, %s: %,.0f POSTs/s, %,.0f rows/s (view), %d failures, %.1f s%n",
                    clients, rowsPer, keys, data == null ? "in memory" : "data directory", posts.get() / elapsed, (rowsAfter - rowsBefore) / elapsed,
                    failures.get(), elapsed);
            http.close();
            server.close();
        }
    }
}
