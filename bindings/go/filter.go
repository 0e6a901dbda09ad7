package lfbloom

import (
	"fmt"
	"runtime"

	"github.com/lfbloom/lfbloom/bindings/go/internal/native"
)

// filter is what every type of this package is: one guarded lfb_handle, whatever its kind, and
// the generic calls on it. Its exported methods are every type's (a type's own Add, where it
// returns an error, and Stats shadow filter's).
type filter struct {
	h     handle
	bits  *bitArray // a Bloom layout Go implements: its words (bitarray.go); read under the guard, set only under h.exclusive
	limit uint64    // WithMemoryLimit: refuses loads into the filter past it
}

// wrap gives the C handle p its Go type, by kind, with a finalizer that frees it if Close is
// never called.
func wrap(p uintptr, limit uint64) Interface {
	f := &filter{limit: limit}
	f.h.ptr.Store(p)
	runtime.SetFinalizer(f, (*filter).Close)
	switch native.Lfb_kind(p) {
	case kindCounting:
		return &CountingFilter{layout{f}, removal{f}}
	case kindCuckoo:
		return &Cuckoo{layout{f}, removal{f}}
	case kindScalable:
		if g, _ := f.Geometry(); g.SubKind == kindName(kindCuckoo) {
			return &ScalableCuckoo{&Scalable{f}}
		}
		return &Scalable{f}
	case kindRotating:
		return &Rotating{f}
	case kindSwap:
		return &Swappable{f}
	}
	f.bits, _ = bitArrayOf(p) // nil for a layout or rule Go does not implement, or a read-only mapping: Add and Test call C
	return &Filter{layout{f}}
}

// as wraps the handle p, made by a call that returned err, as a T; a handle of another kind is
// freed (ErrIncompatible).
func as[T Interface](p uintptr, limit uint64, err error) (T, error) {
	var zero T
	if err != nil {
		return zero, err
	}
	w := wrap(p, limit)
	if t, ok := w.(T); ok {
		return t, nil
	}
	kind := native.Lfb_kind(p)
	w.Close()
	return zero, fmt.Errorf("%w: a %s filter, where a %T was wanted", ErrIncompatible, kindName(kind), zero)
}

// create makes a filter of kind for (capacity, fpr) with lfb_create; edit adds a composite's
// fields to the spec.
func (o *options) create(kind int, capacity uint64, fpr float64, edit func(native.Lfb_spec)) (uintptr, uint64, error) {
	spec := o.spec(kind, capacity, fpr)
	defer native.DeleteLfb_spec(spec)
	if edit != nil {
		edit(spec)
	}
	return o.made(func(out *uintptr) int { return native.Lfb_create(spec, out) })
}

// made runs a C call that makes a handle into out (lfb_create, lfb_open_shared, lfb_load, ...).
func (o *options) made(call func(out *uintptr) int) (uintptr, uint64, error) {
	var p uintptr
	_, err := nativeCall(func() int { return call(&p) })
	return p, o.memoryLimit, err
}

// bloomKind is the kind a Filter constructor makes: WithLayout's, if it is a Bloom layout.
func (o *options) bloomKind() (int, error) {
	if !o.layout.bloom() {
		return 0, fmt.Errorf("%w: layout %d is no Bloom layout", ErrInvalidArgument, o.layout)
	}
	return int(o.layout), nil
}

func kindName(kind int) string { return native.Lfb_kind_name(uint(kind)) }

// Insert adds a key: true if it was new (a Bloom filter: some bit changed; counting: some
// counter was zero; cuckoo: no copy of its fingerprint was in its buckets; a composite: as the
// filter it adds to). An error wrapping ErrFull or ErrTooManyDuplicates when a Cuckoo or
// ScalableCuckoo refuses it, ErrFull when a Scalable is at its cap (nothing changed either way),
// ErrReadOnly, or ErrClosed.
func (f *filter) Insert(key []byte) (bool, error) {
	n, err := f.key(opAdd, key)
	return n == 1, err
}

// Contains reports whether the key may have been added; false means it certainly was not. The
// error is ErrClosed or nil.
func (f *filter) Contains(key []byte) (bool, error) {
	n, err := f.key(opContains, key)
	return n == 1, err
}

