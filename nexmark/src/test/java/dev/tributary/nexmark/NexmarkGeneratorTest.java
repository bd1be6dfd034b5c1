package dev.tributary.nexmark;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.nexmark.NexmarkGenerator.Kind;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NexmarkGeneratorTest {
    /**
     * The files of the first 100,000 events with the default seed and rate are byte for byte the
     * ones the Flink harness writes ({@code ../shared/nexmark-flink}, {@code Main gen --events
     * 100000}; digests taken from its output on 2026-12-05), so both engines read the same events.
     */
    @Test
    void writesTheSameFilesAsTheFlinkHarness(@TempDir Path dir) throws Exception {
        new NexmarkGenerator().writeFiles(dir, 100_000);
        assertThat(sha256(dir.resolve("person.csv"))).isEqualTo("8f0005dc715af853bb242c563d67c37c3c8c164017c3ace1a9c38e506ebb210e");
        assertThat(sha256(dir.resolve("auction.csv"))).isEqualTo("133d250557dafe72fbd69a4d29cea6c61333e6830d5eb9a79f353ee923bd58fe");
        assertThat(sha256(dir.resolve("bid.csv"))).isEqualTo("bdddc47bd7284d676d64dc83a0b3b3f7c5116caa13b520a46e10f6a43c8ef71e");
    }

    /** Any range of events is the same text as that range of the whole. */
    @Test
    void aRangeIsTheSameAsThatPartOfTheWhole() {
        NexmarkGenerator.Lines whole = new NexmarkGenerator().lines(0, 5_000);
        NexmarkGenerator.Lines first = new NexmarkGenerator().lines(0, 2_377);
        NexmarkGenerator.Lines rest = new NexmarkGenerator().lines(2_377, 5_000);
        for (Kind k : Kind.values()) {
            assertThat(new String(first.of(k)) + new String(rest.of(k))).as(k.name()).isEqualTo(new String(whole.of(k)));
        }
        assertThat(first.personCount() + rest.personCount()).isEqualTo(whole.personCount()).isEqualTo(100);
        assertThat(first.auctionCount() + rest.auctionCount()).isEqualTo(whole.auctionCount()).isEqualTo(300);
        assertThat(first.bidCount() + rest.bidCount()).isEqualTo(whole.bidCount()).isEqualTo(4_600);
    }

    @Test
    void countsEachKindFromTheEventNumberAlone() {
        for (long n = 0; n < 260; n++) {
            long persons = 0, auctions = 0, bids = 0;
            for (long i = 0; i < n; i++) {
                switch (NexmarkGenerator.kind(i)) {
                    case PERSON -> persons++;
                    case AUCTION -> auctions++;
                    case BID -> bids++;
                }
            }
            assertThat(NexmarkGenerator.count(Kind.PERSON, n)).as("persons in %d", n).isEqualTo(persons);
            assertThat(NexmarkGenerator.count(Kind.AUCTION, n)).as("auctions in %d", n).isEqualTo(auctions);
            assertThat(NexmarkGenerator.count(Kind.BID, n)).as("bids in %d", n).isEqualTo(bids);
        }
    }

    private static String sha256(Path file) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
    }
}
