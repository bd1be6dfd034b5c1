package dev.tributary.bench;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The data of {@link RealisticWorkload} and the client's model of it: {@code customers(id,
 * name, region)}, {@code products(id, name, price)} and {@code orders(id, customer_id,
 * product_id, qty, placed)}, generated from a seed, and every change the workload makes, so
 * that the expected answer of every read can be computed on the client.
 *
 * <p>Customers, products and orders have ids from 1; an order's customer, product (uniform),
 * quantity (1 to 10) and time (a second in 2025) are drawn from one {@link SplittableRandom}
 * in id order, so a seed gives the same rows on every server and in every run. A customer's
 * region is one of {@link #REGIONS} values {@code region-0 .. region-9}. The model keeps, per
 * order id, its columns, the live ids in an array (for uniform draws of an existing order),
 * and the per-customer and per-region totals the workload polls for, so a check after a write
 * costs nothing on the client; {@link #expected} computes the totals of every view in one pass.
 */
final class RealisticData {
    static final int REGIONS = 10;
    /** The region v3 selects ({@code WHERE c.region = 'region-3'}). */
    static final int V3_REGION = 3;
    /** 2025-01-01T00:00:00Z: orders are placed during the following year. */
    private static final long PLACED_BASE = 1_735_689_600L;
    private static final int PLACED_SPAN = 365 * 86_400;
    private static final DateTimeFormatter PLACED_TEXT = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss'+00'");

    /** An order as inserted. */
    record Order(long id, int customer, int product, int qty, OffsetDateTime placed) {}

    /**
     * The totals of every view and of the orders table at one state, as the workload's checks
     * read them: {@code (count(*), sum(...), ...)} per relation, in the order of the queries.
     */
    record Expected(long orders, long ordersQty,
                    long v1Rows, long v1N, long v1Q,
                    long v2Rows, long v2N, BigDecimal v2Revenue,
                    long v3Rows, long v3Qty,
                    long v4Rows, long v4Lo, long v4Hi) {}

    final int customers;
    final int products;
    final int loadedOrders;
    private final int[] region;          // by customer id
    private final int[] priceCents;      // by product id
    private final int[] customerOf;      // by order id; 0: no such order (never made, or deleted)
    private final int[] productOf;
    private final int[] qtyOf;
    private final int[] placedOf;        // seconds after PLACED_BASE
    private final int[] live;            // ids of the existing orders, in no order
    private final int[] slot;            // by order id: its index in live
    private int liveCount;
    private int nextId;
    private final long[] ordersOfCustomer;
    private final long[] qtyOfCustomer;
    private final long[] ordersOfRegion;
    private long totalQty;

    /**
     * Generates the loaded data from {@code seed}; {@code moreOrders} is room for the orders the
     * workload will insert later.
     */
    RealisticData(long seed, int customers, int products, int orders, int moreOrders) {
        if (customers < 1 || products < 1 || orders < 1) throw new IllegalArgumentException("customers, products and orders must be at least 1");
        long capacity = (long) orders + moreOrders + 1;
        if (capacity > Integer.MAX_VALUE - 8) throw new IllegalArgumentException("too many orders for the client's model: " + capacity);
        this.customers = customers;
        this.products = products;
        this.loadedOrders = orders;
        SplittableRandom random = new SplittableRandom(seed);
        region = new int[customers + 1];
        for (int c = 1; c <= customers; c++) region[c] = random.nextInt(REGIONS);
        priceCents = new int[products + 1];
        // 1.00 to 999.99: numeric(10,2) with cents, so revenue sums are exact on both sides
        for (int p = 1; p <= products; p++) priceCents[p] = 100 + random.nextInt(99_900);
        int size = (int) capacity;
        customerOf = new int[size];
        productOf = new int[size];
        qtyOf = new int[size];
        placedOf = new int[size];
        live = new int[size];
        slot = new int[size];
        ordersOfCustomer = new long[customers + 1];
        qtyOfCustomer = new long[customers + 1];
        ordersOfRegion = new long[REGIONS];
        nextId = 1;
        for (int i = 0; i < orders; i++) newOrder(random);
    }

    static String regionName(int r) {
        return "region-" + r;
    }

    private static String price(int cents) {
        return cents / 100 + "." + (cents % 100 < 10 ? "0" : "") + cents % 100;
    }

    private static OffsetDateTime placed(int offset) {
        return OffsetDateTime.ofInstant(Instant.ofEpochSecond(PLACED_BASE + offset), ZoneOffset.UTC);
    }

    /** Draws a new order (the next id) from {@code random} and applies its insertion to the model. */
    Order newOrder(SplittableRandom random) {
        int id = nextId++;
        if (id >= customerOf.length) throw new IllegalStateException("the model has no room for order " + id);
        int c = 1 + random.nextInt(customers);
        int p = 1 + random.nextInt(products);
        int q = 1 + random.nextInt(10);
        int t = random.nextInt(PLACED_SPAN);
        customerOf[id] = c;
        productOf[id] = p;
        qtyOf[id] = q;
        placedOf[id] = t;
        slot[id] = liveCount;
        live[liveCount++] = id;
        ordersOfCustomer[c]++;
        qtyOfCustomer[c] += q;
        ordersOfRegion[region[c]]++;
        totalQty += q;
        return new Order(id, c, p, q, placed(t));
    }

    /** A uniformly drawn existing order's id. */
    int randomLive(SplittableRandom random) {
        if (liveCount == 0) throw new IllegalStateException("no orders left");
        return live[random.nextInt(liveCount)];
    }

    /** Applies {@code UPDATE orders SET qty = qty + 1 WHERE id = id}. */
    void addQty(int id) {
        requireLive(id);
        qtyOf[id]++;
        qtyOfCustomer[customerOf[id]]++;
        totalQty++;
    }

    /** Applies {@code DELETE FROM orders WHERE id = id}. */
    void delete(int id) {
        requireLive(id);
        int c = customerOf[id];
        ordersOfCustomer[c]--;
        qtyOfCustomer[c] -= qtyOf[id];
        ordersOfRegion[region[c]]--;
        totalQty -= qtyOf[id];
        int moved = live[--liveCount];
        live[slot[id]] = moved;
        slot[moved] = slot[id];
        customerOf[id] = 0;
    }

    /** Applies {@code UPDATE customers SET region = r WHERE id = c}. */
    void setRegion(int c, int r) {
        ordersOfRegion[region[c]] -= ordersOfCustomer[c];
        region[c] = r;
        ordersOfRegion[r] += ordersOfCustomer[c];
    }

    private void requireLive(int id) {
        if (id <= 0 || id >= nextId || customerOf[id] == 0) throw new IllegalStateException("order " + id + " does not exist");
    }

    boolean exists(long id) {
        return id > 0 && id < nextId && customerOf[(int) id] != 0;
    }

    int customerOf(long id) { return customerOf[(int) id]; }
    int productOf(long id) { return productOf[(int) id]; }
    int qtyOf(long id) { return qtyOf[(int) id]; }
    OffsetDateTime placedOf(long id) { return placed(placedOf[(int) id]); }
    int regionOf(int customer) { return region[customer]; }
    /** v1's {@code n} for a customer (0: no row). */
    long ordersOf(int customer) { return ordersOfCustomer[customer]; }
    /** v1's {@code q} for a customer. */
    long qtyOfCustomer(int customer) { return qtyOfCustomer[customer]; }
    /** v2's {@code sum(n)} over a region's rows. */
    long ordersOfRegion(int r) { return ordersOfRegion[r]; }
    int liveOrders() { return liveCount; }
    /** The id the next new order gets. */
    long nextId() { return nextId; }

    /** The totals of the orders table and of the four views, from the model, in one pass over the orders. */
    Expected expected() {
        long v1Rows = 0;
        for (int c = 1; c <= customers; c++) if (ordersOfCustomer[c] > 0) v1Rows++;
        boolean[] v2Group = new boolean[REGIONS * (products + 1)];
        int[] lo = new int[products + 1];
        int[] hi = new int[products + 1];
        long revenueCents = 0;
        long v3Rows = 0;
        long v3Qty = 0;
        for (int i = 0; i < liveCount; i++) {
            int id = live[i];
            int c = customerOf[id];
            int p = productOf[id];
            int q = qtyOf[id];
            v2Group[region[c] * (products + 1) + p] = true;
            revenueCents += (long) q * priceCents[p];
            if (region[c] == V3_REGION && q > 8) {
                v3Rows++;
                v3Qty += q;
            }
            if (lo[p] == 0 || q < lo[p]) lo[p] = q;
            if (q > hi[p]) hi[p] = q;
        }
        long v2Rows = 0;
        for (boolean g : v2Group) if (g) v2Rows++;
        long v4Rows = 0;
        long v4Lo = 0;
        long v4Hi = 0;
        for (int p = 1; p <= products; p++) {
            if (hi[p] == 0) continue;
            v4Rows++;
            v4Lo += lo[p];
            v4Hi += hi[p];
        }
        return new Expected(liveCount, totalQty, v1Rows, liveCount, totalQty,
                v2Rows, liveCount, BigDecimal.valueOf(revenueCents, 2), v3Rows, v3Qty, v4Rows, v4Lo, v4Hi);
    }

    /** The customers as COPY text, in chunks of {@code rowsPerChunk} rows. */
    List<byte[]> customersCopyText(int rowsPerChunk) {
        return chunks(customers, rowsPerChunk, (c, out) -> out.append(c).append('\t').append("customer-").append(c)
                .append('\t').append(regionName(region[c])).append('\n'));
    }

    /** The products as COPY text, in chunks of {@code rowsPerChunk} rows. */
    List<byte[]> productsCopyText(int rowsPerChunk) {
        return chunks(products, rowsPerChunk, (p, out) -> out.append(p).append('\t').append("product-").append(p)
                .append('\t').append(price(priceCents[p])).append('\n'));
    }

    /** The loaded orders (ids 1 .. loadedOrders) as COPY text, in chunks of {@code rowsPerChunk} rows. */
    List<byte[]> ordersCopyText(int rowsPerChunk) {
        return chunks(loadedOrders, rowsPerChunk, (id, out) -> out.append(id).append('\t').append(customerOf[id])
                .append('\t').append(productOf[id]).append('\t').append(qtyOf[id]).append('\t')
                .append(PLACED_TEXT.format(LocalDateTime.ofEpochSecond(PLACED_BASE + placedOf[id], 0, ZoneOffset.UTC)))
                .append('\n'));
    }

    private interface RowText {
        void append(int id, StringBuilder out);
    }

    /** Rows 1 .. rows rendered by {@code row}, as UTF-8 chunks of {@code rowsPerChunk} rows. */
    private static List<byte[]> chunks(int rows, int rowsPerChunk, RowText row) {
        List<byte[]> chunks = new ArrayList<>();
        StringBuilder text = new StringBuilder();
        for (int from = 1; from <= rows; from += rowsPerChunk) {
            text.setLength(0);
            int to = (int) Math.min(rows, (long) from + rowsPerChunk - 1);
            for (int id = from; id <= to; id++) row.append(id, text);
            chunks.add(text.toString().getBytes(StandardCharsets.UTF_8));
        }
        return chunks;
    }
}
