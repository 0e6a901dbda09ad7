package lfbloom

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The composites' saves and loads (composite_stream.go): the C++ core's golden files, round
// trips, saves beside adds, and files handed to and from C and the lfbloom command.

const goldenDir = "../../tests/data/format-v1"

// keysFrom is prefix + "0" ... prefix + (n-1).
func keysFrom(prefix string, from, to int) []string {
	keys := make([]string, 0, to-from)
	for i := from; i < to; i++ {
		keys = append(keys, fmt.Sprint(prefix, i))
	}
	return keys
}

// present counts the keys f answers "maybe" for.
func present(t *testing.T, f Interface, keys []string) int {
	t.Helper()
	answers, err := f.TestStrings(keys)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, a := range answers {
		if a {
			n++
		}
	}
	return n
}

func loadFile(t *testing.T, path string) Interface {
	t.Helper()
	file, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	f, err := Load(file)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return f
}

// The C++ core's golden files (tests/data/format-v1, seed 7): each loads as its type through
// Load, ReadFrom and UnmarshalBinary, answers every key it was built with, and reports the parts
// and rotations it had; the other composite types refuse it.
func TestGoldenCompositesFromCpp(t *testing.T) {
	golden := keysFrom("golden:", 0, 1000)
	for _, name := range []string{"scalable.lfb", "scalable-cuckoo.lfb"} {
		data, err := os.ReadFile(filepath.Join(goldenDir, name))
		if err != nil {
			t.Fatal(err)
		}
		cuckoo := name == "scalable-cuckoo.lfb"
		loaded := loadFile(t, filepath.Join(goldenDir, name))
		_, isCuckoo := loaded.(*ScalableCuckoo)
		_, isScalable := loaded.(*Scalable)
		if isCuckoo != cuckoo || isScalable == cuckoo {
			t.Fatalf("%s: loaded as a %T", name, loaded)
		}
		var into Interface
		if cuckoo {
			c, _ := NewScalableCuckoo(10, 0.1, ScalableConfig{})
			if err := c.UnmarshalBinary(data); err != nil {
				t.Fatalf("%s: UnmarshalBinary: %v", name, err)
			}
			into = c
		} else {
			s, _ := NewScalable(10, 0.1, ScalableConfig{})
			if n, err := s.ReadFrom(bytes.NewReader(data)); err != nil || n != int64(len(data)) {
				t.Fatalf("%s: ReadFrom: %d of %d bytes, %v", name, n, len(data), err)
			}
			into = s
		}
		sub := map[bool]string{false: "blocked", true: "cuckoo"}[cuckoo]
		for _, f := range []Interface{loaded, into} {
			info, err := f.Info()
			if err != nil || info.Kind != "scalable" || info.SubKind != sub || info.Parts != 3 || info.Seed != 7 ||
				info.Capacity != 1400 || info.TargetFPR != 0.01 {
				t.Fatalf("%s: %+v, %v", name, info, err)
			}
			for i, capacity := range []uint64{200, 400, 800} {
				if part, err := f.Part(i); err != nil || part.Capacity != capacity || part.Kind != sub {
					t.Fatalf("%s: part %d: %+v, %v", name, i, part, err)
				}
			}
			if n := present(t, f, golden); n != len(golden) {
				t.Fatalf("%s: %d of the %d golden keys present", name, n, len(golden))
			}
		}
		if cuckoo { // it removes, as it did in C++
			c := loaded.(*ScalableCuckoo)
			if removed, err := c.RemoveString("golden:5"); !removed || err != nil {
				t.Fatalf("%s: remove: %v %v", name, removed, err)
			}
		}
		// the other types refuse it, and stay as they were
		other, _ := NewRotating(100, 0.01, RotatingConfig{})
		other.AddString("mine")
		if n, err := other.ReadFrom(bytes.NewReader(data)); !errors.Is(err, ErrIncompatible) || n != headerBytes || !other.TestString("mine") {
			t.Fatalf("%s into a Rotating: %d bytes read, %v", name, n, err)
		}
		other.Close()
		var wrong interface {
			Interface
			UnmarshalBinary([]byte) error
		}
		if cuckoo {
			wrong, _ = NewScalable(100, 0.01, ScalableConfig{})
		} else {
			wrong, _ = NewScalableCuckoo(100, 0.01, ScalableConfig{})
		}
		wrong.Insert([]byte("mine"))
		if err := wrong.UnmarshalBinary(data); !errors.Is(err, ErrIncompatible) {
			t.Fatalf("%s into a %T: %v", name, wrong, err)
		}
		if found, _ := wrong.Contains([]byte("mine")); !found {
			t.Fatalf("%s: a refused load changed the %T", name, wrong)
		}
		wrong.Close()
		loaded.Close()
		into.Close()
	}

	// rotating.lfb: capacity 500, 3 generations, period 1000 ns on a manual clock; keys 0-299,
	// a tick at 1500 (one rotation), keys 300-599.
	data, err := os.ReadFile(filepath.Join(goldenDir, "rotating.lfb"))
	if err != nil {
		t.Fatal(err)
	}
	r, _ := NewRotating(10, 0.1, RotatingConfig{})
	defer r.Close()
	if err := r.UnmarshalBinary(data); err != nil {
		t.Fatal(err)
	}
	loaded, ok := loadFile(t, filepath.Join(goldenDir, "rotating.lfb")).(*Rotating)
	if !ok {
		t.Fatal("rotating.lfb is no Rotating")
	}
	defer loaded.Close()
	first, second := keysFrom("golden:", 0, 300), keysFrom("golden:", 300, 600)
	for _, f := range []*Rotating{r, loaded} {
		info, err := f.Info()
		if err != nil || info.Kind != "rotating" || info.SubKind != "blocked" || info.Parts != 3 || info.Generation != 1 ||
			info.Capacity != 500 || info.Seed != 7 {
			t.Fatalf("rotating.lfb: %+v, %v", info, err)
		}
		expect := func(at time.Duration, rotations uint64, firstAtMost, firstAtLeast int) {
			t.Helper()
			if err := f.Tick(at); err != nil {
				t.Fatal(err)
			}
			n, _ := f.Rotations()
			if n != rotations {
				t.Fatalf("rotating.lfb ticked to %d: %d rotations, want %d", at, n, rotations)
			}
			if p := present(t, f, first); p > firstAtMost || p < firstAtLeast {
				t.Fatalf("rotating.lfb ticked to %d: %d of keys 0-299 present, want %d to %d", at, p, firstAtLeast, firstAtMost)
			}
			if p := present(t, f, second); p != len(second) {
				t.Fatalf("rotating.lfb ticked to %d: %d of keys 300-599 present", at, p)
			}
		}
		expect(0, 1, 300, 300)    // the saved deadline, 2000, is in the caller's time
		expect(1999, 1, 300, 300) // not yet
		expect(2000, 2, 300, 300) // one rotation: keys 0-299 have seen two
		expect(3000, 3, 15, 0)    // the third: keys 0-299 are gone, but for false positives (1%)
	}
	// Filter and Scalable refuse it from its header
	f, _ := New(100, 0.01)
	defer f.Close()
	if n, err := f.ReadFrom(bytes.NewReader(data)); !errors.Is(err, ErrIncompatible) || n != headerBytes {
		t.Fatalf("rotating.lfb into a Filter: %d, %v", n, err)
	}
	s, _ := NewScalable(100, 0.01, ScalableConfig{})
	defer s.Close()
	if err := s.UnmarshalBinary(data); !errors.Is(err, ErrIncompatible) {
		t.Fatalf("rotating.lfb into a Scalable: %v", err)
	}
}

