// Keys and the key-level API every filter shares (single and batch add/contains), written once
// over each filter's hash-level operations.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <utility>

#include <boost/endian/conversion.hpp>

#include "lfbloom/murmur3.hpp"

namespace lfbloom {

/// A key is any run of bytes; it is hashed, never stored.
using key_view = std::span<const std::byte>;

/// The UTF-8 (or any) bytes of a string, as a key.
inline key_view as_key(std::string_view s) noexcept { return std::as_bytes(std::span(s.data(), s.size())); }

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
    /// MurmurHash3 x64_128 with the filter's seed, unless Filter has a static key_hash(data,
    /// size, seed) of its own (split-block filters: XXH64).
    hash128 hash(key_view key) const noexcept { return hash_bytes(key.data(), key.size()); }
    /// Integers hash as their 8 little-endian bytes, like Guava's Funnels.longFunnel() (and
    /// Parquet's plain encoding of INT64).
    hash128 hash(std::uint64_t key) const noexcept {
        const std::uint64_t le = boost::endian::native_to_little(key);
        return hash_bytes(&le, sizeof le);
    }

    /// Adds a key; true if it was new (some slot changed from empty). See Filter::add_hash.
    bool add(key_view key) noexcept(nothrow_add()) { return entered().add_hash(hash(key)); }
    bool add(std::string_view key) noexcept(nothrow_add()) { return add(as_key(key)); }
    bool add(std::uint64_t key) noexcept(nothrow_add()) { return entered().add_hash(hash(key)); }

    /// True if the key may have been added; false means it certainly was not.
    bool contains(key_view key) const noexcept { return entered().contains_hash(hash(key)); }
    bool contains(std::string_view key) const noexcept { return contains(as_key(key)); }
    bool contains(std::uint64_t key) const noexcept { return entered().contains_hash(hash(key)); }

    /// Adds `count` keys, `key_at(i)` giving the i-th as a key_view; writes 1/0 ("new") to
    /// `added[i]` when `added` is not null. Returns how many were new. If an add throws, the keys
    /// before it were added and the rest were not, and `progress` (if given) says how far it got:
    /// it is kept up to date key by key only where adds can throw, else written once at the end.
    template <class KeyAt>
    std::uint64_t add_many(std::size_t count, KeyAt&& key_at, std::uint8_t* added = nullptr,
                           batch_progress* progress = nullptr) noexcept(nothrow_add()) {
        entered();
        batch_progress local;
        batch_progress& p = nothrow_add() || progress == nullptr ? local : *progress;
        p = {};
        for_batches(count, key_at, true, [&](std::size_t i, hash128 h) {
            const bool fresh = self().add_hash(h);
            if (added != nullptr) added[i] = fresh;
            p.positive += fresh;
            p.done = i + 1;
            return fresh;
        });
        if (progress != nullptr) *progress = p;
        return p.positive;
    }
    std::uint64_t add_many(std::span<const key_view> keys, std::uint8_t* added = nullptr) noexcept(nothrow_add()) {
        return add_many(keys.size(), [&](std::size_t i) { return keys[i]; }, added);
    }

    /// Queries `count` keys; writes 1/0 to `found[i]` when not null. Returns how many may be present.
    template <class KeyAt>
    std::uint64_t contains_many(std::size_t count, KeyAt&& key_at, std::uint8_t* found = nullptr) const noexcept {
        entered();
        return for_batches(count, key_at, false, [&](std::size_t i, hash128 h) {
            const bool hit = self().contains_hash(h);
            if (found != nullptr) found[i] = hit;
            return hit;
        });
    }
    std::uint64_t contains_many(std::span<const key_view> keys, std::uint8_t* found = nullptr) const noexcept {
        return contains_many(keys.size(), [&](std::size_t i) { return keys[i]; }, found);
    }

protected:
    /// Calls probe(i, h) for each key in order, in groups of batch_size: hashes a group's keys and
    /// prefetches their lines, then probes them. Returns how many probes returned true.
    /// flatten: in a program with many instantiations GCC left the hash (MurmurHash3) out of line
    /// here, and the batch ran at half speed (measured: 72 against 36 ns per absent key in 2 GiB,
    /// 21 against 15 ns in cache); the loop is only fast with the hash and probe inlined.
    template <class KeyAt, class Probe>
    [[gnu::flatten]] std::uint64_t for_batches(std::size_t count, KeyAt& key_at, bool for_write, Probe probe) const {
        hash128 hashes[batch_size];
        std::uint64_t hits = 0;
        for (std::size_t base = 0; base < count; base += batch_size) {
            const std::size_t n = std::min(batch_size, count - base);
            for (std::size_t i = 0; i < n; ++i) {
                hashes[i] = hash(key_at(base + i));
                self().prefetch(hashes[i], for_write);
            }
            for (std::size_t i = 0; i < n; ++i) hits += probe(base + i, hashes[i]);
        }
        return hits;
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
    bool remove(key_view key) noexcept { return self().remove_hash(this->hash(key)); }
    bool remove(std::string_view key) noexcept { return remove(as_key(key)); }
    bool remove(std::uint64_t key) noexcept { return self().remove_hash(this->hash(key)); }
    std::uint32_t count(key_view key) const noexcept { return self().count_hash(this->hash(key)); }
    std::uint32_t count(std::string_view key) const noexcept { return count(as_key(key)); }
    std::uint32_t count(std::uint64_t key) const noexcept { return self().count_hash(this->hash(key)); }

    /// Removes `count` keys (`key_at(i)` the i-th), each as remove(); writes 1/0 ("removed") to
    /// `removed[i]` when not null. Returns how many were removed. Hashes and prefetches each batch
    /// of keys before touching their memory, as add_many does.
    template <class KeyAt>
    std::uint64_t remove_many(std::size_t count, KeyAt&& key_at, std::uint8_t* removed = nullptr) noexcept {
        return this->for_batches(count, key_at, true, [&](std::size_t i, hash128 h) {
            const bool gone = self().remove_hash(h);
            if (removed != nullptr) removed[i] = gone;
            return gone;
        });
    }
    std::uint64_t remove_many(std::span<const key_view> keys, std::uint8_t* removed = nullptr) noexcept {
        return remove_many(keys.size(), [&](std::size_t i) { return keys[i]; }, removed);
    }

private:
    const Filter& self() const noexcept { return static_cast<const Filter&>(*this); }
    Filter& self() noexcept { return static_cast<Filter&>(*this); }
};

}  // namespace lfbloom
