#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "lfbloom/lfbloom.hpp"
#include "test_support.hpp"

using namespace lfbloom;
namespace fs = std::filesystem;

namespace {

struct temp_dir {
    fs::path path = fs::temp_directory_path() / ("lfbloom-shm-" + std::to_string(::getpid()));
    temp_dir() { fs::create_directories(path); }
    ~temp_dir() { fs::remove_all(path); }
    std::string file(const std::string& name) const { return (path / name).string(); }
};

errc open_error(const std::string& path) {
    try {
        open_shared_file(path);
    } catch (const error& e) {
        return e.code();
    }
    return errc{};
}

/// Runs body() in a child process; returns its exit status. The child never returns to Boost.Test.
template <class Body>
pid_t spawn(Body body) {
    const pid_t pid = ::fork();
    if (pid == 0) {
        int status = 1;
        try {
            status = body();
        } catch (...) {
        }
        ::_exit(status);
    }
    BOOST_REQUIRE(pid > 0);
    return pid;
}

unsigned mode_of(const std::string& path) {
    struct stat st {};
    BOOST_REQUIRE(::stat(path.c_str(), &st) == 0);
    return st.st_mode & 07777;
}

/// The permissions of the mapping of `path` in this process ("r--s", "rw-s"), or "" if none.
std::string mapping_of(const std::string& path) {
    std::ifstream maps("/proc/self/maps");
    for (std::string line; std::getline(maps, line);)
        if (line.size() > path.size() && line.compare(line.size() - path.size(), path.size(), path) == 0)
            return line.substr(line.find(' ') + 1, 4);
    return "";
}

/// Whether anything reachable from R can add, remove or clear (a read_only_filter must not).
template <class R>
concept can_write = requires(R& r) { std::get<blocked_bloom_filter>(r.filter()).add("k"); } ||
                    requires(R& r) { std::get<counting_bloom_filter>(r.filter()).remove("k"); } ||
                    requires(R& r) { std::get<classic_bloom_filter>(r.filter()).clear(); };
struct mutable_access {
    any_filter& filter() const;  // unevaluated only
};
static_assert(can_write<mutable_access>);  // so the check can tell

/// The process umask for one scope (the tests of a suite run one at a time).
struct umask_scope {
    ::mode_t old;
    explicit umask_scope(::mode_t mask) : old(::umask(mask)) {}
    ~umask_scope() { ::umask(old); }
};

int wait_for(pid_t pid) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    return status;
}

/// The child's exit status if it ends within `limit`; otherwise it is killed (and reaped) and the
/// result is -1: a child stuck on a lock nobody will free fails its test instead of hanging it.
int wait_at_most(pid_t pid, std::chrono::milliseconds limit) {
    const auto end = std::chrono::steady_clock::now() + limit;
    int status = 0;
    while (::waitpid(pid, &status, WNOHANG) == 0) {
        if (std::chrono::steady_clock::now() > end) {
            ::kill(pid, SIGKILL);
            wait_for(pid);
            return -1;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    return status;
}

/// Kills and reaps a child on scope exit unless it was reaped (`reaped`): a failed check leaves no
/// process behind.
struct child_guard {
    pid_t pid;
    bool reaped = false;
    ~child_guard() {
        if (!reaped && ::kill(pid, SIGKILL) == 0) ::waitpid(pid, nullptr, 0);
    }
};

/// The stripe words of the cuckoo filter in shared file `path`, read from the file (FORMAT.md:
/// after the buckets), so the test sees the locks as other processes left them.
std::vector<std::uint64_t> stripe_words_of(const std::string& path, std::uint64_t buckets) {
    std::vector<std::uint64_t> words(cuckoo_filter::stripe_words(buckets));
    std::ifstream in(path, std::ios::binary);
    in.seekg(static_cast<std::streamoff>(shared_words_offset + buckets * 8));
    in.read(reinterpret_cast<char*>(words.data()), static_cast<std::streamsize>(words.size() * 8));
    BOOST_REQUIRE(in.good());
    return words;
}

constexpr std::uint64_t owner_mask = (1u << 22) - 1;  // a stripe word's in-process lock bits: 0 in a shared file

/// The size of a shared cuckoo file of `buckets` buckets (FORMAT.md): the header page, the
/// buckets, the stripe words, then 64-byte lock records from the next 64-byte boundary.
std::uint64_t cuckoo_file_bytes(std::uint64_t buckets) {
    const std::uint64_t stripes = cuckoo_filter::stripe_words(buckets);
    return (shared_words_offset + (buckets + stripes) * 8 + 63) / 64 * 64 + stripes * 64;
}

/// How many of the shared cuckoo file's stripe locks the kernel marked as held by a thread that
/// died (glibc: the futex word, the mutex's first 4 bytes, has FUTEX_OWNER_DIED set), read from the file.
unsigned locks_of_the_dead(const std::string& path, std::uint64_t buckets) {
    const std::uint64_t stripes = cuckoo_filter::stripe_words(buckets);
    std::vector<std::uint64_t> records(stripes * cuckoo_filter::lock_record_words);
    std::ifstream in(path, std::ios::binary);
    in.seekg(static_cast<std::streamoff>(cuckoo_file_bytes(buckets) - stripes * 64));
    in.read(reinterpret_cast<char*>(records.data()), static_cast<std::streamsize>(records.size() * 8));
    BOOST_REQUIRE(in.good());
    unsigned dead = 0;
    for (std::uint64_t i = 0; i < stripes; ++i) dead += (records[i * cuckoo_filter::lock_record_words] & 0x40000000u) != 0;
    return dead;
}

/// Saves `f` (its writer gate takes every stripe lock); the bytes written.
std::size_t saved_bytes(const cuckoo_filter& f) {
    std::vector<std::byte> out;
    save(f, vector_sink(out));
    return out.size();
}

void overwrite(const std::string& path, std::uint64_t offset, const void* data, std::size_t n) {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(offset));
    f.write(static_cast<const char*>(data), static_cast<std::streamsize>(n));
    BOOST_REQUIRE(f.good());
}

}  // namespace

