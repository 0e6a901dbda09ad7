// The scalable filter: growth, the total false-positive bound, caps, and growth under racing adds;
// with cuckoo sub-filters, removes too (and the ones they defer: a key that matches in two), and
// churn through a chain that must not grow.
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <vector>

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
        const double bound = lfbloom_test::fp_upper_bound(probes, fpr);
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
    for (double g : {0.5, 0x1p32 + 1, 1e300, nan}) {
        scalable_options o;
        o.growth = g;
        BOOST_CHECK_EQUAL(code_of([&] { scalable_bloom_filter(10, 0.01, o); }), errc::invalid_argument);
    }
    for (double t : {0.0, 1.0, nan}) {
        scalable_options o;
        o.tightening = t;
        BOOST_CHECK_EQUAL(code_of([&] { scalable_bloom_filter(10, 0.01, o); }), errc::invalid_argument);
    }
    for (std::uint32_t m : {0u, 256u}) {
        scalable_options o;
        o.max_filters = m;
        BOOST_CHECK_EQUAL(code_of([&] { scalable_bloom_filter(10, 0.01, o); }), errc::invalid_argument);
    }
    scalable_options cuckoo_cap;  // cuckoo sub-filters: 64 at most (a bit each in add_copy's mask)
    cuckoo_cap.max_filters = 65;
    BOOST_CHECK_EQUAL(code_of([&] { scalable_cuckoo_filter(10, 0.01, cuckoo_cap); }), errc::invalid_argument);
    cuckoo_cap.max_filters = 64;
    BOOST_CHECK_EQUAL(code_of([&] { scalable_cuckoo_filter(10, 0.01, cuckoo_cap); }), errc{});
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

// Without grow_ahead no thread is started, and growth happens in the add that finds the newest
// full: after exactly its capacity of new keys (one writer), not before.
BOOST_AUTO_TEST_CASE(without_grow_ahead_the_adds_grow_it_themselves_at_capacity) {
    auto threads = [] {
        std::uint64_t n = 0;
        for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator("/proc/self/task")) ++n;
        return n;
    };
    scalable_options o;
    o.grow_ahead = false;
    scalable_bloom_filter f(1000, 0.01, o);
    const std::uint64_t before = threads();
    random_keys keys(17);
    std::vector<std::string> added;
    while (f.stats(0).items < 1000) {  // past half: a grow_ahead filter would start its builder here
        added.push_back(keys.next());
        f.add(added.back());
    }
    BOOST_TEST(f.filters() == 1u);  // full, and still alone: nothing built ahead
    std::string key;
    do key = keys.next();
    while (f.contains(key));
    BOOST_TEST(f.add(key));
    BOOST_TEST(f.filters() == 2u);  // this add grew it
    BOOST_TEST(f.stats(1).items == 1u);
    BOOST_TEST(threads() == before);
    for (const auto& k : added) BOOST_REQUIRE(f.contains(k));
}

// Past the sub-filters kept in the object (8) and past the 64 of lfbloom 1.13 (255 at most), the
// later ones in an array made by the growth that needs it; grow() adds one on demand. Tightening
// 0.9 keeps k small (a chain that halves its rate reaches k = 218 by 217 sub-filters, and sizing
// each new k costs: 5 s here, and past 100 s under ThreadSanitizer).
BOOST_AUTO_TEST_CASE(grows_past_the_inline_sub_filters_to_its_cap) {
    scalable_options o;
    o.growth = 1;
    o.tightening = 0.9;
    o.max_filters = 100;
    o.grow_ahead = false;
    scalable_bloom_filter f(2, 0.5, o);
    random_keys keys(19);
    std::vector<std::string> added;
    errc code{};
    while (code == errc{} && added.size() < 1000) {
        std::string k = keys.next();
        code = code_of([&] { f.add(k); });
        if (code == errc{}) added.push_back(k);
    }
    BOOST_CHECK_EQUAL(code, errc::full);  // the cap
    BOOST_TEST(f.filters() == 100u);
    BOOST_TEST_MESSAGE(f.filters() << " sub-filters");
    for (const auto& k : added) BOOST_REQUIRE(f.contains(k));
    for (std::uint32_t i = 0; i < f.filters(); ++i) BOOST_REQUIRE(f.stats(i).filter.capacity == 2u);

    scalable_bloom_filter g(100, 0.01, o);
    for (int i = 0; i < 20; ++i) g.grow();
    BOOST_TEST(g.filters() == 21u);
    BOOST_TEST(g.stats(20).filter.capacity == 100u);
    BOOST_TEST(g.stats(20).items == 0u);
}

