// Golden values produced by Guava 31.1 itself (stringFunnel(UTF_8), MURMUR128_MITZ_64): the bits
// "hello" and "user:42" set in a fresh filter. Our classic layout must set exactly these.
#include <algorithm>
#include <cstdint>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "lfbloom/lfbloom.hpp"

using namespace lfbloom;

namespace {

std::vector<std::uint64_t> set_bits_of(const classic_bloom_filter& f) {
    std::vector<std::uint64_t> bits;
    const auto words = f.words();
    for (std::uint64_t w = 0; w < words.size(); ++w)
        for (unsigned b = 0; b < 64; ++b)
            if ((load_word(words[w]) >> b) & 1) bits.push_back(w * 64 + b);
    return bits;
}

void check_golden(std::uint64_t n, double p, const std::vector<std::uint64_t>& expected_bits) {
    const geometry g = guava_geometry(n, p);
    auto f = classic_bloom_filter::with_geometry(g.slots, g.hashes);
    BOOST_TEST(f.add("hello"));
    BOOST_TEST(f.add("user:42"));
    BOOST_TEST(set_bits_of(f) == expected_bits, boost::test_tools::per_element());
    // The words Guava writes, built independently from the bit list (bit i: word i/64, bit i%64).
    std::vector<std::uint64_t> expected_words(g.slots / 64, 0);
    for (std::uint64_t bit : expected_bits) expected_words[bit / 64] |= std::uint64_t{1} << (bit % 64);
    BOOST_TEST(std::equal(expected_words.begin(), expected_words.end(), f.words().begin(), f.words().end()));
    BOOST_TEST(f.contains("hello"));
    BOOST_TEST(f.contains("user:42"));
}

}  // namespace

BOOST_AUTO_TEST_SUITE(guava)

BOOST_AUTO_TEST_CASE(bits_match_guava_for_1000_keys_at_1_percent) {
    check_golden(1000, 0.01, {127, 898, 1638, 1756, 3385, 3405, 4840, 5014, 5912, 6469, 6964, 8098, 8731, 9471});
}

BOOST_AUTO_TEST_CASE(bits_match_guava_for_a_million_keys_at_0_1_percent) {
    check_golden(1000000, 0.001,
                 {1238271, 1915238, 2592205, 3030701, 3531472, 4032243, 4533014, 5033785, 5534556, 6032564,
                  6035327, 6536098, 6709531, 7036869, 7381219, 7386498, 7537640, 10821578, 11498545, 12175512});
}

// Guava's longFunnel puts a long as 8 little-endian bytes.
BOOST_AUTO_TEST_CASE(integer_keys_hash_as_8_little_endian_bytes) {
    auto f = classic_bloom_filter::with_geometry(9600, 7);
    const unsigned char le[8] = {0x2a, 0, 0, 0, 0, 0, 0, 0};
    BOOST_TEST((f.hash(std::uint64_t{42}) == murmur3_x64_128(le, 8)));
    f.add(std::uint64_t{42});
    BOOST_TEST(f.contains(key_view(reinterpret_cast<const std::byte*>(le), 8)));
}

BOOST_AUTO_TEST_SUITE_END()
