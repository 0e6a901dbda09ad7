#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "lfbloom/lfbloom.hpp"
#include "test_support.hpp"

using namespace lfbloom;

namespace {
std::vector<std::uint64_t> snapshot(const counting_bloom_filter& f) { return {f.words().begin(), f.words().end()}; }
}  // namespace

BOOST_AUTO_TEST_SUITE(counting)

BOOST_AUTO_TEST_CASE(add_then_remove_everything_leaves_an_empty_filter) {
    for (std::uint32_t width : {4u, 8u}) {
        auto f = counting_bloom_filter::for_capacity(20000, 0.01, width);
        lfbloom_test::random_keys gen(5);
        std::vector<std::string> keys(20000);
        for (auto& k : keys) f.add(k = gen.next());
        for (const auto& k : keys) BOOST_TEST_REQUIRE(f.contains(k));
        BOOST_TEST(f.stats().saturated == 0u);
        for (const auto& k : keys) BOOST_TEST_REQUIRE(f.remove(k));
        BOOST_TEST(f.stats().slots_set == 0u);
        for (std::uint64_t w : snapshot(f)) BOOST_TEST_REQUIRE(w == 0u);
    }
}

BOOST_AUTO_TEST_CASE(count_tracks_adds_and_removes_of_one_key) {
    auto f = counting_bloom_filter::for_capacity(1000, 0.01);
    BOOST_TEST(f.count("k") == 0u);
    BOOST_TEST(f.add("k"));
    BOOST_TEST(!f.add("k"));
    BOOST_TEST(!f.add("k"));
    BOOST_TEST(f.count("k") == 3u);
    BOOST_TEST(f.remove("k"));
    BOOST_TEST(f.count("k") == 2u);
    BOOST_TEST(f.remove("k"));
    BOOST_TEST(f.remove("k"));
    BOOST_TEST(!f.contains("k"));
    BOOST_TEST(!f.remove("k"));
}

// 20 adds of one key on 4-bit counters: the counters stop at 15 and stay there for good, so even
// more removes than adds can never make the key absent.
BOOST_AUTO_TEST_CASE(saturated_counters_stay_at_their_maximum) {
    for (std::uint32_t width : {4u, 8u}) {
        const std::uint32_t max = (1u << width) - 1;
        auto f = counting_bloom_filter::for_capacity(1000, 0.01, width);
        for (std::uint32_t i = 0; i < max + 5; ++i) f.add("hot");
        BOOST_TEST(f.count("hot") == max);
        const filter_stats s = f.stats();
        BOOST_TEST(s.saturated == s.slots_set);  // all of the key's counters, and only those
        BOOST_TEST(s.saturated >= 1u);
        BOOST_TEST(s.saturated <= f.shape().hashes);
        for (std::uint32_t i = 0; i < max + 10; ++i) BOOST_TEST_REQUIRE(f.remove("hot"));
        BOOST_TEST(f.count("hot") == max);
        BOOST_TEST(f.stats().saturated == s.saturated);
    }
}

BOOST_AUTO_TEST_CASE(refused_removal_of_an_absent_key_changes_nothing) {
    auto f = counting_bloom_filter::for_capacity(1000, 0.01);
    for (int i = 0; i < 500; ++i) f.add(std::uint64_t(i));
    const auto before = snapshot(f);
    int refused = 0;
    for (int i = 1000; i < 2000; ++i) {
        if (f.contains(std::uint64_t(i))) continue;  // a false positive would be removable
        BOOST_TEST_REQUIRE(!f.remove(std::uint64_t(i)));
        ++refused;
    }
    BOOST_TEST(refused > 900);
    BOOST_TEST(snapshot(f) == before);
}

