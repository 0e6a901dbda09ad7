package lfbloom

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func cuckooKeys(prefix string, n int) [][]byte {
	keys := make([][]byte, n)
	for i := range keys {
		keys[i] = []byte(fmt.Sprintf("%s%d", prefix, i))
	}
	return keys
}

func TestCuckooAddTestRemove(t *testing.T) {
	c, err := NewCuckoo(10_000, 0.001)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	keys := cuckooKeys("k", 5000)
	fresh, err := c.AddMany(keys)
	if err != nil || fresh < 4990 || fresh > 5000 {
		t.Fatalf("AddMany: %d new, %v", fresh, err)
	}
	found, err := c.TestMany(keys)
	if err != nil {
		t.Fatal(err)
	}
	for i, k := range keys {
		if !c.Test(k) || !found[i] {
			t.Fatalf("false negative for %q", k)
		}
	}
	s, err := c.Stats()
	if err != nil || s.Fingerprints != 5000 || s.Slots%4 != 0 || s.Load != float64(5000)/float64(s.Slots) {
		t.Fatalf("stats %+v, %v", s, err)
	}
	removed, err := c.RemoveMany(keys[:2500])
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range removed {
		if !r {
			t.Fatal("RemoveMany missed a key that was added")
		}
	}
	for _, k := range keys[2500:] {
		if ok, err := c.Remove(k); !ok || err != nil {
			t.Fatalf("Remove(%q) = %v, %v", k, ok, err)
		}
	}
	if ok, err := c.RemoveString("k1"); ok || err != nil { // an answer, not an error
		t.Fatalf("Remove of an absent key = %v, %v", ok, err)
	}
	if s, _ := c.Stats(); s.Fingerprints != 0 {
		t.Fatalf("%d fingerprints left", s.Fingerprints)
	}
	if _, err := c.AddUint64(7); err != nil {
		t.Fatal(err)
	}
	c.AddUint64(7)
	if n, err := c.Count(keyOfUint64(7)); n != 2 || err != nil {
		t.Fatalf("Count = %d, %v", n, err)
	}
}

