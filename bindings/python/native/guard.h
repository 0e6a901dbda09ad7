/* The close-safety guard of lfbloom's Python package, shared by its two native modules (the cffi
 * module _native, built by lfbloom_build.py, and the hand-written hot path _hot, native/hot.c).
 *
 * lfb_free needs every other call on the handle to have finished, but Python code may close a
 * filter while other threads are inside a call (batches release the GIL). So each Python filter
 * holds an lfbpy_ref, and every call enters and leaves it; closing marks it closed, and whichever
 * of the close and the last call in flight comes last frees the handle.
 */
#ifndef LFBPY_GUARD_H
#define LFBPY_GUARD_H

#include <stdatomic.h>
#include <stdint.h>
#include "lfbloom.h"

#define LFBPY_CLOSED (-1000) /* the Python object was closed: no status of the C ABI */
#define LFBPY_IN_USE (-1001) /* a filter to take over has calls in flight */

/* state: bit 0 closed, bit 1 freed (the handle's lfb_free was claimed), then calls in flight in
 * steps of 4. Every access is seq_cst: a call that saw "not closed" has counted itself in before
 * the close's read of the count, so the handle outlives it; the cost is one locked add per call. */
typedef struct lfbpy_ref {
    lfb_handle* handle;
    _Atomic uint64_t state;
} lfbpy_ref;

enum { LFBPY_STATE_CLOSED = 1, LFBPY_STATE_FREED = 2, LFBPY_STATE_CALL = 4 };

/* Frees the handle if it is closed, no call is in flight and nobody freed it yet: exactly once. */
static inline void lfbpy_free_if_last(lfbpy_ref* ref) {
    uint64_t expected = LFBPY_STATE_CLOSED;
    if (atomic_compare_exchange_strong(&ref->state, &expected, LFBPY_STATE_CLOSED | LFBPY_STATE_FREED))
        lfb_free(ref->handle);
}

/* The handle, counted in as a call in flight; NULL if the filter is closed. */
static inline lfb_handle* lfbpy_enter(lfbpy_ref* ref) {
    if (atomic_fetch_add(&ref->state, LFBPY_STATE_CALL) & LFBPY_STATE_CLOSED) {
        atomic_fetch_sub(&ref->state, LFBPY_STATE_CALL);
        lfbpy_free_if_last(ref);
        return NULL;
    }
    return ref->handle;
}

static inline void lfbpy_leave(lfbpy_ref* ref) {
    if (atomic_fetch_sub(&ref->state, LFBPY_STATE_CALL) - LFBPY_STATE_CALL == LFBPY_STATE_CLOSED)
        lfbpy_free_if_last(ref);
}

#endif
