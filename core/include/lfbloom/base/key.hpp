// Keys and the key-level API every filter shares (single and batch add/contains), written once
// over each filter's hash-level operations.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <ranges>
#include <span>
#include <string_view>
#include <type_traits>
#include <utility>

#include <boost/endian/conversion.hpp>

#include "lfbloom/base/murmur3.hpp"
#include "lfbloom/base/simd.hpp"
#include "lfbloom/filters/bulk.hpp"

namespace lfbloom {

/// A key is any run of bytes; it is hashed, never stored.
using key_view = std::span<const std::byte>;

/// The UTF-8 (or any) bytes of a string, as a key.
inline key_view as_key(std::string_view s) noexcept { return std::as_bytes(std::span(s.data(), s.size())); }

/// The customization point for keys of any type: key_traits<T>::with_bytes(key, fn) calls
/// fn(key_view) with the bytes a T is hashed as, and returns what fn returns. The bytes may live
/// in a local buffer (they are hashed, never stored). Specialize it for your own types, e.g. a
/// struct of two ids as their 16 little-endian bytes; keys that should find each other in another
/// language must hash the same bytes there. lfbloom's own: byte spans (key_view) as they are,
/// anything a std::string_view is made from (std::string, literals) as its bytes (a char array or
/// pointer as a NUL-terminated string, as string_view reads it: give binary keys as a key_view),
/// and integers of at most 64 bits (but bool and the character types) as the 8 little-endian bytes
/// of their 64-bit two's-complement value, as Guava's Funnels.longFunnel() and Java's and Go's
/// uint64 keys, so 5, 5u and 5ULL are one key.
template <class T, class Enable = void>
struct key_traits {};

template <>
struct key_traits<key_view> {
    template <class Fn>
    static decltype(auto) with_bytes(key_view key, Fn&& fn) {
        return fn(key);
    }
};

template <class T>
struct key_traits<T, std::enable_if_t<std::is_convertible_v<const T&, std::string_view> && !std::is_same_v<T, key_view>>> {
    template <class Fn>
    static decltype(auto) with_bytes(const T& key, Fn&& fn) {
        return fn(as_key(std::string_view(key)));
    }
};

template <class T>
struct key_traits<T, std::enable_if_t<std::is_integral_v<T> && sizeof(T) <= 8 && !std::is_same_v<T, bool> && !std::is_same_v<T, char> &&
                                      !std::is_same_v<T, wchar_t> && !std::is_same_v<T, char8_t> &&
                                      !std::is_same_v<T, char16_t> && !std::is_same_v<T, char32_t>>> {
    template <class Fn>
    static decltype(auto) with_bytes(T key, Fn&& fn) {
        const std::uint64_t le = boost::endian::native_to_little(static_cast<std::uint64_t>(key));
        return fn(std::as_bytes(std::span(&le, 1)));
    }
};

/// A type key_traits knows: what every filter's add, contains, remove and count take.
template <class T>
concept hashable_key = requires(const T& key) {
    key_traits<std::remove_cvref_t<T>>::with_bytes(key, [](key_view) { return 0; });
};

/// A range of keys, for the batch calls over ranges.
template <class R>
concept key_range = std::ranges::input_range<R> && hashable_key<std::ranges::range_reference_t<R>>;

/// Batch calls work in groups of this many keys: hash them all, prefetch their lines, then probe,
/// so the group's cache misses overlap. 64 was measured best (bench/prefetch_tune.cpp, in
/// docs/PERFORMANCE.md) for every layout at 62 MB and 2 GiB, against groups of 8-32, a rolling
/// prefetch 8-32 keys ahead, and groups pipelined one ahead. A core holds only 10-16 misses, but
/// the prefetches beyond wait their turn harmlessly; adds ran 1.4-1.5x slower at 2 GiB under any
/// rolling schedule (their locked ORs seem to wait for the prefetches issued just before them).
inline constexpr std::size_t batch_size = 64;

/// How far a batch got: the keys it processed and, of those, the ones answered 1 (new, present,
/// removed). A batch stopped by a refused add (a full cuckoo or scalable filter) has done = the
/// refused key's index: the keys before it were added, it and the rest were not.
struct batch_progress {
    std::uint64_t done = 0;
    std::uint64_t positive = 0;
};

/// CRTP base: Filter provides seed(), add_hash(h), contains_hash(h) and prefetch(h, for_write),
/// and optionally on_key_call(), run once at the start of every key-level call or batch (a
/// rotating filter reads its clock there, once per batch instead of once per key).
/// Every member has the thread-safety of the Filter member it calls (all lock-free, see there).
/// Adds are noexcept when Filter::add_hash is (a scalable filter's may throw full, or
/// out_of_memory while building a sub-filter; a cuckoo filter's full or too_many_duplicates).
template <class Filter>
class key_operations {
    static constexpr bool nothrow_add() noexcept { return noexcept(std::declval<Filter&>().add_hash(hash128{})); }

public:
    /// MurmurHash3 x64_128 of the key's bytes (key_traits) with the filter's seed, unless Filter
    /// has a static key_hash(data, size, seed) of its own (split-block filters: XXH64).
    hash128 hash(key_view key) const noexcept { return hash_bytes(key.data(), key.size()); }
    template <hashable_key K>
    hash128 hash(const K& key) const noexcept {
        return key_traits<std::remove_cvref_t<K>>::with_bytes(key, [&](key_view bytes) { return hash(bytes); });
    }

