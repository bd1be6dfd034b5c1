package dev.tributary.server.pgwire;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A protocol 3.0 client for tests that builds every frontend message as bytes itself, so a test
 * can send exactly what it means, record a session's byte stream, and replay or mutate it.
 */
final class WireClient implements AutoCloseable {
    final Socket socket;
    final DataInputStream in;
    final DataOutputStream out;

    WireClient(int port) throws IOException {
        this(port, 0);
    }

    /** A client whose socket's receive buffer is {@code receiveBufferBytes} (0: the default), so that a server writing to it blocks soon when it stops reading. */
    WireClient(int port, int receiveBufferBytes) throws IOException {
        socket = new Socket();
        if (receiveBufferBytes > 0) socket.setReceiveBufferSize(receiveBufferBytes);
        socket.connect(new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        socket.setSoTimeout(30_000);
        socket.setTcpNoDelay(true);
        in = new DataInputStream(new java.io.BufferedInputStream(socket.getInputStream()));
        out = new DataOutputStream(socket.getOutputStream());
    }

    /** One backend message: its type byte and body. */
    record Msg(char type, byte[] body) {
        /** An ErrorResponse's or NoticeResponse's fields by code ({@code C} the SQLSTATE, {@code M} the message). */
        Map<Character, String> fields() {
            Map<Character, String> f = new LinkedHashMap<>();
            int p = 0;
            while (p < body.length && body[p] != 0) {
                char code = (char) body[p++];
                int end = p;
                while (body[end] != 0) end++;
                f.put(code, new String(body, p, end - p, StandardCharsets.UTF_8));
                p = end + 1;
            }
            return f;
        }

        /** A DataRow's column values, null for NULL. */
        List<byte[]> columns() {
            java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(body);
            int n = b.getShort();
            List<byte[]> out = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                int len = b.getInt();
                if (len < 0) {
                    out.add(null);
                } else {
                    byte[] v = new byte[len];
                    b.get(v);
                    out.add(v);
                }
            }
            return out;
        }

        /** A DataRow's columns as text (NULL as "NULL"), joined by '|'. */
        String row() {
            List<String> s = new ArrayList<>();
            for (byte[] c : columns()) s.add(c == null ? "NULL" : new String(c, StandardCharsets.UTF_8));
            return String.join("|", s);
        }

        /** A RowDescription's columns as name:typeOid:format; a ParameterDescription's OIDs. */
        String description() {
            java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(body);
            int n = b.getShort();
            List<String> s = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                if (type == 't') {
                    s.add(String.valueOf(b.getInt()));
                    continue;
                }
                int start = b.position();
                while (b.get() != 0) {
                    // the column name
                }
                String name = new String(body, start, b.position() - start - 1, StandardCharsets.UTF_8);
                b.getInt();
                b.getShort();
                int oid = b.getInt();
                b.getShort();
                b.getInt();
                int format = b.getShort();
                s.add(name + ":" + oid + ":" + format);
            }
            return String.join("|", s);
        }

