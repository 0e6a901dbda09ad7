// The blocked layout (the default): a key's k probes all fall in one 64-byte cache line, so an
// add or a query costs one cache miss instead of k.
//
// The line is fastrange(h1, lines) (the high bits of h1 * lines). Inside it, the probes are
// consecutive 9-bit fields of h2 (the other, independent half of the hash), seven per 64-bit
// value, refilled by a folded 128-bit multiply when k > 7, and (probe rule 2, new filters) each
// stepped on past the slots the key already probed, so no hash value can pile its k probes onto
// fewer slots: see line_probes. (A plain multiply chain x * C measured up to 1% above the
// expected FPR with 128-slot lines; bit fields of well-mixed values match the model of
// independent probes, which the FPR tests check; rule 2 stays at or below it.)
//
// Cost in memory: loads per line vary (Poisson), so at equal bits a blocked filter has a higher
// FPR than a classic one (10 bits/key, k = 6: about 0.96% against 0.82%). blocked_geometry sizes
// it with its own formula so the expected FPR still meets the target; for n = 10^6 that takes
// 0.6% more memory than classic at p = 10%, 3.4% at 1%, 8.1% at 0.1% and 15% at 0.01% (printed
// by the sizing test `blocked_memory_over_classic`). Below 0.1% the gap grows because 512 bits
// hold few keys' worth of probes; counting filters (64-128 slots per line) pay more.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <string>
#include <type_traits>
#include <utility>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "lfbloom/base/error.hpp"
#include "lfbloom/base/murmur3.hpp"
#include "lfbloom/base/options.hpp"
#include "lfbloom/base/simd.hpp"
#include "lfbloom/base/sizing.hpp"
#include "lfbloom/base/storage.hpp"

namespace lfbloom {

namespace detail {
/// `lanes` 64-bit values in one vector register, in GCC's and Clang's vector extension.
template <unsigned lanes>
struct value_vector;
template <>
struct value_vector<2> {
    using type = std::uint64_t __attribute__((vector_size(16)));
};
template <>
struct value_vector<4> {
    using type = std::uint64_t __attribute__((vector_size(32)));
};
}  // namespace detail

/// `rule` if it is one this lfbloom knows; else throws invalid_argument.
inline probe_rule checked_probe_rule(probe_rule rule) {
    if (rule != probe_rule::fields && rule != probe_rule::distinct)
        throw error(errc::invalid_argument, "unknown probe rule " + std::to_string(static_cast<int>(rule)));
    return rule;
}

/// Probe positions inside one line for blocked layouts: `slot_bits_log2` = log2(slots per line).
///
/// Rule 1 (probe_rule::fields, files of lfbloom 1.0-1.3): the slots are consecutive bit fields of
/// x, x_0 = h2: 7 fields of 9 bits (512-slot lines) per 64-bit value; when they run out, x_{j+1}
/// folds the 128-bit product x_j * 0x9e3779b97f4a7c15 (low XOR high half). The fields of one
/// well-mixed value are independent, so the first 64 / slot_bits probes cost no arithmetic at all
/// and never wait on a multiply chain. Its flaw: nothing keeps one key's probes apart. h2 = 0 (the
/// empty key under seed 0: MurmurHash3 of no bytes is (0, 0)) gives all-zero fields, and refill(0)
/// = 0, so all k probes hit one slot and the key is "maybe present" once that slot is set: in 38%
/// of full blocked filters at p = 1%, not 1%.
///
/// Rule 2 (probe_rule::distinct, new filters): the same fields f_i, but each probe takes the first
/// of f_i, f_i + s, f_i + 2s, ... (mod slots per line) that no earlier probe of the key took, with
/// the odd stride s = (h1 | 1) mod slots per line. An odd stride visits every slot of a
/// power-of-two line, so every key, whatever its hash, probes min(k, slots per line) distinct
/// slots: h = (0, 0) probes slots 0, 1, ..., k-1, and any value whose fields or refills repeat
/// (a fixed point of refill included) is stepped apart the same way. This is the only kind of fix
/// that covers EVERY hash: a rule whose probes are independent and uniform over random hashes
/// (rule 1, or rule 1 with constants XORed into the fields, or a better-mixed start) must, by
/// counting, give some 2^64 / slots^(k-1) values of h2 k equal probes; mixing only moves them to
/// values nobody has looked at. Rule 2 trades that exactness for sampling without replacement,
/// which sets a little more of the line per key but needs k distinct set slots of an absent key.
/// At the k sizing picks, the second wins: measured (2*10^6-10^7 queries at capacity) 0.3-3%
/// below rule 1's FPR in 512-slot lines (k = 3-12), 4-8% below in 128 and 8-13% below in 64,
/// so the sizing model (independent probes) stays an upper bound. At a k far above the optimum
/// for the line (with_geometry, k = 20 on 64 8-bit counters) the first wins: 0.55% against rule
/// 1's 0.32% there. Keys whose fields already differ (97% at k = 6 in 512 slots) probe exactly
/// as under rule 1.
///
/// Cost: when the k fields come from one or two values (k <= 14 of 9 bits, k <= 16 of 7), a
/// branch-free check that they differ, a few dozen register operations (fields_differ,
/// fields_apart); only keys that fail it build the scratch set of taken slots and step (out of
/// line). Beyond that, every probe is checked against the scratch set. Measured with the hash
/// taken out (k = 6, a 120 KB filter): a query 5.1 -> 8.0 ns, an add 35 -> 41 ns, a counting
/// query 12.5 -> 13.5 ns.
///
/// `coarse` is the number of low slot bits the caller drops (1 for 8-bit counters, which use the
/// top 6 bits of 7-bit slots): rule 2 keeps the probes distinct after the drop, and steps by 2s.
class line_probes {
public:
    static constexpr std::uint64_t multiplier = 0x9e3779b97f4a7c15ULL;

