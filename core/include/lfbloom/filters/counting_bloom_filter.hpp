// counting_bloom_filter: a blocked Bloom filter with a small saturating counter per slot, so keys
// can be removed. Counters are 4 bits (128 per cache line) by default or 8 bits (64 per line),
// packed in 64-bit words and updated with one CAS loop per touched word.
//
// Thread safety: add, remove, contains, count (single and batch), merge, copy, == and stats may
// run concurrently from any threads, lock-free. clear() and intersect() may too, but
// updates racing with them may be lost.
//
// Guarantees:
// - No false negatives for a key added and not removed since, when the add happens-before the
//   query, provided no key is removed more often than it was added. Removing a key that was
//   never added (or removing one twice) decrements counters other keys rely on: that, not
//   concurrency, is the one way to cause a false negative, and it is inherent to counting filters.
// - A counter that reaches its maximum (15 or 255) stays there for good: saturated counters are
//   never decremented, so overflow can never cause a false negative (it only makes the slot
//   permanently set). stats().saturated reports how many there are.
// - remove(key) first checks that all k counters are non-zero; if not, it returns false ("not
//   present") and changes nothing. Each touched word is decremented by one CAS that re-checks
//   its counters; if a racing remove drove one of them to zero meanwhile, the words already
//   decremented are re-incremented and remove returns false.
//
// Why a class of its own and not a layout policy of bloom_filter<Layout>: its counter width is a
// run-time choice (4 or 8, one type for both, as files, the C ABI and Redis hold it) that changes
// the geometry's block, the sizing, the words per slot and the stats, so as a policy it would give
// every static member of bloom_filter (size_for, exact, plan, for_capacity, with_geometry, the
// constructors) a second, width-taking form. What the two share is written once already: the
// storage (word_array), the shape checks (detail::checked_shape), the statistics
// (detail::make_stats), copies and comparison (detail::copy_words, same_words), persistence and
// sharing (serialization.hpp and shared_memory.hpp, by kind), and at every boundary the one
// interface (dynamic_filter.hpp), where the counting filter is one more kind.
#pragma once

#include <algorithm>
#include <atomic>
#include <bit>
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
#include "lfbloom/filters/bloom_filter.hpp"
#include "lfbloom/layouts/blocked_layout.hpp"

namespace lfbloom {

/// Lane arithmetic on a 64-bit word holding 64/width counters of `width` bits (4 or 8).
class counter_lanes {
public:
    explicit counter_lanes(std::uint32_t width) noexcept
        : width_(width), low_(width == 4 ? 0x1111111111111111ULL : 0x0101010101010101ULL), max_((1u << width) - 1) {}

    std::uint32_t width() const noexcept { return width_; }
    std::uint32_t max() const noexcept { return max_; }
    /// The lowest bit of every lane.
    std::uint64_t low_bits() const noexcept { return low_; }
    /// Lowest bit set in each lane whose counter is at its maximum.
    std::uint64_t saturated(std::uint64_t w) const noexcept {
        std::uint64_t all = w;
        for (std::uint32_t s = 1; s < width_; ++s) all &= w >> s;
        return all & low_;
    }
    /// Lowest bit set in each lane whose counter is zero.
    std::uint64_t zero(std::uint64_t w) const noexcept { return saturated(~w); }
    std::uint32_t get(std::uint64_t w, unsigned lane) const noexcept {
        return static_cast<std::uint32_t>(w >> (lane * width_)) & max_;
    }
    /// Lane-wise min(a + b, max).
    std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) const noexcept {
        std::uint64_t sum = 0;
        for (unsigned lane = 0; lane < 64 / width_; ++lane)
            sum |= std::uint64_t{std::min(get(a, lane) + get(b, lane), max_)} << (lane * width_);
        return sum;
    }
    /// Lane-wise min(a, b).
    std::uint64_t min(std::uint64_t a, std::uint64_t b) const noexcept {
        std::uint64_t least = 0;
        for (unsigned lane = 0; lane < 64 / width_; ++lane)
            least |= std::uint64_t{std::min(get(a, lane), get(b, lane))} << (lane * width_);
        return least;
    }

private:
    std::uint32_t width_;
    std::uint64_t low_;
    std::uint32_t max_;
};

