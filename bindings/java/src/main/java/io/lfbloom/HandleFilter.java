package io.lfbloom;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.ref.Cleaner;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Collection;
import java.util.ConcurrentModificationException;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.PrimitiveIterator;
import java.util.function.Function;
import java.util.function.LongPredicate;
import java.util.function.Predicate;
import java.util.stream.LongStream;

/**
 * The one base of every filter class: a filter of any kind behind one {@code lfb_handle},
 * lfbloom.h's handle for every kind, reached through the generic C calls only. What every kind
 * does lives here once: puts and queries of every key type, singly and in chunked batches (a
 * batch reports where a refusal stopped it), statistics, the O(1) geometry, closing, equality.
 * What only some kinds do (copies, removes, saving, rotations, swaps) is a package-private
 * helper here or a one-line call in the class of the kinds that have it, so no class shows a
 * method its kind refuses.
 */
abstract class HandleFilter implements Filter {
    final NativeHandle handle;
    private final Cleaner.Cleanable cleanable;
    private final String kind;           // lfb_kind_name: never changes
    private final boolean composite;     // scalable, rotating or swap: no copy or comparison of contents
    private final String shape;          // a layout's slots, width, hashes and seed, for toString: never change
    private final int shapeHash;         // hashCode: of the shape, which equal filters share

    HandleFilter(long nativeHandle) {
        Cleaner.Cleanable[] cleanable = new Cleaner.Cleanable[1];
        this.handle = NativeHandle.register(this, nativeHandle, cleanable);
        this.cleanable = cleanable[0];
        lfb_info info = new lfb_info();
        try {
            Native.check(LfbNative.lfb_geometry_get(nativeHandle, info));  // O(1); no other thread has the handle yet
            int k = (int) info.getKind();
            kind = Native.kindName(k);
            composite = k == lfb_kind_enum.LFB_KIND_SCALABLE || k == lfb_kind_enum.LFB_KIND_ROTATING || k == lfb_kind_enum.LFB_KIND_SWAP;
            shape = composite ? "" : ", " + info.getSlots() + " slots of " + info.getSlot_bits() + " bits, " + info.getHashes()
                    + " hashes, seed " + info.getSeed();
            shapeHash = composite ? System.identityHashCode(this)
                    : Objects.hash(k, info.getSlots(), info.getSlot_bits(), info.getHashes(), info.getSeed());
        } finally {
            info.delete();
        }
    }

    // ---- single keys --------------------------------------------------------------------------

    /** Adds a key; true if it was new (what "new" means is the kind's). Any thread. */
    @Override
    public boolean put(byte[] key) {
        return handle.call(LfbNative::lfb_add, key) == 1;
    }

    /** Adds the UTF-8 bytes of the key. Any thread. */
    @Override
    public boolean put(CharSequence key) {
        return handle.call(LfbNative::lfb_add, key) == 1;
    }

    /** Adds the 8 little-endian bytes of the key. Any thread. */
    @Override
    public boolean put(long key) {
        return handle.call(LfbNative::lfb_add, key) == 1;
    }

    /** Adds the bytes from the buffer's position to its limit; the buffer's position is unchanged. Any thread. */
    @Override
    public boolean put(ByteBuffer key) {
        return handle.call(LfbNative::lfb_add, key) == 1;
    }

    /**
     * True if the key may have been put; false means it certainly was not (for a put that
     * happened-before this call). Any thread, lock-free.
     */
    @Override
    public boolean mightContain(byte[] key) {
        return handle.call(LfbNative::lfb_contains, key) == 1;
    }

    /** As {@link #mightContain(byte[])}, for the UTF-8 bytes of the key. Any thread, lock-free. */
    @Override
    public boolean mightContain(CharSequence key) {
        return handle.call(LfbNative::lfb_contains, key) == 1;
    }

    /** As {@link #mightContain(byte[])}, for the 8 little-endian bytes of the key. Any thread, lock-free. */
    @Override
    public boolean mightContain(long key) {
        return handle.call(LfbNative::lfb_contains, key) == 1;
    }

