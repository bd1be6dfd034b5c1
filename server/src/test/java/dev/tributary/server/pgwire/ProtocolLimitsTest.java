package dev.tributary.server.pgwire;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Lengths a client claims are checked before the server acts on them (issue 25, memory before
 * login): a start-up packet over PostgreSQL's 10,000 bytes is refused with FATAL 08P01 at once,
 * before any of its claimed bytes arrive (it had been allocated whole, up to 64 MiB, by each such
 * socket), and a parameter length near 2^31 in a Bind is a protocol violation, not an internal
 * error (its check had overflowed). Afterwards a well-behaved client is served as before.
 */
class ProtocolLimitsTest extends LocalServerTest {
    @Test
    void aStartupPacketOverTenThousandBytesIsRefusedBeforeItsBytesArrive() throws IOException {
        List<WireClient> attackers = new ArrayList<>();
        try {
            for (int i = 0; i < 8; i++) {
                WireClient c = new WireClient(server.port());
                attackers.add(c);
                // a header claiming 64 MiB, and nothing after it: the answer must not wait for the rest
                c.out.writeInt(64 << 20);
                c.out.writeInt(196608);
                c.out.flush();
                WireClient.Msg m = c.next();
                assertThat(m).isNotNull();
                assertThat(m.type()).isEqualTo('E');
                assertThat(m.fields()).containsEntry('S', "FATAL").containsEntry('C', "08P01").containsEntry('M', "invalid length of startup packet");
                assertThat(c.next()).as("the connection is closed").isNull();
            }
            WireClient tooShort = new WireClient(server.port());
            attackers.add(tooShort);
            tooShort.out.writeInt(7);
            tooShort.out.flush();
            assertThat(tooShort.next().fields()).containsEntry('C', "08P01");
        } finally {
            for (WireClient c : attackers) c.close();
        }
        try (WireClient c = WireClient.connect(server.port())) {
            c.send(WireClient.query("SELECT 1"));
            assertThat(c.briefUntilReady()).contains("D 1");
        }
    }

    /** Statement text that is not UTF-8 is 22021 (an ERROR: the connection goes on), in a Query and in a Parse, not taken with replacement characters. */
    @Test
    void statementTextThatIsNotUtf8Is22021() throws IOException {
        db.execute("CREATE TABLE notes (t text)");
        try (WireClient c = WireClient.connect(server.port())) {
            byte[] badQuery = WireClient.message('Q', (DataOutputStream d) -> {
                d.write("INSERT INTO notes VALUES ('a".getBytes(java.nio.charset.StandardCharsets.UTF_8));
                d.write(new byte[] {(byte) 0xff, (byte) 0xfe});
                d.write("')".getBytes(java.nio.charset.StandardCharsets.UTF_8));
                d.writeByte(0);
            });
            c.send(badQuery);
            assertThat(c.briefUntilReady()).containsExactly("E 22021", "Z I");
            byte[] badParse = WireClient.message('P', (DataOutputStream d) -> {
                WireClient.cstring(d, "");
                d.write("SELECT '".getBytes(java.nio.charset.StandardCharsets.UTF_8));
                d.write(new byte[] {(byte) 0xc3, 0x28});
                d.write("'".getBytes(java.nio.charset.StandardCharsets.UTF_8));
                d.writeByte(0);
                d.writeShort(0);
            });
            c.send(badParse, WireClient.sync());
            assertThat(c.briefUntilReady()).containsExactly("E 22021", "Z I");
            c.send(WireClient.query("SELECT count(*) FROM notes"));
            assertThat(c.briefUntilReady()).contains("D 0");
        }
    }

    /**
     * {@code idle_in_transaction_session_timeout} (PostgreSQL's units): a client idle that long
     * inside a transaction block is disconnected with FATAL 25P03 and its block rolled back.
     */
    @Test
    void aClientIdleInATransactionBlockIsDisconnected() throws IOException {
        db.execute("CREATE TABLE held (k int)");
        try (WireClient c = WireClient.connect(server.port())) {
            c.send(WireClient.query("SET idle_in_transaction_session_timeout = '200ms'"));
            assertThat(c.briefUntilReady()).containsExactly("C SET", "Z I");
            c.send(WireClient.query("SELECT current_setting('idle_in_transaction_session_timeout')"));
            assertThat(c.briefUntilReady()).contains("D 200ms");
            c.send(WireClient.query("BEGIN; INSERT INTO held VALUES (1)"));
            assertThat(c.briefUntilReady()).containsExactly("C BEGIN", "C INSERT 0 1", "Z T");
            // the client sends nothing more: the server ends the connection (the read waits for it)
            WireClient.Msg m = c.next();
            assertThat(m.type()).isEqualTo('E');
            assertThat(m.fields()).containsEntry('S', "FATAL").containsEntry('C', "25P03");
            assertThat(c.next()).isNull();
        }
        try (WireClient c = WireClient.connect(server.port())) {
            c.send(WireClient.query("SELECT count(*) FROM held"));
            assertThat(c.briefUntilReady()).as("the block was rolled back").contains("D 0");
        }
    }

    @Test
    void aParameterLengthNearTwoToTheThirtyOneIsAProtocolViolation() throws IOException {
        try (WireClient c = WireClient.connect(server.port())) {
            byte[] bind = WireClient.message('B', (DataOutputStream d) -> {
                WireClient.cstring(d, "");
                WireClient.cstring(d, "");
                d.writeShort(0); // parameter formats: all text
                d.writeShort(1); // one parameter
                d.writeInt(Integer.MAX_VALUE - 8); // its length: past the message's end, and pos + length overflows
                d.writeInt(42);
                d.writeShort(0);
            });
            c.send(WireClient.parse("", "SELECT $1::int"), bind, WireClient.sync());
            List<WireClient.Msg> got = c.untilReady();
            WireClient.Msg error = got.stream().filter(m -> m.type() == 'E').findFirst().orElseThrow();
            assertThat(error.fields()).containsEntry('C', "08P01").containsEntry('S', "FATAL");
        }
        try (WireClient c = WireClient.connect(server.port())) {
            c.send(WireClient.query("SELECT 2"));
            assertThat(c.briefUntilReady()).contains("D 2");
        }
    }
}
