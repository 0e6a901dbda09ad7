// bloom_filter<Layout>: a Bloom filter any number of threads add to and query at once, without
// locks. Layout is classic_layout (Guava-compatible), blocked_layout (the default),
// split_block_layout (Parquet-compatible, the fastest adds and queries, a few % more memory), or
// one_word_layout / two_word_layout (at most one or two locked ORs per add, for write-heavy
// services; 22% / 9% more memory than blocked at p = 1%, more below: word_block_layout.hpp).
//
// Thread safety: add, contains (single and batch), merge (into this filter), copy, == and stats
// may run concurrently from any threads. clear() and intersect() may too, but adds
// racing with them may be lost.
// Construction, move and destruction need exclusive access.
//
// Guarantee: no false negatives. If add(key) happens-before contains(key) (through any
// synchronization of the caller's: a release/acquire pair, a mutex, a thread join), contains
// returns true. Not promised: ordering between different keys (the filter is not linearizable
// across keys), or anything for adds that race with the query (they may or may not be seen).
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <utility>

#include "lfbloom/base/error.hpp"
#include "lfbloom/base/key.hpp"
#include "lfbloom/base/options.hpp"
#include "lfbloom/base/sizing.hpp"
#include "lfbloom/base/storage.hpp"
#include "lfbloom/layouts/blocked_layout.hpp"
#include "lfbloom/layouts/classic_layout.hpp"
#include "lfbloom/layouts/split_block_layout.hpp"
#include "lfbloom/layouts/word_block_layout.hpp"

namespace lfbloom {

namespace detail {

/// Fills the fields every layout computes the same way.
inline filter_stats make_stats(layout kind, const geometry& g, std::uint32_t slot_bits, std::uint64_t bytes,
                               std::uint64_t set, std::uint64_t saturated, std::uint64_t block_slots,
                               double (*expected_fpr)(double, std::uint64_t, std::uint32_t),
                               probe_rule rule = probe_rule::fields) {
    filter_stats s;
    s.kind = kind;
    s.slots = g.slots;
    s.slot_bits = slot_bits;
    s.hashes = g.hashes;
    s.bytes = bytes;
    s.capacity = g.capacity;
    s.target_fpr = g.target_fpr;
    s.slots_set = set;
    s.saturated = saturated;
    s.fill_ratio = static_cast<double>(set) / static_cast<double>(g.slots);
    s.estimated_count = estimated_count(set, g.slots, g.hashes, block_slots);
    if ((rule == probe_rule::distinct || rule == probe_rule::parquet) && g.hashes < block_slots && set < g.slots)  // each key sets exactly k slots of its block
        s.estimated_count *= -std::expm1(g.hashes * std::log1p(-1.0 / static_cast<double>(block_slots))) /
                             (static_cast<double>(g.hashes) / static_cast<double>(block_slots));
    s.estimated_fpr = set >= g.slots ? 1.0 : expected_fpr(s.estimated_count, g.slots, g.hashes);
    s.near_capacity = s.estimated_count > near_capacity_fraction * static_cast<double>(g.capacity);
    return s;
}

/// Validates the shape of a geometry: k, and a slot count that is a positive multiple of
/// `slot_multiple` within max_slots; with `full`, also capacity > 0 and a rate in (0, 1]. Cheap
/// (no FPR model), so building a filter from a stored geometry costs its allocation only.
inline const geometry& checked_shape(const geometry& g, std::uint64_t slot_multiple, bool full) {
    check_hashes(g.hashes);
    if (g.slots == 0 || g.slots % slot_multiple != 0)
        throw error(errc::invalid_argument, "slot count must be a positive multiple of " + std::to_string(slot_multiple) +
                                                ", got " + std::to_string(g.slots));
    if (g.slots > max_slots) throw error(errc::too_large, "filter beyond 2^46 slots");
    if (full && (g.capacity == 0 || !(g.target_fpr > 0.0 && g.target_fpr <= 1.0)))
        throw error(errc::invalid_argument, "geometry needs a capacity > 0 and a rate in (0, 1]");
    return g;
}

/// Validates a geometry given by the caller (slots, k) and fills in capacity and rate.
inline geometry checked_geometry(std::uint64_t slots, std::uint32_t hashes, std::uint64_t slot_multiple,
                                 double (*expected_fpr)(double, std::uint64_t, std::uint32_t)) {
    geometry g{slots, hashes, 0, 0};
    checked_shape(g, slot_multiple, false);
    g.capacity = implied_capacity(slots, hashes);
    g.target_fpr = expected_fpr(static_cast<double>(g.capacity), slots, hashes);
    return g;
}

}  // namespace detail

/// Storage: the word array (word_array; the model checker's in tests/relacy).
template <class Layout, class Storage = word_array>
class bloom_filter : public key_operations<bloom_filter<Layout, Storage>> {
public:
    using word_type = std::remove_cvref_t<decltype(*std::declval<Storage&>().data())>;

