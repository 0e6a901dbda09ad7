package lfbloom

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"testing"
)

func TestEveryKeyKindRoundTrips(t *testing.T) {
	for _, layout := range []Layout{Blocked, Classic} {
		f, err := New(10000, 0.01, WithLayout(layout))
		if err != nil {
			t.Fatal(err)
		}
		if !f.AddString("héllo") || f.AddString("héllo") {
			t.Errorf("layout %d: first add must be new, the second not", layout)
		}
		if !f.Test([]byte("héllo")) || !f.TestString("héllo") {
			t.Errorf("layout %d: added string absent", layout)
		}
		f.AddUint64(42)
		if !f.TestUint64(42) || !f.Test([]byte{42, 0, 0, 0, 0, 0, 0, 0}) {
			t.Errorf("layout %d: integers must be their 8 little-endian bytes", layout)
		}
		if f.TestString("never added") || f.TestUint64(43) {
			t.Errorf("layout %d: unexpected false positive", layout)
		}
		f.Add(nil) // the empty key
		if !f.Test([]byte{}) {
			t.Errorf("layout %d: empty key absent", layout)
		}
		f.Close()
	}
}

func TestBatchCallsAgreeWithSingleCalls(t *testing.T) {
	batch, _ := New(10000, 0.01)
	single, _ := New(10000, 0.01)
	defer batch.Close()
	defer single.Close()
	var keys [][]byte
	for i := 0; i < 1000; i++ {
		keys = append(keys, []byte(fmt.Sprintf("key%d", i)))
	}
	added, err := batch.AddMany(keys[:500])
	if err != nil || added != 500 {
		t.Fatalf("AddMany: %d, %v", added, err)
	}
	for _, k := range keys[:500] {
		single.Add(k)
	}
	found, err := batch.TestMany(keys)
	if err != nil {
		t.Fatal(err)
	}
	for i, k := range keys {
		if found[i] != single.Test(k) || (i < 500 && !found[i]) {
			t.Fatalf("key %d: batch %v, single %v", i, found[i], single.Test(k))
		}
	}
	if n, err := batch.AddMany(nil); n != 0 || err != nil {
		t.Errorf("empty batch: %d, %v", n, err)
	}
}

func TestStatsAndClear(t *testing.T) {
	f, _ := New(100000, 0.01)
	defer f.Close()
	for i := uint64(0); i < 50000; i++ {
		f.AddUint64(i)
	}
	s, err := f.Stats()
	if err != nil {
		t.Fatal(err)
	}
	if s.Layout != "blocked" || s.Capacity != 100000 || s.TargetFPR != 0.01 || s.SlotBits != 1 || s.NearCapacity {
		t.Errorf("stats: %+v", s)
	}
	if math.Abs(s.EstimatedCount-50000) > 2500 || s.EstimatedFPR >= 0.01 {
		t.Errorf("estimates: %+v", s)
	}
	if err := f.Clear(); err != nil {
		t.Fatal(err)
	}
	if s, _ := f.Stats(); s.SlotsSet != 0 {
		t.Errorf("not empty after Clear: %d", s.SlotsSet)
	}
}

func TestMergeAndIncompatibleFilters(t *testing.T) {
	a, _ := New(1000, 0.01)
	b, _ := New(1000, 0.01)
	other, _ := New(5000, 0.01)
	seeded, _ := New(1000, 0.01, WithSeed(7))
	for _, f := range []*Filter{a, b, other, seeded} {
		defer f.Close()
	}
	b.AddString("from b")
	if err := a.Merge(b); err != nil || !a.TestString("from b") {
		t.Fatalf("merge: %v", err)
	}
	for _, bad := range []*Filter{other, seeded} {
		if err := a.Merge(bad); !errors.Is(err, ErrIncompatible) {
			t.Errorf("merge of an incompatible filter: %v", err)
		}
	}
	if err := a.Merge(nil); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("merge with nil: %v", err)
	}
}

