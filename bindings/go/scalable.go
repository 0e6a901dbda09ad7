package lfbloom

import (
	"fmt"

	"github.com/lfbloom/lfbloom/bindings/go/internal/native"
)

// Scalable is a Bloom filter that grows when more keys arrive than expected: a list of
// sub-filters, each growth times larger than the last with a rate tightening times smaller, so
// the total false-positive rate stays below the configured one however many there are (the sum
// fpr·(1−r)·(1 + r + r² + …) is below fpr). Adds go to the newest (cuckoo: the oldest with room);
// tests check all of them.
//
// Growth is lock-free: no goroutine waits, one successor is installed per sub-filter, and a key
// whose Add happened-before a Test is found, also while the filter grows. At the cap on
// sub-filters or memory, Add of a new key returns an error wrapping ErrFull and changes nothing;
// AddMany then returns a *BatchError whose Done is the refused key's index.
type Scalable struct{ *filter }

// ScalableConfig tunes NewScalable; zero fields take the defaults.
type ScalableConfig struct {
	Growth     float64 // capacity ratio of consecutive sub-filters, in [1, 2^32]; default 2
	Tightening float64 // rate ratio of consecutive sub-filters, in (0, 1); default 0.5
	MaxFilters int     // cap on sub-filters, 1..255 (cuckoo sub-filters: 1..64); default 32
}

// NewScalable returns a filter starting at initialCapacity keys whose total false-positive rate
// stays below fpr. Options: WithSeed, and WithMemoryLimit capping the sum of sub-filters.
func NewScalable(initialCapacity uint64, fpr float64, config ScalableConfig, opts ...Option) (*Scalable, error) {
	o := optionsOf(opts)
	return newScalable[*Scalable](&o, int(o.layout), initialCapacity, fpr, config)
}

func newScalable[T Interface](o *options, subKind int, capacity uint64, fpr float64, config ScalableConfig) (T, error) {
	if config.MaxFilters < 0 || int(uint32(config.MaxFilters)) != config.MaxFilters {
		var zero T
		return zero, fmt.Errorf("%w: MaxFilters %d", ErrInvalidArgument, config.MaxFilters)
	}
	return as[T](o.create(kindScalable, capacity, fpr, func(spec native.Lfb_spec) {
		spec.SetSub_kind(uint(subKind))
		spec.SetGrowth(config.Growth)
		spec.SetTightening(config.Tightening)
		spec.SetMax_filters(uint(config.MaxFilters))
	}))
}

// Add adds a key: true if it was new, false if some sub-filter already reports it. An error
// wrapping ErrFull (nothing changed) at the cap, or ErrClosed.
func (s *Scalable) Add(key []byte) (bool, error) { return s.Insert(key) }

// AddString adds the bytes of s.
func (s *Scalable) AddString(key string) (bool, error) { return s.Insert(keyOfString(key)) }

// AddUint64 adds the 8 little-endian bytes of v.
func (s *Scalable) AddUint64(v uint64) (bool, error) { return s.Insert(keyOfUint64(v)) }

// Filters returns the number of sub-filters so far (at least 1).
func (s *Scalable) Filters() (int, error) {
	g, err := s.Geometry()
	return g.Parts, err
}

// SubFilter describes one sub-filter, as RedisBloom's BF.INFO lists them.
type SubFilter struct {
	Stats Stats
	Items uint64 // adds it counted as new (cuckoo: copies stored in it, less those removed)
}

// SubFilter returns sub-filter index (0 the oldest); Part(index) has all its fields.
func (s *Scalable) SubFilter(index int) (SubFilter, error) {
	i, err := s.Part(index)
	if err != nil {
		return SubFilter{}, err
	}
	return SubFilter{statsOf(i), i.Items}, nil
}

