package dev.tributary.server.pgwire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.SocketException;
import org.junit.jupiter.api.Test;

/**
 * A client that asks for {@code COPY (SUBSCRIBE ...) TO STDOUT} and stops reading cannot make the
 * server hold its changes without bound (issue 25: 773 MB after 2M changes): past the server's
 * {@code subscribeBufferRows} waiting rows it is disconnected (FATAL 53400, or the socket closed
 * under a writer its full socket blocks), its subscription dropped, and the writer and other
 * clients go on.
 */
class SubscriberBufferTest extends LocalServerTest {
    @Override
    protected PgServer.Options serverOptions() {
        return super.serverOptions().withSubscribeBufferRows(2_000);
    }

    @Test
    void aSubscriberThatDoesNotReadIsDisconnectedPastItsBuffer() throws Exception {
        db.execute("CREATE TABLE t (k int, pad text)");
        WireClient stalled = new WireClient(server.port(), 4096);
        stalled.send(WireClient.startup("tributary"));
        stalled.untilReady();
        stalled.send(WireClient.query("COPY (SUBSCRIBE t) TO STDOUT"));
        assertThat(stalled.next().type()).as("CopyOutResponse").isEqualTo('H');
        // the client reads nothing more; the writer goes on, and the server must let the stream go
        String pad = "x".repeat(200);
        long inserted = 0;
        for (int round = 0; round < 400; round++) {
            db.execute("INSERT INTO t SELECT g, '" + pad + "' FROM generate_series(1, 500) g");
            inserted += 500;
        }
        // what reaches the client ends: an error 53400 after some rows, or the connection closed
        long rows = 0;
        char last = 0;
        try {
            for (WireClient.Msg m = stalled.next(); m != null; m = stalled.next()) {
                last = m.type();
                if (m.type() == 'd') rows++;
                if (m.type() == 'E') assertThat(m.fields()).containsEntry('C', "53400").containsEntry('S', "FATAL");
            }
        } catch (SocketException e) {
            last = 'X'; // reset by the server's close
        }
        // reaching the end at all says the server ended the stream (else the read times out)
        assertThat(last).as("the last message").isIn('E', 'X', 'd', 'H');
        assertThat(rows).as("not every change was held for the client").isLessThan(inserted);
        assertThat(server.awaitConnections(0, 30_000)).as("the stalled connection is gone").isTrue();
        stalled.close();
        // the writer and other clients go on
        db.execute("INSERT INTO t VALUES (-1, 'after')");
        try (WireClient c = WireClient.connect(server.port())) {
            c.send(WireClient.query("SELECT count(*) FROM t"));
            assertThat(c.briefUntilReady()).contains("D " + (inserted + 1));
        }
    }

    @Test
    void aCursorOverASubscriptionThatIsNotFetchedFromDropsItsSubscriptionPastItsBuffer() throws Exception {
        db.execute("CREATE TABLE t (k int)");
        try (java.sql.Connection c = java.sql.DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + server.port() + "/tributary?user=tributary");
             java.sql.Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            s.execute("DECLARE c CURSOR FOR SUBSCRIBE t");
            assertThat(db.activeSubscriptions()).isEqualTo(1);
            // a batch of any size fits an empty buffer; what waits beyond one is bounded
            db.execute("INSERT INTO t SELECT g FROM generate_series(1, 5000) g");
            for (int round = 0; round < 10; round++) db.execute("INSERT INTO t SELECT g FROM generate_series(1, 500) g");
            assertThatThrownBy(() -> s.execute("FETCH ALL c")).isInstanceOfSatisfying(java.sql.SQLException.class, e -> {
                assertThat(e.getSQLState()).isEqualTo("53400");
                assertThat(e.getMessage()).contains("cursor \"c\" was not fetched from").contains("more than the limit of 2000");
            });
            c.rollback();
            // the subscription went with the overflow, not only with the block
            assertThat(db.activeSubscriptions()).isZero();
            s.execute("DECLARE d CURSOR FOR SUBSCRIBE t");
            db.execute("INSERT INTO t VALUES (1)");
            s.execute("FETCH ALL d");
            try (java.sql.ResultSet rs = s.getResultSet()) {
                int n = 0;
                while (rs.next()) n++;
                assertThat(n).as("a cursor fetched from keeps working").isGreaterThan(0);
            }
        }
    }
}