BOOST_AUTO_TEST_SUITE(shared_memory)

BOOST_AUTO_TEST_CASE(two_mappings_of_one_file_see_each_others_adds) {
    temp_dir dir;
    const std::string path = dir.file("live.lfb");
    auto a = create_shared_file<blocked_bloom_filter>(path, blocked_layout::size_for(10000, 0.01), {.seed = 3});
    a.add("from-a");
    any_filter opened = open_shared_file(path);
    auto& b = std::get<blocked_bloom_filter>(opened);
    BOOST_TEST(b.seed() == 3u);
    BOOST_TEST(b.shape().capacity == 10000u);
    BOOST_TEST(b.contains("from-a"));
    b.add("from-b");
    BOOST_TEST(a.contains("from-b"));
    b.flush();
    BOOST_TEST(fs::file_size(path) == shared_words_offset + a.words().size() * 8);
    // Creating over an existing filter is refused, and leaves no temporary behind.
    BOOST_CHECK_EXCEPTION(create_shared_file<blocked_bloom_filter>(path, blocked_layout::size_for(10, 0.01)), error,
                          [](const error& e) { return e.code() == errc::io; });
    BOOST_TEST(std::distance(fs::directory_iterator(dir.path), {}) == 1);
}

BOOST_AUTO_TEST_CASE(opening_validates_the_file) {
    temp_dir dir;
    const std::string path = dir.file("c.lfb");
    auto c = create_shared_file<counting_bloom_filter>(path, blocked_geometry(1000, 0.01, 64), {}, 8);
    c.add("k");
    c.add("k");
    BOOST_TEST(std::get<counting_bloom_filter>(open_shared_file(path)).count("k") == 2u);
    BOOST_TEST((open_error(dir.file("missing")) == errc::io));
    fs::copy_file(path, dir.file("short"));
    fs::resize_file(dir.file("short"), fs::file_size(path) - 8);
    BOOST_TEST((open_error(dir.file("short")) == errc::corrupt));
    fs::resize_file(dir.file("short"), 40);
    BOOST_TEST((open_error(dir.file("short")) == errc::corrupt));
    save_file(c, dir.file("snapshot"));  // a snapshot is not a live file
    BOOST_TEST((open_error(dir.file("snapshot")) == errc::corrupt));
    fs::copy_file(path, dir.file("flipped"));
    std::fstream f(dir.file("flipped"), std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(30);
    f.put('\x7f');
    f.close();
    BOOST_TEST((open_error(dir.file("flipped")) == errc::corrupt));
}

BOOST_AUTO_TEST_CASE(new_shared_files_get_0666_less_the_umask) {
    temp_dir dir;
    for (const ::mode_t mask : {022, 077, 007}) {
        umask_scope scope(mask);
        const std::string path = dir.file("live-" + std::to_string(mask));
        create_shared_file<blocked_bloom_filter>(path, blocked_layout::size_for(1000, 0.01));
        BOOST_TEST(mode_of(path) == (0666u & ~mask), "umask 0" << std::oct << mask);
    }
}

BOOST_AUTO_TEST_CASE(a_caller_given_mode_is_the_shared_files) {
    temp_dir dir;
    umask_scope scope(022);
    create_shared_file<blocked_bloom_filter>(dir.file("private"), blocked_layout::size_for(1000, 0.01), {}, 4, 0600);
    BOOST_TEST(mode_of(dir.file("private")) == 0600u);
    create_shared_file<counting_bloom_filter>(dir.file("group"), blocked_geometry(1000, 0.01, 128), {}, 4, 0660);
    BOOST_TEST(mode_of(dir.file("group")) == 0640u);  // less the umask, as open(2) does
    BOOST_CHECK_EXCEPTION(create_shared_file<blocked_bloom_filter>(dir.file("bad"), blocked_layout::size_for(10, 0.01), {}, 4, 01777),
                          error, [](const error& e) { return e.code() == errc::invalid_argument; });
    BOOST_TEST(!fs::exists(dir.file("bad")));
}

// A reader with only read permission: the file is 0444 and opened O_RDONLY, its words mapped
// read-only. (Tests may run as root, whom permissions do not stop, so the mode and the mapping are
// checked rather than a refused open.) Writes do not compile; the writer's adds are seen.
BOOST_AUTO_TEST_CASE(a_read_only_opener_maps_the_file_read_only) {
    temp_dir dir;
    const std::string path = dir.file("ids.lfb");
    auto writer = create_shared_file<blocked_bloom_filter>(path, blocked_layout::size_for(10000, 0.01), {.seed = 4}, 4, 0444);
    BOOST_TEST(mode_of(path) == 0444u);
    writer.add("user:1");
    const read_only_filter reader = open_shared_file_read_only(path);
    BOOST_TEST(mapping_of(path) == "r--s");
    BOOST_TEST(reader.contains("user:1"));
    BOOST_TEST(!reader.contains("user:2"));
    writer.add("user:2");
    BOOST_TEST(reader.contains("user:2"));
    BOOST_TEST(reader.stats().slots_set == writer.stats().slots_set);
    BOOST_TEST(std::get<blocked_bloom_filter>(reader.filter()).seed() == 4u);
    static_assert(!can_write<read_only_filter>);
    // The same validation as a read-write open.
    BOOST_CHECK_EXCEPTION(open_shared_file_read_only(dir.file("missing")), error, [](const error& e) { return e.code() == errc::io; });
    fs::resize_file(path, fs::file_size(path) - 8);
    BOOST_CHECK_EXCEPTION(open_shared_file_read_only(path), error, [](const error& e) { return e.code() == errc::corrupt; });
}

// Several forked processes add disjoint keys to one file-mapped filter; then every key of every
// process is present, in every process's view.
BOOST_AUTO_TEST_CASE(processes_share_a_mapped_file_without_false_negatives) {
    temp_dir dir;
    const std::string path = dir.file("shared.lfb");
    constexpr int processes = 4;
    constexpr std::uint64_t per_process = 50000;
    create_shared_file<blocked_bloom_filter>(path, blocked_layout::size_for(processes * per_process, 0.01));
    std::vector<pid_t> children;
    for (int p = 0; p < processes; ++p)
        children.push_back(spawn([&, p] {
            auto opened = open_shared_file(path);
            auto& f = std::get<blocked_bloom_filter>(opened);
            for (std::uint64_t i = 0; i < per_process; ++i) f.add(std::uint64_t(p) << 32 | i);
            return 0;
        }));
    for (pid_t c : children) BOOST_TEST(wait_for(c) == 0);
    auto opened = open_shared_file(path);
    const auto& f = std::get<blocked_bloom_filter>(opened);
    std::uint64_t missing = 0;
    for (int p = 0; p < processes; ++p)
        for (std::uint64_t i = 0; i < per_process; ++i) missing += !f.contains(std::uint64_t(p) << 32 | i);
    BOOST_TEST(missing == 0u);
}

// A writer killed with SIGKILL mid-stream loses none of the adds it completed: it publishes its
// progress after each add (release) in shared memory; the parent reads it (acquire) after the kill.
BOOST_AUTO_TEST_CASE(a_killed_writer_loses_no_completed_add) {
    temp_dir dir;
    const std::string path = dir.file("crash.lfb");
    create_shared_file<counting_bloom_filter>(path, blocked_geometry(2000000, 0.01, 128));
    word_array progress(8, 0, /*process_shared=*/true);
    const pid_t child = spawn([&] {
        auto opened = open_shared_file(path);
        auto& f = std::get<counting_bloom_filter>(opened);
        for (std::uint64_t i = 0;; ++i) {
            f.add(i);
            // release: the add happens-before the parent's acquire below
            boost::ipc_atomic_ref<std::uint64_t>(progress.data()[0]).store(i + 1, boost::memory_order_release);
        }
        return 0;
    });
    // acquire: pairs with the child's release
    while (boost::ipc_atomic_ref<std::uint64_t>(progress.data()[0]).load(boost::memory_order_acquire) < 100000)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    ::kill(child, SIGKILL);
    const int status = wait_for(child);
    BOOST_TEST((WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL));
    // acquire: every add counted here completed before the kill
    const std::uint64_t completed = boost::ipc_atomic_ref<std::uint64_t>(progress.data()[0]).load(boost::memory_order_acquire);
    auto opened = open_shared_file(path);
    const auto& f = std::get<counting_bloom_filter>(opened);
    std::uint64_t missing = 0;
    for (std::uint64_t i = 0; i < completed; ++i) missing += !f.contains(i);
    BOOST_TEST_MESSAGE("killed after " << completed << " completed adds");
    BOOST_TEST(missing == 0u);
}

BOOST_AUTO_TEST_CASE(process_shared_anonymous_memory_is_shared_with_children) {
    auto f = classic_bloom_filter::for_capacity(100000, 0.01, {.process_shared = true});
    const pid_t child = spawn([&] {
        for (std::uint64_t i = 0; i < 1000; ++i) f.add(i);
        return 0;
    });
    BOOST_TEST(wait_for(child) == 0);
    for (std::uint64_t i = 0; i < 1000; ++i) BOOST_TEST_REQUIRE(f.contains(i));
}

BOOST_AUTO_TEST_CASE(words_may_start_anywhere_in_a_page) {
    temp_dir dir;
    const std::string path = dir.file("words");
    std::vector<std::uint64_t> pattern(1024);
    for (std::uint64_t i = 0; i < pattern.size(); ++i) pattern[i] = i * 0x9E3779B97F4A7C15ULL;
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(pattern.data()), pattern.size() * 8);
    detail::fd_guard fd{::open(path.c_str(), O_RDWR | O_CLOEXEC)};
    for (const std::uint64_t first : {1u, 513u, 1000u}) {  // 8, 4104 and 8000 bytes in: not page-aligned
        const word_array words = word_array::map_file(fd.fd, first * 8, pattern.size() - first, 0);
        BOOST_TEST(words.data()[0] == pattern[first]);
        BOOST_TEST(words.data()[words.size() - 1] == pattern.back());
        words.data()[0] = 7;  // the file sees a store through the mapping
        words.flush();
        std::uint64_t stored = 0;
        BOOST_REQUIRE(::pread(fd.fd, &stored, 8, static_cast<off_t>(first * 8)) == 8);
        BOOST_TEST(stored == 7u);
    }
    BOOST_CHECK_EXCEPTION(word_array::map_file(fd.fd, 4, 8, 0), error,
                          [](const error& e) { return e.code() == errc::invalid_argument; });
}

