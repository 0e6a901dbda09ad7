// Shared pieces of the lfbloom command: errors with exit codes, key input, progress, filters.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

#include <boost/program_options.hpp>

#include "lfbloom/dynamic_filter.hpp"

namespace cli {

/// Exit codes, documented in `lfbloom --help`.
enum exit_code : int {
    exit_ok = 0,
    exit_check_failed = 1,  ///< the demo's self-check found a false negative or an FPR over its bound
    exit_usage = 2,         ///< bad flags or numbers
    exit_bad_input = 3,     ///< missing, unreadable, corrupt or foreign input; bad keys; empty input
    exit_output = 4,        ///< the output could not be written (nothing half-written is left)
    exit_resources = 5,     ///< the filter would not fit the memory limit or the machine, or refused a key
};

/// A failure with the one line to print and the exit code.
struct failure : std::runtime_error {
    exit_code code;
    failure(exit_code c, const std::string& what) : std::runtime_error(what), code(c) {}
};

/// The exit code for a core error: invalid_argument is a usage error, sizes, memory and refusals
/// (full, too many duplicates, ambiguous) are resources, io is output, everything else input.
exit_code exit_for(lfbloom::errc code);

struct key_input_options {
    std::string path = "-";              ///< "-" is stdin
    std::uint64_t max_key_bytes = 65536;
    bool progress = true;                ///< shown only when stderr is a terminal
};

/// Calls on_batch with batches of keys (one per line; "\n" or "\r\n" endings; empty lines are
/// skipped), as the one interface's batch calls take them (lfbloom::key_refs over the span).
/// Returns how many keys were read. Throws failure(exit_bad_input) for an unreadable input or a
/// key over the limit, with the line number.
std::uint64_t read_keys(const key_input_options& options, const std::function<void(std::span<const lfbloom::key_ref>)>& on_batch);

inline std::string_view key_text(const lfbloom::key_ref& key) {
    return {static_cast<const char*>(key.data), static_cast<std::size_t>(key.len)};
}

/// The flags that pick a kind and its own parameters (build, demo): a filter_spec but for the
/// sizing, the seed and the memory limit, which each command names its own way.
struct kind_flags {
    std::string kind, layout, sub_kind = "blocked";
    std::uint32_t counter_bits = 4, fingerprint_bits = 0, max_filters = 0, generations = 0;
    double growth = 0, tightening = 0, period_seconds = 0;
    bool double_write = false, manual_clock = false;

    void add_to(boost::program_options::options_description& flags);
    /// The spec the parsed flags ask for (sizing, seed and memory limit left 0). Throws failure(exit_usage).
    lfbloom::filter_spec spec(const boost::program_options::variables_map& vm) const;
};

/// lfbloom::make_filter(spec), its errors as failures (a bad spec is exit 2, too large exit 5).
std::unique_ptr<lfbloom::dynamic_filter> new_filter(const lfbloom::filter_spec& spec);
/// The filter saved at `path`, whatever kind lfbloom::load_filter reads, or a failure naming the path
/// (exit 3; 5 past the machine's memory).
std::unique_ptr<lfbloom::dynamic_filter> read_filter(const std::string& path, lfbloom::file_format format = lfbloom::file_format::native);
/// Runs write(sink) into `path` with write_file_atomically, its errors as failures ("cannot write PATH: ..."):
/// exit 4 for an I/O error, else as exit_for (a filter with no such format is exit 3). On a failure
/// nothing is written.
void write_file(const std::string& path, const std::function<void(const lfbloom::byte_sink&)>& write);
/// dynamic_filter::save through write_file.
void write_filter(const lfbloom::dynamic_filter& filter, const std::string& path, lfbloom::file_format format = lfbloom::file_format::native);

/// "1,234,567".
std::string grouped(std::uint64_t n);

/// `bytes` as valid UTF-8, for JSON: well-formed sequences are kept, every other byte becomes
/// U+FFFD (paths are bytes; JSON strings must be Unicode).
std::string valid_utf8(std::string_view bytes);

int run_demo(int argc, char** argv);

}  // namespace cli