    line_probes(std::uint64_t lines, std::uint32_t hashes, probe_rule rule = current_probe_rule, unsigned coarse = 0) noexcept
        : lines_(lines), hashes_(hashes), rule_(rule), coarse_(coarse) {}

    std::uint64_t line(hash128 h) const noexcept { return fastrange64(h.h1, lines_); }

    /// Calls visit(slot) for each of the k slots (in [0, 2^slot_bits_log2)) while it returns true,
    /// by the filter's rule (above). k up to 16 runs fully unrolled (the k-loop's bookkeeping cost
    /// as much as the probes).
    /// `stops_early`: visit returns false for most keys before the last probe (a counting
    /// query), which picks the cheaper order for rule 2's check; see each_slot_unrolled.
    template <unsigned slot_bits_log2, bool stops_early = false, class Visit>
    bool for_each_slot(hash128 h, Visit visit) const noexcept {
        return with_k([&](auto k) {
            if constexpr (k == 0) return each_slot_loop<slot_bits_log2>(h, visit);
            else return each_slot_unrolled<slot_bits_log2, stops_early, k>(h, visit, std::make_integer_sequence<unsigned, k>{});
        });
    }

    /// Whether test(slot) holds for every one of the key's k slots (a Bloom query). Every field
    /// is one of the slots under rule 2 too (a probe leaves its field only if an earlier probe
    /// took that slot), so the fields are tested first, without a branch: one fails, the key is
    /// absent, with no check of rule 2; all pass, and rule 2's slots are the fields unless two
    /// fields are one slot (the check of fast_path_holds), else the stepped slots are tested.
    template <unsigned slot_bits_log2, class Test>
    [[gnu::always_inline]] bool all_slots(hash128 h, Test test) const noexcept {
        return with_k([&](auto k) {
            if constexpr (k == 0) return each_slot_loop<slot_bits_log2>(h, test);
            else return all_slots_unrolled<slot_bits_log2, k>(h, test);
        });
    }

    /// all_slots for a batch's group of n keys, their lines prefetched: found[i] (if not null)
    /// gets key i's answer, and the count of true answers is returned; test(line, slot) tests a
    /// slot of a line and returns 1 or 0. k is dispatched once for the group, not once a key.
    /// When the k fields come from one value, 16 keys' fields are tested without a branch, and
    /// only if one of them has all its fields set does rule 2's check run, for the 16 together
    /// in vector registers (GCC's and Clang's vector extension: four keys with AVX2, else two,
    /// SSE2 on x86-64). In cache, batches of 16-byte keys, k = 6 (lfbloom-bench): present 10.7
    /// -> 9.5 ns a key, absent 10.8 -> 8.2.
    template <unsigned slot_bits_log2, class Test>
    std::uint64_t all_slots_group(const hash128* h, std::size_t n, std::uint8_t* found, Test test) const noexcept {
#if defined(__x86_64__)
        if (simd::avx2()) return all_slots_group_avx2<slot_bits_log2>(h, n, found, test);
#endif
        return group_of<slot_bits_log2, 2>(h, n, found, test);
    }

    /// The largest k for_each_slot runs unrolled; above it, a loop.
    static constexpr unsigned max_unrolled = 16;

