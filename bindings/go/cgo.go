package lfbloom

// The C calls that take keys go through the small shims below rather than through SWIG's
// internal/native, for two reasons.
//
// Keys cross as real pointers (*C.uint8_t, written in the call expression itself), never as a
// uintptr: a key may sit on the calling goroutine's stack (AddUint64's array does), and a stack
// copy between turning its address into a uintptr and the C call (the cgo wrapper's own prologue
// can grow the stack) would leave C reading the old stack. The runtime updates real pointers when
// it copies a stack, and cgo keeps what they point to alive and in place until C returns. The
// pointed-to bytes hold no Go pointers, so the cgo pointer rules allow it and cgocheck has nothing
// to walk. `#cgo noescape`: C keeps no key after it returns, so keys need not move to the heap
// (single-key calls stay allocation-free); `#cgo nocallback`: C never calls back into Go.
// Batches are copied into one buffer plus offsets (pack), so no Go memory handed to C holds a
// pointer to other Go memory, and C reads them with the *_many functions.
//
// A failed call's message (lfb_last_error) is per OS thread, and a goroutine may run on another
// thread, or another goroutine's failing call on this one, between two cgo calls: a message read
// in a second call can belong to another call. The shims read it in the same C call as the one
// that failed and return a copy with the status. The other C calls go through SWIG and nativeCall.

