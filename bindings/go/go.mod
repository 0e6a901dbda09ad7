module github.com/lfbloom/lfbloom/bindings/go

go 1.24
