package dev.tributary.server.pgwire;

import dev.tributary.server.Result;
import dev.tributary.server.Tributary;
import dev.tributary.sql.SqlException;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One client connection speaking protocol 3.0: the startup exchange, then messages until the
 * client terminates or breaks the protocol.
 *
 * <p>Answered: SSLRequest and GSSENCRequest ({@code N}, no encryption), StartupMessage (database
 * {@code tributary} only, else 3D000; trust authentication; ParameterStatus; BackendKeyData),
 * Query (each statement's RowDescription, DataRows and CommandComplete in turn, or an
 * ErrorResponse with SQLSTATE, position, detail and hint; then ReadyForQuery with the session's
 * transaction status), Terminate. Anything else (the extended protocol, COPY, CancelRequest) gets
 * an ErrorResponse naming it. A malformed, truncated or oversized message ends the connection with
 * 08P01; nothing a client sends stops another connection.
 */
final class PgConnection {
    private static final int SSL_REQUEST = 80877103;
    private static final int GSSENC_REQUEST = 80877104;
    private static final int CANCEL_REQUEST = 80877102;
    private static final int PROTOCOL_3 = 196608;
    private static final int MAX_MESSAGE = 64 << 20;

    private final Tributary.Connection session;
    private final Socket socket;
    private final int key;
    private DataInputStream in;
    private DataOutputStream out;

    PgConnection(Tributary db, Socket socket, int key) {
        this.session = db.session();
        this.socket = socket;
        this.key = key;
    }

    /** Tells a client there is no room for it, and hangs up. */
    static void refuse(Socket client, String sqlState, String message) {
        try (client) {
            DataOutputStream o = new DataOutputStream(client.getOutputStream());
            writeError(o, new SqlException(sqlState, message), "FATAL");
            o.flush();
        } catch (IOException ignored) {
            // the client is gone anyway
        }
    }

