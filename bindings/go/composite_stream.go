package lfbloom

import "io"

// Saving and loading the composites, as the layouts do (stream.go): lfbloom's own format, which
// every language reads; core/include/lfbloom/io/composite_format.hpp describes the composites' part
// of it. Scalable's methods are ScalableCuckoo's too (it embeds *Scalable); each takes only data
// of its own type.

// MarshalBinary encodes the filter: its settings, every sub-filter, and a ScalableCuckoo's
// waiting removes. It may run while others add, also while the filter grows: the result holds
// every add that completed before it began (a sub-filter added between the size and the copy is
// saved again at the new size). A ScalableCuckoo's adds and removes wait while a sub-filter is
// copied.
func (s *Scalable) MarshalBinary() ([]byte, error) { return s.marshal() }

// UnmarshalBinary replaces the filter with the one encoded in data (by MarshalBinary, in any
// language), which must be of this type: a Scalable takes a scalable filter of blocked
// sub-filters, a ScalableCuckoo one of cuckoo sub-filters (else ErrIncompatible, from the header:
// it tells the sub-filters' kind too). Corrupt, foreign or
// truncated data returns an error wrapping ErrCorrupt (or ErrUnsupportedVersion, ErrTooLarge past
// the filter's WithMemoryLimit) and leaves the filter as it was.
func (s *Scalable) UnmarshalBinary(data []byte) error { return s.unmarshal(data) }

// WriteTo writes the filter's encoding to w (io.WriterTo), streamed: the filter is never copied
// into Go memory whole. It holds what MarshalBinary's result would.
func (s *Scalable) WriteTo(w io.Writer) (int64, error) { return s.writeTo(w) }

// ReadFrom replaces the filter with one read from r (io.ReaderFrom), of this type as
// UnmarshalBinary says: it reads exactly one encoded filter and nothing past it, streamed (the
// header's declared size is checked, against the filter's WithMemoryLimit too, before anything is
// allocated). On an error the filter is as it was.
func (s *Scalable) ReadFrom(r io.Reader) (int64, error) { return s.readFrom(r) }

// MarshalBinary encodes the filter: its settings, every generation and the time left to the next
// rotation. It may run while others add and test: the result holds every add that completed
// before it began; rotations wait for it.
func (r *Rotating) MarshalBinary() ([]byte, error) { return r.marshal() }

// UnmarshalBinary replaces the filter with the rotating filter encoded in data (by MarshalBinary,
// in any language; another kind is ErrIncompatible), errors as Filter's. With ManualClock the
// loaded filter goes on in the caller's time: its next rotation is due when Tick reaches the
// deadline it had when it was encoded. With the real clock the wall-clock time between the
// encoding and the load counts: the rotations due meanwhile (at most G) are performed as it loads.
func (r *Rotating) UnmarshalBinary(data []byte) error { return r.unmarshal(data) }

// WriteTo writes the filter's encoding to w (io.WriterTo), streamed: the filter is never copied
// into Go memory whole. It holds what MarshalBinary's result would.
func (r *Rotating) WriteTo(w io.Writer) (int64, error) { return r.writeTo(w) }

// ReadFrom replaces the filter with a rotating filter read from r (io.ReaderFrom), as
// UnmarshalBinary says: it reads exactly one encoded filter and nothing past it, streamed. On an
// error the filter is as it was.
func (r *Rotating) ReadFrom(rd io.Reader) (int64, error) { return r.readFrom(rd) }
