package lfbloom

import (
	"fmt"

	"github.com/lfbloom/lfbloom/bindings/go/internal/native"
)

// Cuckoo is a cuckoo filter: 14-, 16- or 17-bit fingerprints, five or four per 64-bit bucket,
// each key in one of two buckets. Like a CountingFilter it removes keys, in a fraction of the
// memory: below a rate of about 0.2% it is smaller than a Filter too (13.6 bits per key at 0.1%,
// 17 at 0.01%, where a 4-bit counting filter needs 124); around 1% and above a Filter is smaller.
//
// No false negatives: a key whose Add happened-before a Test (and that was not removed since) is
// found, also while other goroutines' adds move fingerprints between buckets (a Test validates a
// negative answer against the writers' stripe versions; see core/include/lfbloom/cuckoo_filter.hpp).
// Removing a key never added can remove another key's fingerprint, a false negative for that
// key, as in every cuckoo and counting filter.
//
// Every method may be called from any number of goroutines at once. Tests never lock or wait;
// Adds and Removes lock one stripe of buckets at a time, and wait while MarshalBinary copies.
// Close and the closed rule are the package's: Test panics after Close, the rest return ErrClosed.
//
// An Add can be refused, and a refused Add changed nothing and lost nothing: ErrFull when no free
// slot was found within the search bound (the filter is near its maximum load, about 94%, or the
// key's two buckets are held by eight copies of another key's fingerprint), ErrTooManyDuplicates
// when eight copies of the key's fingerprint are stored already (ten with 14-bit fingerprints). AddMany then returns a
// *BatchError whose Done is the refused key's index.
type Cuckoo struct{ codec }

const kindCuckoo = 7 // LFB_KIND_CUCKOO

var cuckooFns = &nativeFns{
	add: opHandleAdd, contains: opHandleContains, addMany: opHandleAddMany, containsMany: opHandleContainsMany,
	serializedSize: func(p uintptr, size *uint64) int { return native.Lfb_serialized_size(p, 1, size) },
	save:           func(p uintptr, out []byte, n *uint64) int { return native.Lfb_save(p, 1, out, n) },
	load:           func(data []byte, _ []uint64, out *uintptr) int { return native.Lfb_load(1, data, 0, out) },
	free:           native.Lfb_free, kind: kindCuckoo,
}

// NewCuckoo returns a cuckoo filter that holds capacity keys with a false-positive rate of at
// most fpr. Options: WithSeed, WithMemoryLimit, WithFingerprintBits. A rate below about 0.003% is
// refused (ErrInvalidArgument): even 17-bit fingerprints would need a load below 50%, where a
// Filter is the better tool.
func NewCuckoo(capacity uint64, fpr float64, opts ...Option) (*Cuckoo, error) {
	return newCuckoo(capacity, fpr, opts, func(spec native.Lfb_spec, p *uintptr) int { return native.Lfb_create(spec, p) })
}

// OpenCuckooShared returns the cuckoo filter in the shared file path, which several processes
// (Go, a JVM, C) map and use at once; the file is created for (capacity, fpr) and the options if
// it does not exist, with mode 0666 less the umask. Of processes racing to open one path, one
// creates it and all share its filter. An existing file must hold the filter these arguments
// make, else an error wrapping ErrIncompatible.
//
// The stripe locks live in the file. A process that dies holding one (killed mid-Add) stops other
// processes' Adds and Removes on that stripe only until it has ended; they then
// take the lock over, and nothing is lost. Every process writing the file must run in one pid
// namespace (one container): the file records it, and others get ErrIncompatible.
func OpenCuckooShared(path string, capacity uint64, fpr float64, opts ...Option) (*Cuckoo, error) {
	return newCuckoo(capacity, fpr, opts, func(spec native.Lfb_spec, p *uintptr) int {
		return native.Lfb_open_shared(path, spec, sharedCreate, 0666, p)
	})
}

const sharedCreate = 1 // LFB_SHARED_CREATE

func newCuckoo(capacity uint64, fpr float64, opts []Option, make func(native.Lfb_spec, *uintptr) int) (*Cuckoo, error) {
	o := nativeOptions(opts)
	spec := newSpec(kindCuckoo, capacity, fpr)
	defer native.DeleteLfb_spec(spec)
	spec.SetMemory_limit(o[1])
	spec.SetSeed(o[2])
	spec.SetCounter_bits(uint(o[3])) // the fingerprint width; the default 4 asks for the fewest bytes
	var p uintptr
	if _, err := nativeCall(func() int { return make(spec, &p) }); err != nil {
		return nil, err
	}
	return &Cuckoo{codec{newKeyed(p, cuckooFns)}}, nil
}

// Flush writes a shared file's pages to disk (msync): durability across a machine crash only.
func (c *Cuckoo) Flush() error {
	_, err := c.h.call(native.Lfb_flush)
	return err
}

// Add adds a key: true if no copy of its fingerprint was in its buckets. An error wrapping
// ErrFull or ErrTooManyDuplicates when refused (nothing changed), or ErrClosed.
func (c *Cuckoo) Add(key []byte) (bool, error) {
	r, err := c.h.callKey(opHandleAdd, key)
	return r == 1, err
}

