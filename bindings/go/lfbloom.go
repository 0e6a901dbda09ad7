// Package lfbloom provides Bloom filters, and their relatives, that any number of goroutines add
// to and query at once, without locks, over lfbloom's C library (liblfbloom.so.1).
//
// A Bloom filter answers "have I seen this key?" in constant memory: Test returns false only for
// keys that were certainly never added, and true for keys never added with about the configured
// false-positive rate once the filter holds its capacity. Filter is one (layouts Blocked,
// Classic, SplitBlock, OneWord and TwoWord); CountingFilter and Cuckoo also remove keys;
// Scalable and ScalableCuckoo grow, Rotating forgets keys after a time window, and Swappable is
// replaced while in use. Every one of them implements Interface; those that remove, Remover.
// Each holds one handle of the C library, whatever its kind.
//
// # Goroutine safety
//
// Every method may be called from any number of goroutines at once. No false negatives: if
// Add(key) happens-before Test(key) (a channel send and receive, a mutex, sync.WaitGroup, an
// atomic store and load), Test returns true, until the kind's own way of forgetting takes the key
// (a remove, a clear, a rotation's expiry, a replacement). Adds racing with a Test may or may not
// be seen; there is no ordering between different keys. Add returns true when the key was new:
// of racing Adds of one new key at least one returns true, and more than one may. Clear racing
// with Adds may lose them.
//
// # Closing
//
// Close is idempotent and safe to call while other goroutines use the filter: it waits for calls
// in flight, frees the C filter and returns nil. After Close, every method returns an error
// wrapping ErrClosed, except the methods whose only result is a bool (Test, and Add where it
// returns a bool, with their String and Uint64 forms), which panic with a message naming the
// method; Insert and Contains are the same calls with the error returned. No call can crash the
// runtime. A finalizer frees filters that were never closed, as a safety net only. (A bool-only
// Add also panics on a filter opened read-only, the one other error it can meet.)
//
// # Costs
//
// A Filter's Add and Test on the Blocked and Classic layouts make no cgo call: they hash the key
// in Go and use atomic loads and ORs on the C filter's words in place, bit-exact with the C
// library, because a cgo call (about 40 ns, and it keeps consecutive lookups' cache misses from
// overlapping) costs more than the lookup. Every other call is one cgo call; batch calls
// (AddMany, TestStrings, RemoveUint64s, ...) are one per batch.
//
// Keys are bytes: a single key is passed to C without copying, a batch is copied into one buffer;
// strings are their bytes (UTF-8 for Go source), integers their 8 little-endian bytes (as Guava's
// longFunnel). C keeps no key after a call returns.
package lfbloom

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/lfbloom/lfbloom/bindings/go/internal/native"
)

// Interface is what every filter of this package does, whatever its kind: Filter,
// CountingFilter, Cuckoo, Scalable, ScalableCuckoo, Rotating and Swappable implement it, so code
// that only adds, queries and reports can take any of them.
//
// Every method returns an error, including where a type's own Add and Test return a bare bool:
// a filter that can refuse an add (a Cuckoo, or a Scalable at its cap with ErrFull) says so
// through Insert and the Add batches, so code written against Interface cannot drop a refusal
// unseen, and a closed filter answers ErrClosed rather than panicking. Insert and Contains are
// names of their own because Add and Test keep their signatures, which differ between the types
// (bool, or (bool, error)). The batches take the three key shapes, each in one cgo call without
// converting the keys to [][]byte first. Info, Geometry and Part describe any kind with one
// struct, as the C library's lfb_info does. Removing is not every kind's: see Remover.
type Interface interface {
	// Insert adds a key: true if it was new, or the error that refused it (nothing changed).
	Insert(key []byte) (bool, error)
	// Contains reports whether the key may have been added; false means it certainly was not.
	Contains(key []byte) (bool, error)
	AddMany(keys [][]byte) (uint64, error)
	AddStrings(keys []string) (uint64, error)
	AddUint64s(keys []uint64) (uint64, error)
	TestMany(keys [][]byte) ([]bool, error)
	TestStrings(keys []string) ([]bool, error)
	TestUint64s(keys []uint64) ([]bool, error)
	Info() (Info, error)
	Geometry() (Info, error)
	Part(index int) (Info, error)
	Close() error
}

// Remover is an Interface that removes keys: CountingFilter, Cuckoo and ScalableCuckoo.
type Remover interface {
	Interface
	Remove(key []byte) (bool, error)
	RemoveMany(keys [][]byte) ([]bool, error)
	RemoveStrings(keys []string) ([]bool, error)
	RemoveUint64s(keys []uint64) ([]bool, error)
	Count(key []byte) (int, error)
}

var (
	_ Remover   = (*CountingFilter)(nil)
	_ Remover   = (*Cuckoo)(nil)
	_ Remover   = (*ScalableCuckoo)(nil)
	_ Interface = (*Filter)(nil)
	_ Interface = (*Scalable)(nil)
	_ Interface = (*Rotating)(nil)
	_ Interface = (*Swappable)(nil)
)

// Layout is where a Bloom filter's bits go. Its constants (Blocked, the default, Classic,
// SplitBlock, OneWord, TwoWord) are generated from lfbloom.h into layouts_gen.go. Classic is bit
// for bit Guava's BloomFilter, flaw included: a key whose second hash half is 0 probes one bit k
// times, and under seed 0 (Guava's, the default) the empty key is such a key, present in about
// half of all full classic filters; give a classic filter never exchanged with Guava a non-zero
// seed (WithSeed). The other layouts spread every key's probes whatever the seed. Add and Test on
// SplitBlock, OneWord and TwoWord filters are cgo calls.
type Layout int

