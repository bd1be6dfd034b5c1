package dev.tributary.storage;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;

/**
 * A {@link Consensus} in a PostgreSQL table, for a deployment whose consensus must outlive
 * the machine (the at-scale option of DESIGN section 9): one row per retained version,
 * {@code (key, seqno, data)}, with {@code (key, seqno)} the primary key.
 *
 * <p>A compare-and-set is one INSERT of version {@code expected + 1} that happens only if the
 * key's latest version is {@code expected}; two writers racing from the same version both pass
 * that check at worst, and the primary key lets exactly one row in: the other's INSERT fails
 * with a unique violation and reports a mismatch. Every statement autocommits, so a version is
 * acknowledged only once PostgreSQL has committed it (durable as far as the server's
 * {@code fsync} and {@code synchronous_commit} say). Connections are pooled; one that fails is
 * dropped and a new one opened on the next call, so a server that is down for a while gives
 * {@link StorageException}s until it is back, and then the store carries on.
 */
public final class PostgresConsensus implements Consensus {
    private final String url;
    private final String table;
    private final ArrayBlockingQueue<Connection> idle = new ArrayBlockingQueue<>(8);
    private volatile boolean closed;

    /**
     * A store in {@code table} (made if missing) of the database at JDBC {@code url} (for example
     * {@code jdbc:postgresql://127.0.0.1:5432/tributary?user=tributary}).
     */
    public PostgresConsensus(String url, String table) {
        if (!table.matches("[a-z_][a-z0-9_]{0,62}")) throw new IllegalArgumentException("a consensus table is a lower-case SQL name; got '" + table + "'");
        this.url = url;
        this.table = table;
        run(c -> {
            try (Statement st = c.createStatement()) {
                st.execute("CREATE TABLE IF NOT EXISTS " + table + " (key text NOT NULL, seqno bigint NOT NULL, data bytea NOT NULL, PRIMARY KEY (key, seqno))");
            }
            return null;
        }, "make its table");
    }

    /** Work on one pooled connection. */
    private interface Work<T> {
        T on(Connection c) throws SQLException;
    }

    private <T> T run(Work<T> work, String what) {
        if (closed) throw new IllegalStateException("the PostgreSQL consensus store " + table + " is closed");
        Connection c = idle.poll();
        try {
            if (c == null) c = DriverManager.getConnection(url);
            T result = work.on(c);
            if (closed || !idle.offer(c)) c.close();
            return result;
        } catch (SQLException e) {
            if (c != null) {
                try {
                    c.close();
                } catch (SQLException ignored) {
                    // it failed already
                }
            }
            throw new StorageException("the PostgreSQL consensus store " + table + " could not " + what + ": " + e.getMessage() + " (SQLSTATE " + e.getSQLState() + ")", e);
        }
    }

    @Override
    public Optional<VersionedData> head(String key) {
        Consensus.checkKey(key);
        return run(c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT seqno, data FROM " + table + " WHERE key = ? ORDER BY seqno DESC LIMIT 1")) {
                ps.setString(1, key);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? Optional.of(new VersionedData(rs.getLong(1), rs.getBytes(2))) : Optional.<VersionedData>empty();
                }
            }
        }, "read the head of '" + key + "'");
    }

    @Override
    public CasResult compareAndSet(String key, long expected, byte[] data) {
        Consensus.checkKey(key);
        if (expected < NO_VERSION) throw new IllegalArgumentException("expected sequence number " + expected + " of '" + key + "' is not a version");
        byte[] copy = data.clone();
        Boolean won = run(c -> {
            String sql = expected == NO_VERSION
                    ? "INSERT INTO " + table + " SELECT ?, 0, ? WHERE NOT EXISTS (SELECT 1 FROM " + table + " WHERE key = ?)"
                    : "INSERT INTO " + table + " SELECT ?, ?, ? WHERE (SELECT max(seqno) FROM " + table + " WHERE key = ?) = ?";
            // The check and the insert are one statement, but its snapshot may be older than the
            // insert: a version written and then truncated in between is no longer there to collide
            // with, and the insert would land on a stale head. The key's advisory lock, taken first,
            // makes the statement's snapshot the latest (only writers of the key take it).
            c.setAutoCommit(false);
            try (PreparedStatement lock = c.prepareStatement("SELECT pg_advisory_xact_lock(hashtextextended(?, 0))");
                 PreparedStatement ps = c.prepareStatement(sql)) {
                lock.setString(1, table + "/" + key);
                lock.execute();
                ps.setString(1, key);
                if (expected == NO_VERSION) {
                    ps.setBytes(2, copy);
                    ps.setString(3, key);
                } else {
                    ps.setLong(2, expected + 1);
                    ps.setBytes(3, copy);
                    ps.setString(4, key);
                    ps.setLong(5, expected);
                }
                boolean inserted = ps.executeUpdate() == 1;
                c.commit();
                return inserted;
            } catch (SQLException e) {
                try {
                    c.rollback();
                } catch (SQLException again) {
                    e.addSuppressed(again);
                    throw e; // the connection is broken: dropped, and the error is the one that came first
                }
                if ("23505".equals(e.getSQLState())) return false; // another writer's version won
                throw e;
            } finally {
                c.setAutoCommit(true);
            }
        }, "compare-and-set '" + key + "'");
        return won ? new CasResult.Committed(expected + 1) : new CasResult.Mismatch(head(key));
    }

    @Override
    public List<VersionedData> scan(String key, long from, int limit) {
        Consensus.checkKey(key);
        if (limit < 0) throw new IllegalArgumentException("a scan's limit is not negative: " + limit);
        return run(c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT seqno, data FROM " + table + " WHERE key = ? AND seqno >= ? ORDER BY seqno LIMIT ?")) {
                ps.setString(1, key);
                ps.setLong(2, from);
                ps.setInt(3, limit);
                List<VersionedData> out = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) out.add(new VersionedData(rs.getLong(1), rs.getBytes(2)));
                }
                return out;
            }
        }, "scan '" + key + "'");
    }

    @Override
    public List<String> keys(String prefix) {
        return run(c -> {
            // keys in Java's order (UTF-16 code units agree with C collation for these keys); the prefix matched as bytes, not a pattern
            try (PreparedStatement ps = c.prepareStatement("SELECT DISTINCT key COLLATE \"C\" AS k FROM " + table + " WHERE left(key, length(?)) = ? ORDER BY k")) {
                ps.setString(1, prefix);
                ps.setString(2, prefix);
                List<String> out = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) out.add(rs.getString(1));
                }
                return out;
            }
        }, "list its keys");
    }

    @Override
    public int truncate(String key, long seqNo) {
        Consensus.checkKey(key);
        long head = head(key).map(VersionedData::seqNo).orElse(NO_VERSION);
        if (seqNo > head) throw new IllegalArgumentException("cannot truncate '" + key + "' below " + seqNo + ": its latest version is " + head);
        return run(c -> {
            try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + table + " WHERE key = ? AND seqno < ?")) {
                ps.setString(1, key);
                ps.setLong(2, seqNo);
                return ps.executeUpdate();
            }
        }, "truncate '" + key + "'");
    }

    @Override
    public void close() {
        closed = true;
        for (Connection c; (c = idle.poll()) != null; ) {
            try {
                c.close();
            } catch (SQLException ignored) {
                // closing anyway
            }
        }
    }
}
