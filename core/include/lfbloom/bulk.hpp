// Bulk builds: all keys known at once (warming a guard at start, rebuilding a swappable filter,
// filling a new generation), several threads, and each line of the filter touched about once.
//
// An add one key at a time costs a random cache miss per key once the filter is larger than the
// cache, and a locked instruction per word it changes. A bulk build instead:
// 1. hashes every key once (the keys split among the threads) and files the hash under the
//    partition of the filter its block lies in: a run of 32,768 words (256 KiB, which fits in L2
//    with room for the hashes streaming past);
// 2. gives each thread its own partitions. For each one, the thread sets the bits of every hash
//    filed under it in a private scratch copy of the partition, with plain stores (no locked
//    instruction: the scratch is the thread's alone, and it stays in cache), then merges the
//    scratch into the filter's words in order, one word after the next: a word gains bits with
//    one locked OR only if it lacks some of them (the counting filter: one CAS adding the
//    counts, saturating).
// The filter is written at the end of each partition only, sequentially, so its misses overlap in
// the hardware prefetcher instead of one per key; the locked ORs are one per word, not one per key
// and word (at 1% and full capacity, a word per 6 keys).
//
// Why merge with atomics instead of storing into the filter: plain stores would lose the bits of
// any add that raced with the build (another thread, another process on a shared file). With the
// merge, a build is one more writer: anything may run beside it, and it loses nothing.
//
// Memory: about 16 bytes per key (8 per probe for the classic layout, whose probes are filed one by
// one) of temporary buffers, plus 256 KiB per thread. Past bulk_options::buffer_bytes the keys are
// built in rounds, each round one pass of merges over the filter.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <new>
#include <span>
#include <system_error>
#include <thread>
#include <vector>

#include "lfbloom/error.hpp"

namespace lfbloom {

struct bulk_options {
    /// Threads to build with (the calling thread is one of them); 0: one per hardware thread.
    unsigned threads = 1;
    /// Temporary memory for the filed hashes, in bytes; 0: the larger of 256 MiB and 8 times the
    /// filter's own size. Smaller limits build in more rounds (each a pass over the filter).
    std::uint64_t buffer_bytes = 0;
};

namespace detail {

/// Words per partition: 256 KiB of scratch, a whole number of every layout's blocks (1 to 8 words).
inline constexpr std::uint64_t bulk_partition_words = 32768;

inline unsigned bulk_threads(const bulk_options& options) noexcept {
    return options.threads != 0 ? options.threads : std::max(1u, std::thread::hardware_concurrency());
}

/// Runs work(t) for t in [0, threads), t = 0 on the calling thread; rethrows the first exception
/// after all have finished. The joins order every worker's writes before the return.
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
        std::vector<std::jthread> workers;
        try {
            for (unsigned t = 1; t < threads; ++t) workers.emplace_back(guarded, t);
        } catch (const std::system_error&) {  // fewer threads than asked: the rest run here
            for (unsigned t = static_cast<unsigned>(workers.size()) + 1; t < threads; ++t) guarded(t);
        }
        guarded(0);
    }  // joins
    for (const auto& e : failed)
        if (e) std::rethrow_exception(e);
}

/// The bulk build described at the top of this file. Filter provides bulk_item (what is filed:
/// a hash, or one probe), bulk_items_per_key(), bulk_items(h, emit), bulk_word(item) (the first
/// word of the item's block), bulk_set(block, item) (sets the item's bits in a plain copy of that
/// block) and bulk_merge(first_word, scratch) (merges and zeroes the scratch).
template <class Filter, class KeyAt>
void bulk_add(Filter& f, std::size_t count, KeyAt& key_at, const bulk_options& options) {
    using item = typename Filter::bulk_item;
    constexpr std::uint64_t part_words = bulk_partition_words;
    const unsigned threads = bulk_threads(options);
    const std::uint64_t words = f.words().size();
    const std::uint64_t parts = (words + part_words - 1) / part_words;
    const std::uint64_t item_bytes = sizeof(item) * f.bulk_items_per_key();
    const std::uint64_t budget = options.buffer_bytes != 0 ? options.buffer_bytes : std::max<std::uint64_t>(256u << 20, 64 * words);
    // 5/4: the buckets' slack over their expected fill
    const std::uint64_t most_keys = std::max<std::uint64_t>(1, budget / (item_bytes + item_bytes / 4));
    const std::uint64_t rounds = (count + most_keys - 1) / most_keys;  // equal rounds: each costs a pass over the filter
    const std::uint64_t round_keys = rounds == 0 ? 0 : (count + rounds - 1) / rounds;
    // buckets[t][p]: what thread t filed under partition p this round
    std::vector<std::vector<std::vector<item>>> buckets(threads);
    try {
        for (auto& mine : buckets) mine.resize(parts);
        for (std::size_t begin = 0; begin < count;) {
            const std::size_t end = begin + static_cast<std::size_t>(std::min<std::uint64_t>(count - begin, round_keys));
            const std::size_t n = end - begin;
            run_parallel(threads, [&](unsigned t) {
                auto& mine = buckets[t];
                const std::uint64_t expected = n / threads * f.bulk_items_per_key() / parts;
                for (auto& bucket : mine) bucket.reserve(expected + expected / 8 + 16);
                for (std::size_t i = begin + n * t / threads, e = begin + n * (t + 1) / threads; i < e; ++i)
                    f.bulk_items(f.hash(key_at(i)), [&](const item& it) { mine[f.bulk_word(it) / part_words].push_back(it); });
            });
            const unsigned appliers = static_cast<unsigned>(std::min<std::uint64_t>(threads, parts));
            run_parallel(appliers, [&](unsigned t) {
                std::vector<std::uint64_t> scratch(part_words);  // zero, and zeroed again by each merge
                for (std::uint64_t p = parts * t / appliers; p < parts * (t + 1) / appliers; ++p) {
                    const std::uint64_t base = p * part_words;
                    for (auto& mine : buckets) {
                        for (const item& it : mine[p]) f.bulk_set(scratch.data() + (f.bulk_word(it) - base), it);
                        mine[p].clear();
                    }
                    f.bulk_merge(base, std::span<std::uint64_t>(scratch.data(), std::min(part_words, words - base)));
                }
            });
            begin = end;
        }
    } catch (const std::bad_alloc&) {
        throw error(errc::out_of_memory, "bulk add: out of memory for its buffers (bulk_options::buffer_bytes)");
    }
}

}  // namespace detail
}  // namespace lfbloom
