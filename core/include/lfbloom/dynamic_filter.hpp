// dynamic_filter: every kind of filter, composites included, behind one small type-erased
// interface. Code that holds "some filter" (the C ABI's one handle, the stress programs, a service
// that picks its kind from configuration) writes each operation once against it; a new kind of
// filter costs one class and a filter_kind value, not one more copy of every call.
//
// The interface is what every kind answers: add, contains, one batch call, info and geometry,
// save, copy and comparison. remove and count belong to the kinds that remove keys; the calls only
// some kinds have (rotate, stage, publish) stay on those kinds' own classes, reached with get<F>().
// A call a kind does not offer throws error(incompatible) and changes nothing.
//
// Thread safety and memory ordering are those of the filter inside (each class's header): every
// call may run from any number of threads at once, except destruction and the calls that kind
// documents as needing exclusive access. The interface adds no synchronization and no state but
// a read-only flag, fixed at construction.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "lfbloom/base/error.hpp"
#include "lfbloom/base/key.hpp"
#include "lfbloom/composites/rotating_bloom_filter.hpp"
#include "lfbloom/composites/scalable_bloom_filter.hpp"
#include "lfbloom/composites/swappable_filter.hpp"
#include "lfbloom/filters/bloom_filter.hpp"
#include "lfbloom/filters/counting_bloom_filter.hpp"
#include "lfbloom/filters/cuckoo_filter.hpp"
#include "lfbloom/io/composite_format.hpp"
#include "lfbloom/io/serialization.hpp"
#include "lfbloom/io/shared_memory.hpp"
#include "lfbloom/kinds.hpp"

#include <boost/preprocessor/seq/for_each.hpp>

// Separate compilation, optional. A source that makes, loads or opens a filter of any kind (or
// wraps one in held<F> below) compiles every kind's interface code: a minute or two at -O3. A
// program of many such sources may define LFBLOOM_SEPARATE_DYNAMIC in all of them and include
// "lfbloom/dynamic_filter_src.hpp" in exactly one (or in two parts, see there): held<F> of every
// kind (explicit instantiation) and make_filter, plan, load_filter and open_shared are then
// compiled there only, and the other sources call them. Behaviour is the same; mixing the two
// modes in one program is not allowed.
#if defined(LFBLOOM_SEPARATE_DYNAMIC) && !defined(LFBLOOM_DYNAMIC_SOURCE)
#define LFBLOOM_DYNAMIC_DEFINED_HERE 0
#else
#define LFBLOOM_DYNAMIC_DEFINED_HERE 1
#endif
#ifdef LFBLOOM_SEPARATE_DYNAMIC
#define LFBLOOM_DYNAMIC_DECL
#else
#define LFBLOOM_DYNAMIC_DECL inline
#endif

namespace lfbloom {

/// Formats a filter is saved in: lfbloom's own (docs/FORMAT.md, every layout), Guava's
/// BloomFilter.writeTo (classic filters of seed 0) or, since 1.13, a Parquet column chunk's
/// split-block bitset (split-block filters of seed 0; no header: its length is the bitset's, so a
/// load needs the data's length). The numbers are the C ABI's enum lfb_format.
enum class file_format : std::uint32_t { native = 1, guava = 2, parquet = 3 };

/// What make_filter builds: a kind sized for (capacity, fpr) or of an exact geometry (slots,
/// hashes), and for composites their own parameters. 0 means the default everywhere but in
/// capacity and fpr.
struct filter_spec {
    filter_kind kind = filter_kind::blocked;
    std::uint64_t capacity = 0;      ///< keys it must hold at fpr (scalable: its first sub-filter; rotating: per period)
    double fpr = 0;                  ///< in (0, 1): the false-positive rate at capacity (composites: of the whole)
    std::uint64_t seed = 0;
    std::uint64_t memory_limit = 0;  ///< bytes it may use (composites: the sum), 0 = the machine's
    std::uint32_t counter_bits = 0;  ///< counting: 4 (0 = 4) or 8; cuckoo: 14, 16 or 17 (0 = the fewest bytes for fpr)
    bool process_shared = false;     ///< memory shared with child processes forked after creation (layouts only)
    std::uint64_t slots = 0;         ///< > 0: exactly this many slots and `hashes` probes (Bloom and counting; capacity and fpr 0)
    std::uint32_t hashes = 0;
    filter_kind sub_kind = filter_kind::blocked;  ///< scalable: blocked or cuckoo sub-filters
    double growth = 0;               ///< scalable: see scalable_options (0 = 2)
    double tightening = 0;           ///< scalable: (0 = 0.5)
    std::uint32_t max_filters = 0;   ///< scalable: (0 = 32)
    std::uint32_t generations = 0;   ///< rotating: G in 2..64 (0 = 2)
    std::uint64_t period_ns = 0;     ///< rotating: rotate every period_ns (0 = only when told)
    bool double_write = false;       ///< rotating: see rotating_options
    bool manual_clock = false;       ///< rotating: time advances only by tick(now), from 0 at creation
};

/// What a filter reports about itself: info() reads the fill (O(size)), geometry() only the shape
/// (O(1), the fill fields 0), plan() describes a filter before it exists. Fields a kind does not
/// have are 0.
struct filter_info {
    filter_kind kind = filter_kind::blocked;
    std::uint64_t slots = 0;        ///< bits, counters or cuckoo fingerprint slots (composites: summed)
    std::uint32_t slot_bits = 0;    ///< 1, 4 or 8 (counters), 14, 16 or 17 (fingerprints)
    std::uint32_t hashes = 0;       ///< k; 2 for cuckoo (buckets per key)
    std::uint64_t bytes = 0;        ///< memory of the filter's arrays (composites: summed)
    std::uint64_t capacity = 0;     ///< keys it was sized for (scalable: summed; rotating: per period)
    double target_fpr = 0;          ///< rate it was sized for (composites: the bound on the whole)
    std::uint64_t seed = 0;
    std::uint64_t slots_set = 0;    ///< bits set, counters above zero, fingerprints stored
    double fill_ratio = 0;          ///< slots_set / slots
    double estimated_count = 0;     ///< keys estimated from the fill (rotating: the current generation's)
    double expected_fpr = 0;        ///< of an absent key now
    bool near_capacity = false;     ///< past 80% of capacity (cuckoo: of its maximum load)
    std::uint64_t saturated = 0;    ///< counting: counters stuck at their maximum
    std::uint64_t kicks = 0;        ///< cuckoo: fingerprints moved to make room (this process, since creation or load)
    std::uint64_t failed_adds = 0;  ///< cuckoo: adds refused as full
    std::uint64_t duplicate_refusals = 0;  ///< cuckoo: adds refused as too many duplicates
    std::uint64_t reader_retries = 0;      ///< cuckoo: queries redone because a writer moved fingerprints
    std::uint64_t reader_gave_up = 0;      ///< cuckoo: queries answered "maybe" after their retries
    filter_kind sub_kind = filter_kind::blocked;  ///< the kind of what it holds: itself for a layout, the sub-filters' or the current filter's for a composite
    std::uint32_t parts = 1;               ///< sub-filters, generations in the ring, or 2 for a swappable filter with one staged (a scalable filter growing meanwhile may count a sub-filter its sums do not)
    std::uint64_t generation = 0;          ///< rotating: rotations; swappable: replacements
    std::uint64_t ambiguous_removes = 0;   ///< scalable cuckoo: removes refused as ambiguous (its list of pending removes full)
    std::uint64_t items = 0;               ///< part_info of a scalable filter: the adds its sub-filter counted as new
};

/// What one batch call does to each key (the C ABI's enum lfb_batch_op).
enum class batch_op : std::uint32_t {
    add = 1,         ///< as add; a refusal stops the batch (batch_progress)
    contains = 2,
    remove = 3,      ///< kinds that remove keys; a scalable cuckoo filter's ambiguous remove (refused) stops the batch
    add_staged = 4,  ///< a swappable filter's staged filter only
};

/// A batch's keys as one buffer: key i is data[offsets[i]] .. data[offsets[i + 1]] (count + 1
/// offsets, not decreasing).
struct packed_keys {
    const std::byte* data;
    const std::uint64_t* offsets;
    key_view operator()(std::size_t i) const noexcept {
        return {data + offsets[i], static_cast<std::size_t>(offsets[i + 1] - offsets[i])};
    }
};

/// One key by address and length (the layout of the C ABI's lfb_key).
struct key_ref {
    const void* data;
    std::uint64_t len;
};

/// A batch's keys as an array of key_ref, or of any struct of that layout (the C ABI's lfb_key):
/// the fields are copied out as bytes, so the array's own type is never read as another.
struct key_refs {
    const void* keys;
    key_view operator()(std::size_t i) const noexcept {
        const auto* at = static_cast<const unsigned char*>(keys) + i * sizeof(key_ref);
        key_ref k;
        std::memcpy(&k.data, at + offsetof(key_ref, data), sizeof k.data);
        std::memcpy(&k.len, at + offsetof(key_ref, len), sizeof k.len);
        return {static_cast<const std::byte*>(k.data), static_cast<std::size_t>(k.len)};
    }
};

/// Where a Bloom filter's words are and how keys map onto them (dynamic_filter::bit_array).
struct bit_words {
    const std::uint64_t* words = nullptr;
    std::uint64_t bits = 0;
    std::uint64_t seed = 0;
    std::uint32_t hashes = 0;
    probe_rule rule = probe_rule::fields;
    filter_kind kind = filter_kind::blocked;
};

class dynamic_filter {
public:
    virtual ~dynamic_filter() = default;
    dynamic_filter(const dynamic_filter&) = delete;
    dynamic_filter& operator=(const dynamic_filter&) = delete;

