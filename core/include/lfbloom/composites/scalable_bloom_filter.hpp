// scalable_bloom_filter: a filter that grows when its capacity was guessed too small (Almeida et
// al., "Scalable Bloom Filters", 2007; RedisBloom's BF.RESERVE ... EXPANSION). It is a list of
// sub-filters, blocked Bloom filters or cuckoo filters (scalable_cuckoo_filter): sub-filter i
// holds capacity0 * growth^i keys at rate fpr * (1 - tightening) * tightening^i. Adds go to the
// newest (cuckoo: the oldest with room); queries check all.
//
// Bound: a query is a false positive only if some sub-filter says yes, so the total rate is at
// most the sum of the sub-filters' rates, fpr * (1 - r) * (1 + r + r^2 + ...) < fpr for any
// number of sub-filters (r = tightening). Each sub-filter's rate holds while it has at most its
// capacity of keys; it can overshoot only by the adds that race for its last slots (at most one
// per thread), because an add that finds it full moves on (to the successor; cuckoo: to a later
// sub-filter with room, or the successor).
//
// Cuckoo sub-filters, each of the fingerprint width with the fewest bytes for its rate. Their
// fingerprints (17 bits at most) reach no rate below about 0.003% (basic_cuckoo_filter::size_for),
// so the chain ends (full) at the first sub-filter whose rate would be lower: with tightening 0.5,
// 5 sub-filters at fpr 0.1% and 8 at 1%; a tightening of 0.8-0.9 goes deeper. Every rate above
// 0.057% gives the same sub-filter (14 bits, load 94%), so the sum bound is loose there and
// stats()'s estimate is the one to read. An add always stores a copy (as basic_cuckoo_filter's
// adds do: there is no add-if-absent; it reports new only if no sub-filter matched), in the oldest
// sub-filter with room (below), and moves on to a later one, or a new one, when that refuses it as full.
// remove(key) must know which sub-filter holds the key's copy: the key matches there, and it may
// also match in another one, through a key of the same fingerprint and buckets there (about the
// sum of the other sub-filters' rates) or through its own second copy added after a growth.
// Taking the copy out of the wrong one would lose that other key, so remove erases a copy only
// when exactly one sub-filter matches. When several do, it defers: it records the key's hash in a
// list of pending removes and reports deferred (remove_status; the C API and the bindings report
// it as removed: the remove is taken, and must not be repeated). The copy stays, a false positive,
// until a retry (below) finds the key in exactly one sub-filter (mostly once the other key is
// removed) and erases it there, or the rule of owed copies erases it. An add of a key whose
// remove is pending (looked up when the key matches in several sub-filters) takes that entry
// instead of storing a copy: the copy is there already. So the list holds removes of stored
// copies only, and adding and removing one key again and again cannot grow it.
// Owed copies: a pending remove of key x owes a copy in key h's pairs if every published
// sub-filter that matches x holds it in h's pair (the same fingerprint and bucket pair), since
// x's copy makes one of them match. Such removes are one key to those pairs: a key and its own
// second copy, or two keys that collide wherever either matches (over half of the ambiguous
// removes in the churn test: fastrange puts the keys of a bucket into one bucket of the half-size
// sub-filter before, so keys that collide in one sub-filter often do in its predecessor too, and
// once both are removed neither would ever match in one sub-filter alone). When h's pairs hold
// exactly as many copies as such removes owe (16 at most are looked at), the copies are all
// theirs, and are erased together (a remove that would defer checks first, counting itself).
// No false negative. Invariant: every add not yet cancelled by a remove, and every pending
// remove, owns a distinct stored copy of its key's (fingerprint, pair) in a published sub-filter,
// stored by an add that happens-before it; copies of one pair and fingerprint in one sub-filter
// are interchangeable, so basic_cuckoo_filter's argument makes a query that happens-after a live
// add find a copy. Every step keeps the invariant. An add stores a copy and owns it. A remove R
// cancels an add A that happens-before it (the contract): A's copy is in a sub-filter s published
// before A, so R's scan includes s and s matches; if s is the only match, R erases a copy there
// (A's, or another one whose owner then takes A's); if several match, R defers and A's copy
// becomes R's. R holds the list's mutex to record itself, so every later step on its entry
// happens-after R, which happens-after that copy's store: a retry is R run later; an add A' that
// takes the entry takes its copy, stored before A' began (so found by whatever follows A'); the
// rule of owed copies holds h's pair in every published sub-filter (in index order:
// basic_cuckoo_filter::key_lock), so the counts are exact and fixed, and its p removes own p
// distinct copies there (each in a sub-filter that matches its key, published since its add came
// first, and so in h's pair): if there are p in all, no one else owns any; an eviction (below)
// leaves its copy to no one. Each entry leaves the list once, under the mutex.
// A remove that does not happen-after its add (a key never added, or one whose add is
// still under way) is the misuse basic_cuckoo_filter describes, and worse here: the copy it
// erases in the one sub-filter that matches belongs to another key, and the key's own add, if it
// comes, stores its copy in whichever sub-filter has room, maybe not there, so that other key stays lost.
// Retries: a remove that erased a copy retries one pending remove (round robin: one scan of the
// sub-filters, at most one erase, or the rule of owed copies; only if the list's mutex is free)
// with probability 4 * pending / capacity (the sub-filters' capacities summed; drawn from its
// key's hash), so each pending remove is retried about four times per capacity's worth of removes.
// In the churn test (tests/core/scalable_test.cpp, cuckoo_churn_*: a list of 0 to 6, 3,000 of
// capacity) about 0.1% of removes retry one. retry_pending_removes() retries them all.
// The list holds at most max(64, capacity / 256) entries (24 bytes each; the memory limit does
// not count them). Under churn it holds about r * L / 2 (r: the rate of a key matching where its
// copy is not, L: the live keys; the other key leaves after half a turnover on average): about 3
// per 10,000 live keys per extra sub-filter at 14 bits, so the cap suffices up to r = 0.8% (a
// dozen extra sub-filters) with the live set at capacity. When it is full, a new ambiguous remove
// takes the place of an entry retried 16 times in vain (four capacities' worth of removes: its key
// collides with one that stays; counted as abandoned, its copy stays for good), or, if none has
// been, is refused as ambiguous and changes nothing (counted), as every ambiguous remove was up to 1.9.
// A saved filter carries the list (composite_format.hpp), so the copies it would erase are erased
// after a load too.
// Room: a copy goes to the one sub-filter the key already matches, if it matches in exactly one
// and that one has room, else to the oldest sub-filter with room (below its capacity, and no add
// refused as full there since its last remove), so the slots removes free are used again. Every
// sub-filter still holds at most its capacity (bar the adds racing for its last slot), so the
// bound above holds. A key added again while its first copy's sub-filter has no room goes
// elsewhere and matches in two: its first remove defers, and its second erases both copies (owed).
// Promise: under churn (each key removed once, after its add) the stored copies are the live keys
// and the pending removes, and the chain grows only while they outgrow it: the churn test holds
// 2,500 live keys in 2 sub-filters through 3 million removes (1.9 grew a third after about one
// million, and its copies passed 2,600 after 250,000); 12 million by hand end with 2 sub-filters
// and 2,500 copies. Not promised: copies of
// removes refused or evicted stay (above); removes of keys that collide with keys that never leave
// wait for them, and fill the list if there are many.
//
// Thread safety: add, contains, remove and count (single and batch) and stats run concurrently
// from any threads. With blocked sub-filters all are lock-free, with one exception: an add that
// must size a successor itself waits for any sizing under way in the process (sizing.hpp's
// models are behind a mutex). With cuckoo sub-filters queries are lock-free and adds and removes
// lock one stripe of one sub-filter at a time (basic_cuckoo_filter); the list of pending removes
// has a mutex, which a remove takes only to defer (blocking) or to retry (only if it is free), and
// an add only for a key that matches in several sub-filters while removes are pending (about the
// sum of the other sub-filters' rates of adds).
// Growth: an add that finds the newest sub-filter full and no successor installed builds one and
// installs it with one CAS (racing builders that lose free theirs), then publishes it with one
// CAS of the sub-filter count. So at most one successor is
// installed per sub-filter, adds never pile into a full one (beyond the few that raced its last
// slot), and nothing is freed before the filter is destroyed. To keep that work off the adds,
// the first add past half of the newest's capacity starts a thread that builds the successor
// ahead and then sizes the one after it (sizing takes 1-9 ms, mostly FPR models that
// sizing.hpp keeps for later sizings; the allocation takes microseconds). No add waits for a builder;
// the destructor waits for any still running. Only if the newest fills before its successor is built does an add
// build it itself (sub-filters that fill within a few ms of reaching half capacity: small
// initial capacities); the constructor sizes sub-filter 1 ahead for that reason. Because of these
// threads, a process that forks while a filter may be growing should not use that filter (nor
// size filters) in the child: the child has none of the parent's threads.
// With scalable_options::grow_ahead off, no thread is started and nothing is sized ahead: the
// add that finds the newest full builds the successor (the same CAS), so where a filter grows
// depends on its adds alone (the Redis module's BF values, whose replicas must grow alike).
// Guarantee: if add(key) happens-before contains(key), contains returns true, growth or not: the
// sub-filter the add wrote to is published before the add began and is checked by every later
// query. When the cap on sub-filters or memory is reached, an add of a key not already present
// (in any sub-filter, the newest included; with cuckoo sub-filters, any add that no sub-filter
// has room for) throws error(errc::full) and changes nothing; queries keep working.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "lfbloom/base/sync.hpp"
#include "lfbloom/filters/bloom_filter.hpp"
#include "lfbloom/filters/cuckoo_filter.hpp"

