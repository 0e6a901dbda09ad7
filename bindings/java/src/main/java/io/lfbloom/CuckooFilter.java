package io.lfbloom;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A cuckoo filter: each key's fingerprint in one of two 64-bit buckets, which hold five 14-bit,
 * four 16-bit or four 17-bit fingerprints ({@link #create(long, double, int)} picks; by default
 * the width with the fewest bytes for the rate). Like {@link CountingBloomFilter} it removes keys,
 * in a fraction of the memory: 13.6 bits per key at 0.1% (a blocked Bloom filter needs 15.5) and
 * 17 at 0.01% (a 4-bit counting filter needs 124); around 1% and above a {@link BloomFilter} is smaller.
 *
 * <p><b>Contract.</b> No false negative for a key put (and not removed since) whose put
 * happened-before the query, also while other threads' puts move fingerprints between buckets
 * (queries validate a negative answer against the writers' stripe versions; see
 * {@code cuckoo_filter.hpp}). Removing a key never put can remove another key's fingerprint: a
 * false negative for that key, as in every cuckoo and counting filter.
 *
 * <p><b>Refusals.</b> A put can be refused, and a refused put changed nothing and lost nothing:
 * {@link LfbloomException#isFull()} when no free slot was found within the search bound (the
 * filter is near its maximum load, about 94%, or the key's two buckets are held by eight copies
 * of another key's fingerprint), {@link LfbloomException#isTooManyDuplicates()} when eight copies
 * (ten at 14 bits) of this key's fingerprint are stored already. {@link #putAll} then has added the keys before the
 * refused one, and the exception's {@link LfbloomException#keysDone()} is that key's index.
 *
 * <p><b>Thread safety.</b> Every method may be called from any number of threads at once.
 * Queries never lock and never wait; puts and removes lock one stripe of buckets at a time.
 * {@link #save} makes puts and removes wait while it copies. {@link #close()} as for BloomFilter.
 * {@link #setLockTimeout} is the one exception: set it before other threads use the filter.
 * {@link #setLockTimeout} is the exception: set it before other threads use the filter.
 * {@link #remove} of a key that is not there returns false: an answer, not an exception.
 */
public final class CuckooFilter extends RemovingFilter {

    /**
     * What the filter holds and what its writers and readers did.
     *
     * @param stats             as for other filters: slots are fingerprint slots (4 per bucket),
     *                          slotsSet the fingerprints stored, fillRatio the load, estimatedCount
     *                          the fingerprints, estimatedFpp the rate for an absent key now
     * @param kicks             fingerprints moved to make room, since creation or load
     * @param failedPuts        puts refused as full
     * @param duplicateRefusals puts refused as too many duplicates
     * @param readerRetries     queries redone because a writer moved fingerprints meanwhile
     * @param readerGaveUp      queries that answered "maybe" after eight retries
     */
    public record Activity(Stats stats, long kicks, long failedPuts, long duplicateRefusals, long readerRetries,
            long readerGaveUp) {}

    private CuckooFilter(long nativeHandle) {
        super(nativeHandle);
    }

    /**
     * A private copy in this process's memory (not shared, writable): the same shape, seed and
     * fingerprints. Any thread; puts and removes wait while it copies. A filter mapped read-only
     * cannot make them wait, and throws LfbloomException ({@link LfbloomException#isReadOnly()}).
     */
    public CuckooFilter copy() {
        return new CuckooFilter(copied());
    }

    /**
     * Stores one more copy of the key's fingerprint: true if none was in its buckets (the key was
     * new), false if it stored another copy. Locks one stripe of buckets at a time (queries never
     * wait). Throws {@link LfbloomException} when refused (see the class comment); nothing changed.
     * Any thread.
     */
    @Override
    public boolean put(byte[] key) {
        return super.put(key);
    }

    /** As {@link #put(byte[])}, for the UTF-8 bytes of the key. Any thread. */
    @Override
    public boolean put(CharSequence key) {
        return super.put(key);
    }

    /** As {@link #put(byte[])}, for the 8 little-endian bytes of the key. Any thread. */
    @Override
    public boolean put(long key) {
        return super.put(key);
    }

    /** As {@link #put(byte[])}, for the bytes from the buffer's position to its limit. Any thread. */
    @Override
    public boolean put(ByteBuffer key) {
        return super.put(key);
    }

    /** What {@code create(expectedInsertions, fpp)} would make, without making it. Any thread. */
    public static Plan plan(long expectedInsertions, double fpp) {
        return Plan.of(lfb_kind_enum.LFB_KIND_CUCKOO, expectedInsertions, fpp, 0);
    }

    /** What {@code create(expectedInsertions, fpp, fingerprintBits)} would make, without making it. Any thread. */
    public static Plan plan(long expectedInsertions, double fpp, int fingerprintBits) {
        return Plan.of(lfb_kind_enum.LFB_KIND_CUCKOO, expectedInsertions, fpp, checkedBits(fingerprintBits));
    }

    /** Sized so that {@code expectedInsertions} keys fit and an absent key's FPP is at most {@code fpp}. Any thread. */
    public static CuckooFilter create(long expectedInsertions, double fpp) {
        return create(expectedInsertions, fpp, BloomFilter.Options.defaults());
    }

    /**
     * As {@link #create(long, double)}, with fingerprints of {@code fingerprintBits}: 14 (five per
     * bucket), 16 (four, the fastest queries) or 17 (four). A width that cannot reach {@code fpp}
     * (14 bits stop at about 0.03%, 16 at 0.006%, 17 at 0.003%), or another width, throws
     * IllegalArgumentException. Any thread.
     */
    public static CuckooFilter create(long expectedInsertions, double fpp, int fingerprintBits) {
        return create(expectedInsertions, fpp, checkedBits(fingerprintBits), BloomFilter.Options.defaults());
    }

    /**
     * As {@link #create(long, double)}, with the options' seed and memory limit (the layout is
     * ignored). An {@code fpp} below about 0.003% is refused: even 17-bit fingerprints would need
     * a load below 50%, where a Bloom filter is the better tool. Any thread.
     */
    public static CuckooFilter create(long expectedInsertions, double fpp, BloomFilter.Options options) {
        return create(expectedInsertions, fpp, 0, options);
    }

    private static int checkedBits(int fingerprintBits) {
        if (fingerprintBits != 14 && fingerprintBits != 16 && fingerprintBits != 17)
            throw new IllegalArgumentException("cuckoo fingerprints are 14, 16 or 17 bits, not " + fingerprintBits);
        return fingerprintBits;
    }

    /** fingerprintBits 0: the fewest bytes for fpp. */
    private static CuckooFilter create(long expectedInsertions, double fpp, int fingerprintBits, BloomFilter.Options options) {
        lfb_spec spec = specOf(expectedInsertions, fpp, options);
        spec.setCounter_bits(fingerprintBits);
        return new CuckooFilter(created(spec));
    }

    /**
     * The cuckoo filter in the shared file at {@code path}, which several processes (JVMs, C, Go)
     * map and use at once; the file is created for (expectedInsertions, fpp) and the options' seed
     * and memory limit if it does not exist, with the options' file mode (0666 by default) less
     * the umask. Of processes racing to open one path, one creates it and all share its filter.
     * An existing file must hold the filter these arguments make (at any fingerprint width these
     * arguments can make; see the overload with a width), else {@link LfbloomException}
     * ("incompatible").
     *
     * <p>The stripe locks live in the file as robust process-shared mutexes: when a process dies
     * holding one (killed mid-put), the kernel hands it to the next writer, which repairs what
     * the dead one left, and nothing that returned is lost. A writer waits for a lock at most the
     * lock timeout ({@link #setLockTimeout}), then gets {@link LfbloomException#isTimeout()}. Any thread.
     */
    public static CuckooFilter openShared(Path path, long expectedInsertions, double fpp, BloomFilter.Options options) {
        return shared(path, expectedInsertions, fpp, 0, options, false);
    }

    /**
     * As {@link #openShared(Path, long, double, BloomFilter.Options)}, with fingerprints of
     * {@code fingerprintBits} (14, 16 or 17, as {@link #create(long, double, int)}). An existing
     * file must hold that width too. Without a width, a file of another width that these
     * arguments made is opened as it is (files of lfbloom 1.5 and 1.6 are all 16 bits). Any thread.
     */
    public static CuckooFilter openShared(Path path, long expectedInsertions, double fpp, int fingerprintBits,
            BloomFilter.Options options) {
        return shared(path, expectedInsertions, fpp, checkedBits(fingerprintBits), options, false);
    }

    /**
     * Creates the file {@code path} holding a new cuckoo filter, as
     * {@link #openShared(Path, long, double, BloomFilter.Options)} would, but fails
     * (LfbloomException "io") if the file exists. Since 1.9. Any thread.
     */
    public static CuckooFilter createShared(Path path, long expectedInsertions, double fpp, BloomFilter.Options options) {
        return shared(path, expectedInsertions, fpp, 0, options, true);
    }

    /**
     * As {@link #createShared(Path, long, double, BloomFilter.Options)}, with fingerprints of
     * {@code fingerprintBits}. Since 1.9. Any thread.
     */
    public static CuckooFilter createShared(Path path, long expectedInsertions, double fpp, int fingerprintBits,
            BloomFilter.Options options) {
        return shared(path, expectedInsertions, fpp, checkedBits(fingerprintBits), options, true);
    }

    /** fingerprintBits 0: the fewest bytes for fpp, or the width of a file these arguments made. */
    private static CuckooFilter shared(Path path, long expectedInsertions, double fpp, int fingerprintBits,
            BloomFilter.Options options, boolean exclusive) {
        if (path == null) throw new IllegalArgumentException("path is null");
        lfb_spec spec = specOf(expectedInsertions, fpp, options);
        spec.setCounter_bits(fingerprintBits);
        return new CuckooFilter(opened(path, spec, exclusive, false, options.fileMode));
    }

    /**
     * The cuckoo filter in an existing shared file, whatever its size; a file of another kind throws
     * LfbloomException ("incompatible"). Any thread.
     */
    public static CuckooFilter openShared(Path path) {
        return new CuckooFilter(existing(path, false, 0, "a cuckoo filter", lfb_kind_enum.LFB_KIND_CUCKOO));
    }

    /**
     * As {@link #openShared(Path)}, mapped read-only (read permission is enough): queries see the
     * writers' puts and removes; puts, removes, clears, copies and saves throw LfbloomException
     * ({@link LfbloomException#isReadOnly()}: they would need to pause the writers). Since 1.9. Any thread.
     */
    public static CuckooFilter openSharedReadOnly(Path path) {
        return new CuckooFilter(existing(path, true, 0, "a cuckoo filter", lfb_kind_enum.LFB_KIND_CUCKOO));
    }

    /**
     * As {@link #openShared(Path)} and {@link #openSharedReadOnly(Path)}, for a file you do not
     * trust: a filter over {@code maxBytes} (positive, else IllegalArgumentException) is refused
     * from the file's header (LfbloomException "too_large") before anything is mapped. Since 1.9.
     * Any thread.
     */
    public static CuckooFilter openShared(Path path, long maxBytes, boolean readOnly) {
        if (maxBytes <= 0) throw new IllegalArgumentException("maxBytes must be positive, got " + maxBytes);
        return new CuckooFilter(existing(path, readOnly, maxBytes, "a cuckoo filter", lfb_kind_enum.LFB_KIND_CUCKOO));
    }

    /** The longest lock timeout the native library takes: 2^32 - 1 ms, about 49.7 days. */
    private static final Duration MAX_LOCK_TIMEOUT = Duration.ofMillis(0xFFFF_FFFFL);

    /**
     * Sets how long a writer through this filter ({@code put}, {@code remove}, their batches, and
     * {@link #save} and {@link #copy}, which take every stripe lock) waits for a
     * stripe lock of a shared file ({@link #openShared}) that another filter object, in this
     * process or another, holds; one that waits longer throws {@link LfbloomException}
     * ({@link LfbloomException#isTimeout()}) and changed nothing. The default is 60 seconds. The
     * timeout is rounded up to whole milliseconds and capped at 2^32 - 1 ms (about 49.7 days); below
     * 1 ms, or null, it throws IllegalArgumentException. A filter that is not a shared file never
     * waits for another: the call changes nothing for it (a {@link #copy} has the default again).
     * Since 1.10.
     *
     * <p><b>Not thread-safe</b>, unlike the rest of this class: call it before this filter is
     * used by other threads (right after {@code openShared}, say), or while no other thread uses
     * it; a call racing with a put or remove through this filter is a data race in the native
     * library. Other filter objects of the same file keep their own timeout.
     */
    public void setLockTimeout(Duration timeout) {
        handle.ensureOpen();  // closed: IllegalStateException before the argument is looked at, as every method
        if (timeout == null) throw new IllegalArgumentException("timeout is null");
        if (timeout.compareTo(Duration.ofMillis(1)) < 0)
            throw new IllegalArgumentException("a lock timeout of " + timeout + ", below 1 ms");
        long ms;
        if (timeout.compareTo(MAX_LOCK_TIMEOUT) >= 0) {
            ms = MAX_LOCK_TIMEOUT.toMillis();
        } else {
            ms = timeout.toMillis();
            if (!timeout.minusMillis(ms).isZero()) ms++;  // rounded up
        }
        final long milliseconds = ms;
        handle.call(h -> LfbNative.lfb_set_lock_timeout(h, milliseconds));
    }

    private static lfb_spec specOf(long expectedInsertions, double fpp, BloomFilter.Options options) {
        if (options == null) throw new IllegalArgumentException("options is null");
        return options.spec(lfb_kind_enum.LFB_KIND_CUCKOO, expectedInsertions, fpp);
    }

    /** Statistics and activity counters, read bucket by bucket (O(size)) while other threads may write. Any thread. */
    public Activity activity() {
        return info(LfbNative::lfb_info_get, info -> new Activity(Stats.of(info), info.getKicks(), info.getFailed_adds(),
                info.getDuplicate_refusals(), info.getReader_retries(), info.getReader_gave_up()));
    }

    /** As {@link #activity()}{@code .stats()}; nearCapacity is past 80% of the maximum load. Any thread. */
    @Override
    public Stats stats() {
        return activity().stats();
    }

    /** Zeroes every fingerprint slot. Any thread; puts and removes racing with it may be lost. */
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
     * Writes the filter in lfbloom's own format (docs/FORMAT.md); any process or language loads
     * it. Any thread: puts and removes wait while it is written.
     */
    public void save(OutputStream out) throws IOException {
        write(out, lfb_format_enum.LFB_FORMAT_NATIVE);
    }

    /**
     * Reads a cuckoo filter written by {@link #save}, exactly its bytes; corrupt data, or a file of
     * another kind, throws IOException. Any thread.
     */
    public static CuckooFilter load(InputStream in) throws IOException {
        return load(in, Native.defaultReadLimit());
    }

    /** As {@link #load(InputStream)}, refusing filters over {@code maxBytes} (positive, else IllegalArgumentException), and a filter of another kind, from the header alone. Since 1.9. Any thread. */
    public static CuckooFilter load(InputStream in, long maxBytes) throws IOException {
        return new CuckooFilter(loaded(in, lfb_format_enum.LFB_FORMAT_NATIVE, maxBytes, "a cuckoo filter",
                lfb_kind_enum.LFB_KIND_CUCKOO));
    }
}
