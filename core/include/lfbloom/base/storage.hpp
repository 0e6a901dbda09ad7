// The one storage type of every filter: a zeroed, 64-byte-aligned array of 64-bit words, and the
// atomic word operations all layouts use.
//
// Memory-order argument, shared by every relaxed operation below: a filter's words only ever
// gain bits between clears (OR and saturating increments never clear a set bit). If an add
// happens-before a query (the caller's release/acquire, a thread join, ...), read-read and
// write-read coherence make the query's load see the add's RMW or a later one in that word's
// modification order, and every later one keeps the bits. No ordering with *other* memory is
// promised, so relaxed is enough; callers who publish data alongside a key use their own
// release/acquire, as they would with any container.
//
// The references are boost::ipc_atomic_ref: address-free lock-free atomics, so the same code is
// correct on memory that several processes map at once (shared_memory.hpp).
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <span>
#include <string>
#include <utility>

#include <boost/atomic/ipc_atomic_ref.hpp>

#include "lfbloom/base/error.hpp"

namespace lfbloom {

inline constexpr std::uint64_t cache_line_bytes = 64;
inline constexpr std::uint64_t words_per_line = cache_line_bytes / 8;

/// Physical memory of this machine in bytes (0 if unknown): no filter may be larger. Asked once
/// per process (sysconf's answer is a sysinfo() system call, which was 3% of a model check that
/// builds a filter per schedule); thread-safe (a function-local static).
inline std::uint64_t machine_memory_bytes() noexcept {
    static const std::uint64_t bytes = [] {
        const long pages = ::sysconf(_SC_PHYS_PAGES);
        const long page = ::sysconf(_SC_PAGESIZE);
        return pages > 0 && page > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page) : 0;
    }();
    return bytes;
}

/// Throws too_large unless `bytes` fits both the caller's limit (0: none) and the machine.
inline void check_memory(std::uint64_t bytes, std::uint64_t memory_limit) {
    if (memory_limit != 0 && bytes > memory_limit)
        throw error(errc::too_large, "filter needs " + std::to_string(bytes) + " bytes, over the memory limit of " +
                                         std::to_string(memory_limit));
    const std::uint64_t machine = machine_memory_bytes();
    if (machine != 0 && bytes > machine)
        throw error(errc::too_large, "filter needs " + std::to_string(bytes) + " bytes, more than this machine's " +
                                         std::to_string(machine));
}

/// Owns `size()` zeroed words: private anonymous arrays of at most 2 MiB (heap_bytes) in a block
/// from calloc, aligned to a cache line; larger ones, shared anonymous ones and file ones in a
/// mapping (anonymous ones page-aligned, whose untouched pages cost nothing until used; file ones
/// as aligned as their offset: a shared file's words at 4096, cache-line aligned on every page
/// size). Why calloc for small ones: malloc hands a freed block to the next filter, where a fresh
/// mapping faulted each page twice (the zero page on the first read, its copy on the first
/// write). A Python update of 200,000 keys into a fresh filter of 10^6 at 1%: 649 page faults ->
/// 49, 10% less time. Large mappings ask for transparent huge pages, which cut TLB misses on
/// DRAM-sized filters. Private anonymous memory by default; shared anonymous memory (inherited by
/// fork) or a shared file mapping for filters several processes use at once. Move-only; not
/// thread-safe to move or destroy while in use.
class word_array {
public:
    word_array() = default;

    /// Zeroed anonymous memory, shared with child processes forked later if `process_shared`.
    /// Throws too_large (see check_memory) or out_of_memory.
    word_array(std::uint64_t words, std::uint64_t memory_limit, bool process_shared = false)
        : word_array(words, memory_limit, (process_shared ? MAP_SHARED : MAP_PRIVATE) | MAP_ANONYMOUS, -1, 0) {}

    /// `words` words of the open file `fd` from byte `offset` (a multiple of 8; the mapping
    /// starts at the page boundary below it, so any page size works: 4, 16 or 64 KiB), mapped
    /// shared: every process mapping the file sees the same words. Without `writable` the
    /// pages are mapped read-only (fd may be O_RDONLY) and any store to them faults: the caller
    /// must keep writers away (shared_memory.hpp's read_only_filter does).
    static word_array map_file(int fd, std::uint64_t offset, std::uint64_t words, std::uint64_t memory_limit,
                               bool writable = true) {
        return word_array(words, memory_limit, MAP_SHARED, fd, offset, writable ? PROT_READ | PROT_WRITE : PROT_READ);
    }

    word_array(word_array&& other) noexcept
        : data_(std::exchange(other.data_, nullptr)),
          size_(std::exchange(other.size_, 0)),
          lead_(other.lead_),
          shared_(other.shared_),
          heap_(std::exchange(other.heap_, nullptr)) {}
    word_array& operator=(word_array&& other) noexcept {
        if (this != &other) {
            release();
            data_ = std::exchange(other.data_, nullptr);
            size_ = std::exchange(other.size_, 0);
            lead_ = other.lead_;
            shared_ = other.shared_;
            heap_ = std::exchange(other.heap_, nullptr);
        }
        return *this;
    }
    word_array(const word_array&) = delete;
    word_array& operator=(const word_array&) = delete;
    ~word_array() { release(); }

