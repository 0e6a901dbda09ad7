package io.lfbloom;

/**
 * A failure reported by the native library that is not a bad argument: out of memory, a filter
 * too large for the memory limit, incompatible filters, corrupt or unsupported data. Carries the C
 * status code ({@code LFB_ERR_*} of {@code lfbloom.h}). The filter involved is unchanged.
 */
public final class LfbloomException extends RuntimeException {
    private static final long serialVersionUID = 2L;
    private final int status;
    private final long keysDone;

    LfbloomException(int status, String message) {
        super(message + " (lfbloom status " + status + ")");
        this.status = status;
        this.keysDone = -1;
    }

    /** The failure of a batch that stopped at key index {@code keysDone}. */
    LfbloomException(LfbloomException cause, long keysDone) {
        super(cause.getMessage() + "; the batch stopped at key " + keysDone + ", the keys before it were added", cause);
        this.status = cause.status;
        this.keysDone = keysDone;
    }

    /** True for LFB_ERR_FULL: a scalable filter reached its cap on sub-filters or memory, or a cuckoo filter found no free slot. */
    public boolean isFull() {
        return status == Native.ERR_FULL;
    }

    /** True for LFB_ERR_TOO_MANY_DUPLICATES: a cuckoo filter holds eight copies of the key's fingerprint (ten at 14 bits). */
    public boolean isTooManyDuplicates() {
        return status == Native.ERR_TOO_MANY_DUPLICATES;
    }

    /**
     * True for LFB_ERR_AMBIGUOUS: a {@link ScalableCuckooFilter}'s remove of a key that matches in
     * two sub-filters, refused (nothing removed) because the copy taken could be another key's.
     */
    public boolean isAmbiguous() {
        return status == Native.ERR_AMBIGUOUS;
    }

    /**
     * For a batch that stopped at a refused key (a cuckoo filter's putAll): that key's index, the
     * number of keys before it, which were added. -1 for every other failure.
     */
    public long keysDone() {
        return keysDone;
    }

    /** The C status code, a negative {@code LFB_ERR_*} value. */
    public int status() {
        return status;
    }
}