// Processes add and remove their own keys in one cuckoo filter file: the stripe locks live in the
// file, so every count is exact afterwards, seen from any process.
BOOST_AUTO_TEST_CASE(processes_share_a_cuckoo_filter_file) {
    temp_dir dir;
    const std::string path = dir.file("cuckoo.lfb");
    constexpr int processes = 3;
    constexpr std::uint64_t per_process = 30000;
    auto made = create_shared_file<cuckoo_filter>(path, cuckoo_filter::for_capacity(processes * per_process, 0.001).shape(), {.seed = 5});
    BOOST_TEST(fs::file_size(path) == cuckoo_file_bytes(made.buckets()));
    std::vector<pid_t> children;
    for (int p = 0; p < processes; ++p)
        children.push_back(spawn([&, p] {
            auto opened = open_shared_file(path);
            auto& f = std::get<cuckoo_filter>(opened);
            for (std::uint64_t i = 0; i < per_process; ++i)
                if (f.insert(std::uint64_t(p) << 32 | i) > cuckoo_status::added) return 2;
            for (std::uint64_t i = 0; i < per_process; i += 3)  // every third key again out
                if (!f.remove(std::uint64_t(p) << 32 | i)) return 3;
            return 0;
        }));
    for (pid_t c : children) BOOST_TEST(wait_for(c) == 0);
    std::uint64_t missing = 0, stored = 0;
    for (int p = 0; p < processes; ++p)
        for (std::uint64_t i = 0; i < per_process; ++i) {
            if (i % 3 != 0) missing += !made.contains(std::uint64_t(p) << 32 | i);
            else stored += made.count(std::uint64_t(p) << 32 | i);  // only another key's copy, rarely
        }
    BOOST_TEST(missing == 0u);
    BOOST_TEST(static_cast<double>(stored) <= lfbloom_test::fp_upper_bound(processes * per_process / 3, 0.001));  // sized 0.1%
    BOOST_TEST(made.stats().fingerprints == processes * (per_process - per_process / 3));
    for (const std::uint64_t w : stripe_words_of(path, made.buckets())) BOOST_TEST_REQUIRE((w & owner_mask) == 0u);
    const read_only_filter ro = open_shared_file_read_only(path);
    BOOST_TEST(std::get<cuckoo_filter>(ro.filter()).contains(std::uint64_t(1) << 32 | 1));
    BOOST_TEST(ro.stats().slots_set == made.stats().fingerprints);  // the read-only view reports the file's fill
    BOOST_TEST((ro.stats().kind == layout::cuckoo));
    BOOST_CHECK_EXCEPTION(saved_bytes(std::get<cuckoo_filter>(ro.filter())), error,  // its save would lock read-only pages
                          [](const error& e) { return e.code() == errc::read_only; });
}

