// The split-block layout, bit-exact with Apache Parquet's split-block Bloom filter (parquet-format
// BloomFilter.md; Arrow, Spark, Impala, DuckDB and parquet-mr write it): a key touches one 256-bit
// block of eight 32-bit lanes and sets exactly one bit in each lane.
//
// The rule, from the spec: h = XXH64(key bytes, seed 0); the block is ((h >> 32) * blocks) >> 32;
// with x = (uint32) h, lane i gets bit (x * salt[i]) >> 27. Words are little-endian, so the bitset
// Parquet stores after its BloomFilterHeader is exactly this filter's words in file order
// (to_parquet_bitset / from_parquet_bitset). Only seed 0 is Parquet's; other seeds give a private
// filter of the same shape. The block index uses 32 bits of the hash: at most 2^32 blocks (128 GiB).
//
// Why a user picks it over `blocked`: a key's 8 bits span 4 of our 64-bit words, where a blocked
// key at k = 6-7 touches about 4.4 of 8, and the probe positions cost 8 multiplies (one vector
// multiply with AVX2) instead of bit-field extraction and the distinct-probe check. Its price is
// memory: k is fixed at 8 and one bit per lane sets fewer bits per block than a free choice of k,
// so at equal FPR it needs more bits per key (size_for sizes it with its own exact formula).
//
// AVX2 is chosen at run time (simd.hpp): both paths compute the same masks, and tests compare them.
#pragma once

#include <bit>
#include <cstdint>
#include <span>
#include <string>

#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL  // header-only, as serialization.hpp includes it
#endif
#include <xxhash.h>

#include "lfbloom/base/error.hpp"
#include "lfbloom/base/murmur3.hpp"
#include "lfbloom/base/options.hpp"
#include "lfbloom/base/simd.hpp"
#include "lfbloom/base/sizing.hpp"
#include "lfbloom/base/storage.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace lfbloom {

inline constexpr std::uint32_t split_block_salt[8] = {0x47b6137bU, 0x44974d91U, 0x8824ad5bU, 0xa2b7289dU,
                                                      0x705495c7U, 0x2df1424bU, 0x9efc4947U, 0x5c6bfb31U};

/// Expected FPR of a split-block filter with `blocks` blocks after n keys: block loads are
/// Poisson(n / blocks), and a block holding j keys answers yes for an absent key with probability
/// (1 - (31/32)^j)^8 (each key sets one uniform bit per lane; lanes independent, as the salts make
/// them for the spec's model).
inline double split_block_fpr(double n, std::uint64_t blocks) {
    const double load = n / static_cast<double>(blocks);
    if (!(load > 0)) return 0.0;
    if (load > 40.0 * 32) return 1.0;  // every lane bit set but with probability < e^-40
    return std::min(detail::poisson_mean(load, [](double j) { return std::pow(-std::expm1(j * std::log1p(-1.0 / 32)), 8); }), 1.0);
}

class split_block_layout {
public:
    static constexpr layout kind = layout::split_block;
    static constexpr const char* name = "split-block";  ///< kind_name's
    static constexpr std::uint32_t block_bits = 256;
    static constexpr std::uint32_t lanes = 8;
    static constexpr std::uint64_t slot_multiple = block_bits;  ///< m is a whole number of blocks
    /// The hash and probe rules a file of this layout may record: Parquet's only.
    static constexpr bool takes_rule(probe_rule r) noexcept { return r == probe_rule::parquet; }
    static constexpr std::uint64_t max_blocks = std::uint64_t{1} << 32;

    /// k is 8 (one bit per lane); the fewest blocks whose expected FPR at n keys is <= p.
    static geometry size_for(std::uint64_t n, double p) {
        detail::check_capacity_and_rate(n, p);
        const std::uint64_t blocks = detail::smallest_satisfying(1, max_blocks, [&](std::uint64_t b) {
            return split_block_fpr(static_cast<double>(n), b) <= p;
        });
        return {blocks * block_bits, lanes, n, p};
    }
    static double expected_fpr(double n, std::uint64_t m, std::uint32_t) { return split_block_fpr(n, m / block_bits); }
    static std::uint64_t block_slots(std::uint64_t) noexcept { return block_bits; }
    /// Throws invalid_argument unless k = 8 and the filter has at most 2^32 blocks.
    static void check_shape(const geometry& g) {
        if (g.hashes != lanes) throw error(errc::invalid_argument, "a split-block filter has k = 8, got " + std::to_string(g.hashes));
        if (g.slots / block_bits > max_blocks) throw error(errc::too_large, "a split-block filter has at most 2^32 blocks");
    }

    /// XXH64 of the key bytes with `seed` (0 for Parquet), in h1; h2 is unused.
    static hash128 hash_bytes(const void* data, std::size_t size, std::uint64_t seed) noexcept {
        return {XXH64(data, size, seed), 0};
    }

    split_block_layout(std::uint64_t bits, std::uint32_t, probe_rule = probe_rule::parquet) noexcept : blocks_(bits / block_bits) {}
    probe_rule rule() const noexcept { return probe_rule::parquet; }

