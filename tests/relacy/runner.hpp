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

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>

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
