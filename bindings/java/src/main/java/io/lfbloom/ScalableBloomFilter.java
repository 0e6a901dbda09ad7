package io.lfbloom;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

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
 * and changes nothing; {@code putAll} then has added the keys before the refused one, and
 * {@link LfbloomException#keysDone()} is that key's index.
 *
 * <p><b>Thread safety.</b> Every method may be called from any number of threads at once. Growth
 * is lock-free: nobody waits; one successor is installed per sub-filter. {@link #close()} as for
 * BloomFilter. A scalable filter has no copy or comparison: it equals only itself. It saves and
 * loads ({@link #save}, {@link #load}) in lfbloom's own format, which every language reads.
 */
public final class ScalableBloomFilter extends HandleFilter {
    /**
     * One sub-filter, as RedisBloom's BF.INFO lists them: its statistics and the puts it counted
     * as new (a {@link ScalableCuckooFilter}'s: the copies stored in it, less
     * those removed).
     */
    public record SubFilter(Stats stats, long items) {}

    private ScalableBloomFilter(long nativeHandle) {
        super(nativeHandle);
    }

    /** Starts at {@code initialCapacity} keys; growth 2, tightening 0.5, at most 32 sub-filters. Any thread. */
    public static ScalableBloomFilter create(long initialCapacity, double fpp) {
        return create(initialCapacity, fpp, 2.0, 0.5, 32, BloomFilter.Options.defaults());
    }

    /**
     * @param growth      capacity ratio of consecutive sub-filters, in [1, 2^32]
     * @param tightening  rate ratio of consecutive sub-filters, in (0, 1)
     * @param maxFilters  cap on sub-filters, 1..255 (a scalable cuckoo filter: 1..64)
     * @param options     seed, and a memory limit on the sum of sub-filters; layout must be BLOCKED
     * Any thread.
     */
    public static ScalableBloomFilter create(long initialCapacity, double fpp, double growth, double tightening,
            int maxFilters, BloomFilter.Options options) {
        if (options == null) throw new IllegalArgumentException("options is null");
        checkGrowth(growth, tightening, maxFilters);
        return new ScalableBloomFilter(created(spec(options.blockedSpec(lfb_kind_enum.LFB_KIND_SCALABLE, initialCapacity, fpp),
                lfb_kind_enum.LFB_KIND_BLOCKED, growth, tightening, maxFilters)));
    }

    /** Checked here: the C spec reads 0 as "the default", which these parameters must not mean. */
    static void checkGrowth(double growth, double tightening, int maxFilters) {
        if (!(growth >= 1 && growth <= 0x1p32)) throw new IllegalArgumentException("growth must be in [1, 2^32]");
        if (!(tightening > 0 && tightening < 1)) throw new IllegalArgumentException("tightening must be in (0, 1)");
        if (maxFilters < 1 || maxFilters > 255) throw new IllegalArgumentException("maxFilters must be in 1..255");
    }

    /** A scalable spec (kind, capacity, rate, seed and memory limit set) completed with its sub-filters' kind and growth. */
    static lfb_spec spec(lfb_spec spec, int subKind, double growth, double tightening, int maxFilters) {
        spec.setSub_kind(subKind);
        spec.setGrowth(growth);
        spec.setTightening(tightening);
        spec.setMax_filters(maxFilters);
        return spec;
    }

    /** Sub-filters so far (at least 1): O(1) (lfb_geometry_get). Any thread. */
    public int subFilters() {
        return geometry().parts();
    }

    /** Sub-filter {@code index}, 0 the oldest: O(its size). IllegalArgumentException past the newest. Any thread. */
    public SubFilter subFilter(int index) {
        return part(index, ScalableBloomFilter::subFilterOf);
    }

    static SubFilter subFilterOf(lfb_info info) {
        return new SubFilter(Stats.of(info), info.getItems());
    }

    /**
     * The whole filter: sums over sub-filters; targetFpp is the configured bound; nearCapacity is
     * true once the newest is near capacity and no further sub-filter is allowed. Any thread.
     */
    @Override
    public Stats stats() {
        return super.stats();
    }

    // ---- streams ------------------------------------------------------------------------------

    /**
     * Writes the filter in lfbloom's own format (docs/FORMAT.md; the composites' part is described
     * in core/include/lfbloom/io/composite_format.hpp): its settings and every sub-filter; any process
     * or language loads it. Any thread: it holds every put that completed before it began, also
     * while the filter grows (a sub-filter added between the size and the copy is saved again at
     * the new size).
     */
    public void save(OutputStream out) throws IOException {
        write(out, lfb_format_enum.LFB_FORMAT_NATIVE);
    }

    /**
     * Reads a scalable Bloom filter written by {@link #save} (in any language), exactly its bytes:
     * the same sub-filters, growth, tightening and cap. Corrupt data, or a filter of another kind,
     * throws IOException; a {@link ScalableCuckooFilter}'s data too, from its header. Any thread.
     */
    public static ScalableBloomFilter load(InputStream in) throws IOException {
        return load(in, Native.defaultReadLimit());
    }

    /**
     * As {@link #load(InputStream)}, refusing filters over {@code maxBytes} (positive, else
     * IllegalArgumentException), and a filter of another kind but a scalable cuckoo filter, from
     * the header alone. Any thread.
     */
    public static ScalableBloomFilter load(InputStream in, long maxBytes) throws IOException {
        return new ScalableBloomFilter(loadedScalable(in, maxBytes, lfb_kind_enum.LFB_KIND_BLOCKED, "a scalable Bloom filter"));
    }

    /**
     * As HandleFilter.loaded, for a scalable filter whose sub-filters are of {@code subKind}: one of
     * the other sub-filters is refused from its header (lfb_load_size_kinds), before the rest is read.
     */
    static long loadedScalable(InputStream in, long maxBytes, int subKind, String what) throws IOException {
        return loaded(in, lfb_format_enum.LFB_FORMAT_NATIVE, maxBytes, what, subKind, new int[] {lfb_kind_enum.LFB_KIND_SCALABLE});
    }
}
