// lfbloom-stress: multithreaded programs that try to break the concurrency guarantees. Each
// scenario prints its seed and exits 1 on the first violation with what it needs to be replayed.
//
//   writers-readers  writers add keys and publish each finished add (release); readers acquire the
//                    progress and check published keys, singly and in batches: no false negative.
//   hot-keys         all threads race to add and query the same few keys in fresh tiny filters;
//                    "new" answers must obey the documented semantics.
//   counting-churn   threads add and remove their own keys while others query; at the end the
//                    filter must equal one built from the keys still held; removing all empties it.
//   cuckoo-churn     a cuckoo filter at 85-98% load: threads add and remove their own keys (every
//                    add kicks) while all check published keys; the table stays exact.
//   over-remove      half the threads remove keys never added (false positives pass the check and
//                    race the holders' removes: the rollback path) while the others hold keys;
//                    afterwards the counters equal the held keys' exactly.
//   saturation       adds drive shared counters to the maximum while removes race: no false
//                    negative for keys still held.
//   growth           writers-readers on a scalable filter that starts at capacity / 1024 and grows
//                    about ten times under the racing adds; afterwards no sub-filter was left early
//                    or overfilled.
//   rotation         writers-readers on a rotating filter while a thread rotates it every half
//                    capacity of adds: every key with at most G-1 rotations overlapping its add and
//                    query must be present.
//   swap             writers-readers on a hot-swap handle while a thread rebuilds it again and again
//                    (stage a fresh filter, replay the writers' source of truth into it, publish):
//                    no published key is ever missing, across any number of swaps.
#include <algorithm>
#include <array>
#include <atomic>
#include <barrier>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <mutex>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <boost/program_options.hpp>

#include "filters.hpp"

namespace po = boost::program_options;
using namespace stress;
using clock_type = std::chrono::steady_clock;

namespace {

struct run_options {
    std::string scenario;
    filter_spec spec;
    std::uint32_t generations = 2;
    bool double_write = false;
    unsigned threads = 8;
    double seconds = 5;
    std::uint64_t seed = 0;
};
run_options opt;

[[noreturn]] void violation(const std::string& what) {
    std::fprintf(stderr,
                 "VIOLATION: %s\n  replay: lfbloom-stress --scenario %s --layout %s --api %s --counter-bits %u "
                 "--threads %u --seconds %g --seed %llu --capacity %llu --generations %u%s\n",
                 what.c_str(), opt.scenario.c_str(), opt.spec.layout.c_str(), opt.spec.api.c_str(), opt.spec.counter_bits,
                 opt.threads, opt.seconds, static_cast<unsigned long long>(opt.seed),
                 static_cast<unsigned long long>(opt.spec.capacity), opt.generations, opt.double_write ? " --double-write" : "");
    std::fflush(stderr);
    std::_Exit(1);
}

template <class... Parts>
std::string describe(const Parts&... parts) {
    std::ostringstream s;
    (s << ... << parts);
    return s.str();
}

/// The 16-byte key `index` of `owner`, derived from the seed (so a failure can be replayed).
struct key16 {
    std::array<std::byte, 16> bytes;
    key_view view() const { return bytes; }
};
std::uint64_t splitmix64(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}
key16 make_key(std::uint64_t owner, std::uint64_t index) {
    const std::uint64_t a = splitmix64(opt.seed ^ splitmix64(owner * 0x100000001b3ULL + 1) ^ index);
    const std::uint64_t b = splitmix64(a ^ owner);
    key16 k;
    for (int i = 0; i < 8; ++i) {
        k.bytes[i] = static_cast<std::byte>(a >> (8 * i));
        k.bytes[8 + i] = static_cast<std::byte>(b >> (8 * i));
    }
    return k;
}

bool time_left(clock_type::time_point end) { return clock_type::now() < end; }
clock_type::time_point deadline() {
    return clock_type::now() + std::chrono::duration_cast<clock_type::duration>(std::chrono::duration<double>(opt.seconds));
}

/// Runs fn(t) on `n` threads and joins them.
template <class Fn>
void run_threads(unsigned n, Fn fn) {
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < n; ++t) pool.emplace_back(fn, t);
    for (auto& th : pool) th.join();
}

struct alignas(64) progress_counter {
    std::atomic<std::uint64_t> value{0};
};

/// After the threads are joined every published add happened-before: each key must be present.
/// Returns how many were checked.
template <class Filter>
std::uint64_t check_after_join(const Filter& filter, const std::vector<progress_counter>& progress, std::uint64_t epoch) {
    std::uint64_t checked = 0;
    for (unsigned w = 0; w < progress.size(); ++w) {
        const std::uint64_t n = progress[w].value.load(std::memory_order_relaxed);  // relaxed: the join orders it
        for (std::uint64_t i = 0; i < n; ++i)
            if (!filter.contains(make_key(epoch << 32 | w, i).view()))
                violation(describe("false negative after join: epoch ", epoch, " writer ", w, " key ", i));
        checked += n;
    }
    return checked;
}

// ---- 1: writers and readers ------------------------------------------------------------------------