func TestCuckooRefusalsLoseNothing(t *testing.T) {
	c, err := NewCuckoo(1000, 0.001, WithFingerprintBits(16)) // 4 slots per bucket: 8 copies fill a pair
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for i := 0; i < 8; i++ {
		if _, err := c.AddString("dup"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.AddString("dup"); !errors.Is(err, ErrTooManyDuplicates) {
		t.Fatalf("the ninth copy: %v", err)
	}
	keys := cuckooKeys("fill", 5000)
	_, err = c.AddMany(keys)
	var stopped *BatchError
	if !errors.As(err, &stopped) || !errors.Is(err, ErrFull) || stopped.Done < 1000 || stopped.Done >= len(keys) {
		t.Fatalf("AddMany past capacity: %v", err)
	}
	for _, k := range keys[:stopped.Done] {
		if !c.Test(k) {
			t.Fatalf("a refused batch lost %q", k)
		}
	}
	s, _ := c.Stats()
	if s.Fingerprints != uint64(stopped.Done)+8 || s.FailedAdds != 1 || s.DuplicateRefusals != 1 || s.Kicks == 0 || !s.NearCapacity {
		t.Fatalf("stats after the refusals: %+v", s)
	}
	refused := 0
	for _, k := range keys[stopped.Done:] {
		if _, err := c.Add(k); errors.Is(err, ErrFull) {
			refused++
		} else if err != nil {
			t.Fatalf("a single Add past capacity: %v", err)
		}
	}
	if refused == 0 {
		t.Fatal("no single Add was refused past capacity")
	}
	for _, k := range keys[:stopped.Done] {
		if !c.Test(k) {
			t.Fatalf("a refused Add lost %q", k)
		}
	}
	// A duplicate refusal inside a batch stops it there too.
	d, _ := NewCuckoo(1000, 0.001, WithFingerprintBits(16))
	defer d.Close()
	for i := 0; i < 8; i++ {
		d.AddString("dup")
	}
	_, err = d.AddMany([][]byte{[]byte("new"), []byte("dup"), []byte("after")})
	if !errors.As(err, &stopped) || !errors.Is(err, ErrTooManyDuplicates) || stopped.Done != 1 || !d.TestString("new") {
		t.Fatalf("a batch with a ninth copy: %v", err)
	}
	if n, _ := d.Count([]byte("after")); n != 0 {
		t.Fatal("the batch went on past its refusal")
	}
}

func TestCuckooFalsePositiveRateAtCapacity(t *testing.T) {
	const n, p, absent = 200_000, 0.001, 1_000_000
	c, err := NewCuckoo(n, p)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.AddMany(cuckooKeys("present-", n)); err != nil {
		t.Fatal(err)
	}
	found, err := c.TestMany(cuckooKeys("absent-", absent))
	if err != nil || len(found) != absent {
		t.Fatalf("TestMany: %d answers, %v", len(found), err)
	}
	fp := 0
	for _, f := range found {
		if f {
			fp++
		}
	}
	// mean at most p·absent = 1000; 4 standard deviations above it (keys fixed)
	if bound := p*absent + 4*math.Sqrt(p*absent); float64(fp) > bound {
		t.Fatalf("%d false positives of %d, bound %.0f", fp, absent, bound)
	}
}

func TestCuckooMarshalRoundTripAndKinds(t *testing.T) {
	c, err := NewCuckoo(1000, 0.001, WithSeed(42))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	keys := cuckooKeys("s", 500)
	if _, err := c.AddMany(keys); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	back, _ := NewCuckoo(10, 0.01)
	defer back.Close()
	if _, err := back.ReadFrom(bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if !back.Test(k) {
			t.Fatalf("lost %q in the round trip", k)
		}
	}
	if a, b := mustStats(t, c), mustStats(t, back); a.Fingerprints != b.Fingerprints || a.Slots != b.Slots {
		t.Fatalf("stats differ: %+v vs %+v", a, b)
	}
	if err := back.UnmarshalBinary(data[:len(data)-1]); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("truncated: %v", err)
	}
	bloom, _ := New(1000, 0.01)
	defer bloom.Close()
	other, _ := bloom.MarshalBinary()
	if err := back.UnmarshalBinary(other); !errors.Is(err, ErrIncompatible) {
		t.Fatalf("a Bloom filter's bytes loaded into a Cuckoo: %v", err)
	}
	if err := bloom.UnmarshalBinary(data); !errors.Is(err, ErrIncompatible) {
		t.Fatalf("a cuckoo filter's bytes loaded into a Filter: %v", err)
	}
	counting, _ := NewCounting(1000, 0.01)
	defer counting.Close()
	counted, _ := counting.MarshalBinary()
	if err := back.UnmarshalBinary(counted); !errors.Is(err, ErrIncompatible) {
		t.Fatalf("a counting filter's bytes loaded into a Cuckoo: %v", err)
	}
	if err := counting.UnmarshalBinary(counted); err != nil { // the kind check is the Cuckoo's alone
		t.Fatal(err)
	}
	if !back.Test(keys[0]) { // the failed loads left it as it was
		t.Fatal("a failed load changed the filter")
	}
}

func mustStats(t *testing.T, c *Cuckoo) CuckooStats {
	s, err := c.Stats()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Readers check resident keys while two goroutines fill the rest of the table to 90% and empty
// it again, so kicks move resident fingerprints under the readers.
func TestCuckooResidentKeysStayVisibleDuringChurn(t *testing.T) {
	const capacity = 20_000
	c, err := NewCuckoo(capacity, 0.001)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	resident := cuckooKeys("resident-", capacity*6/10)
	if _, err := c.AddMany(resident); err != nil {
		t.Fatal(err)
	}
	var stop atomic.Bool
	var misses atomic.Int64
	var wg sync.WaitGroup
	failures := make(chan error, 2)
	for g := 0; g < 2; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			mine := cuckooKeys(fmt.Sprintf("churn-%d-", g), capacity*15/100)
			added := make([]bool, len(mine))
			for !stop.Load() {
				for i, k := range mine {
					_, err := c.Add(k)
					if err != nil && !errors.Is(err, ErrFull) { // a refusal near full is fine: it loses nothing
						failures <- err
						return
					}
					added[i] = err == nil
				}
				// only keys that were added: removing one that was not could take a resident key's fingerprint
				for i, k := range mine {
					if added[i] {
						if ok, err := c.Remove(k); !ok || err != nil {
							failures <- fmt.Errorf("an added churn key was not removed: %v, %v", ok, err)
							return
						}
					}
				}
			}
		}(g)
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); {
			for _, k := range resident {
				if !c.Test(k) {
					misses.Add(1)
				}
			}
		}
		stop.Store(true)
	}()
	wg.Wait()
	close(failures)
	for err := range failures {
		t.Fatal(err)
	}
	if misses.Load() != 0 {
		t.Fatalf("%d false negatives while fingerprints moved", misses.Load())
	}
	if s := mustStats(t, c); s.Kicks == 0 {
		t.Fatal("no kicks: the churn did not move fingerprints, so the test checked nothing")
	}
}