    /** As {@link #mightContain(byte[])}, for the bytes from the buffer's position to its limit. Any thread, lock-free. */
    @Override
    public boolean mightContain(ByteBuffer key) {
        return handle.call(LfbNative::lfb_contains, key) == 1;
    }

    /**
     * {@link #mightContain(CharSequence)} as a predicate; it throws IllegalStateException once this
     * filter is closed. Any thread.
     */
    @Override
    public Predicate<CharSequence> asPredicate() {
        handle.ensureOpen();
        return this::mightContain;
    }

    /**
     * {@link #mightContain(long)} as a predicate; it throws IllegalStateException once this filter is
     * closed. Any thread.
     */
    @Override
    public LongPredicate asLongPredicate() {
        handle.ensureOpen();
        return this::mightContain;
    }

    // ---- batches ------------------------------------------------------------------------------

    /**
     * Puts every key, in order, in native calls of up to {@value Native#CHUNK_KEYS} keys; returns
     * how many were new. A null key throws IllegalArgumentException before any key is put. A
     * refused put: see {@link Filter}. Any thread.
     */
    @Override
    public long putAll(List<byte[]> keys) {
        return batch(lfb_batch_op_enum.LFB_OP_ADD, bytes(keys), null);
    }

    /** As {@link #putAll(List)}, for the UTF-8 bytes of each key. Any thread. */
    @Override
    public long putAll(Collection<? extends CharSequence> keys) {
        return batch(lfb_batch_op_enum.LFB_OP_ADD, chars(keys), null);
    }

    /** As {@link #putAll(List)}, for the 8 little-endian bytes of each key. Any thread. */
    @Override
    public long putAll(long[] keys) {
        return batch(lfb_batch_op_enum.LFB_OP_ADD, longs(keys), null);
    }

    /**
     * As {@link #putAll(List)}, for the 8 little-endian bytes of each key the stream gives; the
     * stream is consumed (sequentially), chunk by chunk, never held whole. Any thread.
     */
    @Override
    public long putAll(LongStream keys) {
        handle.ensureOpen();
        if (keys == null) throw new IllegalArgumentException("keys is null");
        return batch(lfb_batch_op_enum.LFB_OP_ADD, longs(keys.iterator()), null);
    }

    /**
     * Puts every key in a parallel bulk build on {@code threads} threads (one: the calling one;
     * more: native threads, the calling one waiting; 0: one per CPU): the keys are copied into direct buffers (their bytes and 8 bytes a
     * key; one native call per {@value Native#BULK_CHUNK_KEYS} keys or about 1 GiB of them),
     * hashed once, and each part of the filter is set in a private copy and merged into it in
     * order, so a filter larger than the cache fills faster than with {@link #putAll(List)}.
     * The filter ends with the same contents as after putting the keys one by one; no count of new
     * keys comes back. Cuckoo, scalable and rotating filters put them one by one on the calling
     * thread, as putAll; a refused put throws as putAll's. Temporary native memory: a private copy of
     * the filter and up to 4 times its size of hashed keys (16 bytes a key, 64 MiB to 1 GiB); for
     * a filter of at most 2 MiB, a copy a thread and no hashed keys (a thread per 65,536 keys).
     * The keys are also copied into direct buffers first, in chunks.
     * IllegalArgumentException for a negative {@code threads}, a null list or key (nothing put).
     * Any thread, beside any other call on the filter (or other processes on a shared file): every
     * key is present when it returns; a query meanwhile may see some keys and not others.
     */
    @Override
    public void putAllBulk(List<byte[]> keys, int threads) {
        bulk(lfb_batch_op_enum.LFB_OP_ADD, bytes(keys), keys.size(), byteCount(keys), threads);
    }

    /** As {@link #putAllBulk(List, int)}, for the UTF-8 bytes of each key. Any thread. */
    @Override
    public void putAllBulk(Collection<? extends CharSequence> keys, int threads) {
        KeySource source = chars(keys);
        long length = 0;
        for (CharSequence k : keys) length += k.length();
        bulk(lfb_batch_op_enum.LFB_OP_ADD, source, keys.size(), length, threads);
    }

