// Properties every layout must have: classic, blocked, counting (4- and 8-bit counters), split-block,
// one-word and two-word.
#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <boost/math/special_functions/gamma.hpp>
#include <boost/mpl/list.hpp>
#include <boost/test/unit_test.hpp>

#include "lfbloom/lfbloom.hpp"
#include "test_support.hpp"

using namespace lfbloom;
using lfbloom_test::code_of;
using lfbloom_test::random_keys;

namespace {

/// Makes bit filters of type Filter; each layout derives its own maker, so test names say which.
template <class Filter>
struct bit_maker {
    using type = Filter;
    static type make(std::uint64_t n, double p, filter_options o = {}) { return type::for_capacity(n, p, o); }
    static type make_geometry(std::uint64_t slots, std::uint32_t k, filter_options o = {}) { return type::with_geometry(slots, k, o); }
};
struct classic_maker : bit_maker<classic_bloom_filter> {};
struct blocked_maker : bit_maker<blocked_bloom_filter> {};
struct split_block_maker : bit_maker<split_block_bloom_filter> {};
struct one_word_maker : bit_maker<one_word_bloom_filter> {};
struct two_word_maker : bit_maker<two_word_bloom_filter> {};
template <std::uint32_t width>
struct counting_maker {
    using type = counting_bloom_filter;
    static type make(std::uint64_t n, double p, filter_options o = {}) { return type::for_capacity(n, p, width, o); }
    static type make_geometry(std::uint64_t slots, std::uint32_t k, filter_options o = {}) {
        return type::with_geometry(slots, k, width, o);
    }
};
using makers = boost::mpl::list<classic_maker, blocked_maker, counting_maker<4>, counting_maker<8>, split_block_maker,
                                one_word_maker, two_word_maker>;
using line_makers = boost::mpl::list<blocked_maker, counting_maker<4>, counting_maker<8>>;  // probes in one line, rule 1 or 2
using rule_two_makers = boost::mpl::list<blocked_maker, counting_maker<4>, counting_maker<8>, one_word_maker, two_word_maker>;

/// Hashes on which probe rule 1 piles a key's probes onto one slot: (0, 0), MurmurHash3 of the
/// empty key under seed 0; h2 = 0, the fixed point of the refill (refill(0) = 0), in another line;
/// h2 with seven equal 9-bit fields, and with nine equal 7-bit fields (counting), whose refills are
/// not equal; all ones, both at once.
std::vector<hash128> adversarial_hashes() {
    std::uint64_t nine = 0, seven = 0;
    for (int i = 0; i < 7; ++i) nine |= std::uint64_t{0x15a} << (9 * i);
    for (int i = 0; i < 9; ++i) seven |= std::uint64_t{0x2b} << (7 * i);
    return {{0, 0}, {0x9e3779b97f4a7c15ULL, 0}, {0x0123456789abcdefULL, nine}, {0xfedcba9876543210ULL, seven}, {~0ULL, ~0ULL}};
}


}  // namespace

BOOST_AUTO_TEST_SUITE(filter)

BOOST_AUTO_TEST_CASE_TEMPLATE(no_false_negatives_for_a_million_random_and_sequential_keys, Maker, makers) {
    auto f = Maker::make(2000000, 0.01);
    random_keys keys(lfbloom_test::seed_from_env(1));
    std::vector<std::string> added;
    added.reserve(1000000);
    for (int i = 0; i < 1000000; ++i) f.add(added.emplace_back(keys.next()));
    for (int i = 0; i < 1000000; ++i) f.add("user:" + std::to_string(i));
    std::uint64_t missing = 0;
    for (const auto& k : added) missing += !f.contains(k);
    for (int i = 0; i < 1000000; ++i) missing += !f.contains("user:" + std::to_string(i));
    BOOST_TEST(missing == 0u);
}

