package lfbloom

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lfbloom/lfbloom/bindings/go/internal/native"
)

// one of every type, each holding "k", and what a ReadFrom or UnmarshalBinary into it takes.
func everyType(t *testing.T) map[string]Interface {
	t.Helper()
	inner, _ := New(1000, 0.01)
	must := func(f Interface, err error) Interface {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Insert([]byte("k")); err != nil {
			t.Fatal(err)
		}
		return f
	}
	return map[string]Interface{
		"Filter":         must(New(1000, 0.01)),
		"CountingFilter": must(NewCounting(1000, 0.01)),
		"Cuckoo":         must(NewCuckoo(1000, 0.001)),
		"Scalable":       must(NewScalable(1000, 0.01, ScalableConfig{})),
		"ScalableCuckoo": must(NewScalableCuckoo(1000, 0.01, ScalableConfig{})),
		"Rotating":       must(NewRotating(1000, 0.01, RotatingConfig{})),
		"Swappable":      must(NewSwappable(inner)),
	}
}

// Every type is one handle of its kind, named by lfb_kind_name, and describes itself through the
// one Info struct; code written against Interface sees a Scalable's refusal at its cap as an
// error, single and batched.
func TestEveryTypeThroughInterface(t *testing.T) {
	kinds := map[string][2]string{"Filter": {"blocked", "blocked"}, "CountingFilter": {"counting", "counting"},
		"Cuckoo": {"cuckoo", "cuckoo"}, "Scalable": {"scalable", "blocked"}, "ScalableCuckoo": {"scalable", "cuckoo"},
		"Rotating": {"rotating", "blocked"}, "Swappable": {"swappable", "blocked"}}
	for name, f := range everyType(t) {
		info, err := f.Info()
		geometry, gerr := f.Geometry()
		part, perr := f.Part(0)
		if err != nil || gerr != nil || perr != nil || info.Kind != kinds[name][0] || info.SubKind != kinds[name][1] ||
			geometry.Kind != info.Kind || geometry.Slots != info.Slots || geometry.SlotsSet != 0 || info.SlotsSet == 0 ||
			part.Slots == 0 || info.Parts < 1 {
			t.Errorf("%s: info %+v (%v), geometry %+v (%v), part 0 %+v (%v)", name, info, err, geometry, gerr, part, perr)
		}
		if found, err := f.Contains([]byte("k")); !found || err != nil {
			t.Errorf("%s: Contains = %v, %v", name, found, err)
		}
		if _, err := f.Part(info.Parts); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("%s: a part past the last: %v", name, err)
		}
		f.Close()
	}
	var full Interface
	full, _ = NewScalable(10, 0.01, ScalableConfig{MaxFilters: 1})
	defer full.Close()
	var err error
	for i := uint64(0); err == nil; i++ {
		_, err = full.Insert(keyOfUint64(i))
	}
	if !errors.Is(err, ErrFull) {
		t.Fatalf("Insert at the cap: %v, want ErrFull", err)
	}
	var stopped *BatchError
	if _, err := full.AddStrings([]string{"one more", "and more"}); !errors.As(err, &stopped) || !errors.Is(err, ErrFull) {
		t.Fatalf("AddStrings at the cap: %v, want a *BatchError wrapping ErrFull", err)
	}
}

// The package's closed rule, method by method on every type: after Close each method returns an
// error wrapping ErrClosed, but Close (nil, again) and the methods whose only result is a bool,
// which panic naming the method. Before Close the same calls do not answer ErrClosed.
func TestClosedRuleForEveryMethod(t *testing.T) {
	for name, f := range everyType(t) {
		for _, closed := range []bool{false, true} {
			if closed {
				f.Close()
			}
			v := reflect.ValueOf(f)
			for i := 0; i < v.NumMethod(); i++ {
				m := v.Type().Method(i)
				if m.Name == "Close" && !closed {
					continue
				}
				results, panicked := callWithValidArguments(t, f, v.Method(i), m.Name)
				what := fmt.Sprintf("%s.%s (closed %v)", name, m.Name, closed)
				switch last := m.Type.NumOut() - 1; {
				case m.Name == "Close":
					if !results[0].IsNil() {
						t.Errorf("%s: %v", what, results[0])
					}
				case m.Type.NumOut() == 1 && m.Type.Out(0).Kind() == reflect.Bool:
					if closed != (panicked != "") || closed && !strings.Contains(panicked, "called on a closed filter") {
						t.Errorf("%s: panic %q", what, panicked)
					}
				case panicked != "":
					t.Errorf("%s: panicked: %s", what, panicked)
				default:
					err, _ := results[last].Interface().(error)
					if errors.Is(err, ErrClosed) != closed {
						t.Errorf("%s: %v", what, err)
					}
				}
			}
		}
	}
}