/// Storage: the word array (word_array; the model checker's in tests/relacy).
template <class Storage = word_array>
class basic_counting_bloom_filter : public removable_key_operations<basic_counting_bloom_filter<Storage>> {
public:
    static constexpr layout kind = layout::counting;
    static constexpr const char* name = "counting";  ///< kind_name's
    using word_type = std::remove_cvref_t<decltype(*std::declval<Storage&>().data())>;

    /// Blocked sizing with 128 (4-bit) or 64 (8-bit) slots per line. Throws invalid_argument
    /// (also for a counter width other than 4 or 8), too_large or out_of_memory.
    static basic_counting_bloom_filter for_capacity(std::uint64_t capacity, double fpr, std::uint32_t counter_bits = 4,
                                              const filter_options& options = {}) {
        return basic_counting_bloom_filter(size_for(capacity, fpr, counter_bits), counter_bits, options);
    }

    /// The geometry for_capacity gives, without allocating anything (shared files, planning).
    static geometry size_for(std::uint64_t capacity, double fpr, std::uint32_t counter_bits = 4) {
        return blocked_geometry(capacity, fpr, slots_per_line(counter_bits));
    }

    /// The filter for_capacity(capacity, fpr, counter_bits) would make, without allocating it (planned()).
    static filter_stats plan(std::uint64_t capacity, double fpr, std::uint32_t counter_bits = 4) {
        return plan(size_for(capacity, fpr, counter_bits), counter_bits);
    }
    /// The filter of geometry g (from size_for or exact) and this counter width, without allocating it.
    static filter_stats plan(const geometry& g, std::uint32_t counter_bits) {
        return planned(kind, g.slots, counter_bits, g.hashes, g.slots / 8 * counter_bits, g.capacity, g.target_fpr,
                       expected_fpr_for(slots_per_line(counter_bits))(static_cast<double>(g.capacity), g.slots, g.hashes));
    }

    /// Exactly `counters` counters (a multiple of the counters per line) and `hashes` probes.
    static basic_counting_bloom_filter with_geometry(std::uint64_t counters, std::uint32_t hashes,
                                               std::uint32_t counter_bits = 4, const filter_options& options = {}) {
        return basic_counting_bloom_filter(exact(counters, hashes, counter_bits), counter_bits, options);
    }
    /// The geometry with_geometry(counters, hashes, counter_bits) uses; pure, throws as it does.
    static geometry exact(std::uint64_t counters, std::uint32_t hashes, std::uint32_t counter_bits = 4) {
        const std::uint32_t per_line = slots_per_line(counter_bits);
        const geometry g = detail::checked_geometry(counters, hashes, per_line, expected_fpr_for(per_line));
        return valid(g, counter_bits);  // as the constructor checks it
    }

    /// Throws invalid_argument (too_large past max_slots) unless a filter of this class can have
    /// shape g with `counter_bits`-bit counters, as the constructors check (a loader checks a
    /// header with it before allocating). Pure.
    static void validate(const geometry& g, std::uint32_t counter_bits) { (void)valid(g, counter_bits); }
    /// What a file of this class records (as bloom_filter's): blocked's rules, lines of 512 bits. Pure.
    static constexpr bool takes_rule(probe_rule r) noexcept { return blocked_layout::takes_rule(r); }
    static constexpr bool takes_slot_bits(std::uint32_t counter_bits) noexcept { return counter_bits == 4 || counter_bits == 8; }
    static constexpr std::uint64_t line_slots(std::uint32_t counter_bits) noexcept { return blocked_layout::line_bits / counter_bits; }

    basic_counting_bloom_filter(const geometry& g, std::uint32_t counter_bits, const filter_options& options)
        : basic_counting_bloom_filter(g, counter_bits, options,
                                Storage(valid(g, counter_bits).slots * counter_bits / 64, options.memory_limit,
                                           options.process_shared)) {}

