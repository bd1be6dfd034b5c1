/**
 * The server's HTTP port ({@code tributary serve --http-port}): {@link dev.tributary.server.http.HttpService}
 * is the JDK's HTTP server with one handler per path, and {@link dev.tributary.server.http.Monitoring}
 * installs {@code /metrics} (Prometheus), {@code /health} and {@code /ready} on it. Further
 * handlers (the web console's files and API) are added the same way.
 */
package dev.tributary.server.http;