    void run() {
        try (socket) {
            in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
            out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()));
            if (!startup()) return;
            while (true) {
                int type = in.read();
                if (type < 0) return;
                byte[] body = body(in.readInt());
                switch (type) {
                    case 'Q' -> query(cString(body, 0));
                    case 'X' -> {
                        return;
                    }
                    case 'P', 'B', 'D', 'E', 'C', 'S', 'H' -> {
                        writeError(out, new SqlException("0A000", "the extended query protocol is not supported yet; use the simple query protocol"), "ERROR");
                        if (type == 'S') readyForQuery();
                        out.flush();
                    }
                    default -> {
                        writeError(out, new SqlException("08P01", "invalid frontend message type " + type), "FATAL");
                        out.flush();
                        return;
                    }
                }
            }
        } catch (ProtocolException e) {
            try {
                writeError(out, new SqlException("08P01", e.getMessage()), "FATAL");
                out.flush();
            } catch (IOException ignored) {
                // the client is gone
            }
        } catch (IOException | RuntimeException e) {
            // a client that vanished, or a message we could not read: this connection ends here
        }
    }

    /** A protocol violation by the client, which ends the connection. */
    private static final class ProtocolException extends IOException {
        ProtocolException(String message) {
            super(message);
        }
    }

    private byte[] body(int length) throws IOException {
        if (length < 4 || length > MAX_MESSAGE) throw new ProtocolException("invalid message length " + length);
        byte[] b = new byte[length - 4];
        in.readFully(b);
        return b;
    }

    /** The startup exchange; false if the connection ends in it. */
    private boolean startup() throws IOException {
        while (true) {
            int length;
            try {
                length = in.readInt();
            } catch (EOFException e) {
                return false;
            }
            byte[] body = body(length);
            if (body.length < 4) throw new ProtocolException("invalid startup packet");
            int code = ((body[0] & 0xff) << 24) | ((body[1] & 0xff) << 16) | ((body[2] & 0xff) << 8) | (body[3] & 0xff);
            if (code == SSL_REQUEST || code == GSSENC_REQUEST) {
                out.write('N');
                out.flush();
                continue;
            }
            if (code == CANCEL_REQUEST) return false;
            if (code != PROTOCOL_3) {
                writeError(out, new SqlException("0A000", "unsupported frontend protocol " + (code >>> 16) + "." + (code & 0xffff)
                        + ": server supports 3.0"), "FATAL");
                out.flush();
                return false;
            }
            Map<String, String> params = new HashMap<>();
            int pos = 4;
            while (pos < body.length && body[pos] != 0) {
                String name = cString(body, pos);
                pos += name.getBytes(StandardCharsets.UTF_8).length + 1;
                String value = cString(body, pos);
                pos += value.getBytes(StandardCharsets.UTF_8).length + 1;
                params.put(name, value);
            }
            String user = params.get("user");
            if (user == null) {
                writeError(out, new SqlException("28000", "no PostgreSQL user name specified in startup packet"), "FATAL");
                out.flush();
                return false;
            }
            String database = params.getOrDefault("database", user);
            if (!database.equals("tributary")) {
                writeError(out, new SqlException("3D000", "database \"" + database + "\" does not exist", 0,
                        "The one database is \"tributary\"."), "FATAL");
                out.flush();
                return false;
            }
            message('R', b -> b.writeInt(0));
            parameter("server_version", "15.0 (Tributary)");
            parameter("server_encoding", "UTF8");
            parameter("client_encoding", "UTF8");
            parameter("DateStyle", "ISO, MDY");
            parameter("IntervalStyle", "postgres");
            parameter("TimeZone", "UTC");
            parameter("integer_datetimes", "on");
            parameter("standard_conforming_strings", "on");
            parameter("application_name", params.getOrDefault("application_name", ""));
            message('K', b -> {
                b.writeInt(key);
                b.writeInt(key * 7919);
            });
            readyForQuery();
            out.flush();
            return true;
        }
    }

    private void query(String sql) throws IOException {
        if (sql.isBlank()) {
            message('I', b -> {});
        } else {
            try {
                session.executeEach(sql, r -> {
                    try {
                        result(r);
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                });
            } catch (SqlException e) {
                writeError(out, e, "ERROR");
            } catch (java.io.UncheckedIOException e) {
                throw e.getCause();
            } catch (RuntimeException e) {
                writeError(out, new SqlException("XX000", "internal error: " + e), "ERROR");
            }
        }
        readyForQuery();
        out.flush();
    }

    private void result(Result r) throws IOException {
        if (r.hasRows()) {
            message('T', b -> {
                b.writeShort(r.columns().size());
                for (int i = 0; i < r.columns().size(); i++) {
                    writeCString(b, r.columns().get(i));
                    b.writeInt(0);
                    b.writeShort(0);
                    b.writeInt(PgTypes.oid(r.types().get(i)));
                    b.writeShort(PgTypes.size(r.types().get(i)));
                    b.writeInt(PgTypes.modifier(r.types().get(i)));
                    b.writeShort(0);
                }
            });
            for (List<String> row : r.text()) {
                message('D', b -> {
                    b.writeShort(row.size());
                    for (String v : row) {
                        if (v == null) {
                            b.writeInt(-1);
                        } else {
                            byte[] bytes = v.getBytes(StandardCharsets.UTF_8);
                            b.writeInt(bytes.length);
                            b.write(bytes);
                        }
                    }
                });
            }
        }
        message('C', b -> writeCString(b, r.tag()));
    }

    private void readyForQuery() throws IOException {
        message('Z', b -> b.writeByte(session.transactionStatus()));
    }

    private void parameter(String name, String value) throws IOException {
        message('S', b -> {
            writeCString(b, name);
            writeCString(b, value);
        });
    }

    @FunctionalInterface
    private interface Body {
        void write(DataOutputStream b) throws IOException;
    }

    private void message(char type, Body body) throws IOException {
        writeMessage(out, type, body);
    }

    private static void writeMessage(DataOutputStream out, char type, Body body) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        body.write(new DataOutputStream(bytes));
        out.writeByte(type);
        out.writeInt(bytes.size() + 4);
        bytes.writeTo(out);
    }

    private static void writeError(DataOutputStream out, SqlException e, String severity) throws IOException {
        writeMessage(out, 'E', b -> {
            field(b, 'S', severity);
            field(b, 'V', severity);
            field(b, 'C', e.sqlState());
            field(b, 'M', e.getMessage());
            if (e.detail() != null) field(b, 'D', e.detail());
            if (e.hint() != null) field(b, 'H', e.hint());
            if (e.position() > 0) field(b, 'P', String.valueOf(e.position()));
            b.writeByte(0);
        });
    }

    private static void field(DataOutputStream b, char code, String value) throws IOException {
        b.writeByte(code);
        writeCString(b, value);
    }

    private static void writeCString(DataOutputStream b, String s) throws IOException {
        b.write(s.getBytes(StandardCharsets.UTF_8));
        b.writeByte(0);
    }

    private static String cString(byte[] b, int from) throws ProtocolException {
        int end = from;
        while (end < b.length && b[end] != 0) end++;
        if (end >= b.length) throw new ProtocolException("invalid string in message: no terminator");
        return new String(b, from, end - from, StandardCharsets.UTF_8);
    }
}
