package lfbloom

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"runtime"

	"github.com/lfbloom/lfbloom/bindings/go/internal/native"
)

// nativeFns are the C functions behind one kind of filter: the ones taking keys through the shims
// of cgo.go, the others through SWIG's internal/native.
type nativeFns struct {
	add, contains         keyOp
	addMany, containsMany batchOp
	clear                 func(uintptr) int
	merge                 func(uintptr, uintptr) int
	stats                 func(uintptr, []uint64) int
	serializedSize        func(uintptr, *uint64) int
	save                  func(uintptr, []byte, *uint64) int
	load                  func([]byte, []uint64, *uintptr) int
	free                  func(uintptr)
	kind                  int                              // lfb_handle kinds: the kind a load must hold
	bitArray              func(uintptr) (*bitArray, error) // bit filters: Add and Test run in Go
}

// keyed holds what every filter kind has: a guarded handle, single and batch Add and Test,
// Stats and Close; its methods are theirs.
type keyed struct {
	h    handle
	fns  *nativeFns
	bits *bitArray // when fns.bitArray is set: the handle's words; guarded by h, like the handle
}

// newKeyed wraps a C handle, with a finalizer that frees it if Close is never called.
func newKeyed(ptr uintptr, fns *nativeFns) *keyed {
	k := &keyed{fns: fns}
	k.h.free = fns.free
	k.h.ptr.Store(ptr)
	runtime.SetFinalizer(k, (*keyed).Close)
	return k
}

// codec adds encoding to keyed: MarshalBinary, UnmarshalBinary, WriteTo, ReadFrom.
type codec struct{ *keyed }

// base adds what Filter and CountingFilter share beyond codec: Clear and merging.
type base struct{ codec }

func newBase(ptr uintptr, fns *nativeFns) *base { return &base{codec{newKeyed(ptr, fns)}} }

// Add adds a key; true if it was new (some bit changed, or, counting, some counter was zero).
// It panics if the filter is closed.
func (b *keyed) Add(key []byte) bool {
	if b.fns.bitArray != nil {
		defer b.h.release(b.enter("Add"))
		return b.bits.add(key)
	}
	return b.h.mustCallKey("Add", b.fns.add, key) == 1
}

// enter counts in a call to a bit filter's Add or Test, which run in Go (see bitArray), and
// returns the stripe to release; it panics once closed.
func (b *keyed) enter(method string) int {
	_, s, ok := b.h.acquire()
	if !ok {
		panicClosed(method)
	}
	return s
}

// AddString adds the bytes of s, without copying them.
func (b *keyed) AddString(s string) bool { return b.Add(keyOfString(s)) }

// AddUint64 adds the 8 little-endian bytes of v.
func (b *keyed) AddUint64(v uint64) bool { return b.Add(keyOfUint64(v)) }

// Test reports whether the key may have been added; false means it certainly was not.
// It panics if the filter is closed.
func (b *keyed) Test(key []byte) bool {
	if b.fns.bitArray != nil {
		defer b.h.release(b.enter("Test"))
		return b.bits.contains(key)
	}
	return b.h.mustCallKey("Test", b.fns.contains, key) == 1
}

// TestString tests the bytes of s, without copying them.
func (b *keyed) TestString(s string) bool { return b.Test(keyOfString(s)) }

// TestUint64 tests the 8 little-endian bytes of v.
func (b *keyed) TestUint64(v uint64) bool { return b.Test(keyOfUint64(v)) }

// AddMany adds every key in one C call (the keys copied into one buffer); it returns how many
// were new.
func (b *keyed) AddMany(keys [][]byte) (uint64, error) {
	return b.batch(b.fns.addMany, keys, nil)
}

// batch runs a batch call over keys under the guard; results, if not nil, gets an answer per key.
func (b *keyed) batch(op batchOp, keys [][]byte, results []byte) (uint64, error) {
	buf := pack(keys)
	defer batchPool.Put(buf)
	p, s, ok := b.h.acquire()
	if !ok {
		return 0, ErrClosed
	}
	defer b.h.release(s)
	return callBatchOp(op, p, buf, len(keys), results)
}

// TestMany tests every key in one C call; element i answers for keys[i].
func (b *keyed) TestMany(keys [][]byte) ([]bool, error) {
	return b.answerEach(b.fns.containsMany, keys)
}

// answerEach runs a batch call that answers 1/0 per key (a *_many function).
func (b *keyed) answerEach(op batchOp, keys [][]byte) ([]bool, error) {
	out := make([]bool, len(keys))
	if _, err := b.batch(op, keys, resultBytes(out)); err != nil {
		return nil, err
	}
	return out, nil
}

// Clear zeroes the filter. Adds racing with it may be lost.
func (b *base) Clear() error {
	_, err := b.h.call(b.fns.clear)
	return err
}

