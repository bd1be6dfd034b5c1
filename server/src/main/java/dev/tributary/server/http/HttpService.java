package dev.tributary.server.http;

import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The server's HTTP port: the JDK's {@code com.sun.net.httpserver} with a handler per path
 * ({@link #handle}), each request on a virtual thread of its own, so a slow scrape holds up no
 * other request. What is served is added by its owner ({@link Monitoring#install}); nothing here
 * knows what a path means.
 */
public final class HttpService implements AutoCloseable {
    private final HttpServer server;
    private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
    /** What the handlers started and {@link #close} stops, newest first. */
    private final List<AutoCloseable> owned = new ArrayList<>();

    private HttpService(HttpServer server) {
        this.server = server;
    }

    /**
     * Listens on {@code listen}:{@code port} (0: a free port); requests are answered once
     * {@link #start}ed, so that no client sees a path before its handler is there.
     *
     * @throws IOException with a message naming the address if it cannot listen there (a port in
     *     use says so, rather than the JDK's bare "Address already in use")
     */
    public static HttpService bind(InetAddress listen, int port) throws IOException {
        HttpServer server;
        try {
            server = HttpServer.create(new InetSocketAddress(listen, port), 0);
        } catch (BindException e) {
            throw new BindException("could not listen for HTTP on " + listen.getHostAddress() + ":" + port + ": " + e.getMessage()
                    + " (--http-port N for another port, --http-port off for none)");
        }
        HttpService service = new HttpService(server);
        server.setExecutor(service.threads);
        return service;
    }

    /** Answers requests from now on. */
    public HttpService start() {
        server.start();
        return this;
    }

    /** Serves requests for {@code path} and the paths under it with {@code handler} (before {@link #start}, or while serving). */
    public void handle(String path, HttpHandler handler) {
        server.createContext(path, handler);
    }

    /** Stops {@code resource} when this service closes (a handler's background work). */
    void own(AutoCloseable resource) {
        synchronized (owned) {
            owned.add(0, resource);
        }
    }

    /** The port it listens on. */
    public int port() {
        return server.getAddress().getPort();
    }

    @Override
    public void close() {
        server.stop(0);
        threads.shutdownNow();
        synchronized (owned) {
            for (AutoCloseable r : owned) {
                try {
                    r.close();
                } catch (Exception e) {
                    dev.tributary.server.ServerLog.warn("closing the HTTP service's " + r + ": " + e);
                }
            }
            owned.clear();
        }
    }
}