// At capacity, the measured FPR must not exceed the target p. With X false positives among N
// absent probes, the test fails when X exceeds the (1 - 1e-6) quantile of Binomial(N, p): if the
// true rate is <= p, that happens with probability < 1e-6 per case (seeds are fixed besides).
BOOST_TEST_DECORATOR(*boost::unit_test::label("statistics"))
BOOST_AUTO_TEST_CASE_TEMPLATE(fpr_at_capacity_is_within_the_target, Maker, makers) {
    const std::uint64_t n = 1000000;
    const std::uint64_t probes = 1000000;
    const double alpha = 1e-6;
    const std::uint64_t seed = lfbloom_test::seed_from_env(7);
    for (double p : {0.1, 0.01, 0.001, 0.0001}) {
        auto f = Maker::make(n, p);
        random_keys present(seed), absent(seed + 1);
        for (std::uint64_t i = 0; i < n; ++i) f.add(present.next());
        std::uint64_t false_positives = 0;
        for (std::uint64_t i = 0; i < probes; ++i) false_positives += f.contains(absent.next());
        const double bound = lfbloom_test::fp_upper_bound(probes, p, alpha);
        const double measured = static_cast<double>(false_positives) / probes;
        BOOST_TEST_MESSAGE("p " << p << ": measured " << measured << " (" << false_positives << " of " << probes
                                << "), bound " << bound << ", " << f.stats().bytes << " bytes, k " << f.shape().hashes);
        BOOST_TEST(static_cast<double>(false_positives) <= bound, "p " << p << ": " << false_positives << " > " << bound);
        const filter_stats s = f.stats();
        BOOST_TEST(s.estimated_fpr == p, boost::test_tools::tolerance(0.25));
    }
}

// Defect 9: classic filters sized by the textbook rate missed it at small n and p (measured FPR / p:
// 13.7 at n = 100, p = 10^-5; 3.1 at (100, 10^-4); 2.2 at (1000, 10^-5)): double hashing over few
// bits is not the independent-probe model. The claim checked here is that the expected FPR at
// capacity, over the randomness of the contents, is <= p. One small filter's rate varies, so each
// case averages F filters of different contents (fixed seeds), each filled to capacity with
// distinct keys and queried with distinct absent keys, X false positives among N queries in all.
// The test fails when the (1 - 1e-6) lower confidence bound of the rate exceeds p: a quasi-Poisson
// bound, the exact Poisson bound on X with X and N divided by the over-dispersion phi >= 1 seen
// across filters (variance over mean of the per-filter counts), which covers filters whose rates
// differ. A correct sizing fails a case with probability about 1e-6.
BOOST_TEST_DECORATOR(*boost::unit_test::label("statistics"))
BOOST_AUTO_TEST_CASE_TEMPLATE(fpr_at_small_capacity_and_rate_is_within_the_target, Maker, makers) {
    const std::uint64_t filters = 50;
    const double alpha = 1e-6;
    const std::uint64_t seed = lfbloom_test::seed_from_env(9);
    for (std::uint64_t n : {100ull, 1000ull, 10000ull}) {
        for (double p : {1e-2, 1e-3, 1e-4, 1e-5}) {
            // About 100 expected false positives at p = 10^-5 and 300 or more above it.
            const auto queries = static_cast<std::uint64_t>(std::clamp(300 / p, 1e6, 1e7)) / filters;
            std::vector<double> counts;
            std::uint32_t k = 0;
            std::uint64_t bits = 0;
            for (std::uint64_t i = 0; i < filters; ++i) {
                auto f = Maker::make(n, p);
                k = f.shape().hashes, bits = f.shape().slots;
                // Keys of filter i: (seed, i, j) for present, (seed, i, 2^32 + j) for absent, all distinct.
                const std::uint64_t base = (seed * filters + i) << 40;
                for (std::uint64_t j = 0; j < n; ++j) f.add(base + j);
                std::uint64_t hits = 0;
                for (std::uint64_t j = 0; j < queries; ++j) hits += f.contains(base + (std::uint64_t{1} << 32) + j);
                counts.push_back(static_cast<double>(hits));
            }
            double total = 0, squares = 0;
            for (double c : counts) total += c, squares += c * c;
            const double mean = total / filters;
            const double variance = (squares - total * mean) / (filters - 1);
            const double phi = mean > 0 ? std::max(1.0, variance / mean) : 1.0;
            const double n_queries = static_cast<double>(queries * filters);
            const double lower = total > 0 ? boost::math::gamma_p_inv(total / phi, alpha) / (n_queries / phi) : 0.0;
            BOOST_TEST_MESSAGE("n " << n << " p " << p << ": m " << bits << " k " << k << ", measured/p " << total / n_queries / p
                                    << " (" << total << " of " << n_queries << ", dispersion " << phi << "), lower bound/p " << lower / p);
            BOOST_TEST(lower <= p, "n " << n << " p " << p << ": measured " << total / n_queries << ", lower bound " << lower << " > p");
        }
    }
}

