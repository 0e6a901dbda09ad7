#include <signal.h>
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
