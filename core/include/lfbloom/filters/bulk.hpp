// Bulk builds: all keys known at once (warming a guard at start, rebuilding a swappable filter,
// filling a new generation), several threads, and each line of the filter touched about once.
//
// An add one key at a time costs a random cache miss per key once the filter is larger than the
// cache, and a locked instruction per word it changes. A bulk build instead works in rounds:
// 1. the threads hash a round's keys (each key once) and file each hash under the partition of the
//    filter its block lies in: a run of 32,768 words (256 KiB, which fits in L2 with room for the
//    hashes streaming past);
// 2. each thread owns a range of partitions. For each one, it sets the bits of every hash filed
//    under it in a private copy of the filter (plain stores: no locked instruction, the copy's
//    partition is the thread's alone and stays in cache while its hashes stream past).
// After the last round each thread merges its partitions of the copy into the filter, one word
// after the next: a word gains bits with one locked OR only if it lacks some (the counting filter:
// one CAS adding the counts, saturating). The filter is written once, in order, so its misses
// overlap in the hardware prefetcher instead of one per key, and the locked ORs are one per word,
// not one per key and word (at 1% and full capacity, a word per 6 keys).
//
// A filter of at most 2 MiB (bulk_direct_words) skips the filing: it fits in L2 or L3 as it is,
// so each thread sets its keys' bits straight into a private copy of its own and merges it. In a
// 1 MiB filter (806,000 keys) that took a build from about 38 to 19 ns a key, one thread: the
// filed path paid for its 64 MiB of buffers' page faults. At 4 MiB the filed path was faster.
// Its memory is one copy of the filter a thread, and a thread for each 65,536 keys at most
// (bulk_direct_keys_per_thread): at most 2 MiB a thread, 32 bytes a key beyond the first copy;
// buffer_bytes plays no part.
//
// Why merge with atomics instead of storing into the filter: plain stores would lose the bits of
// any add that raced with the build (another thread, another process on a shared file). With the
// merge, a build is one more writer: anything may run beside it, and it loses nothing.
//
// Memory, a filter over 2 MiB: the private copy (the filter's size again, its pages touched as
// partitions are set) and the round's filed hashes (16 bytes a key; the classic layout files each probe, 8 bytes),
// at most bulk_options::buffer_bytes. A round re-reads the copy, so rounds should hold several
// keys per line of the filter: the default buffer is four times the filter's size (64 MiB to
// 1 GiB). Measured (62 MB, 5 * 10^7 keys, 1 and 2 threads): 256 MiB of buffer, 18.2 and 9.6 ns a
// key; 1 GiB, 21.1 and 11.6 (more pages to fault in). Before the private copy, each round merged
// into the filter and all keys were filed in one round (17.2 and 10.2 ns, but 850 MB of buffers).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <memory>
#include <new>
#include <span>
#include <string>
#include <system_error>
#include <thread>
#include <type_traits>
#include <vector>

#include "lfbloom/base/error.hpp"

namespace lfbloom {

struct bulk_options {
    /// Threads to build with (one: the calling thread; more: that many new ones, the calling
    /// thread waiting for them); 0: one per hardware thread.
    unsigned threads = 1;
    /// Memory for the filed hashes of one round, in bytes; 0: four times the filter's size, at
    /// least 64 MiB and at most 1 GiB. The private copy of the filter comes on top.
    std::uint64_t buffer_bytes = 0;
};

/// The most threads a bulk build takes.
inline constexpr unsigned bulk_max_threads = 1024;

namespace detail {

/// Words per partition: 256 KiB of the private copy, a whole number of every layout's blocks (1 to 8 words).
inline constexpr std::uint64_t bulk_partition_words = 32768;

/// The threads a build uses: options.threads, or one per hardware thread for 0. Throws
/// invalid_argument past bulk_max_threads (each thread gets buffers: a huge count is a mistake).
inline unsigned bulk_threads(const bulk_options& options) {
    if (options.threads > bulk_max_threads)
        throw error(errc::invalid_argument, "a bulk build takes at most " + std::to_string(bulk_max_threads) + " threads, not " +
                                                std::to_string(options.threads));
    return options.threads != 0 ? options.threads : std::max(1u, std::thread::hardware_concurrency());
}

/// Runs work(t) for t in [0, threads), each on a thread of its own (one thread: on the calling
/// thread); rethrows the first exception after all have finished. The joins order every worker's
/// writes before the return.
///
/// Why the calling thread only waits: the workers read what work captured (the closure, the
/// bounds, the filter and key_at, often in the caller's stack frame) on every key, and a worker
/// run on the calling thread wrote its loop's spilled variables into that same frame: the other
/// worker's reads then missed in its cache on every key (false sharing), in some builds of the
/// code and not others. In lfbloom-bench's split-block build of 62 MB, 2 threads took as long as
/// 1 (median of 3 runs: 24.5 against 26.9 ns a key); with the caller waiting, 13.9 against 21.5.
/// A thread more to start costs some tens of microseconds a call.
template <class Work>
void run_parallel(unsigned threads, Work work) {
    std::vector<std::exception_ptr> failed(threads);
    auto guarded = [&](unsigned t) {
        try {
            work(t);
        } catch (...) {
            failed[t] = std::current_exception();
        }
    };
    {
        const unsigned first = threads > 1 ? 0 : 1;  // the first t a worker runs
        std::vector<std::jthread> workers;
        workers.reserve(threads);  // before any thread starts: a bad_alloc here leaves no work done
        try {
            for (unsigned t = first; t < threads; ++t) workers.emplace_back(guarded, t);
        } catch (...) {  // fewer threads than asked (system_error, or bad_alloc for a thread's state): the rest run here
            for (unsigned t = first + static_cast<unsigned>(workers.size()); t < threads; ++t) guarded(t);
        }
        if (first == 1) guarded(0);
    }  // joins
    for (const auto& e : failed)
        if (e) std::rethrow_exception(e);
}

/// One thread's filed items of a round: a region of `room` items per partition in one block of
/// memory, and a list for a partition that outgrows its region (rare: room is the expected fill
/// plus 6%, about 20 standard deviations at 200,000 items a partition). One block rather than a
/// vector per partition: 16.2 against 20.1 ns a key (62 MB, 5 * 10^7 keys, one thread). Tried and
/// dropped: huge pages (MADV_HUGEPAGE; the kernel's compaction for them made the build take 29 ns),
/// MAP_POPULATE (no faster: page faults cost mostly the kernel's zeroing), prefetching the copy's
/// line ahead of each item (no faster here, where a partition's lines are in L2 already; the
/// direct build's copy, larger than a partition, prefetches).
template <class Item>
class filing {
public:
    filing(std::uint64_t parts, std::uint64_t room) : room_(room), fill_(parts), spill_(parts), block_(allocate(parts * room)) {}