// A process killed while it holds stripe locks (here all of them: its writer gate) stops writers
// only while it lives: a live holder is waited for (at most the lock timeout), a dead one's locks
// are handed over by the kernel.
BOOST_AUTO_TEST_CASE(writers_take_over_the_locks_of_a_killed_process) {
    temp_dir dir;
    const std::string path = dir.file("cuckoo.lfb");
    auto f = create_shared_file<cuckoo_filter>(path, cuckoo_filter::for_capacity(10000, 0.001).shape());
    for (std::uint64_t i = 0; i < 5000; ++i) BOOST_REQUIRE(f.insert(i) <= cuckoo_status::added);
    int ready[2];
    BOOST_REQUIRE(::pipe(ready) == 0);
    const pid_t holder = spawn([&] {
        auto opened = open_shared_file(path);
        std::get<cuckoo_filter>(opened).with_writers_paused([&](auto) {
            (void)!::write(ready[1], "x", 1);
            for (;;) ::pause();
        });
        return 0;
    });
    child_guard holder_guard{holder};
    ::close(ready[1]);  // so a holder that dies before it writes ends the read (EOF) instead of hanging it
    char byte;
    BOOST_REQUIRE(::read(ready[0], &byte, 1) == 1);
    const pid_t writer = spawn([&] {
        auto opened = open_shared_file(path);
        auto& g = std::get<cuckoo_filter>(opened);
        for (std::uint64_t i = 5000; i < 6000; ++i)
            if (g.insert(i) > cuckoo_status::added) return 2;
        return g.remove(std::uint64_t{1}) ? 0 : 3;
    });
    child_guard writer_guard{writer};
    int status = 0;
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    BOOST_TEST(::waitpid(writer, &status, WNOHANG) == 0);  // the holder lives: its locks hold
    const auto started = std::chrono::steady_clock::now();
    f.set_lock_timeout(200);
    BOOST_CHECK_EXCEPTION(f.insert(std::uint64_t{7000}), error, [](const error& e) { return e.code() == errc::timeout; });
    BOOST_TEST((std::chrono::steady_clock::now() - started < std::chrono::seconds(5)));
    BOOST_TEST(f.count(std::uint64_t{7000}) == 0u);  // the refused add stored nothing
    f.set_lock_timeout(cuckoo_filter::default_lock_timeout_ms);
    ::kill(holder, SIGKILL);  // not reaped until the writer is done: the kernel hands its locks over at exit
    BOOST_TEST(wait_at_most(writer, std::chrono::seconds(30)) == 0);
    writer_guard.reaped = true;
    BOOST_TEST(WIFSIGNALED(wait_for(holder)));
    holder_guard.reaped = true;
    std::uint64_t missing = 0;
    for (std::uint64_t i = 2; i < 6000; ++i) missing += !f.contains(i);
    BOOST_TEST(missing == 0u);
    const pid_t saver = spawn([&] {  // every stripe can be locked again: a save takes them all
        auto opened = open_shared_file(path);
        return saved_bytes(std::get<cuckoo_filter>(opened)) == 0 ? 1 : 0;
    });
    BOOST_TEST(wait_at_most(saver, std::chrono::seconds(30)) == 0);
    ::close(ready[0]);
}