// remove_many is remove() key by key, in order: same answers, same counters left. The keys mix
// held keys, keys held twice, absent keys and repeats within one group of batch_size, over 5003
// keys (not a multiple of the group size).
BOOST_AUTO_TEST_CASE(batch_remove_is_single_removes_in_order) {
    for (std::uint32_t width : {4u, 8u}) {
        auto batch = counting_bloom_filter::for_capacity(5000, 0.01, width);
        auto single = counting_bloom_filter::for_capacity(5000, 0.01, width);
        lfbloom_test::random_keys gen(11);
        std::vector<std::string> keys(5003);
        for (std::size_t i = 0; i < keys.size(); ++i) {
            keys[i] = i % 7 == 3 ? keys[i - 1] : gen.next();  // a repeat, right behind its first
            if (i % 5 != 0) batch.add(keys[i]), single.add(keys[i]);  // every fifth never added
            if (i % 11 == 0) batch.add(keys[i]), single.add(keys[i]);  // some held twice
        }
        std::vector<key_view> views(keys.size());
        std::transform(keys.begin(), keys.end(), views.begin(), [](const std::string& k) { return as_key(k); });
        std::vector<std::uint8_t> got(keys.size(), 7);
        const std::uint64_t removed = batch.remove_many(views, got.data());
        std::uint64_t expected = 0, refusals = 0;
        for (std::size_t i = 0; i < keys.size(); ++i) {
            const bool gone = single.remove(keys[i]);
            expected += gone;
            refusals += !gone;
            BOOST_TEST_REQUIRE(got[i] == std::uint8_t{gone});
        }
        BOOST_TEST(removed == expected);
        BOOST_TEST(refusals > 500u);  // the absent keys were refused, so the test covers both answers
        BOOST_TEST(snapshot(batch) == snapshot(single));
        BOOST_TEST(batch.remove_many(std::span<const key_view>{}) == 0u);
    }
}

BOOST_AUTO_TEST_CASE(merge_adds_counters_and_saturates) {
    auto a = counting_bloom_filter::for_capacity(1000, 0.01);
    auto b = counting_bloom_filter::for_capacity(1000, 0.01);
    for (int i = 0; i < 3; ++i) a.add("x");
    for (int i = 0; i < 4; ++i) b.add("x");
    for (int i = 0; i < 10; ++i) a.add("hot"), b.add("hot");
    b.add("only-b");
    a.merge(b);
    BOOST_TEST(a.count("x") == 7u);
    BOOST_TEST(a.count("hot") == 15u);
    BOOST_TEST(a.count("only-b") == 1u);
    BOOST_TEST(b.count("x") == 4u);  // the source is unchanged

    auto wide = counting_bloom_filter::with_geometry(a.shape().slots, a.shape().hashes, 8);
    BOOST_CHECK_THROW(a.merge(wide), error);
}

// Intersection keeps the smaller count: a key in both stays removable as often as its smaller
// count, a saturated counter takes the other's true bound, and a key of one only goes.
BOOST_AUTO_TEST_CASE(intersect_keeps_the_smaller_counts) {
    auto a = counting_bloom_filter::for_capacity(1000, 0.01);
    auto b = counting_bloom_filter::for_capacity(1000, 0.01);
    for (int i = 0; i < 3; ++i) a.add("x");
    for (int i = 0; i < 5; ++i) b.add("x");
    for (int i = 0; i < 20; ++i) a.add("hot");  // saturates at 15
    for (int i = 0; i < 2; ++i) b.add("hot");
    a.add("only-a");
    a.intersect(b);
    BOOST_TEST(a.count("x") == 3u);
    BOOST_TEST(a.count("hot") == 2u);
    BOOST_TEST(a.count("only-a") == 0u);
    BOOST_TEST(a.stats().saturated == 0u);
    BOOST_TEST((a.remove("hot") && a.remove("hot") && !a.remove("hot")));
    BOOST_TEST(b.count("x") == 5u);  // the source is unchanged

    auto wide = counting_bloom_filter::with_geometry(a.shape().slots, a.shape().hashes, 8);
    BOOST_CHECK_THROW(a.intersect(wide), error);
    BOOST_TEST(!(a == wide));
}

BOOST_AUTO_TEST_CASE(counter_width_must_be_4_or_8) {
    for (std::uint32_t width : {0u, 1u, 2u, 16u})
        BOOST_CHECK_EXCEPTION(counting_bloom_filter::for_capacity(1000, 0.01, width), error,
                              [](const error& e) { return e.code() == errc::invalid_argument; });
}

BOOST_AUTO_TEST_CASE(lane_arithmetic) {
    const counter_lanes four(4);
    BOOST_TEST(four.saturated(0xF00F0000000000F1ull) == 0x1001000000000010ull);
    BOOST_TEST(four.zero(0xF00F0000000000F1ull) == 0x0110111111111100ull);
    BOOST_TEST(four.saturating_add(0x00000000000000F7ull, 0x0000000000000019ull) == 0x00000000000000FFull);
    const counter_lanes eight(8);
    BOOST_TEST(eight.saturated(0xFF00000000000001ull) == 0x0100000000000000ull);
    BOOST_TEST(eight.saturating_add(0x00000000000000F0ull, 0x0000000000000020ull) == 0x00000000000000FFull);
}

BOOST_AUTO_TEST_SUITE_END()
