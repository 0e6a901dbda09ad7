#include <murmurhash.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "lfbloom/base/murmur3.hpp"
#include "test_support.hpp"

using lfbloom::hash128;
using lfbloom::murmur3_x64_128;

BOOST_AUTO_TEST_SUITE(murmur3)

BOOST_AUTO_TEST_CASE(matches_reference_vectors) {
    struct vector {
        std::string input;
        std::uint64_t seed, h1, h2;
    };
    std::string all_bytes(256, '\0');
    for (int i = 0; i < 256; ++i) all_bytes[i] = static_cast<char>(i);
    const vector vectors[] = {
        {"", 0, 0x0000000000000000, 0x0000000000000000},
        {"hello", 0, 0xcbd8a7b341bd9b02, 0x5b1e906a48ae1d19},
        {"hello, world", 0, 0x342fac623a5ebc8e, 0x4cdcbc079642414d},
        {"The quick brown fox jumps over the lazy dog", 0, 0xe34bbc7bbc071b6c, 0x7a433ca9c49a9347},
        {"abc", 0, 0xb4963f3f3fad7867, 0x3ba2744126ca2d52},
        {"0123456789abcdef", 0, 0x4be06d94cf4ad1a7, 0x87c35b5c63a708da},
        {"0123456789abcdef0", 0, 0xeb24ae8785a5c075, 0x73fb68b3313128ca},
        {all_bytes, 0, 0x1c99c313dc6f12b9, 0x70d6077fab34cc1e},
        {"", 1, 0x4610abe56eff5cb5, 0x51622daa78f83583},
        {"hello", 1, 0xa78ddff5adae8d10, 0x128900ef20900135},
        {"The quick brown fox jumps over the lazy dog", 42, 0x740dcf93fe0bd5d7, 0xc4546cf4ec705c8f},
        {"hello", 0x9747b28c, 0x8c23d6856f071a2e, 0x2a905546b3c1cb83},
    };
    for (const auto& v : vectors) {
        BOOST_TEST_CONTEXT("input of " << v.input.size() << " bytes, seed " << v.seed) {
            const hash128 h = murmur3_x64_128(v.input.data(), v.input.size(), v.seed);
            BOOST_TEST(h.h1 == v.h1);
            BOOST_TEST(h.h2 == v.h2);
        }
    }
}

// 10,000+ random inputs of every length 0..300, at every alignment, against Debian's libmurmurhash.
BOOST_AUTO_TEST_CASE(agrees_with_libmurmurhash_on_random_inputs) {
    const std::uint64_t seed = lfbloom_test::seed_from_env(20261122);
    std::mt19937_64 rng(seed);
    std::vector<unsigned char> buffer(300 + 16);
    int checked = 0;
    for (int round = 0; round < 40; ++round) {
        for (std::uint32_t len = 0; len <= 300; ++len) {
            for (auto& b : buffer) b = static_cast<unsigned char>(rng());
            const std::size_t offset = rng() % 16;  // misaligned starts too
            const std::uint32_t hash_seed = round % 2 == 0 ? 0 : static_cast<std::uint32_t>(rng());
            std::uint64_t expected[2];
            lmmh_x64_128(buffer.data() + offset, len, hash_seed, expected);
            const hash128 got = murmur3_x64_128(buffer.data() + offset, len, hash_seed);
            if (got.h1 != expected[0] || got.h2 != expected[1])
                BOOST_FAIL("mismatch at length " << len << " offset " << offset << " round " << round << " seed " << seed);
            ++checked;
        }
    }
    BOOST_TEST(checked >= 10000);
}

BOOST_AUTO_TEST_SUITE_END()
