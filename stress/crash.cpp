// lfbloom-crash: writer processes killed (SIGKILL) at random points, over and over, while they add
// and remove keys in one shared file; after every kill, every key whose last operation that
// returned was an add must be present, the next writer must make progress within a time bound,
// and a save must load and hold every such key (issue 37: shared files that survive their
// processes). Kinds: cuckoo (robust stripe locks, moves repaired after a death), counting, and a
// Bloom layout as the control.
//
// The journal is anonymous shared memory the writers inherit: one state byte per key, set to
// "adding" or "removing" (release) before the call and to "added" or "removed" after it returned.
// A key a writer was killed on (state still "adding" or "removing") is unknown from then on and
// never used again. Writers remove only keys in state "added", each added once (a cuckoo
// filter's and a counting filter's contract), so no remove can take another key's copy.
//
//   lfbloom-crash --kind cuckoo --kills 10000 --seed 1
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <boost/program_options.hpp>

#include "lfbloom/io/shared_memory.hpp"
#include "lfbloom/lfbloom.hpp"

namespace {

using namespace lfbloom;
namespace po = boost::program_options;

enum state : std::uint8_t { absent, adding, added, removing, unknown };

struct journal {
    std::atomic<std::uint8_t>* keys;   ///< one state a key
    std::atomic<std::uint64_t>* done;  ///< operations that returned, all writers
};

journal map_journal(std::uint64_t keys) {
    static_assert(std::atomic<std::uint8_t>::is_always_lock_free && std::atomic<std::uint64_t>::is_always_lock_free);
    void* p = ::mmap(nullptr, keys + 64, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::runtime_error("cannot map the journal");
    auto* bytes = static_cast<unsigned char*>(p);  // zeroed: every key absent, done 0
    return {reinterpret_cast<std::atomic<std::uint8_t>*>(bytes + 64), reinterpret_cast<std::atomic<std::uint64_t>*>(bytes)};
}

template <class F>
void add_key(F& f, std::uint64_t key) {
    if constexpr (requires { f.insert(key); }) {
        if (f.insert(key) > cuckoo_status::added) throw std::runtime_error("cuckoo add refused: size the filter larger");
    } else {
        f.add(key);
    }
}

/// A writer: random adds and removes over its keys until it is killed.
template <class F>
[[noreturn]] void write(const std::string& path, journal j, std::uint64_t first, std::uint64_t keys, std::uint64_t seed) {
    auto opened = open_shared_file(path);
    F& f = std::get<F>(opened);
    std::mt19937_64 rng(seed);
    for (;;) {
        const std::uint64_t key = first + rng() % keys;
        std::atomic<std::uint8_t>& s = j.keys[key];
        const std::uint8_t now = s.load(std::memory_order_relaxed);  // relaxed: only this writer changes its keys
        if (now == absent) {
            s.store(adding, std::memory_order_release);  // release: the mark precedes the call's writes
            add_key(f, key);
            s.store(added, std::memory_order_release);   // release: the add's writes precede the mark
        } else if (now == added && rng() % 2 == 0) {
            if constexpr (requires { f.remove(key); }) {
                s.store(removing, std::memory_order_release);
                if (!f.remove(key)) throw std::runtime_error("remove of an added key found nothing");
                s.store(absent, std::memory_order_release);
            }
        } else {
            continue;
        }
        j.done->fetch_add(1, std::memory_order_release);  // release: pairs with the parent's progress check
    }
}

template <class F>
std::uint64_t missing_in(const F& f, journal j, std::uint64_t keys) {
    std::uint64_t missing = 0;
    for (std::uint64_t k = 0; k < keys; ++k)
        if (j.keys[k].load(std::memory_order_acquire) == added && !f.contains(k)) ++missing;  // acquire: pairs with the mark
    return missing;
}

template <class F>
int run(const std::string& path, const geometry& shape, std::uint64_t keys, unsigned kills, unsigned writers, std::uint64_t seed,
        std::uint32_t max_ms) {
    ::unlink(path.c_str());
    (void)create_shared_file<F>(path, shape, {.seed = seed});
    const journal j = map_journal(keys);
    std::mt19937_64 rng(seed);
    std::uint64_t lost = 0, lost_in_saves = 0, hangs = 0, saves = 0;
    const std::uint64_t per_writer = keys / writers;
    const auto started = std::chrono::steady_clock::now();
    for (unsigned kill = 0; kill < kills;) {
        // The parent keeps a writable handle most of the time (so a writer's death is repaired by
        // the next locker); every 8th round it has none, so a writer may be the file's only user
        // (its open then makes the locks anew, finishing a dead writer's move).
        std::optional<any_filter> mine;
        if (kill % 8 != 7) mine.emplace(open_shared_file(path));
        std::vector<pid_t> pids;
        for (unsigned w = 0; w < writers; ++w) {
            const std::uint64_t wseed = rng();
            const pid_t pid = ::fork();
            if (pid == 0) {
                try {
                    write<F>(path, j, w * per_writer, per_writer, wseed);
                } catch (const std::exception& e) {
                    std::fprintf(stderr, "writer: %s\n", e.what());
                }
                ::_exit(3);
            }
            pids.push_back(pid);
        }
        // Progress within the bound: each round's writers must complete operations.
        const std::uint64_t before = j.done->load(std::memory_order_acquire);
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (j.done->load(std::memory_order_acquire) < before + writers && std::chrono::steady_clock::now() < deadline)
            std::this_thread::sleep_for(std::chrono::microseconds(200));
        if (j.done->load(std::memory_order_acquire) < before + writers) ++hangs;
        std::this_thread::sleep_for(std::chrono::microseconds(rng() % (max_ms * 1000 + 1)));
        bool failed = false;
        for (const pid_t pid : pids) {  // every writer is killed and reaped, whatever happened
            int status = 0;
            if (::waitpid(pid, &status, WNOHANG) == pid) {  // it ended on its own: an error it printed
                std::fprintf(stderr, "a writer exited with %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
                failed = true;
                continue;
            }
            ::kill(pid, SIGKILL);
            ::waitpid(pid, &status, 0);
            ++kill;
        }
        if (failed) {
            ::unlink(path.c_str());
            return 1;
        }
        for (std::uint64_t k = 0; k < keys; ++k) {  // keys cut mid-call: unknown from now on
            std::atomic<std::uint8_t>& s = j.keys[k];
            const std::uint8_t now = s.load(std::memory_order_acquire);
            if (now == adding || now == removing) s.store(unknown, std::memory_order_relaxed);  // relaxed: no writer runs
        }
        if (!mine) mine.emplace(open_shared_file(path));
        const F& f = std::get<F>(*mine);
        lost += missing_in(f, j, keys);
        {  // a save takes every lock: each must be usable
            std::vector<std::byte> bytes;
            save(f, vector_sink(bytes));
            std::span<const std::byte> data(bytes);
            const F copy = load<F>(span_source(data));
            lost_in_saves += missing_in(copy, j, keys);
            ++saves;
        }
    }
    std::uint64_t holding = 0, cut = 0;
    for (std::uint64_t k = 0; k < keys; ++k) {
        holding += j.keys[k].load() == added;
        cut += j.keys[k].load() == unknown;
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    std::printf("%u writers killed in %.1f s: %llu operations returned, %llu keys added at the end, %llu cut mid-call; "
                "lost %llu, lost in %llu saves %llu, hangs %llu\n",
                kills, seconds, static_cast<unsigned long long>(j.done->load()), static_cast<unsigned long long>(holding),
                static_cast<unsigned long long>(cut), static_cast<unsigned long long>(lost), static_cast<unsigned long long>(saves),
                static_cast<unsigned long long>(lost_in_saves), static_cast<unsigned long long>(hangs));
    ::unlink(path.c_str());
    return lost == 0 && lost_in_saves == 0 && hangs == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    std::string kind = "cuckoo", dir = "/tmp";
    unsigned kills = 200, writers = 2, max_ms = 3;
    std::uint64_t seed = 1, keys = 60000;
    po::options_description flags("lfbloom-crash: kill writers of a shared file at random points; nothing they completed may be lost");
    flags.add_options()("help,h", "this text")("kind", po::value(&kind), "cuckoo, counting or blocked")(
        "kills", po::value(&kills), "writers to kill")("writers", po::value(&writers), "writers alive at once")(
        "keys", po::value(&keys), "keys in the journal (the filter holds them all)")("seed", po::value(&seed), "random seed")(
        "max-ms", po::value(&max_ms), "longest a writer runs before its kill, ms")("dir", po::value(&dir), "where the file lives");
    po::variables_map vm;
    try {
        po::store(po::parse_command_line(argc, argv, flags), vm);
        po::notify(vm);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 2;
    }
    if (vm.count("help") || writers == 0 || keys < writers) {
        std::printf("%s\n", (std::ostringstream() << flags).str().c_str());
        return vm.count("help") ? 0 : 2;
    }
    const std::string path = dir + "/lfbloom-crash-" + kind + "-" + std::to_string(::getpid()) + ".lfb";
    try {
        if (kind == "cuckoo") return run<cuckoo_filter>(path, cuckoo_filter::size_for(keys, 0.001), keys, kills, writers, seed, max_ms);
        if (kind == "counting")
            return run<counting_bloom_filter>(path, counting_bloom_filter::size_for(keys, 0.01), keys, kills, writers, seed, max_ms);
        if (kind == "blocked") return run<blocked_bloom_filter>(path, blocked_layout::size_for(keys, 0.01), keys, kills, writers, seed, max_ms);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "lfbloom-crash: %s\n", e.what());
        ::unlink(path.c_str());
        return 1;
    }
    std::fprintf(stderr, "unknown kind %s\n", kind.c_str());
    return 2;
}
