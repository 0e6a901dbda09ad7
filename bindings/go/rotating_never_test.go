package lfbloom

import (
	"math"
	"testing"
	"time"
)

// A period of math.MaxInt64 ns (292 years, the longest time.Duration: a way to say "never") and
// ticks at the end of time never rotate, with the real clock or a manual one. (The C ABI takes
// periods up to 2^64 - 1 ns, where the deadline once wrapped and rotated on every call; the
// core now saturates it.)
func TestRotatingWithAPeriodOfCenturiesNeverDropsAKey(t *testing.T) {
	for _, manual := range []bool{false, true} {
		r, err := NewRotating(1000, 0.01, RotatingConfig{Period: math.MaxInt64, ManualClock: manual})
		if err != nil {
			t.Fatal(err)
		}
		r.AddUint64(42)
		for i := 0; i < 5; i++ {
			if err := r.Tick(math.MaxInt64); err != nil {
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
	// With a period of one second, a tick at the end of time performs G rotations, then none.
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