    static constexpr layout kind = Layout::kind;
    static constexpr const char* name = Layout::name;
    static constexpr std::uint32_t counter_bits() noexcept { return 1; }  ///< a bit filter's slot width

    /// The geometry for_capacity(capacity, fpr) would use; pure, throws as for_capacity does.
    static geometry size_for(std::uint64_t capacity, double fpr) { return Layout::size_for(capacity, fpr); }
    /// The filter for_capacity(capacity, fpr) would make, without allocating it (planned()).
    static filter_stats plan(std::uint64_t capacity, double fpr) { return plan(size_for(capacity, fpr)); }
    /// The filter of geometry g (from size_for or exact), described without allocating it.
    static filter_stats plan(const geometry& g) {
        return planned(kind, g.slots, 1, g.hashes, g.slots / 8, g.capacity, g.target_fpr,
                       Layout::expected_fpr(static_cast<double>(g.capacity), g.slots, g.hashes));
    }
    /// The geometry with_geometry(bits, hashes) uses, its capacity and rate implied; pure, throws as it does.
    static geometry exact(std::uint64_t bits, std::uint32_t hashes) {
        const geometry g = detail::checked_geometry(bits, hashes, Layout::slot_multiple, Layout::expected_fpr);
        return valid(g);  // the layout's own limits too (split-block: k = 8), as the constructor checks them
    }

    /// Sized so the expected FPR after `capacity` distinct adds is <= `fpr`. Throws
    /// invalid_argument (capacity 0, fpr outside (0,1) or NaN, more than 255 hashes needed) or
    /// too_large / out_of_memory.
    static bloom_filter for_capacity(std::uint64_t capacity, double fpr, const filter_options& options = {}) {
        return bloom_filter(size_for(capacity, fpr), options);
    }

    /// Exactly `bits` bits (a multiple of Layout::slot_multiple: 64 for classic and one-word, 128
    /// for two-word, 256 for split-block, 512 for blocked) and `hashes` probes.
    static bloom_filter with_geometry(std::uint64_t bits, std::uint32_t hashes, const filter_options& options = {}) {
        return bloom_filter(exact(bits, hashes), options);
    }

    /// Throws invalid_argument (too_large past max_slots) unless a filter of this class can have
    /// shape g, as its constructor from a geometry checks (a loader checks a header with it
    /// before allocating). slot_bits is the file's slot width, 1 here. Pure.
    static void validate(const geometry& g, std::uint32_t /*slot_bits*/) { (void)valid(g); }
    /// What a file of this class records (serialization.hpp checks a header with them): the
    /// probe rules it may name, its slot width, and the slots of one line or block (of that
    /// width), of which its count is a whole number. Pure.
    static constexpr bool takes_rule(probe_rule r) noexcept { return Layout::takes_rule(r); }
    static constexpr bool takes_slot_bits(std::uint32_t slot_bits) noexcept { return slot_bits == 1; }
    static constexpr std::uint64_t line_slots(std::uint32_t /*slot_bits*/) noexcept { return Layout::slot_multiple; }

    /// From a full geometry (e.g. read back from a file); validated like with_geometry.
    bloom_filter(const geometry& g, const filter_options& options)
        : bloom_filter(g, options, Storage(valid(g).slots / 64, options.memory_limit, options.process_shared)) {}

    /// Over given storage of exactly slots / 64 words (a shared file mapping, say).
    bloom_filter(const geometry& g, const filter_options& options, Storage storage)
        : shape_(valid(g)), seed_(options.seed),
          layout_(g.slots, g.hashes, kind == layout::split_block ? probe_rule::parquet : checked_probe_rule(options.probes)),
          words_(std::move(storage)) {
        if (words_.size() != g.slots / 64) throw error(errc::invalid_argument, "storage does not match the geometry");
    }

