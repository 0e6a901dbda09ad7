package lfbloom

import (
	"fmt"
	"math"
	"time"

	"github.com/lfbloom/lfbloom/bindings/go/internal/native"
)

// Cuckoo is a cuckoo filter: 14-, 16- or 17-bit fingerprints, five or four per 64-bit bucket,
// each key in one of two buckets. Like a CountingFilter it removes keys, in a fraction of the
// memory: below a rate of about 0.2% it is smaller than a Filter too (13.6 bits per key at 0.1%,
// 17 at 0.01%, where a 4-bit counting filter needs 124); around 1% and above a Filter is smaller.
//
// No false negatives: a key whose Add happened-before a Test (and that was not removed since) is
// found, also while other goroutines' adds move fingerprints between buckets (a Test validates a
// negative answer against the writers' stripe versions; see core/include/lfbloom/filters/cuckoo_filter.hpp).
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
// when eight copies of the key's fingerprint are stored already (ten with 14-bit fingerprints).
// AddMany then returns a *BatchError whose Done is the refused key's index.
type Cuckoo struct {
	layout
	removal
}

// NewCuckoo returns a cuckoo filter that holds capacity keys with a false-positive rate of at
// most fpr. Options: WithSeed, WithMemoryLimit, WithFingerprintBits. A rate below about 0.003% is
// refused (ErrInvalidArgument): even 17-bit fingerprints would need a load below 50%, where a
// Filter is the better tool.
func NewCuckoo(capacity uint64, fpr float64, opts ...Option) (*Cuckoo, error) {
	o := optionsOf(opts)
	return as[*Cuckoo](o.create(kindCuckoo, capacity, fpr, nil))
}

// Add adds a key: true if no copy of its fingerprint was in its buckets. An error wrapping
// ErrFull or ErrTooManyDuplicates when refused (nothing changed), or ErrClosed.
func (c *Cuckoo) Add(key []byte) (bool, error) { return c.Insert(key) }

// AddString adds the bytes of s, without copying them.
func (c *Cuckoo) AddString(s string) (bool, error) { return c.Insert(keyOfString(s)) }

// AddUint64 adds the 8 little-endian bytes of v.
func (c *Cuckoo) AddUint64(v uint64) (bool, error) { return c.Insert(keyOfUint64(v)) }

func (c *Cuckoo) base() *filter {
	if c == nil {
		return nil
	}
	return c.filter
}

// SetLockTimeout sets how long a writer through c (Add, Remove, their batches, and the saves
// MarshalBinary, WriteTo and Copy, which take every stripe lock) waits for a stripe lock of a
// shared file (OpenCuckooShared) that another handle, in this process or another, holds; a writer
// that waits longer gets an error wrapping ErrTimeout and changed nothing. The default is 60 s.
// d is rounded up to whole milliseconds and capped at math.MaxUint32 ms (about 49 days); below
// 1 ms it is refused with ErrInvalidArgument. A Cuckoo that is not a shared file never waits for
// another handle: the call changes nothing for it (a Copy is private, and has the default again).
//
// Safe to call from any goroutine at any time, unlike lfb_set_lock_timeout in C: it waits until
// the calls in flight on c have returned (a WriteTo whose writer blocks holds it up), and the
// calls after it use the new timeout. The error is ErrInvalidArgument or ErrClosed.
func (c *Cuckoo) SetLockTimeout(d time.Duration) error {
	var err error
	c.h.exclusive(func(p uintptr) uintptr {
		switch {
		case p == 0: // closed: ErrClosed before the argument is looked at, as every method
			err = ErrClosed
		case d < time.Millisecond:
			err = fmt.Errorf("%w: a lock timeout of %v, below 1 ms", ErrInvalidArgument, d)
		default:
			ms := uint64(d / time.Millisecond)
			if d%time.Millisecond != 0 { // rounded up
				ms++
			}
			ms = min(ms, math.MaxUint32)
			_, err = nativeCall(func() int { return native.Lfb_set_lock_timeout(p, uint(ms)) })
		}
		return p
	})
	return err
}

// Copy returns a private copy in this process's memory (not shared, writable, also when c is a
// shared file): the same shape, seed and fingerprints, and a filter of its own from then on. Adds
// and Removes wait while it copies; Tests do not. A filter opened read-only cannot pause its
// file's writers, so its Copy is refused (ErrReadOnly).
func (c *Cuckoo) Copy() (*Cuckoo, error) { return as[*Cuckoo](c.copy()) }

// Equal reports whether other has the same shape, fingerprint width and seed and holds the same
// fingerprints in the same buckets (then every key gets the same answer from both); the sizing
// they were created for is not compared. It reads both tables (O(size)): exact when neither is
// being changed. The error is ErrClosed, or ErrInvalidArgument for a nil other.
func (c *Cuckoo) Equal(other *Cuckoo) (bool, error) { return c.equal(other.base()) }

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

// Stats reads the filter bucket by bucket (O(size)) while others may write: Info's cuckoo fields.
func (c *Cuckoo) Stats() (CuckooStats, error) {
	i, err := c.Info()
	return CuckooStats{Slots: i.Slots, SlotBits: i.SlotBits, Bytes: i.Bytes, Capacity: i.Capacity,
		TargetFPR: i.TargetFPR, Fingerprints: i.SlotsSet, Load: i.FillRatio, ExpectedFPR: i.ExpectedFPR,
		NearCapacity: i.NearCapacity, Kicks: i.Kicks, FailedAdds: i.FailedAdds, DuplicateRefusals: i.DuplicateRefusals,
		ReaderRetries: i.ReaderRetries, ReaderGaveUp: i.ReaderGaveUp}, err
}