    virtual filter_kind kind() const noexcept = 0;
    /// True for a shared file mapped read-only: every call that would write throws read_only.
    bool read_only() const noexcept { return read_only_; }

    /// Adds a key; true if it was new. Cuckoo and scalable filters may refuse (full,
    /// too_many_duplicates), having changed nothing.
    virtual bool add(key_view key) = 0;
    virtual bool contains(key_view key) const = 0;
    /// Counting, cuckoo and scalable cuckoo filters: true if a copy of the key was removed, false
    /// if none was there. A scalable cuckoo filter also answers true for a remove it deferred (done:
    /// the copy goes once the key matches in one sub-filter), and throws ambiguous for one it
    /// refused, its list of pending removes being full (see scalable_bloom_filter.hpp). Others: incompatible.
    virtual bool remove(key_view key);
    /// Counting: the key's smallest counter; cuckoo: copies of its fingerprint. Others: incompatible.
    virtual std::uint32_t count(key_view key) const;

    /// Runs `op` over `count` keys in groups whose cache misses overlap, writing 1/0 per key to
    /// results (if not null). `progress` tells how far it got, also when it throws: a refused
    /// add (or ambiguous remove) stops the batch at that key. Arguments are the caller's to check.
    virtual void run(batch_op op, std::size_t count, const packed_keys& keys, std::uint8_t* results,
                     batch_progress& progress) = 0;
    virtual void run(batch_op op, std::size_t count, const key_refs& keys, std::uint8_t* results,
                     batch_progress& progress) = 0;
    /// op (add, or add_staged for a swappable filter) over `count` keys as a bulk build with
    /// options.threads threads (bulk.hpp; key_operations::add_bulk): the same bits as the adds one
    /// by one, no answer per key (progress.positive stays 0). Bloom kinds build in bulk; the others
    /// (cuckoo, scalable, rotating) add the keys as run() does, on the calling thread, and a refusal
    /// stops them as there (progress.done). Thread safety as add's.
    virtual void run_bulk(batch_op op, std::size_t count, const packed_keys& keys, const bulk_options& options,
                          batch_progress& progress) = 0;
    virtual void run_bulk(batch_op op, std::size_t count, const key_refs& keys, const bulk_options& options,
                          batch_progress& progress) = 0;

    /// Parameters and fill, read while others may write; O(size).
    virtual filter_info info() const = 0;
    /// The fields of info() that do not depend on the contents, in O(1) (composites: O(parts)).
    virtual filter_info geometry() const = 0;
    /// A composite's part `index` (scalable: sub-filter, 0 = oldest; rotating: generation of that
    /// age, 0 = current; swappable: 0 = current, 1 = staged); a layout's only part is 0 (info()).
    /// Throws invalid_argument past info().parts.
    virtual filter_info part_info(std::uint32_t index) const;

