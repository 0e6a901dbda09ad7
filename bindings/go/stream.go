package lfbloom

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/lfbloom/lfbloom/bindings/go/internal/native"
)

// Saving and loading in lfbloom's own format (docs/FORMAT.md: versioned, checksummed, every
// layout). Go never parses it: lfb_load_size tells a saved filter's length from its header, and
// the streams run through a pipe to lfb_save_fd and lfb_load_fd, so that neither WriteTo nor
// ReadFrom holds the whole filter in Go memory.

// The layouts (Filter, CountingFilter, Cuckoo) and the composites (Scalable, ScalableCuckoo,
// Rotating) save and load alike: their MarshalBinary, UnmarshalBinary, WriteTo and ReadFrom are
// filter's marshal, unmarshal, writeTo and readFrom (the composites' are in composite_stream.go).

// MarshalBinary encodes the filter. A filter may be marshaled while others add: the result holds
// every add that completed before it began (a Cuckoo's adds and removes wait while it is copied).
func (l layout) MarshalBinary() ([]byte, error) { return l.marshal() }

// UnmarshalBinary replaces the filter with the one encoded in data (by MarshalBinary, in any
// language), which must be of this type: a Filter takes any Bloom layout, the others their own
// kind (else ErrIncompatible). Corrupt, foreign or truncated data returns an error wrapping
// ErrCorrupt (or ErrUnsupportedVersion, ErrTooLarge past the filter's WithMemoryLimit) and leaves
// the filter as it was.
func (l layout) UnmarshalBinary(data []byte) error { return l.unmarshal(data) }

// WriteTo writes the filter's encoding to w (io.WriterTo), streamed: the filter is never copied
// into Go memory whole. It holds what MarshalBinary's result would; a Cuckoo's adds and removes
// wait until w has taken it all.
func (l layout) WriteTo(w io.Writer) (int64, error) { return l.writeTo(w) }

// ReadFrom replaces the filter with one read from r (io.ReaderFrom), of this type as
// UnmarshalBinary says: it reads exactly one encoded filter and nothing past it, streamed (the
// header's declared size is checked, against the filter's WithMemoryLimit too, before anything is
// allocated). On an error the filter is as it was.
func (l layout) ReadFrom(r io.Reader) (int64, error) { return l.readFrom(r) }

// saveTries bounds marshal's attempts at a filter that keeps growing while it is saved. Each
// failed attempt means it grew: a scalable filter by a sub-filter, of which it has at most 255, so
// 256 attempts outlast any scalable filter's growth (8 did not, with goroutines adding fast under load).
const saveTries = 256

// marshal is MarshalBinary: lfb_serialized_size, then lfb_save into a slice of that size. A filter
// that grew in between (a Scalable's new sub-filter: lfb_save refuses the slice as too small) is
// saved again at its new size, up to saveTries times.
func (f *filter) marshal() ([]byte, error) {
	p, s, ok := f.h.acquire()
	if !ok {
		return nil, ErrClosed
	}
	defer f.h.release(s)
	var size, written uint64
	for attempt := 1; ; attempt++ {
		if _, err := nativeCall(func() int { return native.Lfb_serialized_size(p, formatNative, &size) }); err != nil {
			return nil, err
		}
		out := make([]byte, size)
		_, err := nativeCall(func() int { return native.Lfb_save(p, formatNative, out, &written) })
		if err == nil {
			return out[:written], nil
		}
		var now uint64
		if !errors.Is(err, ErrInvalidArgument) || attempt == saveTries || native.Lfb_serialized_size(p, formatNative, &now) < 0 || now <= size {
			return nil, err
		}
	}
}

// unmarshal is UnmarshalBinary.
func (f *filter) unmarshal(data []byte) error {
	if f.h.ptr.Load() == 0 { // before loading for nothing; replace checks again
		return ErrClosed
	}
	if len(data) == 0 {
		data = []byte{0}[:0:1] // a non-nil empty slice: the loader reports it as truncated
	}
	if len(data) >= headerBytes { // another kind is refused from its header, before it is loaded
		var total uint64
		var kind, sub uint32
		if _, err := nativeCall(func() int {
			return native.Lfb_load_size_kinds(formatNative, data[:headerBytes], f.limit, &total, &kind, &sub)
		}); err == nil {
			if err := f.takes(int(kind), int(sub)); err != nil {
				return err
			}
		}
	}
	var p uintptr
	if _, err := nativeCall(func() int { return native.Lfb_load(formatNative, data, f.limit, &p) }); err != nil {
		return err
	}
	return f.replace(p)
}

// writeTo is WriteTo: lfb_save_fd into a pipe that w drains, so nothing is sized in advance.
func (f *filter) writeTo(w io.Writer) (int64, error) {
	p, s, ok := f.h.acquire()
	if !ok {
		return 0, ErrClosed
	}
	defer f.h.release(s)
	r, pw, err := os.Pipe()
	if err != nil {
		return 0, fmt.Errorf("%w: %w", ErrIO, err)
	}
	saved := make(chan error, 1)
	go func() {
		_, err := nativeCall(func() int { return native.Lfb_save_fd(p, formatNative, int(pw.Fd())) })
		pw.Close()
		saved <- err
	}()
	n, err := io.Copy(w, r)
	r.Close() // if w failed, the save still writing gets EPIPE and returns
	if saveErr := <-saved; err == nil {
		err = saveErr
	}
	return n, err
}

// readFrom is ReadFrom.
func (f *filter) readFrom(r io.Reader) (int64, error) {
	if f.h.ptr.Load() == 0 { // before reading r for nothing; replace checks again
		return 0, ErrClosed
	}
	p, n, err := load(r, f.limit, f.takes)
	if err != nil {
		return n, err
	}
	return n, f.replace(p)
}

