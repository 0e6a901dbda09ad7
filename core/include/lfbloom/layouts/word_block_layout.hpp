// The one-word and two-word layouts, for write-heavy services: all k bits of a key fall in one
// 64-bit word (one_word_layout) or in one aligned pair of words (two_word_layout, 128 bits, never
// across a cache line), so an add is at most one or two locked ORs and a query one or two loads,
// where a blocked add may OR up to min(k, 8) words of its line.
//
// The block is fastrange(h1, blocks) and the k slots inside it are probe rule 2's (line_probes,
// blocked_layout.hpp, with 6- or 7-bit fields of h2): always k distinct bits, whatever the hash.
// These layouts are new in lfbloom 1.5, so no file of theirs has rule 1: rule 2 is their only one.
//
// Cost in memory: a 64- or 128-bit block holds few keys' worth of bits, so loads per block vary
// more and the optimal k is smaller; blocked_geometry sizes each with the exact blocked model
// (blocked_fpr, probes drawn with replacement). Rule 2's distinct slots keep the measured rate
// under it: at capacity, n = 10^6, one-word 0.98p, 0.93p, 0.78p and two-word 0.995p, 0.97p, 0.90p
// at p = 10%, 1%, 0.1% (filter_test's fpr_at_capacity_is_within_the_target, 10^6 queries).
// Bits per key for n = 10^6 (k in brackets), printed by the sizing test `memory_of_each_layout`:
//   p       one-word     two-word     blocked      split-block
//   10%      5.03 (3)     4.92 (3)     4.84 (3)     5.99 (8)
//   1%      12.14 (5)    10.85 (6)     9.92 (6)    10.53 (8)
//   0.1%    24.00 (7)    19.01 (8)    15.55 (9)    16.89 (8)
//   0.01%   45.48 (9)    30.94 (10)   22.03 (12)   26.34 (8)
// That is 1.04x, 1.22x, 1.54x and 2.06x the memory of blocked for one-word, 1.02x, 1.09x, 1.22x
// and 1.40x for two-word: a small price at 10%, a large one below 0.1%. Sizing keeps k <= 16 (the
// unrolled probe path); the optimum passes 16 only at p <= 10^-9 for two-word (321 bits per key
// there) and 10^-10 for one-word (4440), where the cap costs 0.8-3.7% more memory.
#pragma once

#include <cstdint>

#include "lfbloom/base/murmur3.hpp"
#include "lfbloom/base/options.hpp"
#include "lfbloom/base/sizing.hpp"
#include "lfbloom/base/storage.hpp"
#include "lfbloom/layouts/blocked_layout.hpp"

namespace lfbloom {

/// Blocks of `Words` 64-bit words (1 or 2); see the top of this file.
template <unsigned Words>
class word_block_layout {
    static_assert(Words == 1 || Words == 2, "one- and two-word blocks only");

public:
    static constexpr layout kind = Words == 1 ? layout::one_word : layout::two_word;
    static constexpr const char* name = Words == 1 ? "one-word" : "two-word";  ///< kind_name's
    static constexpr std::uint32_t block_bits = 64 * Words;
    static constexpr std::uint64_t slot_multiple = block_bits;  ///< m is a whole number of blocks
    /// The hash and probe rules a file of this layout may record: rule 2 only (new in 1.5, never rule 1).
    static constexpr bool takes_rule(probe_rule r) noexcept { return r == probe_rule::distinct; }

    /// The fewest blocks (and their k, at most 16) whose expected FPR at n keys is <= p. Pure and
    /// thread-safe (blocked_geometry's models are shared under their mutex); throws as it does.
    static geometry size_for(std::uint64_t n, double p) {
        return blocked_geometry(n, p, block_bits, line_probes::max_unrolled);
    }
    /// The blocked model's expected FPR for n keys in m bits, k bits each. Pure and thread-safe.
    static double expected_fpr(double n, std::uint64_t m, std::uint32_t k) {
        return blocked_fpr(n, m / block_bits, k, block_bits);
    }
    /// Slots per block, for the stats' count estimate. Pure and thread-safe.
    static std::uint64_t block_slots(std::uint64_t) noexcept { return block_bits; }

