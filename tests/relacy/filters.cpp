// Model checks of the bit and counting filters' word operations (see runner.hpp).
#include <cstdint>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "lfbloom/lfbloom.hpp"
#include "model.hpp"
#include "runner.hpp"

namespace {

using namespace lfbloom;
using blocked = bloom_filter<blocked_layout, model::storage>;
using classic = bloom_filter<classic_layout, model::storage>;
using split = bloom_filter<split_block_layout, model::storage>;
using one_word = bloom_filter<one_word_layout, model::storage>;
using two_word = bloom_filter<two_word_layout, model::storage>;
using counting = basic_counting_bloom_filter<model::storage>;

// ---- bit filters: racing adds keep every bit, and of racing adds of one new key one says "new" ----

/// Two keys whose probes share a word (so a lost read-modify-write would lose one's bits), and
/// neither of whose bits covers the other's (so each add of a new key must set a bit), found with
/// the production filter of the same shape among keys 1, 2, ... With `every_word`, both keys
/// also have bits in every word (a two-word block: each add reads and may OR both words).
template <class Production>
std::pair<std::uint64_t, std::uint64_t> keys_sharing_a_word(std::uint64_t bits, std::uint32_t k, bool every_word) {
    auto alone = [&](std::uint64_t key) {
        auto f = Production::with_geometry(bits, k);
        f.add(key);
        return f;
    };
    for (std::uint64_t a = 1;; ++a)
        for (std::uint64_t b = a + 1; b < a + 64; ++b) {
            const auto fa = alone(a), fb = alone(b);
            bool share = false, spread = true;
            for (std::size_t w = 0; w < fa.words().size(); ++w) {
                share |= (fa.words()[w] & fb.words()[w]) != 0;
                spread &= !every_word || (fa.words()[w] != 0 && fb.words()[w] != 0);
            }
            if (share && spread && !fa.contains(b) && !fb.contains(a)) return {a, b};
        }
}

// Property: adds racing on shared words keep every bit (after both, both keys are present; each
// adder sees its own key), and of two racing adds of one new key at least one returns true.
// Bounds: 3 threads (add A, add B, add A), one add each; every schedule with at most 2
// preemptions, 3 for the one- and two-word layouts, whose adds touch one or two words, and 1 for
// split-block, whose adds write all 8 words of the block (exhaustive: 3.75M schedules blocked, 210k
// classic, 18k one-word, 1.16M two-word; split-block took 23M and 130 s of CI at 2). One preemption
// is what a lost bit needs (an add preempted between reading a word and writing it back: the
// mutant of or_word in mutants.py fails split-block at 1 too); each add's words are independent
// fetch_ors, so a second preemption only reorders words that do not interact.
template <class Filter, class Production>
struct racing_adds : rl::test_suite<racing_adds<Filter, Production>, 3> {
    static constexpr bool word_block = Filter::kind == layout::one_word || Filter::kind == layout::two_word;
    static constexpr unsigned context_bound = word_block ? 3 : Filter::kind == layout::split_block ? 1 : 2;
    static inline std::pair<std::uint64_t, std::uint64_t> keys;
    static inline geometry shape;  // sized outside the model: building from a shape is cheap
    static void prepare() {
        keys = keys_sharing_a_word<Production>(bits(), hashes(), Filter::kind == layout::two_word);
        shape = Production::with_geometry(bits(), hashes()).shape();
    }
    // One line, one block (whose 4 words every key touches), one word, or two words.
    static std::uint64_t bits() {
        switch (Filter::kind) {
            case layout::blocked: return 512;
            case layout::split_block: return 256;
            case layout::one_word: return 64;
            default: return 128;  // classic, two-word
        }
    }
    static std::uint32_t hashes() { return Filter::kind == layout::split_block ? 8 : 4; }

    Filter f{shape, filter_options{}};
    bool fresh[3] = {};  // written by thread i only; read in after()