    std::uint64_t lines() const noexcept { return lines_; }
    std::uint32_t hashes() const noexcept { return hashes_; }
    probe_rule rule() const noexcept { return rule_; }

private:
    static std::uint64_t refill(std::uint64_t x) noexcept {
        const unsigned __int128 product = static_cast<unsigned __int128>(x) * multiplier;
        return static_cast<std::uint64_t>(product) ^ static_cast<std::uint64_t>(product >> 64);
    }

#if defined(__x86_64__)
    /// all_slots_group with AVX2 (flatten: the vector code must be compiled for its target).
    template <unsigned slot_bits_log2, class Test>
    [[gnu::target("avx2"), gnu::flatten]] std::uint64_t all_slots_group_avx2(const hash128* h, std::size_t n, std::uint8_t* found,
                                                                             Test& test) const noexcept {
        return group_of<slot_bits_log2, 4>(h, n, found, test);
    }
#endif

    /// all_slots_group with rule 2's check on `lanes` keys at a time.
    template <unsigned slot_bits_log2, unsigned lanes, class Test>
    [[gnu::always_inline]] std::uint64_t group_of(const hash128* h, std::size_t n, std::uint8_t* found, Test& test) const noexcept {
        return with_k([&](auto k) {
            constexpr unsigned per_word = 64 / slot_bits_log2;
            std::uint64_t hits = 0;
            const auto answer = [&](std::size_t i, bool hit) {
                if (found != nullptr) found[i] = hit;
                hits += hit;
            };
            if constexpr (k == 0 || k > per_word) {
                for (std::size_t i = 0; i < n; ++i) {
                    const std::uint64_t line = this->line(h[i]);
                    const auto probe = [&test, line](unsigned slot) { return test(line, slot) != 0; };
                    if constexpr (k == 0) answer(i, each_slot_loop<slot_bits_log2>(h[i], probe));
                    else answer(i, all_slots_unrolled<slot_bits_log2, k>(h[i], probe));
                }
            } else {
                using values = typename detail::value_vector<lanes>::type;
                constexpr std::size_t chunk = 16;
                for (std::size_t first = 0; first < n; first += chunk) {
                    const std::size_t m = std::min(chunk, n - first);
                    std::uint32_t all_set = 0;  // bit j: key first + j has all its fields set
                    for (std::size_t j = 0; j < m; ++j) {
                        const hash128 key = h[first + j];
                        const std::uint64_t line = this->line(key);
                        const bool hit = [&]<unsigned... i>(std::integer_sequence<unsigned, i...>) {
                            return (test(line, field<slot_bits_log2>(key.h2, i)) & ...) != 0;  // &: no branch
                        }(std::make_integer_sequence<unsigned, k>{});
                        all_set |= static_cast<std::uint32_t>(hit) << j;
                        answer(first + j, hit);
                    }
                    if (rule_ == probe_rule::fields || all_set == 0) continue;  // most chunks of absent keys
                    alignas(32) std::uint64_t repeats[chunk];  // nonzero: the key's fields repeat
                    for (std::size_t j = 0; j < m; j += lanes) {
                        values x, r;
                        if (j + lanes <= m) [[likely]] {
                            for (std::size_t v = 0; v < lanes; ++v) x[v] = h[first + j + v].h2;
                        } else {
                            for (std::size_t v = 0; v < lanes; ++v) x[v] = j + v < m ? h[first + j + v].h2 : 0;
                        }
                        repeated_fields<slot_bits_log2, k>(x, coarse_, r);
                        std::memcpy(repeats + j, &r, sizeof r);
                    }
                    for (std::uint32_t bits = all_set; bits != 0; bits &= bits - 1) {
                        const std::size_t j = static_cast<std::size_t>(std::countr_zero(bits));
                        if (repeats[j] == 0) [[likely]] continue;
                        const hash128 key = h[first + j];
                        const std::uint64_t line = this->line(key);
                        if (stepped<slot_bits_log2, false, k>(key, [&test, line](unsigned slot) { return test(line, slot) != 0; },
                                                              std::make_integer_sequence<unsigned, k>{}))
                            continue;
                        if (found != nullptr) found[first + j] = false;  // rule 2's slots: absent after all
                        --hits;
                    }
                }
            }
            return hits;
        });
    }

    /// The values whose fields are a key's first k probes: h2, then its refills.
    template <unsigned slot_bits_log2, unsigned k>
    static auto values(hash128 h) noexcept {
        constexpr unsigned per_word = 64 / slot_bits_log2;
        std::array<std::uint64_t, (k + per_word - 1) / per_word> x;
        x[0] = h.h2;
        for (unsigned j = 1; j < x.size(); ++j) x[j] = refill(x[j - 1]);
        return x;
    }

