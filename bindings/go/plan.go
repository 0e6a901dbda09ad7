package lfbloom

import "github.com/lfbloom/lfbloom/bindings/go/internal/native"

// Plan describes a filter before it exists (PlanFilter, PlanCounting, PlanCuckoo): what the
// constructor with the same arguments would make, computed without allocating it, so a terabyte
// filter can be planned anywhere.
type Plan struct {
	Kind        string  // the kind, as Info names it: "blocked", "counting", "cuckoo", ...
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
	o := optionsOf(opts)
	return o.plan(int(o.layout), capacity, fpr)
}

// PlanCounting describes what NewCounting(capacity, fpr, opts...) would make (WithCounterBits applies).
func PlanCounting(capacity uint64, fpr float64, opts ...Option) (Plan, error) {
	o := optionsOf(opts)
	return o.plan(kindCounting, capacity, fpr)
}

// PlanCuckoo describes what NewCuckoo(capacity, fpr, opts...) would make (WithFingerprintBits is
// the option that changes it).
func PlanCuckoo(capacity uint64, fpr float64, opts ...Option) (Plan, error) {
	o := optionsOf(opts)
	return o.plan(kindCuckoo, capacity, fpr)
}

func (o *options) plan(kind int, capacity uint64, fpr float64) (Plan, error) {
	spec := o.spec(kind, capacity, fpr)
	defer native.DeleteLfb_spec(spec)
	out := native.NewLfb_info()
	defer native.DeleteLfb_info(out)
	if _, err := nativeCall(func() int { return native.Lfb_plan(spec, out) }); err != nil {
		return Plan{}, err
	}
	i := infoOf(out)
	return Plan{Kind: i.Kind, Slots: i.Slots, SlotBits: i.SlotBits, Hashes: i.Hashes, Bytes: i.Bytes,
		Capacity: i.Capacity, TargetFPR: i.TargetFPR, ExpectedFPR: i.ExpectedFPR}, nil
}
