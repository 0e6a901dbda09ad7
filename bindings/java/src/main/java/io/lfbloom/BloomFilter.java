package io.lfbloom;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collector;

/**
 * A Bloom filter that any number of threads add to and query at once, without locks, backed by
 * lfbloom's native library.
 *
 * <p><b>The one-sided error contract.</b> {@code mightContain} never returns false for a key
 * whose {@code put} happened-before the query (through any synchronization: a volatile write
 * and read, a lock, {@code Thread.join}, a concurrent queue); it returns true for a key never
 * put with about the configured false-positive probability once the filter holds
 * {@code expectedInsertions} keys.
 *
 * <p><b>Thread safety.</b> Every method may be called from any number of threads at once. Puts
 * racing with a query may or may not be seen; there is no ordering between different keys.
 * {@code put} returns true when some bit changed: of racing puts of one new key at least one
 * returns true, and more than one may. {@link #clear()} racing with puts may lose them.
 * {@link #close()} is idempotent and thread-safe: calls racing with it either complete or throw
 * IllegalStateException, and none can crash the JVM; after it every method but equals, hashCode
 * and toString throws IllegalStateException ({@link Filter}).
 *
 * <p>Keys are bytes: {@code byte[]}, the UTF-8 bytes of a {@code CharSequence} (as Guava's
 * {@code Funnels.stringFunnel(UTF_8)}), the 8 little-endian bytes of a {@code long} (as
 * {@code Funnels.longFunnel()}), or the remaining bytes of a {@code ByteBuffer} (direct buffers
 * are read in place). The classic layout is bit-exact with Guava's {@code BloomFilter}
 * ({@link #readFrom}, {@link #writeTo}); the blocked layout (the default) is faster.
 *
 * <p>Errors: {@code IllegalArgumentException} for bad arguments, {@code IllegalStateException}
 * after close, {@link LfbloomException} (with the C status and its name) for everything else.
 */
public final class BloomFilter extends HandleFilter {
    /** Where a key's bits go. */
    public enum Layout {
        /** All of a key's bits in one 64-byte cache line: one cache miss per call. */
        BLOCKED,
        /**
         * Bits anywhere in the array, exactly as Guava's BloomFilter (strategy MURMUR128_MITZ_64),
         * flaw included: a key whose second hash half is 0 probes one bit k times. Under seed 0
         * (Guava's, the default) the empty key is such a key, "maybe present" in about half of all
         * full classic filters; give a classic filter never exchanged with Guava a non-zero seed.
         * {@link #BLOCKED} filters spread every key's probes whatever the seed.
         */
        CLASSIC,
        /**
         * Parquet's split-block filter (since 1.9): 8 bits, one in each 32-bit word of a 256-bit
         * block, hashed with XXH64 (seed 0 is Parquet's); k is always 8. Scalable and rotating
         * filters take BLOCKED only.
         */
        SPLIT_BLOCK,
        /** All of a key's bits in one 64-bit word (since 1.9): the fastest, at a higher rate for its bits. */
        ONE_WORD,
        /** All of a key's bits in one pair of 64-bit words (since 1.9). */
        TWO_WORD;

        /** The enum lfb_kind number: the kind lfb_kind_name spells as this constant's name ("split-block"). */
        int kind() {
            return Native.check(LfbNative.lfb_kind_parse(name().toLowerCase(Locale.ROOT).replace('_', '-')));
        }
    }

    /** Every Bloom layout's enum lfb_kind: what a file opened or loaded as a BloomFilter may hold. */
    private static int[] kinds() {
        return Arrays.stream(Layout.values()).mapToInt(Layout::kind).toArray();
    }

    /** Creation options of every kind of filter; immutable. */
    public static final class Options {
        private static final int DEFAULT_FILE_MODE = 0666;
        final Layout layout;
        final long memoryLimit;
        final long seed;
        final int fileMode;

        private Options(Layout layout, long memoryLimit, long seed, int fileMode) {
            this.layout = layout;
            this.memoryLimit = memoryLimit;
            this.seed = seed;
            this.fileMode = fileMode;
        }

