// The split-block layout: Parquet's rule (checked against parquet-mr and DuckDB by
// tests/parquet), its scalar and AVX2 paths giving the same bits, its sizing and its bad input.
// The properties every layout shares are in filter_test.cpp.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "lfbloom/lfbloom.hpp"
#include "test_support.hpp"

using namespace lfbloom;
using lfbloom_test::code_of;
using lfbloom_test::random_keys;

namespace {

/// The spec's insert, written from BloomFilter.md with 32-bit words, independent of the layout.
void spec_insert(std::vector<std::uint32_t>& bitset, const std::string& key) {
    const std::uint64_t h = XXH64(key.data(), key.size(), 0);
    const std::uint64_t blocks = bitset.size() / 8;
    const std::uint64_t block = ((h >> 32) * blocks) >> 32;
    for (unsigned i = 0; i < 8; ++i)
        bitset[block * 8 + i] |= std::uint32_t{1} << ((static_cast<std::uint32_t>(h) * split_block_salt[i]) >> 27);
}

/// The filter's bytes as Parquet stores them.
std::vector<std::byte> parquet_bytes(const split_block_bloom_filter& f) {
    std::vector<std::byte> out;
    save_parquet_bitset(f, vector_sink(out));
    return out;
}

/// Restores the SIMD level on scope exit.
struct simd_level_guard {
    simd::level saved = simd::current();
    ~simd_level_guard() { simd::use(saved); }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(split_block)

BOOST_AUTO_TEST_CASE(bits_follow_the_parquet_spec) {
    for (std::uint64_t blocks : {1ull, 3ull, 32ull, 1000ull}) {
        auto f = split_block_bloom_filter::with_geometry(blocks * 256, 8);
        std::vector<std::uint32_t> spec(blocks * 8);
        random_keys gen(5);
        for (int i = 0; i < 3000; ++i) {
            const std::string key = i == 0 ? std::string() : gen.next();
            f.add(key);
            spec_insert(spec, key);
        }
        std::vector<std::byte> expected(spec.size() * 4);
        for (std::size_t i = 0; i < spec.size(); ++i) {
            const std::uint32_t le = boost::endian::native_to_little(spec[i]);
            std::memcpy(expected.data() + 4 * i, &le, 4);
        }
        BOOST_TEST(parquet_bytes(f) == expected, "blocks " << blocks);
    }
}

BOOST_AUTO_TEST_CASE(scalar_and_avx2_paths_give_the_same_bits) {
    simd_level_guard guard;
    if (simd::supported() != simd::level::avx2) {
        BOOST_TEST_MESSAGE("this CPU (or LFBLOOM_SIMD) gives no AVX2 path: only the scalar path runs");
        return;
    }
    for (std::uint32_t x = 0, step = 0x9e3779b9u, i = 0; i < 1000000; ++i, x += step)
        BOOST_TEST_REQUIRE(std::memcmp(split_block_layout::masks_scalar(x).word, split_block_layout::masks_avx2(x).word, 32) == 0);
    std::vector<std::vector<std::byte>> bits;
    for (simd::level l : {simd::level::scalar, simd::level::avx2}) {
        BOOST_TEST_REQUIRE((simd::use(l) == l));
        auto f = split_block_bloom_filter::for_capacity(100000, 0.01);
        random_keys gen(8);
        std::vector<std::string> keys(100000);
        for (auto& k : keys) f.add(k = gen.next());
        for (const auto& k : keys) BOOST_TEST_REQUIRE(f.contains(k));
        bits.push_back(parquet_bytes(f));
    }
    BOOST_TEST(bits[0] == bits[1]);
}

BOOST_AUTO_TEST_CASE(integers_hash_as_their_8_little_endian_bytes) {
    auto f = split_block_bloom_filter::for_capacity(1000, 0.01);
    const std::uint64_t key = 0x0102030405060708ULL;
    const std::uint64_t le = boost::endian::native_to_little(key);
    BOOST_TEST(f.hash(key).h1 == XXH64(&le, 8, 0));
    f.add(key);
    BOOST_TEST(f.contains(as_key(std::string_view(reinterpret_cast<const char*>(&le), 8))));
}

BOOST_AUTO_TEST_CASE(sizing_is_the_fewest_blocks_that_meet_the_rate) {
    for (double p : {0.1, 0.01, 0.001, 0.0001}) {
        const geometry g = split_block_layout::size_for(1000000, p);
        BOOST_TEST(g.hashes == 8u);
        BOOST_TEST(g.slots % 256 == 0u);
        BOOST_TEST(split_block_fpr(1e6, g.slots / 256) <= p);
        BOOST_TEST(split_block_fpr(1e6, g.slots / 256 - 1) > p);
        BOOST_TEST_MESSAGE("p " << p << ": " << static_cast<double>(g.slots) / 1e6 << " bits per key; blocked: "
                                << static_cast<double>(blocked_layout::size_for(1000000, p).slots) / 1e6);
    }
}

BOOST_AUTO_TEST_CASE(bad_shapes_and_bitsets_are_refused) {
    BOOST_TEST((code_of([] { split_block_bloom_filter::with_geometry(4096, 7); }) == errc::invalid_argument));
    BOOST_TEST((code_of([] { split_block_bloom_filter::with_geometry(4096 + 128, 8); }) == errc::invalid_argument));
    BOOST_TEST((code_of([] { split_block_bloom_filter::with_geometry(std::uint64_t{1} << 41, 8); }) == errc::too_large));  // 2^33 blocks
    const std::vector<std::byte> bytes(96, std::byte{0xff});
    for (std::uint64_t size : {0ull, 33ull, 100ull}) {
        std::span<const std::byte> data(bytes);
        BOOST_TEST((code_of([&] { load_parquet_bitset(span_source(data), size); }) == errc::invalid_argument));
    }
    std::span<const std::byte> truncated(bytes.data(), 64);
    BOOST_TEST((code_of([&] { load_parquet_bitset(span_source(truncated), 96); }) == errc::corrupt));
    std::span<const std::byte> big(bytes);
    BOOST_TEST((code_of([&] { load_parquet_bitset(span_source(big), std::uint64_t{1} << 30, 1 << 20); }) == errc::too_large));
    for (std::uint64_t size : {parquet_max_bytes + 32, std::uint64_t{1} << 31, std::uint64_t{1} << 36}) {  // past numBytes' i32
        std::span<const std::byte> data(bytes);
        BOOST_TEST((code_of([&] { load_parquet_bitset(span_source(data), size); }) == errc::invalid_argument));
    }
    std::span<const std::byte> whole(bytes);
    const auto full = load_parquet_bitset(span_source(whole), 96);
    BOOST_TEST(full.contains("anything"));  // every bit set
    BOOST_TEST(full.shape().slots == 768u);
    auto seeded = split_block_bloom_filter::for_capacity(100, 0.01, {.seed = 3});
    BOOST_TEST((code_of([&] { parquet_bytes(seeded); }) == errc::incompatible));  // Parquet hashes with seed 0
}

BOOST_AUTO_TEST_CASE(native_files_keep_the_layout_and_its_rule) {
    auto f = split_block_bloom_filter::for_capacity(10000, 0.01);
    for (int i = 0; i < 5000; ++i) f.add("k" + std::to_string(i));
    std::vector<std::byte> file;
    save(f, vector_sink(file));
    std::span<const std::byte> data(file);
    const any_filter loaded = load_any(span_source(data));
    const auto* g = std::get_if<split_block_bloom_filter>(&loaded);
    BOOST_TEST_REQUIRE(g != nullptr);
    BOOST_TEST((parquet_bytes(*g) == parquet_bytes(f)));
    BOOST_TEST((g->probes() == probe_rule::parquet));
    // A split-block header with another probe rule is refused (the checksum is fixed up, so only
    // the rule is wrong).
    file[11] = static_cast<std::byte>(probe_rule::distinct);
    const std::uint64_t check = boost::endian::native_to_little(XXH3_64bits(file.data(), 72));
    std::memcpy(file.data() + 72, &check, 8);
    std::span<const std::byte> bad(file);
    BOOST_TEST((code_of([&] { load_any(span_source(bad)); }) == errc::unsupported_version));
}

BOOST_AUTO_TEST_SUITE_END()
