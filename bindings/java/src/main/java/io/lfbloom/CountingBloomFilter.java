package io.lfbloom;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Path;

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
 * key's counters is zero: an answer, not an exception.
 */
public final class CountingBloomFilter extends RemovingFilter {
    private CountingBloomFilter(long nativeHandle) {
        super(nativeHandle);
    }

    /**
     * A private copy in this process's memory (not shared, writable, also when this filter is a
     * shared or read-only file): the same shape, seed and counters. Any thread; puts and removes
     * racing with it may or may not be in the copy.
     */
    public CountingBloomFilter copy() {
        return new CountingBloomFilter(copied());
    }

    /** 4-bit counters, sized so that after {@code expectedInsertions} keys the FPP is at most {@code fpp}. Any thread. */
    public static CountingBloomFilter create(long expectedInsertions, double fpp) {
        return create(expectedInsertions, fpp, 4, BloomFilter.Options.defaults());
    }

    /** What {@code create(expectedInsertions, fpp, counterBits, options)} would make, without making it. Any thread. */
    public static Plan plan(long expectedInsertions, double fpp, int counterBits) {
        return Plan.of(lfb_kind_enum.LFB_KIND_COUNTING, expectedInsertions, fpp, counterBits);
    }

    /** {@code counterBits} is 4 or 8; the options' layout is ignored (counting filters are blocked). Any thread. */
    public static CountingBloomFilter create(long expectedInsertions, double fpp, int counterBits, BloomFilter.Options options) {
        return new CountingBloomFilter(created(specOf(expectedInsertions, fpp, counterBits, options)));
    }

    /**
     * Exactly {@code counters} counters (a multiple of 128 for 4-bit counters, 64 for 8-bit) and
     * {@code hashes} probes (1..255), since 1.9; the options' layout is ignored. Any thread.
     */
    public static CountingBloomFilter withGeometry(long counters, int hashes, int counterBits, BloomFilter.Options options) {
        if (counters <= 0 || hashes <= 0) throw new IllegalArgumentException("counters and hashes must be > 0");
        if (options == null) throw new IllegalArgumentException("options is null");
        checkedBits(counterBits);  // before the spec exists: nothing to delete on a throw
        lfb_spec spec = options.geometrySpec(lfb_kind_enum.LFB_KIND_COUNTING, counters, hashes);
        spec.setCounter_bits(counterBits);
        return new CountingBloomFilter(created(spec));
    }

    private static void checkedBits(int counterBits) {
        if (counterBits != 4 && counterBits != 8) throw new IllegalArgumentException("counterBits must be 4 or 8");
    }

    private static lfb_spec specOf(long expectedInsertions, double fpp, int counterBits, BloomFilter.Options options) {
        if (options == null) throw new IllegalArgumentException("options is null");
        checkedBits(counterBits);  // before the spec exists: nothing to delete on a throw
        lfb_spec spec = options.spec(lfb_kind_enum.LFB_KIND_COUNTING, expectedInsertions, fpp);
        spec.setCounter_bits(counterBits);
        return spec;
    }

    // ---- shared files (since 1.9) -------------------------------------------------------------

    /**
     * Creates the file {@code path} holding a new counting filter that other processes (JVMs, C,
     * Go) open and use at the same time, with the options' file mode; LfbloomException ("io")
     * if the file exists. As {@link BloomFilter#createShared}. Any thread.
     */
    public static CountingBloomFilter createShared(Path path, long expectedInsertions, double fpp, int counterBits,
            BloomFilter.Options options) {
        lfb_spec spec = specOf(expectedInsertions, fpp, counterBits, options);
        return new CountingBloomFilter(opened(path, spec, true, false, options.fileMode));
    }

    /**
     * The counting filter in the shared file at {@code path}, created for these arguments if it
     * does not exist (of processes racing, one creates it and all share it); an existing file must
     * hold what these arguments make, counter width included, else LfbloomException ("incompatible"). Any thread.
     */
    public static CountingBloomFilter openShared(Path path, long expectedInsertions, double fpp, int counterBits,
            BloomFilter.Options options) {
        lfb_spec spec = specOf(expectedInsertions, fpp, counterBits, options);
        return new CountingBloomFilter(opened(path, spec, false, false, options.fileMode));
    }

    /**
     * The counting filter in an existing shared file, whatever its size; another kind's file throws
     * LfbloomException ("incompatible"). Any thread.
     */
    public static CountingBloomFilter openShared(Path path) {
        return new CountingBloomFilter(existing(path, false, 0, "a counting filter", lfb_kind_enum.LFB_KIND_COUNTING));
    }

    /**
     * As {@link #openShared(Path)}, mapped read-only: puts, removes and clears throw LfbloomException
     * ({@link LfbloomException#isReadOnly()}). Any thread.
     */
    public static CountingBloomFilter openSharedReadOnly(Path path) {
        return new CountingBloomFilter(existing(path, true, 0, "a counting filter", lfb_kind_enum.LFB_KIND_COUNTING));
    }

    /**
     * As {@link #openShared(Path)} and {@link #openSharedReadOnly(Path)}, for a file you do not
     * trust: a filter over {@code maxBytes} (positive, else IllegalArgumentException) is refused
     * from the file's header (LfbloomException "too_large") before anything is mapped. Since 1.9.
     * Any thread.
     */
    public static CountingBloomFilter openShared(Path path, long maxBytes, boolean readOnly) {
        if (maxBytes <= 0) throw new IllegalArgumentException("maxBytes must be positive, got " + maxBytes);
        return new CountingBloomFilter(existing(path, readOnly, maxBytes, "a counting filter", lfb_kind_enum.LFB_KIND_COUNTING));
    }

    // ---- whole-filter operations --------------------------------------------------------------

    /**
     * Adds {@code other}'s counters to this filter's, saturating (a multiset sum); geometry, width and
     * seed must match. Any thread.
     */
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

    /** Zeroes every counter. Any thread; puts and removes racing with it may be lost. */
    public void clear() {
        handle.call(LfbNative::lfb_clear);
    }

    /**
     * Writes a shared file's pages to disk (msync): durability across a machine crash only; nothing to
     * do otherwise. Any thread.
     */
    public void flush() {
        handle.call(LfbNative::lfb_flush);
    }

    /**
     * Writes the filter in lfbloom's own format (docs/FORMAT.md). Any thread: it holds every key
     * held throughout it; a remove that overlaps it may be captured in part.
     */
    public void save(OutputStream out) throws IOException {
        write(out, lfb_format_enum.LFB_FORMAT_NATIVE);
    }

    /**
     * Reads a counting filter written by {@link #save}, exactly its bytes; corrupt or foreign data,
     * or another kind, throws IOException. Any thread.
     */
    public static CountingBloomFilter load(InputStream in) throws IOException {
        return load(in, Native.defaultReadLimit());
    }

    /** As {@link #load(InputStream)}, refusing filters over {@code maxBytes} (positive, else IllegalArgumentException), and a filter of another kind, from the header alone. Since 1.9. Any thread. */
    public static CountingBloomFilter load(InputStream in, long maxBytes) throws IOException {
        return new CountingBloomFilter(loaded(in, lfb_format_enum.LFB_FORMAT_NATIVE, maxBytes, "a counting filter",
                lfb_kind_enum.LFB_KIND_COUNTING));
    }
}
