// swappable_filter<Filter>: a handle whose filter is replaced atomically by a freshly built one
// (rebuilt from the database, say) while other threads keep using it.
//
// Rebuilding without a gap: stage(next) makes every add also go to `next`; the caller then fills
// `next` from the source of truth (add_staged) and calls publish(). A key whose add began after
// stage() returned is in `next`, and every key the rebuild read from the source is too. For no
// key to fall between the two, a writer must record a key in the source before adding it, with
// synchronization that orders the record against the rebuild's read (a database transaction or a
// mutex does): then either the rebuild reads the record, or its read came first, and since
// stage() returned before that read, the add that follows the record sees `next`. replace(next)
// is stage + publish for a filter that is already complete.
//
// Reclamation: readers announce themselves in striped counters (two sets, so a replacer can wait
// for one set to drain while new readers enter the other: sleepable-RCU style, as Linux's SRCU).
// A replacer publishes the new pointer, then waits until each counter of both sets has been seen
// at zero, and only then frees the old filter: every reader that could have loaded the old
// pointer had incremented a counter before loading it, so it has left. Chosen over reference
// counts on the filter (one shared counter every query would write: a contended cache line) and
// hazard pointers (a per-thread registry and a scan per free); a query costs two uncontended
// atomic increments on its own stripe, measured in bench/ ("swappable"). Replacers wait; readers
// and writers never do.
//
// Thread safety: every member may be called from any thread at once. stage, publish and replace
// are serialized among themselves by a mutex and block until readers of the old filter leave.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>

#include "lfbloom/base/error.hpp"
#include "lfbloom/base/storage.hpp"
#include "lfbloom/base/sync.hpp"

namespace lfbloom {

namespace detail {

/// Counts readers in padded stripes, in two sets; synchronize() returns once every reader that
/// entered before it was called has left.
template <class Sync = default_sync>
class reader_registry {
public:
    struct token {
        unsigned set, stripe;
    };

    token enter() const noexcept {
        const unsigned stripe = Sync::thread_slot() % stripes;
        const unsigned set = phase_.load(std::memory_order_relaxed);  // relaxed: synchronize drains both sets
        // seq_cst: ordered before the reader's (seq_cst) pointer load; see synchronize
        counts_[set][stripe].value.fetch_add(1, std::memory_order_seq_cst);
        return {set, stripe};
    }

    void leave(token t) const noexcept {
        // release: the reader's use of the filter happens-before the replacer's load that sees zero
        counts_[t.set][t.stripe].value.fetch_sub(1, std::memory_order_release);
    }

    /// Call after publishing a new pointer with a seq_cst store; callers serialize. A reader that
    /// loaded the old pointer incremented its counter before (seq_cst order), so the seq_cst loads
    /// here see that increment and wait for the matching decrement. Flipping the phase first sends
    /// most new readers to the other set (one that read the phase just before the flip may still
    /// enter the set being drained), so the wait ends: this is about progress, not safety.
    void synchronize() const noexcept {
        for (int round = 0; round < 2; ++round) {
            const unsigned old = phase_.load(std::memory_order_relaxed);  // relaxed: only synchronizers write it
            phase_.store(old ^ 1u, std::memory_order_seq_cst);
            for (const auto& c : counts_[old])
                while (c.value.load(std::memory_order_seq_cst) != 0) Sync::yield();
        }
    }

private:
    static constexpr unsigned stripes = Sync::reader_stripes;
    struct alignas(cache_line_bytes) counter {
        typename Sync::template atomic<std::int64_t> value{0};
    };

    mutable counter counts_[2][stripes];
    mutable typename Sync::template atomic<unsigned> phase_{0};
};

}  // namespace detail

template <class Filter, class Sync = default_sync>
class swappable_filter {
public:
    /// Throws invalid_argument for a null filter.
    explicit swappable_filter(std::unique_ptr<Filter> initial) : current_(checked(std::move(initial)).release()) {}
    swappable_filter(const swappable_filter&) = delete;
    swappable_filter& operator=(const swappable_filter&) = delete;
    ~swappable_filter() {  // exclusive access: no reader is left
        delete current_.load(std::memory_order_relaxed);
        delete staged_.load(std::memory_order_relaxed);
    }

    /// A pinned view of the current filter: it stays alive (even if replaced) until the guard is
    /// destroyed. Use one for many queries in a row; hold it briefly, since a replace waits for it.
    class guard {
    public:
        guard(guard&&) = delete;
        ~guard() { registry_.leave(token_); }
        Filter& operator*() const noexcept { return *filter_; }
        Filter* operator->() const noexcept { return filter_; }
        /// The staged filter, or null: adds made through the guard should go to both.
        Filter* staged() const noexcept { return staged_; }

