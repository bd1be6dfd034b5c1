package dev.tributary.server.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.types.SqlType;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The messages a sink makes of one time's changes, by envelope, with and without a KEY. */
class SinkEnvelopeTest {
    private static final List<String> NAMES = List.of("k", "name", "n");
    private static final List<SqlType> TYPES = List.of(SqlType.INTEGER, SqlType.TEXT, SqlType.BIGINT);

    private static SinkEnvelope.Change change(int k, String name, long n, long diff) {
        return new SinkEnvelope.Change(new Object[] {k, name, n}, diff);
    }

    private static List<String> text(List<SinkEnvelope.Message> messages) {
        return messages.stream().map(m -> new String(m.key(), StandardCharsets.UTF_8) + " -> "
                + (m.value() == null ? "null" : new String(m.value(), StandardCharsets.UTF_8))).toList();
    }

    @Test
    void upsertByKeyWritesTheNewRowOrATombstoneInKeyOrder() {
        SinkEnvelope e = new SinkEnvelope("s", SinkEnvelope.Kind.UPSERT, NAMES, TYPES, new int[] {0});
        assertThat(text(e.encode(5, List.of(change(2, "b", 1, -1), change(1, "a\"q", 1, -1), change(1, "a\"q", 2, 1), change(3, null, 7, 1)))))
                .containsExactly("{\"k\":1} -> {\"k\":1,\"name\":\"a\\\"q\",\"n\":2}", "{\"k\":2} -> null", "{\"k\":3} -> {\"k\":3,\"name\":null,\"n\":7}");
    }

    @Test
    void debeziumPairsARetractionAndAnInsertionOfAKey() {
        SinkEnvelope e = new SinkEnvelope("s", SinkEnvelope.Kind.DEBEZIUM, NAMES, TYPES, new int[] {0});
        assertThat(text(e.encode(5, List.of(change(1, "a", 1, -1), change(1, "a", 2, 1), change(2, "b", 1, -1)))))
                .containsExactly("{\"k\":1} -> {\"before\":{\"k\":1,\"name\":\"a\",\"n\":1},\"after\":{\"k\":1,\"name\":\"a\",\"n\":2}}",
                        "{\"k\":2} -> {\"before\":{\"k\":2,\"name\":\"b\",\"n\":1},\"after\":null}");
    }

    @Test
    void withoutAKeyTheWholeRowIsTheKey() {
        SinkEnvelope up = new SinkEnvelope("s", SinkEnvelope.Kind.UPSERT, NAMES, TYPES, new int[0]);
        assertThat(text(up.encode(5, List.of(change(1, "a", 1, -1), change(1, "a", 2, 3)))))
                .containsExactly("{\"k\":1,\"name\":\"a\",\"n\":1} -> null", "{\"k\":1,\"name\":\"a\",\"n\":2} -> {\"k\":1,\"name\":\"a\",\"n\":2}");
        // DEBEZIUM writes each of a row's copies
        SinkEnvelope deb = new SinkEnvelope("s", SinkEnvelope.Kind.DEBEZIUM, NAMES, TYPES, new int[0]);
        assertThat(deb.encode(5, List.of(change(1, "a", 2, 3)))).hasSize(3);
    }

    @Test
    void aKeyHoldingTwoRowsIsAnError() {
        SinkEnvelope e = new SinkEnvelope("s", SinkEnvelope.Kind.UPSERT, NAMES, TYPES, new int[] {0});
        assertThatThrownBy(() -> e.encode(5, List.of(change(1, "a", 1, 1), change(1, "b", 1, 1))))
                .isInstanceOf(SqlException.class).hasMessageContaining("key {\"k\":1} holds 2 rows at time 5")
                .extracting(x -> ((SqlException) x).sqlState()).isEqualTo("21000");
    }
}
