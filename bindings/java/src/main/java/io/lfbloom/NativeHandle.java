package io.lfbloom;

import java.lang.ref.Cleaner;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Owns one native lfb_handle and makes {@code close()} safe against calls racing with it: every
 * call runs between {@link #acquire()} and {@link #release()}, which count it in a stripe of
 * padded counters (one per thread hash, so threads do not contend on one cache line); close sets
 * a volatile flag, waits until every stripe is zero, then frees. A call that starts after close
 * gets an IllegalStateException, before it looks at its arguments; none ever sees a freed
 * handle. A Cleaner frees a filter that was never closed once it is unreachable, as a safety net.
 */
final class NativeHandle implements Runnable {
    private static final Cleaner CLEANER = Cleaner.create();
    private static final int STRIPES = 16;
    private static final int PAD = 8;  // longs per stripe: 64 bytes, one cache line each

    private final long handle;
    private final AtomicLongArray inFlight = new AtomicLongArray(STRIPES * PAD);
    private volatile boolean closed;
    private boolean freed;  // guarded by this

    private NativeHandle(long handle) {
        this.handle = handle;
    }

    /**
     * A guard for {@code handle}, freed (lfb_free) when {@code owner} is closed through the returned
     * Cleanable or collected.
     */
    static NativeHandle register(Object owner, long handle, Cleaner.Cleanable[] cleanable) {
        NativeHandle h = new NativeHandle(handle);
        cleanable[0] = CLEANER.register(owner, h);
        return h;
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

    /** Throws IllegalStateException once closed: for methods that check arguments before their native call. */
    void ensureOpen() {
        if (closed) throw new IllegalStateException("the filter is closed");
    }

    boolean isClosed() {
        return closed;
    }

    /** Closes: idempotent, thread-safe, waits for calls in flight, then frees the native handle. */
    @Override
    public void run() {
        closed = true;  // volatile: every acquire after this sees it, or is counted below
        awaitCalls();
        synchronized (this) {
            if (freed) return;
            freed = true;
        }
        LfbNative.lfb_free(handle);
    }

    /**
     * Hands the native handle over to a new owner (a swap): waits for calls in flight like close,
     * but does not free. Afterwards this handle is closed; throws IllegalStateException if it
     * already was.
     */
    long detach() {
        closed = true;  // volatile: as in run()
        awaitCalls();
        synchronized (this) {
            if (freed) throw new IllegalStateException("the filter is closed");
            freed = true;  // the new owner frees it; the Cleaner now finds nothing to do
        }
        return handle;
    }

    private void awaitCalls() {
        for (int s = 0; s < STRIPES * PAD; s += PAD) {
            while (inFlight.get(s) != 0) Thread.onSpinWait();
        }
    }

    /** A native call on one key: its native address and length. */
    interface KeyCall {
        int apply(long handle, long address, long length);
    }

    /** Runs {@code call} on the key's bytes (this thread's key buffer); returns its checked status. */
    int call(KeyCall call, byte[] key) {
        long h = acquire();
        try {
            return apply(h, call, Native.buffers().key(key));
        } finally {
            release();
        }
    }

    int call(KeyCall call, CharSequence key) {
        long h = acquire();
        try {
            return apply(h, call, Native.buffers().key(key));
        } finally {
            release();
        }
    }

    int call(KeyCall call, long key) {
        long h = acquire();
        try {
            return apply(h, call, Native.buffers().key(key));
        } finally {
            release();
        }
    }

    /** The bytes from the buffer's position to its limit (a heap buffer's through a copy); the position is unchanged. */
    int call(KeyCall call, ByteBuffer key) {
        long h = acquire();
        try {
            return apply(h, call, Native.buffers().key(key));
        } finally {
            release();
        }
    }

    private static int apply(long h, KeyCall call, ByteBuffer key) {
        long address = Native.buffers().address(key) + key.position();
        try {
            return Native.check(call.apply(h, address, key.remaining()));
        } finally {
            java.lang.ref.Reference.reachabilityFence(key);  // C read it by address
        }
    }

    /** A native call on the handle alone, or with arrays or structs it fills. */
    interface HandleCall {
        int apply(long handle);
    }

    /** Runs the call; returns its status checked. */
    int call(HandleCall call) {
        return Native.check(callRaw(call));
    }

    /** Runs the call; returns its status unchecked (a batch turns a failure into its own exception). */
    int callRaw(HandleCall call) {
        long h = acquire();
        try {
            return call.apply(h);
        } finally {
            release();
        }
    }

    /** Runs a call on this handle and {@code other}'s (merges, equality); returns its checked status. */
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
}
