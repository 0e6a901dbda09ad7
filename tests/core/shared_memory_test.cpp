#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "lfbloom/lfbloom.hpp"

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

BOOST_AUTO_TEST_SUITE_END()
