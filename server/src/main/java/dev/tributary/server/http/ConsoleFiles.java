package dev.tributary.server.http;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * The web console's page at {@code /}: {@code index.html}, {@code console.js} and
 * {@code console.css} from the classpath's {@code console/} (built from the repository's
 * {@code console/} by its {@code build.sh} and committed); any other path is 404.
 */
public final class ConsoleFiles {
    /** What is served, by path, with its content type. */
    private static final Map<String, String> FILES = Map.of(
            "index.html", "text/html; charset=utf-8",
            "console.js", "text/javascript; charset=utf-8",
            "console.css", "text/css; charset=utf-8");

    private ConsoleFiles() {}

    /** Serves the console at {@code /} on {@code http} (the paths no other handler takes). */
    public static void install(HttpService http) {
        http.handle("/", ConsoleFiles::serve);
    }

    private static void serve(HttpExchange exchange) throws IOException {
        try (exchange) {
            String path = exchange.getRequestURI().getPath();
            String name = path.equals("/") ? "index.html" : path.substring(1);
            String type = FILES.get(name);
            String method = exchange.getRequestMethod();
            if (type == null || !(method.equals("GET") || method.equals("HEAD"))) {
                byte[] body = (type == null ? "no such page: " + path + "\n" : "only GET and HEAD\n").getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
                exchange.sendResponseHeaders(type == null ? 404 : 405, body.length);
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(body);
                }
                return;
            }
            byte[] bytes;
            try (InputStream in = ConsoleFiles.class.getResourceAsStream("/console/" + name)) {
                if (in == null) throw new IOException("the console's " + name + " is not on the classpath (console/build.sh builds it)");
                bytes = in.readAllBytes();
            }
            exchange.getResponseHeaders().set("Content-Type", type);
            exchange.getResponseHeaders().set("Cache-Control", "no-cache");
            boolean head = method.equals("HEAD");
            exchange.sendResponseHeaders(200, head ? -1 : bytes.length);
            if (!head) {
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(bytes);
                }
            }
        }
    }
}
