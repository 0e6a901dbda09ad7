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
//   `reader_stripes`: how many stripes.
#pragma once

#include <atomic>
#include <mutex>
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
};

}  // namespace lfbloom
