package lfbloom

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"sync/atomic"
)

// bitArray answers Add and Test for a Filter from Go, on the C filter's words in place: a
// cgo call costs about 40 ns here, and its fences keep one lookup's cache miss from overlapping
// the next one's, so a C call per Test took 1.6x as long as a pure-Go filter
// (docs/PERFORMANCE.md). Batches and everything else still call C. The key-to-bits mapping is
// the filter's hash and probe rule of docs/FORMAT.md, which the file format records: rule 1
// (classic filters, and blocked ones loaded from files of lfbloom 1.3 or older) or rule 2 (new
// blocked filters). For other layouts and rules (split-block, one-word, two-word; a rule this
// package does not know, never guessed at) Add and Test call C, as they do for a filter mapped
// read-only, whose words Go must not write. bitarray_test.go checks every answer against C's and
// that both set the same bits.
//
// Every word is read with an atomic load and written with an atomic OR (Go's atomics are
// sequentially consistent), because other goroutines, C callers and processes sharing the file
// set bits in it at any time.
type bitArray struct {
	words    []uint64 // the C filter's words: valid until it is freed, which the handle guards
	bits     uint64   // m
	lines    uint64   // blocked: m / 512
	seed     uint64
	hashes   uint32 // k
	blocked  bool
	distinct bool // blocked, probe rule 2: a key's probes are stepped apart (see blockedProbes)
}

// The hash and probe rules of docs/FORMAT.md that this package implements.
const (
	ruleFields   = 1 // classic; blocked filters of lfbloom 1.0-1.3
	ruleDistinct = 2 // blocked filters since 1.4
)

// bitArrayOf describes the words of the C filter h, or returns an error if this package does not
// implement its layout and probe rule (then Add and Test call C).
func bitArrayOf(h uintptr) (*bitArray, error) {
	w, err := wordsOf(h)
	if err != nil {
		return nil, err
	}
	if err := implemented(w.layout, uint64(w.rule)); err != nil {
		return nil, err
	}
	return &bitArray{words: w.words, bits: w.bits, lines: w.bits / 512, seed: w.seed, hashes: w.hashes,
		blocked: w.layout == Blocked, distinct: w.rule == ruleDistinct}, nil
}

// implemented says whether Add and Test can run in Go for a filter of this layout and probe rule.
func implemented(layout Layout, rule uint64) error {
	if layout != Blocked && layout != Classic {
		return fmt.Errorf("%w: Go does not implement layout %d", ErrUnsupportedVersion, layout)
	}
	if rule != ruleFields && (layout != Blocked || rule != ruleDistinct) {
		return fmt.Errorf("%w: Go does not implement probe rule %d (layout %d)", ErrUnsupportedVersion, rule, layout)
	}
	return nil
}

// contains is lfb_contains.
func (a *bitArray) contains(key []byte) bool {
	h1, h2 := murmur3(key, a.seed)
	if !a.blocked {
		for i, probe := uint32(0), h1; i < a.hashes; i, probe = i+1, probe+h2 {
			w, mask := a.classicBit(probe)
			if atomic.LoadUint64(&a.words[w])&mask == 0 {
				return false
			}
		}
		return true
	}
	line := a.line(h1)
	all := uint64(1)
	probes := a.probes(h1, h2)
	for i := uint32(0); i < a.hashes; i++ {
		slot := probes.next()
		all &= atomic.LoadUint64(&line[slot>>6]) >> (slot & 63)
	}
	return all&1 != 0
}

// add is lfb_add: true if some bit of the key was clear.
func (a *bitArray) add(key []byte) bool {
	h1, h2 := murmur3(key, a.seed)
	changed := false
	if !a.blocked {
		for i, probe := uint32(0), h1; i < a.hashes; i, probe = i+1, probe+h2 {
			w, mask := a.classicBit(probe)
			if atomic.LoadUint64(&a.words[w])&mask == 0 && atomic.OrUint64(&a.words[w], mask)&mask == 0 {
				changed = true
			}
		}
		return changed
	}
	line, masks := a.blockedMasks(h1, h2)
	if missing(line, &masks) == 0 { // nothing to write: the line stays shared in every cache
		return false
	}
	for w, mask := range masks {
		if mask != 0 && atomic.OrUint64(&line[w], mask)&mask != mask {
			changed = true
		}
	}
	return changed
}

// classicBit is the word and mask of a classic probe: bit (probe & (2^63 - 1)) mod m, as Guava.
func (a *bitArray) classicBit(probe uint64) (uint64, uint64) {
	bit := (probe & (1<<63 - 1)) % a.bits
	return bit >> 6, 1 << (bit & 63)
}