// saver is what the composites (and the layouts) add to Interface to save and load.
type saver interface {
	Interface
	MarshalBinary() ([]byte, error)
	UnmarshalBinary([]byte) error
	WriteTo(io.Writer) (int64, error)
	ReadFrom(io.Reader) (int64, error)
}

var (
	_ saver = (*Scalable)(nil)
	_ saver = (*ScalableCuckoo)(nil)
	_ saver = (*Rotating)(nil)
	_ saver = (*Filter)(nil)
)

// compositeCases: each makes an empty filter of its type; fill adds the keys "c:0" to "c:2999"
// (a Scalable grows through several sub-filters, a ScalableCuckoo also defers a remove, a Rotating
// rotates on its way).
var compositeCases = []struct {
	name   string
	manual bool // a Rotating on a manual clock, ticked to 1500 halfway
	empty  func() (saver, error)
	more   func(saver)
}{
	{"Scalable", false, func() (saver, error) { return NewScalable(100, 0.01, ScalableConfig{}, WithSeed(3)) }, nil},
	{"ScalableCuckoo", false, func() (saver, error) { return NewScalableCuckoo(100, 0.01, ScalableConfig{}) }, func(f saver) {
		c := f.(*ScalableCuckoo)
		c.AddString("c:7")    // a second copy, in a later sub-filter
		c.RemoveString("c:7") // deferred: it waits in the file too
		c.RemoveString("c:8")
	}},
	{"Rotating manual", true, func() (saver, error) {
		return NewRotating(1000, 0.01, RotatingConfig{Generations: 3, Period: 1000, ManualClock: true})
	}, nil},
	{"Rotating clocked, double write", false, func() (saver, error) {
		return NewRotating(2000, 0.01, RotatingConfig{Generations: 4, Period: time.Hour, DoubleWrite: true})
	}, func(f saver) { f.(*Rotating).Rotate() }},
}