// Epochs: a fresh filter per epoch, filled by the writers up to its capacity (so it never turns
// into all ones, which would hide false negatives), checked by readers as it fills.
void writers_readers() {
    const unsigned writers = std::max(1u, opt.threads / 2), readers = std::max(1u, opt.threads - writers);
    const std::uint64_t per_writer = opt.spec.capacity / writers;
    const auto end = deadline();
    std::uint64_t epochs = 0, checks_total = 0, adds_total = 0;
    do {
        auto filter = make_filter(opt.spec);
        std::vector<progress_counter> progress(writers);
        std::atomic<unsigned> writers_done{0};
        std::atomic<std::uint64_t> checks{0};
        const std::uint64_t epoch = epochs;
        run_threads(writers + readers, [&](unsigned t) {
            if (t < writers) {
                for (std::uint64_t i = 0; i < per_writer && time_left(end); ++i) {
                    filter->add(make_key(epoch << 32 | t, i).view());
                    progress[t].value.store(i + 1, std::memory_order_release);  // the add happens-before readers' checks
                }
                writers_done.fetch_add(1, std::memory_order_release);  // release: this writer's adds before readers stop
                return;
            }
            std::mt19937_64 rng(opt.seed ^ splitmix64(epoch * 1000 + t));
            std::uint64_t local_checks = 0;
            std::vector<key16> batch_keys;
            std::vector<key_view> batch;
            std::uint8_t found[32];
            while (writers_done.load(std::memory_order_acquire) < writers) {  // acquire: pairs with the writers' release
                const unsigned w = static_cast<unsigned>(rng() % writers);
                // acquire: pairs with the writer's release, so every published add happens-before the check
                const std::uint64_t published = progress[w].value.load(std::memory_order_acquire);
                if (published == 0) continue;
                if (rng() % 4 != 0) {  // single: the newest key (the tightest race) or any published one
                    const std::uint64_t i = rng() % 2 ? published - 1 : rng() % published;
                    if (!filter->contains(make_key(epoch << 32 | w, i).view()))
                        violation(describe("false negative: epoch ", epoch, " writer ", w, " key ", i, " (published ", published, ")"));
                    ++local_checks;
                } else {  // batch: up to 32 published keys in one call
                    batch_keys.clear();
                    batch.clear();
                    for (int j = 0; j < 32; ++j) batch_keys.push_back(make_key(epoch << 32 | w, published - 1 - rng() % published));
                    for (const auto& k : batch_keys) batch.push_back(k.view());
                    filter->contains_many(batch, found);
                    for (int j = 0; j < 32; ++j)
                        if (!found[j]) violation(describe("false negative in contains_many: epoch ", epoch, " writer ", w));
                    local_checks += 32;
                }
            }
            checks.fetch_add(local_checks, std::memory_order_relaxed);  // read after join
        });
        adds_total += check_after_join(*filter, progress, epoch);
        const std::uint32_t parts = filter->info().parts;
        for (std::uint32_t i = 0; i + 1 < parts; ++i) {  // growth: full before the next, never piled into
            const lfbloom::filter_info sub = filter->part(i);
            if (sub.items < sub.capacity || sub.items > sub.capacity + opt.threads)
                violation(describe("epoch ", epoch, " sub-filter ", i, " of ", parts, " holds ", sub.items,
                                   " items for capacity ", sub.capacity));
        }
        if (parts > 1 && epochs == 0) std::printf("growth: %u sub-filters in the first epoch\n", parts);
        checks_total += checks.load(std::memory_order_relaxed);  // relaxed: after join
        ++epochs;
    } while (time_left(end));
    std::printf("writers-readers: %llu epochs, %llu adds, %llu concurrent checks, no false negative\n",
                static_cast<unsigned long long>(epochs), static_cast<unsigned long long>(adds_total),
                static_cast<unsigned long long>(checks_total));
}

// ---- 2: hot keys ----------------------------------------------------------------------------------