namespace lfbloom {

struct scalable_options {
    double growth = 2.0;             ///< capacity ratio of consecutive sub-filters, in [1, 2^32] (RedisBloom's EXPANSION range)
    double tightening = 0.5;         ///< rate ratio of consecutive sub-filters, in (0, 1)
    std::uint32_t max_filters = 32;  ///< cap on sub-filters, 1..max_sub_filters (64 cuckoo, 255 blocked)
    filter_options filter;           ///< memory_limit caps the sum over sub-filters; seed is shared
    /// Build the next sub-filter ahead on a thread of its own (see Growth at the top of this
    /// file). false: no thread is ever started; the add that finds the newest full builds and
    /// publishes its successor itself, so growth happens at a point fixed by the adds alone (with
    /// one writer, deterministic: a Redis value, a replica replaying its primary's adds).
    bool grow_ahead = true;
};

/// One sub-filter, as RedisBloom's BF.INFO lists them.
struct sub_filter_stats {
    filter_stats filter;     ///< its own statistics (capacity, target_fpr, fill, ...)
    std::uint64_t items = 0; ///< adds that reported a new key while it was the newest (cuckoo: copies stored, less removed)
};

/// What a scalable cuckoo filter's remove did (see the top of this file).
enum class remove_status : std::uint8_t {
    removed,    ///< one copy erased, from the one sub-filter the key matched
    absent,     ///< no sub-filter matched (or a racing remove took the last copy): nothing changed
    ambiguous,  ///< several sub-filters matched and the list of pending removes is full: nothing
                ///< changed, so that no other key is lost
    deferred,   ///< several sub-filters matched: the remove is pending, its copy is erased once the key
                ///< matches in one (or taken by the key's next add); the remove is done, do not repeat it
};

/// A scalable cuckoo filter's removes that found their key in several sub-filters, since creation.
struct pending_remove_stats {
    std::uint64_t deferred = 0;   ///< removes deferred (remove_status::deferred)
    std::uint64_t pending = 0;    ///< deferred removes waiting now (their copies are stored)
    std::uint64_t resolved = 0;   ///< deferred removes a retry completed: it erased their copy (or found
                                  ///< none: a remove of a key never added)
    std::uint64_t taken = 0;      ///< deferred removes an add of their key took (no copy stored)
    std::uint64_t abandoned = 0;  ///< deferred removes evicted from a full list: their copies stay
    std::uint64_t refused = 0;    ///< removes refused as ambiguous (a full list): their copies stay
};

template <class Sub, class Sync>
class basic_scalable_filter;

namespace detail {
template <class Sub, class Sync>
using scalable_base = std::conditional_t<Sub::kind == layout::cuckoo, removable_key_operations<basic_scalable_filter<Sub, Sync>>,
                                         key_operations<basic_scalable_filter<Sub, Sync>>>;
}  // namespace detail

/// Sub: the sub-filter class (a blocked bloom_filter or a basic_cuckoo_filter over Sync's
/// storage); Sync: the concurrency primitives (sync.hpp). tests/relacy model-checks both kinds.
template <class Sub, class Sync = default_sync>
class basic_scalable_filter : public detail::scalable_base<Sub, Sync> {
public:
    using sub_filter = Sub;
    /// Cuckoo sub-filters store a copy per add and remove keys (see the top of this file).
    static constexpr bool removes = Sub::kind == layout::cuckoo;
    /// Cuckoo: 64 (a bit per sub-filter in add_copy's mask; the chain ends by rate well before).
    /// Blocked: 255 (a byte in the file's header); each halves the rate (tightening 0.5), so k
    /// passes what a blocked filter allows at about that many.
    static constexpr std::uint32_t max_sub_filters = removes ? 64 : 255;

