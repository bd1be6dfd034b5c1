package dev.tributary.server.source;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * A test class with a broker of its own ({@link TestKafka}), started before its first test and
 * closed after its last: {@link #kafka}. Test classes run one after another, so the one field
 * serves each in turn.
 */
public abstract class KafkaTestCase {
    /** The running broker of the class being run. */
    protected static TestKafka kafka;

    @BeforeAll
    static void startBroker() throws Exception {
        kafka = TestKafka.start();
    }

    @AfterAll
    static void stopBroker() throws Exception {
        if (kafka != null) kafka.close();
        kafka = null;
    }
}
