package io.lfbloom;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.function.Function;

/**
 * A filter behind one {@code lfb_handle}, lfbloom.h's handle for every kind (Bloom filters of each
 * layout, counting and cuckoo filters). What they share lives here once, through the generic C
 * calls: puts, queries and batches (a batch reports where a refused put stopped it), copies,
 * equality, clearing, statistics, the O(1) geometry, saving, loading and flushing. Each subclass
 * adds what its kind means (removes, unions, Guava's format) and its factories.
 *
 * @param <F> the subclass: what {@link #copy()} returns and what set operations take
 */
abstract class HandleFilter<F extends HandleFilter<F>> extends KeyFilter {
    static final int OP_ADD = 1, OP_CONTAINS = 2, OP_REMOVE = 3; // enum lfb_batch_op
    static final long SHARED_CREATE = 1, SHARED_EXCLUSIVE = 2;  // LFB_SHARED_*

    private final int kind;       // enum lfb_kind
    private final long slots;     // the shape never changes: read once, O(1)
    private final int shapeHash;  // hashCode: of the shape and seed

    HandleFilter(long nativeHandle) {
        super(nativeHandle, LfbNative::lfb_free, LfbNative::lfb_add, LfbNative::lfb_contains,
                null, // putAll is overridden: it reports where a refusal stopped it
                (h, d, o, c, r, out) -> LfbNative.lfb_java_batch(h, OP_CONTAINS, d, o, c, r, out, null));
        lfb_info info = new lfb_info();
        try {
            Native.check(LfbNative.lfb_geometry_get(nativeHandle, info)); // O(1); no other thread has the handle yet
            kind = (int) info.getKind();
            slots = info.getSlots();
            shapeHash = java.util.Objects.hash(kind, slots, info.getSlot_bits(), info.getHashes(), info.getSeed());
        } finally {
            info.delete();
        }
    }

    /** This kind's filter over a new native handle (a copy). */
    abstract F wrap(long nativeHandle);

    /** The enum lfb_kind number. */
    final int kind() {
        return kind;
    }

    /** Bits, counters or fingerprint slots: O(1). */
    final long slots() {
        return slots;
    }

    /** Puts every key in one native call; returns how many were new. A refused put: see {@link Filter}. */
    @Override
    public long putAll(List<byte[]> keys) {
        long[] done = new long[1];
        try {
            return handle.batch((h, d, o, c, r, out) -> LfbNative.lfb_java_batch(h, OP_ADD, d, o, c, r, out, done), keys, null);
        } catch (LfbloomException e) {
            if (e.isFull() || e.isTooManyDuplicates()) throw new LfbloomException(e, done[0]);
            throw e;
        }
    }

    /**
     * A private copy in this process's memory (not shared, writable, also when this filter is a
     * shared or read-only file): the same shape, seed and contents, a filter of its own from then
     * on. Any thread; puts racing with it may or may not be in the copy. A cuckoo filter's puts
     * and removes wait while it copies.
     */
    public F copy() {
        long[] out = new long[1];
        handle.call(h -> LfbNative.lfb_copy(h, out));
        return wrap(out[0]);
    }

    /**
     * True if {@code other} is a filter of the same class, shape, seed and probe rule holding the
     * same bits, counters or fingerprints (then every key gets the same answer from both), as
     * Guava's equals; the sizing they were created for is not compared. Reads both (O(size)):
     * exact when neither is being changed. A closed filter equals only itself (Object's contract:
     * equals does not throw, unlike this class's other methods after close).
     */
    @Override
    public boolean equals(Object other) {
        if (this == other) return true;
        if (other == null || other.getClass() != getClass()) return false;
        HandleFilter<?> that = (HandleFilter<?>) other;
        if (shapeHash != that.shapeHash) return false;
        try {
            return handle.callWith(that.handle, LfbNative::lfb_equal) == 1;
        } catch (IllegalStateException closed) {
            return false;
        }
    }

    /** Of the shape and seed, which never change (equal filters have equal shapes): O(1), also after close. */
    @Override
    public int hashCode() {
        return shapeHash;
    }

