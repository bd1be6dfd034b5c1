package dev.tributary.server.shell;

import java.util.ArrayList;
import java.util.List;

/**
 * Cuts script text into statements at semicolons that are outside quotes and comments, as psql
 * does before sending anything; the text after the last semicolon is left over (an unfinished
 * statement in an interactive session).
 */
final class StatementSplitter {
    private final StringBuilder buffer = new StringBuilder();

    /** Adds {@code text} and returns the statements it completed, each with its semicolon. */
    List<String> add(String text) {
        buffer.append(text);
        List<String> done = new ArrayList<>();
        int start = 0;
        int i = 0;
        int n = buffer.length();
        int depth = 0;
        char quote = 0;
        boolean lineComment = false;
        while (i < n) {
            char c = buffer.charAt(i);
            char next = i + 1 < n ? buffer.charAt(i + 1) : 0;
            if (lineComment) {
                if (c == '\n') lineComment = false;
            } else if (depth > 0) {
                if (c == '*' && next == '/') {
                    depth--;
                    i++;
                } else if (c == '/' && next == '*') {
                    depth++;
                    i++;
                }
            } else if (quote != 0) {
                if (c == quote) {
                    if (next == quote) i++;
                    else quote = 0;
                }
            } else if (c == '\'' || c == '"') {
                quote = c;
            } else if (c == '-' && next == '-') {
                lineComment = true;
                i++;
            } else if (c == '/' && next == '*') {
                depth++;
                i++;
            } else if (c == ';') {
                String stmt = buffer.substring(start, i + 1);
                if (!stmt.substring(0, stmt.length() - 1).isBlank()) done.add(stmt);
                start = i + 1;
            }
            i++;
        }
        buffer.delete(0, start);
        return done;
    }

    /** What is left after the last complete statement. */
    String rest() {
        return buffer.toString();
    }

    void clear() {
        buffer.setLength(0);
    }
}