    /// Throws invalid_argument for capacity 0, fpr outside (0,1) or NaN, or options outside
    /// their ranges; too_large / out_of_memory if even the first sub-filter does not fit.
    /// invalid_argument too for a rate the first sub-filter cannot reach (cuckoo: below about 0.003%).
    basic_scalable_filter(std::uint64_t initial_capacity, double fpr, const scalable_options& options = {})
        : options_(checked(initial_capacity, fpr, options)), initial_capacity_(initial_capacity), fpr_(fpr) {
        (void)Sub::size_for(initial_capacity, rate_of(0));  // says why, if the first one cannot exist
        std::unique_ptr<stage> first = make(0, options_.filter.memory_limit);
        if (!first) throw error(errc::too_large, "the first sub-filter exceeds the memory limit or the largest filter");
        if (options_.grow_ahead) builders_.reset(new builder[options_.max_filters]);
        first_stages_[0].store(first.release(), std::memory_order_relaxed);   // relaxed: constructor
        size_.store(1, std::memory_order_relaxed);                            // relaxed: constructor
        size_ahead(1);
    }
    /// A deferred remove waiting in the list (see the top of this file), as a saved filter holds it.
    struct pending_remove {
        hash128 hash;
        std::uint32_t retries = 0;  ///< retries that found several matches again
    };
    /// A sub-filter and the adds it counted, as a saved filter holds them.
    struct saved_part {
        sub_filter filter;
        std::uint64_t items = 0;
    };

    /// A filter rebuilt from saved state (composite_format.hpp's loader): `parts` (1 to
    /// options.max_filters, oldest first, each of the options' seed and sized for at least one
    /// key) become its published sub-filters, `pending` its list of pending removes (empty unless
    /// cuckoo, at most the list's cap). Growth goes on from the last part with the options'
    /// rule. Throws invalid_argument as the other constructor does and for parts or a list that
    /// break these rules; the memory limit is the loader's to check. The counts of
    /// pending_removes() start at 0.
    basic_scalable_filter(std::uint64_t initial_capacity, double fpr, const scalable_options& options,
                          std::vector<saved_part> parts, std::vector<pending_remove> pending)
        : options_(checked(initial_capacity, fpr, options)), initial_capacity_(initial_capacity), fpr_(fpr) {
        if (parts.empty() || parts.size() > options_.max_filters)
            throw error(errc::invalid_argument, "a scalable filter has 1 to max_filters sub-filters");
        // Every check and allocation first, while the stages are owned here: a constructor that
        // throws runs no destructor, so nothing may be stored in the slots before the last throw.
        std::vector<std::unique_ptr<stage>> made;
        std::uint64_t total = 0;
        for (std::uint32_t i = 0; i < parts.size(); ++i) {
            const geometry g = parts[i].filter.shape();
            if (parts[i].filter.seed() != seed() || g.capacity == 0)
                throw error(errc::invalid_argument, "sub-filter " + std::to_string(i) + " has another seed or no capacity");
            made.emplace_back(new stage{std::move(parts[i].filter), g.capacity});
            made.back()->items.store(parts[i].items, std::memory_order_relaxed);  // relaxed: constructor
            total += g.capacity;
        }
        if (!pending.empty() && (!removes || pending.size() > pending_cap_for(total)))
            throw error(errc::invalid_argument, "more pending removes than the list holds");
        if (options_.grow_ahead) builders_.reset(new builder[options_.max_filters]);  // a member: freed if the next throws
        (void)slot_for(static_cast<std::uint32_t>(made.size() - 1));  // makes the array of later slots, if needed: the last throw
        for (std::uint32_t i = 0; i < made.size(); ++i) {
            slot_for(i).store(made[i].release(), std::memory_order_relaxed);  // relaxed: constructor
            size_.store(i + 1, std::memory_order_relaxed);                     // relaxed: constructor
        }
        pending_ = std::move(pending);
        pending_size_.store(pending_.size(), std::memory_order_relaxed);  // relaxed: constructor
        size_ahead(filters());
    }
    basic_scalable_filter(const basic_scalable_filter&) = delete;
    basic_scalable_filter& operator=(const basic_scalable_filter&) = delete;
    ~basic_scalable_filter() {
        // exclusive access: no concurrency left, so relaxed loads
        for (std::uint32_t i = 0; builders_ && i < options_.max_filters; ++i)
            if (builders_[i].thread.joinable()) builders_[i].thread.join();
        for (auto& s : first_stages_) delete s.load(std::memory_order_relaxed);
        if (atomic<stage*>* more = more_stages_.load(std::memory_order_relaxed)) {
            for (std::uint32_t i = 0; i + inline_stages < options_.max_filters; ++i) delete more[i].load(std::memory_order_relaxed);
            delete[] more;
        }
    }

    std::uint64_t seed() const noexcept { return options_.filter.seed; }
    double fpr() const noexcept { return fpr_; }  ///< the configured bound on the total rate
    std::uint64_t initial_capacity() const noexcept { return initial_capacity_; }  ///< the first sub-filter's
    /// The options it was made with, the memory limit as set_memory_limit last set it.
    scalable_options options() const noexcept {
        scalable_options o = options_;
        o.filter.memory_limit = memory_limit_.load(std::memory_order_relaxed);  // relaxed: see set_memory_limit
        return o;
    }

    /// Caps the sub-filters' bytes summed (0: no cap) for the growths that follow. Thread-safe
    /// and lock-free; sub-filters that exist stay. A growth racing this call uses either value, and
    /// a growth refused under the old value is tried again under the new one.
    void set_memory_limit(std::uint64_t bytes) noexcept {
        // relaxed: a budget, ordering no other data (a refusal records the limit it was made under:
        // see capped_, so a refusal racing this call cannot outlive it)
        memory_limit_.store(bytes, std::memory_order_relaxed);
    }

    /// Publishes the newest sub-filter's successor now, as the add that finds the newest full does
    /// (a loader re-creating saved parts one at a time). Thread-safe as that add (sizing the new
    /// sub-filter may wait for sizing.hpp's mutex, see Thread safety above); two racing calls may
    /// publish one sub-filter between them. Throws error(errc::full) past the cap on sub-filters or
    /// memory, and out_of_memory, with nothing changed.
    void grow() { advance(filters()); }

