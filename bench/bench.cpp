// lfbloom-bench: throughput of every layout against the baselines that explain it (hashing alone,
// the memory floor, a non-atomic filter, locked filters), single and batch calls, 1-8 threads.
// Each figure is the median of several repetitions. `--json` prints one JSON object per result;
// `--quick` runs a subset in under a minute. docs/PERFORMANCE.md is generated from the JSON.
#include <algorithm>
#include <atomic>
#include <barrier>
#include <bit>
#include <cmath>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <pthread.h>
#include <sched.h>
#include <iostream>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <boost/program_options.hpp>

#include "boost_peer.hpp"
#include "lfbloom/lfbloom.hpp"

namespace po = boost::program_options;
using namespace lfbloom;

namespace {

struct settings {
    bool json = false, quick = false;
    unsigned repetitions = 5;
    std::uint64_t cache_keys = 1000000, dram_keys = 2000000;
    std::uint64_t dram_bytes = std::uint64_t{2} << 30;
    std::string only;  // run only cases whose name contains this
    std::vector<std::string> build_sizes{"62MB"};  // bulk builds: 62MB (5 * 10^7 keys), 620MB (5 * 10^8)
} cfg;

// ---- keys and timing ------------------------------------------------------------------------------

/// `count` keys of `bytes` bytes each, contiguous, from a seed (disjoint seeds: disjoint keys).
class key_set {
public:
    key_set(std::uint64_t count, unsigned bytes, std::uint64_t seed) : bytes_(bytes), data_(count * bytes), views_(count) {
        std::uint64_t x = seed * 0x9e3779b97f4a7c15ULL + 1;
        for (auto& b : data_) {
            x ^= x >> 12, x ^= x << 25, x ^= x >> 27;
            b = static_cast<std::byte>((x * 0x2545F4914F6CDD1DULL) >> 56);
        }
        for (std::uint64_t i = 0; i < count; ++i) views_[i] = key_view(data_.data() + i * bytes, bytes);
    }
    std::uint64_t size() const { return views_.size(); }
    unsigned key_bytes() const { return bytes_; }
    key_view operator[](std::uint64_t i) const { return views_[i]; }
    std::span<const key_view> range(std::uint64_t begin, std::uint64_t end) const { return {views_.data() + begin, end - begin}; }

private:
    unsigned bytes_;
    std::vector<std::byte> data_;
    std::vector<key_view> views_;
};

/// Seconds of CPU time the calling thread has used.
double thread_cpu_seconds() {
    timespec ts{};
    ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

/// The CPUs this process may run on.
std::vector<int> allowed_cpus() {
    cpu_set_t set;
    CPU_ZERO(&set);
    std::vector<int> cpus;
    if (::sched_getaffinity(0, sizeof set, &set) == 0)
        for (int c = 0; c < CPU_SETSIZE; ++c)
            if (CPU_ISSET(c, &set)) cpus.push_back(c);
    return cpus;
}

/// Binds a worker to one CPU. Unbound, Linux wakes two workers released by one barrier on the
/// waker's CPU and spreads them a scheduler tick later: on 2 vCPUs the second worker of a 12 ms
/// in-cache run started 2-4.5 ms late and the other lost ~4 ms off-CPU, so "two threads" read
/// as fast as one (cuckoo14 contains-absent: 12.5 ns at 1 and 2 threads, 2.0x in a pinned run).
/// (The calling thread. On a host whose SMT siblings are numbered side by side, CPUs 0 and 1
/// may share a core; this VM reports one thread per core.)
void pin(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    ::pthread_setaffinity_np(::pthread_self(), sizeof set, &set);  // best effort: unpinned still measures
}

/// Runs body(thread, begin, end) over [0, ops) split across `threads`; returns wall seconds from
/// the first worker's start to the last worker's end, each worker stamping its own (a clock in
/// the main thread starts late when workers outnumber cores: 8 threads on 2 cores once reported
/// 1.7 ns/op where one thread takes 16). Refuses (exits) a result faster than the cores allow:
/// the workers' CPU time cannot exceed the wall time times min(threads, cores).
template <class Body>
double timed(unsigned threads, std::uint64_t ops, Body body) {
    struct stamps {
        std::chrono::steady_clock::time_point start, end;
        double cpu = 0;
    };
    std::vector<stamps> s(threads);
    auto work = [&](unsigned t) {
        const double cpu0 = thread_cpu_seconds();
        s[t].start = std::chrono::steady_clock::now();
        body(t, ops * t / threads, ops * (t + 1) / threads);
        s[t].end = std::chrono::steady_clock::now();
        s[t].cpu = thread_cpu_seconds() - cpu0;
    };
    if (threads == 1) {
        work(0);
    } else {
        std::barrier start(threads);
        std::vector<std::thread> pool;
        const std::vector<int> cpus = allowed_cpus();
        for (unsigned t = 0; t < threads; ++t)
            pool.emplace_back([&, t] {
                if (threads <= cpus.size()) pin(cpus[t]);  // before the barrier: no worker starts unpinned
                start.arrive_and_wait();
                work(t);
            });
        for (auto& th : pool) th.join();
    }
    auto first = s[0].start, last = s[0].end;
    double cpu = 0;
    for (const auto& x : s) first = std::min(first, x.start), last = std::max(last, x.end), cpu += x.cpu;
    const double wall = std::chrono::duration<double>(last - first).count();
    const unsigned cores = std::max(1u, std::min(threads, std::thread::hardware_concurrency()));
    if (cpu > wall * cores * 1.05 + 1e-3) {  // 5% and 1 ms for clock granularity
        std::fprintf(stderr, "lfbloom-bench: impossible timing: %.6f s of CPU in %.6f s wall on %u cores\n", cpu, wall, cores);
        std::exit(4);
    }
    return wall;
}

std::uint64_t sink_value;  // keeps results alive so the compiler cannot drop the work

struct result {
    std::string layout, op, size;
    unsigned threads = 1, key_bytes = 16, batch = 1;
    std::uint64_t keys = 0, bytes = 0;
    double ns_per_op = 0, fpr = -1;
};

void report(const result& r) {
    const std::string name = r.layout + "/" + r.op + "/" + r.size + "/" + std::to_string(r.key_bytes) + "B/" +
                             (r.batch > 1 ? "batch" : "single") + "/" + std::to_string(r.threads) + "t";
    if (cfg.json) {
        std::printf("{\"name\":\"%s\",\"layout\":\"%s\",\"op\":\"%s\",\"size\":\"%s\",\"threads\":%u,\"keys\":%llu,"
                    "\"key_bytes\":%u,\"batch\":%u,\"ns_per_op\":%.3f,\"ops_per_sec\":%.0f,\"bytes\":%llu",
                    name.c_str(), r.layout.c_str(), r.op.c_str(), r.size.c_str(), r.threads, (unsigned long long)r.keys,
                    r.key_bytes, r.batch, r.ns_per_op, 1e9 / r.ns_per_op, (unsigned long long)r.bytes);
        if (r.fpr >= 0) std::printf(",\"fpr\":%.6f", r.fpr);
        std::printf("}\n");
    } else {
        std::printf("%-58s %9.2f ns/op %8.2f Mops/s", name.c_str(), r.ns_per_op, 1e3 / r.ns_per_op);
        if (r.fpr >= 0) std::printf("  fpr %.4f%%", 100 * r.fpr);
        std::printf("\n");
    }
    std::fflush(stdout);
}

/// Median ns/op of `repetitions` runs of run_once() (which returns seconds for `ops` ops),
/// after `prepare()` before each.
double median_ns(std::uint64_t ops, const std::function<void()>& prepare, const std::function<double()>& run_once) {
    std::vector<double> ns;
    for (unsigned r = 0; r < cfg.repetitions; ++r) {
        prepare();
        ns.push_back(run_once() * 1e9 / static_cast<double>(ops));
    }
    std::nth_element(ns.begin(), ns.begin() + ns.size() / 2, ns.end());
    return ns[ns.size() / 2];
}

bool wanted(const std::string& name) { return cfg.only.empty() || name.find(cfg.only) != std::string::npos; }

// ---- subjects: the filters and the baselines, all with the same operations -------------------------

constexpr unsigned batch_keys = 64;

/// Runs `op` over keys [begin, end): single calls or batches of batch_keys. Returns hits.
template <class Subject>
std::uint64_t apply(Subject& s, const std::string& op, const key_set& keys, std::uint64_t begin, std::uint64_t end, bool batch) {
    std::uint64_t hits = 0;
    if (op == "mixed") {  // 90% contains, 10% add
        for (std::uint64_t i = begin; i < end; ++i) hits += (i % 10 == 0) ? s.add(keys[i]) : s.contains(keys[i]);
        return hits;
    }
    if (batch) {
        for (std::uint64_t i = begin; i < end; i += batch_keys) {
            const auto r = keys.range(i, std::min(end, i + batch_keys));
            hits += op == "add" ? s.add_many(r) : op == "remove" ? s.remove_many(r) : s.contains_many(r);
        }
        return hits;
    }
    if (op == "add") for (std::uint64_t i = begin; i < end; ++i) hits += s.add(keys[i]);
    else if (op == "remove") for (std::uint64_t i = begin; i < end; ++i) hits += s.remove(keys[i]);
    else for (std::uint64_t i = begin; i < end; ++i) hits += s.contains(keys[i]);
    return hits;
}

/// A filter of the core, as benchmarks call it.
template <class Filter>
struct core_subject {
    Filter f;
    bool add(key_view k) { return f.add(k); }
    bool contains(key_view k) const { return f.contains(k); }
    std::uint64_t add_many(std::span<const key_view> k) { return f.add_many(k); }
    std::uint64_t contains_many(std::span<const key_view> k) const { return f.contains_many(k); }
    bool remove(key_view k) {
        if constexpr (requires { f.remove(k); }) return f.remove(k); else return false;
    }
    std::uint64_t remove_many(std::span<const key_view> keys) {
        if constexpr (requires { f.remove_many(keys); }) return f.remove_many(keys); else return 0;
    }
    void clear() { f.clear(); }
    std::uint64_t bytes() const {
        if constexpr (requires { f.buckets(); }) return f.stats().bytes;  // cuckoo: buckets and stripe words
        else return f.words().size() * 8;
    }
    void touch() {  // fault every page in before timing
        for (std::size_t i = 0; i < f.words().size(); i += 512) store_word(f.words()[i], 0);
    }
};

/// Batch calls as loops of single calls, for the subjects that have no batch path of their own.
template <class Subject>
struct single_call_batches {
    std::uint64_t add_many(std::span<const key_view> keys) {
        std::uint64_t n = 0;
        for (auto k : keys) n += self().add(k);
        return n;
    }
    std::uint64_t contains_many(std::span<const key_view> keys) const {
        std::uint64_t n = 0;
        for (auto k : keys) n += static_cast<const Subject&>(*this).contains(k);
        return n;
    }
    std::uint64_t remove_many(std::span<const key_view> keys) {
        std::uint64_t n = 0;
        for (auto k : keys) n += self().remove(k);
        return n;
    }
    bool remove(key_view) { return false; }  // only counting filters remove
    void touch() {}

private:
    Subject& self() { return static_cast<Subject&>(*this); }
};

/// A layout's filter with plain loads and ORs (the layout's own add_with): what the atomics cost.
template <class Layout>
struct nonatomic : single_call_batches<nonatomic<Layout>> {
    Layout layout;
    word_array words;
    nonatomic(const geometry& g) : layout(g.slots, g.hashes), words(g.slots / 64, 0) {}
    static hash128 hash(key_view k) {
        if constexpr (requires { Layout::hash_bytes(k.data(), k.size(), 0); }) return Layout::hash_bytes(k.data(), k.size(), 0);
        else return murmur3_x64_128(k.data(), k.size());
    }
    bool add(key_view k) {
        return layout.add_with(words.data(), hash(k), [](std::uint64_t& word, std::uint64_t mask) { word |= mask; });
    }
    bool contains(key_view k) const { return layout.contains(words.data(), hash(k)); }
    void clear() { std::fill(words.data(), words.data() + words.size(), 0); }
    std::uint64_t bytes() const { return words.bytes(); }
    void touch() { clear(); }
};

/// The least an add of the blocked layout can do: each probe's bit ORed straight into the line,
/// plain stores, no "was it new?" answer. The floor the atomic add is measured against.
struct nonatomic_direct_blocked : single_call_batches<nonatomic_direct_blocked> {
    line_probes probes;
    word_array words;
    nonatomic_direct_blocked(const geometry& g) : probes(g.slots / 512, g.hashes), words(g.slots / 64, 0) {}
    bool add(key_view k) {
        const hash128 h = murmur3_x64_128(k.data(), k.size());
        std::uint64_t* line = words.data() + probes.line(h) * words_per_line;
        probes.for_each_slot<9>(h, [&](unsigned bit) {
            line[bit >> 6] |= std::uint64_t{1} << (bit & 63);
            return true;
        });
        return true;
    }
    bool contains(key_view) const { return false; }
    void clear() { std::fill(words.data(), words.data() + words.size(), 0); }
    std::uint64_t bytes() const { return words.bytes(); }
    void touch() { clear(); }
};

/// One uncontended locked OR (or_word) per key on a random word of an in-cache array, against a
/// plain OR: the price of each word an atomic add touches.
void run_lock_cost(const std::string& size_name, std::uint64_t bytes, std::uint64_t keys) {
    word_array words(bytes / 8, 0);
    std::vector<std::uint32_t> at(keys);
    std::uint64_t x = 88172645463325252ULL;
    for (auto& a : at) x ^= x << 13, x ^= x >> 7, x ^= x << 17, a = static_cast<std::uint32_t>(fastrange64(x, words.size()));
    for (bool locked : {false, true}) {
        result r{locked ? "lock-or" : "plain-or", "rmw", size_name, 1, 8, 1, keys, bytes};
        if (!wanted(r.layout + "/" + r.op)) continue;
        r.ns_per_op = median_ns(keys, [] {}, [&] {
            return timed(1, keys, [&](unsigned, std::uint64_t b, std::uint64_t e) {
                std::uint64_t* w = words.data();
                for (std::uint64_t i = b; i < e; ++i) {
                    if (locked) or_word(w[at[i]], std::uint64_t{1} << (i & 63));
                    else w[at[i]] |= std::uint64_t{1} << (i & 63);
                    asm volatile("" ::: "memory");  // keep the plain ORs one by one, as the locked ones are
                }
            });
        });
        report(r);
    }
}

/// The blocked filter behind a lock: what lock-freedom buys.
template <class Mutex>
struct locked_blocked : single_call_batches<locked_blocked<Mutex>> {
    explicit locked_blocked(blocked_bloom_filter filter) : f(std::move(filter)) {}
    blocked_bloom_filter f;
    mutable Mutex m;
    bool add(key_view k) {
        std::unique_lock lock(m);
        return f.add(k);
    }
    bool contains(key_view k) const {
        if constexpr (std::is_same_v<Mutex, std::shared_mutex>) {
            std::shared_lock lock(m);
            return f.contains(k);
        } else {
            std::unique_lock lock(m);
            return f.contains(k);
        }
    }
    void clear() { f.clear(); }
    std::uint64_t bytes() const { return f.words().size() * 8; }
};

/// The single-threaded cuckoo filter users wrap in a mutex: efficient/cuckoofilter's algorithm
/// (Fan et al.), written here: four 16-bit slots per bucket, a power-of-two table (their sizing:
/// the next power of two of capacity / 4, doubled above 96% load), partial-key XOR for the other
/// bucket, random-walk kicks that swap out a victim (at most 500), and one victim slot when they fail.
class reference_cuckoo {
public:
    explicit reference_cuckoo(std::uint64_t capacity) {
        std::uint64_t buckets = std::bit_ceil(std::max<std::uint64_t>(1, capacity / 4));
        if (static_cast<double>(capacity) / static_cast<double>(buckets * 4) > 0.96) buckets *= 2;
        table_.assign(buckets, 0);
    }
    bool add(key_view k) {
        auto [fp, i] = place(k);
        if (victim_ != 0) return false;  // full: their add fails once the victim slot is taken
        for (unsigned kick = 0; kick <= 500; ++kick) {
            if (put(i, fp) || put(other(i, fp), fp)) return true;
            if (kick == 0) i = (rng_ & 1) ? i : other(i, fp);
            rng_ ^= rng_ << 13, rng_ ^= rng_ >> 7, rng_ ^= rng_ << 17;
            const unsigned lane = rng_ & 3;
            const std::uint64_t old = table_[i] >> (16 * lane) & 0xFFFF;
            table_[i] = (table_[i] & ~(std::uint64_t{0xFFFF} << (16 * lane))) | fp << (16 * lane);
            fp = old;
            i = other(i, fp);
        }
        victim_ = fp, victim_bucket_ = i;
        return true;
    }
    bool contains(key_view k) const {
        const auto [fp, i] = place(k);
        return has(table_[i], fp) || has(table_[other(i, fp)], fp) ||
               (victim_ == fp && (victim_bucket_ == i || victim_bucket_ == other(i, fp)));
    }
    void clear() { std::fill(table_.begin(), table_.end(), 0), victim_ = 0; }
    std::uint64_t bytes() const { return table_.size() * 8; }

private:
    std::pair<std::uint64_t, std::uint64_t> place(key_view k) const {
        const hash128 h = murmur3_x64_128(k.data(), k.size());
        const std::uint64_t fp = (h.h2 >> 48) + ((h.h2 >> 48) == 0);
        return {fp, h.h1 & (table_.size() - 1)};
    }
    std::uint64_t other(std::uint64_t i, std::uint64_t fp) const { return (i ^ (fp * 0x5bd1e995)) & (table_.size() - 1); }
    static bool has(std::uint64_t w, std::uint64_t fp) {
        for (unsigned lane = 0; lane < 4; ++lane) if ((w >> (16 * lane) & 0xFFFF) == fp) return true;
        return false;
    }
    bool put(std::uint64_t i, std::uint64_t fp) {
        for (unsigned lane = 0; lane < 4; ++lane)
            if ((table_[i] >> (16 * lane) & 0xFFFF) == 0) {
                table_[i] |= fp << (16 * lane);
                return true;
            }
        return false;
    }
    std::vector<std::uint64_t> table_;
    std::uint64_t victim_ = 0, victim_bucket_ = 0, rng_ = 88172645463325252ULL;
};

/// reference_cuckoo behind a mutex, as a multithreaded user must run it.
struct mutex_reference_cuckoo : single_call_batches<mutex_reference_cuckoo> {
    explicit mutex_reference_cuckoo(std::uint64_t capacity) : f(capacity) {}
    reference_cuckoo f;
    mutable std::mutex m;
    bool add(key_view k) {
        std::lock_guard lock(m);
        return f.add(k);
    }
    bool contains(key_view k) const {
        std::lock_guard lock(m);
        return f.contains(k);
    }
    void clear() { f.clear(); }
    std::uint64_t bytes() const { return f.bytes(); }
};

/// Boost.Bloom (boost_peer.hpp) as a subject; its loops run inside boost_peer.cpp (apply below).
struct boost_subject {
    std::unique_ptr<lfbloom_bench::boost_peer> peer;
    bool locked = false;  ///< a std::mutex per call or batch, as a multithreaded user must run it
    bool add(key_view k) { return peer->run(lfbloom_bench::boost_peer::op::add, {&k, 1}, 1, locked) != 0; }
    void clear() { peer->clear(); }
    std::uint64_t bytes() const { return peer->bytes(); }
    void touch() { peer->clear(); }
};

std::uint64_t apply(boost_subject& s, const std::string& op, const key_set& keys, std::uint64_t begin, std::uint64_t end, bool batch) {
    using peer = lfbloom_bench::boost_peer;
    return s.peer->run(op == "add" ? peer::op::add : peer::op::contains, keys.range(begin, end), batch ? batch_keys : 1, s.locked);
}

/// Hashing alone: what every filter pays before touching memory.
struct hash_only : single_call_batches<hash_only> {
    bool contains(key_view k) const { return murmur3_x64_128(k.data(), k.size()).h1 & 1; }
    bool add(key_view k) { return contains(k); }
    void clear() {}
    std::uint64_t bytes() const { return 0; }
};

/// The filters that grow, forget or get replaced, behind the same calls. Filled and cleared by
/// rebuilding: `make` returns a fresh one. They answer what those features cost a query.
template <class Filter, class Make>
struct rebuilt_subject : single_call_batches<rebuilt_subject<Filter, Make>> {
    explicit rebuilt_subject(Make m) : make(std::move(m)), f(make()) {}
    Make make;
    std::unique_ptr<Filter> f;
    bool add(key_view k) { return f->add(k); }
    bool contains(key_view k) const { return f->contains(k); }
    std::uint64_t add_many(std::span<const key_view> k) { return f->add_many(k); }
    std::uint64_t contains_many(std::span<const key_view> k) const { return f->contains_many(k); }
    void clear() { f = make(); }
    std::uint64_t bytes() const {
        if constexpr (std::is_same_v<Filter, rotating_bloom_filter>) return f->stats(0).bytes * f->ring_size();
        else return f->stats().bytes;
    }
};
template <class Filter, class Make>
rebuilt_subject<Filter, Make> rebuilt(Make make) {
    return rebuilt_subject<Filter, Make>(std::move(make));
}

/// A hot-swap handle: every call pins the current filter (two increments on the thread's stripe).
struct swappable_subject : single_call_batches<swappable_subject> {
    explicit swappable_subject(std::uint64_t keys, double p)
        : h(std::make_unique<blocked_bloom_filter>(blocked_bloom_filter::for_capacity(keys, p))) {}
    swappable_filter<blocked_bloom_filter> h;
    bool add(key_view k) { return h.add(k); }
    bool contains(key_view k) const { return h.contains(k); }
    std::uint64_t add_many(std::span<const key_view> k) { return h.pin()->add_many(k); }
    std::uint64_t contains_many(std::span<const key_view> k) const { return h.pin()->contains_many(k); }
    void clear() { h.pin()->clear(); }
    std::uint64_t bytes() const { return h.pin()->words().size() * 8; }
};

/// The memory floor: one random 64-byte line read per key over the same amount of memory, with
/// the same batching and prefetching as the filter (line indexes precomputed: no hashing).
struct memory_floor {
    word_array words;
    std::vector<std::uint64_t> lines;
    memory_floor(std::uint64_t bytes, std::uint64_t keys) : words(bytes / 8, 0), lines(keys) {
        std::uint64_t x = 88172645463325252ULL;
        for (auto& l : lines) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            l = fastrange64(x, bytes / 64);
        }
    }
    std::uint64_t read(std::uint64_t i) const { return load_word(words.data()[lines[i] * 8]); }
};

// ---- the cases ---------------------------------------------------------------------------------

struct size_spec {
    std::string name;          // "cache" or "dram"
    std::uint64_t keys;        // keys per repetition
};

template <class Subject>
void run_ops(const std::string& layout, Subject& s, const size_spec& size, const std::vector<std::string>& ops,
             unsigned key_bytes, std::vector<unsigned> batches, std::vector<unsigned> thread_counts) {
    const key_set present(size.keys, key_bytes, 1), absent(size.keys, key_bytes, 2);
    s.touch();
    for (const auto& op : ops)
        for (unsigned batch : batches)
            for (unsigned threads : thread_counts) {
                result r{layout, op, size.name, threads, key_bytes, batch, size.keys, s.bytes()};
                const std::string name = layout + "/" + op + "/" + size.name + "/" + std::to_string(key_bytes) + "B/" +
                                         (batch > 1 ? "batch" : "single") + "/" + std::to_string(threads) + "t";
                if (!wanted(name)) continue;
                const key_set& keys = op == "contains-absent" ? absent : present;
                std::atomic<std::uint64_t> hits{0};
                auto prepare = [&] {
                    if (op == "add" || op == "mixed") s.clear();
                    else if (op == "remove" || op == "contains-present" || op == "contains-absent") {
                        s.clear();
                        for (std::uint64_t i = 0; i < present.size(); ++i) s.add(present[i]);
                    }
                    hits = 0;
                };
                r.ns_per_op = median_ns(size.keys, prepare, [&] {
                    return timed(threads, size.keys, [&](unsigned, std::uint64_t b, std::uint64_t e) {
                        // relaxed: a sum read after the threads are joined
                        hits.fetch_add(apply(s, op, keys, b, e, batch > 1), std::memory_order_relaxed);
                    });
                });
                r.batch = batch > 1 ? batch_keys : 1;
                if (op == "contains-absent" && layout != "hash-only") r.fpr = static_cast<double>(hits.load()) / size.keys;
                sink_value += hits.load();
                report(r);
            }
}

void run_floor(const size_spec& size, std::uint64_t bytes, std::vector<unsigned> thread_counts, bool batch) {
    std::atomic<std::uint64_t> floor_sum{0};  // the reads must be used; workers add to it
    memory_floor floor(bytes, size.keys);
    for (std::uint64_t i = 0; i < floor.words.size(); i += 512) store_word(floor.words.data()[i], i);
    for (unsigned threads : thread_counts) {
        result r{"memory-floor", "contains-absent", size.name, threads, 16, batch ? batch_keys : 1u, size.keys, bytes};
        if (!wanted("memory-floor/contains-absent/" + size.name)) continue;
        r.ns_per_op = median_ns(size.keys, [] {}, [&] {
            return timed(threads, size.keys, [&](unsigned, std::uint64_t b, std::uint64_t e) {
                std::uint64_t sum = 0;
                if (!batch) {
                    for (std::uint64_t i = b; i < e; ++i) sum += floor.read(i);
                } else {
                    for (std::uint64_t i = b; i < e; i += batch_size) {  // the filters' batch: prefetch a group, then read
                        const std::uint64_t n = std::min<std::uint64_t>(batch_size, e - i);
                        for (std::uint64_t j = 0; j < n; ++j) __builtin_prefetch(floor.words.data() + floor.lines[i + j] * 8);
                        for (std::uint64_t j = 0; j < n; ++j) sum += floor.read(i + j);
                    }
                }
                floor_sum.fetch_add(sum, std::memory_order_relaxed);  // relaxed: read after the join
            });
        });
        report(r);
    }
    sink_value += floor_sum.load();
}

/// The latency of single adds while a scalable filter grows ten times (from capacity 1000 to
/// 1000 * 2^10): median, p99.9 and maximum over all adds, each add timed alone; the median of
/// the repetitions' figures is reported. Growth must not stall the add that triggers it.
void run_growth_latency(double p) {
    if (!wanted("scalable-10-growths/add-latency")) return;
    const std::uint64_t adds = 1000 * ((std::uint64_t{1} << 10) - 1) + 1;  // the 10th growth happens in the last add
    const key_set keys(adds, 16, 7);
    std::vector<double> median, tail, worst;
    std::vector<std::uint64_t> ns(adds);
    for (unsigned rep = 0; rep < cfg.repetitions; ++rep) {
        scalable_bloom_filter f(1000, p);
        for (std::uint64_t i = 0; i < adds; ++i) {
            const auto t0 = std::chrono::steady_clock::now();
            sink_value += f.add(keys[i]);
            ns[i] = static_cast<std::uint64_t>(std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count());
        }
        sink_value += f.filters();
        std::sort(ns.begin(), ns.end());
        median.push_back(static_cast<double>(ns[adds / 2]));
        tail.push_back(static_cast<double>(ns[adds - adds / 1000]));
        worst.push_back(static_cast<double>(ns.back()));
    }
    for (auto [op, figures] : {std::pair{"add-latency-median", &median}, {"add-latency-p99.9", &tail}, {"add-latency-max", &worst}}) {
        std::sort(figures->begin(), figures->end());
        result r{"scalable-10-growths", op, "cache", 1, 16, 1, adds, 0};
        r.ns_per_op = (*figures)[figures->size() / 2];
        if (wanted(r.layout + "/" + r.op)) report(r);
    }
}

/// The fewest bits, in whole blocks of the layout, whose expected FPR after n keys with k probes
/// is at most p (the layout's own model, as its sizing uses): one point of the frontier.
template <class Layout>
std::uint64_t bits_for(std::uint64_t n, double p, std::uint32_t k) {
    const std::uint64_t unit = Layout::slot_multiple;
    return unit * detail::smallest_satisfying(1, max_slots / unit, [&](std::uint64_t units) {
               return Layout::expected_fpr(static_cast<double>(n), units * unit, k) <= p;
           });
}

/// The layout frontier: for each layout and k, a filter sized for (10^6 keys, 1%) by the model,
/// its add and absent-key lookup timed in cache. Reported as layout "<name>-k<k>", size "frontier"
/// (bytes / keys gives the bits per key; the measured FPR checks the model).
void run_frontier(const size_spec& cache, double p) {
    const size_spec frontier{"frontier", cache.keys};
    auto point = [&]<class Layout>(const std::string& name, std::uint32_t k) {
        core_subject<bloom_filter<Layout>> f{bloom_filter<Layout>::with_geometry(bits_for<Layout>(cache.keys, p, k), k)};
        run_ops(name + "-k" + std::to_string(k), f, frontier, {"add", "contains-absent"}, 16, {1}, {1});
    };
    for (std::uint32_t k = 4; k <= 10; ++k) point.template operator()<classic_layout>("classic", k);
    for (std::uint32_t k = 4; k <= 10; ++k) point.template operator()<blocked_layout>("blocked", k);
    point.template operator()<split_block_layout>("split-block", 8);
    for (std::uint32_t k = 2; k <= 7; ++k) point.template operator()<one_word_layout>("one-word", k);
    for (std::uint32_t k = 3; k <= 8; ++k) point.template operator()<two_word_layout>("two-word", k);
}

// ---- bulk builds (issue 38) ------------------------------------------------------------------------

/// Seconds of wall time for one run of body(); a bulk build starts its own threads, so timed()'s
/// per-worker stamps do not apply.
template <class Body>
double wall_seconds(Body body) {
    const auto start = std::chrono::steady_clock::now();
    body();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// One random 64-byte line written per key (a plain OR into its first word) over `bytes`, in
/// groups of batch_keys prefetched for writing first: the floor a build by random access has.
void run_write_floor(const size_spec& size, std::uint64_t bytes) {
    result r{"memory-floor", "add", size.name, 1, 16, batch_keys, size.keys, bytes};
    if (!wanted("memory-floor/add/" + size.name)) return;
    memory_floor floor(bytes, size.keys);
    std::uint64_t* words = floor.words.data();
    r.ns_per_op = median_ns(size.keys, [] {}, [&] {
        return timed(1, size.keys, [&](unsigned, std::uint64_t b, std::uint64_t e) {
            for (std::uint64_t i = b; i < e; i += batch_size) {
                const std::uint64_t n = std::min<std::uint64_t>(batch_size, e - i);
                for (std::uint64_t j = 0; j < n; ++j) __builtin_prefetch(words + floor.lines[i + j] * 8, 1);
                for (std::uint64_t j = 0; j < n; ++j) words[floor.lines[i + j] * 8] |= i + j;
            }
        });
    });
    sink_value += words[floor.lines[0] * 8];
    report(r);
}

/// Bulk builds of `keys` 16-byte keys into filters of `bits` (blocked k = 7, split-block k = 8) at
/// 1 and 2 threads, beside the same keys added in batches ("blocked-adds"), Boost.Bloom's bulk insert (256 hashes
/// a call, its largest here), hashing alone and the random-write floor. Each build is checked to
/// equal, bit for bit, the filter of the batch adds (the bench exits if not).
void run_builds(const std::string& name, std::uint64_t bits, std::uint64_t keys) {
    const size_spec size{name, keys};
    const char* rows[] = {"blocked/build/", "blocked-adds/build/", "split-block/build/", "split-block-adds/build/", "boost-block/build/",
                          "boost-fmb32/build/", "hash-only/build/", "memory-floor/add/"};
    if (std::none_of(std::begin(rows), std::end(rows), [&](const char* row) { return wanted(row + name); })) return;  // no keys made
    const key_set present(keys, 16, 1);
    auto build_rows = [&](const std::string& layout, auto filter) {
        using filter_type = decltype(filter);
        filter_type reference = filter.copy();
        reference.add_many(keys, [&](std::size_t i) { return present[i]; });
        for (unsigned threads : {1u, 2u}) {
            result r{layout, "build", name, threads, 16, static_cast<unsigned>(std::min<std::uint64_t>(keys, 1u << 30)), keys,
                     filter.words().size() * 8};
            if (!wanted(layout + "/build/" + name)) continue;
            r.ns_per_op = median_ns(keys, [&] { filter.clear(); }, [&] {
                return wall_seconds([&] { filter.add_bulk(keys, [&](std::size_t i) { return present[i]; }, {.threads = threads}); });
            });
            if (!(filter == reference)) {
                std::fprintf(stderr, "lfbloom-bench: %s's bulk build on %u threads differs from its batch adds\n", layout.c_str(), threads);
                std::exit(1);
            }
            report(r);
        }
        result r{layout + "-adds", "build", name, 1, 16, batch_keys, keys, filter.words().size() * 8};  // the same build by add_many
        if (wanted(layout + "-adds/build/" + name)) {
            r.ns_per_op = median_ns(keys, [&] { filter.clear(); }, [&] {
                return timed(1, keys, [&](unsigned, std::uint64_t b, std::uint64_t e) {
                    for (std::uint64_t i = b; i < e; i += batch_keys) filter.add_many(present.range(i, std::min(e, i + batch_keys)));
                });
            });
            report(r);
        }
    };
    build_rows("blocked", blocked_bloom_filter::with_geometry(bits, 7));
    build_rows("split-block", split_block_bloom_filter::with_geometry(bits, 8));
    using peer = lfbloom_bench::boost_peer;
    for (auto [layout, shape, k] : {std::tuple{"boost-block", peer::shape::block, 7u}, std::tuple{"boost-fmb32", peer::shape::fast_multiblock32, 8u}}) {
        boost_subject b{peer::make(shape, bits, k)};
        if (!b.peer || !wanted(std::string(layout) + "/build/" + name)) continue;
        b.touch();
        result r{layout, "build", name, 1, 16, 256, keys, b.bytes()};
        r.ns_per_op = median_ns(keys, [&] { b.clear(); }, [&] {
            return wall_seconds([&] { b.peer->run(peer::op::add, present.range(0, keys), 256, false); });
        });
        report(r);
    }
    if (wanted("hash-only/build/" + name)) {
        hash_only h;
        result r{"hash-only", "build", name, 1, 16, batch_keys, keys, 0};
        r.ns_per_op = median_ns(keys, [] {}, [&] {
            return timed(1, keys, [&](unsigned, std::uint64_t b, std::uint64_t e) { sink_value += apply(h, "contains", present, b, e, true); });
        });
        report(r);
    }
    run_write_floor(size, bits / 8);
}

/// N for a build size "N MB" (1 to 10^6), 0 for "none" or anything else.
std::uint64_t build_megabytes(const std::string& size) {
    const std::uint64_t mb = std::strtoull(size.c_str(), nullptr, 10);
    return mb != 0 && mb <= 1'000'000 && size == std::to_string(mb) + "MB" ? mb : 0;
}

void run_all() {
    const std::vector<unsigned> both{1, batch_keys}, one_thread{1};
    const std::vector<unsigned> key_sizes = cfg.quick ? std::vector<unsigned>{16} : std::vector<unsigned>{8, 16, 64};
    const size_spec cache{"cache", cfg.cache_keys}, dram{"dram", cfg.dram_keys};
    const double p = 0.01;

    // Hashing alone and the in-cache layouts.
    for (unsigned kb : key_sizes) {
        hash_only h;
        run_ops("hash-only", h, cache, {"contains-absent"}, kb, both, one_thread);
        core_subject<blocked_bloom_filter> blocked{blocked_bloom_filter::for_capacity(cache.keys, p)};
        run_ops("blocked", blocked, cache,
                cfg.quick ? std::vector<std::string>{"add", "contains-present", "contains-absent"}
                          : std::vector<std::string>{"add", "contains-present", "contains-absent"},
                kb, cfg.quick ? std::vector<unsigned>{batch_keys} : both, one_thread);
        if (cfg.quick) {
            run_ops("blocked", blocked, cache, {"add"}, kb, {1}, one_thread);
        }
        nonatomic<blocked_layout> plain(blocked_bloom_filter::size_for(cache.keys, p));
        run_ops("nonatomic-blocked", plain, cache, {"add"}, kb, cfg.quick ? std::vector<unsigned>{1} : both, one_thread);
        nonatomic_direct_blocked direct(blocked_bloom_filter::size_for(cache.keys, p));
        run_ops("nonatomic-direct-blocked", direct, cache, {"add"}, kb, {1}, one_thread);
        core_subject<counting_bloom_filter> counting{counting_bloom_filter::for_capacity(cache.keys, p)};
        run_ops("counting", counting, cache,
                cfg.quick ? std::vector<std::string>{"contains-present"}
                          : std::vector<std::string>{"add", "contains-present", "contains-absent", "remove"},
                kb, cfg.quick ? std::vector<unsigned>{batch_keys} : both, one_thread);
        if (!cfg.quick) {
            core_subject<classic_bloom_filter> classic{classic_bloom_filter::for_capacity(cache.keys, p)};
            run_ops("classic", classic, cache, {"add", "contains-present", "contains-absent"}, kb, both, one_thread);
        }
    }
    run_floor(cache, blocked_bloom_filter::for_capacity(cache.keys, p).words().size() * 8, one_thread, true);
    for (unsigned kb : key_sizes) {  // the split-block layout (Parquet's), and the same with plain ORs
        core_subject<split_block_bloom_filter> split{split_block_bloom_filter::for_capacity(cache.keys, p)};
        run_ops("split-block", split, cache, {"add", "contains-present", "contains-absent"}, kb,
                cfg.quick ? std::vector<unsigned>{batch_keys} : both, one_thread);
        nonatomic<split_block_layout> plain(split_block_bloom_filter::size_for(cache.keys, p));
        run_ops("nonatomic-split-block", plain, cache, {"add"}, kb, {1}, one_thread);
    }
    {  // Boost.Bloom in our blocked and split-block shapes (same bits, k and hash), when built in
        const geometry blocked = blocked_bloom_filter::size_for(cache.keys, p), split = split_block_bloom_filter::size_for(cache.keys, p);
        const std::vector<std::string> ops{"add", "contains-present", "contains-absent"};
        if (boost_subject b{lfbloom_bench::boost_peer::make(lfbloom_bench::boost_peer::shape::block, blocked.slots, blocked.hashes)}; b.peer) {
            run_ops("boost-block", b, cache, ops, 16, both, one_thread);
            b.locked = true;
            run_ops("mutex-boost-block", b, cache, {"add"}, 16, {batch_keys}, {2});
        }
        if (boost_subject b{lfbloom_bench::boost_peer::make(lfbloom_bench::boost_peer::shape::fast_multiblock32, split.slots, split.hashes)}; b.peer)
            run_ops("boost-fmb32", b, cache, ops, 16, both, one_thread);
        core_subject<blocked_bloom_filter> ours{blocked_bloom_filter::for_capacity(cache.keys, p)};
        run_ops("blocked", ours, cache, {"add"}, 16, {batch_keys}, {2});
    }
    {  // the one- and two-word layouts: one or two locked ORs per add
        core_subject<one_word_bloom_filter> one{one_word_bloom_filter::for_capacity(cache.keys, p)};
        run_ops("one-word", one, cache, {"add", "contains-present", "contains-absent"}, 16, cfg.quick ? std::vector<unsigned>{batch_keys} : both, one_thread);
        nonatomic<one_word_layout> plain_one(one_word_bloom_filter::size_for(cache.keys, p));
        run_ops("nonatomic-one-word", plain_one, cache, {"add"}, 16, {1}, one_thread);
        core_subject<two_word_bloom_filter> two{two_word_bloom_filter::for_capacity(cache.keys, p)};
        run_ops("two-word", two, cache, {"add", "contains-present", "contains-absent"}, 16, cfg.quick ? std::vector<unsigned>{batch_keys} : both, one_thread);
    }
    run_lock_cost("cache", blocked_bloom_filter::for_capacity(cache.keys, p).words().size() * 8, cache.keys);
    {  // the cuckoo filter, filled to 90% load by the keys; the reference algorithm behind a mutex
        const auto cuckoo_buckets = static_cast<std::uint64_t>(std::ceil(static_cast<double>(cache.keys) / (4 * 0.9)));
        core_subject<cuckoo_filter> cuckoo{cuckoo_filter(cuckoo_buckets)};
        run_ops("cuckoo", cuckoo, cache, {"add", "contains-present", "contains-absent", "remove"}, 16,
                cfg.quick ? std::vector<unsigned>{batch_keys} : both, one_thread);
        run_ops("cuckoo", cuckoo, cache, {"contains-absent", "mixed"}, 16, {1}, {2});
        core_subject<blocked_bloom_filter> blocked{blocked_bloom_filter::for_capacity(cache.keys, p)};
        run_ops("blocked", blocked, cache, {"contains-absent"}, 16, {1}, {2});  // two readers' scaling, for comparison
        mutex_reference_cuckoo reference(cache.keys);
        run_ops("mutex-reference-cuckoo", reference, cache, {"add", "contains-absent", "mixed"}, 16, {1}, {1, 2});
    }
    for (const std::uint32_t bits : {14u, 17u}) {  // the semi-sorted formats, filled to 90% load as above
        const double per_bucket = cuckoo_filter::slots_for(bits);
        const auto buckets = static_cast<std::uint64_t>(std::ceil(static_cast<double>(cache.keys) / (per_bucket * 0.9)));
        core_subject<cuckoo_filter> semi{cuckoo_filter(buckets, bits)};
        const std::string name = "cuckoo" + std::to_string(bits);
        run_ops(name, semi, cache, {"add", "contains-present", "contains-absent", "remove"}, 16,
                cfg.quick ? std::vector<unsigned>{batch_keys} : both, one_thread);
        run_ops(name, semi, cache, {"contains-absent"}, 16, {1}, {2});
    }

    // What growing, forgetting and swapping cost, in cache: the same keys as "blocked" above.
    {
        const std::vector<std::string> ops{"add", "contains-present", "contains-absent"};
        const std::vector<unsigned> batches = cfg.quick ? std::vector<unsigned>{1} : both;
        swappable_subject swappable(cache.keys, p);
        run_ops("swappable", swappable, cache, ops, 16, batches, one_thread);
        run_ops("swappable", swappable, cache, {"mixed"}, 16, {1}, {2});
        if (!cfg.quick) {
            // four sub-filters once the keys are in: capacity/8 + /4 + /2 + the newest
            auto scalable = rebuilt<scalable_bloom_filter>([&] { return std::make_unique<scalable_bloom_filter>(cache.keys / 8, p); });
            run_ops("scalable-4", scalable, cache, ops, 16, batches, one_thread);
            auto rotating = rebuilt<rotating_bloom_filter>([&] { return std::make_unique<rotating_bloom_filter>(cache.keys, p); });
            run_ops("rotating-2", rotating, cache, ops, 16, batches, one_thread);
            auto double_write = rebuilt<rotating_bloom_filter>([&] {
                rotating_options o;
                o.double_write = true;
                return std::make_unique<rotating_bloom_filter>(cache.keys, p, o);
            });
            run_ops("rotating-2-double-write", double_write, cache, ops, 16, batches, one_thread);
            // With a period (never due here), every key-level call or batch reads the clock.
            auto periodic = rebuilt<rotating_bloom_filter>([&] {
                rotating_options o;
                o.period_ns = 3'600'000'000'000;  // an hour
                return std::make_unique<rotating_bloom_filter>(cache.keys, p, o);
            });
            run_ops("rotating-2-period", periodic, cache, ops, 16, batches, one_thread);
        }
    }
    if (!cfg.quick) run_growth_latency(p);
    if (!cfg.quick) run_frontier(cache, p);

    // Threads: the mixed workload against the locked baselines, in cache.
    const std::vector<unsigned> mixed_threads = cfg.quick ? std::vector<unsigned>{2} : std::vector<unsigned>{1, 2, 4, 8};
    {
        core_subject<blocked_bloom_filter> blocked{blocked_bloom_filter::for_capacity(cache.keys, p)};
        run_ops("blocked", blocked, cache, {"mixed"}, 16, {1}, mixed_threads);
        locked_blocked<std::mutex> with_mutex{blocked_bloom_filter::for_capacity(cache.keys, p)};
        run_ops("mutex-blocked", with_mutex, cache, {"mixed"}, 16, {1}, mixed_threads);
        locked_blocked<std::shared_mutex> with_shared{blocked_bloom_filter::for_capacity(cache.keys, p)};
        run_ops("shared-mutex-blocked", with_shared, cache, {"mixed"}, 16, {1}, mixed_threads);
    }
    if (cfg.quick) return;

    // Beyond the L2s, inside this VM's large L3 on some hosts, beyond it on others: filters of 62 MiB
    // (the size 5 * 10^7 keys need at 1%; each run times cfg.dram_keys of them), batch calls.
    {
        const size_spec mid{"62MB", cfg.dram_keys};
        const std::uint64_t mid_bits = std::uint64_t{62} << 23;
        core_subject<blocked_bloom_filter> blocked{blocked_bloom_filter::with_geometry(mid_bits, 7)};
        run_ops("blocked", blocked, mid, {"add", "contains-absent"}, 16, {batch_keys}, {1, 2});
        run_ops("blocked", blocked, mid, {"add", "contains-absent"}, 16, {1}, {1});
        core_subject<split_block_bloom_filter> split{split_block_bloom_filter::with_geometry(mid_bits, 8)};
        run_ops("split-block", split, mid, {"add", "contains-absent"}, 16, {batch_keys}, {1, 2});
        run_ops("split-block", split, mid, {"add", "contains-absent"}, 16, {1}, {1});
        using peer = lfbloom_bench::boost_peer;
        if (boost_subject b{peer::make(peer::shape::block, mid_bits, 7)}; b.peer) {
            run_ops("boost-block", b, mid, {"add", "contains-absent"}, 16, both, {1});
            b.locked = true;
            run_ops("mutex-boost-block", b, mid, {"add"}, 16, {batch_keys}, {2});
        }
        if (boost_subject b{peer::make(peer::shape::fast_multiblock32, mid_bits, 8)}; b.peer)
            run_ops("boost-fmb32", b, mid, {"add", "contains-absent"}, 16, both, {1});
        run_floor(mid, mid_bits / 8, {1, 2}, true);
    }
    for (const std::string& b : cfg.build_sizes) {
        // N MB: N MiB of filter and as many keys as fill it at 1% (62MB: 5 * 10^7 keys)
        if (const std::uint64_t mb = build_megabytes(b)) run_builds(b, mb << 23, mb * 50'000'000 / 62);
    }

    // Far beyond the last-level cache: filters of cfg.dram_bytes.
    const std::uint64_t bits = cfg.dram_bytes * 8;
    const std::vector<unsigned> threads{1, 2, 4, 8};
    {
        core_subject<blocked_bloom_filter> blocked{blocked_bloom_filter::with_geometry(bits, 7)};
        for (unsigned kb : key_sizes) run_ops("blocked", blocked, dram, {"add", "contains-present", "contains-absent"}, kb, both, one_thread);
        run_ops("blocked", blocked, dram, {"add", "contains-absent", "mixed"}, 16, both, threads);
        locked_blocked<std::mutex> with_mutex{blocked_bloom_filter::with_geometry(bits, 7)};
        run_ops("mutex-blocked", with_mutex, dram, {"mixed"}, 16, {1}, threads);
        locked_blocked<std::shared_mutex> with_shared{blocked_bloom_filter::with_geometry(bits, 7)};
        run_ops("shared-mutex-blocked", with_shared, dram, {"mixed"}, 16, {1}, threads);
    }
    {
        core_subject<split_block_bloom_filter> split{split_block_bloom_filter::with_geometry(bits, 8)};
        run_ops("split-block", split, dram, {"add", "contains-present", "contains-absent"}, 16, both, one_thread);
        run_ops("split-block", split, dram, {"add", "contains-absent"}, 16, {batch_keys}, {2});
    }
    {
        core_subject<one_word_bloom_filter> one{one_word_bloom_filter::with_geometry(bits, 5)};
        run_ops("one-word", one, dram, {"add", "contains-absent"}, 16, {batch_keys}, one_thread);
        core_subject<two_word_bloom_filter> two{two_word_bloom_filter::with_geometry(bits, 6)};
        run_ops("two-word", two, dram, {"add", "contains-absent"}, 16, {batch_keys}, one_thread);
    }
    run_floor(dram, cfg.dram_bytes, threads, true);
    run_floor(dram, cfg.dram_bytes, one_thread, false);
    {
        core_subject<classic_bloom_filter> classic{classic_bloom_filter::with_geometry(bits, 7)};
        run_ops("classic", classic, dram, {"add", "contains-present", "contains-absent"}, 16, both, one_thread);
    }
    {
        core_subject<cuckoo_filter> cuckoo{cuckoo_filter(cfg.dram_bytes / 8)};
        run_ops("cuckoo", cuckoo, dram, {"add", "contains-present", "contains-absent", "remove"}, 16, both, one_thread);
        run_ops("cuckoo", cuckoo, dram, {"contains-absent"}, 16, both, {2});
    }
    {
        core_subject<counting_bloom_filter> counting{counting_bloom_filter::with_geometry(bits / 4, 7)};
        run_ops("counting", counting, dram, {"add", "contains-present", "contains-absent", "remove"}, 16, both, one_thread);
    }
    {
        nonatomic<blocked_layout> plain(geometry{bits, 7, 1, 0.5});
        run_ops("nonatomic-blocked", plain, dram, {"add"}, 16, {1}, one_thread);
    }
}

}  // namespace

int main(int argc, char** argv) {
    po::options_description flags("lfbloom-bench: lfbloom's throughput against its baselines");
    flags.add_options()("help,h", "this text")("json", po::bool_switch(&cfg.json), "one JSON object per result line")(
        "quick", po::bool_switch(&cfg.quick), "a subset that finishes in under a minute")(
        "repetitions", po::value(&cfg.repetitions)->default_value(5), "runs per figure (the median is reported)")(
        "dram-bytes", po::value(&cfg.dram_bytes)->default_value(cfg.dram_bytes), "size of the beyond-cache filters")(
        "only", po::value(&cfg.only), "run only the cases whose name contains this")(
        "build-sizes", po::value(&cfg.build_sizes)->multitoken(),
        "bulk builds to time: N MB of filter, as many keys as fill it at 1% (62MB: 5 * 10^7 keys; 620MB: 17 GB of memory), or none");
    po::variables_map vm;
    try {
        po::store(po::parse_command_line(argc, argv, flags), vm);
        po::notify(vm);
    } catch (const po::error& e) {
        std::fprintf(stderr, "lfbloom-bench: %s\n", e.what());
        return 2;
    }
    if (vm.count("help")) {
        std::cout << flags;
        return 0;
    }
    for (const std::string& b : cfg.build_sizes)
        if (b != "none" && build_megabytes(b) == 0) {
            std::fprintf(stderr, "lfbloom-bench: no build size %s (N MB, as 62MB, or none)\n", b.c_str());
            return 2;
        }
    if (cfg.quick && vm["repetitions"].defaulted()) cfg.repetitions = 3;
    if (cfg.repetitions == 0) cfg.repetitions = 1;
    run_all();
    return sink_value == 42 ? 3 : 0;  // never 42 in practice; the result must be used
}