// Every epoch: a fresh filter sized for the hot set; all threads start at once and add and query
// the same keys in shuffled orders. add() answers "new" only if it changed a bit from 0 (or a
// counter from zero), and each such change happens once (no removes here), so the "new" answers
// of an epoch can never outnumber the slots set at its end; at least one answer is "new"; and a
// key's own add is always followed by contains() == true.
void hot_keys() {
    constexpr unsigned hot = 64, passes = 4;
    filter_spec spec = opt.spec;
    spec.capacity = hot;
    std::vector<key16> keys;
    for (unsigned i = 0; i < hot; ++i) keys.push_back(make_key(~0ull, i));
    const auto end = deadline();
    std::unique_ptr<filter_api> filter = make_filter(spec);
    std::atomic<std::uint64_t> new_answers{0};
    std::uint64_t epochs = 0, total_new = 0;
    std::atomic<bool> running{true};
    auto between_epochs = [&]() noexcept {  // runs on one thread while all others wait at the barrier
        const lfbloom::filter_info s = filter->info();
        const std::uint64_t answers = new_answers.exchange(0, std::memory_order_relaxed);  // the barrier orders it
        if (answers > s.slots_set)
            violation(describe("epoch ", epochs, ": ", answers, " 'new' answers but only ", s.slots_set, " slots set"));
        if (answers == 0) violation(describe("epoch ", epochs, ": no add of a fresh filter answered 'new'"));
        for (const auto& k : keys)
            if (!filter->contains(k.view())) violation(describe("epoch ", epochs, ": hot key absent at the end"));
        total_new += answers;
        ++epochs;
        if (!time_left(end)) running.store(false, std::memory_order_relaxed);  // the barrier publishes it
        else filter = make_filter(spec);
    };
    std::barrier sync(static_cast<std::ptrdiff_t>(opt.threads), between_epochs);
    run_threads(opt.threads, [&](unsigned t) {
        std::mt19937_64 rng(opt.seed ^ t);
        std::vector<unsigned> order(hot);
        for (unsigned i = 0; i < hot; ++i) order[i] = i;
        while (running.load(std::memory_order_relaxed)) {  // relaxed: written between epochs, ordered by the barrier
            std::uint64_t mine = 0;
            for (unsigned pass = 0; pass < passes; ++pass) {
                std::shuffle(order.begin(), order.end(), rng);
                for (unsigned i : order) {
                    mine += filter->add(keys[i].view());
                    if (!filter->contains(keys[i].view()))
                        violation(describe("hot key ", i, " absent right after this thread added it"));
                }
            }
            new_answers.fetch_add(mine, std::memory_order_relaxed);  // summed after the barrier
            sync.arrive_and_wait();
        }
    });
    std::printf("hot-keys: %llu epochs of %u threads racing on %u keys, %llu 'new' answers, semantics held\n",
                static_cast<unsigned long long>(epochs), opt.threads, hot, static_cast<unsigned long long>(total_new));
}

// ---- 3: counting churn ----------------------------------------------------------------------------

// Thread t holds "permanent" keys (t, 0..) that it adds once and publishes, and churns up to 64
// keys (t, 2^40 + j) with 1-3 copies each, removing copies at random. Others check the published
// permanent keys meanwhile. Afterwards the filter must equal, counter for counter, one built
// sequentially from what is still held (adds and removes commute while nothing saturates).
void counting_churn() {
    const unsigned threads = opt.threads;
    const std::uint64_t permanent_cap = opt.spec.capacity / 2 / threads;  // keeps counters far from saturating
    auto filter = make_filter(opt.spec);
    std::vector<progress_counter> published(threads);
    std::vector<std::map<std::uint64_t, unsigned>> churn_held(threads);  // owned by thread t until join
    std::vector<std::uint64_t> churn_used(threads);
    const auto end = deadline();
    run_threads(threads, [&](unsigned t) {
        std::mt19937_64 rng(opt.seed ^ splitmix64(t));
        auto& held = churn_held[t];
        std::uint64_t next_churn = std::uint64_t{1} << 40, permanent = 0;
        while (time_left(end)) {
            if (permanent < permanent_cap) {
                filter->add(make_key(t, permanent).view());
                published[t].value.store(++permanent, std::memory_order_release);  // release: the add before the count
            }
            if (held.size() < 64) {
                const unsigned copies = 1 + rng() % 3;
                for (unsigned c = 0; c < copies; ++c) filter->add(make_key(t, next_churn).view());
                held[next_churn++] = copies;
            } else {
                auto it = std::next(held.begin(), static_cast<long>(rng() % held.size()));
                if (!filter->remove(make_key(t, it->first).view()))
                    violation(describe("remove refused for a held key: thread ", t, " key ", it->first));
                if (--it->second == 0) held.erase(it);
            }
            const unsigned other = static_cast<unsigned>(rng() % threads);
            const std::uint64_t n = published[other].value.load(std::memory_order_acquire);  // acquire: pairs with that release
            if (n > 0 && !filter->contains(make_key(other, rng() % n).view()))
                violation(describe("false negative for a permanent key of thread ", other));
        }
        churn_used[t] = next_churn;
    });

    auto reference = filter->empty_twin();
    for (unsigned t = 0; t < threads; ++t) {
        const std::uint64_t n = published[t].value.load(std::memory_order_relaxed);  // join orders it
        for (std::uint64_t i = 0; i < n; ++i) reference->add(make_key(t, i).view());
        for (const auto& [index, copies] : churn_held[t])
            for (unsigned c = 0; c < copies; ++c) reference->add(make_key(t, index).view());
    }
    const lfbloom::filter_info got = filter->info(), want = reference->info();
    if (got.saturated != 0 || want.saturated != 0)
        violation(describe("counters saturated (", got.saturated, ", reference ", want.saturated, "): raise --capacity"));
    if (got.slots_set != want.slots_set)
        violation(describe("non-zero counters: ", got.slots_set, ", reference built from held keys: ", want.slots_set));
    std::uint64_t compared = 0;
    for (unsigned t = 0; t < threads; ++t) {
        const std::uint64_t n = published[t].value.load(std::memory_order_relaxed);  // relaxed: after join
        auto same = [&](std::uint64_t index) {
            const key16 k = make_key(t, index);
            if (filter->count(k.view()) != reference->count(k.view()))
                violation(describe("counter mismatch for thread ", t, " key ", index, ": ", filter->count(k.view()),
                                   " vs reference ", reference->count(k.view())));
            ++compared;
        };
        for (std::uint64_t i = 0; i < n; ++i) same(i);
        for (std::uint64_t i = std::uint64_t{1} << 40; i < churn_used[t]; ++i) same(i);  // removed keys too
    }
    // Now every thread removes everything it holds, concurrently, permanent keys in batches of 64
    // (remove_many) and churned copies one by one: the filter must end empty.
    run_threads(threads, [&](unsigned t) {
        const std::uint64_t n = published[t].value.load(std::memory_order_relaxed);  // relaxed: after join
        std::vector<key16> batch;
        std::vector<key_view> views;
        std::uint8_t removed[64];
        for (std::uint64_t base = 0; base < n; base += 64) {
            batch.clear();
            for (std::uint64_t i = base; i < std::min(n, base + 64); ++i) batch.push_back(make_key(t, i));
            views.assign(batch.size(), key_view{});
            std::transform(batch.begin(), batch.end(), views.begin(), [](const key16& k) { return k.view(); });
            filter->remove_many(views, removed);
            for (std::size_t i = 0; i < batch.size(); ++i)
                if (removed[i] != 1) violation(describe("final batch remove refused: thread ", t, " key ", base + i));
        }
        for (const auto& [index, copies] : churn_held[t])
            for (unsigned c = 0; c < copies; ++c)
                if (!filter->remove(make_key(t, index).view()))
                    violation(describe("final remove refused: thread ", t, " churn key ", index));
    });
    const lfbloom::filter_info empty = filter->info();
    if (empty.slots_set != 0) violation(describe("after removing everything, ", empty.slots_set, " counters are non-zero"));
    std::printf("counting-churn: %u threads, counters equal the reference on %llu keys, empty after removing all\n",
                threads, static_cast<unsigned long long>(compared));
}

