// MurmurHash3 x64_128 (Austin Appleby's public-domain algorithm), written for lfbloom.
//
// Differences from the reference C code that matter to callers: the length is 64-bit (keys over
// 4 GiB hash correctly), input may have any alignment, and the result is the same on big- and
// little-endian machines (blocks are read as little-endian, as on x86).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include <boost/endian/conversion.hpp>

namespace lfbloom {

/// The two 64-bit halves of a 128-bit hash: `h1` is out[0] of the reference code, `h2` out[1].
struct hash128 {
    std::uint64_t h1;
    std::uint64_t h2;
    friend bool operator==(const hash128&, const hash128&) = default;
};

namespace detail {

inline std::uint64_t load_le64(const unsigned char* p) noexcept {
    std::uint64_t v;
    std::memcpy(&v, p, sizeof v);  // memcpy: any alignment, compiles to one load
    return boost::endian::little_to_native(v);
}

inline std::uint32_t load_le32(const unsigned char* p) noexcept {
    std::uint32_t v;
    std::memcpy(&v, p, sizeof v);
    return boost::endian::little_to_native(v);
}

/// MurmurHash3's tail, the last `rest` (< 16) bytes of the key at `tail`, as the little-endian
/// values k1 (bytes 0-7) and k2 (bytes 8-14), zero above the key's bytes: the same values a loop
/// over the bytes gives, with a few loads that never read outside the key (a byte loop whose
/// count varies with the key's length mispredicts about once a key). `whole_block_before`: the
/// key has a 16-byte block before the tail, so a load may start up to 8 bytes before it.
[[gnu::always_inline]] inline void load_tail(const unsigned char* tail, unsigned rest, bool whole_block_before,
                                             std::uint64_t& k1, std::uint64_t& k2) noexcept {
    k2 = 0;
    if (rest >= 8) {
        k1 = load_le64(tail);
        // bytes 8 .. rest-1: the 8 bytes ending at the tail's end, shifted down past bytes 0-7's
        // overlap (rest = 8: none, and a shift by 64 is undefined: the condition keeps it out)
        if (rest > 8) k2 = load_le64(tail + rest - 8) >> (8 * (16 - rest));
    } else if (whole_block_before && rest > 0) {
        k1 = load_le64(tail + rest - 8) >> (8 * (8 - rest));  // starts inside the previous block
    } else if (rest >= 4) {
        // bytes 0-3 and rest-4 .. rest-1 (overlapping when rest < 8: the same bytes ORed twice)
        k1 = load_le32(tail) | std::uint64_t{load_le32(tail + rest - 4)} << (8 * (rest - 4));
    } else if (rest > 0) {
        // bytes 0, rest/2 and rest-1: every byte of a 1-3 byte tail, some twice
        k1 = std::uint64_t{tail[0]} | std::uint64_t{tail[rest >> 1]} << (8 * (rest >> 1)) |
             std::uint64_t{tail[rest - 1]} << (8 * (rest - 1));
    } else {
        k1 = 0;
    }
}

constexpr std::uint64_t fmix64(std::uint64_t k) noexcept {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ULL;
    k ^= k >> 33;
    return k;
}

}  // namespace detail

/// Hashes `len` bytes at `data` with `seed`. Pure function: thread-safe, touches no shared state.
/// `data` may be null only when `len` is 0.
inline hash128 murmur3_x64_128(const void* data, std::uint64_t len, std::uint64_t seed = 0) noexcept {
    constexpr std::uint64_t c1 = 0x87c37b91114253d5ULL;
    constexpr std::uint64_t c2 = 0x4cf5ad432745937fULL;
    const auto* bytes = static_cast<const unsigned char*>(data);
    std::uint64_t h1 = seed;
    std::uint64_t h2 = seed;

    const std::uint64_t blocks = len / 16;
    for (std::uint64_t i = 0; i < blocks; ++i) {
        std::uint64_t k1 = detail::load_le64(bytes + i * 16);
        std::uint64_t k2 = detail::load_le64(bytes + i * 16 + 8);
        k1 *= c1;
        k1 = std::rotl(k1, 31);
        k1 *= c2;
        h1 ^= k1;
        h1 = std::rotl(h1, 27);
        h1 += h2;
        h1 = h1 * 5 + 0x52dce729;
        k2 *= c2;
        k2 = std::rotl(k2, 33);
        k2 *= c1;
        h2 ^= k2;
        h2 = std::rotl(h2, 31);
        h2 += h1;
        h2 = h2 * 5 + 0x38495ab5;
    }

    // Tail: up to 15 bytes, little-endian into k1 (bytes 0..7) and k2 (bytes 8..14).
    const unsigned char* tail = bytes + blocks * 16;
    const unsigned rest = static_cast<unsigned>(len & 15);
    std::uint64_t k1, k2;
    detail::load_tail(tail, rest, len >= 16, k1, k2);
    if (rest > 8) {
        k2 *= c2;
        k2 = std::rotl(k2, 33);
        k2 *= c1;
        h2 ^= k2;
    }
    if (rest > 0) {
        k1 *= c1;
        k1 = std::rotl(k1, 31);
        k1 *= c2;
        h1 ^= k1;
    }

    h1 ^= len;
    h2 ^= len;
    h1 += h2;
    h2 += h1;
    h1 = detail::fmix64(h1);
    h2 = detail::fmix64(h2);
    h1 += h2;
    h2 += h1;
    return {h1, h2};
}

}  // namespace lfbloom
