// Sizing from (capacity, false-positive rate), the expected-FPR formulas behind it, and the
// index math shared by the layouts. All thread-safe; all pure but for the
// blocked models, cached and shared under a mutex (see cached_model).
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <mutex>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include <boost/math/distributions/poisson.hpp>

#include "lfbloom/base/error.hpp"

namespace lfbloom {

/// Largest k accepted anywhere (Guava's format stores k in one byte).
inline constexpr std::uint32_t max_hashes = 255;
/// Largest filter in slots (bits or counters): 2^46, 8 TiB of bits; memory limits bind far earlier.
inline constexpr std::uint64_t max_slots = std::uint64_t{1} << 46;

/// The shape of a filter. A slot is one bit of a bit filter or one counter of a counting filter.
struct geometry {
    std::uint64_t slots = 0;
    std::uint32_t hashes = 0;
    std::uint64_t capacity = 0;  ///< the n it was sized for (derived from slots and k if not given)
    double target_fpr = 0;       ///< the p it was sized for (expected FPR at capacity if not given)
    /// Cuckoo filters: the fingerprint width, which fixes the bucket format (14, 16 or 17;
    /// cuckoo_buckets.hpp); 0 there means 16. Other kinds leave it 0 (counting filters take their
    /// counter width as a parameter of its own).
    std::uint32_t slot_bits = 0;