// Writers killed at random moments of a churn (adds, removes and their kicks) leave every
// resident key present and every lock usable: a kill cut short at worst leaves a second copy.
BOOST_AUTO_TEST_CASE(killing_churning_writers_loses_no_resident_key) {
    temp_dir dir;
    const std::string path = dir.file("cuckoo.lfb");
    auto f = create_shared_file<cuckoo_filter>(path, cuckoo_filter::for_capacity(30000, 0.001).shape());
    constexpr std::uint64_t resident = 16000;  // with 1,000 left by each churner: up to 88% load
    for (std::uint64_t i = 0; i < resident; ++i) BOOST_REQUIRE(f.insert(i) <= cuckoo_status::added);
    int held_by_the_dead = 0;
    for (int round = 0; round < 12; ++round) {
        const pid_t churner = spawn([&] {
            auto opened = open_shared_file(path);
            auto& g = std::get<cuckoo_filter>(opened);
            const std::uint64_t base = std::uint64_t(round + 1) << 40;
            std::deque<std::uint64_t> mine;  // keys it added: it removes only those
            for (std::uint64_t i = 0;; ++i) {  // keeps about 1,000 keys of its own in
                if (g.insert(base + i) > cuckoo_status::added) continue;
                mine.push_back(base + i);
                if (mine.size() > 1000) {
                    g.remove(mine.front());
                    mine.pop_front();
                }
            }
            return 0;
        });
        std::this_thread::sleep_for(std::chrono::milliseconds(20 + 7 * round));
        ::kill(churner, SIGKILL);
        wait_for(churner);
        held_by_the_dead += locks_of_the_dead(path, f.buckets());
        std::uint64_t missing = 0;
        for (std::uint64_t i = 0; i < resident; ++i) missing += !f.contains(i);
        BOOST_TEST_REQUIRE(missing == 0u);
    }
    BOOST_TEST_MESSAGE(held_by_the_dead << " stripe locks were held by a killed churner");
    BOOST_TEST(held_by_the_dead > 0);  // else no hand-over was exercised (12 kills mid-churn: each ~50%)
    const pid_t checker = spawn([&] {  // removes what the churners left, through every stripe
        auto opened = open_shared_file(path);
        auto& g = std::get<cuckoo_filter>(opened);
        for (std::uint64_t i = 0; i < resident; ++i)
            if (!g.remove(i)) return 2;
        return saved_bytes(g) == 0 ? 1 : 0;
    });
    BOOST_TEST(wait_at_most(checker, std::chrono::seconds(60)) == 0);
}