// A memory limit set after creation applies to the growths that follow; raising it lets a filter
// that was refused grow again.
BOOST_AUTO_TEST_CASE(set_memory_limit_applies_to_later_growth) {
    scalable_options o;
    o.grow_ahead = false;
    scalable_bloom_filter f(1000, 0.01, o);
    const std::uint64_t first = f.filter(0).words().size_bytes();
    f.set_memory_limit(first + 100);
    BOOST_TEST(f.options().filter.memory_limit == first + 100);
    random_keys keys(23);
    errc code{};
    for (int i = 0; i < 5000 && code == errc{}; ++i) code = code_of([&] { f.add(keys.next()); });
    BOOST_CHECK_EQUAL(code, errc::full);
    BOOST_TEST(f.filters() == 1u);
    f.set_memory_limit(0);
    BOOST_TEST(f.add(keys.next()));
    BOOST_TEST(f.filters() == 2u);
}

// ---- cuckoo sub-filters ----

BOOST_AUTO_TEST_CASE(cuckoo_sub_filters_grow_remove_and_count) {
    scalable_cuckoo_filter f(1000, 0.01);
    random_keys keys(lfbloom_test::seed_from_env(14));
    std::vector<std::string> added;
    for (int i = 0; i < 20000; ++i) {
        added.push_back(keys.next());
        f.add(added.back());
    }
    BOOST_TEST(f.filters() == 5u);  // 1000 + 2000 + 4000 + 8000 = 15000 < 20000 <= 31000
    for (std::uint32_t i = 0; i < f.filters(); ++i) {
        const sub_filter_stats s = f.stats(i);
        BOOST_TEST((s.filter.kind == layout::cuckoo));
        BOOST_TEST(s.filter.capacity == 1000u << i);
        if (i + 1 < f.filters()) BOOST_TEST(s.items >= s.filter.capacity * 9 / 10);  // left early only if it refused an add
    }
    for (const auto& k : added) BOOST_REQUIRE(f.contains(k));
    BOOST_TEST(f.count(added.front()) >= 1u);
    // a second copy of a key in the newest, then two removes: present after the first only
    const std::string twice = added.back();
    BOOST_TEST(!f.add(twice));
    BOOST_TEST(f.count(twice) >= 2u);
    // remove the first half; the second half stays (a key matching in two sub-filters waits in the list)
    std::uint64_t deferred = 0;
    for (std::size_t i = 0; i < added.size() / 2; ++i) {
        const remove_status r = f.erase(added[i]);
        BOOST_REQUIRE((r == remove_status::removed || r == remove_status::deferred));
        deferred += r == remove_status::deferred;
    }
    BOOST_TEST(deferred == f.pending_removes().deferred);
    BOOST_TEST(deferred < 20u);  // about 10,000 times the other sub-filters' rates (< 1%), far fewer
    BOOST_TEST(f.ambiguous_removes() == 0u);
    for (std::size_t i = added.size() / 2; i < added.size(); ++i) BOOST_REQUIRE(f.contains(added[i]));
    BOOST_TEST((f.erase(twice) == remove_status::removed));
    BOOST_TEST(f.contains(twice));
    BOOST_TEST((f.erase(twice) == remove_status::removed));
    std::string never = keys.next();
    while (f.contains(never)) never = keys.next();  // a remove of a key that matches nowhere changes nothing
    BOOST_TEST((f.erase(never) == remove_status::absent));
}