    /** As {@link #putAllBulk(List, int)}, for the 8 little-endian bytes of each key. Any thread. */
    @Override
    public void putAllBulk(long[] keys, int threads) {
        bulk(lfb_batch_op_enum.LFB_OP_ADD, longs(keys), keys.length, 8L * keys.length, threads);
    }

    /**
     * Queries every key in native calls of up to {@value Native#CHUNK_KEYS} keys; element i answers
     * for keys.get(i). Any thread.
     */
    @Override
    public boolean[] mightContainAll(List<byte[]> keys) {
        return answers(lfb_batch_op_enum.LFB_OP_CONTAINS, keys, bytes(keys));
    }

    /** As {@link #mightContainAll(List)}, for the UTF-8 bytes of each key, in iteration order. Any thread. */
    @Override
    public boolean[] mightContainAll(Collection<? extends CharSequence> keys) {
        return answers(lfb_batch_op_enum.LFB_OP_CONTAINS, keys, chars(keys));
    }

    /** As {@link #mightContainAll(List)}, for the 8 little-endian bytes of each key. Any thread. */
    @Override
    public boolean[] mightContainAll(long[] keys) {
        KeySource source = longs(keys);
        boolean[] answers = new boolean[keys.length];
        batch(lfb_batch_op_enum.LFB_OP_CONTAINS, source, answers);
        return answers;
    }

    /** Appends the next key to this thread's batch buffers; false when none is left. */
    interface KeySource {
        boolean next(Native.Buffers into);
    }

    /** The keys, checked first (open, not null, no null key), so that a bad batch does nothing. */
    final KeySource bytes(List<byte[]> keys) {
        checkKeys(keys);
        Iterator<byte[]> it = keys.iterator();
        return b -> {
            if (!it.hasNext()) return false;
            b.add(it.next());
            return true;
        };
    }

    final KeySource chars(Collection<? extends CharSequence> keys) {
        checkKeys(keys);
        Iterator<? extends CharSequence> it = keys.iterator();
        return b -> {
            if (!it.hasNext()) return false;
            b.add(it.next());
            return true;
        };
    }

    final KeySource longs(long[] keys) {
        handle.ensureOpen();
        if (keys == null) throw new IllegalArgumentException("keys is null");
        return longs(LongStream.of(keys).iterator());
    }

    private static KeySource longs(PrimitiveIterator.OfLong it) {
        return b -> {
            if (!it.hasNext()) return false;
            b.add(it.nextLong());
            return true;
        };
    }

    private void checkKeys(Collection<?> keys) {
        handle.ensureOpen();
        if (keys == null) throw new IllegalArgumentException("keys is null");
        for (Object k : keys) if (k == null) throw new IllegalArgumentException("a key in the batch is null");
    }

    /** The bytes of the keys (checked by bytes(keys) first). */
    static long byteCount(List<byte[]> keys) {
        long n = 0;
        for (byte[] k : keys) n += k.length;
        return n;
    }

    /** A batch with an answer per key (queries, removes). */
    final boolean[] answers(int op, Collection<?> keys, KeySource source) {
        boolean[] answers = new boolean[keys.size()];  // source checked keys: not null
        batch(op, source, answers);
        return answers;
    }

    /**
     * Runs {@code op} (enum lfb_batch_op) over the keys in chunks of up to CHUNK_KEYS keys or
     * about CHUNK_BYTES bytes, one native call each; returns the keys answered 1 (new, present,
     * removed) and fills {@code answers} if not null. A chunk refused midway throws with
     * keysDone counted over the whole batch.
     */
    final long batch(int op, KeySource keys, boolean[] answers) {
        Native.Buffers b = Native.buffers();
        if (b.busy) b = new Native.Buffers();  // a batch started by a key source on this thread: its own buffers
        return run(op, keys, answers, b, 0, 0);
    }

