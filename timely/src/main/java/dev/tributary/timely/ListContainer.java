package dev.tributary.timely;

import java.util.ArrayList;
import java.util.function.ToLongFunction;

/**
 * A container of arbitrary objects, for records that have no primitive layout.
 *
 * @param <D> the record type; records should be immutable values
 */
public final class ListContainer<D> extends ArrayList<D> implements Container {
    public ListContainer() {}

    public ListContainer(int capacity) {
        super(capacity);
    }

    @SafeVarargs
    public static <D> ListContainer<D> of(D... records) {
        ListContainer<D> c = new ListContainer<>(records.length);
        for (D d : records) c.add(d);
        return c;
    }

    /** The container type whose partition routes each record by {@code key}'s value as hash. */
    public static <D> ContainerType<ListContainer<D>> type(ToLongFunction<? super D> key) {
        return new ContainerType<>() {
            @Override
            public ListContainer<D> create() {
                return new ListContainer<>();
            }

            @Override
            public void appendAll(ListContainer<D> from, ListContainer<D> into) {
                // one by one: addAll would copy the list into an array first (a copy per extra reader of every message)
                for (int i = 0, n = from.size(); i < n; i++) into.add(from.get(i));
            }

            @Override
            @SuppressWarnings("unchecked")
            public void partition(ListContainer<D> input, Container[] outputs, Router router) {
                for (int i = 0, n = input.size(); i < n; i++) {
                    D d = input.get(i);
                    ((ListContainer<D>) outputs[router.route(key.applyAsLong(d))]).add(d);
                }
            }
        };
    }

    /** The container type whose partition routes by {@link Object#hashCode()}. */
    public static <D> ContainerType<ListContainer<D>> type() {
        return type(d -> d.hashCode());
    }
}
