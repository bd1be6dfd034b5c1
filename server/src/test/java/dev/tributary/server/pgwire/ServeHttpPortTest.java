package dev.tributary.server.pgwire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code serve --http-port}: the HTTP port beside the SQL port, and a clear FATAL when it is taken. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ServeHttpPortTest {
    private static final Pattern METRICS = Pattern.compile("metrics on http://127\\.0\\.0\\.1:(\\d+)/metrics");

    @Test
    void serveAnswersHttpBesideTheSqlPort(@TempDir Path data) throws Exception {
        ChildServer.Server server = ChildServer.start(data, List.of());
        try {
            Matcher m = METRICS.matcher(server.log());
            assertThat(m.find()).as(server.log().toString()).isTrue();
            int http = Integer.parseInt(m.group(1));
            HttpClient client = HttpClient.newHttpClient();
            HttpResponse<String> ready = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + http + "/ready")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(ready.statusCode()).isEqualTo(200);
            HttpResponse<String> metrics = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + http + "/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(metrics.body()).contains("tributary_ready 1").contains("jvm_memory_used_bytes{area=\"heap\"}");
        } finally {
            server.kill();
        }
    }

    @Test
    void aTakenHttpPortStopsTheServerWithAClearError(@TempDir Path data) throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            int port = taken.getLocalPort();
            assertThatThrownBy(() -> ChildServer.start(data, List.of(), List.of("--http-port", String.valueOf(port))))
                    .hasMessageContaining("could not listen for HTTP on 127.0.0.1:" + port).hasMessageContaining("FATAL")
                    .hasMessageContaining("--http-port off");
        }
    }
}