// Issue 37's first defect: two handles on one file in one process exclude each other (the lock is
// the file's mutex, not the handle's), so a save through one while threads add through the other
// holds every add that returned before the save began, and loads.
BOOST_AUTO_TEST_CASE(two_handles_on_one_file_in_one_process_lose_nothing) {
    temp_dir dir;
    const std::string path = dir.file("cuckoo.lfb");
    auto a = open_or_create_shared_cuckoo(path, 60000, 0.001);
    auto opened = open_shared_file(path);
    auto& b = std::get<cuckoo_filter>(opened);
    constexpr std::uint64_t threads = 2, per_thread = 25000;
    std::atomic<std::uint64_t> done[threads] = {};
    std::vector<std::thread> adders;
    for (std::uint64_t t = 0; t < threads; ++t)
        adders.emplace_back([&, t] {
            for (std::uint64_t i = 0; i < per_thread; ++i) {
                if (b.insert(t << 32 | i) > cuckoo_status::added) return;
                if (i % 3 == 2 && !a.remove(t << 32 | (i - 1))) return;  // removes through the other handle
                done[t].store(i + 1, std::memory_order_release);  // release: pairs with the saver's acquire
            }
        });
    int saves = 0;
    for (; saves < 20; ++saves) {
        std::uint64_t before[threads];
        for (std::uint64_t t = 0; t < threads; ++t) before[t] = done[t].load(std::memory_order_acquire);
        std::vector<std::byte> bytes;
        save(a, vector_sink(bytes));
        std::span<const std::byte> data(bytes);
        const cuckoo_filter saved = load<cuckoo_filter>(span_source(data));  // refuses a wrong fingerprint count
        std::uint64_t missing = 0;
        for (std::uint64_t t = 0; t < threads; ++t)
            for (std::uint64_t i = 0; i < before[t]; ++i)
                if (i % 3 != 1) missing += !saved.contains(t << 32 | i);  // those are removed, or being removed
        BOOST_TEST_REQUIRE(missing == 0u);
    }
    for (auto& t : adders) t.join();
    for (std::uint64_t t = 0; t < threads; ++t) BOOST_TEST(done[t].load() == per_thread);
    BOOST_TEST(a.stats().fingerprints == threads * (per_thread - per_thread / 3));
}

