package lfbloom

import (
	"bytes"
	"errors"
	"math"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Two handles of one shared cuckoo file in one process: goroutines add through a and remove
// through b while the main goroutine saves through a, over and over. Every kept key whose Add
// returned before the save began is in the saved copy, and the copy loads (a key lost or doubled
// mid-save would make its fingerprint count disagree with its table, and Load refuse it).
func TestCuckooSharedTwoHandlesSaveWhileWriting(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cuckoo.lfb")
	a, err := OpenCuckooShared(path, 200000, 0.001, WithSeed(5))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := OpenCuckooShared(path, 200000, 0.001, WithSeed(5))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()

	const adders, perAdder = 2, 40000
	var added [adders]atomic.Uint64 // kept keys adder i has added: i<<32 | 0 .. added[i]-1
	var failed atomic.Value
	stop := make(chan struct{})
	churn := make(chan uint64, 1024) // keys added through a, for the remover to remove through b
	var wg sync.WaitGroup
	for i := 0; i < adders; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for n := uint64(0); n < perAdder; n++ {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := a.AddUint64(uint64(i)<<32 | n); err != nil {
					failed.Store(err)
					return
				}
				added[i].Store(n + 1)
				c := uint64(i+1)<<48 | n // a churn key, added, then removed by the remover
				if _, err := a.AddUint64(c); err != nil {
					failed.Store(err)
					return
				}
				churn <- c
			}
		}(i)
	}
	removed := make(chan struct{})
	go func() {
		defer close(removed)
		for c := range churn {
			if gone, err := b.RemoveUint64(c); err != nil || !gone {
				failed.Store(errors.Join(err, errors.New("a churn key added was not removed")))
			}
		}
	}()

	for round := 0; round < 12; round++ {
		var before [adders]uint64
		for i := range before {
			before[i] = added[i].Load()
		}
		var data []byte
		if round%2 == 0 {
			if data, err = a.MarshalBinary(); err != nil {
				t.Fatal(err)
			}
		} else {
			var buf bytes.Buffer
			if _, err := a.WriteTo(&buf); err != nil {
				t.Fatal(err)
			}
			data = buf.Bytes()
		}
		loaded, err := Load(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("round %d: the saved copy does not load: %v", round, err)
		}
		c := loaded.(*Cuckoo)
		for i := range before {
			for n := uint64(0); n < before[i]; n++ {
				if !c.TestUint64(uint64(i)<<32 | n) {
					t.Fatalf("round %d: key %d of adder %d, added before the save began, is not in the saved copy", round, n, i)
				}
			}
		}
		c.Close()
		if v := failed.Load(); v != nil {
			t.Fatal(v)
		}
		time.Sleep(5 * time.Millisecond)
	}
	close(stop)
	wg.Wait()
	close(churn)
	<-removed
	if v := failed.Load(); v != nil {
		t.Fatal(v)
	}
	for i := range added {
		for n := uint64(0); n < added[i].Load(); n++ {
			if !b.TestUint64(uint64(i)<<32 | n) {
				t.Fatalf("key %d of adder %d is missing from the file", n, i)
			}
		}
	}
}

// blockingWriter announces its first Write, then blocks until released: a WriteTo into it holds
// every stripe lock of its Cuckoo meanwhile.
type blockingWriter struct {
	started, release chan struct{}
	once             sync.Once
	buf              bytes.Buffer
}

func (w *blockingWriter) Write(p []byte) (int, error) {
	w.once.Do(func() { close(w.started) })
	<-w.release
	return w.buf.Write(p)
}

