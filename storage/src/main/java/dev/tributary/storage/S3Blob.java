package dev.tributary.storage;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * A {@link Blob} in a bucket of any S3-compatible store (AWS S3, MinIO, ...): the at-scale
 * option of DESIGN section 9. Each key is the object {@code prefix + key}. S3 makes a PUT atomic
 * and durable before it answers; each object ends in a {@link BlobTrailer} as files do, so a
 * damaged object is a {@link CorruptDataException} naming it. Errors of the store or the network
 * are {@link StorageException}s naming the bucket and key; the client retries a few times first.
 */
public final class S3Blob implements Blob {
    private final S3Client client;
    private final String bucket;
    private final String prefix;
    private volatile boolean closed;

    /** A store in {@code bucket} under {@code prefix} ("" or ending in '/'), through {@code client}. */
    public S3Blob(S3Client client, String bucket, String prefix) {
        if (!prefix.isEmpty() && !prefix.endsWith("/")) throw new IllegalArgumentException("an S3 blob prefix is empty or ends in '/'; got '" + prefix + "'");
        this.client = client;
        this.bucket = bucket;
        this.prefix = prefix;
    }

    /**
     * A client for the store at {@code endpoint} (null: AWS's for the region) with static
     * credentials, addressing buckets by path (as MinIO and other S3-compatible servers expect).
     * Checksums are sent and checked only where S3 requires them: the objects carry their own.
     */
    public static S3Client client(URI endpoint, String region, String accessKey, String secretKey) {
        var b = S3Client.builder()
                .region(Region.of(region))
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKey, secretKey)))
                .httpClientBuilder(UrlConnectionHttpClient.builder())
                .forcePathStyle(true)
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED);
        if (endpoint != null) b.endpointOverride(endpoint);
        return b.build();
    }

    private String object(String key) {
        return prefix + Blob.checkKey(key);
    }

    private StorageException failed(String what, String key, SdkException e) {
        return new StorageException("S3 bucket '" + bucket + "' could not " + what + " '" + prefix + key + "': " + e.getMessage(), e);
    }

    private void checkOpen() {
        if (closed) throw new IllegalStateException("the S3 blob store of bucket '" + bucket + "' is closed");
    }

    @Override
    public Optional<byte[]> get(String key) {
        checkOpen();
        String name = object(key);
        try {
            byte[] stored = client.getObjectAsBytes(r -> r.bucket(bucket).key(name)).asByteArray();
            return Optional.of(BlobTrailer.open(stored, "blob '" + key + "' (s3://" + bucket + "/" + name + ")"));
        } catch (NoSuchKeyException e) {
            return Optional.empty();
        } catch (SdkException e) {
            throw failed("read", key, e);
        }
    }

    @Override
    public void put(String key, byte[] value) {
        checkOpen();
        String name = object(key);
        try {
            client.putObject(r -> r.bucket(bucket).key(name), RequestBody.fromBytes(BlobTrailer.seal(value)));
        } catch (SdkException e) {
            throw failed("write", key, e);
        }
    }

    @Override
    public void delete(String key) {
        checkOpen();
        String name = object(key);
        try {
            client.deleteObject(r -> r.bucket(bucket).key(name));
        } catch (SdkException e) {
            throw failed("delete", key, e);
        }
    }

    @Override
    public List<String> list(String keyPrefix) {
        checkOpen();
        List<String> keys = new ArrayList<>();
        try {
            String token = null;
            do {
                ListObjectsV2Request.Builder req = ListObjectsV2Request.builder().bucket(bucket).prefix(prefix + keyPrefix);
                if (token != null) req.continuationToken(token);
                ListObjectsV2Response page = client.listObjectsV2(req.build());
                for (S3Object o : page.contents()) keys.add(o.key().substring(prefix.length()));
                token = Boolean.TRUE.equals(page.isTruncated()) ? page.nextContinuationToken() : null;
            } while (token != null);
        } catch (SdkException e) {
            throw failed("list", keyPrefix + "*", e);
        }
        keys.sort(null);
        return keys;
    }

    @Override
    public void close() {
        closed = true;
    }
}