// Churn after a growth: 2,500 live keys, the oldest 500 removed and 500 new added each round.
// Removes free room in sub-filter 0 and adds use it before growing; with adds going to the newest
// only (as in 1.6) the chain grew to 3 sub-filters here (sub-filter 2 held the live set).
BOOST_AUTO_TEST_CASE(cuckoo_adds_reuse_the_room_removes_free) {
    scalable_cuckoo_filter f(1000, 0.001);
    std::deque<std::uint64_t> live;
    std::uint64_t deferred = 0;  // removes that matched in both sub-filters
    std::uint64_t next = 0;
    for (; next < 2500; ++next) {
        f.add(next);
        live.push_back(next);
    }
    BOOST_TEST(f.filters() == 2u);
    for (int round = 0; round < 30; ++round) {
        for (int i = 0; i < 500; ++i) {
            const remove_status r = f.erase(live.front());
            BOOST_REQUIRE((r == remove_status::removed || r == remove_status::deferred));
            deferred += r == remove_status::deferred;
            live.pop_front();
        }
        for (int i = 0; i < 500; ++i, ++next) {
            f.add(next);
            live.push_back(next);
        }
    }
    for (std::uint32_t i = 0; i < f.filters(); ++i) BOOST_TEST_MESSAGE("sub-filter " << i << ": " << f.stats(i).items << " of " << f.stats(i).filter.capacity);
    BOOST_TEST(f.filters() == 2u);
    for (std::uint32_t i = 0; i < f.filters(); ++i) BOOST_TEST(f.stats(i).items <= f.stats(i).filter.capacity);
    const pending_remove_stats p = f.pending_removes();
    BOOST_TEST(f.stats(0).items + f.stats(1).items == live.size() + p.pending);
    for (const std::uint64_t k : live) BOOST_REQUIRE(f.contains(k));
    BOOST_TEST(p.deferred == deferred);
    BOOST_TEST(deferred < 40u);  // 15,000 removes at the other sub-filter's rate (0.05%, 0.025%): about 6
}

// At the cap, a sub-filter that refused an add as full takes adds again after a remove there; a
// second copy of a key goes to the sub-filter holding the first when it has room, so the key
// stays removable.
BOOST_AUTO_TEST_CASE(cuckoo_a_refusal_lasts_until_a_remove_and_copies_stay_together) {
    scalable_options one;
    one.max_filters = 1;
    scalable_cuckoo_filter f(1000, 0.01, one);
    std::vector<std::uint64_t> added;
    errc code{};
    for (std::uint64_t k = 0; code == errc{}; ++k) {
        code = code_of([&] { f.add(k); });
        if (code == errc{}) added.push_back(k);
    }
    BOOST_CHECK_EQUAL(code, errc::full);
    const std::uint64_t back = added[added.size() / 2];
    BOOST_TEST((f.erase(back) == remove_status::removed));
    BOOST_CHECK_EQUAL(code_of([&] { f.add(back); }), errc{});  // its own buckets have the slot it freed
    for (const std::uint64_t k : added) BOOST_REQUIRE(f.contains(k));

    scalable_cuckoo_filter g(100, 0.01);
    for (std::uint64_t k = 0; k < 150; ++k) g.add(k);  // sub-filter 0 full by count, 1 has 50
    BOOST_REQUIRE(g.filters() == 2u);
    BOOST_REQUIRE((g.erase(std::uint64_t{3}) == remove_status::removed));  // room in 0
    const std::uint64_t twice = 120;                                        // its copy is in 1
    BOOST_TEST(!g.add(twice));
    BOOST_TEST(g.count(twice) == 2u);
    BOOST_TEST((g.erase(twice) == remove_status::removed));  // not ambiguous: both copies in 1
    BOOST_TEST((g.erase(twice) == remove_status::removed));
    BOOST_TEST(!g.contains(twice));
}