// callWithValidArguments calls method with arguments it accepts on an open filter of f's type.
func callWithValidArguments(t *testing.T, f Interface, method reflect.Value, name string) (results []reflect.Value, panicked string) {
	var args []reflect.Value
	for i := 0; i < method.Type().NumIn(); i++ {
		var arg any
		switch in := method.Type().In(i); {
		case name == "UnmarshalBinary" || name == "ReadFrom":
			data := encodingLike(t, f)
			if arg = data; name == "ReadFrom" {
				arg = bytes.NewReader(data)
			}
		case in == reflect.TypeOf(&Filter{}):
			arg, _ = New(1000, 0.01)
		case in == reflect.TypeOf(&CountingFilter{}):
			arg, _ = NewCounting(1000, 0.01)
		case in == reflect.TypeOf(&Cuckoo{}):
			arg, _ = NewCuckoo(1000, 0.001)
		case in == reflect.TypeOf((*io.Writer)(nil)).Elem():
			arg = &bytes.Buffer{}
		default:
			arg = map[reflect.Type]any{reflect.TypeOf([]byte{}): []byte("k"), reflect.TypeOf(""): "k",
				reflect.TypeOf([][]byte{}): [][]byte{[]byte("k")}, reflect.TypeOf([]string{}): []string{"k"},
				reflect.TypeOf([]uint64{}): []uint64{1}, reflect.TypeOf(0): 0, reflect.TypeOf(uint64(0)): uint64(1),
				reflect.TypeOf(time.Duration(0)): time.Duration(0)}[in]
			if arg == nil {
				t.Fatalf("%s: no argument of type %v", name, in)
			}
		}
		args = append(args, reflect.ValueOf(arg))
	}
	defer func() {
		if r := recover(); r != nil {
			panicked = fmt.Sprint(r)
		}
	}()
	return method.Call(args), ""
}

// encodingLike is the encoding of a fresh filter of f's type.
func encodingLike(t *testing.T, f Interface) []byte {
	t.Helper()
	var fresh interface{ MarshalBinary() ([]byte, error) }
	switch f.(type) {
	case *CountingFilter:
		fresh, _ = NewCounting(100, 0.01)
	case *Cuckoo:
		fresh, _ = NewCuckoo(100, 0.01)
	case *ScalableCuckoo:
		fresh, _ = NewScalableCuckoo(100, 0.01, ScalableConfig{})
	case *Scalable:
		fresh, _ = NewScalable(100, 0.01, ScalableConfig{})
	case *Rotating:
		fresh, _ = NewRotating(100, 0.01, RotatingConfig{})
	default:
		fresh, _ = New(100, 0.01)
	}
	data, err := fresh.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	fresh.(Interface).Close()
	return data
}

// Every layout: Add and Test (in Go for blocked and classic, in C for the others) agree with the
// batches, which run in C, and with the same keys as strings and integers; Geometry names it.
func TestEveryLayoutAgreesWithItsBatches(t *testing.T) {
	for _, layout := range []Layout{Classic, Blocked, SplitBlock, OneWord, TwoWord} {
		f, err := New(5000, 0.01, WithLayout(layout), WithSeed(3))
		if err != nil {
			t.Fatal(err)
		}
		if inGo := f.bits != nil; inGo != (layout == Classic || layout == Blocked) {
			t.Errorf("layout %d: Add and Test in Go: %v", layout, inGo)
		}
		strs := make([]string, 4000)
		ints := make([]uint64, 4000)
		for i := range strs {
			strs[i], ints[i] = fmt.Sprint("key:", i), uint64(i)*0x9e3779b97f4a7c15
		}
		for _, s := range strs[:1000] {
			f.AddString(s)
		}
		if n, err := f.AddStrings(strs[1000:2000]); err != nil || n < 990 {
			t.Fatalf("layout %d: AddStrings: %d %v", layout, n, err)
		}
		if _, err := f.AddUint64s(ints[:2000]); err != nil {
			t.Fatal(err)
		}
		byString, _ := f.TestStrings(strs)
		byInt, _ := f.TestUint64s(ints)
		for i := range strs {
			if byString[i] != f.TestString(strs[i]) || byInt[i] != f.TestUint64(ints[i]) || i < 2000 && !(byString[i] && byInt[i]) {
				t.Fatalf("layout %d, key %d: batches %v %v, singles %v %v", layout, i, byString[i], byInt[i],
					f.TestString(strs[i]), f.TestUint64(ints[i]))
			}
		}
		if g, err := f.Geometry(); err != nil || g.Kind != kindName(int(layout)) || g.Parts != 1 || g.Seed != 3 {
			t.Errorf("layout %d: geometry %+v %v", layout, g, err)
		}
		f.Close()
	}
	for _, notBloom := range []Layout{kindCounting, kindCuckoo, kindScalable, 0} {
		if _, err := New(100, 0.01, WithLayout(notBloom)); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("New with layout %d: %v", notBloom, err)
		}
	}
}