    /// Adds a key; true if it was new (some slot changed from empty). See Filter::add_hash.
    /// flatten, as grouped() below: the hash and probe inlined whatever the caller's size (in the C
    /// library, which instantiates every kind, GCC left the probe loop out of line and a single
    /// query in cache took 23.6 instead of 21.4 ns).
    LFBLOOM_FLATTEN bool add(key_view key) noexcept(nothrow_add()) { return entered().add_hash(hash(key)); }
    template <hashable_key K>
    bool add(const K& key) noexcept(nothrow_add()) {
        return entered().add_hash(hash(key));
    }

    /// True if the key may have been added; false means it certainly was not.
    LFBLOOM_FLATTEN bool contains(key_view key) const noexcept { return entered().contains_hash(hash(key)); }
    template <hashable_key K>
    bool contains(const K& key) const noexcept {
        return entered().contains_hash(hash(key));
    }

    /// Adds `count` keys, `key_at(i)` giving the i-th as a key_view; writes 1/0 ("new") to
    /// `added[i]` when `added` is not null. Returns how many were new. If an add throws, the keys
    /// before it were added and the rest were not, and `progress` (if given) says how far it got:
    /// it is kept up to date key by key only where adds can throw, else written once at the end.
    template <class KeyAt>
    std::uint64_t add_many(std::size_t count, KeyAt&& key_at, std::uint8_t* added = nullptr,
                           batch_progress* progress = nullptr) noexcept(nothrow_add()) {
        return add_grouped(indexed(count, key_at), added, progress);
    }
    std::uint64_t add_many(std::span<const key_view> keys, std::uint8_t* added = nullptr) noexcept(nothrow_add()) {
        return add_many(keys.size(), [&](std::size_t i) { return keys[i]; }, added);
    }
    /// add_many over any range of keys key_traits knows (a vector of strings, a view of ids, ...):
    /// added[i] answers for the i-th key the range yields.
    template <key_range R>
    std::uint64_t add_many(R&& keys, std::uint8_t* added = nullptr, batch_progress* progress = nullptr) noexcept(nothrow_add()) {
        return add_grouped(from_range(keys), added, progress);
    }

    /// Adds `count` keys, `key_at(i)` giving the i-th, in a bulk build with `options.threads`
    /// threads (bulk.hpp): hashed once, filed by partition, set partition by partition in a private
    /// copy of the filter with plain stores, merged into the filter in order at the end (a filter
    /// of at most 2 MiB: each thread's keys set straight into a copy of its own). Afterwards
    /// the filter holds exactly the bits (the counts) the same adds one by one would give it.
    /// key_at is called from several threads at once (a lambda reading an array is fine; with
    /// more than one thread, none of them is the calling thread). No answer per key.
    /// Thread safety: as add's, beside any other call on this filter from any thread or process;
    /// every key is present when it returns (its threads are joined). A query racing with it may
    /// see some of the keys and not others, and a key's bits word by word as a racing add's.
    /// Throws invalid_argument for more than bulk_max_threads threads, out_of_memory (its private
    /// copy of the filter, its buffers: bulk_options::buffer_bytes bounds them; up to 2 MiB, a
    /// copy a thread and no buffers, a thread per 65,536 keys at most) or what key_at
    /// throws, with no key added (keys reach the filter in one merge at the end). Few keys for the
    /// filter's size (fewer than a word per 16) go through add_many instead, one slice a thread.
    template <class KeyAt>
    void add_bulk(std::size_t count, KeyAt&& key_at, const bulk_options& options = {})
        requires requires { typename Filter::bulk_item; }
    {
        Filter& f = entered();
        if (count * f.bulk_items_per_key() >= f.words().size() / 16) return detail::bulk_add(f, count, key_at, options);
        const unsigned threads = std::max<unsigned>(1, std::min<std::size_t>(detail::bulk_threads(options), count));
        detail::run_parallel(threads, [&](unsigned t) {
            const std::size_t begin = count * t / threads, end = count * (t + 1) / threads;
            f.add_many(end - begin, [&](std::size_t i) { return key_at(begin + i); });
        });
    }
    void add_bulk(std::span<const key_view> keys, const bulk_options& options = {})
        requires requires { typename Filter::bulk_item; }
    {
        add_bulk(keys.size(), [&](std::size_t i) { return keys[i]; }, options);
    }

