// The scalable filter: growth, the total false-positive bound, caps, and growth under racing adds.
#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include <boost/math/distributions/binomial.hpp>
#include <boost/test/unit_test.hpp>

#include "lfbloom/lfbloom.hpp"
#include "test_support.hpp"

using namespace lfbloom;
using lfbloom_test::code_of;
using lfbloom_test::random_keys;

BOOST_AUTO_TEST_SUITE(scalable)

BOOST_AUTO_TEST_CASE(grows_by_the_factor_and_tightens_the_rate) {
    scalable_bloom_filter f(1000, 0.01);
    random_keys keys(lfbloom_test::seed_from_env(11));
    std::vector<std::string> added;
    for (int i = 0; i < 20000; ++i) {
        added.push_back(keys.next());
        f.add(added.back());
    }
    for (const auto& k : added) BOOST_REQUIRE(f.contains(k));
    // 1000 + 2000 + 4000 + 8000 = 15000 < 20000 <= 31000
    BOOST_TEST(f.filters() == 5u);
    std::uint64_t items = 0;
    for (std::uint32_t i = 0; i < f.filters(); ++i) {
        const sub_filter_stats s = f.stats(i);
        BOOST_TEST(s.filter.capacity == 1000u << i);
        BOOST_TEST(s.filter.target_fpr == 0.01 * 0.5 * std::pow(0.5, i), boost::test_tools::tolerance(1e-12));
        if (i + 1 < f.filters()) BOOST_TEST(s.items >= s.filter.capacity);  // no sub-filter was left early
        items += s.items;
    }
    BOOST_TEST(items <= 20000u);
    BOOST_TEST(items > 19500u);  // only keys a sub-filter reported present (a false positive, < 1%) were skipped
    const filter_stats total = f.stats();
    BOOST_TEST(total.capacity == 31000u);
    BOOST_TEST(total.target_fpr == 0.01);
    BOOST_TEST(total.estimated_fpr < 0.01);
    BOOST_CHECK_EQUAL(code_of([&] { (void)f.stats(5); }), errc::invalid_argument);
}

// Statistical bound: N absent probes; X false positives; fail if X exceeds the (1 - 1e-6) quantile
// of Binomial(N, fpr): a correct filter fails this once in a million runs.
BOOST_AUTO_TEST_CASE(total_false_positive_rate_stays_under_the_configured_one) {
    for (const double fpr : {0.1, 0.01, 0.001}) {
        scalable_bloom_filter f(1000, fpr);
        random_keys keys(lfbloom_test::seed_from_env(12));
        for (int i = 0; i < 127000; ++i) f.add(keys.next());  // fills 7 sub-filters exactly
        BOOST_TEST(f.filters() == 7u);
        random_keys absent(99);
        const std::uint64_t probes = 1000000;
        std::uint64_t hits = 0;
        for (std::uint64_t i = 0; i < probes; ++i) hits += f.contains(absent.next());
        const double bound = boost::math::quantile(
            boost::math::complement(boost::math::binomial_distribution<>(static_cast<double>(probes), fpr), 1e-6));
        BOOST_TEST_MESSAGE("fpr " << fpr << ": measured " << static_cast<double>(hits) / probes << " (bound " << bound / probes << ")");
        BOOST_TEST(static_cast<double>(hits) <= bound);
    }
}