// Copies are equal and then independent; Merge and Intersect are a union and an intersection;
// Clear empties; Geometry reports the shape without reading the bits.
func TestFilterCopyEqualMergeIntersectClear(t *testing.T) {
	for _, layout := range []Layout{Blocked, Classic, SplitBlock} {
		a, _ := New(10000, 0.001, WithLayout(layout))
		b, _ := New(10000, 0.001, WithLayout(layout))
		a.AddStrings([]string{"a1", "a2", "both"})
		b.AddStrings([]string{"b1", "b2", "both"})
		c, err := a.Copy()
		if err != nil {
			t.Fatal(err)
		}
		if eq, err := a.Equal(c); !eq || err != nil || !c.TestString("a1") {
			t.Fatalf("layout %d: a copy is not equal: %v %v", layout, eq, err)
		}
		c.AddString("only in the copy")
		if eq, _ := a.Equal(c); eq || a.TestString("only in the copy") {
			t.Fatalf("layout %d: the copy is not independent", layout)
		}
		union, _ := a.Copy()
		if err := union.Merge(b); err != nil {
			t.Fatal(err)
		}
		if err := a.Intersect(b); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"a1", "b2", "both"} {
			if !union.TestString(k) {
				t.Fatalf("layout %d: %s absent from the union", layout, k)
			}
		}
		if !a.TestString("both") || a.TestString("a1") && a.TestString("a2") {
			t.Fatalf("layout %d: the intersection is not one", layout)
		}
		g, _ := a.Geometry()
		info, _ := a.Info()
		if g.Slots != info.Slots || g.Hashes != info.Hashes || g.Bytes != info.Bytes || g.SlotsSet != 0 || g.Slots == 0 {
			t.Fatalf("layout %d: geometry %+v, info %+v", layout, g, info)
		}
		if err := a.Clear(); err != nil || a.TestString("both") {
			t.Fatalf("layout %d: Clear: %v", layout, err)
		}
		other, _ := New(10000, 0.001, WithLayout(layout), WithSeed(9))
		if err := a.Merge(other); !errors.Is(err, ErrIncompatible) {
			t.Fatalf("layout %d: a merge of another seed: %v", layout, err)
		}
		if eq, err := a.Equal(nil); eq || !errors.Is(err, ErrInvalidArgument) {
			t.Fatalf("Equal(nil): %v", err)
		}
		for _, f := range []*Filter{a, b, c, union, other} {
			f.Close()
		}
	}
}

// A counting filter's union sums counts (with itself too), its intersection takes the smaller
// count (a max-for-min mutant fails), and its copies are equal and independent.
func TestCountingCopyEqualMergeIntersect(t *testing.T) {
	a, _ := NewCounting(1000, 0.01)
	b, _ := NewCounting(1000, 0.01)
	defer a.Close()
	defer b.Close()
	a.AddUint64s([]uint64{7, 7, 7, 8})
	b.AddUint64s([]uint64{7, 9})
	c, err := a.Copy()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if eq, err := c.Equal(a); !eq || err != nil {
		t.Fatalf("copy not equal: %v", err)
	}
	if err := c.Merge(c); err != nil {
		t.Fatal(err)
	}
	if n, _ := c.Count(keyOfUint64(7)); n != 6 {
		t.Fatalf("a filter merged with itself counts 7 %d times, want 6", n)
	}
	if err := a.Intersect(b); err != nil {
		t.Fatal(err)
	}
	if n7, _ := a.Count(keyOfUint64(7)); n7 != 1 || a.TestUint64(8) || a.TestUint64(9) {
		t.Fatalf("intersection: 7 counted %d (want 1), 8 %v, 9 %v", n7, a.TestUint64(8), a.TestUint64(9))
	}
	if err := a.Merge(b); err != nil || !a.TestUint64(9) {
		t.Fatalf("merge: %v", err)
	}
	if g, err := a.Geometry(); err != nil || g.Kind != "counting" || g.SlotBits != 4 {
		t.Fatalf("geometry %+v %v", g, err)
	}
	if err := a.Clear(); err != nil || a.TestUint64(7) {
		t.Fatal("Clear left a key", err)
	}
}

