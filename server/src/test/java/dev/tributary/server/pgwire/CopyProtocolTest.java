package dev.tributary.server.pgwire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.server.Clock;
import dev.tributary.server.Tributary;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The COPY sub-protocol and CancelRequest message by message, as a client that does exactly what
 * the test says: a client vanishing mid-stream frees its subscription, a CancelRequest with a
 * wrong key does nothing while the right one ends the stream with 57014, and COPY runs through
 * the extended protocol too.
 */
@Timeout(60)
class CopyProtocolTest {
    private Tributary db;
    private PgServer server;

    @BeforeEach
    void start() throws IOException {
        db = Tributary.inMemory(Clock.manual(0));
        server = new PgServer(db, InetAddress.getLoopbackAddress(), 0, 10);
        db.execute("CREATE TABLE t (id int, name text)");
        db.execute("INSERT INTO t VALUES (1, 'one')");
    }

    @AfterEach
    void stop() throws IOException {
        server.close();
        db.close();
    }

    /** One backend message: its type and body. */
    private record Msg(char type, byte[] body) {
        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }

        /** The SQLSTATE of an ErrorResponse. */
        String sqlState() {
            for (int i = 0; i < body.length && body[i] != 0; ) {
                int end = i + 1;
                while (body[end] != 0) end++;
                if (body[i] == 'C') return new String(body, i + 1, end - i - 1, StandardCharsets.UTF_8);
                i = end + 1;
            }
            return null;
        }
    }

    private static final class Client implements AutoCloseable {
        final Socket socket;
        final DataInputStream in;
        final DataOutputStream out;
        int pid;
        int secret;

        Client(int port) throws IOException {
            socket = new Socket(InetAddress.getLoopbackAddress(), port);
            in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
            out = new DataOutputStream(socket.getOutputStream());
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            DataOutputStream d = new DataOutputStream(b);
            d.writeInt(196608);
            for (String s : new String[] {"user", "tributary", "database", "tributary"}) {
                d.write(s.getBytes(StandardCharsets.UTF_8));
                d.writeByte(0);
            }
            d.writeByte(0);
            out.writeInt(b.size() + 4);
            b.writeTo(out);
            out.flush();
            for (Msg m : untilReady()) {
                if (m.type() == 'K') {
                    DataInputStream k = new DataInputStream(new java.io.ByteArrayInputStream(m.body()));
                    pid = k.readInt();
                    secret = k.readInt();
                }
            }
        }

        void send(char type, byte[] body) throws IOException {
            out.writeByte(type);
            out.writeInt(body.length + 4);
            out.write(body);
            out.flush();
        }

        static byte[] cstrings(String... parts) {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            for (String p : parts) {
                b.writeBytes(p.getBytes(StandardCharsets.UTF_8));
                b.write(0);
            }
            return b.toByteArray();
        }

        void query(String sql) throws IOException {
            send('Q', cstrings(sql));
        }

        Msg next() throws IOException {
            int type = in.read();
            if (type < 0) return null;
            byte[] body = new byte[in.readInt() - 4];
            in.readFully(body);
            return new Msg((char) type, body);
        }

        List<Msg> untilReady() throws IOException {
            List<Msg> got = new ArrayList<>();
            Msg m;
            while ((m = next()) != null) {
                got.add(m);
                if (m.type() == 'Z') break;
            }
            return got;
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    /** Sends a CancelRequest for ({@code pid}, {@code secret}) and waits for the server to hang up, which it does once it has acted on it. */
    private void cancel(int pid, int secret) throws IOException {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), server.port())) {
            DataOutputStream o = new DataOutputStream(s.getOutputStream());
            o.writeInt(16);
            o.writeInt(80877102);
            o.writeInt(pid);
            o.writeInt(secret);
            o.flush();
            assertThat(s.getInputStream().read()).isEqualTo(-1);
        }
    }

    private static String types(List<Msg> msgs) {
        StringBuilder b = new StringBuilder();
        for (Msg m : msgs) b.append(m.type());
        return b.toString();
    }

    @Test
    void aWrongKeyDoesNothingAndTheRightOneCancelsTheStream() throws IOException {
        try (Client c = new Client(server.port())) {
            c.query("COPY (SUBSCRIBE t) TO STDOUT");
            assertThat(c.next().type()).isEqualTo('H');
            assertThat(c.next().text()).isEqualTo("1970-01-01 00:00:00.001+00\t1\t1\tone\n");
            cancel(c.pid, c.secret + 1);
            cancel(c.pid + 1, c.secret);
            db.execute("INSERT INTO t VALUES (2, 'two')");
            Msg row = c.next();
            assertThat(row.type()).isEqualTo('d');
            assertThat(row.text()).isEqualTo("1970-01-01 00:00:00.002+00\t1\t2\ttwo\n");
            cancel(c.pid, c.secret);
            List<Msg> end = c.untilReady();
            assertThat(types(end)).isEqualTo("EZ");
            assertThat(end.get(0).sqlState()).isEqualTo("57014");
            assertThat(db.activeSubscriptions()).isZero();
            // a cancel while idle does not touch the next statement
            cancel(c.pid, c.secret);
            c.query("SELECT count(*) FROM t");
            assertThat(types(c.untilReady())).isEqualTo("TDCZ");
        }
    }

    /**
     * A cancel that comes while a computed result is being sent (the client reads slowly) stops
     * the sending with 57014 after the rows already sent, as PostgreSQL's does: it was ignored,
     * and a client that gave up on a large result got it all anyway. The same for COPY TO STDOUT.
     */
    @Test
    void aCancelStopsTheSendingOfAComputedResult() throws IOException {
        int rows = 1_000_000;
        for (String sql : List.of("SELECT g, 'row ' || g FROM generate_series(1, " + rows + ") AS s(g)",
                "COPY (SELECT g, 'row ' || g FROM generate_series(1, " + rows + ") AS s(g)) TO STDOUT")) {
            try (Client c = new Client(server.port())) {
                c.query(sql);
                assertThat(c.next().type()).as(sql).isIn('T', 'H');
                assertThat(c.next().type()).as(sql).isIn('D', 'd');
                // the server is blocked writing the rest to a client that does not read
                cancel(c.pid, c.secret);
                List<Msg> rest = c.untilReady();
                String ending = types(rest.subList(rest.size() - 2, rest.size()));
                assertThat(ending).as(sql).isEqualTo("EZ");
                assertThat(rest.get(rest.size() - 2).sqlState()).isEqualTo("57014");
                assertThat(rest.size()).as("rows sent of %d", rows).isLessThan(rows);
                // and the connection goes on
                c.query("SELECT count(*) FROM t");
                assertThat(types(c.untilReady())).isEqualTo("TDCZ");
            }
        }
    }

    @Test
    void aStreamUpToATimeEndsWithCopyDone() throws IOException {
        try (Client c = new Client(server.port())) {
            c.query("COPY (SUBSCRIBE t UP TO 1000) TO STDOUT");
            assertThat(c.next().type()).isEqualTo('H');
            assertThat(c.next().text()).isEqualTo("1970-01-01 00:00:00.001+00\t1\t1\tone\n");
            db.execute("INSERT INTO t VALUES (2, 'two')");
            assertThat(c.next().text()).isEqualTo("1970-01-01 00:00:00.002+00\t1\t2\ttwo\n");
            db.execute("ADVANCE CLOCK BY INTERVAL '1 second'");
            List<Msg> end = c.untilReady();
            assertThat(types(end)).isEqualTo("cCZ");
            assertThat(end.get(1).text()).isEqualTo("COPY 2\0");
            assertThat(db.activeSubscriptions()).isZero();
        }
    }

    @Test
    void aClientVanishingMidStreamFreesItsSubscription() throws IOException {
        Client c = new Client(server.port());
        c.query("COPY (SUBSCRIBE t) TO STDOUT");
        assertThat(c.next().type()).isEqualTo('H');
        assertThat(c.next().type()).isEqualTo('d');
        assertThat(db.activeSubscriptions()).isEqualTo(1);
        c.close();
        // the server notices the closed socket at once (it reads ahead during the stream); give its thread the time it takes
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (db.activeSubscriptions() != 0 && System.nanoTime() < deadline) Thread.onSpinWait();
        assertThat(db.activeSubscriptions()).isZero();
        // and everyone else carries on
        try (Client other = new Client(server.port())) {
            other.query("SELECT count(*) FROM t");
            assertThat(types(other.untilReady())).isEqualTo("TDCZ");
        }
    }

    @Test
    void aClientVanishingDuringAWaitingFetchFreesItsCursor() throws IOException {
        Client c = new Client(server.port());
        c.query("BEGIN; DECLARE c CURSOR FOR SUBSCRIBE t; FETCH ALL c");
        assertThat(types(c.untilReady())).isEqualTo("CCTDCZ");
        c.query("FETCH ALL c"); // nothing new: it waits
        assertThat(db.activeSubscriptions()).isEqualTo(1);
        c.close();
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (db.activeSubscriptions() != 0 && System.nanoTime() < deadline) Thread.onSpinWait();
        assertThat(db.activeSubscriptions()).isZero();
    }

    @Test
    void copyInThroughTheExtendedProtocolAndUnexpectedMessages() throws IOException {
        try (Client c = new Client(server.port())) {
            c.send('P', concat(Client.cstrings("", "COPY t FROM STDIN WITH (FORMAT csv)"), new byte[] {0, 0}));
            c.send('B', concat(Client.cstrings("", ""), new byte[] {0, 0, 0, 0, 0, 0}));
            c.send('D', concat(new byte[] {'P'}, Client.cstrings("")));
            c.send('E', concat(Client.cstrings(""), new byte[] {0, 0, 0, 0}));
            c.send('H', new byte[0]);
            assertThat(types(List.of(c.next(), c.next(), c.next(), c.next()))).isEqualTo("12nG");
            c.send('d', "7,seven\n8,".getBytes(StandardCharsets.UTF_8));
            c.send('d', "eight\n".getBytes(StandardCharsets.UTF_8));
            c.send('c', new byte[0]);
            c.send('S', new byte[0]);
            List<Msg> done = c.untilReady();
            assertThat(types(done)).isEqualTo("CZ");
            assertThat(done.get(0).text()).isEqualTo("COPY 2\0");

            // a message that has no place in COPY ends it with an error; nothing is written
            c.query("COPY t FROM STDIN");
            assertThat(c.next().type()).isEqualTo('G');
            c.send('d', "9\tnine\n".getBytes(StandardCharsets.UTF_8));
            c.query("SELECT 1");
            List<Msg> bad = c.untilReady();
            assertThat(types(bad)).isEqualTo("EZ");
            assertThat(bad.get(0).sqlState()).isEqualTo("08P01");
            c.query("SELECT name FROM t ORDER BY id");
            assertThat(types(c.untilReady())).isEqualTo("TDDDCZ");
        }
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
