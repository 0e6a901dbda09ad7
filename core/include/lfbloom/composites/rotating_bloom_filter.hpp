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
// keep that work off the request path. The clock is read once per key-level call (a batch reads
// it once), never by the hash-level add_hash/contains_hash. Deadlines saturate: a period so long
// that the deadline passes 2^64 - 1 ns means "never" (no wrap-around that rotates on every call).
#pragma once

#include <time.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "lfbloom/base/sync.hpp"
#include "lfbloom/filters/bloom_filter.hpp"

namespace lfbloom {

struct rotating_options {
    std::uint32_t generations = 2;  ///< G, in 2..max_generations
    bool double_write = false;      ///< add to the current and the next generation (see above)
    std::uint64_t period_ns = 0;    ///< W / G in nanoseconds; 0 = rotate only when told to
    /// Nanoseconds of a monotonic clock; empty = CLOCK_MONOTONIC_COARSE (steady_clock's epoch,
    /// read in a few ns, advancing in steps of 1-4 ms, so rotations may come that much late).
    /// Used only with a period; must be callable from any thread.
    std::function<std::uint64_t()> clock;
    bool auto_tick = true;  ///< with a period: adds and queries call tick(clock()) themselves
    /// Time advances only by tick(now), now counting from 0 at creation (a loaded filter goes on
    /// in the saved one's time); clock and auto_tick are ignored.
    bool manual_clock = false;
    /// Nanoseconds since the Unix epoch, read when a filter with a period is saved and loaded, so
    /// the time between them counts towards its next rotation; empty = CLOCK_REALTIME. Not read
    /// with manual_clock (the caller's time goes on across the save).
    std::function<std::uint64_t()> wall_clock;
    filter_options filter;  ///< memory_limit caps the sum over generations
};

/// Sync: the concurrency primitives (sync.hpp); tests/relacy model-checks this template.
template <class Sync = default_sync>
class basic_rotating_bloom_filter : public key_operations<basic_rotating_bloom_filter<Sync>> {
public:
    static constexpr std::uint32_t max_generations = 64;
    using generation = bloom_filter<blocked_layout, typename Sync::storage>;
    /// A deadline past the clock's range: no rotation is ever due.
    static constexpr std::uint64_t never = std::numeric_limits<std::uint64_t>::max();

    /// Throws invalid_argument (capacity 0, fpr outside (0,1) or NaN, generations outside
    /// 2..64), too_large or out_of_memory.
    basic_rotating_bloom_filter(std::uint64_t capacity, double fpr, rotating_options options = {})
        : options_(checked(capacity, fpr, std::move(options))), capacity_(capacity), fpr_(fpr) {
        const std::uint32_t g = ring_size();
        const geometry shape = generation::size_for(options_.double_write ? 2 * capacity : capacity,
                                                              fpr / queried());
        check_memory(shape.slots / 8 * g, options_.filter.memory_limit);
        ring_.reserve(g);
        for (std::uint32_t i = 0; i < g; ++i) ring_.emplace_back(shape, options_.filter);
        // relaxed: the constructor; the filter is published to other threads by the caller
        if (options_.period_ns != 0) deadline_.store(later(now(), 1, options_.period_ns), std::memory_order_relaxed);
    }

    /// A filter rebuilt from saved state (composite_format.hpp's loader): `ring` (ring_size()
    /// generations of one shape and the options' seed, in ring order: ring[e % ring_size()] is
    /// current after e rotations), `rotations` rotations so far, and `remaining_ns` of the period
    /// left at the save (`never`: no deadline) at wall-clock time `saved_at_ns`. The time since
    /// the save (wall_clock) is taken off that; if it has run out, the due rotations (at most G)
    /// are performed here, as a tick would have. With manual_clock, remaining_ns is the deadline
    /// itself, in the caller's time, which goes on from where the saved filter's was. Throws
    /// invalid_argument as the other constructor does and for a ring that breaks these rules; the
    /// memory limit is the loader's to check.
    basic_rotating_bloom_filter(std::uint64_t capacity, double fpr, rotating_options options, std::vector<generation> ring,
                                std::uint64_t rotations, std::uint64_t remaining_ns, std::uint64_t saved_at_ns)
        : options_(checked(capacity, fpr, std::move(options))), capacity_(capacity), fpr_(fpr), ring_(std::move(ring)) {
        if (ring_.size() != ring_size())
            throw error(errc::invalid_argument, "the ring holds " + std::to_string(ring_size()) + " generations");
        for (const generation& g : ring_)
            if (g.seed() != seed() || !(g.shape() == ring_[0].shape()) || g.probes() != ring_[0].probes())
                throw error(errc::invalid_argument, "the generations differ in seed or shape");
        epoch_.store(rotations, std::memory_order_relaxed);  // relaxed: the constructor, as above
        if (options_.period_ns == 0) return;
        if (remaining_ns == never || options_.manual_clock) {
            deadline_.store(remaining_ns, std::memory_order_relaxed);  // relaxed: the constructor
            return;
        }
        const std::uint64_t now_wall = wall_now();
        const std::uint64_t passed = now_wall < saved_at_ns ? 0 : now_wall - saved_at_ns;
        const std::uint64_t start = now();
        if (passed < remaining_ns) {
            deadline_.store(later(start, 1, remaining_ns - passed), std::memory_order_relaxed);  // relaxed: the constructor
            return;
        }
        const std::uint64_t late = passed - remaining_ns;  // past the deadline: rotate as tick(start) would have
        for (std::uint64_t i = 0; i <= std::min<std::uint64_t>(late / options_.period_ns, options_.generations - 1); ++i) rotate_locked();
        deadline_.store(later(start, 1, options_.period_ns - late % options_.period_ns), std::memory_order_relaxed);  // relaxed: the constructor
    }

