package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The committed console bundle is built from the committed console sources: its first line
 * records the hash that {@code console/sources-hash.mjs} computes over {@code console/src/} and
 * {@code package-lock.json}, recomputed here; a mismatch means {@code console/build.sh} was not
 * run after the sources changed.
 */
class ConsoleBundleTest {
    private static final Path CONSOLE = Path.of("..", "console");
    private static final Path BUILT = Path.of("src", "main", "resources", "console");

    @Test
    void theCommittedBundleIsBuiltFromTheCurrentSources() throws Exception {
        String firstLine = Files.readAllLines(BUILT.resolve("console.js"), StandardCharsets.UTF_8).get(0);
        assertThat(firstLine)
                .as("server/src/main/resources/console/console.js is older than console/src: run console/build.sh")
                .isEqualTo("/* tributary console; sources sha256 " + sourcesHash() + " */");
        assertThat(Files.readString(BUILT.resolve("index.html"))).isEqualTo(Files.readString(CONSOLE.resolve("src/index.html")));
    }

    /** SHA-256 over each source, in order of path: the path, a NUL, the contents, a NUL. */
    private static String sourcesHash() throws IOException, java.security.NoSuchAlgorithmException {
        List<String> files = new ArrayList<>();
        try (Stream<Path> src = Files.list(CONSOLE.resolve("src"))) {
            src.forEach(p -> files.add("src/" + p.getFileName()));
        }
        files.add("package-lock.json");
        files.sort(null);
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        for (String f : files) {
            sha.update(f.getBytes(StandardCharsets.UTF_8));
            sha.update((byte) 0);
            sha.update(Files.readAllBytes(CONSOLE.resolve(f)));
            sha.update((byte) 0);
        }
        return HexFormat.of().formatHex(sha.digest());
    }
}
