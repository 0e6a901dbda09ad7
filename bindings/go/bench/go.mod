module github.com/lfbloom/lfbloom/bindings/go/bench

go 1.24

require (
	github.com/bits-and-blooms/bloom/v3 v3.7.1
	github.com/lfbloom/lfbloom/bindings/go v0.0.0
	github.com/seiflotfy/cuckoofilter v0.0.0-20240715131351-a2f2c23f1771
)

require (
	github.com/bits-and-blooms/bitset v1.24.2 // indirect
	github.com/dgryski/go-metro v0.0.0-20200812162917-85c65e2d0165 // indirect
)

replace github.com/lfbloom/lfbloom/bindings/go => ../