// key runs op on one key under the guard: in Go on a Bloom layout's words where it can
// (bitarray.go), else in C.
func (f *filter) key(op keyOp, key []byte) (int, error) {
	p, s, ok := f.h.acquire()
	if !ok {
		return 0, ErrClosed
	}
	defer f.h.release(s)
	switch {
	case f.bits != nil && op == opAdd:
		return answer(f.bits.add(key)), nil
	case f.bits != nil && op == opContains:
		return answer(f.bits.contains(key)), nil
	}
	return callKey(op, p, key)
}

func answer(yes bool) int {
	if yes {
		return 1
	}
	return 0
}

// Add adds a key; true if it was new (Insert says what new means for each kind). It panics if
// the filter is closed, or was opened read-only.
func (f *filter) Add(key []byte) bool { return f.mustKey("Add", opAdd, key) }

// mustKey is key for the methods whose only result is a bool (Add, Test), written apart from
// key as their hot path: a Bloom layout's words in Go with no error value to build (through key,
// Add and Test took 54 and 42 ns against 50 and 40 here); after Close, or any C error, it panics
// naming the method.
func (f *filter) mustKey(method string, op keyOp, key []byte) bool {
	p, s, ok := f.h.acquire()
	if !ok {
		return must(method, false, ErrClosed)
	}
	defer f.h.release(s)
	if b := f.bits; b != nil {
		if op == opAdd {
			return b.add(key)
		}
		return b.contains(key)
	}
	n, err := callKey(op, p, key)
	return must(method, n == 1, err)
}

// AddString adds the bytes of s, without copying them.
func (f *filter) AddString(s string) bool { return f.Add(keyOfString(s)) }

// AddUint64 adds the 8 little-endian bytes of v.
func (f *filter) AddUint64(v uint64) bool { return f.Add(keyOfUint64(v)) }

// Test reports whether the key may have been added; false means it certainly was not.
// It panics if the filter is closed.
func (f *filter) Test(key []byte) bool { return f.mustKey("Test", opContains, key) }

// TestString tests the bytes of s, without copying them.
func (f *filter) TestString(s string) bool { return f.Test(keyOfString(s)) }

// TestUint64 tests the 8 little-endian bytes of v.
func (f *filter) TestUint64(v uint64) bool { return f.Test(keyOfUint64(v)) }

// AddMany adds every key in one C call (the keys copied into one buffer); it returns how many
// were new. If one is refused (as Insert says), the error is a *BatchError: the keys before its
// Done were added, the rest were not.
func (f *filter) AddMany(keys [][]byte) (uint64, error) { return f.batch(opAdd, pack(keys), nil) }

// AddStrings is AddMany for the bytes of each string.
func (f *filter) AddStrings(keys []string) (uint64, error) { return f.batch(opAdd, pack(keys), nil) }

// AddUint64s is AddMany for the 8 little-endian bytes of each integer.
func (f *filter) AddUint64s(keys []uint64) (uint64, error) {
	return f.batch(opAdd, packUint64s(keys), nil)
}

// AddBulk adds every key in one parallel bulk build on threads threads (1: the calling one; more:
// C threads, outside GOMAXPROCS, the calling one waiting; 0: one per CPU of the machine); the call
// holds the calling goroutine's thread until it returns. The keys are copied into one buffer and
// hashed once; each part of the filter is set in a private copy and merged into the filter in
// order, so a filter larger than the cache fills faster than with AddMany. The filter ends
// with the same contents as after adding the keys one by one, but no count of new keys comes
// back. Cuckoo, Scalable and Rotating filters add them one by one on the calling thread, as
// AddMany; a refusal there is a *BatchError, as AddMany's. Safe beside any other call on the
// filter, from any goroutine (or process, for a shared file): every key is present once it
// returns, and a Test meanwhile may see some keys and not others. Temporary C memory: a private
// copy of the filter and up to 4 times its size of hashed keys (16 bytes a key, 64 MiB to 1 GiB);
// for a filter of at most 2 MiB, a copy a thread and no hashed keys (a thread per 65,536 keys).
// Errors: ErrInvalidArgument for a negative thread count (or one past uint32), ErrClosed.
func (f *filter) AddBulk(keys [][]byte, threads int) error { return f.bulk(opAdd, pack(keys), threads) }

