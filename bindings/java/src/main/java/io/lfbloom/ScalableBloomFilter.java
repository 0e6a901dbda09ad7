package io.lfbloom;

/**
 * A Bloom filter that grows when more keys arrive than expected: a list of sub-filters, each
 * {@code growth} times larger than the last with a rate {@code tightening} times smaller, so the
 * total false-positive probability stays below the configured one however many there are (the
 * sum fpp·(1−r)·(1 + r + r² + …) is below fpp). Puts go to the newest sub-filter; queries check
 * all of them, so a query costs one cache miss per sub-filter.
 *
 * <p><b>Contract.</b> As {@link BloomFilter}: no false negative for a key whose put
 * happened-before the query, also while the filter grows. When the cap on sub-filters or memory
 * is reached, a put of a new key throws {@link LfbloomException} with {@link LfbloomException#isFull()}
 * and changes nothing; {@code putAll} then has added the keys before the refused one.
 *
 * <p><b>Thread safety.</b> Every method may be called from any number of threads at once. Growth
 * is lock-free: nobody waits; one successor is installed per sub-filter. {@link #close()} as for
 * BloomFilter.
 */
public final class ScalableBloomFilter extends KeyFilter {
    /**
     * One sub-filter, as RedisBloom's BF.INFO lists them: its statistics and the puts it counted
     * as new (a {@link ScalableCuckooFilter}'s: the copies stored in it, less
     * those removed).
     */
    public record SubFilter(Stats stats, long items) {}

    private ScalableBloomFilter(long nativeHandle) {
        super(nativeHandle, LfbNative::lfb_scalable_free, LfbNative::lfb_scalable_add, LfbNative::lfb_scalable_contains,
                LfbNative::lfb_scalable_add_many, LfbNative::lfb_scalable_contains_many);
    }

    /** Starts at {@code initialCapacity} keys; growth 2, tightening 0.5, at most 32 sub-filters. */
    public static ScalableBloomFilter create(long initialCapacity, double fpp) {
        return create(initialCapacity, fpp, 2.0, 0.5, 32, BloomFilter.Options.defaults());
    }

    /**
     * @param growth      capacity ratio of consecutive sub-filters, in [1, 1024]
     * @param tightening  rate ratio of consecutive sub-filters, in (0, 1)
     * @param maxFilters  cap on sub-filters, 1..64
     * @param options     seed, and a memory limit on the sum of sub-filters; layout must be BLOCKED
     */
    public static ScalableBloomFilter create(long initialCapacity, double fpp, double growth, double tightening,
            int maxFilters, BloomFilter.Options options) {
        if (options == null) throw new IllegalArgumentException("options is null");
        return new ScalableBloomFilter(createNative(initialCapacity, fpp, growth, tightening, maxFilters, options.toNative(4)));
    }

    /** The C filter, after the checks both kinds of sub-filter share; nativeOptions is an lfb_options. */
    static long createNative(long initialCapacity, double fpp, double growth, double tightening, int maxFilters,
            long[] nativeOptions) {
        if (initialCapacity <= 0) throw new IllegalArgumentException("initialCapacity must be > 0");
        if (!(fpp > 0 && fpp < 1)) throw new IllegalArgumentException("fpp must be in (0, 1), got " + fpp);
        if (!(growth >= 1 && growth <= 1024)) throw new IllegalArgumentException("growth must be in [1, 1024]");
        if (!(tightening > 0 && tightening < 1)) throw new IllegalArgumentException("tightening must be in (0, 1)");
        if (maxFilters < 1 || maxFilters > 64) throw new IllegalArgumentException("maxFilters must be in 1..64");
        Native.load();
        long[] out = new long[1];
        return Native.handleOf(
                LfbNative.lfb_scalable_create(initialCapacity, fpp, growth, tightening, maxFilters, nativeOptions, out), out);
    }

    /** Sub-filters so far (at least 1). */
    public int subFilters() {
        return subFilters(handle);
    }

    /** Sub-filter {@code index}, 0 the oldest. */
    public SubFilter subFilter(int index) {
        return subFilter(handle, index);
    }

    /**
     * The whole filter: sums over sub-filters; targetFpp is the configured bound; nearCapacity is
     * true once the newest is near capacity and no further sub-filter is allowed.
     */
    @Override
    public Stats stats() {
        return stats(handle);
    }

    // Shared with ScalableCuckooFilter, the same C handle type.
    static int subFilters(NativeHandle handle) {
        return handle.call(LfbNative::lfb_scalable_filters);
    }

    static SubFilter subFilter(NativeHandle handle, int index) {
        if (index < 0) throw new IllegalArgumentException("index must be >= 0");
        long[] items = new long[1];
        Stats stats = Stats.of(handle.stats((h, v) -> LfbNative.lfb_scalable_filter_stats(h, index, v, items)));
        return new SubFilter(stats, items[0]);
    }

    static Stats stats(NativeHandle handle) {
        return Stats.of(handle.stats(LfbNative::lfb_scalable_stats));
    }
}