    /**
     * Runs {@code op} (add or add_staged) as a bulk build (LFB_BATCH_BULK) on {@code threads}
     * threads over {@code count} keys of about {@code bytes} bytes, in buffers of its own (chunks of
     * up to BULK_CHUNK_KEYS keys or about BULK_CHUNK_BYTES bytes, one native call each).
     */
    final void bulk(int op, KeySource keys, int count, long bytes, int threads) {
        if (threads < 0) throw new IllegalArgumentException("threads must be >= 0 (0: one per CPU)");
        run(op, keys, null, Native.Buffers.bulk(count, bytes), LfbNativeConstants.LFB_BATCH_BULK, threads);
    }

    /** batch and bulk: the chunks in {@code b}, with lfb_batch's flags and threads. */
    private long run(int op, KeySource keys, boolean[] answers, Native.Buffers b, long flags, long threads) {
        b.busy = true;
        try {
            long processed = 0, positive = 0;
            long[] chunkPositive = new long[1], done = new long[1];
            for (;;) {
                b.begin();
                while (!b.full() && keys.next(b)) {}
                int n = b.count();
                if (n == 0) return positive;
                if (answers != null && processed + n > answers.length)
                    throw new ConcurrentModificationException("the collection grew during the batch");
                b.finish();
                Native.Buffers chunk = b;
                ByteBuffer results = answers == null ? null : b.results();
                int status = handle.callRaw(h -> LfbNative.lfb_java_batch(h, op, chunk.data(), chunk.offsets(), n, results, flags,
                        threads, chunkPositive, done));
                long answered = status < 0 ? done[0] : n;
                for (int i = 0; answers != null && i < answered; i++) answers[(int) processed + i] = results.get(i) != 0;
                if (status < 0) throw Native.failure(status, processed + done[0]);
                positive += chunkPositive[0];
                processed += n;
            }
        } finally {
            b.busy = false;
        }
    }

    // ---- what the filter is -------------------------------------------------------------------

    /** lfb_info_get, lfb_geometry_get or lfb_part_info into a fresh lfb_info. */
    interface InfoCall {
        int apply(long handle, lfb_info info);
    }

    /** Runs an info call and reads the lfb_info it filled while it is alive. */
    final <T> T info(InfoCall call, Function<lfb_info, T> read) {
        handle.ensureOpen();
        lfb_info info = new lfb_info();
        try {
            handle.call(h -> call.apply(h, info));
            return read.apply(info);
        } finally {
            info.delete();
        }
    }

    /** A composite's part {@code index} (lfb_part_info); IllegalArgumentException past the last. */
    final <T> T part(int index, Function<lfb_info, T> read) {
        handle.ensureOpen();
        if (index < 0) throw new IllegalArgumentException("index must be >= 0");
        return info((h, i) -> LfbNative.lfb_part_info(h, index, i), read);
    }

    /** Parameters and fill, read slot by slot (O(size)) while other threads may write. Any thread. */
    @Override
    public Stats stats() {
        return info(LfbNative::lfb_info_get, Stats::of);
    }

    /** The shape and counters, without reading the contents: O(1) (composites: O(sub-filters)). Any thread. */
    @Override
    public Geometry geometry() {
        return info(LfbNative::lfb_geometry_get, Geometry::of);
    }

    /** The bits of the filter's arrays (bytes × 8): O(1). Any thread. */
    @Override
    public long bitSize() {
        return info(LfbNative::lfb_geometry_get, i -> i.getBytes() * 8);
    }

    /** Distinct keys estimated from the fill, as Guava's approximateElementCount. Any thread. */
    @Override
    public long approximateElementCount() {
        double n = stats().estimatedCount();
        return Double.isInfinite(n) ? Long.MAX_VALUE : Math.round(n);
    }

    /** The false-positive probability expected now, from the fill, as Guava's expectedFpp. Any thread. */
    @Override
    public double expectedFpp() {
        return stats().estimatedFpp();
    }