    /// Sub-filter `index`, writable, and its count of adds: for code that has the filter to itself
    /// (no other thread uses it while it writes), such as a loader filling a part's words from a
    /// file or a merge. Throws invalid_argument past filters().
    sub_filter& filter_to_fill(std::uint32_t index) {
        (void)filter(index);
        return stage_at(index).filter;
    }
    void set_items(std::uint32_t index, std::uint64_t items) {
        (void)filter(index);
        stage_at(index).items.store(items, std::memory_order_relaxed);  // relaxed: exclusive use, as filter_to_fill
    }

    /// Throws invalid_argument as the constructor does for these arguments; else returns `o`. Pure.
    static const scalable_options& check_options(std::uint64_t capacity, double fpr, const scalable_options& o) {
        return checked(capacity, fpr, o);
    }

    /// Adds a hashed key; true if it was new. Blocked: a key some sub-filter already reports
    /// present is not added again (so duplicates do not fill the newest). Cuckoo: a copy is
    /// stored, in the oldest sub-filter with room, whether or not it is present (see the top of
    /// this file); throws error(too_many_duplicates) as basic_cuckoo_filter does, and a
    /// sub-filter that is full moves the add on to a later one or the successor. Throws
    /// error(errc::full) when no sub-filter has room (blocked: the newest is full) and no
    /// successor may be created, with nothing changed; other errors (out_of_memory while creating
    /// the successor) also leave the filter unchanged.
    bool add_hash(hash128 h) {
        if constexpr (removes) return add_copy(h);
        for (;;) {
            const std::uint32_t n = size_.load(std::memory_order_acquire);  // acquire: pairs with advance's release
            for (std::uint32_t i = 0; i + 1 < n; ++i)
                if (stage_at(i).filter.contains_hash(h)) return false;
            stage& newest = stage_at(n - 1);
            // relaxed: a heuristic trigger; a stale count only shifts growth by a few adds
            const std::uint64_t items = newest.items.load(std::memory_order_relaxed);
            if (items >= newest.capacity / 2) prepare(n);
            if (items >= newest.capacity) {
                if (newest.filter.contains_hash(h)) return false;  // present already: no growth, never "full"
                advance(n);
                continue;
            }
            const bool fresh = newest.filter.add_hash(h);
            // relaxed: the count orders nothing; it only decides when to grow
            if (fresh) newest.items.fetch_add(1, std::memory_order_relaxed);
            return fresh;
        }
    }

    /// Cuckoo: erases one copy of the key if exactly one sub-filter matches it, else defers the
    /// remove (see the top of this file for why, and what deferred promises). Call it only after
    /// the add it cancels (happens-before): see the top of this file. Blocking as
    /// basic_cuckoo_filter's remove (one stripe), and on the list of pending removes to defer.
    remove_status erase_hash(hash128 h) noexcept
        requires removes
    {
        const remove_status status = erase_if_single(h);
        if (status == remove_status::ambiguous) return defer(h);
        // relaxed: a hint; a retry skipped for a stale 0 waits for the next remove
        if (status == remove_status::removed && pending_size_.load(std::memory_order_relaxed) != 0) retry_maybe(h);
        return status;
    }

    remove_status erase(key_view key) noexcept
        requires removes
    {
        return erase_hash(this->hash(key));
    }
    remove_status erase(std::string_view key) noexcept
        requires removes
    {
        return erase(as_key(key));
    }
    remove_status erase(std::uint64_t key) noexcept
        requires removes
    {
        return erase_hash(this->hash(key));
    }

    /// removable_key_operations' remove (and remove_many): true if erase_hash removed a copy or
    /// deferred the remove (done either way: not to be repeated); false for absent and ambiguous
    /// alike: call erase to tell them apart.
    bool remove_hash(hash128 h) noexcept
        requires removes
    {
        const remove_status status = erase_hash(h);
        return status == remove_status::removed || status == remove_status::deferred;
    }

    /// Cuckoo: the copies of the key's fingerprint in its buckets, summed over the sub-filters.
    std::uint32_t count_hash(hash128 h) const noexcept
        requires removes
    {
        std::uint32_t copies = 0;
        for (std::uint32_t i = size_.load(std::memory_order_acquire); i-- > 0;)  // acquire: see advance
            copies += stage_at(i).filter.count_hash(h);
        return copies;
    }

    /// Cuckoo: removes refused as ambiguous so far (with the list of pending removes full).
    std::uint64_t ambiguous_removes() const noexcept { return refused_.get(); }

    /// Cuckoo: the deferred removes, since creation (a snapshot: counts racing removes may be off by a few).
    pending_remove_stats pending_removes() const noexcept
        requires removes
    {
        // relaxed: a statistic
        return {deferred_.get(), pending_size_.load(std::memory_order_relaxed), resolved_.get(), taken_.get(),
                abandoned_.get(), refused_.get()};
    }

    /// Cuckoo: retries every pending remove once now (the top of this file: Retries), and
    /// returns how many are still pending. Blocking: holds the list's mutex throughout.
    std::uint64_t retry_pending_removes() noexcept
        requires removes
    {
        std::lock_guard<typename Sync::mutex> held(pending_lock_);
        // back to front: an entry that leaves is replaced by the last, which was retried already
        // (or, if fewer are left, one still ahead)
        for (std::size_t i = pending_.size(); i-- > 0;)
            if (i < pending_.size()) retry_at(i);
        return pending_.size();
    }

    /// Calls fn(pending) with the list of pending removes (empty unless cuckoo) held still: removes
    /// that would defer, retries, and adds that would take an entry wait until fn returns (a
    /// save, composite_format.hpp, writes the sub-filters and then the list inside it, so each
    /// entry's copy is in the file). Blocking; fn must not call this filter's removes.
    template <class Fn>
    decltype(auto) with_pending_paused(Fn fn) const {
        std::lock_guard<typename Sync::mutex> held(pending_lock_);
        return fn(std::span<const pending_remove>(pending_));
    }

    /// Wait-free: checks every published sub-filter, newest first.
    bool contains_hash(hash128 h) const noexcept {
        for (std::uint32_t i = size_.load(std::memory_order_acquire); i-- > 0;)  // acquire: see advance
            if (stage_at(i).filter.contains_hash(h)) return true;
        return false;
    }