// ---- 3a: cuckoo churn ------------------------------------------------------------------------------

// A cuckoo filter (the core's, or through the C ABI's lfb_handle with --api c) sized for
// (capacity, fpr), whose permanent keys fill 85% of its slots. Every thread adds its share of
// them and publishes each (release), then churns: adds keys of its own (1-2 copies each) until the
// table refuses (full, near 98% load: every add kicks), removes copies at random, and checks
// published permanent keys of every thread throughout. Kicks move resident fingerprints under the
// readers all the time: no false negative, no refused remove of a held copy, and afterwards the
// table holds exactly the permanent keys and the held copies; removing them all empties it.
void cuckoo_churn() {
    const unsigned threads = opt.threads;
    const std::unique_ptr<filter_api> cuckoo = make_filter(opt.spec);
    filter_api& filter = *cuckoo;
    const std::uint64_t permanent_cap = filter.info().slots * 85 / 100 / threads;
    std::vector<progress_counter> published(threads);
    std::vector<std::map<std::uint64_t, unsigned>> churn_held(threads);  // owned by thread t until join
    std::atomic<std::uint64_t> refused{0};
    const auto end = deadline();
    auto stored = [&](const key16& k) {
        const lfbloom::cuckoo_status s = filter.insert(k.view());
        if (s == lfbloom::cuckoo_status::too_many_duplicates) violation("too many duplicates of a random key");
        return s != lfbloom::cuckoo_status::full;
    };
    std::barrier filled(threads);
    run_threads(threads, [&](unsigned t) {
        std::mt19937_64 rng(opt.seed ^ splitmix64(t));
        auto& held = churn_held[t];
        std::uint64_t next_churn = std::uint64_t{1} << 40;
        auto check_published = [&] {
            const unsigned other = static_cast<unsigned>(rng() % threads);
            const std::uint64_t n = published[other].value.load(std::memory_order_acquire);  // acquire: pairs with the release below
            if (n > 0 && !filter.contains(make_key(other, rng() % n).view()))
                violation(describe("false negative for a permanent key of thread ", other));
        };
        for (std::uint64_t permanent = 0; permanent < permanent_cap;) {
            if (!stored(make_key(t, permanent))) violation(describe("full at ", permanent, " permanent keys of thread ", t));
            published[t].value.store(++permanent, std::memory_order_release);  // release: the add before the count
            check_published();
        }
        filled.arrive_and_wait();  // churn only once every permanent key is in: they must all fit
        bool room = true;
        while (time_left(end)) {
            if (room || held.empty()) {
                const unsigned copies = 1 + rng() % 2;
                unsigned in = 0;
                while (in < copies && stored(make_key(t, next_churn))) ++in;
                if (in > 0) held[next_churn] = in;
                ++next_churn;
                room = in == copies;
                if (!room) refused.fetch_add(1, std::memory_order_relaxed);  // relaxed: a count read after the join
            } else {
                auto it = std::next(held.begin(), static_cast<long>(rng() % held.size()));
                if (!filter.remove(make_key(t, it->first).view()))
                    violation(describe("remove refused for a held key: thread ", t, " key ", it->first));
                if (--it->second == 0) held.erase(it);
                room = rng() % 4 == 0;  // remove a few before trying to add again
            }
            for (int q = 0; q < 4; ++q) check_published();
        }
    });
    const lfbloom::filter_info s = filter.info();
    std::uint64_t expected = 0;
    for (unsigned t = 0; t < threads; ++t) {
        expected += published[t].value.load(std::memory_order_relaxed);  // relaxed: after the join
        for (const auto& [index, copies] : churn_held[t]) {
            expected += copies;
            if (filter.count(make_key(t, index).view()) < copies) violation(describe("held copies missing: thread ", t, " key ", index));
        }
    }
    if (s.slots_set != expected) violation(describe("the table holds ", s.slots_set, " fingerprints, the threads ", expected));
    run_threads(threads, [&](unsigned t) {
        for (std::uint64_t i = 0; i < published[t].value.load(std::memory_order_relaxed); ++i)  // relaxed: after the join
            if (!filter.remove(make_key(t, i).view())) violation(describe("final remove refused: thread ", t, " key ", i));
        for (const auto& [index, copies] : churn_held[t])
            for (unsigned c = 0; c < copies; ++c)
                if (!filter.remove(make_key(t, index).view())) violation(describe("final remove refused: thread ", t, " churn key ", index));
    });
    if (filter.info().slots_set != 0) violation("fingerprints left after removing everything");
    std::printf("cuckoo-churn: %u threads, load %.3f, %llu kicks, %llu adds refused as full, %llu reader retries (%llu gave up), "
                "exact after the run, empty after removing all\n",
                threads, s.fill_ratio, static_cast<unsigned long long>(s.kicks), static_cast<unsigned long long>(refused.load()),
                static_cast<unsigned long long>(s.reader_retries), static_cast<unsigned long long>(s.reader_gave_up));
}

