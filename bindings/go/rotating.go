package lfbloom

import (
	"fmt"
	"time"

	"github.com/lfbloom/lfbloom/bindings/go/internal/native"
)

// Rotating is a Bloom filter whose keys expire: a ring of G generations covering a window
// W = G × Period. Each rotation makes the next generation current after clearing it, so a key
// lives between W − W/G and W. Rotations happen every Period (performed by the first Add or Test
// after the deadline, which never waits for another rotation), on Rotate, or at the times given to
// Tick with a manual clock.
//
// A key is reported present if at most G−1 rotations overlap the time from the start of its Add
// to the end of the Test: with timed rotation, every key added in the last W − W/G. Once G
// rotations have completed after its Add, it is gone (but for false positives). capacity is the
// most keys added in one period; a Test's false-positive rate stays at most fpr.
type Rotating struct{ *filter }

// RotatingConfig tunes NewRotating.
type RotatingConfig struct {
	Generations int           // G, 2..64; 0 means 2
	Period      time.Duration // W / G; 0 rotates only on Rotate
	// DoubleWrite adds to the current and the next generation, so Tests check G−1 generations
	// (one when G = 2): cheaper, more precise tests for twice the writes and more memory.
	DoubleWrite bool
	// ManualClock: time advances only through Tick, in nanoseconds from creation.
	ManualClock bool
}

// NewRotating returns a rotating filter (of blocked generations). Options: WithSeed,
// WithMemoryLimit (the sum over the ring).
func NewRotating(capacity uint64, fpr float64, config RotatingConfig, opts ...Option) (*Rotating, error) {
	o := optionsOf(opts)
	if o.layout != Blocked || config.Period < 0 || config.Generations < 0 || int(uint32(config.Generations)) != config.Generations {
		return nil, fmt.Errorf("%w: rotating filters are blocked, and take no negative generations or period", ErrInvalidArgument)
	}
	var flags uint
	if config.DoubleWrite {
		flags |= rotatingDoubleWrite
	}
	if config.ManualClock {
		flags |= rotatingManualTick
	}
	return as[*Rotating](o.create(kindRotating, capacity, fpr, func(spec native.Lfb_spec) {
		spec.SetGenerations(uint(config.Generations))
		spec.SetPeriod_ns(uint64(config.Period))
		spec.SetRotating_flags(flags)
	}))
}

// Rotate performs one rotation now; it waits only for another rotation in progress.
func (r *Rotating) Rotate() error {
	_, err := r.h.call(native.Lfb_rotate)
	return err
}

// Tick performs the rotations due at now (one per period passed, at most G): CLOCK_MONOTONIC
// nanoseconds, or with ManualClock the caller's, from 0 at creation.
func (r *Rotating) Tick(now time.Duration) error {
	if now < 0 {
		return fmt.Errorf("%w: negative time", ErrInvalidArgument)
	}
	_, err := r.h.call(func(p uintptr) int { return native.Lfb_tick(p, uint64(now)) })
	return err
}

// Rotations returns the number of rotations so far.
func (r *Rotating) Rotations() (uint64, error) {
	g, err := r.Geometry()
	return g.Generation, err
}

// GenerationStats describes generation age: 0 current, 1 the one before, ...; with DoubleWrite
// the last (age G) is the next generation. Part(age) has all its fields.
func (r *Rotating) GenerationStats(age int) (Stats, error) {
	i, err := r.Part(age)
	return statsOf(i), err
}

// Stats is GenerationStats(0): the current generation's.
func (r *Rotating) Stats() (Stats, error) { return r.GenerationStats(0) }
