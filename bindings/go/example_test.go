package lfbloom_test

import (
	"fmt"

	lfbloom "github.com/lfbloom/lfbloom/bindings/go"
)

// A cache-penetration guard: ask the filter before the database.
func Example() {
	users, err := lfbloom.New(1_000_000, 0.01)
	if err != nil {
		panic(err)
	}
	defer users.Close()

	for _, id := range []string{"user:1", "user:2", "user:3"} {
		users.AddString(id) // from any number of goroutines at once
	}
	for _, id := range []string{"user:2", "user:404"} {
		if users.TestString(id) {
			fmt.Println(id, "may exist: ask the database")
		} else {
			fmt.Println(id, "certainly does not exist: skip the database")
		}
	}
	// Output:
	// user:2 may exist: ask the database
	// user:404 certainly does not exist: skip the database
}