func filled(t *testing.T, i int) saver {
	t.Helper()
	c := compositeCases[i]
	f, err := c.empty()
	if err != nil {
		t.Fatal(err)
	}
	for n, k := range keysFrom("c:", 0, 3000) {
		if n == 1500 && c.manual {
			f.(*Rotating).Tick(1500)
		}
		if _, err := f.Insert([]byte(k)); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
	}
	if c.more != nil {
		c.more(f)
	}
	return f
}

// sameAnswers fails unless b answers every key as a, and has a's type, parts and settings.
func sameAnswers(t *testing.T, what string, a, b Interface, keys []string) {
	t.Helper()
	want, _ := a.TestStrings(keys)
	got, err := b.TestStrings(keys)
	wantInfo, _ := a.Geometry()
	gotInfo, _ := b.Geometry()
	if fmt.Sprintf("%T", a) != fmt.Sprintf("%T", b) {
		t.Fatalf("%s: a %T, not a %T", what, b, a)
	}
	if err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("%s: the answers differ (%v)", what, err)
	}
	gotInfo.Generation, wantInfo.Generation = 0, 0 // compared by the callers, who know the clocks
	if gotInfo != wantInfo {
		t.Fatalf("%s: loaded %+v, saved %+v", what, gotInfo, wantInfo)
	}
}