    /// Over given storage of exactly slots * counter_bits / 64 words (a shared file mapping, say).
    basic_counting_bloom_filter(const geometry& g, std::uint32_t counter_bits, const filter_options& options, Storage storage)
        : shape_(valid(g, counter_bits)),
          seed_(options.seed),
          lanes_(counter_bits),
          // 8-bit counters use the top 6 bits of a 7-bit slot: rule 2 keeps those distinct.
          probes_(g.slots / slots_per_line(counter_bits), g.hashes, checked_probe_rule(options.probes), counter_bits == 8 ? 1 : 0),
          words_(std::move(storage)) {
        if (words_.size() != g.slots * counter_bits / 64) throw error(errc::invalid_argument, "storage does not match the geometry");
    }

    /// Writes a file-backed filter's words to its file (see word_array::flush); thread-safe.
    void flush() const { words_.flush(); }

    /// Increments the key's counters (saturating); true if one of them was zero, i.e. the key was
    /// not present. Of racing adds of one absent key at least one returns true.
    bool add_hash(hash128 h) noexcept {
        std::uint64_t ones[words_per_line];
        word_type* line = touched(h, ones);
        bool was_absent = false;
        for (unsigned w = 0; w < words_per_line; ++w) {
            if (ones[w] == 0) continue;
            bool saw_zero = false;  // decided by the attempt whose CAS succeeds
            update_word(line[w], [&](std::uint64_t old, std::uint64_t& next) {
                saw_zero = (lanes_.zero(old) & ones[w]) != 0;
                next = old + (ones[w] & ~lanes_.saturated(old));  // saturated lanes stay; others < max, no carry
                return true;
            });
            was_absent |= saw_zero;
        }
        return was_absent;
    }

    /// Decrements the key's counters; false ("not present", nothing changed) if one of them is
    /// zero. See the guarantees at the top of this file.
    bool remove_hash(hash128 h) noexcept {
        std::uint64_t ones[words_per_line];
        word_type* line = touched(h, ones);
        std::uint64_t zero = 0;  // check every counter first (one load per word): a refusal writes nothing
        for (unsigned w = 0; w < words_per_line; ++w) zero |= lanes_.zero(load_word(line[w])) & ones[w];
        if (zero != 0) return false;
        std::uint64_t taken[words_per_line] = {};
        for (unsigned w = 0; w < words_per_line; ++w) {
            if (ones[w] == 0) continue;
            const bool ok = update_word(line[w], [&](std::uint64_t old, std::uint64_t& next) {
                if (lanes_.zero(old) & ones[w]) return false;  // raced to zero: give up this word
                taken[w] = ones[w] & ~lanes_.saturated(old);   // saturated lanes are never decremented
                next = old - taken[w];
                return true;
            });
            if (!ok) {  // put back what the words before this one gave
                // relaxed: a statistic, read after the fact
                if (std::any_of(taken, taken + w, [](std::uint64_t t) { return t != 0; }))
                    rollbacks_.add();
                for (unsigned done = 0; done < w; ++done)
                    if (taken[done] != 0)
                        update_word(line[done], [&](std::uint64_t old, std::uint64_t& next) {
                            next = lanes_.saturating_add(old, taken[done]);
                            return true;
                        });
                return false;
            }
        }
        return true;
    }

    bool contains_hash(hash128 h) const noexcept { return count_hash(h) != 0; }

    /// The bulk build's hooks (bulk.hpp; add_bulk in key.hpp is the call): the key's hash is filed
    /// under its line; bulk_set increments its counters in a plain, private copy of the line,
    /// saturating as add does. Pure but for the copy, any thread.
    using bulk_item = hash128;
    static constexpr std::uint64_t bulk_items_per_key() noexcept { return 1; }
    template <class Emit>
    void bulk_items(hash128 h, Emit emit) const noexcept { emit(h); }
    std::uint64_t bulk_word(hash128 h) const noexcept { return probes_.line(h) * words_per_line; }
    void bulk_set(std::uint64_t* line, hash128 h) const noexcept {
        std::uint64_t ones[words_per_line];
        ones_of(h, ones);
        for (unsigned w = 0; w < words_per_line; ++w) line[w] += ones[w] & ~lanes_.saturated(line[w]);
    }
    /// Adds copy[i]'s counts to word first + i, saturating, with one CAS loop per word that has
    /// any (relaxed, as every add's: see bloom_filter::bulk_merge). Lock-free, beside any other
    /// use of the filter; a count saturated in the copy or the word saturates the sum, as the same
    /// adds one by one would.
    void bulk_merge(std::uint64_t first, std::span<const std::uint64_t> copy) noexcept {
        word_type* to = words_.data() + first;
        for (std::size_t i = 0; i < copy.size(); ++i) {
            if (const std::uint64_t counts = copy[i]; counts != 0) {
                update_word(to[i], [&](std::uint64_t old, std::uint64_t& next) {
                    next = lanes_.saturating_add(old, counts);
                    return true;
                });
            }
        }
    }

