package lfbloom

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"testing"
)

// The reference vectors of ../shared/REFERENCE.md (out[0], out[1] of the reference code).
func TestMurmur3Vectors(t *testing.T) {
	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	fox := "The quick brown fox jumps over the lazy dog"
	for _, v := range []struct {
		key    string
		seed   uint64
		h1, h2 uint64
	}{
		{"", 0, 0, 0},
		{"hello", 0, 0xcbd8a7b341bd9b02, 0x5b1e906a48ae1d19},
		{"hello, world", 0, 0x342fac623a5ebc8e, 0x4cdcbc079642414d},
		{fox, 0, 0xe34bbc7bbc071b6c, 0x7a433ca9c49a9347},
		{"abc", 0, 0xb4963f3f3fad7867, 0x3ba2744126ca2d52},
		{"0123456789abcdef", 0, 0x4be06d94cf4ad1a7, 0x87c35b5c63a708da},
		{"0123456789abcdef0", 0, 0xeb24ae8785a5c075, 0x73fb68b3313128ca},
		{string(all), 0, 0x1c99c313dc6f12b9, 0x70d6077fab34cc1e},
		{"", 1, 0x4610abe56eff5cb5, 0x51622daa78f83583},
		{"hello", 1, 0xa78ddff5adae8d10, 0x128900ef20900135},
		{fox, 42, 0x740dcf93fe0bd5d7, 0xc4546cf4ec705c8f},
		{"hello", 0x9747b28c, 0x8c23d6856f071a2e, 0x2a905546b3c1cb83},
	} {
		if h1, h2 := murmur3([]byte(v.key), v.seed); h1 != v.h1 || h2 != v.h2 {
			t.Errorf("murmur3(%.20q, %d) = %016x %016x, want %016x %016x", v.key, v.seed, h1, h2, v.h1, v.h2)
		}
	}
}

// Add and Test run in Go; AddMany and TestMany in C. For both layouts, two seeds, key lengths 0 to
// 39 bytes (two blocks and a tail) and k from 1 to past 16 (blocked probes refill their hash after 7
// fields): the same keys added one way and the other give byte-identical filters, Add reports
// new keys as AddMany does, and Test agrees with TestMany on every key, present or absent.
func TestGoAndCAgree(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for _, layout := range []Layout{Blocked, Classic} {
		for _, fpr := range []float64{0.5, 0.01, 1e-4, 1e-7} {
			for _, seed := range []uint64{0, 0x9747b28c} {
				name := fmt.Sprintf("layout %d, fpr %g, seed %d", layout, fpr, seed)
				inGo, _ := New(2000, fpr, WithLayout(layout), WithSeed(seed))
				inC, err := New(2000, fpr, WithLayout(layout), WithSeed(seed))
				if err != nil {
					t.Fatal(err)
				}
				keys := make([][]byte, 6000)
				for i := range keys {
					keys[i] = make([]byte, i%40)
					rng.Read(keys[i])
				}
				keys[1] = keys[0] // a duplicate: not new the second time
				newInGo := uint64(0)
				for _, k := range keys[:2000] {
					if inGo.Add(k) {
						newInGo++
					}
				}
				newInC, err := inC.AddMany(keys[:2000])
				if err != nil {
					t.Fatal(err)
				}
				goBytes, _ := inGo.MarshalBinary()
				cBytes, _ := inC.MarshalBinary()
				if !bytes.Equal(goBytes, cBytes) || newInGo != newInC || newInC >= 2000 {
					t.Fatalf("%s: Go's adds differ from C's (%d and %d new)", name, newInGo, newInC)
				}
				fromC, err := inC.TestMany(keys)
				if err != nil {
					t.Fatal(err)
				}
				positives := 0
				for i, k := range keys {
					if got := inC.Test(k); got != fromC[i] {
						t.Fatalf("%s: key %d (%d bytes): Go says %v, C %v", name, i, len(k), got, fromC[i])
					} else if got {
						positives++
					}
				}
				if positives < 2000 {
					t.Fatalf("%s: %d of 2000 added keys found", name, positives)
				}
				if s, _ := inC.Stats(); fpr == 1e-7 && s.Hashes <= 16 {
					t.Errorf("%s: k = %d, want a case past 16", name, s.Hashes)
				}
				inGo.Close()
				inC.Close()
			}
		}
	}
}

