// lfbloom-prefetch-tune: how many keys a batch should hash and prefetch before it probes, measured
// rather than guessed. For each layout and filter size it times batch add and absent-key lookups
// under three schedules, and the memory floor (one random line read per key, no hashing) under
// the same ones:
//   group G:   hash and prefetch G keys, then probe those G (what key_operations::for_batches does
//              with G = batch_size);
//   rolling D: a ring of D hashes; each key is hashed and prefetched D keys before its probe;
//   pipelined G: hash and prefetch the next G keys, then probe the previous G.
// Prints ns per key, the median of --repetitions runs. Run it alone: it measures the memory system.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "lfbloom/lfbloom.hpp"

using namespace lfbloom;
namespace po = boost::program_options;

namespace {

unsigned repetitions = 5;
volatile std::uint64_t sink;

struct schedule {
    enum kind_t { group, rolling, pipelined } kind;
    unsigned keys;  // G or D
    std::string name() const {
        return std::string(kind == group ? "group-" : kind == rolling ? "rolling-" : "pipelined-") + std::to_string(keys);
    }
};

/// Runs the schedule over n items: hash(i) -> h, prefetch(h), then probe(h) (which returns 0/1).
template <class Hash, class Prefetch, class Probe>
[[gnu::flatten]] std::uint64_t run_schedule(const schedule& s, std::size_t n, Hash hash, Prefetch prefetch, Probe probe) {
    using H = decltype(hash(std::size_t{0}));
    std::vector<H> ring(s.keys);
    std::uint64_t hits = 0;
    if (s.kind == schedule::pipelined) {  // hash and prefetch group g + 1, then probe group g
        std::vector<H> next(s.keys);
        std::size_t m = std::min<std::size_t>(s.keys, n);
        for (std::size_t i = 0; i < m; ++i) prefetch(ring[i] = hash(i));
        for (std::size_t base = 0; base < n; base += s.keys) {
            const std::size_t ahead = base + s.keys, m_next = ahead < n ? std::min<std::size_t>(s.keys, n - ahead) : 0;
            for (std::size_t i = 0; i < m_next; ++i) prefetch(next[i] = hash(ahead + i));
            for (std::size_t i = 0; i < m; ++i) hits += probe(ring[i]);
            ring.swap(next), m = m_next;
        }
        return hits;
    }
    if (s.kind == schedule::group) {
        for (std::size_t base = 0; base < n; base += s.keys) {
            const std::size_t m = std::min<std::size_t>(s.keys, n - base);
            for (std::size_t i = 0; i < m; ++i) prefetch(ring[i] = hash(base + i));
            for (std::size_t i = 0; i < m; ++i) hits += probe(ring[i]);
        }
        return hits;
    }
    for (std::size_t i = 0; i < std::min<std::size_t>(s.keys, n); ++i) prefetch(ring[i] = hash(i));
    for (std::size_t i = 0; i < n; ++i) {
        H& slot = ring[i % s.keys];
        const H current = slot;
        if (i + s.keys < n) prefetch(slot = hash(i + s.keys));
        hits += probe(current);
    }
    return hits;
}

/// Median over the repetitions of body()'s time per item, prepare() run untimed before each.
template <class Prepare, class Body>
double median_ns(std::size_t n, Prepare prepare, Body body) {
    std::vector<double> ns;
    for (unsigned r = 0; r < repetitions; ++r) {
        prepare();
        const auto t0 = std::chrono::steady_clock::now();
        sink = sink + body();
        ns.push_back(std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / n);
    }
    std::nth_element(ns.begin(), ns.begin() + ns.size() / 2, ns.end());
    return ns[ns.size() / 2];
}

void print(const std::string& what, std::uint64_t bytes, const schedule& s, double ns) {
    std::printf("%-28s %6llu MB  %-11s %7.2f ns/key\n", what.c_str(), (unsigned long long)(bytes >> 20), s.name().c_str(), ns);
    std::fflush(stdout);
}

std::vector<std::vector<std::byte>> make_keys(std::size_t n, std::uint64_t seed) {
    std::vector<std::vector<std::byte>> keys(n, std::vector<std::byte>(16));
    std::uint64_t x = seed * 0x9e3779b97f4a7c15ULL + 1;
    for (auto& k : keys)
        for (auto& b : k) {
            x ^= x >> 12, x ^= x << 25, x ^= x >> 27;
            b = static_cast<std::byte>((x * 0x2545F4914F6CDD1DULL) >> 56);
        }
    return keys;
}

template <class Filter>
void tune(const std::string& name, Filter f, const std::vector<schedule>& schedules, std::size_t n) {
    const auto present = make_keys(n, 1), absent = make_keys(n, 2);
    const std::uint64_t bytes = f.words().size() * 8;
    for (std::uint64_t i = 0; i < f.words().size(); i += 512) store_word(f.words()[i], 0);  // fault the pages in
    for (const auto& s : schedules) {
        const double add = median_ns(n, [&] { f.clear(); }, [&] {
            return run_schedule(
                s, n, [&](std::size_t i) { return f.hash(present[i]); }, [&](hash128 h) { f.prefetch(h, true); },
                [&](hash128 h) { return f.add_hash(h); });
        });
        print(name + "/add", bytes, s, add);
    }
    for (const auto& k : present) f.add(k);
    for (const auto& s : schedules) {
        const double lookup = median_ns(n, [] {}, [&] {
            return run_schedule(
                s, n, [&](std::size_t i) { return f.hash(absent[i]); }, [&](hash128 h) { f.prefetch(h, false); },
                [&](hash128 h) { return f.contains_hash(h); });
        });
        print(name + "/contains-absent", bytes, s, lookup);
    }
}

void floor(std::uint64_t bytes, const std::vector<schedule>& schedules, std::size_t n) {
    word_array words(bytes / 8, 0);
    for (std::uint64_t i = 0; i < words.size(); i += 512) store_word(words.data()[i], i);
    std::vector<std::uint64_t> lines(n);
    std::uint64_t x = 88172645463325252ULL;
    for (auto& l : lines) x ^= x << 13, x ^= x >> 7, x ^= x << 17, l = fastrange64(x, bytes / 64);
    for (const auto& s : schedules) {
        const double ns = median_ns(n, [] {}, [&] {
            return run_schedule(
                s, n, [&](std::size_t i) { return words.data() + lines[i] * 8; }, [](std::uint64_t* w) { __builtin_prefetch(w); },
                [](std::uint64_t* w) { return load_word(*w) & 1; });
        });
        print("memory-floor/read", bytes, s, ns);
    }
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::uint64_t> megabytes{62, 2048};
    std::vector<unsigned> groups{8, 16, 32, 64}, distances{8, 16, 32}, pipelined{16, 32};
    std::size_t keys = 2000000;
    std::string only;
    po::options_description flags("lfbloom-prefetch-tune: batch group size and prefetch distance, measured");
    flags.add_options()("help,h", "this text")("megabytes", po::value(&megabytes)->multitoken(), "filter sizes (default 62 2048)")(
        "groups", po::value(&groups)->multitoken(), "group sizes G (default 8 16 32 64)")(
        "distances", po::value(&distances)->multitoken(), "rolling distances D (default 8 16 32)")(
        "pipelined", po::value(&pipelined)->multitoken(), "pipelined group sizes G (default 16 32)")(
        "keys", po::value(&keys), "keys per run (default 2000000)")("repetitions", po::value(&repetitions), "runs per figure (default 5)")(
        "only", po::value(&only), "only the layouts whose name contains this (memory-floor, blocked, ...)");
    po::variables_map vm;
    try {
        po::store(po::parse_command_line(argc, argv, flags), vm);
        po::notify(vm);
    } catch (const po::error& e) {
        std::fprintf(stderr, "lfbloom-prefetch-tune: %s\n", e.what());
        return 2;
    }
    if (vm.count("help")) {
        std::printf("%s", (std::ostringstream() << flags).str().c_str());
        return 0;
    }
    std::vector<schedule> schedules;
    for (unsigned g : groups) schedules.push_back({schedule::group, std::max(1u, g)});
    for (unsigned d : distances) schedules.push_back({schedule::rolling, std::max(1u, d)});
    for (unsigned g : pipelined) schedules.push_back({schedule::pipelined, std::max(1u, g)});
    auto wanted = [&](const std::string& name) { return name.find(only) != std::string::npos; };
    for (std::uint64_t mb : megabytes) {
        const std::uint64_t bits = mb << 23;
        if (wanted("memory-floor")) floor(bits / 8, schedules, keys);
        if (wanted("blocked")) tune("blocked", blocked_bloom_filter::with_geometry(bits / 512 * 512, 7), schedules, keys);
        if (wanted("split-block")) tune("split-block", split_block_bloom_filter::with_geometry(bits / 256 * 256, 8), schedules, keys);
        if (wanted("one-word")) tune("one-word", one_word_bloom_filter::with_geometry(bits / 64 * 64, 5), schedules, keys);
        if (wanted("two-word")) tune("two-word", two_word_bloom_filter::with_geometry(bits / 128 * 128, 6), schedules, keys);
        if (wanted("counting")) tune("counting", counting_bloom_filter::with_geometry(bits / 4 / 512 * 512, 7), schedules, keys);
        if (wanted("classic")) tune("classic", classic_bloom_filter::with_geometry(bits / 64 * 64, 7), schedules, keys);
    }
    return 0;
}