// Round trips: MarshalBinary and WriteTo write the same bytes (the same length for the real
// clock, whose time of saving is in them), and Load, UnmarshalBinary and ReadFrom each give a
// filter of the same type, parts and settings that answers every key, added or not, as the
// original; a manual clock's deadline goes on in the caller's time.
func TestCompositeRoundTrips(t *testing.T) {
	all := keysFrom("c:", 0, 6000) // 0-2999 added, the rest not
	for i, c := range compositeCases {
		f := filled(t, i)
		info, _ := f.Geometry()
		if c.name == "Scalable" && info.Parts < 4 || c.manual && info.Generation != 1 {
			t.Fatalf("%s: %+v", c.name, info)
		}
		data, err := f.MarshalBinary()
		if err != nil {
			t.Fatalf("%s: MarshalBinary: %v", c.name, err)
		}
		var written bytes.Buffer
		if n, err := f.WriteTo(&written); err != nil || n != int64(len(data)) || written.Len() != len(data) ||
			!c.manual && c.name != "Rotating clocked, double write" && !bytes.Equal(written.Bytes(), data) {
			t.Fatalf("%s: WriteTo: %d bytes, %v; MarshalBinary %d", c.name, n, err, len(data))
		}
		loaded, err := Load(bytes.NewReader(written.Bytes()))
		if err != nil {
			t.Fatalf("%s: Load: %v", c.name, err)
		}
		unmarshaled, _ := c.empty()
		if err := unmarshaled.UnmarshalBinary(data); err != nil {
			t.Fatalf("%s: UnmarshalBinary: %v", c.name, err)
		}
		read, _ := c.empty()
		if n, err := read.ReadFrom(bytes.NewReader(data)); err != nil || n != int64(len(data)) {
			t.Fatalf("%s: ReadFrom: %d, %v", c.name, n, err)
		}
		back := []Interface{loaded, unmarshaled, read}
		for _, b := range back {
			sameAnswers(t, c.name, f, b, all)
			g, _ := b.Geometry()
			if g.Generation != info.Generation {
				t.Fatalf("%s: %d rotations after the load, %d before", c.name, g.Generation, info.Generation)
			}
		}
		if c.manual { // the copies go on from the saved deadline (2000) in the caller's time, as the original
			for _, at := range []time.Duration{1999, 2000, 2999, 3000, 4500} {
				f.(*Rotating).Tick(at)
				want, _ := f.(*Rotating).Rotations()
				for _, b := range back {
					b.(*Rotating).Tick(at)
					sameAnswers(t, fmt.Sprint(c.name, " ticked to ", at), f, b, all)
					if got, _ := b.(*Rotating).Rotations(); got != want {
						t.Fatalf("%s ticked to %d: %d rotations, the original %d", c.name, at, got, want)
					}
				}
			}
			if n, _ := f.(*Rotating).Rotations(); n != 4 {
				t.Fatalf("%s: %d rotations at 4500", c.name, n)
			}
		}
		for _, b := range back {
			b.Close()
		}
		f.Close()
	}
}

// A stream of several composites, each written by WriteTo, reads back exactly one filter per
// load, whatever type reads it; the wrong type refuses a composite from its header (a Rotating,
// a Filter, and since 1.14 a Scalable of the other sub-filters), and stays as it was.
func TestCompositeStreamsAndRefusals(t *testing.T) {
	var stream bytes.Buffer
	var filters []saver
	for i := range compositeCases {
		f := filled(t, i)
		defer f.Close()
		if _, err := f.WriteTo(&stream); err != nil {
			t.Fatal(err)
		}
		filters = append(filters, f)
	}
	r := &errorAfter{&stream, errReadPast}
	all := keysFrom("c:", 0, 3000)
	for i, c := range compositeCases {
		var b Interface
		if i%2 == 0 {
			b, _ = Load(r)
		} else {
			into, _ := c.empty()
			if _, err := into.ReadFrom(r); err != nil {
				t.Fatalf("%s: ReadFrom: %v", c.name, err)
			}
			b = into
		}
		sameAnswers(t, c.name, filters[i], b, all)
		b.Close()
	}
	if _, err := Load(r); !errors.Is(err, errReadPast) {
		t.Fatalf("past the last filter: %v", err)
	}

	scalable, _ := filters[0].MarshalBinary()
	cuckoo, _ := filters[1].MarshalBinary()
	rotating, _ := filters[2].MarshalBinary()
	refusals := []struct {
		what       string
		into       func() (saver, error)
		data       []byte
		fromHeader bool
	}{
		{"a ScalableCuckoo into a Scalable", compositeCases[0].empty, cuckoo, true}, // since 1.14: the header's sub-kind
		{"a Scalable into a ScalableCuckoo", compositeCases[1].empty, scalable, true},
		{"a Rotating into a Scalable", compositeCases[0].empty, rotating, true},
		{"a Scalable into a Rotating", compositeCases[2].empty, scalable, true},
		{"a Rotating into a Filter", func() (saver, error) { return New(100, 0.01) }, rotating, true},
	}
	for _, refusal := range refusals {
		into, _ := refusal.into()
		into.Insert([]byte("mine"))
		before, _ := into.Geometry()
		n, err := into.ReadFrom(bytes.NewReader(refusal.data))
		if !errors.Is(err, ErrIncompatible) || refusal.fromHeader != (n == headerBytes) {
			t.Fatalf("%s: ReadFrom read %d bytes, %v", refusal.what, n, err)
		}
		if err := into.UnmarshalBinary(refusal.data); !errors.Is(err, ErrIncompatible) {
			t.Fatalf("%s: UnmarshalBinary %v", refusal.what, err)
		}
		after, _ := into.Geometry()
		if found, _ := into.Contains([]byte("mine")); !found || after != before {
			t.Fatalf("%s: the refused load changed the filter: %+v, was %+v", refusal.what, after, before)
		}
		into.Close()
	}
	corrupt := append([]byte(nil), rotating...)
	corrupt[len(corrupt)/2] ^= 1
	if _, err := Load(bytes.NewReader(corrupt)); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("a corrupt rotating filter: %v", err)
	}
	if _, err := Load(bytes.NewReader(scalable[:len(scalable)-1])); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("a truncated scalable filter: %v", err)
	}
}