    /// Blocked: every sub-filter's line (a query reads them all, an add all but the newest before
    /// writing it), so their misses overlap. Cuckoo: the sub-filter an add would write (the oldest
    /// with room; see add_copy).
    void prefetch(hash128 h, bool for_write) const noexcept {
        const std::uint32_t n = size_.load(std::memory_order_acquire);  // acquire: see advance
        if constexpr (!removes) {
            for (std::uint32_t i = 0; i < n; ++i) stage_at(i).filter.prefetch(h, for_write && i + 1 == n);
            return;
        }
        std::uint32_t i = n - 1;
        if constexpr (removes)
            for (i = 0; i + 1 < n && !has_room(stage_at(i));) ++i;
        stage_at(i).filter.prefetch(h, for_write);
    }

    /// Number of sub-filters published so far (grows, never shrinks).
    std::uint32_t filters() const noexcept { return size_.load(std::memory_order_acquire); }  // acquire: see advance

    /// Sub-filter `index` (0 = oldest); throws invalid_argument past filters().
    sub_filter_stats stats(std::uint32_t index) const {
        (void)filter(index);
        const stage& s = stage_at(index);
        return {summary(s.filter), s.items.load(std::memory_order_relaxed)};  // relaxed: a statistic
    }

    /// The adds sub-filter `index` counted (stats(index).items without the scan); throws as stats(index) does.
    std::uint64_t items(std::uint32_t index) const {
        (void)filter(index);
        return stage_at(index).items.load(std::memory_order_relaxed);  // relaxed: a statistic
    }

    /// Sub-filter `index` itself (as stats(index)), for its shape; throws as stats(index) does.
    const sub_filter& filter(std::uint32_t index) const {
        if (index >= filters()) throw error(errc::invalid_argument, "no sub-filter " + std::to_string(index));
        return stage_at(index).filter;
    }

    /// The whole filter: sums of slots, bytes, capacity, set slots and estimated counts;
    /// target_fpr is the configured bound, estimated_fpr 1 - prod(1 - each one's estimate), and
    /// near_capacity is on once the newest is near capacity and no successor may be created.
    filter_stats stats() const {
        filter_stats total;
        double miss = 1.0;
        const std::uint32_t n = filters();
        for (std::uint32_t i = 0; i < n; ++i) {
            const filter_stats s = stats(i).filter;
            total.kind = s.kind;
            total.slot_bits = s.slot_bits;
            total.slots += s.slots;
            total.hashes = s.hashes;
            total.bytes += s.bytes;
            total.capacity += s.capacity;
            total.slots_set += s.slots_set;
            total.estimated_count += s.estimated_count;
            miss *= 1.0 - s.estimated_fpr;
            if (i + 1 == n) total.near_capacity = s.near_capacity && !may_grow(n);
        }
        total.target_fpr = fpr_;
        total.fill_ratio = static_cast<double>(total.slots_set) / static_cast<double>(total.slots);
        total.estimated_fpr = 1.0 - miss;
        return total;
    }

private:
    template <class T>
    using atomic = typename Sync::template atomic<T>;

    struct stage {
        sub_filter filter;
        std::uint64_t capacity;
        alignas(cache_line_bytes) atomic<std::uint64_t> items{0};
        atomic<bool> prepared{false};
        atomic<std::uint64_t> frees{0};       ///< cuckoo: removes so far
        atomic<std::uint64_t> refused_at{0};  ///< cuckoo: 1 + frees as an add that found no free slot read it
    };

    /// add_hash with cuckoo sub-filters: the copy goes where the top of this file says (Room).
    bool add_copy(hash128 h) {
        std::uint32_t from = 0;  // sub-filters before it refused this add as full
        for (;;) {
            const std::uint32_t n = size_.load(std::memory_order_acquire);  // acquire: pairs with advance's release
            stage& newest = stage_at(n - 1);
            // relaxed: a heuristic trigger; a stale count only shifts growth by a few adds
            if (newest.items.load(std::memory_order_relaxed) >= newest.capacity / 2) prepare(n);
            std::uint64_t matches = 0;  // bit i: sub-filter i reports the key (n <= 64)
            for (std::uint32_t i = 0; i < n; ++i) matches |= std::uint64_t{stage_at(i).filter.contains_hash(h)} << i;
            // a remove of the key pending: take it (the top of this file). relaxed: a hint; missing
            // the entry costs a copy, which the pending remove erases later
            if (std::popcount(matches) > 1 && pending_size_.load(std::memory_order_relaxed) != 0 && take_pending(h))
                return false;
            std::uint32_t target = static_cast<std::uint32_t>(std::countr_zero(matches));
            if (!std::has_single_bit(matches) || target < from || !has_room(stage_at(target)))
                for (target = from; target < n && !has_room(stage_at(target));) ++target;
            if (target == n) {
                advance(n);
                continue;
            }
            stage& s = stage_at(target);
            // Counted before the copy exists, so a remove of it never takes the count below zero.
            // relaxed: the copy's stripe lock orders this before that remove's decrement
            s.items.fetch_add(1, std::memory_order_relaxed);
            const std::uint64_t frees = s.frees.load(std::memory_order_relaxed);  // relaxed: a hint (has_room)
            const cuckoo_status status = s.filter.insert_hash(h);
            if (status == cuckoo_status::added_new || status == cuckoo_status::added)
                return status == cuckoo_status::added_new && matches == 0;
            s.items.fetch_sub(1, std::memory_order_relaxed);  // relaxed: as above
            if (status == cuckoo_status::too_many_duplicates)
                throw error(errc::too_many_duplicates, "a sub-filter holds " + std::to_string(2 * s.filter.slots_per_bucket()) +
                                                           " copies of this key's fingerprint in its buckets already");
            // relaxed: a hint; a remove since `frees` was read has already made this stale, so a
            // refusal never hides a slot freed after the search began
            s.refused_at.store(frees + 1, std::memory_order_relaxed);
            from = target + 1;  // full before its capacity: no free slot within the search bound
        }
    }

    /// Erases one copy of the key if exactly one published sub-filter matches it: removed; absent
    /// if none does; ambiguous, changing nothing, if several do (the top of this file).
    remove_status erase_if_single(hash128 h) noexcept {
        const std::uint32_t n = size_.load(std::memory_order_acquire);  // acquire: see advance
        std::uint32_t match = n;
        for (std::uint32_t i = 0; i < n; ++i) {
            if (!stage_at(i).filter.contains_hash(h)) continue;
            if (match != n) return remove_status::ambiguous;
            match = i;
        }
        if (match == n || !stage_at(match).filter.remove_hash(h)) return remove_status::absent;
        stage_at(match).items.fetch_sub(1, std::memory_order_relaxed);  // relaxed: a growth heuristic, as in add
        stage_at(match).frees.fetch_add(1, std::memory_order_relaxed);  // relaxed: a hint (has_room)
        return remove_status::removed;
    }

