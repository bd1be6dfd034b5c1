package dev.tributary.sql.render;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.arrangements.BytesColumn;
import dev.tributary.sql.expr.ScalarExpr;
import dev.tributary.sql.plan.Plan;
import dev.tributary.sql.row.Row;
import dev.tributary.sql.row.RowCodec;
import dev.tributary.sql.row.RowDataType;
import dev.tributary.sql.types.SqlType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@code IS [NOT] NULL} of input columns is tested on the row's tag bytes: a chain of such
 * filters and picked columns (a join's {@code key IS NOT NULL}) runs column to column, and every
 * chain keeps exactly the rows, and makes exactly the output, that evaluating it value by value
 * does, whether the test leads the chain or follows a computed column.
 */
class MapFilterProjectTest {
    private static final List<SqlType> TYPES = List.of(SqlType.INTEGER, SqlType.TEXT, SqlType.BIGINT);
    private static final RowCodec CODEC = new RowCodec(TYPES);
    private static final Plan.Get INPUT = new Plan.Get(1, "t", TYPES);

    private static ScalarExpr isNull(int column, boolean negated) {
        return new ScalarExpr.IsNull(new ScalarExpr.ColumnRef(column, TYPES.get(column)), negated);
    }

    @Test
    void nullTestsOnTagBytesKeepWhatEvaluationKeeps() {
        // a0 IS NOT NULL AND a2 IS NULL, then (a2, a1): bytes only
        Plan picked = new Plan.Project(new Plan.Filter(INPUT, List.of(isNull(0, true), isNull(2, false))), List.of(2, 1));
        MapFilterProject bytes = MapFilterProject.of(List.of(((Plan.Project) picked).input(), picked), TYPES);
        assertThat(bytes.picksBytes()).isTrue();
        // the same tests after a computed column: evaluated on values, the rows kept the same
        Plan computed = new Plan.Map(INPUT, List.of(new ScalarExpr.Literal(7L, SqlType.INTEGER)));
        Plan filtered = new Plan.Filter(computed, List.of(isNull(0, true), isNull(2, false)));
        Plan projected = new Plan.Project(filtered, List.of(2, 1));
        MapFilterProject values = MapFilterProject.of(List.of(computed, filtered, projected), TYPES);
        assertThat(values.picksBytes()).isFalse();

        SplittableRandom random = new SplittableRandom(23);
        BytesColumn in = new BytesColumn();
        List<Object[]> rows = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            Object[] r = {random.nextInt(3) == 0 ? null : (long) random.nextInt(100), random.nextInt(4) == 0 ? null : "s" + i,
                    random.nextInt(2) == 0 ? null : (long) i};
            rows.add(r);
            RowDataType.INSTANCE.append(in, CODEC.encode(r));
        }
        RowCodec outCodec = RowCodec.of(SqlType.BIGINT, SqlType.TEXT);
        BytesColumn out = new BytesColumn();
        List<Row> expected = new ArrayList<>();
        for (int i = 0; i < rows.size(); i++) {
            Object[] r = rows.get(i);
            Row row = RowDataType.INSTANCE.get(in, i);
            boolean keep = r[0] != null && r[2] == null;
            Row want = keep ? outCodec.encode(r[2], r[1]) : null;
            if (keep) expected.add(want);
            assertThat(bytes.apply(row)).as("row %s", Arrays.toString(r)).isEqualTo(want);
            assertThat(values.apply(row)).as("row %s", Arrays.toString(r)).isEqualTo(want);
            assertThat(bytes.applyInto(in, i, out)).isEqualTo(keep);
        }
        assertThat(expected).isNotEmpty();
        assertThat(out.size()).isEqualTo(expected.size());
        for (int i = 0; i < expected.size(); i++) assertThat(RowDataType.INSTANCE.get(out, i)).isEqualTo(expected.get(i));
    }
}