// ---- 3b: over-remove ------------------------------------------------------------------------------

// Half the threads hold keys (add copies, remove copies, as counting-churn); the other half remove
// keys nobody ever added. Most such removes are refused by the check; a false positive passes it,
// and then either takes its counters (the remover re-adds the key at once, so the net effect is
// nil) or finds one zeroed by a racing remove and must roll back what it took. Afterwards the
// counters must equal a filter built from the held keys alone (no lost, extra or wrapped
// decrement) and every held key must be present.
void over_remove() {
    const unsigned threads = opt.threads, holders = threads / 2;
    auto filter = make_filter(opt.spec);
    std::vector<std::map<std::uint64_t, unsigned>> held(holders);  // owned by holder t until join
    std::atomic<std::uint64_t> attempts{0}, passed{0}, refused_after_present{0};
    const auto end = deadline();
    run_threads(threads, [&](unsigned t) {
        std::mt19937_64 rng(opt.seed ^ splitmix64(200 + t));
        if (t < holders) {
            auto& mine = held[t];
            std::uint64_t next = 0;
            while (time_left(end)) {
                if (mine.size() < 256) {
                    const unsigned copies = 1 + rng() % 3;
                    for (unsigned c = 0; c < copies; ++c) filter->add(make_key(t, next).view());
                    mine[next++] = copies;
                } else {
                    auto it = std::next(mine.begin(), static_cast<long>(rng() % mine.size()));
                    // A racing over-remove may hold one of its counters at zero for a moment: then
                    // the remove is refused and the copy stays held.
                    if (filter->remove(make_key(t, it->first).view()) && --it->second == 0) mine.erase(it);
                }
            }
            return;
        }
        std::uint64_t tried = 0, took = 0, refused_present = 0;
        for (std::uint64_t i = 0; time_left(end); ++i) {
            const key16 stranger = make_key(1000 + t, i);
            const bool looked_present = filter->count(stranger.view()) != 0;
            ++tried;
            if (filter->remove(stranger.view())) {
                ++took;
                filter->add(stranger.view());  // undo: its decrements were of other keys' counts
            } else if (looked_present) {
                ++refused_present;  // passed a look before the call, then refused: the rollback path or a racing change
            }
        }
        attempts += tried;  // seq_cst: once per thread
        passed += took;
        refused_after_present += refused_present;
    });
    auto reference = filter->empty_twin();
    for (unsigned t = 0; t < holders; ++t)
        for (const auto& [index, copies] : held[t])
            for (unsigned c = 0; c < copies; ++c) reference->add(make_key(t, index).view());
    const lfbloom::filter_info got = filter->info(), want = reference->info();
    if (got.saturated != 0) violation(describe(got.saturated, " saturated counters: raise --capacity"));
    if (got.slots_set != want.slots_set)
        violation(describe("non-zero counters: ", got.slots_set, ", reference built from held keys: ", want.slots_set));
    std::uint64_t checked = 0;
    for (unsigned t = 0; t < holders; ++t)
        for (const auto& [index, copies] : held[t]) {
            const key16 k = make_key(t, index);
            if (filter->count(k.view()) == 0) violation(describe("held key absent: thread ", t, " key ", index));
            if (filter->count(k.view()) != reference->count(k.view()))
                violation(describe("counter mismatch for thread ", t, " key ", index));
            ++checked;
        }
    const std::int64_t rollbacks = filter->rollbacks();
    std::printf("over-remove: %llu removes of never-added keys, %llu passed the check (undone by an add), %llu refused "
                "after reading present; %s rollbacks; %llu held keys present, counters equal the reference\n",
                static_cast<unsigned long long>(attempts.load()), static_cast<unsigned long long>(passed.load()),
                static_cast<unsigned long long>(refused_after_present.load()),
                rollbacks < 0 ? "(the C ABI does not count)" : std::to_string(rollbacks).c_str(),
                static_cast<unsigned long long>(checked));
}