    void put(std::uint64_t part, const Item& item) {
        if (fill_[part] < room_) block_.get()[part * room_ + fill_[part]++] = item;
        else spill_[part].push_back(item);
    }
    /// Calls fn(item) for each item filed under `part`, then empties it.
    template <class Fn>
    void drain(std::uint64_t part, Fn fn) {
        const Item* region = block_.get() + part * room_;
        for (std::uint64_t i = 0; i < fill_[part]; ++i) fn(region[i]);
        for (const Item& item : spill_[part]) fn(item);
        fill_[part] = 0;
        spill_[part] = {};
    }

private:
    struct release {
        void operator()(Item* p) const noexcept { std::free(p); }
    };
    static std::unique_ptr<Item[], release> allocate(std::uint64_t items) {
        constexpr std::size_t line = 64;
        const std::size_t bytes = (items * sizeof(Item) + line - 1) / line * line;
        auto* p = static_cast<Item*>(std::aligned_alloc(line, bytes));  // Item is trivial: its objects exist once written
        if (p == nullptr) throw std::bad_alloc();
        return std::unique_ptr<Item[], release>(p);
    }

    std::uint64_t room_;
    std::vector<std::uint64_t> fill_;
    std::vector<std::vector<Item>> spill_;
    std::unique_ptr<Item[], release> block_;
};

/// A zeroed array of `words` words whose pages the kernel zeroes as they are first touched.
inline std::unique_ptr<std::uint64_t[], void (*)(std::uint64_t*)> zeroed_words(std::uint64_t words) {
    auto* p = static_cast<std::uint64_t*>(std::calloc(words, sizeof(std::uint64_t)));
    if (p == nullptr) throw std::bad_alloc();
    return {p, [](std::uint64_t* q) { std::free(q); }};
}

/// Filters up to this many words (2 MiB) build without filing: each thread hashes its share of
/// the keys and sets their bits straight into a private copy of its own, which fits in L2 or L3,
/// then merges its copy into the filter (bulk_direct).
inline constexpr std::uint64_t bulk_direct_words = std::uint64_t{1} << 18;
/// A direct build's keys a thread at least: below, another thread's copy costs more than it saves.
inline constexpr std::uint64_t bulk_direct_keys_per_thread = std::uint64_t{1} << 16;

/// A small filter's bulk build: no filing, no rounds. Memory: one zeroed copy of the filter per
/// thread, a thread per bulk_direct_keys_per_thread keys at most. Every key is set before any copy
/// is merged, so a key_at that throws adds nothing. Each thread then merges its whole copy,
/// starting at its own place in it, so the threads' locked ORs rarely meet on a line.
template <class Filter, class KeyAt>
void bulk_direct(Filter& f, std::size_t count, KeyAt& key_at, unsigned threads) {
    using item = typename Filter::bulk_item;
    const std::uint64_t words = f.words().size();
    threads = static_cast<unsigned>(std::clamp<std::uint64_t>(count / bulk_direct_keys_per_thread, 1, threads));
    std::vector<decltype(zeroed_words(0))> copies;
    for (unsigned t = 0; t < threads; ++t) copies.push_back(zeroed_words(words));  // pages zeroed as each thread touches them
    run_parallel(threads, [&](unsigned t) {
        std::uint64_t* copy = copies[t].get();
        // Each item's line of the copy is prefetched, and its bits set `lead` items later: a copy
        // larger than L2 (1.2 MB for 10^6 keys at 1%, in a 1 MiB L2) missed on the first store to
        // nearly every line (68% of the setting's samples in perf of a Python update). Measured
        // (Python updates of 200,000 keys into fresh filters, alternated in one process): int keys
        // 5% faster, str keys unchanged; leads of 4 to 32 items were alike within the noise.
        constexpr std::size_t ring = 32, lead = 16;
        item pending[ring];
        std::size_t in = 0, out = 0;
        const auto set_oldest = [&] {
            const item& it = pending[out++ % ring];
            f.bulk_set(copy + f.bulk_word(it), it);
        };
        for (std::size_t i = count * t / threads, e = count * (t + 1) / threads; i < e; ++i)
            f.bulk_items(f.hash(key_at(i)), [&](const item& it) {
                __builtin_prefetch(copy + f.bulk_word(it), 1);
                pending[in++ % ring] = it;
                if (in - out > lead) set_oldest();
            });
        while (out < in) set_oldest();
    });
    run_parallel(threads, [&](unsigned t) {
        const std::uint64_t* copy = copies[t].get();
        const std::uint64_t start = words * t / threads;
        f.bulk_merge(start, std::span<const std::uint64_t>(copy + start, words - start));
        f.bulk_merge(0, std::span<const std::uint64_t>(copy, start));
    });
}

/// The bulk build described at the top of this file. Filter provides bulk_item (what is filed:
/// a hash, or one probe), bulk_items_per_key(), bulk_items(h, emit), bulk_word(item) (the first
/// word of the item's block), bulk_set(block, item) (sets the item's bits in a plain copy of that
/// block) and bulk_merge(first_word, copy) (merges the copy's words into the filter's).
template <class Filter, class KeyAt>
void bulk_add(Filter& f, std::size_t count, KeyAt& key_at, const bulk_options& options) {
    using item = typename Filter::bulk_item;
    static_assert(std::is_trivially_copyable_v<item> && std::is_trivially_default_constructible_v<item>);
    constexpr std::uint64_t part_words = bulk_partition_words;
    const unsigned threads = bulk_threads(options);
    const std::uint64_t words = f.words().size();
    const std::uint64_t parts = (words + part_words - 1) / part_words;
    const std::uint64_t item_bytes = sizeof(item) * f.bulk_items_per_key();
    const std::uint64_t budget = options.buffer_bytes != 0 ? options.buffer_bytes
                                                           : std::clamp<std::uint64_t>(32 * words, 64u << 20, 1u << 30);
    // 9/8: the regions' room over their expected fill, and the spills
    const std::uint64_t most_keys = std::max<std::uint64_t>(1, budget / (item_bytes + item_bytes / 8));
    const std::uint64_t rounds = (count + most_keys - 1) / most_keys;  // equal rounds
    const std::uint64_t round_keys = rounds == 0 ? 0 : (count + rounds - 1) / rounds;
    const std::uint64_t slice_items = (round_keys / threads + 1) * f.bulk_items_per_key();
    const std::uint64_t room = slice_items / parts + slice_items / parts / 16 + 64;
    const unsigned owners = static_cast<unsigned>(std::min<std::uint64_t>(threads, parts));
    auto owned = [&](unsigned t) { return std::pair{parts * t / owners, parts * (t + 1) / owners}; };
    try {
        if (words <= bulk_direct_words) return bulk_direct(f, count, key_at, threads);
        const auto copy = zeroed_words(words);
        std::vector<filing<item>> filed;
        for (unsigned t = 0; t < threads; ++t) filed.emplace_back(parts, room);
        for (std::size_t begin = 0; begin < count;) {
            const std::size_t end = begin + static_cast<std::size_t>(std::min<std::uint64_t>(count - begin, round_keys));
            const std::size_t n = end - begin;
            run_parallel(threads, [&](unsigned t) {
                filing<item>& mine = filed[t];
                for (std::size_t i = begin + n * t / threads, e = begin + n * (t + 1) / threads; i < e; ++i)
                    f.bulk_items(f.hash(key_at(i)), [&](const item& it) { mine.put(f.bulk_word(it) / part_words, it); });
            });
            run_parallel(owners, [&](unsigned t) {
                for (auto [p, last] = owned(t); p < last; ++p)
                    for (filing<item>& theirs : filed) theirs.drain(p, [&](const item& it) { f.bulk_set(copy.get() + f.bulk_word(it), it); });
            });
            begin = end;
        }
        run_parallel(owners, [&](unsigned t) {
            for (auto [p, last] = owned(t); p < last; ++p) {
                const std::uint64_t base = p * part_words;
                f.bulk_merge(base, std::span<const std::uint64_t>(copy.get() + base, std::min(part_words, words - base)));
            }
        });
    } catch (const std::bad_alloc&) {
        throw error(errc::out_of_memory, "bulk add: out of memory for its private copy of the filter or its buffers "
                                         "(bulk_options::buffer_bytes)");
    }
}

}  // namespace detail
}  // namespace lfbloom
