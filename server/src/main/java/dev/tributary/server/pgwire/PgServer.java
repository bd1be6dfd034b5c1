package dev.tributary.server.pgwire;

import dev.tributary.server.Clock;
import dev.tributary.server.ServerLog;
import dev.tributary.server.Tributary;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.security.SecureRandom;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;

/**
 * A PostgreSQL protocol 3.0 server in front of a {@link Tributary} database, so psql and other
 * Postgres clients can use it: {@code bin/tributary serve [--port P] [--listen ADDR] [--clock manual]
 * [--auth scram] [--tls-cert FILE --tls-key FILE [--tls-required]] [--max-connections N] [--max-message-bytes N]
 * [--subscribe-buffer-rows N] [--authentication-timeout SECONDS] [--log-file PATH] [--log-level debug|info|warn|error]}.
 *
 * <p>Each connection is a session of its own (transaction blocks, settings) and runs on a virtual
 * thread; {@link Options} says how many may be open at once, how large a message may be, how
 * clients authenticate and whether they may encrypt. See {@link PgConnection} for what a
 * connection answers and what it refuses. The {@link ServerLog} has a line for each connection
 * received, authorized and ended, each error a client is sent (with its statement; an internal
 * error with its stack trace) and each statement at least {@code log_min_duration_statement} long.
 */
public final class PgServer implements AutoCloseable {
    /** The default port, beside PostgreSQL's 5432 rather than on it. */
    public static final int DEFAULT_PORT = 6875;

    /** How clients authenticate. */
    public enum Auth {
        /**
         * Trust for clients on a loopback address while no role has a password; SCRAM-SHA-256 for
         * everyone once one has (and always for clients on other addresses).
         */
        AUTO,
        /** SCRAM-SHA-256 for every connection. */
        SCRAM
    }

