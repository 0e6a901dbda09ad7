// The classic layout: k probes anywhere in one bit array, bit-exact with Guava's
// BloomFilter strategy MURMUR128_MITZ_64 (ordinal 1). Probe i of a key with hash (h1, h2) is bit
// ((h1 + i*h2) & INT64_MAX) mod m, bit b living in word b/64 at bit b%64 (least significant
// first). Each probe is its own cache miss on large filters; prefer the blocked layout unless
// Guava compatibility matters.
//
// Guava's flaw, kept for bit-exactness: nothing keeps one key's probes apart. A key with h2 = 0
// probes one bit k times. MurmurHash3 of the empty key with seed 0 (Guava's, and the default) is
// (0, 0): it is "maybe present" as soon as bit 0 is set, in about half of all full filters. Blocked and
// counting filters do not share this (probe rule 2, blocked_layout.hpp). A classic filter that is
// never exchanged with Guava can avoid it with any non-zero seed (save_guava needs seed 0).
#pragma once

#include <cstdint>

#include "lfbloom/base/murmur3.hpp"
#include "lfbloom/base/options.hpp"
#include "lfbloom/base/sizing.hpp"
#include "lfbloom/base/storage.hpp"

namespace lfbloom {

class classic_layout {
public:
    static constexpr layout kind = layout::classic;
    static constexpr const char* name = "classic";  ///< kind_name's
    static constexpr std::uint64_t slot_multiple = 64;  ///< m is a whole number of words
    /// The hash and probe rules a file of this layout may record (docs/FORMAT.md): Guava's only.
    static constexpr bool takes_rule(probe_rule r) noexcept { return r == probe_rule::fields; }

    static geometry size_for(std::uint64_t n, double p) { return classic_geometry(n, p); }
    static double expected_fpr(double n, std::uint64_t m, std::uint32_t k) { return classic_fpr(n, m, k); }
    /// Probes range over the whole array: one block of m slots.
    static std::uint64_t block_slots(std::uint64_t m) noexcept { return m; }

    /// The probe rule is always Guava's, saved as 1: the argument is ignored.
    classic_layout(std::uint64_t bits, std::uint32_t hashes, probe_rule = probe_rule::fields) noexcept
        : bits_(bits), hashes_(hashes) {}
    probe_rule rule() const noexcept { return probe_rule::fields; }

    /// Calls visit(word_index, mask) for each probe in order while it returns true; returns
    /// whether it ran to the end.
    template <class Visit>
    bool for_each_probe(hash128 h, Visit visit) const noexcept {
        std::uint64_t combined = h.h1;
        for (std::uint32_t i = 0; i < hashes_; ++i, combined += h.h2) {  // 64-bit wrap-around, as Guava
            const std::uint64_t bit = guava_bit_index(combined, bits_);
            if (!visit(bit >> 6, std::uint64_t{1} << (bit & 63))) return false;
        }
        return true;
    }

    template <class Word>
    bool add(Word* words, hash128 h) const noexcept {
        bool changed = false;
        for_each_probe(h, [&](std::uint64_t w, std::uint64_t mask) {
            changed |= set_bits(words[w], mask);
            return true;
        });
        return changed;
    }

    template <class Word>
    bool contains(const Word* words, hash128 h) const noexcept {
        return for_each_probe(h, [&](std::uint64_t w, std::uint64_t mask) { return (load_word(words[w]) & mask) != 0; });
    }

    template <class Word>
    void prefetch(const Word* words, hash128 h, bool for_write) const noexcept {
        for_each_probe(h, [&](std::uint64_t w, std::uint64_t) {
            if (for_write) __builtin_prefetch(words + w, 1); else __builtin_prefetch(words + w, 0);
            return true;
        });
    }

private:
    std::uint64_t bits_;
    std::uint32_t hashes_;
};

}  // namespace lfbloom
