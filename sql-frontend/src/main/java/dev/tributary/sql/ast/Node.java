package dev.tributary.sql.ast;

/**
 * A node of the SQL syntax tree.
 *
 * <p>Every node is an immutable record and remembers {@code pos}: the 1-based character offset
 * of its first token in the text handed to the parser, which is what PostgreSQL reports as an
 * error position. Lists inside nodes are unmodifiable; an absent optional part is {@code null}
 * for a single node and an empty list for a list.
 */
public interface Node {
    int pos();
}
