// cuckoo_buckets: the three ways a cuckoo filter's 64-bit bucket holds its fingerprints. Each is a
// set of pure functions on one word value; cuckoo_filter.hpp does the atomics and the locking.
//
//   plain_bucket        4 x 16-bit slots side by side (the fastest to read): 0.0115% at 94% load
//   semi_sorted<4>      4 x 17-bit fingerprints:  0.0057% at 94% load, the same 17 bits per key
//   semi_sorted<5>      5 x 14-bit fingerprints:  0.057% at 94% load, 13.6 bits per key
//
// Semi-sorting (Fan et al., CoNEXT 2014, section 5.2): a bucket's fingerprints are kept sorted, so
// the high 4 bits of its N fingerprints are a sorted N-tuple of nibbles, of which there are only
// C(15 + N, N): 3,876 for 4 (12 bits instead of 16), 15,504 for 5 (14 bits instead of 20). The
// word holds that tuple's rank in bits [0, code_bits) and the N low parts, slot i's at
// code_bits + i * low_bits. The rank is the combinatorial number system's: for nibbles
// n_0 <= ... <= n_{N-1}, the numbers m_i = n_i + i are strictly increasing in [0, 15 + N), and
// rank = sum of C(m_i, i + 1) is a bijection onto [0, C(15 + N, N)). Readers decode it through a
// table of 2^code_bits entries (8 KiB for 4, 64 KiB for 5); the codes past C(15 + N, N), which no
// writer makes, decode to nibbles of 15 so that a corrupt word reads as some fingerprints, never
// outside the table.
//
// Every format: fingerprint 0 is an empty slot; a word of 0 is an empty bucket. Semi-sorted words
// are canonical (slots sorted by the whole fingerprint, empty ones first): equal sets, equal words.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace lfbloom::detail {

/// Four 16-bit lanes; slots keep their lane (non-canonical: any free lane takes an add).
struct plain_bucket {
    static constexpr unsigned slots = 4;
    static constexpr unsigned fingerprint_bits = 16;

    static unsigned count(std::uint64_t w, std::uint64_t fp) noexcept { return std::popcount(matches(w, fp)); }
    static unsigned empty(std::uint64_t w) noexcept { return std::popcount(empty_lanes(w)); }
    /// The fingerprint in slot i (0 if empty).
    static std::uint64_t at(std::uint64_t w, unsigned i) noexcept { return w >> (16 * i) & 0xFFFF; }
    /// w with fp in a free slot; false (next untouched) if it has none.
    static bool put(std::uint64_t w, std::uint64_t fp, std::uint64_t& next) noexcept {
        const std::uint64_t free = empty_lanes(w);
        if (free == 0) return false;
        next = w | fp << lane_shift(free);
        return true;
    }
    /// w without one copy of fp (w itself if it holds none).
    static std::uint64_t take(std::uint64_t w, std::uint64_t fp) noexcept {
        const std::uint64_t found = matches(w, fp);
        return found == 0 ? w : w & ~(std::uint64_t{0xFFFF} << lane_shift(found));  // none: a clear() raced the erase
    }

private:
    static constexpr std::uint64_t lane_low = 0x0001000100010001ULL;
    static constexpr std::uint64_t lane_high = 0x8000800080008000ULL;
    /// The high bit of each 16-bit lane of w that is zero.
    static std::uint64_t empty_lanes(std::uint64_t w) noexcept { return ~(((w & ~lane_high) + ~lane_high) | w) & lane_high; }
    /// The high bit of each lane of w that holds fp.
    static std::uint64_t matches(std::uint64_t w, std::uint64_t fp) noexcept { return empty_lanes(w ^ (fp * lane_low)); }
    /// The shift of the lowest lane whose high bit is set in high_bits.
    static unsigned lane_shift(std::uint64_t high_bits) noexcept { return static_cast<unsigned>(std::countr_zero(high_bits)) & ~15u; }
};

/// N fingerprints of 4 + low_bits bits, sorted, their high nibbles stored as one rank (see the top).
template <unsigned N>
struct semi_sorted {
    static_assert(N == 4 || N == 5, "the two formats that fill 64 bits exactly");
    static constexpr unsigned slots = N;
    static constexpr std::uint32_t tuples = N == 4 ? 3876 : 15504;  ///< C(15 + N, N)
    static constexpr unsigned code_bits = std::bit_width(tuples - 1);
    static constexpr unsigned low_bits = (64 - code_bits) / N;
    static constexpr unsigned fingerprint_bits = 4 + low_bits;
    static_assert(code_bits + N * low_bits == 64);