// line is the key's 512-bit line: fastrange(h1, lines), the high half of h1 * lines.
func (a *bitArray) line(h1 uint64) []uint64 {
	l, _ := bits.Mul64(h1, a.lines)
	return a.words[l*8 : l*8+8 : l*8+8]
}

// refill gives the next value whose 9-bit fields are probes: the 128-bit product with
// 0x9e3779b97f4a7c15, folded (low XOR high).
func refill(x uint64) uint64 {
	hi, lo := bits.Mul64(x, 0x9e3779b97f4a7c15)
	return hi ^ lo
}

// blockedProbes yields a blocked key's slots in its 512-bit line, as line_probes in
// core/include/lfbloom/layouts/blocked_layout.hpp. Rule 1: the 9-bit fields of h2, seven per value, then
// of its refills. Rule 2: each of those fields moved on by the odd stride (h1 | 1) mod 512 until
// it reaches a slot the key has not probed yet, so the first 512 probes are distinct.
type blockedProbes struct {
	x, step  uint64
	field, i uint32
	distinct bool
	taken    [8]uint64 // rule 2: the slots probed so far
}

func (a *bitArray) probes(h1, h2 uint64) blockedProbes {
	return blockedProbes{x: h2, step: (h1 | 1) & 511, distinct: a.distinct}
}

// next is the key's next slot, in [0, 512).
func (p *blockedProbes) next() uint64 {
	if p.field == 7 {
		p.x, p.field = refill(p.x), 0
	}
	slot := p.x >> (9 * p.field) & 511
	p.field++
	if p.distinct && p.i < 512 {
		for p.taken[slot>>6]>>(slot&63)&1 != 0 {
			slot = (slot + p.step) & 511
		}
		p.taken[slot>>6] |= 1 << (slot & 63)
	}
	p.i++
	return slot
}

// blockedMasks is the key's line and, per word of it, the bits of its k probes.
func (a *bitArray) blockedMasks(h1, h2 uint64) (line []uint64, masks [8]uint64) {
	probes := a.probes(h1, h2)
	for i := uint32(0); i < a.hashes; i++ {
		slot := probes.next()
		masks[slot>>6] |= 1 << (slot & 63)
	}
	return a.line(h1), masks
}

// missing is the probe bits not yet set in the line, word by word ORed together.
func missing(line []uint64, masks *[8]uint64) uint64 {
	var miss uint64
	for w, mask := range masks {
		miss |= mask &^ atomic.LoadUint64(&line[w])
	}
	return miss
}

// murmur3 is MurmurHash3 x64_128 of key with seed (both halves seeded, length mixed in as 64
// bits), as core/include/lfbloom/base/murmur3.hpp; TestMurmur3Vectors checks the reference vectors.
func murmur3(key []byte, seed uint64) (h1, h2 uint64) {
	const c1, c2 = 0x87c37b91114253d5, 0x4cf5ad432745937f
	h1, h2 = seed, seed
	n := len(key)
	for ; len(key) >= 16; key = key[16:] {
		k1 := binary.LittleEndian.Uint64(key)
		k2 := binary.LittleEndian.Uint64(key[8:])
		h1 ^= bits.RotateLeft64(k1*c1, 31) * c2
		h1 = (bits.RotateLeft64(h1, 27)+h2)*5 + 0x52dce729
		h2 ^= bits.RotateLeft64(k2*c2, 33) * c1
		h2 = (bits.RotateLeft64(h2, 31)+h1)*5 + 0x38495ab5
	}
	if len(key) > 0 { // the tail, up to 15 bytes little-endian: bytes 0..7 in k1, 8..14 in k2
		var tail [16]byte
		copy(tail[:], key)
		if len(key) > 8 {
			h2 ^= bits.RotateLeft64(binary.LittleEndian.Uint64(tail[8:])*c2, 33) * c1
		}
		h1 ^= bits.RotateLeft64(binary.LittleEndian.Uint64(tail[:])*c1, 31) * c2
	}
	h1 ^= uint64(n)
	h2 ^= uint64(n)
	h1 += h2
	h2 += h1
	h1, h2 = fmix64(h1), fmix64(h2)
	h1 += h2
	return h1, h2 + h1
}

func fmix64(k uint64) uint64 {
	k = (k ^ k>>33) * 0xff51afd7ed558ccd
	k = (k ^ k>>33) * 0xc4ceb9fe1a85ec53
	return k ^ k>>33
}
