package dev.tributary.server.shell;

import static dev.tributary.server.shell.TablePrinter.Align.LEFT;
import static dev.tributary.server.shell.TablePrinter.Align.RIGHT;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.server.shell.TablePrinter.Align;
import dev.tributary.sql.types.SqlType;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Golden output: each expected string is what psql 15.18 printed for the query in the comment,
 * captured byte for byte ({@code psql -X -c ...} with the options shown).
 */
class TablePrinterTest {
    private static final ShellOutput ALIGNED = ShellOutput.DEFAULT;
    private static final ShellOutput UNALIGNED = ShellOutput.DEFAULT.withAligned(false);

    private static String print(ShellOutput options, List<String> columns, List<Align> aligns, String[]... rows) {
        return new TablePrinter(options).format(columns, aligns, Arrays.asList(rows));
    }

    private static String[] row(String... cells) {
        return cells;
    }

    @Test
    void alignedWithNullCell() {
        // select 1 as a, 'hello' as b, null::int as c
        assertThat(print(ALIGNED, List.of("a", "b", "c"), List.of(RIGHT, LEFT, RIGHT), row("1", "hello", null)))
                .isEqualTo(" a |   b   | c \n---+-------+---\n 1 | hello |  \n(1 row)\n\n");
    }

    @Test
    void emptyResultPrintsHeaderRuleAndZeroRows() {
        // select 1 as a where false
        assertThat(print(ALIGNED, List.of("a"), List.of(RIGHT))).isEqualTo(" a \n---\n(0 rows)\n\n");
    }

    @Test
    void singleNumericColumn() {
        // select g as generate_series from generate_series(8, 11) g
        assertThat(print(ALIGNED, List.of("generate_series"), List.of(RIGHT), row("8"), row("9"), row("10"), row("11")))
                .isEqualTo(" generate_series \n-----------------\n               8\n               9\n"
                        + "              10\n              11\n(4 rows)\n\n");
    }

    @Test
    void multiLineCellsMarkContinuationWithPlus() {
        // select E'x\ny' as multi, 12 as n, 'q' as last union all select 'z', 3, E'l1\nl2\nl3'
        assertThat(print(ALIGNED, List.of("multi", "n", "last"), List.of(LEFT, RIGHT, LEFT),
                row("x\ny", "12", "q"), row("z", "3", "l1\nl2\nl3")))
                .isEqualTo(" multi | n  | last \n-------+----+------\n x    +| 12 | q\n y     |    | \n"
                        + " z     |  3 | l1  +\n       |    | l2  +\n       |    | l3\n(2 rows)\n\n");
    }

    @Test
    void emptyStringAndLoneNewline() {
        // select 'a' as x, E'' as y union all select 'bb', E'\n'
        assertThat(print(ALIGNED, List.of("x", "y"), List.of(LEFT, LEFT), row("a", ""), row("bb", "\n")))
                .isEqualTo(" x  | y \n----+---\n a  | \n bb |  +\n    | \n(2 rows)\n\n");
    }

    @Test
    void controlCharactersTabsAndMultiLineHeaders() {
        // select E'\x1b' as esc, E'\x7f' as del, E'ab\tc\td' as t2, 5 as "two<newline>lines"
        assertThat(print(ALIGNED, List.of("esc", "del", "t2", "two\nlines"), List.of(LEFT, LEFT, LEFT, RIGHT),
                row("\u001b", "\u007f", "ab\tc\td", "5")))
                .isEqualTo(" esc  | del  |        t2         |  two +\n      |      |                   | lines \n"
                        + "------+------+-------------------+-------\n \\x1B | \\x7F | ab      c       d |     5\n(1 row)\n\n");
    }

    @Test
    void widthCountsCodePoints() {
        // select 123456 as a, 'é' as longheadername, 1.50::numeric as n
        assertThat(print(ALIGNED, List.of("a", "longheadername", "n"), List.of(RIGHT, LEFT, RIGHT), row("123456", "é", "1.50")))
                .isEqualTo("   a    | longheadername |  n   \n--------+----------------+------\n 123456 | é              | 1.50\n(1 row)\n\n");
    }

    @Test
    void nullStringIsAlignedLikeTheColumn() {
        // psql -P null=(null): select 1 as a, null::text as b union all select null, 'x'
        assertThat(print(ALIGNED.withNullString("(null)"), List.of("a", "b"), List.of(RIGHT, LEFT), row("1", null), row(null, "x")))
                .isEqualTo("   a    |   b    \n--------+--------\n      1 | (null)\n (null) | x\n(2 rows)\n\n");
    }

    @Test
    void tuplesOnlyAligned() {
        // psql -t: select 1 as a, 'hello' as b union all select 22, 'x'
        assertThat(print(ALIGNED.withTuplesOnly(true), List.of("a", "b"), List.of(RIGHT, LEFT), row("1", "hello"), row("22", "x")))
                .isEqualTo("  1 | hello\n 22 | x\n\n");
        // psql -t: select 1 as a where false
        assertThat(print(ALIGNED.withTuplesOnly(true), List.of("a"), List.of(RIGHT))).isEqualTo("\n");
    }

    @Test
    void unaligned() {
        // psql -A: select 1 as a, 'hello' as b union all select 2, null
        assertThat(print(UNALIGNED, List.of("a", "b"), List.of(RIGHT, LEFT), row("1", "hello"), row("2", null)))
                .isEqualTo("a|b\n1|hello\n2|\n(2 rows)\n");
        // psql -A: select 1 as x where false
        assertThat(print(UNALIGNED, List.of("x"), List.of(RIGHT))).isEqualTo("x\n(0 rows)\n");
        // psql -A: select E'x\ny' as m
        assertThat(print(UNALIGNED, List.of("m"), List.of(LEFT), row("x\ny"))).isEqualTo("m\nx\ny\n(1 row)\n");
    }

    @Test
    void unalignedWithSeparatorAndTuplesOnly() {
        // psql -A -F ',': select 1 as a, 'x' as b
        assertThat(print(UNALIGNED.withFieldSeparator(","), List.of("a", "b"), List.of(RIGHT, LEFT), row("1", "x")))
                .isEqualTo("a,b\n1,x\n(1 row)\n");
        // psql -A -t: select 1 as a, 'hello' as b union all select 2, 'x'
        assertThat(print(UNALIGNED.withTuplesOnly(true), List.of("a", "b"), List.of(RIGHT, LEFT), row("1", "hello"), row("2", "x")))
                .isEqualTo("1|hello\n2|x\n");
        // psql -A -t: select 1 as a where false
        assertThat(print(UNALIGNED.withTuplesOnly(true), List.of("a"), List.of(RIGHT))).isEmpty();
    }

    @Test
    void numbersAreRightAligned() {
        assertThat(Align.of(SqlType.INTEGER)).isEqualTo(RIGHT);
        assertThat(Align.of(SqlType.numeric(10, 2))).isEqualTo(RIGHT);
        assertThat(Align.of(SqlType.DOUBLE)).isEqualTo(RIGHT);
        assertThat(Align.of(SqlType.TEXT)).isEqualTo(LEFT);
        assertThat(Align.of(SqlType.BOOLEAN)).isEqualTo(LEFT);
        assertThat(Align.of(SqlType.INTERVAL)).isEqualTo(LEFT);
    }

    @Test
    void printsToAnAppendable() {
        StringBuilder out = new StringBuilder("before\n");
        new TablePrinter(ALIGNED).print(out, List.of("a"), List.of(RIGHT), List.<String[]>of(row("1")));
        assertThat(out).hasToString("before\n a \n---\n 1\n(1 row)\n\n");
    }
}
