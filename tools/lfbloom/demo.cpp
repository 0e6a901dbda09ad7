// lfbloom demo: the cache-penetration guard our users build, running for real.
//
// A SQLite database holds N users. A filter of any kind (lfbloom::make_filter) is warmed from it,
// or one saved by `lfbloom build` is loaded (--filter). Worker threads serve a stream of
// lookups, half for real users and half for attack keys that do not exist (the flood that
// penetrates a cache and hammers the database); each lookup asks the filter first and goes to the
// database only on "maybe". The same stream is then served without the filter, every lookup a
// database query. The demo checks its own numbers and fails on a false negative or an FPR
// significantly above the configured rate.
#include <sqlite3.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <boost/math/distributions/binomial.hpp>
#include <boost/program_options.hpp>

#include "cli.hpp"

namespace po = boost::program_options;

namespace cli {
namespace {

/// One SQLite connection per thread (the database is shared, connections are not).
class database {
public:
    explicit database(const std::string& path, bool create) {
        const int flags = (create ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READONLY) | SQLITE_OPEN_NOMUTEX;
        if (sqlite3_open_v2(path.c_str(), &db_, flags, nullptr) != SQLITE_OK) fail("open");
        // Readers opening a WAL database at once may briefly find it locked (one of them rebuilds
        // the shared WAL index): wait for it instead of failing with SQLITE_BUSY.
        sqlite3_busy_timeout(db_, 10000);
    }
    ~database() {
        sqlite3_finalize(lookup_);
        sqlite3_close(db_);
    }
    database(const database&) = delete;
    database& operator=(const database&) = delete;

    void exec(const char* sql) {
        if (sqlite3_exec(db_, sql, nullptr, nullptr, nullptr) != SQLITE_OK) fail(sql);
    }
    sqlite3_stmt* prepare(const char* sql) {
        sqlite3_stmt* s = nullptr;
        if (sqlite3_prepare_v2(db_, sql, -1, &s, nullptr) != SQLITE_OK) fail(sql);
        return s;
    }
    /// The query the guard protects: does this user exist?
    bool user_exists(const std::string& name) {
        if (lookup_ == nullptr) lookup_ = prepare("SELECT 1 FROM users WHERE name = ?1");
        sqlite3_bind_text(lookup_, 1, name.data(), static_cast<int>(name.size()), SQLITE_STATIC);
        const int rc = sqlite3_step(lookup_);
        if (rc != SQLITE_ROW && rc != SQLITE_DONE) fail("lookup");
        sqlite3_reset(lookup_);
        return rc == SQLITE_ROW;
    }
    [[noreturn]] void fail(const std::string& what) {
        throw failure(exit_output, "SQLite " + what + ": " + (db_ != nullptr ? sqlite3_errmsg(db_) : "cannot open"));
    }

private:
    sqlite3* db_ = nullptr;
    sqlite3_stmt* lookup_ = nullptr;
};

std::string user_name(std::uint64_t id) { return "user:" + std::to_string(id); }

struct run_result {
    double seconds = 0;
    std::uint64_t db_queries = 0, maybe = 0, real = 0, attacks = 0, attack_maybe = 0, false_negatives = 0, found = 0;
};

/// Serves `lookups` lookups on `threads` threads; through the filter when `filter` is not null.
run_result serve(const std::string& path, const lfbloom::dynamic_filter* filter, std::uint64_t users, std::uint64_t lookups,
                 unsigned threads, std::uint64_t seed) {
    std::vector<run_result> parts(threads);
    const auto start = std::chrono::steady_clock::now();
    std::vector<std::thread> pool;
    std::atomic<bool> failed{false};
    std::string error;
    for (unsigned t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
            try {
                database db(path, false);
                std::mt19937_64 rng(seed * 1000 + t);
                run_result& r = parts[t];
                const std::uint64_t mine = lookups / threads + (t < lookups % threads);
                for (std::uint64_t i = 0; i < mine; ++i) {
                    const bool attack = rng() & 1;
                    // Attack ids lie far above every real id: these users do not exist.
                    const std::uint64_t id = attack ? users + (rng() >> 1) : rng() % users;
                    const std::string name = user_name(id);
                    (attack ? r.attacks : r.real)++;
                    bool ask_db = true;
                    if (filter != nullptr) {
                        ask_db = filter->contains(lfbloom::as_key(name));
                        r.maybe += ask_db;
                        if (attack) r.attack_maybe += ask_db;
                        if (!attack && !ask_db) ++r.false_negatives;  // a real user the filter turned away
                    }
                    if (ask_db) {
                        ++r.db_queries;
                        r.found += db.user_exists(name);
                    }
                }
            } catch (const std::exception& e) {
                if (!failed.exchange(true)) error = e.what();
            }
        });
    for (auto& th : pool) th.join();
    if (failed) throw failure(exit_output, error);
    run_result total;
    total.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    for (const auto& r : parts) {
        total.db_queries += r.db_queries, total.maybe += r.maybe, total.real += r.real, total.attacks += r.attacks;
        total.attack_maybe += r.attack_maybe, total.false_negatives += r.false_negatives, total.found += r.found;
    }
    return total;
}

}  // namespace