    // ---- closing and identity -----------------------------------------------------------------

    /**
     * Frees the native filter. Idempotent and thread-safe; later calls but equals, hashCode and
     * toString throw IllegalStateException.
     */
    @Override
    public void close() {
        cleanable.clean();
    }

    /**
     * A plain filter (Bloom, counting, cuckoo): true if {@code other} is a filter of the same
     * class, shape, seed and probe rule holding the same bits, counters or fingerprints (then
     * every key gets the same answer from both), as Guava's equals; the sizing they were created
     * for is not compared. Reads both (O(size)): exact when neither is being changed. A
     * composite (scalable, rotating, swappable) equals only itself. Never throws: a closed filter,
     * or a cuckoo filter mapped read-only (whose writers a comparison cannot pause), equals only
     * itself. Any thread.
     */
    @Override
    public boolean equals(Object other) {
        if (this == other) return true;
        if (composite || other == null || other.getClass() != getClass()) return false;
        HandleFilter that = (HandleFilter) other;
        if (shapeHash != that.shapeHash) return false;
        try {
            return handle.callWith(that.handle, LfbNative::lfb_equal) == 1;
        } catch (IllegalStateException | LfbloomException cannotCompare) {
            return false;
        }
    }

    /**
     * Of the shape and seed, which never change (equal filters have equal shapes); a composite's is
     * its identity's. O(1), also after close. Any thread.
     */
    @Override
    public int hashCode() {
        return shapeHash;
    }

