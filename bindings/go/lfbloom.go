// Package lfbloom provides Bloom filters that any number of goroutines add to and query at once,
// without locks, over lfbloom's C library (liblfbloom.so.1).
//
// A Bloom filter answers "have I seen this key?" in constant memory: Test returns false only for
// keys that were certainly never added, and true for keys never added with about the configured
// false-positive rate once the filter holds its capacity.
//
// # Goroutine safety
//
// Every method may be called from any number of goroutines at once. No false negatives: if
// Add(key) happens-before Test(key) (a channel send and receive, a mutex, sync.WaitGroup, an
// atomic store and load), Test returns true. Adds racing with a Test may or may not be seen;
// there is no ordering between different keys. Add returns true when some bit changed: of racing
// Adds of one new key at least one returns true, and more than one may. Clear racing with Adds
// may lose them.
//
// Close is idempotent and safe to call while other goroutines use the filter: it waits for calls
// in flight, then frees the C filter. Calls after Close return ErrClosed, or panic with a clear
// message for the methods that return only a bool; none can crash the runtime. A finalizer frees
// filters that were never closed, as a safety net only.
//
// A Filter's Add and Test make no cgo call: they hash the key in Go and use atomic loads and
// ORs on the C filter's words in place, bit-exact with the C library, because a cgo call (about
// 40 ns, and it keeps consecutive lookups' cache misses from overlapping) costs more than the
// lookup. Every other call is one cgo call; batch calls (AddMany, TestMany) are one per batch.
//
// Keys are bytes: a single key is passed to C without copying, a batch is copied into one buffer;
// strings are their bytes (UTF-8 for Go source), integers their 8 little-endian bytes (as Guava's
// longFunnel). C keeps no key after a call returns.
package lfbloom

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Errors, usable with errors.Is. Every error returned by this package wraps one of them.
var (
	ErrInvalidArgument    = errors.New("lfbloom: invalid argument")
	ErrOutOfMemory        = errors.New("lfbloom: out of memory")
	ErrTooLarge           = errors.New("lfbloom: filter too large for the memory limit or the machine")
	ErrIncompatible       = errors.New("lfbloom: incompatible filters")
	ErrNotPresent         = errors.New("lfbloom: key not present") // no call returns it since 1.8: removes answer false
	ErrCorrupt            = errors.New("lfbloom: corrupt data")
	ErrUnsupportedVersion = errors.New("lfbloom: unsupported version")
	ErrIO                 = errors.New("lfbloom: I/O error")
	ErrInternal           = errors.New("lfbloom: internal error")
	ErrFull               = errors.New("lfbloom: filter full: a scalable filter's cap on sub-filters or memory, or no free slot in a cuckoo filter")
	ErrReadOnly           = errors.New("lfbloom: filter is read-only")
	ErrTooManyDuplicates  = errors.New("lfbloom: the cuckoo filter holds two buckets of copies of the key's fingerprint already")
	ErrAmbiguous          = errors.New("lfbloom: the key matches in two sub-filters: nothing removed, so no other key is lost")
	ErrClosed             = errors.New("lfbloom: filter is closed")
)

// The C status codes (lfbloom.h), in order from -1.
var statusErrors = []error{ErrInvalidArgument, ErrOutOfMemory, ErrTooLarge, ErrIncompatible, ErrNotPresent,
	ErrCorrupt, ErrUnsupportedVersion, ErrIO, ErrInternal, ErrFull, ErrReadOnly, ErrTooManyDuplicates, ErrAmbiguous}

// BatchError is the error of a batch that stopped at a refused key (a Cuckoo's AddMany): the
// keys before index Done were added, the refused key and those after it were not. Err wraps the
// refusal (ErrFull or ErrTooManyDuplicates); errors.Is sees through it.
type BatchError struct {
	Done int
	Err  error
}

// Error names the refusal and where the batch stopped.
func (e *BatchError) Error() string {
	return fmt.Sprintf("%v; the batch stopped at key %d, the keys before it were added", e.Err, e.Done)
}