// Defect 8: under probe rule 1 the empty key (hash (0, 0) with seed 0) probed one bit k times and
// was "maybe present" in 34-43% of full counting and 38% of full blocked filters at p = 1%. Now no
// hash may be likelier a false positive than a random absent key: over F = 2000 full filters of
// different random contents (fixed seeds), each adversarial hash, and the empty key itself, must
// be present in at most the (1 - 1e-6) quantile of Binomial(F, p) of them. A correct rule's rate
// for any one hash is at most p (sizing keeps the expected FPR at capacity <= p, and distinct
// probes only lower it), so each of the 90 checks raises a false alarm with probability < 1e-6.
// The cases cover k <= 7 (one field value), k > 7 (refills) and k = 20 (past the unrolled path).
BOOST_TEST_DECORATOR(*boost::unit_test::label("statistics"))
BOOST_AUTO_TEST_CASE_TEMPLATE(no_hash_is_a_likelier_false_positive, Maker, rule_two_makers) {
    const std::uint64_t filters = 2000;
    const std::vector<hash128> hashes = adversarial_hashes();
    const std::uint64_t seed = lfbloom_test::seed_from_env(1000);
    // (capacity, rate) sized, or k = 20 probes over 28672 slots filled to the capacity it implies
    // (p is then the model's rate there).
    for (int c = 0; c < 3; ++c) {
        auto make = [&] { return c == 0 ? Maker::make(1000, 0.01) : c == 1 ? Maker::make(1000, 0.001) : Maker::make_geometry(28672, 20); };
        const std::uint64_t n = make().shape().capacity;
        std::vector<std::uint64_t> hits(hashes.size() + 1, 0);  // the last: the empty key
        std::uint32_t k = 0;
        std::uint64_t random_hits = 0, random_queries = 0;
        for (std::uint64_t i = 0; i < filters; ++i) {
            auto f = make();
            k = f.shape().hashes;
            std::mt19937_64 contents(seed * 7919 + i);
            for (std::uint64_t j = 0; j < n; ++j) f.add(std::uint64_t{contents()});
            for (std::size_t h = 0; h < hashes.size(); ++h) hits[h] += f.contains_hash(hashes[h]);
            hits.back() += f.contains(std::string_view{});
            for (int j = 0; j < 500; ++j, ++random_queries) random_hits += f.contains_hash({contents(), contents()});
        }
        // The rate of random absent keys in the same filters (10^6 queries): the target p for a
        // sized filter, or the model's rate, unless measured higher (k = 20 of 64 counters: every
        // key sets 20 distinct ones, more than the model's 20 draws with repeats).
        const double p = std::max(make().shape().target_fpr, static_cast<double>(random_hits) / static_cast<double>(random_queries));
        const double bound = lfbloom_test::fp_upper_bound(filters, p);
        for (std::size_t h = 0; h < hits.size(); ++h) {
            BOOST_TEST_MESSAGE("p " << p << ", k " << k << ", hash " << h << ": present in " << hits[h] << " of " << filters
                                    << " full filters, bound " << bound);
            BOOST_TEST(static_cast<double>(hits[h]) <= bound, "p " << p << ", k " << k << ", hash " << h << ": "
                                                                     << hits[h] << " of " << filters << " > " << bound);
        }
    }
}