    /// The key's bit in each lane, two lanes per 64-bit word (lane 2i low, 2i+1 high: the
    /// little-endian order of Parquet's 32-bit words).
    struct masks {
        std::uint64_t word[lanes / 2];
    };
    static masks masks_scalar(std::uint32_t x) noexcept {
        masks m;
        for (unsigned i = 0; i < lanes / 2; ++i)
            m.word[i] = (std::uint64_t{1} << ((x * split_block_salt[2 * i]) >> 27)) |
                        (std::uint64_t{1} << (32 + ((x * split_block_salt[2 * i + 1]) >> 27)));
        return m;
    }
#if defined(__x86_64__)
    /// The key's bit in each 32-bit lane of a vector (lane i: bit (x * salt[i]) >> 27).
    [[gnu::target("avx2")]] static __m256i mask_vector(std::uint32_t x) noexcept {
        const __m256i salt = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(split_block_salt));
        const __m256i shift = _mm256_srli_epi32(_mm256_mullo_epi32(_mm256_set1_epi32(static_cast<int>(x)), salt), 27);
        return _mm256_sllv_epi32(_mm256_set1_epi32(1), shift);
    }
    /// The block's four words in a vector, each read with a relaxed load (load_word).
    template <class Word>
    [[gnu::target("avx2")]] static __m256i block_vector(const Word* block) noexcept {
        return _mm256_set_epi64x(static_cast<long long>(load_word(block[3])), static_cast<long long>(load_word(block[2])),
                                 static_cast<long long>(load_word(block[1])), static_cast<long long>(load_word(block[0])));
    }
    [[gnu::target("avx2")]] static masks masks_avx2(std::uint32_t x) noexcept {
        masks m;
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(m.word), mask_vector(x));
        return m;
    }
    template <class Word>
    [[gnu::target("avx2")]] static bool contains_avx2(const Word* block, std::uint32_t x) noexcept {
        const __m256i mask = mask_vector(x), have = block_vector(block);
        return _mm256_testc_si256(have, mask) != 0;  // every mask bit set in `have`
    }
    /// add_with's AVX2 path: the same reads, test and ORs, the masks kept in a register.
    template <class Word, class OrInto>
    [[gnu::target("avx2")]] static bool add_avx2(Word* block, std::uint32_t x, OrInto& or_into) noexcept {
        const __m256i mask = mask_vector(x), have = block_vector(block);
        if (_mm256_testc_si256(have, mask)) return false;
        or_into(block[0], static_cast<std::uint64_t>(_mm256_extract_epi64(mask, 0)));
        or_into(block[1], static_cast<std::uint64_t>(_mm256_extract_epi64(mask, 1)));
        or_into(block[2], static_cast<std::uint64_t>(_mm256_extract_epi64(mask, 2)));
        or_into(block[3], static_cast<std::uint64_t>(_mm256_extract_epi64(mask, 3)));
        return true;
    }
#endif

    /// Reads the block; if it lacks any of the key's bits, each of its 4 words (every key has bits
    /// in all of them) gets one locked OR (or_word). Not only the words that miss bits: a branch on
    /// which words those are mispredicts, and it cost as much as the ORs it saved (measured with
    /// plain ORs: 24 ns against 11). True if some bit was missing when read: of racing adds of one
    /// new key at least one says so (see blocked_layout::add_with; Relacy racing_adds.split_block).
    /// `or_into(word, mask)` is how a word gains bits: or_word, or a plain OR in the benchmark.
    template <class Word, class OrInto>
    bool add_with(Word* words, hash128 h, OrInto or_into) const noexcept {
        Word* block = words + block_of(h) * (lanes / 2);
#if defined(__x86_64__)
        if (simd::avx2()) return add_avx2(block, static_cast<std::uint32_t>(h.h1), or_into);
#endif
        const masks m = masks_scalar(static_cast<std::uint32_t>(h.h1));
        std::uint64_t missing = 0;
        for (unsigned i = 0; i < lanes / 2; ++i) missing |= m.word[i] & ~load_word(block[i]);
        if (missing == 0) return false;
        for (unsigned i = 0; i < lanes / 2; ++i) or_into(block[i], m.word[i]);
        return true;
    }
    template <class Word>
    bool add(Word* words, hash128 h) const noexcept {
        return add_with(words, h, [](Word& word, std::uint64_t mask) { or_word(word, mask); });
    }

    /// Four relaxed loads, no branch on their values. With AVX2, one call does it all (masks,
    /// the four words gathered into one vector, one test), so the masks never go through memory.
    template <class Word>
    bool contains(const Word* words, hash128 h) const noexcept {
        const Word* block = words + block_of(h) * (lanes / 2);
#if defined(__x86_64__)
        if (simd::avx2()) return contains_avx2(block, static_cast<std::uint32_t>(h.h1));
#endif
        const masks m = masks_scalar(static_cast<std::uint32_t>(h.h1));
        std::uint64_t missing = 0;
        for (unsigned i = 0; i < lanes / 2; ++i) missing |= m.word[i] & ~load_word(block[i]);
        return missing == 0;
    }

    template <class Word>
    void prefetch(const Word* words, hash128 h, bool for_write) const noexcept {
        const Word* block = words + block_of(h) * (lanes / 2);
        if (for_write) __builtin_prefetch(block, 1); else __builtin_prefetch(block, 0);
    }

    /// For bulk builds (bulk.hpp): the key's block and its bits set in a plain, private copy of it.
    static constexpr std::uint64_t block_words = lanes / 2;
    std::uint64_t block_word(hash128 h) const noexcept { return block_of(h) * (lanes / 2); }
    void set_plain(std::uint64_t* block, hash128 h) const noexcept {
        const masks m = masks_scalar(static_cast<std::uint32_t>(h.h1));
        for (unsigned i = 0; i < lanes / 2; ++i) block[i] |= m.word[i];
    }

private:
    std::uint64_t block_of(hash128 h) const noexcept { return ((h.h1 >> 32) * blocks_) >> 32; }

    std::uint64_t blocks_;
};

}  // namespace lfbloom