// Unwrap returns the refusal, for errors.Is and errors.As.
func (e *BatchError) Unwrap() error { return e.Err }

// statusError is a C failure: its status code, the C library's message, and the sentinel it is.
type statusError struct {
	status  int
	message string
}

func (e *statusError) Error() string {
	return fmt.Sprintf("lfbloom: %s (status %d)", e.message, e.status)
}
func (e *statusError) Unwrap() error {
	if i := -e.status - 1; i >= 0 && i < len(statusErrors) {
		return statusErrors[i]
	}
	return ErrInternal
}

// Layout is where a key's bits go.
type Layout int

const (
	// Blocked puts all of a key's bits in one 64-byte cache line: one cache miss per call (default).
	Blocked Layout = 2
	// Classic spreads them over the whole array, exactly as Guava's BloomFilter, flaw included:
	// a key whose second hash half is 0 probes one bit k times. Under seed 0 (Guava's, the
	// default) the empty key is such a key, present in about half of all full classic filters;
	// give a classic filter never exchanged with Guava a non-zero seed (WithSeed). Blocked
	// filters spread every key's probes whatever the seed.
	Classic Layout = 1
)

type options struct {
	layout      Layout
	memoryLimit uint64
	seed        uint64
	counterBits uint64
}

// Option configures New, NewCounting and the other constructors; each says which it uses
// (NewCuckoo: WithSeed, WithMemoryLimit and WithFingerprintBits only).
type Option func(*options)

// WithLayout picks the layout of a Filter (counting filters are always blocked).
func WithLayout(l Layout) Option { return func(o *options) { o.layout = l } }

// WithMemoryLimit refuses filters over this many bytes (0: only the machine's memory bounds them).
func WithMemoryLimit(bytes uint64) Option { return func(o *options) { o.memoryLimit = bytes } }

// WithSeed sets the hash seed (default 0); filters merge only with equal seeds.
func WithSeed(seed uint64) Option { return func(o *options) { o.seed = seed } }

// WithCounterBits sets a CountingFilter's counter width: 4 (default) or 8. (It and
// WithFingerprintBits set one field: given to NewCuckoo, it is read as a fingerprint width.)
func WithCounterBits(bits int) Option { return func(o *options) { o.counterBits = uint64(bits) } }

// WithFingerprintBits sets a cuckoo filter's fingerprint width, which fixes its bucket format:
// 14 (five per 64-bit bucket), 16 (four, the fastest reads) or 17 (four). By default the
// constructor takes the width with the fewest bytes for the rate (16 on ties): 14 from about
// 0.046% up, 16 down to 0.0115%, 17 below. A width that cannot reach the rate is refused.
func WithFingerprintBits(bits int) Option { return func(o *options) { o.counterBits = uint64(bits) } }

func nativeOptions(opts []Option) []uint64 {
	o := options{layout: Blocked, counterBits: 4}
	for _, opt := range opts {
		opt(&o)
	}
	return []uint64{uint64(o.layout), o.memoryLimit, o.seed, o.counterBits, 0}
}

// handle guards a C handle against use after Close and against replacement while in use
// (UnmarshalBinary, handing over to a Swappable). Each call counts itself in one of 16 padded
// counters picked by its goroutine's stack address, so goroutines on different cores do not write
// one shared cache line (a sync.RWMutex here cost 35% of Test's throughput at two cores). Close
// and replacement raise busy, wait until every counter reads zero, then free or swap. Go's
// atomics are sequentially consistent: a call either sees busy, or is seen in its counter.
type handle struct {
	ptr     atomic.Uintptr // 0 once closed
	busy    atomic.Bool    // raised while calls are drained
	mu      sync.Mutex     // serializes Close, replacement and hand-over
	free    func(uintptr)
	_       [64]byte // keeps the counters off the line of the fields every call reads
	stripes [16]struct {
		n atomic.Int64
		_ [56]byte // one cache line each, and none shared with what follows the handle
	}
}