    void thread(unsigned index) {
        const std::uint64_t key = index == 1 ? keys.second : keys.first;
        fresh[index] = f.add(key);
        RL_ASSERT(f.contains(key));
    }
    void after() {
        RL_ASSERT(f.contains(keys.first) && f.contains(keys.second));
        RL_ASSERT(fresh[0] || fresh[2]);  // of the two racing adds of new key A, at least one says new
        RL_ASSERT(fresh[1]);              // B was new to its only add
    }
};

// ---- counting: remove is all or nothing, saturated counters stay ----

/// One line of 4-bit counters (128), k = 3, sized once outside the model.
const geometry& counting_shape() {
    static const geometry shape = counting_bloom_filter::with_geometry(128, 3).shape();
    return shape;
}

/// A key whose probes fall in at least two words of a one-line counting filter (so a remove can
/// take one word and then find the next at zero: the rollback path).
std::uint64_t key_in_two_words(std::uint64_t counters, std::uint32_t k) {
    for (std::uint64_t key = 1;; ++key) {
        auto f = counting_bloom_filter::with_geometry(counters, k);
        f.add(key);
        int touched = 0;
        for (std::uint64_t w : f.words()) touched += w != 0;
        if (touched >= 2) return key;
    }
}

// Property: every remove either takes all of its key's counters (returns true) or changes nothing
// (returns false, after putting back what it took): the final words equal those of a fresh filter
// given the same adds and only the removes that returned true. Scenario: A added once; threads
// remove A, remove A, add A (the second remove can pass its check, take the first word, and find
// the next zeroed by the first remove: it must roll back). So A, added twice and removed at most
// twice successfully, has the right count, and is present if fewer removes than adds succeeded.
// Bounds: 3 threads, one operation each; every schedule with at most 1 preemption (exhaustive,
// 327k schedules; 2 preemptions take a minute, 6.4M).
struct counting_remove_rollback : rl::test_suite<counting_remove_rollback, 3> {
    static constexpr unsigned context_bound = 1;
    static inline std::uint64_t key;
    static void prepare() {
        key = key_in_two_words(128, 3);
        (void)counting_shape();
    }

    counting f{counting_shape(), 4, filter_options{}};
    model::atomic<int> removed{0};

    counting_remove_rollback() { f.add(key); }
    void thread(unsigned index) {
        if (index == 2) {
            f.add(key);
            return;
        }
        if (f.remove(key)) removed.fetch_add(1);
    }
    void after() {
        counting_bloom_filter expected(counting_shape(), 4, filter_options{});
        expected.add(key);
        expected.add(key);
        for (int i = 0; i < removed.load(); ++i) RL_ASSERT(expected.remove(key));
        for (std::size_t w = 0; w < expected.words().size(); ++w)
            RL_ASSERT(load_word(f.words()[w]) == expected.words()[w]);
    }
};

// Property: a saturated counter is never decremented, whatever races with it: A added 15 times
// (its counters saturate at 15); racing removes and an add leave every counter of A at 15.
// Bounds: 3 threads (remove, remove, add), one operation each; every schedule with at most 2
// preemptions (exhaustive, 1.0M schedules).
struct counting_saturation : rl::test_suite<counting_saturation, 3> {
    static constexpr unsigned context_bound = 2;
    static inline std::uint64_t key;
    static void prepare() {
        key = key_in_two_words(128, 3);
        (void)counting_shape();
    }

    counting f{counting_shape(), 4, filter_options{}};

