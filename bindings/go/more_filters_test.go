package lfbloom

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestScalableGrowsWithoutFalseNegatives(t *testing.T) {
	s, err := NewScalable(1000, 0.01, ScalableConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var batch [][]byte
	for i := 0; i < 10000; i++ {
		if i%2 == 0 {
			if _, err := s.AddString(fmt.Sprint("key", i)); err != nil {
				t.Fatal(err)
			}
		} else {
			batch = append(batch, []byte(fmt.Sprint("key", i)))
		}
	}
	if _, err := s.AddMany(batch); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 10000; i++ {
		if !s.TestString(fmt.Sprint("key", i)) {
			t.Fatalf("key%d absent", i)
		}
	}
	if n, _ := s.Filters(); n != 4 {
		t.Fatalf("%d sub-filters, want 4 (1000+2000+4000 < 10000 <= 15000)", n)
	}
	var items uint64
	for i := 0; i < 4; i++ {
		sub, err := s.SubFilter(i)
		if err != nil || sub.Stats.Capacity != 1000<<i {
			t.Fatalf("sub-filter %d: %+v %v", i, sub, err)
		}
		items += sub.Items
	}
	if items > 10000 || items < 9800 {
		t.Fatalf("%d items counted", items)
	}
	if _, err := s.SubFilter(4); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("SubFilter(4): %v", err)
	}
	if st, _ := s.Stats(); st.Capacity != 15000 || st.TargetFPR != 0.01 {
		t.Fatalf("stats %+v", st)
	}
}

