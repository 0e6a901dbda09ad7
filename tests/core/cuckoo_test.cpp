#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "lfbloom/lfbloom.hpp"
#include "test_support.hpp"

using namespace lfbloom;
using lfbloom_test::code_of;
using lfbloom_test::random_keys;

namespace lfbloom {
inline std::ostream& boost_test_print_type(std::ostream& os, cuckoo_status s) { return os << "cuckoo_status(" << static_cast<int>(s) << ")"; }
}  // namespace lfbloom

namespace {
/// Stored (added_new, or added: a key indistinguishable from it was there, which random keys
/// hit about 8 * load / 65535 of the time).
template <class Key>
bool stored(cuckoo_filter& f, const Key& key) {
    const cuckoo_status s = f.insert(key);
    return s == cuckoo_status::added_new || s == cuckoo_status::added;
}
}  // namespace

BOOST_AUTO_TEST_SUITE(cuckoo)

// Sized at 94% load where the rate allows it (bits per key 64 / (4 * 0.94) = 17.0), never rounded
// to a power of two; lower rates lower the load; rates a 16-bit fingerprint cannot reach are refused.
BOOST_AUTO_TEST_CASE(sizing_fits_the_load_and_the_rate) {
    auto f = cuckoo_filter::for_capacity(std::uint64_t{1} << 20, 0.001);
    BOOST_TEST(f.buckets() == 278877u);  // ceil(2^20 / (4 * 0.94)): a power of two would be 2^19 or 2^20
    const cuckoo_stats s = f.stats();
    BOOST_TEST(s.capacity == std::uint64_t{1} << 20);
    BOOST_TEST(s.target_fpr == 0.001);
    BOOST_TEST(s.bytes * 8.0 / (1 << 20) < 17.3);  // buckets (17.02) and 4096 stripe words (0.25)
    BOOST_TEST(cuckoo_filter::fpr_at(cuckoo_filter::max_load) < 0.000125);
    // 0.01%: the load drops to where 8 slots * load / 65535 = 0.0001 (about 0.82): 19.5 bits per key
    auto g = cuckoo_filter::for_capacity(1000000, 0.0001);
    const double load = 1000000.0 / (4.0 * static_cast<double>(g.buckets()));
    BOOST_TEST(cuckoo_filter::fpr_at(load) <= 0.0001);
    BOOST_TEST(load > 0.81);
}

BOOST_AUTO_TEST_CASE(bad_sizes_are_refused) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    for (double p : {0.0, 1.0, -0.5, 2.0, nan, 1e-6})
        BOOST_TEST(code_of([&] { cuckoo_filter::for_capacity(1000, p); }) == errc::invalid_argument, "p " << p);
    BOOST_TEST(code_of([] { cuckoo_filter::for_capacity(0, 0.01); }) == errc::invalid_argument);
    BOOST_TEST(code_of([] { cuckoo_filter::for_capacity(std::uint64_t{1} << 62, 0.01); }) == errc::too_large);
    BOOST_TEST(code_of([] { cuckoo_filter::for_capacity(~std::uint64_t{0}, 0.01); }) == errc::too_large);
    BOOST_TEST(code_of([] { cuckoo_filter f(0); }) == errc::invalid_argument);
    BOOST_TEST(code_of([] { cuckoo_filter f(std::uint64_t{1} << 57); }) == errc::invalid_argument);
    filter_options small;
    small.memory_limit = 4096;
    BOOST_TEST(code_of([&] { cuckoo_filter::for_capacity(100000, 0.01, small); }) == errc::too_large);
}

// seiflotfy/cuckoofilter #42: a failed insert must not drop a stored fingerprint. Fill until the
// first `full`, keep going a while, then every key that was stored must still be there, and the
// table must hold exactly one fingerprint per stored key.
BOOST_AUTO_TEST_CASE(filling_to_failure_loses_nothing) {
    for (std::uint64_t buckets : {1u, 2u, 3u, 1000u, 30011u}) {
        cuckoo_filter f(buckets);
        random_keys gen(11);
        std::vector<std::string> stored;
        std::uint64_t refusals = 0, first_full = 0;
        while (refusals < 200) {
            std::string key = gen.next();
            const cuckoo_status st = f.insert(key);
            BOOST_TEST_REQUIRE(st != cuckoo_status::too_many_duplicates);  // random 16-byte keys
            if (st == cuckoo_status::full) {
                if (refusals++ == 0) first_full = stored.size();
            } else {
                stored.push_back(std::move(key));
            }
        }
        const cuckoo_stats s = f.stats();
        BOOST_TEST_MESSAGE(buckets << " buckets: first full at load " << first_full / (4.0 * buckets) << ", final load "
                                   << s.load << ", kicks " << s.kicks);
        std::uint64_t missing = 0;
        for (const auto& k : stored) missing += !f.contains(k);
        BOOST_TEST(missing == 0u);
        BOOST_TEST(s.fingerprints == stored.size());
        BOOST_TEST(s.failed_inserts == refusals);
        if (buckets >= 1000) BOOST_TEST(static_cast<double>(first_full) / (4.0 * buckets) > cuckoo_filter::max_load);
    }
}

