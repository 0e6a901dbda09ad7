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
#include <cstdlib>
#include <exception>
#include <memory>
#include <new>
#include <span>
#include <system_error>
#include <thread>
#include <type_traits>
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

/// One thread's filed items of a round: a region of `room` items per partition in one block of
/// memory, and a list for a partition that outgrows its region (rare: room is the expected fill
/// plus 6%, about 20 standard deviations at 200,000 items a partition). One block rather than a
/// vector per partition: 16.2 against 20.1 ns a key (62 MB, 5 * 10^7 keys, one thread). Tried and
/// dropped: huge pages (MADV_HUGEPAGE; the kernel's compaction for them made the build take 29 ns),
/// MAP_POPULATE (no faster: the first round's page faults, about 5 ns a key, are mostly the
/// kernel zeroing the pages), prefetching the scratch ahead of each item (no faster: its lines are
/// in L2 already).
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

/// The bulk build described at the top of this file. Filter provides bulk_item (what is filed:
/// a hash, or one probe), bulk_items_per_key(), bulk_items(h, emit), bulk_word(item) (the first
/// word of the item's block), bulk_set(block, item) (sets the item's bits in a plain copy of that
/// block) and bulk_merge(first_word, scratch) (merges and zeroes the scratch).
template <class Filter, class KeyAt>
void bulk_add(Filter& f, std::size_t count, KeyAt& key_at, const bulk_options& options) {
    using item = typename Filter::bulk_item;
    static_assert(std::is_trivially_copyable_v<item> && std::is_trivially_default_constructible_v<item>);
    constexpr std::uint64_t part_words = bulk_partition_words;
    const unsigned threads = bulk_threads(options);
    const std::uint64_t words = f.words().size();
    const std::uint64_t parts = (words + part_words - 1) / part_words;
    const std::uint64_t item_bytes = sizeof(item) * f.bulk_items_per_key();
    const std::uint64_t budget = options.buffer_bytes != 0 ? options.buffer_bytes : std::max<std::uint64_t>(256u << 20, 64 * words);
    // 9/8: the regions' room over their expected fill, and the spills
    const std::uint64_t most_keys = std::max<std::uint64_t>(1, budget / (item_bytes + item_bytes / 8));
    const std::uint64_t rounds = (count + most_keys - 1) / most_keys;  // equal rounds: each costs a pass over the filter
    const std::uint64_t round_keys = rounds == 0 ? 0 : (count + rounds - 1) / rounds;
    const std::uint64_t slice_items = (round_keys / threads + 1) * f.bulk_items_per_key();
    const std::uint64_t room = slice_items / parts + slice_items / parts / 16 + 64;
    try {
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
            const unsigned appliers = static_cast<unsigned>(std::min<std::uint64_t>(threads, parts));
            run_parallel(appliers, [&](unsigned t) {
                std::vector<std::uint64_t> scratch(part_words);  // zero, and zeroed again by each merge
                for (std::uint64_t p = parts * t / appliers; p < parts * (t + 1) / appliers; ++p) {
                    const std::uint64_t base = p * part_words;
                    for (filing<item>& theirs : filed)
                        theirs.drain(p, [&](const item& it) { f.bulk_set(scratch.data() + (f.bulk_word(it) - base), it); });
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