// Statistical bound as above: the sum bound holds for cuckoo sub-filters too.
BOOST_AUTO_TEST_CASE(cuckoo_sub_filters_keep_the_total_false_positive_rate) {
    for (const double fpr : {0.01, 0.001}) {
        scalable_cuckoo_filter f(1000, fpr);
        random_keys keys(lfbloom_test::seed_from_env(15));
        std::uint32_t filled = 0;
        try {
            for (; filled < 63000; ++filled) f.add(keys.next());  // 6 sub-filters, or full before
        } catch (const error& e) {
            BOOST_TEST((e.code() == errc::full));  // 0.1%: the fifth would need a rate below 0.006%
        }
        BOOST_TEST_MESSAGE("fpr " << fpr << ": " << f.filters() << " sub-filters, " << filled << " keys");
        random_keys absent(98);
        const std::uint64_t probes = 1000000;
        std::uint64_t hits = 0;
        for (std::uint64_t i = 0; i < probes; ++i) hits += f.contains(absent.next());
        const double bound = lfbloom_test::fp_upper_bound(probes, fpr);
        BOOST_TEST(static_cast<double>(hits) <= bound);
        // and the measured rate is the model's (fpr_at of each load), not just under the loose bound
        const double estimate = f.stats().estimated_fpr;
        BOOST_TEST(estimate < fpr);
        const double model_bound = lfbloom_test::fp_upper_bound(probes, 1.25 * estimate);
        BOOST_TEST_MESSAGE("measured " << static_cast<double>(hits) / probes << ", model " << estimate);
        BOOST_TEST(static_cast<double>(hits) <= model_bound);
    }
    // the chain ends where a cuckoo filter's rate ends: 0.05% * 0.5^5 is below 0.003% (17-bit fingerprints at half load)
    scalable_cuckoo_filter g(100, 0.001);
    random_keys keys(16);
    errc code{};
    std::vector<std::string> added;
    for (int i = 0; i < 100000 && code == errc{}; ++i) {
        std::string k = keys.next();
        code = code_of([&] { g.add(k); });
        if (code == errc{}) added.push_back(std::move(k));
    }
    BOOST_CHECK_EQUAL(code, errc::full);
    BOOST_TEST(g.filters() == 5u);
    for (const auto& k : added) BOOST_REQUIRE(g.contains(k));  // a refused add lost nothing
}

// A key stored in sub-filter 0 also matches in sub-filter 1 through another key there (same
// fingerprint, same bucket pair in sub-filter 1's geometry, another pair in sub-filter 0's).
// Removing it must not take that key's copy: the remove waits in the list, and erases the key's
// copy once the twin is gone. With the ambiguity rule removed (erase from the first match, newest
// first or oldest first), one of the checks below fails. An add of the key while its remove waits
// takes that remove instead of storing a copy. Hash level: the twin shares the key's h2 (its
// fingerprint) and draws h1 until it lands as wanted.
BOOST_AUTO_TEST_CASE(cuckoo_remove_of_a_key_matching_in_two_sub_filters_waits_for_the_other_key) {
    scalable_options o;
    o.filter.seed = 7;
    scalable_cuckoo_filter f(64, 0.01, o);  // 23 and 34 buckets: room for a pair in 1 that is not one in 0
    const hash128 key = f.hash(as_key(std::string_view("the key")));
    f.add_hash(key);
    random_keys keys(17);
    for (int i = 0; f.filters() < 2; ++i) {
        BOOST_REQUIRE(i < 1000);
        f.add(keys.next());
    }
    const auto like = [&](std::size_t i) {
        const filter_stats s = f.stats(i).filter;
        return cuckoo_filter(geometry{s.slots, 2, 0, 0, s.slot_bits}, o.filter);
    };
    cuckoo_filter in0 = like(0), in1 = like(1);
    in0.add_hash(key);
    in1.add_hash(key);
    std::mt19937_64 rng(19);
    hash128 twin{};
    bool found = false;
    for (int i = 0; i < 100000 && !found; ++i) {
        twin = {rng(), key.h2};
        found = in1.contains_hash(twin) && !in0.contains_hash(twin) && f.count_hash(twin) == 0;
    }
    BOOST_REQUIRE(found);
    f.add_hash(twin);
    BOOST_REQUIRE(f.filters() == 2u);
    BOOST_TEST(f.count_hash(key) == 2u);  // its own copy in 0, the twin's in 1
    const std::uint64_t stored = f.stats(0).items + f.stats(1).items;
    BOOST_TEST((f.erase_hash(key) == remove_status::deferred));
    BOOST_TEST(f.count_hash(key) == 2u);
    BOOST_TEST(f.contains_hash(twin));
    BOOST_TEST(f.retry_pending_removes() == 1u);  // still in both: nothing changes
    BOOST_TEST(f.count_hash(key) == 2u);
    BOOST_TEST(!f.add_hash(key));  // takes the pending remove: an add after a remove is no change
    BOOST_TEST(f.count_hash(key) == 2u);
    BOOST_TEST(f.pending_removes().pending == 0u);
    BOOST_TEST((f.erase_hash(key) == remove_status::deferred));
    BOOST_TEST((f.erase_hash(twin) == remove_status::removed));  // the twin matches in 1 only
    BOOST_TEST(f.retry_pending_removes() == 0u);  // (if the twin's remove has not retried it already)
    BOOST_TEST(f.count_hash(key) == 0u);
    BOOST_TEST(f.count_hash(twin) == 0u);
    const pending_remove_stats p = f.pending_removes();
    BOOST_TEST(p.deferred == 2u);
    BOOST_TEST(p.taken == 1u);
    BOOST_TEST(p.resolved == 1u);
    BOOST_TEST(f.ambiguous_removes() == 0u);
    BOOST_TEST(f.stats(0).items + f.stats(1).items == stored - 2);
}

