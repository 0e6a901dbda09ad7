package io.lfbloom;

/**
 * A failure reported by the native library that is not a bad argument: a refusal (a full filter,
 * too many duplicates, an ambiguous remove), out of memory, a filter too large for the memory
 * limit, incompatible filters, corrupt or unsupported data, a write to a read-only file, a writer
 * of a shared cuckoo filter that waited too long for a lock. Carries
 * the C status ({@code LFB_ERR_*} of {@code lfbloom.h}) and its name. A single call that fails
 * changed nothing; a batch that stops says where ({@link #keysDone()}).
 */
public final class LfbloomException extends RuntimeException {
    private static final long serialVersionUID = 3L;
    private final int status;
    private final String statusName;
    private final long keysDone;

    /** {@code keysDone} is -1 outside a batch. */
    LfbloomException(int status, String message, long keysDone) {
        super(message + " (lfbloom status " + status + ", " + LfbNative.lfb_status_name(status) + ")"
                + (keysDone >= 0 ? "; the batch stopped at key " + keysDone + ", the keys before it were processed" : ""));
        this.status = status;
        this.statusName = LfbNative.lfb_status_name(status);  // kept: the exception may outlive or leave this JVM
        this.keysDone = keysDone;
    }

    /**
     * True for LFB_ERR_FULL: a scalable filter reached its cap on sub-filters or memory, or a cuckoo
     * filter found no free slot. Any thread (immutable).
     */
    public boolean isFull() {
        return status == lfb_status_enum.LFB_ERR_FULL;
    }

    /**
     * True for LFB_ERR_TOO_MANY_DUPLICATES: a cuckoo filter holds eight copies of the key's
     * fingerprint (ten at 14 bits). Any thread (immutable).
     */
    public boolean isTooManyDuplicates() {
        return status == lfb_status_enum.LFB_ERR_TOO_MANY_DUPLICATES;
    }

    /**
     * True for LFB_ERR_AMBIGUOUS: a {@link ScalableCuckooFilter}'s remove of a key that matches in
     * two sub-filters, refused (nothing removed) because the copy taken could be another key's.
     * Any thread (immutable).
     */
    public boolean isAmbiguous() {
        return status == lfb_status_enum.LFB_ERR_AMBIGUOUS;
    }

    /**
     * True for LFB_ERR_READ_ONLY: a put, remove or clear of a filter opened read-only (since 1.9:
     * openSharedReadOnly). Any thread (immutable).
     */
    public boolean isReadOnly() {
        return status == lfb_status_enum.LFB_ERR_READ_ONLY;
    }

    /**
     * True for LFB_ERR_TIMEOUT: a put, remove or save of a shared {@link CuckooFilter} waited
     * longer than its lock timeout ({@link CuckooFilter#setLockTimeout}) for a stripe lock that
     * another thread or process held; nothing changed. Since 1.10. Any thread (immutable).
     */
    public boolean isTimeout() {
        return status == lfb_status_enum.LFB_ERR_TIMEOUT;
    }

    /**
     * For a batch that stopped (a {@code putAll} refused midway, a {@code removeAll} that met a
     * key refused as ambiguous): the index, in the whole collection, array or stream, of the key it stopped
     * at; the keys before it were processed, that key and the ones after it were not. -1 for a
     * failure outside a batch. Any thread (immutable).
     */
    public long keysDone() {
        return keysDone;
    }

    /** The C status code, a negative {@code LFB_ERR_*} value. Any thread (immutable). */
    public int status() {
        return status;
    }

    /**
     * The status's name, as lfbloom.h's {@code lfb_status_name} spells it and every binding
     * reports it: "full", "too_many_duplicates", "ambiguous", "read_only", "incompatible", ...
     * Any thread (immutable).
     */
    public String statusName() {
        return statusName;
    }
}
