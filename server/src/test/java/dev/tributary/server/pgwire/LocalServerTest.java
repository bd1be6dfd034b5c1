package dev.tributary.server.pgwire;

import dev.tributary.server.Clock;
import dev.tributary.server.Tributary;
import java.io.IOException;
import java.net.InetAddress;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * What the protocol tests share: for each test, a database on a manual clock at 0 behind a
 * {@link PgServer} on a free loopback port (at most 10 connections), closed afterwards.
 */
abstract class LocalServerTest {
    protected Tributary db;
    protected PgServer server;

    @BeforeEach
    void startLocalServer() throws IOException {
        db = Tributary.inMemory(Clock.manual(0));
        server = new PgServer(db, serverOptions());
    }

    /** The server's options: loopback, a free port, at most 10 connections; a test class may change them. */
    protected PgServer.Options serverOptions() {
        return PgServer.Options.defaults().withListen(InetAddress.getLoopbackAddress()).withPort(0).withMaxConnections(10);
    }

    @AfterEach
    void stopLocalServer() throws IOException {
        server.close();
        db.close();
    }
}
