package io.lfbloom;

import java.lang.ref.Cleaner;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.LongConsumer;

/**
 * Owns one native handle and makes {@code close()} safe against calls racing with it: every call
 * runs between {@link #acquire()} and {@link #release()}, which count it in a stripe of padded
 * counters (one per thread hash, so threads do not contend on one cache line); close sets a
 * volatile flag, waits until every stripe is zero, then frees. A call that starts after close
 * gets an IllegalStateException; none ever sees a freed handle. A Cleaner frees a filter that
 * was never closed once it is unreachable, as a safety net.
 */
final class NativeHandle implements Runnable {
    private static final Cleaner CLEANER = Cleaner.create();
    private static final int STRIPES = 16;
    private static final int PAD = 8;  // longs per stripe: 64 bytes, one cache line each

    private final long handle;
    private final LongConsumer free;
    private final AtomicLongArray inFlight = new AtomicLongArray(STRIPES * PAD);
    private volatile boolean closed;
    private boolean freed;  // guarded by this

    private NativeHandle(long handle, LongConsumer free) {
        this.handle = handle;
        this.free = free;
    }

    /** Registers {@code owner} so that the handle is freed when owner is closed or collected. */
    static Cleaner.Cleanable register(Object owner, long handle, LongConsumer free, NativeHandle[] out) {
        NativeHandle h = new NativeHandle(handle, free);
        out[0] = h;
        return CLEANER.register(owner, h);
    }

    private static int stripe() {
        return (int) (Thread.currentThread().getId() & (STRIPES - 1)) * PAD;
    }

    /** Marks a call in flight and returns the handle; throws IllegalStateException once closed. */
    long acquire() {
        int s = stripe();
        inFlight.incrementAndGet(s);  // a volatile write: ordered before the read of closed below
        if (closed) {
            inFlight.decrementAndGet(s);
            throw new IllegalStateException("the filter is closed");
        }
        return handle;
    }

    void release() {
        inFlight.decrementAndGet(stripe());
    }

    /** Closes: idempotent, thread-safe, waits for calls in flight, then frees the native handle. */
    @Override
    public void run() {
        closed = true;  // volatile: every acquire after this sees it, or is counted below
        for (int s = 0; s < STRIPES * PAD; s += PAD) {
            while (inFlight.get(s) != 0) Thread.onSpinWait();
        }
        synchronized (this) {
            if (freed) return;
            freed = true;
        }
        free.accept(handle);
    }

    /**
     * Hands the native handle over to a new owner (a swap handle): waits for calls in flight like
     * close, but does not free. Afterwards this handle is closed; throws IllegalStateException if it
     * already was.
     */
    long detach() {
        closed = true;  // volatile: as in run()
        for (int s = 0; s < STRIPES * PAD; s += PAD) {
            while (inFlight.get(s) != 0) Thread.onSpinWait();
        }
        synchronized (this) {
            if (freed) throw new IllegalStateException("the filter is closed");
            freed = true;  // the new owner frees it; the Cleaner now finds nothing to do
        }
        return handle;
    }

    /** A native call on one key: its native address and length. */
    interface KeyCall {
        int apply(long handle, long address, long length);
    }

    /** Runs {@code call} on this handle and the bytes of a direct buffer from position to limit. */
    int call(KeyCall call, java.nio.ByteBuffer key) {
        return Native.check(callRaw(call, key));
    }

    /** As call, for native calls whose one negative status is an answer, not an error. */
    int callRaw(KeyCall call, java.nio.ByteBuffer key) {
        long address = Native.buffers().address(key) + key.position();
        long h = acquire();
        try {
            return call.apply(h, address, key.remaining());
        } finally {
            release();
            java.lang.ref.Reference.reachabilityFence(key);  // C read it by address
        }
    }

    /** A native call on the handle alone, or with an array it fills (statistics, sizes). */
    interface HandleCall {
        int apply(long handle);
    }

    int call(HandleCall call) {
        long h = acquire();
        try {
            return Native.check(call.apply(h));
        } finally {
            release();
        }
    }

    /** A batch call: data, offsets, count, results (may be null), count out. */
    interface BatchCall {
        int apply(long handle, java.nio.ByteBuffer data, java.nio.ByteBuffer offsets, long count,
                java.nio.ByteBuffer results, long[] out);
    }

    /** Runs a batch call over keys in the per-thread buffers; returns the count it reports. */
    long batch(BatchCall call, java.util.List<byte[]> keys, boolean[] found) {
        if (keys == null) throw new IllegalArgumentException("keys is null");
        Native.Buffers b = Native.buffers();
        b.batch(keys);
        long[] out = new long[1];
        call(h -> call.apply(h, b.data(), b.offsets(), keys.size(), found == null ? null : b.results(), out));
        if (found != null) for (int i = 0; i < found.length; i++) found[i] = b.results().get(i) != 0;
        return out[0];
    }

    /** Runs a call on this handle and {@code other}'s (merges, equality); returns its status. */
    int callWith(NativeHandle other, java.util.function.LongBinaryOperator call) {
        long h = acquire();
        try {
            long o = other.acquire();
            try {
                return Native.check((int) call.applyAsLong(h, o));
            } finally {
                other.release();
            }
        } finally {
            release();
        }
    }

    long[] stats(java.util.function.ToIntBiFunction<Long, long[]> call) {
        long[] v = new long[Native.STATS_LENGTH];
        call(h -> call.applyAsInt(h, v));
        return v;
    }

    /** Serializes in {@code format}: size, then save into a direct buffer, then copy to out. */
    void save(java.io.OutputStream out, java.util.function.ToIntBiFunction<Long, long[]> size,
            BufferSave save) throws java.io.IOException {
        if (out == null) throw new IllegalArgumentException("out is null");
        long[] bytes = new long[1];
        java.nio.ByteBuffer[] buffer = new java.nio.ByteBuffer[1];
        long h = acquire();
        try {
            Native.check(size.applyAsInt(h, bytes));
            if (bytes[0] > Integer.MAX_VALUE - 16)
                throw new java.io.IOException("filter too large for one stream buffer: " + bytes[0] + " bytes");
            buffer[0] = java.nio.ByteBuffer.allocateDirect((int) bytes[0]);
            Native.check(save.apply(h, buffer[0], new long[1]));
        } finally {
            release();
        }
        Native.write(buffer[0], out);
    }

    interface BufferSave {
        int apply(long handle, java.nio.ByteBuffer buffer, long[] written);
    }
}
