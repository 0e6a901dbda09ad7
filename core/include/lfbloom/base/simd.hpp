// Which vector instructions the core uses, chosen at run time: the shipped library runs on any
// x86-64 and takes AVX2 where the CPU has it. Every vector path computes exactly what its scalar
// path computes (the tests compare them bit for bit), so the choice never changes a filter's bits.
#pragma once

#include <atomic>
#include <cstdlib>
#include <cstring>

// The hot calls are flattened (the hash and probe inlined into the key-level calls: see
// key.hpp's grouped() and add() for what that is worth; the blocked layout's probes). Not under a
// sanitizer, where it measures nothing and multiplies the instrumented code: the C library, which
// instantiates every kind, took over 6 minutes to compile with ASan and UBSan instead of 1. Not
// where LFBLOOM_NO_FLATTEN is defined: the Relacy model checks (tests/relacy), whose modelled
// atomics are calls into the checker that flatten copied into every probe (their three largest
// programs took 3.5 to 7 minutes each to compile at -O2).
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || defined(LFBLOOM_NO_FLATTEN)
#define LFBLOOM_FLATTEN
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define LFBLOOM_FLATTEN
#endif
#endif
#ifndef LFBLOOM_FLATTEN
#define LFBLOOM_FLATTEN [[gnu::flatten]]
#endif

namespace lfbloom::simd {

enum class level : int {
    scalar = 0,
    avx2 = 1,
};

/// The best level this CPU supports, lowered to scalar when the environment variable
/// LFBLOOM_SIMD is "scalar" (read once, at the first call).
inline level supported() noexcept {
    static const level best = [] {
        const char* forced = std::getenv("LFBLOOM_SIMD");
        if (forced != nullptr && std::strcmp(forced, "scalar") == 0) return level::scalar;
#if defined(__x86_64__)
        __builtin_cpu_init();
        if (__builtin_cpu_supports("avx2")) return level::avx2;
#endif
        return level::scalar;
    }();
    return best;
}

namespace detail {
inline std::atomic<int> chosen{-1};  ///< -1 until the first use
}

/// The level in use. Thread-safe. Relaxed: both levels compute the same bits, so a thread that
/// sees an old choice still answers correctly.
inline level current() noexcept {
    int c = detail::chosen.load(std::memory_order_relaxed);
    if (c < 0) detail::chosen.store(c = static_cast<int>(supported()), std::memory_order_relaxed);
    return static_cast<level>(c);
}
inline bool avx2() noexcept { return current() == level::avx2; }

/// Uses `wanted`, lowered to what the CPU supports; returns the level now in use. For tests and
/// benchmarks that compare the paths; safe while other threads use filters (see current()).
inline level use(level wanted) noexcept {
    const level l = static_cast<int>(wanted) <= static_cast<int>(supported()) ? wanted : supported();
    detail::chosen.store(static_cast<int>(l), std::memory_order_relaxed);
    return l;
}

}  // namespace lfbloom::simd
