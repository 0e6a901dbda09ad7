package lfbloom

import (
	"math"
	"testing"
	"time"
)

// A period of math.MaxInt64 ns (292 years, the longest time.Duration: a way to say "never") does
// not rotate before the clock gets there: a manual clock starting at 0 reaches the deadline only
// at math.MaxInt64, the real one never. (The C ABI takes periods up to 2^64 - 1 ns, where the
// deadline once wrapped past 2^64 and rotated on every call; Go's int64 durations cannot reach
// the wrap, so this documents the behaviour and the C and C++ tests guard the fix.)
func TestRotatingWithAPeriodOfCenturiesNeverDropsAKey(t *testing.T) {
	for _, manual := range []bool{false, true} {
		r, err := NewRotating(1000, 0.01, RotatingConfig{Period: math.MaxInt64, ManualClock: manual})
		if err != nil {
			t.Fatal(err)
		}
		r.AddUint64(42)
		for i := 0; i < 5; i++ {
			if err := r.Tick(math.MaxInt64 - 1); err != nil {
				t.Fatal(err)
			}
			if !r.TestUint64(42) {
				t.Fatalf("manual clock %v: key gone after %d ticks", manual, i+1)
			}
		}
		if n, _ := r.Rotations(); n != 0 {
			t.Fatalf("manual clock %v: %d rotations", manual, n)
		}
		r.Close()
	}
	// With a period of one second, a tick at the end of Go's time performs G rotations, then
	// none: the next deadline saturates instead of wrapping.
	r, err := NewRotating(1000, 0.01, RotatingConfig{Generations: 3, Period: time.Second, ManualClock: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	r.Tick(math.MaxInt64)
	r.AddUint64(42)
	for i := 0; i < 5; i++ {
		r.Tick(math.MaxInt64)
		if !r.TestUint64(42) {
			t.Fatalf("key gone after %d ticks at the end of time", i+1)
		}
	}
	if n, _ := r.Rotations(); n != 3 {
		t.Fatalf("%d rotations", n)
	}
}
