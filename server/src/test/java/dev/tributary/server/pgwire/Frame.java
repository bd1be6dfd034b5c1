package dev.tributary.server.pgwire;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A frontend message as its fields, for fuzzing: every count and length in it (the message's own
 * length too) is a field a mutation can aim at, and the bytes are put together only when sent.
 * A start-up phase packet (StartupMessage, SSLRequest, CancelRequest) has no type byte.
 *
 * <p>The length is the real one unless {@link #length} was set; strings end with NUL unless
 * their terminator was dropped.
 */
final class Frame {
    /** One field of a message body. */
    sealed interface Field {}

    /** A 16-bit integer: a count of formats, parameters, parameter types, columns. */
    static final class Int16 implements Field {
        int value;

        Int16(int value) {
            this.value = value;
        }
    }

    /** A 32-bit integer: a length, an OID, a process id, a row limit. */
    static final class Int32 implements Field {
        int value;

        Int32(int value) {
            this.value = value;
        }
    }

    /** A string, NUL-terminated unless {@link #terminated} is false. */
    static final class Str implements Field {
        byte[] bytes;
        boolean terminated = true;

        Str(byte[] bytes) {
            this.bytes = bytes;
        }
    }

    /** Bytes as they are: a parameter value, COPY data, a one-byte subtype. */
    static final class Raw implements Field {
        byte[] bytes;

        Raw(byte[] bytes) {
            this.bytes = bytes;
        }
    }

    /** The type byte, or -1 for a start-up phase packet. */
    int type;
    final List<Field> fields;
    /** The length field as sent, or null for the real one. */
    Integer length;

    Frame(int type, List<Field> fields) {
        this.type = type;
        this.fields = new ArrayList<>(fields);
    }

    /** A deep copy, to mutate. */
    Frame copy() {
        List<Field> f = new ArrayList<>();
        for (Field x : fields) {
            f.add(switch (x) {
                case Int16 i -> new Int16(i.value);
                case Int32 i -> new Int32(i.value);
                case Str s -> {
                    Str c = new Str(s.bytes.clone());
                    c.terminated = s.terminated;
                    yield c;
                }
                case Raw r -> new Raw(r.bytes.clone());
            });
        }
        Frame c = new Frame(type, f);
        c.length = length;
        return c;
    }

    /** The body's bytes, fields in order. */
    byte[] body() {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (Field x : fields) {
            switch (x) {
                case Int16 i -> {
                    b.write(i.value >>> 8);
                    b.write(i.value);
                }
                case Int32 i -> int32(b, i.value);
                case Str s -> {
                    b.writeBytes(s.bytes);
                    if (s.terminated) b.write(0);
                }
                case Raw r -> b.writeBytes(r.bytes);
            }
        }
        return b.toByteArray();
    }

    /** The real length field: the body and the field itself. */
    int realLength() {
        return body().length + 4;
    }

    /** The message as sent: type byte (if any), length field, body. */
    byte[] bytes() {
        byte[] body = body();
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        if (type >= 0) b.write(type);
        int32(b, length != null ? length : body.length + 4);
        b.writeBytes(body);
        return b.toByteArray();
    }

    private static void int32(ByteArrayOutputStream b, int v) {
        b.write(v >>> 24);
        b.write(v >>> 16);
        b.write(v >>> 8);
        b.write(v);
    }

    // ---------------------------------------------------------------- the messages

    static final int PROTOCOL_3 = 196608;
    static final int SSL_REQUEST = 80877103;
    static final int GSSENC_REQUEST = 80877104;
    static final int CANCEL_REQUEST = 80877102;

    static Str str(String s) {
        return new Str(s.getBytes(StandardCharsets.UTF_8));
    }

    /** A StartupMessage of protocol {@code version} with {@code params} as name, value, name, value...; the packet's final NUL is a {@link Raw} field of its own. */
    static Frame startup(int version, String... params) {
        List<Field> f = new ArrayList<>();
        f.add(new Int32(version));
        for (String p : params) f.add(str(p));
        f.add(new Raw(new byte[] {0}));
        return new Frame(-1, f);
    }

    /** A StartupMessage for user tributary, database tributary. */
    static Frame startup() {
        return startup(PROTOCOL_3, "user", "tributary", "database", "tributary");
    }

    /** SSLRequest, GSSENCRequest: the code alone. */
    static Frame request(int code) {
        return new Frame(-1, List.of(new Int32(code)));
    }

    static Frame cancelRequest(int pid, int secret) {
        return new Frame(-1, List.of(new Int32(CANCEL_REQUEST), new Int32(pid), new Int32(secret)));
    }

    static Frame query(String sql) {
        return new Frame('Q', List.of(str(sql)));
    }

    static Frame parse(String name, String sql, int... oids) {
        List<Field> f = new ArrayList<>(List.of(str(name), str(sql), new Int16(oids.length)));
        for (int o : oids) f.add(new Int32(o));
        return new Frame('P', f);
    }

    /** Bind: parameter formats, values (null: NULL, length -1), result formats. */
    static Frame bind(String portal, String statement, int[] formats, byte[][] values, int[] results) {
        List<Field> f = new ArrayList<>(List.of(str(portal), str(statement), new Int16(formats.length)));
        for (int x : formats) f.add(new Int16(x));
        f.add(new Int16(values.length));
        for (byte[] v : values) {
            f.add(new Int32(v == null ? -1 : v.length));
            if (v != null) f.add(new Raw(v));
        }
        f.add(new Int16(results.length));
        for (int x : results) f.add(new Int16(x));
        return new Frame('B', f);
    }

    static Frame describe(char what, String name) {
        return new Frame('D', List.of(new Raw(new byte[] {(byte) what}), str(name)));
    }

    static Frame execute(String portal, int maxRows) {
        return new Frame('E', List.of(str(portal), new Int32(maxRows)));
    }

    static Frame close(char what, String name) {
        return new Frame('C', List.of(new Raw(new byte[] {(byte) what}), str(name)));
    }

    /** A message with no body: Sync, Flush, Terminate, CopyDone. */
    static Frame empty(char type) {
        return new Frame(type, List.of());
    }

    static Frame copyData(String data) {
        return new Frame('d', List.of(new Raw(data.getBytes(StandardCharsets.UTF_8))));
    }

    static Frame copyFail(String why) {
        return new Frame('f', List.of(str(why)));
    }

    /** SASLInitialResponse: the mechanism, then the length of the client's first message and the message. */
    static Frame saslInitial(String mechanism, String clientFirst) {
        byte[] m = clientFirst.getBytes(StandardCharsets.UTF_8);
        return new Frame('p', List.of(str(mechanism), new Int32(m.length), new Raw(m)));
    }

    /** SASLResponse: the client's next message as it is. */
    static Frame saslResponse(String message) {
        return new Frame('p', List.of(new Raw(message.getBytes(StandardCharsets.UTF_8))));
    }

    /** FunctionCall of function {@code oid} with no arguments (the server does not take it). */
    static Frame functionCall(int oid) {
        return new Frame('F', List.of(new Int32(oid), new Int16(0), new Int16(0), new Int16(0)));
    }
}