// A key added again while its first copy's sub-filter is full gets a copy in another one, and
// matches in both. Its first remove waits (either copy could be another key's); its second finds
// two removes of keys no sub-filter tells apart (the same key) and two copies in their pairs, so
// both copies are theirs: it erases both.
BOOST_AUTO_TEST_CASE(cuckoo_a_key_with_copies_in_two_sub_filters_goes_with_its_second_remove) {
    scalable_cuckoo_filter f(100, 0.01);
    const std::uint64_t twice = 7;
    f.add(twice);
    for (std::uint64_t k = 1000; k < 1099; ++k) f.add(k);  // sub-filter 0 is full by count
    BOOST_TEST(!f.add(twice));                             // the second copy grows the chain
    BOOST_REQUIRE(f.filters() == 2u);
    BOOST_REQUIRE(f.stats(1).items == 1u);
    BOOST_TEST(f.count(twice) == 2u);
    BOOST_TEST((f.erase(twice) == remove_status::deferred));
    BOOST_TEST(f.count(twice) == 2u);
    BOOST_TEST((f.erase(twice) == remove_status::removed));
    BOOST_TEST(f.count(twice) == 0u);
    BOOST_TEST(f.pending_removes().pending == 0u);
    BOOST_TEST(f.stats(0).items + f.stats(1).items == 99u);
    for (std::uint64_t k = 1000; k < 1099; ++k) BOOST_REQUIRE(f.contains(k));
}

// The list of pending removes holds 64 entries here (its floor: capacity / 256 is less). Keys
// with copies in two sub-filters each, removed once, fill it; the next such remove is refused as
// ambiguous and changes nothing, until an entry has been retried 16 times in vain: then the new
// remove takes its place, and the evicted remove's copy stays for good (abandoned).
BOOST_AUTO_TEST_CASE(cuckoo_a_full_list_of_pending_removes_refuses_then_evicts) {
    scalable_cuckoo_filter f(100, 0.01);
    for (std::uint64_t k = 0; k < 100; ++k) f.add(k);  // sub-filter 0, full by count
    for (std::uint64_t k = 0; k < 66; ++k) f.add(k);   // second copies, in sub-filter 1
    BOOST_REQUIRE(f.filters() == 2u);
    for (std::uint64_t k = 0; k < 64; ++k) BOOST_REQUIRE((f.erase(k) == remove_status::deferred));
    BOOST_TEST((f.erase(std::uint64_t{64}) == remove_status::ambiguous));
    BOOST_TEST(f.ambiguous_removes() == 1u);
    BOOST_TEST(f.count(std::uint64_t{64}) == 2u);
    for (int i = 0; i < 16; ++i) BOOST_TEST(f.retry_pending_removes() == 64u);
    BOOST_TEST((f.erase(std::uint64_t{65}) == remove_status::deferred));
    const pending_remove_stats p = f.pending_removes();
    BOOST_TEST(p.pending == 64u);
    BOOST_TEST(p.deferred == 65u);
    BOOST_TEST(p.abandoned == 1u);
    BOOST_TEST(p.refused == 1u);
    for (std::uint64_t k = 0; k < 100; ++k) BOOST_REQUIRE(f.contains(k));  // each has an add not removed
}

