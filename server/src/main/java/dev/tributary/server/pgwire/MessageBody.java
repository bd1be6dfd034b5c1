package dev.tributary.server.pgwire;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The body of one protocol message, read field by field from the front, by the server (frontend
 * messages) and by {@link PgClient} (backend messages) alike. Integers are big-endian and signed,
 * as the protocol sends them; a field running past the end is a {@link ProtocolException}.
 */
class MessageBody {
    private final byte[] b;
    private int pos;

    MessageBody(byte[] b) {
        this.b = b;
    }

    int remaining() {
        return b.length - pos;
    }

    char byte1() throws ProtocolException {
        need(1);
        return (char) b[pos++];
    }

    /** The next byte without taking it (0 at the end). */
    byte peek() {
        return pos < b.length ? b[pos] : 0;
    }

    int int16() throws ProtocolException {
        need(2);
        int v = (short) (((b[pos] & 0xff) << 8) | (b[pos + 1] & 0xff));
        pos += 2;
        return v;
    }

    int int32() throws ProtocolException {
        need(4);
        int v = ((b[pos] & 0xff) << 24) | ((b[pos + 1] & 0xff) << 16) | ((b[pos + 2] & 0xff) << 8) | (b[pos + 3] & 0xff);
        pos += 4;
        return v;
    }

    byte[] bytes(int n) throws ProtocolException {
        need(n);
        byte[] v = Arrays.copyOfRange(b, pos, pos + n);
        pos += n;
        return v;
    }

    /** A NUL-terminated string; the position steps over the bytes as sent (invalid UTF-8 decodes to replacements of another length). */
    String string() throws ProtocolException {
        int end = terminator();
        String s = new String(b, pos, end - pos, StandardCharsets.UTF_8);
        pos = end + 1;
        return s;
    }

    /**
     * A NUL-terminated string that must be valid UTF-8 (statement text): 22021 otherwise, as
     * PostgreSQL answers, rather than replacement characters taken into the statement.
     */
    String text() throws ProtocolException {
        int end = terminator();
        String s = PgBinary.utf8(Arrays.copyOfRange(b, pos, end));
        pos = end + 1;
        return s;
    }

    /** Where the NUL-terminated string at the position ends (its NUL). */
    private int terminator() throws ProtocolException {
        int end = pos;
        while (end < b.length && b[end] != 0) end++;
        if (end >= b.length) throw new ProtocolException("invalid string in message: no terminator");
        return end;
    }

    /** Everything left, as text. */
    String rest() {
        String s = new String(b, pos, b.length - pos, StandardCharsets.UTF_8);
        pos = b.length;
        return s;
    }

    private void need(int n) throws ProtocolException {
        // compared without adding: a length near 2^31 would overflow pos + n and pass
        if (n < 0 || n > b.length - pos) throw new ProtocolException("message too short");
    }
}
