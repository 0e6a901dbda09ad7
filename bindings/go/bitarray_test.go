package lfbloom

import (
	"fmt"
	"math/rand"
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

// Test reads the bits from Go; TestMany asks C. They must agree on every key, present or absent,
// for both layouts, seeds, every key length up to two blocks and k from 1 to past 16 (blocked
// probes refill their hash after 7 fields).
func TestBitArrayAgreesWithC(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for _, layout := range []Layout{Blocked, Classic} {
		for _, fpr := range []float64{0.5, 0.01, 1e-4, 1e-7} {
			for _, seed := range []uint64{0, 0x9747b28c} {
				name := fmt.Sprintf("layout %d, fpr %g, seed %d", layout, fpr, seed)
				f, err := New(2000, fpr, WithLayout(layout), WithSeed(seed))
				if err != nil {
					t.Fatal(err)
				}
				keys := make([][]byte, 6000)
				for i := range keys {
					keys[i] = make([]byte, i%40)
					rng.Read(keys[i])
				}
				if _, err := f.AddMany(keys[:2000]); err != nil {
					t.Fatal(err)
				}
				fromC, err := f.TestMany(keys)
				if err != nil {
					t.Fatal(err)
				}
				positives := 0
				for i, k := range keys {
					if got := f.Test(k); got != fromC[i] {
						t.Fatalf("%s: key %d (%d bytes): Go says %v, C %v", name, i, len(k), got, fromC[i])
					} else if got {
						positives++
					}
				}
				if positives < 2000 {
					t.Fatalf("%s: %d of 2000 added keys found", name, positives)
				}
				if s, _ := f.Stats(); fpr == 1e-7 && s.Hashes <= 16 {
					t.Errorf("%s: k = %d, want a case past 16", name, s.Hashes)
				}
				f.Close()
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
