#include "cli.hpp"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

namespace cli {
namespace {

/// A one-line progress display on a terminal: keys, rate and (for files) percent and ETA.
class progress_line {
public:
    progress_line(bool enabled, std::uint64_t total_bytes) : enabled_(enabled && ::isatty(2)), total_(total_bytes) {}
    ~progress_line() {
        if (enabled_ && shown_) std::fputs("\r\033[K", stderr);
    }
    void update(std::uint64_t keys, std::uint64_t bytes) {
        if (!enabled_ || (keys & 0xffff) != 0) return;
        const auto now = std::chrono::steady_clock::now();
        if (now - last_ < std::chrono::milliseconds(200)) return;
        last_ = now;
        shown_ = true;
        const double elapsed = std::chrono::duration<double>(now - start_).count();
        const double rate = keys / std::max(elapsed, 1e-9);
        std::fprintf(stderr, "\r\033[K  %s keys  %.2f M keys/s", grouped(keys).c_str(), rate / 1e6);
        if (total_ > 0 && bytes > 0) {
            const double done = static_cast<double>(bytes) / total_;
            std::fprintf(stderr, "  %3.0f%%  ETA %.0f s", 100 * done, elapsed / done - elapsed);
        }
    }

private:
    bool enabled_;
    bool shown_ = false;
    std::uint64_t total_;
    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now(), last_ = start_;
};

/// "classic, blocked, ...": the kinds make_filter makes, as the core names them.
std::string kind_names() {
    std::string out;
    for (std::uint32_t k = 0; k < 32; ++k) {
        const auto kind = static_cast<lfbloom::filter_kind>(k);
        const char* name = lfbloom::kind_name(kind);
        if (name != nullptr && kind != lfbloom::filter_kind::swappable) out += (out.empty() ? "" : ", ") + std::string(name);
    }
    return out;
}

}  // namespace

exit_code exit_for(lfbloom::errc code) {
    switch (code) {
        case lfbloom::errc::invalid_argument: return exit_usage;
        case lfbloom::errc::too_large:
        case lfbloom::errc::out_of_memory:
        case lfbloom::errc::full:
        case lfbloom::errc::too_many_duplicates:
        case lfbloom::errc::ambiguous: return exit_resources;
        default: return exit_bad_input;
    }
}

std::string grouped(std::uint64_t n) {
    std::string digits = std::to_string(n), out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

std::string valid_utf8(std::string_view bytes) {
    std::string out;
    out.reserve(bytes.size());
    for (std::size_t i = 0; i < bytes.size();) {
        const auto lead = static_cast<unsigned char>(bytes[i]);
        // The sequence length a lead byte announces, and the range of its second byte that rules
        // out overlong forms, surrogates and code points past U+10FFFF (RFC 3629, section 4).
        std::size_t length = 0;
        unsigned char low = 0x80, high = 0xbf;
        if (lead < 0x80) {
            length = 1;
        } else if (lead >= 0xc2 && lead <= 0xdf) {
            length = 2;
        } else if (lead >= 0xe0 && lead <= 0xef) {
            length = 3;
            if (lead == 0xe0) low = 0xa0;
            if (lead == 0xed) high = 0x9f;
        } else if (lead >= 0xf0 && lead <= 0xf4) {
            length = 4;
            if (lead == 0xf0) low = 0x90;
            if (lead == 0xf4) high = 0x8f;
        }
        bool well_formed = length > 0 && i + length <= bytes.size();
        for (std::size_t k = 1; well_formed && k < length; ++k) {
            const auto next = static_cast<unsigned char>(bytes[i + k]);
            well_formed = k == 1 ? next >= low && next <= high : next >= 0x80 && next <= 0xbf;
        }
        if (well_formed) {
            out.append(bytes.substr(i, length));
            i += length;
        } else {
            out += "\xef\xbf\xbd";  // U+FFFD for this byte; decoding resumes at the next
            ++i;
        }
    }
    return out;
}

std::uint64_t read_keys(const key_input_options& options, const std::function<void(std::span<const lfbloom::key_ref>)>& on_batch) {
    std::ifstream file;
    std::istream* in = &std::cin;
    std::uint64_t total = 0;
    const std::string name = options.path == "-" ? "standard input" : options.path;
    if (options.path != "-") {
        std::error_code ec;
        if (std::filesystem::is_directory(options.path, ec)) throw failure(exit_bad_input, options.path + " is a directory");
        file.open(options.path, std::ios::binary);
        if (!file) throw failure(exit_bad_input, "cannot read " + options.path + ": " + std::strerror(errno));
        in = &file;
        total = std::filesystem::file_size(options.path, ec);
    }
    progress_line progress(options.progress, total);
    std::vector<std::string> lines(lfbloom::batch_size * 64);
    std::vector<lfbloom::key_ref> keys;
    std::uint64_t count = 0, line_number = 0, bytes = 0;
    std::size_t filled = 0;
    auto flush = [&] {
        keys.clear();
        for (std::size_t i = 0; i < filled; ++i) keys.push_back({lines[i].data(), lines[i].size()});
        on_batch(keys);
        filled = 0;
    };
    while (std::getline(*in, lines[filled])) {
        std::string& line = lines[filled];
        ++line_number;
        bytes += line.size() + 1;
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.empty()) continue;
        if (line.size() > options.max_key_bytes)
            throw failure(exit_bad_input, name + " line " + std::to_string(line_number) + ": key of " +
                                              std::to_string(line.size()) + " bytes is over --max-key-bytes " +
                                              std::to_string(options.max_key_bytes));
        ++count;
        progress.update(count, bytes);
        if (++filled == lines.size()) flush();
    }
    if (in->bad()) throw failure(exit_bad_input, "error reading " + name);
    if (filled > 0) flush();
    return count;
}

void kind_flags::add_to(boost::program_options::options_description& flags) {
    namespace po = boost::program_options;
    flags.add_options()("kind", po::value(&kind), ("the kind of filter: " + kind_names() + " (default blocked)").c_str())(
        "layout", po::value(&layout), "--kind's older name")(
        "counter-bits", po::value(&counter_bits)->default_value(4), "counting: 4 or 8")(
        "fingerprint-bits", po::value(&fingerprint_bits)->default_value(0), "cuckoo: 14, 16 or 17 (0: the fewest bytes for the rate)")(
        "sub-kind", po::value(&sub_kind)->default_value("blocked"), "scalable: its sub-filters' kind, blocked or cuckoo")(
        "growth", po::value(&growth), "scalable: capacity ratio of consecutive sub-filters, 1 to 2^32 (default 2)")(
        "tightening", po::value(&tightening), "scalable: rate ratio of consecutive sub-filters, in (0, 1) (default 0.5)")(
        "max-filters", po::value(&max_filters), "scalable: most sub-filters; adds past them are refused (default 32)")(
        "generations", po::value(&generations), "rotating: generations in the ring, 2 to 64 (default 2)")(
        "period", po::value(&period_seconds), "rotating: seconds a generation is current, fractions too (default 0: rotate only when told)")(
        "double-write", po::bool_switch(&double_write), "rotating: add to the current and the next generation")(
        "manual-clock", po::bool_switch(&manual_clock), "rotating: time advances only when told, from 0 at creation (this command never tells)");
}

lfbloom::filter_spec kind_flags::spec(const boost::program_options::variables_map& vm) const {
    if (vm.count("kind") && vm.count("layout") && kind != layout)
        throw failure(exit_usage, "--kind " + kind + " and --layout " + layout + " disagree (--layout is --kind's older name)");
    const std::string name = vm.count("kind") ? kind : vm.count("layout") ? layout : "blocked";
    const auto k = lfbloom::parse_kind(name);
    if (!k || *k == lfbloom::filter_kind::swappable) throw failure(exit_usage, "--kind must be " + kind_names() + ", not '" + name + "'");
    const auto sub = lfbloom::parse_kind(sub_kind);
    if (!sub) throw failure(exit_usage, "--sub-kind must be blocked or cuckoo, not '" + sub_kind + "'");
    if (!(period_seconds >= 0 && period_seconds < 1.8e10)) throw failure(exit_usage, "--period must be 0 to 1.8e10 seconds");
    lfbloom::filter_spec s;
    s.kind = *k;
    // One field of the spec holds both widths.
    s.counter_bits = *k == lfbloom::filter_kind::cuckoo ? fingerprint_bits : *k == lfbloom::filter_kind::counting ? counter_bits : 0;
    s.sub_kind = *sub;
    s.growth = growth;
    s.tightening = tightening;
    s.max_filters = max_filters;
    s.generations = generations;
    s.period_ns = static_cast<std::uint64_t>(std::llround(period_seconds * 1e9));
    s.double_write = double_write;
    s.manual_clock = manual_clock;
    return s;
}

std::unique_ptr<lfbloom::dynamic_filter> new_filter(const lfbloom::filter_spec& spec) {
    try {
        return lfbloom::make_filter(spec);
    } catch (const lfbloom::error& e) {
        throw failure(exit_for(e.code()), e.what());
    }
}

std::unique_ptr<lfbloom::dynamic_filter> read_filter(const std::string& path, lfbloom::file_format format) {
    try {
        return lfbloom::read_file(path, [&](const lfbloom::byte_source& source, std::uint64_t available) {
            return lfbloom::load_filter(format, source, 0, available);
        });
    } catch (const lfbloom::error& e) {
        // A file that is not what it should be is bad input, whatever the core calls it.
        const exit_code code = exit_for(e.code());
        throw failure(code == exit_resources ? code : exit_bad_input, path + ": " + e.what());
    }
}

void write_file(const std::string& path, const std::function<void(const lfbloom::byte_sink&)>& write) {
    try {
        lfbloom::write_file_atomically(path, write);
    } catch (const lfbloom::error& e) {
        throw failure(e.code() == lfbloom::errc::io ? exit_output : exit_for(e.code()), "cannot write " + path + ": " + e.what());
    }
}

void write_filter(const lfbloom::dynamic_filter& filter, const std::string& path, lfbloom::file_format format) {
    write_file(path, [&](const lfbloom::byte_sink& sink) { filter.save(format, sink); });
}

}  // namespace cli
