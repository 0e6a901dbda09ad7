package io.lfbloom;

/**
 * A snapshot of a filter's parameters and fill, read word by word while other threads may write
 * ({@link Filter#stats()}; its shape alone, in O(1): {@link Filter#geometry()}).
 *
 * @param layout          "classic", "blocked", "counting", "split-block", "one-word", "two-word" or "cuckoo"
 * @param slots           bits of a bit filter, counters of a counting filter, fingerprint slots of a cuckoo filter
 * @param slotBits        1, the counter width (4 or 8), or the cuckoo fingerprint width (14, 16 or 17)
 * @param hashes          probes per key (k)
 * @param bytes           memory of the slot array
 * @param capacity        expected insertions the filter was sized for
 * @param targetFpp       false-positive probability it was sized for
 * @param slotsSet        bits set, counters above zero, or fingerprints stored
 * @param saturated       counters stuck at their maximum (0 for bit filters)
 * @param fillRatio       slotsSet / slots (a cuckoo filter's load)
 * @param estimatedCount  distinct keys estimated from the fill (infinite when full); a cuckoo filter's fingerprints
 * @param estimatedFpp    expected false-positive probability at estimatedCount
 * @param nearCapacity    estimatedCount is past 80% of capacity (a cuckoo filter: its load is past 80% of
 *                        its maximum, 94%): time to rebuild bigger
 */
public record Stats(String layout, long slots, int slotBits, int hashes, long bytes, long capacity, double targetFpp,
        long slotsSet, long saturated, double fillRatio, double estimatedCount, double estimatedFpp,
        boolean nearCapacity) {

    /**
     * From lfb_info_get or lfb_part_info (any filter behind an lfb_handle); the layout is the one
     * holding the keys (a composite's sub_kind), so a scalable cuckoo filter's stats say "cuckoo".
     */
    static Stats of(lfb_info i) {
        return new Stats(Native.kindName(i.getSub_kind() != 0 ? i.getSub_kind() : i.getKind()), i.getSlots(), (int) i.getSlot_bits(),
                (int) i.getHashes(), i.getBytes(), i.getCapacity(), i.getTarget_fpr(), i.getSlots_set(), i.getSaturated(),
                i.getFill_ratio(), i.getEstimated_count(), i.getExpected_fpr(), i.getNear_capacity() != 0);
    }
}
