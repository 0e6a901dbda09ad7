// rotating_bloom_filter: a filter whose keys expire. A ring of G blocked filters ("generations")
// covers a window W; each generation is current for one period W / G. rotate() makes the next
// generation current after clearing it, so a key lives between (G-1)·W/G and W.
//
// Two modes:
// - single write (default): an add goes to the current generation; a query checks all G.
// - double write (seed 001's "write to both, swap, drop the old one"): an add goes to the
//   current and the next generation; a query checks only G-1 of them (with G = 2, just one), so
//   queries are cheaper and the false-positive rate lower, for twice the writes and more memory:
//   the ring has G+1 filters, each sized for two periods' keys. The extra one is the filter being
//   cleared: with only G, a rotation would clear a filter that queries still rely on (for G = 2,
//   the current one), and a reader racing the rotation could miss a key added a moment ago.
// Both keep the same promise; `capacity` is the most keys added in one period, and each
// generation is sized so the rate of a whole query stays <= fpr.
//
// Guarantees (R counts rotations, whoever triggers them):
// - Present: if add(key) completed before contains(key) began, and at most G-1 rotations overlap
//   the time from the start of add(key) to the end of contains(key), contains returns true.
//   With time-based rotation every W/G, that covers every key added in the last W − W/G.
// - Gone: once G rotations have completed after add(key) returned, no query sees that add's
//   bits: they were cleared, or (double write) sit in the one filter no query checks, which the
//   next rotation clears. The key may still be reported present by a false positive, like any
//   absent key.
//
// Thread safety: add, contains (single and batch) and stats run concurrently from any threads,
// lock-free; readers and writers never wait for a rotation. Rotations are serialized among
// themselves by a mutex no reader or writer takes. A rotation clears one generation (O(m/G)).
// With a period set, the first add or query after a deadline performs the due rotations, or
// skips them if another thread is already rotating; call tick() from a timer thread instead to
// keep that work off the request path.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "lfbloom/bloom_filter.hpp"

namespace lfbloom {

struct rotating_options {
    std::uint32_t generations = 2;  ///< G, in 2..max_generations
    bool double_write = false;      ///< add to the current and the next generation (see above)
    std::uint64_t period_ns = 0;    ///< W / G in nanoseconds; 0 = rotate only when told to
    /// Nanoseconds of a monotonic clock; empty = std::chrono::steady_clock. Used only with a
    /// period; must be callable from any thread.
    std::function<std::uint64_t()> clock;
    bool auto_tick = true;  ///< with a period: adds and queries call tick(clock()) themselves
    filter_options filter;  ///< memory_limit caps the sum over generations
};

class rotating_bloom_filter : public key_operations<rotating_bloom_filter> {
public:
    static constexpr std::uint32_t max_generations = 64;

    /// Throws invalid_argument (capacity 0, fpr outside (0,1) or NaN, generations outside
    /// 2..64), too_large or out_of_memory.
    rotating_bloom_filter(std::uint64_t capacity, double fpr, rotating_options options = {})
        : options_(checked(capacity, fpr, std::move(options))) {
        const std::uint32_t g = ring_size();
        const geometry shape = blocked_bloom_filter::size_for(options_.double_write ? 2 * capacity : capacity,
                                                              fpr / queried());
        check_memory(shape.slots / 8 * g, options_.filter.memory_limit);
        ring_.reserve(g);
        for (std::uint32_t i = 0; i < g; ++i) ring_.emplace_back(shape, options_.filter);
        if (!options_.clock) options_.clock = [] {
            return static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
        };
        static_assert(std::is_same_v<std::chrono::steady_clock::period, std::nano>);
        // relaxed: the constructor; the filter is published to other threads by the caller
        if (options_.period_ns != 0) deadline_.store(options_.clock() + options_.period_ns, std::memory_order_relaxed);
    }

    std::uint64_t seed() const noexcept { return options_.filter.seed; }
    std::uint32_t generations() const noexcept { return options_.generations; }
    /// Filters in the ring: G, or G+1 in double-write mode.
    std::uint32_t ring_size() const noexcept { return options_.generations + (options_.double_write ? 1 : 0); }
    /// Rotations so far (each one clears a generation).
    std::uint64_t rotations() const noexcept { return epoch_.load(std::memory_order_acquire); }  // acquire: see rotate

    /// Adds to the current generation (and the next, in double-write mode); true if the key was
    /// new to the current one. Lock-free.
    bool add_hash(hash128 h) noexcept {
        auto_tick();
        const std::uint64_t e = epoch_.load(std::memory_order_acquire);  // acquire: the cleared words come first
        const bool fresh = at(e).add_hash(h);
        if (options_.double_write) at(e + 1).add_hash(h);
        return fresh;
    }

