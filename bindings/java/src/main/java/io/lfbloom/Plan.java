package io.lfbloom;

/**
 * A filter described before it exists ({@link BloomFilter#plan}, {@link CountingBloomFilter#plan},
 * {@link CuckooFilter#plan}): what {@code create} with the same arguments would make, computed
 * without allocating it, so a terabyte filter can be planned on a laptop.
 *
 * @param kind        "classic", "blocked", "counting", "split-block", "one-word", "two-word" or "cuckoo"
 * @param slots       bits, counters, or cuckoo fingerprint slots
 * @param slotBits    1, the counter width 4 or 8, or the cuckoo fingerprint width 14, 16 or 17
 * @param hashes      k (2 for a cuckoo filter: buckets per key)
 * @param bytes       memory of the filter's arrays
 * @param capacity    the keys it is sized for
 * @param targetFpp   the rate it is sized for
 * @param expectedFpp its false-positive probability once it holds {@code capacity} keys
 */
public record Plan(String kind, long slots, int slotBits, int hashes, long bytes, long capacity, double targetFpp,
        double expectedFpp) {

    /**
     * lfb_plan for an lfb_spec of this enum lfb_kind (a layout); invalid arguments throw
     * IllegalArgumentException.
     */
    static Plan of(int kind, long capacity, double fpp, int counterBits) {
        lfb_spec spec = spec(kind, capacity, fpp);
        lfb_info info = new lfb_info();
        try {
            spec.setCounter_bits(counterBits);
            Native.check(LfbNative.lfb_plan(spec, info));
            return new Plan(Native.kindName(info.getKind()), info.getSlots(), (int) info.getSlot_bits(), (int) info.getHashes(),
                    info.getBytes(), info.getCapacity(), info.getTarget_fpr(), info.getExpected_fpr());
        } finally {
            info.delete();
            spec.delete();
        }
    }

    /** A new lfb_spec (the caller deletes it) for (kind, capacity, fpp), checked. */
    static lfb_spec spec(int kind, long capacity, double fpp) {
        if (capacity <= 0) throw new IllegalArgumentException("expectedInsertions must be > 0");
        if (!(fpp > 0 && fpp < 1)) throw new IllegalArgumentException("fpp must be in (0, 1), got " + fpp);
        lfb_spec spec = new lfb_spec();
        spec.setKind(kind);
        spec.setCapacity(capacity);
        spec.setFpr(fpp);
        return spec;
    }
}