// A writer that waits longer than its lock timeout for a stripe lock gets ErrTimeout, changes
// nothing, and the filter works on once the lock is free.
func TestCuckooSharedLockTimeout(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cuckoo.lfb")
	a, err := OpenCuckooShared(path, 1<<20, 0.001) // about 2 MB: far more than a pipe buffers
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := OpenCuckooShared(path, 1<<20, 0.001)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for _, d := range []time.Duration{-time.Second, 0, 999 * time.Microsecond} {
		if err := b.SetLockTimeout(d); !errors.Is(err, ErrInvalidArgument) {
			t.Fatalf("SetLockTimeout(%v): %v", d, err)
		}
	}
	for _, d := range []time.Duration{1500 * time.Microsecond, time.Duration(math.MaxInt64)} { // rounded up; capped at MaxUint32 ms
		if err := b.SetLockTimeout(d); err != nil {
			t.Fatalf("SetLockTimeout(%v): %v", d, err)
		}
	}
	if err := a.SetLockTimeout(100 * time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if err := b.SetLockTimeout(100 * time.Millisecond); err != nil {
		t.Fatal(err)
	}
	for i := uint64(0); i < 1000; i++ {
		if _, err := a.AddUint64(i); err != nil {
			t.Fatal(err)
		}
	}

	w := &blockingWriter{started: make(chan struct{}), release: make(chan struct{})}
	type result struct {
		n   int64
		err error
	}
	saved := make(chan result, 1)
	go func() {
		n, err := a.WriteTo(w)
		saved <- result{n, err}
	}()
	select {
	case <-w.started:
	case r := <-saved:
		t.Fatalf("WriteTo returned before it blocked: %v", r.err)
	case <-time.After(10 * time.Second):
		t.Fatal("WriteTo wrote nothing in 10 s")
	}
	released := false
	defer func() {
		if !released {
			close(w.release)
		}
	}()

	// The save holds every stripe lock: writers through the other handle and through the same
	// one time out; a reader does not wait. Not Remove: the core's removable_key_operations::remove
	// is noexcept, so a remove's timeout ends the process (std::terminate) at dbdd4b9.
	for name, write := range map[string]func() error{
		"b.Add":           func() error { _, err := b.AddUint64(1 << 40); return err },
		"b.AddMany":       func() error { _, err := b.AddUint64s([]uint64{1<<40 + 1, 1<<40 + 2}); return err },
		"b.MarshalBinary": func() error { _, err := b.MarshalBinary(); return err },
		"a.Add":           func() error { _, err := a.AddUint64(1 << 41); return err },
	} {
		start := time.Now()
		err := write()
		took := time.Since(start)
		if !errors.Is(err, ErrTimeout) {
			t.Fatalf("%s while the save holds the locks: %v, want ErrTimeout", name, err)
		}
		if took < 90*time.Millisecond || took > 3*time.Second {
			t.Fatalf("%s timed out after %v, with a timeout of 100 ms", name, took)
		}
	}
	if !b.TestUint64(7) {
		t.Fatal("key 7 is missing")
	}

	close(w.release)
	released = true
	r := <-saved
	if r.err != nil {
		t.Fatal(r.err)
	}
	if int64(w.buf.Len()) != r.n {
		t.Fatalf("WriteTo reported %d bytes, wrote %d", r.n, w.buf.Len())
	}
	loaded, err := Load(&w.buf)
	if err != nil {
		t.Fatal(err)
	}
	defer loaded.Close()
	c := loaded.(*Cuckoo)
	st, err := c.Stats()
	if err != nil || st.Fingerprints != 1000 {
		t.Fatalf("the saved copy: %+v %v, want 1000 fingerprints", st, err)
	}

	// The refused writes changed nothing, and writers work again.
	if st, err := b.Stats(); err != nil || st.Fingerprints != 1000 {
		t.Fatalf("after the timeouts: %+v %v, want 1000 fingerprints", st, err)
	}
	if _, err := b.AddUint64(1 << 40); err != nil {
		t.Fatal(err)
	}
	if gone, err := a.RemoveUint64(5); err != nil || !gone {
		t.Fatalf("Remove: %v %v", gone, err)
	}
	if _, err := a.MarshalBinary(); err != nil {
		t.Fatal(err)
	}
	if st, err := a.Stats(); err != nil || st.Fingerprints != 1000 {
		t.Fatalf("at the end: %+v %v, want 1000 fingerprints", st, err)
	}

	// A private Cuckoo takes a timeout and never waits for another handle; a closed one refuses.
	private, err := NewCuckoo(1000, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	if err := private.SetLockTimeout(time.Millisecond); err != nil {
		t.Fatal(err)
	}
	private.Close()
	if err := private.SetLockTimeout(time.Second); !errors.Is(err, ErrClosed) {
		t.Fatalf("SetLockTimeout after Close: %v", err)
	}
}
