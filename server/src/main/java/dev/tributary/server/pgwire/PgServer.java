package dev.tributary.server.pgwire;

import dev.tributary.server.Clock;
import dev.tributary.server.Tributary;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.security.SecureRandom;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A PostgreSQL protocol 3.0 server in front of a {@link Tributary} database, so psql and other
 * Postgres clients can use it: {@code bin/tributary serve [--port P] [--listen ADDR] [--clock manual]}.
 *
 * <p>Each connection is a session of its own (transaction blocks, settings) and runs on a virtual
 * thread. This first version speaks the startup exchange (with SSL and GSS encryption requests
 * refused, trust authentication), the simple query protocol and termination; see
 * {@link PgConnection} for what it answers and what it refuses.
 */
public final class PgServer implements AutoCloseable {
    /** The default port, beside PostgreSQL's 5432 rather than on it. */
    public static final int DEFAULT_PORT = 6875;

    private final Tributary db;
    private final ServerSocket socket;
    private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
    private final Semaphore slots;
    private final AtomicInteger nextPid = new AtomicInteger(1);
    /** The live connections by process id, for CancelRequests to find. */
    private final Map<Integer, PgConnection> connections = new ConcurrentHashMap<>();
    /** Secret keys are random, so no client can cancel another's statements by guessing from a process id. */
    private final SecureRandom secrets = new SecureRandom();
    private volatile boolean closed;

    /** Listens on {@code address}:{@code port} (0 picks a free port) for at most {@code maxConnections} clients at once. */
    public PgServer(Tributary db, InetAddress address, int port, int maxConnections) throws IOException {
        this.db = db;
        this.socket = new ServerSocket();
        this.socket.bind(new InetSocketAddress(address, port));
        this.slots = new Semaphore(maxConnections);
        Thread acceptor = Thread.ofPlatform().daemon().name("tributary-pg-accept").start(this::accept);
        acceptor.setUncaughtExceptionHandler((t, e) -> {});
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
            } catch (IOException e) {
                if (closed) return;
                continue;
            }
            if (!slots.tryAcquire()) {
                PgConnection.refuse(client, "53300", "sorry, too many clients already");
                continue;
            }
            threads.execute(() -> {
                try {
                    PgConnection c = new PgConnection(db, client, this, nextPid.getAndIncrement(), secrets.nextInt());
                    connections.put(c.pid(), c);
                    c.run();
                } finally {
                    slots.release();
                }
            });
        }
    }

    /** A CancelRequest: cancels what connection {@code pid} runs if {@code secret} is its key; anything else does nothing. */
    void cancel(int pid, int secret) {
        PgConnection c = connections.get(pid);
        if (c != null && c.hasSecret(secret)) c.cancel();
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
    }

    public static void main(String[] args) throws Exception {
        int port = DEFAULT_PORT;
        String listen = "127.0.0.1";
        boolean manual = false;
        for (int i = 0; i < args.length; i++) {
            try {
                switch (args[i]) {
                    case "--port" -> port = Integer.parseInt(args[++i]);
                    case "--listen" -> listen = args[++i];
                    case "--clock" -> {
                        String c = args[++i];
                        if (!c.equals("manual") && !c.equals("wall")) throw new IllegalArgumentException("--clock takes 'manual' or 'wall', not '" + c + "'");
                        manual = c.equals("manual");
                    }
                    default -> throw new IllegalArgumentException("unknown option '" + args[i] + "'");
                }
            } catch (ArrayIndexOutOfBoundsException | IllegalArgumentException e) {
                System.err.println("tributary serve: " + (e instanceof ArrayIndexOutOfBoundsException ? "option '" + args[i - 1] + "' needs an argument" : e.getMessage()));
                System.err.println("usage: tributary serve [--port P (default " + DEFAULT_PORT + ")] [--listen ADDR (default 127.0.0.1)] [--clock manual|wall]");
                System.exit(1);
            }
        }
        Tributary db = Tributary.inMemory(manual ? Clock.manual(0) : Clock.wall());
        PgServer server = new PgServer(db, InetAddress.getByName(listen), port, 100);
        System.err.println("tributary: listening on " + listen + ":" + server.port() + " (psql -h " + listen + " -p " + server.port() + " -d tributary)");
        Thread.currentThread().join();
    }
}