namespace {

/// The slots line_probes visits for h.
template <unsigned slot_bits_log2>
std::vector<unsigned> slots_of(const line_probes& probes, hash128 h) {
    std::vector<unsigned> out;
    probes.for_each_slot<slot_bits_log2>(h, [&](unsigned slot) {
        out.push_back(slot);
        return true;
    });
    return out;
}

template <unsigned slot_bits_log2>
void check_rule_two(unsigned coarse) {
    const unsigned free = (1u << slot_bits_log2) >> coarse;
    std::vector<hash128> hashes = adversarial_hashes();
    std::mt19937_64 rng(5);
    for (int i = 0; i < 2000; ++i) hashes.push_back({rng(), rng()});
    for (std::uint32_t k : {1u, 2u, 6u, 7u, 8u, 9u, 15u, 16u, 17u, 30u, 63u, 64u, 65u, 130u, 255u}) {
        const line_probes one(1, k, probe_rule::fields, coarse), two(1, k, probe_rule::distinct, coarse);
        for (const hash128& h : hashes) {
            const std::vector<unsigned> a = slots_of<slot_bits_log2>(one, h), b = slots_of<slot_bits_log2>(two, h);
            BOOST_TEST_REQUIRE(b.size() == k);
            std::vector<bool> seen(free), seen_by_one(free);
            bool one_distinct = true;
            for (std::uint32_t i = 0; i < k; ++i) {
                BOOST_TEST_REQUIRE(b[i] < (1u << slot_bits_log2));
                if (i < free) {
                    BOOST_TEST_REQUIRE(!seen[b[i] >> coarse], "k " << k << ", probe " << i << " repeats a slot");
                    seen[b[i] >> coarse] = true;
                    one_distinct = one_distinct && !seen_by_one[a[i] >> coarse];
                    seen_by_one[a[i] >> coarse] = true;
                }
            }
            // Keys whose rule-1 probes were already distinct probe the same slots under rule 2.
            if (one_distinct && k <= free) BOOST_TEST_REQUIRE((a == b));
        }
    }
}

}  // namespace

// Probe rule 2 probes min(k, slots per line) distinct slots for every hash, however degenerate
// (the statistical test above checks what that buys), for 512-slot lines, 128-counter lines and
// 8-bit counters (distinct in the top 6 of 7 bits), 128-bit and 64-bit blocks, unrolled (k <= 16)
// and looped, including k beyond the line's slots; and it changes nothing for keys rule 1 already
// spread.
BOOST_AUTO_TEST_CASE(rule_two_probes_distinct_slots_for_every_hash) {
    check_rule_two<9>(0);
    check_rule_two<7>(0);
    check_rule_two<7>(1);
    check_rule_two<6>(0);
}

namespace {

/// Adds each hash to an empty filter of `Words`-word blocks and checks what it wrote.
template <unsigned Words>
void check_bits_in_one_block() {
    std::vector<hash128> hashes = adversarial_hashes();
    std::mt19937_64 rng(17);
    for (int i = 0; i < 2000; ++i) hashes.push_back({rng(), rng()});
    for (std::uint32_t k : {1u, 5u, 9u, 16u, 17u, 40u}) {
        auto f = bloom_filter<word_block_layout<Words>>::with_geometry(64 * Words * 100, k);
        for (const hash128& h : hashes) {
            f.clear();
            BOOST_TEST_REQUIRE(f.add_hash(h));
            std::uint64_t first = f.words().size(), last = 0;
            int bits = 0;
            for (std::uint64_t w = 0; w < f.words().size(); ++w) {
                if (f.words()[w] == 0) continue;
                first = std::min(first, w), last = w;
                bits += std::popcount(f.words()[w]);
            }
            BOOST_TEST_REQUIRE(first / Words == last / Words, "k " << k << ": bits in two blocks");
            BOOST_TEST_REQUIRE(bits == static_cast<int>(k));
            BOOST_TEST_REQUIRE(f.contains_hash(h));
            BOOST_TEST_REQUIRE(!f.add_hash(h));
        }
    }
}

}  // namespace

// The one- and two-word layouts' promise: a key's bits are k distinct bits of one block (one
// word, or an aligned pair of words), so an add ORs at most one or two words; for adversarial and
// random hashes, unrolled (k <= 16) and looped.
BOOST_AUTO_TEST_CASE(word_layouts_set_k_bits_of_one_block) {
    check_bits_in_one_block<1>();
    check_bits_in_one_block<2>();
}

