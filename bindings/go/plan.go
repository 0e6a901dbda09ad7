package lfbloom

import "github.com/lfbloom/lfbloom/bindings/go/internal/native"

// Plan describes a filter before it exists (PlanFilter, PlanCounting, PlanCuckoo): what the
// constructor with the same arguments would make, computed without allocating it, so a terabyte
// filter can be planned anywhere.
type Plan struct {
	Kind        string  // "classic", "blocked", "counting" or "cuckoo"
	Slots       uint64  // bits, counters, or cuckoo fingerprint slots
	SlotBits    int     // 1, the counter width 4 or 8, or the cuckoo fingerprint width 14, 16 or 17
	Hashes      int     // k (2 for a cuckoo filter: buckets per key)
	Bytes       uint64  // memory of the filter's arrays
	Capacity    uint64  // keys it is sized for
	TargetFPR   float64 // rate it is sized for
	ExpectedFPR float64 // its false-positive rate once it holds Capacity keys
}

// PlanFilter describes what New(capacity, fpr, opts...) would make (WithLayout applies;
// WithMemoryLimit is ignored).
func PlanFilter(capacity uint64, fpr float64, opts ...Option) (Plan, error) {
	o := nativeOptions(opts)
	return plan(int(o[0]), capacity, fpr, 4) // a Layout's number is its kind's (lfbloom.h)
}

// PlanCounting describes what NewCounting(capacity, fpr, opts...) would make (WithCounterBits applies).
func PlanCounting(capacity uint64, fpr float64, opts ...Option) (Plan, error) {
	o := nativeOptions(opts)
	return plan(kindCounting, capacity, fpr, uint(o[3]))
}

// PlanCuckoo describes what NewCuckoo(capacity, fpr, opts...) would make (WithFingerprintBits is
// the option that changes it).
func PlanCuckoo(capacity uint64, fpr float64, opts ...Option) (Plan, error) {
	return plan(kindCuckoo, capacity, fpr, uint(nativeOptions(opts)[3]))
}

const kindCounting = 3 // LFB_KIND_COUNTING

func plan(kind int, capacity uint64, fpr float64, counterBits uint) (Plan, error) {
	spec := newSpec(kind, capacity, fpr)
	defer native.DeleteLfb_spec(spec)
	info := native.NewLfb_info()
	defer native.DeleteLfb_info(info)
	spec.SetCounter_bits(counterBits)
	if _, err := nativeCall(func() int { return native.Lfb_plan(spec, info) }); err != nil {
		return Plan{}, err
	}
	kinds := map[uint]string{1: "classic", 2: "blocked", 3: "counting", 4: "split-block", 5: "one-word", 6: "two-word", 7: "cuckoo"}
	return Plan{Kind: kinds[info.GetKind()], Slots: info.GetSlots(), SlotBits: int(info.GetSlot_bits()),
		Hashes: int(info.GetHashes()), Bytes: info.GetBytes(), Capacity: info.GetCapacity(),
		TargetFPR: info.GetTarget_fpr(), ExpectedFPR: info.GetExpected_fpr()}, nil
}

// newSpec returns an lfb_spec (the caller deletes it) of this kind for (capacity, fpr).
func newSpec(kind int, capacity uint64, fpr float64) native.Lfb_spec {
	spec := native.NewLfb_spec()
	spec.SetKind(uint(kind))
	spec.SetCapacity(capacity)
	spec.SetFpr(fpr)
	return spec
}