    /**
     * The class, kind and a plain filter's shape, and whether it is closed: no native call, also after
     * close. Any thread.
     */
    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + kind + shape + (handle.isClosed() ? ", closed" : "") + "]";
    }

    // ---- what some kinds do: their classes make these public ----------------------------------

    /** lfb_copy: a new handle with this filter's shape and contents. */
    final long copied() {
        long[] out = new long[1];
        handle.call(h -> LfbNative.lfb_copy(h, out));
        return out[0];
    }

    /** lfb_union: adds other's keys to this filter (compatible filters only, else LfbloomException "incompatible"). */
    final void union(HandleFilter other) {
        handle.ensureOpen();
        if (other == null) throw new IllegalArgumentException("other is null");
        handle.callWith(other.handle, LfbNative::lfb_union);
    }

    /** lfb_intersect: keeps what both hold (compatible filters only, else LfbloomException "incompatible"). */
    final void intersection(HandleFilter other) {
        handle.ensureOpen();
        if (other == null) throw new IllegalArgumentException("other is null");
        handle.callWith(other.handle, LfbNative::lfb_intersect);
    }

    /**
     * Saves a filter that grows while it is saved tries at most this many times (write). Each failed
     * try means it grew: a scalable filter by a sub-filter, of which it has at most 255, so 256 tries
     * outlast any scalable filter's growth (8 did not, with threads adding fast under load).
     */
    static final int SAVE_TRIES = 256;

    /**
     * Writes the filter in {@code format} (enum lfb_format): its exact size, a direct buffer,
     * lfb_save, then the stream. A filter that grew between the size and the save (a scalable
     * filter's new sub-filter: lfb_save refuses the buffer as too small) is saved again at its new
     * size, up to SAVE_TRIES times.
     */
    final void write(OutputStream out, int format) throws IOException {
        handle.ensureOpen();
        if (out == null) throw new IllegalArgumentException("out is null");
        long[] size = new long[1], written = new long[1];
        ByteBuffer buffer;
        long h = handle.acquire();
        try {
            for (int attempt = 1; ; attempt++) {
                Native.check(LfbNative.lfb_serialized_size(h, format, size));
                if (size[0] > Integer.MAX_VALUE - 16)
                    throw new IOException("filter too large for one stream buffer: " + size[0] + " bytes");
                buffer = ByteBuffer.allocateDirect((int) size[0]);
                int status = LfbNative.lfb_save(h, format, buffer, written);
                if (status == lfb_status_enum.LFB_ERR_INVALID_ARGUMENT && attempt < SAVE_TRIES) {
                    RuntimeException refused = Native.failure(status, -1);  // this thread's message, before another call
                    long[] now = new long[1];
                    if (LfbNative.lfb_serialized_size(h, format, now) >= 0 && now[0] > size[0]) continue;  // it grew
                    throw refused;
                }
                Native.check(status);
                buffer.limit((int) written[0]);
                break;
            }
        } finally {
            handle.release();
        }
        Native.write(buffer, out);
    }

    // ---- making handles -----------------------------------------------------------------------

    /** Creates the filter a spec describes; the spec is deleted. */
    static long created(lfb_spec spec) {
        try {
            long[] out = new long[1];
            return Native.handleOf(LfbNative.lfb_create(spec, out), out);
        } finally {
            spec.delete();
        }
    }

    /**
     * lfb_open_shared: with a spec, creates the file if it does not exist (LFB_SHARED_CREATE,
     * exclusively if asked) with {@code mode} less the umask, else opens it; without one, opens
     * an existing file, read-only if asked. The spec (may be null) is deleted.
     */
    static long opened(Path path, lfb_spec spec, boolean exclusive, boolean readOnly, int mode) {
        try {
            if (path == null) throw new IllegalArgumentException("path is null");
            long flags = spec == null || spec.getKind() == 0 ? (readOnly ? LfbNativeConstants.LFB_SHARED_READ_ONLY : 0)
                    : LfbNativeConstants.LFB_SHARED_CREATE | (exclusive ? LfbNativeConstants.LFB_SHARED_EXCLUSIVE : 0);
            long[] out = new long[1];
            return Native.handleOf(LfbNative.lfb_open_shared(path.toString(), spec, flags, mode, out), out);
        } finally {
            if (spec != null) spec.delete();
        }
    }

    /**
     * lfb_open_shared of an existing file holding one of {@code kinds} (as ofKind), read-only if
     * asked; {@code maxBytes} > 0 refuses a larger filter (LfbloomException "too_large") before
     * mapping it (a spec of kind 0), 0 takes any size.
     */
    static long existing(Path path, boolean readOnly, long maxBytes, String what, int... kinds) {
        lfb_spec limit = null;
        if (maxBytes > 0) {
            limit = new lfb_spec();
            limit.setKind(0);
            limit.setMemory_limit(maxBytes);
        }
        return ofKind(opened(path, limit, false, readOnly, 0), what, kinds);
    }

    /**
     * {@code handle} if it holds one of {@code kinds} (enum lfb_kind), else it is freed and
     * LfbloomException "incompatible" thrown.
     */
    static long ofKind(long handle, String what, int... kinds) {
        int kind = LfbNative.lfb_kind(handle);
        for (int k : kinds) if (k == kind) return handle;
        LfbNative.lfb_free(handle);
        throw new LfbloomException(lfb_status_enum.LFB_ERR_INCOMPATIBLE,
                "it holds a filter of another kind (" + Native.kindName(kind) + "), not " + what, -1);
    }

    /**
     * Reads exactly one saved filter in {@code format} from the stream (Native.readSaved) and
     * loads it: a filter of one of {@code kinds}; anything else (corrupt, truncated, over
     * maxBytes, another kind) throws IOException.
     */
    static long loaded(InputStream in, int format, long maxBytes, String what, int... kinds) throws IOException {
        return loaded(in, format, maxBytes, what, 0, kinds);
    }

    /** As loaded, and (subKind not 0) refusing from the header a filter whose parts are of another kind. */
    static long loaded(InputStream in, int format, long maxBytes, String what, int subKind, int[] kinds) throws IOException {
        ByteBuffer data = Native.readSaved(in, format, maxBytes, what, subKind, kinds);
        long[] out = new long[1];
        try {
            return ofKind(Native.handleOf(LfbNative.lfb_load(format, data, maxBytes, out), out), what, kinds);
        } catch (IllegalArgumentException | LfbloomException e) {
            throw Native.loadFailure(e);
        }
    }
}