        /**
         * Blocked layout, no memory limit beyond the machine's, seed 0, shared files created with
         * mode 0666. Any thread (immutable).
         */
        public static Options defaults() {
            return new Options(Layout.BLOCKED, 0, 0, DEFAULT_FILE_MODE);
        }

        /** BLOCKED (the default), CLASSIC (Guava-compatible), SPLIT_BLOCK, ONE_WORD or TWO_WORD. Any thread (immutable). */
        public Options layout(Layout layout) {
            if (layout == null) throw new IllegalArgumentException("layout is null");
            return new Options(layout, memoryLimit, seed, fileMode);
        }

        /** Refuse filters over this many bytes (0: only the machine's memory bounds them). Any thread (immutable). */
        public Options memoryLimit(long bytes) {
            if (bytes < 0) throw new IllegalArgumentException("memory limit must be >= 0");
            return new Options(layout, bytes, seed, fileMode);
        }

        /** The hash seed (Guava's is 0); filters merge only with equal seeds. Any thread (immutable). */
        public Options seed(long seed) {
            return new Options(layout, memoryLimit, seed, fileMode);
        }

        /**
         * The permission bits (0 to 0777, e.g. {@code 0640}) of a shared file that
         * {@code createShared} or {@code openShared} creates, less the process's umask; 0666 by
         * default. An existing file keeps its own. Since 1.9. Any thread (immutable).
         */
        public Options fileMode(int mode) {
            if (mode < 0 || mode > 0777)
                throw new IllegalArgumentException("file mode must be in 0..0777, got 0" + Integer.toOctalString(mode));
            return new Options(layout, memoryLimit, seed, mode);
        }

        /** An lfb_spec (the caller deletes it) of this layout's kind with this seed and memory limit. */
        lfb_spec spec(long expectedInsertions, double fpp) {
            return spec(layout.kind(), expectedInsertions, fpp);
        }

        /** An lfb_spec (the caller deletes it) of {@code kind} with this seed and memory limit. */
        lfb_spec spec(int kind, long expectedInsertions, double fpp) {
            return withOptions(Plan.spec(kind, expectedInsertions, fpp));
        }

        /** As spec, for the composites of Bloom sub-filters (scalable, rotating), which are blocked. */
        lfb_spec blockedSpec(int kind, long expectedInsertions, double fpp) {
            if (layout != Layout.BLOCKED)
                throw new IllegalArgumentException("scalable and rotating filters take the BLOCKED layout, not " + layout);
            return spec(kind, expectedInsertions, fpp);
        }

        /** An lfb_spec (the caller deletes it) of {@code kind} and an exact geometry, with this seed and memory limit. */
        lfb_spec geometrySpec(int kind, long slots, int hashes) {
            lfb_spec spec = new lfb_spec();
            spec.setKind(kind);
            spec.setSlots(slots);
            spec.setHashes(hashes);
            return withOptions(spec);
        }

        private lfb_spec withOptions(lfb_spec spec) {
            spec.setSeed(seed);
            spec.setMemory_limit(memoryLimit);
            return spec;
        }
    }

    private BloomFilter(long nativeHandle) {
        super(nativeHandle);
    }

    /**
     * A private copy in this process's memory (not shared, writable, also when this filter is a
     * shared or read-only file): the same layout, shape, seed and bits, a filter of its own from
     * then on. Any thread; puts racing with it may or may not be in the copy.
     */
    public BloomFilter copy() {
        return new BloomFilter(copied());
    }

    /** A filter sized so that after {@code expectedInsertions} distinct puts the FPP is at most {@code fpp}. Any thread. */
    public static BloomFilter create(long expectedInsertions, double fpp) {
        return create(expectedInsertions, fpp, Options.defaults());
    }

    /**
     * What {@code create(expectedInsertions, fpp, options)} would make, without making it (the memory
     * limit is ignored). Any thread.
     */
    public static Plan plan(long expectedInsertions, double fpp, Options options) {
        if (options == null) throw new IllegalArgumentException("options is null");
        return Plan.of(options.layout.kind(), expectedInsertions, fpp, 4);
    }