// AddBulkStrings is AddBulk for the bytes of each string.
func (f *filter) AddBulkStrings(keys []string, threads int) error {
	return f.bulk(opAdd, pack(keys), threads)
}

// AddBulkUint64s is AddBulk for the 8 little-endian bytes of each integer.
func (f *filter) AddBulkUint64s(keys []uint64, threads int) error {
	return f.bulk(opAdd, packUint64s(keys), threads)
}

// TestMany tests every key in one C call; element i answers for keys[i].
func (f *filter) TestMany(keys [][]byte) ([]bool, error) { return f.answers(opContains, pack(keys)) }

// TestStrings is TestMany for the bytes of each string.
func (f *filter) TestStrings(keys []string) ([]bool, error) { return f.answers(opContains, pack(keys)) }

// TestUint64s is TestMany for the 8 little-endian bytes of each integer.
func (f *filter) TestUint64s(keys []uint64) ([]bool, error) {
	return f.answers(opContains, packUint64s(keys))
}

// batch runs one lfb_batch_run under the guard; results, if not nil, gets an answer per key.
func (f *filter) batch(op keyOp, b *batchBuffers, results []byte) (uint64, error) {
	return f.run(op, 0, 0, b, results)
}

// bulk runs op (opAdd or opAddStaged) as one bulk build (LFB_BATCH_BULK) on threads threads.
func (f *filter) bulk(op keyOp, b *batchBuffers, threads int) error {
	if threads < 0 || int(uint32(threads)) != threads {
		batchPool.Put(b)
		if f.h.ptr.Load() == 0 { // the closed rule first, as for every method
			return ErrClosed
		}
		return fmt.Errorf("%w: %d threads (0 is one per CPU)", ErrInvalidArgument, threads)
	}
	_, err := f.run(op, batchBulk, uint32(threads), b, nil)
	return err
}

// run is batch and bulk: one lfb_batch_run with these flags and threads under the guard.
func (f *filter) run(op keyOp, flags, threads uint32, b *batchBuffers, results []byte) (uint64, error) {
	defer batchPool.Put(b)
	p, s, ok := f.h.acquire()
	if !ok {
		return 0, ErrClosed
	}
	defer f.h.release(s)
	return callBatch(op, flags, threads, p, b, results)
}