// A filter keeps the rule it was built with: rule-1 filters (loaded from old files) answer by
// rule 1 and do not merge with rule-2 ones; bad rule ids are refused.
BOOST_AUTO_TEST_CASE_TEMPLATE(a_filter_keeps_its_probe_rule, Maker, line_makers) {
    auto fresh = Maker::make(10000, 0.01);
    auto old = Maker::make(10000, 0.01, filter_options{.probes = probe_rule::fields});
    BOOST_TEST((fresh.probes() == probe_rule::distinct));
    BOOST_TEST((old.probes() == probe_rule::fields));
    for (int i = 0; i < 1000; ++i) fresh.add(std::uint64_t(i)), old.add(std::uint64_t(i));
    for (int i = 0; i < 1000; ++i) BOOST_TEST_REQUIRE((fresh.contains(std::uint64_t(i)) && old.contains(std::uint64_t(i))));
    BOOST_TEST(!std::equal(fresh.words().begin(), fresh.words().end(), old.words().begin(), old.words().end()));
    BOOST_TEST((code_of([&] { fresh.merge(old); }) == errc::incompatible));
    BOOST_TEST((code_of([] { Maker::make(100, 0.01, filter_options{.probes = probe_rule{3}}); }) == errc::invalid_argument));
    BOOST_TEST((code_of([] { Maker::make(100, 0.01, filter_options{.probes = probe_rule{0}}); }) == errc::invalid_argument));
}

BOOST_AUTO_TEST_CASE(classic_filters_keep_guavas_rule) {
    auto f = classic_bloom_filter::for_capacity(1000, 0.01);
    auto g = classic_bloom_filter::for_capacity(1000, 0.01, {.probes = probe_rule::fields});
    BOOST_TEST((f.probes() == probe_rule::fields));
    f.add("x"), g.add("x");
    BOOST_TEST(std::equal(f.words().begin(), f.words().end(), g.words().begin(), g.words().end()));
}

BOOST_AUTO_TEST_CASE_TEMPLATE(add_reports_whether_the_key_was_new, Maker, makers) {
    auto f = Maker::make(1000, 0.01);
    BOOST_TEST(!f.contains("apple"));
    BOOST_TEST(f.add("apple"));
    BOOST_TEST(!f.add("apple"));
    BOOST_TEST(f.contains("apple"));
    BOOST_TEST(f.add(std::uint64_t{7}));
    BOOST_TEST(f.contains(std::uint64_t{7}));
    BOOST_TEST(!f.contains(std::uint64_t{8}));
}