    /// Writes a file-backed filter's words to its file (see word_array::flush); thread-safe.
    void flush() const { words_.flush(); }

    /// The layout's own key hash, where it has one (split-block: XXH64, as Parquet hashes).
    static hash128 key_hash(const void* data, std::size_t size, std::uint64_t seed) noexcept
        requires requires { Layout::hash_bytes(data, size, seed); }
    {
        return Layout::hash_bytes(data, size, seed);
    }

    /// Adds a hashed key; true if some bit was missing (the key was new). Lock-free, any thread.
    /// Of racing adds of one new key at least one returns true; more than one may (each set a
    /// different missing bit), unlike a linearizable set.
    bool add_hash(hash128 h) noexcept { return layout_.add(words_.data(), h); }
    /// Wait-free, any thread: see the guarantee at the top of this file.
    bool contains_hash(hash128 h) const noexcept { return layout_.contains(words_.data(), h); }
    /// contains_hash over a batch's group of n hashes, for a layout with a group form (blocked's
    /// contains_group): found[i] (if not null) gets each answer; returns how many may be present.
    /// Wait-free, any thread.
    std::uint64_t contains_hashes(const hash128* h, std::size_t n, std::uint8_t* found) const noexcept
        requires requires(const Layout& l, const word_type* w) { l.contains_group(w, h, n, found); }
    {
        return layout_.contains_group(words_.data(), h, n, found);
    }
    /// Starts loading the key's line(s); a hint with no effect on results.
    void prefetch(hash128 h, bool for_write) const noexcept { layout_.prefetch(words_.data(), h, for_write); }

    /// The bulk build's hooks (bulk.hpp; add_bulk in key.hpp is the call). What is filed per key:
    /// its hash, or for the classic layout, whose probes range over the whole array, each probe's
    /// bit index. Pure, any thread.
    static constexpr bool probes_anywhere = !requires(const Layout& l) { l.block_word(hash128{}); };
    using bulk_item = std::conditional_t<probes_anywhere, std::uint64_t, hash128>;
    std::uint64_t bulk_items_per_key() const noexcept { return probes_anywhere ? shape_.hashes : 1; }
    template <class Emit>
    void bulk_items(hash128 h, Emit emit) const noexcept {
        if constexpr (probes_anywhere)
            layout_.for_each_probe(h, [&](std::uint64_t w, std::uint64_t mask) {
                emit(w * 64 + static_cast<unsigned>(std::countr_zero(mask)));
                return true;
            });
        else emit(h);
    }
    std::uint64_t bulk_word(const bulk_item& item) const noexcept {
        if constexpr (probes_anywhere) return item >> 6;
        else return layout_.block_word(item);
    }
    void bulk_set(std::uint64_t* block, const bulk_item& item) const noexcept {
        if constexpr (probes_anywhere) *block |= std::uint64_t{1} << (item & 63);
        else layout_.set_plain(block, item);
    }
    /// ORs copy[i] into word first + i: a word that has all its bits already is only read; one
    /// that lacks some gets one locked OR (or_word, relaxed as every add's: the build's caller
    /// orders its end with its own synchronization, the joins inside add_bulk order it before its
    /// return). Lock-free, beside any other use of the filter.
    void bulk_merge(std::uint64_t first, std::span<const std::uint64_t> copy) noexcept {
        word_type* to = words_.data() + first;
        for (std::size_t i = 0; i < copy.size(); ++i) {
            if (const std::uint64_t bits = copy[i]; bits != 0) {
                if ((bits & ~load_word(to[i])) != 0) or_word(to[i], bits);
            }
        }
    }

    /// Zeroes every word, one at a time. Adds that race with it may or may not survive.
    void clear() noexcept {
        for (std::uint64_t i = 0; i < words_.size(); ++i) store_word(words_.data()[i], 0);
    }

    /// ORs `other` into this filter. Afterwards this filter contains every key whose add to
    /// `other` happened-before the merge. Both may be in use by other threads. Throws
    /// incompatible (different bits, k, seed or probe rule) with nothing changed.
    void merge(const bloom_filter& other) {
        const word_type* from = compatible(other, "merge").words_.data();
        for (std::uint64_t i = 0; i < words_.size(); ++i)
            if (const std::uint64_t bits = load_word(from[i])) set_bits(words_.data()[i], bits);
    }

