package dev.tributary.server.protobuf;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Descriptors.Descriptor;
import dev.tributary.sql.catalog.Column;
import dev.tributary.sql.types.Bytea;
import dev.tributary.sql.types.Jsonb;
import dev.tributary.sql.types.SqlType;
import dev.tributary.sql.types.Values;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Any row of shop.Order's columns (every field its own SQL type, NULL where the field has
 * presence) that a sink writes as a message, a source reads back equal: the two directions of
 * {@link ProtobufRows} agree. A row's fields without presence are never NULL here: a sink writes
 * NULL as the default, which reads back as the default, not as NULL.
 */
class ProtobufRoundTripPropertyTest {
    private static final Descriptor ORDER = OrderSchema.orderDescriptor();
    private static final List<Column> COLUMNS = ProtobufRows.columnsOf(ORDER);
    private static final ProtobufRows SOURCE = ProtobufRows.forSource(ORDER, COLUMNS, 0);
    private static final ProtobufRows SINK = ProtobufRows.forSink(ORDER, COLUMNS.stream().map(Column::name).toList(), COLUMNS.stream().map(Column::type).toList(), 0);

    @Property(seed = "2929", tries = 500)
    void aRowWrittenAsAMessageReadsBackEqual(@ForAll("rows") Object[] row) throws Exception {
        byte[] message = SINK.encode(row);
        Object[] back = SOURCE.decode(message, 0, message.length);
        for (int i = 0; i < row.length; i++) {
            SqlType t = COLUMNS.get(i).type();
            assertThat(back[i] == null ? null : Values.toText(back[i], t)).as(COLUMNS.get(i).name()).isEqualTo(row[i] == null ? null : Values.toText(row[i], t));
        }
    }

    @Provide
    Arbitrary<Object[]> rows() {
        Arbitrary<Long> i32 = Arbitraries.integers().map(Integer::longValue);
        Arbitrary<Long> i64 = Arbitraries.longs();
        Arbitrary<Long> u32 = Arbitraries.longs().between(0, 0xFFFF_FFFFL);
        Arbitrary<BigDecimal> u64 = Arbitraries.bigIntegers().between(BigInteger.ZERO, BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE)).map(BigDecimal::new);
        // real values are floats (a double of one), as a real column holds them
        Arbitrary<Double> real = Arbitraries.floats().map(f -> (double) f);
        Arbitrary<Double> dbl = Arbitraries.doubles();
        Arbitrary<String> text = Arbitraries.strings().ofMaxLength(12).filter(s -> s.chars().noneMatch(c -> Character.isSurrogate((char) c)));
        Arbitrary<Bytea> bytes = Arbitraries.bytes().array(byte[].class).ofMaxSize(8).map(Bytea::copyOf);
        Arbitrary<String> status = Arbitraries.of("NEW", "PAID", "SHIPPED", "7");
        // a nested message's JSON: fields at their defaults are left out, as reading leaves them
        Arbitrary<Jsonb> item = Combinators.combine(Arbitraries.strings().alpha().ofMaxLength(4), Arbitraries.integers().between(-3, 3)).as((sku, qty) -> {
            List<String> keys = new ArrayList<>();
            List<Jsonb> values = new ArrayList<>();
            if (!sku.isEmpty()) {
                keys.add("sku");
                values.add(new Jsonb.Str(sku));
            }
            if (qty != 0) {
                keys.add("qty");
                values.add(new Jsonb.Num(BigDecimal.valueOf(qty)));
            }
            return (Jsonb) Jsonb.Obj.of(keys, values);
        }).injectNull(0.2);
        Arbitrary<Jsonb> tags = Arbitraries.longs().list().ofMaxSize(4).map(l -> new Jsonb.Arr(l.stream().map(x -> (Jsonb) new Jsonb.Str(Long.toString(x))).toList()));
        Arbitrary<Jsonb> counts = Arbitraries.maps(Arbitraries.strings().alpha().ofMaxLength(3), Arbitraries.integers()).ofMaxSize(3)
                .map(m -> Jsonb.Obj.of(new ArrayList<>(m.keySet()), m.values().stream().map(v -> (Jsonb) new Jsonb.Num(BigDecimal.valueOf(v))).toList()));
        // microseconds, within google.protobuf.Timestamp's years 1 to 9999
        Arbitrary<Instant> at = Arbitraries.longs().between(-62_135_596_800_000_000L, 253_402_300_799_999_999L)
                .map(us -> Instant.ofEpochSecond(Math.floorDiv(us, 1_000_000L), Math.floorMod(us, 1_000_000L) * 1_000L)).injectNull(0.2);
        List<Arbitrary<Object>> columns = List.<Arbitrary<?>>of(i32, i32, i32, i64, i64, i64, u32, u32, u64, u64, real, dbl, Arbitraries.of(true, false), text, bytes,
                status, item, tags, counts, at, text.injectNull(0.3)).stream().map(a -> a.map(v -> (Object) v)).toList();
        return Combinators.combine(columns).as(values -> values.toArray());
    }
}
