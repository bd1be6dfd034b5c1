package dev.tributary.server.shell;

import dev.tributary.server.Notice;
import dev.tributary.server.Result;
import dev.tributary.server.pgwire.PgClient;
import dev.tributary.sql.types.SqlType;
import java.util.List;

/**
 * One statement's answer as the shell prints it, whichever database gave it: the tag, the
 * columns with their types (for alignment), the rows as text (null for NULL), the notices, and
 * the data a {@code COPY ... TO STDOUT} sent (empty otherwise), which is printed as it is.
 */
record Answer(String tag, List<String> columns, List<SqlType> types, List<List<String>> rows, List<Notice> notices, String copyOut) {
    static Answer of(Result r) {
        return new Answer(r.tag(), r.columns(), r.types(), r.text(), r.notices(), "");
    }

    static Answer of(PgClient.Reply r, String copyOut) {
        return new Answer(r.tag(), r.columns(), r.types(), r.rows(), r.notices(), copyOut);
    }

    /** Whether the statement returns rows, even if there were none. */
    boolean hasRows() {
        return !columns.isEmpty();
    }
}