    /// Wait-free apart from a due rotation (see the top): checks the live generations, newest first.
    bool contains_hash(hash128 h) const noexcept {
        auto_tick();
        const std::uint64_t e = epoch_.load(std::memory_order_acquire);  // acquire: see rotate
        for (std::uint32_t age = 0; age < queried(); ++age)
            if (at(e + ring_size() - age).contains_hash(h)) return true;
        return false;
    }

    void prefetch(hash128 h, bool for_write) const noexcept {
        at(epoch_.load(std::memory_order_relaxed)).prefetch(h, for_write);  // relaxed: only a hint
    }

    /// Makes the next generation current: clears the one that becomes current (single write) or
    /// the one that becomes next (double write), then publishes. Blocks only other rotations.
    void rotate() {
        const std::lock_guard lock(rotate_mutex_);
        rotate_locked();
    }

    /// Performs the rotations due at `now_ns` (nanoseconds of the clock): one per period that
    /// passed since the last deadline, at most G (by then everything is cleared). Skips if another
    /// thread is rotating. A no-op without a period. Safe from any thread. (const, like the
    /// queries that call it: time passing is not a change the caller makes.)
    void tick(std::uint64_t now_ns) const {
        if (options_.period_ns == 0 || now_ns < deadline_.load(std::memory_order_relaxed)) return;  // relaxed: rechecked under the lock
        const std::unique_lock lock(rotate_mutex_, std::try_to_lock);
        if (!lock.owns_lock()) return;
        const std::uint64_t due = deadline_.load(std::memory_order_relaxed);  // relaxed: written under this lock
        if (now_ns < due) return;
        const std::uint64_t periods = (now_ns - due) / options_.period_ns + 1;
        for (std::uint64_t i = 0; i < std::min<std::uint64_t>(periods, options_.generations); ++i) rotate_locked();
        deadline_.store(due + periods * options_.period_ns, std::memory_order_relaxed);  // relaxed: as above
    }

    /// Ring filter `age`: 0 = current, 1 = the one before, ...; the last one (age ring_size()-1)
    /// is the oldest in single-write mode, the next generation in double-write mode. Throws
    /// invalid_argument for age >= ring_size().
    filter_stats stats(std::uint32_t age) const {
        if (age >= ring_size()) throw error(errc::invalid_argument, "no generation of age " + std::to_string(age));
        return at(rotations() + ring_size() - age).stats();
    }

private:
    static rotating_options checked(std::uint64_t capacity, double fpr, rotating_options o) {
        if (capacity == 0) throw error(errc::invalid_argument, "capacity must be positive");
        if (capacity > (std::uint64_t{1} << 62)) throw error(errc::too_large, "capacity beyond 2^62");
        if (!(fpr > 0.0 && fpr < 1.0)) throw error(errc::invalid_argument, "fpr must be in (0, 1)");
        if (o.generations < 2 || o.generations > max_generations)
            throw error(errc::invalid_argument, "generations must be in 2.." + std::to_string(max_generations));
        return o;
    }

    /// Generations a query checks: G, or in double-write mode G-1 (neither the next one nor the
    /// oldest, which the next rotation clears).
    std::uint32_t queried() const noexcept { return options_.generations - (options_.double_write ? 1 : 0); }

    blocked_bloom_filter& at(std::uint64_t epoch) const noexcept { return ring_[epoch % ring_.size()]; }

    void auto_tick() const noexcept {
        if (options_.period_ns != 0 && options_.auto_tick) {
            try {
                tick(options_.clock());
            } catch (...) {
                // a throwing user clock or a failed try-lock: rotation waits for the next call
            }
        }
    }

    void rotate_locked() const noexcept {
        const std::uint64_t e = epoch_.load(std::memory_order_relaxed);  // relaxed: only rotators write it, under the lock
        at(e + (options_.double_write ? 2 : 1)).clear();
        epoch_.store(e + 1, std::memory_order_release);  // release: adds that see e + 1 see the cleared words
    }

    // mutable: a query may perform a due rotation (see tick)
    rotating_options options_;
    mutable std::vector<blocked_bloom_filter> ring_;
    mutable std::atomic<std::uint64_t> epoch_{0};
    mutable std::atomic<std::uint64_t> deadline_{0};
    mutable std::mutex rotate_mutex_;
};

}  // namespace lfbloom