// RedisBloom #533: duplicates must be refused, not grown for. 8 copies fill the key's two
// buckets; the 9th add is too_many_duplicates (add() throws it too); removes take them one by one.
BOOST_AUTO_TEST_CASE(duplicates_stop_at_eight_copies) {
    cuckoo_filter f(1000);
    BOOST_TEST(f.insert("dup") == cuckoo_status::added_new);
    for (int i = 1; i < 8; ++i) BOOST_TEST(f.insert("dup") == cuckoo_status::added);
    BOOST_TEST(f.count("dup") == 8u);
    BOOST_TEST(f.insert("dup") == cuckoo_status::too_many_duplicates);
    BOOST_TEST(code_of([&] { f.add("dup"); }) == errc::too_many_duplicates);
    const cuckoo_stats s = f.stats();
    BOOST_TEST(s.fingerprints == 8u);
    BOOST_TEST(s.duplicate_refusals == 2u);
    BOOST_TEST(s.failed_inserts == 0u);
    BOOST_TEST(f.insert("other") != cuckoo_status::full);  // the rest of the table is untouched
    for (std::uint32_t left = 7; left < 8; --left) {
        BOOST_TEST_REQUIRE(f.remove("dup"));
        BOOST_TEST(f.count("dup") == left);
    }
    BOOST_TEST(!f.remove("dup"));
    BOOST_TEST(!f.contains("dup"));
    BOOST_TEST(f.contains("other"));
}

BOOST_AUTO_TEST_CASE(add_returns_new_and_remove_returns_present) {
    cuckoo_filter f(100);
    BOOST_TEST(f.add(std::uint64_t{42}));
    BOOST_TEST(!f.add(std::uint64_t{42}));
    BOOST_TEST(f.count(std::uint64_t{42}) == 2u);
    BOOST_TEST(f.remove(std::uint64_t{42}));
    BOOST_TEST(f.contains(std::uint64_t{42}));
    BOOST_TEST(f.remove(std::uint64_t{42}));
    BOOST_TEST(!f.contains(std::uint64_t{42}));
    BOOST_TEST(!f.remove(std::uint64_t{42}));
    BOOST_TEST(f.stats().fingerprints == 0u);
}

// Removes of half the keys at high load (after kicks moved many fingerprints) leave the other half.
BOOST_AUTO_TEST_CASE(remove_after_kicks_keeps_the_rest) {
    auto f = cuckoo_filter::for_capacity(50000, 0.001);
    random_keys gen(3);
    std::vector<std::string> keys(50000);
    for (auto& k : keys) BOOST_TEST_REQUIRE(stored(f, k = gen.next()));
    BOOST_TEST(f.stats().kicks > 1000u);
    std::vector<std::uint8_t> removed(keys.size() / 2);
    const auto key_at = [&](std::size_t i) { return as_key(keys[2 * i]); };
    BOOST_TEST(f.remove_many(removed.size(), key_at, removed.data()) == removed.size());
    for (std::size_t i = 1; i < keys.size(); i += 2) BOOST_TEST_REQUIRE(f.contains(keys[i]));
    BOOST_TEST(f.stats().fingerprints == keys.size() / 2);
    std::uint64_t still = 0;
    for (std::size_t i = 0; i < keys.size(); i += 2) still += f.contains(keys[i]);
    BOOST_TEST(still < 50u);  // false positives only: about 25000 * 8 * 0.47 / 65535 = 1.4 expected
}

// As fpr_at_capacity_is_within_the_target (filter_test.cpp): X false positives among N absent
// probes must not exceed the (1 - 1e-6) quantile of Binomial(N, p).
BOOST_AUTO_TEST_CASE(fpr_at_capacity_is_within_the_target, *boost::unit_test::label("statistics")) {
    const std::uint64_t n = 1000000, probes = 2000000;
    const std::uint64_t seed = lfbloom_test::seed_from_env(7);
    for (double p : {0.01, 0.001, 0.0002, 0.0001}) {
        auto f = cuckoo_filter::for_capacity(n, p);
        random_keys present(seed), absent(seed + 1);
        for (std::uint64_t i = 0; i < n; ++i) BOOST_TEST_REQUIRE(stored(f, present.next()));
        std::uint64_t hits = 0;
        for (std::uint64_t i = 0; i < probes; ++i) hits += f.contains(absent.next());
        const double bound = lfbloom_test::fp_upper_bound(probes, p);
        const cuckoo_stats s = f.stats();
        BOOST_TEST_MESSAGE("p " << p << ": measured " << static_cast<double>(hits) / probes << " (" << hits << "), bound "
                                << bound << ", expected " << s.expected_fpr << ", " << s.bytes * 8.0 / n << " bits/key");
        BOOST_TEST(static_cast<double>(hits) <= bound);
        BOOST_TEST(s.expected_fpr <= p);
    }
}

