package io.lfbloom;

/**
 * A failure reported by the native library that is not a bad argument: out of memory, a filter
 * too large for the memory limit, incompatible filters, corrupt or unsupported data. Carries the C
 * status code ({@code LFB_ERR_*} of {@code lfbloom.h}). The filter involved is unchanged.
 */
public final class LfbloomException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final int status;

    LfbloomException(int status, String message) {
        super(message + " (lfbloom status " + status + ")");
        this.status = status;
    }

    /** True for LFB_ERR_FULL: a scalable filter reached its cap on sub-filters or memory. */
    public boolean isFull() {
        return status == Native.ERR_FULL;
    }

    /** The C status code, a negative {@code LFB_ERR_*} value. */
    public int status() {
        return status;
    }
}
