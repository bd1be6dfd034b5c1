package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.ast.Statement.CopyHeader;
import dev.tributary.sql.ast.Statement.CopyOptions;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * COPY's text and CSV formats: escapes, quoting, NULLs and line ends as PostgreSQL reads them; the
 * same records whatever the chunks the data arrives in; and what the writer writes reads back.
 */
class CopyTextTest {
    private static final CopyOptions CSV = new CopyOptions(true, ',', "", CopyHeader.NONE, '"', '"');

    /** The records of {@code data} fed in chunks cut at {@code cuts}. */
    private static List<List<String>> read(CopyOptions o, String data, int... cuts) {
        List<List<String>> out = new ArrayList<>();
        CopyText.Reader r = new CopyText.Reader("t", o, (line, text, fields) -> out.add(fields.strings()));
        byte[] b = data.getBytes(StandardCharsets.UTF_8);
        int from = 0;
        for (int cut : cuts) {
            r.feed(Arrays.copyOfRange(b, from, cut), 0, cut - from);
            from = cut;
        }
        r.feed(Arrays.copyOfRange(b, from, b.length), 0, b.length - from);
        r.finish();
        return out;
    }

    @Test
    void textFormatEscapesAndNulls() {
        assertThat(read(CopyOptions.TEXT, "a\\tb\t\\N\t\\\\N\t\\101\\x42\\q\r\nlast\t\t\\.x"))
                .containsExactly(Arrays.asList("a\tb", null, "\\N", "ABq"), Arrays.asList("last", "", ".x"));
        // \. alone ends the data; what follows is not read
        assertThat(read(CopyOptions.TEXT, "1\n\\.\n2\n")).containsExactly(List.of("1"));
        // octal and hex escapes make bytes, so a UTF-8 character may be spelled with them
        assertThat(read(CopyOptions.TEXT, "\\303\\251\\xc3\\xa9\n")).containsExactly(List.of("éé"));
        assertThatThrownBy(() -> read(CopyOptions.TEXT, "\\377\n")).isInstanceOfSatisfying(SqlException.class,
                e -> assertThat(e.sqlState()).isEqualTo("22021"));
    }

    @Test
    void csvQuotingAsPostgres() {
        assertThat(read(CSV, "1,\"a,b\",\"\",,\"x\"\"y\"\n\"multi\nline\",end\n"))
                .containsExactly(Arrays.asList("1", "a,b", "", null, "x\"y"), List.of("multi\nline", "end"));
        CopyOptions backslash = new CopyOptions(true, ',', "NULL", CopyHeader.NONE, '"', '\\');
        assertThat(read(backslash, "\"a\\\"b\",NULL,\"NULL\"\n")).containsExactly(Arrays.asList("a\"b", null, "NULL"));
        assertThatThrownBy(() -> read(CSV, "1,\"open\n")).isInstanceOfSatisfying(SqlException.class, e -> {
            assertThat(e.sqlState()).isEqualTo("22P04");
            assertThat(e.getMessage()).isEqualTo("unterminated CSV quoted field");
        });
    }

    /** Bytes that are not UTF-8 are refused in any field, unquoted (read in place) or quoted, and the error names the line. */
    @Test
    void csvFieldsMustBeUtf8() {
        for (byte[] bad : List.of(new byte[] {'1', ',', 'a', (byte) 0xff, '\n'}, new byte[] {'1', ',', '"', (byte) 0xc3, '"', '\n'})) {
            CopyText.Reader r = new CopyText.Reader("t", CSV, (line, text, fields) -> {});
            r.feed("0,ok\n".getBytes(StandardCharsets.UTF_8), 0, 5);
            assertThatThrownBy(() -> r.feed(bad, 0, bad.length)).isInstanceOfSatisfying(SqlException.class, e -> {
                assertThat(e.sqlState()).isEqualTo("22021");
                assertThat(e.context()).isEqualTo("COPY t, line 2");
            });
        }
    }

