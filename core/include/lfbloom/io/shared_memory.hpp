// Filters several processes use at once: the words live in a file mapped shared (or, for parents
// and the children they fork, in anonymous shared memory: filter_options::process_shared), and
// every process adds and queries them with the same address-free lock-free atomics
// (boost::ipc_atomic_ref, storage.hpp). The guarantees of the filter hold across processes.
//
// A shared file is a 4096-byte header page (the native header of serialization.hpp with the magic
// "LFBLIVE\0" and slots-set 0), then the words, little-endian as they sit in memory, and for a
// cuckoo filter its stripe words and lock records after them (docs/FORMAT.md): robust mutexes, so
// a writer that dies holding one hands it to the next writer, which repairs what it left
// (cuckoo_filter.hpp), and a writer never waits longer than its lock timeout.
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
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <variant>

#include "lfbloom/io/serialization.hpp"

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
    h.payload_bytes = expected_payload(kind, g.slots, slot_bits);
    return h;
}

}  // namespace detail

namespace detail {

/// Shared cuckoo files have format version 2 (robust lock records); version 1, written by
/// lfbloom 1.5-1.9 with process-id locks, is opened by readers as it is and upgraded by the first
/// writer that opens it unused. lfbloom 1.9 and older refuse version 2 (unsupported_version), so
/// no process locks a stripe the old way while another holds its mutex.
inline constexpr std::uint16_t live_cuckoo_version = 2;
/// Header page bytes 80-95 of a version-2 cuckoo file: which lock records it holds. An opener whose
/// records would differ (another C library's mutexes) is refused while the file is in use.
#if defined(__GLIBC__)
inline constexpr char lock_records_kind[16] = "glibc robust 40";
#else
inline constexpr char lock_records_kind[16] = "posix robust 40";
#endif
inline constexpr std::uint64_t lock_records_kind_offset = header_size;

/// A cuckoo file's lock records start at the first 64-byte boundary after its stripe words.
inline std::uint64_t lock_records_offset(const file_header& h) {
    const std::uint64_t stripes_end = shared_words_offset + h.payload_bytes + cuckoo_filter::stripe_words(h.payload_bytes / 8) * 8;
    return (stripes_end + 63) / 64 * 64;
}

/// The bytes after a shared file's header page: the filter's words; for a cuckoo filter its
/// stripe words after its buckets, and (version 2) its lock records after those.
inline std::uint64_t live_bytes(const file_header& h, std::uint16_t version = live_cuckoo_version) {
    if (h.kind != layout::cuckoo) return h.payload_bytes;
    if (version == live_cuckoo_version)
        return lock_records_offset(h) + cuckoo_filter::lock_words(h.payload_bytes / 8) * 8 - shared_words_offset;
    return h.payload_bytes + cuckoo_filter::stripe_words(h.payload_bytes / 8) * 8;
}

/// What a memory limit counts of a shared file: the filter's words (a cuckoo filter's buckets and
/// stripe words, as its bytes() and plan() count them), not the lock records (64 bytes a stripe,
/// at most 256 KiB).
inline std::uint64_t filter_bytes(const file_header& h) { return live_bytes(h, format_version); }

/// The format version a shared file of `kind` is written with.
inline std::uint16_t live_version(layout kind) noexcept { return kind == layout::cuckoo ? live_cuckoo_version : format_version; }

/// The filter of header `h` over the words of the open shared file `fd`. Callers have checked
/// live_bytes(h) against memory_limit. A writable cuckoo filter maps its lock records too and
/// keeps `lease` (the descriptor whose flock marks them in use); its caller makes them usable.
template <class Filter>
Filter map_live(const file_header& h, int fd, std::uint64_t memory_limit, bool writable, file_lease lease = {}) {
    const std::uint64_t words = h.payload_bytes / 8;
    if constexpr (Filter::kind == layout::cuckoo)
        return make_for<Filter>(
            h, memory_limit, word_array::map_file(fd, shared_words_offset, words, memory_limit, writable),
            word_array::map_file(fd, shared_words_offset + h.payload_bytes, Filter::stripe_words(words), memory_limit, writable),
            writable ? word_array::map_file(fd, lock_records_offset(h), Filter::lock_words(words), memory_limit) : word_array(),
            std::move(lease));
    else
        return make_for<Filter>(h, memory_limit, word_array::map_file(fd, shared_words_offset, words, memory_limit, writable));
}

inline void write_lock_records_kind(int fd, const std::string& path) {
    if (::pwrite(fd, lock_records_kind, sizeof lock_records_kind, lock_records_kind_offset) != static_cast<ssize_t>(sizeof lock_records_kind))
        io_failure("cannot write the header of " + path);
}

/// Takes a shared flock on `fd` (the mark of a writer using the file's locks), waiting at most
/// `timeout_ms` for an opener that holds it exclusively (while it makes the locks anew).
inline void share_flock(int fd, const std::string& path, std::uint32_t timeout_ms) {
    for (std::uint32_t waited = 0;; ++waited) {
        if (::flock(fd, LOCK_SH | LOCK_NB) == 0) return;
        if (errno != EWOULDBLOCK && errno != EINTR) io_failure("cannot lock " + path);
        if (waited >= timeout_ms)
            throw error(errc::timeout, path + " stayed locked by another opener for " + std::to_string(timeout_ms) + " ms");
        ::usleep(1000);
    }
}

/// create_shared_file, but an existing `path` is not an error: returns nothing then.
template <class Filter>
std::optional<Filter> create_live(const std::string& path, const geometry& g, const filter_options& options,
                                  std::uint32_t counter_bits, ::mode_t mode) {
    check_mode(mode);
    std::uint32_t slot_bits = counter_bits;
    if constexpr (Filter::kind == layout::counting) counting_bloom_filter::slots_per_line(counter_bits);  // validates the width
    else if constexpr (Filter::kind == layout::cuckoo) {
        slot_bits = g.slot_bits == 0 ? 16 : g.slot_bits;
        if (cuckoo_filter::slots_for(slot_bits) == 0) throw error(errc::invalid_argument, "cuckoo fingerprints are 14, 16 or 17 bits");
    }
    else slot_bits = Filter::counter_bits();
    file_header h = header_of(Filter::kind, slot_bits, g, options.seed);
    h.probes = options.probes;  // the filter's own rule is what its header records
    check_memory(filter_bytes(h), options.memory_limit);
    std::string tmp;
    fd_guard fd{create_unique(path + ".creating.", mode, tmp)};
    if (fd.fd < 0) io_failure("cannot create a file beside " + path);
    try {
        if (::ftruncate(fd.fd, static_cast<off_t>(shared_words_offset + live_bytes(h))) != 0)
            io_failure("cannot size " + path + " to " + std::to_string(shared_words_offset + live_bytes(h)) + " bytes");
        Filter f = [&] {
            if constexpr (Filter::kind == layout::cuckoo) {
                // its own descriptor for the lease: fd.fd is closed below, the lease's lives with f
                const int kept = ::fcntl(fd.fd, F_DUPFD_CLOEXEC, 0);
                if (kept < 0) io_failure("cannot keep " + tmp + " open");
                file_lease lease(kept);
                if (::flock(kept, LOCK_SH) != 0) io_failure("cannot lock " + tmp);  // before the link: nobody can see it yet
                Filter made = map_live<Filter>(h, fd.fd, options.memory_limit, true, std::move(lease));
                made.init_locks();
                write_lock_records_kind(fd.fd, path);
                return made;
            } else {
                return map_live<Filter>(h, fd.fd, options.memory_limit, true);
            }
        }();
        const auto header = encode_header(shared_magic, f, 0, live_version(Filter::kind));
        if (::pwrite(fd.fd, header.data(), header.size(), 0) != static_cast<ssize_t>(header.size()))
            io_failure("cannot write the header of " + path);
        if (::fsync(fd.fd) != 0) io_failure("fsync " + tmp);
        if (::link(tmp.c_str(), path.c_str()) != 0) {
            if (errno != EEXIST) io_failure("cannot create " + path);
            ::unlink(tmp.c_str());
            return std::nullopt;
        }
        ::unlink(tmp.c_str());
        return f;
    } catch (...) {
        ::unlink(tmp.c_str());
        throw;
    }
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
    std::optional<Filter> f = detail::create_live<Filter>(path, g, options, counter_bits, mode);
    if (!f) {
        errno = EEXIST;
        detail::io_failure("cannot create " + path);
    }
    return std::move(*f);
}

namespace detail {

/// Reads and decodes the header page's header of the open shared file `fd`, of format `version`
/// (0: the one its layout is written with).
inline file_header read_live_header(int fd, const std::string& path, std::uint16_t version, std::array<unsigned char, header_size>& raw) {
    const ssize_t got = ::pread(fd, raw.data(), raw.size(), 0);
    if (got < 0) io_failure("cannot read " + path);
    if (got != static_cast<ssize_t>(raw.size())) corrupt(path + " is too short for a header");
    if (version == 0) version = raw[10] == static_cast<unsigned char>(layout::cuckoo) ? live_cuckoo_version : format_version;
    return decode_header(raw, shared_magic, version);
}

/// Throws corrupt unless the open file `fd` is exactly as long as a shared file of `h` in `version`.
inline void check_live_size(int fd, const std::string& path, const file_header& h, std::uint16_t version) {
    struct stat st;
    if (::fstat(fd, &st) != 0) io_failure("cannot stat " + path);
    if (static_cast<std::uint64_t>(st.st_size) != shared_words_offset + live_bytes(h, version))
        corrupt(path + " has " + std::to_string(st.st_size) + " bytes, its header declares " +
                std::to_string(shared_words_offset + live_bytes(h, version)));
}

/// A writer opening a shared cuckoo file. Its stripe locks are robust mutexes in the file, in
/// use while some writer holds a shared flock on it. An opener that gets the flock exclusively
/// is the only writer: whatever the records hold (a crash, a restart, a copied or crafted file)
/// it makes every lock anew, finishing moves cut short (cuckoo_filter::init_locks), upgrades a
/// version-1 file (adding the records), then shares the flock. Any other opener waits for a
/// shared flock (at most default_lock_timeout_ms: an opener holds it exclusively for
/// microseconds) and checks the records' kind and the stripe words. The descriptor stays open,
/// with its flock, while the filter lives.
inline cuckoo_filter open_live_cuckoo(fd_guard& fd, const std::string& path, std::uint64_t memory_limit) {
    const bool alone = ::flock(fd.fd, LOCK_EX | LOCK_NB) == 0;
    if (!alone) {
        if (errno != EWOULDBLOCK) io_failure("cannot lock " + path);
        share_flock(fd.fd, path, cuckoo_filter::default_lock_timeout_ms);
    }
    std::array<unsigned char, header_size> raw;
    file_header h;
    try {
        h = read_live_header(fd.fd, path, live_cuckoo_version, raw);
    } catch (const error& e) {
        if (!alone || e.code() != errc::unsupported_version || get_le<std::uint16_t>(&raw[8]) != format_version) throw;
        h = decode_header(raw, shared_magic, format_version);  // lfbloom 1.9's file: add the lock records
        check_memory(filter_bytes(h), memory_limit);
        check_live_size(fd.fd, path, h, format_version);
        if (::ftruncate(fd.fd, static_cast<off_t>(shared_words_offset + live_bytes(h))) != 0)
            io_failure("cannot add lock records to " + path);
        put_le<std::uint16_t>(&raw[8], live_cuckoo_version);
        put_le<std::uint64_t>(&raw[72], XXH3_64bits(raw.data(), 72));
        write_lock_records_kind(fd.fd, path);
        if (::pwrite(fd.fd, raw.data(), raw.size(), 0) != static_cast<ssize_t>(raw.size())) io_failure("cannot write the header of " + path);
    }
    if (h.kind != layout::cuckoo) corrupt(path + " changed its layout while it was opened");
    check_memory(filter_bytes(h), memory_limit);
    check_live_size(fd.fd, path, h, live_cuckoo_version);
    char kind[sizeof lock_records_kind];
    if (::pread(fd.fd, kind, sizeof kind, lock_records_kind_offset) != static_cast<ssize_t>(sizeof kind)) io_failure("cannot read " + path);
    if (!alone && std::memcmp(kind, lock_records_kind, sizeof kind) != 0)
        throw error(errc::incompatible, path + " is in use with stripe locks of another kind than this library's");
    const int kept = fd.fd;
    fd.fd = -1;  // the lease owns it now
    cuckoo_filter f = map_live<cuckoo_filter>(h, kept, memory_limit, true, file_lease(kept));
    if (alone) {
        f.init_locks();
        write_lock_records_kind(kept, path);
        if (::flock(kept, LOCK_SH) != 0) io_failure("cannot lock " + path);  // may wait for an opener that made them anew meanwhile
    } else {
        f.check_locks();
    }
    return f;
}

/// Maps the filter in an existing shared file, validating its header and size first: opened
/// O_RDWR and mapped read-write if `writable`, else O_RDONLY and mapped read-only, and then nothing
/// may write to the result (open_shared_file_read_only wraps it so).
inline any_filter map_shared_file(const std::string& path, std::uint64_t memory_limit, bool writable) {
    fd_guard fd{::open(path.c_str(), (writable ? O_RDWR : O_RDONLY) | O_CLOEXEC)};
    if (fd.fd < 0) io_failure("cannot open " + path);
    std::array<unsigned char, header_size> raw;
    std::uint16_t version = 0;  // the one the layout is written with
    const ssize_t got = ::pread(fd.fd, raw.data(), raw.size(), 0);
    if (got == static_cast<ssize_t>(raw.size()) && raw[10] == static_cast<unsigned char>(layout::cuckoo)) {
        if (writable) return open_live_cuckoo(fd, path, memory_limit);
        // readers take no lock: a version-1 file (lfbloom 1.9's) reads as it is
        if (get_le<std::uint16_t>(&raw[8]) == format_version) version = format_version;
    }
    const file_header h = read_live_header(fd.fd, path, version, raw);
    if (version == 0) version = live_version(h.kind);
    check_memory(filter_bytes(h), memory_limit);
    check_live_size(fd.fd, path, h, version);
    return with_file_layout<any_filter>(h.kind, [&]<class F>() {  // a writable cuckoo file was opened above, with its locks
        return any_filter(map_live<F>(h, fd.fd, memory_limit, F::kind == layout::cuckoo ? false : writable));
    });
}

/// True if `f`, opened from a file, is what create_live would have made of these arguments.
template <class Filter>
bool same_filter(const Filter& f, const geometry& g, const filter_options& options, std::uint32_t counter_bits) {
    const geometry have = f.shape();
    const bool same = have.slots == g.slots && have.hashes == g.hashes && have.capacity == g.capacity &&
                      have.target_fpr == g.target_fpr && f.seed() == options.seed;
    if constexpr (Filter::kind == layout::counting) return same && f.counter_bits() == counter_bits;
    else if constexpr (Filter::kind == layout::cuckoo) return same && f.counter_bits() == (g.slot_bits == 0 ? 16 : g.slot_bits);
    else return same;
}

/// `any`'s Filter, if it is what create_live would have made of these arguments (same_filter);
/// else throws incompatible, naming `path`.
template <class Filter>
Filter& expect_filter(any_filter& any, const std::string& path, const geometry& g, const filter_options& options,
                      std::uint32_t counter_bits) {
    Filter* f = std::get_if<Filter>(&any);
    if (f == nullptr || !same_filter(*f, g, options, counter_bits))
        throw error(errc::incompatible, path + " holds a filter of another kind, size or seed than the one asked for");
    return *f;
}

/// expect_filter for the cuckoo filter sized for (capacity, fpr, fingerprint_bits). With
/// fingerprint_bits 0 (the width the rate picks) the file's own width is taken: a file these
/// arguments made with another width is theirs too (1.5 and 1.6 made every cuckoo file 16 bits,
/// where 1.7 picks 14 or 17 for some rates).
inline cuckoo_filter& expect_cuckoo(any_filter& any, const std::string& path, std::uint64_t capacity, double fpr,
                                    std::uint32_t fingerprint_bits, const filter_options& options) {
    const auto* found = std::get_if<cuckoo_filter>(&any);
    const std::uint32_t bits = fingerprint_bits != 0 || found == nullptr ? fingerprint_bits : found->counter_bits();
    geometry g;
    try {
        g = cuckoo_filter::size_for(capacity, fpr, bits);
    } catch (const error&) {
        if (bits == fingerprint_bits) throw;  // the caller's own arguments: their error
        throw error(errc::incompatible, path + " holds " + std::to_string(bits) + "-bit fingerprints, which these arguments cannot size");
    }
    return expect_filter<cuckoo_filter>(any, path, g, options, 4);
}

/// open_or_create_shared_file's loop; expect(any) returns the Filter in an existing file or throws.
template <class Filter, class Expect>
Filter open_or_create(const std::string& path, const geometry& g, const filter_options& options, std::uint32_t counter_bits,
                      ::mode_t mode, Expect expect) {
    for (;;) {
        if (::access(path.c_str(), F_OK) != 0) {
            if (errno != ENOENT) io_failure("cannot open " + path);
            if (std::optional<Filter> f = create_live<Filter>(path, g, options, counter_bits, mode)) return std::move(*f);
        }
        std::optional<any_filter> any;
        try {
            any.emplace(map_shared_file(path, options.memory_limit, true));
        } catch (const error& e) {
            if (e.code() == errc::io && ::access(path.c_str(), F_OK) != 0 && errno == ENOENT) continue;  // removed meanwhile
            throw;
        }
        return std::move(expect(*any));
    }
}

}  // namespace detail

/// Opens `path` if it exists, else creates it as create_shared_file does, in one call: of
/// processes racing to open-or-create one path, one creates it and all get its filter. An
/// existing file must hold a Filter of exactly this geometry and seed (and counter width), else
/// incompatible. Throws what create_shared_file and open_shared_file throw.
template <class Filter>
Filter open_or_create_shared_file(const std::string& path, const geometry& g, const filter_options& options = {},
                                  std::uint32_t counter_bits = 4, ::mode_t mode = default_file_mode) {
    return detail::open_or_create<Filter>(path, g, options, counter_bits, mode, [&](any_filter& any) -> Filter& {
        return detail::expect_filter<Filter>(any, path, g, options, counter_bits);
    });
}

/// open_or_create_shared_file for a cuckoo filter sized for (capacity, fpr) with fingerprints of
/// fingerprint_bits (14, 16 or 17; 0: the width for_capacity picks, and an existing file these
/// arguments made with another width is opened as it is: 1.5 and 1.6 files are all 16 bits).
/// Throws as open_or_create_shared_file does, and invalid_argument as size_for does.
inline cuckoo_filter open_or_create_shared_cuckoo(const std::string& path, std::uint64_t capacity, double fpr,
                                                  std::uint32_t fingerprint_bits = 0, const filter_options& options = {},
                                                  ::mode_t mode = default_file_mode) {
    const geometry g = cuckoo_filter::size_for(capacity, fpr, fingerprint_bits);
    return detail::open_or_create<cuckoo_filter>(path, g, options, 4, mode, [&](any_filter& any) -> cuckoo_filter& {
        return detail::expect_cuckoo(any, path, capacity, fpr, fingerprint_bits, options);
    });
}

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
/// the filter's const functions are: queries from any number of threads at once. (A cuckoo
/// filter's save and copy_buckets, const but needing its stripe locks, throw read_only.)
class read_only_filter {
public:
    const any_filter& filter() const noexcept { return filter_; }

    /// The filter's contains(key) (any key type it takes).
    template <class Key>
    bool contains(const Key& key) const {
        return std::visit([&](const auto& f) { return f.contains(key); }, filter_);
    }

    /// The filter's stats; a cuckoo filter's as as_filter_stats reduces them (its event counts,
    /// kicks and the like, are in filter() and count this process only).
    filter_stats stats() const {
        return std::visit(
            [](const auto& f) -> filter_stats {
                if constexpr (std::decay_t<decltype(f)>::kind == layout::cuckoo) return as_filter_stats(f.stats());
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
