package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.arrangements.BytesColumn;
import dev.tributary.sql.SqlException;
import dev.tributary.sql.row.RowCodec;
import dev.tributary.sql.types.SqlType;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link KeyRepeats} finds, row by row as they arrive, the first row whose key repeats an earlier
 * one's: the row {@link RowSlab#firstRepeat} finds in the slab of the same keys at the end
 * (random rows, keys from ranges that make repeats rare or common, tables that grow many times);
 * a COPY that repeats a key reports the line that repeats it.
 */
class KeyRepeatsTest {
    @Test
    void theFirstRepeatAsTheRowsArriveIsTheSlabsFirstRepeat() {
        RowCodec codec = new RowCodec(List.of(SqlType.TEXT, SqlType.BIGINT));
        Random r = new Random(21);
        for (int round = 0; round < 60; round++) {
            int n = 1 + r.nextInt(round < 50 ? 3000 : 40_000);
            long range = round % 3 == 0 ? Long.MAX_VALUE : 1 + (long) n * (1 + r.nextInt(50));
            BytesColumn rows = new BytesColumn();
            BytesColumn keys = new BytesColumn();
            KeyRepeats repeats = new KeyRepeats(codec, 1);
            RowCodec.Builder b = codec.builder();
            for (int i = 0; i < n; i++) {
                long key = Math.floorMod(r.nextLong(), range);
                b.reset();
                b.putValue("row " + i);
                b.putValue(key);
                rows.add(b.buffer(), 0, b.length());
                byte[] row = java.util.Arrays.copyOf(b.buffer(), b.length());
                int from = codec.columnStart(row, 0, 1);
                keys.add(row, from, codec.columnEnd(row, from, 1) - from);
                repeats.add(rows, i);
            }
            assertThat(repeats.firstRepeat()).as("round %d: %d rows of keys below %d", round, n, range).isEqualTo(RowSlab.firstRepeat(keys));
            if (repeats.firstRepeat() < 0) assertThat(repeats.added()).isEqualTo(n);
        }
    }

    @Test
    void aCopyThatRepeatsAKeyNamesTheLine() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0), 2)) {
            Tributary.Connection s = db.session();
            s.execute("CREATE TABLE t (name text, id bigint PRIMARY KEY)");
            CopyIn copy = s.copyIn((dev.tributary.sql.ast.Statement.Copy) dev.tributary.sql.parser.Parser.parse("COPY t FROM STDIN").get(0));
            StringBuilder data = new StringBuilder();
            for (int i = 0; i < 12_000; i++) data.append("row ").append(i).append('\t').append(i == 9_000 ? 17 : i).append('\n');
            copy.data(data.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8));
            org.assertj.core.api.Assertions.assertThatThrownBy(copy::finish).isInstanceOfSatisfying(SqlException.class, e -> {
                assertThat(e.sqlState()).isEqualTo("23505");
                assertThat(e.context()).contains("COPY t, line 9001");
            });
            assertThat(db.session().execute("SELECT count(*) FROM t").get(0).text()).containsExactly(List.of("0"));
        }
    }
}
