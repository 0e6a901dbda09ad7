// Filters several processes use at once: the words live in a file mapped shared (or, for parents
// and the children they fork, in anonymous shared memory: filter_options::process_shared), and
// every process adds and queries them with the same address-free lock-free atomics
// (boost::ipc_atomic_ref, storage.hpp). The guarantees of the filter hold across processes.
//
// A shared file is a 4096-byte header page (the native header of serialization.hpp with the magic
// "LFBLIVE\0" and slots-set 0), then the words, page-aligned, little-endian as they sit in memory.
// It has no payload checksum: its words change while it lives. A crash of a process loses none
// of the adds it completed (its stores are in the shared page cache); `flush()` (msync) is only
// needed to survive a crash of the machine.
//
// Creation is atomic for concurrent openers: the file is built and its header written under a
// temporary name, then linked into place, so an opener sees either no file or a complete header.
// Creating over an existing file fails (errc::io) rather than replacing a filter others may use.
//
// Access is the file's: it is created with 0666 (or the caller's mode) less the umask, so the
// creator decides who may share it. Writers open it read-write; a process with only read
// permission (another user, say) opens it with open_shared_file_read_only, which maps the words
// read-only and gives only const access to the filter, since a store would fault.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>
#include <variant>

#include "lfbloom/serialization.hpp"

