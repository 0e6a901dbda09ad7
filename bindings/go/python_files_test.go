package lfbloom

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// Keys shared with bindings/python/tests/exchange.py, made by the same rule there: str keys
// "xlang:é:<i>" and uint64 keys i * 0x9E3779B97F4A7C15 (Python gives those with the top bit set
// as negative ints: the same 8 little-endian bytes). Keys 0..1999 are added, 0..3999 asked.
const exchangeAdded, exchangeAsked = 2000, 4000

func exchangeStrings(count int) []string { return keysFrom("xlang:\u00e9:", 0, count) }

func exchangeUint64s(count int) []uint64 {
	keys := make([]uint64, count)
	for i := range keys {
		keys[i] = uint64(i) * 0x9E3779B97F4A7C15
	}
	return keys
}

// TestFilesOfPython checks Python's files and writes Go's for Python (ctest python.go, through
// bindings/python/tests/exchange_go.sh, sets LFBLOOM_PYTHON_FILES): Go's filter of the same keys
// is Python's file byte for byte, and the loaded file answers every asked key as Go's does.
func TestFilesOfPython(t *testing.T) {
	dir := os.Getenv("LFBLOOM_PYTHON_FILES")
	if dir == "" {
		t.Skip("LFBLOOM_PYTHON_FILES is not set (ctest python.go sets it)")
	}
	strs, ints := exchangeStrings(exchangeAsked), exchangeUint64s(exchangeAsked)
	for _, name := range []string{"str", "int"} {
		ours, err := New(exchangeAdded, 0.01, WithSeed(39))
		if err != nil {
			t.Fatal(err)
		}
		defer ours.Close()
		var answers []bool
		if name == "str" {
			_, err = ours.AddStrings(strs[:exchangeAdded])
			if err == nil {
				answers, err = ours.TestStrings(strs)
			}
		} else {
			_, err = ours.AddUint64s(ints[:exchangeAdded])
			if err == nil {
				answers, err = ours.TestUint64s(ints)
			}
		}
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, fmt.Sprintf("py-%s.lfb", name))
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		saved, err := ours.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(saved, data) {
			t.Fatalf("%s: not the bytes Go makes from the same keys", path)
		}
		theirs := loadFile(t, path)
		defer theirs.Close()
		var got []bool
		if name == "str" {
			got, err = theirs.TestStrings(strs)
		} else {
			got, err = theirs.TestUint64s(ints)
		}
		if err != nil {
			t.Fatal(err)
		}
		for i := range got {
			if got[i] != answers[i] || (i < exchangeAdded && !got[i]) {
				t.Fatalf("%s: key %d answered %v, Go's own filter %v", path, i, got[i], answers[i])
			}
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("go-%s.lfb", name)), saved, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
