package dev.tributary.server.pgwire;

import static dev.tributary.server.pgwire.WireClient.bind;
import static dev.tributary.server.pgwire.WireClient.close;
import static dev.tributary.server.pgwire.WireClient.describe;
import static dev.tributary.server.pgwire.WireClient.execute;
import static dev.tributary.server.pgwire.WireClient.flush;
import static dev.tributary.server.pgwire.WireClient.parse;
import static dev.tributary.server.pgwire.WireClient.query;
import static dev.tributary.server.pgwire.WireClient.startup;
import static dev.tributary.server.pgwire.WireClient.sync;
import static dev.tributary.server.pgwire.WireClient.terminate;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.server.Clock;
import dev.tributary.server.Tributary;
import dev.tributary.sql.types.SqlType;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Protocol fuzzing: sessions recorded from a scripted client (simple and extended protocol, text
 * and binary, errors included) are mutated (bits flipped, truncated, length fields changed, huge
 * lengths, message types swapped, random bytes inserted or put in place of bodies, messages
 * dropped, duplicated or reordered) and sent to a running server. After every case the server
 * must have ended (or finished) that connection, a well-behaved client must connect and get
 * correct answers from both protocols, and no connection may be left behind.
 *
 * <p>Start-up packets, built from their fields ({@link Frame}), are answered as PostgreSQL
 * answers them ({@link #startUpPacketsAreAnsweredAsPostgresAnswersThem}).
 *
 * <p>Seeded: case {@code i} uses seed {@code tributary.fuzz.seed + i}, printed on failure.
 * {@code 3 * jqwik.tries.default} cases by default (300; {@code -Plong} gives 3000), or
 * {@code -Dtributary.fuzz.cases=N}.
 */
class ProtocolFuzzTest {
    private static final long SEED = Long.getLong("tributary.fuzz.seed", 20261201L);
    private static final int CASES = Integer.getInteger("tributary.fuzz.cases", 3 * Integer.getInteger("jqwik.tries.default", 100));

    private Tributary db;
    private PgServer server;

    @BeforeEach
    void start() throws IOException {
        db = Tributary.inMemory(Clock.manual(0));
        db.execute("CREATE TABLE fz (a int, b text)");
        db.execute("INSERT INTO fz VALUES (1, 'one'), (2, 'two')");
        db.execute("CREATE TABLE guard (k int, v text)");
        StringBuilder rows = new StringBuilder();
        for (int k = 1; k <= 50; k++) rows.append(k == 1 ? "" : ", ").append("(").append(k).append(", 'v").append(k).append("')");
        db.execute("INSERT INTO guard VALUES " + rows);
        db.execute("CREATE MATERIALIZED VIEW guard_v AS SELECT k, v FROM guard");
        db.execute("CREATE INDEX guard_k ON guard_v (k)");
        server = new PgServer(db, InetAddress.getLoopbackAddress(), 0, 8);
    }

    @AfterEach
    void stop() throws IOException {
        server.close();
        db.close();
    }

    /** The recorded sessions, each a list of messages, the startup message first. */
    private static List<List<byte[]>> sessions() {
        byte[] one = PgBinary.encode(1L, SqlType.INTEGER);
        return List.of(
                List.of(startup("tributary"),
                        query("SELECT a, b FROM fz ORDER BY a; SELECT count(*) FROM fz"),
                        query("INSERT INTO fz VALUES (3, 'three')"),
                        query("BEGIN; INSERT INTO fz VALUES (4, 'x'); SELECT * FROM fz WHERE a = 4; ROLLBACK"),
                        query(""),
                        terminate()),
                List.of(startup("tributary"),
                        parse("s1", "SELECT b FROM fz WHERE a = $1"), describe('S', "s1"), sync(),
                        bind("", "s1", "1"), execute("", 0), sync(),
                        bind("p", "s1", "2"), describe('P', "p"), execute("p", 1), execute("p", 1), close('P', "p"), sync(),
                        close('S', "s1"), sync(),
                        terminate()),
                List.of(startup("tributary"),
                        parse("", "INSERT INTO fz VALUES ($1, $2)", 23, 25),
                        bind("", "", new int[] {1}, new byte[][] {PgBinary.encode(9L, SqlType.INTEGER), "nine".getBytes()}, new int[0]),
                        execute("", 0), sync(),
                        parse("q", "SELECT a, b FROM fz WHERE a >= $1 ORDER BY a", 23),
                        bind("", "q", new int[] {1}, new byte[][] {one}, new int[] {1}), describe('P', ""), execute("", 2), flush(),
                        execute("", 0), sync(),
                        bind("", "q", new int[] {1}, new byte[][] {one}, new int[] {0, 1}), execute("", 0), sync(),
                        terminate()),
                List.of(startup("tributary"),
                        parse("", "SELEC broken"), sync(),
                        bind("", "missing"), execute("", 0), sync(),
                        query("SELECT 1/0"),
                        parse("", "SELECT $1::date"), bind("", "", new int[] {1}, new byte[][] {{1, 2}}, new int[0]), sync(),
                        query("SELECT 'still here'"),
                        terminate()));
    }

    @Test
    void recordedSessionsRunCleanly() throws IOException {
        // the unmutated sessions: the server answers each and ends it at Terminate
        for (List<byte[]> s : sessions()) {
            byte[] response = exchange(concat(s));
            assertThat(response).isNotEmpty();
        }
        assertWellBehavedClientServed(new SplittableRandom(SEED));
    }

    @Test
    void mutatedStreamsNeverHurtTheServer() throws Exception {
        List<List<byte[]>> sessions = sessions();
        for (int i = 0; i < CASES; i++) {
            long seed = SEED + i;
            SplittableRandom r = new SplittableRandom(seed);
            List<byte[]> session = sessions.get(r.nextInt(sessions.size()));
            StringBuilder what = new StringBuilder();
            byte[] stream = mutate(session, r, what);
            String context = "case " + i + " (seed " + seed + "): " + what;
            try {
                exchange(stream);
                assertWellBehavedClientServed(r);
                assertThat(server.awaitConnections(0, 20_000)).as("connections left after " + context).isTrue();
            } catch (AssertionError | IOException e) {
                throw new AssertionError(context, e);
            }
        }
    }

    /** Sends {@code stream}, ends the output, and reads until the server hangs up (which it must, within the timeout). */
    private byte[] exchange(byte[] stream) throws IOException {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), server.port())) {
            s.setSoTimeout(20_000);
            OutputStream out = s.getOutputStream();
            try {
                out.write(stream);
                out.flush();
                s.shutdownOutput();
            } catch (IOException e) {
                // the server may hang up before reading everything: that is its right
            }
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            InputStream in = s.getInputStream();
            byte[] buf = new byte[8192];
            try {
                int n;
                while ((n = in.read(buf)) >= 0) got.write(buf, 0, n);
            } catch (SocketTimeoutException e) {
                throw new AssertionError("the server neither answered to the end nor hung up within 20 s");
            } catch (IOException e) {
                // reset by the server after a fatal error: the connection ended
            }
            return got.toByteArray();
        }
    }

    private void assertWellBehavedClientServed(SplittableRandom r) throws IOException {
        long k = 1 + r.nextInt(50);
        try (WireClient c = WireClient.connect(server.port())) {
            c.send(parse("", "SELECT v FROM guard_v WHERE k = $1"),
                    bind("", "", new int[] {1}, new byte[][] {PgBinary.encode(k, SqlType.INTEGER)}, new int[0]), execute("", 0), sync());
            assertThat(c.briefUntilReady()).containsExactly("1", "2", "D v" + k, "C SELECT 1", "Z I");
            c.send(query("SELECT count(*), sum(k) FROM guard"));
            assertThat(c.briefUntilReady()).containsExactly("T count:20:0|sum:20:0", "D 50|1275", "C SELECT 1", "Z I");
            c.send(terminate());
            assertThat(c.next()).isNull();
        }
    }

    private static byte[] concat(List<byte[]> messages) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (byte[] m : messages) b.writeBytes(m);
        return b.toByteArray();
    }

    private static final byte[] TYPES = "PBDESCHXQFdcfpTZ\0".getBytes();

    /** {@code session} with one to three mutations applied, described into {@code what}. */
    static byte[] mutate(List<byte[]> session, SplittableRandom r, StringBuilder what) {
        List<byte[]> messages = new ArrayList<>();
        for (byte[] m : session) messages.add(m.clone());
        int n = 1 + r.nextInt(3);
        byte[] stream = null;
        for (int k = 0; k < n; k++) {
            int at = r.nextInt(messages.size());
            byte[] m = messages.get(at);
            // the startup message has no type byte: its length is at 0, others' at 1
            int lengthAt = at == 0 ? 0 : 1;
            // a message cut short or made of junk earlier has no fields left to aim at: add junk instead
            int kind = m.length < lengthAt + 4 ? 4 : r.nextInt(9);
            switch (kind) {
                case 0 -> {
                    int bits = 1 + r.nextInt(8);
                    for (int b = 0; b < bits; b++) m[r.nextInt(m.length)] ^= (byte) (1 << r.nextInt(8));
                    what.append("flip ").append(bits).append(" bits in message ").append(at).append("; ");
                }
                case 1 -> {
                    int keep = r.nextInt(m.length);
                    messages.set(at, java.util.Arrays.copyOf(m, keep));
                    what.append("truncate message ").append(at).append(" to ").append(keep).append("; ");
                }
                case 2 -> {
                    int real = ByteBuffer.wrap(m, lengthAt, 4).getInt();
                    int[] choices = {0, 3, 4, 5, real - 1, real + 1, real + 100, r.nextInt(), Integer.MAX_VALUE, Integer.MIN_VALUE, -1,
                            (64 << 20) + 1, 1 << 24};
                    int len = choices[r.nextInt(choices.length)];
                    ByteBuffer.wrap(m, lengthAt, 4).putInt(len);
                    what.append("length of message ").append(at).append(" := ").append(len).append("; ");
                }
                case 3 -> {
                    if (at == 0) at = 1;
                    if (messages.get(at).length == 0) continue;
                    byte t = r.nextInt(4) == 0 ? (byte) r.nextInt(256) : TYPES[r.nextInt(TYPES.length)];
                    messages.get(at)[0] = t;
                    what.append("type of message ").append(at).append(" := ").append(t & 0xff).append("; ");
                }
                case 4 -> {
                    byte[] junk = random(r, 1 + r.nextInt(32));
                    messages.add(at, junk);
                    what.append("insert ").append(junk.length).append(" random bytes before message ").append(at).append("; ");
                }
                case 5 -> {
                    for (int b = lengthAt + 4; b < m.length; b++) m[b] = (byte) r.nextInt(256);
                    what.append("random body in message ").append(at).append("; ");
                }
                case 6 -> {
                    messages.add(at, m.clone());
                    what.append("duplicate message ").append(at).append("; ");
                }
                case 7 -> {
                    if (messages.size() > 1) {
                        messages.remove(at);
                        what.append("drop message ").append(at).append("; ");
                    }
                }
                default -> {
                    int other = r.nextInt(messages.size());
                    messages.set(at, messages.get(other));
                    messages.set(other, m);
                    what.append("swap messages ").append(at).append(" and ").append(other).append("; ");
                }
            }
        }
        stream = concat(messages);
        if (r.nextInt(20) == 0) {
            // now and then a stream that is all noise after a valid startup
            byte[] noise = random(r, 1 + r.nextInt(200));
            byte[] start = session.get(0);
            stream = java.util.Arrays.copyOf(start, start.length + noise.length);
            System.arraycopy(noise, 0, stream, start.length, noise.length);
            what.setLength(0);
            what.append("startup then ").append(noise.length).append(" random bytes");
        }
        return stream;
    }

    private static byte[] random(SplittableRandom r, int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) b[i] = (byte) r.nextInt(256);
        return b;
    }

    // ---------------------------------------------------------------- the start-up phase

    /** What the server answered, briefly: {@code N} for a refused SSL/GSS request, then each message ({@code E code}, {@code R code}, {@code Z status}, or its type); {@code MALFORMED} if the bytes are not messages. */
    static List<String> answers(byte[] raw) {
        List<String> out = new ArrayList<>();
        int p = 0;
        // the single-byte answers to SSLRequest and GSSENCRequest come first; no message of the start-up phase begins with N
        while (p < raw.length && raw[p] == 'N') {
            out.add("N");
            p++;
        }
        while (p < raw.length) {
            if (raw.length - p < 5) {
                out.add("MALFORMED: " + (raw.length - p) + " bytes left");
                return out;
            }
            char type = (char) raw[p];
            int length = ByteBuffer.wrap(raw, p + 1, 4).getInt();
            if (length < 4 || length > raw.length - p - 1) {
                out.add("MALFORMED: length " + length + " of a message " + type);
                return out;
            }
            byte[] body = java.util.Arrays.copyOfRange(raw, p + 5, p + 1 + length);
            WireClient.Msg m = new WireClient.Msg(type, body);
            out.add(switch (type) {
                case 'E' -> "E " + m.fields().get('C') + " " + m.fields().get('S');
                case 'R' -> "R " + ByteBuffer.wrap(body).getInt();
                case 'Z' -> "Z " + (char) body[0];
                default -> String.valueOf(type);
            });
            p += 1 + length;
        }
        return out;
    }

    /** The codes an error of the start-up phase may have: protocol violation, unsupported protocol, no such user or database, a failed login, no session free. */
    private static final java.util.Set<String> START_UP_CODES = java.util.Set.of("08P01", "0A000", "28000", "28P01", "3D000", "53300");

    /**
     * What must hold of any answer: well-formed messages; an error only as the last message;
     * before ReadyForQuery (the start-up phase) only FATAL with a start-up code; after it no
     * internal error (XX000) and a FATAL only for a protocol violation (08P01); at most one
     * refused SSLRequest and one GSSENCRequest.
     */
    private static void assertProperAnswer(List<String> got, String context) {
        assertThat(got).as(context).noneMatch(a -> a.startsWith("MALFORMED"));
        assertThat(got.stream().filter("N"::equals).count()).as(context + ": N answers").isLessThanOrEqualTo(2);
        boolean started = false;
        for (int i = 0; i < got.size(); i++) {
            String a = got.get(i);
            if (a.startsWith("Z ")) started = true;
            if (!a.startsWith("E ")) continue;
            String[] parts = a.split(" ");
            assertThat(parts[1]).as(context + ": " + got).isNotEqualTo("XX000").matches("[0-9A-Z]{5}");
            if (!started) {
                assertThat(parts[2]).as(context + ": an error before the session starts is FATAL: " + got).isEqualTo("FATAL");
                assertThat(START_UP_CODES).as(context + ": " + got).contains(parts[1]);
            } else if (parts[2].equals("FATAL")) {
                assertThat(parts[1]).as(context + ": " + got).isIn("08P01", "53200");
            }
            if (parts[2].equals("FATAL")) assertThat(i).as(context + ": nothing follows a FATAL: " + got).isEqualTo(got.size() - 1);
        }
    }

    /** {@code frames} sent as one stream (then the end of the client's output), and the answer, briefly, without ParameterStatus and BackendKeyData. */
    private List<String> startUpExchange(List<Frame> frames) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (Frame f : frames) b.writeBytes(f.bytes());
        List<String> got = new ArrayList<>(answers(exchange(b.toByteArray())));
        got.removeIf(a -> a.equals("S") || a.equals("K"));
        return got;
    }

    private static List<Frame> frames(Frame... f) {
        return List.of(f);
    }

    private static Frame withLength(Frame f, int length) {
        Frame c = f.copy();
        c.length = length;
        return c;
    }

    /** A start-up packet for user tributary whose last parameter value is {@code value} (raw bytes). */
    private static Frame startupWith(byte[] name, byte[] value) {
        Frame f = Frame.startup();
        f.fields.add(f.fields.size() - 1, new Frame.Str(name));
        f.fields.add(f.fields.size() - 1, new Frame.Str(value));
        return f;
    }

    @Test
    void startUpPacketsAreAnsweredAsPostgresAnswersThem() throws Exception {
        Frame ok = Frame.startup();
        int real = ok.realLength();
        List<String> served = List.of("R 0", "Z I");
        record Case(String what, List<Frame> frames, List<String> answer) {}
        List<Case> cases = new ArrayList<>();
        for (int length : new int[] {0, 1, 4, 7, 10_001, 1 << 24, Integer.MAX_VALUE, -1, -8, Integer.MIN_VALUE}) {
            cases.add(new Case("length " + length, frames(withLength(ok, length)), List.of("E 08P01 FATAL")));
        }
        cases.add(new Case("the real packet", frames(ok), served));
        cases.add(new Case("a length one short (the final NUL outside)", frames(withLength(ok, real - 1)), List.of("E 08P01 FATAL")));
        cases.add(new Case("a length past the bytes sent", frames(withLength(ok, real + 100)), List.of()));
        cases.add(new Case("a length of 8: the version alone", frames(Frame.request(Frame.PROTOCOL_3)), List.of("E 08P01 FATAL")));
        Frame unterminated = Frame.startup();
        ((Frame.Str) unterminated.fields.get(2)).terminated = false;
        cases.add(new Case("a value without its NUL", frames(unterminated), List.of("E 08P01 FATAL")));
        Frame noFinal = Frame.startup();
        noFinal.fields.removeLast();
        cases.add(new Case("no final NUL", frames(noFinal), List.of("E 08P01 FATAL")));
        Frame trailing = Frame.startup();
        trailing.fields.add(new Frame.Raw(new byte[] {'x', 'y', 0}));
        cases.add(new Case("bytes after the final NUL", frames(trailing), List.of("E 08P01 FATAL")));
        cases.add(new Case("a name without a value", frames(Frame.startup(Frame.PROTOCOL_3, "user", "tributary", "database")), List.of("E 08P01 FATAL")));
        cases.add(new Case("protocol 2.0", frames(Frame.startup(2 << 16, "user", "tributary")), List.of("E 0A000 FATAL")));
        cases.add(new Case("protocol 4.0", frames(Frame.startup(4 << 16, "user", "tributary")), List.of("E 0A000 FATAL")));
        cases.add(new Case("protocol 3.1: negotiated down to 3.0", frames(Frame.startup(Frame.PROTOCOL_3 + 1, "user", "tributary", "database", "tributary")),
                List.of("v", "R 0", "Z I")));
        cases.add(new Case("a _pq_ option: negotiated away", frames(Frame.startup(Frame.PROTOCOL_3, "user", "tributary", "_pq_.fuzz", "1")), List.of("v", "R 0", "Z I")));
        cases.add(new Case("no user", frames(Frame.startup(Frame.PROTOCOL_3, "database", "tributary")), List.of("E 28000 FATAL")));
        cases.add(new Case("another database", frames(Frame.startup(Frame.PROTOCOL_3, "user", "tributary", "database", "postgres")), List.of("E 3D000 FATAL")));
        cases.add(new Case("SSLRequest, then start-up", frames(Frame.request(Frame.SSL_REQUEST), ok), List.of("N", "R 0", "Z I")));
        cases.add(new Case("GSSENCRequest, SSLRequest, then start-up", frames(Frame.request(Frame.GSSENC_REQUEST), Frame.request(Frame.SSL_REQUEST), ok),
                List.of("N", "N", "R 0", "Z I")));
        cases.add(new Case("SSLRequest twice", frames(Frame.request(Frame.SSL_REQUEST), Frame.request(Frame.SSL_REQUEST), ok), List.of("N", "E 0A000 FATAL")));
        cases.add(new Case("GSSENCRequest twice", frames(Frame.request(Frame.GSSENC_REQUEST), Frame.request(Frame.GSSENC_REQUEST)), List.of("N", "E 0A000 FATAL")));
        cases.add(new Case("an SSLRequest with a body", frames(withLength(new Frame(-1, List.of(new Frame.Int32(Frame.SSL_REQUEST), new Frame.Int32(0))), 12)),
                List.of("N")));
        cases.add(new Case("a CancelRequest: hung up on without a word", frames(Frame.cancelRequest(1, 2)), List.of()));
        cases.add(new Case("a CancelRequest without its key", frames(new Frame(-1, List.of(new Frame.Int32(Frame.CANCEL_REQUEST), new Frame.Int32(1)))), List.of()));
        cases.add(new Case("a parameter value that is not UTF-8", frames(startupWith("application_name".getBytes(), new byte[] {(byte) 0xff, (byte) 0xfe, 'a'})),
                served));
        cases.add(new Case("a parameter name that is not UTF-8, then the user", frames(Frame.startup(Frame.PROTOCOL_3, "database", "tributary"))
                .stream().map(f -> {
                    Frame c = f.copy();
                    // the name's invalid bytes decode to replacements of another length: the user after it must still be found
                    c.fields.add(c.fields.size() - 1, new Frame.Str(new byte[] {(byte) 0xc3, (byte) 0x28, (byte) 0xff}));
                    c.fields.add(c.fields.size() - 1, Frame.str("v"));
                    c.fields.add(c.fields.size() - 1, Frame.str("user"));
                    c.fields.add(c.fields.size() - 1, Frame.str("tributary"));
                    return c;
                }).toList(), served));
        Frame many = Frame.startup();
        for (int i = 0; i < 400; i++) {
            many.fields.add(many.fields.size() - 1, Frame.str("x" + i));
            many.fields.add(many.fields.size() - 1, Frame.str("y"));
        }
        cases.add(new Case("400 parameters", frames(many), served));
        for (Case c : cases) {
            List<String> got = startUpExchange(c.frames());
            assertThat(got).as(c.what()).containsExactlyElementsOf(c.answer());
            assertProperAnswer(got, c.what());
        }
        assertWellBehavedClientServed(new SplittableRandom(SEED));
        assertThat(server.awaitConnections(0, 20_000)).isTrue();
    }
}