    std::uint64_t* data() const noexcept { return data_; }
    std::uint64_t size() const noexcept { return size_; }
    std::uint64_t bytes() const noexcept { return size_ * 8; }

    /// Writes a file-backed mapping's dirty pages to the file (msync); nothing to do otherwise.
    /// Not needed for other processes to see the words, only for durability across a crash of
    /// the machine. Thread-safe.
    void flush() const {
        if (shared_ && ::msync(mapping(), lead_ + bytes(), MS_SYNC) != 0)
            throw error(errc::io, std::string("msync failed: ") + std::strerror(errno));
    }

private:
    word_array(std::uint64_t words, std::uint64_t memory_limit, int flags, int fd, std::uint64_t offset,
               int protection = PROT_READ | PROT_WRITE)
        : size_(words), lead_(offset % page_bytes()), shared_((flags & MAP_SHARED) != 0 && fd >= 0) {
        if (words == 0 || words > (std::uint64_t{1} << 58)) throw error(errc::invalid_argument, "bad word count");
        if (offset % 8 != 0) throw error(errc::invalid_argument, "words must start at a multiple of 8 bytes");
        check_memory(words * 8, memory_limit);
        if (fd < 0 && (flags & MAP_SHARED) == 0 && words * 8 <= heap_bytes) {
            heap_ = std::calloc(words * 8 + cache_line_bytes, 1);  // zeroed; aligned to a line below
            if (heap_ == nullptr) throw error(errc::out_of_memory, "cannot allocate " + std::to_string(words * 8) + " bytes for the filter");
            const auto address = reinterpret_cast<std::uintptr_t>(heap_);
            data_ = reinterpret_cast<std::uint64_t*>((address + cache_line_bytes - 1) / cache_line_bytes * cache_line_bytes);
            return;
        }
        void* p = ::mmap(nullptr, lead_ + words * 8, protection, flags, fd, static_cast<off_t>(offset - lead_));
        if (p == MAP_FAILED)
            throw error(fd < 0 ? errc::out_of_memory : errc::io,
                        "cannot map " + std::to_string(words * 8) + " bytes for the filter: " + std::strerror(errno));
#ifdef MADV_HUGEPAGE
        if (words * 8 >= (std::uint64_t{2} << 20)) ::madvise(p, lead_ + words * 8, MADV_HUGEPAGE);  // a hint; failure is harmless
#endif
        data_ = reinterpret_cast<std::uint64_t*>(static_cast<char*>(p) + lead_);
    }

    static std::uint64_t page_bytes() noexcept {
        static const long page = ::sysconf(_SC_PAGESIZE);
        return page > 0 ? static_cast<std::uint64_t>(page) : 4096;
    }
    void* mapping() const noexcept { return reinterpret_cast<char*>(data_) - lead_; }
    void release() noexcept {
        if (heap_ != nullptr) std::free(std::exchange(heap_, nullptr));
        else if (data_ != nullptr) ::munmap(mapping(), lead_ + size_ * 8);
    }

    /// Private anonymous arrays up to this size come from malloc's heap, not a mapping of their own.
    static constexpr std::uint64_t heap_bytes = std::uint64_t{2} << 20;

    std::uint64_t* data_ = nullptr;
    std::uint64_t size_ = 0;
    std::uint64_t lead_ = 0;  ///< bytes mapped before data_: the offset past the page boundary
    bool shared_ = false;     ///< a shared file mapping, which flush() writes back
    void* heap_ = nullptr;    ///< the heap block data_ lies in (a small private array), else null
};