BOOST_AUTO_TEST_CASE(batches_match_single_calls) {
    auto f = cuckoo_filter::for_capacity(5000, 0.001);
    random_keys gen(9);
    std::vector<std::string> keys(5000);
    for (auto& k : keys) k = gen.next();
    const auto key_at = [&](std::size_t i) { return as_key(keys[i]); };
    std::vector<std::uint8_t> added(keys.size()), found(keys.size());
    const std::uint64_t fresh = f.add_many(keys.size(), key_at, added.data());
    BOOST_TEST(fresh + 3 >= keys.size());  // all but keys indistinguishable from earlier ones
    BOOST_TEST(f.contains_many(keys.size(), key_at, found.data()) == keys.size());
    BOOST_TEST(f.stats().fingerprints == keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) BOOST_TEST_REQUIRE(found[i] == 1);
}

BOOST_AUTO_TEST_CASE(copy_buckets_is_the_table) {
    cuckoo_filter f(64);
    for (std::uint64_t i = 0; i < 200; ++i) f.add(i);
    std::vector<std::uint64_t> copy(64);
    f.copy_buckets(copy);
    for (std::size_t i = 0; i < copy.size(); ++i) BOOST_TEST_REQUIRE(copy[i] == f.words()[i]);
    std::vector<std::uint64_t> wrong(63);
    BOOST_TEST(code_of([&] { f.copy_buckets(wrong); }) == errc::invalid_argument);
    f.clear();
    BOOST_TEST(f.stats().fingerprints == 0u);
}

// Churn at 90% load: writers add and remove their own keys (kicks move resident fingerprints all
// the time) while readers check the resident keys, which must never be missed. Under TSan in CI.
BOOST_AUTO_TEST_CASE(readers_never_miss_resident_keys_during_churn) {
    const std::uint64_t buckets = 4096, resident = 4 * buckets * 85 / 100, churn = 4 * buckets * 5 / 100;
    cuckoo_filter f(buckets);
    for (std::uint64_t k = 0; k < resident; ++k) BOOST_TEST_REQUIRE(stored(f, k));
    std::atomic<bool> stop{false};
    std::atomic<std::uint64_t> misses{0}, reads{0}, writer_failures{0}, refused_removes{0};
    std::vector<std::thread> pool;
    for (unsigned w = 0; w < 2; ++w)
        pool.emplace_back([&, w] {
            const std::uint64_t base = std::uint64_t{w + 1} << 40;
            std::vector<bool> in(churn / 2);
            for (unsigned round = 0; round < 30; ++round) {
                for (std::uint64_t i = 0; i < churn / 2; ++i)
                    if (!(in[i] = stored(f, base + i))) writer_failures.fetch_add(1, std::memory_order_relaxed);
                for (std::uint64_t i = 0; i < churn / 2; ++i)  // only what went in: see the top of cuckoo_filter.hpp
                    if (in[i] && !f.remove(base + i)) refused_removes.fetch_add(1);  // Boost.Test asserts on the main thread only
            }
        });
    for (unsigned r = 0; r < 2; ++r)
        pool.emplace_back([&, r] {
            std::uint64_t local = 0, missed = 0;
            while (!stop.load(std::memory_order_relaxed))  // relaxed: only a signal to stop
                for (std::uint64_t k = r; k < resident; k += 7, ++local) missed += !f.contains(k);
            misses.fetch_add(missed);
            reads.fetch_add(local);
        });
    for (unsigned w = 0; w < 2; ++w) pool[w].join();
    stop = true;
    for (unsigned r = 2; r < 4; ++r) pool[r].join();
    const cuckoo_stats s = f.stats();
    BOOST_TEST_MESSAGE(reads.load() << " reads, " << s.kicks << " kicks, " << s.reader_retries << " retries, "
                                    << s.reader_gave_up << " gave up, " << writer_failures.load() << " full");
    BOOST_TEST(misses.load() == 0u);
    BOOST_TEST(refused_removes.load() == 0u);
    BOOST_TEST(s.kicks > 0u);
    for (std::uint64_t k = 0; k < resident; ++k) BOOST_TEST_REQUIRE(f.contains(k));
    BOOST_TEST(s.fingerprints == resident);  // every writer removed what it added
}

BOOST_AUTO_TEST_SUITE_END()