BOOST_AUTO_TEST_CASE(cuckoo_sub_filters_refuse_what_they_cannot_be) {
    BOOST_CHECK_EQUAL(code_of([] { scalable_cuckoo_filter(100, 0.00005); }), errc::invalid_argument);  // 0.0025% first
    BOOST_CHECK_EQUAL(code_of([] { scalable_cuckoo_filter(0, 0.01); }), errc::invalid_argument);
    scalable_options tiny;
    tiny.filter.memory_limit = 64;
    BOOST_CHECK_EQUAL(code_of([&] { scalable_cuckoo_filter(100000, 0.01, tiny); }), errc::too_large);
    // at the cap, a full filter refuses with nothing lost; 10 copies of a key (5 slots per bucket
    // at this rate) are refused as such
    scalable_options one;
    one.max_filters = 1;
    scalable_cuckoo_filter f(1000, 0.01, one);
    BOOST_TEST(f.stats(0).filter.slot_bits == 14u);
    for (int i = 0; i < 10; ++i) f.add("same");
    BOOST_CHECK_EQUAL(code_of([&] { f.add("same"); }), errc::too_many_duplicates);
    random_keys keys(18);
    std::vector<std::string> added;
    errc code{};
    while (code == errc{}) {
        std::string k = keys.next();
        code = code_of([&] { f.add(k); });
        if (code == errc{}) added.push_back(std::move(k));
    }
    BOOST_CHECK_EQUAL(code, errc::full);
    BOOST_TEST(added.size() >= 990u);
    for (const auto& k : added) BOOST_REQUIRE(f.contains(k));
}

// Threads add their own keys through growth, remove every other one, and check the rest are
// still there while the others do the same.
BOOST_AUTO_TEST_CASE(cuckoo_no_false_negatives_while_racing_adds_and_removes_grow_it) {
    scalable_options o;
    o.growth = 1.5;
    o.tightening = 0.8;
    scalable_cuckoo_filter f(64, 0.01, o);
    constexpr int threads = 4, per_thread = 20000;
    std::vector<std::thread> pool;
    std::atomic<int> missing{0}, refused{0};
    for (int t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
            try {
                for (std::uint64_t i = 0; i < per_thread; ++i) {
                    const std::uint64_t key = (std::uint64_t(t) << 32) | i;
                    f.add(key);
                    if (!f.contains(key)) ++missing;
                    if (i % 2 == 1 && f.erase(key - 1) == remove_status::absent) ++missing;
                }
            } catch (const error&) {
                ++refused;  // a test failure, not a terminate
            }
        });
    for (auto& t : pool) t.join();
    BOOST_TEST(missing == 0);
    BOOST_TEST(refused == 0);
    for (std::uint64_t t = 0; t < threads; ++t)
        for (std::uint64_t i = 1; i < per_thread; i += 2) BOOST_REQUIRE(f.contains((t << 32) | i));
    const pending_remove_stats p = f.pending_removes();
    BOOST_TEST_MESSAGE(f.filters() << " sub-filters; " << p.deferred << " removes deferred, " << p.pending << " pending, "
                                   << p.refused << " refused as ambiguous (a full list)");
}

// Issue 37, item 3: a constant live set of 2,500 keys under churn (the oldest removed, a new one
// added, 3 million times) in a chain of 1,000 + 2,000 of capacity (14-bit fingerprints; at most 3
// sub-filters). Up to 1.9 every remove that matched in both sub-filters (about 0.05%) left its
// copy for good: 2,640 copies after 250,000 steps, a third sub-filter after about a million, and
// adds refused as full after 5.5 million (two million with max_filters 2). Now such a remove waits
// until it can erase: the copies stay the live keys plus the few pending removes (at most 6 here),
// and the chain stays at 2 sub-filters. Only calls 1.9 had: against 1.9's header it fails at the
// first check. About a second in a Release build; LFBLOOM_CHURN_STEPS sets another number of
// steps (the 12 million take 4 s).
BOOST_AUTO_TEST_CASE(cuckoo_churn_keeps_a_constant_live_set_in_the_chain_it_fills) {
    scalable_options o;
    o.max_filters = 3;
    scalable_cuckoo_filter f(1000, 0.01, o);
    std::deque<std::uint64_t> live;
    std::uint64_t next = 0;
    for (; next < 2500; ++next) {
        f.add(next);
        live.push_back(next);
    }
    BOOST_REQUIRE(f.filters() == 2u);
    BOOST_REQUIRE(f.stats(0).filter.slot_bits == 14u);
    std::uint64_t refused = 0;  // removes that answered false (every key removed is present)
    const char* asked = std::getenv("LFBLOOM_CHURN_STEPS");
    const std::uint64_t steps = asked != nullptr ? std::strtoull(asked, nullptr, 10) : 3'000'000;
    constexpr std::uint64_t check_every = 250'000;
    for (std::uint64_t step = 1; step <= steps; ++step) {
        refused += !f.remove(live.front());
        live.pop_front();
        f.add(next);
        live.push_back(next++);
        if (step % check_every != 0) continue;
        std::uint64_t copies = 0;
        for (std::uint32_t i = 0; i < f.filters(); ++i) copies += f.stats(i).items;
        BOOST_TEST_MESSAGE(step << " steps: " << f.filters() << " sub-filters, " << copies << " copies");
        BOOST_TEST_REQUIRE(f.filters() == 2u, "a sub-filter more after " << step << " steps");
        BOOST_TEST_REQUIRE(copies <= live.size() + 64, copies << " copies of " << live.size() << " live keys after " << step << " steps");
        for (const std::uint64_t k : live) BOOST_REQUIRE(f.contains(k));
    }
    BOOST_TEST(refused == 0u);
    BOOST_TEST_MESSAGE(steps << " steps");
}