    /**
     * How the server runs.
     *
     * @param listen the address to listen on
     * @param port the port, 0 for a free one
     * @param maxConnections how many sessions may be open at once: a connection takes one once its
     *     startup packet is in, before it authenticates (as a PostgreSQL backend takes its slot), and
     *     gets 53300 if none is free; connections still sending their startup packet do not count
     *     (see {@link #maxStartingConnections()})
     * @param maxMessageBytes the largest message a client may send (length field included); a larger one ends its connection with 08P01
     * @param auth how clients authenticate
     * @param tls the TLS context that answers SSLRequest, or null to refuse encryption
     * @param tlsRequired whether a client must encrypt ({@code --tls-required}): one that starts
     *     up in plaintext gets FATAL 28000, as from a {@code hostssl}-only {@code pg_hba.conf}
     * @param subscribeBufferRows how many rows of changes may wait for a streaming client
     *     ({@code COPY (SUBSCRIBE ...) TO STDOUT}) that does not read them, beyond the batch it is
     *     being sent: past it the client is disconnected (53400) and its subscription dropped
     * @param authenticationTimeoutMillis how long a client has, from its connection, to finish the
     *     start-up exchange and authentication (PostgreSQL's {@code authentication_timeout}, 60 s by
     *     default, {@code --authentication-timeout}): past it the server hangs up, as PostgreSQL does
     */
    public record Options(InetAddress listen, int port, int maxConnections, int maxMessageBytes, Auth auth, SSLContext tls, boolean tlsRequired,
                          long subscribeBufferRows, long authenticationTimeoutMillis) {
        /** The default limit on a message: 64 MiB. */
        public static final int DEFAULT_MAX_MESSAGE_BYTES = 64 << 20;
        /** The default limit on the rows waiting for a streaming client: a million. */
        public static final long DEFAULT_SUBSCRIBE_BUFFER_ROWS = 1_000_000;
        /** PostgreSQL's default {@code authentication_timeout}: a minute. */
        public static final long DEFAULT_AUTHENTICATION_TIMEOUT_MILLIS = 60_000;

        public Options {
            if (port < 0 || port > 65535) throw new IllegalArgumentException("a port is from 0 to 65535, not " + port);
            if (maxConnections < 1) throw new IllegalArgumentException("--max-connections must be at least 1, not " + maxConnections);
            if (maxMessageBytes < 1024) throw new IllegalArgumentException("--max-message-bytes must be at least 1024, not " + maxMessageBytes);
            if (listen == null || auth == null) throw new IllegalArgumentException("listen and auth must be given");
            if (tlsRequired && tls == null) throw new IllegalArgumentException("--tls-required needs --tls-cert and --tls-key");
            if (subscribeBufferRows < 1) throw new IllegalArgumentException("--subscribe-buffer-rows must be at least 1, not " + subscribeBufferRows);
            if (authenticationTimeoutMillis < 1) throw new IllegalArgumentException("the authentication timeout must be positive, not " + authenticationTimeoutMillis + " ms");
        }

        /**
         * How many connections may be in start-up at once, not yet holding a session: twice
         * {@link #maxConnections}, and at least 100, so that clients that connect and stall (each
         * holding a thread and its buffers until {@link #authenticationTimeoutMillis}) cannot keep
         * a real client from a free session when the limit is small, while their number stays
         * bounded (PostgreSQL's postmaster, likewise, allows twice its backends in child processes).
         */
        public int maxStartingConnections() {
            return Math.max(100, 2 * maxConnections);
        }

        /** Loopback, {@link #DEFAULT_PORT}, 100 connections, 64 MiB messages, {@link Auth#AUTO}, no TLS, a minute to authenticate. */
        public static Options defaults() {
            return new Options(InetAddress.getLoopbackAddress(), DEFAULT_PORT, 100, DEFAULT_MAX_MESSAGE_BYTES, Auth.AUTO, null, false, DEFAULT_SUBSCRIBE_BUFFER_ROWS,
                    DEFAULT_AUTHENTICATION_TIMEOUT_MILLIS);
        }

        public Options withListen(InetAddress listen) {
            return new Options(listen, port, maxConnections, maxMessageBytes, auth, tls, tlsRequired, subscribeBufferRows, authenticationTimeoutMillis);
        }

        public Options withPort(int port) {
            return new Options(listen, port, maxConnections, maxMessageBytes, auth, tls, tlsRequired, subscribeBufferRows, authenticationTimeoutMillis);
        }

        public Options withMaxConnections(int maxConnections) {
            return new Options(listen, port, maxConnections, maxMessageBytes, auth, tls, tlsRequired, subscribeBufferRows, authenticationTimeoutMillis);
        }

        public Options withMaxMessageBytes(int maxMessageBytes) {
            return new Options(listen, port, maxConnections, maxMessageBytes, auth, tls, tlsRequired, subscribeBufferRows, authenticationTimeoutMillis);
        }

        public Options withAuth(Auth auth) {
            return new Options(listen, port, maxConnections, maxMessageBytes, auth, tls, tlsRequired, subscribeBufferRows, authenticationTimeoutMillis);
        }

        public Options withTls(SSLContext tls) {
            return new Options(listen, port, maxConnections, maxMessageBytes, auth, tls, tlsRequired, subscribeBufferRows, authenticationTimeoutMillis);
        }

        /** These options with at most {@code rows} rows of changes waiting for a streaming client that does not read. */
        public Options withSubscribeBufferRows(long rows) {
            return new Options(listen, port, maxConnections, maxMessageBytes, auth, tls, tlsRequired, rows, authenticationTimeoutMillis);
        }

        /** These options with clients given {@code millis} to finish the start-up exchange and authentication. */
        public Options withAuthenticationTimeoutMillis(long millis) {
            return new Options(listen, port, maxConnections, maxMessageBytes, auth, tls, tlsRequired, subscribeBufferRows, millis);
        }

        /** These options with TLS required of every client (TLS must be configured). */
        public Options withTlsRequired(boolean tlsRequired) {
            return new Options(listen, port, maxConnections, maxMessageBytes, auth, tls, tlsRequired, subscribeBufferRows, authenticationTimeoutMillis);
        }
    }