    /// The bytes save(format) writes now (a scalable filter that grows, or a swap that is replaced,
    /// writes more after). Guava's format: classic filters only, else incompatible.
    virtual std::uint64_t serialized_size(file_format format) const;
    /// Writes the filter to sink; holds every add that completed before the call began.
    virtual void save(file_format format, const byte_sink& sink) const;
    /// A private copy of a layout in this process's memory (see each kind's copy()).
    virtual std::unique_ptr<dynamic_filter> copy() const;
    /// Same kind, mapping and contents (each kind's ==); false for different kinds.
    virtual bool equals(const dynamic_filter& other) const;
    /// Bloom and counting filters: other's keys into this one (each kind's merge, intersect).
    virtual void merge(const dynamic_filter& other);
    virtual void intersect(const dynamic_filter& other);
    /// Empties a layout; adds racing with it may be lost.
    virtual void clear();
    /// Writes a shared file's words to disk; nothing to do for other filters.
    virtual void flush() const {}
    /// A shared cuckoo filter's lock timeout (basic_cuckoo_filter::set_lock_timeout); nothing
    /// for other kinds, which never wait for another process. Not thread-safe.
    void set_lock_timeout(std::uint32_t milliseconds) noexcept {
        if (auto* f = get<cuckoo_filter>()) f->set_lock_timeout(milliseconds);
    }
    /// A Bloom layout's words, for callers that add and query them in place (which may write).
    virtual bit_words bit_array() const;

