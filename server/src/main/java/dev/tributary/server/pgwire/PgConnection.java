package dev.tributary.server.pgwire;

import dev.tributary.server.CopyIn;
import dev.tributary.server.CopyText;
import dev.tributary.server.Notice;
import dev.tributary.server.Prepared;
import dev.tributary.server.Result;
import dev.tributary.server.ServerLog;
import dev.tributary.server.Subscription;
import dev.tributary.server.Tributary;
import dev.tributary.sql.ast.Statement;
import dev.tributary.sql.SqlException;
import dev.tributary.sql.types.SqlType;
import dev.tributary.sql.types.Values;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.IntUnaryOperator;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;

/**
 * One client connection speaking protocol 3.0: the startup exchange, then messages until the
 * client terminates or breaks the protocol.
 *
 * <p>Answered: SSLRequest ({@code S} and a TLS handshake when the server has a certificate, else
 * {@code N}) and GSSENCRequest ({@code N}), once each, StartupMessage (database {@code tributary}
 * only, else 3D000; then a session is taken, 53300 if none is free; authentication as
 * {@link Authenticator} decides: trust, or SCRAM-SHA-256; ParameterStatus; BackendKeyData), all
 * within the server's authentication timeout from the connection, after which it hangs up,
 * Query (each statement's RowDescription, DataRows and CommandComplete in turn, or an
 * ErrorResponse with SQLSTATE, position, detail and hint; then ReadyForQuery with the session's
 * transaction status), Terminate, the extended protocol (see {@link Extended}), and the COPY
 * sub-protocol: {@code COPY ... FROM STDIN} (CopyInResponse, then CopyData until CopyDone or
 * CopyFail), {@code COPY ... TO STDOUT} (CopyOutResponse, CopyData per row, CopyDone) and
 * {@code COPY (SUBSCRIBE ...) TO STDOUT}, which streams until a CancelRequest (57014), the
 * subscription's end or the client leaving, noticed by a reader thread that reads messages
 * ahead. A CancelRequest quoting this connection's process id and random secret key stops its
 * running statement (a COPY stream, a waiting FETCH); between statements it does nothing. Any
 * other message type ends the connection with 08P01, as does a malformed, truncated or oversized
 * message (above the server's {@link PgServer.Options#maxMessageBytes()}); nothing a client sends
 * stops another connection. Notices of a statement go out as NoticeResponses before its CommandComplete.
 */
final class PgConnection {
    private static final int SSL_REQUEST = 80877103;
    private static final int GSSENC_REQUEST = 80877104;
    private static final int CANCEL_REQUEST = 80877102;
    private static final int PROTOCOL_3 = 196608;

    private final Tributary.Connection session;
    private final Tributary db;
    private final PgServer.Options options;
    /** The connection's transport: the client's socket, or the TLS socket over it once encryption is on. */
    private Socket socket;
    private final PgServer server;
    /** The process id and secret key of BackendKeyData, which a CancelRequest must quote. */
    private final int pid;
    private final int secret;
    private DataInputStream in;
    private DataOutputStream out;
    private boolean failed;
    /** Whether the connection holds one of the server's sessions ({@link PgServer#admit}), which it gives back when it ends. */
    private boolean admitted;
    private final Extended extended = new Extended();
    /** When the client connected, for the session time the log's disconnection line gives. */
    private final long connectedNanos = System.nanoTime();
    /** The database the client logged in to (null until it has). */
    private String database;
    /** The text of the statement the message being handled concerns, for the log's STATEMENT line; null when none. */
    private String statement;

    PgConnection(Tributary db, Socket socket, PgServer server, int pid, int secret, PgServer.Options options) {
        this.session = db.session();
        this.db = db;
        this.socket = socket;
        this.server = server;
        this.pid = pid;
        this.secret = secret;
        this.options = options;
        session.onDeallocate(name -> {
            if (name == null) {
                extended.statements.clear();
                return true;
            }
            if (name.isEmpty()) return false;
            Prepared p = extended.statements.remove(name);
            if (p != null) extended.portals.values().removeIf(portal -> portal.statement == p);
            return p != null;
        });
    }

    int pid() {
        return pid;
    }

    /** Whether it took a session ({@link PgServer#admit}); read by the thread that ran it, once it has ended. */
    boolean admitted() {
        return admitted;
    }

    /** Whether {@code key} is this connection's secret, compared in constant time. */
    boolean hasSecret(int key) {
        return java.security.MessageDigest.isEqual(java.nio.ByteBuffer.allocate(4).putInt(key).array(),
                java.nio.ByteBuffer.allocate(4).putInt(secret).array());
    }

    /**
     * Tells a client there is no room for it, and hangs up. The error comes after the client's
     * startup packet, as PostgreSQL sends it (closing with the packet unread would reset the
     * connection and lose the error), and over TLS if the client asks for it and {@code tls} is
     * given, so a client that requires TLS hears the real reason.
     */
    static void refuse(Socket client, String sqlState, String message, SSLContext tls) {
        ServerLog.connectionReceived(client.getInetAddress().getHostAddress(), client.getPort());
        Socket transport = client;
        try {
            client.setSoTimeout(5_000);
            DataInputStream i = new DataInputStream(new BufferedInputStream(client.getInputStream()));
            DataOutputStream o = new DataOutputStream(new BufferedOutputStream(client.getOutputStream()));
            for (int packets = 0; packets < 3; packets++) {
                int length = i.readInt();
                if (length < 8 || length > 10_000) break;
                int code = i.readInt();
                i.skipNBytes(length - 8);
                if (code == SSL_REQUEST && tls != null && transport == client && i.available() == 0) {
                    o.write('S');
                    o.flush();
                    SSLSocket s = handshake(tls, client);
                    transport = s;
                    i = new DataInputStream(new BufferedInputStream(s.getInputStream()));
                    o = new DataOutputStream(new BufferedOutputStream(s.getOutputStream()));
                    continue;
                }
                if (code != SSL_REQUEST && code != GSSENC_REQUEST) break;
                o.write('N');
                o.flush();
            }
            SqlException refusal = new SqlException(sqlState, message);
            ServerLog.clientError(refusal, true, null);
            writeError(o, refusal, "FATAL");
            o.flush();
        } catch (IOException ignored) {
            // the client is gone anyway
        } finally {
            close(transport);
            if (transport != client) close(client);
        }
    }

