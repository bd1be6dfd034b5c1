package dev.tributary.sql.types;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.row.RowCodec;
import java.util.List;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/**
 * jsonb values: printing and reading back is the identity, the order is a total order that agrees
 * with equals and hashCode and with an independent model of PostgreSQL's, and a row holds a
 * document unchanged.
 */
class JsonbPropertiesTest {
    @Provide
    Arbitrary<Jsonb> documents() {
        return JsonbDocuments.documents();
    }

    @Property
    void printThenParseIsTheIdentity(@ForAll("documents") Jsonb j) {
        Jsonb back = Jsonb.parse(j.toString());
        assertThat(back).isEqualTo(j);
        // the scale of each number survives too
        assertThat(back.toString()).isEqualTo(j.toString());
        assertThat(Jsonb.parse(Jsonb.pretty(j))).isEqualTo(j);
    }

    @Property
    void orderIsTotalAndAgreesWithEqualsAndTheModel(@ForAll("documents") Jsonb a, @ForAll("documents") Jsonb b, @ForAll("documents") Jsonb c) {
        int ab = a.compareTo(b);
        assertThat(Integer.signum(ab)).isEqualTo(-Integer.signum(b.compareTo(a)));
        assertThat(ab == 0).isEqualTo(a.equals(b));
        if (ab == 0) assertThat(a.hashCode()).isEqualTo(b.hashCode());
        assertThat(Integer.signum(ab)).isEqualTo(Integer.signum(JsonbDocuments.modelCompare(a, b, false)));
        if (ab <= 0 && b.compareTo(c) <= 0) assertThat(a.compareTo(c)).isLessThanOrEqualTo(0);
        assertThat(a.keyForm()).isEqualTo(a);
    }

    @Property
    void aRowHoldsADocumentUnchanged(@ForAll("documents") Jsonb j) {
        RowCodec codec = RowCodec.of(SqlType.JSONB, SqlType.INTEGER);
        Object[] back = codec.decode(codec.encode(j, 7L));
        assertThat(back[0].toString()).isEqualTo(j.toString());
        assertThat(back[1]).isEqualTo(7L);
    }

    @Test
    void keysAreDeduplicatedLastWinsAndStoredShorterFirst() {
        assertThat(Jsonb.parse("{\"b\":1,\"a\":2,\"aa\":3, \"b\":5}").toString()).isEqualTo("{\"a\": 2, \"b\": 5, \"aa\": 3}");
        assertThat(Jsonb.parse("[1e3, -0, 1.50, 1E-2]").toString()).isEqualTo("[1000, 0, 1.50, 0.01]");
        assertThat(Jsonb.parse("1.0")).isEqualTo(Jsonb.parse("1"));
        assertThat(Jsonb.parse("[]")).isLessThan(Jsonb.parse("null"));
        assertThat(Jsonb.parse("true")).isLessThan(Jsonb.parse("[0]"));
    }

    @Test
    void badInputIsPostgresqlsError() {
        assertThatThrownBy(() -> Jsonb.parse("{\"a\":1,}")).isInstanceOf(SqlException.class)
                .satisfies(e -> {
                    assertThat(((SqlException) e).sqlState()).isEqualTo("22P02");
                    assertThat(((SqlException) e).detail()).isEqualTo("Expected string, but found \"}\".");
                });
        assertThatThrownBy(() -> Jsonb.parse("\"\\u0000\"")).satisfies(e -> assertThat(((SqlException) e).sqlState()).isEqualTo("22P05"));
        assertThat(JsonbOperations.contains(Jsonb.parse("[1, [2, 3]]"), Jsonb.parse("[[3], 1]"))).isTrue();
        assertThat(List.of(Jsonb.parse("{}").typeName(), Jsonb.parse("2").typeName())).containsExactly("object", "number");
    }
}