    /// The F this holds (a layout class, a scalable or rotating class, dynamic_swappable), or null.
    template <class F>
    F* get() noexcept;
    template <class F>
    const F* get() const noexcept {
        return const_cast<dynamic_filter*>(this)->get<F>();
    }

protected:
    explicit dynamic_filter(bool read_only) noexcept : read_only_(read_only) {}
    void writable() const {
        if (read_only_) throw error(errc::read_only, "the filter was opened read-only: it cannot be changed");
    }
    [[noreturn]] void not_offered(const char* what) const {
        throw error(errc::incompatible, std::string(kind_name(kind())) + " filters do not offer " + what);
    }

private:
    bool read_only_;
};

// The writes a kind does not offer refuse a read-only filter as such first, as those it offers do.
inline bool dynamic_filter::remove(key_view) {
    writable();
    not_offered("remove (counting and cuckoo filters do)");
}
inline std::uint32_t dynamic_filter::count(key_view) const { not_offered("count (counting and cuckoo filters do)"); }
inline filter_info dynamic_filter::part_info(std::uint32_t index) const {
    if (index != 0) throw error(errc::invalid_argument, "a filter of one part has no part " + std::to_string(index));
    return info();
}
inline std::uint64_t dynamic_filter::serialized_size(file_format) const { not_offered("a file format"); }
inline void dynamic_filter::save(file_format, const byte_sink&) const { not_offered("a file format"); }
inline std::unique_ptr<dynamic_filter> dynamic_filter::copy() const { not_offered("copies"); }
inline bool dynamic_filter::equals(const dynamic_filter&) const { not_offered("comparison"); }
inline void dynamic_filter::merge(const dynamic_filter&) {
    writable();
    not_offered("union");
}
inline void dynamic_filter::intersect(const dynamic_filter&) {
    writable();
    not_offered("intersection");
}
inline void dynamic_filter::clear() {
    writable();
    not_offered("clear");
}
inline bit_words dynamic_filter::bit_array() const { not_offered("a bit array (Bloom filters of one-bit slots do)"); }

/// The swappable filter of the one interface: it holds layouts behind dynamic_filter.
using dynamic_swappable = swappable_filter<dynamic_filter>;

namespace detail {

template <class F>
struct kind_traits {
    static constexpr filter_kind kind = F::kind;
};
template <class Sub>
struct kind_traits<basic_scalable_filter<Sub, default_sync>> {
    static constexpr filter_kind kind = filter_kind::scalable;
};
template <>
struct kind_traits<rotating_bloom_filter> {
    static constexpr filter_kind kind = filter_kind::rotating;
};
template <>
struct kind_traits<dynamic_swappable> {
    static constexpr filter_kind kind = filter_kind::swappable;
};

/// A filter_info's fields from a Bloom or counting filter's stats (or as_filter_stats' reduction).
inline filter_info info_of(const filter_stats& s, filter_kind kind, std::uint64_t seed) {
    filter_info v;
    v.kind = kind;
    v.sub_kind = s.kind;
    v.slots = s.slots;
    v.slot_bits = s.slot_bits;
    v.hashes = s.hashes;
    v.bytes = s.bytes;
    v.capacity = s.capacity;
    v.target_fpr = s.target_fpr;
    v.seed = seed;
    v.slots_set = s.slots_set;
    v.saturated = s.saturated;
    v.fill_ratio = s.fill_ratio;
    v.estimated_count = s.estimated_count;
    v.expected_fpr = s.estimated_fpr;
    v.near_capacity = s.near_capacity;
    return v;
}

/// A layout's shape (O(1)).
template <class F>
filter_info shape_of(const F& f) {
    const geometry g = f.shape();
    filter_info v;
    v.kind = v.sub_kind = F::kind;
    v.seed = f.seed();
    v.slots = g.slots;
    v.slot_bits = f.counter_bits();
    v.hashes = g.hashes;
    v.capacity = g.capacity;
    v.target_fpr = g.target_fpr;
    if constexpr (F::kind == layout::cuckoo) v.bytes = f.bytes();
    else v.bytes = f.words().size_bytes();
    return v;
}

/// Adds a part's shape (or fill) into a composite's sums.
inline void add_part(filter_info& total, const filter_info& part) {
    total.slots += part.slots;
    total.bytes += part.bytes;
    total.slots_set += part.slots_set;
    total.saturated += part.saturated;
    total.slot_bits = part.slot_bits;
    total.hashes = part.hashes;
    total.sub_kind = part.kind;
}

template <class F>
constexpr bool removes = requires(F& f, key_view k) { f.remove(k); };
/// A scalable cuckoo filter: its remove can be deferred or refused as ambiguous (erase tells).
template <class F>
constexpr bool erases = requires(F& f, key_view k) { f.erase(k); };
/// Filters of one-bit slots whose words may be handed out (bit_array).
template <class F>
constexpr bool bit_filter = requires(const F& f) {
    requires F::counter_bits() == 1;
    f.words();
    f.probes();
};

// ---- what each kind says of itself: the overloads held<F> forwards to -----------------------------
// describe(f): info() (O(size)); describe_shape(f): geometry() (O(1) per part); describe_part(f, i):
// part_info(i) of the kinds with parts. A new kind adds its overloads here, or none if a layout's
// stats() and shape() say all.

/// A Bloom or counting filter.
template <class F>
filter_info describe(const F& f) {
    return info_of(f.stats(), kind_traits<F>::kind, f.seed());
}
template <class F>
filter_info describe_shape(const F& f) {
    return shape_of(f);
}

inline filter_info describe(const cuckoo_filter& f) {
    const cuckoo_stats s = f.stats();
    filter_info v = info_of(as_filter_stats(s), filter_kind::cuckoo, f.seed());
    v.kicks = s.kicks;
    v.failed_adds = s.failed_inserts;
    v.duplicate_refusals = s.duplicate_refusals;
    v.reader_retries = s.reader_retries;
    v.reader_gave_up = s.reader_gave_up;
    return v;
}

/// A composite's own fields; the sums start at 0.
inline filter_info composite(filter_kind kind, std::uint64_t seed, double fpr, std::uint32_t parts) {
    filter_info v;
    v.kind = kind;
    v.seed = seed;
    v.target_fpr = fpr;
    v.parts = parts;
    return v;
}

template <class Sub>
filter_info describe(const basic_scalable_filter<Sub>& f) {
    filter_info v = info_of(f.stats(), filter_kind::scalable, f.seed());
    v.parts = f.filters();
    if constexpr (Sub::kind == layout::cuckoo) v.ambiguous_removes = f.ambiguous_removes();
    return v;
}
template <class Sub>
filter_info describe_shape(const basic_scalable_filter<Sub>& f) {
    filter_info v = composite(filter_kind::scalable, f.seed(), f.fpr(), f.filters());
    for (std::uint32_t i = 0; i < v.parts; ++i) {
        const filter_info part = shape_of(f.filter(i));
        add_part(v, part);
        v.capacity += part.capacity;
    }
    if constexpr (Sub::kind == layout::cuckoo) v.ambiguous_removes = f.ambiguous_removes();
    return v;
}
template <class Sub>
filter_info describe_part(const basic_scalable_filter<Sub>& f, std::uint32_t index) {
    const sub_filter_stats s = f.stats(index);
    filter_info v = info_of(s.filter, s.filter.kind, f.seed());
    v.items = s.items;
    return v;
}

inline filter_info describe_shape(const rotating_bloom_filter& f) {
    filter_info v = composite(filter_kind::rotating, f.seed(), f.fpr(), f.ring_size());
    v.capacity = f.capacity();
    v.generation = f.rotations();
    for (std::uint32_t age = 0; age < v.parts; ++age) add_part(v, shape_of(f.filter_at(age)));
    return v;
}
inline filter_info describe(const rotating_bloom_filter& f) {
    filter_info v = describe_shape(f);
    v.slots_set = v.saturated = 0;
    double miss = 1.0;
    for (std::uint32_t age = 0; age < f.ring_size(); ++age) {
        const filter_stats s = f.stats(age);
        v.slots_set += s.slots_set;
        if (age == 0) {
            v.estimated_count = s.estimated_count;
            v.near_capacity = s.near_capacity;
        }
        if (age < f.queried()) miss *= 1.0 - s.estimated_fpr;
    }
    v.fill_ratio = static_cast<double>(v.slots_set) / static_cast<double>(v.slots);
    v.expected_fpr = 1.0 - miss;
    return v;
}
inline filter_info describe_part(const rotating_bloom_filter& f, std::uint32_t age) {
    return info_of(f.stats(age), filter_kind::blocked, f.seed());
}

/// A swappable filter's info or geometry: its current filter's, under its own kind.
inline filter_info as_swap(const dynamic_swappable& f, filter_info v, const dynamic_swappable::guard& pinned) {
    v.sub_kind = v.kind;
    v.kind = filter_kind::swappable;
    v.parts = pinned.staged() != nullptr && pinned.staged() != &*pinned ? 2 : 1;
    v.generation = f.generation();
    return v;
}
inline filter_info describe(const dynamic_swappable& f) {
    const auto pinned = f.pin();
    return as_swap(f, pinned->info(), pinned);
}
inline filter_info describe_shape(const dynamic_swappable& f) {
    const auto pinned = f.pin();
    return as_swap(f, pinned->geometry(), pinned);
}
inline filter_info describe_part(const dynamic_swappable& f, std::uint32_t index) {
    const auto pinned = f.pin();
    if (index == 0) return pinned->info();
    if (index == 1 && pinned.staged() != nullptr) return pinned.staged()->info();
    throw error(errc::invalid_argument, index == 1 ? "nothing is staged" : "a swappable filter has parts 0 and 1 only");
}

// A swappable filter's batches and file: its current filter's, and a swap's adds go to its
// staged filter too.
template <class Keys>
void run_batch(const dynamic_swappable& f, batch_op op, std::size_t n, const Keys& keys, std::uint8_t* results, batch_progress& p) {
    const auto pinned = f.pin();
    dynamic_filter* staged = pinned.staged();
    switch (op) {
        case batch_op::contains: return pinned->run(op, n, keys, results, p);
        case batch_op::add: {
            // During a publish a writer may see staged == current (swappable_filter::add): one add then.
            batch_progress ignored;
            if (staged != nullptr && staged != &*pinned) staged->run(op, n, keys, nullptr, ignored);
            return pinned->run(op, n, keys, results, p);
        }
        case batch_op::add_staged:
            if (staged == nullptr) throw error(errc::invalid_argument, "nothing is staged to rebuild");
            return staged->run(batch_op::add, n, keys, results, p);
        case batch_op::remove: throw error(errc::incompatible, "swappable filters do not offer remove");
    }
    throw error(errc::invalid_argument, "not a batch operation: " + std::to_string(static_cast<std::uint32_t>(op)));
}
template <class Keys>
void run_bulk_batch(const dynamic_swappable& f, batch_op op, std::size_t n, const Keys& keys, const bulk_options& o, batch_progress& p) {
    const auto pinned = f.pin();
    dynamic_filter* staged = pinned.staged();
    if (op == batch_op::add_staged) {
        if (staged == nullptr) throw error(errc::invalid_argument, "nothing is staged to rebuild");
        return staged->run_bulk(batch_op::add, n, keys, o, p);
    }
    batch_progress ignored;  // as run_batch: the staged filter first, then the current one
    if (staged != nullptr && staged != &*pinned) staged->run_bulk(op, n, keys, o, ignored);
    return pinned->run_bulk(op, n, keys, o, p);
}
inline std::uint64_t serialized_size(const dynamic_swappable& f, file_format format) { return f.pin()->serialized_size(format); }
inline void save(const dynamic_swappable& f, file_format format, const byte_sink& sink) { f.pin()->save(format, sink); }
inline void flush(const dynamic_swappable& f) { f.pin()->flush(); }  // its current filter may be a shared file

/// dynamic_filter over one F: plain forwarding to F's members and the overloads above, by what F
/// offers (no kind is named here).
template <class F>
class held final : public dynamic_filter {
    static constexpr filter_kind kind_v = kind_traits<F>::kind;

public:
    template <class... Args>
    explicit held(bool read_only, Args&&... args) : dynamic_filter(read_only), f_(std::forward<Args>(args)...) {}

