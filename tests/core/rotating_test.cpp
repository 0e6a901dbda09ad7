// The rotating filter with a fake clock: both edges of the window, both modes, catch-up after a
// long pause, the false-positive bound, and argument checks.
#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include "lfbloom/lfbloom.hpp"
#include "test_support.hpp"

using namespace lfbloom;
using lfbloom_test::code_of;
using lfbloom_test::random_keys;

namespace {

constexpr std::uint64_t second = 1000000000;

/// A filter whose clock is `now`, rotating every `period`.
struct timed {
    std::atomic<std::uint64_t> now{1000 * second};
    rotating_bloom_filter filter;

    timed(std::uint32_t generations, bool double_write, std::uint64_t period)
        : filter(1000, 0.001, options(generations, double_write, period, now)) {}

    static rotating_options options(std::uint32_t g, bool dw, std::uint64_t period, std::atomic<std::uint64_t>& now) {
        rotating_options o;
        o.generations = g;
        o.double_write = dw;
        o.period_ns = period;
        o.clock = [&now] { return now.load(); };
        return o;
    }
};


}  // namespace

BOOST_AUTO_TEST_SUITE(rotating)

// Window W = G periods. A key added at any moment of a period is present W - W/G later (just
// before the deadline that would end it), and absent W later. One key per filter, so "absent"
// is exact: no other key's bits can make it a false positive.
BOOST_DATA_TEST_CASE(a_key_lives_between_w_minus_w_over_g_and_w,
                     boost::unit_test::data::make({2u, 3u, 5u}) * boost::unit_test::data::make({false, true}), g, dw) {
    const std::uint64_t period = 10 * second, window = g * period;
    for (std::uint64_t offset : {std::uint64_t{0}, second, period / 2, period - 1}) {
        timed t(g, dw, period);
        const std::uint64_t start = t.now.load();
        t.now = start + offset;
        t.filter.add(std::string("key"));
        t.now = start + offset + window - period;  // W - W/G later: still promised
        BOOST_TEST(t.filter.contains(std::string("key")), "g=" << g << " dw=" << dw << " offset=" << offset);
        t.now = start + offset + window;
        BOOST_TEST(!t.filter.contains(std::string("key")), "g=" << g << " dw=" << dw << " offset=" << offset);
        BOOST_TEST(t.filter.rotations() <= g + 1u);
    }
}

BOOST_DATA_TEST_CASE(manual_rotation_keeps_a_key_for_g_minus_1_rotations_and_drops_it_at_g,
                     boost::unit_test::data::make({2u, 3u, 4u}) * boost::unit_test::data::make({false, true}), g, dw) {
    rotating_options o;
    o.generations = g;
    o.double_write = dw;
    rotating_bloom_filter f(1000, 0.01, o);
    f.rotate();  // start from a non-zero epoch
    f.add(std::uint64_t{42});
    for (std::uint32_t r = 0; r + 1 < g; ++r) {
        f.rotate();
        BOOST_TEST(f.contains(std::uint64_t{42}), "after " << r + 1 << " rotations");
    }
    f.rotate();
    BOOST_TEST(!f.contains(std::uint64_t{42}));
    BOOST_TEST(f.ring_size() == g + (dw ? 1u : 0u));
    // single write: cleared everywhere; double write: its second copy sits in the one filter no
    // query checks, cleared by the next rotation
    std::uint32_t holding = 0;
    for (std::uint32_t age = 0; age < f.ring_size(); ++age) holding += f.stats(age).slots_set != 0;
    BOOST_TEST(holding == (dw ? 1u : 0u));
    f.rotate();
    for (std::uint32_t age = 0; age < f.ring_size(); ++age) BOOST_TEST(f.stats(age).slots_set == 0u);
}

BOOST_AUTO_TEST_CASE(a_long_pause_catches_up_with_at_most_g_rotations) {
    timed t(3, false, second);
    t.filter.add(std::string("old"));
    t.now += 1000 * second;  // 1000 periods later
    BOOST_TEST(!t.filter.contains(std::string("old")));
    BOOST_TEST(t.filter.rotations() == 3u);
    t.filter.add(std::string("new"));
    t.now += second - 1;  // deadlines stay on the original grid: the next is 1000 s + 1 s after start
    BOOST_TEST(t.filter.contains(std::string("new")));
    BOOST_TEST(t.filter.rotations() == 3u);
    t.now += 1;
    BOOST_TEST(t.filter.contains(std::string("new")));
    BOOST_TEST(t.filter.rotations() == 4u);
}