// An untrusted file cannot make a writer wait: a file nobody has open gets new locks from its
// first writer, whatever its lock records and stripe words held (garbage; "held" by pid 1 in
// 1.9's format), and a writer that finds a lock held waits at most its timeout.
BOOST_AUTO_TEST_CASE(a_crafted_lock_area_is_made_anew_or_refused_never_waited_for) {
    temp_dir dir;
    const std::string path = dir.file("cuckoo.lfb");
    const std::uint64_t buckets = create_shared_file<cuckoo_filter>(path, cuckoo_filter::for_capacity(5000, 0.001).shape()).buckets();
    const std::uint64_t stripes = cuckoo_filter::stripe_words(buckets);
    std::vector<std::uint64_t> words = stripe_words_of(path, buckets);
    for (auto& w : words) w |= 1;  // "held" by pid 1, as lfbloom 1.9 would read it
    overwrite(path, shared_words_offset + buckets * 8, words.data(), words.size() * 8);
    const std::vector<unsigned char> garbage(stripes * 64, 0xA5);
    overwrite(path, cuckoo_file_bytes(buckets) - stripes * 64, garbage.data(), garbage.size());
    const pid_t writer = spawn([&] {
        auto opened = open_shared_file(path);
        auto& f = std::get<cuckoo_filter>(opened);
        f.set_lock_timeout(1000);
        for (std::uint64_t i = 0; i < 2000; ++i)
            if (f.insert(i) > cuckoo_status::added) return 2;
        return saved_bytes(f) > 0 && f.count(std::uint64_t{5}) == 1 ? 0 : 3;
    });
    BOOST_TEST(wait_at_most(writer, std::chrono::seconds(30)) == 0);
    for (const std::uint64_t w : stripe_words_of(path, buckets)) BOOST_TEST_REQUIRE((w & owner_mask) == 0u);
    // While a writer has the file open, another opener trusts its locks but checks the stripe words.
    auto opened = open_shared_file(path);
    words = stripe_words_of(path, buckets);
    words[0] |= 1;
    overwrite(path, shared_words_offset + buckets * 8, words.data(), 8);
    BOOST_TEST((open_error(path) == errc::corrupt));
    words[0] &= ~owner_mask;
    overwrite(path, shared_words_offset + buckets * 8, words.data(), 8);
    BOOST_TEST((open_error(path) == errc{}));
}

// lfbloom 1.9 wrote cuckoo files with process-id locks in the stripe words and no lock records
// (format version 1): readers open them as they are, and the first writer adds the records.
BOOST_AUTO_TEST_CASE(a_cuckoo_file_of_lfbloom_1_9_is_upgraded_by_its_first_writer) {
    temp_dir dir;
    const std::string path = dir.file("cuckoo.lfb");
    const geometry shape = cuckoo_filter::for_capacity(5000, 0.001).shape();
    std::uint64_t buckets = 0;
    {
        auto f = create_shared_file<cuckoo_filter>(path, shape, {.seed = 4});
        buckets = f.buckets();
        for (std::uint64_t i = 0; i < 3000; ++i) BOOST_REQUIRE(f.insert(i) <= cuckoo_status::added);
    }
    // as 1.9 left it: version 1, no records, a dead writer's pid on every stripe
    std::array<unsigned char, header_size> header;
    {
        std::ifstream in(path, std::ios::binary);
        in.read(reinterpret_cast<char*>(header.data()), header.size());
    }
    detail::put_le<std::uint16_t>(&header[8], 1);
    detail::put_le<std::uint64_t>(&header[72], XXH3_64bits(header.data(), 72));
    overwrite(path, 0, header.data(), header.size());
    std::vector<std::uint64_t> words = stripe_words_of(path, buckets);
    for (auto& w : words) w |= 4242;
    overwrite(path, shared_words_offset + buckets * 8, words.data(), words.size() * 8);
    const std::uint64_t old_size = shared_words_offset + (buckets + words.size()) * 8;
    fs::resize_file(path, old_size);
    {
        const read_only_filter ro = open_shared_file_read_only(path);
        BOOST_TEST(std::get<cuckoo_filter>(ro.filter()).contains(std::uint64_t{17}));
    }
    BOOST_TEST(fs::file_size(path) == old_size);
    auto f = open_or_create_shared_cuckoo(path, 5000, 0.001, 0, {.seed = 4});
    BOOST_TEST(fs::file_size(path) == cuckoo_file_bytes(buckets));
    BOOST_TEST((f.insert(std::uint64_t{99999}) == cuckoo_status::added_new));
    std::uint64_t missing = 0;
    for (std::uint64_t i = 0; i < 3000; ++i) missing += !f.contains(i);
    BOOST_TEST(missing == 0u);
    for (const std::uint64_t w : stripe_words_of(path, buckets)) BOOST_TEST_REQUIRE((w & owner_mask) == 0u);
}