// stripe picks a counter from the goroutine's stack address: goroutines have different stacks,
// 2 KiB or a larger power of two apart. A Fibonacci hash of the address in 2 KiB units spreads
// any such spacing over the 16 counters (the address's bits 12-15 alone put goroutines 2 KiB
// apart on one counter, and parallel Tests then ran at half speed).
func stripe() int {
	var marker byte
	return int(uint64(uintptr(unsafe.Pointer(&marker))>>11) * 0x9e3779b97f4a7c15 >> 60)
}

// acquire counts a call in; it returns the C handle and the stripe to release, or ok false once
// closed. It waits while a Close or replacement drains calls.
func (h *handle) acquire() (ptr uintptr, s int, ok bool) {
	s = stripe()
	for {
		h.stripes[s].n.Add(1)
		if !h.busy.Load() {
			if ptr = h.ptr.Load(); ptr != 0 {
				return ptr, s, true
			}
			h.stripes[s].n.Add(-1)
			return 0, s, false
		}
		h.stripes[s].n.Add(-1)
		h.mu.Lock() // held by the Close or replacement in progress: wait for it
		h.mu.Unlock()
	}
}

func (h *handle) release(s int) { h.stripes[s].n.Add(-1) }

// exclusive runs swap with no call in flight: it gets the C handle and returns its successor.
func (h *handle) exclusive(swap func(uintptr) uintptr) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.busy.Store(true)
	for i := range h.stripes {
		for h.stripes[i].n.Load() != 0 {
			runtime.Gosched()
		}
	}
	h.ptr.Store(swap(h.ptr.Load()))
	h.busy.Store(false)
}

func (h *handle) close() {
	h.exclusive(func(p uintptr) uintptr {
		if p != 0 {
			h.free(p)
		}
		return 0
	})
}

// detach hands the C handle to a new owner (a Swappable): like close, but without freeing;
// afterwards this handle is closed. ok is false if it already was.
func (h *handle) detach() (ptr uintptr, ok bool) {
	h.exclusive(func(p uintptr) uintptr {
		ptr = p
		return 0
	})
	return ptr, ptr != 0
}

// with runs call with the C handle under the guard; ErrClosed once closed.
func (h *handle) with(call func(p uintptr) error) error {
	p, s, ok := h.acquire()
	if !ok {
		return ErrClosed
	}
	defer h.release(s)
	return call(p)
}

// callWith runs fn on this handle's pointer and other's, both guarded, and returns its status.
// A handle paired with itself is acquired once, and two are acquired in address order: an
// acquire waits for a Close in progress, which waits for the calls counted in, so a second
// acquire of the same handle, or two calls taking a pair in opposite orders, could each wait for
// the other's Close for good.
func (h *handle) callWith(other *handle, fn func(p, o uintptr) int) (int, error) {
	first, second := h, other
	if uintptr(unsafe.Pointer(other)) < uintptr(unsafe.Pointer(h)) {
		first, second = other, h
	}
	p1, s1, ok := first.acquire()
	if !ok {
		return 0, ErrClosed
	}
	defer first.release(s1)
	p2 := p1
	if second != first {
		var s2 int
		if p2, s2, ok = second.acquire(); !ok {
			return 0, ErrClosed
		}
		defer second.release(s2)
	}
	if first != h {
		p1, p2 = p2, p1
	}
	return nativeCall(func() int { return fn(p1, p2) })
}

// call runs a SWIG-wrapped C function on the handle under the guard (see nativeCall).
func (h *handle) call(fn func(p uintptr) int) (r int, err error) {
	err = h.with(func(p uintptr) error {
		r, err = nativeCall(func() int { return fn(p) })
		return err
	})
	return r, err
}

