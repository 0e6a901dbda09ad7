// Bulk builds (bulk.hpp, key_operations::add_bulk): the same filter as the adds one by one, for
// every Bloom kind, thread count, round size and sparse or dense batch; nothing lost beside racing
// adds and queries; bad options refused.
#include <atomic>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <boost/mpl/list.hpp>
#include <boost/test/unit_test.hpp>

#include "lfbloom/dynamic_filter.hpp"
#include "lfbloom/lfbloom.hpp"
#include "test_support.hpp"

using namespace lfbloom;

namespace {

template <class Filter>
struct bits {
    static Filter make(std::uint64_t n) { return Filter::for_capacity(n, 0.01); }
};
template <std::uint32_t width>
struct counts {
    static counting_bloom_filter make(std::uint64_t n) { return counting_bloom_filter::for_capacity(n, 0.01, width); }
};
using makers = boost::mpl::list<bits<classic_bloom_filter>, bits<blocked_bloom_filter>, bits<split_block_bloom_filter>,
                                bits<one_word_bloom_filter>, bits<two_word_bloom_filter>, counts<4>, counts<8>>;

std::vector<std::string> random_keys(std::size_t n, std::uint64_t seed) {
    lfbloom_test::random_keys next(seed);
    std::vector<std::string> keys(n);
    for (auto& k : keys) k = next.next();
    return keys;
}

/// n keys of which every 7th repeats an earlier one (so counters count past 1, and saturate).
std::vector<std::string> keys_with_repeats(std::size_t n, std::uint64_t seed) {
    std::vector<std::string> keys = random_keys(n, seed);
    for (std::size_t i = 7; i < n; i += 7) keys[i] = keys[i / 3];
    return keys;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(bulk)

// A filter of 3 to 24 MB (12 to 96 partitions) given 0 keys, a few (the sparse path: add_many, a
// slice a thread), and enough for the partitioned path, at 1, 2, 3 threads and one per CPU, in one
// round and in rounds of about 10,000 keys, and a filter of 24 to 192 KB (the direct path: a copy
// a thread, no filing) given as many, equals the filter of the same adds one by one.
BOOST_AUTO_TEST_CASE_TEMPLATE(equals_the_adds_one_by_one, Maker, makers) {
    for (auto [capacity, n] : {std::pair<std::uint64_t, std::size_t>{2'500'000, 0}, {2'500'000, 200}, {2'500'000, 150'000},
                               {20'000, 0}, {20'000, 200}, {20'000, 150'000}}) {
        const std::vector<std::string> keys = keys_with_repeats(n, 38);
        auto one = Maker::make(capacity);
        for (const auto& k : keys) one.add(k);
        for (unsigned threads : {1u, 2u, 3u, 0u})
            for (std::uint64_t buffer : {std::uint64_t{0}, std::uint64_t{200'000}}) {
                auto bulk = Maker::make(capacity);
                bulk.add_bulk(keys.size(), [&](std::size_t i) { return as_key(keys[i]); }, {.threads = threads, .buffer_bytes = buffer});
                BOOST_TEST_INFO("capacity " << capacity << ", n " << n << ", threads " << threads << ", buffer " << buffer);
                BOOST_TEST((bulk == one));
            }
    }
}

// A full 4-bit counting filter: one key built 20 times in bulk saturates at 15, as 20 adds do.
BOOST_AUTO_TEST_CASE(counters_saturate_as_the_adds_do) {
    auto bulk = counting_bloom_filter::with_geometry(128, 3), one = counting_bloom_filter::with_geometry(128, 3);
    const std::vector<std::string> keys(20, "hot");
    for (const auto& k : keys) one.add(k);
    bulk.add_bulk(keys.size(), [&](std::size_t i) { return as_key(keys[i]); }, {.threads = 2});
    BOOST_TEST(bulk.count("hot") == 15u);
    BOOST_TEST((bulk == one));
}

// Beside a bulk build: one thread adds other keys one by one until it returns, one queries keys
// added before the build (never false), on a small filter whose words they all share and on one
// of 3 MB. Afterwards every key of
// all three is present and the words equal those of all the adds one by one: the merge lost no
// racing add's bits. (Relacy's bulk_merge.bits checks every interleaving of one word's merge.)
BOOST_AUTO_TEST_CASE(nothing_lost_beside_racing_adds_and_queries) {
    const std::vector<std::string> built = random_keys(200'000, 1), racing = random_keys(50'000, 2), earlier = random_keys(5'000, 3);
    // overfull, the direct build (words shared by every thread); 3 MB, the partitioned build
    for (std::uint64_t capacity : {20'000u, 2'500'000u}) {
        BOOST_TEST_CONTEXT("capacity " << capacity) {
            auto f = blocked_bloom_filter::for_capacity(capacity, 0.01);
            for (const auto& k : earlier) f.add(k);
            std::atomic<bool> done{false};
            std::atomic<std::uint64_t> misses{0};
            std::thread adder([&] {  // until the build has returned, so its adds race with the merges too
                do {
                    for (const auto& k : racing) f.add(k);
                } while (!done.load());
            });
            std::thread reader([&] {
                while (!done.load())
                    for (std::size_t i = 0; i < earlier.size(); i += 7) misses += !f.contains(earlier[i]);
            });
            f.add_bulk(built.size(), [&](std::size_t i) { return as_key(built[i]); }, {.threads = 2});
            done = true;
            adder.join();
            reader.join();
            BOOST_TEST(misses.load() == 0u);
            auto expected = blocked_bloom_filter::for_capacity(capacity, 0.01);
            for (const auto* set : {&built, &racing, &earlier})
                for (const auto& k : *set) expected.add(k);
            BOOST_TEST((f == expected));
        }
    }
}

// A span of key_views, and keys of other types through key_at (uint64 ids: the bytes the other
// bindings use), give the same filter as add.
BOOST_AUTO_TEST_CASE(key_forms) {
    std::vector<std::uint64_t> ids(50'000);
    for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = i * 0x9e3779b97f4a7c15ULL;
    auto one = split_block_bloom_filter::for_capacity(50'000, 0.01), bulk = one.copy();
    for (auto id : ids) one.add(id);
    bulk.add_bulk(ids.size(), [&](std::size_t i) { return ids[i]; }, {.threads = 2});
    BOOST_TEST((bulk == one));
    const std::vector<std::string> names = random_keys(20'000, 9);
    std::vector<key_view> views;
    for (const auto& n : names) views.push_back(as_key(n));
    auto a = blocked_bloom_filter::for_capacity(20'000, 0.01), b = a.copy();
    a.add_many(std::span<const key_view>(views));
    b.add_bulk(std::span<const key_view>(views), {.threads = 3});
    BOOST_TEST((a == b));
}

// A thread count past bulk_max_threads is refused before anything is allocated or added; 0 is
// one per CPU. A key_at that throws stops the build with no key added (one merge at the end).
BOOST_AUTO_TEST_CASE(bad_options_and_failing_keys_add_nothing) {
    const std::vector<std::string> keys = random_keys(150'000, 5);
    auto at = [&](std::size_t i) { return as_key(keys[i]); };
    // 120 KB, the direct build (two threads: the second's key throws, the first's copy is not
    // merged); 3 MB, the partitioned build
    for (std::uint64_t capacity : {100'000u, 2'500'000u}) {
        BOOST_TEST_CONTEXT("capacity " << capacity) {
            auto f = blocked_bloom_filter::for_capacity(capacity, 0.01), empty = f.copy();
            BOOST_TEST(lfbloom_test::code_of([&] { f.add_bulk(keys.size(), at, {.threads = bulk_max_threads + 1}); }) == errc::invalid_argument);
            BOOST_TEST(lfbloom_test::code_of([&] { f.add_bulk(10, at, {.threads = 4'000'000'000u}); }) == errc::invalid_argument);
            BOOST_TEST((f == empty));
            BOOST_CHECK_THROW(f.add_bulk(keys.size(), [&](std::size_t i) {
                if (i == 77'777) throw std::runtime_error("key source failed");
                return as_key(keys[i]);
            }, {.threads = 2}), std::runtime_error);
            BOOST_TEST((f == empty));
        }
    }
}

// Through the one interface: run_bulk adds for a Bloom kind as the batch add does; for a cuckoo
// filter (no bulk build) too, one by one; an operation other than an add is refused unchanged.
BOOST_AUTO_TEST_CASE(through_dynamic_filter) {
    const std::vector<std::string> keys = random_keys(30'000, 4);
    std::vector<key_ref> refs;
    for (const auto& k : keys) refs.push_back({k.data(), k.size()});
    for (filter_kind kind : {filter_kind::blocked, filter_kind::counting, filter_kind::cuckoo}) {
        filter_spec spec;
        spec.kind = kind;
        spec.capacity = 40'000;
        spec.fpr = 0.01;
        auto one = make_filter(spec), bulk = make_filter(spec);
        batch_progress p;
        one->run(batch_op::add, keys.size(), key_refs{refs.data()}, nullptr, p);
        bulk->run_bulk(batch_op::add, keys.size(), key_refs{refs.data()}, {.threads = 2}, p);
        BOOST_TEST(p.done == keys.size());
        BOOST_TEST(p.positive == 0u);
        BOOST_TEST(one->equals(*bulk));
        BOOST_TEST(lfbloom_test::code_of([&] { bulk->run_bulk(batch_op::contains, keys.size(), key_refs{refs.data()}, {}, p); }) ==
                   errc::invalid_argument);
    }
}

BOOST_AUTO_TEST_SUITE_END()