// answers runs a batch that answers 1 or 0 per key. A batch a refusal stopped returns the
// answers of the keys before it with its *BatchError.
func (f *filter) answers(op keyOp, b *batchBuffers) ([]bool, error) {
	out := make([]bool, len(b.offsets)-1)
	_, err := f.batch(op, b, resultBytes(out))
	if stopped, ok := err.(*BatchError); ok {
		return out[:stopped.Done], err
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Info reads the filter's parameters, fill and activity (O(size); composites: summed over their
// parts) while others may write.
func (f *filter) Info() (Info, error) { return f.info(native.Lfb_info_get) }

// Geometry is Info's fields that do not depend on the contents, in O(1) without reading the
// filter (composites: O(parts)); the fill and activity fields are zero.
func (f *filter) Geometry() (Info, error) { return f.info(native.Lfb_geometry_get) }

// Part describes a composite's part as Info does a filter: a Scalable's sub-filter index (0 the
// oldest; Items is set), a Rotating's generation of age index (0 current; with DoubleWrite the
// last is the next generation), a Swappable's current (0) or staged (1) filter. Any other filter
// has part 0, itself. ErrInvalidArgument past Info's Parts.
func (f *filter) Part(index int) (Info, error) {
	if f.h.ptr.Load() == 0 { // the closed rule first, as for every method
		return Info{}, ErrClosed
	}
	if index < 0 || int(uint32(index)) != index {
		return Info{}, fmt.Errorf("%w: part %d", ErrInvalidArgument, index)
	}
	return f.info(func(p uintptr, out native.Lfb_info) int { return native.Lfb_part_info(p, uint(index), out) })
}

func (f *filter) info(get func(uintptr, native.Lfb_info) int) (Info, error) {
	out := native.NewLfb_info()
	defer native.DeleteLfb_info(out)
	if _, err := f.h.call(func(p uintptr) int { return get(p, out) }); err != nil {
		return Info{}, err
	}
	return infoOf(out), nil
}

// Stats reads the filter's parameters and fill (O(size)): Info, in the fields of lfbloom 1.0.
func (f *filter) Stats() (Stats, error) {
	i, err := f.Info()
	return statsOf(i), err
}

// Close frees the filter; idempotent, and safe while other goroutines use it (see the package
// documentation).
func (f *filter) Close() error {
	f.h.close()
	return nil
}

// copy makes a private copy (lfb_copy), for a typed Copy to wrap.
func (f *filter) copy() (uintptr, uint64, error) {
	var out uintptr
	_, err := f.h.call(func(p uintptr) int { return native.Lfb_copy(p, &out) })
	return out, f.limit, err
}

// with runs a C call on f and other (lfb_equal, lfb_union, lfb_intersect), both guarded.
func (f *filter) with(other *filter, call func(p, o uintptr) int) (int, error) {
	if f.h.ptr.Load() == 0 { // the closed rule first, as for every method
		return 0, ErrClosed
	}
	if other == nil {
		return 0, fmt.Errorf("%w: a nil filter", ErrInvalidArgument)
	}
	return f.h.callWith(&other.h, call)
}

func (f *filter) equal(other *filter) (bool, error) {
	r, err := f.with(other, native.Lfb_equal)
	return r == 1, err
}

// layout adds what the layouts (Filter, CountingFilter, Cuckoo) have beyond filter: saving and
// loading (stream.go), shared files, clearing.
type layout struct{ *filter }

// Clear empties the filter (its bits, counters or fingerprint slots). Adds and removes racing
// with it may be lost.
func (l layout) Clear() error {
	_, err := l.h.call(native.Lfb_clear)
	return err
}

// Flush writes a shared file's pages to disk (msync): durability across a machine crash only,
// not needed for other processes to see the adds. Nothing to do for other filters.
func (l layout) Flush() error {
	_, err := l.h.call(native.Lfb_flush)
	return err
}

// removal is the methods of the kinds that remove keys (CountingFilter, Cuckoo, ScalableCuckoo):
// a named field rather than an embedded *filter, so that it adds only these methods to theirs.
type removal struct{ f *filter }

// Remove removes one copy of the key: true if one was there, false (nothing changed) if not (a
// counting filter: one of its counters is zero). A ScalableCuckoo defers the remove of a key that
// matches in two sub-filters, since the copy taken could be another key's (true: done; see
// ScalableCuckoo), and refuses it when too many wait already: the error then wraps ErrAmbiguous
// and the key stays (a false positive). Removing a key never added, or whose Add has not returned
// yet, can remove another key's copy: a false negative for that key.
func (r removal) Remove(key []byte) (bool, error) {
	n, err := r.f.key(opRemove, key)
	return n == 1, err
}

// RemoveString removes one copy of the bytes of s.
func (r removal) RemoveString(s string) (bool, error) { return r.Remove(keyOfString(s)) }

// RemoveUint64 removes one copy of the 8 little-endian bytes of v.
func (r removal) RemoveUint64(v uint64) (bool, error) { return r.Remove(keyOfUint64(v)) }

// RemoveMany removes one copy of each key, in order, in one C call that hashes the keys and
// fetches their memory in groups (much faster than a loop of Remove); element i is what
// Remove(keys[i]) would have returned. A remove refused as ambiguous stops the batch: the answers
// of the keys before it come with a *BatchError.
func (r removal) RemoveMany(keys [][]byte) ([]bool, error) { return r.f.answers(opRemove, pack(keys)) }

// RemoveStrings is RemoveMany for the bytes of each string.
func (r removal) RemoveStrings(keys []string) ([]bool, error) {
	return r.f.answers(opRemove, pack(keys))
}

// RemoveUint64s is RemoveMany for the 8 little-endian bytes of each integer.
func (r removal) RemoveUint64s(keys []uint64) ([]bool, error) {
	return r.f.answers(opRemove, packUint64s(keys))
}

// Count returns how often the key was added, less removed, at most: a counting filter's smallest
// counter of the key, a cuckoo filter's copies of its fingerprint in its two buckets (0 to 8;
// ScalableCuckoo: summed over sub-filters). 0 means certainly absent.
func (r removal) Count(key []byte) (int, error) { return r.f.key(opCount, key) }

// ---- Bloom filters ---------------------------------------------------------------------------------

// Filter is a Bloom filter of any layout (WithLayout; Blocked by default).
type Filter struct{ layout }

// New returns a filter sized so that after capacity distinct adds the false-positive rate is at
// most fpr. Options: WithLayout, WithSeed, WithMemoryLimit. Errors wrap ErrInvalidArgument
// (capacity 0, fpr outside (0, 1)), ErrTooLarge or ErrOutOfMemory.
func New(capacity uint64, fpr float64, opts ...Option) (*Filter, error) {
	o := optionsOf(opts)
	kind, err := o.bloomKind()
	if err != nil {
		return nil, err
	}
	return as[*Filter](o.create(kind, capacity, fpr, nil))
}

func (f *Filter) base() *filter {
	if f == nil {
		return nil
	}
	return f.filter
}

// Copy returns a private copy in this process's memory (not shared, writable also when f was
// opened read-only): the same layout, shape, seed and bits, and a filter of its own from then on.
func (f *Filter) Copy() (*Filter, error) { return as[*Filter](f.copy()) }

// Equal reports whether other has the same layout, shape, seed and probe rule and holds the same
// bits (then every key gets the same answer from both); the sizing they were created for is not
// compared. It reads both (O(size)): exact when neither is being changed.
func (f *Filter) Equal(other *Filter) (bool, error) { return f.equal(other.base()) }

// Merge ORs other into f, so f holds every key either held; both need the same layout, size,
// hashes and seed (else ErrIncompatible, nothing changed).
func (f *Filter) Merge(other *Filter) error {
	_, err := f.with(other.base(), native.Lfb_union)
	return err
}

// Intersect ANDs other's bits into f, so f keeps what both hold: a key both held stays present;
// absent keys may answer "maybe" somewhat more often than in a filter built from the common keys.
// Compatibility as for Merge. Adds racing with it may or may not survive.
func (f *Filter) Intersect(other *Filter) error {
	_, err := f.with(other.base(), native.Lfb_intersect)
	return err
}

// ---- counting filters ---------------------------------------------------------------------------------

// CountingFilter is a Bloom filter with saturating counters, so keys can be removed.
type CountingFilter struct {
	layout
	removal
}

// NewCounting returns a counting filter (4-bit counters unless WithCounterBits(8)). Options:
// WithCounterBits, WithSeed, WithMemoryLimit.
func NewCounting(capacity uint64, fpr float64, opts ...Option) (*CountingFilter, error) {
	o := optionsOf(opts)
	return as[*CountingFilter](o.create(kindCounting, capacity, fpr, nil))
}

func (c *CountingFilter) base() *filter {
	if c == nil {
		return nil
	}
	return c.filter
}

// Copy returns a private copy, as Filter.Copy does.
func (c *CountingFilter) Copy() (*CountingFilter, error) { return as[*CountingFilter](c.copy()) }

// Equal reports whether other has the same shape, counter width and seed and holds the same
// counters, as Filter.Equal does.
func (c *CountingFilter) Equal(other *CountingFilter) (bool, error) { return c.equal(other.base()) }

// Merge adds other's counters to c's, saturating: a multiset sum, so merging a filter with itself
// doubles every count (geometry, width and seed must match, else ErrIncompatible).
func (c *CountingFilter) Merge(other *CountingFilter) error {
	_, err := c.with(other.base(), native.Lfb_union)
	return err
}

// Intersect lowers each of c's counters to other's where that is smaller, so c keeps what both
// hold. Compatibility as for Merge.
func (c *CountingFilter) Intersect(other *CountingFilter) error {
	_, err := c.with(other.base(), native.Lfb_intersect)
	return err
}

// ---- descriptions -------------------------------------------------------------------------------------

// Info describes a filter of any kind (Info, Geometry, Part), as the C library's lfb_info does.
type Info struct {
	Kind             string  // lfb_kind_name's: "classic", "blocked", "counting", "split-block", "one-word", "two-word", "cuckoo", "scalable", "rotating", "swappable"
	SubKind          string  // a layout: its kind; Scalable: its sub-filters'; Rotating: "blocked"; Swappable: its current filter's
	Slots            uint64  // bits, counters, or cuckoo fingerprint slots (composites: summed)
	SlotBits         int     // 1, the counter width 4 or 8, or the fingerprint width 14, 16 or 17
	Hashes           int     // k; 2 for a cuckoo filter (buckets per key)
	Bytes            uint64  // memory of the filter's arrays (composites: summed)
	Capacity         uint64  // keys it was sized for (Scalable: summed over sub-filters; Rotating: per period)
	TargetFPR        float64 // rate it was sized for (composites: the bound on the whole)
	Seed             uint64  // the hash seed
	Parts            int     // 1; Scalable: sub-filters; Rotating: filters in the ring; Swappable: 2 while one is staged
	Generation       uint64  // Rotating: rotations so far; Swappable: replacements so far
	AmbiguousRemoves uint64  // ScalableCuckoo: removes refused with ErrAmbiguous (deferred ones are not)

	// The fill and activity, zero in Geometry's answer.
	SlotsSet          uint64  // bits set, counters above zero, fingerprints stored
	FillRatio         float64 // SlotsSet / Slots (a cuckoo filter's load)
	EstimatedCount    float64 // keys estimated from the fill (Rotating: the current generation's); +Inf when a Bloom filter is full
	ExpectedFPR       float64 // of an absent key now
	NearCapacity      bool    // past 80% of capacity (cuckoo: of its maximum load; Scalable: the newest, with no successor allowed)
	Saturated         uint64  // counting: counters stuck at their maximum
	Kicks             uint64  // cuckoo: fingerprints moved to make room, since creation or load
	FailedAdds        uint64  // cuckoo: adds refused as full
	DuplicateRefusals uint64  // cuckoo: adds refused as too many duplicates
	ReaderRetries     uint64  // cuckoo: queries redone because a writer moved fingerprints meanwhile
	ReaderGaveUp      uint64  // cuckoo: queries answered "maybe" after eight retries
	Items             uint64  // Part of a Scalable: the adds its sub-filter counted as new (cuckoo: copies stored, less those removed)
}

func infoOf(i native.Lfb_info) Info {
	return Info{Kind: kindName(int(i.GetKind())), SubKind: kindName(int(i.GetSub_kind())), Slots: i.GetSlots(),
		SlotBits: int(i.GetSlot_bits()), Hashes: int(i.GetHashes()), Bytes: i.GetBytes(), Capacity: i.GetCapacity(),
		TargetFPR: i.GetTarget_fpr(), Seed: i.GetSeed(), Parts: int(i.GetParts()), Generation: i.GetGeneration(),
		AmbiguousRemoves: i.GetAmbiguous_removes(), SlotsSet: i.GetSlots_set(), FillRatio: i.GetFill_ratio(),
		EstimatedCount: i.GetEstimated_count(), ExpectedFPR: i.GetExpected_fpr(), NearCapacity: i.GetNear_capacity() != 0,
		Saturated: i.GetSaturated(), Kicks: i.GetKicks(), FailedAdds: i.GetFailed_adds(),
		DuplicateRefusals: i.GetDuplicate_refusals(), ReaderRetries: i.GetReader_retries(),
		ReaderGaveUp: i.GetReader_gave_up(), Items: i.GetItems()}
}

// Stats is a snapshot of a filter's parameters and fill, read while others may write: the fields
// of Info that lfbloom 1.0 reported.
type Stats struct {
	Layout         string  // the layout: Info's SubKind ("classic", "blocked", "counting", "cuckoo", ...)
	Slots          uint64  // bits of a bit filter, counters of a counting filter, cuckoo fingerprint slots
	SlotBits       int     // 1, or the counter width 4 or 8; the cuckoo fingerprint width
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

func statsOf(i Info) Stats {
	return Stats{Layout: i.SubKind, Slots: i.Slots, SlotBits: i.SlotBits, Hashes: i.Hashes, Bytes: i.Bytes,
		Capacity: i.Capacity, TargetFPR: i.TargetFPR, SlotsSet: i.SlotsSet, Saturated: i.Saturated, FillRatio: i.FillRatio,
		EstimatedCount: i.EstimatedCount, EstimatedFPR: i.ExpectedFPR, NearCapacity: i.NearCapacity}
}
