package io.lfbloom;

import java.util.List;

/**
 * The kinds that remove keys, {@link CountingBloomFilter} and {@link CuckooFilter}: remove and
 * count through the generic C calls (lfb_remove, lfb_count, a remove batch). Removing a key never
 * put can remove another key's counts or fingerprint: a false negative for that key, as in every
 * counting and cuckoo filter.
 */
abstract class RemovingFilter<F extends RemovingFilter<F>> extends HandleFilter<F> {
    RemovingFilter(long nativeHandle) {
        super(nativeHandle);
    }

    /** Removes one copy of the key: true if one was there, false (nothing changed) if not. */
    public boolean remove(byte[] key) {
        return handle.call(LfbNative::lfb_remove, Native.buffers().key(key)) == 1;
    }

    /** As {@link #remove(byte[])}, for the UTF-8 bytes of the key. */
    public boolean remove(CharSequence key) {
        return handle.call(LfbNative::lfb_remove, Native.buffers().key(key)) == 1;
    }

    /** As {@link #remove(byte[])}, for the 8 little-endian bytes of the key. */
    public boolean remove(long key) {
        return handle.call(LfbNative::lfb_remove, Native.buffers().key(key)) == 1;
    }

    /**
     * Removes one copy of each key, in order, in one native call (keys hashed and their cache
     * lines fetched in groups: much faster than a loop of {@link #remove}). Element i is what
     * {@code remove(keys.get(i))} would have returned.
     */
    public boolean[] removeAll(List<byte[]> keys) {
        boolean[] removed = new boolean[keys == null ? 0 : keys.size()];
        handle.batch((h, d, o, c, r, out) -> LfbNative.lfb_java_batch(h, OP_REMOVE, d, o, c, r, out, null), keys, removed);
        return removed;
    }

    /**
     * A counting filter: the smallest of the key's counters, at least how often it was put (minus
     * removed); a cuckoo filter: copies of its fingerprint in its buckets. 0 means certainly absent.
     */
    public int count(byte[] key) {
        return handle.call(LfbNative::lfb_count, Native.buffers().key(key));
    }

    /** As {@link #count(byte[])}, for the UTF-8 bytes of the key. */
    public int count(CharSequence key) {
        return handle.call(LfbNative::lfb_count, Native.buffers().key(key));
    }

    /** As {@link #count(byte[])}, for the 8 little-endian bytes of the key. */
    public int count(long key) {
        return handle.call(LfbNative::lfb_count, Native.buffers().key(key));
    }
}
