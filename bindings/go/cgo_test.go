package lfbloom

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// atDepth runs f under depth frames of about 80 bytes and then fine frames of about 32, so that
// f's calls grow (copy) a fresh goroutine's stack at every point of them, to a few dozen bytes,
// among them inside the cgo call that takes a key.
//
//go:noinline
func atDepth(depth, fine int, f func()) byte {
	var pad [24]byte
	pad[depth%len(pad)] = byte(depth)
	if depth <= 0 {
		atFine(fine, f)
		return pad[0]
	}
	return atDepth(depth-1, fine, f) + pad[depth%len(pad)]
}

//go:noinline
func atFine(fine int, f func()) {
	if fine <= 0 {
		f()
		return
	}
	atFine(fine-1, f)
}

// Keys that sit on the caller's stack (local arrays) stay correct when the stack is copied around
// the C call: every filter kind's single-key and batch calls, run at every recursion depth in
// fresh goroutines, must find what was added and keep counts exact. A key passed to C as an
// integer address would be read from the old stack after a copy. The stock runtime leaves the old
// stack's bytes in place for a while, so in this process such a read mostly goes unseen; the test
// therefore runs again in a child process with GODEBUG=efence=1, under which the runtime unmaps
// a goroutine's old stack when it copies it (a stale read crashes the child), and
// adaptivestackstart=0, so that every goroutine starts on a small stack that must grow.
func TestKeysSurviveStackMoves(t *testing.T) {
	// Not under GOEXPERIMENT=cgocheck2: with efence its write barrier check misreads the runtime's
	// own start-up (every heap page looks like non-Go memory) and the child dies before any test.
	if os.Getenv("LFBLOOM_STACK_CHILD") == "" && !strings.Contains(os.Getenv("GOEXPERIMENT"), "cgocheck2") {
		cmd := exec.Command(os.Args[0], "-test.run=^TestKeysSurviveStackMoves$", "-test.count=1")
		cmd.Env = append(os.Environ(), "LFBLOOM_STACK_CHILD=1",
			"GODEBUG="+strings.TrimPrefix(os.Getenv("GODEBUG")+",adaptivestackstart=0,efence=1", ","))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("under GODEBUG=efence=1: %v\n%s", err, out[:min(len(out), 4000)]) // a crash dumps every goroutine
		}
	}
	const workers, depths = 4, 2048
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			if err := stackMoves(w, depths); err != nil {
				errs <- err
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// stackMoves has its own filters of every kind (so counts are exact: no other goroutine adds),
// and runs a round of calls at each depth in a new goroutine, whose stack starts small.
func stackMoves(w, depths int) error {
	c, _ := NewCounting(1<<16, 1e-6, WithCounterBits(8))
	f, _ := New(1<<16, 1e-6)
	sc, _ := NewScalable(1<<16, 1e-6, ScalableConfig{})
	r, _ := NewRotating(1<<16, 1e-6, RotatingConfig{})
	inner, _ := New(1<<16, 1e-6)
	sw, _ := NewSwappable(inner)
	defer func() {
		for _, k := range []interface{ Close() error }{c, f, sc, r, sw} {
			k.Close()
		}
	}()
	const batch = 8
	var resident [][]byte // keys added and never removed, kept on the heap for the final check
	for d := 0; d < depths; d++ {
		var err error
		done := make(chan struct{})
		go func() {
			defer close(done)
			atDepth(d/4, d%4, func() { err = stackRound(c, f, sc, r, sw, uint64(w)<<32|uint64(d)*batch) })
		}()
		<-done
		if err != nil {
			return fmt.Errorf("worker %d, depth %d: %w", w, d, err)
		}
		for i := 0; i < batch; i++ {
			resident = append(resident, binary.LittleEndian.AppendUint64(nil, uint64(w)<<32|uint64(d)*batch+uint64(i)))
		}
	}
	for _, k := range resident {
		n, err := c.Count(k)
		if err != nil || n < 1 {
			return fmt.Errorf("counting: resident key %x counted %d, %v", k, n, err)
		}
		if !f.Test(k) || !sc.Test(k) || !r.Test(k) || !sw.Test(k) {
			return fmt.Errorf("resident key %x absent: filter %v scalable %v rotating %v swappable %v", k, f.Test(k),
				sc.Test(k), r.Test(k), sw.Test(k))
		}
	}
	return nil
}

// stackRound adds keys base..base+7 from arrays on this goroutine's stack, one by one and as a
// batch, checks them, and on the counting filter also adds, counts and removes a spare key.
func stackRound(c *CountingFilter, f *Filter, sc *Scalable, r *Rotating, sw *Swappable, base uint64) error {
	var arrays [8][8]byte
	var keys [8][]byte
	for i := range arrays {
		binary.LittleEndian.PutUint64(arrays[i][:], base+uint64(i))
		keys[i] = arrays[i][:]
	}
	for _, k := range keys[:4] {
		c.Add(k)
		sc.Add(k)
		r.Add(k)
		sw.Add(k)
	}
	for _, add := range []func([][]byte) (uint64, error){c.AddMany, f.AddMany, sc.AddMany, r.AddMany, sw.AddMany} {
		if _, err := add(keys[4:]); err != nil {
			return err
		}
	}
	f.AddMany(keys[:4])
	for _, test := range []func([][]byte) ([]bool, error){c.TestMany, f.TestMany, sc.TestMany, r.TestMany, sw.TestMany} {
		found, err := test(keys[:])
		if err != nil {
			return err
		}
		for i, ok := range found {
			if !ok {
				return fmt.Errorf("TestMany: key %d of the batch absent", i)
			}
		}
	}
	for i, k := range keys {
		if !c.Test(k) || !sc.Test(k) || !r.Test(k) || !sw.Test(k) {
			return fmt.Errorf("Test: key %d absent", i)
		}
		if n, err := c.Count(k); n != 1 || err != nil {
			return fmt.Errorf("Count: key %d counted %d, want 1 (%v)", i, n, err)
		}
	}
	// A spare key: added twice, removed once singly and once in a batch; its count must follow.
	var spare [8]byte
	binary.LittleEndian.PutUint64(spare[:], base|1<<31)
	for want, step := range []func() error{
		func() error { c.Add(spare[:]); return nil },
		func() error { c.Add(spare[:]); return nil },
		func() error {
			if removed, err := c.Remove(spare[:]); err != nil || !removed {
				return fmt.Errorf("remove: %v, %v", removed, err)
			}
			return nil
		},
		func() error {
			removed, err := c.RemoveMany([][]byte{spare[:]})
			if err == nil && !removed[0] {
				err = errors.New("RemoveMany: spare key not removed")
			}
			return err
		},
	} {
		if err := step(); err != nil {
			return err
		}
		wantCount := []int{1, 2, 1, 0}[want]
		if n, err := c.Count(spare[:]); err != nil || (wantCount > 0 && n != wantCount) {
			return fmt.Errorf("Count of the spare key after step %d: %d, want %d (%v)", want, n, wantCount, err)
		}
	}
	runtime.Gosched()
	return nil
}

// Every error's message is its own call's, with many goroutines failing at once on all threads:
// C keeps the message per thread, and a goroutine may change threads between cgo calls. Calls
// through SWIG (New, NewCounting: their messages name the bad rate or counter width passed) and
// through the key shims (a Cuckoo's refused Add, AddStaged, AddManyStaged, a full Scalable's Add: different
// messages per call) are interleaved.
func TestErrorsCarryTheirOwnMessage(t *testing.T) {
	const goroutines, calls = 8, 40000
	if runtime.GOMAXPROCS(0) < 2 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	}
	staged, _ := New(100, 0.01)
	swap, _ := NewSwappable(staged) // nothing staged: AddStaged fails
	defer swap.Close()
	duplicated, _ := NewCuckoo(1000, 0.01) // holds "d" until it refuses another copy
	defer duplicated.Close()
	for i := 0; ; i++ {
		if _, err := duplicated.AddString("d"); errors.Is(err, ErrTooManyDuplicates) {
			break
		} else if i == 16 {
			t.Fatalf("the copies of one key were never refused: %v", err)
		}
	}
	full, _ := NewScalable(10, 0.01, ScalableConfig{MaxFilters: 1})
	defer full.Close()
	var fullKey uint64
	for ; ; fullKey++ {
		if _, err := full.AddUint64(fullKey); err != nil {
			break
		}
	}
	type call struct {
		run  func(id int) error
		want func(id int) string // the message, as it names the call
	}
	fixed := func(run func() error) call {
		want := run().Error()
		return call{func(int) error { return run() }, func(int) string { return want }}
	}
	kinds := []call{
		{func(id int) error { _, err := New(10, float64(2+id)); return err },
			func(id int) string { return fmt.Sprintf("got %d.000000 (status -1)", 2+id) }},
		{func(id int) error { _, err := NewCounting(10, 0.01, WithCounterBits(9+id)); return err },
			func(id int) string { return fmt.Sprintf("got %d (status -1)", 9+id) }},
		fixed(func() error { _, err := duplicated.AddString("d"); return err }),
		fixed(func() error { _, err := swap.AddStaged([]byte("x")); return err }),
		fixed(func() error { _, err := full.AddUint64(fullKey); return err }),
		fixed(func() error { _, err := swap.AddManyStaged([][]byte{[]byte("x")}); return err }),
	}
	if k, s := kinds[2].want(0), kinds[3].want(0); k == s || !strings.Contains(k, "copies") {
		t.Fatalf("the fixed messages must differ: %q, %q", k, s)
	}
	var wrong, shown sync.Map
	var wg sync.WaitGroup
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < calls; i++ {
				id := g*calls + i
				kind := kinds[(i+g)%len(kinds)]
				err := kind.run(id)
				if err == nil || !strings.HasSuffix(err.Error(), kind.want(id)) {
					n, _ := wrong.LoadOrStore(g, new(int))
					*n.(*int)++
					shown.LoadOrStore(g, fmt.Sprintf("call %d: got %v, want a message ending %q", id, err, kind.want(id)))
				}
			}
		}(g)
	}
	wg.Wait()
	wrong.Range(func(g, n any) bool {
		example, _ := shown.Load(g)
		t.Errorf("goroutine %d: %d of %d errors had another call's message, e.g. %s", g, *n.(*int), calls, example)
		return true
	})
}
