package dev.tributary.bench;

import dev.tributary.nexmark.NexmarkGenerator;
import dev.tributary.nexmark.NexmarkQueries;
import dev.tributary.server.Clock;
import dev.tributary.server.CopyIn;
import dev.tributary.server.Tributary;
import dev.tributary.sql.ast.Statement;
import dev.tributary.sql.parser.Parser;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The loading thread's parse of a Nexmark COPY: {@link #ROWS} CSV bid lines, as
 * {@link NexmarkGenerator} writes them, fed to a {@code COPY bid FROM STDIN WITH (FORMAT csv)}
 * into the APPEND ONLY bid table of {@link NexmarkQueries#TABLES}; the figure is nanoseconds per
 * row. The lines go through {@link CopyIn#data} (split, UTF-8 check, each row encoded); the COPY
 * then fails on purpose ({@link CopyIn#fail}), so nothing is written and the table stays empty:
 * what is timed is the parse alone, not the commit, which {@code NexmarkRunner} measures whole.
 *
 * <p>Command: {@code java --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -jar
 * jmh/target/benchmarks.jar CopyParseBenchmark -f 1 -wi 3 -i 5}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED", "-Xms2g", "-Xmx2g"})
@State(Scope.Benchmark)
public class CopyParseBenchmark {
    /** Bid lines per COPY: a loading chunk of NexmarkRunner (10,000 events) holds about 9,200. */
    static final int ROWS = 10_000;

    private Tributary db;
    private Tributary.Connection session;
    private Statement.Copy copy;
    private byte[] bids;

    @Setup(Level.Trial)
    public void setUp() {
        db = Tributary.inMemory(Clock.manual(0), 1);
        for (String ddl : NexmarkQueries.TABLES) db.execute(ddl);
        session = db.session();
        copy = (Statement.Copy) Parser.parseStatement("COPY bid FROM STDIN WITH (FORMAT csv)");
        // events until ROWS of them are bids, so every COPY holds the same lines
        NexmarkGenerator generator = new NexmarkGenerator();
        long to = ROWS;
        NexmarkGenerator.Lines lines = generator.lines(0, to);
        while (lines.bidCount() < ROWS) lines = generator.lines(0, to += ROWS - lines.bidCount());
        bids = lines.bids();
        // once committed, to know the lines load: a parse that failed would be timed otherwise
        CopyIn first = session.copyIn(copy);
        first.data(bids);
        first.finish();
        String count = db.query("SELECT count(*) FROM bid").text().get(0).get(0);
        if (!count.equals(Long.toString(lines.bidCount()))) throw new IllegalStateException("the bid lines loaded " + count + " rows, not " + lines.bidCount());
    }

    @TearDown(Level.Trial)
    public void close() {
        session.close();
        db.close();
    }

    @Benchmark
    @OperationsPerInvocation(ROWS)
    public CopyIn parse() {
        CopyIn in = session.copyIn(copy);
        in.data(bids);
        in.fail("benchmark: parse only");
        return in;
    }
}