namespace detail {

/// An open file descriptor a filter keeps while it lives, closed with it (a shared cuckoo file's
/// descriptor, whose flock tells later openers that its locks are in use). Move-only.
class file_lease {
public:
    file_lease() = default;
    explicit file_lease(int fd) noexcept : fd_(fd) {}
    file_lease(file_lease&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
    file_lease& operator=(file_lease&& other) noexcept {
        if (this != &other) {
            reset();
            fd_ = std::exchange(other.fd_, -1);
        }
        return *this;
    }
    file_lease(const file_lease&) = delete;
    file_lease& operator=(const file_lease&) = delete;
    ~file_lease() { reset(); }
    int fd() const noexcept { return fd_; }

private:
    void reset() noexcept {
        if (fd_ >= 0) ::close(fd_);
        fd_ = -1;
    }
    int fd_ = -1;
};

}  // namespace detail

/// The atomic view of one filter word: an address-free boost::ipc_atomic_ref over the plain word.
/// The model checker's word type (tests/relacy) brings its own word_ref, found by argument-dependent
/// lookup, so the word operations below are the code that runs under the checker too.
inline boost::ipc_atomic_ref<std::uint64_t> word_ref(std::uint64_t& word) noexcept {
    return boost::ipc_atomic_ref<std::uint64_t>(word);
}

/// Atomic load of one filter word. Relaxed: see the memory-order argument at the top of this file.
template <class Word>
std::uint64_t load_word(const Word& word) noexcept {
    return word_ref(const_cast<Word&>(word)).load(boost::memory_order_relaxed);
}

/// Atomic store of one filter word (clear, merge). Relaxed: clearing promises nothing to racing
/// adds, and the caller orders a finished clear or merge with its own synchronization.
template <class Word>
void store_word(Word& word, std::uint64_t value) noexcept {
    word_ref(word).store(value, boost::memory_order_relaxed);
}

/// Sets the bits of `mask` in `word` with one locked OR, without reading first; true if any was
/// clear before. For callers that already know some bit is missing. Uses fetch_or (not
/// opaque_or/bit_test_and_set, which are inline assembly that ThreadSanitizer cannot see).
/// Relaxed: see the top of this file.
template <class Word>
bool or_bits(Word& word, std::uint64_t mask) noexcept {
    return (word_ref(word).fetch_or(mask, boost::memory_order_relaxed) & mask) != mask;
}

/// Sets the bits of `mask` in `word` with one locked OR whose old value is not used: a `lock or`
/// on x86, where a fetch_or whose result is used compiles to a `lock cmpxchg` loop (measured here:
/// 4.9 ns per uncontended `lock or`). std::atomic_ref, address-free like ipc_atomic_ref for
/// lock-free types, because Boost's fetch_or is such a loop in inline assembly and its opaque_or
/// is inline assembly ThreadSanitizer cannot see. Relaxed: see the top of this file.
inline void or_word(std::uint64_t& word, std::uint64_t mask) noexcept {
    static_assert(std::atomic_ref<std::uint64_t>::is_always_lock_free);
    std::atomic_ref<std::uint64_t>(word).fetch_or(mask, std::memory_order_relaxed);
}
/// The same for the model checker's word (tests/relacy), through its word_ref.
template <class Word>
void or_word(Word& word, std::uint64_t mask) noexcept {
    word_ref(word).fetch_or(mask, boost::memory_order_relaxed);
}

/// Sets the bits of `mask` in `word`; true if any was clear before. Reads first and skips the
/// locked RMW when all bits are present, so hot words stay shared in every core's cache instead
/// of bouncing. Relaxed: see the top of this file.
template <class Word>
bool set_bits(Word& word, std::uint64_t mask) noexcept {
    if ((load_word(word) & mask) == mask) return false;
    return or_bits(word, mask);
}

/// Atomically replaces `word` by `update(old)` with a CAS loop; `update` returns false to give up
/// without writing. Returns whether the word was written. Relaxed: see the top of this file (the
/// counting filter's rules for decrements are in counting_bloom_filter.hpp).
template <class Word, class Update>
bool update_word(Word& word, Update update) noexcept {
    auto&& ref = word_ref(word);
    std::uint64_t old = ref.load(boost::memory_order_relaxed);
    std::uint64_t next;
    do {
        if (!update(old, next)) return false;
        if (next == old) return true;
    } while (!ref.compare_exchange_weak(old, next, boost::memory_order_relaxed, boost::memory_order_relaxed));
    return true;
}

namespace detail {

/// Copies a filter's words into a new filter's (copy()). Relaxed: coherence shows every write that
/// happened-before the copy (the top of this file), and `to` is private until the copy is returned.
template <class Word>
void copy_words(std::span<const Word> from, std::span<Word> to) noexcept {
    for (std::size_t i = 0; i < from.size(); ++i) store_word(to[i], load_word(from[i]));
}

/// Whether two filters' words (of one length) hold the same values (operator==). Relaxed: a
/// word-by-word snapshot, like stats(); exact only when no writer races with it.
template <class Word>
bool same_words(std::span<const Word> a, std::span<const Word> b) noexcept {
    for (std::size_t i = 0; i < a.size(); ++i)
        if (load_word(a[i]) != load_word(b[i])) return false;
    return true;
}

/// A statistic (a count of events) that moves with its filter, where a bare std::atomic would make
/// the filter immovable. Relaxed throughout: a statistic orders nothing, and is read after the fact.
class event_count {
public:
    event_count() = default;
    // moving a filter needs exclusive access, which orders everything before it
    event_count(event_count&& other) noexcept : value_(other.get()) {}
    event_count& operator=(event_count&& other) noexcept {
        value_.store(other.get(), std::memory_order_relaxed);
        return *this;
    }
    void add() noexcept { value_.fetch_add(1, std::memory_order_relaxed); }
    std::uint64_t get() const noexcept { return value_.load(std::memory_order_relaxed); }

private:
    std::atomic<std::uint64_t> value_{0};
};

}  // namespace detail

}  // namespace lfbloom
