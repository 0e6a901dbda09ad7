package lfbloom

import "github.com/lfbloom/lfbloom/bindings/go/internal/native"

// Shared files: one file that several processes (Go, a JVM, C) map and use at once, every one
// adding and querying the same words with the same lock-free atomics. A process killed mid-way
// loses none of the adds it completed; Flush only matters for a crash of the machine. Creation is
// atomic: an opener sees no file or a complete one. Every layout has them, each the same way:
//
//   - create-or-open in one call (OpenOrCreateShared, OpenCountingShared, OpenCuckooShared): of
//     processes racing to open one path, one creates it and all get its filter; an existing file
//     must hold the filter the arguments make (kind, size, seed, width), else ErrIncompatible;
//   - WithReadOnly: open only, mapped read-only (every write returns ErrReadOnly);
//   - WithFileMode: the permission bits of a file created (default 0666, less the umask).
//
// NewShared creates only (ErrIO if the file exists), OpenShared and OpenSharedFile open only.

// NewShared creates the file path holding a new Filter (New's arguments and options, and
// WithFileMode) that other processes open and use at the same time. An error wrapping ErrIO if
// the file exists.
func NewShared(path string, capacity uint64, fpr float64, opts ...Option) (*Filter, error) {
	o := optionsOf(opts)
	kind, err := o.bloomKind()
	if err != nil {
		return nil, err
	}
	return openShared[*Filter](path, &o, kind, capacity, fpr, sharedCreate|sharedExclusive)
}

// OpenShared maps the Filter in a shared file (made in any process or language), of whatever
// Bloom layout and size it holds.
func OpenShared(path string) (*Filter, error) {
	return openShared[*Filter](path, &options{}, 0, 0, 0, 0)
}

// OpenOrCreateShared returns the Filter in the shared file path, creating the file for (capacity,
// fpr) and the options (New's, WithFileMode, WithReadOnly) if it does not exist.
func OpenOrCreateShared(path string, capacity uint64, fpr float64, opts ...Option) (*Filter, error) {
	o := optionsOf(opts)
	kind, err := o.bloomKind()
	if err != nil {
		return nil, err
	}
	return openShared[*Filter](path, &o, kind, capacity, fpr, sharedCreate)
}

// OpenCountingShared returns the CountingFilter in the shared file path, creating the file for
// (capacity, fpr) and the options (NewCounting's, WithFileMode, WithReadOnly) if it does not exist.
func OpenCountingShared(path string, capacity uint64, fpr float64, opts ...Option) (*CountingFilter, error) {
	o := optionsOf(opts)
	return openShared[*CountingFilter](path, &o, kindCounting, capacity, fpr, sharedCreate)
}

// OpenCuckooShared returns the Cuckoo in the shared file path, creating the file for (capacity,
// fpr) and the options (NewCuckoo's, WithFileMode, WithReadOnly) if it does not exist.
//
// The stripe locks live in the file as robust process-shared mutexes: when a process dies holding
// one (killed mid-Add), the kernel hands it to the next writer, which repairs what the dead one
// left, and nothing that returned is lost. A writer waits for a lock at most the lock timeout
// (SetLockTimeout), then gets an error wrapping ErrTimeout.
func OpenCuckooShared(path string, capacity uint64, fpr float64, opts ...Option) (*Cuckoo, error) {
	o := optionsOf(opts)
	return openShared[*Cuckoo](path, &o, kindCuckoo, capacity, fpr, sharedCreate)
}

// OpenSharedFile opens the shared file path, whatever filter it holds (Filter, CountingFilter or
// Cuckoo: a type switch or assertion tells), never creating it. Options: WithReadOnly, and
// WithMemoryLimit: a larger filter is refused (ErrTooLarge) before it is mapped.
func OpenSharedFile(path string, opts ...Option) (Interface, error) {
	o := optionsOf(opts)
	return openShared[Interface](path, &o, 0, 0, 0, 0)
}

// openShared opens the shared file at path as a T with lfb_open_shared and flags; kind 0 takes
// whatever the file holds, else the file must hold what the spec of (kind, capacity, fpr) and
// the options make. WithReadOnly opens read-only without creating (a create-only call is then
// refused, by C: a read-only opener cannot create the file).
func openShared[T Interface](path string, o *options, kind int, capacity uint64, fpr float64, flags uint) (T, error) {
	if o.readOnly {
		if flags&sharedExclusive == 0 {
			flags &^= sharedCreate
		}
		flags |= sharedReadOnly
	}
	var spec native.Lfb_spec // nil: NULL, open whatever the file holds
	if kind != 0 {
		spec = o.spec(kind, capacity, fpr)
		defer native.DeleteLfb_spec(spec)
	} else if o.memoryLimit != 0 { // kind 0: whatever the file holds, within the limit
		spec = native.NewLfb_spec()
		defer native.DeleteLfb_spec(spec)
		spec.SetKind(0)
		spec.SetMemory_limit(o.memoryLimit)
	}
	mode := uint(o.fileMode.Perm())
	return as[T](o.made(func(out *uintptr) int { return native.Lfb_open_shared(path, spec, flags, mode, out) }))
}