BOOST_AUTO_TEST_CASE(open_or_create_gives_racing_processes_one_filter) {
    temp_dir dir;
    const std::string path = dir.file("cuckoo.lfb");
    const geometry shape = cuckoo_filter::for_capacity(40000, 0.001).shape();
    int start[2];  // a barrier: the children race from the moment the parent closes its end
    BOOST_REQUIRE(::pipe(start) == 0);
    std::vector<pid_t> children;
    for (int p = 0; p < 4; ++p)
        children.push_back(spawn([&, p] {
            char byte;
            ::close(start[1]);
            (void)!::read(start[0], &byte, 1);
            auto f = open_or_create_shared_file<cuckoo_filter>(path, shape, {.seed = 9});
            for (std::uint64_t i = 0; i < 5000; ++i)
                if (f.insert(std::uint64_t(p) << 32 | i) > cuckoo_status::added) return 2;
            return 0;
        }));
    ::close(start[0]);
    ::close(start[1]);
    for (pid_t c : children) BOOST_TEST(wait_for(c) == 0);
    BOOST_TEST(std::distance(fs::directory_iterator(dir.path), {}) == 1);  // no temporary left behind
    auto f = open_or_create_shared_file<cuckoo_filter>(path, shape, {.seed = 9});
    BOOST_TEST(f.stats().fingerprints == 4u * 5000);
    const auto refused = [](auto make) { return lfbloom_test::code_of(make) == errc::incompatible; };
    BOOST_TEST(refused([&] { open_or_create_shared_file<cuckoo_filter>(path, shape, {.seed = 10}); }));
    BOOST_TEST(refused([&] { open_or_create_shared_file<cuckoo_filter>(path, cuckoo_filter::for_capacity(40001, 0.001).shape(), {.seed = 9}); }));
    BOOST_TEST(refused([&] { open_or_create_shared_file<blocked_bloom_filter>(path, blocked_layout::size_for(40000, 0.001)); }));
    const std::string bloom = dir.file("bloom.lfb");
    open_or_create_shared_file<blocked_bloom_filter>(bloom, blocked_layout::size_for(1000, 0.01)).add("k");
    BOOST_TEST(open_or_create_shared_file<blocked_bloom_filter>(bloom, blocked_layout::size_for(1000, 0.01)).contains("k"));
}

// 0.1% picks 14-bit fingerprints since 1.7; the 1.5/1.6 file these arguments made is 16 bits.
BOOST_AUTO_TEST_CASE(a_cuckoo_file_of_another_width_opens_when_the_width_is_left_to_the_rate) {
    temp_dir dir;
    const std::string path = dir.file("cuckoo16.lfb");
    const filter_options seeded{.seed = 3};
    BOOST_TEST(cuckoo_filter::size_for(40000, 0.001).slot_bits == 14u);
    open_or_create_shared_file<cuckoo_filter>(path, cuckoo_filter::size_for(40000, 0.001, 16), seeded).add("old");
    auto f = open_or_create_shared_cuckoo(path, 40000, 0.001, 0, seeded);
    BOOST_TEST(f.counter_bits() == 16u);
    BOOST_TEST(f.contains("old"));
    BOOST_TEST(open_or_create_shared_cuckoo(path, 40000, 0.001, 16, seeded).contains("old"));
    any_filter any = open_shared_file(path);
    BOOST_TEST(detail::expect_cuckoo(any, path, 40000, 0.001, 0, seeded).contains("old"));
    const auto refused = [](auto make) { return lfbloom_test::code_of(make) == errc::incompatible; };
    BOOST_TEST(refused([&] { open_or_create_shared_cuckoo(path, 40000, 0.001, 14, seeded); }));   // a width asked for is kept
    BOOST_TEST(refused([&] { open_or_create_shared_cuckoo(path, 40000, 0.001, 17, seeded); }));
    BOOST_TEST(refused([&] { open_or_create_shared_cuckoo(path, 40001, 0.001, 0, seeded); }));    // the size still must match
    BOOST_TEST(refused([&] { open_or_create_shared_cuckoo(path, 40000, 0.001, 0, {.seed = 4}); }));
    BOOST_TEST(refused([&] { open_or_create_shared_file<cuckoo_filter>(path, cuckoo_filter::size_for(40000, 0.001), seeded); }));
    // A 14-bit file cannot be what a rate below 14 bits' reach made: refused as incompatible, not invalid.
    const std::string narrow = dir.file("cuckoo14.lfb");
    open_or_create_shared_cuckoo(narrow, 40000, 0.001, 14, seeded);
    BOOST_TEST(refused([&] { open_or_create_shared_cuckoo(narrow, 40000, 0.00005, 0, seeded); }));
    // A new file gets the rate's width.
    BOOST_TEST(open_or_create_shared_cuckoo(dir.file("new.lfb"), 40000, 0.001).counter_bits() == 14u);
}

BOOST_AUTO_TEST_SUITE_END()