// ScalableCuckoo is a Scalable of cuckoo sub-filters: it grows as Scalable does, and removes keys.
// Their fingerprints (17 bits at most) reach no rate below about 0.003%, so the chain ends (ErrFull)
// at the first sub-filter that would need a lower one: 5 sub-filters at fpr 0.1% with the default
// Tightening 0.5, more with 0.8-0.9. Each sub-filter takes the fingerprint width with the fewest
// bytes for its rate.
//
// Add stores a copy of the key even if it is present (true: no sub-filter matched it before), so
// a key added twice must be removed twice. The copy goes to the sub-filter already holding the
// key if that has room, else to the oldest below its capacity, so the room removes free takes
// later adds and under churn the chain grows only while the live set outgrows it; a sub-filter
// with no free slot passes the add on to a later or a new one. It returns an error wrapping
// ErrTooManyDuplicates for the ninth copy (the eleventh at 14-bit fingerprints) in one
// sub-filter; at the cap an Add no sub-filter has room for returns ErrFull. No false negative
// for a key added (and not removed) before a Test, while other goroutines add, remove and grow
// it. Call Remove only after the Add it cancels has returned: removing a key never added, or one
// whose Add is still under way, can remove another key's copy, and here for good (the late Add
// lands in another sub-filter). A key that matches in two sub-filters (its own second copy after
// a growth, or another key of the same fingerprint and buckets there) cannot lose a copy at once,
// since the copy taken could be the other key's: Remove defers it and returns (true, nil), done
// (do not repeat it), and the key stays, a false positive, until it matches in one sub-filter
// (mostly once the other key is removed), or its own two copies are both removed; an Add of the
// key meanwhile takes the waiting remove instead of storing a copy. Only with too many removes
// waiting already (max(64, capacity / 256)) is one refused: its error wraps ErrAmbiguous, and the
// key stays. Removes block only on writers of the same bucket stripe, and to defer on the
// filter's list of waiting removes.
type ScalableCuckoo struct{ *Scalable }

// NewScalableCuckoo returns a ScalableCuckoo starting at initialCapacity keys whose total
// false-positive rate stays below fpr. Options: WithSeed and WithMemoryLimit.
func NewScalableCuckoo(initialCapacity uint64, fpr float64, config ScalableConfig, opts ...Option) (*ScalableCuckoo, error) {
	o := optionsOf(opts)
	return newScalable[*ScalableCuckoo](&o, kindCuckoo, initialCapacity, fpr, config)
}

// The removes of every Remover (removal, in filter.go), delegated one by one rather than
// embedded, so that ScalableCuckoo's struct keeps its one field, *Scalable, as before.

// Remove removes one copy of the key, or defers it (see the type's documentation, and for ErrAmbiguous).
func (s *ScalableCuckoo) Remove(key []byte) (bool, error) { return removal{s.filter}.Remove(key) }

// RemoveString removes one copy of the bytes of key.
func (s *ScalableCuckoo) RemoveString(key string) (bool, error) {
	return removal{s.filter}.RemoveString(key)
}

// RemoveUint64 removes one copy of the 8 little-endian bytes of v.
func (s *ScalableCuckoo) RemoveUint64(v uint64) (bool, error) {
	return removal{s.filter}.RemoveUint64(v)
}

// RemoveMany removes one copy of each key, in order, in one C call; element i is what
// Remove(keys[i]) would have returned. A remove refused as ambiguous stops the batch: the answers
// of the keys before it come with a *BatchError.
func (s *ScalableCuckoo) RemoveMany(keys [][]byte) ([]bool, error) {
	return removal{s.filter}.RemoveMany(keys)
}

// RemoveStrings is RemoveMany for the bytes of each string.
func (s *ScalableCuckoo) RemoveStrings(keys []string) ([]bool, error) {
	return removal{s.filter}.RemoveStrings(keys)
}

// RemoveUint64s is RemoveMany for the 8 little-endian bytes of each integer.
func (s *ScalableCuckoo) RemoveUint64s(keys []uint64) ([]bool, error) {
	return removal{s.filter}.RemoveUint64s(keys)
}

// Count returns the copies of the key's fingerprint in its buckets, summed over sub-filters; 0
// means certainly absent.
func (s *ScalableCuckoo) Count(key []byte) (int, error) { return removal{s.filter}.Count(key) }

// AmbiguousRemoves returns how many removes were refused with ErrAmbiguous so far (deferred ones are not).
func (s *ScalableCuckoo) AmbiguousRemoves() (uint64, error) {
	g, err := s.Geometry()
	return g.AmbiguousRemoves, err
}