// Batches of strings and integers answer as the same keys as bytes do, for every type, removes
// included; a batch of 10,000 allocates a few buffers at most, never one per key (no [][]byte is
// built).
func TestStringAndIntegerBatches(t *testing.T) {
	strs := []string{"alpha", "", "gamma", "delta"}
	ints := []uint64{0, 1, 1 << 63, 42}
	asBytes := func() [][]byte {
		var keys [][]byte
		for _, s := range strs {
			keys = append(keys, []byte(s))
		}
		for _, v := range ints {
			keys = append(keys, binary.LittleEndian.AppendUint64(nil, v))
		}
		return keys
	}()
	for name, f := range everyType(t) {
		if n, err := f.AddStrings(strs); n != 4 || err != nil {
			t.Fatalf("%s: AddStrings %d %v", name, n, err)
		}
		if n, err := f.AddUint64s(ints); n != 4 || err != nil {
			t.Fatalf("%s: AddUint64s %d %v", name, n, err)
		}
		found, err := f.TestMany(asBytes)
		if err != nil || fmt.Sprint(found) != fmt.Sprint([]bool{true, true, true, true, true, true, true, true}) {
			t.Fatalf("%s: the keys as bytes: %v %v", name, found, err)
		}
		if r, ok := f.(Remover); ok {
			removedStrings, err1 := r.RemoveStrings(strs[:2])
			removedInts, err2 := r.RemoveUint64s(ints[:2])
			left, _ := r.TestMany(asBytes)
			if err1 != nil || err2 != nil || fmt.Sprint(removedStrings, removedInts) != "[true true] [true true]" ||
				fmt.Sprint(left) != fmt.Sprint([]bool{false, false, true, true, false, false, true, true}) {
				t.Fatalf("%s: removes %v %v (%v %v), left %v", name, removedStrings, removedInts, err1, err2, left)
			}
		}
		f.Close()
	}
	f, _ := New(100_000, 0.01)
	defer f.Close()
	many := make([]string, 10_000)
	manyInts := make([]uint64, len(many))
	for i := range many {
		many[i], manyInts[i] = fmt.Sprint(i), uint64(i)
	}
	if a := testing.AllocsPerRun(10, func() { f.AddStrings(many); f.AddUint64s(manyInts) }); a > 100 {
		t.Errorf("%v allocations per batch add of 10,000 strings and 10,000 integers", a)
	}
}

// A Scalable that reaches its cap in the middle of a batch stops there: a *BatchError whose Done
// is the refused key's index; the keys before it were added, the rest were not.
func TestScalableFillsMidBatch(t *testing.T) {
	s, _ := NewScalable(100, 0.01, ScalableConfig{MaxFilters: 2})
	defer s.Close()
	keys := make([]uint64, 1000)
	for i := range keys {
		keys[i] = uint64(i)
	}
	added, err := s.AddUint64s(keys)
	var stopped *BatchError
	if !errors.As(err, &stopped) || !errors.Is(err, ErrFull) || stopped.Done < 100 || stopped.Done >= len(keys) {
		t.Fatalf("a batch past the cap: %d added, %v", added, err)
	}
	if added > uint64(stopped.Done) || added < uint64(stopped.Done)-10 {
		t.Fatalf("%d new of the %d keys before the refusal", added, stopped.Done)
	}
	found, _ := s.TestUint64s(keys[:stopped.Done])
	for i, ok := range found {
		if !ok {
			t.Fatalf("key %d, before the refusal, absent", i)
		}
	}
	var items uint64
	for i := 0; i < 2; i++ {
		sub, _ := s.SubFilter(i)
		items += sub.Items
	}
	if items != added {
		t.Fatalf("the sub-filters counted %d new keys, the batch %d: it went on past its refusal", items, added)
	}
}

// ScalableCuckoo removes answer as the other removers do: an absent key is (false, nil), a
// deferred remove (true, nil), a refused (ambiguous) remove an error, and in a batch a
// *BatchError with the answers before it.
func TestScalableCuckooRemoveAnswers(t *testing.T) {
	s, _ := NewScalableCuckoo(100, 0.01, ScalableConfig{})
	defer s.Close()
	if removed, err := s.RemoveString("never added"); removed || err != nil {
		t.Fatalf("remove of an absent key from an empty filter: %v %v", removed, err)
	}
	// 100 keys fill sub-filter 0, so the second copies of 0-65 go to sub-filter 1: each of those
	// keys matches in both, and its remove waits; 64 may wait (the list's floor), the next is refused
	for i := uint64(0); i < 100; i++ {
		s.AddUint64(i)
	}
	for i := uint64(0); i < 66; i++ {
		s.AddUint64(i)
	}
	if n, err := s.Count(keyOfUint64(7)); n != 2 || err != nil {
		t.Fatalf("Count(7) = %d, %v", n, err)
	}
	for i := uint64(0); i < 64; i++ {
		if removed, err := s.RemoveUint64(i); !removed || err != nil {
			t.Fatalf("remove %d (deferred): %v %v", i, removed, err)
		}
	}
	removed, err := s.RemoveUint64s([]uint64{90, 64, 91})
	var stopped *BatchError
	if !errors.As(err, &stopped) || !errors.Is(err, ErrAmbiguous) || stopped.Done != 1 || len(removed) != 1 || !removed[0] {
		t.Fatalf("a batch with an ambiguous remove: %v, %v", removed, err)
	}
	if !s.TestUint64(91) {
		t.Fatal("the batch went on past its refusal")
	}
}

// errorAfter returns its bytes, then err: a stream that must not be read past them.
type errorAfter struct {
	r   io.Reader
	err error
}

func (e *errorAfter) Read(b []byte) (int, error) {
	if n, _ := e.r.Read(b); n > 0 {
		return n, nil
	}
	return 0, e.err
}

var errReadPast = errors.New("read past the filter")