    /// Queries `count` keys; writes 1/0 to `found[i]` when not null. Returns how many may be present.
    template <class KeyAt>
    std::uint64_t contains_many(std::size_t count, KeyAt&& key_at, std::uint8_t* found = nullptr) const noexcept {
        return contains_grouped(indexed(count, key_at), found);
    }
    std::uint64_t contains_many(std::span<const key_view> keys, std::uint8_t* found = nullptr) const noexcept {
        return contains_many(keys.size(), [&](std::size_t i) { return keys[i]; }, found);
    }
    /// contains_many over any range of keys key_traits knows.
    template <key_range R>
    std::uint64_t contains_many(R&& keys, std::uint8_t* found = nullptr) const noexcept {
        return contains_grouped(from_range(keys), found);
    }

protected:
    /// The keys key_at(0) .. key_at(count - 1) for grouped(): each call hashes the next group of
    /// up to batch_size keys into `out`, prefetching their lines, and returns how many it took.
    template <class KeyAt>
    auto indexed(std::size_t count, KeyAt& key_at) const noexcept {
        return [this, count, &key_at, i = std::size_t{0}](hash128* out, bool for_write) mutable {
            const std::size_t n = std::min(batch_size, count - i);
            for (std::size_t j = 0; j < n; ++j) {
                out[j] = hash(key_at(i + j));
                self().prefetch(out[j], for_write);
            }
            i += n;
            return n;
        };
    }
    /// The keys of a range for grouped(), as indexed() gives them.
    template <class R>
    auto from_range(R& keys) const noexcept {
        return [this, it = std::ranges::begin(keys), end = std::ranges::end(keys)](hash128* out, bool for_write) mutable {
            std::size_t n = 0;
            for (; n < batch_size && it != end; ++n, ++it) {
                out[n] = hash(*it);
                self().prefetch(out[n], for_write);
            }
            return n;
        };
    }

    template <class Group>
    std::uint64_t add_grouped(Group next, std::uint8_t* added, batch_progress* progress) noexcept(nothrow_add()) {
        entered();
        batch_progress local;
        batch_progress& p = nothrow_add() || progress == nullptr ? local : *progress;
        p = {};
        each_key(next, true, [&](std::size_t i, hash128 h) {
            const bool fresh = self().add_hash(h);
            if (added != nullptr) added[i] = fresh;
            p.positive += fresh;
            p.done = i + 1;
            return fresh;
        });
        if (progress != nullptr) *progress = p;
        return p.positive;
    }

    template <class Group>
    std::uint64_t contains_grouped(Group next, std::uint8_t* found) const noexcept {
        entered();
        if constexpr (requires(const hash128* h, std::uint8_t* out) { self().contains_hashes(h, std::size_t{}, out); }) {
            return grouped(next, false, [&](std::size_t base, const hash128* hashes, std::size_t n) {
                return self().contains_hashes(hashes, n, found == nullptr ? nullptr : found + base);
            });
        } else {
            return each_key(next, false, [&](std::size_t i, hash128 h) {
                const bool hit = self().contains_hash(h);
                if (found != nullptr) found[i] = hit;
                return hit;
            });
        }
    }

    /// grouped() one key at a time: probe(i, h) for key i, its hash h.
    template <class Group, class Probe>
    std::uint64_t each_key(Group& next, bool for_write, Probe probe) const {
        return grouped(next, for_write, [&](std::size_t base, const hash128* hashes, std::size_t n) {
            std::uint64_t hits = 0;
            for (std::size_t i = 0; i < n; ++i) hits += probe(base + i, hashes[i]);
            return hits;
        });
    }