    /** Empties the filter. Puts (and removes) racing with it may be lost. */
    public void clear() {
        handle.call(LfbNative::lfb_clear);
    }

    /** lfb_union: adds other's keys to this filter (compatible filters only, else LfbloomException -4). */
    final void union(F other) {
        if (other == null) throw new IllegalArgumentException("other is null");
        handle.callWith(other.handle, LfbNative::lfb_union);
    }

    /** lfb_intersect: keeps what both hold (compatible filters only, else LfbloomException -4). */
    final void intersection(F other) {
        if (other == null) throw new IllegalArgumentException("other is null");
        handle.callWith(other.handle, LfbNative::lfb_intersect);
    }

    /** lfb_info_get, read into {@code read} while the info is alive. */
    final <T> T info(Function<lfb_info, T> read) {
        lfb_info info = new lfb_info();
        try {
            handle.call(h -> LfbNative.lfb_info_get(h, info));
            return read.apply(info);
        } finally {
            info.delete();
        }
    }

    /** Parameters and fill, read slot by slot (O(size)) while other threads may write. */
    @Override
    public Stats stats() {
        return info(Stats::of);
    }

    /** Writes a shared file's pages to disk (msync): durability across a machine crash only; nothing to do otherwise. Any thread. */
    public void flush() {
        handle.call(LfbNative::lfb_flush);
    }

    /**
     * Writes the filter in lfbloom's own format (docs/FORMAT.md); any process or language loads
     * it. Any thread: it holds every put that completed before it began; a cuckoo filter's puts
     * and removes wait while it is written.
     */
    public void save(OutputStream out) throws IOException {
        write(out, Native.FORMAT_NATIVE);
    }

    final void write(OutputStream out, int format) throws IOException {
        handle.save(out, (h, size) -> LfbNative.lfb_serialized_size(h, format, size),
                (h, buffer, written) -> LfbNative.lfb_save(h, format, buffer, written));
    }

    /** Creates the filter a spec describes; the spec is deleted. */
    static long created(lfb_spec spec) {
        try {
            long[] out = new long[1];
            return Native.handleOf(LfbNative.lfb_create(spec, out), out);
        } finally {
            spec.delete();
        }
    }

    /** Opens (or with flags, creates) a shared file; the spec (may be null) is deleted. */
    static long opened(java.nio.file.Path path, lfb_spec spec, long flags) {
        try {
            if (path == null) throw new IllegalArgumentException("path is null");
            Native.load();
            long[] out = new long[1];
            return Native.handleOf(LfbNative.lfb_open_shared(path.toString(), spec, flags, 0666, out), out);
        } finally {
            if (spec != null) spec.delete();
        }
    }

    /** {@code handle} if it holds one of {@code kinds}, else it is freed and LfbloomException (-4) thrown. */
    static long ofKind(long handle, String what, int... kinds) {
        int kind = LfbNative.lfb_kind(handle);
        for (int k : kinds) if (k == kind) return handle;
        LfbNative.lfb_free(handle);
        throw new LfbloomException(Native.ERR_INCOMPATIBLE, "it holds a filter of another kind (" + Native.kindName(kind) + "), not " + what);
    }

    /** Loads a filter of one of {@code kinds} from serialized data; anything else throws IOException. */
    static long loaded(ByteBuffer data, int format, long maxBytes, String what, int... kinds) throws IOException {
        Native.load();
        long[] out = new long[1];
        try {
            return ofKind(Native.handleOf(LfbNative.lfb_load(format, data, maxBytes, out), out), what, kinds);
        } catch (IllegalArgumentException | LfbloomException e) {
            throw Native.loadFailure(e);
        }
    }

    /** As {@link #loaded}, from a stream in lfbloom's own format. */
    static long loaded(InputStream in, long maxBytes, String what, int... kinds) throws IOException {
        return loaded(Native.readNative(in, maxBytes), Native.FORMAT_NATIVE, maxBytes, what, kinds);
    }
}