// ReadFrom and Load read exactly one filter from a stream, and never past it: two filters back
// to back come out one by one, and a stream that fails after the first is never touched.
func TestStreamsReadExactlyOneFilter(t *testing.T) {
	var stream bytes.Buffer
	var sizes []int64
	for _, layout := range []Layout{Blocked, SplitBlock} {
		f, _ := New(1000, 0.01, WithLayout(layout))
		f.AddString(fmt.Sprint("in layout ", layout))
		n, err := f.WriteTo(&stream)
		if data, _ := f.MarshalBinary(); err != nil || n != int64(len(data)) {
			t.Fatalf("WriteTo: %d %v, MarshalBinary %d bytes", n, err, len(data))
		}
		sizes = append(sizes, n)
		f.Close()
	}
	cuckoo, _ := NewCuckoo(1000, 0.001)
	cuckoo.AddString("in the cuckoo filter")
	cuckoo.WriteTo(&stream)
	cuckoo.Close()
	r := &errorAfter{&stream, errReadPast}
	into, _ := New(10, 0.1, WithLayout(Classic))
	defer into.Close()
	for i, layout := range []Layout{Blocked, SplitBlock} {
		n, err := into.ReadFrom(r)
		if g, _ := into.Geometry(); err != nil || n != sizes[i] || g.Kind != kindName(int(layout)) ||
			!into.TestString(fmt.Sprint("in layout ", layout)) || (into.bits != nil) != (layout == Blocked) {
			t.Fatalf("filter %d: %d bytes of %d, %v, kind %s", i, n, sizes[i], err, g.Kind)
		}
	}
	loaded, err := Load(r)
	if c, ok := loaded.(*Cuckoo); err != nil || !ok || !c.TestString("in the cuckoo filter") {
		t.Fatalf("Load: %T %v", loaded, err)
	}
	loaded.Close()
	if _, err := Load(r); !errors.Is(err, ErrIO) || !errors.Is(err, errReadPast) {
		t.Fatalf("a reader's own error: %v, want ErrIO wrapping it", err)
	}
	if _, err := Load(bytes.NewReader(nil)); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("an empty stream: %v", err)
	}
}

// WriteTo and ReadFrom stream a filter through a pipe: a 16 MB filter costs them a small part of
// its size in Go allocations (MarshalBinary's copy, or reading into a buffer, would be 16 MB).
func TestStreamsDoNotBufferTheFilter(t *testing.T) {
	f, _ := New(13_000_000, 0.01)
	defer f.Close()
	f.AddString("big")
	var encoded bytes.Buffer
	encoded.Grow(17 << 20)
	allocated := func(run func()) uint64 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		run()
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	var err error
	if a := allocated(func() { _, err = f.WriteTo(&encoded) }); err != nil || a > 1<<20 || encoded.Len() < 15<<20 {
		t.Fatalf("WriteTo of %d bytes allocated %d (%v)", encoded.Len(), a, err)
	}
	g, _ := New(10, 0.1)
	defer g.Close()
	if a := allocated(func() { _, err = g.ReadFrom(&encoded) }); err != nil || a > 1<<20 || !g.TestString("big") {
		t.Fatalf("ReadFrom allocated %d (%v)", a, err)
	}
}

// A load over the memory limit is refused from the header, before the rest is read or anything
// allocated: Load's WithMemoryLimit, and a filter made WithMemoryLimit for ReadFrom and
// UnmarshalBinary.
func TestLoadsRefuseFiltersOverTheLimit(t *testing.T) {
	big, _ := NewCounting(1_000_000, 0.01)
	data, _ := big.MarshalBinary()
	big.Close()
	r := bytes.NewReader(data)
	if _, err := Load(r, WithMemoryLimit(1<<20)); !errors.Is(err, ErrTooLarge) || r.Len() != len(data)-headerBytes {
		t.Fatalf("Load over the limit: %v, %d bytes left unread of %d", err, r.Len(), len(data))
	}
	limited, _ := NewCounting(100, 0.01, WithMemoryLimit(1<<20))
	defer limited.Close()
	if n, err := limited.ReadFrom(bytes.NewReader(data)); !errors.Is(err, ErrTooLarge) || n != headerBytes {
		t.Fatalf("ReadFrom over the limit: %d %v", n, err)
	}
	if err := limited.UnmarshalBinary(data); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("UnmarshalBinary over the limit: %v", err)
	}
	if loaded, err := Load(bytes.NewReader(data), WithMemoryLimit(uint64(len(data)))); err != nil {
		t.Fatalf("Load within the limit: %v", err)
	} else {
		loaded.Close()
	}
}

type failingWriter struct{ left int }

func (w *failingWriter) Write(b []byte) (int, error) {
	if w.left < len(b) {
		return 0, syscall.ENOSPC
	}
	w.left -= len(b)
	return len(b), nil
}