// Load reads one filter of any kind that has a file format (Filter, CountingFilter, Cuckoo,
// Scalable, ScalableCuckoo or Rotating; not a Swappable, which saves its current Filter) from r,
// exactly as ReadFrom does, and returns it; a type switch or assertion gives its type. Options: WithMemoryLimit, the most the filter may take: a larger one is refused
// (ErrTooLarge) from its header, before anything is allocated.
func Load(r io.Reader, opts ...Option) (Interface, error) {
	o := optionsOf(opts)
	p, _, err := load(r, o.memoryLimit, nil)
	if err != nil {
		return nil, err
	}
	return wrap(p, o.memoryLimit), nil
}

// load reads one saved filter from r into a new C handle: its header, whose validated length,
// kind and sub-kind lfb_load_size_kinds gives (accept, if not nil, may refuse them before the rest
// is read), then exactly the rest, through a pipe to lfb_load_fd. It returns the bytes read from r.
func load(r io.Reader, limit uint64, accept func(kind, subKind int) error) (uintptr, int64, error) {
	head := make([]byte, headerBytes)
	if n, err := io.ReadFull(r, head); err != nil {
		return 0, int64(n), readError(err, "header")
	}
	var total uint64
	var kind, sub uint32
	if _, err := nativeCall(func() int { return native.Lfb_load_size_kinds(formatNative, head, limit, &total, &kind, &sub) }); err != nil {
		return 0, headerBytes, err
	}
	if accept != nil {
		if err := accept(int(kind), int(sub)); err != nil {
			return 0, headerBytes, err
		}
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return 0, headerBytes, fmt.Errorf("%w: %w", ErrIO, err)
	}
	rest := &countingReader{r: io.LimitReader(r, int64(total-headerBytes))}
	fed := make(chan struct{})
	go func() {
		if _, err := pw.Write(head); err == nil {
			io.Copy(pw, rest) // a write error is the load's: it stopped reading
		}
		pw.Close()
		close(fed)
	}()
	var p uintptr
	_, err = nativeCall(func() int { return native.Lfb_load_fd(formatNative, int(pr.Fd()), limit, &p) })
	pr.Close() // if the load stopped early, the feeder's writes get EPIPE
	<-fed
	n := headerBytes + rest.n
	if err == nil {
		return p, n, nil
	}
	if rest.err != nil || rest.eof && uint64(n) < total { // r's failure or end, not the data's
		err = readError(rest.err, fmt.Sprintf("filter (%d of its %d bytes)", n, total))
	}
	return 0, n, err
}

// readError is a failure to read a saved filter: ErrCorrupt if it ended early (err is io.EOF,
// io.ErrUnexpectedEOF or nil), else the reader's error, wrapped with ErrIO.
func readError(err error, what string) error {
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%w: truncated %s", ErrCorrupt, what)
	}
	return fmt.Errorf("%w: reading the %s: %w", ErrIO, what, err)
}

// countingReader counts the bytes read through it, notes the end, keeps the first other error.
type countingReader struct {
	r   io.Reader
	n   int64
	eof bool
	err error
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n += int64(n)
	if err == io.EOF {
		c.eof = true
	} else if err != nil && c.err == nil {
		c.err = err
	}
	return n, err
}

// takes says whether data of kind and subKind (a header's) may replace this filter: its own kind,
// or for a Filter any Bloom layout, and for a Scalable its sub-filters' kind (else
// ErrIncompatible; ErrClosed once closed). replace checks the loaded handle again.
func (f *filter) takes(kind, subKind int) error {
	p, s, ok := f.h.acquire()
	if !ok {
		return ErrClosed
	}
	defer f.h.release(s)
	if err := kindFits(native.Lfb_kind(p), kind); err != nil {
		return err
	}
	return subKindFits(p, subKind)
}

func kindFits(was, kind int) error {
	if was != kind && !(Layout(was).bloom() && Layout(kind).bloom()) {
		return fmt.Errorf("%w: the data holds a %s filter, not a %s one", ErrIncompatible, kindName(kind), kindName(was))
	}
	return nil
}

// subKindFits refuses a Scalable of other sub-filters (blocked or cuckoo) than was's, got's
// (lfb_load_size_kinds' sub-kind from a header, or a loaded handle's).
func subKindFits(was uintptr, got int) error {
	if native.Lfb_kind(was) != kindScalable {
		return nil
	}
	if had := subKindOf(was); had != got {
		return fmt.Errorf("%w: the data holds a scalable filter of %s sub-filters, not of %s ones", ErrIncompatible, kindName(got), kindName(had))
	}
	return nil
}

// subKindOf is lfb_geometry_get's sub_kind of the handle p (0 if it fails).
func subKindOf(p uintptr) int {
	info := native.NewLfb_info()
	defer native.DeleteLfb_info(info)
	if native.Lfb_geometry_get(p, info) < 0 {
		return 0
	}
	return int(info.GetSub_kind())
}

// replace makes the loaded C handle p this filter's if it is of this filter's type (takes, and a
// Scalable's sub-filters), freeing the old one once no call uses it; else it frees p.
func (f *filter) replace(p uintptr) error {
	kind := native.Lfb_kind(p)
	var bits *bitArray
	if Layout(kind).bloom() {
		bits, _ = bitArrayOf(p) // nil: Add and Test call C
	}
	var err error
	f.h.exclusive(func(old uintptr) uintptr {
		if old == 0 {
			err = ErrClosed
		} else if err = kindFits(native.Lfb_kind(old), kind); err == nil {
			if err = subKindFits(old, subKindOf(p)); err == nil {
				native.Lfb_free(old)
				f.bits = bits
				return p
			}
		}
		native.Lfb_free(p)
		return old
	})
	return err
}