    F& filter() noexcept { return f_; }

    filter_kind kind() const noexcept override { return kind_v; }

    bool add(key_view key) override {
        writable();
        return f_.add(key);
    }
    bool contains(key_view key) const override { return f_.contains(key); }
    bool remove(key_view key) override {
        if constexpr (erases<F>) {
            writable();
            return removed(f_.erase(key));
        } else if constexpr (removes<F>) {
            writable();
            return f_.remove(key);
        } else {
            return dynamic_filter::remove(key);
        }
    }
    std::uint32_t count(key_view key) const override {
        if constexpr (removes<F>) return f_.count(key);
        else return dynamic_filter::count(key);
    }

    void run(batch_op op, std::size_t n, const packed_keys& keys, std::uint8_t* results, batch_progress& p) override {
        run_keys(op, n, keys, results, p);
    }
    void run(batch_op op, std::size_t n, const key_refs& keys, std::uint8_t* results, batch_progress& p) override {
        run_keys(op, n, keys, results, p);
    }
    void run_bulk(batch_op op, std::size_t n, const packed_keys& keys, const bulk_options& o, batch_progress& p) override {
        bulk_keys(op, n, keys, o, p);
    }
    void run_bulk(batch_op op, std::size_t n, const key_refs& keys, const bulk_options& o, batch_progress& p) override {
        bulk_keys(op, n, keys, o, p);
    }

    filter_info info() const override { return describe(f_); }
    filter_info geometry() const override { return describe_shape(f_); }
    filter_info part_info(std::uint32_t index) const override {
        if constexpr (requires { describe_part(f_, index); }) return describe_part(f_, index);
        else return dynamic_filter::part_info(index);
    }

    std::uint64_t serialized_size(file_format format) const override {
        if constexpr (requires { detail::serialized_size(f_, format); }) return detail::serialized_size(f_, format);
        else if (format == file_format::parquet) return parquet_bitset_size(parquet_filter());
        else return format == file_format::native ? lfbloom::serialized_size(f_) : guava_size(guava_filter(format));
    }
    void save(file_format format, const byte_sink& sink) const override {
        if constexpr (requires { detail::save(f_, format, sink); }) detail::save(f_, format, sink);
        else if (format == file_format::parquet) save_parquet_bitset(parquet_filter(), sink);
        else format == file_format::native ? lfbloom::save(f_, sink) : save_guava(guava_filter(format), sink);
    }

    std::unique_ptr<dynamic_filter> copy() const override {
        if constexpr (requires { f_.copy(); }) return std::make_unique<held>(false, f_.copy());
        else return dynamic_filter::copy();
    }
    bool equals(const dynamic_filter& other) const override {
        if constexpr (requires { f_ == f_; }) {
            const F* o = other.get<F>();
            return o != nullptr && f_ == *o;
        } else {
            return dynamic_filter::equals(other);
        }
    }
    void merge(const dynamic_filter& other) override {
        if constexpr (requires(F& f) { f.merge(f_); }) {
            writable();
            f_.merge(same_kind(other));
        } else {
            dynamic_filter::merge(other);
        }
    }
    void intersect(const dynamic_filter& other) override {
        if constexpr (requires(F& f) { f.intersect(f_); }) {
            writable();
            f_.intersect(same_kind(other));
        } else {
            dynamic_filter::intersect(other);
        }
    }
    void clear() override {
        if constexpr (requires(F& f) { f.clear(); }) {
            writable();
            f_.clear();
        } else {
            dynamic_filter::clear();
        }
    }
    void flush() const override {
        if constexpr (requires { detail::flush(f_); }) detail::flush(f_);
        else if constexpr (requires { f_.flush(); }) f_.flush();
    }
    bit_words bit_array() const override {
        if constexpr (bit_filter<F>) {
            writable();  // whoever takes the words may add through them
            return {f_.words().data(), f_.shape().slots, f_.seed(), f_.shape().hashes, f_.probes(), kind_v};
        } else {
            return dynamic_filter::bit_array();
        }
    }

private:
    /// A deferred remove is done as far as the caller goes (repeating it would take another
    /// key's copy): it answers true, as a removed one.
    static bool removed(remove_status r) {
        if (r == remove_status::ambiguous)
            throw error(errc::ambiguous, "the key matches in more than one sub-filter and the list of pending removes "
                                         "is full: removing a copy could remove another key's, so nothing was removed");
        return r == remove_status::removed || r == remove_status::deferred;
    }

    template <class Keys>
    void run_keys(batch_op op, std::size_t n, const Keys& keys, std::uint8_t* results, batch_progress& p) {
        p = {};
        if constexpr (requires { run_batch(f_, op, n, keys, results, p); }) {
            return run_batch(f_, op, n, keys, results, p);
        } else {
            switch (op) {
                case batch_op::contains:
                    p.positive = f_.contains_many(n, keys, results);
                    p.done = n;
                    return;
                case batch_op::add:
                    writable();
                    f_.add_many(n, keys, results, &p);
                    return;
                case batch_op::remove:
                    writable();
                    if constexpr (erases<F>) {
                        for (; p.done < n; ++p.done) {  // not grouped: an ambiguous key must stop the batch where it is
                            const bool gone = removed(f_.erase(keys(p.done)));
                            if (results != nullptr) results[p.done] = gone;
                            p.positive += gone;
                        }
                    } else if constexpr (removes<F>) {
                        f_.remove_many(n, keys, results, &p);  // a shared cuckoo filter's may throw timeout: p says how far
                    } else {
                        not_offered("remove");
                    }
                    return;
                case batch_op::add_staged: not_offered("a staged filter (swappable filters do)");
            }
        }
        throw error(errc::invalid_argument, "not a batch operation: " + std::to_string(static_cast<std::uint32_t>(op)));
    }