    /// ANDs `other` into this filter, word by word. Afterwards it answers true for every key whose
    /// adds to both happened-before the intersection, and false for every key one of them answered
    /// false for; its false-positive rate can exceed that of a filter built from the keys both
    /// held, as with any Bloom intersection. Both may be in use by other threads; adds to this
    /// filter that race with it may or may not survive (as with clear). Throws incompatible
    /// (different bits, k, seed or probe rule) with nothing changed.
    void intersect(const bloom_filter& other) {
        const word_type* from = compatible(other, "intersect").words_.data();
        for (std::uint64_t i = 0; i < words_.size(); ++i) {
            const std::uint64_t keep = load_word(from[i]);
            // relaxed (both loads and the CAS): like clear, an intersection promises nothing to racing
            // adds, and callers order a finished one with their own synchronization
            if ((load_word(words_.data()[i]) & ~keep) == 0) continue;  // nothing to clear: no write
            update_word(words_.data()[i], [&](std::uint64_t old, std::uint64_t& next) { return next = old & keep, true; });
        }
    }

    /// A private copy in this process's memory (not shared, no memory limit) with the same
    /// geometry, seed and probe rule. It holds every key whose add happened-before the copy;
    /// adds racing with it may or may not be in it. Throws out_of_memory or too_large.
    bloom_filter copy() const {
        bloom_filter out(shape_, filter_options{.seed = seed_, .probes = probes()});
        detail::copy_words(words(), out.words());
        return out;
    }

    /// Same bits, k, seed and probe rule (so the same answer for every key), and the same bits set;
    /// the capacity and rate they were sized for are not compared (Guava's equals). Reads word by
    /// word (O(m)): exact when neither filter is being written to.
    friend bool operator==(const bloom_filter& a, const bloom_filter& b) noexcept {
        return a.same_mapping(b) && detail::same_words(a.words(), b.words());
    }

    /// Counts set bits word by word (O(m)); concurrent adds may or may not be counted.
    filter_stats stats() const noexcept {
        std::uint64_t set = 0;
        for (std::uint64_t i = 0; i < words_.size(); ++i) set += std::popcount(load_word(words_.data()[i]));
        return detail::make_stats(Layout::kind, shape_, 1, words_.bytes(), set, 0, Layout::block_slots(shape_.slots),
                                  Layout::expected_fpr, probes());
    }

    const geometry& shape() const noexcept { return shape_; }
    std::uint64_t seed() const noexcept { return seed_; }
    /// How keys map to bits (saved in files): probe_rule::fields for classic filters and blocked
    /// ones loaded from lfbloom 1.3 or older, probe_rule::parquet for split-block filters, else
    /// probe_rule::distinct.
    probe_rule probes() const noexcept { return layout_.rule(); }
    /// The raw words, for serialization; read them with load_word while others may write.
    std::span<word_type> words() noexcept { return {words_.data(), words_.size()}; }
    std::span<const word_type> words() const noexcept { return {words_.data(), words_.size()}; }

private:
    bool same_mapping(const bloom_filter& other) const noexcept {
        return other.shape_.slots == shape_.slots && other.shape_.hashes == shape_.hashes && other.seed_ == seed_ &&
               other.probes() == probes();
    }
    const bloom_filter& compatible(const bloom_filter& other, const char* what) const {
        if (!same_mapping(other))
            throw error(errc::incompatible, std::string("cannot ") + what + " filters of different bits, hashes, seed or probe rule");
        return other;
    }

    static const geometry& valid(const geometry& g) {
        detail::checked_shape(g, Layout::slot_multiple, true);
        if constexpr (requires { Layout::check_shape(g); }) Layout::check_shape(g);
        return g;
    }

    geometry shape_;
    std::uint64_t seed_;
    Layout layout_;
    Storage words_;
};

using classic_bloom_filter = bloom_filter<classic_layout>;
using blocked_bloom_filter = bloom_filter<blocked_layout>;
using split_block_bloom_filter = bloom_filter<split_block_layout>;
using one_word_bloom_filter = bloom_filter<one_word_layout>;
using two_word_bloom_filter = bloom_filter<two_word_layout>;

}  // namespace lfbloom