/*
#cgo pkg-config: lfbloom
#cgo noescape lfbgo_key
#cgo nocallback lfbgo_key
#cgo noescape lfbgo_many
#cgo nocallback lfbgo_many
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "lfbloom.h"

// A shim's answer: the status, a batch's count (new, found or removed keys), how many keys an
// lfb_handle batch processed, and on failure a malloc'd copy of this thread's message, taken
// right after the call (NULL if malloc failed).
typedef struct {
	int status;
	uint64_t n;
	uint64_t done;
	char *message;
} lfbgo_result;

static lfbgo_result lfbgo_done(int status, uint64_t n) {
	lfbgo_result r = {status, n, 0, NULL};
	if (status < 0) r.message = strdup(lfb_last_error());
	return r;
}

static lfbgo_result lfbgo_unknown(void) {
	lfbgo_result r = {LFB_ERR_INTERNAL, 0, 0, strdup("unknown operation in the Go binding")};
	return r;
}

enum {
	LFBGO_FILTER_ADD, LFBGO_FILTER_CONTAINS,
	LFBGO_COUNTING_ADD, LFBGO_COUNTING_CONTAINS, LFBGO_COUNTING_REMOVE, LFBGO_COUNTING_COUNT,
	LFBGO_SCALABLE_ADD, LFBGO_SCALABLE_CONTAINS, LFBGO_SCALABLE_REMOVE,
	LFBGO_ROTATING_ADD, LFBGO_ROTATING_CONTAINS,
	LFBGO_SWAP_ADD, LFBGO_SWAP_CONTAINS, LFBGO_SWAP_ADD_STAGED,
	LFBGO_HANDLE_ADD, LFBGO_HANDLE_CONTAINS, LFBGO_HANDLE_REMOVE, LFBGO_HANDLE_COUNT,
};

// One key: op picks the C function, h is its handle.
static lfbgo_result lfbgo_key(int op, uintptr_t h, const uint8_t *key, uint64_t len) {
	int s;
	switch (op) {
	case LFBGO_FILTER_ADD: s = lfb_filter_add((lfb_filter *)h, key, len); break;
	case LFBGO_FILTER_CONTAINS: s = lfb_filter_contains((const lfb_filter *)h, key, len); break;
	case LFBGO_COUNTING_ADD: s = lfb_counting_add((lfb_counting *)h, key, len); break;
	case LFBGO_COUNTING_CONTAINS: s = lfb_counting_contains((const lfb_counting *)h, key, len); break;
	case LFBGO_COUNTING_REMOVE: s = lfb_counting_remove((lfb_counting *)h, key, len); break;
	case LFBGO_COUNTING_COUNT: s = lfb_counting_count((const lfb_counting *)h, key, len); break;
	case LFBGO_SCALABLE_ADD: s = lfb_scalable_add((lfb_scalable *)h, key, len); break;
	case LFBGO_SCALABLE_CONTAINS: s = lfb_scalable_contains((const lfb_scalable *)h, key, len); break;
	case LFBGO_SCALABLE_REMOVE: s = lfb_scalable_remove((lfb_scalable *)h, key, len); break;
	case LFBGO_ROTATING_ADD: s = lfb_rotating_add((lfb_rotating *)h, key, len); break;
	case LFBGO_ROTATING_CONTAINS: s = lfb_rotating_contains((const lfb_rotating *)h, key, len); break;
	case LFBGO_SWAP_ADD: s = lfb_swap_add((lfb_swap *)h, key, len); break;
	case LFBGO_SWAP_CONTAINS: s = lfb_swap_contains((const lfb_swap *)h, key, len); break;
	case LFBGO_SWAP_ADD_STAGED: s = lfb_swap_add_staged((lfb_swap *)h, key, len); break;
	case LFBGO_HANDLE_ADD: s = lfb_add((lfb_handle *)h, key, len); break;
	case LFBGO_HANDLE_CONTAINS: s = lfb_contains((const lfb_handle *)h, key, len); break;
	case LFBGO_HANDLE_REMOVE: s = lfb_remove((lfb_handle *)h, key, len); break;
	case LFBGO_HANDLE_COUNT: s = lfb_count((const lfb_handle *)h, key, len); break;
	default: return lfbgo_unknown();
	}
	return lfbgo_done(s, 0);
}

enum {
	LFBGO_FILTER_ADD_MANY, LFBGO_FILTER_CONTAINS_MANY,
	LFBGO_COUNTING_ADD_MANY, LFBGO_COUNTING_CONTAINS_MANY, LFBGO_COUNTING_REMOVE_MANY,
	LFBGO_SCALABLE_ADD_MANY, LFBGO_SCALABLE_CONTAINS_MANY,
	LFBGO_ROTATING_ADD_MANY, LFBGO_ROTATING_CONTAINS_MANY,
	LFBGO_SWAP_ADD_MANY, LFBGO_SWAP_CONTAINS_MANY, LFBGO_SWAP_ADD_MANY_STAGED,
	LFBGO_HANDLE_ADD_MANY, LFBGO_HANDLE_CONTAINS_MANY, LFBGO_HANDLE_REMOVE_MANY,  // lfb_batch_run
};

// A batch on an lfb_handle: n gets the keys answered 1, done how far it got (the refused key's
// index after a refusal).
static lfbgo_result lfbgo_batch(uint32_t op, lfb_handle *h, const uint8_t *data, const uint64_t *offsets,
                                uint64_t count, uint8_t *results) {
	lfb_batch b = {0};
	b.struct_size = sizeof b;
	b.op = op;
	b.count = count;
	b.data = data;
	b.offsets = offsets;
	b.results = results;
	int status = lfb_batch_run(h, &b);  // before b.positive is read: argument order is unspecified
	lfbgo_result r = lfbgo_done(status, b.positive);
	r.done = b.done;
	return r;
}

// A batch: key i is data[offsets[i]] .. data[offsets[i+1]-1]; results may be NULL.
static lfbgo_result lfbgo_many(int op, uintptr_t h, const uint8_t *data, const uint64_t *offsets, uint64_t count,
                               uint8_t *results) {
	uint64_t n = 0;
	int s;
	switch (op) {
	case LFBGO_HANDLE_ADD_MANY: return lfbgo_batch(LFB_OP_ADD, (lfb_handle *)h, data, offsets, count, results);
	case LFBGO_HANDLE_CONTAINS_MANY: return lfbgo_batch(LFB_OP_CONTAINS, (lfb_handle *)h, data, offsets, count, results);
	case LFBGO_HANDLE_REMOVE_MANY: return lfbgo_batch(LFB_OP_REMOVE, (lfb_handle *)h, data, offsets, count, results);
	case LFBGO_FILTER_ADD_MANY: s = lfb_filter_add_many((lfb_filter *)h, data, offsets, count, results, &n); break;
	case LFBGO_FILTER_CONTAINS_MANY:
		s = lfb_filter_contains_many((const lfb_filter *)h, data, offsets, count, results, &n); break;
	case LFBGO_COUNTING_ADD_MANY: s = lfb_counting_add_many((lfb_counting *)h, data, offsets, count, results, &n); break;
	case LFBGO_COUNTING_CONTAINS_MANY:
		s = lfb_counting_contains_many((const lfb_counting *)h, data, offsets, count, results, &n); break;
	case LFBGO_COUNTING_REMOVE_MANY:
		s = lfb_counting_remove_many((lfb_counting *)h, data, offsets, count, results, &n); break;
	case LFBGO_SCALABLE_ADD_MANY: s = lfb_scalable_add_many((lfb_scalable *)h, data, offsets, count, results, &n); break;
	case LFBGO_SCALABLE_CONTAINS_MANY:
		s = lfb_scalable_contains_many((const lfb_scalable *)h, data, offsets, count, results, &n); break;
	case LFBGO_ROTATING_ADD_MANY: s = lfb_rotating_add_many((lfb_rotating *)h, data, offsets, count, results, &n); break;
	case LFBGO_ROTATING_CONTAINS_MANY:
		s = lfb_rotating_contains_many((const lfb_rotating *)h, data, offsets, count, results, &n); break;
	case LFBGO_SWAP_ADD_MANY: s = lfb_swap_add_many((lfb_swap *)h, data, offsets, count, results, &n); break;
	case LFBGO_SWAP_CONTAINS_MANY: s = lfb_swap_contains_many((const lfb_swap *)h, data, offsets, count, results, &n); break;
	case LFBGO_SWAP_ADD_MANY_STAGED: s = lfb_swap_add_many_staged((lfb_swap *)h, data, offsets, count, &n); break;
	default: return lfbgo_unknown();
	}
	return lfbgo_done(s, n);
}
*/
import "C"

