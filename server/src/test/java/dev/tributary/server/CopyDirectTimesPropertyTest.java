package dev.tributary.server;

import static dev.tributary.server.SqlRows.rows;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.ast.Statement;
import dev.tributary.sql.parser.Parser;
import java.nio.charset.StandardCharsets;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * A COPY of every column encodes DATE, TIMESTAMP and TIMESTAMPTZ fields straight from their
 * bytes when they are in PostgreSQL's own form ({@code CopyIn.encodeDirectly}, through
 * {@code IsoTimes}); any other text goes through {@code Values.fromText}, the reference. A COPY
 * naming a subset of the columns never takes the direct path, so the same lines COPYed into a
 * table of each kind must store the same values, or both COPYs must refuse them with the same
 * error (SQLSTATE, message, and context but for the table's name).
 *
 * <p>The texts are mostly near the fast form: years near 0001 and 9999, leap days, days and
 * hours just out of range ({@code 2015-02-30}, {@code 24:00:00}), 0 to 8 fraction digits,
 * offsets of every shape, blanks and signs around, BC, {@code infinity}.
 */
class CopyDirectTimesPropertyTest {
    private static final List<String> TYPES = List.of("timestamp", "timestamptz", "date");
    private static Tributary db;
    private static Tributary.Connection session;

    @BeforeContainer
    static void open() {
        db = Tributary.inMemory(Clock.manual(1_000), 1);
        session = db.session();
        for (int t = 0; t < TYPES.size(); t++) {
            db.execute("CREATE TABLE direct_" + t + " (v " + TYPES.get(t) + ")");
            db.execute("CREATE TABLE general_" + t + " (k int, v " + TYPES.get(t) + ")");
        }
    }

    @AfterContainer
    static void close() {
        session.close();
        db.close();
    }

    /** Lines of one field each, for the table of type {@code TYPES.get(type)}. */
    record Lines(int type, List<String> texts) {}

    @Property(seed = "4117", tries = 300, edgeCases = EdgeCasesMode.NONE)
    void theDirectPathStoresWhatTheGeneralPathStores(@ForAll("lines") Lines lines) {
        int type = lines.type();
        StringBuilder csv = new StringBuilder();
        for (String t : lines.texts()) csv.append(t).append('\n');
        byte[] data = csv.toString().getBytes(StandardCharsets.UTF_8);
        String direct = copy("COPY direct_" + type + " FROM STDIN WITH (FORMAT csv)", data);
        String general = copy("COPY general_" + type + " (v) FROM STDIN WITH (FORMAT csv)", data);
        assertThat(direct.replace("direct_", "general_")).as("%s", lines).isEqualTo(general);
        if (direct.startsWith("COPY ")) {
            assertThat(rows(db, "SELECT v FROM direct_" + type)).as("%s", lines).isEqualTo(rows(db, "SELECT v FROM general_" + type));
        }
        db.execute("DELETE FROM direct_" + type);
        db.execute("DELETE FROM general_" + type);
    }

    /** The COPY's tag, or its error as SQLSTATE, message and context. */
    private static String copy(String sql, byte[] data) {
        CopyIn in = session.copyIn((Statement.Copy) Parser.parseStatement(sql));
        in.data(data);
        try {
            return in.finish().tag();
        } catch (SqlException e) {
            return e.sqlState() + " " + e.getMessage() + " / " + e.context();
        }
    }

    /** One to three lines (a COPY stops at the first bad one) of a type's fields, mostly near its fast form. */
    @Provide
    Arbitrary<Lines> lines() {
        return Arbitraries.integers().between(0, TYPES.size() - 1).flatMap(type -> Arbitraries.frequencyOf(
                        Tuple.of(12, type == 2 ? dates() : timestamps(type == 1)),
                        Tuple.of(1, Arbitraries.of("", "infinity", "-infinity", "epoch", " 2015-07-15 00:00:00", "2015-07-15 00:00:00 ", "2015-07-15",
                                "2015-07-15T00:00:00", "20150715", "2015-07-15 00:00", "2015-07-15 00:00:00 BC", "0001-01-01 00:00:00 BC", "x",
                                "2015-07-15 00:00:00.", "2015-07-15 00:00:00.5.", "1/2/2015", "2015-07-15 00:00:00 UTC", "2015-07-15 BC", " 2015-07-15")))
                .list().ofMinSize(1).ofMaxSize(3).map(texts -> new Lines(type, texts)));
    }

    /** A number of two digits, now and then one past the field's greatest. */
    private static Arbitrary<String> two(int least, int greatest) {
        return Arbitraries.frequencyOf(Tuple.of(15, Arbitraries.integers().between(least, greatest)), Tuple.of(1, Arbitraries.of(least - 1, greatest + 1)))
                .map(v -> String.format("%02d", v));
    }

    private static Arbitrary<String> years() {
        return Arbitraries.frequencyOf(
                Tuple.of(6, Arbitraries.integers().between(1900, 2100)),
                Tuple.of(2, Arbitraries.integers().between(0, 4)),
                Tuple.of(2, Arbitraries.integers().between(9996, 10_001)),
                Tuple.of(1, Arbitraries.of(1600, 1700, 1900, 2000, 2100, 2400)))
                .map(y -> y < 10_000 ? String.format("%04d", y) : Integer.toString(y));
    }

    private static Arbitrary<String> dates() {
        return Combinators.combine(before(), plainDates(), after()).as((b, d, a) -> b + d + a);
    }

    /** {@code YYYY-MM-DD}, some of them not a date. */
    private static Arbitrary<String> plainDates() {
        Arbitrary<String> day = Arbitraries.frequencyOf(Tuple.of(6, two(1, 28)), Tuple.of(2, two(29, 31)));
        Arbitrary<String> plain = Combinators.combine(years(), two(1, 12), day).as((y, m, d) -> y + "-" + m + "-" + d);
        // leap days of leap and common years, the commonest trap
        Arbitrary<String> leap = years().map(y -> y + "-02-29");
        return Arbitraries.frequencyOf(Tuple.of(4, plain), Tuple.of(1, leap));
    }

    private static Arbitrary<String> timestamps(boolean zoned) {
        Arbitrary<String> fraction = Arbitraries.frequencyOf(
                Tuple.of(2, Arbitraries.just("")),
                Tuple.of(8, Arbitraries.strings().numeric().ofMinLength(1).ofMaxLength(6).map(f -> "." + f)),
                Tuple.of(1, Arbitraries.strings().numeric().ofMinLength(7).ofMaxLength(8).map(f -> "." + f)),
                Tuple.of(1, Arbitraries.of(".", ".999999", ".9999995", ".0000005", ".000000")));
        Arbitrary<String> time = Combinators.combine(two(0, 23), two(0, 59), two(0, 59), fraction).as((h, m, s, f) -> h + ":" + m + ":" + s + f);
        Arbitrary<String> offset = Arbitraries.frequencyOf(
                Tuple.of(zoned ? 4 : 12, Arbitraries.just("")),
                Tuple.of(4, Arbitraries.of("Z", "+00", "-00", "+05:30", "-08", "+14:00", "-15:59", "+15:59")),
                Tuple.of(1, Arbitraries.of("+16", "-16:00", "+05:60", "+5", "+05:3", "+0530", "+05:30:00", "z", "Zulu", "+05:", " +05", " UTC", " BC",
                        " AD", "x")));
        Arbitrary<String> separator = Arbitraries.frequencyOf(Tuple.of(8, Arbitraries.just(" ")), Tuple.of(2, Arbitraries.just("T")), Tuple.of(1, Arbitraries.of("  ", "t", "")));
        return Combinators.combine(before(), plainDates(), separator, time, offset, after()).as((b, d, sep, t, off, a) -> b + d + sep + t + off + a);
    }

    /** Mostly nothing; now and then a blank or a sign. */
    private static Arbitrary<String> before() {
        return Arbitraries.frequencyOf(Tuple.of(15, Arbitraries.just("")), Tuple.of(1, Arbitraries.of(" ", "+", "-", "  ")));
    }

    /** Mostly nothing; now and then a blank. */
    private static Arbitrary<String> after() {
        return Arbitraries.frequencyOf(Tuple.of(15, Arbitraries.just("")), Tuple.of(1, Arbitraries.of(" ", "  ")));
    }
}