    /// Calls probe_group(base, hashes, n) for each group of up to batch_size keys next() yields,
    /// in order (base: the index of the group's first key): next hashes a group's keys and
    /// prefetches their lines, then they are probed. Returns the sum of what probe_group
    /// returned. flatten: in a program with many instantiations GCC left the hash
    /// (MurmurHash3) out of line here, and the batch ran at half speed (measured: 72 against 36 ns
    /// per absent key in 2 GiB, 21 against 15 ns in cache); the loop is only fast with the hash and
    /// probe inlined. (A next() yielding one key at a time, a branch per key, cost 10% in cache.)
    template <class Group, class ProbeGroup>
    LFBLOOM_FLATTEN std::uint64_t grouped(Group& next, bool for_write, ProbeGroup probe_group) const {
        hash128 hashes[batch_size];
        std::uint64_t hits = 0;
        for (std::size_t base = 0;; base += batch_size) {
            const std::size_t n = next(hashes, for_write);
            hits += probe_group(base, hashes, n);
            if (n < batch_size) return hits;
        }
    }

    /// Runs Filter::on_key_call() if there is one; returns the filter.
    const Filter& entered() const noexcept {
        if constexpr (requires(const Filter& f) { f.on_key_call(); }) self().on_key_call();
        return self();
    }
    Filter& entered() noexcept {
        static_cast<const key_operations&>(*this).entered();
        return self();
    }

private:
    hash128 hash_bytes(const void* data, std::size_t size) const noexcept {
        if constexpr (requires { Filter::key_hash(data, size, std::uint64_t{}); }) return Filter::key_hash(data, size, self().seed());
        else return murmur3_x64_128(data, size, self().seed());
    }
    const Filter& self() const noexcept { return static_cast<const Filter&>(*this); }
    Filter& self() noexcept { return static_cast<Filter&>(*this); }
};

/// key_operations plus the key-level remove and count of the filters that remove keys (counting,
/// cuckoo), over Filter's remove_hash(h) and count_hash(h). Thread-safety as those members.
template <class Filter>
class removable_key_operations : public key_operations<Filter> {
public:
    /// Removes are noexcept when Filter::remove_hash is (a shared cuckoo filter's may throw
    /// timeout, waiting for a stripe lock).
    static constexpr bool nothrow_remove() noexcept { return noexcept(std::declval<Filter&>().remove_hash(hash128{})); }

    bool remove(key_view key) noexcept(nothrow_remove()) { return self().remove_hash(this->hash(key)); }
    template <hashable_key K>
    bool remove(const K& key) noexcept(nothrow_remove()) {
        return self().remove_hash(this->hash(key));
    }
    std::uint32_t count(key_view key) const noexcept { return self().count_hash(this->hash(key)); }
    template <hashable_key K>
    std::uint32_t count(const K& key) const noexcept {
        return self().count_hash(this->hash(key));
    }

    /// Removes `count` keys (`key_at(i)` the i-th), each as remove(); writes 1/0 ("removed") to
    /// `removed[i]` when not null. Returns how many were removed. Hashes and prefetches each batch
    /// of keys before touching their memory, as add_many does. If a remove throws, the keys before
    /// it were removed and the rest were not, and `progress` (if given) says how far it got, as
    /// add_many's does.
    template <class KeyAt>
    std::uint64_t remove_many(std::size_t count, KeyAt&& key_at, std::uint8_t* removed = nullptr,
                              batch_progress* progress = nullptr) noexcept(nothrow_remove()) {
        return remove_grouped(this->indexed(count, key_at), removed, progress);
    }
    std::uint64_t remove_many(std::span<const key_view> keys, std::uint8_t* removed = nullptr) noexcept(nothrow_remove()) {
        return remove_many(keys.size(), [&](std::size_t i) { return keys[i]; }, removed);
    }
    /// remove_many over any range of keys key_traits knows.
    template <key_range R>
    std::uint64_t remove_many(R&& keys, std::uint8_t* removed = nullptr, batch_progress* progress = nullptr) noexcept(nothrow_remove()) {
        return remove_grouped(this->from_range(keys), removed, progress);
    }

private:
    template <class Group>
    std::uint64_t remove_grouped(Group next, std::uint8_t* removed, batch_progress* progress) noexcept(nothrow_remove()) {
        batch_progress local;
        batch_progress& p = nothrow_remove() || progress == nullptr ? local : *progress;
        p = {};
        this->each_key(next, true, [&](std::size_t i, hash128 h) {
            const bool gone = self().remove_hash(h);
            if (removed != nullptr) removed[i] = gone;
            p.positive += gone;
            p.done = i + 1;
            return gone;
        });
        if (progress != nullptr) *progress = p;
        return p.positive;
    }
    const Filter& self() const noexcept { return static_cast<const Filter&>(*this); }
    Filter& self() noexcept { return static_cast<Filter&>(*this); }
};

}  // namespace lfbloom