    /** The server side of a TLS handshake over {@code socket}: TLS 1.2 or later. */
    private static SSLSocket handshake(SSLContext tls, Socket socket) throws IOException {
        SSLSocket s = (SSLSocket) tls.getSocketFactory().createSocket(socket, socket.getInetAddress().getHostAddress(), socket.getPort(), true);
        s.setUseClientMode(false);
        s.setEnabledProtocols(Tls.PROTOCOLS.stream().filter(java.util.Arrays.asList(s.getSupportedProtocols())::contains).toArray(String[]::new));
        s.startHandshake();
        return s;
    }

    /** Serves the client until it leaves; every line logged meanwhile on this thread is marked with the connection's process id. */
    void run() {
        try (var marked = ServerLog.forConnection(pid)) {
            ServerLog.connectionReceived(socket.getInetAddress().getHostAddress(), socket.getPort());
            serve();
        }
    }

    private void serve() {
        Socket client = socket;
        // the whole start-up exchange, however slowly its bytes come, as PostgreSQL's authentication_timeout
        java.util.concurrent.Future<?> deadline = server.hangUpAfter(client, options.authenticationTimeoutMillis());
        // not try-with-resources: that would close the socket before the catch below could send the error
        try {
            in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
            out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()));
            boolean started;
            try {
                started = startup();
            } finally {
                deadline.cancel(false);
            }
            if (!started) return;
            session.beforeWaiting(this::startReader);
            session.onNotice(n -> {
                try {
                    notice(n);
                    out.flush();
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            while (true) {
                Message m = nextMessage(session.idleTimeoutMillis());
                if (m == null || terminated) {
                    if (terminated) {
                        writeError(out, new SqlException("57P01", "terminating connection due to administrator command"), "FATAL");
                        out.flush();
                    }
                    return;
                }
                if (m == IDLE_TIMEOUT) {
                    // the block goes with the session (rolled back), as PostgreSQL ends such a backend
                    fatal(new SqlException("25P03", "terminating connection due to idle-in-transaction timeout"));
                    return;
                }
                int type = m.type();
                byte[] body = m.body();
                statement = null;
                if (type == 'd' || type == 'c' || type == 'f') continue; // COPY data after the COPY failed is dropped
                if (failed && type != 'S' && type != 'X') continue; // after an error, the extended protocol skips to Sync
                if (type != 'S' && type != 'X' && type != 'H') busy();
                switch (type) {
                    case 'Q' -> {
                        session.endImplicitTransaction();
                        query(new MessageBody(body));
                    }
                    case 'X' -> {
                        return;
                    }
                    case 'P', 'B', 'D', 'E', 'C' -> {
                        try {
                            extended.handle((char) type, new MessageBody(body));
                        } catch (SqlException e) {
                            error(e);
                            session.failTransaction();
                            failed = true;
                        } catch (RuntimeException e) {
                            error(internal(e));
                            session.failTransaction();
                            failed = true;
                        }
                    }
                    case 'S' -> {
                        failed = false;
                        session.endImplicitTransaction();
                        extended.sync();
                        idle();
                        readyForQuery();
                        out.flush();
                    }
                    case 'H' -> out.flush();
                    default -> {
                        fatal(new SqlException("08P01", "invalid frontend message type " + type));
                        return;
                    }
                }
            }
        } catch (ProtocolException e) {
            fatalIfStillThere(new SqlException("08P01", e.getMessage()));
        } catch (IOException | java.io.UncheckedIOException e) {
            // a client that vanished, or a message we could not read: this connection ends here
        } catch (SqlException e) {
            // raised between statements (a block that Sync could not commit): the client and the log hear why its connection ends
            fatalIfStillThere(e);
        } catch (RuntimeException e) {
            // a bug outside any statement (they answer their own): the connection ends, the log says why
            fatalIfStillThere(internal(e));
        } catch (OutOfMemoryError e) {
            // what this connection was building (a message, a result's rows) is garbage once it has
            // unwound to here: the client hears why its connection ends (it had been cut without a
            // word), and the server goes on
            try {
                dev.tributary.server.ServerLog.error("connection " + pid + " ran out of memory and is closed: " + e, e);
                writeError(out, new SqlException("53200", "out of memory", 0,
                        "The connection's statement or message needed more memory than the server's heap had free; it is closed."), "FATAL");
                out.flush();
            } catch (IOException | RuntimeException | OutOfMemoryError ignored) {
                // the client is gone, or the heap is still full: the connection ends all the same
            }
        } finally {
            if (reader != null) reader.interrupt(); // it may wait to hand over a message no one will take
            session.close();
            server.forget(this);
            // after the session has let go of what it held: the line says the session is gone
            if (user != null) ServerLog.disconnection(System.nanoTime() - connectedNanos, user, database, client.getInetAddress().getHostAddress(), client.getPort());
            close(socket);
            if (socket != client) close(client);
        }
    }

    // ------------------------------------------------------------------ messages, cancel, COPY

    /** One frontend message: its type byte and body; or, as the last, why no more can be read. */
    private record Message(int type, byte[] body, IOException failure) {}

    /**
     * The client's messages, read ahead by a reader thread once the connection first waits (for a
     * subscription's rows, a FETCH), so that it notices the client leaving even then: what waits
     * is cancelled. Bounded, so a client far ahead is held back by TCP. Until then the connection
     * reads its messages itself: a hand-over between threads per message cost a point query
     * more than the query itself.
     */
    private final BlockingQueue<Message> incoming = new ArrayBlockingQueue<>(64);
    private volatile boolean clientGone;
    private Thread reader;

    /** Starts the reader thread, unless it runs; from then on every message comes through {@link #incoming}. */
    private void startReader() {
        if (reader != null) return;
        reader = Thread.ofVirtual().name("tributary-pg-reader-" + pid).start(() -> {
            Message last;
            try {
                while (true) {
                    int type = in.read();
                    if (type < 0) {
                        last = new Message(-1, null, null);
                        break;
                    }
                    incoming.put(new Message(type, body(in.readInt()), null));
                    if (type == 'X') return; // nothing follows Terminate
                }
            } catch (IOException e) {
                last = new Message(-1, null, e);
            } catch (InterruptedException e) {
                return;
            }
            synchronized (cancelLock) {
                clientGone = true;
                session.cancel();
                if (streamEvents != null) streamEvents.add(CLIENT_GONE);
            }
            try {
                incoming.put(last);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
    }

    /** What {@link #nextMessage(long)} gives when no message came in time. */
    private static final Message IDLE_TIMEOUT = new Message(-2, null, null);

    /**
     * The next message from the client, waiting at most {@code timeoutMillis} for it to begin (0:
     * without limit; {@link #IDLE_TIMEOUT} past it); null when the client has closed the connection.
     */
    private Message nextMessage(long timeoutMillis) throws IOException {
        if (timeoutMillis <= 0) return nextMessage();
        if (reader == null) {
            if (in.available() == 0) {
                socket.setSoTimeout((int) Math.min(timeoutMillis, Integer.MAX_VALUE));
                try {
                    in.mark(1);
                    if (in.read() < 0) return null;
                    in.reset();
                } catch (java.net.SocketTimeoutException e) {
                    return IDLE_TIMEOUT;
                } finally {
                    socket.setSoTimeout(0);
                }
            }
            return nextMessage();
        }
        try {
            Message m = incoming.poll(timeoutMillis, java.util.concurrent.TimeUnit.MILLISECONDS);
            if (m == null) return IDLE_TIMEOUT;
            if (m.failure() != null) throw m.failure();
            return m.type() < 0 ? null : m;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("server shutting down");
        }
    }

    /** The next message from the client; null when it has closed the connection. */
    private Message nextMessage() throws IOException {
        if (reader == null) {
            int type = in.read();
            return type < 0 ? null : new Message(type, body(in.readInt()), null);
        }
        Message m = take(incoming);
        if (m.failure() != null) throw m.failure();
        return m.type() < 0 ? null : m;
    }

    /** Whether the client's next message is Sync and already here (read without waiting and left to be read). */
    private boolean syncFollows() {
        if (reader != null) {
            Message m = incoming.peek();
            return m != null && m.type() == 'S';
        }
        try {
            if (in.available() < 1) return false;
            in.mark(1);
            int type = in.read();
            in.reset();
            return type == 'S';
        } catch (IOException e) {
            return false; // the next read reports it
        }
    }

    /** The head of {@code queue}, waiting for it; an interrupt (the server closing) ends the connection. */
    private static <T> T take(BlockingQueue<T> queue) throws java.io.InterruptedIOException {
        try {
            return queue.take();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("server shutting down");
        }
    }

    private final Object cancelLock = new Object();
    /** Whether a statement runs (from its message to ReadyForQuery): only then does a cancel act. */
    private boolean busy;
    private boolean cancelPending;
    /** The events of the COPY stream running, for a cancel to end it. */
    private BlockingQueue<Object> streamEvents;
    private static final Object CANCELLED = new Object();
    private static final Object CLIENT_GONE = new Object();
    private static final Object DONE = new Object();
    /** The client left more rows unread than {@link PgServer.Options#subscribeBufferRows}: it is disconnected. */
    private static final Object OVERFLOW = new Object();
    /** How long a stream's writer has, once its client is past its buffer, to send the error before the socket is closed under it. */
    private static final long OVERFLOW_GRACE_MILLIS = 2_000;

    private void busy() {
        synchronized (cancelLock) {
            busy = true;
        }
    }

    private void idle() {
        synchronized (cancelLock) {
            busy = false;
            cancelPending = false;
            session.clearCancel();
        }
    }

    /** A CancelRequest with this connection's key: stops the statement running, if any. */
    /** The role the client logged in as (null until it has). */
    private volatile String user;

    String user() {
        return user;
    }

    /**
     * pg_terminate_backend: its statement is canceled, and the connection ends with FATAL 57P01
     * (its own thread writes it, once its reading ends: the socket's input is shut down here).
     */
    void terminate() {
        terminated = true;
        cancel();
        try {
            socket.shutdownInput();
        } catch (IOException | UnsupportedOperationException e) {
            close(socket); // a TLS socket cannot shut down one direction: the client just sees the connection end
        }
    }

    /** Set by {@link #terminate}: the connection ends with FATAL 57P01. */
    private volatile boolean terminated;

    // ------------------------------------------------------------------ pg_stat_activity

    private final long backendStart = System.currentTimeMillis();
    private volatile String applicationName = "";
    /** The statement running, or the last one: pg_stat_activity's query. */
    private volatile String lastQuery = "";
    private volatile long queryStart;
    private volatile long stateChange = backendStart;
    /** When the open transaction block began; 0 outside one. */
    private volatile long xactStart;

    /**
     * The settings of the start-up parameter {@code options} (libpq's PGOPTIONS), as PostgreSQL
     * reads them: words separated by spaces (a backslash keeps the next character), each
     * {@code -c name=value} or {@code --name=value}; other words are ignored.
     */
    static List<String[]> commandLineOptions(String options) {
        List<String> words = new ArrayList<>();
        StringBuilder w = new StringBuilder();
        for (int i = 0; i < options.length(); i++) {
            char c = options.charAt(i);
            if (c == '\\' && i + 1 < options.length()) {
                w.append(options.charAt(++i));
            } else if (Character.isWhitespace(c)) {
                if (!w.isEmpty()) words.add(w.toString());
                w.setLength(0);
            } else {
                w.append(c);
            }
        }
        if (!w.isEmpty()) words.add(w.toString());
        List<String[]> out = new ArrayList<>();
        for (int i = 0; i < words.size(); i++) {
            String word = words.get(i);
            String setting = null;
            if (word.equals("-c") && i + 1 < words.size()) setting = words.get(++i);
            else if (word.startsWith("-c")) setting = word.substring(2);
            else if (word.startsWith("--")) setting = word.substring(2);
            if (setting == null) continue;
            int eq = setting.indexOf('=');
            if (eq > 0) out.add(new String[] {setting.substring(0, eq).replace('-', '_'), setting.substring(eq + 1)});
        }
        return out;
    }

    /** A statement begins: pg_stat_activity shows it as active from now. */
    private void started(String sql) {
        lastQuery = sql;
        queryStart = System.currentTimeMillis();
        stateChange = queryStart;
        if (xactStart == 0) xactStart = queryStart;
    }

    /** This backend as pg_stat_activity shows it. */
    dev.tributary.sql.catalog.Catalog.Activity activity() {
        String u = user;
        if (u == null) return null;
        boolean running;
        synchronized (cancelLock) {
            running = busy;
        }
        char status = session.transactionStatus();
        String state = running ? "active" : status == 'T' ? "idle in transaction" : status == 'E' ? "idle in transaction (aborted)" : "idle";
        long xact = running || status != 'I' ? xactStart : 0;
        java.net.InetAddress address = socket.getInetAddress();
        return new dev.tributary.sql.catalog.Catalog.Activity(pid, u, "tributary", applicationName, address == null ? null : address.getHostAddress(),
                socket.getPort(), backendStart, xact, queryStart, stateChange, state, lastQuery);
    }

    /** A cancel is looked for once per this many rows sent, plus one (a mask). */
    private static final int CANCEL_CHECK_ROWS = (1 << 10) - 1;

    void cancel() {
        synchronized (cancelLock) {
            if (!busy) return;
            cancelPending = true;
            session.cancel();
            if (streamEvents != null) streamEvents.add(CANCELLED);
        }
    }

    /** Runs one COPY statement of a Query or Execute, speaking the COPY sub-protocol. */
    private Result copy(Statement.Copy c, String sql) {
        try {
            if (c.from()) return copyIn(session.copyIn(c));
            if (c.query() instanceof Statement.Subscribe || (c.query() instanceof Statement.QueryStatement q && q.emitChanges())) {
                return copyStream(c);
            }
            Result rows = session.execute(c, sql);
            copyOutResponse(rows.columns().size());
            CopyText.Writer w = new CopyText.Writer(c.options());
            if (c.options().header() != Statement.CopyHeader.NONE) copyData(w.line(rows.columns()));
            int sent = 0;
            for (List<String> row : rows.text()) {
                if ((++sent & CANCEL_CHECK_ROWS) == 0) session.checkCancelled();
                copyData(w.line(row));
            }
            message('c', b -> {});
            return new Result(rows.tag(), List.of(), List.of(), List.of());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** COPY FROM STDIN: CopyInResponse, then CopyData until CopyDone (rows written) or CopyFail (nothing written). */
    private Result copyIn(CopyIn copy) throws IOException {
        message('G', b -> {
            b.writeByte(0);
            b.writeShort(copy.fields());
            for (int i = 0; i < copy.fields(); i++) b.writeShort(0);
        });
        out.flush();
        while (true) {
            Message m = nextMessage();
            if (m == null) throw new EOFException("the client left during COPY FROM STDIN");
            switch (m.type()) {
                case 'd' -> copy.data(m.body());
                case 'c' -> {
                    return copy.finish();
                }
                case 'f' -> throw copy.fail(new MessageBody(m.body()).string());
                case 'H', 'S' -> {} // Flush and Sync mean nothing while copying in
                case 'X' -> throw new EOFException("the client terminated during COPY FROM STDIN");
                default -> {
                    copy.fail("unexpected message");
                    throw new SqlException("08P01", String.format("unexpected message type 0x%02X during COPY from stdin", m.type()));
                }
            }
        }
    }

    /**
     * COPY (SUBSCRIBE ...) TO STDOUT: CopyOutResponse, then one CopyData per row as the changes
     * come, flushed per batch, until a cancel (57014), an error, the client leaving, or the
     * subscription's end (UP TO reached, an input dropped: CopyDone and {@code COPY n}); the
     * subscription is closed whichever way it ends.
     */
    private Result copyStream(Statement.Copy c) throws IOException {
        BlockingQueue<Object> events = new LinkedBlockingQueue<>();
        // rows queued beyond the batch being written: bounded, so a client that stops reading cannot fill the heap
        java.util.concurrent.atomic.AtomicLong waiting = new java.util.concurrent.atomic.AtomicLong();
        java.util.concurrent.atomic.AtomicBoolean overflowed = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.atomic.AtomicBoolean ended = new java.util.concurrent.atomic.AtomicBoolean();
        long limit = options.subscribeBufferRows();
        Subscription sub = session.subscribe(c, new Subscription.Listener() {
            @Override
            public void onChanges(Result batch) {
                if (overflowed.get()) return;
                int rows = batch.rows().size();
                long before = waiting.getAndAdd(rows);
                if (before > 0 && before + rows > limit) {
                    // the client has not read what came before this batch: drop it all and disconnect it
                    overflowed.set(true);
                    events.clear();
                    waiting.set(0);
                    events.add(OVERFLOW);
                    dev.tributary.server.ServerLog.log("connection " + pid + ": a COPY (SUBSCRIBE ...) TO STDOUT client left " + (before + rows)
                            + " rows unread, past the limit of " + limit + " (--subscribe-buffer-rows): disconnecting it");
                    // a writer blocked on the client's full socket never takes the event: the socket is closed under it
                    Thread.ofVirtual().name("tributary-pg-overflow-" + pid).start(() -> {
                        try {
                            Thread.sleep(OVERFLOW_GRACE_MILLIS);
                        } catch (InterruptedException e) {
                            return;
                        }
                        if (!ended.get()) close(socket);
                    });
                    return;
                }
                events.add(batch);
            }

            @Override
            public void onError(SqlException error) {
                events.add(error);
            }

            @Override
            public void onDone() {
                events.add(DONE);
            }
        });
        try {
            startReader();
            synchronized (cancelLock) {
                streamEvents = events;
                if (cancelPending) events.add(CANCELLED);
                if (clientGone) events.add(CLIENT_GONE);
            }
            copyOutResponse(sub.columns().size());
            CopyText.Writer w = new CopyText.Writer(c.options());
            if (c.options().header() != Statement.CopyHeader.NONE) copyData(w.line(sub.columns()));
            out.flush();
            long sent = 0;
            while (true) {
                Object e = take(events);
                if (e instanceof Result batch) {
                    waiting.addAndGet(-batch.rows().size());
                    for (List<String> row : batch.text()) copyData(w.line(row));
                    sent += batch.rows().size();
                    out.flush();
                } else if (e == OVERFLOW) {
                    fatal(new SqlException("53400", "terminating connection: the client did not read the changes of its COPY (SUBSCRIBE ...) TO STDOUT,"
                            + " and more than " + limit + " rows were waiting", 0, "Read the stream as it comes, or raise the server's --subscribe-buffer-rows."));
                    throw new EOFException("a streaming client past its buffer is disconnected");
                } else if (e == DONE) {
                    message('c', b -> {});
                    return new Result("COPY " + sent, List.of(), List.of(), List.of());
                } else if (e instanceof SqlException error) {
                    throw error;
                } else if (e == CANCELLED) {
                    throw new SqlException("57014", "canceling statement due to user request");
                } else if (e == CLIENT_GONE) {
                    throw new EOFException("the client left during COPY TO STDOUT");
                }
            }
        } finally {
            ended.set(true);
            synchronized (cancelLock) {
                streamEvents = null;
            }
            sub.close();
        }
    }

    /** CopyOutResponse: the overall format and each column's are 0, textual (CSV is textual too). */
    private void copyOutResponse(int columns) throws IOException {
        message('H', b -> {
            b.writeByte(0);
            b.writeShort(columns);
            for (int i = 0; i < columns; i++) b.writeShort(0);
        });
    }

    private void copyData(String line) throws IOException {
        byte[] bytes = line.getBytes(StandardCharsets.UTF_8);
        message('d', b -> b.write(bytes));
    }

    /** The statement of {@code sql} if it is one COPY, else null (a parse error is reported when it runs). */
    private static Statement.Copy copyStatement(String sql) {
        try {
            List<Statement> sts = dev.tributary.sql.parser.Parser.parse(sql);
            return sts.size() == 1 && sts.get(0) instanceof Statement.Copy c && c.file() == null ? c : null;
        } catch (SqlException e) {
            return null;
        }
    }

    static void close(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // a TLS close_notify that could not be sent; the socket is closed all the same
        }
    }

    private byte[] body(int length) throws IOException {
        if (length > options.maxMessageBytes()) {
            throw new ProtocolException("message of " + length + " bytes is larger than the server's limit of " + options.maxMessageBytes()
                    + " bytes (--max-message-bytes)");
        }
        if (length < 4) throw new ProtocolException("invalid message length " + length);
        int n = length - 4;
        if (n <= BODY_READ_AHEAD) {
            byte[] b = new byte[n];
            in.readFully(b);
            return b;
        }
        // a large claimed length is taken on as its bytes arrive, not allocated before them
        byte[] b = new byte[BODY_READ_AHEAD];
        int got = 0;
        while (got < n) {
            if (got == b.length) b = java.util.Arrays.copyOf(b, (int) Math.min(n, 2L * b.length));
            int r = in.read(b, got, b.length - got);
            if (r < 0) throw new EOFException("the connection ended inside a message of " + length + " bytes");
            got += r;
        }
        return b;
    }

    /** Message bodies up to this size are allocated at once; larger ones grow as their bytes arrive. */
    private static final int BODY_READ_AHEAD = 1 << 20;
    /** PostgreSQL's MAX_STARTUP_PACKET_LENGTH: a start-up packet claiming more is refused before any of it is read. */
    private static final int MAX_STARTUP_PACKET_BYTES = 10_000;

    /** The startup exchange; false if the connection ends in it. */
    private boolean startup() throws IOException {
        // as in PostgreSQL, one SSLRequest and one GSSENCRequest at most: another is an unknown protocol
        boolean sslAsked = false;
        boolean gssAsked = false;
        while (true) {
            int length;
            try {
                length = in.readInt();
            } catch (EOFException e) {
                return false;
            }
            if (length < 8 || length > MAX_STARTUP_PACKET_BYTES) throw new ProtocolException("invalid length of startup packet");
            byte[] body = body(length);
            int code = ((body[0] & 0xff) << 24) | ((body[1] & 0xff) << 16) | ((body[2] & 0xff) << 8) | (body[3] & 0xff);
            if (code == SSL_REQUEST && !sslAsked && options.tls() != null) {
                sslAsked = true;
                // bytes sent after the request but before the handshake would be taken as if encrypted
                if (in.available() > 0) throw new ProtocolException("received unencrypted data after SSL request");
                out.write('S');
                out.flush();
                startTls();
                continue;
            }
            if ((code == SSL_REQUEST && !sslAsked) || (code == GSSENC_REQUEST && !gssAsked)) {
                if (code == SSL_REQUEST) sslAsked = true;
                else gssAsked = true;
                out.write('N');
                out.flush();
                continue;
            }
            if (code == CANCEL_REQUEST) {
                MessageBody r = new MessageBody(body);
                r.int32();
                if (body.length == 12) server.cancel(r.int32(), r.int32());
                return false; // PostgreSQL answers a cancel request with nothing but hanging up
            }
            if (code >>> 16 != 3) {
                fatal(new SqlException("0A000", "unsupported frontend protocol " + (code >>> 16) + "." + (code & 0xffff)
                        + ": server supports 3.0 to 3.0"));
                return false;
            }
            Map<String, String> params = startupParameters(body);
            // a later 3.x, or protocol options (_pq_.*), are negotiated down to 3.0 without them, as PostgreSQL does
            List<String> unknownOptions = params.keySet().stream().filter(k -> k.startsWith("_pq_.")).sorted().toList();
            if (code != PROTOCOL_3 || !unknownOptions.isEmpty()) {
                message('v', b -> {
                    b.writeInt(0);
                    b.writeInt(unknownOptions.size());
                    for (String o : unknownOptions) writeCString(b, o);
                });
                params.keySet().removeAll(unknownOptions);
            }
            String user = params.get("user");
            if (user == null) {
                fatal(new SqlException("28000", "no PostgreSQL user name specified in startup packet"));
                return false;
            }
            String database = params.getOrDefault("database", user);
            if (options.tlsRequired() && !(socket instanceof SSLSocket)) {
                // as from a pg_hba.conf of hostssl lines only
                fatal(new SqlException("28000", "no pg_hba.conf entry for host \"" + socket.getInetAddress().getHostAddress() + "\", user \""
                        + user + "\", database \"" + database + "\", no encryption", 0, "The server requires TLS (--tls-required): connect with sslmode=require."));
                return false;
            }
            if (!database.equals("tributary")) {
                fatal(new SqlException("3D000", "database \"" + database + "\" does not exist", 0,
                        "The one database is \"tributary\"."));
                return false;
            }
            // a session is taken here, before authentication, as a PostgreSQL backend takes its slot
            if (!server.admit()) {
                writeError(out, new SqlException("53300", "sorry, too many clients already"), "FATAL");
                out.flush();
                return false;
            }
            admitted = true;
            if (!new Authenticator(db.roles(), options.auth(), socket.getInetAddress().isLoopbackAddress(), RANDOM).authenticate(user, this)) {
                return false;
            }
            session.authenticatedAs(user);
            applicationName = params.getOrDefault("application_name", "");
            session.setBackendPid(pid);
            session.setSubscribeBufferRows(options.subscribeBufferRows());
            this.user = user;
            this.database = database;
            javax.net.ssl.SSLSession tls = socket instanceof SSLSocket s ? s.getSession() : null;
            ServerLog.connectionAuthorized(user, database, params.get("application_name"), tls == null ? null : tls.getProtocol(),
                    tls == null ? null : tls.getCipherSuite());
            for (Map.Entry<String, String> e : params.entrySet()) {
                if (e.getKey().equals("options")) {
                    for (String[] setting : commandLineOptions(e.getValue())) session.startupSetting(setting[0], setting[1]);
                } else if (!e.getKey().equals("user") && !e.getKey().equals("database")) {
                    session.startupSetting(e.getKey(), e.getValue());
                }
            }
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
                b.writeInt(pid);
                b.writeInt(secret);
            });
            readyForQuery();
            out.flush();
            return true;
        }
    }

    private static final SecureRandom RANDOM = new SecureRandom();

    /**
     * A StartupMessage's parameters (after the version): names and values, NUL-terminated, then a
     * NUL as its last byte, or 08P01 as PostgreSQL says it. Strings are stepped over as sent: a
     * name that is not UTF-8 decodes to replacements of another length, and had moved the
     * reading of the rest (a value could be taken for a name, and the user from elsewhere).
     */
    private static Map<String, String> startupParameters(byte[] body) throws ProtocolException {
        MessageBody r = new MessageBody(body);
        r.int32();
        Map<String, String> params = new HashMap<>();
        try {
            while (r.remaining() > 1 && r.peek() != 0) {
                String name = r.string();
                params.put(name, r.string());
            }
        } catch (ProtocolException e) {
            throw new ProtocolException("invalid startup packet layout: expected terminator as last byte");
        }
        if (r.remaining() != 1 || r.peek() != 0) throw new ProtocolException("invalid startup packet layout: expected terminator as last byte");
        return params;
    }

    /**
     * Encryption after an SSLRequest answered {@code S}: the TLS handshake (server mode, TLS 1.2 or
     * later), then the rest of the connection runs over it.
     */
    private void startTls() throws IOException {
        SSLSocket tls = handshake(options.tls(), socket);
        socket = tls;
        in = new DataInputStream(new BufferedInputStream(tls.getInputStream()));
        out = new DataOutputStream(new BufferedOutputStream(tls.getOutputStream()));
    }

    /** Sends an authentication request ({@code R} with {@code code} and {@code data}) and flushes. */
    void authRequest(int code, byte[] data) throws IOException {
        message('R', b -> {
            b.writeInt(code);
            b.write(data);
        });
        out.flush();
    }

    /**
     * The body of the client's next message of the authentication exchange, which must be of
     * {@code type} and at most {@link #MAX_AUTH_MESSAGE_BYTES}; null if the client hung up.
     */
    byte[] expect(char type, String what) throws IOException {
        int t = in.read();
        if (t < 0) return null;
        int length = in.readInt();
        // before login a client may not make the server hold a message up to --max-message-bytes
        if (length > MAX_AUTH_MESSAGE_BYTES) throw new ProtocolException("invalid message length " + length + " for " + what);
        // read whole before it is refused: a close with its bytes unread would reset the connection and lose the error
        byte[] body = body(length);
        if (t != type) throw new ProtocolException("expected " + what + ", got message type " + t);
        return body;
    }

    /** PostgreSQL's PG_MAX_AUTH_TOKEN_LENGTH: the largest message of the authentication exchange. */
    private static final int MAX_AUTH_MESSAGE_BYTES = 65_535;

    /** Sends a FATAL error and flushes, and logs it; the connection then ends. */
    void fatal(SqlException e) throws IOException {
        ServerLog.clientError(e, true, statement);
        writeError(out, e, "FATAL");
        out.flush();
    }

    /** {@link #fatal}, to a client that may be gone already (the log has it all the same). */
    private void fatalIfStillThere(SqlException e) {
        try {
            fatal(e);
        } catch (IOException ignored) {
            // the client is gone
        }
    }

    /** Sends an ERROR, and logs it with the statement it came from. */
    private void error(SqlException e) throws IOException {
        ServerLog.clientError(e, false, statement);
        writeError(out, e, "ERROR");
    }

    /**
     * The XX000 a client gets for {@code bug}, an exception no statement should throw; its cause
     * is the bug, whose stack trace the log shows.
     */
    private static SqlException internal(RuntimeException bug) {
        SqlException e = new SqlException("XX000", "internal error: " + bug);
        e.initCause(bug);
        return e;
    }

    /** A Query message: its text must be valid UTF-8 (22021, and the next query is taken). */
    private void query(MessageBody body) throws IOException {
        String sql;
        try {
            sql = body.text();
        } catch (SqlException e) {
            error(e);
            idle();
            readyForQuery();
            out.flush();
            return;
        }
        query(sql);
    }

    private void query(String sql) throws IOException {
        started(sql);
        if (sql.isBlank()) {
            message('I', b -> {});
        } else {
            statement = sql;
            long started = System.nanoTime();
            try {
                session.executeMessage(sql, r -> {
                    try {
                        result(r);
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                }, this::copy);
                ServerLog.duration(session.logMinDurationStatementMillis(), System.nanoTime() - started, () -> "statement: " + sql);
            } catch (SqlException e) {
                error(e);
            } catch (java.io.UncheckedIOException e) {
                throw e.getCause();
            } catch (RuntimeException e) {
                error(internal(e));
            }
        }
        idle();
        readyForQuery();
        out.flush();
    }

    private void result(Result r) throws IOException {
        if (r.hasRows()) {
            rowDescription(r);
            int sent = 0;
            for (List<String> row : r.text()) {
                if ((++sent & CANCEL_CHECK_ROWS) == 0) session.checkCancelled();
                dataRow(row);
            }
        }
        notices(r);
        message('C', b -> writeCString(b, r.tag()));
    }

    /** The statement's notices as NoticeResponses (severity, SQLSTATE, message), which go before its CommandComplete. */
    private void notices(Result r) throws IOException {
        for (Notice n : r.notices()) notice(n);
    }

    private void notice(Notice n) throws IOException {
        message('N', b -> {
            field(b, 'S', n.severity());
            field(b, 'V', n.severity());
            field(b, 'C', n.sqlState());
            field(b, 'M', n.message());
            if (n.detail() != null) field(b, 'D', n.detail());
            b.writeByte(0);
        });
    }

    private void readyForQuery() throws IOException {
        char status = session.transactionStatus();
        if (status == 'I') xactStart = 0;
        stateChange = System.currentTimeMillis();
        message('Z', b -> b.writeByte(status));
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

    /** The body of the message being written, reused: only the connection's thread writes messages. */
    private ByteArrayOutputStream scratch = new ByteArrayOutputStream(256);
    private DataOutputStream scratchOut = new DataOutputStream(scratch);

    private void message(char type, Body body) throws IOException {
        scratch.reset();
        body.write(scratchOut);
        out.writeByte(type);
        out.writeInt(scratch.size() + 4);
        scratch.writeTo(out);
        if (scratch.size() > 1 << 20) { // a huge row's buffer is not kept for the connection's life
            scratch = new ByteArrayOutputStream(256);
            scratchOut = new DataOutputStream(scratch);
        }
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
            if (e.context() != null) field(b, 'W', e.context());
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

    /** A bound portal: a prepared statement with its parameter values and result formats, run at its first Execute. */
    private static final class Portal {
        /** The name of the prepared statement it was bound from ("" for the unnamed one). */
        final String statementName;
        final Prepared statement;
        final List<Object> values;
        /** Result format codes as Bind gave them: none (all text), one for all, or one per column. */
        final int[] formats;
        Result result;
        int sent;

        Portal(String statementName, Prepared statement, List<Object> values, int[] formats) {
            this.statementName = statementName;
            this.statement = statement;
            this.values = values;
            this.formats = formats;
        }

        /** The format of result column {@code i}. */
        int format(int i) {
            return formats.length == 0 ? 0 : formats.length == 1 ? formats[0] : formats[i];
        }
    }

    /**
     * The extended query protocol. Parse parses and binds the statement once (its parameter
     * types declared or inferred, its columns known); Bind converts each parameter's text or
     * binary bytes to a value of its type and fixes the result formats; Execute runs the
     * prepared statement with those values (with a row limit and PortalSuspended); Describe
     * answers from the prepared statement without running it; Close drops statements and
     * portals.
     */
    private final class Extended {
        private final Map<String, Prepared> statements = new HashMap<>();
        private final Map<String, Portal> portals = new HashMap<>();

        void handle(char type, MessageBody r) throws IOException {
            switch (type) {
                case 'P' -> parse(r);
                case 'B' -> bind(r);
                case 'D' -> {
                    char what = r.byte1();
                    String name = r.string();
                    if (what == 'S') {
                        Prepared p = statement(name);
                        statement = p.sql();
                        describeStatement(p);
                    } else if (what == 'P' && !portals.containsKey(name) && session.describeCursor(name) != null) {
                        // a DECLAREd cursor is a portal too (psycopg describes its server-side cursors)
                        Result shape = session.describeCursor(name);
                        rowDescription(shape.columns(), shape.types(), i -> 0);
                    } else if (what == 'P') {
                        Portal p = portal(name);
                        statement = p.statement.sql();
                        describePortal(p);
                    } else {
                        throw new ProtocolException("invalid DESCRIBE message subtype " + (int) what);
                    }
                }
                case 'E' -> {
                    String name = r.string();
                    Portal p = portal(name);
                    int max = r.int32();
                    statement = p.statement.sql();
                    long started = System.nanoTime();
                    execute(p, max);
                    // PostgreSQL's words for an Execute: the statement's name (and the portal's, if it has one)
                    ServerLog.duration(session.logMinDurationStatementMillis(), System.nanoTime() - started, () -> "execute "
                            + (p.statementName.isEmpty() ? "<unnamed>" : p.statementName) + (name.isEmpty() ? "" : "/" + name) + ": " + p.statement.sql());
                }
                case 'C' -> {
                    char what = r.byte1();
                    String name = r.string();
                    if (what == 'S') {
                        // closing a statement closes the portals made from it
                        Prepared p = statements.remove(name);
                        if (p != null) portals.values().removeIf(portal -> portal.statement == p);
                    } else if (what == 'P') {
                        portals.remove(name);
                    }
                    else throw new ProtocolException("invalid CLOSE message subtype " + (int) what);
                    message('3', b -> {});
                }
                default -> throw new ProtocolException("unexpected message " + type);
            }
        }

        private void parse(MessageBody r) throws IOException {
            String name = r.string();
            String sql = r.text();
            statement = sql;
            int n = r.int16();
            if (n < 0) throw new ProtocolException("invalid number of parameter types " + n);
            List<SqlType> types = new ArrayList<>(n);
            for (int i = 0; i < n; i++) types.add(PgTypes.typeOf(r.int32()));
            if (!name.isEmpty() && statements.containsKey(name)) {
                throw new SqlException("42P05", "prepared statement \"" + name + "\" already exists");
            }
            statements.put(name, session.prepare(sql, types));
            message('1', b -> {});
        }

        private void bind(MessageBody r) throws IOException {
            String portal = r.string();
            String name = r.string();
            Prepared p = statement(name);
            statement = p.sql();
            int nf = r.int16();
            if (nf < 0) throw new ProtocolException("invalid number of parameter formats " + nf);
            int[] formats = new int[nf];
            for (int i = 0; i < nf; i++) formats[i] = r.int16();
            int np = r.int16();
            if (np < 0) throw new ProtocolException("invalid number of parameters " + np);
            if (nf > 1 && nf != np) throw new ProtocolException("bind message has " + nf + " parameter formats but " + np + " parameters");
            List<SqlType> types = p.parameterTypes();
            if (np != types.size()) {
                throw new SqlException("08P01", "bind message supplies " + np + " parameters, but prepared statement \"" + name
                        + "\" requires " + types.size());
            }
            List<Object> values = new ArrayList<>(np);
            for (int i = 0; i < np; i++) {
                int len = r.int32();
                if (len < -1) throw new ProtocolException("invalid parameter length " + len);
                byte[] bytes = len < 0 ? null : r.bytes(len);
                values.add(PgParams.value(bytes, nf == 0 ? 0 : nf == 1 ? formats[0] : formats[i], types.get(i), i + 1));
            }
            int nr = r.int16();
            if (nr < 0) throw new ProtocolException("invalid number of result formats " + nr);
            int[] results = new int[nr];
            for (int i = 0; i < nr; i++) {
                results[i] = r.int16();
                if (results[i] != 0 && results[i] != 1) throw new SqlException("22023", "unsupported format code: " + results[i]);
            }
            int columns = p.columns() == null ? -1 : p.columns().size();
            if (nr > 1 && columns >= 0 && nr != columns) {
                throw new SqlException("08P01", "bind message has " + nr + " result formats but query has " + columns + " columns");
            }
            if (!portal.isEmpty() && portals.containsKey(portal)) throw new SqlException("42P03", "cursor \"" + portal + "\" already exists");
            portals.put(portal, new Portal(name, p, values, results));
            message('2', b -> {});
        }

        private void describeStatement(Prepared p) throws IOException {
            message('t', b -> {
                b.writeShort(p.parameterTypes().size());
                for (SqlType t : p.parameterTypes()) b.writeInt(PgTypes.oid(t));
            });
            if (p.columns() != null) {
                rowDescription(p.columns(), p.types(), i -> 0);
            } else if (p.describableByRunning()) {
                // SHOW, EXPLAIN and AS OF queries change nothing: run to learn the columns
                Result r = session.execute(p, new ArrayList<>(java.util.Collections.nCopies(p.parameterTypes().size(), null)));
                rowDescription(r.columns(), r.types(), i -> 0);
            } else {
                message('n', b -> {});
            }
        }

        private void describePortal(Portal p) throws IOException {
            if (p.statement.columns() != null) {
                checkFormats(p);
                rowDescription(p.statement.columns(), p.statement.types(), p::format);
                return;
            }
            if (p.statement.shapeKnownWhenRun() && p.statement.copy() == null) {
                // the portal runs now and its Execute sends what it gave: it runs once either way
                run(p);
                if (p.result.hasRows()) {
                    rowDescription(p.result.columns(), p.result.types(), p::format);
                    return;
                }
            }
            message('n', b -> {});
        }

        /** 08P01 when Bind gave several result formats but not one per column. */
        private void checkFormats(Portal p) {
            int columns = p.result != null ? p.result.columns().size() : p.statement.columns() != null ? p.statement.columns().size() : 0;
            if (p.formats.length > 1 && p.formats.length != columns) {
                throw new SqlException("08P01", "bind message has " + p.formats.length + " result formats but query has " + columns + " columns");
            }
        }

        private void execute(Portal p, int max) throws IOException {
            started(p.statement.sql());
            if (p.statement.isEmpty()) {
                message('I', b -> {});
                return;
            }
            Statement.Copy copy = p.result == null ? p.statement.copy() : null;
            if (copy != null) {
                // the statements up to Sync are one transaction, COPY among them
                session.beginImplicitTransaction();
                try {
                    p.result = copy(copy, p.statement.sql());
                } catch (java.io.UncheckedIOException e) {
                    throw e.getCause();
                }
                message('C', b -> writeCString(b, p.result.tag()));
                return;
            }
            run(p);
            Result result = p.result;
            if (result.hasRows()) {
                checkFormats(p);
                List<Object[]> rows = result.rows();
                int end = max <= 0 ? rows.size() : (int) Math.min(rows.size(), (long) p.sent + max);
                for (int i = p.sent; i < end; i++) {
                    if (((i - p.sent + 1) & CANCEL_CHECK_ROWS) == 0) {
                        p.sent = i; // a portal's later Execute goes on from here
                        session.checkCancelled();
                    }
                    dataRow(rows.get(i), result.types(), p::format);
                }
                p.sent = end;
                if (end < rows.size()) {
                    message('s', b -> {});
                    return;
                }
            }
            notices(result);
            message('C', b -> writeCString(b, result.tag()));
        }

        private Prepared statement(String name) {
            Prepared p = statements.get(name);
            if (p == null) throw new SqlException("26000", "prepared statement \"" + name + "\" does not exist");
            return p;
        }

        private Portal portal(String name) {
            Portal p = portals.get(name);
            if (p == null) throw new SqlException("34000", "portal \"" + name + "\" does not exist");
            return p;
        }

        private void run(Portal p) {
            if (p.result != null) return;
            // the statements up to Sync are one transaction, as in PostgreSQL: a batch commits whole or not at all
            session.beginImplicitTransaction();
            // an autocommitted statement (Sync already waiting behind its Execute) commits in the same turn of the coordinator
            p.result = syncFollows() ? session.executeAndEndImplicit(p.statement, p.values) : session.execute(p.statement, p.values);
        }

        /**
         * Sync ends the implicit transaction of the messages before it: the unnamed portal goes,
         * and outside a transaction block (which has just ended, or never began) every portal.
         */
        void sync() {
            portals.remove("");
            if (session.transactionStatus() == 'I') portals.clear();
        }
    }

    private void rowDescription(Result r) throws IOException {
        rowDescription(r.columns(), r.types(), i -> 0);
    }

    private void rowDescription(List<String> columns, List<SqlType> types, IntUnaryOperator format) throws IOException {
        message('T', b -> {
            b.writeShort(columns.size());
            for (int i = 0; i < columns.size(); i++) {
                writeCString(b, columns.get(i));
                b.writeInt(0);
                b.writeShort(0);
                b.writeInt(PgTypes.oid(types.get(i)));
                b.writeShort(PgTypes.size(types.get(i)));
                b.writeInt(PgTypes.modifier(types.get(i)));
                b.writeShort(format.applyAsInt(i));
            }
        });
    }

    /** A row of the extended protocol, each column in its result format. */
    private void dataRow(Object[] row, List<SqlType> types, IntUnaryOperator format) throws IOException {
        message('D', b -> {
            b.writeShort(row.length);
            for (int i = 0; i < row.length; i++) {
                if (row[i] == null) {
                    b.writeInt(-1);
                    continue;
                }
                byte[] bytes = format.applyAsInt(i) == 1
                        ? PgBinary.encode(row[i], types.get(i))
                        : Values.toText(row[i], types.get(i)).getBytes(StandardCharsets.UTF_8);
                b.writeInt(bytes.length);
                b.write(bytes);
            }
        });
    }

    private void dataRow(List<String> row) throws IOException {
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