// Saves beside adds: goroutines add keys while the filter is saved over and over (MarshalBinary,
// whose size a growing Scalable outruns now and then, and WriteTo in turn); every key whose Add
// returned before a save began is in the filter loaded from it.
func TestCompositesSavedWhileAdding(t *testing.T) {
	makers := []struct {
		name string
		make func() (saver, error)
	}{
		{"Scalable", func() (saver, error) { return NewScalable(200, 0.01, ScalableConfig{}) }},
		{"ScalableCuckoo", func() (saver, error) { return NewScalableCuckoo(200, 0.01, ScalableConfig{Tightening: 0.9}) }},
		{"Rotating", func() (saver, error) {
			return NewRotating(200_000, 0.01, RotatingConfig{Generations: 3, Period: time.Hour})
		}},
	}
	// Adders stop after the saves (or at perAdder keys each, a bound on memory), pausing a
	// millisecond every 64 keys so that the saves, not the adds, set the pace.
	const adders, perAdder, saves = 4, 1_000_000, 30
	for _, m := range makers {
		f, err := m.make()
		if err != nil {
			t.Fatal(err)
		}
		var added [adders]atomic.Uint64 // adder a has added keys a<<32 | 0 .. added[a]-1
		var wg sync.WaitGroup
		var failure atomic.Value
		var stop, finished atomic.Bool
		for a := 0; a < adders; a++ {
			wg.Add(1)
			go func(a uint64) {
				defer wg.Done()
				for n := uint64(0); n < perAdder && !stop.Load(); n++ {
					if _, err := f.Insert(keyOfUint64(a<<32 | n)); err != nil {
						failure.Store(err)
						return
					}
					added[a].Store(n + 1)
					if n%64 == 63 {
						time.Sleep(time.Millisecond)
					}
				}
			}(uint64(a))
		}
		go func() { wg.Wait(); finished.Store(true) }()
		rounds, beside := 0, 0 // saves, and those that began while adds ran
		for ; rounds < saves; rounds++ {
			if !finished.Load() {
				beside++
			}
			var before []uint64
			for a := range added {
				for n, end := uint64(0), added[a].Load(); n < end; n++ {
					before = append(before, uint64(a)<<32|n)
				}
			}
			var data []byte
			if rounds%2 == 0 {
				data, err = f.MarshalBinary()
			} else {
				var b bytes.Buffer
				_, err = f.WriteTo(&b)
				data = b.Bytes()
			}
			if err != nil {
				t.Fatalf("%s: save %d: %v", m.name, rounds, err)
			}
			back, err := Load(bytes.NewReader(data))
			if err != nil {
				t.Fatalf("%s: load %d: %v", m.name, rounds, err)
			}
			answers, _ := back.TestUint64s(before)
			for i, a := range answers {
				if !a {
					t.Fatalf("%s, round %d: key %#x, added before the save began, is not in the copy", m.name, rounds, before[i])
				}
			}
			back.Close()
			time.Sleep(5 * time.Millisecond)
		}
		stop.Store(true)
		wg.Wait()
		if err, _ := failure.Load().(error); err != nil {
			t.Fatalf("%s: %v", m.name, err)
		}
		var keys uint64
		for a := range added {
			keys += added[a].Load()
		}
		g, _ := f.Geometry()
		t.Logf("%s: %d of %d saves began while adds ran; %d keys, %d parts", m.name, beside, saves, keys, g.Parts)
		if beside == 0 {
			t.Errorf("%s: no save ran beside the adds", m.name)
		}
		f.Close()
	}
}