    /// The probe rule is always rule 2: the argument is ignored. The layout is immutable after
    /// construction, so any number of threads may use it at once.
    word_block_layout(std::uint64_t bits, std::uint32_t hashes, probe_rule = probe_rule::distinct) noexcept
        : probes_(bits / block_bits, hashes, probe_rule::distinct) {}
    /// Always rule 2 (saved in files). Pure: any thread.
    probe_rule rule() const noexcept { return probe_rule::distinct; }

    /// Builds the key's mask for each word of its block in registers, then reads the block: a word
    /// that lacks some of its mask's bits gets one locked OR (or_word: a `lock or`, never a CAS
    /// loop); a key whose bits are all present writes nothing. Returns whether some bit was missing
    /// when the block was read: of racing adds of one new key at least one returns true (an add
    /// that reads all bits set read another add's ORs, and that add found them missing), more than
    /// one may (Relacy racing_adds.one_word and .two_word). Lock-free; the loads and ORs are
    /// relaxed (storage.hpp says why that is enough).
    /// `or_into(word, mask)` is how a word gains bits: or_word, or a plain OR in the benchmark that
    /// prices the atomics (then nothing above holds for racing adds).
    template <class Word, class OrInto>
    bool add_with(Word* words, hash128 h, OrInto or_into) const noexcept {
        const masks m = masks_of(h);
        Word* block = words + probes_.line(h) * Words;
        bool missing = false;
        for (unsigned w = 0; w < Words; ++w) {
            if ((m.word[w] & ~load_word(block[w])) != 0) {
                or_into(block[w], m.word[w]);
                missing = true;
            }
        }
        return missing;
    }
    /// add_with through or_word: the lock-free add bloom_filter::add_hash calls (contract above).
    template <class Word>
    bool add(Word* words, hash128 h) const noexcept {
        return add_with(words, h, [](Word& word, std::uint64_t mask) { or_word(word, mask); });
    }

    /// One relaxed load per word (storage.hpp), no branch on their values. Wait-free, any thread:
    /// true for every key whose add happens-before the query.
    template <class Word>
    bool contains(const Word* words, hash128 h) const noexcept {
        const masks m = masks_of(h);
        const Word* block = words + probes_.line(h) * Words;
        std::uint64_t missing = 0;
        for (unsigned w = 0; w < Words; ++w) missing |= m.word[w] & ~load_word(block[w]);
        return missing == 0;
    }

    /// Starts loading the key's block; a hint with no effect on results. Any thread.
    template <class Word>
    void prefetch(const Word* words, hash128 h, bool for_write) const noexcept {
        const Word* block = words + probes_.line(h) * Words;
        if (for_write) __builtin_prefetch(block, 1); else __builtin_prefetch(block, 0);
    }

    /// For bulk builds (bulk.hpp): the key's block and its bits set in a plain, private copy of it.
    static constexpr std::uint64_t block_words = Words;
    std::uint64_t block_word(hash128 h) const noexcept { return probes_.line(h) * Words; }
    void set_plain(std::uint64_t* block, hash128 h) const noexcept {
        const masks m = masks_of(h);
        for (unsigned w = 0; w < Words; ++w) block[w] |= m.word[w];
    }

private:
    static constexpr unsigned slot_bits_log2 = Words == 1 ? 6 : 7;

    struct masks {
        std::uint64_t word[Words];
    };

    /// The key's bits in each word of its block (word w holds slots 64w .. 64w + 63). Two scalars
    /// selected without a branch, not an array indexed by slot / 64, which would live in memory.
    masks masks_of(hash128 h) const noexcept {
        std::uint64_t low = 0, high = 0;
        probes_.for_each_slot<slot_bits_log2>(h, [&](unsigned slot) {
            const std::uint64_t bit = std::uint64_t{1} << (slot & 63);
            const std::uint64_t in_high = std::uint64_t{0} - (slot >> 6);  // all ones for slots 64..127
            low |= bit & ~in_high;
            high |= bit & in_high;
            return true;
        });
        if constexpr (Words == 1) return {{low}};
        else return {{low, high}};
    }

    line_probes probes_;
};

using one_word_layout = word_block_layout<1>;
using two_word_layout = word_block_layout<2>;

}  // namespace lfbloom