BOOST_AUTO_TEST_CASE_TEMPLATE(batch_calls_agree_with_single_calls, Maker, makers) {
    auto batch = Maker::make(10000, 0.01);
    auto single = Maker::make(10000, 0.01);
    random_keys gen(3);
    std::vector<std::string> keys(1000);
    for (auto& k : keys) k = gen.next();
    std::vector<key_view> views;
    for (std::size_t i = 0; i < 500; ++i) views.push_back(as_key(keys[i]));
    views.push_back(views.front());  // a duplicate within the batch: new only once

    std::vector<std::uint8_t> added(views.size());
    BOOST_TEST(batch.add_many(views, added.data()) == 500u);
    BOOST_TEST(added.back() == 0);
    for (std::size_t i = 0; i < 500; ++i) single.add(keys[i]);

    std::vector<key_view> queries;
    for (const auto& k : keys) queries.push_back(as_key(k));
    std::vector<std::uint8_t> found(queries.size());
    const std::uint64_t hits = batch.contains_many(queries, found.data());
    std::uint64_t expected_hits = 0;
    for (std::size_t i = 0; i < keys.size(); ++i) {
        BOOST_TEST(found[i] == single.contains(keys[i]));
        expected_hits += found[i];
    }
    BOOST_TEST(hits == expected_hits);
    BOOST_TEST(hits >= 500u);
    BOOST_TEST(batch.contains_many(queries) == hits);  // the output array is optional
    BOOST_TEST(batch.add_many(std::span<const key_view>{}) == 0u);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(clear_empties_the_filter, Maker, makers) {
    auto f = Maker::make(1000, 0.01);
    for (int i = 0; i < 100; ++i) f.add(std::uint64_t(i));
    BOOST_TEST(f.stats().slots_set > 0u);
    f.clear();
    BOOST_TEST(f.stats().slots_set == 0u);
    BOOST_TEST(!f.contains(std::uint64_t{1}));
}

BOOST_AUTO_TEST_CASE_TEMPLATE(merge_is_the_union, Maker, makers) {
    auto a = Maker::make(10000, 0.01);
    auto b = Maker::make(10000, 0.01);
    for (int i = 0; i < 1000; ++i) a.add("a" + std::to_string(i)), b.add("b" + std::to_string(i));
    a.merge(b);
    for (int i = 0; i < 1000; ++i) {
        BOOST_TEST_REQUIRE(a.contains("a" + std::to_string(i)));
        BOOST_TEST_REQUIRE(a.contains("b" + std::to_string(i)));
    }
}

// a holds a0.. and c0.., b holds b0.. and c0..: their intersection answers for every c key and
// almost no a key; intersecting in either order gives equal filters.
BOOST_AUTO_TEST_CASE_TEMPLATE(intersect_keeps_the_common_keys, Maker, makers) {
    auto a = Maker::make(10000, 0.01);
    auto b = Maker::make(10000, 0.01);
    for (int i = 0; i < 1000; ++i) {
        const std::string n = std::to_string(i);
        a.add("a" + n), a.add("c" + n), b.add("b" + n), b.add("c" + n);
    }
    auto b_and_a = b.copy();
    b_and_a.intersect(a);
    a.intersect(b);
    int stray = 0;
    for (int i = 0; i < 1000; ++i) {
        BOOST_TEST_REQUIRE(a.contains("c" + std::to_string(i)));
        stray += a.contains("a" + std::to_string(i));
    }
    BOOST_TEST(stray <= 20);  // an a key survives where b has all its bits: about 0.1% each at this fill
    BOOST_TEST((a == b_and_a));
    BOOST_TEST(!(a == b));
}

// A copy answers as its source, compares equal, and then lives on its own.
BOOST_AUTO_TEST_CASE_TEMPLATE(a_copy_is_equal_and_independent, Maker, makers) {
    auto a = Maker::make(10000, 0.01, filter_options{.seed = 5});
    for (int i = 0; i < 1000; ++i) a.add(std::uint64_t(i));
    const auto c0 = a.copy();
    auto c = a.copy();
    BOOST_TEST((c == a));
    BOOST_TEST((c.shape().slots == a.shape().slots && c.shape().hashes == a.shape().hashes && c.seed() == 5u));
    BOOST_TEST((c.probes() == a.probes()));
    for (int i = 0; i < 1000; ++i) BOOST_TEST_REQUIRE(c.contains(std::uint64_t(i)));
    BOOST_TEST(c.add("only in the copy"));
    BOOST_TEST(!(c == a));
    BOOST_TEST((a == c0));  // the source did not change
    // equal contents but another seed, or another size: not equal (keys map elsewhere)
    BOOST_TEST(!(Maker::make(10000, 0.01) == Maker::make(10000, 0.01, filter_options{.seed = 5})));
    BOOST_TEST(!(Maker::make(10000, 0.01) == Maker::make(20000, 0.01)));
    BOOST_TEST((Maker::make(10000, 0.01) == Maker::make(10000, 0.01)));
}

BOOST_AUTO_TEST_CASE_TEMPLATE(incompatible_merge_is_refused_and_changes_nothing, Maker, makers) {
    auto a = Maker::make(10000, 0.01);
    a.add("kept");
    const std::vector<std::uint64_t> before(a.words().begin(), a.words().end());
    auto other_size = Maker::make(20000, 0.01);
    auto other_seed = Maker::make(10000, 0.01, filter_options{.seed = 9});
    other_size.add("x"), other_seed.add("x");
    BOOST_TEST((code_of([&] { a.merge(other_size); }) == errc::incompatible));
    BOOST_TEST((code_of([&] { a.merge(other_seed); }) == errc::incompatible));
    BOOST_TEST((code_of([&] { a.intersect(other_size); }) == errc::incompatible));
    BOOST_TEST((code_of([&] { a.intersect(other_seed); }) == errc::incompatible));
    BOOST_TEST(std::equal(before.begin(), before.end(), a.words().begin(), a.words().end()));
}

BOOST_AUTO_TEST_CASE_TEMPLATE(stats_estimate_the_count_and_flag_near_capacity, Maker, makers) {
    auto f = Maker::make(100000, 0.01);
    random_keys gen(11);
    for (int i = 0; i < 50000; ++i) f.add(gen.next());
    filter_stats s = f.stats();
    BOOST_TEST(s.capacity == 100000u);
    BOOST_TEST(s.target_fpr == 0.01);
    BOOST_TEST(s.hashes == f.shape().hashes);
    BOOST_TEST(s.slots == f.shape().slots);
    BOOST_TEST(s.bytes == s.slots * s.slot_bits / 8);
    BOOST_TEST(s.fill_ratio == static_cast<double>(s.slots_set) / s.slots);
    BOOST_TEST(s.estimated_count == 50000.0, boost::test_tools::tolerance(0.05));
    BOOST_TEST(s.estimated_fpr < 0.01);
    BOOST_TEST(!s.near_capacity);
    for (int i = 0; i < 40000; ++i) f.add(gen.next());
    s = f.stats();
    BOOST_TEST(s.estimated_count == 90000.0, boost::test_tools::tolerance(0.05));
    BOOST_TEST(s.near_capacity);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(bad_input_is_refused_with_a_clear_error, Maker, makers) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    BOOST_TEST((code_of([] { Maker::make(0, 0.01); }) == errc::invalid_argument));
    for (double p : {0.0, 1.0, -1.0, nan})
        BOOST_TEST((code_of([&] { Maker::make(1000, p); }) == errc::invalid_argument));
    BOOST_TEST((code_of([] { Maker::make_geometry(0, 3); }) == errc::invalid_argument));
    BOOST_TEST((code_of([] { Maker::make_geometry(1000, 3); }) == errc::invalid_argument));  // not a whole line/word
    BOOST_TEST((code_of([] { Maker::make_geometry(4096, 0); }) == errc::invalid_argument));
    BOOST_TEST((code_of([] { Maker::make_geometry(4096, 256); }) == errc::invalid_argument));
    BOOST_TEST((code_of([] { Maker::make_geometry(std::uint64_t{1} << 50, 3); }) == errc::too_large));
    // Over the caller's limit, and over the machine: refused before any allocation.
    BOOST_TEST((code_of([] { Maker::make(100000000, 0.01, filter_options{.memory_limit = 1 << 20}); }) == errc::too_large));
    BOOST_TEST((code_of([] { Maker::make(std::uint64_t{1} << 40, 0.01); }) == errc::too_large));
    BOOST_TEST((code_of([] { Maker::make(1000, 0.01, filter_options{.memory_limit = 1 << 20}); }) == errc{}));
}

// A smoke test only; the stress programs in stress/ are the real proof.
BOOST_AUTO_TEST_CASE_TEMPLATE(threads_share_one_filter_without_false_negatives, Maker, makers) {
    auto f = Maker::make(400000, 0.01);
    constexpr int threads = 4, per_thread = 50000;
    std::atomic<int> published[threads] = {};
    std::atomic<std::uint64_t> missing{0};
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
            for (int i = 0; i < per_thread; ++i) {
                f.add(std::uint64_t(t) << 32 | i);
                published[t].store(i + 1, std::memory_order_release);  // the add happens-before readers' checks
                const int other = (t + 1) % threads;
                const int seen = published[other].load(std::memory_order_acquire);  // acquire: its adds before
                if (seen > 0 && !f.contains(std::uint64_t(other) << 32 | (seen - 1))) ++missing;
            }
        });
    for (auto& th : pool) th.join();
    for (int t = 0; t < threads; ++t)
        for (int i = 0; i < per_thread; ++i) missing += !f.contains(std::uint64_t(t) << 32 | i);
    BOOST_TEST(missing.load() == 0u);
}

