package io.lfbloom;

import java.nio.ByteBuffer;
import java.util.Collection;
import java.util.List;
import java.util.function.LongPredicate;
import java.util.function.Predicate;
import java.util.stream.LongStream;

/**
 * What every lfbloom filter answers, whatever its kind: {@link BloomFilter},
 * {@link CountingBloomFilter}, {@link CuckooFilter} and the composites ({@link ScalableBloomFilter},
 * {@link ScalableCuckooFilter}, {@link RotatingBloomFilter}, {@link SwappableBloomFilter}), so code
 * that only puts and queries can take any of them. Every class implements it over one native
 * handle, the same way.
 *
 * <p><b>Contract.</b> {@code mightContain} never returns false for a key whose {@code put}
 * happened-before the query, until the kind's own way of forgetting takes it: a remove, a clear,
 * a rotation's expiry ({@link RotatingBloomFilter}), a replace ({@link SwappableBloomFilter}).
 *
 * <p><b>Thread safety.</b> Every method may be called from any number of threads at once; puts
 * racing with a query may or may not be seen, and there is no ordering between different keys.
 *
 * <p><b>Closing.</b> After {@link #close()} every method throws {@link IllegalStateException},
 * whatever its arguments, except {@code close()} itself (idempotent) and {@code equals},
 * {@code hashCode} and {@code toString} (a closed filter equals only itself). Calls racing with
 * close complete or throw IllegalStateException; none can crash the JVM. A predicate from
 * {@link #asPredicate()} follows its filter: it throws IllegalStateException once that is closed.
 *
 * <p><b>Errors.</b> {@link IllegalArgumentException} for a bad argument (a null key, a null key
 * inside a batch: the batch then did nothing), {@link LfbloomException} for everything else. A kind
 * that can refuse a put (a cuckoo filter, a scalable filter at its cap) throws LfbloomException,
 * having changed nothing; a refused {@code putAll} has put the keys before the refused one, and
 * {@link LfbloomException#keysDone()} is that key's index in the whole collection, array or stream.
 *
 * <p><b>Keys</b> are bytes: a {@code byte[]}, the UTF-8 bytes of a {@code CharSequence} (as Guava's
 * {@code Funnels.stringFunnel(UTF_8)}), the 8 little-endian bytes of a {@code long} (as
 * {@code Funnels.longFunnel()}), or the remaining bytes of a {@code ByteBuffer}. The batch calls
 * ({@code putAll}, {@code mightContainAll}) take thousands of keys per native call, in chunks, so
 * no collection however big is copied into one buffer; they are much faster than a loop.
 */
public interface Filter extends AutoCloseable {
    /** Adds a key; true if it was new to the filter (what "new" means is the kind's). Any thread. */
    boolean put(byte[] key);

    /** Adds the UTF-8 bytes of the key. Any thread. */
    boolean put(CharSequence key);

    /** Adds the 8 little-endian bytes of the key. Any thread. */
    boolean put(long key);

    /** Adds the bytes from the buffer's position to its limit; the position is unchanged. Any thread. */
    boolean put(ByteBuffer key);

    /** True if the key may have been put; false means it certainly was not. Any thread, lock-free. */
    boolean mightContain(byte[] key);

    /** As {@link #mightContain(byte[])}, for the UTF-8 bytes of the key. Any thread. */
    boolean mightContain(CharSequence key);

    /** As {@link #mightContain(byte[])}, for the 8 little-endian bytes of the key. Any thread. */
    boolean mightContain(long key);

    /** As {@link #mightContain(byte[])}, for the bytes from the buffer's position to its limit. Any thread. */
    boolean mightContain(ByteBuffer key);

    /** Puts every key, in order, in batches; returns how many were new. Any thread. */
    long putAll(List<byte[]> keys);

    /** Puts the UTF-8 bytes of every key, in order, in batches; returns how many were new. Any thread (since 1.9). */
    long putAll(Collection<? extends CharSequence> keys);

    /**
     * Puts the 8 little-endian bytes of every key, in order, in batches; returns how many were new.
     * Any thread (since 1.9).
     */
    long putAll(long[] keys);

    /**
     * Puts every key the stream gives (consuming it), in order, in batches; returns how many were new.
     * Any thread (since 1.9).
     */
    long putAll(LongStream keys);

    /**
     * Puts every key in a parallel bulk build on {@code threads} threads (0: one per CPU): the
     * filter ends as after putting them one by one, a filter larger than the cache faster than
     * with putAll; no count of new keys. IllegalArgumentException for a negative {@code threads}.
     * Any thread, beside any other call; every key is present when it returns (since 1.11).
     */
    void putAllBulk(List<byte[]> keys, int threads);

    /** As {@link #putAllBulk(List, int)}, for the UTF-8 bytes of every key. Any thread (since 1.11). */
    void putAllBulk(Collection<? extends CharSequence> keys, int threads);

    /** As {@link #putAllBulk(List, int)}, for the 8 little-endian bytes of every key. Any thread (since 1.11). */
    void putAllBulk(long[] keys, int threads);

    /** Queries every key in batches; element i answers for keys.get(i). Any thread. */
    boolean[] mightContainAll(List<byte[]> keys);

    /**
     * Queries the UTF-8 bytes of every key in batches; element i answers for the i-th key in iteration
     * order. Any thread (since 1.9).
     */
    boolean[] mightContainAll(Collection<? extends CharSequence> keys);

    /** Queries every key's 8 little-endian bytes in batches; element i answers for keys[i]. Any thread (since 1.9). */
    boolean[] mightContainAll(long[] keys);

    /**
     * {@link #mightContain(CharSequence)} as a predicate, for streams ({@code names.filter(seen.asPredicate())})
     * and APIs that take one, as Guava's BloomFilter is one. Any thread (since 1.9).
     */
    Predicate<CharSequence> asPredicate();

    /** {@link #mightContain(long)} as a predicate ({@code ids.filter(seen.asLongPredicate())}). Any thread (since 1.9). */
    LongPredicate asLongPredicate();

    /** Parameters and fill, read while other threads may write (O(size) for most kinds). Any thread. */
    Stats stats();

    /**
     * The shape and counters that do not depend on the contents, without reading the filter:
     * O(1) (composites: O(sub-filters)). Any thread (since 1.9).
     */
    Geometry geometry();

    /**
     * The bits of the filter's arrays ({@code geometry().bytes() * 8}; a Bloom filter's m, as Guava's
     * bitSize): O(1). Any thread (since 1.9).
     */
    long bitSize();

    /** Distinct keys estimated from the fill, as Guava's approximateElementCount. Any thread. */
    long approximateElementCount();

    /** The false-positive probability expected now, from the fill, as Guava's expectedFpp. Any thread. */
    double expectedFpp();

    /**
     * Frees the native filter; idempotent, thread-safe (it waits for calls in flight). Every later
     * call but equals, hashCode and toString throws IllegalStateException.
     */
    @Override
    void close();
}