// AddString adds the bytes of s, without copying them.
func (c *Cuckoo) AddString(s string) (bool, error) { return c.Add(keyOfString(s)) }

// AddUint64 adds the 8 little-endian bytes of v.
func (c *Cuckoo) AddUint64(v uint64) (bool, error) { return c.Add(keyOfUint64(v)) }

// Remove removes one copy of the key's fingerprint: true if one was there, false (nothing
// changed) if not. The error is ErrClosed or nil.
func (c *Cuckoo) Remove(key []byte) (bool, error) {
	r, err := c.h.callKey(opHandleRemove, key)
	return r == 1, err
}

// RemoveString removes one copy of the bytes of s.
func (c *Cuckoo) RemoveString(s string) (bool, error) { return c.Remove(keyOfString(s)) }

// RemoveUint64 removes one copy of the 8 little-endian bytes of v.
func (c *Cuckoo) RemoveUint64(v uint64) (bool, error) { return c.Remove(keyOfUint64(v)) }

// AddMany adds every key in one C call and returns how many were new. If one is refused, the
// error is a *BatchError: the keys before its Done were added, the rest were not.
func (c *Cuckoo) AddMany(keys [][]byte) (uint64, error) { return c.keyed.AddMany(keys) }

// RemoveMany removes one copy of each key, in order, in one C call; element i is what
// Remove(keys[i]) would have returned.
func (c *Cuckoo) RemoveMany(keys [][]byte) ([]bool, error) {
	return c.answerEach(opHandleRemoveMany, keys)
}

// Count returns the copies of the key's fingerprint in its two buckets (0 to 8); 0 means
// certainly absent.
func (c *Cuckoo) Count(key []byte) (int, error) {
	return c.h.callKey(opHandleCount, key)
}

// Copy returns a private copy in this process's memory (not shared, writable, also when c is a
// shared file): the same shape, seed and fingerprints, and a filter of its own from then on. Adds
// and Removes wait while it copies; Tests do not.
func (c *Cuckoo) Copy() (*Cuckoo, error) {
	var out uintptr
	if _, err := c.h.call(func(p uintptr) int { return native.Lfb_copy(p, &out) }); err != nil {
		return nil, err
	}
	return &Cuckoo{codec{newKeyed(out, cuckooFns)}}, nil
}

// Equal reports whether other has the same shape, fingerprint width and seed and holds the same
// fingerprints in the same buckets (then every key gets the same answer from both); the sizing
// they were created for is not compared. It reads both tables (O(size)): exact when neither is
// being changed. The error is ErrClosed, or ErrInvalidArgument for a nil other.
func (c *Cuckoo) Equal(other *Cuckoo) (bool, error) {
	if other == nil {
		return false, fmt.Errorf("%w: compared with a nil filter", ErrInvalidArgument)
	}
	r, err := c.h.callWith(&other.h, func(p, o uintptr) int { return native.Lfb_equal(p, o) })
	return r == 1, err
}

// CuckooStats is a snapshot of a Cuckoo's parameters, load and activity.
type CuckooStats struct {
	Slots             uint64  // fingerprint slots, 4 per bucket (5 with 14-bit fingerprints)
	SlotBits          int     // the fingerprint width, 14, 16 or 17: the bucket format
	Bytes             uint64  // memory of the table
	Capacity          uint64  // keys it was sized for
	TargetFPR         float64 // rate it was sized for
	Fingerprints      uint64  // stored
	Load              float64 // Fingerprints / Slots
	ExpectedFPR       float64 // of an absent key now
	NearCapacity      bool    // past 80% of the maximum load (94%)
	Kicks             uint64  // fingerprints moved to make room, since creation or load
	FailedAdds        uint64  // adds refused as full
	DuplicateRefusals uint64  // adds refused as too many duplicates
	ReaderRetries     uint64  // Tests redone because a writer moved fingerprints meanwhile
	ReaderGaveUp      uint64  // Tests that answered "maybe" after eight retries
}

// Stats reads the filter bucket by bucket (O(size)) while others may write.
func (c *Cuckoo) Stats() (CuckooStats, error) {
	info := native.NewLfb_info()
	defer native.DeleteLfb_info(info)
	if _, err := c.h.call(func(p uintptr) int { return native.Lfb_info_get(p, info) }); err != nil {
		return CuckooStats{}, err
	}
	return CuckooStats{Slots: info.GetSlots(), SlotBits: int(info.GetSlot_bits()), Bytes: info.GetBytes(), Capacity: info.GetCapacity(),
		TargetFPR: info.GetTarget_fpr(), Fingerprints: info.GetSlots_set(), Load: info.GetFill_ratio(),
		ExpectedFPR: info.GetExpected_fpr(), NearCapacity: info.GetNear_capacity() != 0, Kicks: info.GetKicks(),
		FailedAdds: info.GetFailed_adds(), DuplicateRefusals: info.GetDuplicate_refusals(),
		ReaderRetries: info.GetReader_retries(), ReaderGaveUp: info.GetReader_gave_up()}, nil
}
