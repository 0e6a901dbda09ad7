package io.lfbloom;

import java.util.List;

/**
 * A handle whose {@link BloomFilter} is replaced atomically by a freshly built one while other
 * threads keep using it: every call sees the old or the new filter, never a freed one. Readers
 * count themselves in per-thread stripes; a replacement waits for readers of the old filter to
 * leave, then frees it. Puts and queries never wait.
 *
 * <p><b>Rebuilding without a gap.</b> {@link #stage(BloomFilter)} an empty filter: from then on
 * every put also goes to it. Fill it from your source of truth with {@link #putStaged} (the source
 * must record each key before it is put, e.g. insert into the database, then put), then
 * {@link #publish()}. No key is missing after the switch. {@link #replace(BloomFilter)} swaps in a
 * filter that is already complete.
 *
 * <p>Filters handed over (create, stage, replace) belong to this handle afterwards: the
 * BloomFilter object you passed is closed.
 *
 * <p><b>Thread safety.</b> Every method may be called from any number of threads at once;
 * stage, publish and replace wait for readers of the filter they retire. {@link #close()} frees
 * the current and any staged filter. A swap equals only itself.
 */
public final class SwappableBloomFilter extends HandleFilter {
    private SwappableBloomFilter(long nativeHandle) {
        super(nativeHandle);
    }

    /** A handle over {@code initial}, which it takes over (the object is closed). Any thread. */
    public static SwappableBloomFilter create(BloomFilter initial) {
        long[] out = new long[1];
        adopt(initial, f -> LfbNative.lfb_create_swap(f, out));
        return new SwappableBloomFilter(out[0]);
    }

    /** Replaces the filter with {@code next} (taken over); returns once the old one is freed. Any thread. */
    public void replace(BloomFilter next) {
        handle.call(h -> adopt(next, f -> LfbNative.lfb_replace(h, f)));
    }

    /** From now on every put also goes to {@code next} (taken over); a filter staged before is freed. Any thread. */
    public void stage(BloomFilter next) {
        handle.call(h -> adopt(next, f -> LfbNative.lfb_stage(h, f)));
    }

    /** Adds to the staged filter only (the rebuild); IllegalArgumentException if nothing is staged. Any thread. */
    public boolean putStaged(byte[] key) {
        return handle.call(LfbNative::lfb_add_staged, key) == 1;
    }

    /** As {@link #putStaged(byte[])}, for the UTF-8 bytes of the key. Any thread. */
    public boolean putStaged(CharSequence key) {
        return handle.call(LfbNative::lfb_add_staged, key) == 1;
    }

    /** As {@link #putStaged(byte[])}, for the 8 little-endian bytes of the key. Any thread. */
    public boolean putStaged(long key) {
        return handle.call(LfbNative::lfb_add_staged, key) == 1;
    }

    /**
     * Adds all keys to the staged filter, in batches; returns how many were new to it.
     * IllegalArgumentException if nothing is staged. Any thread.
     */
    public long putAllStaged(List<byte[]> keys) {
        return batch(lfb_batch_op_enum.LFB_OP_ADD_STAGED, bytes(keys), null);
    }

    /**
     * Rebuilds the staged filter in bulk: {@link #putAllBulk(List, int)}'s parallel build of every
     * key into the staged filter only (the current one is untouched). IllegalArgumentException if
     * nothing is staged or {@code threads} is negative. Any thread, beside any other call.
     */
    public void putAllBulkStaged(List<byte[]> keys, int threads) {
        bulk(lfb_batch_op_enum.LFB_OP_ADD_STAGED, bytes(keys), keys.size(), byteCount(keys), threads);
    }

    /**
     * Makes the staged filter current; returns once the old one is freed. IllegalArgumentException if
     * nothing is staged. Any thread.
     */
    public void publish() {
        handle.call(LfbNative::lfb_publish);
    }

    /** Replacements so far (each publish and replace): O(1). Any thread. */
    public long generation() {
        return geometry().generation();
    }

    /** The current filter's statistics. Any thread. */
    @Override
    public Stats stats() {
        return super.stats();
    }

    /** A native call that takes over a filter: detaches it from its object, frees it if the call refuses it. */
    private static int adopt(BloomFilter filter, java.util.function.LongToIntFunction call) {
        if (filter == null) throw new IllegalArgumentException("filter is null");
        long f = filter.handle.detach();
        int status = call.applyAsInt(f);
        if (status < 0) {
            RuntimeException refused = Native.failure(status, -1);  // read this thread's message before lfb_free
            LfbNative.lfb_free(f);  // refused: still ours, and its object is closed
            throw refused;
        }
        return status;
    }
}