// A writer that fails mid-way ends WriteTo with its error: the C save, blocked on the full pipe,
// gets EPIPE and returns (no SIGPIPE kills the process, no goroutine waits for good).
func TestWriteToAFailingWriter(t *testing.T) {
	f, _ := New(1_000_000, 0.01)
	defer f.Close()
	if _, err := f.WriteTo(&failingWriter{left: 100_000}); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("WriteTo a failing writer: %v", err)
	}
	if _, err := f.MarshalBinary(); err != nil { // the filter is still usable
		t.Fatal(err)
	}
}

// Each status of the C library's table is a sentinel, found by errors.Is from a C failure of
// that status; the exported sentinels are the statuses their names say (SWIG's numbers).
func TestErrorsComeFromTheCTable(t *testing.T) {
	seen := map[error]bool{}
	for status := statusFirstError; native.Lfb_status_name(status) != ""; status-- {
		sentinel := statuses.byStatus[status]
		if sentinel == nil || seen[sentinel] || !errors.Is(newStatusError(status, "detail"), sentinel) ||
			sentinel.Error() != "lfbloom: "+native.Lfb_strerror(status) {
			t.Errorf("status %d: sentinel %v", status, sentinel)
		}
		seen[sentinel] = true
	}
	for want, status := range map[error]native.Enum_SS_lfb_status{ErrInvalidArgument: native.LFB_ERR_INVALID_ARGUMENT,
		ErrOutOfMemory: native.LFB_ERR_OUT_OF_MEMORY, ErrTooLarge: native.LFB_ERR_TOO_LARGE,
		ErrIncompatible: native.LFB_ERR_INCOMPATIBLE, ErrNotPresent: native.LFB_ERR_NOT_PRESENT, ErrCorrupt: native.LFB_ERR_CORRUPT,
		ErrUnsupportedVersion: native.LFB_ERR_UNSUPPORTED_VERSION, ErrIO: native.LFB_ERR_IO, ErrInternal: native.LFB_ERR_INTERNAL,
		ErrFull: native.LFB_ERR_FULL, ErrReadOnly: native.LFB_ERR_READ_ONLY, ErrTooManyDuplicates: native.LFB_ERR_TOO_MANY_DUPLICATES,
		ErrAmbiguous: native.LFB_ERR_AMBIGUOUS} {
		if want == nil || statuses.byStatus[int(status)] != want {
			t.Errorf("status %d is %v, want %v", status, statuses.byStatus[int(status)], want)
		}
	}
	if seen[ErrClosed] || seen[nil] {
		t.Error("ErrClosed, or no error, is a C status")
	}
}

// Shared files of every layout: created or opened in one call by racing openers, opened
// read-only (writes refused, a bool-only Add panics, the writers' adds seen), with a file mode.
func TestSharedFilesOfEveryLayout(t *testing.T) {
	dir := t.TempDir()
	umask := syscall.Umask(0)
	syscall.Umask(umask)
	type opener func(path string, opts ...Option) (Interface, error)
	for name, open := range map[string]opener{
		"Filter": func(p string, o ...Option) (Interface, error) {
			return OpenOrCreateShared(p, 10000, 0.01, append(o, WithLayout(TwoWord))...)
		},
		"CountingFilter": func(p string, o ...Option) (Interface, error) { return OpenCountingShared(p, 10000, 0.01, o...) },
		"Cuckoo":         func(p string, o ...Option) (Interface, error) { return OpenCuckooShared(p, 10000, 0.001, o...) },
	} {
		path := filepath.Join(dir, name)
		if _, err := open(path, WithReadOnly()); !errors.Is(err, ErrIO) {
			t.Fatalf("%s: a read-only open of no file: %v", name, err)
		}
		created, err := open(path, WithFileMode(0640))
		if err != nil {
			t.Fatal(err)
		}
		opened, err := open(path)
		if err != nil {
			t.Fatal(err)
		}
		reader, err := open(path, WithReadOnly())
		if err != nil {
			t.Fatal(err)
		}
		whatever, err := OpenSharedFile(path, WithReadOnly())
		if err != nil || reflect.TypeOf(whatever) != reflect.TypeOf(created) {
			t.Fatalf("%s: OpenSharedFile: %T %v", name, whatever, err)
		}
		if st, _ := os.Stat(path); st.Mode().Perm() != 0640&^os.FileMode(umask) {
			t.Errorf("%s: mode %v", name, st.Mode())
		}
		created.Insert([]byte("from the creator"))
		for _, f := range []Interface{opened, reader, whatever} {
			if found, err := f.Contains([]byte("from the creator")); !found || err != nil {
				t.Fatalf("%s: an add through one handle is not seen through another: %v", name, err)
			}
		}
		if _, err := reader.Insert([]byte("x")); !errors.Is(err, ErrReadOnly) {
			t.Fatalf("%s: Insert into a read-only filter: %v", name, err)
		}
		if _, err := reader.AddStrings([]string{"x"}); !errors.Is(err, ErrReadOnly) {
			t.Fatalf("%s: AddStrings into a read-only filter: %v", name, err)
		}
		for _, f := range []Interface{created, opened, reader, whatever} {
			f.Close()
		}
	}
	path := filepath.Join(dir, "blocked")
	if _, err := NewShared(path, 1000, 0.01, WithReadOnly()); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("creating a file read-only: %v", err)
	}
	writer, _ := NewShared(path, 1000, 0.01)
	defer writer.Close()
	reader, _ := OpenOrCreateShared(path, 1000, 0.01, WithReadOnly())
	defer reader.Close()
	writer.AddString("seen")
	if !reader.TestString("seen") || reader.bits != nil {
		t.Fatal("a read-only Filter must query through C and see the writer's adds")
	}
	defer func() {
		if r := fmt.Sprint(recover()); !strings.Contains(r, "Add") || !strings.Contains(r, "read-only") {
			t.Fatalf("Add on a read-only Filter: panic %q", r)
		}
	}()
	reader.AddString("refused")
}