    private:
        friend class swappable_filter;
        explicit guard(const swappable_filter& h) noexcept
            : registry_(h.registry_),
              token_(registry_.enter()),
              staged_(h.staged_.load(std::memory_order_seq_cst)),     // seq_cst: after enter(), see reader_registry
              filter_(h.current_.load(std::memory_order_seq_cst)) {}  // seq_cst: after staged_, see publish_locked
        const detail::reader_registry<Sync>& registry_;
        typename detail::reader_registry<Sync>::token token_;
        Filter* staged_;  // declared (so initialized) before filter_: the load order matters
        Filter* filter_;
    };

    guard pin() const noexcept { return guard(*this); }

    /// Adds to the current filter and to the staged one if any; returns the current's answer.
    template <class Key>
    bool add(const Key& key) {
        const guard g = pin();
        // During a publish a writer may see staged == current (next in both): one add is enough
        // there, and a second one would answer "not new" for a new key.
        if (Filter* s = g.staged(); s != nullptr && s != &*g) s->add(key);
        return g->add(key);
    }
    /// Adds to the staged filter only: the rebuild reading its source of truth. Throws
    /// invalid_argument if nothing is staged.
    template <class Key>
    bool add_staged(const Key& key) {
        const guard g = pin();
        if (g.staged() == nullptr) throw error(errc::invalid_argument, "nothing is staged to rebuild");
        return g.staged()->add(key);
    }
    template <class Key>
    bool contains(const Key& key) const noexcept {
        return pin()->contains(key);
    }

    /// From now on every add also goes to `next`; a previously staged filter is discarded.
    /// Throws invalid_argument for null. Waits for readers that may hold a discarded one. `next`
    /// is moved from only once nothing can fail: after a throw it is the caller's still.
    void stage(std::unique_ptr<Filter>&& next) {
        checked(next);
        const std::lock_guard lock(replace_mutex_);
        stage_locked(std::move(next));
    }

    /// Makes the staged filter current and returns the old one once no reader holds it. Throws
    /// invalid_argument if nothing is staged.
    std::unique_ptr<Filter> publish() {
        const std::lock_guard lock(replace_mutex_);
        return publish_locked();
    }

    /// Replaces the filter with a complete one; returns the old one once no reader holds it.
    /// `next` as stage() takes it.
    std::unique_ptr<Filter> replace(std::unique_ptr<Filter>&& next) {
        checked(next);
        const std::lock_guard lock(replace_mutex_);
        stage_locked(std::move(next));
        return publish_locked();
    }

    /// Replacements so far.
    std::uint64_t generation() const noexcept { return generation_.load(std::memory_order_relaxed); }  // relaxed: a statistic

private:
    void stage_locked(std::unique_ptr<Filter>&& next) {
        const std::unique_ptr<Filter> old(staged_.exchange(next.release(), std::memory_order_seq_cst));  // seq_cst: see guard
        if (old) registry_.synchronize();
    }

    // A writer (guard) loads staged_ first, then current_; publish writes current_ first, then
    // staged_, all seq_cst. So a writer that sees staged_ null after the publish also sees the
    // new current_; one that sees the old current_ read staged_ earlier still, so it saw next, or
    // it began before stage() returned, a key the rebuild reads from the source (see the top).
    // (With the loads the other way round, a writer could read the old current_ and then a null
    // staged_, and add only to the filter being retired: keys lost.)
    std::unique_ptr<Filter> publish_locked() {
        Filter* next = staged_.load(std::memory_order_relaxed);  // relaxed: only replacers write it, under the lock
        if (next == nullptr) throw error(errc::invalid_argument, "nothing is staged to publish");
        std::unique_ptr<Filter> old(current_.exchange(next, std::memory_order_seq_cst));  // seq_cst: see guard
        staged_.store(nullptr, std::memory_order_seq_cst);                                 // seq_cst: see guard
        generation_.fetch_add(1, std::memory_order_relaxed);                               // relaxed: a statistic
        registry_.synchronize();
        return old;
    }

    static std::unique_ptr<Filter>&& checked(std::unique_ptr<Filter>&& f) {
        if (!f) throw error(errc::invalid_argument, "the filter is null");
        return std::move(f);
    }
    static void checked(const std::unique_ptr<Filter>& f) {
        if (!f) throw error(errc::invalid_argument, "the filter is null");
    }

    template <class T>
    using atomic = typename Sync::template atomic<T>;

    atomic<Filter*> current_;
    atomic<Filter*> staged_{nullptr};
    atomic<std::uint64_t> generation_{0};
    detail::reader_registry<Sync> registry_;
    typename Sync::mutex replace_mutex_;
};

}  // namespace lfbloom
