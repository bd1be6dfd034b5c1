package dev.tributary.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.util.concurrent.atomic.AtomicInteger;
import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStore;
import org.jclouds.blobstore.BlobStoreContext;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The blob contract against an S3-compatible server in this JVM (s3proxy over an in-memory
 * store), through the AWS SDK as against AWS or MinIO.
 */
class S3BlobTest extends BlobContract {
    private static final String BUCKET = "tributary";
    private static final AtomicInteger PREFIXES = new AtomicInteger();
    private static S3Client client;

    private static synchronized S3Client client() throws Exception {
        if (client != null) return client;
        BlobStoreContext context = ContextBuilder.newBuilder("transient").credentials("identity", "credential").build(BlobStoreContext.class);
        BlobStore store = context.getBlobStore();
        store.createContainerInLocation(null, BUCKET);
        S3Proxy proxy = S3Proxy.builder().blobStore(store).endpoint(URI.create("http://127.0.0.1:0"))
                .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, "access", "secret").build();
        proxy.start();
        while (!"STARTED".equals(proxy.getState())) Thread.onSpinWait();
        client = S3Blob.client(URI.create("http://127.0.0.1:" + proxy.getPort()), "us-east-1", "access", "secret");
        return client;
    }

    @Override
    protected Blob open() throws Exception {
        // a prefix of its own per test: a fresh, empty store
        return new S3Blob(client(), BUCKET, "t" + PREFIXES.incrementAndGet() + "/");
    }

    @Test
    void aDamagedObjectIsAnErrorNamingItNotWrongBytes() throws Exception {
        S3Blob s3 = new S3Blob(client(), BUCKET, "damaged/");
        s3.put("shards/s/part-1", new byte[] {1, 2, 3, 4});
        client().putObject(r -> r.bucket(BUCKET).key("damaged/shards/s/part-1"), RequestBody.fromBytes(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17}));
        assertThatThrownBy(() -> s3.get("shards/s/part-1")).isInstanceOf(CorruptDataException.class)
                .hasMessageContaining("s3://tributary/damaged/shards/s/part-1");
    }

    @Test
    void aBucketThatIsNotThereIsAStorageErrorNamingIt() throws Exception {
        S3Blob s3 = new S3Blob(client(), "no-such-bucket", "");
        assertThatThrownBy(() -> s3.put("k", new byte[] {1})).isInstanceOf(StorageException.class).hasMessageContaining("no-such-bucket");
        assertThatThrownBy(() -> new S3Blob(client(), BUCKET, "no-slash")).isInstanceOf(IllegalArgumentException.class);
    }

    /** The tables' log as `serve --blob s3://... --consensus postgres://...` runs it: parts in S3, the log and shard states in PostgreSQL. */
    @Test
    void theTablesLogOnS3AndPostgresSurvivesACrash() throws Exception {
        String table = "consensus_txns_" + PREFIXES.incrementAndGet();
        try (PostgresConsensus consensus = new PostgresConsensus(TestPostgres.url(), table)) {
            TxnLog crashed = TxnLog.open(blob, consensus, m -> {});
            crashed.append(1, java.util.Map.of(1L, TxnLogTest.manyRows(30_000, 1))).get(60, java.util.concurrent.TimeUnit.SECONDS);
            crashed.append(2, java.util.Map.of(1L, TxnLogTest.rows(2, "row 7", -1L, "extra", 1L), 2L, TxnLogTest.rows(2, "b", 1L)))
                    .get(60, java.util.concurrent.TimeUnit.SECONDS);
            // never closed: a crash, as far as the stores know
            TxnLog again = TxnLog.open(blob, consensus, m -> {});
            java.util.Map<String, Long> one = TxnLogTest.contents(again.table(1, Long.MAX_VALUE));
            assertThat(one).hasSize(30_000).containsEntry("extra", 1L).doesNotContainKey("row 7");
            assertThat(TxnLogTest.contents(again.table(2, Long.MAX_VALUE))).containsExactly(java.util.Map.entry("b", 1L));
            again.close();
            assertThat(StorageCheck.check(blob, consensus).problems()).isEmpty();
        }
    }

    /** A shard whose parts are in S3 and whose state is in the local log: appends, reads and compaction. */
    @Test
    void aShardKeepsItsPartsInS3() throws Exception {
        try (FileConsensus consensus = new FileConsensus(java.nio.file.Files.createTempDirectory("s3shard"))) {
            Shard shard = Shard.open(blob, consensus, "orders", 1);
            Shard.Writer w = shard.openWriter();
            for (int t = 0; t < 6; t++) {
                w.compareAndAppend(ShardTest.rows(t, "row" + t, 1), dev.tributary.timely.Antichain.of(t), dev.tributary.timely.Antichain.of(t + 1));
            }
            shard.compact();
            assertThat(ShardTest.contents(shard.snapshot(new long[] {5}))).hasSize(6);
            assertThat(StorageCheck.check(blob, consensus).problems()).isEmpty();
        }
    }
}