import (
	"errors"
	"runtime"
	"unsafe"

	"github.com/lfbloom/lfbloom/bindings/go/internal/native"
)

// keyOp is a C function taking one key (lfbgo_key); batchOp one taking a batch (lfbgo_many).
type (
	keyOp   C.int
	batchOp C.int
)

const (
	opFilterAdd        keyOp = C.LFBGO_FILTER_ADD
	opFilterContains   keyOp = C.LFBGO_FILTER_CONTAINS
	opCountingAdd      keyOp = C.LFBGO_COUNTING_ADD
	opCountingContains keyOp = C.LFBGO_COUNTING_CONTAINS
	opCountingRemove   keyOp = C.LFBGO_COUNTING_REMOVE
	opCountingCount    keyOp = C.LFBGO_COUNTING_COUNT
	opScalableAdd      keyOp = C.LFBGO_SCALABLE_ADD
	opScalableContains keyOp = C.LFBGO_SCALABLE_CONTAINS
	opScalableRemove   keyOp = C.LFBGO_SCALABLE_REMOVE
	opRotatingAdd      keyOp = C.LFBGO_ROTATING_ADD
	opRotatingContains keyOp = C.LFBGO_ROTATING_CONTAINS
	opSwapAdd          keyOp = C.LFBGO_SWAP_ADD
	opSwapContains     keyOp = C.LFBGO_SWAP_CONTAINS
	opSwapAddStaged    keyOp = C.LFBGO_SWAP_ADD_STAGED
	opHandleAdd        keyOp = C.LFBGO_HANDLE_ADD
	opHandleContains   keyOp = C.LFBGO_HANDLE_CONTAINS
	opHandleRemove     keyOp = C.LFBGO_HANDLE_REMOVE
	opHandleCount      keyOp = C.LFBGO_HANDLE_COUNT

	opFilterAddMany        batchOp = C.LFBGO_FILTER_ADD_MANY
	opFilterContainsMany   batchOp = C.LFBGO_FILTER_CONTAINS_MANY
	opCountingAddMany      batchOp = C.LFBGO_COUNTING_ADD_MANY
	opCountingContainsMany batchOp = C.LFBGO_COUNTING_CONTAINS_MANY
	opCountingRemoveMany   batchOp = C.LFBGO_COUNTING_REMOVE_MANY
	opScalableAddMany      batchOp = C.LFBGO_SCALABLE_ADD_MANY
	opScalableContainsMany batchOp = C.LFBGO_SCALABLE_CONTAINS_MANY
	opRotatingAddMany      batchOp = C.LFBGO_ROTATING_ADD_MANY
	opRotatingContainsMany batchOp = C.LFBGO_ROTATING_CONTAINS_MANY
	opSwapAddMany          batchOp = C.LFBGO_SWAP_ADD_MANY
	opSwapContainsMany     batchOp = C.LFBGO_SWAP_CONTAINS_MANY
	opSwapAddManyStaged    batchOp = C.LFBGO_SWAP_ADD_MANY_STAGED
	opHandleAddMany        batchOp = C.LFBGO_HANDLE_ADD_MANY
	opHandleContainsMany   batchOp = C.LFBGO_HANDLE_CONTAINS_MANY
	opHandleRemoveMany     batchOp = C.LFBGO_HANDLE_REMOVE_MANY
)