    template <class Keys>
    void bulk_keys(batch_op op, std::size_t n, const Keys& keys, const bulk_options& o, batch_progress& p) {
        p = {};
        if (op != batch_op::add && op != batch_op::add_staged)
            throw error(errc::invalid_argument, "a bulk build adds keys (add or add_staged), not operation " +
                                                    std::to_string(static_cast<std::uint32_t>(op)));
        if constexpr (requires { run_bulk_batch(f_, op, n, keys, o, p); }) {
            return run_bulk_batch(f_, op, n, keys, o, p);
        } else {
            if (op == batch_op::add_staged) not_offered("a staged filter (swappable filters do)");
            writable();
            if constexpr (requires { f_.add_bulk(n, keys, o); }) {
                f_.add_bulk(n, keys, o);
                p.done = n;
            } else {
                f_.add_many(n, keys, nullptr, &p);
                p.positive = 0;
            }
        }
    }

    const classic_bloom_filter& guava_filter(file_format format) const {
        if (format != file_format::guava && format != file_format::native)
            throw error(errc::invalid_argument, "not a file format: " + std::to_string(static_cast<std::uint32_t>(format)));
        if constexpr (requires(const byte_sink& sink) { save_guava(f_, sink); }) return f_;
        else throw error(errc::incompatible, "only classic-layout filters can be saved in Guava's format");
    }

    const split_block_bloom_filter& parquet_filter() const {
        if constexpr (requires(const byte_sink& sink) { save_parquet_bitset(f_, sink); }) return f_;
        else throw error(errc::incompatible, "only split-block filters can be saved as a Parquet bitset");
    }

    const F& same_kind(const dynamic_filter& other) const {
        const F* o = other.get<F>();
        if (o == nullptr) throw error(errc::incompatible, "the filters are of different kinds");
        return *o;
    }