// bloom reports whether l is one of the Bloom layouts a Filter holds.
func (l Layout) bloom() bool { return slices.Contains(bloomLayouts, l) }

type options struct {
	layout      Layout
	memoryLimit uint64
	seed        uint64
	counterBits uint32
	fileMode    os.FileMode
	readOnly    bool
}

// Option configures the constructors; each says which options it uses.
type Option func(*options)

// WithLayout picks the layout of a Filter (counting filters are always blocked).
func WithLayout(l Layout) Option { return func(o *options) { o.layout = l } }

// WithMemoryLimit refuses (ErrTooLarge) filters over this many bytes (0: only the machine's
// memory bounds them): when creating one (a composite: the sum over its parts), and when loading
// one (Load, and UnmarshalBinary and ReadFrom into a filter made with the limit), checked from
// the data's header before anything is allocated.
func WithMemoryLimit(bytes uint64) Option { return func(o *options) { o.memoryLimit = bytes } }

// WithSeed sets the hash seed (default 0); filters merge only with equal seeds.
func WithSeed(seed uint64) Option { return func(o *options) { o.seed = seed } }

// WithCounterBits sets a CountingFilter's counter width: 4 (default) or 8. (It and
// WithFingerprintBits set one field: given to NewCuckoo, it is read as a fingerprint width.)
func WithCounterBits(bits int) Option { return func(o *options) { o.counterBits = uint32(bits) } }

// WithFingerprintBits sets a cuckoo filter's fingerprint width, which fixes its bucket format:
// 14 (five per 64-bit bucket), 16 (four, the fastest reads) or 17 (four). By default the
// constructor takes the width with the fewest bytes for the rate (16 on ties): 14 from about
// 0.046% up, 16 down to 0.0115%, 17 below. A width that cannot reach the rate is refused.
func WithFingerprintBits(bits int) Option { return func(o *options) { o.counterBits = uint32(bits) } }

// WithFileMode sets the permission bits of a shared file that a constructor creates (default
// 0666), less the process umask, as open(2) does.
func WithFileMode(mode os.FileMode) Option { return func(o *options) { o.fileMode = mode } }

// WithReadOnly opens a shared file for reading only: read permission is enough (another user's
// 0644 file), and the file is mapped read-only. The filter queries, reports and sees the adds of
// the file's writers; every call that would write to it returns ErrReadOnly (a Filter's bool-only
// Add panics). The file must exist: with it, the create-or-open constructors only open.
func WithReadOnly() Option { return func(o *options) { o.readOnly = true } }

func optionsOf(opts []Option) options {
	o := options{layout: Blocked, counterBits: 4, fileMode: 0666}
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

// spec is the lfb_spec of a filter of this kind for (capacity, fpr) with these options; the
// caller deletes it.
func (o *options) spec(kind int, capacity uint64, fpr float64) native.Lfb_spec {
	spec := native.NewLfb_spec()
	spec.SetKind(uint(kind))
	spec.SetCapacity(capacity)
	spec.SetFpr(fpr)
	spec.SetSeed(o.seed)
	spec.SetMemory_limit(o.memoryLimit)
	spec.SetCounter_bits(uint(o.counterBits))
	return spec
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
	_       [64]byte       // keeps the counters off the line of the fields every call reads
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

// exclusive runs swap with no call in flight: it gets the C handle (0 once closed) and returns
// its successor.
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
			native.Lfb_free(p)
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

// call runs a SWIG-wrapped C function on the handle under the guard (see nativeCall); ErrClosed
// once closed.
func (h *handle) call(fn func(p uintptr) int) (int, error) {
	p, s, ok := h.acquire()
	if !ok {
		return 0, ErrClosed
	}
	defer h.release(s)
	return nativeCall(func() int { return fn(p) })
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

// must is a bool-only method's answer: it panics, naming the method, where the call failed.
func must(method string, answer bool, err error) bool {
	if errors.Is(err, ErrClosed) {
		panic("lfbloom: " + method + " called on a closed filter")
	}
	if err != nil {
		panic(fmt.Sprintf("lfbloom: %s: %v", method, err))
	}
	return answer
}

// keyOfString views a string's bytes without copying (C only reads them during the call).
func keyOfString(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

func keyOfUint64(v uint64) []byte {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], v)
	return b[:]
}

// batchBuffers lay out a batch as lfb_batch_run takes it: the keys copied into one buffer, with
// len(keys)+1 offsets. A copy, not the keys in place, because an array of addresses of Go memory
// handed to C would have to pin every key (runtime.Pinner, dearer per key than copying a short
// key), and addresses kept as integers are not updated when a stack moves. Pooled, so batch calls
// do not allocate once warm; a pool entry is used by one goroutine at a time.
type batchBuffers struct {
	data    []byte
	offsets []uint64
}

var batchPool = sync.Pool{New: func() any { return new(batchBuffers) }}

// pack copies keys, byte slices or strings, into one buffer with offsets.
func pack[K []byte | string](keys []K) *batchBuffers {
	b := buffers()
	for _, k := range keys {
		b.data = append(b.data, k...)
		b.offsets = append(b.offsets, uint64(len(b.data)))
	}
	return b.done()
}

// packUint64s lays out integer keys as their 8 little-endian bytes.
func packUint64s(keys []uint64) *batchBuffers {
	b := buffers()
	for _, k := range keys {
		b.data = binary.LittleEndian.AppendUint64(b.data, k)
		b.offsets = append(b.offsets, uint64(len(b.data)))
	}
	return b.done()
}

func buffers() *batchBuffers {
	b := batchPool.Get().(*batchBuffers)
	b.data = b.data[:0]
	b.offsets = append(b.offsets[:0], 0)
	return b
}

func (b *batchBuffers) done() *batchBuffers {
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
