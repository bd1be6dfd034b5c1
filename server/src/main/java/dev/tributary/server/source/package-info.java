/**
 * Sources: tables that a connector fills from outside the database (a directory of files, a
 * webhook, a Kafka topic), exactly once.
 *
 * <p>The model (after DESIGN section 9 and Materialize's sources): a source is a table that
 * only its connector writes, append-only ({@code ENVELOPE NONE}) or holding the latest row of
 * each key of its primary key ({@code ENVELOPE UPSERT}, {@code DEBEZIUM}: records are
 * {@link SourceChange}s), and beside it a progress table of read positions, one row per part of
 * the input (a file, a partition). A connector hands over rows together with
 * the positions they bring the parts to ({@link SourceContext#commit}); both are written in one
 * commit, at one time, through the tables' log, so what a crash keeps of a source is its rows
 * up to some positions and those positions, never one without the other. A restarted connector
 * resumes after the positions it reads back: nothing lost, nothing twice. Positions committed to
 * the outside system (Kafka's consumer offsets) are never relied on.
 *
 * <p>This package holds what a connector sees ({@link Connector}, {@link SourceContext},
 * {@link Decoder}), the connectors, and the thread that runs one ({@link SourceRunner}); the
 * server package turns a commit into table changes.
 */
package dev.tributary.server.source;