// Cuckoo sub-filters grow and remove, and defer a remove that could take another key's copy: a
// key added again after a growth has a copy in two sub-filters, and goes with its second remove.
func TestScalableCuckooGrowsAndRemoves(t *testing.T) {
	s, err := NewScalableCuckoo(100, 0.01, ScalableConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i := uint64(0); i < 1000; i++ {
		if _, err := s.AddUint64(i); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := s.Filters(); err != nil || n != 4 {
		t.Fatalf("%d sub-filters (%v), want 4 (100+200+400 < 1000 <= 1500)", n, err)
	}
	if sub, err := s.SubFilter(3); err != nil || sub.Stats.Layout != "cuckoo" || sub.Items != 300 {
		t.Fatalf("sub-filter 3: %+v, %v", sub, err)
	}
	if fresh, err := s.AddUint64(7); err != nil || fresh {
		t.Fatalf("a second copy of 7: new %v, %v", fresh, err)
	}
	if removed, err := s.RemoveUint64(7); !removed || err != nil {
		t.Fatalf("removing 7, in sub-filters 0 and 3 (deferred): %v, %v", removed, err)
	}
	if n, err := s.Count(keyOfUint64(7)); n != 2 || err != nil {
		t.Fatalf("Count(7) = %d, %v: both copies wait", n, err)
	}
	if n, err := s.AmbiguousRemoves(); err != nil || n != 0 {
		t.Fatalf("%d ambiguous removes (%v)", n, err)
	}
	for i := uint64(500); i < 1000; i++ {
		if removed, err := s.RemoveUint64(i); err != nil || !removed {
			t.Fatalf("remove %d: %v %v", i, removed, err)
		}
	}
	for i := uint64(0); i < 500; i++ {
		if !s.TestUint64(i) {
			t.Fatalf("%d absent after other keys' removes", i)
		}
	}
	if removed, err := s.RemoveUint64(7); !removed || err != nil { // its second remove takes both copies
		t.Fatalf("removing 7 again: %v, %v", removed, err)
	}
	if n, err := s.Count(keyOfUint64(7)); n != 0 || err != nil {
		t.Fatalf("Count(7) = %d, %v after its two removes", n, err)
	}
	if !s.TestString("never added") { // matches nowhere: nothing to remove
		if removed, err := s.RemoveString("never added"); err != nil || removed {
			t.Fatalf("remove of an absent key: %v %v", removed, err)
		}
	}
	if _, err := NewScalableCuckoo(100, 0.00005, ScalableConfig{}); !errors.Is(err, ErrInvalidArgument) { // 0.0025% first
		t.Fatalf("a first sub-filter at 0.005%%: %v, want ErrInvalidArgument", err)
	}
	s.Close()
	if _, err := s.RemoveUint64(1); !errors.Is(err, ErrClosed) {
		t.Fatalf("remove after Close: %v", err)
	}
}

func TestScalableFullAtItsCap(t *testing.T) {
	s, err := NewScalable(100, 0.01, ScalableConfig{MaxFilters: 2})
	if err != nil {
		t.Fatal(err)
	}
	var refused uint64
	for i := uint64(0); i < 10000; i++ {
		if _, err := s.AddUint64(i); err != nil {
			if !errors.Is(err, ErrFull) {
				t.Fatal(err)
			}
			refused = i
			break
		}
	}
	if refused == 0 {
		t.Fatal("never full")
	}
	before, _ := s.Stats()
	if _, err := s.AddUint64(refused); !errors.Is(err, ErrFull) {
		t.Fatalf("second refusal: %v", err)
	}
	if after, _ := s.Stats(); after != before || !after.NearCapacity {
		t.Fatalf("stats changed or not near capacity: %+v %+v", before, after)
	}
	for i := uint64(0); i < refused; i++ {
		if !s.TestUint64(i) {
			t.Fatalf("%d absent", i)
		}
	}
	s.Close()
	if _, err := s.Add([]byte("x")); !errors.Is(err, ErrClosed) {
		t.Fatalf("after Close: %v", err)
	}
	for _, c := range []ScalableConfig{{Growth: 0.5}, {Tightening: 1.5}, {MaxFilters: 256}, {MaxFilters: -1}} {
		if _, err := NewScalable(10, 0.01, c); !errors.Is(err, ErrInvalidArgument) {
			t.Fatalf("%+v: %v", c, err)
		}
	}
	if _, err := NewScalable(0, 0.01, ScalableConfig{}); !errors.Is(err, ErrInvalidArgument) {
		t.Fatal(err)
	}
	if _, err := NewScalable(10, 0.01, ScalableConfig{}, WithLayout(Classic)); !errors.Is(err, ErrInvalidArgument) {
		t.Fatal(err)
	}
}

func TestRotatingWindowEdgesWithAManualClock(t *testing.T) {
	for _, dw := range []bool{false, true} {
		r, err := NewRotating(1000, 0.01, RotatingConfig{Period: 10 * time.Second, ManualClock: true, DoubleWrite: dw})
		if err != nil {
			t.Fatal(err)
		}
		r.Tick(3 * time.Second)
		r.AddUint64(42)
		r.Tick(12 * time.Second) // W - W/G = 10 s later, less a hair: present
		if !r.TestUint64(42) {
			t.Fatalf("double write %v: absent inside the window", dw)
		}
		r.Tick(23 * time.Second) // W = 20 s later: gone
		if r.TestUint64(42) {
			t.Fatalf("double write %v: present after the window", dw)
		}
		if n, _ := r.Rotations(); n != 2 {
			t.Fatalf("%d rotations", n)
		}
		if _, err := r.GenerationStats(2); (err == nil) != dw {
			t.Fatalf("double write %v: age 2 gives %v", dw, err)
		}
		if err := r.Tick(-1); !errors.Is(err, ErrInvalidArgument) {
			t.Fatal(err)
		}
		r.Close()
		if err := r.Rotate(); !errors.Is(err, ErrClosed) {
			t.Fatal(err)
		}
	}
	if _, err := NewRotating(10, 0.01, RotatingConfig{Generations: 1}); !errors.Is(err, ErrInvalidArgument) {
		t.Fatal(err)
	}
}

func TestRotatingManualRotation(t *testing.T) {
	r, _ := NewRotating(1000, 0.01, RotatingConfig{Generations: 3})
	defer r.Close()
	r.AddString("k")
	r.Rotate()
	r.Rotate()
	if !r.TestString("k") {
		t.Fatal("absent after G-1 rotations")
	}
	r.Rotate()
	if r.TestString("k") {
		t.Fatal("present after G rotations")
	}
}

func TestSwappableRebuildAndReplace(t *testing.T) {
	first, _ := New(1000, 0.01)
	first.AddString("old")
	h, err := NewSwappable(first)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if _, err := first.AddMany(nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("the handed-over filter is usable: %v", err)
	}
	if _, err := h.AddStaged([]byte("x")); !errors.Is(err, ErrInvalidArgument) {
		t.Fatal(err)
	}
	next, _ := New(5000, 0.01)
	if err := h.Stage(next); err != nil {
		t.Fatal(err)
	}
	h.AddString("during")
	h.AddStaged([]byte("source"))
	if n, err := h.AddManyStaged([][]byte{[]byte("a"), []byte("b")}); n != 2 || err != nil {
		t.Fatal(n, err)
	}
	if h.TestString("source") {
		t.Fatal("staged key visible before Publish")
	}
	if err := h.Publish(); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"source", "during", "a", "b"} {
		if !h.TestString(k) {
			t.Fatalf("%s absent after Publish", k)
		}
	}
	complete, _ := New(100, 0.01)
	complete.AddString("fresh")
	if err := h.Replace(complete); err != nil {
		t.Fatal(err)
	}
	if err := h.Replace(complete); !errors.Is(err, ErrClosed) {
		t.Fatalf("replacing with a handed-over filter: %v", err)
	}
	if err := h.Replace(nil); !errors.Is(err, ErrInvalidArgument) {
		t.Fatal(err)
	}
	if g, _ := h.Generation(); g != 2 || !h.TestString("fresh") || h.TestString("old") {
		t.Fatalf("generation %d", g)
	}
}

// 16 goroutines query a key every filter carries while the handle is replaced 100 times.
func TestSwappableReplacedUnderSixteenReaders(t *testing.T) {
	withAlways := func() *Filter {
		f, _ := New(1000, 0.01)
		f.AddString("always")
		return f
	}
	h, _ := NewSwappable(withAlways())
	defer h.Close()
	var stop atomic.Bool
	var missed atomic.Int64
	var wg sync.WaitGroup
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				if !h.TestString("always") {
					missed.Add(1)
				}
			}
		}()
	}
	for i := 0; i < 100; i++ {
		if err := h.Replace(withAlways()); err != nil {
			t.Fatal(err)
		}
	}
	stop.Store(true)
	wg.Wait()
	if missed.Load() != 0 {
		t.Fatalf("%d misses", missed.Load())
	}
}