    /// Calls fn(rotations, remaining_ns, wall_ns) with rotations held off (tick skips them,
    /// rotate() waits), adds and queries running on: the ring stays in place while a save writes
    /// it (composite_format.hpp). remaining_ns is the time to the next deadline (0 if due,
    /// `never` if none; with manual_clock the deadline itself, in the caller's time), wall_ns the
    /// wall clock then (0 with manual_clock). Blocking for rotations.
    template <class Fn>
    decltype(auto) with_rotations_paused(Fn fn) const {
        const std::lock_guard lock(rotate_mutex_);
        std::uint64_t remaining = never;
        if (options_.period_ns != 0) {
            const std::uint64_t deadline = deadline_.load(std::memory_order_relaxed);  // relaxed: written under this lock
            const std::uint64_t t = now();
            remaining = deadline == never || options_.manual_clock ? deadline : deadline > t ? deadline - t : 0;
        }
        // relaxed: only rotators write the epoch, and this lock holds them off
        return fn(epoch_.load(std::memory_order_relaxed), remaining, options_.manual_clock ? 0 : wall_now());
    }

    /// Throws invalid_argument or too_large as the constructor does for these arguments. Pure.
    static void check_options(std::uint64_t capacity, double fpr, const rotating_options& o) { (void)checked(capacity, fpr, o); }

    /// The options it was made with (its clocks included).
    const rotating_options& options() const noexcept { return options_; }

    std::uint64_t seed() const noexcept { return options_.filter.seed; }
    std::uint64_t capacity() const noexcept { return capacity_; }  ///< the most keys added in one period
    double fpr() const noexcept { return fpr_; }                   ///< the bound on a whole query's rate
    std::uint32_t generations() const noexcept { return options_.generations; }
    /// Generations a query checks, ages 0 to queried() - 1: G, or in double-write mode G-1 (neither
    /// the next one nor the oldest, which the next rotation clears).
    std::uint32_t queried() const noexcept { return options_.generations - (options_.double_write ? 1 : 0); }
    /// Filters in the ring: G, or G+1 in double-write mode.
    std::uint32_t ring_size() const noexcept { return options_.generations + (options_.double_write ? 1 : 0); }
    /// Rotations so far (each one clears a generation).
    std::uint64_t rotations() const noexcept { return epoch_.load(std::memory_order_acquire); }  // acquire: see rotate

    /// Adds to the current generation (and the next, in double-write mode); true if the key was
    /// new to the current one. Lock-free. (The key-level add first performs due rotations.)
    bool add_hash(hash128 h) noexcept {
        const std::uint64_t e = epoch_.load(std::memory_order_acquire);  // acquire: the cleared words come first
        const bool fresh = at(e).add_hash(h);
        if (options_.double_write) at(e + 1).add_hash(h);
        return fresh;
    }

    /// Wait-free: checks the live generations, newest first. (The key-level contains first
    /// performs due rotations, see the top.)
    bool contains_hash(hash128 h) const noexcept { return contains_hash_unexpired(h, 0); }

