// Shared pieces of the lfbloom command: errors with exit codes, key input, progress, filters.
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "lfbloom/lfbloom.hpp"

namespace cli {

/// Exit codes, documented in `lfbloom --help`.
enum exit_code : int {
    exit_ok = 0,
    exit_check_failed = 1,  ///< the demo's self-check found a false negative or an FPR over its bound
    exit_usage = 2,         ///< bad flags or numbers
    exit_bad_input = 3,     ///< missing, unreadable, corrupt or foreign input; bad keys; empty input
    exit_output = 4,        ///< the output could not be written (nothing half-written is left)
    exit_resources = 5,     ///< the filter would not fit the memory limit or the machine
};

/// A failure with the one line to print and the exit code.
struct failure : std::runtime_error {
    exit_code code;
    failure(exit_code c, const std::string& what) : std::runtime_error(what), code(c) {}
};

struct key_input_options {
    std::string path = "-";              ///< "-" is stdin
    std::uint64_t max_key_bytes = 65536;
    bool progress = true;                ///< shown only when stderr is a terminal
};

/// Calls on_batch with batches of keys (one per line; "\n" or "\r\n" endings; empty lines are
/// skipped). Returns how many keys were read. Throws failure(exit_bad_input) for an unreadable
/// input or a key over the limit, with the line number.
std::uint64_t read_keys(const key_input_options& options, const std::function<void(std::span<const lfbloom::key_view>)>& on_batch);

/// Filters as the command handles them: any layout, loaded from or saved to a file.
/// A Bloom filter's stats (empty for a cuckoo filter: the caller handles those).
template <class F>
lfbloom::filter_stats bloom_stats(const F& f) {
    if constexpr (F::kind == lfbloom::layout::cuckoo) return {};
    else return f.stats();
}

lfbloom::any_filter load_filter(const std::string& path);
void save_filter(const lfbloom::any_filter& filter, const std::string& path);

/// "1,234,567".
std::string grouped(std::uint64_t n);

/// `bytes` as valid UTF-8, for JSON: well-formed sequences are kept, every other byte becomes
/// U+FFFD (paths are bytes; JSON strings must be Unicode).
std::string valid_utf8(std::string_view bytes);

int run_demo(int argc, char** argv);

}  // namespace cli
