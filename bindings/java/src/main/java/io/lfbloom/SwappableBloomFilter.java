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
 * the current and any staged filter.
 */
public final class SwappableBloomFilter extends KeyFilter {
    private SwappableBloomFilter(long nativeHandle) {
        super(nativeHandle, LfbNative::lfb_swap_free, LfbNative::lfb_swap_add, LfbNative::lfb_swap_contains,
                LfbNative::lfb_swap_add_many, LfbNative::lfb_swap_contains_many);
    }

    /** A handle over {@code initial}, which it takes over (the object is closed). */
    public static SwappableBloomFilter create(BloomFilter initial) {
        long[] out = new long[1];
        adopt(initial, f -> LfbNative.lfb_swap_create_any(f, out));
        return new SwappableBloomFilter(out[0]);
    }

    /** Replaces the filter with {@code next} (taken over); returns once the old one is freed. */
    public void replace(BloomFilter next) {
        handle.call(h -> adopt(next, f -> LfbNative.lfb_swap_replace_any(h, f)));
    }

    /** From now on every put also goes to {@code next} (taken over); a filter staged before is freed. */
    public void stage(BloomFilter next) {
        handle.call(h -> adopt(next, f -> LfbNative.lfb_swap_stage_any(h, f)));
    }

    /** Adds to the staged filter only (the rebuild); IllegalArgumentException if nothing is staged. */
    public boolean putStaged(byte[] key) {
        return handle.call(LfbNative::lfb_swap_add_staged, Native.buffers().key(key)) == 1;
    }

    /** As {@link #putStaged(byte[])}, for the UTF-8 bytes of the key. */
    public boolean putStaged(CharSequence key) {
        return handle.call(LfbNative::lfb_swap_add_staged, Native.buffers().key(key)) == 1;
    }

    /** As {@link #putStaged(byte[])}, for the 8 little-endian bytes of the key. */
    public boolean putStaged(long key) {
        return handle.call(LfbNative::lfb_swap_add_staged, Native.buffers().key(key)) == 1;
    }

    /** Adds all keys to the staged filter in one native call; returns how many were new to it. */
    public long putAllStaged(List<byte[]> keys) {
        return handle.batch((h, data, offsets, count, results, out) -> LfbNative.lfb_swap_add_many_staged(h, data, offsets, count, out),
                keys, null);
    }

    /** Makes the staged filter current; returns once the old one is freed. IllegalArgumentException if nothing is staged. */
    public void publish() {
        handle.call(LfbNative::lfb_swap_publish);
    }

    /** Replacements so far. */
    public long generation() {
        long[] n = new long[1];
        handle.call(h -> LfbNative.lfb_swap_generation(h, n));
        return n[0];
    }

    /** The current filter's statistics. */
    @Override
    public Stats stats() {
        return Stats.of(handle.stats(LfbNative::lfb_swap_stats));
    }

    /** A native call that takes over a filter: detaches it from its object, frees it if the call refuses it. */
    private static int adopt(BloomFilter filter, java.util.function.LongToIntFunction call) {
        if (filter == null) throw new IllegalArgumentException("filter is null");
        long f = filter.handle.detach();
        int status = call.applyAsInt(f);
        if (status < 0) LfbNative.lfb_free(f);  // refused: still ours, and its object is closed
        return Native.check(status);
    }
}