// A filter read back by UnmarshalBinary is queried through its own words, not the old ones.
func TestBitArrayFollowsUnmarshal(t *testing.T) {
	src, _ := New(1000, 0.01, WithSeed(5))
	dst, _ := New(50000, 0.001, WithLayout(Classic))
	defer src.Close()
	defer dst.Close()
	src.AddString("moved")
	data, err := src.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if err := dst.UnmarshalBinary(data); err != nil {
		t.Fatal(err)
	}
	if !dst.TestString("moved") {
		t.Fatal("unmarshaled key absent")
	}
	if err := dst.UnmarshalBinary(data[:40]); err == nil || !dst.TestString("moved") {
		t.Fatal("a truncated encoding must fail and leave the filter as it was")
	}
}

// Single-key calls allocate nothing, on bit and counting filters (a key that escaped to the heap
// would cost an allocation per call).
func TestSingleKeyCallsDoNotAllocate(t *testing.T) {
	f, _ := New(1000, 0.01)
	c, _ := NewCounting(1000, 0.01)
	defer f.Close()
	defer c.Close()
	key := []byte("key")
	if n := testing.AllocsPerRun(100, func() { f.AddUint64(7); f.TestUint64(7); f.TestString("x"); f.Add(key) }); n != 0 {
		t.Errorf("Filter: %v allocations per round of single-key calls", n)
	}
	if n := testing.AllocsPerRun(100, func() { c.AddUint64(7); c.TestUint64(7); c.TestString("x"); c.Add(key) }); n != 0 {
		t.Errorf("CountingFilter: %v allocations per round of single-key calls", n)
	}
}

// Blocked filters loaded from files of lfbloom 1.3 or older keep probe rule 1, in Go as in C: the
// golden file's words are queried and extended by Go exactly as C does.
func TestRuleOneFiltersAgree(t *testing.T) {
	data, err := os.ReadFile("../../tests/data/format-v1/blocked.lfb")
	if err != nil {
		t.Fatal(err)
	}
	inGo, _ := New(10, 0.5)
	inC, _ := New(10, 0.5)
	defer inGo.Close()
	defer inC.Close()
	if err := inGo.UnmarshalBinary(data); err != nil {
		t.Fatal(err)
	}
	if err := inC.UnmarshalBinary(data); err != nil {
		t.Fatal(err)
	}
	if inGo.bits.distinct {
		t.Fatal("a rule-1 file loaded with rule 2")
	}
	keys := make([][]byte, 3000)
	for i := range keys {
		keys[i] = []byte(fmt.Sprintf("golden:%d", i)) // the first 100 are in the file
	}
	fromC, err := inC.TestMany(keys)
	if err != nil {
		t.Fatal(err)
	}
	for i, k := range keys {
		if got := inGo.Test(k); got != fromC[i] || (i < 100 && !got) {
			t.Fatalf("key %q: Go says %v, C %v", k, got, fromC[i])
		}
	}
	for _, k := range keys[100:600] {
		inGo.Add(k)
	}
	if _, err := inC.AddMany(keys[100:600]); err != nil {
		t.Fatal(err)
	}
	goBytes, _ := inGo.MarshalBinary()
	cBytes, _ := inC.MarshalBinary()
	if !bytes.Equal(goBytes, cBytes) || goBytes[11] != ruleFields {
		t.Fatal("Go's rule-1 adds differ from C's, or the rule changed")
	}
}

// Go answers only for the rules it implements; any other makes the filter unusable from Go
// rather than wrong.
func TestUnknownRulesAreRefused(t *testing.T) {
	for _, c := range []struct {
		layout Layout
		rule   uint64
		ok     bool
	}{{Blocked, 1, true}, {Blocked, 2, true}, {Classic, 1, true}, {Classic, 2, false}, {Blocked, 3, false},
		{Blocked, 0, false}, {Layout(3), 1, false}} {
		if err := implemented(c.layout, c.rule); (err == nil) != c.ok || (err != nil && !errors.Is(err, ErrUnsupportedVersion)) {
			t.Errorf("layout %d, rule %d: %v", c.layout, c.rule, err)
		}
	}
}

// Defect 8 through Go's own Add and Test: the empty key (hash (0, 0) under the default seed 0) is
// present in at most 19 of 500 full blocked filters at p = 1%, the (1 - 1e-6) quantile of
// Binomial(500, 0.01); probe rule 1 put it in about 38% of them.
func TestEmptyKeyIsNoLikelierPresent(t *testing.T) {
	rng := rand.New(rand.NewSource(8))
	present := 0
	key := make([]byte, 8)
	for i := 0; i < 500; i++ {
		f, err := New(1000, 0.01)
		if err != nil {
			t.Fatal(err)
		}
		for j := 0; j < 1000; j++ {
			rng.Read(key)
			f.Add(key)
		}
		if f.Test(nil) {
			present++
		}
		f.Close()
	}
	if present > 19 {
		t.Fatalf("the empty key is present in %d of 500 full filters", present)
	}
}