    /// The low parts first, all at once without the table (SWAR): for an absent fingerprint none
    /// of them matches (N / 2^low_bits of the time one does), and the rank is never decoded.
    static unsigned count(std::uint64_t w, std::uint64_t fp) noexcept {
        const std::uint64_t y = (w >> code_bits) ^ ((fp & low_mask) * field_ones);  // a field is 0 where the low part matches
        std::uint64_t same = ~(((y & field_rest) + field_rest) | y) & field_tops;    // the top bit of each such field
        if (same == 0) return 0;
        const std::uint32_t nibbles = table[w & code_mask];
        const std::uint64_t high = fp >> low_bits;
        unsigned n = 0;
        for (; same != 0; same &= same - 1) n += (nibbles >> (4 * (std::countr_zero(same) / low_bits)) & 15) == high;
        return n;
    }
    static unsigned empty(std::uint64_t w) noexcept { return count(w, 0); }
    static std::uint64_t at(std::uint64_t w, unsigned i) noexcept {
        return (std::uint64_t{table[w & code_mask]} >> (4 * i) & 15) << low_bits | (w >> (code_bits + low_bits * i) & low_mask);
    }
    static bool put(std::uint64_t w, std::uint64_t fp, std::uint64_t& next) noexcept {
        std::array<std::uint64_t, N> f = decode(w);
        for (auto& x : f)
            if (x == 0) {  // the first, in a canonical word; any, in a corrupt file's
                x = fp;
                next = encode(f);
                return true;
            }
        return false;
    }
    static std::uint64_t take(std::uint64_t w, std::uint64_t fp) noexcept {
        std::array<std::uint64_t, N> f = decode(w);
        for (auto& x : f)
            if (x == fp) {
                x = 0;
                break;
            }
        return encode(f);
    }

private:
    static constexpr std::uint64_t code_mask = (std::uint64_t{1} << code_bits) - 1;
    static constexpr std::uint64_t low_mask = (std::uint64_t{1} << low_bits) - 1;
    /// Bit 0 of each low_bits-wide field of the N low parts; the other bits but the top; the top.
    static constexpr std::uint64_t field_ones = [] {
        std::uint64_t ones = 0;
        for (unsigned i = 0; i < N; ++i) ones |= std::uint64_t{1} << (low_bits * i);
        return ones;
    }();
    static constexpr std::uint64_t field_rest = field_ones * (low_mask >> 1);  // sums stay inside their field
    static constexpr std::uint64_t field_tops = field_ones << (low_bits - 1);

    static constexpr std::uint32_t choose(unsigned n, unsigned k) noexcept {
        std::uint64_t c = 1;
        for (unsigned i = 0; i < k; ++i) c = c * (n - i) / (i + 1);
        return k > n ? 0 : static_cast<std::uint32_t>(c);
    }
    /// The rank of sorted nibbles n_0 <= ... <= n_{N-1} (see the top).
    static constexpr std::uint32_t rank(const std::array<unsigned, N>& n) noexcept {
        std::uint32_t r = 0;
        for (unsigned i = 0; i < N; ++i) r += binomial[n[i] + i][i + 1];
        return r;
    }
    static constexpr auto binomial = [] {
        std::array<std::array<std::uint32_t, N + 1>, 15 + N> c{};
        for (unsigned m = 0; m < 15 + N; ++m)
            for (unsigned k = 0; k <= N; ++k) c[m][k] = choose(m, k);
        return c;
    }();
    using entry = std::conditional_t<N == 4, std::uint16_t, std::uint32_t>;  ///< N nibbles
    /// rank -> the nibbles, slot i's at bits 4i; all 15 past the last rank. Built in rank order:
    /// ranks follow the colexicographic order of the sets m_0 < ... < m_{N-1}, whose successor
    /// raises the lowest m_i that can rise and resets those below it. (Raw pointers and few steps:
    /// compilers bound the work of a constant expression, clang at about a million steps.)
    static constexpr auto table = [] {
        std::array<entry, std::size_t{1} << code_bits> t{};
        entry* out = t.data();
        unsigned m[N];
        for (unsigned i = 0; i < N; ++i) m[i] = i;
        for (std::uint32_t r = 0; r < tuples; ++r) {
            std::uint32_t packed = 0;
            for (unsigned i = 0; i < N; ++i) packed |= (m[i] - i) << (4 * i);
            out[r] = static_cast<entry>(packed);
            unsigned i = 0;
            for (; i + 1 < N && m[i] + 1 == m[i + 1]; ++i) m[i] = i;
            ++m[i];
        }
        for (std::size_t r = tuples; r < t.size(); ++r) out[r] = static_cast<entry>((std::uint32_t{1} << (4 * N)) - 1);
        return t;
    }();

    static std::array<std::uint64_t, N> decode(std::uint64_t w) noexcept {
        std::array<std::uint64_t, N> f;
        for (unsigned i = 0; i < N; ++i) f[i] = at(w, i);
        return f;
    }
    /// The canonical word of the fingerprints f (any order).
    static std::uint64_t encode(std::array<std::uint64_t, N> f) noexcept {
        for (unsigned i = 1; i < N; ++i)  // insertion sort of at most 5
            for (unsigned j = i; j > 0 && f[j - 1] > f[j]; --j) std::swap(f[j - 1], f[j]);
        std::array<unsigned, N> nibbles;
        std::uint64_t w = 0;
        for (unsigned i = 0; i < N; ++i) {
            nibbles[i] = static_cast<unsigned>(f[i] >> low_bits);
            w |= (f[i] & low_mask) << (code_bits + low_bits * i);
        }
        return w | rank(nibbles);
    }
};

}  // namespace lfbloom::detail