// Stats reads the filter's parameters and fill (O(size)).
func (b *keyed) Stats() (Stats, error) {
	v := make([]uint64, 13)
	if _, err := b.h.call(func(p uintptr) int { return b.fns.stats(p, v) }); err != nil {
		return Stats{}, err
	}
	return statsOf(v), nil
}

func (b *base) merge(other *base) error {
	if other == nil {
		return fmt.Errorf("%w: merge with a nil filter", ErrInvalidArgument)
	}
	_, err := b.h.callWith(&other.h, b.fns.merge)
	return err
}

// MarshalBinary encodes the filter in lfbloom's own format (versioned, checksummed). A filter
// may be marshaled while others add: the result holds every add that completed before it began.
func (b *codec) MarshalBinary() ([]byte, error) {
	p, s, ok := b.h.acquire()
	if !ok {
		return nil, ErrClosed
	}
	defer b.h.release(s)
	var size uint64
	if _, err := nativeCall(func() int { return b.fns.serializedSize(p, &size) }); err != nil {
		return nil, err
	}
	out := make([]byte, size)
	var written uint64
	if _, err := nativeCall(func() int { return b.fns.save(p, out, &written) }); err != nil {
		return nil, err
	}
	return out[:written], nil
}

// UnmarshalBinary replaces the filter with the one encoded in data (by MarshalBinary). Corrupt,
// foreign or truncated data returns an error wrapping ErrCorrupt (or ErrUnsupportedVersion,
// ErrTooLarge, ErrIncompatible) and leaves the filter as it was.
func (b *codec) UnmarshalBinary(data []byte) error {
	var loaded uintptr
	if len(data) == 0 {
		data = []byte{0}[:0:1] // a non-nil empty slice: the loader reports it as truncated
	}
	if _, err := nativeCall(func() int { return b.fns.load(data, nil, &loaded) }); err != nil {
		return err
	}
	if b.fns.kind != 0 { // an lfb_handle (only then may lfb_kind be asked)
		if k := native.Lfb_kind(loaded); k != b.fns.kind {
			b.fns.free(loaded)
			return fmt.Errorf("%w: the data holds a filter of kind %d, not of kind %d", ErrIncompatible, k, b.fns.kind)
		}
	}
	var bits *bitArray
	if b.fns.bitArray != nil {
		var err error
		if bits, err = b.fns.bitArray(loaded); err != nil {
			b.fns.free(loaded)
			return err
		}
	}
	b.h.exclusive(func(old uintptr) uintptr {
		if old != 0 {
			b.fns.free(old)
		}
		b.bits = bits
		return loaded
	})
	return nil
}

// WriteTo writes MarshalBinary's encoding to w (io.WriterTo).
func (b *codec) WriteTo(w io.Writer) (int64, error) {
	data, err := b.MarshalBinary()
	if err != nil {
		return 0, err
	}
	n, err := w.Write(data)
	return int64(n), err
}

// ReadFrom replaces the filter with one read from r (io.ReaderFrom): it reads exactly one
// encoded filter, checking the declared size before reading the rest.
func (b *codec) ReadFrom(r io.Reader) (int64, error) {
	header := make([]byte, 80)
	if n, err := io.ReadFull(r, header); err != nil {
		return int64(n), fmt.Errorf("%w: truncated header: %v", ErrCorrupt, err)
	}
	payload := binary.LittleEndian.Uint64(header[64:])
	if payload > 1<<46 {
		return 80, fmt.Errorf("%w: absurd payload size %d", ErrCorrupt, payload)
	}
	var buf bytes.Buffer
	buf.Write(header)
	n, err := io.CopyN(&buf, r, int64(payload)+8)
	if err != nil {
		return 80 + n, fmt.Errorf("%w: truncated filter: %v", ErrCorrupt, err)
	}
	return 80 + n, b.UnmarshalBinary(buf.Bytes())
}

// Close frees the filter; idempotent, and safe while other goroutines use it (see the package
// documentation).
func (b *keyed) Close() error {
	b.h.close()
	return nil
}

// ---- bit filters ------------------------------------------------------------------------------------

// Filter is a Bloom filter (blocked or classic layout).
type Filter struct{ *base }

var filterFns = &nativeFns{
	add: opFilterAdd, contains: opFilterContains, addMany: opFilterAddMany, containsMany: opFilterContainsMany,
	clear: native.Lfb_filter_clear, merge: native.Lfb_filter_merge, stats: native.Lfb_filter_stats,
	serializedSize: func(p uintptr, size *uint64) int { return native.Lfb_filter_serialized_size(p, 1, size) },
	save:           func(p uintptr, out []byte, n *uint64) int { return native.Lfb_filter_save(p, 1, out, n) },
	load:           func(data []byte, o []uint64, out *uintptr) int { return native.Lfb_filter_load(1, data, o, out) },
	free:           native.Lfb_filter_free, bitArray: bitArrayOf,
}

