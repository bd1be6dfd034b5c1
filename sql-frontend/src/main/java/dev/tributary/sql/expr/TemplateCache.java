package dev.tributary.sql.expr;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Compiled formatting templates by their text. A template is nearly always a constant, so each
 * distinct one is compiled once; the cache is emptied when it passes 1000 entries, which bounds
 * it when templates come from data.
 */
final class TemplateCache<T> {
    private final Map<String, T> compiled = new ConcurrentHashMap<>();
    private final Function<String, T> compiler;

    TemplateCache(Function<String, T> compiler) {
        this.compiler = compiler;
    }

    /** The template compiled; a bad template's error is raised again on each use, never cached. */
    T get(String template) {
        T t = compiled.get(template);
        if (t == null) {
            t = compiler.apply(template);
            if (compiled.size() > 1000) compiled.clear();
            compiled.put(template, t);
        }
        return t;
    }
}