    /**
     * A bad byte after a long run of ASCII is found wherever it is: the check reads eight bytes
     * at a time, so the bad one is put at every offset past the first word and at each modulo
     * 8, in the first field or a later one, unquoted (read in the line) or quoted (copied); the
     * error is the byte-by-byte check's, naming the first byte beyond ASCII and the next one of
     * its field. A valid character there is read as it is.
     */
    @Test
    void badUtf8AfterLongAsciiIsRefusedAtEveryOffset() {
        record Bad(byte[] bytes, String hex) {}
        List<Bad> bads = List.of(new Bad(new byte[] {(byte) 0xff}, "0xff 0x62"), new Bad(new byte[] {(byte) 0xc3, 'z'}, "0xc3 0x7a"),
                new Bad(new byte[] {(byte) 0xe2, (byte) 0x82}, "0xe2 0x82"), new Bad(new byte[] {(byte) 0x80}, "0x80 0x62"), new Bad(new byte[] {0}, "0x00"));
        String tail = "bbbbbbbbbbbbbbbbbbbbb";
        for (Bad bad : bads) {
            for (int offset = 0; offset < 40; offset++) {
                for (String[] around : new String[][] {{"", ""}, {"12,", ",x"}, {"12,\"", "\",x"}}) {
                    byte[] head = (around[0] + "a".repeat(offset)).getBytes(StandardCharsets.US_ASCII);
                    byte[] rest = (tail + around[1] + "\n").getBytes(StandardCharsets.US_ASCII);
                    byte[] line = new byte[head.length + bad.bytes().length + rest.length];
                    System.arraycopy(head, 0, line, 0, head.length);
                    System.arraycopy(bad.bytes(), 0, line, head.length, bad.bytes().length);
                    System.arraycopy(rest, 0, line, head.length + bad.bytes().length, rest.length);
                    byte[] data = concat("0,ok\n".getBytes(StandardCharsets.US_ASCII), line);
                    CopyText.Reader r = new CopyText.Reader("t", CSV, (n, text, fields) -> {});
                    assertThatThrownBy(() -> r.feed(data, 0, data.length)).as("%s at %d in %s...%s", bad.hex(), offset, around[0], around[1])
                            .isInstanceOfSatisfying(SqlException.class, e -> {
                                assertThat(e.sqlState()).isEqualTo("22021");
                                assertThat(e.getMessage()).isEqualTo("invalid byte sequence for encoding \"UTF8\": " + bad.hex());
                                assertThat(e.context()).isEqualTo("COPY t, line 2");
                            });
                }
            }
        }
        for (int offset = 0; offset < 20; offset++) {
            String field = "a".repeat(offset) + "é€" + tail;
            assertThat(read(CSV, "1," + field + ",x\n")).containsExactly(List.of("1", field, "x"));
        }
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    /** NUL is valid UTF-8 but no text holds it: raw or escaped (\\000), text or CSV, it is 22021 naming the line, as in PostgreSQL. */
    @Test
    void aNulInAFieldIsRefused() {
        List<Object[]> cases = List.of(new Object[] {CopyOptions.TEXT, new byte[] {'a', 0, 'b', '\n'}}, new Object[] {CopyOptions.TEXT, "a\\000b\n".getBytes(StandardCharsets.UTF_8)},
                new Object[] {CSV, new byte[] {'1', ',', 'x', 0, '\n'}}, new Object[] {CSV, new byte[] {'1', ',', '"', 0, '"', '\n'}});
        for (Object[] c : cases) {
            byte[] bad = (byte[]) c[1];
            CopyText.Reader r = new CopyText.Reader("t", (CopyOptions) c[0], (line, text, fields) -> {});
            assertThatThrownBy(() -> r.feed(bad, 0, bad.length)).isInstanceOfSatisfying(SqlException.class, e -> {
                assertThat(e.sqlState()).isEqualTo("22021");
                assertThat(e.getMessage()).contains("0x00");
                assertThat(e.context()).isEqualTo("COPY t, line 1");
            });
        }
    }

    @Test
    void chunksCutAnywhereGiveTheSameRecords() {
        String text = "a\\tb\t\\N\t\\101\r\né\t\\\\\n\\.\n";
        String csv = "1,\"a,\"\"b\"\"\nc\",é\r\n2,,\"\"\n";
        for (var c : List.of(new Object[] {CopyOptions.TEXT, text}, new Object[] {CSV, csv})) {
            CopyOptions o = (CopyOptions) c[0];
            String data = (String) c[1];
            List<List<String>> whole = read(o, data);
            int n = data.getBytes(StandardCharsets.UTF_8).length;
            for (int i = 0; i <= n; i++) {
                for (int j = i; j <= n; j++) assertThat(read(o, data, i, j)).as("cut at %d and %d", i, j).isEqualTo(whole);
            }
        }
    }

    /**
     * Random rows with long fields full of delimiters, quotes, escapes and newlines, written and
     * read back through chunks cut at random: the reader finds each special byte eight bytes at
     * a time, so they fall at every offset of a word, in a line read in place or one carried over
     * from the last chunk.
     */
    @Test
    void randomRowsWithLongFieldsReadBack() {
        java.util.SplittableRandom r = new java.util.SplittableRandom(2024);
        String alphabet = "abcdefgh,,\"\"\\\\\n\r\t éN.0";
        CopyOptions backslash = new CopyOptions(true, ',', "", CopyHeader.NONE, '"', '\\');
        for (CopyOptions o : List.of(CopyOptions.TEXT, CSV, backslash)) {
            for (int round = 0; round < 300; round++) {
                List<List<String>> rows = new ArrayList<>();
                StringBuilder data = new StringBuilder();
                for (int n = r.nextInt(1, 5); n > 0; n--) {
                    List<String> row = new ArrayList<>();
                    for (int f = r.nextInt(1, 5); f > 0; f--) {
                        if (r.nextInt(8) == 0) {
                            row.add(null);
                            continue;
                        }
                        StringBuilder field = new StringBuilder();
                        for (int k = r.nextInt(r.nextBoolean() ? 40 : 4); k > 0; k--) field.append(alphabet.charAt(r.nextInt(alphabet.length())));
                        row.add(field.toString());
                    }
                    rows.add(row);
                    data.append(new CopyText.Writer(o).line(row));
                }
                int length = data.toString().getBytes(StandardCharsets.UTF_8).length;
                int a = r.nextInt(length + 1), b = r.nextInt(a, length + 1);
                assertThat(read(o, data.toString(), a, b)).as("%s cut at %d and %d", data, a, b).isEqualTo(rows);
            }
        }
    }

    @Test
    void writtenLinesReadBack() {
        List<String> row = Arrays.asList("tab\there", null, "", "back\\slash", "new\nline", "comma,\"quote\"", "\\.");
        for (CopyOptions o : List.of(CopyOptions.TEXT, CSV)) {
            String line = new CopyText.Writer(o).line(row);
            assertThat(read(o, line)).as("%s", line).containsExactly(row);
        }
        assertThat(new CopyText.Writer(CopyOptions.TEXT).line(Arrays.asList("a\tb", null))).isEqualTo("a\\tb\t\\N\n");
        assertThat(new CopyText.Writer(CSV).line(Arrays.asList("a\"b", null, ""))).isEqualTo("\"a\"\"b\",,\"\"\n");
    }
}
