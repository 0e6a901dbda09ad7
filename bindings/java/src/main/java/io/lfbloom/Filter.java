package io.lfbloom;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * What every lfbloom filter answers, whatever its kind: {@link BloomFilter},
 * {@link CountingBloomFilter}, {@link CuckooFilter} and the composites ({@link ScalableBloomFilter},
 * {@link ScalableCuckooFilter}, {@link RotatingBloomFilter}, {@link SwappableBloomFilter}), so code
 * that only puts and queries can take any of them.
 *
 * <p><b>Contract.</b> {@code mightContain} never returns false for a key whose {@code put}
 * happened-before the query, until the kind's own way of forgetting takes it: a remove, a clear,
 * a rotation's expiry ({@link RotatingBloomFilter}), a replace ({@link SwappableBloomFilter}).
 * Every method may be called from any number of threads at once; puts racing with a query may or
 * may not be seen.
 * {@link #close()} is idempotent and thread-safe: calls racing with it complete or throw
 * IllegalStateException, none can crash the JVM. A kind that can refuse a put (a cuckoo filter, a
 * scalable filter at its cap) throws {@link LfbloomException}, having changed nothing; a cuckoo
 * filter's {@link #putAll} reports how far it got ({@link LfbloomException#keysDone()}).
 *
 * <p>Keys are bytes: a {@code byte[]}, the UTF-8 bytes of a {@code CharSequence}, the 8
 * little-endian bytes of a {@code long}, or the remaining bytes of a {@code ByteBuffer}.
 */
public interface Filter extends AutoCloseable {
    /** Adds a key; true if it was new to the filter (what "new" means is the kind's). */
    boolean put(byte[] key);

    /** Adds the UTF-8 bytes of the key. */
    boolean put(CharSequence key);

    /** Adds the 8 little-endian bytes of the key. */
    boolean put(long key);

    /** Adds the bytes from the buffer's position to its limit; the position is unchanged. */
    boolean put(ByteBuffer key);

    /** True if the key may have been put; false means it certainly was not. */
    boolean mightContain(byte[] key);

    /** As {@link #mightContain(byte[])}, for the UTF-8 bytes of the key. */
    boolean mightContain(CharSequence key);

    /** As {@link #mightContain(byte[])}, for the 8 little-endian bytes of the key. */
    boolean mightContain(long key);

    /** As {@link #mightContain(byte[])}, for the bytes from the buffer's position to its limit. */
    boolean mightContain(ByteBuffer key);

    /** Adds every key in one native call; returns how many were new. */
    long putAll(List<byte[]> keys);

    /** Queries every key in one native call; element i answers for keys.get(i). */
    boolean[] mightContainAll(List<byte[]> keys);

    /** Parameters and fill, read while other threads may write (O(size) for most kinds). */
    Stats stats();

    /** Distinct keys estimated from the fill, as Guava's approximateElementCount. */
    long approximateElementCount();

    /** The false-positive probability expected now, from the fill, as Guava's expectedFpp. */
    double expectedFpp();

    /** Frees the native filter; idempotent, thread-safe. Later calls throw IllegalStateException. */
    @Override
    void close();
}
