package dev.tributary.server.slt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.tributary.server.Clock;
import dev.tributary.server.Tributary;
import dev.tributary.sql.SqlException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Bad SQL never crashes the engine: every statement of the corpus, damaged at random (a token
 * dropped, doubled, swapped, or replaced by another of the statement's tokens, a literal or a
 * keyword), either runs or fails with a {@link SqlException} carrying a SQLSTATE, and the
 * database answers correctly afterwards.
 */
class MutatedSqlTest {
    private static final String[] REPLACEMENTS = {"NULL", "'x'", "1.5", "0", "-1", "(", ")", ",", "*", "SELECT", "FROM", "WHERE",
        "GROUP BY", "ORDER BY", "JOIN", "ON", "AND", "NOT", "IN", "EXISTS", "DISTINCT", "LIMIT", "UNION", "CASE", "END", "::text", "/", "||"};

    @Test
    void damagedStatementsFailWithASqlstateOrRun() throws IOException {
        SplittableRandom random = new SplittableRandom(2026);
        List<Path> files;
        try (Stream<Path> s = Files.list(Path.of("src/test/resources/slt"))) {
            files = s.filter(p -> p.toString().endsWith(".slt")).sorted().toList();
        }
        assertThat(files).isNotEmpty();
        int ran = 0;
        int failed = 0;
        for (Path file : files) {
            try (Tributary db = Tributary.inMemory(Clock.manual(0))) {
                for (SltRecord r : SltParser.parse(Files.readString(file))) {
                    String sql = switch (r) {
                        case SltRecord.Statement st -> st.sql();
                        case SltRecord.Query q -> q.sql();
                        default -> null;
                    };
                    if (sql == null) continue;
                    attempt(db, sql, file);
                    for (int m = 0; m < 4; m++) {
                        String damaged = mutate(sql, random);
                        if (attempt(db, damaged, file)) ran++;
                        else failed++;
                    }
                }
                // still answering
                assertThat(db.query("SELECT 1 + 1").text()).containsExactly(List.of("2"));
            }
        }
        assertThat(failed).as("most damaged statements are errors").isGreaterThan(ran / 4);
    }

    /** Runs {@code sql}; true if it ran, false if it failed with a SqlException; fails the test otherwise. */
    private static boolean attempt(Tributary db, String sql, Path file) {
        try {
            db.execute(sql);
            return true;
        } catch (SqlException e) {
            assertThat(e.sqlState()).as("%s: %s", file.getFileName(), sql).matches("[0-9A-Z]{5}");
            if (e.sqlState().startsWith("XX")) fail(file.getFileName() + ": internal error for " + sql + ": " + e.getMessage());
            // leave any transaction block the damage opened or aborted
            try {
                db.execute("ROLLBACK");
            } catch (SqlException ignored) {
                // there was none
            }
            return false;
        } catch (RuntimeException e) {
            throw new AssertionError(file.getFileName() + ": " + sql + " crashed with " + e, e);
        }
    }

    private static String mutate(String sql, SplittableRandom r) {
        List<String> tokens = new ArrayList<>(List.of(sql.split("(?<=[\\s(),;])|(?=[\\s(),;])")));
        tokens.removeIf(String::isBlank);
        if (tokens.isEmpty()) return sql;
        int i = r.nextInt(tokens.size());
        switch (r.nextInt(4)) {
            case 0 -> tokens.remove(i);
            case 1 -> tokens.add(i, tokens.get(i));
            case 2 -> tokens.set(i, tokens.get(r.nextInt(tokens.size())));
            default -> tokens.set(i, REPLACEMENTS[r.nextInt(REPLACEMENTS.length)]);
        }
        return String.join(" ", tokens);
    }
}