    /** As {@link #create(long, double)}, with a layout, a memory limit and a seed. Any thread. */
    public static BloomFilter create(long expectedInsertions, double fpp, Options options) {
        if (options == null) throw new IllegalArgumentException("options is null");
        return new BloomFilter(created(options.spec(expectedInsertions, fpp)));
    }

    /**
     * Exactly {@code bits} bits (a multiple of 512 blocked, 64 classic and one-word, 128 two-word,
     * 256 split-block) and {@code hashes} probes (1..255; 8 split-block). Any thread.
     */
    public static BloomFilter withGeometry(long bits, int hashes, Options options) {
        if (bits <= 0 || hashes <= 0) throw new IllegalArgumentException("bits and hashes must be > 0");
        if (options == null) throw new IllegalArgumentException("options is null");
        return new BloomFilter(created(options.geometrySpec(options.layout.kind(), bits, hashes)));
    }

    /**
     * A collector that puts the UTF-8 bytes of every element into a new filter made by
     * {@link #create(long, double)}, as Guava's {@code BloomFilter.toBloomFilter(funnel, n, fpp)}
     * with {@code Funnels.stringFunnel(UTF_8)}. Concurrent and unordered: a parallel stream puts
     * into one filter from all its threads. Bad arguments throw IllegalArgumentException here,
     * not when the stream runs. Since 1.9. Any thread.
     */
    public static Collector<CharSequence, ?, BloomFilter> toBloomFilter(long expectedInsertions, double fpp) {
        return toBloomFilter(expectedInsertions, fpp, Options.defaults());
    }

    /** As {@link #toBloomFilter(long, double)}, with a layout, a memory limit and a seed. Since 1.9. Any thread. */
    public static Collector<CharSequence, ?, BloomFilter> toBloomFilter(long expectedInsertions, double fpp, Options options) {
        plan(expectedInsertions, fpp, options);  // checks the arguments now
        return Collector.of(() -> create(expectedInsertions, fpp, options), BloomFilter::put, (a, b) -> {
            a.merge(b);
            b.close();
            return a;
        }, Collector.Characteristics.UNORDERED, Collector.Characteristics.CONCURRENT);
    }

    // ---- shared files -------------------------------------------------------------------------

    /**
     * Creates the file {@code path} holding a new filter that other processes (a Go service, C,
     * another JVM) open with {@link #openShared} and use at the same time, with the same lock-free
     * atomics; the file gets the options' {@link Options#fileMode file mode}. Fails
     * (LfbloomException "io") if the file exists. Any thread.
     */
    public static BloomFilter createShared(Path path, long expectedInsertions, double fpp, Options options) {
        if (options == null) throw new IllegalArgumentException("options is null");
        return new BloomFilter(opened(path, options.spec(expectedInsertions, fpp), true, false, options.fileMode));
    }

    /**
     * The filter in the shared file at {@code path}, created for these arguments (with the
     * options' file mode) if the file does not exist: of processes racing to open one path, one
     * creates it and all share its filter. An existing file must hold the filter these arguments
     * make (layout, size, seed), else LfbloomException ("incompatible"). Since 1.9.
     * Any thread.
     */
    public static BloomFilter openShared(Path path, long expectedInsertions, double fpp, Options options) {
        if (options == null) throw new IllegalArgumentException("options is null");
        return new BloomFilter(opened(path, options.spec(expectedInsertions, fpp), false, false, options.fileMode));
    }

    /**
     * Maps the filter in an existing shared file (made in any process or language); another kind's
     * file throws LfbloomException ("incompatible"). Any thread.
     */
    public static BloomFilter openShared(Path path) {
        return new BloomFilter(existing(path, false, 0, "a Bloom filter", kinds()));
    }