    /** The database served; null while it is still being opened (recovering), when every client gets 57P03. */
    private volatile Tributary db;
    private final Options options;
    private final ServerSocket socket;
    // virtual threads: measured against platform threads per connection, they answered point
    // selects faster at 1 and 16 connections and a little slower at 4 (docs/BENCHMARKS.md)
    private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
    /** Sessions ({@link Options#maxConnections}), taken by a connection once its startup packet is in ({@link #admit}). */
    private final Semaphore slots;
    /** Connections accepted that hold no session yet ({@link Options#maxStartingConnections}); past it a client gets 53300 at once. */
    private final Semaphore starting;
    /**
     * Clients being told why they are refused (57P03, 53300), each read for its startup packet
     * first: bounded, so a flood of them costs a bounded number of threads; beyond it a client is
     * hung up on without an answer.
     */
    private final Semaphore refusing = new Semaphore(MAX_REFUSING);
    private static final int MAX_REFUSING = 64;
    /** How long a refused client has to send its startup packet and hear why. */
    private static final long REFUSAL_MILLIS = 5_000;
    /** Hangs up on connections past their deadline: the start-up exchange's ({@link Options#authenticationTimeoutMillis}), a refusal's. */
    private final ScheduledThreadPoolExecutor deadlines;
    private final AtomicInteger nextPid = new AtomicInteger(1);
    /** The live connections by process id, for CancelRequests to find. */
    private final Map<Integer, PgConnection> connections = new ConcurrentHashMap<>();
    /** Secret keys are random, so no client can cancel another's statements by guessing from a process id. */
    private final SecureRandom secrets = new SecureRandom();
    private volatile boolean closed;
    /** Connections being served now (guarded by {@code this}). */
    private int open;
    /** Clients refused for want of a session or a start-up place (53300), for the metrics. */
    private final java.util.concurrent.atomic.LongAdder rejected = new java.util.concurrent.atomic.LongAdder();

    /**
     * Listens as {@code options} say, serving {@code db}; with a null {@code db} every client is
     * told the database is starting up (57P03, as PostgreSQL says during recovery) until
     * {@link #ready}.
     */
    public PgServer(Tributary db, Options options) throws IOException {
        this.db = db;
        if (db != null) db.setBackends(backends());
        this.options = options;
        this.socket = new ServerSocket();
        this.socket.bind(new InetSocketAddress(options.listen(), options.port()));
        this.slots = new Semaphore(options.maxConnections());
        this.starting = new Semaphore(options.maxStartingConnections());
        this.deadlines = new ScheduledThreadPoolExecutor(1, Thread.ofPlatform().daemon().name("tributary-pg-deadlines").factory());
        // a deadline met in time is cancelled: it leaves the queue then, not a minute later
        this.deadlines.setRemoveOnCancelPolicy(true);
        Thread.ofPlatform().daemon().name("tributary-pg-accept")
                .uncaughtExceptionHandler((t, e) -> {
                    ServerLog.error("the server stopped accepting connections: " + e, e);
                    // a server that accepts no one is hung for every new client: the process's policy decides (serve exits)
                    Thread.UncaughtExceptionHandler process = Thread.getDefaultUncaughtExceptionHandler();
                    if (process != null) process.uncaughtException(t, e);
                })
                .start(this::accept);
    }

    /** Listens on {@code address}:{@code port} (0 picks a free port) for at most {@code maxConnections} clients at once, otherwise with the {@link Options#defaults()}. */
    public PgServer(Tributary db, InetAddress address, int port, int maxConnections) throws IOException {
        this(db, Options.defaults().withListen(address).withPort(port).withMaxConnections(maxConnections));
    }

    /** How it runs. */
    public Options options() {
        return options;
    }