// ---- 4: saturation --------------------------------------------------------------------------------

// Every thread holds one copy of each of 8 hot keys for the whole run, and adds and removes up to
// 40 more copies at a time: counters of a 4-bit filter pass 15 and saturate while removes race.
// A held key must never be absent, and removing a copy a thread holds must never be refused.
void saturation() {
    constexpr unsigned hot = 8;
    filter_spec spec = opt.spec;
    spec.capacity = 1000;
    auto filter = make_filter(spec);
    std::vector<key16> keys;
    for (unsigned i = 0; i < hot; ++i) keys.push_back(make_key(~1ull, i));
    const auto end = deadline();
    std::barrier start(static_cast<std::ptrdiff_t>(opt.threads));
    run_threads(opt.threads, [&](unsigned t) {
        for (const auto& k : keys) filter->add(k.view());
        start.arrive_and_wait();  // from here every hot key is held by every thread
        std::mt19937_64 rng(opt.seed ^ splitmix64(100 + t));
        while (time_left(end)) {
            const unsigned i = static_cast<unsigned>(rng() % hot), extra = 1 + rng() % 40;
            for (unsigned c = 0; c < extra; ++c) filter->add(keys[i].view());
            for (unsigned c = 0; c < extra; ++c)
                if (!filter->remove(keys[i].view())) violation(describe("remove of a held copy refused, hot key ", i));
            for (unsigned j = 0; j < hot; ++j)
                if (!filter->contains(keys[j].view())) violation(describe("hot key ", j, " absent while held"));
        }
    });
    const lfbloom::filter_info s = filter->info();
    for (unsigned j = 0; j < hot; ++j)
        if (filter->count(keys[j].view()) == 0) violation(describe("hot key ", j, " absent at the end"));
    std::printf("saturation: %llu saturated counters, every held key present throughout\n",
                static_cast<unsigned long long>(s.saturated));
}

// ---- 5: rotation ----------------------------------------------------------------------------------

/// A writer's published keys with the rotation count read just before each add began.
struct published_keys {
    std::vector<std::uint64_t> rotations_before;
    progress_counter progress;
};

// Writers record rotations() before each add and publish (release). A rotator rotates whenever
// half a capacity of adds has happened since its last rotation, so generations never saturate.
// Readers acquire a writer's progress, query keys, then read rotations(): at most
// after + 1 - before rotations overlapped add and query, and while that is <= G-1 the key must be
// present (the documented guarantee; later keys are allowed to be gone and are not checked).
void rotation() {
    const unsigned writers = std::max(1u, (opt.threads - 1) / 2), readers = std::max(1u, opt.threads - 1 - writers);
    const std::uint32_t g = opt.generations;
    const std::uint64_t per_writer = 4 * opt.spec.capacity / writers;
    const auto end = deadline();
    std::uint64_t epochs = 0, checks_total = 0, rotations_total = 0;
    do {
        filter_spec ring = opt.spec;
        ring.layout = "rotating";
        ring.generations = g;
        ring.double_write = opt.double_write;
        auto filter = make_filter(ring);
        std::vector<published_keys> pub(writers);
        for (auto& p : pub) p.rotations_before.resize(per_writer);
        std::atomic<unsigned> writers_done{0};
        std::atomic<std::uint64_t> checks{0};
        const std::uint64_t epoch = epochs;
        run_threads(writers + readers + 1, [&](unsigned t) {
            if (t < writers) {
                for (std::uint64_t i = 0; i < per_writer && time_left(end); ++i) {
                    pub[t].rotations_before[i] = filter->rotations();
                    filter->add(make_key(epoch << 32 | t, i).view());
                    pub[t].progress.value.store(i + 1, std::memory_order_release);  // the add and its record happen-before readers
                }
                writers_done.fetch_add(1, std::memory_order_release);  // release: this writer's adds before readers stop
                return;
            }
            if (t == writers) {  // the rotator
                std::uint64_t last = 0;
                while (writers_done.load(std::memory_order_acquire) < writers) {  // acquire: pairs with the writers' release
                    std::uint64_t total = 0;
                    for (auto& p : pub) total += p.progress.value.load(std::memory_order_relaxed);  // relaxed: a pacing heuristic
                    if (total - last >= opt.spec.capacity / 2) {
                        filter->rotate();
                        last = total;
                    } else {
                        std::this_thread::yield();
                    }
                }
                return;
            }
            std::mt19937_64 rng(opt.seed ^ splitmix64(epoch * 1000 + t));
            std::uint64_t local_checks = 0;
            std::vector<key16> batch_keys;
            std::vector<key_view> batch;
            std::vector<std::uint64_t> batch_index;
            std::uint8_t found[32];
            while (writers_done.load(std::memory_order_acquire) < writers) {  // acquire: pairs with the writers' release
                const unsigned w = static_cast<unsigned>(rng() % writers);
                // acquire: the published adds and their rotation records happen-before the check
                const std::uint64_t published = pub[w].progress.value.load(std::memory_order_acquire);
                if (published == 0) continue;
                // recent keys mostly: older ones are usually past the guarantee
                auto pick = [&] { return published - 1 - rng() % std::min<std::uint64_t>(published, opt.spec.capacity / 4); };
                if (rng() % 4 != 0) {
                    const std::uint64_t i = pick();
                    const bool present = filter->contains(make_key(epoch << 32 | w, i).view());
                    const std::uint64_t after = filter->rotations();
                    if (after + 1 - pub[w].rotations_before[i] <= g - 1) {
                        if (!present)
                            violation(describe("false negative: epoch ", epoch, " writer ", w, " key ", i, ", rotations ",
                                               pub[w].rotations_before[i], " before its add, ", after, " after the query"));
                        ++local_checks;
                    }
                } else {
                    batch_keys.clear();
                    batch.clear();
                    batch_index.clear();
                    for (int j = 0; j < 32; ++j) {
                        batch_index.push_back(pick());
                        batch_keys.push_back(make_key(epoch << 32 | w, batch_index.back()));
                    }
                    for (const auto& k : batch_keys) batch.push_back(k.view());
                    filter->contains_many(batch, found);
                    const std::uint64_t after = filter->rotations();
                    for (int j = 0; j < 32; ++j) {
                        if (after + 1 - pub[w].rotations_before[batch_index[j]] > g - 1) continue;
                        if (!found[j]) violation(describe("false negative in contains_many: epoch ", epoch, " writer ", w));
                        ++local_checks;
                    }
                }
            }
            checks.fetch_add(local_checks, std::memory_order_relaxed);  // read after join
        });
        rotations_total += filter->rotations();
        checks_total += checks.load(std::memory_order_relaxed);  // relaxed: after join
        ++epochs;
    } while (time_left(end));
    if (checks_total == 0) violation("no check ran: rotations too frequent for the window");
    std::printf("rotation: G=%u%s, %llu epochs, %llu rotations, %llu checks inside the window, no false negative\n", g,
                opt.double_write ? " double write" : "", static_cast<unsigned long long>(epochs),
                static_cast<unsigned long long>(rotations_total), static_cast<unsigned long long>(checks_total));
}

