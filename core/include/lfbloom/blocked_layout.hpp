// The blocked layout (the default): a key's k probes all fall in one 64-byte cache line, so an
// add or a query costs one cache miss instead of k.
//
// The line is fastrange(h1, lines) (the high bits of h1 * lines). Inside it, the probes are
// consecutive 9-bit fields of h2 (the other, independent half of the hash), seven per 64-bit
// value, refilled by a folded 128-bit multiply when k > 7: see line_probes::for_each_slot. (A
// plain multiply chain x * C measured up to 1% above the expected FPR with 128-slot lines; bit
// fields of well-mixed values match the model of independent probes, which the FPR tests check.)
//
// Cost in memory: loads per line vary (Poisson), so at equal bits a blocked filter has a higher
// FPR than a classic one (10 bits/key, k = 6: about 0.96% against 0.82%). blocked_geometry sizes
// it with its own formula so the expected FPR still meets the target; for n = 10^6 that takes
// 0.6% more memory than classic at p = 10%, 3.4% at 1%, 8.1% at 0.1% and 15% at 0.01% (printed
// by the sizing test `blocked_memory_over_classic`). Below 0.1% the gap grows because 512 bits
// hold few keys' worth of probes; counting filters (64-128 slots per line) pay more.
#pragma once

#include <bit>
#include <cstdint>
#include <iterator>
#include <utility>

#include "lfbloom/murmur3.hpp"
#include "lfbloom/options.hpp"
#include "lfbloom/sizing.hpp"
#include "lfbloom/storage.hpp"

namespace lfbloom {

/// Probe positions inside one line for blocked layouts: `slot_bits_log2` = log2(slots per line).
class line_probes {
public:
    static constexpr std::uint64_t multiplier = 0x9e3779b97f4a7c15ULL;

    line_probes(std::uint64_t lines, std::uint32_t hashes) noexcept : lines_(lines), hashes_(hashes) {}

    std::uint64_t line(hash128 h) const noexcept { return fastrange64(h.h1, lines_); }

    /// Calls visit(slot) for each of the k slots (in [0, 2^slot_bits_log2)) while it returns true.
    /// Slots are consecutive bit fields of x, x_0 = h2: 7 fields of 9 bits (512-slot lines) per
    /// 64-bit value; when they run out, x_{j+1} folds the 128-bit product x_j * 0x9e3779b97f4a7c15
    /// (low XOR high half). The fields of one well-mixed value are independent, so the first
    /// 64 / slot_bits probes cost no arithmetic at all and never wait on a multiply chain.
    /// k up to 16 runs fully unrolled (the k-loop's bookkeeping cost as much as the probes).
    template <unsigned slot_bits_log2, class Visit>
    bool for_each_slot(hash128 h, Visit visit) const noexcept {
        return dispatch<slot_bits_log2, 1>(h, visit);
    }

    std::uint64_t lines() const noexcept { return lines_; }
    std::uint32_t hashes() const noexcept { return hashes_; }

private:
    static constexpr unsigned max_unrolled = 16;

    static std::uint64_t refill(std::uint64_t x) noexcept {
        const unsigned __int128 product = static_cast<unsigned __int128>(x) * multiplier;
        return static_cast<std::uint64_t>(product) ^ static_cast<std::uint64_t>(product >> 64);
    }

    template <unsigned slot_bits_log2>
    static unsigned field(std::uint64_t x, unsigned index) noexcept {
        return static_cast<unsigned>(x >> (index * slot_bits_log2)) & ((1u << slot_bits_log2) - 1);
    }

    template <unsigned slot_bits_log2, unsigned k, class Visit>
    bool dispatch(hash128 h, Visit& visit) const noexcept {
        if constexpr (k > max_unrolled) {
            return each_slot_loop<slot_bits_log2>(h, visit);
        } else {
            if (hashes_ == k) return each_slot_unrolled<slot_bits_log2, k>(h, visit, std::make_integer_sequence<unsigned, k>{});
            return dispatch<slot_bits_log2, k + 1>(h, visit);
        }
    }