    template <unsigned slot_bits_log2>
    static unsigned field(std::uint64_t x, unsigned index) noexcept {
        return static_cast<unsigned>(x >> (index * slot_bits_log2)) & ((1u << slot_bits_log2) - 1);
    }

    /// Bit 0 of each of the first `lanes` fields of `bits` bits.
    static constexpr std::uint64_t lane_ones(unsigned bits, unsigned lanes) noexcept {
        std::uint64_t v = 0;
        for (unsigned i = 0; i < lanes; ++i) v |= std::uint64_t{1} << (i * bits);
        return v;
    }

    /// Field i of x compared with field i + r (with `rotate`, field (i + r) mod the fields of a
    /// value): the top bit of field i is set where the two are equal and both are among the first
    /// k. A zero field of z = x ^ shifted x leaves its top bit clear in ((z & low) + low) | z, the
    /// sum staying inside its field. ORed into `equal`. V: one value, or a vector of them
    /// (all_slots_group; by reference, as a 32-byte vector argument's ABI depends on AVX).
    template <unsigned bits, unsigned k, unsigned r, bool rotate, class V>
    [[gnu::always_inline]] static void equal_at(const V& x, V& equal) noexcept {
        constexpr unsigned lanes = 64 / bits, width = bits * lanes;
        constexpr std::uint64_t valid = [] {
            std::uint64_t v = 0;
            for (unsigned i = 0; i < k; ++i)
                if ((rotate ? (i + r) % lanes : i + r) < k) v |= std::uint64_t{1} << (i * bits + bits - 1);
            return v;
        }();
        constexpr std::uint64_t low = (lane_ones(bits, lanes) << (bits - 1)) - lane_ones(bits, lanes);
        V shifted = x >> (bits * r);
        if constexpr (rotate) shifted |= x << (width - bits * r);
        const V z = x ^ shifted;
        equal |= ~(((z & low) + low) | z) & valid;
    }

    /// Sets `repeats` nonzero if two of the first k fields of x are one slot (above `coarse` low
    /// bits), else 0, without a branch: rule 2's fast path holds where it is 0 (rule 2 then probes
    /// exactly the fields, as rule 1 does). Distances 1 .. k-1, or, when fewer, 1 .. lanes/2 with
    /// rotation, cover every pair. V: one value, or a vector of them, as equal_at.
    template <unsigned slot_bits_log2, unsigned k, class V>
    [[gnu::always_inline]] static void repeated_fields(const V& value, unsigned coarse, V& repeats) noexcept {
        constexpr unsigned lanes = 64 / slot_bits_log2;
        constexpr bool rotate = k - 1 > lanes / 2;
        const V x = value & compared_bits<slot_bits_log2>(coarse);
        repeats = V{};
        [&]<unsigned... r>(std::integer_sequence<unsigned, r...>) {
            (equal_at<slot_bits_log2, k, r + 1, rotate>(x, repeats), ...);
        }(std::make_integer_sequence<unsigned, rotate ? lanes / 2 : k - 1>{});
    }
    /// True if the first k fields of x differ pairwise (above `coarse` low bits).
    template <unsigned slot_bits_log2, unsigned k>
    static bool fields_differ(std::uint64_t x, unsigned coarse) noexcept {
        std::uint64_t repeats;
        repeated_fields<slot_bits_log2, k>(x, coarse, repeats);
        return repeats == 0;
    }

    /// The bits of a value's fields that fields_differ compares: every full field (rotation then
    /// brings no stray bit in), less the `coarse` low bits each field drops.
    template <unsigned slot_bits_log2>
    static std::uint64_t compared_bits(unsigned coarse) noexcept {
        constexpr unsigned lanes = 64 / slot_bits_log2;
        constexpr std::uint64_t fields = ~std::uint64_t{0} >> (64 - slot_bits_log2 * lanes);
        return coarse == 0 ? fields : fields & ~lane_ones(slot_bits_log2, lanes);
    }