    /// The smallest of the key's counters: an upper bound on how often it was added (minus
    /// removed), exact unless other keys share all its counters. 0 means certainly absent.
    std::uint32_t count_hash(hash128 h) const noexcept {
        const word_type* line = line_of(h);
        std::uint32_t least = lanes_.max();
        probes_.for_each_slot<7, true>(h, [&](unsigned slot) {  // stops at a zero counter
            const unsigned s = slot >> shift_;  // 4-bit: 128 slots; 8-bit: 64 (top 6 of 7 bits)
            least = std::min(least, lanes_.get(load_word(line[s >> lane_shift_]), s & lane_mask_));
            return least != 0;
        });
        return least;
    }

    void prefetch(hash128 h, bool for_write) const noexcept {
        if (for_write) __builtin_prefetch(line_of(h), 1); else __builtin_prefetch(line_of(h), 0);
    }

    void clear() noexcept {
        for (std::uint64_t i = 0; i < words_.size(); ++i) store_word(words_.data()[i], 0);
    }

    /// Adds `other`'s counters to this filter's, saturating. Throws incompatible (different
    /// counters, k, counter width, seed or probe rule) with nothing changed.
    void merge(const basic_counting_bloom_filter& other) {
        const word_type* from = compatible(other, "merge").words_.data();
        for (std::uint64_t i = 0; i < words_.size(); ++i) {
            const std::uint64_t add = load_word(from[i]);
            if (add != 0)
                update_word(words_.data()[i], [&](std::uint64_t old, std::uint64_t& next) {
                    next = lanes_.saturating_add(old, add);
                    return true;
                });
        }
    }

    /// Lowers each counter to `other`'s where that is smaller (a multiset intersection): a key
    /// added a times to this filter and b times to `other`, not removed, stays present and can be
    /// removed min(a, b) times without lowering a counter another key of the intersection needs.
    /// A saturated counter meeting a smaller one takes that value, a true bound again. Both may be
    /// in use by other threads; updates racing with it may or may not survive (as with clear).
    /// Throws incompatible (as merge) with nothing changed.
    void intersect(const basic_counting_bloom_filter& other) {
        const word_type* from = compatible(other, "intersect").words_.data();
        for (std::uint64_t i = 0; i < words_.size(); ++i) {
            const std::uint64_t bound = load_word(from[i]);
            // relaxed (load and CAS): like clear, it promises nothing to racing updates, and callers
            // order a finished intersection with their own synchronization
            update_word(words_.data()[i], [&](std::uint64_t old, std::uint64_t& next) {
                next = lanes_.min(old, bound);
                return true;
            });
        }
    }

    /// A private copy in this process's memory (not shared, no memory limit) with the same
    /// geometry, counter width, seed and probe rule; holds every count whose update happened-before
    /// the copy. Throws out_of_memory or too_large.
    basic_counting_bloom_filter copy() const {
        basic_counting_bloom_filter out(shape_, lanes_.width(), filter_options{.seed = seed_, .probes = probes()});
        detail::copy_words(words(), out.words());
        return out;
    }

    /// Same counters, k, width, seed and probe rule, and the same counts; read word by word (O(m)),
    /// exact when neither filter is being written to.
    friend bool operator==(const basic_counting_bloom_filter& a, const basic_counting_bloom_filter& b) noexcept {
        return a.same_mapping(b) && detail::same_words(a.words(), b.words());
    }

    filter_stats stats() const noexcept {
        std::uint64_t nonzero = 0, saturated = 0;
        for (std::uint64_t i = 0; i < words_.size(); ++i) {
            const std::uint64_t w = load_word(words_.data()[i]);
            nonzero += lanes_per_word() - std::popcount(lanes_.zero(w));
            saturated += std::popcount(lanes_.saturated(w));
        }
        const std::uint32_t per_line = slots_per_line(lanes_.width());
        return detail::make_stats(kind, shape_, lanes_.width(), words_.bytes(), nonzero, saturated, per_line,
                                  expected_fpr_for(per_line), probes());
    }

