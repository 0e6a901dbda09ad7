// The concurrency primitives of the filters, as one policy type, so that the same templates run
// in production and under a model checker (folly's `template <template <typename> class Atom>`
// pattern; tests/relacy instantiates them with Relacy's atomics, which explore every
// interleaving and every outcome the C++ memory model allows).
//
// A Sync policy provides:
// - `atomic<T>`: std::atomic's interface (load, store, exchange, fetch_add, fetch_sub, fetch_or,
//   compare_exchange_strong), with std::memory_order arguments;
// - `mutex`: a Lockable (lock, try_lock, unlock);
// - `storage`: the word array type, whose data() yields words that the word operations of
//   storage.hpp (load_word, or_bits, update_word, ...) act on;
// - `thread`: std::thread's constructor from a callable, joinable() and join();
// - `yield()`: what a thread that waits for another does between two looks;
// - `thread_slot()`: a small number per thread, for spreading counters over stripes;
//   `reader_stripes`: how many stripes;
// - `robust_mutex`: a lock that lives in `robust_mutex::words` words of memory several processes
//   map, and that the kernel hands to the next locker when its holder dies (lock() answers
//   owner_died then), with init, a bounded lock, consistent and unlock (cuckoo_filter's shared
//   stripe locks; tests/relacy's model lets a thread die at any step).
#pragma once

#include <pthread.h>
#include <time.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <mutex>
#include <new>
#include <thread>

#include "lfbloom/base/storage.hpp"

// ThreadSanitizer's pthread_mutex_timedlock interceptor (GCC 12's libtsan; upstream's
// test mutex_robust2 is marked failing for it) ignores EOWNERDEAD; robust_mutex::lock tells it.
#if defined(__SANITIZE_THREAD__)
#define LFBLOOM_TSAN_TIMEDLOCK_MISSES_OWNERDEAD 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define LFBLOOM_TSAN_TIMEDLOCK_MISSES_OWNERDEAD 1
#endif
#endif
#ifdef LFBLOOM_TSAN_TIMEDLOCK_MISSES_OWNERDEAD
#include <sanitizer/tsan_interface.h>
#else
#define LFBLOOM_TSAN_TIMEDLOCK_MISSES_OWNERDEAD 0
#endif

namespace lfbloom {

struct default_sync {
    template <class T>
    using atomic = std::atomic<T>;
    using mutex = std::mutex;
    using storage = word_array;
    using thread = std::thread;

    static constexpr unsigned reader_stripes = 16;

    static void yield() noexcept { std::this_thread::yield(); }

    static unsigned thread_slot() noexcept {
        static std::atomic<unsigned> next{0};
        // relaxed: any spread of threads over stripes is correct; this only avoids sharing lines
        thread_local const unsigned slot = next.fetch_add(1, std::memory_order_relaxed);
        return slot;
    }

    /// A process-shared robust mutex (POSIX PTHREAD_PROCESS_SHARED + PTHREAD_MUTEX_ROBUST) in the
    /// first `words` words of a record the caller places in shared memory (a file several
    /// processes map, or anonymous shared memory inherited by fork). When a holder dies, the
    /// kernel's robust-futex list marks the mutex and the next locker gets owner_died: it owns the
    /// lock then, repairs what the dead holder left, and calls consistent() before unlock(). No
    /// process ids are compared: the kernel knows which thread holds it, in which incarnation.
    /// Uncontended lock and unlock are one atomic instruction each, without a system call.
    /// Error-checking: a thread that locks a mutex it holds gets `broken`, never a deadlock.
    struct robust_mutex {
        static constexpr unsigned words = 5;
        static_assert(sizeof(pthread_mutex_t) <= words * 8 && alignof(pthread_mutex_t) <= 8);

        enum class outcome { acquired, owner_died, timed_out, broken };

        /// Makes `at` an unlocked mutex. Only while no thread or process can use it (a new lock
        /// area, or one its first opener resets). False if the system refused (the caller throws).
        static bool init(std::uint64_t* at) noexcept {
            pthread_mutexattr_t attr;
            if (::pthread_mutexattr_init(&attr) != 0) return false;
            const bool made = ::pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED) == 0 &&
                              ::pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST) == 0 &&
                              ::pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ERRORCHECK) == 0 &&
                              ::pthread_mutex_init(::new (static_cast<void*>(at)) pthread_mutex_t, &attr) == 0;
            ::pthread_mutexattr_destroy(&attr);
            return made;
        }

        /// Locks, waiting at most `timeout_ms` milliseconds. Acquire and release as any mutex:
        /// the previous holder's writes happen-before this critical section (for a holder that
        /// died, the kernel's exit orders its stores before the hand-over).
        static outcome lock(std::uint64_t* at, std::uint32_t timeout_ms) noexcept {
            pthread_mutex_t* m = mutex_at(at);
            int rc = ::pthread_mutex_trylock(m);  // the uncontended path: no clock read
            if (rc == EBUSY) {
                timespec deadline;
                ::clock_gettime(CLOCK_REALTIME, &deadline);  // timedlock's clock (TSan sees timedlock, not clocklock)
                deadline.tv_sec += static_cast<time_t>(timeout_ms / 1000);
                deadline.tv_nsec += static_cast<long>(timeout_ms % 1000) * 1000000L;
                if (deadline.tv_nsec >= 1000000000L) {
                    deadline.tv_sec += 1;
                    deadline.tv_nsec -= 1000000000L;
                }
                rc = ::pthread_mutex_timedlock(m, &deadline);
#if LFBLOOM_TSAN_TIMEDLOCK_MISSES_OWNERDEAD
                // TSan's timedlock interceptor records only rc == 0 as a lock, so the unlock after
                // EOWNERDEAD would be reported as "unlock of an unlocked mutex": record it here.
                if (rc == EOWNERDEAD) {
                    __tsan_mutex_pre_lock(m, __tsan_mutex_try_lock);  // post_lock ends what pre_lock begins
                    __tsan_mutex_post_lock(m, __tsan_mutex_try_lock, 0);
                }
#endif
            }
            switch (rc) {
                case 0: return outcome::acquired;
                case EOWNERDEAD: return outcome::owner_died;
                case ETIMEDOUT: return outcome::timed_out;
                default: return outcome::broken;  // ENOTRECOVERABLE, EDEADLK, EINVAL: not a usable lock
            }
        }

        /// After owner_died, once the repair is done: the mutex is usable again.
        static void consistent(std::uint64_t* at) noexcept { ::pthread_mutex_consistent(mutex_at(at)); }
        static void unlock(std::uint64_t* at) noexcept { ::pthread_mutex_unlock(mutex_at(at)); }

    private:
        static pthread_mutex_t* mutex_at(std::uint64_t* at) noexcept {
            return std::launder(reinterpret_cast<pthread_mutex_t*>(at));
        }
    };
};

}  // namespace lfbloom
