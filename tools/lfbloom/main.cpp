// lfbloom: the command-line tool. Subcommands build, add, query, remove, info, merge, import-guava,
// export-guava, import-parquet, export-parquet and demo; `lfbloom <command> --help` documents each.
// Every filter is a lfbloom::dynamic_filter: made by make_filter, read by load_filter, written by
// its save, so each command is written once for every kind.
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include <boost/json.hpp>
#include <boost/program_options.hpp>

#include "cli.hpp"

namespace po = boost::program_options;
using namespace cli;

namespace {

constexpr const char* exit_codes =
    "Exit codes: 0 success; 1 the demo's self-check failed; 2 bad flags or numbers; 3 missing,\n"
    "unreadable, corrupt or foreign input, bad or no keys, a command the filter's kind does not\n"
    "offer (remove, merge); 4 the output could not be written (nothing half-written is left:\n"
    "files are written to a temporary and renamed); 5 the filter would not fit the memory limit\n"
    "or the machine, or refused a key (full).\n";

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

/// Runs an add or remove through `run(progress)`, `before` keys into this run; returns the keys the
/// batch answered 1 for. A refused key (a full cuckoo or scalable filter, too many copies of one
/// fingerprint, an ambiguous remove) is an error (exit 5) naming it; nothing is written then.
template <class Run>
std::uint64_t changing(std::uint64_t before, Run run) {
    lfbloom::batch_progress p;
    try {
        run(p);
    } catch (const lfbloom::error& e) {
        using lfbloom::errc;
        if (e.code() != errc::full && e.code() != errc::too_many_duplicates && e.code() != errc::ambiguous) throw;
        throw failure(exit_resources, std::string(e.what()) + ", at key " + grouped(before + p.done + 1) + " of this run (nothing was written)" +
                                          (e.code() == lfbloom::errc::full ? ": build one with a larger --capacity" : ""));
    }
    return p.positive;
}

/// Keys gathered for a bulk build, end to end, as lfbloom::packed_keys reads them.
struct gathered_keys {
    std::vector<std::byte> bytes;
    std::vector<std::uint64_t> offsets{0};
    std::size_t size() const noexcept { return offsets.size() - 1; }
    void append(std::span<const lfbloom::key_ref> batch) {
        for (const lfbloom::key_ref& k : batch) {
            const auto* data = static_cast<const std::byte*>(k.data);
            bytes.insert(bytes.end(), data, data + k.len);
            offsets.push_back(bytes.size());
        }
    }
};

/// build's keys, gathered (up to about 1 GiB at a time) and added with run_bulk on `threads`
/// threads: Bloom kinds build in bulk (the same filter as adding the keys one by one), the others
/// add them in order on this thread.
std::uint64_t build_from(lfbloom::dynamic_filter& filter, const key_input_options& keys, unsigned threads) {
    constexpr std::uint64_t gather_bytes = std::uint64_t{1} << 30;
    gathered_keys gathered;
    std::uint64_t added = 0;
    auto flush = [&] {
        if (gathered.size() == 0) return;
        changing(added, [&](lfbloom::batch_progress& p) {
            filter.run_bulk(lfbloom::batch_op::add, gathered.size(), lfbloom::packed_keys{gathered.bytes.data(), gathered.offsets.data()},
                            {.threads = threads}, p);
        });
        added += gathered.size();
        gathered = {};
    };
    const std::uint64_t read = read_keys(keys, [&](std::span<const lfbloom::key_ref> batch) {
        gathered.append(batch);
        if (gathered.bytes.size() + 16 * gathered.size() >= gather_bytes) flush();
    });
    flush();
    return read;
}

// ---- build / add -----------------------------------------------------------------------------------

int build(int argc, char** argv) {
    std::uint64_t capacity = 0, slots = 0, seed = 0, memory_limit = 0;
    std::uint32_t hashes = 0;
    double rate = 0.01;
    std::string output;
    unsigned threads = 1;
    kind_flags kind;
    key_input_options keys;
    po::options_description flags("Create a filter from keys and save it");
    flags.add_options()("output,o", po::value(&output)->required(), "the filter file to write")(
        "capacity,n", po::value(&capacity), "expected number of distinct keys (scalable: its first sub-filter's; rotating: per period)")(
        "rate,p", po::value(&rate)->default_value(0.01), "target false-positive rate in (0, 1)");
    kind.add_to(flags);
    flags.add_options()("slots", po::value(&slots), "Bloom and counting kinds: exactly this many slots, instead of --capacity and --rate")(
        "hashes", po::value(&hashes), "with --slots: this many probes per key")(
        "seed", po::value(&seed)->default_value(0), "hash seed")(
        "memory-limit", po::value(&memory_limit)->default_value(0), "refuse filters over this many bytes (0: none)")(
        "threads,t", po::value(&threads)->default_value(1),
        "build in bulk on this many threads (0: one per CPU); the same filter whatever the count (Bloom and counting kinds)");
    add_key_flags(flags, keys);
    po::positional_options_description positional;
    positional.add("keys", 1);
    po::variables_map vm;
    if (!parse(argc, argv, "build -o FILE -n CAPACITY [-p RATE] [--kind K] [KEYS]", flags, positional, vm)) return exit_ok;
    keys.progress = !vm.count("no-progress");
    const bool exact = vm.count("slots") > 0;
    if (!exact && !vm.count("capacity")) throw failure(exit_usage, "--capacity (-n) is required, or --slots and --hashes (see lfbloom build --help)");
    if (exact && (vm.count("capacity") || !vm["rate"].defaulted()))
        throw failure(exit_usage, "--slots and --hashes give an exact geometry: no --capacity or --rate with them");
    lfbloom::filter_spec spec = kind.spec(vm);
    spec.seed = seed;
    spec.memory_limit = memory_limit;
    spec.capacity = capacity;
    spec.fpr = exact ? 0 : rate;
    spec.slots = slots;
    spec.hashes = hashes;
    const auto filter = new_filter(spec);
    const std::uint64_t added = build_from(*filter, keys, threads);
    if (added == 0) throw failure(exit_bad_input, "no keys in " + (keys.path == "-" ? std::string("standard input") : keys.path));
    write_filter(*filter, output);
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
    const auto filter = read_filter(c.file);
    std::uint64_t fresh = 0, seen = 0;
    const std::uint64_t read = read_keys(c.keys, [&](std::span<const lfbloom::key_ref> batch) {
        fresh += changing(seen, [&](lfbloom::batch_progress& p) {
            filter->run(lfbloom::batch_op::add, batch.size(), lfbloom::key_refs{batch.data()}, nullptr, p);
        });
        seen += batch.size();
    });
    write_filter(*filter, c.file);
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
    const auto filter = read_filter(c.file);
    std::vector<std::uint8_t> found;
    read_keys(c.keys, [&](std::span<const lfbloom::key_ref> batch) {
        found.resize(batch.size());
        lfbloom::batch_progress p;
        filter->run(lfbloom::batch_op::contains, batch.size(), lfbloom::key_refs{batch.data()}, found.data(), p);
        for (std::size_t i = 0; i < batch.size(); ++i) {
            if (maybe_only) {
                if (found[i]) std::cout << key_text(batch[i]) << '\n';
            } else {
                std::cout << (found[i] ? "maybe\t" : "no\t") << key_text(batch[i]) << '\n';
            }
        }
    });
    std::cout.flush();
    if (!std::cout) throw failure(exit_output, "cannot write the answers to standard output");
    return exit_ok;
}

int remove_keys(int argc, char** argv) {
    keyed_command c;
    po::options_description flags("Remove keys from a saved filter of a kind that removes keys: counting, cuckoo, scalable "
                                  "of cuckoo sub-filters (written back atomically)");
    if (!c.parse_args(argc, argv, "remove FILE [KEYS]", flags)) return exit_ok;
    const auto filter = read_filter(c.file);
    try {
        lfbloom::batch_progress p;  // an empty batch: refused up front by the kinds that remove nothing
        filter->run(lfbloom::batch_op::remove, 0, lfbloom::key_refs{nullptr}, nullptr, p);
    } catch (const lfbloom::error& e) {
        throw failure(exit_bad_input, c.file + ": " + e.what());
    }
    std::uint64_t removed = 0, seen = 0;
    read_keys(c.keys, [&](std::span<const lfbloom::key_ref> batch) {
        removed += changing(seen, [&](lfbloom::batch_progress& p) {
            filter->run(lfbloom::batch_op::remove, batch.size(), lfbloom::key_refs{batch.data()}, nullptr, p);
        });
        seen += batch.size();
    });
    write_filter(*filter, c.file);
    std::fprintf(stderr, "%s removed, %s not present (left unchanged)\n", grouped(removed).c_str(), grouped(seen - removed).c_str());
    return exit_ok;
}

// ---- info / merge / conversions --------------------------------------------------------------------

const char* name_of(lfbloom::filter_kind kind) {
    const char* name = lfbloom::kind_name(kind);
    return name != nullptr ? name : "unknown";
}

/// info's one description of a filter (or a composite's part): filter_info's fields under their
/// own names, first its shape and fill, then the counters some kinds keep (0 for the others).
/// -1 stands for an infinite estimate (a saturated filter).
boost::json::object shape_and_fill(const lfbloom::filter_info& v) {
    auto finite = [](double x) { return std::isfinite(x) ? x : -1.0; };
    return {{"kind", name_of(v.kind)}, {"sub_kind", name_of(v.sub_kind)}, {"parts", v.parts}, {"slots", v.slots},
            {"slot_bits", v.slot_bits}, {"hashes", v.hashes}, {"bytes", v.bytes}, {"seed", v.seed},
            {"capacity", v.capacity}, {"target_fpr", v.target_fpr}, {"slots_set", v.slots_set}, {"fill_ratio", v.fill_ratio},
            {"estimated_count", finite(v.estimated_count)}, {"expected_fpr", finite(v.expected_fpr)}, {"near_capacity", v.near_capacity}};
}
boost::json::object counters(const lfbloom::filter_info& v) {
    return {{"saturated", v.saturated}, {"kicks", v.kicks}, {"failed_adds", v.failed_adds}, {"duplicate_refusals", v.duplicate_refusals},
            {"reader_retries", v.reader_retries}, {"reader_gave_up", v.reader_gave_up}, {"generation", v.generation},
            {"ambiguous_removes", v.ambiguous_removes}, {"items", v.items}};
}
boost::json::object describe(const lfbloom::filter_info& v) {
    boost::json::object out = shape_and_fill(v);
    for (const auto& field : counters(v)) out.insert(field);
    return out;
}

/// The human form of the same fields: one "name value" line each, counts grouped, "infinite"
/// for -1; counters that are 0 are left out.
void print_fields(const boost::json::object& fields, const char* indent, bool skip_zero = false) {
    for (const auto& [name, value] : fields) {
        char number[32];
        if (value.is_double()) std::snprintf(number, sizeof number, "%.6g", value.get_double());
        const std::string text = value.is_string()                            ? std::string(value.get_string())
                                 : value.is_bool()                            ? (value.get_bool() ? "yes" : "no")
                                 : value.is_double() && value.get_double() < 0 ? "infinite"
                                 : value.is_double()                          ? number
                                                                              : grouped(value.to_number<std::uint64_t>());
        if (skip_zero && text == "0") continue;
        std::printf("%s%-19s %s\n", indent, std::string(name).c_str(), text.c_str());
    }
}

int info(int argc, char** argv) {
    std::string file;
    po::options_description flags("Show a saved filter's parameters and fill (a composite's parts too)");
    flags.add_options()("filter", po::value(&file)->required(), "the filter file")(
        "json", "one JSON object: filter_info's fields, \"file\" (the path as UTF-8, other bytes as U+FFFD) and for a composite "
                "\"part_info\", a list of its parts' (-1 for an infinite estimate)");
    po::positional_options_description positional;
    positional.add("filter", 1);
    po::variables_map vm;
    if (!parse(argc, argv, "info FILE [--json]", flags, positional, vm)) return exit_ok;
    const auto filter = read_filter(file);
    const lfbloom::filter_info v = filter->info();
    std::vector<lfbloom::filter_info> parts;  // a layout is its own only part
    if (!lfbloom::is_layout(v.kind))
        for (std::uint32_t i = 0; i < v.parts; ++i) parts.push_back(filter->part_info(i));
    if (vm.count("json")) {
        // Built with Boost.JSON, which escapes quotes, backslashes and control characters.
        boost::json::object out{{"file", valid_utf8(file)}};
        for (const auto& field : describe(v)) out.insert(field);
        if (!parts.empty()) {
            boost::json::array list;
            for (const auto& part : parts) list.push_back(describe(part));
            out["part_info"] = std::move(list);
        }
        std::printf("%s\n", boost::json::serialize(out).c_str());
        return exit_ok;
    }
    std::printf("%-19s %s\n", "file", file.c_str());
    print_fields(shape_and_fill(v), "");
    print_fields(counters(v), "", true);
    if (v.near_capacity) std::printf("WARNING             past 80%% of capacity: rebuild with a larger --capacity\n");
    for (std::size_t i = 0; i < parts.size(); ++i) {
        std::printf("part %zu\n", i);
        print_fields(shape_and_fill(parts[i]), "  ");
        print_fields(counters(parts[i]), "  ", true);
    }
    return exit_ok;
}

int merge(int argc, char** argv) {
    std::string output;
    std::vector<std::string> inputs;
    po::options_description flags("Merge compatible saved filters (same kind, size, hashes, seed; Bloom and counting kinds) into one");
    flags.add_options()("output,o", po::value(&output)->required(), "the merged filter file")(
        "inputs", po::value(&inputs)->multitoken()->required(), "two or more filter files");
    po::positional_options_description positional;
    positional.add("inputs", -1);
    po::variables_map vm;
    if (!parse(argc, argv, "merge -o OUT IN IN [IN...]", flags, positional, vm)) return exit_ok;
    if (inputs.size() < 2) throw failure(exit_usage, "merge needs at least two input filters");
    const auto merged = read_filter(inputs[0]);
    for (std::size_t i = 1; i < inputs.size(); ++i) {
        try {
            merged->merge(*read_filter(inputs[i]));
        } catch (const lfbloom::error& e) {
            throw failure(exit_bad_input, "cannot merge " + inputs[i] + " into " + inputs[0] + ": " + e.what());
        }
    }
    write_filter(*merged, output);
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

int import_guava(int argc, char** argv) {
    std::string input, output;
    if (!parse_conversion(argc, argv, "Convert a file written by Guava's BloomFilter.writeTo to an lfbloom classic filter",
                          "import-guava GUAVA_FILE OUT", "Guava file", "lfbloom file", input, output))
        return exit_ok;
    write_filter(*read_filter(input, lfbloom::file_format::guava), output);
    return exit_ok;
}

int export_guava(int argc, char** argv) {
    std::string input, output;
    if (!parse_conversion(argc, argv, "Write a classic lfbloom filter of seed 0 in Guava's format (BloomFilter.readFrom reads it)",
                          "export-guava FILE GUAVA_OUT", "lfbloom file", "Guava file", input, output))
        return exit_ok;
    write_filter(*read_filter(input), output, lfbloom::file_format::guava);
    return exit_ok;
}

int import_parquet(int argc, char** argv) {
    std::string input, output;
    if (!parse_conversion(argc, argv,
                          "Convert a Parquet split-block Bloom filter's bitset (the bytes after its BloomFilterHeader) to an lfbloom split-block filter",
                          "import-parquet BITSET_FILE OUT", "the bitset, numBytes long", "lfbloom file", input, output))
        return exit_ok;
    std::unique_ptr<lfbloom::dynamic_filter> filter;
    try {
        filter = lfbloom::make_dynamic(lfbloom::read_file(
            input, [](const lfbloom::byte_source& s, std::uint64_t n) { return lfbloom::load_parquet_bitset(s, n, 0, n); }));
    } catch (const lfbloom::error& e) {
        throw failure(e.code() == lfbloom::errc::too_large ? exit_resources : exit_bad_input, input + ": " + e.what());
    }
    write_filter(*filter, output);
    return exit_ok;
}

int export_parquet(int argc, char** argv) {
    std::string input, output;
    if (!parse_conversion(argc, argv, "Write a split-block lfbloom filter's bitset of seed 0 as Parquet stores it (after the BloomFilterHeader)",
                          "export-parquet FILE BITSET_OUT", "lfbloom file", "bitset file", input, output))
        return exit_ok;
    const auto filter = read_filter(input);
    const auto* split = filter->get<lfbloom::split_block_bloom_filter>();
    if (split == nullptr) throw failure(exit_bad_input, input + ": only split-block filters have a Parquet form");
    write_file(output, [&](const lfbloom::byte_sink& sink) { lfbloom::save_parquet_bitset(*split, sink); });
    return exit_ok;
}

const std::map<std::string, command> commands = {
    {"build", {"create a filter from keys and save it", build}},
    {"add", {"add keys to a saved filter", add}},
    {"query", {"answer maybe/no for each key", query}},
    {"remove", {"remove keys from a saved counting, cuckoo or scalable cuckoo filter", remove_keys}},
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
        return exit_for(e.code());
    } catch (const std::exception& e) {
        std::fprintf(stderr, "lfbloom %s: %s\n", argv[1], e.what());
        return exit_resources;
    }
}
