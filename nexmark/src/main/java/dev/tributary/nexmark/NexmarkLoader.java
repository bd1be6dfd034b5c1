package dev.tributary.nexmark;

import dev.tributary.nexmark.NexmarkGenerator.Kind;
import dev.tributary.server.CopyIn;
import dev.tributary.server.Tributary;
import dev.tributary.sql.ast.Statement;
import dev.tributary.sql.parser.Parser;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Feeds Nexmark events into the tables of {@link NexmarkQueries#TABLES} in event order: the
 * events are cut into chunks, and each chunk is one CSV COPY per table read, so that a query's
 * inputs advance together, as a streaming source's would. The chunks are made before they are
 * loaded ({@link #chunks}), so that a timed load measures the engine, not the generator.
 */
public final class NexmarkLoader {
    private NexmarkLoader() {}

    /** Events {@code [0, events)} as chunks of {@code chunkEvents} events. */
    public static List<NexmarkGenerator.Lines> chunks(NexmarkGenerator generator, long events, int chunkEvents) {
        if (chunkEvents <= 0) throw new IllegalArgumentException("a chunk must hold at least one event, got " + chunkEvents);
        List<NexmarkGenerator.Lines> chunks = new ArrayList<>();
        for (long from = 0; from < events; from += chunkEvents) chunks.add(generator.lines(from, Math.min(events, from + chunkEvents)));
        return chunks;
    }

    /** Creates the tables (and q13's side input) in {@code db}. */
    public static void createTables(Tributary db) {
        for (String ddl : NexmarkQueries.TABLES) db.execute(ddl);
        for (String sql : NexmarkQueries.SIDE_INPUT) db.execute(sql);
    }

    /** Loads {@code chunk} into the tables of {@code kinds}, persons first, then auctions, then bids. */
    public static void load(Tributary.Connection session, NexmarkGenerator.Lines chunk, Set<Kind> kinds) {
        for (Kind k : Kind.values()) {
            byte[] lines = chunk.of(k);
            if (!kinds.contains(k) || lines.length == 0) continue;
            CopyIn copy = session.copyIn(COPIES.get(k));
            copy.data(lines);
            copy.finish();
        }
    }

    /** Each table's COPY, parsed once (statements are values). */
    private static final java.util.Map<Kind, Statement.Copy> COPIES = new java.util.EnumMap<>(Kind.class);

    static {
        for (Kind k : Kind.values()) COPIES.put(k, (Statement.Copy) Parser.parseStatement("COPY " + table(k) + " FROM STDIN WITH (FORMAT csv)"));
    }

    /** The table of {@code kind}'s events. */
    public static String table(Kind kind) {
        return switch (kind) {
            case PERSON -> "person";
            case AUCTION -> "auction";
            case BID -> "bid";
        };
    }
}
