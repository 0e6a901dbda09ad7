// The Sync policy under Relacy (tests/relacy): the core's concurrent templates instantiated with
// Relacy's atomics, mutex and scheduler, so its search explores their interleavings and every
// value the C++ memory model lets each load return. Include this after the core headers.
//
// relacy.hpp itself is not included: it #defines memory_order_relaxed, new, delete, ... which
// would rewrite the core and the standard library. The headers it gathers are included instead.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <source_location>

#include <boost/memory_order.hpp>

#include <relacy/base.hpp>
#include <relacy/context.hpp>
#include <relacy/context_base_impl.hpp>
#include <relacy/backoff.hpp>
#include <relacy/atomic_fence.hpp>
#include <relacy/atomic.hpp>
#include <relacy/var.hpp>
#include <relacy/thread_local.hpp>
#include <relacy/test_suite.hpp>
#include <relacy/dyn_thread.hpp>
#include <relacy/stdlib/mutex.hpp>
#include <relacy/stdlib/condition_variable.hpp>
#include <relacy/stdlib/semaphore.hpp>
#include <relacy/stdlib/event.hpp>

// Relacy replaces operator new and delete with inline definitions, so the compiler emits an
// out-of-line copy (which the dynamic linker then gives libstdc++ too) only of those it does not
// inline everywhere. Where delete was emitted and new was not, memory libstdc++ allocated
// itself (std::runtime_error's message) went to Relacy's delete: "incorrect address passed to
// free()". Taking their addresses emits all four.
[[gnu::used]] static void* (*const relacy_new)(std::size_t) = &::operator new;
[[gnu::used]] static void* (*const relacy_new_array)(std::size_t) = &::operator new[];
[[gnu::used]] static void (*const relacy_delete)(void*) noexcept = &::operator delete;
[[gnu::used]] static void (*const relacy_delete_array)(void*) noexcept = &::operator delete[];

namespace lfbloom::model {

inline rl::debug_info here(const std::source_location& at) {
    return rl::debug_info(at.function_name(), at.file_name(), at.line());
}

inline rl::memory_order to_rl(std::memory_order mo) {
    switch (mo) {
        case std::memory_order::relaxed: return rl::mo_relaxed;
        case std::memory_order::consume: return rl::mo_consume;
        case std::memory_order::acquire: return rl::mo_acquire;
        case std::memory_order::release: return rl::mo_release;
        case std::memory_order::acq_rel: return rl::mo_acq_rel;
        default: return rl::mo_seq_cst;
    }
}

inline rl::memory_order to_rl(boost::memory_order mo) {
    switch (mo) {
        case boost::memory_order::relaxed: return rl::mo_relaxed;
        case boost::memory_order::consume: return rl::mo_consume;
        case boost::memory_order::acquire: return rl::mo_acquire;
        case boost::memory_order::release: return rl::mo_release;
        case boost::memory_order::acq_rel: return rl::mo_acq_rel;
        default: return rl::mo_seq_cst;
    }
}

/// std::atomic's interface over rl::atomic; every access is a scheduling point with its call
/// site recorded in Relacy's history. Default-constructed atomics hold T{} (as std::atomic's
/// value-initialization does), so a load before any store is defined.
template <class T>
class atomic {
public:
    using loc = std::source_location;
    using order = std::memory_order;

    atomic() : atomic(T{}) {}
    atomic(T value) { a_.store(value, rl::mo_relaxed, here(loc::current())); }
    atomic(const atomic&) = delete;
    atomic& operator=(const atomic&) = delete;

    T load(order mo = order::seq_cst, loc at = loc::current()) const { return a_.load(to_rl(mo), here(at)); }
    void store(T v, order mo = order::seq_cst, loc at = loc::current()) { a_.store(v, to_rl(mo), here(at)); }
    T exchange(T v, order mo = order::seq_cst, loc at = loc::current()) { return a_.exchange(v, to_rl(mo), here(at)); }
    T fetch_add(T v, order mo = order::seq_cst, loc at = loc::current()) { return a_.fetch_add(v, to_rl(mo), here(at)); }
    T fetch_sub(T v, order mo = order::seq_cst, loc at = loc::current()) { return a_.fetch_sub(v, to_rl(mo), here(at)); }
    T fetch_or(T v, order mo = order::seq_cst, loc at = loc::current()) { return a_.fetch_or(v, to_rl(mo), here(at)); }
    bool compare_exchange_strong(T& expected, T desired, order mo = order::seq_cst, loc at = loc::current()) {
        return a_.compare_exchange_strong(expected, desired, to_rl(mo), here(at));
    }

private:
    rl::atomic<T> a_;
};

class word;

/// One thread's mortality (below).
struct mortal_state {
    int steps_left = -1;  ///< -1: immortal
    bool dead = false;
    word* held[8] = {};
};

/// Death of a thread under the checker, as a process dies: a mortal thread dies just before its
/// n-th word operation (n chosen by the check, rl::rand explores every n), and from then on it is
/// a ghost: its word operations do nothing (loads read 0, CASes "succeed"), so its code runs out
/// without effect, and the robust mutexes it held are marked as the kernel marks them (owner
/// died, with release). Each check's constructor calls reset(); checks skip a ghost's assertions.
class mortality {
public:
    static constexpr unsigned max_threads = 8;
    static void reset() {
        for (auto& t : threads_) t = {};
    }
    /// The calling thread dies before its `steps`-th word operation from now (0: the next one).
    static void mortal(unsigned steps) { self().steps_left = static_cast<int>(steps); }
    static bool dead() { return self().dead; }
    /// Called by every word operation: true if it must do nothing (the thread is dead).
    static bool ghost();
    /// The robust mutex word `w`, just taken or released by the calling thread.
    static void took(word* w) {
        auto& me = self();
        for (auto& h : me.held)
            if (h == nullptr) {
                h = w;
                return;
            }
        std::abort();
    }
    static void released(word* w) {
        for (auto& h : self().held)
            if (h == w) h = nullptr;
    }
    static constexpr std::uint64_t owner_died = 2;

private:
    using state = mortal_state;
    static state& self() { return threads_[rl::ctx().current_thread()]; }
    static inline state threads_[max_threads];
};

/// One filter word under the checker; word_ref (found by argument-dependent lookup from
/// storage.hpp's word operations) hands it to them in place of boost::ipc_atomic_ref.
class word {
public:
    using loc = std::source_location;
    using order = boost::memory_order;

