// lfbloom-cuckoo-sizing: does a cuckoo filter sized for n hold n? For every n from 1 to 2,000 and
// log-spaced n above (to max_n), and each sizing (a fingerprint width and a rate), builds
// for_capacity(n, rate, width) with seeds 1, 2, ... (2,000 of them below n = 1,000, 200 to 2,000,
// 100 above, times `seed_scale`), adds n distinct random 16-byte keys and counts the filters that
// refused one (full or too_many_duplicates). Prints one tab-separated row per sizing and n.
//
//   lfbloom-cuckoo-sizing [max_n = 20000] [seed_scale = 1]
//
// 16-byte keys: an 8-byte key's MurmurHash3_x64_128 at seed 8 (seed ^ length = 0) gives h2 as a
// function of h1, so every key of a bucket has one fingerprint, which is not what this measures.
// Sizings of one geometry at some n (the picks at 1% and 0.1% are one) build the same filters:
// measured once, printed for each.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include "lfbloom/lfbloom.hpp"

namespace {

std::uint64_t mix(std::uint64_t x) {  // splitmix64's finalizer: a bijection, so distinct inputs give distinct keys
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

struct sizing {
    const char* name;
    double fpr;
    std::uint32_t bits;  ///< 0: the width for_capacity picks
};

}  // namespace

int main(int argc, char** argv) {
    using namespace lfbloom;
    const std::uint64_t max_n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 20000;
    const double seed_scale = argc > 2 ? std::atof(argv[2]) : 1.0;
    const sizing sizings[] = {{"16b@1%", 0.01, 16},   {"17b@1%", 0.01, 17},       {"14b@1%", 0.01, 14},
                              {"auto@1%", 0.01, 0},   {"auto@0.1%", 0.001, 0},    {"auto@0.01%", 0.0001, 0},
                              {"16b@0.01%", 0.0001, 16}};
    std::vector<std::uint64_t> sizes;
    for (std::uint64_t n = 1; n <= std::min<std::uint64_t>(max_n, 2000); ++n) sizes.push_back(n);
    for (double x = 2000; x < static_cast<double>(max_n);) {
        x *= 1.06;
        sizes.push_back(std::min(max_n, static_cast<std::uint64_t>(x)));
    }
    std::map<std::tuple<std::uint64_t, std::uint64_t, std::uint32_t>, std::pair<std::uint64_t, std::uint64_t>> measured;
    std::printf("sizing\tbits\tn\tbuckets\tload\tfilters\tfull\ttoo_many_duplicates\n");
    for (const sizing& s : sizings)
        for (const std::uint64_t n : sizes) {
            const std::uint64_t seeds = static_cast<std::uint64_t>(seed_scale * (n < 1000 ? 2000 : n <= 2000 ? 200 : 100));
            const geometry g = cuckoo_filter::size_for(n, s.fpr, s.bits);
            const auto key = std::make_tuple(n, g.slots, g.slot_bits);
            auto found = measured.find(key);
            if (found == measured.end()) {
                std::uint64_t full = 0, duplicates = 0;
                for (std::uint64_t seed = 1; seed <= seeds; ++seed) {
                    auto f = cuckoo_filter::for_capacity(n, s.fpr, s.bits, filter_options{.seed = seed});
                    for (std::uint64_t i = 0; i < n; ++i) {
                        const std::uint64_t words[2] = {mix(seed << 32 | i), mix(~(seed << 32 | i))};
                        const cuckoo_status st = f.insert(key_view(reinterpret_cast<const std::byte*>(words), sizeof words));
                        if (st == cuckoo_status::full || st == cuckoo_status::too_many_duplicates) {
                            ++(st == cuckoo_status::full ? full : duplicates);
                            break;
                        }
                    }
                }
                found = measured.emplace(key, std::pair{full, duplicates}).first;
            }
            std::printf("%s\t%u\t%llu\t%llu\t%.4f\t%llu\t%llu\t%llu\n", s.name, g.slot_bits, static_cast<unsigned long long>(n),
                        static_cast<unsigned long long>(g.slots / cuckoo_filter::slots_for(g.slot_bits)),
                        static_cast<double>(n) / static_cast<double>(g.slots), static_cast<unsigned long long>(seeds),
                        static_cast<unsigned long long>(found->second.first), static_cast<unsigned long long>(found->second.second));
            std::fflush(stdout);
        }
}
