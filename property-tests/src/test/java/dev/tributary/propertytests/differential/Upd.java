package dev.tributary.propertytests.differential;

/** One update of a top-level collection: {@code diff} copies of {@code data} at {@code time}. */
record Upd<D>(D data, long time, long diff) {
    @Override
    public String toString() {
        return (diff >= 0 ? "+" : "") + diff + " x " + data + " @" + time;
    }
}