// A Swappable's and a Rotating's parts, and the counters Geometry carries for them.
func TestCompositesParts(t *testing.T) {
	first, _ := New(1000, 0.01)
	s, _ := NewSwappable(first)
	defer s.Close()
	next, _ := New(5000, 0.01, WithLayout(OneWord))
	s.Stage(next)
	if g, _ := s.Geometry(); g.Parts != 2 {
		t.Fatalf("%d parts while one is staged", g.Parts)
	}
	if staged, err := s.Part(1); err != nil || staged.Kind != "one-word" || staged.Capacity != 5000 {
		t.Fatalf("the staged part: %+v %v", staged, err)
	}
	s.Publish()
	if g, _ := s.Geometry(); g.Parts != 1 || g.Generation != 1 || g.SubKind != "one-word" {
		t.Fatalf("after Publish: %+v", g)
	}
	r, _ := NewRotating(1000, 0.01, RotatingConfig{Generations: 3})
	defer r.Close()
	r.AddString("k")
	r.Rotate()
	if older, _ := r.Part(1); older.SlotsSet == 0 {
		t.Fatal("the generation before the current one is empty")
	}
	if g, _ := r.Geometry(); g.Parts != 3 || g.Generation != 1 {
		t.Fatalf("rotating geometry %+v", g)
	}
}

