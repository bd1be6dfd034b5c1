package dev.tributary.sql.render;

import dev.tributary.differential.Collection;
import dev.tributary.sql.row.Row;

/**
 * A plan rendered in a dataflow: its rows, and the errors met computing them, each error a row
 * of {@link Errors#TYPES} at the time and with the multiplicity of the row that caused it. A
 * reader of the result reports an error whenever the error collection is non-empty, and the
 * error vanishes when the row causing it does.
 */
public record Rendered(Collection<Row> oks, Collection<Row> errs) {}