    /// True if each of the first k1 fields of `second` differs from every field of `first` (above
    /// `coarse` low bits), with no branch: field i of second against field (i + r) mod lanes of
    /// first, for every rotation r. With fields_differ on each value, this extends rule 2's fast
    /// path to k up to two values' fields (k = 8-14 in 512-slot lines, which sizing picks at
    /// 0.1% and below: before, every such key took the stepped path, ~10 ns more per query).
    template <unsigned slot_bits_log2, unsigned k1>
    static bool fields_apart(std::uint64_t first, std::uint64_t second, unsigned coarse) noexcept {
        constexpr unsigned bits = slot_bits_log2, lanes = 64 / bits, width = bits * lanes;
        constexpr std::uint64_t low = (lane_ones(bits, lanes) << (bits - 1)) - lane_ones(bits, lanes);
        constexpr std::uint64_t valid = lane_ones(bits, k1) << (bits - 1);
        const std::uint64_t mask = compared_bits<bits>(coarse);
        first &= mask, second &= mask;
        return [&]<unsigned... r>(std::integer_sequence<unsigned, r...>) {
            auto equal = [&](unsigned shift) {
                const std::uint64_t rotated = shift == 0 ? first : ((first >> shift) | (first << (width - shift))) & mask;
                const std::uint64_t z = second ^ rotated;
                return ~(((z & low) + low) | z) & valid;
            };
            return (equal(r * bits) | ... | 0) == 0;
        }(std::make_integer_sequence<unsigned, lanes>{});
    }

    /// Rule 2's set of the slots a key has probed so far (after dropping `coarse` low bits).
    template <unsigned slot_bits_log2>
    class taken_slots {
    public:
        static constexpr unsigned slot_mask = (1u << slot_bits_log2) - 1;

        taken_slots(std::uint64_t h1, unsigned coarse) noexcept
            : step_((static_cast<unsigned>(h1 | 1) << coarse) & slot_mask), coarse_(coarse) {}

        /// The first of slot, slot + s, ... not taken yet; takes it. Needs a free slot left.
        unsigned take(unsigned slot) noexcept {
            for (;;) {
                const unsigned u = slot >> coarse_;
                const std::uint64_t bit = std::uint64_t{1} << (u & 63);
                if ((taken_[u >> 6] & bit) == 0) [[likely]] {
                    taken_[u >> 6] |= bit;
                    return slot;
                }
                slot = (slot + step_) & slot_mask;
            }
        }

    private:
        std::uint64_t taken_[(1u << slot_bits_log2) / 64 + ((1u << slot_bits_log2) % 64 != 0)] = {};
        unsigned step_;
        unsigned coarse_;
    };

    /// f(integral_constant<unsigned, k>) for the filter's k up to max_unrolled, else f(0).
    template <unsigned k = 1, class F>
    [[gnu::always_inline]] decltype(auto) with_k(F&& f) const noexcept {
        if constexpr (k > max_unrolled) {
            return f(std::integral_constant<unsigned, 0>{});
        } else {
            if (hashes_ == k) return f(std::integral_constant<unsigned, k>{});
            return with_k<k + 1>(f);
        }
    }

    /// all_slots for one k. Out of line, taking the test by value: inlined into all_slots, every
    /// k's code shared one frame, so each query saved six registers and stored the hash and the
    /// line's address on the stack for the stepped path; alone, the common path keeps them in
    /// registers and the dispatch jumps to it. In cache, one call a key (lfbloom-bench, 16-byte
    /// keys, k = 6): present 15.1 -> 14.3 ns, absent 11.2 -> 10.4.
    template <unsigned slot_bits_log2, unsigned k, class Test>
    [[gnu::noinline]] LFBLOOM_FLATTEN bool all_slots_unrolled(hash128 h, Test test) const noexcept {
        constexpr unsigned per_word = 64 / slot_bits_log2;
        const auto x = values<slot_bits_log2, k>(h);
        const bool fields = [&]<unsigned... i>(std::integer_sequence<unsigned, i...>) {
            return (test(field<slot_bits_log2>(x[i / per_word], i % per_word)) & ...);  // &: no branch
        }(std::make_integer_sequence<unsigned, k>{});
        if (!fields) return false;
        if (rule_ == probe_rule::fields || fast_path_holds<slot_bits_log2, k>(x)) [[likely]] return true;
        return stepped<slot_bits_log2, false, k>(h, test, std::make_integer_sequence<unsigned, k>{});
    }

