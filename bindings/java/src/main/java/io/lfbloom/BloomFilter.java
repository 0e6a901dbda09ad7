package io.lfbloom;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

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
 * IllegalStateException, and none can crash the JVM.
 *
 * <p>Keys are bytes: {@code byte[]}, the UTF-8 bytes of a {@code CharSequence} (as Guava's
 * {@code Funnels.stringFunnel(UTF_8)}), the 8 little-endian bytes of a {@code long} (as
 * {@code Funnels.longFunnel()}), or the remaining bytes of a {@code ByteBuffer} (direct buffers
 * are read in place). The classic layout is bit-exact with Guava's {@code BloomFilter}
 * ({@link #readFrom}, {@link #writeTo}); the blocked layout (the default) is faster.
 *
 * <p>Errors: {@code IllegalArgumentException} for bad arguments, {@code IllegalStateException}
 * after close, {@link LfbloomException} (with the C status code) for everything else.
 */
public final class BloomFilter extends HandleFilter<BloomFilter> {
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
         * filters take BLOCKED or CLASSIC only.
         */
        SPLIT_BLOCK,
        /** All of a key's bits in one 64-bit word (since 1.9): the fastest, at a higher rate for its bits. */
        ONE_WORD,
        /** All of a key's bits in one pair of 64-bit words (since 1.9). */
        TWO_WORD;

        /** The enum lfb_kind number. */
        int kind() {
            return switch (this) {
                case BLOCKED -> Native.LAYOUT_BLOCKED;
                case CLASSIC -> Native.LAYOUT_CLASSIC;
                case SPLIT_BLOCK -> 4;
                case ONE_WORD -> 5;
                case TWO_WORD -> 6;
            };
        }
    }

    /** Every Bloom layout's enum lfb_kind number: what a file opened or loaded as a BloomFilter may hold. */
    private static final int[] KINDS = {1, 2, 4, 5, 6};

    /** Creation options; immutable. */
    public static final class Options {
        final Layout layout;
        final long memoryLimit;
        final long seed;

        private Options(Layout layout, long memoryLimit, long seed) {
            this.layout = layout;
            this.memoryLimit = memoryLimit;
            this.seed = seed;
        }

        /** Blocked layout, no memory limit beyond the machine's, seed 0. */
        public static Options defaults() {
            return new Options(Layout.BLOCKED, 0, 0);
        }

        /** BLOCKED (the default) or CLASSIC (Guava-compatible). */
        public Options layout(Layout layout) {
            if (layout == null) throw new IllegalArgumentException("layout is null");
            return new Options(layout, memoryLimit, seed);
        }

        /** Refuse filters over this many bytes (0: only the machine's memory bounds them). */
        public Options memoryLimit(long bytes) {
            if (bytes < 0) throw new IllegalArgumentException("memory limit must be >= 0");
            return new Options(layout, bytes, seed);
        }

        /** The hash seed (Guava's is 0); filters merge only with equal seeds. */
        public Options seed(long seed) {
            return new Options(layout, memoryLimit, seed);
        }

        /** An lfb_spec (the caller deletes it) of this layout's kind with this seed and memory limit. */
        lfb_spec spec(long expectedInsertions, double fpp) {
            return spec(layout.kind(), expectedInsertions, fpp);
        }

        /** An lfb_spec (the caller deletes it) of {@code kind} with this seed and memory limit. */
        lfb_spec spec(int kind, long expectedInsertions, double fpp) {
            return withOptions(Plan.spec(kind, expectedInsertions, fpp));
        }

        /** An lfb_spec (the caller deletes it) of {@code kind} and an exact geometry, with this seed and memory limit. */
        lfb_spec geometrySpec(int kind, long slots, int hashes) {
            Native.load();
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

        /** For the per-kind composites (scalable, rotating), which take BLOCKED or CLASSIC only. */
        long[] toNative(int counterBits) {
            if (layout != Layout.CLASSIC && layout != Layout.BLOCKED)
                throw new IllegalArgumentException("scalable and rotating filters take the BLOCKED or CLASSIC layout, not " + layout);
            return new long[] {layout == Layout.CLASSIC ? Native.LAYOUT_CLASSIC : Native.LAYOUT_BLOCKED, memoryLimit, seed,
                counterBits, 0};
        }
    }

    private BloomFilter(long nativeHandle) {
        super(nativeHandle);
    }

    @Override
    BloomFilter wrap(long nativeHandle) {
        return new BloomFilter(nativeHandle);
    }

    /** {@inheritDoc} (Declared here so that its return type is this class, as since 1.8 for CuckooFilter.) */
    @Override
    public BloomFilter copy() {
        return super.copy();
    }

    /** A filter sized so that after {@code expectedInsertions} distinct puts the FPP is at most {@code fpp}. */
    public static BloomFilter create(long expectedInsertions, double fpp) {
        return create(expectedInsertions, fpp, Options.defaults());
    }

    /** What {@code create(expectedInsertions, fpp, options)} would make, without making it (the memory limit is ignored). */
    public static Plan plan(long expectedInsertions, double fpp, Options options) {
        if (options == null) throw new IllegalArgumentException("options is null");
        return Plan.of(options.layout.kind(), expectedInsertions, fpp, 4);
    }

    /** As {@link #create(long, double)}, with a layout, a memory limit and a seed. */
    public static BloomFilter create(long expectedInsertions, double fpp, Options options) {
        if (options == null) throw new IllegalArgumentException("options is null");
        return new BloomFilter(created(options.spec(expectedInsertions, fpp)));
    }

    /**
     * Exactly {@code bits} bits (a multiple of 512 blocked, 64 classic and one-word, 128 two-word,
     * 256 split-block) and {@code hashes} probes (1..255; 8 split-block).
     */
    public static BloomFilter withGeometry(long bits, int hashes, Options options) {
        if (bits <= 0 || hashes <= 0) throw new IllegalArgumentException("bits and hashes must be > 0");
        if (options == null) throw new IllegalArgumentException("options is null");
        return new BloomFilter(created(options.geometrySpec(options.layout.kind(), bits, hashes)));
    }

    /**
     * Creates the file {@code path} holding a new filter that other processes (a Go service, C,
     * another JVM) open with {@link #openShared} and use at the same time, with the same lock-free
     * atomics. Fails (LfbloomException, status -8) if the file exists.
     */
    public static BloomFilter createShared(java.nio.file.Path path, long expectedInsertions, double fpp, Options options) {
        if (options == null) throw new IllegalArgumentException("options is null");
        return new BloomFilter(opened(path, options.spec(expectedInsertions, fpp), SHARED_CREATE | SHARED_EXCLUSIVE));
    }

    /** Maps the filter in a shared file made by createShared (in any process or language); another kind's file throws LfbloomException (-4). */
    public static BloomFilter openShared(java.nio.file.Path path) {
        return new BloomFilter(ofKind(opened(path, null, 0), "a Bloom filter", KINDS));
    }

    // ---- whole-filter operations --------------------------------------------------------------

    /** ORs {@code other} into this filter (Guava's putAll(BloomFilter)); both must have the same layout, size, hashes and seed. */
    public void merge(BloomFilter other) {
        union(other);
    }

    /**
     * ANDs {@code other} into this filter (since 1.9): a key both held stays present; an absent key
     * may answer "maybe" somewhat more often than in a filter built from the common keys. Same
     * layout, size, hashes and seed, else LfbloomException (-4). Puts racing with it may be lost.
     */
    public void intersect(BloomFilter other) {
        intersection(other);
    }

    /** The number of bits, as Guava's bitSize: O(1). */
    public long bitSize() {
        return slots();
    }

    // ---- streams ------------------------------------------------------------------------------

    /**
     * Writes the filter in Guava's {@code BloomFilter.writeTo} format; Guava's {@code readFrom}
     * then answers exactly as this filter. Classic layout, seed 0, at most 2^31-1 words (Guava's
     * limits): otherwise LfbloomException.
     */
    public void writeTo(OutputStream out) throws IOException {
        write(out, Native.FORMAT_GUAVA);
    }


    /**
     * Reads a filter written by Guava's {@code BloomFilter.writeTo} (strategy MURMUR128_MITZ_64):
     * a classic-layout filter answering exactly as Guava's. Malformed streams (truncated, another
     * strategy, an absurd word count) throw IOException before any large allocation.
     */
    public static BloomFilter readFrom(InputStream in) throws IOException {
        return readFrom(in, Native.defaultReadLimit());
    }

    /** As {@link #readFrom(InputStream)}, refusing filters over {@code maxBytes}. */
    public static BloomFilter readFrom(InputStream in, long maxBytes) throws IOException {
        if (in == null) throw new IllegalArgumentException("in is null");
        byte[] head = new byte[6];
        Native.readFully(in, head);
        if (head[0] != 1) throw new IOException("unsupported Guava strategy ordinal " + head[0] + " (only 1, MURMUR128_MITZ_64)");
        int words = ByteBuffer.wrap(head, 2, 4).order(ByteOrder.BIG_ENDIAN).getInt();
        if (head[1] == 0 || words <= 0) throw new IOException("malformed Guava stream: k " + (head[1] & 0xff) + ", " + words + " words");
        return new BloomFilter(loaded(Native.readSerialized(in, head, 6 + 8L * words, maxBytes), Native.FORMAT_GUAVA, maxBytes,
                "a Bloom filter", KINDS));
    }

    /** Reads a filter written by {@link #save}; corrupt or foreign data throws IOException. */
    public static BloomFilter load(InputStream in) throws IOException {
        return load(in, Native.defaultReadLimit());
    }

    /** As {@link #load(InputStream)}, refusing filters over {@code maxBytes}. */
    public static BloomFilter load(InputStream in, long maxBytes) throws IOException {
        return new BloomFilter(loaded(in, maxBytes, "a Bloom filter", KINDS));
    }
}