// newFilter wraps the C filter that create makes; it frees it if the wrapping fails.
func newFilter(create func(out *uintptr) int) (*Filter, error) {
	var p uintptr
	if _, err := nativeCall(func() int { return create(&p) }); err != nil {
		return nil, err
	}
	bits, err := bitArrayOf(p)
	if err != nil {
		native.Lfb_filter_free(p)
		return nil, err
	}
	f := &Filter{newBase(p, filterFns)}
	f.bits = bits
	return f, nil
}

// New returns a filter sized so that after capacity distinct adds the false-positive rate is at
// most fpr. Errors wrap ErrInvalidArgument (capacity 0, fpr outside (0, 1)), ErrTooLarge or
// ErrOutOfMemory.
func New(capacity uint64, fpr float64, opts ...Option) (*Filter, error) {
	return newFilter(func(p *uintptr) int { return native.Lfb_filter_create(capacity, fpr, nativeOptions(opts), p) })
}

// NewShared creates the file path holding a new filter that other processes (a JVM, C, another
// Go program) open with OpenShared and use at the same time, with the same lock-free atomics.
// An error wrapping ErrIO if the file exists.
func NewShared(path string, capacity uint64, fpr float64, opts ...Option) (*Filter, error) {
	return newFilter(func(p *uintptr) int {
		return native.Lfb_filter_create_shared_file(path, capacity, fpr, nativeOptions(opts), p)
	})
}

// OpenShared maps the filter in a shared file made by NewShared (in any process or language).
func OpenShared(path string) (*Filter, error) {
	return newFilter(func(p *uintptr) int { return native.Lfb_filter_open_shared_file(path, nil, p) })
}

// Flush writes a shared file's pages to disk (msync): durability across a machine crash only.
func (f *Filter) Flush() error {
	_, err := f.h.call(native.Lfb_filter_flush)
	return err
}

// Merge ORs other into f; both need the same layout, size, hashes and seed (else ErrIncompatible).
func (f *Filter) Merge(other *Filter) error {
	if other == nil {
		return f.merge(nil)
	}
	return f.merge(other.base)
}

// ---- counting filters ---------------------------------------------------------------------------------

// CountingFilter is a Bloom filter with saturating counters, so keys can be removed.
type CountingFilter struct{ *base }

var countingFns = &nativeFns{
	add: opCountingAdd, contains: opCountingContains, addMany: opCountingAddMany, containsMany: opCountingContainsMany,
	clear: native.Lfb_counting_clear, merge: native.Lfb_counting_merge, stats: native.Lfb_counting_stats,
	serializedSize: native.Lfb_counting_serialized_size, save: native.Lfb_counting_save,
	load: native.Lfb_counting_load, free: native.Lfb_counting_free,
}

// NewCounting returns a counting filter (4-bit counters unless WithCounterBits(8)).
func NewCounting(capacity uint64, fpr float64, opts ...Option) (*CountingFilter, error) {
	var p uintptr
	if _, err := nativeCall(func() int { return native.Lfb_counting_create(capacity, fpr, nativeOptions(opts), &p) }); err != nil {
		return nil, err
	}
	return &CountingFilter{newBase(p, countingFns)}, nil
}

// Remove removes one copy of key: true if it was there, false (nothing changed) if one of its
// counters is zero, an answer rather than an error since 1.8 (as Cuckoo.Remove and RemoveMany
// answer). The error is ErrClosed or nil. Removing keys never added can cause false negatives for
// other keys.
func (c *CountingFilter) Remove(key []byte) (bool, error) {
	_, err := c.h.callKey(opCountingRemove, key)
	if errors.Is(err, ErrNotPresent) {
		return false, nil
	}
	return err == nil, err
}

// RemoveString removes one copy of the bytes of s.
func (c *CountingFilter) RemoveString(s string) (bool, error) { return c.Remove(keyOfString(s)) }

// RemoveUint64 removes one copy of the 8 little-endian bytes of v.
func (c *CountingFilter) RemoveUint64(v uint64) (bool, error) { return c.Remove(keyOfUint64(v)) }

// RemoveMany removes one copy of each key, in order, in one C call that hashes the keys and
// fetches their cache lines in groups (much faster than a loop of Remove). Element i is false
// if keys[i] was not present, in which case nothing changed for it; the error is only for a
// closed filter.
func (c *CountingFilter) RemoveMany(keys [][]byte) ([]bool, error) {
	return c.answerEach(opCountingRemoveMany, keys)
}

// Count returns the smallest of key's counters: at least how often it was added (minus removed).
func (c *CountingFilter) Count(key []byte) (int, error) {
	return c.h.callKey(opCountingCount, key)
}

// Merge adds other's counters to c's, saturating (geometry, width and seed must match).
func (c *CountingFilter) Merge(other *CountingFilter) error {
	if other == nil {
		return c.merge(nil)
	}
	return c.merge(other.base)
}