    // flatten: GCC otherwise leaves the visitor out of line once the dispatch chain has used up
    // its inlining budget, a call per probe (measured: 22% of a batch query's time).
    //
    // Rule 2, when the k fields come from one value: a branch-free check that they differ, then
    // the fields as rule 1 visits them (97% of keys at k = 6 in 512 slots); else the stepped
    // slots. For a visitor that stops early (a zero counter: most absent keys), the fields are
    // visited first and the check made only if it ran to the end, then only the slots that
    // replace repeated fields: the same set (rule 2 keeps each field's first occurrence), some
    // slot visited twice, which such a visitor (a minimum) must not mind.
    template <unsigned slot_bits_log2, bool stops_early, unsigned k, class Visit, unsigned... i>
    LFBLOOM_FLATTEN bool each_slot_unrolled(hash128 h, Visit& visit, std::integer_sequence<unsigned, i...>) const noexcept {
        constexpr unsigned per_word = 64 / slot_bits_log2;
        const auto x = values<slot_bits_log2, k>(h);
        bool plain = rule_ == probe_rule::fields;  // rule 1, or rule 2 with the fields apart
        if constexpr (stops_early) {
            if (!(visit(field<slot_bits_log2>(x[i / per_word], i % per_word)) && ...)) return false;  // in order
            if (!plain) plain = fast_path_holds<slot_bits_log2, k>(x);
            if (plain) [[likely]] return true;
        } else {
            if (!plain) plain = fast_path_holds<slot_bits_log2, k>(x);
            if (plain) [[likely]] return (visit(field<slot_bits_log2>(x[i / per_word], i % per_word)) && ...);
        }
        return stepped<slot_bits_log2, stops_early, k>(h, visit, std::integer_sequence<unsigned, i...>{});
    }

    /// Whether rule 2 probes exactly the k fields (they differ pairwise), checked without a branch
    /// when they come from one or two values; false (take the stepped path) beyond.
    template <unsigned slot_bits_log2, unsigned k, std::size_t count>
    bool fast_path_holds(const std::array<std::uint64_t, count>& x) const noexcept {
        constexpr unsigned per_word = 64 / slot_bits_log2;
        if constexpr (k <= per_word) {
            return fields_differ<slot_bits_log2, k>(x[0], coarse_);
        } else if constexpr (k <= 2 * per_word) {
            return fields_differ<slot_bits_log2, per_word>(x[0], coarse_) &  // &, not &&: no branch
                   fields_differ<slot_bits_log2, k - per_word>(x[1], coarse_) &
                   fields_apart<slot_bits_log2, k - per_word>(x[0], x[1], coarse_);
        } else {
            return false;
        }
    }

    /// Rule 2's slots when fields repeat (all of them; with `stops_early`, only those that replace
    /// a repeat). Out of line: inlined, its scratch set slowed every add (measured: 25-80%). It
    /// takes the hash and the visitor by value and computes the fields again, so its callers
    /// need not keep them in memory for it.
    template <unsigned slot_bits_log2, bool stops_early, unsigned k, class Visit, unsigned... i>
    [[gnu::noinline]] bool stepped(hash128 h, Visit visit, std::integer_sequence<unsigned, i...>) const noexcept {
        constexpr unsigned per_word = 64 / slot_bits_log2;
        const auto x = values<slot_bits_log2, k>(h);
        taken_slots<slot_bits_log2> taken(h.h1, coarse_);  // k <= 16 < 64 free slots: take() always finds one
        if constexpr (stops_early) {
            return ([&] {
                const unsigned slot = field<slot_bits_log2>(x[i / per_word], i % per_word), moved = taken.take(slot);
                return moved == slot || visit(moved);
            }() && ...);
        } else {
            return (visit(taken.take(field<slot_bits_log2>(x[i / per_word], i % per_word))) && ...);
        }
    }

    template <unsigned slot_bits_log2, class Visit>
    LFBLOOM_FLATTEN bool each_slot_loop(hash128 h, Visit& visit) const noexcept {
        constexpr unsigned per_word = 64 / slot_bits_log2;
        // Rule 2 keeps the first `distinct` probes apart; past the line's slots, probes repeat.
        const std::uint32_t distinct = rule_ == probe_rule::fields ? 0 : (1u << slot_bits_log2) >> coarse_;
        taken_slots<slot_bits_log2> taken(h.h1, coarse_);
        std::uint64_t x = h.h2;
        for (std::uint32_t i = 0, index = 0; i < hashes_; ++i, ++index) {
            if (index == per_word) x = refill(x), index = 0;
            unsigned slot = field<slot_bits_log2>(x, index);
            if (i < distinct) slot = taken.take(slot);
            if (!visit(slot)) return false;
        }
        return true;
    }

    std::uint64_t lines_;
    std::uint32_t hashes_;
    probe_rule rule_;
    unsigned coarse_;
};

class blocked_layout {
public:
    static constexpr layout kind = layout::blocked;
    static constexpr const char* name = "blocked";  ///< kind_name's
    static constexpr std::uint32_t line_bits = 512;
    static constexpr std::uint64_t slot_multiple = line_bits;  ///< m is a whole number of lines
    /// The hash and probe rules a file of this layout (or a counting one) may record: 1 (lfbloom 1.0-1.3) or 2.
    static constexpr bool takes_rule(probe_rule r) noexcept { return r == probe_rule::fields || r == probe_rule::distinct; }