// callKeyOp runs op on the C handle h and key. The key's address is converted to a pointer in
// the call expression, so nothing holds it as an integer across a possible stack copy.
func callKeyOp(op keyOp, h uintptr, key []byte) (int, error) {
	return result(C.lfbgo_key(C.int(op), C.uintptr_t(h), (*C.uint8_t)(unsafe.Pointer(unsafe.SliceData(key))),
		C.uint64_t(len(key))))
}

// callBatchOp runs op on the C handle h and the keys packed in b; results may be nil (then C
// writes none). It returns C's count of new, found or removed keys; when an lfb_handle batch
// stops at a refused key, the error is a *BatchError naming that key's index.
func callBatchOp(op batchOp, h uintptr, b *batchBuffers, count int, results []byte) (uint64, error) {
	r := C.lfbgo_many(C.int(op), C.uintptr_t(h), (*C.uint8_t)(unsafe.Pointer(unsafe.SliceData(b.data))),
		(*C.uint64_t)(unsafe.Pointer(unsafe.SliceData(b.offsets))), C.uint64_t(count),
		(*C.uint8_t)(unsafe.Pointer(unsafe.SliceData(results))))
	_, err := result(r)
	if op == opHandleAddMany && (errors.Is(err, ErrFull) || errors.Is(err, ErrTooManyDuplicates)) {
		err = &BatchError{Done: int(r.done), Err: err}
	}
	return uint64(r.n), err
}

// result is a shim's status as Go's: the status, or an error carrying the message of this very
// call (its C copy freed here).
func result(r C.lfbgo_result) (int, error) {
	status := int(r.status)
	if status >= 0 {
		return status, nil
	}
	if r.message == nil { // no memory for the copy: the code's static name, the same on every thread
		return status, &statusError{status, native.Lfb_strerror(status)}
	}
	message := C.GoString(r.message)
	C.free(unsafe.Pointer(r.message))
	return status, &statusError{status, message}
}

// nativeCall runs a call through SWIG's internal/native and, if it failed, reads its message
// with lfb_last_error. Both cgo calls run on one OS thread, locked to this goroutine for them,
// because the message is per thread: unlocked, the goroutine could read another thread's message,
// or another goroutine could fail on this thread in between. These calls (creating, loading,
// saving, statistics, merging, rotating, swapping) are not the per-key hot path, where the few
// nanoseconds of locking would count; the calls that take keys read their message in the same C
// call instead (the shims above).
func nativeCall(call func() int) (int, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	status := call()
	if status >= 0 {
		return status, nil
	}
	return status, &statusError{status, native.Lfb_last_error()}
}