func TestBadArgumentsAreSentinelErrors(t *testing.T) {
	cases := []struct {
		name string
		err  error
		want error
	}{}
	add := func(name string, want error, make func() error) {
		cases = append(cases, struct {
			name string
			err  error
			want error
		}{name, make(), want})
	}
	add("capacity 0", ErrInvalidArgument, func() error { _, err := New(0, 0.01); return err })
	add("rate 0", ErrInvalidArgument, func() error { _, err := New(10, 0); return err })
	add("rate 1", ErrInvalidArgument, func() error { _, err := New(10, 1); return err })
	add("rate NaN", ErrInvalidArgument, func() error { _, err := New(10, math.NaN()); return err })
	add("layout 9", ErrInvalidArgument, func() error { _, err := New(10, 0.01, WithLayout(9)); return err })
	add("memory limit", ErrTooLarge, func() error { _, err := New(100000000, 0.01, WithMemoryLimit(1<<20)); return err })
	add("absurd", ErrTooLarge, func() error { _, err := New(1<<62, 0.01); return err })
	add("counter bits 5", ErrInvalidArgument, func() error { _, err := NewCounting(10, 0.01, WithCounterBits(5)); return err })
	add("corrupt data", ErrCorrupt, func() error { f, _ := New(10, 0.01); defer f.Close(); return f.UnmarshalBinary([]byte("garbage")) })
	add("empty data", ErrCorrupt, func() error { f, _ := New(10, 0.01); defer f.Close(); return f.UnmarshalBinary(nil) })
	for _, c := range cases {
		if !errors.Is(c.err, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, c.err, c.want)
		}
	}
}

func TestUseAfterCloseNeverCrashes(t *testing.T) {
	f, _ := New(100, 0.01)
	f.AddString("x")
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil { // idempotent
		t.Fatal(err)
	}
	if _, err := f.Stats(); !errors.Is(err, ErrClosed) {
		t.Errorf("Stats after Close: %v", err)
	}
	if _, err := f.AddMany([][]byte{{1}}); !errors.Is(err, ErrClosed) {
		t.Errorf("AddMany after Close: %v", err)
	}
	if _, err := f.MarshalBinary(); !errors.Is(err, ErrClosed) {
		t.Errorf("MarshalBinary after Close: %v", err)
	}
	for name, call := range map[string]func(){"Add": func() { f.AddString("x") }, "Test": func() { f.TestString("x") }} {
		func() {
			defer func() {
				if r := recover(); r == nil || !bytes.Contains([]byte(fmt.Sprint(r)), []byte(name+" called on a closed")) {
					t.Errorf("%s after Close must panic with a clear message, got %v", name, r)
				}
			}()
			call()
		}()
	}
}

// RemoveMany answers as Remove would, key by key in order, in one call; after Close, ErrClosed.
func TestCountingRemoveMany(t *testing.T) {
	c, err := NewCounting(10000, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	c.AddString("twice")
	c.AddString("twice")
	c.AddString("once")
	keys := [][]byte{[]byte("twice"), []byte("once"), []byte("once"), []byte("never added"), []byte("twice"), []byte("twice")}
	got, err := c.RemoveMany(keys)
	if want := []bool{true, true, false, false, true, false}; err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("RemoveMany: %v %v, want %v", got, err, want)
	}
	if s, _ := c.Stats(); s.SlotsSet != 0 {
		t.Errorf("%d counters left after removing every copy", s.SlotsSet)
	}
	if got, err := c.RemoveMany(nil); err != nil || len(got) != 0 {
		t.Errorf("RemoveMany(nil): %v %v", got, err)
	}
	c.Close()
	if _, err := c.RemoveMany(keys); !errors.Is(err, ErrClosed) {
		t.Errorf("RemoveMany after Close: %v", err)
	}
}

// Goroutines hammer a filter while another closes it: every call completes or reports the close.
func TestCloseRacingWithUse(t *testing.T) {
	for round := 0; round < 20; round++ {
		f, _ := New(10000, 0.01)
		var wg sync.WaitGroup
		for g := 0; g < 4; g++ {
			wg.Add(1)
			go func(g int) {
				defer wg.Done()
				defer func() { recover() }() // Add/Test panic once closed; that is the contract
				for i := uint64(0); ; i++ {
					f.AddUint64(uint64(g)<<32 | i)
					f.TestUint64(i)
				}
			}(g)
		}
		f.Close()
		wg.Wait()
	}
}

// 16 goroutines share one filter; readers check only keys whose add happened-before (atomic handoff).
func TestSixteenGoroutinesWithoutFalseNegatives(t *testing.T) {
	const writers, readers, perWriter = 8, 8, 20000
	f, _ := New(writers*perWriter, 0.01)
	defer f.Close()
	var published [writers]atomic.Uint64
	var done atomic.Bool
	var falseNegatives, checks atomic.Uint64
	var writersDone, readersDone sync.WaitGroup
	for w := 0; w < writers; w++ {
		writersDone.Add(1)
		go func(w int) {
			defer writersDone.Done()
			for i := uint64(0); i < perWriter; i++ {
				f.AddUint64(uint64(w)<<32 | i)
				published[w].Store(i + 1) // the add happens-before any reader that loads this
			}
		}(w)
	}
	for r := 0; r < readers; r++ {
		readersDone.Add(1)
		go func(r int) {
			defer readersDone.Done()
			for i := 0; !done.Load(); i++ {
				w := (r + i) % writers
				n := published[w].Load()
				if n == 0 {
					continue
				}
				if !f.TestUint64(uint64(w)<<32 | (n - 1)) {
					falseNegatives.Add(1)
				}
				checks.Add(1)
			}
		}(r)
	}
	writersDone.Wait()
	done.Store(true)
	readersDone.Wait()
	if falseNegatives.Load() != 0 || checks.Load() == 0 {
		t.Fatalf("%d false negatives in %d checks", falseNegatives.Load(), checks.Load())
	}
	for w := uint64(0); w < writers; w++ {
		for i := uint64(0); i < perWriter; i++ {
			if !f.TestUint64(w<<32 | i) {
				t.Fatalf("writer %d key %d absent", w, i)
			}
		}
	}
}

