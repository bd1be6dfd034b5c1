package dev.tributary.sql.parser;

import java.lang.reflect.RecordComponent;
import java.util.List;

/** Test helper: a syntax tree rendered with its positions left out, to compare trees by shape. */
final class Trees {
    private Trees() {}

    static String withoutPositions(Object node) {
        StringBuilder b = new StringBuilder();
        render(b, node);
        return b.toString();
    }

    private static void render(StringBuilder b, Object o) {
        if (o instanceof Record r) {
            b.append(r.getClass().getSimpleName()).append('(');
            for (RecordComponent c : r.getClass().getRecordComponents()) {
                if (c.getName().equals("pos") || c.getName().endsWith("Pos")) continue; // opPos, keyPos
                b.append(c.getName()).append('=');
                try {
                    render(b, c.getAccessor().invoke(r));
                } catch (ReflectiveOperationException e) {
                    throw new AssertionError(e);
                }
                b.append(' ');
            }
            b.append(')');
        } else if (o instanceof List<?> list) {
            b.append('[');
            for (Object x : list) {
                render(b, x);
                b.append(", ");
            }
            b.append(']');
        } else {
            b.append(o);
        }
    }
}