// Go -> C: with LFBLOOM_GO_TO_C set to a directory, writes scalable.lfb, scalable-cuckoo.lfb
// (keys "go:0" to "go:1999") and rotating.lfb (manual clock, 3 generations, period 1000 ns: keys
// "go:0" to "go:999", a tick at 1500, keys "go:1000" to "go:1999") there, for the C test
// program's --go-composites mode (ctest go.to_c). Skipped otherwise.
func TestWriteCompositesForC(t *testing.T) {
	dir := os.Getenv("LFBLOOM_GO_TO_C")
	if dir == "" {
		t.Skip("LFBLOOM_GO_TO_C is not set (ctest go.to_c sets it)")
	}
	keys := keysFrom("go:", 0, 2000)
	s, _ := NewScalable(100, 0.01, ScalableConfig{}, WithSeed(5))
	c, _ := NewScalableCuckoo(100, 0.01, ScalableConfig{}, WithSeed(5))
	r, _ := NewRotating(1000, 0.01, RotatingConfig{Generations: 3, Period: 1000, ManualClock: true}, WithSeed(5))
	for i, k := range keys {
		if i == 1000 {
			r.Tick(1500)
		}
		for _, f := range []Interface{s, c, r} {
			if _, err := f.Insert([]byte(k)); err != nil {
				t.Fatal(err)
			}
		}
	}
	for name, f := range map[string]saver{"scalable.lfb": s, "scalable-cuckoo.lfb": c, "rotating.lfb": r} {
		file, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteTo(file); err != nil {
			t.Fatal(err)
		}
		if err := file.Close(); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
}

// lfbloom command -> Go: with LFBLOOM_CLI_TO_GO set to a directory where `lfbloom build` wrote
// scalable.lfb, scalable-cuckoo.lfb and rotating.lfb from keys.txt (ctest cli.to_go), each loads
// as its type and answers every key. Skipped otherwise.
func TestLoadCompositesFromTheCLI(t *testing.T) {
	dir := os.Getenv("LFBLOOM_CLI_TO_GO")
	if dir == "" {
		t.Skip("LFBLOOM_CLI_TO_GO is not set (ctest cli.to_go sets it)")
	}
	file, err := os.Open(filepath.Join(dir, "keys.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for lines := bufio.NewScanner(file); lines.Scan(); {
		keys = append(keys, lines.Text())
	}
	file.Close()
	if len(keys) < 1000 {
		t.Fatalf("%d keys", len(keys))
	}
	for name, want := range map[string]string{"scalable.lfb": "*lfbloom.Scalable", "scalable-cuckoo.lfb": "*lfbloom.ScalableCuckoo",
		"rotating.lfb": "*lfbloom.Rotating"} {
		f := loadFile(t, filepath.Join(dir, name))
		info, _ := f.Info()
		if got := fmt.Sprintf("%T", f); got != want {
			t.Fatalf("%s: a %s, not a %s", name, got, want)
		}
		if name != "rotating.lfb" && info.Parts < 2 || name == "rotating.lfb" && (info.Parts != 3 || info.Generation != 0) {
			t.Fatalf("%s: %+v", name, info)
		}
		if n := present(t, f, keys); n != len(keys) {
			t.Fatalf("%s: %d of %d keys present", name, n, len(keys))
		}
		f.Close()
	}
}

// MarshalBinary of a Scalable that adds a sub-filter every 2,000 keys while it is saved over and
// over: now and then one grows between MarshalBinary's size and its copy (lfb_save refuses the
// slice as too small), and MarshalBinary saves it again at the new size; no save fails, and each
// holds at least the sub-filters there were when it began.
func TestMarshalBinaryOfAScalableGrowingMeanwhile(t *testing.T) {
	for trial := 0; trial < 10; trial++ {
		f, err := NewScalable(2000, 0.01, ScalableConfig{Growth: 1, MaxFilters: 64})
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		var full atomic.Bool
		for a := 0; a < 2; a++ {
			wg.Add(1)
			go func(a uint64) {
				defer wg.Done()
				for n := uint64(0); !full.Load(); n++ {
					if _, err := f.Insert(keyOfUint64(a<<32 | n)); err != nil {
						full.Store(true) // ErrFull at 64 sub-filters
					}
				}
			}(uint64(a))
		}
		for !full.Load() {
			g, _ := f.Geometry()
			data, err := f.MarshalBinary()
			if err != nil {
				t.Fatalf("trial %d: MarshalBinary at %d sub-filters: %v", trial, g.Parts, err)
			}
			back, err := Load(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			if got, _ := back.Geometry(); got.Parts < g.Parts {
				t.Fatalf("trial %d: %d sub-filters saved, %d before the save", trial, got.Parts, g.Parts)
			}
			back.Close()
		}
		wg.Wait()
		f.Close()
	}
}

// A Rotating on the real clock counts the time between its encoding and its load: saved with
// its first deadline a period (200 ms) away and loaded 450 ms later, it has rotated twice (three
// times if this machine stalled past 600 ms) before any Add or Test; with ManualClock the same
// wait rotates nothing.
func TestRotatingClockRunsBetweenSaveAndLoad(t *testing.T) {
	for _, manual := range []bool{false, true} {
		f, _ := NewRotating(1000, 0.01, RotatingConfig{Generations: 3, Period: 200 * time.Millisecond, ManualClock: manual})
		f.AddString("k")
		data, err := f.MarshalBinary()
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(450 * time.Millisecond)
		back, err := Load(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		g, _ := back.Geometry()
		if manual && g.Generation != 0 || !manual && (g.Generation < 2 || g.Generation > 3) {
			t.Fatalf("manual clock %v: %d rotations at the load", manual, g.Generation)
		}
		back.Close()
	}
}

// A BF key's BF.SCANDUMP laid end to end, as ctest redis.exchange writes it with the keys it
// probed and the key's answers: Load reads a Scalable that answers every probe as the key did, and
// MarshalBinary gives the dump back byte for byte.
func TestLoadARedisDump(t *testing.T) {
	dir := os.Getenv("LFBLOOM_REDIS_DUMP")
	if dir == "" {
		t.Skip("LFBLOOM_REDIS_DUMP is not set (ctest go.from_redis sets it)")
	}
	dump, err := os.ReadFile(filepath.Join(dir, "redis-dump.lfb"))
	if err != nil {
		t.Fatal(err)
	}
	probes, err := os.ReadFile(filepath.Join(dir, "probes.txt"))
	if err != nil {
		t.Fatal(err)
	}
	answers, err := os.ReadFile(filepath.Join(dir, "answers.txt"))
	if err != nil {
		t.Fatal(err)
	}
	keys := strings.Split(strings.TrimSuffix(string(probes), "\n"), "\n")
	if len(keys) != len(answers) || len(keys) < 1000 {
		t.Fatalf("%d probes, %d answers", len(keys), len(answers))
	}
	f := loadFile(t, filepath.Join(dir, "redis-dump.lfb"))
	defer f.Close()
	s, ok := f.(*Scalable)
	if !ok {
		t.Fatalf("a %T, not a *lfbloom.Scalable", f)
	}
	got, err := s.TestStrings(keys)
	if err != nil {
		t.Fatal(err)
	}
	for i, key := range keys {
		if got[i] != (answers[i] == '1') {
			t.Fatalf("%q: %v, Redis answered %c", key, got[i], answers[i])
		}
	}
	saved, err := s.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(saved, dump) {
		t.Fatalf("MarshalBinary gives %d bytes that differ from the dump's %d", len(saved), len(dump))
	}
}