// callKey runs a C function on the handle and one key (see callKeyOp): its status, or ErrClosed.
func (h *handle) callKey(op keyOp, key []byte) (int, error) {
	p, s, ok := h.acquire()
	if !ok {
		return 0, ErrClosed
	}
	defer h.release(s)
	return callKeyOp(op, p, key)
}

// mustCallKey is callKey for methods whose only result is a bool: after Close they panic.
func (h *handle) mustCallKey(method string, op keyOp, key []byte) int {
	r, err := h.callKey(op, key)
	if errors.Is(err, ErrClosed) {
		panicClosed(method)
	}
	return r
}

func panicClosed(method string) { panic("lfbloom: " + method + " called on a closed filter") }

// keyOfString views a string's bytes without copying (C only reads them during the call).
func keyOfString(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

func keyOfUint64(v uint64) []byte {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], v)
	return b[:]
}

// batchBuffers lay out a batch as the C ABI's *_many functions take it: the keys copied into one
// buffer, with len(keys)+1 offsets. A copy, not the keys in place, because an array of addresses
// of Go memory handed to C would have to pin every key (runtime.Pinner, dearer per key than
// copying a short key), and addresses kept as integers are not updated when a stack moves. Pooled,
// so batch calls do not allocate once warm; a pool entry is used by one goroutine at a time.
type batchBuffers struct {
	data    []byte
	offsets []uint64
}

var batchPool = sync.Pool{New: func() any { return new(batchBuffers) }}

// pack copies keys into one buffer with offsets.
func pack(keys [][]byte) *batchBuffers {
	b := batchPool.Get().(*batchBuffers)
	b.data = b.data[:0]
	b.offsets = append(b.offsets[:0], 0)
	for _, k := range keys {
		b.data = append(b.data, k...)
		b.offsets = append(b.offsets, uint64(len(b.data)))
	}
	if cap(b.data) == 0 {
		b.data = make([]byte, 0, 64) // never a nil buffer, even for empty keys
	}
	b.data = b.data[:cap(b.data)]
	return b
}

// resultBytes lets C write its 1/0 result bytes straight into a []bool, whose elements are bytes
// holding 1 or 0; never a nil array, even for no keys.
func resultBytes(out []bool) []byte {
	if len(out) == 0 {
		return make([]byte, 1)
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(out))), len(out))
}

// Stats is a snapshot of a filter's parameters and fill, read while others may write.
type Stats struct {
	Layout         string  // "classic", "blocked", "counting", or "cuckoo" (a ScalableCuckoo's sub-filters)
	Slots          uint64  // bits of a bit filter, counters of a counting filter, cuckoo fingerprint slots
	SlotBits       int     // 1, or the counter width 4 or 8; 16 for cuckoo fingerprints
	Hashes         int     // k
	Bytes          uint64  // memory of the slot array
	Capacity       uint64  // expected items it was sized for
	TargetFPR      float64 // false-positive rate it was sized for
	SlotsSet       uint64  // bits set, or counters above zero
	Saturated      uint64  // counters stuck at their maximum (0 for bit filters)
	FillRatio      float64 // SlotsSet / Slots
	EstimatedCount float64 // distinct keys estimated from the fill (+Inf when full)
	EstimatedFPR   float64 // expected false-positive rate at EstimatedCount
	NearCapacity   bool    // EstimatedCount > 80% of Capacity: time to rebuild bigger
}

func statsOf(v []uint64) Stats {
	layouts := map[uint64]string{1: "classic", 2: "blocked", 3: "counting", 7: "cuckoo"}
	return Stats{Layout: layouts[v[0]], Slots: v[1], SlotBits: int(v[2]), Hashes: int(v[3]), Bytes: v[4], Capacity: v[5],
		TargetFPR: math.Float64frombits(v[6]), SlotsSet: v[7], Saturated: v[8], FillRatio: math.Float64frombits(v[9]),
		EstimatedCount: math.Float64frombits(v[10]), EstimatedFPR: math.Float64frombits(v[11]), NearCapacity: v[12] != 0}
}