func TestCountingAddRemove(t *testing.T) {
	c, err := NewCounting(1000, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.AddString("k")
	c.AddString("k")
	if n, _ := c.Count([]byte("k")); n != 2 {
		t.Errorf("count %d, want 2", n)
	}
	for i := 0; i < 2; i++ {
		if ok, err := c.RemoveString("k"); !ok || err != nil {
			t.Fatalf("remove %d: %v, %v", i, ok, err)
		}
	}
	if c.TestString("k") {
		t.Error("present after removing every copy")
	}
	if ok, err := c.RemoveString("k"); ok || err != nil { // an answer, not an error
		t.Errorf("removing an absent key: %v, %v", ok, err)
	}
	c.AddUint64(7)
	if ok, err := c.RemoveUint64(7); !ok || err != nil || c.TestUint64(7) {
		t.Errorf("RemoveUint64: %v, %v", ok, err)
	}
	for i := 0; i < 20; i++ {
		c.AddString("hot")
	}
	if n, _ := c.Count([]byte("hot")); n != 15 {
		t.Errorf("4-bit counters saturate at 15, got %d", n)
	}
	d, _ := NewCounting(1000, 0.01)
	defer d.Close()
	d.AddString("hot")
	if err := c.Merge(d); err != nil {
		t.Fatal(err)
	}
	wide, _ := NewCounting(1000, 0.01, WithCounterBits(8))
	defer wide.Close()
	if err := c.Merge(wide); !errors.Is(err, ErrIncompatible) {
		t.Errorf("merge of another width: %v", err)
	}
}

func TestMarshalWriteToAndReadFrom(t *testing.T) {
	f, _ := New(1000, 0.01, WithLayout(Classic))
	defer f.Close()
	for i := uint64(0); i < 100; i++ {
		f.AddUint64(i)
	}
	var buf bytes.Buffer
	if _, err := f.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	encoded := append([]byte(nil), buf.Bytes()...)
	g, _ := New(10, 0.5)
	defer g.Close()
	if _, err := g.ReadFrom(&buf); err != nil {
		t.Fatal(err)
	}
	for i := uint64(0); i < 100; i++ {
		if !g.TestUint64(i) {
			t.Fatalf("key %d absent after ReadFrom", i)
		}
	}
	if s, _ := g.Stats(); s.Layout != "classic" {
		t.Errorf("layout after ReadFrom: %s", s.Layout)
	}
	corrupt := append([]byte(nil), encoded...)
	corrupt[len(corrupt)/2] ^= 1
	if err := g.UnmarshalBinary(corrupt); !errors.Is(err, ErrCorrupt) {
		t.Errorf("corrupt data: %v", err)
	}
	if !g.TestUint64(5) {
		t.Error("a failed UnmarshalBinary must leave the filter as it was")
	}
	if _, err := g.ReadFrom(bytes.NewReader(encoded[:len(encoded)-3])); !errors.Is(err, ErrCorrupt) {
		t.Errorf("truncated stream: %v", err)
	}
	c, _ := NewCounting(100, 0.01)
	defer c.Close()
	if err := c.UnmarshalBinary(encoded); !errors.Is(err, ErrIncompatible) {
		t.Errorf("a bit filter into a counting filter: %v", err)
	}
}

func TestSharedFilesAreSeenByEveryHandle(t *testing.T) {
	path := t.TempDir() + "/shared.lfb"
	a, err := NewShared(path, 10000, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := OpenShared(path)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	a.AddString("from a")
	if !b.TestString("from a") {
		t.Error("an add through one handle is not seen through the other")
	}
	if err := b.Flush(); err != nil {
		t.Fatal(err)
	}
	if _, err := NewShared(path, 10, 0.01); !errors.Is(err, ErrIO) {
		t.Errorf("creating over an existing file: %v", err)
	}
	if _, err := OpenShared(t.TempDir() + "/missing"); !errors.Is(err, ErrIO) {
		t.Errorf("opening a missing file: %v", err)
	}
}