namespace lfbloom {

inline constexpr char shared_magic[8] = {'L', 'F', 'B', 'L', 'I', 'V', 'E', '\0'};
inline constexpr std::uint64_t shared_words_offset = 4096;

namespace detail {

struct fd_guard {
    int fd;
    ~fd_guard() {
        if (fd >= 0) ::close(fd);
    }
};

[[noreturn]] inline void io_failure(const std::string& what) { throw error(errc::io, what + ": " + std::strerror(errno)); }

inline file_header header_of(layout kind, std::uint32_t slot_bits, const geometry& g, std::uint64_t seed) {
    file_header h;
    h.kind = kind;
    h.slot_bits = slot_bits;
    h.seed = seed;
    h.shape = g;
    h.payload_bytes = expected_payload(g.slots, slot_bits);
    return h;
}

}  // namespace detail

/// Creates `path` holding an empty filter of geometry `g` (from Filter::size_for-style sizing or a
/// loaded shape) and returns it mapped. `counter_bits` is for counting filters; `mode` (at most
/// 0777) less the umask are the file's permission bits, as open(2) gives them. Throws
/// invalid_argument, too_large (memory limit or machine) or io (the file exists, no space, ...).
/// Thread-safe, also across processes: of concurrent creators of one path exactly one succeeds.
template <class Filter>
Filter create_shared_file(const std::string& path, const geometry& g, const filter_options& options = {},
                          std::uint32_t counter_bits = 4, ::mode_t mode = default_file_mode) {
    detail::check_mode(mode);
    const std::uint32_t slot_bits = Filter::kind == layout::counting ? counter_bits : 1;
    if (Filter::kind == layout::counting) counting_bloom_filter::slots_per_line(counter_bits);  // validates the width
    file_header h = detail::header_of(Filter::kind, slot_bits, g, options.seed);
    h.probes = options.probes;  // the filter's own rule is what its header records
    check_memory(h.payload_bytes, options.memory_limit);
    std::string tmp;
    detail::fd_guard fd{detail::create_unique(path + ".creating.", mode, tmp)};
    if (fd.fd < 0) detail::io_failure("cannot create a file beside " + path);
    try {
        if (::ftruncate(fd.fd, static_cast<off_t>(shared_words_offset + h.payload_bytes)) != 0)
            detail::io_failure("cannot size " + path + " to " + std::to_string(shared_words_offset + h.payload_bytes) + " bytes");
        Filter f = detail::make_for<Filter>(h, options.memory_limit,
                                            word_array::map_file(fd.fd, shared_words_offset, h.payload_bytes / 8, options.memory_limit));
        const auto header = detail::encode_header(shared_magic, f, 0);
        if (::pwrite(fd.fd, header.data(), header.size(), 0) != static_cast<ssize_t>(header.size()))
            detail::io_failure("cannot write the header of " + path);
        if (::fsync(fd.fd) != 0) detail::io_failure("fsync " + tmp);
        if (::link(tmp.c_str(), path.c_str()) != 0) detail::io_failure("cannot create " + path);
        ::unlink(tmp.c_str());
        return f;
    } catch (...) {
        ::unlink(tmp.c_str());
        throw;
    }
}

namespace detail {

/// Maps the filter in an existing shared file, validating its header and size first: opened
/// O_RDWR and mapped read-write if `writable`, else O_RDONLY and mapped read-only, and then nothing
/// may write to the result (open_shared_file_read_only wraps it so).
inline any_filter map_shared_file(const std::string& path, std::uint64_t memory_limit, bool writable) {
    fd_guard fd{::open(path.c_str(), (writable ? O_RDWR : O_RDONLY) | O_CLOEXEC)};
    if (fd.fd < 0) io_failure("cannot open " + path);
    std::array<unsigned char, header_size> raw;
    const ssize_t got = ::pread(fd.fd, raw.data(), raw.size(), 0);
    if (got < 0) io_failure("cannot read " + path);
    if (got != static_cast<ssize_t>(raw.size())) corrupt(path + " is too short for a header");
    const file_header h = decode_header(raw, shared_magic);
    check_memory(h.payload_bytes, memory_limit);
    struct stat st;
    if (::fstat(fd.fd, &st) != 0) io_failure("cannot stat " + path);
    if (static_cast<std::uint64_t>(st.st_size) != shared_words_offset + h.payload_bytes)
        corrupt(path + " has " + std::to_string(st.st_size) + " bytes, its header declares " +
                std::to_string(shared_words_offset + h.payload_bytes));
    word_array words = word_array::map_file(fd.fd, shared_words_offset, h.payload_bytes / 8, memory_limit, writable);
    switch (h.kind) {
        case layout::classic: return make_for<classic_bloom_filter>(h, memory_limit, std::move(words));
        case layout::counting: return make_for<counting_bloom_filter>(h, memory_limit, std::move(words));
        case layout::split_block: return make_for<split_block_bloom_filter>(h, memory_limit, std::move(words));
        case layout::one_word: return make_for<one_word_bloom_filter>(h, memory_limit, std::move(words));
        case layout::two_word: return make_for<two_word_bloom_filter>(h, memory_limit, std::move(words));
        case layout::cuckoo: throw error(errc::incompatible, path + " holds a cuckoo filter: it cannot be shared between processes yet");
        case layout::blocked: break;
    }
    return make_for<blocked_bloom_filter>(h, memory_limit, std::move(words));
}

}  // namespace detail

/// Maps the filter in an existing shared file for reading and writing (the process needs write
/// permission on the file), validating its header and size first. Throws io, corrupt,
/// unsupported_version or too_large (the caller's memory limit, 0 = none). Thread-safe; the
/// filter is as thread-safe as any, across every process that maps the file.
inline any_filter open_shared_file(const std::string& path, std::uint64_t memory_limit = 0) {
    return detail::map_shared_file(path, memory_limit, true);
}

/// A shared file's filter mapped read-only (open_shared_file_read_only). Only const access is
/// offered: add, remove, clear and merge into it do not compile, where on the filter itself they
/// would fault on the read-only pages. It sees the adds writers make to the file. Thread-safe as
/// the filter's const functions are: queries from any number of threads at once.
class read_only_filter {
public:
    const any_filter& filter() const noexcept { return filter_; }

    /// The filter's contains(key) (any key type it takes).
    template <class Key>
    bool contains(const Key& key) const {
        return std::visit([&](const auto& f) { return f.contains(key); }, filter_);
    }

    /// The Bloom filter's stats (shared files hold Bloom filters only: map_shared_file refuses a
    /// cuckoo filter, whose stripe locks are not in the file).
    filter_stats stats() const {
        return std::visit(
            [](const auto& f) -> filter_stats {
                if constexpr (std::decay_t<decltype(f)>::kind == layout::cuckoo) return {};
                else return f.stats();
            },
            filter_);
    }

private:
    explicit read_only_filter(any_filter mapped) : filter_(std::move(mapped)) {}
    friend read_only_filter open_shared_file_read_only(const std::string& path, std::uint64_t memory_limit);

    any_filter filter_;
};

/// Maps the filter in an existing shared file read-only: the process needs only read permission
/// on the file. Validates and throws as open_shared_file does. Thread-safe.
inline read_only_filter open_shared_file_read_only(const std::string& path, std::uint64_t memory_limit = 0) {
    return read_only_filter(detail::map_shared_file(path, memory_limit, false));
}

}  // namespace lfbloom
