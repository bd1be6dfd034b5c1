package dev.tributary.server.shell;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.server.pgwire.PgClient;
import dev.tributary.sql.SqlException;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The COPY sub-protocol through {@link Remote}: a subscription as {@code COPY (SUBSCRIBE ...) TO
 * STDOUT}, its rows decoded as they come, stopped with a CancelRequest carrying the connection's
 * key; and a plain {@code COPY ... TO STDOUT}, whose data comes with its tag. The server here is
 * scripted, playing PostgreSQL's part message by message.
 */
class RemoteSubscribeTest {
    private static void message(DataOutputStream out, char type, byte[] body) throws IOException {
        out.writeByte(type);
        out.writeInt(body.length + 4);
        out.write(body);
        out.flush();
    }

    private static byte[] ints(int... values) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        DataOutputStream d = new DataOutputStream(b);
        for (int v : values) d.writeInt(v);
        return b.toByteArray();
    }

    @Test
    void rowsStreamUntilTheCancelStopsIt() throws Exception {
        try (ServerSocket listener = new ServerSocket(0, 5, InetAddress.getLoopbackAddress())) {
            CompletableFuture<String> queried = new CompletableFuture<>();
            CompletableFuture<int[]> cancelled = new CompletableFuture<>();
            Thread server = Thread.ofVirtual().start(() -> {
                try (Socket s = listener.accept()) {
                    DataInputStream in = new DataInputStream(s.getInputStream());
                    DataOutputStream out = new DataOutputStream(s.getOutputStream());
                    in.readNBytes(in.readInt() - 4); // the startup packet (PgClient asks for no TLS here)
                    message(out, 'R', ints(0));
                    message(out, 'K', ints(7, 99));
                    message(out, 'Z', new byte[] {'I'});
                    assertThat(in.read()).isEqualTo('Q');
                    byte[] q = in.readNBytes(in.readInt() - 4);
                    queried.complete(new String(q, 0, q.length - 1, StandardCharsets.UTF_8));
                    message(out, 'H', new byte[] {0, 0, 3, 0, 0, 0, 0, 0, 0});
                    message(out, 'd', "1\t1\tx\n".getBytes(StandardCharsets.UTF_8));
                    message(out, 'd', "2\t-1\t\\N\n".getBytes(StandardCharsets.UTF_8));
                    try (Socket c = listener.accept()) {
                        DataInputStream ci = new DataInputStream(c.getInputStream());
                        cancelled.complete(new int[] {ci.readInt(), ci.readInt(), ci.readInt(), ci.readInt()});
                    }
                    message(out, 'E', "SERROR\0C57014\0Mcanceling statement due to user request\0\0".getBytes(StandardCharsets.UTF_8));
                    message(out, 'Z', new byte[] {'I'});
                    in.readAllBytes();
                } catch (IOException e) {
                    queried.completeExceptionally(e);
                }
            });
            PgClient client = PgClient.connect(new PgClient.Options("127.0.0.1", listener.getLocalPort(), "u", "tributary",
                    PgClient.SslMode.DISABLE, () -> null));
            try (Remote remote = new Remote(client, "scripted")) {
                List<List<String>> rows = new CopyOnWriteArrayList<>();
                CountDownLatch two = new CountDownLatch(2);
                CompletableFuture<SqlException> ended = new CompletableFuture<>();
                AutoCloseable sub = remote.subscribe("SUBSCRIBE t;", batch -> {
                    rows.addAll(batch.rows());
                    two.countDown();
                }, ended::complete);
                assertThat(two.await(30, TimeUnit.SECONDS)).isTrue();
                sub.close();
                assertThat(queried.get(30, TimeUnit.SECONDS)).isEqualTo("COPY (SUBSCRIBE t) TO STDOUT");
                assertThat(cancelled.get(30, TimeUnit.SECONDS)).containsExactly(16, 80877102, 7, 99);
                assertThat(ended.get(30, TimeUnit.SECONDS)).as("a cancel we asked for is no error").isNull();
                assertThat(rows).containsExactly(List.of("1", "1", "x"), java.util.Arrays.asList("2", "-1", null));
            }
            server.join();
        }
    }

    @Test
    void copyToStdoutDataComesWithItsTag() throws Exception {
        try (ServerSocket listener = new ServerSocket(0, 5, InetAddress.getLoopbackAddress())) {
            Thread server = Thread.ofVirtual().start(() -> {
                try (Socket s = listener.accept()) {
                    DataInputStream in = new DataInputStream(s.getInputStream());
                    DataOutputStream out = new DataOutputStream(s.getOutputStream());
                    in.readNBytes(in.readInt() - 4);
                    message(out, 'R', ints(0));
                    message(out, 'Z', new byte[] {'I'});
                    in.read();
                    in.readNBytes(in.readInt() - 4);
                    message(out, 'H', new byte[] {0, 0, 2, 0, 0, 0, 0});
                    message(out, 'd', "1\tx\n".getBytes(StandardCharsets.UTF_8));
                    message(out, 'd', "2\t\\N\n".getBytes(StandardCharsets.UTF_8));
                    message(out, 'c', new byte[0]);
                    message(out, 'C', "COPY 2\0".getBytes(StandardCharsets.UTF_8));
                    message(out, 'Z', new byte[] {'I'});
                    in.readAllBytes();
                } catch (IOException ignored) {
                    // the test fails on what the client saw
                }
            });
            PgClient client = PgClient.connect(new PgClient.Options("127.0.0.1", listener.getLocalPort(), "u", "tributary",
                    PgClient.SslMode.DISABLE, () -> null));
            List<Answer> answers = new CopyOnWriteArrayList<>();
            try (Remote remote = new Remote(client, "scripted")) {
                remote.execute("COPY t TO STDOUT", answers::add);
            }
            server.join();
            assertThat(answers).extracting(Answer::tag, Answer::copyOut).containsExactly(org.assertj.core.groups.Tuple.tuple("COPY 2", "1\tx\n2\t\\N\n"));
        }
    }
}
