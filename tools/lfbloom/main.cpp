// lfbloom: the command-line tool. Subcommands build, add, query, remove, info, merge,
// import-guava, export-guava and demo; `lfbloom <command> --help` documents each.
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include <boost/json.hpp>
#include <boost/program_options.hpp>

#include "cli.hpp"

namespace po = boost::program_options;
using namespace cli;

namespace {

constexpr const char* exit_codes =
    "Exit codes: 0 success; 1 the demo's self-check failed; 2 bad flags or numbers; 3 missing,\n"
    "unreadable, corrupt or foreign input, bad or no keys; 4 the output could not be written\n"
    "(nothing half-written is left: files are written to a temporary and renamed); 5 the filter\n"
    "would not fit the memory limit or the machine.\n";

struct command {
    const char* summary;
    int (*run)(int argc, char** argv);
};

/// Parses a subcommand's flags; returns false after printing --help.
bool parse(int argc, char** argv, const std::string& usage, po::options_description& flags,
           const po::positional_options_description& positional, po::variables_map& vm) {
    flags.add_options()("help,h", "this text");
    try {
        po::store(po::command_line_parser(argc, argv).options(flags).positional(positional).run(), vm);
        if (vm.count("help")) {
            std::cout << "usage: lfbloom " << usage << "\n\n" << flags << "\n" << exit_codes;
            return false;
        }
        po::notify(vm);
    } catch (const po::error& e) {
        throw failure(exit_usage, std::string(e.what()) + " (see lfbloom " + usage.substr(0, usage.find(' ')) + " --help)");
    }
    return true;
}

void add_key_flags(po::options_description& flags, key_input_options& keys) {
    flags.add_options()("keys", po::value(&keys.path)->default_value("-"), "file of keys, one per line ('-': stdin)")(
        "max-key-bytes", po::value(&keys.max_key_bytes)->default_value(65536), "longer keys are an error")(
        "no-progress", "no progress line (it is shown only on a terminal anyway)");
}

/// Adds a batch; returns the keys new to the filter. A cuckoo filter that refuses a key (full, or
/// too many copies of its fingerprint) is an error (exit 5) that says how many keys went in.
std::uint64_t add_batch(lfbloom::any_filter& filter, std::span<const lfbloom::key_view> batch, std::uint64_t before) {
    if (auto* cuckoo = std::get_if<lfbloom::cuckoo_filter>(&filter)) {
        std::uint64_t fresh = 0;
        for (std::size_t i = 0; i < batch.size(); ++i) {
            const lfbloom::cuckoo_status s = cuckoo->insert(batch[i]);
            if (s == lfbloom::cuckoo_status::full || s == lfbloom::cuckoo_status::too_many_duplicates)
                throw failure(exit_resources, std::string(s == lfbloom::cuckoo_status::full ? "the cuckoo filter is full"
                                                                                            : "too many copies of one fingerprint") +
                                                  " at key " + grouped(before + i + 1) +
                                                  " of this run (nothing was written): build one with a larger --capacity");
            fresh += s == lfbloom::cuckoo_status::added_new;
        }
        return fresh;
    }
    return std::visit([&](auto& f) { return f.add_many(batch); }, filter);
}

/// Keys gathered for a bulk build, end to end: key i is bytes[offsets[i]] .. bytes[offsets[i + 1]].
struct gathered_keys {
    std::vector<std::byte> bytes;
    std::vector<std::uint64_t> offsets{0};
    std::size_t size() const noexcept { return offsets.size() - 1; }
    void append(std::span<const lfbloom::key_view> batch) {
        for (const lfbloom::key_view k : batch) {
            bytes.insert(bytes.end(), k.begin(), k.end());
            offsets.push_back(bytes.size());
        }
    }
    void clear() {
        bytes.clear();
        offsets.assign(1, 0);
    }
};

/// build's keys: the Bloom kinds gather them (up to about 1 GiB at a time) and build in bulk on
/// `threads` threads (add_bulk: the same filter as adding them one by one); a cuckoo filter adds
/// them batch by batch as `add` does.
std::uint64_t build_from(lfbloom::any_filter& filter, key_input_options& keys, unsigned threads) {
    constexpr std::uint64_t gather_bytes = std::uint64_t{1} << 30;
    gathered_keys gathered;
    std::uint64_t seen = 0;
    auto flush = [&] {
        const auto at = [&](std::size_t i) {
            return lfbloom::key_view(gathered.bytes.data() + gathered.offsets[i], gathered.offsets[i + 1] - gathered.offsets[i]);
        };
        std::visit(
            [&](auto& f) {
                if constexpr (requires { f.add_bulk(gathered.size(), at, lfbloom::bulk_options{}); })
                    f.add_bulk(gathered.size(), at, {.threads = threads});
            },
            filter);
        gathered.clear();
    };
    const bool bulk = !std::holds_alternative<lfbloom::cuckoo_filter>(filter);
    const std::uint64_t read = read_keys(keys, [&](std::span<const lfbloom::key_view> batch) {
        if (!bulk) {
            add_batch(filter, batch, seen);
        } else {
            gathered.append(batch);
            if (gathered.bytes.size() + 16 * gathered.size() >= gather_bytes) flush();
        }
        seen += batch.size();
    });
    if (bulk) flush();
    return read;
}

// ---- build / add -----------------------------------------------------------------------------------

int build(int argc, char** argv) {
    std::uint64_t capacity = 0, seed = 0, memory_limit = 0;
    double rate = 0.01;
    std::string layout = "blocked", output;
    unsigned counter_bits = 4, fingerprint_bits = 0, threads = 1;
    key_input_options keys;
    po::options_description flags("Create a filter from keys and save it");
    flags.add_options()("output,o", po::value(&output)->required(), "the filter file to write")(
        "capacity,n", po::value(&capacity)->required(), "expected number of distinct keys")(
        "rate,p", po::value(&rate)->default_value(0.01), "target false-positive rate in (0, 1)")(
        "layout", po::value(&layout)->default_value("blocked"), "blocked, classic, counting, split-block (Parquet's), one-word, two-word or cuckoo")(
        "counter-bits", po::value(&counter_bits)->default_value(4), "counting: 4 or 8")(
        "fingerprint-bits", po::value(&fingerprint_bits)->default_value(0), "cuckoo: 14, 16 or 17 (0: the fewest bytes for --rate)")(
        "seed", po::value(&seed)->default_value(0), "hash seed")(
        "memory-limit", po::value(&memory_limit)->default_value(0), "refuse filters over this many bytes (0: none)")(
        "threads,t", po::value(&threads)->default_value(1),
        "build in bulk on this many threads (0: one per CPU); the same filter whatever the count (not cuckoo)");
    add_key_flags(flags, keys);
    po::positional_options_description positional;
    positional.add("keys", 1);
    po::variables_map vm;
    if (!parse(argc, argv, "build -o FILE -n CAPACITY [-p RATE] [--layout L] [KEYS]", flags, positional, vm)) return exit_ok;
    keys.progress = !vm.count("no-progress");
    const lfbloom::filter_options options{.memory_limit = memory_limit, .seed = seed};
    lfbloom::any_filter filter = [&]() -> lfbloom::any_filter {
        try {
            if (layout == "blocked") return lfbloom::blocked_bloom_filter::for_capacity(capacity, rate, options);
            if (layout == "classic") return lfbloom::classic_bloom_filter::for_capacity(capacity, rate, options);
            if (layout == "counting") return lfbloom::counting_bloom_filter::for_capacity(capacity, rate, counter_bits, options);
            if (layout == "split-block") return lfbloom::split_block_bloom_filter::for_capacity(capacity, rate, options);
            if (layout == "one-word") return lfbloom::one_word_bloom_filter::for_capacity(capacity, rate, options);
            if (layout == "two-word") return lfbloom::two_word_bloom_filter::for_capacity(capacity, rate, options);
            if (layout == "cuckoo") return lfbloom::cuckoo_filter::for_capacity(capacity, rate, fingerprint_bits, options);
        } catch (const lfbloom::error& e) {
            throw failure(e.code() == lfbloom::errc::invalid_argument ? exit_usage : exit_resources, e.what());
        }
        throw failure(exit_usage, "--layout must be blocked, classic, counting, split-block, one-word, two-word or cuckoo, not '" + layout + "'");
    }();
    const std::uint64_t added = build_from(filter, keys, threads);
    if (added == 0) throw failure(exit_bad_input, "no keys in " + (keys.path == "-" ? std::string("standard input") : keys.path));
    save_filter(filter, output);
    std::fprintf(stderr, "built %s: %s keys\n", output.c_str(), grouped(added).c_str());
    return exit_ok;
}

/// Shared by add, query and remove: FILE [KEYS] plus key flags.
struct keyed_command {
    std::string file;
    key_input_options keys;
    po::variables_map vm;
    bool parse_args(int argc, char** argv, const std::string& usage, po::options_description& flags) {
        flags.add_options()("filter", po::value(&file)->required(), "the filter file");
        add_key_flags(flags, keys);
        po::positional_options_description positional;
        positional.add("filter", 1).add("keys", 1);
        if (!parse(argc, argv, usage, flags, positional, vm)) return false;
        keys.progress = !vm.count("no-progress");
        return true;
    }
};

int add(int argc, char** argv) {
    keyed_command c;
    po::options_description flags("Add keys to a saved filter (written back atomically)");
    if (!c.parse_args(argc, argv, "add FILE [KEYS]", flags)) return exit_ok;
    lfbloom::any_filter filter = load_filter(c.file);
    std::uint64_t fresh = 0, seen = 0;
    const std::uint64_t read = read_keys(c.keys, [&](std::span<const lfbloom::key_view> batch) {
        fresh += add_batch(filter, batch, seen);
        seen += batch.size();
    });
    save_filter(filter, c.file);
    std::fprintf(stderr, "%s keys read, %s new\n", grouped(read).c_str(), grouped(fresh).c_str());
    return exit_ok;
}

int query(int argc, char** argv) {
    keyed_command c;
    po::options_description flags("Answer for each key: 'maybe' (possibly added) or 'no' (certainly not)");
    flags.add_options()("maybe-only", "print only the keys that may be present, one per line");
    if (!c.parse_args(argc, argv, "query FILE [KEYS] [--maybe-only]", flags)) return exit_ok;
    const bool maybe_only = c.vm.count("maybe-only") > 0;
    c.keys.progress = false;  // answers go to stdout line by line
    const lfbloom::any_filter filter = load_filter(c.file);
    std::vector<std::uint8_t> found;
    read_keys(c.keys, [&](std::span<const lfbloom::key_view> batch) {
        found.resize(batch.size());
        std::visit([&](const auto& f) { f.contains_many(batch, found.data()); }, filter);
        for (std::size_t i = 0; i < batch.size(); ++i) {
            const std::string_view key(reinterpret_cast<const char*>(batch[i].data()), batch[i].size());
            if (maybe_only) {
                if (found[i]) std::cout << key << '\n';
            } else {
                std::cout << (found[i] ? "maybe\t" : "no\t") << key << '\n';
            }
        }
    });
    std::cout.flush();
    if (!std::cout) throw failure(exit_output, "cannot write the answers to standard output");
    return exit_ok;
}

int remove_keys(int argc, char** argv) {
    keyed_command c;
    po::options_description flags("Remove keys from a saved counting or cuckoo filter (written back atomically)");
    if (!c.parse_args(argc, argv, "remove FILE [KEYS]", flags)) return exit_ok;
    lfbloom::any_filter filter = load_filter(c.file);
    const bool removable = std::visit([](auto& f) { return requires { f.remove_many(std::span<const lfbloom::key_view>{}); }; }, filter);
    if (!removable) throw failure(exit_bad_input, c.file + " is neither a counting nor a cuckoo filter: keys cannot be removed");
    std::uint64_t removed = 0, absent = 0;
    read_keys(c.keys, [&](std::span<const lfbloom::key_view> batch) {
        const std::uint64_t n = std::visit(
            [&](auto& f) -> std::uint64_t {
                if constexpr (requires { f.remove_many(batch); }) return f.remove_many(batch);
                else return 0;
            },
            filter);
        removed += n;
        absent += batch.size() - n;
    });
    save_filter(filter, c.file);
    std::fprintf(stderr, "%s removed, %s not present (left unchanged)\n", grouped(removed).c_str(), grouped(absent).c_str());
    return exit_ok;
}

// ---- info / merge / guava --------------------------------------------------------------------------

/// info for a cuckoo filter: its own fields (no hashes to speak of, fingerprints instead of bits).
int cuckoo_info(const std::string& file, const lfbloom::cuckoo_filter& f, bool json) {
    const lfbloom::cuckoo_stats s = f.stats();
    if (json) {
        const boost::json::object out{
            {"file", valid_utf8(file)}, {"layout", "cuckoo"}, {"buckets", s.buckets}, {"slots", f.shape().slots},
            {"slot_bits", s.fingerprint_bits}, {"bytes", s.bytes}, {"seed", f.seed()}, {"capacity", s.capacity}, {"target_fpr", s.target_fpr},
            {"fingerprints", s.fingerprints}, {"load", s.load}, {"expected_fpr", s.expected_fpr}, {"near_capacity", s.near_capacity}};
        std::printf("%s\n", boost::json::serialize(out).c_str());
        return exit_ok;
    }
    std::printf("file             %s\n", file.c_str());
    std::printf("layout           cuckoo (%u %u-bit fingerprints per bucket%s)\n", s.slots_per_bucket, s.fingerprint_bits,
                s.fingerprint_bits == 16 ? "" : ", semi-sorted");
    std::printf("buckets          %s, seed %llu\n", grouped(s.buckets).c_str(), (unsigned long long)f.seed());
    std::printf("memory           %s bytes", grouped(s.bytes).c_str());
    if (s.capacity > 0) std::printf(" (%.2f bits per key at capacity)", 8.0 * s.bytes / s.capacity);
    std::printf("\n");
    if (s.capacity > 0) std::printf("sized for        %s keys at FPR %.6g\n", grouped(s.capacity).c_str(), s.target_fpr);
    std::printf("fingerprints     %s (load %.2f%%)\n", grouped(s.fingerprints).c_str(), 100 * s.load);
    std::printf("expected FPR     %.6g\n", s.expected_fpr);
    if (s.near_capacity) std::printf("WARNING          load past %.0f%%: adds will soon fail; rebuild with a larger --capacity\n",
                          100 * lfbloom::near_capacity_fraction * lfbloom::cuckoo_filter::max_load);
    return exit_ok;
}

int info(int argc, char** argv) {
    std::string file;
    po::options_description flags("Show a saved filter's parameters and fill");
    flags.add_options()("filter", po::value(&file)->required(), "the filter file")(
        "json", "one JSON object (\"file\" is the path as UTF-8, other bytes as U+FFFD; -1 for an infinite estimate)");
    po::positional_options_description positional;
    positional.add("filter", 1);
    po::variables_map vm;
    if (!parse(argc, argv, "info FILE [--json]", flags, positional, vm)) return exit_ok;
    const lfbloom::any_filter filter = load_filter(file);
    if (const auto* cuckoo = std::get_if<lfbloom::cuckoo_filter>(&filter)) return cuckoo_info(file, *cuckoo, vm.count("json") > 0);
    const lfbloom::filter_stats s = std::visit([](const auto& f) { return bloom_stats(f); }, filter);
    const std::uint64_t seed = std::visit([](const auto& f) { return f.seed(); }, filter);
    const char* layouts[] = {"", "classic", "blocked", "counting", "split-block", "one-word", "two-word"};
    const char* layout = layouts[static_cast<int>(s.kind)];
    auto finite = [](double x) { return std::isfinite(x) ? x : -1.0; };
    if (vm.count("json")) {
        // Built with Boost.JSON, which escapes quotes, backslashes and control characters.
        const boost::json::object out{
            {"file", valid_utf8(file)}, {"layout", layout}, {"slots", s.slots}, {"slot_bits", s.slot_bits},
            {"hashes", s.hashes}, {"bytes", s.bytes}, {"seed", seed}, {"capacity", s.capacity},
            {"target_fpr", s.target_fpr}, {"slots_set", s.slots_set}, {"saturated", s.saturated},
            {"fill_ratio", s.fill_ratio}, {"estimated_count", finite(s.estimated_count)},
            {"estimated_fpr", finite(s.estimated_fpr)}, {"near_capacity", s.near_capacity}};
        std::printf("%s\n", boost::json::serialize(out).c_str());
        return exit_ok;
    }
    std::printf("file             %s\n", file.c_str());
    std::printf("layout           %s%s\n", layout, s.kind == lfbloom::layout::counting ? (s.slot_bits == 4 ? " (4-bit counters)" : " (8-bit counters)") : "");
    std::printf("slots / hashes   %s / %u, seed %llu\n", grouped(s.slots).c_str(), s.hashes, (unsigned long long)seed);
    std::printf("memory           %s bytes (%.2f bits per key at capacity)\n", grouped(s.bytes).c_str(), 8.0 * s.bytes / s.capacity);
    std::printf("sized for        %s keys at FPR %.6g\n", grouped(s.capacity).c_str(), s.target_fpr);
    std::printf("fill             %s set (%.2f%%)%s\n", grouped(s.slots_set).c_str(), 100 * s.fill_ratio,
                s.kind == lfbloom::layout::counting ? (", " + grouped(s.saturated) + " saturated").c_str() : "");
    std::printf("estimated keys   %.0f (%.1f%% of capacity)\n", s.estimated_count, 100 * s.estimated_count / s.capacity);
    std::printf("estimated FPR    %.6g\n", s.estimated_fpr);
    if (s.near_capacity) std::printf("WARNING          past 80%% of capacity: rebuild with a larger --capacity\n");
    return exit_ok;
}

int merge(int argc, char** argv) {
    std::string output;
    std::vector<std::string> inputs;
    po::options_description flags("Merge compatible saved filters (same layout, size, hashes, seed) into one");
    flags.add_options()("output,o", po::value(&output)->required(), "the merged filter file")(
        "inputs", po::value(&inputs)->multitoken()->required(), "two or more filter files");
    po::positional_options_description positional;
    positional.add("inputs", -1);
    po::variables_map vm;
    if (!parse(argc, argv, "merge -o OUT IN IN [IN...]", flags, positional, vm)) return exit_ok;
    if (inputs.size() < 2) throw failure(exit_usage, "merge needs at least two input filters");
    lfbloom::any_filter merged = load_filter(inputs[0]);
    for (std::size_t i = 1; i < inputs.size(); ++i) {
        const lfbloom::any_filter next = load_filter(inputs[i]);
        std::visit(
            [&](auto& into, const auto& from) {
                using into_type = std::decay_t<decltype(into)>;
                if constexpr (into_type::kind == lfbloom::layout::cuckoo) {
                    throw failure(exit_bad_input, inputs[0] + ": cuckoo filters cannot be merged (a fingerprint's buckets may be full in one of them)");
                } else if constexpr (std::is_same_v<into_type, std::decay_t<decltype(from)>>) {
                    try {
                        into.merge(from);
                    } catch (const lfbloom::error& e) {
                        throw failure(exit_bad_input, inputs[i] + ": " + e.what());
                    }
                } else {
                    throw failure(exit_bad_input, inputs[i] + ": a different layout from " + inputs[0]);
                }
            },
            merged, next);
    }
    save_filter(merged, output);
    return exit_ok;
}

/// Parses INPUT OUTPUT for the import and export commands; false after --help.
bool parse_conversion(int argc, char** argv, const char* what, const char* usage, const char* input_help,
                      const char* output_help, std::string& input, std::string& output) {
    po::options_description flags(what);
    flags.add_options()("input", po::value(&input)->required(), input_help)("output", po::value(&output)->required(), output_help);
    po::positional_options_description positional;
    positional.add("input", 1).add("output", 1);
    po::variables_map vm;
    return parse(argc, argv, usage, flags, positional, vm);
}

/// import-guava, import-parquet: a foreign file read by `load(source, length)`, saved as an lfbloom file.
template <class Load>
int import_file(int argc, char** argv, const char* what, const char* usage, const char* input_help, Load load) {
    std::string input, output;
    if (!parse_conversion(argc, argv, what, usage, input_help, "lfbloom file", input, output)) return exit_ok;
    lfbloom::any_filter filter = [&]() -> lfbloom::any_filter {
        try {
            return lfbloom::read_file(input, load);
        } catch (const lfbloom::error& e) {
            throw failure(e.code() == lfbloom::errc::too_large ? exit_resources : exit_bad_input, input + ": " + e.what());
        }
    }();
    save_filter(filter, output);
    return exit_ok;
}

/// export-guava, export-parquet: a saved Filter written by `write(filter, sink)`; `check(filter)`
/// throws lfbloom::error first when the filter has no such form (an input error, not an output one).
template <class Filter, class Check, class Write>
int export_file(int argc, char** argv, const char* what, const char* usage, const char* output_help,
                const char* other_kind, Check check, Write write) {
    std::string input, output;
    if (!parse_conversion(argc, argv, what, usage, "lfbloom file", output_help, input, output)) return exit_ok;
    const lfbloom::any_filter filter = load_filter(input);
    const auto* f = std::get_if<Filter>(&filter);
    if (f == nullptr) throw failure(exit_bad_input, input + ": " + other_kind);
    try {
        check(*f);
    } catch (const lfbloom::error& e) {
        throw failure(exit_bad_input, input + ": " + e.what());
    }
    try {
        lfbloom::write_file_atomically(output, [&](const lfbloom::byte_sink& sink) { write(*f, sink); });
    } catch (const lfbloom::error& e) {
        throw failure(exit_output, e.what());
    }
    return exit_ok;
}

int import_guava(int argc, char** argv) {
    return import_file(argc, argv, "Convert a file written by Guava's BloomFilter.writeTo to an lfbloom classic filter",
                       "import-guava GUAVA_FILE OUT", "Guava file",
                       [](const lfbloom::byte_source& s, std::uint64_t n) { return lfbloom::load_guava(s, 0, n); });
}

int export_guava(int argc, char** argv) {
    return export_file<lfbloom::classic_bloom_filter>(
        argc, argv, "Write a classic lfbloom filter in Guava's format (BloomFilter.readFrom reads it)", "export-guava FILE GUAVA_OUT",
        "Guava file", "only classic-layout filters have a Guava form", [](const auto& f) { lfbloom::guava_size(f); },
        [](const auto& f, const lfbloom::byte_sink& sink) { lfbloom::save_guava(f, sink); });
}

int import_parquet(int argc, char** argv) {
    return import_file(argc, argv,
                       "Convert a Parquet split-block Bloom filter's bitset (the bytes after its BloomFilterHeader) to an lfbloom split-block filter",
                       "import-parquet BITSET_FILE OUT", "the bitset, numBytes long",
                       [](const lfbloom::byte_source& s, std::uint64_t n) { return lfbloom::load_parquet_bitset(s, n, 0, n); });
}

int export_parquet(int argc, char** argv) {
    return export_file<lfbloom::split_block_bloom_filter>(
        argc, argv, "Write a split-block lfbloom filter's bitset as Parquet stores it (after the BloomFilterHeader)",
        "export-parquet FILE BITSET_OUT", "bitset file", "only split-block filters have a Parquet form",
        [](const auto& f) {
            if (f.seed() != 0) throw lfbloom::error(lfbloom::errc::incompatible, "Parquet's filters hash with seed 0");
        },
        [](const auto& f, const lfbloom::byte_sink& sink) { lfbloom::save_parquet_bitset(f, sink); });
}

const std::map<std::string, command> commands = {
    {"build", {"create a filter from keys and save it", build}},
    {"add", {"add keys to a saved filter", add}},
    {"query", {"answer maybe/no for each key", query}},
    {"remove", {"remove keys from a saved counting filter", remove_keys}},
    {"info", {"a saved filter's parameters and fill (--json too)", info}},
    {"merge", {"merge compatible saved filters", merge}},
    {"import-guava", {"convert a Guava BloomFilter file", import_guava}},
    {"export-guava", {"write a classic filter in Guava's format", export_guava}},
    {"import-parquet", {"convert a Parquet split-block Bloom filter bitset", import_parquet}},
    {"export-parquet", {"write a split-block filter's bitset as Parquet stores it", export_parquet}},
    {"demo", {"the cache-penetration guard, running for real", run_demo}},
};

void usage(std::FILE* out) {
    std::fprintf(out, "usage: lfbloom COMMAND [--help] ...\n\nLock-free Bloom filters. Commands:\n");
    for (const auto& [name, c] : commands) std::fprintf(out, "  %-14s %s\n", name.c_str(), c.summary);
    std::fprintf(out, "\nKeys are read one per line (\"\\n\" or \"\\r\\n\"), empty lines skipped.\n%s", exit_codes);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? exit_usage : exit_ok;
    }
    const auto it = commands.find(argv[1]);
    if (it == commands.end()) {
        std::fprintf(stderr, "lfbloom: unknown command '%s' (see lfbloom --help)\n", argv[1]);
        return exit_usage;
    }
    try {
        return it->second.run(argc - 1, argv + 1);
    } catch (const failure& f) {
        std::fprintf(stderr, "lfbloom %s: %s\n", argv[1], f.what());
        return f.code;
    } catch (const lfbloom::error& e) {
        std::fprintf(stderr, "lfbloom %s: %s\n", argv[1], e.what());
        return exit_bad_input;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "lfbloom %s: %s\n", argv[1], e.what());
        return exit_resources;
    }
}
