package dev.tributary.server.pgwire;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The protocol 3.0 server through a minimal client written here: startup, simple queries with
 * several statements, errors with SQLSTATE and position, transaction status, the refused
 * database, and garbage that ends only its own connection.
 */
class PgServerTest extends LocalServerTest {
    /** One backend message: its type and a readable rendering of its body. */
    record Msg(char type, String text) {}

    /** A client that speaks just enough of the protocol to test the server. */
    static final class Client implements AutoCloseable {
        final Socket socket;
        final DataInputStream in;
        final DataOutputStream out;

        Client(int port) throws IOException {
            socket = new Socket(InetAddress.getLoopbackAddress(), port);
            socket.setSoTimeout(30_000);
            in = new DataInputStream(socket.getInputStream());
            out = new DataOutputStream(socket.getOutputStream());
        }

        void startup(String database) throws IOException {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            DataOutputStream d = new DataOutputStream(b);
            d.writeInt(196608);
            for (String s : new String[] {"user", "tributary", "database", database}) {
                d.write(s.getBytes(StandardCharsets.UTF_8));
                d.writeByte(0);
            }
            d.writeByte(0);
            out.writeInt(b.size() + 4);
            b.writeTo(out);
            out.flush();
        }

        void query(String sql) throws IOException {
            byte[] q = sql.getBytes(StandardCharsets.UTF_8);
            out.writeByte('Q');
            out.writeInt(q.length + 5);
            out.write(q);
            out.writeByte(0);
            out.flush();
        }

        /** Messages up to and including the next ReadyForQuery (or the end of the connection). */
        List<Msg> untilReady() throws IOException {
            List<Msg> got = new ArrayList<>();
            while (true) {
                int type = in.read();
                if (type < 0) return got;
                byte[] body = new byte[in.readInt() - 4];
                in.readFully(body);
                Msg m = new Msg((char) type, render((char) type, body));
                got.add(m);
                if (type == 'Z') return got;
            }
        }

        private static String render(char type, byte[] body) throws IOException {
            DataInputStream d = new DataInputStream(new java.io.ByteArrayInputStream(body));
            StringBuilder s = new StringBuilder();
            switch (type) {
                case 'D' -> {
                    int n = d.readShort();
                    for (int i = 0; i < n; i++) {
                        int len = d.readInt();
                        if (i > 0) s.append('|');
                        if (len < 0) s.append("NULL");
                        else s.append(new String(d.readNBytes(len), StandardCharsets.UTF_8));
                    }
                }
                case 'Z' -> s.append((char) d.readByte());
                case 'E' -> {
                    int code;
                    while ((code = d.readByte()) != 0) {
                        String v = cstring(d);
                        if (code == 'C' || code == 'P') s.append((char) code).append('=').append(v).append(' ');
                    }
                }
                case 'C' -> s.append(cstring(d));
                case 'T' -> {
                    int n = d.readShort();
                    for (int i = 0; i < n; i++) {
                        if (i > 0) s.append('|');
                        s.append(cstring(d));
                        d.readInt();
                        d.readShort();
                        s.append(':').append(d.readInt());
                        d.readShort();
                        d.readInt();
                        d.readShort();
                    }
                }
                default -> s.append(body.length);
            }
            return s.toString().trim();
        }

        private static String cstring(DataInputStream d) throws IOException {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            int c;
            while ((c = d.readByte()) != 0) b.write(c);
            return b.toString(StandardCharsets.UTF_8);
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    private static List<String> lines(List<Msg> msgs) {
        List<String> out = new ArrayList<>();
        for (Msg m : msgs) if (m.type() != 'S' && m.type() != 'K') out.add(m.type() + " " + m.text());
        return out;
    }

    @Test
    void startupThenSimpleQueriesWithResultsErrorsAndTransactionStatus() throws IOException {
        try (Client c = new Client(server.port())) {
            c.startup("tributary");
            List<Msg> hello = c.untilReady();
            assertThat(hello.get(0)).isEqualTo(new Msg('R', "4"));
            assertThat(hello.stream().filter(m -> m.type() == 'S').count()).isGreaterThanOrEqualTo(8);
            assertThat(hello.get(hello.size() - 1)).isEqualTo(new Msg('Z', "I"));

            c.query("CREATE TABLE t (a int, b text); INSERT INTO t VALUES (1, 'x'), (2, NULL); SELECT a, b FROM t ORDER BY a");
            assertThat(lines(c.untilReady())).containsExactly("C CREATE TABLE", "C INSERT 0 2", "T a:23|b:25", "D 1|x", "D 2|NULL", "C SELECT 2", "Z I");

            // the statements before an error ran, but the message is one implicit transaction, rolled back by the error;
            // the error carries its code and its position in the whole query string, as PostgreSQL reports it
            c.query("INSERT INTO t VALUES (3, 'y'); SELECT nope FROM t; INSERT INTO t VALUES (4, 'z')");
            assertThat(lines(c.untilReady())).containsExactly("C INSERT 0 1", "E C=42703 P=39", "Z I");

            c.query("BEGIN; INSERT INTO t VALUES (5, 'w')");
            assertThat(lines(c.untilReady())).containsExactly("C BEGIN", "C INSERT 0 1", "Z T");
            c.query("SELECT 1/0");
            assertThat(lines(c.untilReady())).containsExactly("E C=22012", "Z E");
            c.query("ROLLBACK");
            assertThat(lines(c.untilReady())).containsExactly("C ROLLBACK", "Z I");
            c.query("SELECT count(*) FROM t");
            assertThat(lines(c.untilReady())).as("3 was rolled back with the error, 5 by ROLLBACK").containsExactly("T count:20", "D 2", "C SELECT 1", "Z I");
            c.query("  ");
            assertThat(lines(c.untilReady())).containsExactly("I 0", "Z I");
        }
    }

    @Test
    void anotherDatabaseIsRefusedWith3D000() throws IOException {
        try (Client c = new Client(server.port())) {
            c.startup("postgres");
            assertThat(lines(c.untilReady())).containsExactly("E C=3D000");
        }
    }

    @Test
    void garbageEndsOnlyItsOwnConnection() throws IOException {
        SplittableRandom r = new SplittableRandom(5);
        for (int i = 0; i < 30; i++) {
            try (Client bad = new Client(server.port())) {
                if (i % 2 == 0) bad.startup("tributary");
                byte[] junk = new byte[1 + r.nextInt(64)];
                for (int k = 0; k < junk.length; k++) junk[k] = (byte) r.nextInt(256);
                if (i % 3 == 0) junk[0] = 'Q';
                bad.out.write(junk);
                bad.out.flush();
                bad.socket.shutdownOutput();
                bad.untilReady();
                while (bad.in.read() >= 0) {
                    // drain until the server hangs up
                }
            }
        }
        try (Client good = new Client(server.port())) {
            good.startup("tributary");
            good.untilReady();
            good.query("SELECT 40 + 2");
            assertThat(lines(good.untilReady())).containsExactly("T ?column?:23", "D 42", "C SELECT 1", "Z I");
        }
    }
}