        /** A compact rendering for assertions: type, then the SQLSTATE, tag, row or description. */
        String brief() {
            return switch (type) {
                case 'E' -> "E " + fields().get('C');
                case 'C' -> "C " + new String(body, 0, body.length - 1, StandardCharsets.UTF_8);
                case 'D' -> "D " + row();
                case 'T', 't' -> type + " " + description();
                case 'Z' -> "Z " + (char) body[0];
                default -> String.valueOf(type);
            };
        }
    }

    // ---------------------------------------------------------------- messages as bytes

    static byte[] startup(String database) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        DataOutputStream d = new DataOutputStream(b);
        try {
            d.writeInt(196608);
            for (String s : new String[] {"user", "tributary", "database", database}) cstring(d, s);
            d.writeByte(0);
            ByteArrayOutputStream framed = new ByteArrayOutputStream();
            DataOutputStream f = new DataOutputStream(framed);
            f.writeInt(b.size() + 4);
            b.writeTo(f);
            return framed.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @FunctionalInterface
    interface Body {
        void write(DataOutputStream d) throws IOException;
    }

    static byte[] message(char type, Body body) {
        try {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            body.write(new DataOutputStream(b));
            ByteArrayOutputStream framed = new ByteArrayOutputStream();
            DataOutputStream f = new DataOutputStream(framed);
            f.writeByte(type);
            f.writeInt(b.size() + 4);
            b.writeTo(f);
            return framed.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void cstring(DataOutputStream d, String s) throws IOException {
        d.write(s.getBytes(StandardCharsets.UTF_8));
        d.writeByte(0);
    }

    static byte[] query(String sql) {
        return message('Q', d -> cstring(d, sql));
    }

    static byte[] parse(String name, String sql, int... oids) {
        return message('P', d -> {
            cstring(d, name);
            cstring(d, sql);
            d.writeShort(oids.length);
            for (int o : oids) d.writeInt(o);
        });
    }

    /** Bind with parameter formats and values (null: NULL) and result formats as given. */
    static byte[] bind(String portal, String statement, int[] paramFormats, byte[][] values, int[] resultFormats) {
        return message('B', d -> {
            cstring(d, portal);
            cstring(d, statement);
            d.writeShort(paramFormats.length);
            for (int f : paramFormats) d.writeShort(f);
            d.writeShort(values.length);
            for (byte[] v : values) {
                if (v == null) {
                    d.writeInt(-1);
                } else {
                    d.writeInt(v.length);
                    d.write(v);
                }
            }
            d.writeShort(resultFormats.length);
            for (int f : resultFormats) d.writeShort(f);
        });
    }

    /** Bind with text parameters and text results. */
    static byte[] bind(String portal, String statement, String... values) {
        byte[][] v = new byte[values.length][];
        for (int i = 0; i < values.length; i++) v[i] = values[i] == null ? null : values[i].getBytes(StandardCharsets.UTF_8);
        return bind(portal, statement, new int[0], v, new int[0]);
    }

    static byte[] describe(char what, String name) {
        return message('D', d -> {
            d.writeByte(what);
            cstring(d, name);
        });
    }

    static byte[] execute(String portal, int maxRows) {
        return message('E', d -> {
            cstring(d, portal);
            d.writeInt(maxRows);
        });
    }

    static byte[] close(char what, String name) {
        return message('C', d -> {
            d.writeByte(what);
            cstring(d, name);
        });
    }

    static byte[] sync() {
        return message('S', d -> {});
    }

    static byte[] flush() {
        return message('H', d -> {});
    }

    static byte[] terminate() {
        return message('X', d -> {});
    }

    // ---------------------------------------------------------------- talking

    /** Sends the messages in one write, as a client that batches them does. */
    void send(byte[]... messages) throws IOException {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        for (byte[] m : messages) all.writeBytes(m);
        out.write(all.toByteArray());
        out.flush();
    }

    /** Messages up to and including the next ReadyForQuery, or to the end of the connection. */
    List<Msg> untilReady() throws IOException {
        List<Msg> got = new ArrayList<>();
        while (true) {
            Msg m = next();
            if (m == null) return got;
            got.add(m);
            if (m.type() == 'Z') return got;
        }
    }

    /** The next message, or null at the end of the connection. */
    Msg next() throws IOException {
        int type = in.read();
        if (type < 0) return null;
        try {
            byte[] body = new byte[in.readInt() - 4];
            in.readFully(body);
            return new Msg((char) type, body);
        } catch (EOFException e) {
            return null;
        }
    }

    /** The brief renderings of the messages up to the next ReadyForQuery, without ParameterStatus and BackendKeyData. */
    List<String> briefUntilReady() throws IOException {
        List<String> out = new ArrayList<>();
        for (Msg m : untilReady()) if (m.type() != 'S' && m.type() != 'K' && m.type() != 'N') out.add(m.brief());
        return out;
    }

    /** Connects: startup for database tributary, up to the first ReadyForQuery. */
    static WireClient connect(int port) throws IOException {
        WireClient c = new WireClient(port);
        c.send(startup("tributary"));
        List<Msg> hello = c.untilReady();
        if (hello.isEmpty() || hello.get(hello.size() - 1).type() != 'Z') throw new IOException("startup failed: " + hello.size() + " messages");
        return c;
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