    /// The most entries the list of pending removes holds (see the top of this file).
    std::size_t pending_cap() const noexcept { return pending_cap_for(total_capacity()); }
    static std::size_t pending_cap_for(std::uint64_t total_capacity) noexcept {
        return std::max<std::uint64_t>(min_pending_removes, total_capacity / 256);
    }

    /// The sum of the published sub-filters' capacities (sizes the list and its retries).
    std::uint64_t total_capacity() const noexcept {
        std::uint64_t total = 0;
        for (std::uint32_t i = size_.load(std::memory_order_acquire); i-- > 0;)  // acquire: see advance
            total += stage_at(i).capacity;
        return total;
    }

    /// Records a remove of a key that matches in several sub-filters (the top of this file: its
    /// place in a full list, or refused), unless it completes pending removes of its key at once.
    remove_status defer(hash128 h) noexcept {
        std::lock_guard<typename Sync::mutex> held(pending_lock_);
        if (settle_together(h, 1)) return remove_status::removed;
        if (pending_.size() >= pending_cap()) {
            std::size_t oldest = 0;  // the entry retried most often
            for (std::size_t i = 1; i < pending_.size(); ++i)
                if (pending_[i].retries > pending_[oldest].retries) oldest = i;
            if (pending_.empty() || pending_[oldest].retries < abandon_after) {
                refused_.add();
                return remove_status::ambiguous;
            }
            pending_[oldest] = {h, 0};
            abandoned_.add();
            deferred_.add();
            return remove_status::deferred;
        }
        try {
            pending_.push_back({h, 0});
        } catch (...) {  // no memory: as a full list
            refused_.add();
            return remove_status::ambiguous;
        }
        pending_size_.store(pending_.size(), std::memory_order_relaxed);  // relaxed: a hint (see its readers)
        deferred_.add();
        return remove_status::deferred;
    }

    /// An add of `h`: takes one pending remove of it, if there is one.
    bool take_pending(hash128 h) noexcept {
        std::lock_guard<typename Sync::mutex> held(pending_lock_);
        for (std::size_t i = 0; i < pending_.size(); ++i) {
            if (pending_[i].hash != h) continue;
            drop(i);
            taken_.add();
            return true;
        }
        return false;
    }