    /**
     * Maps the filter in an existing shared file read-only (read permission is enough): it sees
     * the puts of the processes that write it; its own puts and clears throw LfbloomException
     * ({@link LfbloomException#isReadOnly()}). Since 1.9. Any thread.
     */
    public static BloomFilter openSharedReadOnly(Path path) {
        return new BloomFilter(existing(path, true, 0, "a Bloom filter", kinds()));
    }

    /**
     * As {@link #openShared(Path)} and {@link #openSharedReadOnly(Path)}, for a file you do not
     * trust: a filter over {@code maxBytes} (positive, else IllegalArgumentException) is refused
     * from the file's header (LfbloomException "too_large") before anything is mapped. Since 1.9.
     * Any thread.
     */
    public static BloomFilter openShared(Path path, long maxBytes, boolean readOnly) {
        if (maxBytes <= 0) throw new IllegalArgumentException("maxBytes must be positive, got " + maxBytes);
        return new BloomFilter(existing(path, readOnly, maxBytes, "a Bloom filter", kinds()));
    }

    // ---- whole-filter operations --------------------------------------------------------------

    /**
     * ORs {@code other} into this filter (Guava's putAll(BloomFilter)); both must have the same
     * layout, size, hashes and seed. Any thread.
     */
    public void merge(BloomFilter other) {
        union(other);
    }

    /**
     * ANDs {@code other} into this filter (since 1.9): a key both held stays present; an absent key
     * may answer "maybe" somewhat more often than in a filter built from the common keys. Same
     * layout, size, hashes and seed, else LfbloomException ("incompatible"). Any thread; puts racing with it may be lost.
     */
    public void intersect(BloomFilter other) {
        intersection(other);
    }

    /** Empties the filter. Any thread; puts racing with it may be lost. */
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

    // ---- streams ------------------------------------------------------------------------------

    /**
     * Writes the filter in lfbloom's own format (docs/FORMAT.md); any process or language loads
     * it. Any thread: it holds every put that completed before it began.
     */
    public void save(OutputStream out) throws IOException {
        write(out, lfb_format_enum.LFB_FORMAT_NATIVE);
    }

    /**
     * Writes the filter in Guava's {@code BloomFilter.writeTo} format; Guava's {@code readFrom}
     * then answers exactly as this filter. Classic layout, seed 0, at most 2^31-1 words (Guava's
     * limits): otherwise LfbloomException. Any thread.
     */
    public void writeTo(OutputStream out) throws IOException {
        write(out, lfb_format_enum.LFB_FORMAT_GUAVA);
    }

    /**
     * Reads a filter written by Guava's {@code BloomFilter.writeTo} (strategy MURMUR128_MITZ_64):
     * a classic-layout filter answering exactly as Guava's. Reads exactly the filter's bytes, so
     * more data may follow it in the stream. Malformed streams (truncated, another strategy, an
     * absurd word count) throw IOException before any large allocation. Any thread.
     */
    public static BloomFilter readFrom(InputStream in) throws IOException {
        return readFrom(in, Native.defaultReadLimit());
    }

    /** As {@link #readFrom(InputStream)}, refusing filters over {@code maxBytes} (positive, else IllegalArgumentException), and a filter of another kind, from the header alone. Any thread. */
    public static BloomFilter readFrom(InputStream in, long maxBytes) throws IOException {
        return new BloomFilter(loaded(in, lfb_format_enum.LFB_FORMAT_GUAVA, maxBytes, "a Bloom filter", kinds()));
    }

    /**
     * Reads a filter written by {@link #save}, exactly its bytes; corrupt or foreign data throws
     * IOException. Any thread.
     */
    public static BloomFilter load(InputStream in) throws IOException {
        return load(in, Native.defaultReadLimit());
    }

    /** As {@link #load(InputStream)}, refusing filters over {@code maxBytes} (positive, else IllegalArgumentException), and a filter of another kind, from the header alone. Any thread. */
    public static BloomFilter load(InputStream in, long maxBytes) throws IOException {
        return new BloomFilter(loaded(in, lfb_format_enum.LFB_FORMAT_NATIVE, maxBytes, "a Bloom filter", kinds()));
    }
}
