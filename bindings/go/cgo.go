package lfbloom

// The C calls that take keys, and lfb_bit_array_get, go through the small shims below rather than
// through SWIG's internal/native, for two reasons.
//
// Keys cross as real pointers (*C.uint8_t, written in the call expression itself), never as a
// uintptr: a key may sit on the calling goroutine's stack (AddUint64's array does), and a stack
// copy between turning its address into a uintptr and the C call (the cgo wrapper's own prologue
// can grow the stack) would leave C reading the old stack. The runtime updates real pointers when
// it copies a stack, and cgo keeps what they point to alive and in place until C returns. The
// pointed-to bytes hold no Go pointers, so the cgo pointer rules allow it and cgocheck has nothing
// to walk. `#cgo noescape`: C keeps no key after it returns, so keys need not move to the heap
// (single-key calls stay allocation-free); `#cgo nocallback`: C never calls back into Go.
// Batches are copied into one buffer plus offsets (see batchBuffers), so no Go memory handed to C
// holds a pointer to other Go memory.
//
// A failed call's message (lfb_last_error) is per OS thread, and a goroutine may run on another
// thread, or another goroutine's failing call on this one, between two cgo calls: a message read
// in a second call can belong to another call. The shims read it in the same C call as the one
// that failed and return a copy with the status. The other C calls go through SWIG and nativeCall.
//
// The numbers this package needs (kinds, batch operations, formats, flags, statuses) are the
// header's own constants, read here through cgo: SWIG wraps enum values as variables set by a C
// call at start-up, and exported constants such as Blocked must be Go constants.

/*
#cgo pkg-config: lfbloom
#cgo noescape lfbgo_key
#cgo nocallback lfbgo_key
#cgo noescape lfbgo_batch
#cgo nocallback lfbgo_batch
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "lfbloom.h"

// A shim's answer: the status, a batch's count of keys answered 1 and how far it got (the refused
// key's index after a refusal), and on failure a malloc'd copy of this thread's message, taken
// right after the call (NULL if malloc failed).
typedef struct {
	int status;
	uint64_t positive;
	uint64_t done;
	char *message;
} lfbgo_result;

static lfbgo_result lfbgo_status(int status) {
	lfbgo_result r = {status, 0, 0, NULL};
	if (status < 0) r.message = strdup(lfb_last_error());
	return r;
}

// lfb_count has no batch operation: the single-key shim gives it a number outside enum lfb_batch_op.
enum { LFBGO_OP_COUNT = -1 };

// One key: op picks the call (an enum lfb_batch_op, or LFBGO_OP_COUNT).
static lfbgo_result lfbgo_key(int op, uintptr_t handle, const uint8_t *key, uint64_t len) {
	lfb_handle *h = (lfb_handle *)handle;
	switch (op) {
	case LFB_OP_ADD: return lfbgo_status(lfb_add(h, key, len));
	case LFB_OP_CONTAINS: return lfbgo_status(lfb_contains(h, key, len));
	case LFB_OP_REMOVE: return lfbgo_status(lfb_remove(h, key, len));
	case LFB_OP_ADD_STAGED: return lfbgo_status(lfb_add_staged(h, key, len));
	case LFBGO_OP_COUNT: return lfbgo_status(lfb_count(h, key, len));
	}
	lfbgo_result r = {LFB_ERR_INTERNAL, 0, 0, strdup("unknown operation in the Go binding")};
	return r;
}

// A batch (lfb_batch_run): key i is data[offsets[i]] .. data[offsets[i+1]-1]; results may be NULL.
// flags and threads are lfb_batch's: 0 and 0, or LFB_BATCH_BULK and the threads to build with.
static lfbgo_result lfbgo_batch(uint32_t op, uint32_t flags, uint32_t threads, uintptr_t handle, const uint8_t *data,
                                const uint64_t *offsets, uint64_t count, uint8_t *results) {
	lfb_batch b = {0};
	b.struct_size = sizeof b;
	b.op = op;
	b.count = count;
	b.data = data;
	b.offsets = offsets;
	b.results = results;
	b.flags = flags;
	b.threads = threads;
	lfbgo_result r = lfbgo_status(lfb_batch_run((lfb_handle *)handle, &b));
	r.positive = b.positive;
	r.done = b.done;
	return r;
}

// Where a Bloom layout's words live, returned by value so that no Go memory crosses.
typedef struct {
	lfbgo_result result;
	lfb_bit_array array;
} lfbgo_words;

static lfbgo_words lfbgo_bit_array(uintptr_t handle) {
	lfbgo_words w;
	memset(&w, 0, sizeof w);
	w.array.struct_size = sizeof w.array;
	w.result = lfbgo_status(lfb_bit_array_get((const lfb_handle *)handle, &w.array));
	return w;
}
*/
import "C"

