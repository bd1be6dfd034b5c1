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
 * <p>The start-up phase is fuzzed too, as messages built from their fields ({@link Frame}) so
 * that every count and length can be aimed at: start-up packets (lengths from 0 to 2^31 and
 * negative, truncated, SSLRequest, GSSENCRequest and CancelRequest codes, other protocol versions,
 * strings without their NUL, parameters that are not UTF-8, hundreds of parameters), the
 * SCRAM-SHA-256 exchange's messages, and every count and length field of the messages after it
 * (Parse's parameter types, Bind's formats, parameters and their lengths, Execute's row limit,
 * CopyData). The server must answer a start-up packet as PostgreSQL does where the answer is
 * known ({@link #startUpPacketsAreAnsweredAsPostgresAnswersThem}), and otherwise: end or finish
 * every connection in time, send only well-formed messages, send an error only as FATAL with a
 * proper code in the start-up phase and never an internal error (XX000), close the connection
 * after a FATAL, and go on serving well-behaved clients.
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

    /**
     * What the server answered, briefly: {@code N} for a refused SSL/GSS request, then each
     * message ({@code E code}, {@code R code}, {@code Z status}, or its type); {@code MALFORMED}
     * if the bytes are not messages, {@code CUT} if the last one is cut short (a server that
     * meets the client's end of input while its answers wait in its buffer ends the connection
     * without them, as PostgreSQL's backend does).
     */
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
                out.add("CUT");
                return out;
            }
            char type = (char) raw[p];
            int length = ByteBuffer.wrap(raw, p + 1, 4).getInt();
            if (length < 4) {
                out.add("MALFORMED: length " + length + " of a message " + type);
                return out;
            }
            if (length > raw.length - p - 1) {
                // the server was cut off by the client's end: what it had written, not flushed, goes with the connection
                out.add("CUT");
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

    private static final String[] PARAMETER_NAMES = {"user", "database", "application_name", "options", "client_encoding", "DateStyle", "TimeZone",
        "search_path", "replication", "_pq_.fuzz", "statement_timeout", "extra_float_digits", ""};
    private static final String[] PARAMETER_VALUES = {"tributary", "tributary", "", "0", "-c statement_timeout=1", "UTF8", "LATIN1", "ISO, MDY", "true",
        "database", "x".repeat(3000)};

    /** Bytes of a parameter: from the pools, or random (a NUL inside splits it, invalid UTF-8 now and then). */
    private static byte[] parameterBytes(SplittableRandom r, String[] pool) {
        if (r.nextInt(6) > 0) return pool[r.nextInt(pool.length)].getBytes(java.nio.charset.StandardCharsets.UTF_8);
        return random(r, r.nextInt(40));
    }

    /** A start-up packet of random parameters (user tributary among them most of the time) and version. */
    private static Frame randomStartup(SplittableRandom r) {
        int[] versions = {Frame.PROTOCOL_3, Frame.PROTOCOL_3, Frame.PROTOCOL_3, Frame.PROTOCOL_3 + 1 + r.nextInt(3), 2 << 16, 0, -1,
            Frame.SSL_REQUEST, Frame.GSSENC_REQUEST, Frame.CANCEL_REQUEST, r.nextInt()};
        List<Frame.Field> f = new ArrayList<>();
        f.add(new Frame.Int32(versions[r.nextInt(versions.length)]));
        if (r.nextInt(5) > 0) {
            f.add(Frame.str("user"));
            f.add(Frame.str("tributary"));
        }
        int n = r.nextInt(10) == 0 ? r.nextInt(600) : r.nextInt(5);
        for (int i = 0; i < n; i++) {
            f.add(new Frame.Str(parameterBytes(r, PARAMETER_NAMES)));
            f.add(new Frame.Str(parameterBytes(r, PARAMETER_VALUES)));
        }
        f.add(new Frame.Raw(new byte[] {0}));
        return new Frame(-1, f);
    }

    /** A value to put in a 16-bit field now {@code v}: the edges of the type and of the value. */
    private static int int16Edge(SplittableRandom r, int v) {
        int[] choices = {Short.MIN_VALUE, -2, -1, 0, 1, 2, v - 1, v + 1, 255, 256, Short.MAX_VALUE, r.nextInt(1 << 16) - (1 << 15)};
        return choices[r.nextInt(choices.length)];
    }

    /** A value to put in a 32-bit field now {@code v}: the edges of the type, of the value and of the server's limits. */
    private static int int32Edge(SplittableRandom r, int v) {
        int[] choices = {Integer.MIN_VALUE, -2, -1, 0, 1, 3, 4, 5, 7, 8, v - 1, v + 1, v + 100, 10_000, 10_001, Integer.MAX_VALUE - 8, Integer.MAX_VALUE,
            1 << 24, (64 << 20) + 1, r.nextInt()};
        return choices[r.nextInt(choices.length)];
    }

    /**
     * One mutation of {@code f}, described into {@code what}: its length field or any count or
     * length in it set to an edge, a string's NUL dropped, a string or raw field replaced by
     * random bytes (invalid UTF-8 too), bytes added at its end, or its type byte changed.
     */
    static void mutate(Frame f, SplittableRandom r, StringBuilder what) {
        List<Integer> ints = new ArrayList<>();
        List<Integer> others = new ArrayList<>();
        for (int i = 0; i < f.fields.size(); i++) {
            if (f.fields.get(i) instanceof Frame.Int16 || f.fields.get(i) instanceof Frame.Int32) ints.add(i);
            else others.add(i);
        }
        int kind = r.nextInt(10);
        if (kind < 2 || (kind < 6 && ints.isEmpty()) || (kind >= 6 && kind < 9 && others.isEmpty())) {
            f.length = int32Edge(r, f.realLength());
            what.append("length := ").append(f.length);
        } else if (kind < 6) {
            switch (f.fields.get(ints.get(r.nextInt(ints.size())))) {
                case Frame.Int16 i -> {
                    int old = i.value;
                    i.value = int16Edge(r, old);
                    what.append("int16 ").append(old).append(" := ").append(i.value);
                }
                case Frame.Int32 i -> {
                    int old = i.value;
                    i.value = int32Edge(r, old);
                    what.append("int32 ").append(old).append(" := ").append(i.value);
                }
                default -> throw new IllegalStateException();
            }
        } else if (kind < 9) {
            switch (f.fields.get(others.get(r.nextInt(others.size())))) {
                case Frame.Str s when r.nextBoolean() -> {
                    s.terminated = false;
                    what.append("NUL of '").append(new String(s.bytes, java.nio.charset.StandardCharsets.UTF_8)).append("' dropped");
                }
                case Frame.Str s -> {
                    s.bytes = random(r, r.nextInt(24));
                    for (int b = 0; b < s.bytes.length; b++) if (s.bytes[b] == 0) s.bytes[b] = (byte) 0xff;
                    what.append("string := ").append(s.bytes.length).append(" random bytes");
                }
                case Frame.Raw raw -> {
                    raw.bytes = r.nextBoolean() ? random(r, r.nextInt(24)) : java.util.Arrays.copyOf(raw.bytes, r.nextInt(raw.bytes.length + 1));
                    what.append("raw := ").append(raw.bytes.length).append(" bytes");
                }
                default -> throw new IllegalStateException();
            }
        } else if (f.type >= 0 && r.nextBoolean()) {
            byte[] types = "pQPBDESCHXFdcfv\0".getBytes();
            f.type = types[r.nextInt(types.length)];
            what.append("type := ").append(f.type);
        } else {
            byte[] junk = random(r, 1 + r.nextInt(16));
            f.fields.add(new Frame.Raw(junk));
            what.append(junk.length).append(" bytes added");
        }
    }

    @Test
    void mutatedStartUpPhasesNeverHurtTheServer() throws Exception {
        for (int i = 0; i < CASES; i++) {
            long seed = SEED + 1_000_000 + i;
            SplittableRandom r = new SplittableRandom(seed);
            List<Frame> frames = new ArrayList<>();
            int[] negotiations = {Frame.SSL_REQUEST, Frame.GSSENC_REQUEST, Frame.SSL_REQUEST, Frame.CANCEL_REQUEST};
            for (int k = r.nextInt(4); k > 0; k--) frames.add(Frame.request(negotiations[r.nextInt(negotiations.length)]));
            frames.add(r.nextInt(3) == 0 ? Frame.startup() : randomStartup(r));
            if (r.nextBoolean()) frames.add(Frame.query("SELECT 1"));
            if (r.nextBoolean()) frames.add(Frame.empty('X'));
            StringBuilder what = new StringBuilder();
            for (int m = 1 + r.nextInt(2); m > 0; m--) {
                int at = r.nextInt(frames.size());
                what.append("frame ").append(at).append(": ");
                mutate(frames.get(at), r, what);
                what.append("; ");
            }
            assertHarmless(frames, i, r, "start-up case " + i + " (seed " + seed + "): " + what);
        }
        assertWellBehavedClientServed(new SplittableRandom(SEED));
    }

    /**
     * Sends {@code frames} and checks that the answer is proper ({@link #assertProperAnswer}),
     * every tenth case that a well-behaved client is served, and that no connection is left.
     */
    private void assertHarmless(List<Frame> frames, int i, SplittableRandom r, String context) throws InterruptedException {
        try {
            assertProperAnswer(startUpExchange(frames), context);
            if (i % 10 == 0) assertWellBehavedClientServed(r);
            assertThat(server.awaitConnections(0, 20_000)).as("connections left after " + context).isTrue();
        } catch (AssertionError | IOException e) {
            throw new AssertionError(context, e);
        }
    }

    // ---------------------------------------------------------------- authentication

    private static final String[] SCRAM_FIRSTS = {"", "n,,", "n,,n=", "n,,n=,r=", "y,,n=,r=abc", "p=tls-server-end-point,,n=,r=abc", "n,a=x,n=,r=abc",
        "n,,n=,r=a\u0001b", "n,,r=abc", "x,,n=,r=abc", "n,,n=,r=abc,e=ext", "n,,n=,r=" + "a".repeat(5000)};
    private static final String[] SCRAM_FINALS = {"", "c=biws", "c=biws,r=", "c=biws,r=x,p=", "c=biws,r=x,p=!!!", "c=eSws,r=x,p=AAAA", "r=x,p=AAAA",
        "c=biws,r=x,p=" + "A".repeat(44), "c=biws,p=AAAA,r=x", ",p=", "c=,r=,p="};

    /**
     * The SCRAM-SHA-256 exchange with one of its two client messages mutated: its fields (the
     * mechanism, the inner length, the outer length, the type), or its text replaced by a
     * malformed one; the other message is right, with the right or a wrong password. Each
     * exchange must end in time with AuthenticationOk or a FATAL of 08P01, 28P01 or 28000, and
     * the server goes on letting a right password in.
     */
    @Test
    void mutatedAuthenticationExchangesNeverHurtTheServer() throws Exception {
        try (Tributary scramDb = Tributary.inMemory(Clock.manual(0));
             PgServer scram = new PgServer(scramDb, PgServer.Options.defaults().withPort(0).withMaxConnections(8).withAuth(PgServer.Auth.SCRAM))) {
            scramDb.roles().alter(dev.tributary.server.auth.Roles.BOOTSTRAP, null, true, scramDb.roles().verifierOf("right"));
            int cases = Math.max(30, CASES / 5); // each runs SCRAM's 4096 rounds of HMAC on both sides
            for (int i = 0; i < cases; i++) {
                long seed = SEED + 2_000_000 + i;
                SplittableRandom r = new SplittableRandom(seed);
                StringBuilder what = new StringBuilder();
                String context = "authentication case " + i + " (seed " + seed + "): ";
                try {
                    List<String> got = mutatedScram(scram.port(), r, what);
                    assertProperAnswer(got, context + what);
                    // a protocol violation, a failed login, or an authorization identity (not supported, as in PostgreSQL)
                    assertThat(got).as(context + what).allMatch(a -> !a.startsWith("E ") || a.startsWith("E 08P01") || a.startsWith("E 28P01")
                            || a.startsWith("E 0A000"));
                    if (i % 5 == 0) assertScramLogin(scram.port());
                    assertThat(scram.awaitConnections(0, 20_000)).as("connections left after " + context + what).isTrue();
                } catch (AssertionError | IOException e) {
                    throw new AssertionError(context + what, e);
                }
            }
            assertScramLogin(scram.port());
        }
    }

    /** One exchange with a mutated message; the answers, briefly. */
    private static List<String> mutatedScram(int port, SplittableRandom r, StringBuilder what) throws IOException {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            s.setSoTimeout(20_000);
            java.io.DataInputStream in = new java.io.DataInputStream(new java.io.BufferedInputStream(s.getInputStream()));
            OutputStream out = s.getOutputStream();
            out.write(Frame.startup().bytes());
            out.flush();
            List<String> got = new ArrayList<>();
            WireClient.Msg sasl = read(in);
            got.add("R " + ByteBuffer.wrap(sasl.body()).getInt());
            dev.tributary.server.auth.ScramClient client = new dev.tributary.server.auth.ScramClient(r.nextInt(4) == 0 ? "wrong" : "right",
                    new java.security.SecureRandom());
            boolean first = r.nextBoolean();
            String mechanism = r.nextInt(8) == 0 ? "SCRAM-SHA-1" : "SCRAM-SHA-256";
            if (!mechanism.equals("SCRAM-SHA-256")) what.append("mechanism ").append(mechanism).append("; ");
            Frame initial = Frame.saslInitial(mechanism, client.clientFirst());
            if (first) {
                what.append("first message: ");
                if (r.nextInt(3) == 0) {
                    String text = SCRAM_FIRSTS[r.nextInt(SCRAM_FIRSTS.length)];
                    initial = Frame.saslInitial("SCRAM-SHA-256", text);
                    what.append("text := '").append(text.length() > 40 ? text.substring(0, 40) + "..." : text).append("'");
                } else {
                    mutate(initial, r, what);
                }
            }
            out.write(initial.bytes());
            out.flush();
            // past the mutated message the client sends nothing: the server must answer or hang up without more
            if (first) s.shutdownOutput();
            WireClient.Msg m = read(in);
            if (!first && m != null && m.type() == 'R' && ByteBuffer.wrap(m.body()).getInt() == 11) {
                got.add("R 11");
                String serverFirst = new String(m.body(), 4, m.body().length - 4, java.nio.charset.StandardCharsets.UTF_8);
                Frame response = Frame.saslResponse(client.clientFinal(serverFirst));
                if (!first) {
                    what.append("final message: ");
                    if (r.nextInt(3) == 0) {
                        String text = SCRAM_FINALS[r.nextInt(SCRAM_FINALS.length)];
                        response = Frame.saslResponse(text);
                        what.append("text := '").append(text).append("'");
                    } else {
                        mutate(response, r, what);
                    }
                }
                out.write(response.bytes());
                out.flush();
                s.shutdownOutput();
                m = read(in);
            }
            for (; m != null; m = read(in)) {
                got.add(switch (m.type()) {
                    case 'E' -> "E " + m.fields().get('C') + " " + m.fields().get('S');
                    case 'R' -> "R " + ByteBuffer.wrap(m.body()).getInt();
                    case 'Z' -> "Z " + (char) m.body()[0];
                    default -> String.valueOf(m.type());
                });
            }
            got.removeIf(a -> a.equals("S") || a.equals("K"));
            return got;
        }
    }

    /** The next message, null at the end of the connection (or its reset); a read that times out is a hang. */
    private static WireClient.Msg read(java.io.DataInputStream in) throws IOException {
        try {
            int type = in.read();
            if (type < 0) return null;
            int length = in.readInt();
            assertThat(length).as("a message's length").isBetween(4, 1 << 20);
            byte[] body = new byte[length - 4];
            in.readFully(body);
            return new WireClient.Msg((char) type, body);
        } catch (SocketTimeoutException e) {
            throw new AssertionError("the server neither answered nor hung up within 20 s");
        } catch (java.net.SocketException | java.io.EOFException e) {
            return null; // reset or cut after a fatal error: the connection ended
        }
    }

    /** A client with the right password logs in by SCRAM-SHA-256 and is answered. */
    private static void assertScramLogin(int port) throws Exception {
        String url = "jdbc:postgresql://127.0.0.1:" + port + "/tributary?user=tributary&password=right";
        try (java.sql.Connection c = java.sql.DriverManager.getConnection(url); java.sql.ResultSet rs = c.createStatement().executeQuery("SELECT 41 + 1")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getInt(1)).isEqualTo(42);
        }
    }

    // ---------------------------------------------------------------- every message's counts and lengths

    private static byte[] int4(int v) {
        return ByteBuffer.allocate(4).putInt(v).array();
    }

    /** Sessions as frames, the start-up packet first: the extended protocol with text and binary values, COPY in and out, and messages the server does not take. */
    private static List<List<Frame>> frameSessions() {
        byte[] two = int4(2);
        return List.of(
                List.of(Frame.startup(),
                        Frame.parse("s1", "SELECT $1::int + $2::int", 23, 23),
                        Frame.bind("p", "s1", new int[] {0, 1}, new byte[][] {"1".getBytes(), two}, new int[] {1}),
                        Frame.describe('P', "p"), Frame.execute("p", 0), Frame.close('P', "p"), Frame.empty('S'),
                        Frame.parse("", "SELECT b FROM fz WHERE a = $1", 23),
                        Frame.bind("", "", new int[0], new byte[][] {"1".getBytes()}, new int[0]),
                        Frame.describe('S', ""), Frame.execute("", 1), Frame.empty('H'), Frame.empty('S'),
                        Frame.query("SELECT 1"), Frame.empty('X')),
                List.of(Frame.startup(),
                        Frame.parse("", "INSERT INTO fz VALUES ($1, $2)", 23, 25),
                        Frame.bind("", "", new int[] {1, 0}, new byte[][] {int4(10), null}, new int[0]),
                        Frame.execute("", 0), Frame.close('S', ""), Frame.empty('S'),
                        Frame.query("BEGIN"), Frame.parse("q", "SELECT a FROM fz ORDER BY a"), Frame.bind("c", "q", new int[0], new byte[0][], new int[] {1}),
                        Frame.execute("c", 1), Frame.execute("c", 2), Frame.empty('S'), Frame.query("COMMIT"), Frame.empty('X')),
                List.of(Frame.startup(),
                        Frame.query("COPY fz FROM STDIN"), Frame.copyData("7\tseven\n"), Frame.copyData("8\teight\n8"), Frame.copyData("\tmore\n"),
                        Frame.empty('c'),
                        Frame.query("COPY fz FROM STDIN"), Frame.copyData("9\tnine\n"), Frame.copyFail("changed my mind"),
                        Frame.query("COPY fz TO STDOUT"), Frame.query("SELECT count(*) FROM fz"), Frame.empty('X')),
                List.of(Frame.startup(),
                        Frame.query("SELECT 1"), Frame.saslResponse("not now"), Frame.functionCall(1), Frame.empty('X')));
    }

    /**
     * Sessions whose messages after start-up have one to three fields mutated (see
     * {@link #mutate(Frame, SplittableRandom, StringBuilder)}): counts of parameter types,
     * formats, parameters and result formats, parameter lengths, row limits, CopyData, the
     * messages' own lengths.
     */
    @Test
    void mutatedCountsAndLengthsOfEveryMessageNeverHurtTheServer() throws Exception {
        List<List<Frame>> sessions = frameSessions();
        for (int i = 0; i < CASES; i++) {
            long seed = SEED + 3_000_000 + i;
            SplittableRandom r = new SplittableRandom(seed);
            List<Frame> frames = new ArrayList<>();
            for (Frame f : sessions.get(r.nextInt(sessions.size()))) frames.add(f.copy());
            StringBuilder what = new StringBuilder();
            for (int m = 1 + r.nextInt(3); m > 0; m--) {
                int at = 1 + r.nextInt(frames.size() - 1);
                what.append("message ").append(at).append(" (").append((char) frames.get(at).type).append("): ");
                mutate(frames.get(at), r, what);
                what.append("; ");
            }
            assertHarmless(frames, i, r, "message case " + i + " (seed " + seed + "): " + what);
        }
        assertWellBehavedClientServed(new SplittableRandom(SEED));
    }
}
