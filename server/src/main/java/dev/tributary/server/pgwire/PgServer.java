package dev.tributary.server.pgwire;

import dev.tributary.server.Clock;
import dev.tributary.server.Tributary;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
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
    private final AtomicInteger nextKey = new AtomicInteger(1);
    private volatile boolean closed;
    /** Connections being served now (guarded by {@code this}). */
    private int open;

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
            try {
                // answers go out whole in one flush; without this, a small answer after another waits on a delayed ACK
                client.setTcpNoDelay(true);
            } catch (IOException e) {
                // the client is already gone: its connection ends at the first read
            }
            opened(1);
            threads.execute(() -> {
                try {
                    new PgConnection(db, client, nextKey.getAndIncrement()).run();
                } finally {
                    slots.release();
                    opened(-1);
                }
            });
        }
    }

    private synchronized void opened(int delta) {
        open += delta;
        notifyAll();
    }

    /** The number of connections being served now; each has its session and thread until it ends. */
    public synchronized int connections() {
        return open;
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
