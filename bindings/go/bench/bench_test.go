// Benchmarks of lfbloom against bits-and-blooms/bloom at equal (n, p), and of its Cuckoo against
// seiflotfy/cuckoofilter (cuckoo_bench_test.go), in their own module so the
// main module has no third-party dependency:
//
//	cd bindings/go/bench && PKG_CONFIG_PATH=../../../build/lib/pkgconfig go test -bench . -benchmem
package bench

import (
	"math/rand"
	"sync"
	"testing"

	"github.com/bits-and-blooms/bloom/v3"
	lfbloom "github.com/lfbloom/lfbloom/bindings/go"
)

const (
	n     = 1_000_000
	p     = 0.01
	keys  = 1 << 20
	batch = 64
)

var keySet = func() [][]byte {
	rng := rand.New(rand.NewSource(42))
	out := make([][]byte, keys)
	for i := range out {
		out[i] = make([]byte, 16)
		rng.Read(out[i])
	}
	return out
}()

func filled() (*lfbloom.Filter, *bloom.BloomFilter) {
	ours, err := lfbloom.New(n, p)
	if err != nil {
		panic(err)
	}
	theirs := bloom.NewWithEstimates(n, p)
	for i := 0; i < n/2; i++ {
		ours.Add(keySet[i])
		theirs.Add(keySet[i])
	}
	return ours, theirs
}

func BenchmarkAdd(b *testing.B) {
	ours, theirs := filled()
	defer ours.Close()
	b.Run("lfbloom", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			ours.Add(keySet[i&(keys-1)])
		}
	})
	b.Run("bits-and-blooms", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			theirs.Add(keySet[i&(keys-1)])
		}
	})
}

func BenchmarkTest(b *testing.B) {
	ours, theirs := filled()
	defer ours.Close()
	b.Run("lfbloom", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			ours.Test(keySet[i&(keys-1)])
		}
	})
	b.Run("bits-and-blooms", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			theirs.Test(keySet[i&(keys-1)])
		}
	})
}

// Per key: ns/op here is for a batch of 64 keys; divide by 64.
func BenchmarkAddMany64(b *testing.B) {
	ours, theirs := filled()
	defer ours.Close()
	b.Run("lfbloom", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			start := (i * batch) & (keys - 1)
			ours.AddMany(keySet[start : start+batch])
		}
	})
	b.Run("bits-and-blooms", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			start := (i * batch) & (keys - 1)
			for _, k := range keySet[start : start+batch] {
				theirs.Add(k)
			}
		}
	})
}

func BenchmarkTestMany64(b *testing.B) {
	ours, theirs := filled()
	defer ours.Close()
	b.Run("lfbloom", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			start := (i * batch) & (keys - 1)
			ours.TestMany(keySet[start : start+batch])
		}
	})
	b.Run("bits-and-blooms", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			start := (i * batch) & (keys - 1)
			for _, k := range keySet[start : start+batch] {
				theirs.Test(k)
			}
		}
	})
}

// Test from every core at once (b.RunParallel, GOMAXPROCS goroutines). bits-and-blooms' Test only
// reads, so sharing it for queries alone is safe.
func BenchmarkTestParallel(b *testing.B) {
	ours, theirs := filled()
	defer ours.Close()
	b.Run("lfbloom", func(b *testing.B) {
		b.RunParallel(func(pb *testing.PB) {
			for i := rand.Int(); pb.Next(); i++ {
				ours.Test(keySet[i&(keys-1)])
			}
		})
	})
	b.Run("bits-and-blooms", func(b *testing.B) {
		b.RunParallel(func(pb *testing.PB) {
			for i := rand.Int(); pb.Next(); i++ {
				theirs.Test(keySet[i&(keys-1)])
			}
		})
	})
}

// Add from every core at once. bits-and-blooms is not safe for concurrent Adds, so it gets the
// sync.Mutex a Go program sharing it would need.
func BenchmarkAddParallel(b *testing.B) {
	ours, theirs := filled()
	defer ours.Close()
	var mu sync.Mutex
	b.Run("lfbloom", func(b *testing.B) {
		b.RunParallel(func(pb *testing.PB) {
			for i := rand.Int(); pb.Next(); i++ {
				ours.Add(keySet[i&(keys-1)])
			}
		})
	})
	b.Run("bits-and-blooms+mutex", func(b *testing.B) {
		b.RunParallel(func(pb *testing.PB) {
			for i := rand.Int(); pb.Next(); i++ {
				mu.Lock()
				theirs.Add(keySet[i&(keys-1)])
				mu.Unlock()
			}
		})
	})
}