// Two threads churn their own live sets of 1,250 keys each, in one chain (as above), and add back
// one in ten of their removed keys at once (so adds take pending removes while retries run). Keys
// of the two threads collide, so retries and the rule of owed copies race adds and removes of the
// other thread's keys. A live key must never be missed, and at the end the copies are the live
// keys plus the pending and the abandoned removes (all quiet), in 2 sub-filters. The keys added
// back come round again at a step that adds them back (1,250 is a multiple of 10), so they never
// leave for long, and removes of keys that collide with them stay pending: with the threads time-sliced
// (a loaded machine, or taskset -c 0) 20 to 60 stay, and the list, 64 long, evicts some.
BOOST_AUTO_TEST_CASE(cuckoo_no_false_negatives_and_no_growth_under_concurrent_churn) {
    scalable_cuckoo_filter f(1000, 0.01);
    constexpr int threads = 2;
    constexpr std::uint64_t per_thread = 1250, steps = 400'000;
    for (std::uint64_t k = 0; k < threads * per_thread; ++k) f.add(((k % threads) << 40) | k / threads);
    BOOST_REQUIRE(f.filters() == 2u);
    std::atomic<std::uint64_t> missing{0}, refused{0};
    std::vector<std::thread> pool;
    for (std::uint64_t t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
            std::deque<std::uint64_t> live;
            for (std::uint64_t i = 0; i < per_thread; ++i) live.push_back((t << 40) | i);
            std::uint64_t next = per_thread;
            for (std::uint64_t step = 0; step < steps; ++step) {
                const std::uint64_t gone = live.front();
                live.pop_front();
                refused += !f.remove(gone);
                const std::uint64_t key = step % 10 == 0 ? gone : (t << 40) | next++;
                f.add(key);
                live.push_back(key);
                missing += !f.contains(key);
                missing += !f.contains(live[step % per_thread]);
            }
            for (const std::uint64_t k : live) missing += !f.contains(k);
        });
    for (auto& t : pool) t.join();
    BOOST_TEST(missing == 0u);
    BOOST_TEST(refused == 0u);
    BOOST_TEST(f.filters() == 2u);
    const pending_remove_stats p = f.pending_removes();
    // an abandoned remove (evicted from a full list) leaves its copy for good
    BOOST_TEST(f.stats(0).items + f.stats(1).items == threads * per_thread + p.pending + p.abandoned);
    BOOST_TEST(p.deferred == p.pending + p.resolved + p.taken + p.abandoned);
    BOOST_TEST_MESSAGE(p.deferred << " removes deferred: " << p.resolved << " completed by retries, " << p.taken
                                  << " taken by adds, " << p.abandoned << " abandoned, " << p.pending << " pending");
    const std::uint64_t left = f.retry_pending_removes();  // each retried once more, all quiet
    BOOST_TEST(f.stats(0).items + f.stats(1).items == threads * per_thread + left + p.abandoned);
    BOOST_TEST_MESSAGE(left << " pending after one more retry of each");
}

BOOST_AUTO_TEST_SUITE_END()