    word() { a_.store(0, rl::mo_relaxed, here(loc::current())); }

    std::uint64_t load(order mo, loc at = loc::current()) const {
        return mortality::ghost() ? 0 : a_.load(to_rl(mo), here(at));
    }
    void store(std::uint64_t v, order mo, loc at = loc::current()) {
        if (!mortality::ghost()) a_.store(v, to_rl(mo), here(at));
    }
    std::uint64_t fetch_or(std::uint64_t v, order mo, loc at = loc::current()) {
        return mortality::ghost() ? 0 : a_.fetch_or(v, to_rl(mo), here(at));
    }
    bool compare_exchange_weak(std::uint64_t& expected, std::uint64_t desired, order mo, order, loc at = loc::current()) {
        return mortality::ghost() || a_.compare_exchange_weak(expected, desired, to_rl(mo), here(at));
    }
    /// What the kernel does to a dead thread's robust mutex (mortality).
    void mark_owner_died() { a_.store(mortality::owner_died, rl::mo_release, here(loc::current())); }

private:
    rl::atomic<std::uint64_t> a_;
};

inline bool mortality::ghost() {
    auto& me = self();
    if (me.dead) return true;
    if (me.steps_left < 0 || me.steps_left-- > 0) return false;
    for (auto& h : me.held) {
        if (h != nullptr) h->mark_owner_died();
        h = nullptr;
    }
    me.dead = true;
    return true;
}

inline word& word_ref(word& w) noexcept { return w; }

/// The word array of a filter under the checker: a few Relacy words, built per iteration.
/// share() gives a second array over the same words, as a second mapping of one file would.
class storage {
public:
    storage() = default;
    storage(std::uint64_t words, std::uint64_t /*memory_limit*/, bool /*process_shared*/)
        : words_(std::shared_ptr<word[]>(new word[words])), size_(words) {}
    word* data() const noexcept { return words_.get(); }
    std::uint64_t size() const noexcept { return size_; }
    std::uint64_t bytes() const noexcept { return size_ * 8; }
    void flush() const noexcept {}
    storage share() const {
        storage s;
        s.words_ = words_;
        s.size_ = size_;
        return s;
    }

private:
    std::shared_ptr<word[]> words_;
    std::uint64_t size_ = 0;
};

/// Sync::robust_mutex under the checker: word 0 of the record is 0 (free), 1 (held) or
/// mortality::owner_died (free, its holder dead); a dead thread's holds are marked by mortality.
struct robust_mutex {
    static constexpr unsigned words = 5;
    enum class outcome { acquired, owner_died, timed_out, broken };
    static bool init(word* at) {
        at->store(0, boost::memory_order_relaxed);
        return true;
    }
    static outcome lock(word* at, std::uint32_t) {
        for (;;) {
            std::uint64_t seen = at->load(boost::memory_order_relaxed);
            if (seen != 1 && at->compare_exchange_weak(seen, 1, boost::memory_order_acquire, boost::memory_order_relaxed)) {
                if (!mortality::dead()) mortality::took(at);
                return seen == mortality::owner_died ? outcome::owner_died : outcome::acquired;
            }
            rl::yield(1, $);
        }
    }
    static void consistent(word*) {}
    static void unlock(word* at) {
        at->store(0, boost::memory_order_release);  // first: a thread that dies here still holds it
        if (!mortality::dead()) mortality::released(at);
    }
};

class mutex {
public:
    void lock() { m_.lock($); }
    bool try_lock() { return m_.try_lock($); }
    void unlock() { m_.unlock($); }

private:
    rl::mutex m_;
};

/// Runs its callable at once on the calling thread: under the checker a scalable filter's
/// ahead-of-time build is one more racer of install(), on the thread that triggered it.
class inline_thread {
public:
    inline_thread() = default;
    template <class F>
    explicit inline_thread(F f) {
        f();
    }
    bool joinable() const noexcept { return false; }
    void join() noexcept {}
};

struct sync {
    template <class T>
    using atomic = model::atomic<T>;
    using mutex = model::mutex;
    using storage = model::storage;
    using thread = inline_thread;

    static constexpr unsigned reader_stripes = 2;

    using robust_mutex = model::robust_mutex;

    static void yield() { rl::yield(1, $); }
    static unsigned thread_slot() { return rl::ctx().current_thread(); }
};

}  // namespace lfbloom::model