    /// contains_hash as if the `expired` oldest generations a query checks were cleared already
    /// (expired >= queried(): false): for a reader that must not rotate, a Redis replica or a
    /// read-only command, yet must not report keys whose rotations are due. Wait-free.
    bool contains_hash_unexpired(hash128 h, std::uint64_t expired) const noexcept {
        const std::uint64_t e = epoch_.load(std::memory_order_acquire);  // acquire: see rotate
        const std::uint64_t live = expired >= queried() ? 0 : queried() - expired;
        for (std::uint32_t age = 0; age < live; ++age)
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
    /// thread is rotating. A no-op without a period, or once the deadline has saturated to
    /// `never`. Safe from any thread. (const, like the queries that call it: time passing is not
    /// a change the caller makes.)
    void tick(std::uint64_t now_ns) const {
        if (!due(now_ns)) return;
        const std::unique_lock lock(rotate_mutex_, std::try_to_lock);
        if (!lock.owns_lock() || !due(now_ns)) return;
        const std::uint64_t deadline = deadline_.load(std::memory_order_relaxed);  // relaxed: written under this lock
        const std::uint64_t passed = (now_ns - deadline) / options_.period_ns;     // whole periods past the deadline
        for (std::uint64_t i = 0; i <= std::min<std::uint64_t>(passed, options_.generations - 1); ++i) rotate_locked();
        // relaxed: read by due() as a hint and rechecked under this lock
        deadline_.store(later(later(deadline, passed, options_.period_ns), 1, options_.period_ns), std::memory_order_relaxed);
    }

    /// The key-level calls' hook (key_operations): with a period and auto_tick, performs the due
    /// rotations; one clock read per call or batch. Never throws: a throwing user clock or a
    /// rotation already under way leaves rotation to a later call.
    void on_key_call() const noexcept {
        if (options_.period_ns == 0 || !options_.auto_tick) return;
        try {
            tick(now());
        } catch (...) {
        }
    }

    /// Ring filter `age`: 0 = current, 1 = the one before, ...; the last one (age ring_size()-1)
    /// is the oldest in single-write mode, the next generation in double-write mode. Throws
    /// invalid_argument for age >= ring_size().
    filter_stats stats(std::uint32_t age) const { return filter_at(age).stats(); }

    /// Ring filter `age` itself (as stats(age)), for its shape; throws as stats(age) does.
    const generation& filter_at(std::uint32_t age) const {
        if (age >= ring_size()) throw error(errc::invalid_argument, "no generation of age " + std::to_string(age));
        return at(rotations() + ring_size() - age);
    }

private:
    static rotating_options checked(std::uint64_t capacity, double fpr, rotating_options o) {
        if (capacity == 0) throw error(errc::invalid_argument, "capacity must be positive");
        if (capacity > (std::uint64_t{1} << 62)) throw error(errc::too_large, "capacity beyond 2^62");
        if (!(fpr > 0.0 && fpr < 1.0)) throw error(errc::invalid_argument, "fpr must be in (0, 1)");
        if (o.generations < 2 || o.generations > max_generations)
            throw error(errc::invalid_argument, "generations must be in 2.." + std::to_string(max_generations));
        if (o.manual_clock) {
            o.clock = [] { return std::uint64_t{0}; };  // the caller's clock starts at 0 now
            o.auto_tick = false;
        }
        return o;
    }


    generation& at(std::uint64_t epoch) const noexcept { return ring_[epoch % ring_.size()]; }

    std::uint64_t now() const {
        if (options_.clock) return options_.clock();
        timespec t{};
        ::clock_gettime(CLOCK_MONOTONIC_COARSE, &t);  // vDSO, no system call
        return static_cast<std::uint64_t>(t.tv_sec) * 1'000'000'000u + static_cast<std::uint64_t>(t.tv_nsec);
    }

    std::uint64_t wall_now() const {
        if (options_.wall_clock) return options_.wall_clock();
        timespec t{};
        ::clock_gettime(CLOCK_REALTIME, &t);
        return static_cast<std::uint64_t>(t.tv_sec) * 1'000'000'000u + static_cast<std::uint64_t>(t.tv_nsec);
    }

    bool due(std::uint64_t now_ns) const noexcept {
        // relaxed: a hint outside the lock, rechecked under it
        const std::uint64_t deadline = deadline_.load(std::memory_order_relaxed);
        return options_.period_ns != 0 && deadline != never && now_ns >= deadline;
    }

    /// t + periods * period, saturating to `never`.
    static std::uint64_t later(std::uint64_t t, std::uint64_t periods, std::uint64_t period) noexcept {
        if (periods != 0 && period > (never - t) / periods) return never;
        return t + periods * period;
    }

    void rotate_locked() const noexcept {
        const std::uint64_t e = epoch_.load(std::memory_order_relaxed);  // relaxed: only rotators write it, under the lock
        at(e + (options_.double_write ? 2 : 1)).clear();
        epoch_.store(e + 1, std::memory_order_release);  // release: adds that see e + 1 see the cleared words
    }

    // mutable: a query may perform a due rotation (see tick)
    rotating_options options_;
    std::uint64_t capacity_;
    double fpr_;
    mutable std::vector<generation> ring_;
    mutable typename Sync::template atomic<std::uint64_t> epoch_{0};
    mutable typename Sync::template atomic<std::uint64_t> deadline_{0};
    mutable typename Sync::mutex rotate_mutex_;
};

using rotating_bloom_filter = basic_rotating_bloom_filter<>;

}  // namespace lfbloom
