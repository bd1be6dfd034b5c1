package dev.tributary.sql.parser;

import java.util.Set;

/**
 * PostgreSQL's keyword classes, as far as they decide what a word may be.
 *
 * <p>Reserved words are never names unless quoted (they may follow AS as a column label).
 * Type-or-function words ({@code left}, {@code join}, ...) may name a function but not a column
 * or table. Everything else, including our own words (EMIT, SUBSCRIBE, CHANGES, ...), is an
 * ordinary name wherever the grammar does not expect it as a keyword.
 */
final class Keywords {
    private Keywords() {}

    static final Set<String> RESERVED = Set.of(
            "all", "analyse", "analyze", "and", "any", "array", "as", "asc", "asymmetric", "both", "case", "cast",
            "check", "collate", "column", "constraint", "create", "current_catalog", "current_date", "current_role",
            "current_time", "current_timestamp", "current_user", "default", "deferrable", "desc", "distinct", "do",
            "else", "end", "except", "false", "fetch", "for", "foreign", "from", "grant", "group", "having", "in",
            "initially", "intersect", "into", "lateral", "leading", "limit", "localtime", "localtimestamp", "not",
            "null", "offset", "on", "only", "or", "order", "placing", "primary", "references", "returning", "select",
            "session_user", "some", "symmetric", "system_user", "table", "then", "to", "trailing", "true", "union",
            "unique", "user", "using", "variadic", "when", "where", "window", "with");

    static final Set<String> TYPE_FUNC = Set.of(
            "authorization", "binary", "collation", "concurrently", "cross", "current_schema", "freeze", "full",
            "ilike", "inner", "is", "isnull", "join", "left", "like", "natural", "notnull", "outer", "overlaps",
            "right", "similar", "tablesample", "verbose");

    /** Unreserved words that end a clause, so they are not read as an alias without AS. */
    static final Set<String> NOT_BARE_ALIAS = Set.of("emit");

    /** Whether a word may be a column, table or alias name (unquoted). */
    static boolean isName(String word) {
        return !RESERVED.contains(word) && !TYPE_FUNC.contains(word);
    }

    /** Whether a word may name a function. */
    static boolean isFunctionName(String word) {
        return !RESERVED.contains(word);
    }
}