func TestCuckooBadArgumentsAndClose(t *testing.T) {
	for _, tc := range []struct {
		capacity uint64
		fpr      float64
	}{{0, 0.001}, {1000, math.NaN()}, {1000, 1}, {1000, 1e-9}} {
		if _, err := NewCuckoo(tc.capacity, tc.fpr); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("NewCuckoo(%d, %g): %v", tc.capacity, tc.fpr, err)
		}
	}
	if _, err := NewCuckoo(1<<40, 0.001, WithMemoryLimit(1<<20)); !errors.Is(err, ErrTooLarge) {
		t.Errorf("over the memory limit: %v", err)
	}
	c, _ := NewCuckoo(100, 0.001)
	c.Close()
	if _, err := c.AddString("x"); !errors.Is(err, ErrClosed) {
		t.Errorf("Add after Close: %v", err)
	}
	if _, err := c.RemoveString("x"); !errors.Is(err, ErrClosed) {
		t.Errorf("Remove after Close: %v", err)
	}
	var stopped *BatchError
	if _, err := c.AddMany([][]byte{[]byte("x")}); !errors.Is(err, ErrClosed) || errors.As(err, &stopped) {
		t.Errorf("AddMany after Close: %v", err) // an error that is not a refusal is no *BatchError
	}
	if _, err := c.Stats(); !errors.Is(err, ErrClosed) {
		t.Errorf("Stats after Close: %v", err)
	}
	defer func() {
		if recover() == nil {
			t.Error("Test after Close did not panic")
		}
	}()
	c.TestString("x")
}

// A second process (this test binary, re-run as a helper) adds keys to the shared file; this
// process sees them, and asking for another shape or opening a Bloom file is ErrIncompatible.
func TestCuckooSharedFileAcrossProcesses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cuckoo.lfb")
	a, err := OpenCuckooShared(path, 20000, 0.001, WithSeed(3)) // creates
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	for i := uint64(0); i < 5000; i++ {
		if _, err := a.AddUint64(i); err != nil {
			t.Fatal(err)
		}
	}
	helper := exec.Command(os.Args[0], "-test.run=^TestCuckooSharedFileHelper$")
	helper.Env = append(os.Environ(), "LFBLOOM_SHARED_HELPER="+path)
	if out, err := helper.CombinedOutput(); err != nil {
		t.Fatalf("helper: %v\n%s", err, out)
	}
	for i := uint64(0); i < 10000; i++ {
		if !a.TestUint64(i) {
			t.Fatalf("key %d is missing", i)
		}
	}
	if gone, err := a.RemoveUint64(7); err != nil || !gone {
		t.Fatalf("Remove: %v %v", gone, err)
	}
	st, err := a.Stats()
	if err != nil || st.Fingerprints != 9999 {
		t.Fatalf("Stats: %+v %v", st, err)
	}
	if err := a.Flush(); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenCuckooShared(path, 20001, 0.001, WithSeed(3)); !errors.Is(err, ErrIncompatible) {
		t.Fatalf("another size: %v", err)
	}
	if _, err := OpenCuckooShared(path, 20000, 0.001); !errors.Is(err, ErrIncompatible) {
		t.Fatalf("another seed: %v", err)
	}
	bloomPath := filepath.Join(t.TempDir(), "bloom.lfb")
	bloom, err := NewShared(bloomPath, 1000, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	defer bloom.Close()
	if _, err := OpenCuckooShared(bloomPath, 1000, 0.01); !errors.Is(err, ErrIncompatible) {
		t.Fatalf("a Bloom file: %v", err)
	}
	a.Close()
	if err := a.Flush(); !errors.Is(err, ErrClosed) {
		t.Fatalf("Flush after Close: %v", err)
	}
}

