package lfbloom

import (
	"fmt"

	"github.com/lfbloom/lfbloom/bindings/go/internal/native"
)

// Swappable is a handle whose Filter is replaced atomically by a freshly built one while other
// goroutines keep using it: every call sees the old or the new filter, never a freed one.
// Readers count themselves in per-thread stripes in C; a replacement waits for readers of the old
// filter to leave, then frees it. Adds and Tests never wait.
//
// Rebuilding without a gap: Stage an empty filter, and from then on every Add also goes to it;
// fill it from your source of truth with AddStaged (the source must record each key before it is
// added: insert into the database, then Add), then Publish. No key is missing after the switch.
// Replace swaps in a filter that is already complete.
//
// Filters handed over (NewSwappable, Stage, Replace) belong to the handle afterwards: the
// *Filter passed in is closed. Close frees the current and any staged filter.
type Swappable struct{ *filter }

// NewSwappable returns a handle over initial, which it takes over.
func NewSwappable(initial *Filter) (*Swappable, error) {
	var out uintptr
	if err := handOver(initial, func(f uintptr) int { return native.Lfb_create_swap(f, &out) }); err != nil {
		return nil, err
	}
	return as[*Swappable](out, 0, nil)
}

// Replace makes next (taken over) the filter; it returns once the old one is freed.
func (s *Swappable) Replace(next *Filter) error { return s.adopt(next, native.Lfb_replace) }

// Stage makes every Add also go to next (taken over); a filter staged before is freed.
func (s *Swappable) Stage(next *Filter) error { return s.adopt(next, native.Lfb_stage) }

// AddStaged adds to the staged filter only (the rebuild); ErrInvalidArgument if none is staged.
func (s *Swappable) AddStaged(key []byte) (bool, error) {
	n, err := s.key(opAddStaged, key)
	return n == 1, err
}

// AddManyStaged adds every key to the staged filter in one C call; it returns how many were new to it.
func (s *Swappable) AddManyStaged(keys [][]byte) (uint64, error) {
	return s.batch(opAddStaged, pack(keys), nil)
}

// AddBulkStaged rebuilds the staged filter in bulk: Filter.AddBulk's parallel build of every key
// into the staged filter only (the current one is untouched); ErrInvalidArgument if none is
// staged or threads is negative. Safe beside any other call, as AddBulk.
func (s *Swappable) AddBulkStaged(keys [][]byte, threads int) error {
	return s.bulk(opAddStaged, pack(keys), threads)
}

// Publish makes the staged filter current; it returns once the old one is freed.
func (s *Swappable) Publish() error {
	_, err := s.h.call(native.Lfb_publish)
	return err
}

// Generation returns the number of replacements so far.
func (s *Swappable) Generation() (uint64, error) {
	g, err := s.Geometry()
	return g.Generation, err
}

// adopt hands next to a call on the swap that takes it over (lfb_stage, lfb_replace).
func (s *Swappable) adopt(next *Filter, call func(swap, f uintptr) int) error {
	p, st, ok := s.h.acquire()
	if !ok {
		return ErrClosed
	}
	defer s.h.release(st)
	return handOver(next, func(f uintptr) int { return call(p, f) })
}

// handOver gives f's C filter to a C call that takes it over; if the call refuses it, it is freed
// here (f is closed either way).
func handOver(f *Filter, call func(uintptr) int) error {
	if f == nil {
		return fmt.Errorf("%w: nil filter", ErrInvalidArgument)
	}
	ptr, ok := f.h.detach()
	if !ok {
		return ErrClosed
	}
	_, err := nativeCall(func() int { return call(ptr) })
	if err != nil {
		native.Lfb_free(ptr)
	}
	return err
}