// Defect 5: a period near 2^64 ns (an obvious "never") made the deadline wrap to the past, so
// every call rotated and a key was gone after two calls; deadlines now saturate.
BOOST_AUTO_TEST_CASE(a_period_near_two_to_the_64_never_rotates) {
    const std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
    for (std::uint64_t period : {max, max - 1, max / 2 + 1}) {
        timed t(2, false, period);
        t.filter.add(std::string("k"));
        for (int call = 0; call < 5; ++call) BOOST_TEST(t.filter.contains(std::string("k")));
        t.now += 1000 * second;
        BOOST_TEST(t.filter.contains(std::string("k")));
        BOOST_TEST(t.filter.rotations() == 0u);
    }
}

// ... and so did tick(now) with `now` near 2^64: the next deadline wrapped below `now`.
BOOST_AUTO_TEST_CASE(a_tick_near_two_to_the_64_saturates_the_deadline) {
    const std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
    timed t(3, false, second);
    t.filter.tick(max - 5);  // all G rotations due; the next deadline would pass 2^64
    BOOST_TEST(t.filter.rotations() == 3u);
    t.filter.add(std::string("k"));
    for (int call = 0; call < 5; ++call) {
        t.filter.tick(max);
        BOOST_TEST(t.filter.contains(std::string("k")));
    }
    BOOST_TEST(t.filter.rotations() == 3u);
}

BOOST_AUTO_TEST_CASE(tick_from_a_timer_thread_instead_of_the_request_path) {
    std::atomic<std::uint64_t> now{0};
    rotating_options o = timed::options(2, false, second, now);
    o.auto_tick = false;
    rotating_bloom_filter f(1000, 0.01, o);
    f.add(std::string("k"));
    now = 10 * second;
    BOOST_TEST(f.contains(std::string("k")));  // nobody ticked
    f.tick(now);
    BOOST_TEST(!f.contains(std::string("k")));
    BOOST_TEST(f.rotations() == 2u);
}

// Fill every live generation with `capacity` keys (the worst moment, just before a rotation) and
// probe absent keys: the rate of the whole query stays under fpr. Bound as in filter_test.cpp.
BOOST_DATA_TEST_CASE(query_false_positive_rate_at_full_load_stays_under_fpr, boost::unit_test::data::make({false, true}), dw) {
    rotating_options o;
    o.generations = 3;
    o.double_write = dw;
    const std::uint64_t capacity = 100000;
    const double fpr = 0.01;
    rotating_bloom_filter f(capacity, fpr, o);
    random_keys keys(lfbloom_test::seed_from_env(21));
    for (int period = 0; period < 5; ++period) {
        if (period > 0) f.rotate();
        for (std::uint64_t i = 0; i < capacity; ++i) f.add(keys.next());
    }
    random_keys absent(98);
    const std::uint64_t probes = 1000000;
    std::uint64_t hits = 0;
    for (std::uint64_t i = 0; i < probes; ++i) hits += f.contains(absent.next());
    const double bound = lfbloom_test::fp_upper_bound(probes, fpr);
    BOOST_TEST_MESSAGE("double_write " << dw << ": measured " << static_cast<double>(hits) / probes);
    BOOST_TEST(static_cast<double>(hits) <= bound);
}

BOOST_AUTO_TEST_CASE(bad_arguments_are_refused) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    BOOST_CHECK_EQUAL(code_of([] { rotating_bloom_filter(0, 0.01); }), errc::invalid_argument);
    for (double p : {0.0, 1.0, nan}) BOOST_CHECK_EQUAL(code_of([&] { rotating_bloom_filter(10, p); }), errc::invalid_argument);
    for (std::uint32_t g : {0u, 1u, 65u}) {
        rotating_options o;
        o.generations = g;
        BOOST_CHECK_EQUAL(code_of([&] { rotating_bloom_filter(10, 0.01, o); }), errc::invalid_argument);
    }
    rotating_options small;
    small.filter.memory_limit = 1 << 20;
    BOOST_CHECK_EQUAL(code_of([&] { rotating_bloom_filter(10000000, 0.01, small); }), errc::too_large);
    BOOST_CHECK_EQUAL(code_of([] { rotating_bloom_filter(std::uint64_t{1} << 63, 0.01); }), errc::too_large);
    rotating_bloom_filter f(10, 0.01);
    BOOST_CHECK_EQUAL(code_of([&] { (void)f.stats(2); }), errc::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()
