// What every filter is built with besides its geometry, and what it reports about itself.
#pragma once

#include <cstdint>

namespace lfbloom {

/// Every kind of filter, the one list: the layouts, numbered as in serialized filters (byte 10 of
/// a file's header), and the composites built from them, numbered as in composite files
/// (composite_format.hpp). The numbers are the C ABI's enum lfb_kind too: never renumbered. The
/// class of each is in kinds.hpp; its name in dynamic_filter.hpp (kind_name).
enum class filter_kind : std::uint32_t {
    classic = 1,   ///< k probes anywhere in the array; bit-exact with Guava's MURMUR128_MITZ_64
    blocked = 2,   ///< all k probes in one 64-byte cache line (the default)
    counting = 3,  ///< blocked, with a 4- or 8-bit saturating counter per slot
    split_block = 4,  ///< 8 bits in one 256-bit block, one per 32-bit lane; bit-exact with Parquet's
    one_word = 5,     ///< all k bits in one 64-bit word: one locked OR per add (word_block_layout.hpp)
    two_word = 6,     ///< all k bits in one aligned pair of 64-bit words: at most two locked ORs per add
    cuckoo = 7,       ///< not a Bloom filter: 4 or 5 fingerprints of 14, 16 or 17 bits per 64-bit bucket (cuckoo_filter.hpp)
    scalable = 16,    ///< grows by sub-filters (blocked or cuckoo): scalable_bloom_filter.hpp
    rotating = 17,    ///< a ring of blocked generations whose keys expire: rotating_bloom_filter.hpp
    swappable = 18,   ///< a filter replaced atomically while in use: swappable_filter.hpp
};
/// The kinds a file holds as one array of slots (kinds.hpp: layout_classes, is_layout).
using layout = filter_kind;

/// How blocked and counting filters place a key's probes inside its line, numbered as in
/// serialized filters (byte 11 of the header, docs/FORMAT.md; values never change). Classic filters
/// have one rule, Guava's, saved as 1; one-word and two-word filters have one, rule 2. See
/// line_probes (blocked_layout.hpp) for both rules.
enum class probe_rule : std::uint8_t {
    fields = 1,    ///< lfbloom 1.0-1.3: bit fields of h2; one key's probes may coincide, all of them when h2 = 0
    distinct = 2,  ///< since 1.4, for new filters: rule 1's fields, each moved on to a slot the key has not probed yet
    parquet = 3,   ///< split-block filters only: XXH64 and Parquet's salted lanes (split_block_layout.hpp)
    cuckoo = 4,    ///< cuckoo filters only: a fingerprint and two buckets from MurmurHash3 (cuckoo_filter.hpp)
};

/// The rule new blocked and counting filters get.
inline constexpr probe_rule current_probe_rule = probe_rule::distinct;

struct filter_options {
    std::uint64_t memory_limit = 0;  ///< bytes the filter may use; 0 = only the machine's memory bounds it
    /// Hash seed (MurmurHash3's; XXH64's for split-block filters); 0 is Guava's and Parquet's. Filters merge only with equal seeds. Seed 0 hashes the empty
    /// key to (0, 0): harmless for blocked and counting filters (probe_rule::distinct spreads every
    /// hash), but a classic filter then probes one bit k times, as Guava does (classic_layout.hpp).
    std::uint64_t seed = 0;
    bool process_shared = false;  ///< memory shared with child processes forked after creation
    /// Blocked and counting filters: the probe rule. Only a filter loaded from a file written with
    /// an older rule needs another; classic, split-block, one-word and two-word filters ignore it
    /// (each has one rule).
    probe_rule probes = current_probe_rule;
};

/// A consistent-enough snapshot: counts are read word by word while other threads may write.
struct filter_stats {
    layout kind = layout::blocked;
    std::uint64_t slots = 0;        ///< bits of a bit filter, counters of a counting filter
    std::uint32_t slot_bits = 1;    ///< 1 for bit filters, 4 or 8 for counting
    std::uint32_t hashes = 0;       ///< k
    std::uint64_t bytes = 0;        ///< memory of the slot array
    std::uint64_t capacity = 0;     ///< expected items it was sized for
    double target_fpr = 0;          ///< false-positive rate it was sized for
    std::uint64_t slots_set = 0;    ///< bits set, or counters above zero
    std::uint64_t saturated = 0;    ///< counters stuck at their maximum (0 for bit filters)
    double fill_ratio = 0;          ///< slots_set / slots
    double estimated_count = 0;     ///< distinct keys estimated from slots_set (infinite when full)
    double estimated_fpr = 0;       ///< expected FPR at estimated_count
    bool near_capacity = false;     ///< estimated_count > 80% of capacity: time to rebuild bigger
};

/// The fraction of capacity at which filter_stats::near_capacity turns on.
inline constexpr double near_capacity_fraction = 0.8;

/// A filter described before it exists (each filter's static plan()): its shape and bytes, and
/// estimated_fpr, its false-positive rate once it holds estimated_count = capacity keys; the
/// counts of set slots are 0.
inline filter_stats planned(layout kind, std::uint64_t slots, std::uint32_t slot_bits, std::uint32_t hashes,
                            std::uint64_t bytes, std::uint64_t capacity, double target_fpr, double fpr_at_capacity) {
    filter_stats s;
    s.kind = kind;
    s.slots = slots;
    s.slot_bits = slot_bits;
    s.hashes = hashes;
    s.bytes = bytes;
    s.capacity = capacity;
    s.target_fpr = target_fpr;
    s.estimated_count = static_cast<double>(capacity);
    s.estimated_fpr = fpr_at_capacity;
    return s;
}

}  // namespace lfbloom