    /**
     * Whether a client on a loopback address ({@code loopback}) or not is let in without a
     * password, as the startup exchange decides it; the web console asks the same.
     */
    public boolean trusts(boolean loopback) {
        Tributary d = db;
        return d != null && Authenticator.trusted(options.auth(), loopback, d.roles());
    }

    /** Serves {@code db} from now on: the database it was started without is open. */
    public void ready(Tributary db) {
        this.db = java.util.Objects.requireNonNull(db);
        db.setBackends(backends());
    }

    /** What sessions see of the other connections: pg_cancel_backend, pg_terminate_backend, pg_stat_activity. */
    private Tributary.Backends backends() {
        return new Tributary.Backends() {
            @Override
            public boolean signal(int pid, boolean terminate, String byRole) {
                return PgServer.this.signal(pid, terminate, byRole);
            }

            @Override
            public java.util.List<dev.tributary.sql.catalog.Catalog.Activity> activity() {
                return PgServer.this.activity();
            }
        };
    }

    /** The port it listens on. */
    public int port() {
        return socket.getLocalPort();
    }

    private void accept() {
        while (!closed) {
            Socket client;
            try {
                client = socket.accept();
            } catch (IOException | RuntimeException | Error e) {
                // an Error too (out of memory): the acceptor must outlive it, or no client connects again
                if (closed) return;
                ServerLog.log("could not accept new connection: " + e.getMessage());
                // out of file descriptors, say: the next accept would fail at once again
                pauseAfterFailedAccept();
                continue;
            }
            try {
                serve(client);
            } catch (RuntimeException | Error e) {
                // no memory or thread for this client (a 200 MB COPY had the acceptor die this way, and
                // with it every later connection; issue 25): it is let go, and the acceptor goes on
                PgConnection.close(client);
            }
        }
    }

    /**
     * Hands {@code client} to a thread of its own: its connection, or a refusal (57P03 while the
     * database opens; 53300 past {@link Options#maxStartingConnections}). The start-up exchange
     * must end within {@link Options#authenticationTimeoutMillis} (the connection hangs up past it);
     * the connection takes a session only once its startup packet is in, so clients that connect
     * and stall do not keep others from the sessions (they held one each for a minute or more).
     */
    private void serve(Socket client) {
        Tributary serving = db;
        if (serving == null) {
            refuse(client, "57P03", "the database system is starting up");
            return;
        }
        if (!starting.tryAcquire()) {
            rejected.increment();
            refuse(client, "53300", "sorry, too many clients already");
            return;
        }
        try {
            // answers go out whole in one flush; without this, a small answer after another waits on a delayed ACK
            client.setTcpNoDelay(true);
        } catch (IOException e) {
            // the client is already gone: its connection ends at the first read
        }
        opened(1);
        boolean handedOver = false;
        try {
            threads.execute(() -> {
                PgConnection c = null;
                try {
                    c = new PgConnection(serving, client, this, nextPid.getAndIncrement(), secrets.nextInt(), options);
                    connections.put(c.pid(), c);
                    c.run();
                } catch (RuntimeException | Error e) {
                    // a connection answers its own errors; what escapes it is a bug, kept in the log rather than on a dead thread
                    ServerLog.error("a connection ended with an internal error: " + e, e);
                } finally {
                    if (c == null) PgConnection.close(client);
                    if (c != null && c.admitted()) slots.release();
                    else starting.release();
                    opened(-1);
                }
            });
            handedOver = true;
        } finally {
            if (!handedOver) {
                starting.release();
                opened(-1);
            }
        }
    }