// The closed rule comes before the arguments: a closed filter answers ErrClosed also to calls
// whose arguments are bad.
func TestClosedBeforeBadArguments(t *testing.T) {
	f, err := New(1000, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, err := f.Equal(nil); !errors.Is(err, ErrClosed) {
		t.Errorf("Equal(nil) after Close: %v", err)
	}
	if err := f.Merge(nil); !errors.Is(err, ErrClosed) {
		t.Errorf("Merge(nil) after Close: %v", err)
	}
	if _, err := f.Part(-1); !errors.Is(err, ErrClosed) {
		t.Errorf("Part(-1) after Close: %v", err)
	}
}

// A bulk build (AddBulk, 1.11's LFB_BATCH_BULK) leaves every kind as the keys added one by one
// would: the same bits, counters or fingerprints (Equal), or for the composites (Scalable,
// Rotating, Swappable), which have no Equal, the same fill and parts. The Bloom filters span several 256 KiB partitions, so the build
// merges more than one; 1 and 3 threads, and 0 (one per CPU).
func TestAddBulkEqualsAddsOneByOne(t *testing.T) {
	const n = 200_000
	keys := make([][]byte, n)
	strs := make([]string, n)
	ints := make([]uint64, n)
	intKeys := make([][]byte, n)
	for i := range keys {
		strs[i], ints[i] = fmt.Sprint("bulk:", i), uint64(i)*0x9e3779b97f4a7c15
		keys[i], intKeys[i] = []byte(strs[i]), keyOfUint64(ints[i])
	}
	makers := map[string]func() (Interface, error){
		"Classic":        func() (Interface, error) { return New(500_000, 0.01, WithLayout(Classic)) },
		"Blocked":        func() (Interface, error) { return New(500_000, 0.01) },
		"SplitBlock":     func() (Interface, error) { return New(500_000, 0.01, WithLayout(SplitBlock)) },
		"OneWord":        func() (Interface, error) { return New(500_000, 0.01, WithLayout(OneWord)) },
		"TwoWord":        func() (Interface, error) { return New(500_000, 0.01, WithLayout(TwoWord)) },
		"CountingFilter": func() (Interface, error) { return NewCounting(500_000, 0.01) },
		"Cuckoo":         func() (Interface, error) { return NewCuckoo(500_000, 0.01) },
		"Scalable":       func() (Interface, error) { return NewScalable(50_000, 0.01, ScalableConfig{}) },
		"Rotating":       func() (Interface, error) { return NewRotating(500_000, 0.01, RotatingConfig{}) },
		"Swappable": func() (Interface, error) {
			f, _ := New(500_000, 0.01)
			return NewSwappable(f)
		},
	}
	type bulkAdder interface {
		AddBulk(keys [][]byte, threads int) error
		AddBulkStrings(keys []string, threads int) error
		AddBulkUint64s(keys []uint64, threads int) error
	}
	for name, newFilter := range makers {
		for _, threads := range []int{1, 3, 0} {
			one, err := newFilter()
			if err != nil {
				t.Fatal(err)
			}
			bulk, _ := newFilter()
			singles := keys
			switch b := bulk.(bulkAdder); threads { // the three key shapes
			case 1:
				err = b.AddBulk(keys, threads)
			case 3:
				err = b.AddBulkStrings(strs, threads)
			default:
				err, singles = b.AddBulkUint64s(ints, threads), intKeys
			}
			if err != nil {
				t.Fatalf("%s, %d threads: %v", name, threads, err)
			}
			for _, k := range singles {
				if _, err := one.Insert(k); err != nil {
					t.Fatalf("%s: Insert: %v", name, err)
				}
			}
			what := fmt.Sprintf("%s, %d threads", name, threads)
			var equal bool
			switch o := one.(type) {
			case *Filter:
				equal, err = o.Equal(bulk.(*Filter))
			case *CountingFilter:
				equal, err = o.Equal(bulk.(*CountingFilter))
			case *Cuckoo:
				equal, err = o.Equal(bulk.(*Cuckoo))
			default:
				a, _ := one.Info()
				b, _ := bulk.Info()
				equal = a.SlotsSet == b.SlotsSet && a.Parts == b.Parts && a.SlotsSet > 0
			}
			if !equal || err != nil {
				t.Errorf("%s: the bulk build differs from adds one by one (%v)", what, err)
			}
			found, err := bulk.TestMany(singles)
			for i := range singles {
				if err != nil || !found[i] {
					t.Fatalf("%s: key %d absent after the bulk build (%v)", what, i, err)
				}
			}
			one.Close()
			bulk.Close()
		}
	}
}

// AddBulk's errors: a negative or too large thread count adds nothing (ErrInvalidArgument); a
// Cuckoo's refusal stops the build as AddMany's does (a *BatchError); after Close, ErrClosed,
// whatever the arguments; no keys is no error.
func TestAddBulkErrors(t *testing.T) {
	f, _ := New(1000, 0.01)
	for _, threads := range []int{-1, 1 << 32} {
		if err := f.AddBulk([][]byte{[]byte("k")}, threads); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("AddBulk with %d threads: %v", threads, err)
		}
	}
	if f.TestString("k") {
		t.Error("a refused AddBulk added its key")
	}
	if err := f.AddBulk(nil, 2); err != nil {
		t.Errorf("AddBulk of no keys: %v", err)
	}
	f.Close()
	for _, threads := range []int{2, -1} {
		if err := f.AddBulk([][]byte{[]byte("k")}, threads); !errors.Is(err, ErrClosed) {
			t.Errorf("AddBulk with %d threads after Close: %v", threads, err)
		}
	}
	c, _ := NewCuckoo(1000, 0.001, WithFingerprintBits(16))
	defer c.Close()
	dups := [][]byte{[]byte("new")}
	for i := 0; i < 10; i++ {
		dups = append(dups, []byte("dup"))
	}
	var stopped *BatchError
	if err := c.AddBulk(dups, 2); !errors.As(err, &stopped) || !errors.Is(err, ErrTooManyDuplicates) || stopped.Done != 9 {
		t.Fatalf("a cuckoo bulk build with a ninth copy: %v", err)
	}
	if n, _ := c.Count([]byte("dup")); n != 8 || !c.TestString("new") {
		t.Fatalf("the refused build kept %d copies", n)
	}
}

// AddBulkStaged rebuilds a Swappable's staged filter only, as AddManyStaged, and ends with the
// bits of adds one by one; without a staged filter it is ErrInvalidArgument.
func TestAddBulkStaged(t *testing.T) {
	first, _ := New(100_000, 0.01)
	h, err := NewSwappable(first)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	keys := make([][]byte, 50_000)
	for i := range keys {
		keys[i] = []byte(fmt.Sprint("staged:", i))
	}
	if err := h.AddBulkStaged(keys, 2); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("AddBulkStaged with nothing staged: %v", err)
	}
	next, _ := New(100_000, 0.01)
	if err := h.Stage(next); err != nil {
		t.Fatal(err)
	}
	if err := h.AddBulkStaged(keys, -1); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("AddBulkStaged with -1 threads: %v", err)
	}
	if err := h.AddBulkStaged(keys, 2); err != nil {
		t.Fatal(err)
	}
	if h.Test(keys[7]) {
		t.Fatal("a staged key visible before Publish")
	}
	if err := h.Publish(); err != nil {
		t.Fatal(err)
	}
	reference, _ := New(100_000, 0.01)
	defer reference.Close()
	for _, k := range keys {
		reference.Add(k)
	}
	got, _ := h.Info()
	want, _ := reference.Info()
	if got.SlotsSet != want.SlotsSet || !h.Test(keys[7]) || !h.Test(keys[len(keys)-1]) {
		t.Fatalf("after Publish: %d bits set, one by one %d", got.SlotsSet, want.SlotsSet)
	}
}