    const geometry& shape() const noexcept { return shape_; }
    std::uint64_t seed() const noexcept { return seed_; }
    /// How keys map to counters (saved in files): probe_rule::distinct, or fields for a filter
    /// loaded from lfbloom 1.3 or older.
    probe_rule probes() const noexcept { return probes_.rule(); }
    std::uint32_t counter_bits() const noexcept { return lanes_.width(); }
    /// Removes so far that passed the check, took some counters, then found a later one zeroed
    /// by a racing remove and put back what they had taken (see the top). Relaxed: a statistic.
    std::uint64_t rollbacks() const noexcept { return rollbacks_.get(); }
    std::span<word_type> words() noexcept { return {words_.data(), words_.size()}; }
    std::span<const word_type> words() const noexcept { return {words_.data(), words_.size()}; }

    static std::uint32_t slots_per_line(std::uint32_t counter_bits) {
        if (counter_bits != 4 && counter_bits != 8)
            throw error(errc::invalid_argument, "counter width must be 4 or 8 bits, got " + std::to_string(counter_bits));
        return blocked_layout::line_bits / counter_bits;
    }

private:
    bool same_mapping(const basic_counting_bloom_filter& other) const noexcept {
        return other.shape_.slots == shape_.slots && other.shape_.hashes == shape_.hashes &&
               other.lanes_.width() == lanes_.width() && other.seed_ == seed_ && other.probes() == probes();
    }
    const basic_counting_bloom_filter& compatible(const basic_counting_bloom_filter& other, const char* what) const {
        if (!same_mapping(other))
            throw error(errc::incompatible, std::string("cannot ") + what +
                                                " counting filters of different counters, hashes, width, seed or probe rule");
        return other;
    }

    using fpr_function = double (*)(double, std::uint64_t, std::uint32_t);
    static fpr_function expected_fpr_for(std::uint32_t per_line) {
        if (per_line == 128) return [](double n, std::uint64_t m, std::uint32_t k) { return blocked_fpr(n, m / 128, k, 128); };
        return [](double n, std::uint64_t m, std::uint32_t k) { return blocked_fpr(n, m / 64, k, 64); };
    }

    static const geometry& valid(const geometry& g, std::uint32_t counter_bits) {
        return detail::checked_shape(g, slots_per_line(counter_bits), true);
    }

    unsigned lanes_per_word() const noexcept { return 64 / lanes_.width(); }
    const word_type* line_of(hash128 h) const noexcept { return words_.data() + probes_.line(h) * words_per_line; }

    /// The key's line; ones[w] gets the low bit of each of the key's counters in word w of it (a
    /// counter probed twice is counted once), 0 for words it does not touch.
    word_type* touched(hash128 h, std::uint64_t (&ones)[words_per_line]) noexcept {
        ones_of(h, ones);
        return words_.data() + probes_.line(h) * words_per_line;
    }
    void ones_of(hash128 h, std::uint64_t (&ones)[words_per_line]) const noexcept {
        std::fill_n(ones, words_per_line, 0);
        probes_.for_each_slot<7>(h, [&](unsigned slot) {
            const unsigned s = slot >> shift_;
            ones[s >> lane_shift_] |= std::uint64_t{1} << ((s & lane_mask_) * lanes_.width());
            return true;
        });
    }

    geometry shape_;
    std::uint64_t seed_;
    counter_lanes lanes_;
    line_probes probes_;
    unsigned shift_ = lanes_.width() == 4 ? 0 : 1;       ///< 7-bit probe fields to slots: 128 or 64 per line
    unsigned lane_shift_ = lanes_.width() == 4 ? 4 : 3;  ///< slot to word: 16 or 8 counters per word
    unsigned lane_mask_ = (1u << lane_shift_) - 1;       ///< slot to lane within its word
    Storage words_;
    detail::event_count rollbacks_;
};

using counting_bloom_filter = basic_counting_bloom_filter<>;

}  // namespace lfbloom
