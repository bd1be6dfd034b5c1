package dev.tributary.server;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How far the build of a materialized view or index over existing rows has come: what its
 * progress NOTICEs say ({@link #message()}), and what a client that knows them reads back out of
 * one ({@link #parse}) to draw a progress bar. {@code done <= total}; {@code done == total} means
 * every input row was read and the dataflow is computing; {@code elapsedMillis} counts from the
 * CREATE.
 */
public record BuildProgress(String kind, String name, long done, long total, long elapsedMillis) {
    private static final Pattern READING = Pattern.compile(
            "building (materialized view|index) \"(.*)\": (\\d+) of (\\d+) rows read \\(\\d+%\\), (\\d+)\\.(\\d) s");
    private static final Pattern COMPUTING = Pattern.compile(
            "building (materialized view|index) \"(.*)\": all (\\d+) rows read, computing, (\\d+)\\.(\\d) s");

    /** The NOTICE's text, with the elapsed time to a tenth of a second. */
    public String message() {
        String elapsed = String.format(Locale.ROOT, "%d.%d s", elapsedMillis / 1000, elapsedMillis / 100 % 10);
        String what = "building " + kind + " \"" + name + "\": ";
        return done < total ? what + done + " of " + total + " rows read (" + done * 100 / total + "%), " + elapsed
                : what + "all " + total + " rows read, computing, " + elapsed;
    }

    /** The progress a NOTICE's {@code message} reports, or null when it is not a build's progress. */
    public static BuildProgress parse(String message) {
        Matcher r = READING.matcher(message);
        if (r.matches()) {
            return new BuildProgress(r.group(1), r.group(2), Long.parseLong(r.group(3)), Long.parseLong(r.group(4)), millis(r.group(5), r.group(6)));
        }
        Matcher c = COMPUTING.matcher(message);
        if (c.matches()) {
            long total = Long.parseLong(c.group(3));
            return new BuildProgress(c.group(1), c.group(2), total, total, millis(c.group(4), c.group(5)));
        }
        return null;
    }

    private static long millis(String seconds, String tenths) {
        return Long.parseLong(seconds) * 1000 + Long.parseLong(tenths) * 100;
    }

    /**
     * One line of at most {@code width} characters: a bar, the share read, and an estimate of the
     * time left from the pace so far (while reading; none before a tenth is read or once computing).
     */
    public String bar(int width) {
        String pct = (total == 0 ? 100 : done * 100 / total) + "%";
        String tail;
        if (done >= total) {
            tail = " " + total + " rows read, computing (" + seconds(elapsedMillis) + ")";
        } else {
            tail = " " + pct + " of " + total + " rows (" + seconds(elapsedMillis)
                    + (done * 10 >= total ? ", about " + seconds(elapsedMillis * (total - done) / done) + " left" : "") + ")";
        }
        String head = "building " + name + " ";
        int cells = Math.max(10, Math.min(40, width - head.length() - tail.length() - 2));
        int filled = (int) (total == 0 ? cells : Math.min(cells, done * cells / total));
        String line = head + "[" + "#".repeat(filled) + ".".repeat(cells - filled) + "]" + tail;
        return line.length() > width && width > 0 ? line.substring(0, width) : line;
    }

    private static String seconds(long millis) {
        return millis < 60_000 ? String.format(Locale.ROOT, "%.1f s", millis / 1000.0)
                : String.format(Locale.ROOT, "%d min %02d s", millis / 60_000, millis / 1000 % 60);
    }
}