// ---- 6: swap --------------------------------------------------------------------------------------

// The source of truth is each writer's `recorded` count: a writer records key i (seq_cst) before
// adding it, then publishes it (release). The rebuilder stages a fresh filter, reads the records
// (seq_cst) and replays them into the staged filter, then publishes it, over and over. A reader
// that acquires a published key must find it in whichever filter is current.
void swap() {
    const unsigned writers = std::max(1u, (opt.threads - 1) / 2), readers = std::max(1u, opt.threads - 1 - writers);
    const std::uint64_t per_writer = opt.spec.capacity / writers;
    const auto end = deadline();
    std::uint64_t epochs = 0, checks_total = 0, swaps_total = 0;
    do {
        filter_spec swappable = opt.spec;
        swappable.layout = "swappable";
        auto handle = make_filter(swappable);
        std::vector<progress_counter> recorded(writers), progress(writers);
        std::atomic<unsigned> writers_done{0};
        std::atomic<std::uint64_t> checks{0}, swaps{0};
        const std::uint64_t epoch = epochs;
        run_threads(writers + readers + 1, [&](unsigned t) {
            if (t < writers) {
                // Even writers add one key at a time, odd ones in batches of 8 (one batch call each,
                // which must reach the staged filter as a single add does).
                const std::uint64_t group = t % 2 == 0 ? 1 : 8;
                std::vector<key16> keys(group);
                std::vector<key_view> views(group);
                for (std::uint64_t i = 0; i + group <= per_writer && time_left(end); i += group) {
                    recorded[t].value.store(i + group, std::memory_order_seq_cst);  // seq_cst: against the rebuild's read
                    for (std::uint64_t j = 0; j < group; ++j) {
                        keys[j] = make_key(epoch << 32 | t, i + j);
                        views[j] = keys[j].view();
                    }
                    if (group == 1) handle->add(views[0]);
                    else handle->add_many(views);
                    progress[t].value.store(i + group, std::memory_order_release);  // the adds happen-before readers' checks
                }
                writers_done.fetch_add(1, std::memory_order_release);  // release: this writer's adds before readers stop
                return;
            }
            if (t == writers) {  // the rebuilder
                std::vector<key16> keys;
                std::vector<key_view> views;
                while (writers_done.load(std::memory_order_acquire) < writers) {  // acquire: pairs with the writers' release
                    handle->stage_fresh();
                    for (unsigned w = 0; w < writers; ++w) {
                        const std::uint64_t n = recorded[w].value.load(std::memory_order_seq_cst);  // seq_cst: see above
                        for (std::uint64_t base = 0; base < n; base += 256) {
                            keys.clear();
                            views.clear();
                            for (std::uint64_t i = base; i < std::min(n, base + 256); ++i) keys.push_back(make_key(epoch << 32 | w, i));
                            for (const auto& k : keys) views.push_back(k.view());
                            handle->add_staged(views);
                        }
                    }
                    handle->publish();
                    swaps.fetch_add(1, std::memory_order_relaxed);  // read after join
                }
                return;
            }
            std::mt19937_64 rng(opt.seed ^ splitmix64(epoch * 1000 + t));
            std::uint64_t local_checks = 0;
            while (writers_done.load(std::memory_order_acquire) < writers) {  // acquire: pairs with the writers' release
                const unsigned w = static_cast<unsigned>(rng() % writers);
                // acquire: pairs with the writer's release, so every published add happens-before the check
                const std::uint64_t published = progress[w].value.load(std::memory_order_acquire);
                if (published == 0) continue;
                const std::uint64_t i = rng() % 2 ? published - 1 : rng() % published;
                if (!handle->contains(make_key(epoch << 32 | w, i).view()))
                    violation(describe("false negative across swaps: epoch ", epoch, " writer ", w, " key ", i,
                                       " (published ", published, ", swaps so far ", swaps.load(), ")"));
                ++local_checks;
            }
            checks.fetch_add(local_checks, std::memory_order_relaxed);  // read after join
        });
        check_after_join(*handle, progress, epoch);
        checks_total += checks.load(std::memory_order_relaxed);  // relaxed: after join
        swaps_total += swaps.load(std::memory_order_relaxed);  // relaxed: after join
        ++epochs;
    } while (time_left(end));
    std::printf("swap: %llu epochs, %llu swaps, %llu concurrent checks, no false negative\n",
                static_cast<unsigned long long>(epochs), static_cast<unsigned long long>(swaps_total),
                static_cast<unsigned long long>(checks_total));
}

}  // namespace