// The helper of TestCuckooSharedFileAcrossProcesses: opens (never creates) the file and adds keys 5000-9999.
func TestCuckooSharedFileHelper(t *testing.T) {
	path := os.Getenv("LFBLOOM_SHARED_HELPER")
	if path == "" {
		t.Skip("run by TestCuckooSharedFileAcrossProcesses")
	}
	f, err := OpenCuckooShared(path, 20000, 0.001, WithSeed(3))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for i := uint64(5000); i < 10000; i++ {
		if _, err := f.AddUint64(i); err != nil {
			t.Fatal(err)
		}
	}
}

// Plans describe what the constructors make, without making it: a terabyte filter is planned at once.
func TestPlansDescribeWhatConstructorsMake(t *testing.T) {
	p, err := PlanCuckoo(100000, 0.0002)
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewCuckoo(100000, 0.0002)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, err := c.Stats()
	if err != nil || p.Kind != "cuckoo" || p.Slots != s.Slots || p.Bytes != s.Bytes || p.SlotBits != 16 ||
		!(p.ExpectedFPR <= 0.0002 && p.ExpectedFPR > 0.0001) {
		t.Fatalf("plan %+v, filter %+v (%v)", p, s, err)
	}
	b, err := PlanFilter(100000, 0.01, WithLayout(Classic))
	if err != nil {
		t.Fatal(err)
	}
	f, err := New(100000, 0.01, WithLayout(Classic))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if fs, err := f.Stats(); err != nil || b.Kind != "classic" || b.Slots != fs.Slots || b.Hashes != fs.Hashes || b.Bytes != fs.Bytes {
		t.Fatalf("plan %+v, filter %+v (%v)", b, fs, err)
	}
	if n, err := PlanCounting(100000, 0.01, WithCounterBits(8)); err != nil || n.Kind != "counting" || n.SlotBits != 8 || n.Bytes != n.Slots {
		t.Fatalf("counting plan %+v (%v)", n, err)
	}
	if huge, err := PlanFilter(1_000_000_000_000, 0.01); err != nil || huge.Bytes < 1_000_000_000_000 {
		t.Fatalf("a terabyte plan: %+v (%v)", huge, err)
	}
	if _, err := PlanCuckoo(1000, 0.00001); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("a rate below 17-bit fingerprints' reach: %v", err)
	}
	if _, err := PlanCounting(1000, 0.01, WithCounterBits(5)); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("5-bit counters: %v", err)
	}
}