    bool operator==(const geometry&) const = default;
};

namespace detail {

inline void check_capacity_and_rate(std::uint64_t capacity, double fpr) {
    if (capacity == 0) throw error(errc::invalid_argument, "capacity (expected items) must be > 0");
    if (!(fpr > 0.0 && fpr < 1.0))  // also rejects NaN
        throw error(errc::invalid_argument, "false-positive rate must be in (0, 1), got " + std::to_string(fpr));
}

inline void check_hashes(std::uint32_t hashes) {
    if (hashes == 0 || hashes > max_hashes)
        throw error(errc::invalid_argument,
                    "hash count must be in [1, " + std::to_string(max_hashes) + "], got " + std::to_string(hashes));
}

/// Smallest x >= lo with ok(x), for ok monotone (false ... false true ... true); x stays below
/// `limit`, past which the request is too large.
template <class Ok>
std::uint64_t smallest_satisfying(std::uint64_t lo, std::uint64_t limit, Ok ok) {
    std::uint64_t hi = lo;
    while (!ok(hi)) {
        lo = hi + 1;
        if (hi >= limit) throw error(errc::too_large, "the requested rate needs a filter beyond 2^46 slots");
        hi = hi > limit / 2 ? limit : hi * 2;
    }
    while (lo < hi) {
        const std::uint64_t mid = lo + (hi - lo) / 2;
        if (ok(mid)) hi = mid; else lo = mid + 1;
    }
    return lo;
}

/// E[rate(J)] for J ~ Poisson(load), load > 0: summed outward from the mode until the weights
/// are negligible (1e-17 of the mode's).
template <class Rate>
double poisson_mean(double load, Rate rate) {
    const double mode = std::floor(load);
    const double pmf_mode = boost::math::pdf(boost::math::poisson_distribution<double>(load), mode);
    double sum = pmf_mode * rate(mode);
    for (double j = mode + 1, pmf = pmf_mode;; ++j) {
        pmf *= load / j;
        if (pmf < 1e-17 * pmf_mode) break;
        sum += pmf * rate(j);
    }
    for (double j = mode - 1, pmf = pmf_mode; j >= 0; --j) {
        pmf *= (j + 1) / load;
        if (pmf < 1e-17 * pmf_mode) break;
        sum += pmf * rate(j);
    }
    return sum;
}

}  // namespace detail

// ---- index math --------------------------------------------------------------------------------

/// Guava's probe rule: bit index of the probe whose running hash is `combined`, in [0, m).
constexpr std::uint64_t guava_bit_index(std::uint64_t combined, std::uint64_t m) noexcept {
    return (combined & 0x7fffffffffffffffULL) % m;
}

/// Maps a uniform 64-bit hash onto [0, n) with one multiply ("fastrange"), for any n.
constexpr std::uint64_t fastrange64(std::uint64_t hash, std::uint64_t n) noexcept {
    return static_cast<std::uint64_t>((static_cast<unsigned __int128>(hash) * n) >> 64);
}

// ---- expected false-positive rates -------------------------------------------------------------

namespace detail {

/// classic_fpr, or with `any_odd_part` an envelope of it that is monotone in m: gcd(u, m) taken as
/// the power of two in u, and the odd part of m taken as >= k. The envelope equals classic_fpr at
/// every multiple of 64 whose odd part is at least k and has no factor in common with the numbers
/// below k (for k <= 128; above, the u = 128 term may differ by a negligible f^128).
inline double classic_fpr_bound(double n, std::uint64_t m, std::uint32_t k, bool any_odd_part) {
    const double md = static_cast<double>(m);
    const double f = -std::expm1(k * n * std::log1p(-1.0 / md));  // expected fill
    if (!(f > 0)) return 0.0;
    if (!(f < 1)) return 1.0;
    const double fk = std::pow(f, k);
    const std::uint64_t odd = m >> std::countr_zero(m);
    const bool no_alias = any_odd_part || odd >= k;
    double d = 0;
    if (no_alias) {
        const double log_inv_f = -std::log(f);
        double fu = 1;
        for (std::uint32_t u = 1; u < k; ++u) {
            fu *= f;
            const double g = any_odd_part ? static_cast<double>(u & (~u + 1)) : static_cast<double>(std::gcd<std::uint64_t>(u, m));
            d += 2 * g * (fu - fk) / ((k - u) * log_inv_f);
        }
    } else {
        for (std::uint64_t u = 1; u < k && m % (u * odd) == 0; u *= 2)
            d += static_cast<double>(odd) * (u == 1 ? 1.0 : static_cast<double>(u / 2)) * std::pow(f, static_cast<double>(u));
    }
    const double a = (no_alias ? 1.0 : 4.0) * (1 + 2 * (f - fk) / (1 - f));
    return std::min(1.0, fk + d / md + a * n / (md * md));
}

}  // namespace detail

/// Classic filter, n keys, m bits, k probes: an upper bound on the expected FPR under the probe
/// rule the layout implements (Guava's double hashing, classic_layout.hpp), valid at every m.
///
/// The textbook rate f^k, f = 1 - (1 - 1/m)^(kn) the expected fill, assumes k independent probes.
/// Double hashing breaks that at small m by O(1/m), and the gap grows with k: at n = 100,
/// p = 10^-5 the textbook sizing measured 13.7x p. Write probe i of (h1, h2) as
///   a + i*B - w_i*d (mod m),  a = h1 mod m, B = h2 mod m, d = 2^63 mod m, w_i = floor(x + i*y),
/// with x, y the high parts of h1, h2 over 2^63 (w_i counts wraps of the 63-bit sum). d has order
/// o = the odd part of m in Z_m. Two terms come on top of f^k:
///  - D/m, queries with few distinct probes. Probes i and i+u coincide when u*B == (w_(i+u) - w_i)*d.
///    If o >= k, the wrap difference is floor(u*y) or one more and never aliases mod o, so for each u
///    there are gcd(u, m) residues B for each of the u+1 differences; under such a B a share 1 - e of
///    the pairs coincide, e uniform, leaving q = u + (k-u)e distinct probes. Averaging f^q over e and
///    y:  D = sum_{u<k} 2 gcd(u, m) (f^u - f^k) / ((k-u) ln(1/f)).  If o < k, the probes are only
///    known distinct modulo the wraps' subgroup: q >= min(order of B in Z_m/<d>, k), which gives
///    D = o * sum_{u = 2^j < k, u*o | m} phi(u) f^u  (exact for o = 1, m a power of two).
///  - A n/m^2, a stored key whose probes line up with the query's (same B, and a at one of its probes,
///    probability ~1/m^2 per key): it covers all but |s| probes of the query for shift s, so
///    A = c sum_s f^|s| = c (1 + 2 (f - f^k) / (1 - f)), c = 4 if o < k (all alignments hold, measured
///    A = 9.3 at m = 2048, k = 17) and c = 1 otherwise (wraps break most alignments, measured <= 1.8).
/// Measured rates (fixed seeds, 3*10^7 queries over 20-1000 filters) stay below this bound for
/// n = 5 to 10^4, k = 7 to 60, m = 640 to 96000, powers of two included, by 0.8-1.0x where the
/// bound is tight; filter_test checks sized filters. Both terms are O(1/m): at large m the rate is
/// f^k unless p is tiny (p = 10^-12 at n = 1000 takes 3.6*10^7 bits, 630x the textbook's m).
inline double classic_fpr(double n, std::uint64_t m, std::uint32_t k) {
    return detail::classic_fpr_bound(n, m, k, false);
}

/// Expected FPR of a blocked filter with `block_slots` slots per block and k probes per key,
/// for any number of keys and blocks. Exact under the model the layouts implement: blocks are
/// chosen uniformly (loads are Poisson(n / blocks)) and probes are uniform with replacement.
///
/// The textbook per-block rate (1 - (1 - 1/S)^(kj))^k assumes the fill of a block is its mean;
/// with S = 512 it underestimates by about 2%, with S = 64 by 8% (measured), enough to miss the
/// target. So the rate of a block holding j keys is E[(X/S)^k], X being the number of slots set
/// by k*j throws, whose distribution follows the occupancy chain
///   P_{t+1}(x) = P_t(x) x/S + P_t(x-1) (S-x+1)/S.
/// The chain depends only on (k, S); one model is reused for many (n, blocks).
class blocked_fpr_model {
public:
    blocked_fpr_model(std::uint32_t hashes, std::uint32_t block_slots)
        : hashes_(hashes), slots_(block_slots), occupancy_(block_slots + 1, 0.0), hit_rate_(block_slots + 1),
          stay_(block_slots + 1), move_(block_slots + 1) {
        occupancy_[0] = 1.0;
        for (std::uint32_t x = 0; x <= slots_; ++x) {
            hit_rate_[x] = std::pow(static_cast<double>(x) / slots_, hashes_);
            stay_[x] = static_cast<double>(x) / slots_;
            move_[x] = static_cast<double>(slots_ - x + 1) / slots_;
        }
        rate_by_load_.push_back(0.0);  // an empty block never answers yes
    }