    static geometry size_for(std::uint64_t n, double p) { return blocked_geometry(n, p, line_bits); }
    static double expected_fpr(double n, std::uint64_t m, std::uint32_t k) {
        return blocked_fpr(n, m / line_bits, k, line_bits);
    }
    static std::uint64_t block_slots(std::uint64_t) noexcept { return line_bits; }

    blocked_layout(std::uint64_t bits, std::uint32_t hashes, probe_rule rule = current_probe_rule) noexcept
        : probes_(bits / line_bits, hashes, rule) {}
    probe_rule rule() const noexcept { return probes_.rule(); }

    /// Builds the key's mask for each word of the line, then reads the line: words that lack some
    /// of their mask's bits get one locked OR each (or_word: a `lock or`, never a CAS loop); a key
    /// whose bits are all present (a duplicate or hot key) writes nothing, so hot lines stay shared
    /// in every core's cache. Returns whether some bit was missing when the line was read: of racing
    /// adds of one new key at least one returns true (an add that reads all bits set read another
    /// add's ORs, and that add found them missing), more than one may.
    /// `or_into(word, mask)` is how a word gains bits: or_word, or a plain OR in the benchmark that
    /// prices the atomics.
    ///
    /// With AVX2 (simd.hpp) and k <= 16 the masks are built in two vector registers and the
    /// whole line is compared at once (add_avx2): the same loads, ORs and answer. In cache, the
    /// hash taken out, k = 6: an add of a key already present (a duplicate) 15.9 -> 8.9 ns (the
    /// scalar path's loops over touched and missing words mispredict), a new key's 24.9 -> 25.8
    /// (its locked ORs are most of it; all eight words are read where the scalar path reads ~4.4).
    template <class Word, class OrInto>
    bool add_with(Word* words, hash128 h, OrInto or_into) const noexcept {
#if defined(__x86_64__)
        // Plain words only: under the model checker (tests/relacy, whose words are model::word)
        // the scalar path runs, whose loads of the touched words alone keep its exhaustive
        // searches the size they were (the eight loads here took rotating.g3.double_write from 67
        // to 142 s of CI). Both paths read with load_word and write with or_word, and
        // filter/blocked_scalar_and_avx2_adds_agree checks that they set the same bits.
        if constexpr (std::is_same_v<Word, std::uint64_t>)
            if (simd::avx2() && probes_.hashes() <= line_probes::max_unrolled) {
                unsigned slots[line_probes::max_unrolled];
                unsigned k = 0;
                probes_.for_each_slot<9>(h, [&](unsigned bit) {
                    slots[k++] = bit;
                    return true;
                });
                return add_avx2(words + probes_.line(h) * words_per_line, slots, k, or_into);
            }
#endif
        std::uint64_t masks[words_per_line] = {};
        unsigned touched = 0;  // bit w: the key has bits in word w
        probes_.for_each_slot<9>(h, [&](unsigned bit) {
            masks[bit >> 6] |= std::uint64_t{1} << (bit & 63);
            touched |= 1u << (bit >> 6);
            return true;
        });
        Word* line = words + probes_.line(h) * words_per_line;
        unsigned missing = 0;  // bit w: word w lacks some of the key's bits
        for (unsigned t = touched; t != 0; t &= t - 1) {
            const unsigned w = static_cast<unsigned>(std::countr_zero(t));
            missing |= static_cast<unsigned>((masks[w] & ~load_word(line[w])) != 0) << w;
        }
        for (unsigned t = missing; t != 0; t &= t - 1) {
            const unsigned w = static_cast<unsigned>(std::countr_zero(t));
            or_into(line[w], masks[w]);
        }
        return missing != 0;
    }
    template <class Word>
    bool add(Word* words, hash128 h) const noexcept {
        return add_with(words, h, [](Word& word, std::uint64_t mask) { or_word(word, mask); });
    }

    /// The fields first, branch-free over them (an early exit per probe mispredicts once per
    /// absent key, which costs more than the few L1 loads it saves: the whole line is one cache
    /// miss either way), then one branch: a field unset, absent, without rule 2's check (see
    /// line_probes::all_slots). The branch mispredicts on a random mix of present and absent keys,
    /// but the caller's own branch on the answer then follows it; a batch, whose answers feed no
    /// branch, takes contains_group. In cache, one call a key: absent 8.4 -> 5.9 ns, present 8.3
    /// either way; a 50/50 mix whose caller branches 13.8 -> 12.7.
    template <class Word>
    bool contains(const Word* words, hash128 h) const noexcept {
        const Word* line = words + probes_.line(h) * words_per_line;
        return probes_.all_slots<9>(h, [line](unsigned bit) { return ((load_word(line[bit >> 6]) >> (bit & 63)) & 1) != 0; });
    }

