package io.lfbloom;

import java.io.IOException;
import java.io.InputStream;

/**
 * A Bloom filter with a small saturating counter per slot, so keys can be removed; any number of
 * threads add, remove and query at once, without locks.
 *
 * <p><b>Contract.</b> As {@link BloomFilter}: no false negative for a key put (and not removed
 * since) whose put happened-before the query, provided no key is removed more often than it was
 * put. Removing a key never put can cause false negatives for other keys; that is inherent to
 * counting filters. A counter that reaches its maximum (15 for 4-bit counters, 255 for 8-bit)
 * stays there for good, so overflow never causes a false negative.
 *
 * <p><b>Thread safety.</b> Every method may be called from any number of threads at once;
 * {@link #close()} as for BloomFilter. {@code put} returns true if one of the key's counters was
 * zero (the key was absent). {@link #remove} returns false and changes nothing if one of the
 * key's counters is zero.
 */
public final class CountingBloomFilter extends RemovingFilter<CountingBloomFilter> {
    private CountingBloomFilter(long nativeHandle) {
        super(nativeHandle);
    }

    @Override
    CountingBloomFilter wrap(long nativeHandle) {
        return new CountingBloomFilter(nativeHandle);
    }

    /** {@inheritDoc} (Declared here so that its return type is this class, as since 1.8 for CuckooFilter.) */
    @Override
    public CountingBloomFilter copy() {
        return super.copy();
    }

    /** 4-bit counters, sized so that after {@code expectedInsertions} keys the FPP is at most {@code fpp}. */
    public static CountingBloomFilter create(long expectedInsertions, double fpp) {
        return create(expectedInsertions, fpp, 4, BloomFilter.Options.defaults());
    }

    /** What {@code create(expectedInsertions, fpp, counterBits, options)} would make, without making it. */
    public static Plan plan(long expectedInsertions, double fpp, int counterBits) {
        return Plan.of(Native.LAYOUT_COUNTING, expectedInsertions, fpp, counterBits);
    }

    /** {@code counterBits} is 4 or 8; the options' layout is ignored (counting filters are blocked). */
    public static CountingBloomFilter create(long expectedInsertions, double fpp, int counterBits, BloomFilter.Options options) {
        if (options == null) throw new IllegalArgumentException("options is null");
        checkedBits(counterBits);  // before the spec exists: nothing to delete on a throw
        lfb_spec spec = options.spec(Native.LAYOUT_COUNTING, expectedInsertions, fpp);
        spec.setCounter_bits(counterBits);
        return new CountingBloomFilter(created(spec));
    }

    /**
     * Exactly {@code counters} counters (a multiple of 128 for 4-bit counters, 64 for 8-bit) and
     * {@code hashes} probes (1..255), since 1.9; the options' layout is ignored.
     */
    public static CountingBloomFilter withGeometry(long counters, int hashes, int counterBits, BloomFilter.Options options) {
        if (counters <= 0 || hashes <= 0) throw new IllegalArgumentException("counters and hashes must be > 0");
        if (options == null) throw new IllegalArgumentException("options is null");
        checkedBits(counterBits);  // before the spec exists: nothing to delete on a throw
        lfb_spec spec = options.geometrySpec(Native.LAYOUT_COUNTING, counters, hashes);
        spec.setCounter_bits(counterBits);
        return new CountingBloomFilter(created(spec));
    }

    private static void checkedBits(int counterBits) {
        if (counterBits != 4 && counterBits != 8) throw new IllegalArgumentException("counterBits must be 4 or 8");
    }

    /** Adds {@code other}'s counters to this filter's, saturating (a multiset sum); geometry, width and seed must match. */
    public void merge(CountingBloomFilter other) {
        union(other);
    }

    /**
     * Lowers each counter to {@code other}'s where that is smaller (since 1.9): a key in both stays
     * removable as often as the smaller filter allows. Geometry, width and seed must match.
     * Any thread; puts racing with it may be lost.
     */
    public void intersect(CountingBloomFilter other) {
        intersection(other);
    }

    /** Reads a counting filter written by {@link #save}; corrupt or foreign data, or another kind, throws IOException. */
    public static CountingBloomFilter load(InputStream in) throws IOException {
        return new CountingBloomFilter(loaded(in, Native.defaultReadLimit(), "a counting filter", Native.LAYOUT_COUNTING));
    }
}