int main(int argc, char** argv) {
    po::options_description flags("lfbloom-stress: try to break lfbloom's concurrency guarantees");
    std::string scenario_help = "writers-readers, hot-keys, counting-churn, cuckoo-churn, over-remove, saturation, growth, rotation, swap, or all";
    bool soak = false;
    flags.add_options()("help,h", "this text")("scenario", po::value(&opt.scenario)->default_value("all"), scenario_help.c_str())(
        "layout", po::value(&opt.spec.layout)->default_value("blocked"), "any layout (blocked, classic, counting, split-block, one-word, two-word, cuckoo) or scalable (counting scenarios force counting, growth scalable, cuckoo-churn cuckoo)")(
        "api", po::value(&opt.spec.api)->default_value("cpp"), "cpp (the core) or c (through liblfbloom's C ABI)")(
        "threads", po::value(&opt.threads)->default_value(8), "threads (more than cores is the point; up to 64)")(
        "seconds", po::value(&opt.seconds)->default_value(5), "seconds per scenario")(
        "seed", po::value(&opt.seed), "seed (default: from the clock; printed)")(
        "capacity", po::value(&opt.spec.capacity)->default_value(1000000), "filter capacity")(
        "counter-bits", po::value(&opt.spec.counter_bits)->default_value(4), "4 or 8")(
        "generations", po::value(&opt.generations)->default_value(2), "rotation: generations G (2..64)")(
        "double-write", po::bool_switch(&opt.double_write), "rotation: add to the current and the next generation")(
        "soak", po::bool_switch(&soak), "long soak: every scenario for 10 minutes (unless --seconds is given)");
    po::variables_map vm;
    try {
        po::store(po::parse_command_line(argc, argv, flags), vm);
        po::notify(vm);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "lfbloom-stress: %s\n", e.what());
        return 2;
    }
    if (vm.count("help")) {
        std::cout << flags;
        return 0;
    }
    if (!vm.count("seed")) opt.seed = static_cast<std::uint64_t>(clock_type::now().time_since_epoch().count());
    if (soak && vm["seconds"].defaulted()) opt.seconds = 600;
    const std::map<std::string, void (*)()> scenarios = {
        {"writers-readers", writers_readers}, {"hot-keys", hot_keys}, {"counting-churn", counting_churn},
        {"cuckoo-churn", cuckoo_churn},        {"over-remove", over_remove}, {"saturation", saturation}, {"growth", writers_readers}, {"rotation", rotation}, {"swap", swap}};
    const auto kind = lfbloom::parse_kind(opt.spec.layout);
    const bool known_layout = kind && *kind != lfbloom::filter_kind::rotating && *kind != lfbloom::filter_kind::swappable;
    if ((opt.scenario != "all" && !scenarios.count(opt.scenario)) || !known_layout || (opt.spec.api != "cpp" && opt.spec.api != "c") ||
        opt.threads < 3 || opt.threads > 64 || !(opt.seconds > 0) || opt.generations < 2 || opt.generations > 64) {
        std::fprintf(stderr, "lfbloom-stress: bad arguments (see --help)\n");
        return 2;
    }
    const std::string layout = opt.spec.layout;
    try {
        for (const auto& [name, run] : scenarios) {
            if (opt.scenario != "all" && opt.scenario != name) continue;
            opt.spec.layout = name == "counting-churn" || name == "over-remove" || name == "saturation" ? "counting" : name == "growth" ? "scalable" : name == "cuckoo-churn" ? "cuckoo" : layout;
            const std::string scenario = opt.scenario;
            opt.scenario = name;
            std::printf("%s: layout %s, api %s, %u threads, %g s, seed %llu\n", name.c_str(), opt.spec.layout.c_str(),
                        opt.spec.api.c_str(), opt.threads, opt.seconds, static_cast<unsigned long long>(opt.seed));
            std::fflush(stdout);
            run();
            opt.scenario = scenario;
        }
    } catch (const std::exception& e) {
        violation(e.what());
    }
    return 0;
}