    private void pauseAfterFailedAccept() {
        try {
            Thread.sleep(100);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Tells {@code client} why it is refused, on a thread of its own and within {@link #REFUSAL_MILLIS}; at once and without a word past {@link #MAX_REFUSING}. */
    private void refuse(Socket client, String sqlState, String message) {
        if (!refusing.tryAcquire()) {
            PgConnection.close(client);
            return;
        }
        boolean handedOver = false;
        try {
            Future<?> deadline = hangUpAfter(client, REFUSAL_MILLIS);
            threads.execute(() -> {
                try {
                    PgConnection.refuse(client, sqlState, message, options.tls());
                } finally {
                    deadline.cancel(false);
                    refusing.release();
                }
            });
            handedOver = true;
        } finally {
            if (!handedOver) refusing.release();
        }
    }

    /**
     * A connection whose startup packet is in takes a session, and gives back its place among
     * the connections starting; false if no session is free (the client gets 53300).
     */
    boolean admit() {
        if (!slots.tryAcquire()) {
            rejected.increment();
            return false;
        }
        starting.release();
        return true;
    }

    /** Closes {@code socket} in {@code millis} unless the returned future is cancelled first. */
    Future<?> hangUpAfter(Socket socket, long millis) {
        return deadlines.schedule(() -> PgConnection.close(socket), millis, TimeUnit.MILLISECONDS);
    }

    private synchronized void opened(int delta) {
        open += delta;
        notifyAll();
    }

    /** The number of connections being served now; each has its session and thread until it ends. */
    public synchronized int connections() {
        return open;
    }

    /** How many clients were refused with 53300 (no session or start-up place free) since the server started. */
    public long rejectedConnections() {
        return rejected.sum();
    }

    /** The database served, or null while it is still being opened (recovering). */
    public Tributary database() {
        return db;
    }

    /** Waits until at most {@code n} connections are being served, for up to {@code timeoutMillis}; whether that happened. */
    public synchronized boolean awaitConnections(int n, long timeoutMillis) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
        while (open > n) {
            long left = (deadline - System.nanoTime()) / 1_000_000L;
            if (left <= 0) return false;
            wait(left);
        }
        return true;
    }

    /** A CancelRequest: cancels what connection {@code pid} runs if {@code secret} is its key; anything else does nothing. */
    void cancel(int pid, int secret) {
        PgConnection c = connections.get(pid);
        if (c != null && c.hasSecret(secret)) c.cancel();
    }

    /**
     * pg_cancel_backend / pg_terminate_backend from a session of role {@code byRole}: as in
     * PostgreSQL, a role signals its own backends, the superuser ({@code tributary}) any; 42501
     * otherwise. Whether backend {@code pid} was there.
     */
    private boolean signal(int pid, boolean terminate, String byRole) {
        PgConnection c = connections.get(pid);
        if (c == null || c.user() == null) return false;
        dev.tributary.server.auth.Roles roles = db.roles();
        if (roles.isSuperuser(c.user()) && !roles.isSuperuser(byRole)) {
            throw new dev.tributary.sql.SqlException("42501", "permission denied to " + (terminate ? "terminate" : "cancel") + " process", 0,
                    "Only roles with the SUPERUSER attribute may " + (terminate ? "terminate" : "cancel") + " processes of roles with the SUPERUSER attribute.");
        }
        if (!roles.hasPrivilegesOf(byRole, c.user())) {
            throw new dev.tributary.sql.SqlException("42501", "permission denied to " + (terminate ? "terminate" : "cancel") + " process", 0,
                    "Only roles with the privileges of the role whose process is being " + (terminate ? "terminated" : "canceled")
                            + " or with privileges of the \"pg_signal_backend\" role may " + (terminate ? "terminate" : "cancel") + " this process.");
        }
        if (terminate) c.terminate();
        else c.cancel();
        return true;
    }

    /** The connections that have logged in, as pg_stat_activity shows them, by process id. */
    private java.util.List<dev.tributary.sql.catalog.Catalog.Activity> activity() {
        java.util.List<dev.tributary.sql.catalog.Catalog.Activity> out = new java.util.ArrayList<>();
        for (PgConnection c : connections.values()) {
            dev.tributary.sql.catalog.Catalog.Activity a = c.activity();
            if (a != null) out.add(a);
        }
        out.sort(java.util.Comparator.comparingInt(dev.tributary.sql.catalog.Catalog.Activity::pid));
        return out;
    }

    /** A connection has ended. */
    void forget(PgConnection c) {
        connections.remove(c.pid(), c);
    }

    @Override
    public void close() throws IOException {
        closed = true;
        socket.close();
        threads.shutdownNow();
        deadlines.shutdownNow();
    }

    private static final String USAGE = "usage: tributary serve [--port P (default " + DEFAULT_PORT + ")] [--listen ADDR (default 127.0.0.1)] [--clock manual|wall]\n"
            + "                       [--workers N (default: one per core)]\n"
            + "                       [--data DIR (default ./tributary-data) | --in-memory | --blob s3://BUCKET[/PREFIX][?endpoint=URL] --consensus postgres://HOST/DB]\n"
            + "                       [--auth auto|scram] [--tls-cert FILE --tls-key FILE [--tls-required]] [--max-connections N (default 100)]\n"
            + "                       [--max-message-bytes N (default " + Options.DEFAULT_MAX_MESSAGE_BYTES + ")] [--subscribe-buffer-rows N (default " + Options.DEFAULT_SUBSCRIBE_BUFFER_ROWS + ")]\n"
            + "                       [--authentication-timeout SECONDS (default 60)]\n"
            + "                       [--http-port N|off (default: the SQL port + 1, on the same address; /metrics, /health, /ready)]\n"
            + "                       [--log-file PATH (the log goes there too, appended; it always goes to standard error)] [--log-level debug|info|warn|error (default info)]\n"
            + "  TRIBUTARY_PASSWORD, if set, becomes the password of the role \"tributary\" at start.";

    /**
     * What {@code serve} does with an error no thread contained: a {@link VirtualMachineError} (out
     * of memory where nothing could fail a statement for it, a stack overflow) that ends one of the
     * threads the server cannot run without (a worker, the clock, the acceptor, the checkpointer, the
     * JDK's thread that wakes virtual threads' timed waits)
     * leaves the process beyond saving, so it says so in the log and exits (status 3) for a
     * supervisor to start it again, rather than staying up hung; everything acknowledged is
     * durable. The same error ending any other thread (a connection's, the JDK's own, a
     * management connection's) is logged, and the server goes on, as PostgreSQL's postmaster
     * outlives a backend that ran out of memory.
     */
    static void exitOnFatalErrors() {
        Thread.setDefaultUncaughtExceptionHandler((t, e) -> {
            if (e instanceof VirtualMachineError && essential(t)) {
                try {
                    ServerLog.fatal("the server cannot go on after " + e + " in thread " + t.getName()
                            + "; exiting so that it can be started again (what was acknowledged is durable)");
                } finally {
                    Runtime.getRuntime().halt(3);
                }
            }
            ServerLog.error("thread " + t.getName() + " ended with an internal error: " + e, e);
        });
    }

    /** Whether the server cannot run without thread {@code t}. */
    static boolean essential(Thread t) {
        String name = t.getName();
        // the JDK's unblocker wakes every virtual thread's timed wait: without it, a statement
        // waiting for the workers is never woken again
        return name.startsWith("tributary-worker-") || name.equals("tributary-clock") || name.equals("tributary-pg-accept")
                || name.startsWith("tributary-checkpoint") || name.startsWith("VirtualThread-unblocker") || name.startsWith("VirtualThread-unparker");
    }

    public static void main(String[] args) throws Exception {
        exitOnFatalErrors();
        Options options = Options.defaults();
        String listen = "127.0.0.1";
        boolean manual = false;
        Path data = Path.of("tributary-data");
        boolean inMemory = false;
        String blob = null;
        String consensus = null;
        Path cert = null;
        Path key = null;
        boolean tlsRequired = false;
        Path logFile = null;
        /** --http-port: null for the default (the SQL port + 1), -1 for off. */
        Integer httpPort = null;
        // one worker per core, as the design says: a view over a million rows hydrates on all of them
        int workers = Math.max(1, Math.min(64, Runtime.getRuntime().availableProcessors()));
        for (int i = 0; i < args.length; i++) {
            try {
                switch (args[i]) {
                    case "--port" -> options = options.withPort(Integer.parseInt(args[++i]));
                    case "--listen" -> listen = args[++i];
                    case "--clock" -> {
                        String c = args[++i];
                        if (!c.equals("manual") && !c.equals("wall")) throw new IllegalArgumentException("--clock takes 'manual' or 'wall', not '" + c + "'");
                        manual = c.equals("manual");
                    }
                    case "--auth" -> options = options.withAuth(switch (args[++i]) {
                        case "auto" -> Auth.AUTO;
                        case "scram", "scram-sha-256" -> Auth.SCRAM;
                        default -> throw new IllegalArgumentException("--auth takes 'auto' or 'scram', not '" + args[i] + "'");
                    });
                    case "--workers" -> {
                        workers = Integer.parseInt(args[++i]);
                        if (workers < 1 || workers > 64) throw new IllegalArgumentException("--workers takes 1 to 64, not " + workers);
                    }
                    case "--data" -> data = Path.of(args[++i]);
                    case "--in-memory" -> inMemory = true;
                    case "--blob" -> blob = args[++i];
                    case "--consensus" -> consensus = args[++i];
                    case "--tls-cert" -> cert = Path.of(args[++i]);
                    case "--tls-key" -> key = Path.of(args[++i]);
                    case "--tls-required" -> tlsRequired = true;
                    case "--max-connections" -> options = options.withMaxConnections(Integer.parseInt(args[++i]));
                    case "--max-message-bytes" -> options = options.withMaxMessageBytes(Integer.parseInt(args[++i]));
                    case "--subscribe-buffer-rows" -> options = options.withSubscribeBufferRows(Long.parseLong(args[++i]));
                    case "--log-file" -> logFile = Path.of(args[++i]);
                    case "--http-port" -> {
                        String v = args[++i];
                        httpPort = v.equals("off") ? -1 : Integer.parseInt(v);
                        if (httpPort == 0) httpPort = -1;
                        if (httpPort > 65535 || httpPort < -1) throw new IllegalArgumentException("--http-port takes 1 to 65535 or off, not " + v);
                    }
                    case "--log-level" -> ServerLog.setLevel(args[++i]);
                    case "--authentication-timeout" -> {
                        int seconds = Integer.parseInt(args[++i]);
                        if (seconds < 1 || seconds > 600) throw new IllegalArgumentException("--authentication-timeout takes 1 to 600 seconds, not " + seconds);
                        options = options.withAuthenticationTimeoutMillis(seconds * 1000L);
                    }
                    case "-h", "--help" -> {
                        System.out.println(USAGE);
                        return;
                    }
                    default -> throw new IllegalArgumentException("unknown option '" + args[i] + "'");
                }
            } catch (ArrayIndexOutOfBoundsException | IllegalArgumentException e) {
                String why = e instanceof ArrayIndexOutOfBoundsException ? "option '" + args[i - 1] + "' needs an argument"
                        : e instanceof NumberFormatException ? "option '" + args[i - 1] + "' takes a number, not '" + args[i] + "'"
                        : e.getMessage();
                System.err.println("tributary serve: " + why);
                System.err.println(USAGE);
                System.exit(1);
            }
        }
        if (logFile != null) {
            try {
                ServerLog.alsoTo(logFile);
            } catch (IOException e) {
                System.err.println("tributary serve: cannot write the log file " + logFile + ": " + e);
                System.exit(1);
            }
        }
        if (tlsRequired && cert == null) {
            System.err.println("tributary serve: --tls-required needs --tls-cert and --tls-key");
            System.exit(1);
        }
        if ((cert == null) != (key == null)) {
            System.err.println("tributary serve: --tls-cert and --tls-key go together");
            System.exit(1);
        }
        if (cert != null) {
            try {
                options = options.withTls(Tls.serverContext(cert, key)).withTlsRequired(tlsRequired);
            } catch (IOException | IllegalArgumentException e) {
                System.err.println("tributary serve: " + (e instanceof IOException ? "cannot read " + e.getMessage() : e.getMessage()));
                System.exit(1);
            }
        }
        if ((blob == null) != (consensus == null)) {
            System.err.println("tributary serve: --blob and --consensus go together");
            System.exit(1);
        }
        options = options.withListen(InetAddress.getByName(listen));
        Clock clock = manual ? Clock.manual(0) : Clock.wall();
        // the port first: a clash shows at once, and clients of a recovering server hear why they wait (57P03)
        PgServer server;
        try {
            server = new PgServer(null, options);
        } catch (IOException e) {
            ServerLog.fatal("could not listen on " + listen + ":" + options.port() + ": " + e.getMessage());
            System.exit(1);
            return;
        }
        // the HTTP port next: /health answers and /ready says why not while the data is opened
        dev.tributary.server.http.HttpService http = null;
        if (httpPort == null) httpPort = options.port() == 0 ? 0 : options.port() == 65535 ? -1 : options.port() + 1;
        if (httpPort != -1) {
            try {
                http = dev.tributary.server.http.HttpService.bind(options.listen(), httpPort);
                dev.tributary.server.http.Monitoring.install(http, server, dev.tributary.server.http.Monitoring.Options.defaults());
                dev.tributary.server.http.ConsoleApi.install(http, server, dev.tributary.server.http.ConsoleApi.Options.defaults());
                dev.tributary.server.http.Webhooks.install(http, server);
                dev.tributary.server.http.ConsoleFiles.install(http);
                http.start();
            } catch (IOException e) {
                ServerLog.fatal(e.getMessage());
                server.close();
                System.exit(1);
                return;
            }
        }
        Tributary db;
        String where;
        try {
            if (inMemory) {
                db = Tributary.inMemory(clock, workers);
                where = "in memory only (--in-memory): nothing is kept after it stops";
            } else if (blob != null) {
                db = Tributary.open(dev.tributary.server.storage.StorageController.open(blob, consensus, dev.tributary.server.ServerLog::warn), clock, workers);
                where = "data in " + blob + " and " + consensus.replaceAll("//[^@/]*@", "//");
            } else {
                long started = System.nanoTime();
                ServerLog.log("opening the data directory " + data.toAbsolutePath().normalize() + " (--data DIR for another, --in-memory for none);"
                        + " clients of port " + server.port() + " get 57P03 until it is recovered");
                db = Tributary.open(data, clock, workers);
                where = "data in " + data.toAbsolutePath().normalize() + ", recovered in " + (System.nanoTime() - started) / 1_000_000 + " ms";
            }
        } catch (RuntimeException e) {
            ServerLog.fatal("could not open the database: " + e.getMessage());
            server.close();
            System.exit(1);
            return;
        }
        String password = System.getenv("TRIBUTARY_PASSWORD");
        if (password != null && !password.isEmpty()) {
            db.roles().alter(dev.tributary.server.auth.Roles.BOOTSTRAP, null, true, db.roles().verifierOf(password));
        }
        Tributary opened = db;
        // a stop (Ctrl-C, kill) writes what is queued and lets go of the data directory; kill -9 loses nothing acknowledged either
        Runtime.getRuntime().addShutdownHook(new Thread(opened::close, "tributary-shutdown"));
        server.ready(db);
        ServerLog.log("listening on " + listen + ":" + server.port() + (options.tls() != null ? " (TLS available)" : "")
                + " (psql -h " + listen + " -p " + server.port() + " -d tributary), "
                + (http == null ? "" : "metrics on http://" + listen + ":" + http.port() + "/metrics, ") + workers + (workers == 1 ? " worker" : " workers") + ", " + where);
        Thread.currentThread().join();
    }
}