BOOST_AUTO_TEST_CASE(full_at_the_cap_with_a_clear_error_and_nothing_changed) {
    scalable_options o;
    o.max_filters = 2;
    scalable_bloom_filter f(100, 0.01, o);
    random_keys keys(13);
    std::vector<std::string> added;
    std::string refused;
    for (int i = 0; i < 1000 && refused.empty(); ++i) {
        std::string k = keys.next();
        if (code_of([&] { f.add(k); }) == errc::full) refused = k;
        else added.push_back(k);
    }
    BOOST_REQUIRE(!refused.empty());
    BOOST_TEST(f.filters() == 2u);
    BOOST_TEST(added.size() >= 300u);
    const std::uint64_t items = f.stats(1).items;
    BOOST_CHECK_EQUAL(code_of([&] { f.add(refused); }), errc::full);
    BOOST_TEST(f.stats(1).items == items);
    BOOST_TEST(f.stats().near_capacity);
    for (const auto& k : added) BOOST_REQUIRE(f.contains(k));
    // a key already present is not an add, so it is not refused: in the oldest sub-filter, and
    // (defect 4: once refused as full) in the newest, the one that is full
    BOOST_TEST(!f.add(added.front()));
    BOOST_REQUIRE(f.stats(1).items > 0);
    BOOST_TEST(!f.add(added.back()));
    BOOST_TEST(f.stats(1).items == items);

    // the memory cap: the first sub-filter fits, the second does not
    scalable_options small;
    small.filter.memory_limit = blocked_bloom_filter::size_for(1000, 0.005).slots / 8 + 100;
    scalable_bloom_filter g(1000, 0.01, small);
    errc code{};
    for (int i = 0; i < 5000 && code == errc{}; ++i) code = code_of([&] { g.add(keys.next()); });
    BOOST_CHECK_EQUAL(code, errc::full);
    BOOST_TEST(g.filters() == 1u);
}

BOOST_AUTO_TEST_CASE(bad_arguments_are_refused) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    BOOST_CHECK_EQUAL(code_of([] { scalable_bloom_filter(0, 0.01); }), errc::invalid_argument);
    for (double p : {0.0, 1.0, -0.5, nan}) BOOST_CHECK_EQUAL(code_of([&] { scalable_bloom_filter(10, p); }), errc::invalid_argument);
    for (double g : {0.5, 2000.0, nan}) {
        scalable_options o;
        o.growth = g;
        BOOST_CHECK_EQUAL(code_of([&] { scalable_bloom_filter(10, 0.01, o); }), errc::invalid_argument);
    }
    for (double t : {0.0, 1.0, nan}) {
        scalable_options o;
        o.tightening = t;
        BOOST_CHECK_EQUAL(code_of([&] { scalable_bloom_filter(10, 0.01, o); }), errc::invalid_argument);
    }
    for (std::uint32_t m : {0u, 65u}) {
        scalable_options o;
        o.max_filters = m;
        BOOST_CHECK_EQUAL(code_of([&] { scalable_bloom_filter(10, 0.01, o); }), errc::invalid_argument);
    }
    scalable_options tiny;
    tiny.filter.memory_limit = 64;
    BOOST_CHECK_EQUAL(code_of([&] { scalable_bloom_filter(100000, 0.01, tiny); }), errc::too_large);
}

BOOST_AUTO_TEST_CASE(no_false_negatives_while_racing_adds_grow_it) {
    scalable_options o;
    o.growth = 1.5;
    scalable_bloom_filter f(64, 0.01, o);
    constexpr int threads = 4, per_thread = 20000;
    std::vector<std::thread> pool;
    std::atomic<bool> own_key_missing{false};
    for (int t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
            for (std::uint64_t i = 0; i < per_thread; ++i) {
                const std::uint64_t key = (std::uint64_t(t) << 32) | i;
                f.add(key);
                if (!f.contains(key)) own_key_missing = true;
            }
        });
    for (auto& t : pool) t.join();
    BOOST_TEST(!own_key_missing);
    for (std::uint64_t t = 0; t < threads; ++t)
        for (std::uint64_t i = 0; i < per_thread; ++i) BOOST_REQUIRE(f.contains((t << 32) | i));
    std::uint64_t capacity = 0;
    for (std::uint32_t i = 0; i + 1 < f.filters(); ++i) {
        BOOST_TEST(f.stats(i).items >= f.stats(i).filter.capacity);
        capacity += f.stats(i).filter.capacity;
    }
    BOOST_TEST(capacity < std::uint64_t{threads} * per_thread);  // grew no further than needed
    for (std::uint32_t i = 0; i < f.filters(); ++i)  // and never piled adds into a full one
        BOOST_TEST(f.stats(i).items <= f.stats(i).filter.capacity + threads);
    BOOST_TEST_MESSAGE(f.filters() << " sub-filters for " << threads * per_thread << " keys");
}

BOOST_AUTO_TEST_SUITE_END()
