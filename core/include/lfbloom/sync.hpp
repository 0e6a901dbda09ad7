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
// - `owner_id()`: this process's id as a lock owner (1 to 2^22 - 1), and `owner_gone(id)`: whether
//   that process has ended, so a lock it held in shared memory may be taken over (cuckoo_filter).
#pragma once

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/types.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string_view>
#include <thread>

#include "lfbloom/storage.hpp"

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

    /// getpid(), cached (it is a system call, and adds take a lock with it); a forked child clears
    /// the cache (pthread_atfork), so it gets its own; without that handler nothing is cached.
    /// Linux pids are below 2^22 (PID_MAX_LIMIT).
    static std::uint64_t owner_id() noexcept {
        static std::atomic<std::uint64_t> cached{0};
        static const bool cacheable =
            ::pthread_atfork(nullptr, nullptr, [] { cached.store(0, std::memory_order_relaxed); }) == 0;
        // relaxed (all three): every thread of a process computes the same value
        std::uint64_t id = cached.load(std::memory_order_relaxed);
        if (id == 0) {
            id = static_cast<std::uint64_t>(::getpid());
            if (cacheable) cached.store(id, std::memory_order_relaxed);
        }
        return id;
    }

    /// True if process `id` has ended: gone (reaped), or a zombie whose parent has not reaped it
    /// yet and which has no thread left (a zombie leader whose other threads run is alive). A
    /// live process of another user (kill gives EPERM) is not gone, nor one this cannot tell.
    /// Reads /proc; a few system calls, for waiters that have waited long.
    static bool owner_gone(std::uint64_t id) noexcept {
        if (::kill(static_cast<pid_t>(id), 0) != 0) return errno == ESRCH;
        char path[48], stat[128];  // "pid (name) state ...": the name is at most 15 bytes
        std::snprintf(path, sizeof path, "/proc/%llu/stat", static_cast<unsigned long long>(id));
        const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) return false;
        const ssize_t got = ::read(fd, stat, sizeof stat - 1);
        ::close(fd);
        if (got <= 0) return false;
        const std::string_view line(stat, static_cast<std::size_t>(got));
        const auto close = line.rfind(')');  // the name may hold spaces and parentheses
        if (close == line.npos || close + 2 >= line.size() || (line[close + 2] != 'Z' && line[close + 2] != 'X')) return false;
        std::snprintf(path, sizeof path, "/proc/%llu/task", static_cast<unsigned long long>(id));
        DIR* tasks = ::opendir(path);
        if (tasks == nullptr) return false;
        int threads = 0;
        while (const dirent* e = ::readdir(tasks)) threads += e->d_name[0] != '.';
        ::closedir(tasks);
        return threads <= 1;  // only the zombie leader itself
    }
};

}  // namespace lfbloom