    F f_;
};

/// Every class held<F> wraps (make_dynamic, make_filter, the loaders, make_swappable): the
/// layouts' and these composites.
#define LFBLOOM_COMPOSITE_CLASSES (scalable_bloom_filter)(scalable_cuckoo_filter)(rotating_bloom_filter)(dynamic_swappable)
#define LFBLOOM_HELD_CLASSES LFBLOOM_LAYOUT_CLASSES LFBLOOM_COMPOSITE_CLASSES
#ifdef LFBLOOM_SEPARATE_DYNAMIC  // in the source too: each of its parts instantiates its own classes after this
#define LFBLOOM_DETAIL_EXTERN_HELD(r, data, F) extern template class held<F>;
BOOST_PP_SEQ_FOR_EACH(LFBLOOM_DETAIL_EXTERN_HELD, _, LFBLOOM_HELD_CLASSES)
#undef LFBLOOM_DETAIL_EXTERN_HELD
#endif

}  // namespace detail

template <class F>
F* dynamic_filter::get() noexcept {
    auto* h = dynamic_cast<detail::held<F>*>(this);
    return h == nullptr ? nullptr : &h->filter();
}

/// The one interface over `filter` (any layout class, scalable_bloom_filter,
/// scalable_cuckoo_filter or rotating_bloom_filter). read_only: see dynamic_filter::read_only.
template <class F>
std::unique_ptr<dynamic_filter> make_dynamic(F filter, bool read_only = false) {
    return std::make_unique<detail::held<F>>(read_only, std::move(filter));
}

/// The one interface over whichever layout `any` holds (a loaded or mapped filter).
inline std::unique_ptr<dynamic_filter> make_dynamic(any_filter any, bool read_only = false) {
    return std::visit([&](auto& f) { return make_dynamic(std::move(f), read_only); }, any);
}

/// A swappable filter over `initial`: a writable Bloom or counting filter (a swap's adds go to two
/// filters at once, and a cuckoo filter's could be refused in one of them); stage() and replace()
/// on it (get<dynamic_swappable>()) take the same. Throws incompatible or read_only for others.
inline void check_swappable(const dynamic_filter& f) {
    if (f.read_only()) throw error(errc::read_only, "a swappable filter adds to what it holds: not to a read-only one");
    if (!is_layout(f.kind()) || f.kind() == filter_kind::cuckoo)
        throw error(errc::incompatible, "a swappable filter holds Bloom and counting filters (a cuckoo filter's adds can be refused)");
}
/// `initial` is moved from only once nothing can fail: on an exception it is the caller's still.
inline std::unique_ptr<dynamic_filter> make_swappable(std::unique_ptr<dynamic_filter>&& initial) {
    if (!initial) throw error(errc::invalid_argument, "the filter is null");
    check_swappable(*initial);
    return std::make_unique<detail::held<dynamic_swappable>>(false, std::move(initial));
}

// ---- making, loading and opening a filter of any kind ------------------------------------------
// Inline, or declared only where the program compiles them apart (LFBLOOM_SEPARATE_DYNAMIC, above).

/// A set of kinds, bit k for filter_kind k: what a loader accepts.
using kind_set = std::uint32_t;
inline constexpr kind_set all_kinds = ~kind_set{0};
constexpr kind_set kinds(std::initializer_list<filter_kind> members) noexcept {
    kind_set set = 0;
    for (const filter_kind k : members) set |= kind_set{1} << static_cast<std::uint32_t>(k);
    return set;
}

/// What the header of a saved filter says (saved_header_of).
struct saved_header {
    std::uint64_t bytes;  ///< the whole saved filter's length, header included
    filter_kind kind;
    filter_kind sub_kind;  ///< what info() will report as sub_kind: a composite's parts' kind, else kind
};

/// The length and kind of the saved filter whose first bytes are `head` (at least header_size, or
/// guava_header_size for Guava's format, whose filters are classic), from its validated header, so
/// a reader can take exactly one filter from a stream, and refuse a kind it does not want before
/// reading the rest. Throws corrupt (also for a head too short), unsupported_version, or
/// too_large past memory_limit (0 = none). Allocates nothing.
inline saved_header saved_header_of(file_format format, std::span<const std::byte> head, std::uint64_t memory_limit = 0) {
    if (format == file_format::parquet)
        throw error(errc::invalid_argument, "a Parquet bitset has no header: its length is numBytes of the BloomFilterHeader before it");
    if (format == file_format::guava)
        return {guava_header_size + read_guava_header(span_source(head), memory_limit).words * 8, filter_kind::classic, filter_kind::classic};
    if (format != file_format::native)
        throw error(errc::invalid_argument, "not a file format: " + std::to_string(static_cast<std::uint32_t>(format)));
    const native_head first = read_head(span_source(head));
    if (is_composite(first)) {
        const composite_header c = composite_header_of(first, memory_limit);
        return {c.bytes, c.kind, c.parts_layout};
    }
    const file_header h = file_header_of(first, memory_limit);
    return {header_size + h.payload_bytes + trailer_size, h.kind, h.kind};
}

/// How open_shared treats the file (shared_memory.hpp says what each does).
enum class open_mode {
    read_write,      ///< open an existing file
    read_only,       ///< open an existing file mapped read-only: read permission is enough
    open_or_create,  ///< create it from the spec if it does not exist, else open it
    create,          ///< create it; io if it exists
};

/// A new filter as `spec` describes it. Throws invalid_argument (a value outside its domain; the
/// composites' own fields checked as their classes do), too_large or out_of_memory.
LFBLOOM_DYNAMIC_DECL std::unique_ptr<dynamic_filter> make_filter(const filter_spec& s);

/// The layout make_filter(spec) would make, described without making it: shape, bytes,
/// capacity, rate, seed, estimated_count = capacity and expected_fpr at it; fill fields 0. Throws
/// as make_filter does for a bad spec (but ignores memory_limit); composites: invalid_argument.
LFBLOOM_DYNAMIC_DECL filter_info plan(const filter_spec& s);

/// Whatever filter `source` holds in `format` (native: any layout; guava: classic; parquet: a
/// split-block filter of exactly `available` bytes, which must be known), validated before
/// anything is allocated (see serialization.hpp); a kind outside `accepted` is refused
/// (incompatible) as soon as the header is read.
LFBLOOM_DYNAMIC_DECL std::unique_ptr<dynamic_filter> load_filter(file_format format, const byte_source& source, std::uint64_t memory_limit = 0,
                                                                 std::uint64_t available = unknown_length, kind_set accepted = all_kinds);

/// The filter in the shared file at `path`. With a spec the file must hold what make_filter(spec)
/// would make (kind, size, seed, counter width; a cuckoo spec that leaves the width to the rate
/// also takes a file it made with another), else incompatible; without one (opening only) whatever
/// it holds, refused past memory_limit (a spec carries its own). A new file gets `mode` less the
/// umask. spec->process_shared must be false.
LFBLOOM_DYNAMIC_DECL std::unique_ptr<dynamic_filter> open_shared(const std::string& path, const filter_spec* spec, open_mode how,
                                                                 ::mode_t mode = default_file_mode, std::uint64_t memory_limit = 0);

#if LFBLOOM_DYNAMIC_DEFINED_HERE

namespace detail {

/// Calls fn.template operator()<F>() for the layout class F of `kind` (with_file_layout).
template <class R, class Fn>
R with_layout(filter_kind kind, Fn fn) {
    if (!is_layout(kind))
        throw error(errc::invalid_argument, "not a layout: " + std::to_string(static_cast<std::uint32_t>(kind)));
    return with_file_layout<R>(kind, fn);
}

inline std::uint32_t counting_width(const filter_spec& s) { return s.counter_bits == 0 ? 4 : s.counter_bits; }

/// The geometry make_filter(s) gives layout F, without allocating: sized for (capacity, fpr), or
/// the exact (slots, hashes) when slots is set.
template <class F>
geometry spec_geometry(const filter_spec& s) {
    constexpr bool counting = F::kind == layout::counting, cuckoo = F::kind == layout::cuckoo;
    if (s.slots == 0) {
        if (s.hashes != 0) throw error(errc::invalid_argument, "hashes is set but slots is not (give both for an exact geometry)");
        if constexpr (counting) return F::size_for(s.capacity, s.fpr, counting_width(s));
        else if constexpr (cuckoo) return F::size_for(s.capacity, s.fpr, s.counter_bits);
        else return F::size_for(s.capacity, s.fpr);
    }
    if (s.capacity != 0 || s.fpr != 0) throw error(errc::invalid_argument, "the spec gives both a geometry (slots) and a sizing (capacity, fpr)");
    if constexpr (counting) return F::exact(s.slots, s.hashes, counting_width(s));
    else if constexpr (cuckoo) throw error(errc::invalid_argument, "a cuckoo filter is sized from capacity and fpr, not slots");
    else return F::exact(s.slots, s.hashes);
}

inline filter_options options_of(const filter_spec& s) {
    return {.memory_limit = s.memory_limit, .seed = s.seed, .process_shared = s.process_shared};
}

/// A composite's options, after refusing what composites do not take.
inline filter_options composite_options(const filter_spec& s) {
    if (s.process_shared) throw error(errc::invalid_argument, "only layouts can be process-shared");
    if (s.slots != 0 || s.hashes != 0) throw error(errc::invalid_argument, "composites are sized from capacity and fpr, not slots");
    return options_of(s);
}

inline std::unique_ptr<dynamic_filter> make_scalable(const filter_spec& s) {
    scalable_options o;
    o.filter = composite_options(s);
    if (s.growth != 0) o.growth = s.growth;
    if (s.tightening != 0) o.tightening = s.tightening;
    if (s.max_filters != 0) o.max_filters = s.max_filters;
    if (s.sub_kind == filter_kind::cuckoo) return std::make_unique<held<scalable_cuckoo_filter>>(false, s.capacity, s.fpr, o);
    if (s.sub_kind != filter_kind::blocked) throw error(errc::invalid_argument, "a scalable filter's sub-filters are blocked or cuckoo");
    return std::make_unique<held<scalable_bloom_filter>>(false, s.capacity, s.fpr, o);
}

inline std::unique_ptr<dynamic_filter> make_rotating(const filter_spec& s) {
    rotating_options o;
    o.filter = composite_options(s);
    if (s.generations != 0) o.generations = s.generations;
    o.double_write = s.double_write;
    o.period_ns = s.period_ns;
    o.manual_clock = s.manual_clock;
    return std::make_unique<held<rotating_bloom_filter>>(false, s.capacity, s.fpr, std::move(o));
}

inline void check_accepted(filter_kind kind, kind_set accepted) {
    if ((accepted >> static_cast<std::uint32_t>(kind) & 1) == 0)
        throw error(errc::incompatible, std::string("the data holds a ") + kind_name(kind) + " filter, which this call does not take");
}

}  // namespace detail

LFBLOOM_DYNAMIC_DECL std::unique_ptr<dynamic_filter> make_filter(const filter_spec& s) {
    if (s.kind == filter_kind::scalable) return detail::make_scalable(s);
    if (s.kind == filter_kind::rotating) return detail::make_rotating(s);
    if (s.kind == filter_kind::swappable)
        throw error(errc::invalid_argument, "a swappable filter is made over a filter (make_swappable)");
    return detail::with_layout<std::unique_ptr<dynamic_filter>>(s.kind, [&]<class F>() {
        const geometry g = detail::spec_geometry<F>(s);
        if constexpr (F::kind == layout::counting) return make_dynamic(F(g, detail::counting_width(s), detail::options_of(s)));
        else if constexpr (F::kind == layout::cuckoo)
            return make_dynamic(F::for_capacity(s.capacity, s.fpr, s.counter_bits, detail::options_of(s)));
        else return make_dynamic(F(g, detail::options_of(s)));
    });
}

LFBLOOM_DYNAMIC_DECL filter_info plan(const filter_spec& s) {
    if (!is_layout(s.kind)) throw error(errc::invalid_argument, "plan() describes layouts: plan a composite's sub-filters instead");
    const filter_stats p = detail::with_layout<filter_stats>(s.kind, [&]<class F>() {
        const geometry g = detail::spec_geometry<F>(s);
        if constexpr (F::kind == layout::counting) return F::plan(g, detail::counting_width(s));
        else if constexpr (F::kind == layout::cuckoo) return F::plan(s.capacity, s.fpr, s.counter_bits);
        else return F::plan(g);
    });
    return detail::info_of(p, s.kind, s.seed);
}

LFBLOOM_DYNAMIC_DECL std::unique_ptr<dynamic_filter> load_filter(file_format format, const byte_source& source, std::uint64_t memory_limit,
                                                                 std::uint64_t available, kind_set accepted) {
    if (format == file_format::guava) {
        detail::check_accepted(filter_kind::classic, accepted);
        return make_dynamic(load_guava(source, memory_limit, available));
    }
    if (format == file_format::parquet) {
        detail::check_accepted(filter_kind::split_block, accepted);
        if (available == unknown_length)
            throw error(errc::invalid_argument, "a Parquet bitset has no header: its length (numBytes of its BloomFilterHeader) "
                                                "must be known, as it is for a buffer or a regular file, not a pipe");
        return make_dynamic(load_parquet_bitset(source, available, memory_limit, available));
    }
    if (format != file_format::native)
        throw error(errc::invalid_argument, "not a file format: " + std::to_string(static_cast<std::uint32_t>(format)));
    const native_head head = read_head(source);
    if (is_composite(head)) {
        const composite_header c = composite_header_of(head, memory_limit, available);
        detail::check_accepted(c.kind, accepted);
        const std::uint64_t rest = available == unknown_length ? available : available - header_size;
        auto make = [&]<class F>() {
            return [](auto&&... args) -> std::unique_ptr<dynamic_filter> { return std::make_unique<detail::held<F>>(false, std::move(args)...); };
        };
        if (c.kind == filter_kind::rotating)
            return load_rotating_with(c, source, memory_limit, rest, {}, make.template operator()<rotating_bloom_filter>());
        if (c.parts_layout == layout::cuckoo)
            return load_scalable_with<cuckoo_filter>(c, source, memory_limit, rest, make.template operator()<scalable_cuckoo_filter>());
        return load_scalable_with<blocked_bloom_filter>(c, source, memory_limit, rest, make.template operator()<scalable_bloom_filter>());
    }
    const file_header h = file_header_of(head, memory_limit, available);
    detail::check_accepted(h.kind, accepted);
    return detail::with_layout<std::unique_ptr<dynamic_filter>>(
        h.kind, [&]<class F>() { return make_dynamic(load_payload<F>(h, source, memory_limit, available)); });
}

LFBLOOM_DYNAMIC_DECL std::unique_ptr<dynamic_filter> open_shared(const std::string& path, const filter_spec* spec, open_mode how,
                                                                 ::mode_t mode, std::uint64_t memory_limit) {
    const bool creates = how == open_mode::open_or_create || how == open_mode::create;
    const bool writable = how != open_mode::read_only;
    if (creates) detail::check_mode(mode);
    if (spec == nullptr) {
        if (creates) throw error(errc::invalid_argument, "creating a shared file needs a spec");
        return make_dynamic(detail::map_shared_file(path, memory_limit, writable), !writable);
    }
    if (spec->process_shared) throw error(errc::invalid_argument, "a shared file is shared already: process_shared must be false");
    if (!is_layout(spec->kind))  // docs/FORMAT.md: composites in shared files
        throw error(errc::invalid_argument, std::string("a ") + kind_name(spec->kind) +
                                                " filter does not live in a shared file (its growth or rotation would have to be shared "
                                                "between processes): save and load it instead");
    const filter_options o = detail::options_of(*spec);
    return detail::with_layout<std::unique_ptr<dynamic_filter>>(spec->kind, [&]<class F>() {
        const geometry g = detail::spec_geometry<F>(*spec);
        constexpr bool cuckoo = F::kind == layout::cuckoo;
        const std::uint32_t width = cuckoo ? 4 : detail::counting_width(*spec);
        if (how == open_mode::create) return make_dynamic(create_shared_file<F>(path, g, o, width, mode));
        if (how == open_mode::open_or_create) {
            if constexpr (cuckoo) return make_dynamic(open_or_create_shared_cuckoo(path, spec->capacity, spec->fpr, spec->counter_bits, o, mode));
            else return make_dynamic(open_or_create_shared_file<F>(path, g, o, width, mode));
        }
        any_filter any = detail::map_shared_file(path, o.memory_limit, writable);
        if constexpr (cuckoo) (void)detail::expect_cuckoo(any, path, spec->capacity, spec->fpr, spec->counter_bits, o);
        else (void)detail::expect_filter<F>(any, path, g, o, width);
        return make_dynamic(std::move(any), !writable);
    });
}

#endif  // LFBLOOM_DYNAMIC_DEFINED_HERE

}  // namespace lfbloom
