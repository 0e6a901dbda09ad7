package lfbloom

import (
	"errors"
	"fmt"

	"github.com/lfbloom/lfbloom/bindings/go/internal/native"
)

// statuses is the C library's one table of statuses (lfb_status_name, lfb_strerror), read at
// start-up: a sentinel error per status, by number and by name. Its numbers count down from
// statusFirstError and are never renumbered or reused (lfbloom.h), so the first that has no name
// ends the table.
var statuses = readStatuses()

type statusTable struct {
	byStatus map[int]error
	byName   map[string]error
}

func readStatuses() statusTable {
	t := statusTable{map[int]error{}, map[string]error{}}
	for status := statusFirstError; ; status-- {
		name := native.Lfb_status_name(status)
		if name == "" {
			return t
		}
		err := errors.New("lfbloom: " + native.Lfb_strerror(status))
		t.byStatus[status], t.byName[name] = err, err
	}
}

// Errors, usable with errors.Is. Every error returned by this package wraps one of them. All but
// ErrClosed are the C library's statuses, named as lfb_status_name names them.
var (
	ErrInvalidArgument    = statuses.byName["invalid_argument"]
	ErrOutOfMemory        = statuses.byName["out_of_memory"]
	ErrTooLarge           = statuses.byName["too_large"] // over the memory limit (WithMemoryLimit) or the machine
	ErrIncompatible       = statuses.byName["incompatible"]
	ErrNotPresent         = statuses.byName["not_present"] // no call returns it since 1.8: removes answer false
	ErrCorrupt            = statuses.byName["corrupt"]
	ErrUnsupportedVersion = statuses.byName["unsupported_version"]
	ErrIO                 = statuses.byName["io"]
	ErrInternal           = statuses.byName["internal"]
	ErrFull               = statuses.byName["full"]
	ErrReadOnly           = statuses.byName["read_only"]
	ErrTooManyDuplicates  = statuses.byName["too_many_duplicates"]
	ErrAmbiguous          = statuses.byName["ambiguous"]
	ErrTimeout            = statuses.byName["timeout"] // a writer of a shared Cuckoo waited past its lock timeout (SetLockTimeout)
	ErrClosed             = errors.New("lfbloom: filter is closed")
)

// BatchError is the error of a batch that a refusal stopped (a Cuckoo's or a full Scalable's
// AddMany, a ScalableCuckoo's ambiguous RemoveMany): the keys before index Done were processed,
// the refused key and those after it were not. Err wraps the refusal (ErrFull,
// ErrTooManyDuplicates or ErrAmbiguous); errors.Is sees through it.
type BatchError struct {
	Done int
	Err  error
}

// Error names the refusal and where the batch stopped.
func (e *BatchError) Error() string {
	return fmt.Sprintf("%v; the batch stopped at key %d, the keys before it were processed", e.Err, e.Done)
}

// Unwrap returns the refusal, for errors.Is and errors.As.
func (e *BatchError) Unwrap() error { return e.Err }

// statusError is a C failure: its status code, the C library's message, and the sentinel it is.
type statusError struct {
	status   int
	message  string
	sentinel error
}

func newStatusError(status int, message string) error {
	sentinel, ok := statuses.byStatus[status]
	if !ok { // a status newer than the table read at start-up cannot be: the table is the library's
		sentinel = ErrInternal
	}
	return &statusError{status, message, sentinel}
}

func (e *statusError) Error() string {
	return fmt.Sprintf("lfbloom: %s (status %d)", e.message, e.status)
}
func (e *statusError) Unwrap() error { return e.sentinel }
