package dev.tributary.sql.types;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.tributary.sql.SqlException;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Array text in and out, with PostgreSQL 15's answers (psql) as the expected values. */
class ArrayLiteralTest {
    private static final SqlType INTS = SqlType.array(SqlType.INTEGER);
    private static final SqlType TEXTS = SqlType.array(SqlType.TEXT);

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "{{1,2},{3,4}}|{{1,2},{3,4}}",
            "' { { 1 , 2 } } '|{{1,2}}",
            "{  {1,2} ,{3,4}}|{{1,2},{3,4}}",
            "{{{1}}}|{{{1}}}",
            "[0:1]={1,2}|[0:1]={1,2}",
            "[0:1] = {1,2}|[0:1]={1,2}",
            "[1]={5}|{5}",
            "[-2:-1]={1,2}|[-2:-1]={1,2}",
            "[1:2][1:1]={{1},{2}}|{{1},{2}}",
            "[1:2][3:4]={{1,2},{3,4}}|[1:2][3:4]={{1,2},{3,4}}",
            "{ }|{}",
            "{{NULL,2}}|{{NULL,2}}",
    })
    void integerArraysReadAndPrintAsPostgresqlDoes(String in, String out) {
        assertThat(Values.toText(Values.fromText(in, INTS), INTS)).isEqualTo(out);
    }

    @Test
    void textElementsAreQuotedWhereNeededAtEveryDepth() {
        assertThat(Values.toText(Values.fromText("{{\"a b\",NULL},{\"c\",d}}", TEXTS), TEXTS)).isEqualTo("{{\"a b\",NULL},{c,d}}");
        assertThat(Values.toText(Values.fromText("{{\"}\",\"\"},{\\,,x\\ }}", TEXTS), TEXTS)).isEqualTo("{{\"}\",\"\"},{\",\",\"x \"}}");
        assertThat(Values.toText(Values.fromText("{a b , \"NULL\", null}", TEXTS), TEXTS)).isEqualTo("{\"a b\",\"NULL\",NULL}");
    }

    @Test
    void theShapeIsKeptOnlyWhenItIsNotTheDefault() {
        assertThat(Values.fromText("{1,2}", INTS)).isNotInstanceOf(ShapedArray.class).isEqualTo(List.of(1L, 2L));
        assertThat(Values.fromText("[1:2]={1,2}", INTS)).isNotInstanceOf(ShapedArray.class);
        @SuppressWarnings("unchecked")
        List<Object> a = (List<Object>) Values.fromText("[0:1][2:4]={{1,2,3},{4,5,6}}", INTS);
        assertThat(a).isInstanceOf(ShapedArray.class).containsExactly(1L, 2L, 3L, 4L, 5L, 6L);
        assertThat(ShapedArray.lengths(a)).containsExactly(2, 3);
        assertThat(ShapedArray.lowers(a)).containsExactly(0, 2);
        assertThat(ShapedArray.boundsText(a)).isEqualTo("[0:1][2:4]");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "{1,{2}}|22P02|Unexpected \"{\" character.",
            "{{1},2}|22P02|Unexpected array element.",
            "{{1},{2}|22P02|Unexpected end of input.",
            "{{1},{2}}x|22P02|Junk after closing right brace.",
            "[1:2]{1,2}|22P02|Missing \"=\" after array dimensions.",
            "[1:2]=1|22P02|Array contents must start with \"{\".",
            "[1:1]={}|22P02|Specified array dimensions do not match array contents.",
            "[1:2]={{1},{2}}|22P02|Specified array dimensions do not match array contents.",
            "[ 0 : 1 ]={1,2}|22P02|\"[\" must introduce explicitly-specified array dimensions.",
            "[1:2|22P02|Missing \"]\" after array dimensions.",
            "{a\"b}|22P02|Unexpected array element.",
            "{1,,2}|22P02|Unexpected \",\" character.",
            "{{}}|22P02|Unexpected \"}\" character.",
            "{{1,2},{3}}|22P02|Multidimensional arrays must have sub-arrays with matching dimensions.",
            "1,2|22P02|Array value must start with \"{\" or dimension information.",
            "[2:1]={}|2202E|",
            "{{{{{{{1}}}}}}}|54000|",
    })
    void malformedArraysAreRefusedWithPostgresqlsDetail(String in, String state, String detail) {
        SqlException e = catchThrowableOfType(SqlException.class, () -> Values.fromText(in, INTS));
        assertThat(e).as(in).isNotNull();
        assertThat(e.sqlState()).as(in).isEqualTo(state);
        if (detail != null) assertThat(e.detail()).as(in).isEqualTo(detail);
    }
}
