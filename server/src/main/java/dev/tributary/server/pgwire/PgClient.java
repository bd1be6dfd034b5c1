package dev.tributary.server.pgwire;

import dev.tributary.server.Notice;
import dev.tributary.server.auth.ScramClient;
import dev.tributary.sql.SqlException;
import dev.tributary.sql.types.SqlType;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

/**
 * A small PostgreSQL protocol 3.0 client, what {@code tributary sql -h HOST} talks to a server
 * with: the startup exchange (optionally TLS, then trust, cleartext, MD5 or SCRAM-SHA-256
 * authentication), the simple query protocol with every statement's rows, tag and notices,
 * {@code COPY ... TO STDOUT} data, and CancelRequest.
 *
 * <p>Values arrive as text and stay text; column types come from the RowDescription's OIDs (see
 * {@link PgTypes#type}). An ErrorResponse becomes a {@link SqlException} with its SQLSTATE,
 * message, position, detail and hint. Not thread-safe, except {@link #cancel}, which may be
 * called from any thread while a query runs.
 */
public final class PgClient implements AutoCloseable {
    private static final int MAX_MESSAGE = 1 << 30;
    private static final SecureRandom RANDOM = new SecureRandom();

    /** Whether to ask for TLS, libpq's {@code sslmode} values that do not verify the server. */
    public enum SslMode {
        /** Never. */
        DISABLE,
        /** If the server offers it, else in the clear. */
        PREFER,
        /** Always; fail if the server has no certificate. The certificate is not verified (as libpq's {@code require}). */
        REQUIRE
    }

    /**
     * Where and as whom to connect.
     *
     * @param host the server's host name or address
     * @param port its port
     * @param user the role to log in as
     * @param database the database
     * @param sslMode whether to encrypt
     * @param password asked for only if the server wants a password; may return null for none
     */
    public record Options(String host, int port, String user, String database, SslMode sslMode, Supplier<String> password) {}

    /**
     * One statement's answer.
     *
     * @param tag its command tag ({@code SELECT 2}, {@code CREATE TABLE})
     * @param columns the column names, empty for a statement without rows
     * @param types one per column, from the column's type OID
     * @param rows each a list of text values, null for NULL
     * @param notices what the server noticed while running it
     */
    public record Reply(String tag, List<String> columns, List<SqlType> types, List<List<String>> rows, List<Notice> notices) {
        /** Whether the statement returns rows (a query, SHOW, EXPLAIN), even if there were none. */
        public boolean hasRows() {
            return !columns.isEmpty();
        }
    }

    /** Where a query's output goes. */
    public interface Listener {
        /** A statement has completed. */
        void reply(Reply reply);

        /** One message of {@code COPY ... TO STDOUT} output (in text format, one row ending in a newline). */
        default void copyData(byte[] data) {}

        /** A notice, as it comes; returns whether it was taken here (else it goes with its statement's {@link Reply}). */
        default boolean notice(Notice n) {
            return false;
        }
    }

    private final Options options;
    private Socket socket;
    private DataInputStream in;
    private DataOutputStream out;
    private final Map<String, String> parameters = new LinkedHashMap<>();
    private int processId;
    private int secretKey;
    private boolean encrypted;

    private PgClient(Options options) {
        this.options = options;
    }

    /** Connects and logs in; a refusal by the server is a {@link SqlException} (with the server's SQLSTATE). */
    public static PgClient connect(Options options) throws IOException {
        PgClient c = new PgClient(options);
        try {
            c.open();
        } catch (IOException | RuntimeException e) {
            c.close();
            throw e;
        }
        return c;
    }

