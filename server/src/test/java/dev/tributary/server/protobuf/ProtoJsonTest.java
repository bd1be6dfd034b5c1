package dev.tributary.server.protobuf;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.BoolValue;
import com.google.protobuf.Duration;
import com.google.protobuf.Int64Value;
import com.google.protobuf.ListValue;
import com.google.protobuf.Message;
import com.google.protobuf.NullValue;
import com.google.protobuf.Struct;
import com.google.protobuf.Timestamp;
import com.google.protobuf.Value;
import dev.tributary.sql.types.Jsonb;
import org.junit.jupiter.api.Test;

/**
 * The well-known types in proto3's JSON mapping, each written as the mapping says and read back
 * to the same message: Timestamp and Duration as strings (0, 3, 6 or 9 fraction digits), the
 * wrappers as their value, Struct/Value/ListValue as the JSON they stand for.
 */
class ProtoJsonTest {
    private static void writesAndReadsBack(Message m, String json) {
        Jsonb written = ProtoJson.message(m);
        assertThat(written.toString()).isEqualTo(json);
        assertThat(ProtoJson.toMessage(m.getDescriptorForType(), Jsonb.parse(json)).toByteString()).isEqualTo(m.toByteString());
    }

    @Test
    void wellKnownTypesAreTheirJsonForms() {
        writesAndReadsBack(Timestamp.newBuilder().setSeconds(0).build(), "\"1970-01-01T00:00:00Z\"");
        writesAndReadsBack(Timestamp.newBuilder().setSeconds(-1).setNanos(1_000_000).build(), "\"1969-12-31T23:59:59.001Z\"");
        writesAndReadsBack(Timestamp.newBuilder().setSeconds(1).setNanos(1_000).build(), "\"1970-01-01T00:00:01.000001Z\"");
        writesAndReadsBack(Duration.newBuilder().setSeconds(1).setNanos(500_000_000).build(), "\"1.500s\"");
        writesAndReadsBack(Duration.newBuilder().setSeconds(-3).setNanos(-7).build(), "\"-3.000000007s\"");
        writesAndReadsBack(Int64Value.of(-5), "\"-5\"");
        writesAndReadsBack(BoolValue.of(true), "true");
        Struct struct = Struct.newBuilder()
                .putFields("a", Value.newBuilder().setListValue(ListValue.newBuilder()
                        .addValues(Value.newBuilder().setNumberValue(1.5))
                        .addValues(Value.newBuilder().setStringValue("x"))
                        .addValues(Value.newBuilder().setNullValue(NullValue.NULL_VALUE))
                        .addValues(Value.newBuilder().setStructValue(Struct.newBuilder().putFields("b", Value.newBuilder().setBoolValue(true).build())))).build())
                .build();
        writesAndReadsBack(struct, "{\"a\": [1.5, \"x\", null, {\"b\": true}]}");
    }
}
