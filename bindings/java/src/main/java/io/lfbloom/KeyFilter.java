package io.lfbloom;

import java.lang.ref.Cleaner;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.function.LongConsumer;

/**
 * What every lfbloom filter shares: one native handle, made safe to close while other threads
 * use it (see NativeHandle), and put / mightContain for every key type, singly and in batches.
 * Each filter class names its native functions; this class holds no state of its own beyond them.
 */
abstract class KeyFilter implements Filter {
    final NativeHandle handle;
    private final Cleaner.Cleanable cleanable;
    private final NativeHandle.KeyCall add;
    private final NativeHandle.KeyCall contains;
    private final NativeHandle.BatchCall addMany;
    private final NativeHandle.BatchCall containsMany;

    KeyFilter(long nativeHandle, LongConsumer free, NativeHandle.KeyCall add, NativeHandle.KeyCall contains,
            NativeHandle.BatchCall addMany, NativeHandle.BatchCall containsMany) {
        NativeHandle[] h = new NativeHandle[1];
        this.cleanable = NativeHandle.register(this, nativeHandle, free, h);
        this.handle = h[0];
        this.add = add;
        this.contains = contains;
        this.addMany = addMany;
        this.containsMany = containsMany;
    }

    /** Adds a key; true if it was new (some bit changed). Any thread, lock-free. */
    public boolean put(byte[] key) {
        return handle.call(add, Native.buffers().key(key)) == 1;
    }

    /** Adds the UTF-8 bytes of the key. */
    public boolean put(CharSequence key) {
        return handle.call(add, Native.buffers().key(key)) == 1;
    }

    /** Adds the 8 little-endian bytes of the key. */
    public boolean put(long key) {
        return handle.call(add, Native.buffers().key(key)) == 1;
    }

    /** Adds the bytes from the buffer's position to its limit; the buffer's position is unchanged. */
    public boolean put(ByteBuffer key) {
        return handle.call(add, direct(key)) == 1;
    }

    /**
     * True if the key may have been put; false means it certainly was not (for a put that
     * happened-before this call). Any thread, lock-free.
     */
    public boolean mightContain(byte[] key) {
        return handle.call(contains, Native.buffers().key(key)) == 1;
    }

    /** As {@link #mightContain(byte[])}, for the UTF-8 bytes of the key. */
    public boolean mightContain(CharSequence key) {
        return handle.call(contains, Native.buffers().key(key)) == 1;
    }

    /** As {@link #mightContain(byte[])}, for the 8 little-endian bytes of the key. */
    public boolean mightContain(long key) {
        return handle.call(contains, Native.buffers().key(key)) == 1;
    }

    /** As {@link #mightContain(byte[])}, for the bytes from the buffer's position to its limit. */
    public boolean mightContain(ByteBuffer key) {
        return handle.call(contains, direct(key)) == 1;
    }

    /** Adds all keys in one native call; returns how many were new. */
    public long putAll(List<byte[]> keys) {
        return handle.batch(addMany, keys, null);
    }

    /** Queries all keys in one native call; element i answers for keys.get(i). */
    public boolean[] mightContainAll(List<byte[]> keys) {
        boolean[] found = new boolean[keys == null ? 0 : keys.size()];
        handle.batch(containsMany, keys, found);
        return found;
    }

    /** Parameters and fill, read word by word (O(size)) while other threads may write. */
    public abstract Stats stats();

    /** Distinct keys estimated from the fill, as Guava's approximateElementCount. */
    public long approximateElementCount() {
        double n = stats().estimatedCount();
        return Double.isInfinite(n) ? Long.MAX_VALUE : Math.round(n);
    }

    /** The false-positive probability expected now, from the fill, as Guava's expectedFpp. */
    public double expectedFpp() {
        return stats().estimatedFpp();
    }

    /** Frees the native filter. Idempotent and thread-safe; later calls throw IllegalStateException. */
    @Override
    public void close() {
        cleanable.clean();
    }

    /** A direct buffer with the key's remaining bytes: the key itself if direct, else a per-thread copy. */
    static ByteBuffer direct(ByteBuffer key) {
        if (key == null) throw new IllegalArgumentException("key is null");
        if (key.isDirect()) return key;
        ByteBuffer copy = key.duplicate();
        byte[] bytes = new byte[copy.remaining()];
        copy.get(bytes);
        return Native.buffers().key(bytes);
    }
}
