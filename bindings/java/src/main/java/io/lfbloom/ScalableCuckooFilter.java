package io.lfbloom;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

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
 * so a key put twice must be removed twice; the ninth copy (the eleventh at 14-bit fingerprints) in
 * one sub-filter is refused
 * ({@link LfbloomException#isTooManyDuplicates()}), and a sub-filter with no free slot
 * passes the put on to a later or a new one. Call {@code remove} only after the put it cancels has returned:
 * removing a key never put, or one whose put is still under way, can remove another key's copy,
 * and here for good (the late put lands in another sub-filter). The room removes free takes later
 * puts, so under churn the chain grows only while the live set outgrows it.
 *
 * <p><b>Thread safety.</b> Every method may be called from any number of threads at once. Queries
 * never lock; puts and removes lock one stripe of buckets of one sub-filter at a time; growth is
 * lock-free. {@link #close()} as for BloomFilter. It has no copy or comparison: it equals only
 * itself. It saves and loads ({@link #save}, {@link #load}) in lfbloom's own format, which every
 * language reads.
 */
public final class ScalableCuckooFilter extends RemovingFilter {
    private ScalableCuckooFilter(long nativeHandle) {
        super(nativeHandle);
    }

    /** Starts at {@code initialCapacity} keys; growth 2, tightening 0.5, at most 32 sub-filters. Any thread. */
    public static ScalableCuckooFilter create(long initialCapacity, double fpp) {
        return create(initialCapacity, fpp, 2.0, 0.5, 32, BloomFilter.Options.defaults());
    }

    /**
     * As {@link ScalableBloomFilter#create(long, double, double, double, int, BloomFilter.Options)};
     * of the options only the seed and the memory limit apply. An fpp whose first sub-filter
     * would need a rate below about 0.003% throws IllegalArgumentException. Any thread.
     */
    public static ScalableCuckooFilter create(long initialCapacity, double fpp, double growth, double tightening,
            int maxFilters, BloomFilter.Options options) {
        if (options == null) throw new IllegalArgumentException("options is null");
        ScalableBloomFilter.checkGrowth(growth, tightening, maxFilters);
        lfb_spec spec = options.spec(lfb_kind_enum.LFB_KIND_SCALABLE, initialCapacity, fpp);  // the layout is not the sub-filters'
        return new ScalableCuckooFilter(
                created(ScalableBloomFilter.spec(spec, lfb_kind_enum.LFB_KIND_CUCKOO, growth, tightening, maxFilters)));
    }

    /**
     * Removes one copy of the key: true if one was removed or the remove deferred, false if no
     * sub-filter holds one (an answer, not an exception). A key that matches in two sub-filters
     * (its own second copy after a growth, or another key of the same fingerprint and buckets
     * there) cannot lose a copy at once, since the copy taken could be another key's: the remove
     * is deferred and answers true (done: do not repeat it), and the key stays, a false positive,
     * until it matches in one sub-filter (mostly once the other key is removed) or its own two
     * copies are both removed; a {@code put} of the key meanwhile takes the waiting remove instead
     * of storing a copy. Only with too many removes waiting already (max(64, capacity / 256)) is
     * one refused: that throws {@link LfbloomException} with {@link LfbloomException#isAmbiguous()},
     * and the key stays. Blocks only on writers of the same bucket stripe, and to defer on the
     * filter's list of waiting removes. Any thread.
     */
    @Override
    public boolean remove(byte[] key) {
        return super.remove(key);
    }

    /** As {@link #remove(byte[])}, for the UTF-8 bytes of the key. Any thread. */
    @Override
    public boolean remove(CharSequence key) {
        return super.remove(key);
    }

    /** As {@link #remove(byte[])}, for the 8 little-endian bytes of the key. Any thread. */
    @Override
    public boolean remove(long key) {
        return super.remove(key);
    }

    /**
     * As {@link RemovingFilter#removeAll}, except that a key refused as ambiguous (see {@link #remove(byte[])})
     * stops the batch there: LfbloomException with {@link LfbloomException#isAmbiguous()} and
     * {@link LfbloomException#keysDone()} its index; the keys before it were removed. Since 1.9. Any thread.
     */
    @Override
    public boolean[] removeAll(java.util.List<byte[]> keys) {
        return super.removeAll(keys);
    }

    /** Removes refused as ambiguous so far (deferred ones are not): O(1). Any thread. */
    public long ambiguousRemoves() {
        return geometry().ambiguousRemoves();
    }

    /** Sub-filters so far (at least 1): O(1). Any thread. */
    public int subFilters() {
        return geometry().parts();
    }

    /** Sub-filter {@code index}, 0 the oldest: O(its size). IllegalArgumentException past the newest. Any thread. */
    public ScalableBloomFilter.SubFilter subFilter(int index) {
        return part(index, ScalableBloomFilter::subFilterOf);
    }

    /**
     * The whole filter, as {@link ScalableBloomFilter#stats()}: layout "cuckoo", slots are fingerprint
     * slots. Any thread.
     */
    @Override
    public Stats stats() {
        return super.stats();
    }

    // ---- streams ------------------------------------------------------------------------------

    /**
     * Writes the filter in lfbloom's own format (docs/FORMAT.md; the composites' part is described
     * in core/include/lfbloom/io/composite_format.hpp): its settings, every sub-filter and the removes
     * waiting; any process or language loads it. Any thread: it holds every put
     * that completed before it began, also while the filter grows; puts and removes wait while a
     * sub-filter is copied, and the list of waiting removes is held still through the save.
     */
    public void save(OutputStream out) throws IOException {
        write(out, lfb_format_enum.LFB_FORMAT_NATIVE);
    }

    /**
     * Reads a scalable cuckoo filter written by {@link #save} (in any language), exactly its bytes:
     * the same sub-filters, waiting removes and settings. Corrupt data, or a filter of another
     * kind, throws IOException; a {@link ScalableBloomFilter}'s data too, from its header. Any thread.
     */
    public static ScalableCuckooFilter load(InputStream in) throws IOException {
        return load(in, Native.defaultReadLimit());
    }

    /**
     * As {@link #load(InputStream)}, refusing filters over {@code maxBytes} (positive, else
     * IllegalArgumentException), and a filter of another kind but a scalable Bloom filter, from
     * the header alone. Any thread.
     */
    public static ScalableCuckooFilter load(InputStream in, long maxBytes) throws IOException {
        return new ScalableCuckooFilter(
                ScalableBloomFilter.loadedScalable(in, maxBytes, lfb_kind_enum.LFB_KIND_CUCKOO, "a scalable cuckoo filter"));
    }
}