    /// contains for a batch's group of n keys whose lines are being prefetched, without a branch
    /// on their bits (line_probes::all_slots_group): found[i] (if not null) gets key i's answer;
    /// returns how many may be present.
    template <class Word>
    std::uint64_t contains_group(const Word* words, const hash128* h, std::size_t n, std::uint8_t* found) const noexcept {
        return probes_.all_slots_group<9>(h, n, found, [words](std::uint64_t line, unsigned bit) {
            return (load_word(words[line * words_per_line + (bit >> 6)]) >> (bit & 63)) & 1;
        });
    }

    template <class Word>
    void prefetch(const Word* words, hash128 h, bool for_write) const noexcept {
        const Word* line = words + probes_.line(h) * words_per_line;
        if (for_write) __builtin_prefetch(line, 1); else __builtin_prefetch(line, 0);
    }

    /// For bulk builds (bulk.hpp): the key's line is words block_word(h) .. block_word(h) + 7, and
    /// set_plain sets its bits in a plain, private copy of that line (no atomics: one thread's).
    static constexpr std::uint64_t block_words = words_per_line;
    std::uint64_t block_word(hash128 h) const noexcept { return probes_.line(h) * words_per_line; }
    void set_plain(std::uint64_t* line, hash128 h) const noexcept {
        probes_.for_each_slot<9>(h, [&](unsigned bit) {
            line[bit >> 6] |= std::uint64_t{1} << (bit & 63);
            return true;
        });
    }

private:
#if defined(__x86_64__)
    /// add_with's AVX2 path: words 0-3 and 4-7 of the line in two vectors. Slot b sets bit b - 64w
    /// of word w, a variable shift by b - 64w that AVX2 turns to 0 wherever it is outside 0..63
    /// (for the other seven words), so each slot costs a broadcast, two subtractions, shifts and ORs.
    /// Each word is read with load_word, as in the scalar path (a vector load is not atomic).
    template <class Word, class OrInto>
    [[gnu::target("avx2")]] static bool add_avx2(Word* line, const unsigned* slots, unsigned k, OrInto& or_into) noexcept {
        const __m256i one = _mm256_set1_epi64x(1);
        const __m256i low = _mm256_setr_epi64x(0, 64, 128, 192), high = _mm256_setr_epi64x(256, 320, 384, 448);
        __m256i mask_low = _mm256_setzero_si256(), mask_high = _mm256_setzero_si256();
        for (unsigned i = 0; i < k; ++i) {
            const __m256i slot = _mm256_set1_epi64x(slots[i]);
            mask_low = _mm256_or_si256(mask_low, _mm256_sllv_epi64(one, _mm256_sub_epi64(slot, low)));
            mask_high = _mm256_or_si256(mask_high, _mm256_sllv_epi64(one, _mm256_sub_epi64(slot, high)));
        }
        const auto word = [&](unsigned w) { return static_cast<long long>(load_word(line[w])); };
        const __m256i lacking_low = _mm256_andnot_si256(_mm256_setr_epi64x(word(0), word(1), word(2), word(3)), mask_low);
        const __m256i lacking_high = _mm256_andnot_si256(_mm256_setr_epi64x(word(4), word(5), word(6), word(7)), mask_high);
        const __m256i lacking = _mm256_or_si256(lacking_low, lacking_high);
        if (_mm256_testz_si256(lacking, lacking)) return false;  // every bit present: nothing written
        const __m256i zero = _mm256_setzero_si256();
        const unsigned complete = static_cast<unsigned>(_mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64(lacking_low, zero)))) |
                                  static_cast<unsigned>(_mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64(lacking_high, zero)))) << 4;
        alignas(32) std::uint64_t masks[words_per_line];
        _mm256_store_si256(reinterpret_cast<__m256i*>(masks), mask_low);
        _mm256_store_si256(reinterpret_cast<__m256i*>(masks + 4), mask_high);
        for (unsigned t = ~complete & 0xffu; t != 0; t &= t - 1) {
            const unsigned w = static_cast<unsigned>(std::countr_zero(t));
            or_into(line[w], masks[w]);
        }
        return true;
    }
#endif

    line_probes probes_;
};

}  // namespace lfbloom