    // flatten: GCC otherwise leaves the visitor out of line once the dispatch chain has used up
    // its inlining budget, a call per probe (measured: 22% of a batch query's time).
    template <unsigned slot_bits_log2, unsigned k, class Visit, unsigned... i>
    [[gnu::flatten]] static bool each_slot_unrolled(hash128 h, Visit& visit, std::integer_sequence<unsigned, i...>) noexcept {
        constexpr unsigned per_word = 64 / slot_bits_log2;
        std::uint64_t x[(k + per_word - 1) / per_word];
        x[0] = h.h2;
        for (unsigned j = 1; j < std::size(x); ++j) x[j] = refill(x[j - 1]);
        return (visit(field<slot_bits_log2>(x[i / per_word], i % per_word)) && ...);  // in order, stops early
    }

    template <unsigned slot_bits_log2, class Visit>
    [[gnu::flatten]] bool each_slot_loop(hash128 h, Visit& visit) const noexcept {
        constexpr unsigned per_word = 64 / slot_bits_log2;
        std::uint64_t x = h.h2;
        for (std::uint32_t i = 0, index = 0; i < hashes_; ++i, ++index) {
            if (index == per_word) x = refill(x), index = 0;
            if (!visit(field<slot_bits_log2>(x, index))) return false;
        }
        return true;
    }

    std::uint64_t lines_;
    std::uint32_t hashes_;
};

class blocked_layout {
public:
    static constexpr layout kind = layout::blocked;
    static constexpr std::uint32_t line_bits = 512;
    static constexpr std::uint64_t slot_multiple = line_bits;  ///< m is a whole number of lines

    static geometry size_for(std::uint64_t n, double p) { return blocked_geometry(n, p, line_bits); }
    static double expected_fpr(double n, std::uint64_t m, std::uint32_t k) {
        return blocked_fpr(n, m / line_bits, k, line_bits);
    }
    static std::uint64_t block_slots(std::uint64_t) noexcept { return line_bits; }

    blocked_layout(std::uint64_t bits, std::uint32_t hashes) noexcept : probes_(bits / line_bits, hashes) {}

    /// Gathers the probes into one mask per word of the line. If every bit is already set (a
    /// duplicate or hot key) it returns false having written nothing, so hot lines stay shared in
    /// every core's cache; that is one branch per key, where a check per word mispredicts about
    /// once per word while the filter fills. Otherwise each touched word gets one locked OR.
    /// `set(word, mask)` is how a word gains bits: or_bits, or a plain OR in the benchmark that
    /// prices the atomics.
    template <class Word, class SetBits>
    bool add_with(Word* words, hash128 h, SetBits set) const noexcept {
        std::uint64_t masks[words_per_line] = {};
        unsigned touched = 0;  // bit w: the key has bits in word w
        probes_.for_each_slot<9>(h, [&](unsigned bit) {
            masks[bit >> 6] |= std::uint64_t{1} << (bit & 63);
            touched |= 1u << (bit >> 6);
            return true;
        });
        Word* line = words + probes_.line(h) * words_per_line;
        std::uint64_t missing = 0;
        for (unsigned t = touched; t != 0; t &= t - 1) {
            const unsigned w = static_cast<unsigned>(std::countr_zero(t));
            missing |= masks[w] & ~load_word(line[w]);
        }
        if (missing == 0) return false;
        bool changed = false;
        for (unsigned t = touched; t != 0; t &= t - 1) {
            const unsigned w = static_cast<unsigned>(std::countr_zero(t));
            changed |= set(line[w], masks[w]);
        }
        return changed;
    }
    template <class Word>
    bool add(Word* words, hash128 h) const noexcept {
        return add_with(words, h, [](Word& word, std::uint64_t mask) { return or_bits(word, mask); });
    }

    /// Branch-free over the k probes (an early exit mispredicts once per absent key, which costs
    /// more than the few L1 loads it saves: the whole line is one cache miss either way).
    template <class Word>
    bool contains(const Word* words, hash128 h) const noexcept {
        const Word* line = words + probes_.line(h) * words_per_line;
        std::uint64_t all = 1;
        probes_.for_each_slot<9>(h, [&](unsigned bit) {
            all &= load_word(line[bit >> 6]) >> (bit & 63);
            return true;
        });
        return all & 1;
    }

    template <class Word>
    void prefetch(const Word* words, hash128 h, bool for_write) const noexcept {
        const Word* line = words + probes_.line(h) * words_per_line;
        if (for_write) __builtin_prefetch(line, 1); else __builtin_prefetch(line, 0);
    }

private:
    line_probes probes_;
};

}  // namespace lfbloom
