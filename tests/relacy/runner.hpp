// The runner of the Relacy model checks (tests/relacy): each program holds a few checks of the
// core's concurrent templates instantiated with Relacy's atomics (model.hpp).
// `PROGRAM NAME [ITERATIONS]` runs one check (each ctest entry runs one); `PROGRAM list` names
// them. A check whose struct declares `context_bound = N` is searched exhaustively over every
// schedule with at most N preemptions (Relacy's context-bound scheduler): seconds for these small
// tests, and it finds what random sampling misses (see swappable.rebuild). The others, too large
// to exhaust, are sampled by the random scheduler ITERATIONS times (200000). A failing check prints the interleaving that broke
// it (Relacy's execution history) and exits 1.
//
// Each check states its property and bounds (threads, operations, search) above its struct.
// Filters are one or two cache lines, so keys share words and lines, and every interleaving that
// matters is a few dozen scheduling points deep.
#pragma once

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <string_view>
#include <utility>

namespace lfbloom::relacy {

struct check {
    void (*prepare)() = nullptr;  ///< runs once outside the model (picks keys with the real filter)
    bool (*run)(rl::test_params&) = nullptr;
    unsigned context_bound = 0;  ///< 0: random scheduler; N: every schedule with at most N preemptions
};

template <class Test>
check make() {
    check c;
    if constexpr (requires { Test::prepare(); }) c.prepare = [] { Test::prepare(); };
    c.run = [](rl::test_params& p) { return rl::simulate<Test>(p); };
    if constexpr (requires { Test::context_bound; }) c.context_bound = Test::context_bound;
    return c;
}

/// A check's name as a template argument (entry, below).
template <std::size_t N>
struct check_name {
    char text[N];
    constexpr check_name(const char (&s)[N]) { std::copy_n(s, N, text); }
    constexpr std::string_view view() const { return {text, N - 1}; }
};

/// Whether this program is built with the check `name`: every check, or only those that
/// LFBLOOM_RELACY_ONLY lists (a string of names and commas). mutants.py builds each mutant's
/// program with the checks that must catch it only: the others' model code is not compiled.
consteval bool built(std::string_view name) {
#ifdef LFBLOOM_RELACY_ONLY
    for (std::string_view only = LFBLOOM_RELACY_ONLY;;) {
        const std::size_t comma = only.find(',');
        if (only.substr(0, comma) == name) return true;
        if (comma == std::string_view::npos) return false;
        only.remove_prefix(comma + 1);
    }
#else
    static_cast<void>(name);
    return true;
#endif
}

/// The program's entry for check Name, which runs Test; one not built runs nothing (run() says so).
template <check_name Name, class Test>
std::pair<const std::string, check> entry() {
    if constexpr (built(Name.view())) return {std::string(Name.view()), make<Test>()};
    else return {std::string(Name.view()), check{}};
}

inline int run(const std::map<std::string, check>& checks, int argc, char** argv) {
    if (argc < 2 || std::strcmp(argv[1], "list") == 0) {
        for (const auto& entry : checks) std::printf("%s\n", entry.first.c_str());
        return argc < 2 ? 2 : 0;
    }
    const auto it = checks.find(argv[1]);
    if (it == checks.end()) {
        std::fprintf(stderr, "no check %s (try: list)\n", argv[1]);
        return 2;
    }
    if (it->second.run == nullptr) {
        std::fprintf(stderr, "check %s is not built into this program (LFBLOOM_RELACY_ONLY)\n", argv[1]);
        return 2;
    }
    rl::test_params p;
    p.search_type = rl::random_scheduler_type;
    p.iteration_count = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 200000;
    if (it->second.context_bound != 0) {  // exhaustive within the bound: ITERATIONS is ignored
        p.search_type = rl::fair_context_bound_scheduler_type;
        p.context_bound = it->second.context_bound;
        p.iteration_count = ~rl::iteration_t{0};
    }
    p.execution_depth_limit = 20000;
    if (it->second.prepare) it->second.prepare();
    return it->second.run(p) ? 0 : 1;
}

}  // namespace lfbloom::relacy

#define LFBLOOM_RELACY_TESTS(...)                                                   \
    int main(int argc, char** argv) {                                              \
        return lfbloom::relacy::run(std::map<std::string, lfbloom::relacy::check>{__VA_ARGS__}, argc, argv); \
    }
