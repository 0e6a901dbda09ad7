module github.com/lfbloom/lfbloom/bindings/go/bench

go 1.24

require (
	github.com/bits-and-blooms/bloom/v3 v3.7.1
	github.com/lfbloom/lfbloom/bindings/go v0.0.0
)

require github.com/bits-and-blooms/bitset v1.24.2 // indirect

replace github.com/lfbloom/lfbloom/bindings/go => ../