// The fingerprint width: the fewest bytes for the rate by default, else the one asked for; the
// plan agrees; widths no format has, or that cannot reach the rate, are refused.
func TestCuckooFingerprintWidths(t *testing.T) {
	for _, c := range []struct {
		fpr         float64
		opts        []Option
		bits, slots int
	}{
		{0.001, nil, 14, 5}, {0.0002, nil, 16, 4}, {0.0001, nil, 17, 4},
		{0.0001, []Option{WithFingerprintBits(16)}, 16, 4}, {0.01, []Option{WithFingerprintBits(17)}, 17, 4},
	} {
		f, err := NewCuckoo(5000, c.fpr, c.opts...)
		if err != nil {
			t.Fatal(err)
		}
		s, err := f.Stats()
		p, perr := PlanCuckoo(5000, c.fpr, c.opts...)
		if err != nil || perr != nil || s.SlotBits != c.bits || s.Slots%uint64(c.slots) != 0 || p.SlotBits != c.bits || p.Bytes != s.Bytes {
			t.Fatalf("%v: stats %+v, plan %+v (%v, %v)", c, s, p, err, perr)
		}
		if added, err := f.Add([]byte("k")); err != nil || !added {
			t.Fatalf("%v: add %v %v", c, added, err)
		}
		if removed, err := f.Remove([]byte("k")); err != nil || !removed {
			t.Fatalf("%v: remove %v %v", c, removed, err)
		}
		f.Close()
	}
	for _, bits := range []int{1, 8, 15, 18} {
		if _, err := NewCuckoo(5000, 0.001, WithFingerprintBits(bits)); !errors.Is(err, ErrInvalidArgument) {
			t.Fatalf("%d-bit fingerprints: %v", bits, err)
		}
	}
	if _, err := PlanCuckoo(5000, 0.0001, WithFingerprintBits(14)); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("14 bits at 0.01%%: %v", err)
	}
}

// A copy holds every key, is Equal to its source, and then changes on its own.
func TestCuckooCopyAndEqual(t *testing.T) {
	c, err := NewCuckoo(10_000, 0.001, WithSeed(3))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	keys := cuckooKeys("k", 5000)
	if _, err := c.AddMany(keys); err != nil {
		t.Fatal(err)
	}
	cp, err := c.Copy()
	if err != nil {
		t.Fatal(err)
	}
	defer cp.Close()
	equal := func(a, b *Cuckoo) bool {
		t.Helper()
		eq, err := a.Equal(b)
		if err != nil {
			t.Fatal(err)
		}
		return eq
	}
	if !equal(c, cp) || !equal(cp, c) {
		t.Fatal("a copy is not equal to its source")
	}
	for _, k := range keys {
		if !cp.Test(k) {
			t.Fatalf("the copy misses %q", k)
		}
	}
	if ok, err := cp.RemoveString("k7"); !ok || err != nil || equal(c, cp) {
		t.Fatalf("remove from the copy: %v %v, or the source changed with it", ok, err)
	}
	if !c.Test([]byte("k7")) {
		t.Fatal("removing from the copy removed from the source")
	}
	if ok, _ := c.RemoveString("k7"); !ok || !equal(c, cp) {
		t.Fatal("the same change to the same table should give equal filters")
	}
	other, err := NewCuckoo(10_000, 0.001)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if equal(c, other) {
		t.Fatal("filters of different seeds compare equal")
	}
	if !equal(c, c) {
		t.Fatal("a filter is not equal to itself")
	}
	if _, err := c.Equal(nil); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("Equal(nil): %v", err)
	}
	other.Close()
	if _, err := c.Equal(other); !errors.Is(err, ErrClosed) {
		t.Fatalf("Equal(closed): %v", err)
	}
	if _, err := other.Copy(); !errors.Is(err, ErrClosed) {
		t.Fatalf("Copy of a closed filter: %v", err)
	}
}

// Equal of a filter with itself racing its Close, and of a pair in both orders racing both
// Closes, end: a handle is acquired once, and a pair in one order (else each would wait for the
// other's Close).
func TestEqualRacingCloseEnds(t *testing.T) {
	for i := 0; i < 200; i++ {
		a, _ := NewCuckoo(100, 0.01)
		b, _ := NewCuckoo(100, 0.01)
		var wg sync.WaitGroup
		for _, pair := range [][2]*Cuckoo{{a, a}, {a, b}, {b, a}} {
			wg.Add(1)
			go func(x, y *Cuckoo) {
				defer wg.Done()
				for {
					if _, err := x.Equal(y); err != nil {
						return
					}
				}
			}(pair[0], pair[1])
		}
		go a.Close()
		b.Close()
		wg.Wait()
	}
}
