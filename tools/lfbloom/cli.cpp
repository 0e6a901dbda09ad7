#include "cli.hpp"

#include <unistd.h>

#include <chrono>
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

exit_code exit_for(lfbloom::errc code) {
    switch (code) {
        case lfbloom::errc::invalid_argument: return exit_usage;
        case lfbloom::errc::too_large:
        case lfbloom::errc::out_of_memory: return exit_resources;
        default: return exit_bad_input;
    }
}

}  // namespace

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

std::uint64_t read_keys(const key_input_options& options, const std::function<void(std::span<const lfbloom::key_view>)>& on_batch) {
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
    std::vector<lfbloom::key_view> keys;
    std::uint64_t count = 0, line_number = 0, bytes = 0;
    std::size_t filled = 0;
    auto flush = [&] {
        keys.clear();
        for (std::size_t i = 0; i < filled; ++i) keys.push_back(lfbloom::as_key(lines[i]));
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

lfbloom::any_filter load_filter(const std::string& path) {
    try {
        return lfbloom::load_file(path);
    } catch (const lfbloom::error& e) {
        throw failure(exit_for(e.code()), path + ": " + e.what());
    }
}

void save_filter(const lfbloom::any_filter& filter, const std::string& path) {
    try {
        std::visit([&](const auto& f) { lfbloom::save_file(f, path); }, filter);
    } catch (const lfbloom::error& e) {
        throw failure(exit_output, e.what());
    }
}

}  // namespace cli