// The blocked layout's AVX2 add (blocked_layout::add_avx2) and its scalar add set the same bits
// and give the same answers, key by key, for k from 1 to 17 (17: past the unrolled probes, both
// take the scalar path) and under both probe rules.
// A batch query runs its own code (blocked_layout::contains_group: rule 2's check for several
// keys at once, with AVX2 or SSE2): its answers and count must be the single calls', for every k
// (the vector path up to 7, the per-key paths above), both rules and both SIMD levels, in a filter
// so full that absent keys whose fields are all set (where rule 2's check decides) are common,
// and for batch lengths that leave every kind of partial group.
BOOST_AUTO_TEST_CASE(blocked_batch_queries_agree_with_single_calls) {
    const simd::level saved = simd::current();
    std::vector<simd::level> levels{simd::level::scalar};
    if (simd::supported() == simd::level::avx2) levels.push_back(simd::level::avx2);
    std::uint64_t decided_by_rule_2 = 0;  // absent keys whose fields are all set, in rule 2 filters
    for (simd::level l : levels) {
        simd::use(l);
        for (std::uint32_t k = 1; k <= 18; ++k) {
            for (probe_rule rule : {probe_rule::fields, probe_rule::distinct}) {
                auto f = blocked_bloom_filter::with_geometry(32 * 512, k, {.probes = rule});
                random_keys gen(100 + k);
                std::vector<std::string> keys;
                for (int i = 0; i < 1500; ++i) f.add(keys.emplace_back(gen.next()));
                for (int i = 0; i < 4001; ++i) keys.push_back(gen.next());
                auto rule_1 = blocked_bloom_filter::with_geometry(32 * 512, k, {.probes = probe_rule::fields});
                for (int i = 0; i < 1500; ++i) rule_1.add(keys[i]);
                for (std::size_t length : {std::size_t{0}, std::size_t{1}, std::size_t{5}, std::size_t{17}, std::size_t{64},
                                           std::size_t{67}, keys.size()}) {
                    std::vector<key_view> batch;
                    for (std::size_t i = 0; i < length; ++i) batch.push_back(key_view(std::as_bytes(std::span(keys[(i * 7) % keys.size()]))));
                    std::vector<std::uint8_t> found(length + 1, 2);
                    const std::uint64_t count = f.contains_many(batch, found.data());
                    std::uint64_t expected = 0;
                    for (std::size_t i = 0; i < length; ++i) {
                        const bool single = f.contains(batch[i]);
                        expected += single;
                        BOOST_TEST_REQUIRE(found[i] == single, "k " << k << ", rule " << static_cast<int>(rule) << ", key " << i);
                        if (length == keys.size() && rule == probe_rule::distinct && !single && rule_1.contains(batch[i])) ++decided_by_rule_2;
                    }
                    BOOST_TEST_REQUIRE(found[length] == 2, "wrote past the batch");
                    BOOST_TEST_REQUIRE(count == expected, "k " << k << ", rule " << static_cast<int>(rule));
                    BOOST_TEST_REQUIRE(f.contains_many(batch) == expected);
                }
            }
        }
    }
    simd::use(saved);
    BOOST_TEST_MESSAGE(decided_by_rule_2 << " absent keys had every field set and were told apart by rule 2's slots");
    BOOST_TEST(decided_by_rule_2 > 0u);
}