int run_demo(int argc, char** argv) {
    std::uint64_t users = 1000000, lookups = 0, seed = 1;
    unsigned threads = std::max(1u, std::thread::hardware_concurrency());
    double rate = 0.01;
    std::string saved;
    kind_flags kind;
    po::options_description flags("The cache-penetration guard: a filter in front of a SQLite database of users");
    flags.add_options()("help,h", "this text")("users", po::value(&users)->default_value(users), "users in the database")(
        "threads", po::value(&threads)->default_value(threads), "worker threads (default: the cores)")(
        "lookups", po::value(&lookups), "lookups per run (default: the number of users)")(
        "rate", po::value(&rate)->default_value(rate), "configured false-positive rate")(
        "seed", po::value(&seed)->default_value(seed), "seed of the lookup stream")(
        "filter", po::value(&saved),
        "guard with this saved filter (its rate is the configured one) instead of warming one; it must hold user:0 .. user:N-1");
    kind.add_to(flags);
    po::variables_map vm;
    try {
        po::store(po::parse_command_line(argc, argv, flags), vm);
        po::notify(vm);
    } catch (const po::error& e) {
        throw failure(exit_usage, std::string(e.what()) + " (see lfbloom demo --help)");
    }
    if (vm.count("help")) {
        std::cout << "usage: lfbloom demo [flags]\n\n" << flags;
        return exit_ok;
    }
    if (!vm.count("lookups")) lookups = users;
    if (users == 0 || lookups == 0 || threads == 0 || threads > 256) throw failure(exit_usage, "--users, --lookups and --threads (1..256) must be positive");
    if (!saved.empty() && (vm.count("kind") || vm.count("layout"))) throw failure(exit_usage, "--filter brings its own kind: no --kind");
    lfbloom::filter_spec spec = kind.spec(vm);
    spec.capacity = users;
    spec.fpr = rate;

    const auto dir = std::filesystem::temp_directory_path() / ("lfbloom-demo-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    struct cleanup {
        std::filesystem::path dir;
        ~cleanup() {
            std::error_code ec;
            std::filesystem::remove_all(dir, ec);
        }
    } remove_dir{dir};
    const std::string path = (dir / "users.db").string();

    auto t0 = std::chrono::steady_clock::now();
    {
        database db(path, true);
        db.exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=OFF; CREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT UNIQUE NOT NULL)");
        db.exec("BEGIN");
        sqlite3_stmt* insert = db.prepare("INSERT INTO users(id, name) VALUES(?1, ?2)");
        for (std::uint64_t id = 0; id < users; ++id) {
            const std::string name = user_name(id);
            sqlite3_bind_int64(insert, 1, static_cast<sqlite3_int64>(id));
            sqlite3_bind_text(insert, 2, name.data(), static_cast<int>(name.size()), SQLITE_STATIC);
            if (sqlite3_step(insert) != SQLITE_DONE) db.fail("insert");
            sqlite3_reset(insert);
        }
        sqlite3_finalize(insert);
        db.exec("COMMIT");
    }
    const double fill_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    // Warm the filter from the database, as a service does at start-up (or load the one it saved).
    t0 = std::chrono::steady_clock::now();
    std::unique_ptr<lfbloom::dynamic_filter> filter;
    if (!saved.empty()) {
        filter = read_filter(saved);
        rate = filter->info().target_fpr;
    } else {
        filter = new_filter(spec);
        database db(path, false);
        sqlite3_stmt* all = db.prepare("SELECT name FROM users");
        while (sqlite3_step(all) == SQLITE_ROW) {
            const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(all, 0));
            filter->add(lfbloom::as_key(std::string_view(text, static_cast<std::size_t>(sqlite3_column_bytes(all, 0)))));
        }
        sqlite3_finalize(all);
    }
    const double warm_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const lfbloom::filter_info v = filter->info();
    std::string what = lfbloom::kind_name(v.kind);
    if (!lfbloom::is_layout(v.kind))
        what += " of " + std::to_string(v.parts) + " " + lfbloom::kind_name(v.sub_kind) + (v.parts == 1 ? " part" : " parts");
    std::printf("lfbloom demo: a %s filter guarding a database against cache penetration\n\n", lfbloom::kind_name(v.kind));
    std::printf("  database        %s users in SQLite (filled in %.1f s)\n", grouped(users).c_str(), fill_seconds);
    std::printf("  filter          %s, %s bytes, %u-bit slots, %u hashes, sized for %s keys at %.4g%%, %.1f%% of slots set (%s in %.2f s)\n",
                what.c_str(), grouped(v.bytes).c_str(), v.slot_bits, v.hashes, grouped(v.capacity).c_str(), 100 * rate,
                100 * v.fill_ratio, saved.empty() ? "warmed" : "loaded", warm_seconds);
    std::printf("  lookup stream   %s lookups per run: 50%% real users, 50%% attack keys that do not exist\n\n",
                grouped(lookups).c_str());

    std::vector<unsigned> counts{1};
    for (unsigned t = 2; t < threads; t *= 2) counts.push_back(t);
    if (threads > 1) counts.push_back(threads);

    std::printf("  %-8s %-15s %14s %14s %14s %10s\n", "threads", "guard", "lookups/s", "db queries", "db avoided", "FN");
    run_result checked;
    bool bad = false;
    for (unsigned t : counts) {
        const run_result r = serve(path, filter.get(), users, lookups, t, seed);
        std::printf("  %-8u %-15s %14s %14s %14s %10s\n", t, "lfbloom filter", grouped(static_cast<std::uint64_t>(lookups / r.seconds)).c_str(),
                    grouped(r.db_queries).c_str(), grouped(lookups - r.db_queries).c_str(), grouped(r.false_negatives).c_str());
        // Self-checks: every "maybe" went to the database, every real user was found there.
        if (r.db_queries != r.maybe || r.found != r.real || r.false_negatives != 0) bad = true;
        checked = r;
    }
    const run_result without = serve(path, nullptr, users, lookups, threads, seed);
    std::printf("  %-8u %-15s %14s %14s %14s %10s\n", threads, "none", grouped(static_cast<std::uint64_t>(lookups / without.seconds)).c_str(),
                grouped(without.db_queries).c_str(), "0", "-");
    if (without.db_queries != lookups || without.found != without.real) bad = true;

    // The measured FPR must not be significantly above the configured rate: one-sided binomial
    // bound at a false-alarm probability of 1e-6.
    const double measured = static_cast<double>(checked.attack_maybe) / static_cast<double>(checked.attacks);
    const double bound = boost::math::quantile(boost::math::complement(
                             boost::math::binomial_distribution<>(static_cast<double>(checked.attacks), rate), 1e-6)) /
                         static_cast<double>(checked.attacks);
    const double speedup = without.seconds / checked.seconds;
    std::printf("\n  attack lookups that reached the database: %s of %s, measured FPR %.4f%% (configured %.4g%%, bound %.4f%%)\n",
                grouped(checked.attack_maybe).c_str(), grouped(checked.attacks).c_str(), 100 * measured, 100 * rate, 100 * bound);
    std::printf("  database queries with the filter: %.1f%% of those without it; %.2fx the throughput at %u threads\n",
                100.0 * checked.db_queries / without.db_queries, speedup, threads);
    std::printf("  false negatives: %s (must be 0)\n", grouped(checked.false_negatives).c_str());
    if (measured > bound) bad = true;
    if (bad) {
        std::fprintf(stderr, "lfbloom demo: SELF-CHECK FAILED (false negatives, an FPR above its bound, or inconsistent counts)\n");
        return exit_check_failed;
    }
    std::printf("  self-check: passed\n");
    return exit_ok;
}

}  // namespace cli
