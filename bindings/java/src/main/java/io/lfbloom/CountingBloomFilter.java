package io.lfbloom;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.List;

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
 * key's counters is zero.
 */
public final class CountingBloomFilter extends KeyFilter {
    private CountingBloomFilter(long nativeHandle) {
        super(nativeHandle, LfbNative::lfb_counting_free, LfbNative::lfb_counting_add, LfbNative::lfb_counting_contains,
                LfbNative::lfb_counting_add_many, LfbNative::lfb_counting_contains_many);
    }

    /** 4-bit counters, sized so that after {@code expectedInsertions} keys the FPP is at most {@code fpp}. */
    public static CountingBloomFilter create(long expectedInsertions, double fpp) {
        return create(expectedInsertions, fpp, 4, BloomFilter.Options.defaults());
    }

    /** What {@code create(expectedInsertions, fpp, counterBits, options)} would make, without making it. */
    public static Plan plan(long expectedInsertions, double fpp, int counterBits) {
        return Plan.of(Native.LAYOUT_COUNTING, expectedInsertions, fpp, counterBits);
    }

    /** {@code counterBits} is 4 or 8; the options' layout is ignored (counting filters are blocked). */
    public static CountingBloomFilter create(long expectedInsertions, double fpp, int counterBits, BloomFilter.Options options) {
        if (expectedInsertions <= 0) throw new IllegalArgumentException("expectedInsertions must be > 0");
        if (!(fpp > 0 && fpp < 1)) throw new IllegalArgumentException("fpp must be in (0, 1), got " + fpp);
        if (counterBits != 4 && counterBits != 8) throw new IllegalArgumentException("counterBits must be 4 or 8");
        Native.load();
        long[] out = new long[1];
        return new CountingBloomFilter(
                Native.handleOf(LfbNative.lfb_counting_create(expectedInsertions, fpp, options.toNative(counterBits), out), out));
    }

    /** Removes one copy of the key; false (nothing changed) if it is not present. */
    public boolean remove(byte[] key) {
        return removeKey(Native.buffers().key(key));
    }

    /** Removes one copy of the UTF-8 bytes of the key. */
    public boolean remove(CharSequence key) {
        return removeKey(Native.buffers().key(key));
    }

    /** Removes one copy of the 8 little-endian bytes of the key. */
    public boolean remove(long key) {
        return removeKey(Native.buffers().key(key));
    }

    /**
     * Removes one copy of each key, in order, in one native call (keys are hashed and their cache
     * lines fetched in groups, so this is much faster than a loop of {@link #remove}). Element i is
     * what {@code remove(keys.get(i))} would have returned: false if that key was not present, in
     * which case nothing changed for it.
     */
    public boolean[] removeAll(List<byte[]> keys) {
        boolean[] removed = new boolean[keys == null ? 0 : keys.size()];
        handle.batch(LfbNative::lfb_counting_remove_many, keys, removed);
        return removed;
    }

    private boolean removeKey(ByteBuffer key) {
        int status = handle.callRaw(LfbNative::lfb_counting_remove, key);
        if (status == Native.ERR_NOT_PRESENT) return false;
        Native.check(status);
        return true;
    }

    /** The smallest of the key's counters: at least how often it was put (minus removed); 0 if absent. */
    public int count(byte[] key) {
        return handle.call(LfbNative::lfb_counting_count, Native.buffers().key(key));
    }

    /** As {@link #count(byte[])}, for the UTF-8 bytes of the key. */
    public int count(CharSequence key) {
        return handle.call(LfbNative::lfb_counting_count, Native.buffers().key(key));
    }

    /** As {@link #count(byte[])}, for the 8 little-endian bytes of the key. */
    public int count(long key) {
        return handle.call(LfbNative::lfb_counting_count, Native.buffers().key(key));
    }

    /** Zeroes every counter. Puts racing with it may be lost. */
    public void clear() {
        handle.call(LfbNative::lfb_counting_clear);
    }

    /** Adds {@code other}'s counters to this filter's, saturating; geometry, width and seed must match. */
    public void merge(CountingBloomFilter other) {
        if (other == null) throw new IllegalArgumentException("other is null");
        handle.callWith(other.handle, LfbNative::lfb_counting_merge);
    }

    @Override
    public Stats stats() {
        return Stats.of(handle.stats(LfbNative::lfb_counting_stats));
    }

    /** Writes the filter in lfbloom's own format. */
    public void save(OutputStream out) throws IOException {
        handle.save(out, LfbNative::lfb_counting_serialized_size, LfbNative::lfb_counting_save);
    }

    /** Reads a filter written by {@link #save}; corrupt or foreign data throws IOException. */
    public static CountingBloomFilter load(InputStream in) throws IOException {
        long maxBytes = Native.defaultReadLimit();
        ByteBuffer data = Native.readNative(in, maxBytes);
        Native.load();
        long[] out = new long[1];
        try {
            return new CountingBloomFilter(Native.handleOf(
                    LfbNative.lfb_counting_load(data, BloomFilter.Options.defaults().memoryLimit(maxBytes).toNative(4), out), out));
        } catch (IllegalArgumentException | LfbloomException e) {
            throw Native.loadFailure(e);
        }
    }
}