BOOST_AUTO_TEST_CASE(blocked_scalar_and_avx2_adds_agree) {
    const simd::level saved = simd::current();
    if (simd::supported() != simd::level::avx2) {
        BOOST_TEST_MESSAGE("this CPU (or LFBLOOM_SIMD) gives no AVX2 path: only the scalar path runs");
        return;
    }
    for (std::uint32_t k = 1; k <= 17; ++k) {
        for (probe_rule rule : {probe_rule::fields, probe_rule::distinct}) {
            std::vector<std::vector<std::uint64_t>> bits;
            std::vector<std::vector<bool>> answers;
            for (simd::level l : {simd::level::scalar, simd::level::avx2}) {
                simd::use(l);
                auto f = blocked_bloom_filter::with_geometry(64 * 512, k, {.probes = rule});
                random_keys gen(k);
                std::vector<bool> added;
                for (int i = 0; i < 3000; ++i) {
                    const std::string key = i % 7 == 0 ? std::to_string(i % 50) : gen.next();  // duplicates too
                    added.push_back(f.add(key));
                }
                answers.push_back(added);
                bits.emplace_back();
                for (const auto& w : f.words()) bits.back().push_back(load_word(w));
            }
            BOOST_TEST_REQUIRE((bits[0] == bits[1]), "k " << k << ", rule " << static_cast<int>(rule));
            BOOST_TEST_REQUIRE((answers[0] == answers[1]), "k " << k << ", rule " << static_cast<int>(rule));
        }
    }
    simd::use(saved);
}

BOOST_AUTO_TEST_SUITE_END()
