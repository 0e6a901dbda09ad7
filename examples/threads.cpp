// A first look at lfbloom: several threads share one filter, adding and querying at once, then
// the filter reports its statistics. Exits non-zero if any added key is reported absent.
#include <atomic>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "lfbloom/lfbloom.hpp"

int main() {
    const std::uint64_t capacity = 1000000;
    const double rate = 0.01;
    auto f = lfbloom::filter::for_capacity(capacity, rate);  // blocked layout

    const unsigned threads = std::max(2u, std::thread::hardware_concurrency());
    const std::uint64_t per_thread = capacity / threads;
    std::atomic<std::uint64_t> false_negatives{0}, false_positives{0};
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
            for (std::uint64_t i = 0; i < per_thread; ++i) {
                const std::string key = "user:" + std::to_string(t * per_thread + i);
                f.add(key);
                if (!f.contains(key)) ++false_negatives;  // never happens
            }
        });
    for (auto& th : pool) th.join();
    // Now full: every added key must still answer yes; keys never added answer yes at about the rate.
    for (std::uint64_t i = 0; i < per_thread * threads; ++i) {
        if (!f.contains("user:" + std::to_string(i))) ++false_negatives;
        if (f.contains("absent:" + std::to_string(i))) ++false_positives;
    }

    const lfbloom::filter_stats s = f.stats();
    std::printf("threads            %u\n", threads);
    std::printf("keys added         %llu\n", static_cast<unsigned long long>(per_thread * threads));
    std::printf("bits / hashes      %llu / %u (%llu bytes)\n", static_cast<unsigned long long>(s.slots), s.hashes,
                static_cast<unsigned long long>(s.bytes));
    std::printf("bits set           %llu (fill %.3f)\n", static_cast<unsigned long long>(s.slots_set), s.fill_ratio);
    std::printf("estimated count    %.0f\n", s.estimated_count);
    std::printf("estimated FPR      %.5f (target %.5f)\n", s.estimated_fpr, s.target_fpr);
    std::printf("measured FPR       %.5f\n", static_cast<double>(false_positives) / (per_thread * threads));
    std::printf("near capacity      %s\n", s.near_capacity ? "yes" : "no");
    std::printf("false negatives    %llu\n", static_cast<unsigned long long>(false_negatives.load()));
    return false_negatives == 0 ? 0 : 1;
}
