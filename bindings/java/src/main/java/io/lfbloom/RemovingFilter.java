package io.lfbloom;

import java.util.List;

/**
 * The kinds that remove keys, {@link CountingBloomFilter}, {@link CuckooFilter} and
 * {@link ScalableCuckooFilter}: remove and count through the generic C calls (lfb_remove,
 * lfb_count, a remove batch). Removing a key that is not there is an answer, false, never an
 * exception. Removing a key never put can remove another key's counts or fingerprint: a false
 * negative for that key, as in every counting and cuckoo filter.
 */
abstract class RemovingFilter extends HandleFilter {
    RemovingFilter(long nativeHandle) {
        super(nativeHandle);
    }

    /** Removes one copy of the key: true if one was there, false (nothing changed) if not. Any thread. */
    public boolean remove(byte[] key) {
        return handle.call(LfbNative::lfb_remove, key) == 1;
    }

    /** As {@link #remove(byte[])}, for the UTF-8 bytes of the key. Any thread. */
    public boolean remove(CharSequence key) {
        return handle.call(LfbNative::lfb_remove, key) == 1;
    }

    /** As {@link #remove(byte[])}, for the 8 little-endian bytes of the key. Any thread. */
    public boolean remove(long key) {
        return handle.call(LfbNative::lfb_remove, key) == 1;
    }

    /**
     * Removes one copy of each key, in order, in native calls of thousands of keys (hashed and
     * their cache lines fetched in groups: much faster than a loop of {@link #remove}). Element i
     * is what {@code remove(keys.get(i))} would have returned. A null key throws
     * IllegalArgumentException before any key is removed. Any thread.
     */
    public boolean[] removeAll(List<byte[]> keys) {
        return answers(lfb_batch_op_enum.LFB_OP_REMOVE, keys, bytes(keys));
    }

    /**
     * A counting filter: the smallest of the key's counters, at least how often it was put (minus
     * removed); a cuckoo filter: copies of its fingerprint in its buckets (a scalable one: summed
     * over its sub-filters). 0 means certainly absent. Any thread.
     */
    public int count(byte[] key) {
        return handle.call(LfbNative::lfb_count, key);
    }

    /** As {@link #count(byte[])}, for the UTF-8 bytes of the key. Any thread. */
    public int count(CharSequence key) {
        return handle.call(LfbNative::lfb_count, key);
    }

    /** As {@link #count(byte[])}, for the 8 little-endian bytes of the key. Any thread. */
    public int count(long key) {
        return handle.call(LfbNative::lfb_count, key);
    }
}