    double operator()(double n, std::uint64_t blocks) {
        const double load = n / static_cast<double>(blocks);
        if (!(load > 0)) return 0.0;
        // Saturated: each slot is still clear with probability about e^-(load k / S) < e^-40, so
        // the rate is 1 to within 1e-15. Answering 1 keeps a search that starts far too small
        // (p near 1, n near 2^46) from walking the chain up to `load` keys.
        if (load * hashes_ > 40.0 * slots_) return 1.0;
        return std::min(detail::poisson_mean(load, [&](double j) { return rate_at(j); }), 1.0);
    }

private:
    /// E[(X/S)^k] for a block holding `keys` keys, extending the chain as far as needed.
    double rate_at(double keys) {
        const auto j = static_cast<std::size_t>(keys);
        while (rate_by_load_.size() <= j) {
            for (std::uint32_t throw_ = 0; throw_ < hashes_; ++throw_) {
                ++throws_;
                const std::uint32_t top = static_cast<std::uint32_t>(std::min<std::uint64_t>(throws_, slots_));
                for (std::uint32_t x = top; x > 0; --x)  // multiplications only: sizing runs this ~10^6 times
                    occupancy_[x] = occupancy_[x] * stay_[x] + occupancy_[x - 1] * move_[x];
                occupancy_[0] = 0.0;
            }
            double rate = 0;
            for (std::uint32_t x = 0; x <= slots_; ++x) rate += occupancy_[x] * hit_rate_[x];
            rate_by_load_.push_back(rate);
        }
        return rate_by_load_[j];
    }