import (
	"runtime"
	"unsafe"

	"github.com/lfbloom/lfbloom/bindings/go/internal/native"
)

// The kinds that are no layout, the batch operations, formats and flags of lfbloom.h.
const (
	kindCounting = C.LFB_KIND_COUNTING
	kindCuckoo   = C.LFB_KIND_CUCKOO
	kindScalable = C.LFB_KIND_SCALABLE
	kindRotating = C.LFB_KIND_ROTATING
	kindSwap     = C.LFB_KIND_SWAP

	opAdd       keyOp = C.LFB_OP_ADD
	opContains  keyOp = C.LFB_OP_CONTAINS
	opRemove    keyOp = C.LFB_OP_REMOVE
	opAddStaged keyOp = C.LFB_OP_ADD_STAGED
	opCount     keyOp = C.LFBGO_OP_COUNT // single keys only

	batchBulk = C.LFB_BATCH_BULK // lfb_batch.flags: a bulk build

	formatNative = C.LFB_FORMAT_NATIVE
	headerBytes  = C.LFB_NATIVE_HEADER_BYTES

	sharedCreate    = C.LFB_SHARED_CREATE
	sharedExclusive = C.LFB_SHARED_EXCLUSIVE
	sharedReadOnly  = C.LFB_SHARED_READ_ONLY

	rotatingDoubleWrite = C.LFB_ROTATING_DOUBLE_WRITE
	rotatingManualTick  = C.LFB_ROTATING_MANUAL_TICK

	statusFirstError = C.LFB_ERR_INVALID_ARGUMENT // statuses count down from here (lfbloom.h)
	classRefusal     = C.LFB_CLASS_REFUSAL
)

// keyOp is a call taking keys: an enum lfb_batch_op, or opCount.
type keyOp C.int

// callKey runs op on the C handle h and one key. The key's address is converted to a pointer in
// the call expression, so nothing holds it as an integer across a possible stack copy.
func callKey(op keyOp, h uintptr, key []byte) (int, error) {
	r := C.lfbgo_key(C.int(op), C.uintptr_t(h), (*C.uint8_t)(unsafe.Pointer(unsafe.SliceData(key))), C.uint64_t(len(key)))
	return result(r.status, r.message)
}

// callBatch runs op on the C handle h and the keys packed in b; results may be nil (then C writes
// none); flags and threads are lfb_batch's (0 and 0, or batchBulk and its threads). It returns the
// count of keys answered 1; a batch stopped by a refusal (an add refused as full or as too many
// duplicates, an ambiguous remove) returns a *BatchError naming the refused key's index.
func callBatch(op keyOp, flags, threads uint32, h uintptr, b *batchBuffers, results []byte) (uint64, error) {
	r := C.lfbgo_batch(C.uint32_t(op), C.uint32_t(flags), C.uint32_t(threads), C.uintptr_t(h),
		(*C.uint8_t)(unsafe.Pointer(unsafe.SliceData(b.data))),
		(*C.uint64_t)(unsafe.Pointer(unsafe.SliceData(b.offsets))), C.uint64_t(len(b.offsets)-1),
		(*C.uint8_t)(unsafe.Pointer(unsafe.SliceData(results))))
	status, err := result(r.status, r.message)
	if err != nil && native.Lfb_status_class(status) == classRefusal {
		err = &BatchError{Done: int(r.done), Err: err}
	}
	return uint64(r.positive), err
}

// layoutWords is where a Bloom layout's words live and how keys map onto them (lfb_bit_array).
type layoutWords struct {
	words        []uint64
	bits, seed   uint64
	hashes, rule uint32
	layout       Layout
}

// wordsOf describes the words of the Bloom layout in the C handle h (lfb_bit_array_get).
func wordsOf(h uintptr) (layoutWords, error) {
	w := C.lfbgo_bit_array(C.uintptr_t(h))
	if _, err := result(w.result.status, w.result.message); err != nil {
		return layoutWords{}, err
	}
	a := w.array
	// C memory, which Go's collector neither moves nor frees; valid until lfb_free, which the
	// handle guard orders after every use.
	words := unsafe.Slice((*uint64)(unsafe.Pointer(a.words)), uint64(a.bits)/64)
	return layoutWords{words, uint64(a.bits), uint64(a.seed), uint32(a.hashes), uint32(a.probe_rule), Layout(a.layout)}, nil
}

// result is a shim's status as Go's: the status, or an error carrying the message of this very
// call (its C copy freed here).
func result(status C.int, message *C.char) (int, error) {
	if status >= 0 {
		return int(status), nil
	}
	if message == nil { // no memory for the copy: the code's static name, the same on every thread
		return int(status), newStatusError(int(status), native.Lfb_strerror(int(status)))
	}
	defer C.free(unsafe.Pointer(message))
	return int(status), newStatusError(int(status), C.GoString(message))
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
	return status, newStatusError(status, native.Lfb_last_error())
}
