package io.lfbloom;

/**
 * A cuckoo filter that grows, and removes keys: {@link ScalableBloomFilter}'s list of
 * sub-filters, each a {@link CuckooFilter} of the fingerprint width with the fewest bytes for its
 * rate. Their fingerprints (17 bits at most) reach no rate below about 0.003%, so the chain ends
 * ({@link LfbloomException#isFull()}) at the first sub-filter that would need a lower one: 5
 * sub-filters at fpp 0.1% with the default tightening 0.5, more with 0.8-0.9.
 *
 * <p><b>Contract.</b> No false negative for a key put (and not removed since) whose put
 * happened-before the query, while other threads put, remove and grow it. A put stores a copy of
 * the key even if it is present, in the sub-filter already holding it if that has room, else in
 * the oldest below its capacity (true: no sub-filter matched it before),
 * so a key put twice must be removed twice; the ninth copy (the eleventh at 14-bit fingerprints) in one sub-filter is refused
 * ({@link LfbloomException#isTooManyDuplicates()}), and a sub-filter with no free slot
 * passes the put on to a later or a new one. Call {@code remove} only after the put it cancels has returned:
 * removing a key never put, or one whose put is still under way, can remove another key's copy,
 * and here for good (the late put lands in another sub-filter). The room removes free takes later
 * puts, so under churn the chain grows only while the live set outgrows it.
 *
 * <p><b>Thread safety.</b> Every method may be called from any number of threads at once. Queries
 * never lock; puts and removes lock one stripe of buckets of one sub-filter at a time; growth is
 * lock-free. {@link #close()} as for BloomFilter.
 */
public final class ScalableCuckooFilter extends KeyFilter {
    private ScalableCuckooFilter(long nativeHandle) {
        super(nativeHandle, LfbNative::lfb_scalable_free, LfbNative::lfb_scalable_add, LfbNative::lfb_scalable_contains,
                LfbNative::lfb_scalable_add_many, LfbNative::lfb_scalable_contains_many);
    }

    /** Starts at {@code initialCapacity} keys; growth 2, tightening 0.5, at most 32 sub-filters. */
    public static ScalableCuckooFilter create(long initialCapacity, double fpp) {
        return create(initialCapacity, fpp, 2.0, 0.5, 32, BloomFilter.Options.defaults());
    }

    /**
     * As {@link ScalableBloomFilter#create(long, double, double, double, int, BloomFilter.Options)};
     * of the options only the seed and the memory limit apply. An fpp whose first sub-filter
     * would need a rate below about 0.003% throws IllegalArgumentException.
     */
    public static ScalableCuckooFilter create(long initialCapacity, double fpp, double growth, double tightening,
            int maxFilters, BloomFilter.Options options) {
        if (options == null) throw new IllegalArgumentException("options is null");
        long[] nativeOptions = options.toNative(4);
        nativeOptions[0] = Native.LAYOUT_CUCKOO;
        return new ScalableCuckooFilter(
                ScalableBloomFilter.createNative(initialCapacity, fpp, growth, tightening, maxFilters, nativeOptions));
    }

    /**
     * Removes one copy of the key: true if one was removed, false if no sub-filter holds one. A
     * key that matches in two sub-filters (its own second copy after a growth, or another key of
     * the same fingerprint and buckets there) is not removed, since the copy taken could be
     * another key's: that throws {@link LfbloomException} with {@link LfbloomException#isAmbiguous()},
     * and the key stays (a false positive). Blocks only on writers of the same bucket stripe.
     */
    public boolean remove(byte[] key) {
        return handle.call(LfbNative::lfb_scalable_remove, Native.buffers().key(key)) == 1;
    }

    /** As {@link #remove(byte[])}, for the UTF-8 bytes of the key. */
    public boolean remove(CharSequence key) {
        return handle.call(LfbNative::lfb_scalable_remove, Native.buffers().key(key)) == 1;
    }

    /** As {@link #remove(byte[])}, for the 8 little-endian bytes of the key. */
    public boolean remove(long key) {
        return handle.call(LfbNative::lfb_scalable_remove, Native.buffers().key(key)) == 1;
    }

    /** Removes refused as ambiguous so far. */
    public long ambiguousRemoves() {
        long[] n = new long[1];
        handle.call(h -> LfbNative.lfb_scalable_ambiguous_removes(h, n));
        return n[0];
    }

    /** Sub-filters so far (at least 1). */
    public int subFilters() {
        return ScalableBloomFilter.subFilters(handle);
    }

    /** Sub-filter {@code index}, 0 the oldest. */
    public ScalableBloomFilter.SubFilter subFilter(int index) {
        return ScalableBloomFilter.subFilter(handle, index);
    }

    /** The whole filter, as {@link ScalableBloomFilter#stats()}: layout "cuckoo", slots are fingerprint slots. */
    @Override
    public Stats stats() {
        return ScalableBloomFilter.stats(handle);
    }
}
