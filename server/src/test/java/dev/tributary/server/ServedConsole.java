package dev.tributary.server;

import dev.tributary.server.http.ConsoleApi;
import dev.tributary.server.http.ConsoleFiles;
import dev.tributary.server.http.HttpService;
import dev.tributary.server.pgwire.PgServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;

/**
 * A fresh in-memory database behind a wire server and an HTTP port serving the console (its API
 * and its page), on free loopback ports: what the console's tests run against.
 */
record ServedConsole(Tributary db, PgServer server, HttpService http) implements AutoCloseable {
    /** Starts one whose idle event streams send a comment every {@code heartbeatMillis}. */
    static ServedConsole start(long heartbeatMillis) throws IOException {
        Tributary db = Tributary.inMemory();
        PgServer server = new PgServer(db, InetAddress.getLoopbackAddress(), 0, 10);
        HttpService http = HttpService.bind(InetAddress.getLoopbackAddress(), 0);
        ConsoleApi.install(http, server, new ConsoleApi.Options(heartbeatMillis));
        ConsoleFiles.install(http);
        http.start();
        return new ServedConsole(db, server, http);
    }

    URI uri(String path) {
        return URI.create("http://127.0.0.1:" + http.port() + path);
    }

    /** POSTs {@code body} to /api/sql without a session. */
    HttpResponse<String> sql(String body) throws IOException, InterruptedException {
        try (HttpClient client = HttpClient.newHttpClient()) {
            return client.send(HttpRequest.newBuilder(uri("/api/sql")).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                    HttpResponse.BodyHandlers.ofString());
        }
    }

    /** A JDBC connection over the wire server as {@code user} ({@code password} null under trust). */
    Connection jdbc(String user, String password) throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + server.port() + "/tributary", user, password);
    }

    @Override
    public void close() throws IOException {
        http.close();
        server.close();
        db.close();
    }
}
