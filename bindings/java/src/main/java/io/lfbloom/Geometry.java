package io.lfbloom;

/**
 * What a filter is, apart from what it holds: its shape and the counters that do not depend on
 * its contents, read in O(1) (composites: O(sub-filters)) without touching its arrays
 * ({@link Filter#geometry()}; since 1.9).
 *
 * @param kind             "classic", "blocked", "counting", "split-block", "one-word", "two-word",
 *                         "cuckoo", "scalable", "rotating" or "swappable"
 * @param layout           the layout holding the keys: the kind itself for a plain filter; a scalable
 *                         filter's sub-filters' ("blocked" or "cuckoo"), a rotating filter's
 *                         ("blocked"), a swap's current filter's
 * @param slots            bits, counters, or cuckoo fingerprint slots (composites: summed)
 * @param slotBits         1, the counter width (4 or 8), or the cuckoo fingerprint width (14, 16 or 17)
 * @param hashes           probes per key (k); 2 for a cuckoo filter (buckets per key)
 * @param bytes            memory of the filter's arrays (composites: summed)
 * @param capacity         keys it was sized for (scalable: summed over sub-filters; rotating: per period)
 * @param targetFpp        the false-positive probability it was sized for (composites: the bound on the whole)
 * @param seed             the hash seed
 * @param parts            1; a scalable filter's sub-filters; a rotating filter's generations in the
 *                         ring; 2 for a swap while a filter is staged
 * @param generation       a rotating filter's rotations so far; a swap's replacements so far; else 0
 * @param ambiguousRemoves a scalable cuckoo filter's removes refused as ambiguous so far; else 0
 */
public record Geometry(String kind, String layout, long slots, int slotBits, int hashes, long bytes, long capacity,
        double targetFpp, long seed, int parts, long generation, long ambiguousRemoves) {

    static Geometry of(lfb_info i) {
        return new Geometry(Native.kindName(i.getKind()), Native.kindName(i.getSub_kind()), i.getSlots(), (int) i.getSlot_bits(),
                (int) i.getHashes(), i.getBytes(), i.getCapacity(), i.getTarget_fpr(), i.getSeed(), (int) i.getParts(),
                i.getGeneration(), i.getAmbiguous_removes());
    }
}