    std::uint32_t hashes_;
    std::uint32_t slots_;
    std::uint64_t throws_ = 0;
    std::vector<double> occupancy_;      ///< P(x slots set) after throws_ probes
    std::vector<double> hit_rate_;       ///< (x/S)^k
    std::vector<double> rate_by_load_;   ///< E[(X/S)^k] for 0, 1, 2, ... keys in the block
    std::vector<double> stay_, move_;    ///< x/S and (S-x+1)/S
};

namespace detail {

/// The blocked FPR models sizing has built, one per (k, S), kept for the life of the process
/// (about 20 KB each for S = 512; sizing one filter uses a dozen k around the optimum). A model's
/// chain depends only on (k, S) and building it is most of the cost of sizing: 5-9 ms for one
/// blocked filter from scratch, tens of microseconds to 2 ms once neighbouring models exist. A
/// scalable filter sizes a sub-filter at every growth and a rotating or swappable one at every
/// rebuild, so they share them. Callers hold models_mutex() while they use one. Both are never
/// destroyed, so a sizing still running on another thread at exit is safe. Only sizing takes the
/// mutex: stats() evaluates its one-off model (blocked_fpr) without it.
inline std::mutex& models_mutex() {
    static std::mutex& mutex = *new std::mutex;
    return mutex;
}
inline blocked_fpr_model& cached_model(std::uint32_t k, std::uint32_t block_slots) {
    static auto& models = *new std::map<std::pair<std::uint32_t, std::uint32_t>, blocked_fpr_model>;
    return models.try_emplace({k, block_slots}, k, block_slots).first->second;
}

}  // namespace detail

/// One-off blocked FPR: see blocked_fpr_model.
inline double blocked_fpr(double n, std::uint64_t blocks, std::uint32_t k, std::uint32_t block_slots) {
    return blocked_fpr_model(k, block_slots)(n, blocks);
}

/// Estimated number of distinct keys in a filter with `set` of `m` slots non-zero, probes falling
/// in blocks of `block_slots` (m itself for classic). Each key leaves a slot of its block empty
/// with probability q = (1 - 1/block_slots)^k, so the expected empty fraction is
/// exp(-n (1 - q) / blocks); this inverts it. Infinite when every slot is set.
inline double estimated_count(std::uint64_t set, std::uint64_t m, std::uint32_t k, std::uint64_t block_slots) {
    if (set >= m) return std::numeric_limits<double>::infinity();
    const double blocks = static_cast<double>(m) / static_cast<double>(block_slots);
    const double hit = -std::expm1(k * std::log1p(-1.0 / static_cast<double>(block_slots)));  // 1 - q
    return -blocks * std::log1p(-static_cast<double>(set) / static_cast<double>(m)) / hit;
}

/// The capacity a geometry implies when only (m, k) is given: the n for which k is optimal.
inline std::uint64_t implied_capacity(std::uint64_t m, std::uint32_t k) {
    const double n = static_cast<double>(m) * std::log(2.0) / k;
    return n < 1 ? 1 : static_cast<std::uint64_t>(n);
}

// ---- sizing ------------------------------------------------------------------------------------

/// Guava's sizing, exactly: bits = floor(-n ln p / ln²2) rounded up to whole 64-bit words,
/// k = max(1, round(-ln p / ln 2)). Kept bit-exact for interop, flaws included: because k is
/// rounded its expected FPR can exceed p (p = 0.1: 0.1007; p = 0.01 at n = 10^6: 0.01004), and its
/// bits follow the textbook rate, which double hashing misses at small n (measured 13.7x p at
/// n = 100, p = 10^-5; 2.2x at n = 1000, p = 10^-5: classic_fpr). classic_geometry corrects both.
inline geometry guava_geometry(std::uint64_t n, double p) {
    detail::check_capacity_and_rate(n, p);
    const double ln2 = std::log(2.0);
    const double bits = std::floor(-static_cast<double>(n) * std::log(p) / (ln2 * ln2));
    if (!(bits < static_cast<double>(max_slots))) throw error(errc::too_large, "filter beyond 2^46 bits");
    const double k = std::max(1.0, std::round(-std::log(p) / ln2));
    if (k > max_hashes) throw error(errc::invalid_argument, "rate too small: it needs more than 255 hashes");
    const std::uint64_t words = (std::max<std::uint64_t>(1, static_cast<std::uint64_t>(bits)) + 63) / 64;
    return {words * 64, static_cast<std::uint32_t>(k), n, p};
}

/// Classic sizing: Guava's k, and the fewest 64-bit words, never fewer than Guava's, whose
/// classic_fpr at n keys is <= p. Guava's own bits miss p at small n (guava_geometry); this needs
/// 2.6x them at (100, 10^-5), 1.2x at (1000, 10^-5), 1.02x at (10^4, 10^-5). The search runs on
/// classic_fpr's monotone envelope, then steps to the first word count meeting classic_fpr itself
/// (most do; a few with a small odd part or odd factors below k do not): about a microsecond per
/// step of k terms.
inline geometry classic_geometry(std::uint64_t n, double p) {
    geometry g = guava_geometry(n, p);
    std::uint64_t words = detail::smallest_satisfying(g.slots / 64, max_slots / 64, [&](std::uint64_t w) {
        return detail::classic_fpr_bound(static_cast<double>(n), w * 64, g.hashes, true) <= p;
    });
    while (classic_fpr(static_cast<double>(n), words * 64, g.hashes) > p)
        if (++words > max_slots / 64) throw error(errc::too_large, "the requested rate needs a filter beyond 2^46 slots");
    g.slots = words * 64;
    return g;
}

/// Blocked sizing for blocks of `block_slots` slots: the (blocks, k) with the fewest blocks whose
/// expected blocked FPR at n keys is <= p (ties go to the smaller k), k at most `most_hashes`.
inline geometry blocked_geometry(std::uint64_t n, double p, std::uint32_t block_slots, std::uint32_t most_hashes = max_hashes) {
    const geometry classic = guava_geometry(n, p);
    const std::lock_guard lock(detail::models_mutex());
    std::uint64_t best_blocks = 0;
    std::uint32_t best_k = 0;
    // The optimum lies near the classic k; the range is generous because it is cheap to scan.
    const std::uint32_t k_max = std::min({most_hashes, max_hashes, 2 * classic.hashes + 4});
    for (std::uint32_t k = std::min(k_max, std::max<std::uint32_t>(1, classic.hashes / 2)); k <= k_max; ++k) {
        blocked_fpr_model& fpr = detail::cached_model(k, block_slots);
        std::uint64_t blocks;
        try {
            blocks = detail::smallest_satisfying(
                std::max<std::uint64_t>(1, classic.slots / block_slots / 2), max_slots / block_slots,
                [&](std::uint64_t b) { return fpr(static_cast<double>(n), b) <= p; });
        } catch (const error&) {
            continue;  // this k cannot reach p within max_slots; another may
        }
        if (best_k == 0 || blocks < best_blocks) best_blocks = blocks, best_k = k;
        else if (k >= best_k + 3) break;  // past the optimum: blocks only grow with k from here
    }
    if (best_k == 0) throw error(errc::too_large, "the requested rate needs a filter beyond 2^46 slots");
    return {best_blocks * block_slots, best_k, n, p};
}

}  // namespace lfbloom