    /// After a remove of `h` erased a copy: retries one pending remove with probability
    /// 4 * pending / capacity, drawn from h (the top of this file: Retries), if the list is free.
    void retry_maybe(hash128 h) noexcept {
        const double pending = static_cast<double>(pending_size_.load(std::memory_order_relaxed));  // relaxed: a hint
        const double draw = static_cast<double>(h.h2 & 0xffff'ffff) * 0x1p-32;  // the fingerprint comes from h2's high bits
        if (draw * static_cast<double>(total_capacity()) >= 4 * pending) return;
        std::unique_lock<typename Sync::mutex> held(pending_lock_, std::try_to_lock);
        if (!held.owns_lock() || pending_.empty()) return;
        if (pending_cursor_ >= pending_.size()) pending_cursor_ = 0;
        retry_at(pending_cursor_++);
    }

    /// Retries pending remove i (the list's mutex held). Done, it leaves the list with any others
    /// it completes, each replaced by the last entry.
    void retry_at(std::size_t i) noexcept {
        const hash128 h = pending_[i].hash;
        if (erase_if_single(h) != remove_status::ambiguous) {
            drop(i);
            resolved_.add();
        } else if (!settle_together(h, 0)) {
            ++pending_[i].retries;
        }
    }

    /// Whether a pending remove of x owes a copy in h's pairs: every published sub-filter (the
    /// first n) that matches x holds it in h's pair, so x's copy, which makes one match, is there.
    bool owes_in_pairs_of(hash128 x, hash128 h, std::uint32_t n) const noexcept {
        // keys of one fingerprint, of 14 bits or more, have h2 this close (fastrange): a quick no
        constexpr std::uint64_t near = ~std::uint64_t{0} / ((std::uint64_t{1} << 14) - 1) + 1;
        if ((x.h2 > h.h2 ? x.h2 - h.h2 : h.h2 - x.h2) > near) return false;
        for (std::uint32_t i = 0; i < n; ++i) {
            const sub_filter& f = stage_at(i).filter;
            if (!f.same_place(x, h) && f.contains_hash(x)) return false;
        }
        return true;
    }

    /// The rule of owed copies (the top of this file), the list's mutex held: the pending removes
    /// that owe a copy in h's pairs, with `extra` more (a remove about to defer), owe one each; if
    /// h's pairs in the published sub-filters hold exactly as many, it erases them all and drops
    /// those entries. True if it did.
    bool settle_together(hash128 h, std::uint64_t extra) noexcept {
        const std::uint32_t n = size_.load(std::memory_order_acquire);  // acquire: see advance
        std::size_t members[max_owing_group];
        std::size_t count = 0;
        for (std::size_t i = 0; i < pending_.size(); ++i) {
            if (!owes_in_pairs_of(pending_[i].hash, h, n)) continue;
            if (count == max_owing_group) return false;  // too many to be worth it: left as they are
            members[count++] = i;
        }
        const std::uint64_t owed = count + extra;
        if (owed < 2 || !settle_from(h, 0, n, owed, 0)) return false;  // one owed copy: erase_if_single's case
        while (count > 0) {  // from the last: an entry moved into a dropped one's place is no member
            drop(members[--count]);
            resolved_.add();
        }
        return true;
    }

    /// Holds h's pair in sub-filters i..n-1 (one frame each, in index order: see key_lock), and
    /// once all are held erases every copy in them if they hold `owed` in all. True if it did.
    bool settle_from(hash128 h, std::uint32_t i, std::uint32_t n, std::uint64_t owed, std::uint64_t counted) noexcept {
        if (i == n) return counted == owed;
        stage& s = stage_at(i);
        auto held = s.filter.lock_key(h);
        const std::uint32_t copies = held.copies();
        if (counted + copies > owed || !settle_from(h, i + 1, n, owed, counted + copies)) return false;
        for (std::uint32_t c = 0; c < copies; ++c) {
            (void)held.erase();  // exact: the lock is held since the count
            s.items.fetch_sub(1, std::memory_order_relaxed);  // relaxed: as in erase_if_single
            s.frees.fetch_add(1, std::memory_order_relaxed);
        }
        return true;
    }

    /// Removes entry i (the list's mutex held), moving the last one to its place.
    void drop(std::size_t i) noexcept {
        pending_[i] = pending_.back();
        pending_.pop_back();
        pending_size_.store(pending_.size(), std::memory_order_relaxed);  // relaxed: a hint (see its readers)
    }

    /// Cuckoo: whether adds should try the sub-filter: below its capacity, and no add has found
    /// it full since its last remove (so adds do not repeat a failing search each time).
    static bool has_room(const stage& s) noexcept {
        // relaxed: hints; a stale one costs a failed insert or skips to a later sub-filter
        return s.items.load(std::memory_order_relaxed) < s.capacity &&
               s.refused_at.load(std::memory_order_relaxed) != s.frees.load(std::memory_order_relaxed) + 1;
    }

    static filter_stats summary(const Sub& f) {
        if constexpr (removes) return as_filter_stats(f.stats());
        else return f.stats();
    }
    static std::uint64_t bytes_of(const Sub& f) noexcept {
        if constexpr (removes) return f.bytes();
        else return f.words().size_bytes();
    }

    static const scalable_options& checked(std::uint64_t capacity, double fpr, const scalable_options& o) {
        if (capacity == 0) throw error(errc::invalid_argument, "initial capacity must be positive");
        if (!(fpr > 0.0 && fpr < 1.0)) throw error(errc::invalid_argument, "fpr must be in (0, 1)");
        if (!(o.growth >= 1.0 && o.growth <= 0x1p32)) throw error(errc::invalid_argument, "growth must be in [1, 2^32]");
        if (!(o.tightening > 0.0 && o.tightening < 1.0))
            throw error(errc::invalid_argument, "tightening must be in (0, 1)");
        if (o.max_filters < 1 || o.max_filters > max_sub_filters)
            throw error(errc::invalid_argument, "max_filters must be in 1.." + std::to_string(max_sub_filters));
        return o;
    }

    const stage& stage_at(std::uint32_t i) const noexcept { return *stage_pointer(i); }
    stage& stage_at(std::uint32_t i) noexcept { return *stage_pointer(i); }

    /// Sub-filter i (i < size_, read with acquire): relaxed loads suffice, because its array and
    /// the stage were installed (acq_rel CASes) before size_ was raised past i.
    stage* stage_pointer(std::uint32_t i) const noexcept {
        if (i < inline_stages) return first_stages_[i].load(std::memory_order_relaxed);
        return more_stages_.load(std::memory_order_relaxed)[i - inline_stages].load(std::memory_order_relaxed);
    }

    /// Where sub-filter n's pointer lives (n < max_filters): in the object for the first few, else
    /// in an array the first growth past them makes and installs with one CAS (a loser frees its
    /// own), so a small filter carries no room for 255 pointers. Throws bad_alloc, nothing changed.
    atomic<stage*>& slot_for(std::uint32_t n) {
        if (n < inline_stages) return first_stages_[n];
        atomic<stage*>* more = more_stages_.load(std::memory_order_acquire);  // acquire: pairs with the CAS below
        if (more == nullptr) {
            std::unique_ptr<atomic<stage*>[]> made(new atomic<stage*>[options_.max_filters - inline_stages]);
            for (std::uint32_t i = 0; i + inline_stages < options_.max_filters; ++i)
                made[i].store(nullptr, std::memory_order_relaxed);  // relaxed: published by the CAS
            // acq_rel: release publishes the nulls; acquire (on failure) pairs with the winner's release
            if (more_stages_.compare_exchange_strong(more, made.get(), std::memory_order_acq_rel)) more = made.release();
        }
        return more[n - inline_stages];
    }

    bool may_grow(std::uint32_t n) const noexcept {
        // relaxed (both): advisory; a stale value costs one more attempt, or one refusal under a limit just replaced
        return n < options_.max_filters && capped_.load(std::memory_order_relaxed) != memory_limit_.load(std::memory_order_relaxed) + 1;
    }

    /// Sub-filter n-1 is full: publishes sub-filter n with one CAS of size_, after installing it
    /// if nobody has yet; the caller retries its add there. Throws error(errc::full) when n may
    /// never exist, out_of_memory if the system refused it now; nothing changed either way.
    [[gnu::noinline]] void advance(std::uint32_t n) {  // noinline: cold, kept out of flattened batch loops
        if (size_.load(std::memory_order_acquire) > n) return;  // acquire: see below
        install_if_missing(n);
        std::uint32_t expected = n;
        // acq_rel: publishes the stage to adds and queries; losers find it published
        size_.compare_exchange_strong(expected, n + 1, std::memory_order_acq_rel);
    }

    /// Makes sure sub-filter n is installed: builds a candidate and installs it with one CAS (a
    /// loser of the race frees its own). Throws as advance does when there is none on return.
    void install_if_missing(std::uint32_t n) {
        atomic<stage*>* slot = n < options_.max_filters ? &slot_for(n) : nullptr;
        if (slot != nullptr && slot->load(std::memory_order_acquire) != nullptr) return;  // acquire: see below
        std::unique_ptr<stage> candidate;
        const std::uint64_t limit = memory_limit_.load(std::memory_order_relaxed);  // relaxed: see set_memory_limit
        std::string why = n < options_.max_filters ? "refused under this memory limit before" : "the cap on sub-filters";
        if (may_grow(n)) candidate = make(n, limit, &why);
        if (!candidate) {
            capped_.store(limit + 1, std::memory_order_relaxed);  // relaxed: advisory, checked by may_grow
            if (slot != nullptr && slot->load(std::memory_order_acquire) != nullptr) return;  // acquire: see below
            throw error(errc::full, "scalable filter is full: no sub-filter " + std::to_string(n) + ": " + why);
        }
        stage* expected = nullptr;
        // acq_rel: release publishes the complete stage; acquire pairs with a winner's release
        if (slot->compare_exchange_strong(expected, candidate.get(), std::memory_order_acq_rel))
            (void)candidate.release();
    }

    /// At half of sub-filter n-1's capacity, the first add to notice starts a thread that builds
    /// n ahead and sizes n+1, so n is usually installed when n-1 fills and no add pays for it.
    /// One CAS on a flag keeps the other adds out: builders_[n].thread has one writer. The add
    /// also joins earlier builders that have finished (see builder) and never waits for a
    /// running one.
    [[gnu::noinline]] void prepare(std::uint32_t n) {  // noinline: as advance
        if (!options_.grow_ahead || !may_grow(n)) return;
        stage& previous = stage_at(n - 1);
        bool expected = false;
        // relaxed: the CAS only elects the one add that starts builders_[n], whose own state
        // orders the thread object for its joiner (see builder)
        if (previous.prepared.load(std::memory_order_relaxed) ||
            !previous.prepared.compare_exchange_strong(expected, true, std::memory_order_relaxed))
            return;
        for (std::uint32_t i = 1; i < n; ++i) builders_[i].join_if_finished();
        try {
            builders_[n].thread = typename Sync::thread([this, n] {
                try {
                    install_if_missing(n);
                    size_ahead(n + 1);
                } catch (...) {
                    // full or no memory now: advance() reports it when sub-filter n-1 is really full
                }
                builders_[n].state.fetch_or(builder::finished, std::memory_order_release);  // release: see builder
            });
            builders_[n].state.fetch_or(builder::started, std::memory_order_release);  // release: see builder
        } catch (...) {
            // no thread to be had: advance() builds sub-filter n when n-1 is full
        }
    }

    /// Sizes sub-filter n and discards the result: what makes sizing slow (FPR models) stays
    /// cached in sizing.hpp, so building n later costs microseconds.
    void size_ahead(std::uint32_t n) const noexcept {
        if (!options_.grow_ahead || n >= options_.max_filters || !(capacity_of(n) <= 0x1p53)) return;  // as make(n): no such sub-filter
        try {
            (void)sub_filter::size_for(static_cast<std::uint64_t>(capacity_of(n)), rate_of(n));
        } catch (...) {
            // make(n) will say that n cannot exist
        }
    }

    double capacity_of(std::uint32_t n) const noexcept {
        return std::ceil(static_cast<double>(initial_capacity_) * std::pow(options_.growth, n));
    }
    double rate_of(std::uint32_t n) const noexcept {
        return fpr_ * (1.0 - options_.tightening) * std::pow(options_.tightening, n);
    }

    /// A new sub-filter n, or null if it may never exist (memory limit, or a size or rate beyond
    /// what one filter can have). Throws only when the system refuses memory.
    std::unique_ptr<stage> make(std::uint32_t n, std::uint64_t limit, std::string* why = nullptr) const {
        const auto refuse = [&](std::string reason) {
            if (why != nullptr) *why = std::move(reason);
            return nullptr;
        };
        const double capacity = capacity_of(n), rate = rate_of(n);
        if (!(capacity <= 0x1p53 && rate > 0.0)) return refuse("its capacity or rate is beyond what a filter can have");
        geometry g;
        try {
            g = sub_filter::size_for(static_cast<std::uint64_t>(capacity), rate);
        } catch (const error& e) {
            return refuse(e.what());  // too many hashes or slots for one filter
        }
        std::uint64_t used = 0;  // sub-filters 0..n-1, all installed before anyone builds n
        for (std::uint32_t i = 0; i < n; ++i) used += bytes_of(stage_at(i).filter);
        if (limit != 0 && used >= limit)  // the constructor checks the rest
            return refuse("the sub-filters before it use " + std::to_string(used) + " bytes, the memory limit");
        filter_options o = options_.filter;
        o.memory_limit = limit == 0 ? 0 : limit - used;
        try {
            return std::unique_ptr<stage>(new stage{sub_filter(g, o), g.capacity});
        } catch (const error& e) {
            if (e.code() == errc::too_large) return refuse(e.what());  // over the memory limit, or larger than this machine
            throw;
        }
    }

    scalable_options options_;
    std::uint64_t initial_capacity_;
    double fpr_;
    atomic<std::uint64_t> memory_limit_{options_.filter.memory_limit};  ///< see set_memory_limit
    atomic<std::uint32_t> size_{0};
    /// 1 + the memory limit under which a growth was refused (0: none), so may_grow refuses
    /// until the limit changes: a refusal never outlives the limit it was made under.
    atomic<std::uint64_t> capped_{0};

    static constexpr std::size_t min_pending_removes = 64;
    static constexpr std::uint32_t abandon_after = 16;  ///< retries after which a full list may evict it
    static constexpr std::size_t max_owing_group = 16;  ///< the rule of owed copies looks at no larger group
    mutable typename Sync::mutex pending_lock_;  // mutable: a save holds it (with_pending_paused)
    std::vector<pending_remove> pending_;  ///< under pending_lock_, unordered
    std::size_t pending_cursor_ = 0;       ///< under pending_lock_: the next entry retry_maybe retries
    atomic<std::uint64_t> pending_size_{0};  ///< pending_.size(), stored under the lock; read without it as a hint
    detail::event_count deferred_, resolved_, taken_, abandoned_, refused_;
    static constexpr std::uint32_t inline_stages = 8;
    std::array<atomic<stage*>, inline_stages> first_stages_{};  ///< sub-filters 0..7
    atomic<atomic<stage*>*> more_stages_{nullptr};             ///< sub-filters 8..max_filters-1 (slot_for)
    /// The thread that builds one sub-filter. Its creator sets `started` once the thread object
    /// is assigned, the thread sets `finished` as its last act (both release); whoever then moves
    /// the state to `joined` with one CAS (acquire: the assignment and the thread's work come
    /// first) is the only one to join it. The destructor joins what is left.
    struct builder {
        static constexpr unsigned started = 1, finished = 2, joined = 4;
        typename Sync::thread thread;
        atomic<unsigned> state{0};

        void join_if_finished() {
            unsigned expected = started | finished;
            if (state.load(std::memory_order_relaxed) == expected &&  // relaxed: the CAS decides
                state.compare_exchange_strong(expected, expected | joined, std::memory_order_acquire))
                thread.join();
        }
    };
    /// [i] builds sub-filter i; joined at the latest by the destructor. max_filters of them, made
    /// by the constructor with grow_ahead (else null: no thread is ever started).
    std::unique_ptr<builder[]> builders_;
};

template <class Sync = default_sync>
using basic_scalable_bloom_filter = basic_scalable_filter<bloom_filter<blocked_layout, typename Sync::storage>, Sync>;
template <class Sync = default_sync>
using basic_scalable_cuckoo_filter = basic_scalable_filter<basic_cuckoo_filter<Sync>, Sync>;

using scalable_bloom_filter = basic_scalable_bloom_filter<>;
using scalable_cuckoo_filter = basic_scalable_cuckoo_filter<>;

}  // namespace lfbloom