    counting_saturation() {
        for (int i = 0; i < 15; ++i) f.add(key);
    }
    void thread(unsigned index) {
        if (index == 2) f.add(key);
        else f.remove(key);
    }
    void after() { RL_ASSERT(f.count(key) == 15); }
};

// ---- bulk builds: a partition's merge beside adds and queries ----

/// One partition's part of a bulk build (bulk.hpp), as add_bulk runs it on its thread: the key's
/// bits (counts) set in a private copy of the filter with plain stores, then merged.
template <class Filter>
void bulk_build_one(Filter& f, std::uint64_t key) {
    std::uint64_t copy[8] = {};  // the private copy of the whole one-line filter: one partition
    f.bulk_items(f.hash(key), [&](const auto& item) { f.bulk_set(copy + f.bulk_word(item), item); });
    f.bulk_merge(0, std::span<const std::uint64_t>(copy, f.words().size()));
}

// Property: a bulk build's merge loses no racing add's bits and no earlier key's: thread 0 builds
// A in bulk, thread 1 adds B (sharing the word with A), thread 2 queries C (added before) and must
// find it; afterwards the word is that of the three adds one by one. A merge that wrote the word
// with a plain store (load, OR, store) would lose B's bits. One word (the one-word layout): the
// merge is the same code for every layout (bloom_filter::bulk_merge), and one word keeps the
// search exhaustive. Bounds: 3 threads, one operation each; every schedule with at most 2
// preemptions (exhaustive).
struct bulk_merge_bits : rl::test_suite<bulk_merge_bits, 3> {
    static constexpr unsigned context_bound = 2;
    static inline std::pair<std::uint64_t, std::uint64_t> keys;
    static inline geometry shape;
    static inline std::uint64_t expected;  // the word after the three adds one by one
    static constexpr std::uint64_t earlier = 1000;
    static void prepare() {
        keys = keys_sharing_a_word<one_word_bloom_filter>(64, 4, false);
        auto f = one_word_bloom_filter::with_geometry(64, 4);
        shape = f.shape();
        for (std::uint64_t key : {keys.first, keys.second, earlier}) f.add(key);
        expected = f.words()[0];
    }

    one_word f{shape, filter_options{}};
    bulk_merge_bits() { f.add(earlier); }

    void thread(unsigned index) {
        if (index == 0) bulk_build_one(f, keys.first);
        else if (index == 1) f.add(keys.second);
        else RL_ASSERT(f.contains(earlier));
    }
    void after() { RL_ASSERT(load_word(f.words()[0]) == expected); }
};

// Property: the counting filter's merge adds its counts to racing adds': thread 0 builds A in
// bulk, threads 1 and 2 add A one by one; afterwards every counter of A is 3 and the words are
// those of three adds. A merge that stored the sum with a plain store would lose an add's
// increments. Bounds: 3 threads, one operation each; every schedule with at most 2 preemptions
// (exhaustive).
struct bulk_merge_counts : rl::test_suite<bulk_merge_counts, 3> {
    static constexpr unsigned context_bound = 2;
    static inline std::uint64_t key;
    static inline std::vector<std::uint64_t> expected;  // the words after three adds one by one
    static void prepare() {
        key = key_in_two_words(128, 3);
        counting_bloom_filter f(counting_shape(), 4, filter_options{});
        for (int i = 0; i < 3; ++i) f.add(key);
        expected.assign(f.words().begin(), f.words().end());
    }

    counting f{counting_shape(), 4, filter_options{}};

    void thread(unsigned index) {
        if (index == 0) bulk_build_one(f, key);
        else f.add(key);
    }
    void after() {
        RL_ASSERT(f.count(key) == 3);
        for (std::size_t w = 0; w < expected.size(); ++w) RL_ASSERT(load_word(f.words()[w]) == expected[w]);
    }
};

}  // namespace

LFBLOOM_RELACY_TESTS(lfbloom::relacy::entry<"racing_adds.blocked", racing_adds<blocked, blocked_bloom_filter>>(),
                     lfbloom::relacy::entry<"racing_adds.classic", racing_adds<classic, classic_bloom_filter>>(),
                     lfbloom::relacy::entry<"racing_adds.split_block", racing_adds<split, split_block_bloom_filter>>(),
                     lfbloom::relacy::entry<"racing_adds.one_word", racing_adds<one_word, one_word_bloom_filter>>(),
                     lfbloom::relacy::entry<"racing_adds.two_word", racing_adds<two_word, two_word_bloom_filter>>(),
                     lfbloom::relacy::entry<"counting.remove_rollback", counting_remove_rollback>(),
                     lfbloom::relacy::entry<"counting.saturation", counting_saturation>(),
                     lfbloom::relacy::entry<"bulk_merge.bits", bulk_merge_bits>(),
                     lfbloom::relacy::entry<"bulk_merge.counts", bulk_merge_counts>())