    private void open() throws IOException {
        socket = new Socket();
        socket.connect(new InetSocketAddress(options.host(), options.port()), 30_000);
        in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
        out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()));
        if (options.sslMode() != SslMode.DISABLE) negotiateTls();
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        DataOutputStream d = new DataOutputStream(b);
        d.writeInt(196608);
        for (String s : new String[] {"user", options.user(), "database", options.database(), "application_name", "tributary sql",
                "client_encoding", "UTF8"}) {
            cString(d, s);
        }
        d.writeByte(0);
        out.writeInt(b.size() + 4);
        b.writeTo(out);
        out.flush();
        authenticate();
        while (true) {
            Message m = read();
            switch (m.type) {
                case 'S' -> parameters.put(m.string(), m.string());
                case 'K' -> {
                    processId = m.int32();
                    secretKey = m.int32();
                }
                case 'N' -> { } // a notice while starting up: nothing to attach it to
                case 'E' -> throw m.error();
                case 'Z' -> {
                    return;
                }
                default -> throw new IOException("unexpected message '" + m.type + "' from the server during startup");
            }
        }
    }

    private void negotiateTls() throws IOException {
        out.writeInt(8);
        out.writeInt(80877103);
        out.flush();
        int answer = in.read();
        if (answer == 'S') {
            if (in.available() > 0) throw new IOException("the server sent unencrypted data after its answer to the SSL request");
            SSLSocket tls = (SSLSocket) unverifiedTls().getSocketFactory().createSocket(socket, options.host(), options.port(), true);
            tls.setUseClientMode(true);
            tls.startHandshake();
            socket = tls;
            in = new DataInputStream(new BufferedInputStream(tls.getInputStream()));
            out = new DataOutputStream(new BufferedOutputStream(tls.getOutputStream()));
            encrypted = true;
        } else if (answer == 'N') {
            if (options.sslMode() == SslMode.REQUIRE) throw new SqlException("08001", "server does not support SSL, but SSL was required");
        } else {
            throw new IOException("the server answered the SSL request with " + (answer < 0 ? "end of stream" : "'" + (char) answer + "'"));
        }
    }

    /** TLS that encrypts but does not check who the server is: libpq's {@code prefer} and {@code require}. */
    private static SSLContext unverifiedTls() throws IOException {
        TrustManager any = new X509TrustManager() {
            @Override
            public void checkClientTrusted(X509Certificate[] chain, String authType) {}

            @Override
            public void checkServerTrusted(X509Certificate[] chain, String authType) {}

            @Override
            public X509Certificate[] getAcceptedIssuers() {
                return new X509Certificate[0];
            }
        };
        try {
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(null, new TrustManager[] {any}, RANDOM);
            return ctx;
        } catch (GeneralSecurityException e) {
            throw new IOException("no TLS in this JDK: " + e.getMessage(), e);
        }
    }

    private void authenticate() throws IOException {
        ScramClient scram = null;
        while (true) {
            Message m = read();
            if (m.type == 'E') throw m.error();
            if (m.type != 'R') throw new IOException("expected an authentication request, got message '" + m.type + "'");
            int code = m.int32();
            switch (code) {
                case 0 -> {
                    return;
                }
                case 3 -> passwordMessage(password().getBytes(StandardCharsets.UTF_8));
                case 5 -> {
                    byte[] salt = m.bytes(4);
                    String inner = md5Hex((password() + options.user()).getBytes(StandardCharsets.UTF_8));
                    byte[] outerInput = concat(inner.getBytes(StandardCharsets.US_ASCII), salt);
                    passwordMessage(("md5" + md5Hex(outerInput)).getBytes(StandardCharsets.US_ASCII));
                }
                case 10 -> {
                    List<String> mechanisms = new ArrayList<>();
                    for (String s; !(s = m.string()).isEmpty(); ) mechanisms.add(s);
                    if (!mechanisms.contains("SCRAM-SHA-256")) {
                        throw new SqlException("08004", "none of the server's SASL authentication mechanisms are supported: " + mechanisms);
                    }
                    scram = new ScramClient(password(), RANDOM);
                    byte[] first = scram.clientFirst().getBytes(StandardCharsets.UTF_8);
                    send('p', d -> {
                        cString(d, "SCRAM-SHA-256");
                        d.writeInt(first.length);
                        d.write(first);
                    });
                }
                case 11 -> {
                    if (scram == null) throw new IOException("SASLContinue without a SASL exchange");
                    byte[] fin = scram.clientFinal(m.rest()).getBytes(StandardCharsets.UTF_8);
                    send('p', d -> d.write(fin));
                }
                case 12 -> {
                    if (scram == null) throw new IOException("SASLFinal without a SASL exchange");
                    scram.checkServerFinal(m.rest());
                }
                default -> throw new SqlException("08004", "the server asks for authentication method " + code + ", which tributary sql does not support");
            }
        }
    }

    private String password() {
        String p = options.password().get();
        if (p == null) throw new SqlException("08004", "fe_sendauth: no password supplied");
        return p;
    }

    private void passwordMessage(byte[] value) throws IOException {
        send('p', d -> {
            d.write(value);
            d.writeByte(0);
        });
    }

    private static String md5Hex(byte[] data) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(data));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK has no MD5", e);
        }
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] r = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }

    /** The server's ParameterStatus values (server_version, TimeZone, ...), as last reported. */
    public Map<String, String> parameters() {
        return java.util.Collections.unmodifiableMap(parameters);
    }

    /** Whether the connection is encrypted with TLS. */
    public boolean encrypted() {
        return encrypted;
    }

    /**
     * Runs {@code sql} (one or more statements) with the simple query protocol, giving each
     * statement's reply to {@code listener} as it completes; an error is thrown once the server is
     * ready again, after the replies of the statements before it. {@code COPY FROM STDIN} is
     * refused (the client sends CopyFail); {@code COPY TO STDOUT} data goes to the listener.
     */
    public void query(String sql, Listener listener) throws IOException {
        send('Q', d -> cString(d, sql));
        SqlException error = null;
        List<String> columns = List.of();
        List<SqlType> types = List.of();
        List<List<String>> rows = new ArrayList<>();
        List<Notice> notices = new ArrayList<>();
        while (true) {
            Message m = read();
            switch (m.type) {
                case 'T' -> {
                    int n = m.int16();
                    columns = new ArrayList<>();
                    types = new ArrayList<>();
                    for (int i = 0; i < n; i++) {
                        columns.add(m.string());
                        m.int32();
                        m.int16();
                        types.add(PgTypes.type(m.int32()));
                        m.int16();
                        m.int32();
                        m.int16();
                    }
                }
                case 'D' -> {
                    int n = m.int16();
                    List<String> row = new ArrayList<>(n);
                    for (int i = 0; i < n; i++) {
                        int len = m.int32();
                        row.add(len < 0 ? null : new String(m.bytes(len), StandardCharsets.UTF_8));
                    }
                    rows.add(row);
                }
                case 'C' -> {
                    listener.reply(new Reply(m.string(), columns, types, rows, notices));
                    columns = List.of();
                    types = List.of();
                    rows = new ArrayList<>();
                    notices = new ArrayList<>();
                }
                case 'N' -> {
                    Notice n = m.notice();
                    if (!listener.notice(n)) notices.add(n);
                }
                case 'E' -> error = m.error();
                case 'I', 'H', 'c', 'A' -> { } // empty query, COPY out starts and ends, notification
                case 'd' -> listener.copyData(m.bytes(m.remaining()));
                case 'G' -> send('f', d -> cString(d, "COPY FROM STDIN is not supported by tributary sql"));
                case 'S' -> parameters.put(m.string(), m.string());
                case 'Z' -> {
                    if (error != null) throw error;
                    return;
                }
                default -> throw new IOException("unexpected message '" + m.type + "' from the server");
            }
        }
    }

    /** Asks the server, on a connection of its own, to cancel the query this client is running. */
    public void cancel() throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(options.host(), options.port()), 30_000);
            DataOutputStream d = new DataOutputStream(s.getOutputStream());
            d.writeInt(16);
            d.writeInt(80877102);
            d.writeInt(processId);
            d.writeInt(secretKey);
            d.flush();
            s.getInputStream().read(); // the server hangs up when it has the request
        }
    }

    @Override
    public void close() {
        try {
            if (out != null) {
                send('X', d -> {});
            }
        } catch (IOException ignored) {
            // the server is gone already
        }
        try {
            if (socket != null) socket.close();
        } catch (IOException ignored) {
            // closed all the same
        }
    }

    // ------------------------------------------------------------------ messages

    @FunctionalInterface
    private interface Body {
        void write(DataOutputStream d) throws IOException;
    }

    private void send(char type, Body body) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        body.write(new DataOutputStream(b));
        out.writeByte(type);
        out.writeInt(b.size() + 4);
        b.writeTo(out);
        out.flush();
    }

    private static void cString(DataOutputStream d, String s) throws IOException {
        d.write(s.getBytes(StandardCharsets.UTF_8));
        d.writeByte(0);
    }

    private Message read() throws IOException {
        int type = in.read();
        if (type < 0) throw new IOException("the server closed the connection");
        int length = in.readInt();
        if (length < 4 || length > MAX_MESSAGE) throw new IOException("invalid message length " + length + " from the server");
        byte[] body = new byte[length - 4];
        in.readFully(body);
        return new Message((char) type, body);
    }

    /** One backend message, read field by field. */
    private static final class Message extends MessageBody {
        final char type;

        Message(char type, byte[] b) {
            super(b);
            this.type = type;
        }

        private Map<Character, String> fields() throws IOException {
            Map<Character, String> f = new LinkedHashMap<>();
            while (peek() != 0) {
                char code = byte1();
                f.put(code, string());
            }
            return f;
        }

        SqlException error() throws IOException {
            Map<Character, String> f = fields();
            int position = 0;
            try {
                position = Integer.parseInt(f.getOrDefault('P', "0"));
            } catch (NumberFormatException ignored) {
                // a position we cannot read is left out
            }
            SqlException e = new SqlException(f.getOrDefault('C', "XX000"), f.getOrDefault('M', "(no message)"), position, f.get('H'));
            if (f.containsKey('D')) e.withDetail(f.get('D'));
            return e;
        }

        Notice notice() throws IOException {
            Map<Character, String> f = fields();
            return new Notice(f.getOrDefault('V', f.getOrDefault('S', "NOTICE")), f.getOrDefault('C', "00000"), f.getOrDefault('M', ""));
        }
    }
}
