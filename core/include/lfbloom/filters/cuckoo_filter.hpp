// cuckoo_filter: a cuckoo filter (Fan et al., CoNEXT 2014) that any number of threads share.
// Queries never write and never wait; adds and removes lock one stripe of buckets at a time.
// Unlike a Bloom filter it removes keys, and at rates below about 0.2% it is smaller than our
// blocked filter: 13.6 bits per key at 0.1% (blocked: 15.5), 17 at 0.01% (blocked: 22; a 4-bit
// counting filter about 120).
//
// Thread safety: contains, count, insert/add, remove (single and batch), copy_buckets, copy, ==,
// stats, same_place and lock_key (its key_lock holds one stripe, as a writer does) may run
// concurrently from any threads; contains and count are lock-free. clear() may too, but
// updates racing with it may be lost. Moving or destroying the filter needs exclusive access.
//
// Table: `buckets` 64-bit words (any count: never rounded up to a power of two), each a bucket
// of N slots of F-bit fingerprints, 0 meaning empty, in one of three formats (cuckoo_buckets.hpp):
// four 16-bit lanes (F = 16, N = 4, the fastest), or semi-sorted, 4 x 17 bits or 5 x 14 bits, whose
// high nibbles are stored as one rank. for_capacity picks the smallest table for the rate, and
// among equal ones the plain format: 5 x 14 from about 0.046% up, 4 x 16 from 0.0115% to there,
// 4 x 17 below (down to about 0.003%). A key's hash (MurmurHash3 with the seed, as every filter)
// gives its fingerprint f = fastrange(h2, 2^F - 1) + 1, never 0, and its first bucket
// i1 = fastrange(h1, buckets). Its second bucket is i2 = (j(f) - i1) mod buckets, with
// j(f) = fastrange(f * 0x9E3779B97F4A7C15, buckets): each bucket of a pair is the other's through
// f alone, so a stored fingerprint can move without its key. Keys with equal f and pair are
// indistinguishable; an absent key matches a present one with probability about
// 2 * N * load / (2^F - 1). All copies of f in one bucket belong to one pair, so to one stripe
// (below): writers change a bucket's word by CAS, and a semi-sorted write re-sorts the whole word,
// but the copies of f in it change only under f's stripe lock, whatever else moves around them.
//
// Adds store a copy of f in a free slot of i1 or i2. When both are full, a breadth-first search
// (at most max_search_nodes buckets) finds a chain of fingerprints each of which can move to its
// other bucket, ending at a free slot; they are moved from the free end back, each move a
// copy into the free slot, then an erase of the original. A fingerprint is therefore never out
// of the table, and a full filter refuses the add (full) having lost nothing.
//
// Sizing. for_capacity(n, p) takes the smallest table whose load at n keys is at most max_load
// (0.94), at most the load at which fpr_at reaches p, and within the small-table rule below, so
// that n random distinct keys are all stored but about once in a million filters (issue 37).
// Small tables refuse keys well below 0.94, for two reasons. (1) A key's two buckets are one
// bucket with probability 1/B (B buckets); N + 1 keys whose one bucket is the same cannot all be
// stored, and n keys hold such N + 1 with probability at most B * C(n, N + 1) * B^-2(N + 1): sized
// at 0.94, 5 keys of 16 bits got 2 buckets and about 1 filter in 500 refused the fifth. (2) Nearly
// full, a small table has few free slots, and the bounded search (which in a small table visits
// the same buckets again and again) misses them: of 16-bit tables filled to their first refusal,
// 1 in a million refused below load 0.87 at 64 buckets, 0.91 at 128, 0.93 at 256 (10^6 to 10^7
// tables each). So for_capacity also keeps the bound of (1) at most 1e-7 and the load at most
// 0.96 - 1.5 / sqrt(slots), which is 0.94 at 5,625 slots: from about 5,300 keys on the sizes are
// max_load's alone, as before (at most 3% more memory from 1,000 keys, 1.5% from 2,000). Larger
// tables refused no key below 0.944 in 1.2 million tables of 1,536 to 4,096 buckets; what keeps
// the chance small in far larger ones is how fast the search's refusals vanish below 0.95
// (docs/PERFORMANCE.md). No size promises anything for keys chosen to collide: n keys with one
// fingerprint and one pair are refused from the (2N + 1)th on, whatever the size.
//
// Concurrency. Bucket pairs are grouped into stripes (stripe = min(i1, i2) mod stripes), each
// with one word: bits 22-63 a version, bits 0-21 a writer lock in one process (0 free, 1 held).
// A filter several processes share (a shared file, or filter_options::process_shared) locks a
// stripe with a robust process-shared mutex instead (below, "Processes"), and its word's low
// bits stay 0. Invariants, for each fingerprint f
// and bucket pair P with stripe S:
//  (1) the copies of f in P are written only under S's lock (adds, removes and the moves of a
//      kick all lock the stripe of the pair they change, one stripe at a time, so writers never
//      deadlock), so writers count them exactly, and S's critical sections are totally ordered;
//  (2) every critical section leaves at least one copy per key of (f, P) added and not removed:
//      add puts one, remove takes one, a move copies before it erases;
//  (3) a write that erases a copy is preceded, in its critical section, by a release store
//      that bumps S's version, and is itself a release CAS.
// A reader loads the stripe word (acquire), both buckets (acquire), then the stripe word again.
// If it found no copy and the version did not change, "absent" is true of every key of (f, P)
// whose add happened-before the read and which was not removed. Proof: let E be the erase latest
// in S's lock order whose value (or a later one) a bucket load returned. Its bump is sequenced
// before E, which synchronizes with that acquire load, so the bump happens-before the second
// stripe load and precedes its value in modification order; the first load returned the same
// version, so the bump is at or before it, and that acquire load makes every write before the
// bump, in E's critical section and in every earlier one, happen-before both bucket loads (E, the
// section's last bucket write, was read). The loads thus see the pair as E's critical section
// left it, plus copies added later and no later erase; by
// (2) that state holds a copy of every resident key. (Without any such E the loads see every
// add that happened-before them and no erase.) A reader that sees the version move retries, at
// most max_read_retries times, and then answers "maybe" (true): a possible false positive,
// never a false negative; stats() counts both.
//
// Without the version, a reader that loads i1, then i2, misses a fingerprint a concurrent kick
// moves from i2 to i1 between its loads (copied into i1 after the first load, erased from i2
// before the second): with swap-out kicks and with copy-then-erase alike (tests/relacy/cuckoo.cpp
// shows it, with that guard removed).
//
// Processes. In shared memory each stripe also has a 64-byte lock record: a robust mutex
// (Sync::robust_mutex, POSIX PTHREAD_MUTEX_ROBUST) and a move's intent. The kernel knows which
// thread holds a robust mutex, so two filter objects over one mapping (two opens of one file in
// one process) exclude each other as two processes do, and when a holder dies the next locker
// gets the lock with owner_died. A holder may die between any two of its atomic writes; by (2)
// every prefix of a critical section keeps each resident key's copy, and the only damage is a
// move cut between its copy and its erase: a second copy (a key counted twice). A move therefore
// records (fp, from, to, and the copies of fp in each) in the record before its copy and clears
// it after its erase, and the next locker after a death (or the first opener of a file nobody
// has open, which makes every lock anew) finishes such a move: if `to` holds one copy more and
// `from` as many as recorded, it bumps and erases, as the move would have. Every other prefix
// needs nothing: an add's put and a remove's erase are single CAS writes, and a bump without its
// erase only makes readers retry. Writers wait for a lock at most lock_timeout() (then
// error(timeout)); readers never lock.
//
// Removing a key that was never added, or one key more often than it was added, can remove the
// copy of another key with the same fingerprint and pair: a false negative for that key. As with
// the counting filter, that misuse, not concurrency, is the one way to get one. For the same
// reason there is no add-if-absent: a key not stored because an indistinguishable key was there
// would vanish when that key is removed.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "lfbloom/base/error.hpp"
#include "lfbloom/base/key.hpp"
#include "lfbloom/base/options.hpp"
#include "lfbloom/base/sizing.hpp"
#include "lfbloom/base/storage.hpp"
#include "lfbloom/base/sync.hpp"
#include "lfbloom/filters/cuckoo_buckets.hpp"

namespace lfbloom {

/// What an add did.
enum class cuckoo_status : std::uint8_t {
    added_new,            ///< stored; no copy of its fingerprint was in its buckets before
    added,                ///< stored; its buckets held a copy already (this key's, or one it cannot be told from)
    full,                 ///< no free slot within the search bound: nothing stored, nothing lost. Also at
                          ///< any load for a key whose two buckets are filled by 2N copies of another
                          ///< fingerprint (duplicates pin their pair: no kick can move them out)
    too_many_duplicates,  ///< its buckets hold 2N copies already (N if its two buckets are one; N slots
                          ///< per bucket, 4 or 5): refused
};

/// A snapshot read while other threads may write; the event counts are since creation.
struct cuckoo_stats {
    std::uint64_t buckets = 0;             ///< 64-bit buckets
    std::uint32_t slots_per_bucket = 4;    ///< 4, or 5 for 14-bit fingerprints
    std::uint32_t fingerprint_bits = 16;   ///< 14, 16 or 17: the bucket format (cuckoo_buckets.hpp)
    std::uint64_t bytes = 0;               ///< memory of the buckets and the stripe words
    std::uint64_t capacity = 0;            ///< keys it was sized for (0 if built from a bucket count)
    double target_fpr = 0;                 ///< rate it was sized for (0 if built from a bucket count)
    std::uint64_t fingerprints = 0;        ///< occupied slots
    double load = 0;                       ///< fingerprints / slots
    double expected_fpr = 0;               ///< of an absent key at this load
    bool near_capacity = false;            ///< load past near_capacity_fraction of max_load: adds will soon be refused
    std::uint64_t kicks = 0;               ///< fingerprints moved to their other bucket to make room
    std::uint64_t failed_inserts = 0;      ///< adds refused as full
    std::uint64_t duplicate_refusals = 0;  ///< adds refused as too_many_duplicates
    std::uint64_t reader_retries = 0;      ///< queries redone because their stripe's version moved
    std::uint64_t reader_gave_up = 0;      ///< queries answered "maybe" after max_read_retries retries
};

/// Sync: the concurrency policy (sync.hpp); tests/relacy instantiates it with the model checker's.
template <class Sync = default_sync>
class basic_cuckoo_filter : public removable_key_operations<basic_cuckoo_filter<Sync>> {
    using storage = typename Sync::storage;

public:
    using word_type = std::remove_cvref_t<decltype(*std::declval<storage&>().data())>;

    static constexpr layout kind = layout::cuckoo;  ///< as files record it
    static constexpr const char* name = "cuckoo";   ///< kind_name's
    static constexpr double max_load = 0.94;        ///< load at capacity when the rate and the table's size allow it
    static constexpr double min_load = 0.5;         ///< below this a Bloom filter is the better tool
    static constexpr unsigned max_search_nodes = 512;
    static constexpr unsigned max_read_retries = 8;
    /// How long a writer of a shared filter waits for a stripe lock by default (set_lock_timeout).
    static constexpr std::uint32_t default_lock_timeout_ms = 60000;
    /// Words of a shared filter's lock record per stripe: the robust mutex, then a move's intent.
    static constexpr std::uint64_t lock_record_words = 8;

    /// Fingerprint bits with 4 slots per bucket, else 5 (14 bits); 0 for a width no format has.
    static constexpr unsigned slots_for(std::uint32_t fingerprint_bits) noexcept {
        return fingerprint_bits == 16 || fingerprint_bits == 17 ? 4 : fingerprint_bits == 14 ? 5 : 0;
    }

    /// The false-positive rate of an absent key at `load`: each of the 2N slots of its two
    /// buckets holds, with probability `load`, a fingerprint that matches with probability 1/(2^F - 1).
    static double fpr_at(double load, std::uint32_t fingerprint_bits = 16) noexcept {
        return -std::expm1(2.0 * slots_for(fingerprint_bits) * load * log_miss(fingerprint_bits));
    }

    /// Sized to hold `capacity` keys at a load of at most max_load, at most the load at which
    /// fpr_at reaches `fpr`, and lower in small tables, with the smallest table of the three formats
    /// (the top of this file): `capacity` random distinct keys are all stored but about once in a
    /// million filters (measured, to where the top says); keys chosen to collide can defeat any size.
    /// Throws invalid_argument (capacity 0; fpr outside (0, 1) or NaN; fpr below
    /// fpr_at(min_load, 17), about 0.003%: use a Bloom filter), too_large or out_of_memory.
    static basic_cuckoo_filter for_capacity(std::uint64_t capacity, double fpr, const filter_options& options = {}) {
        return basic_cuckoo_filter(size_for(capacity, fpr), options);
    }
    /// The same with a chosen format: fingerprint_bits 14, 16 or 17 (0: the smallest, as above).
    /// Throws invalid_argument also for another width, or a rate that width cannot reach.
    static basic_cuckoo_filter for_capacity(std::uint64_t capacity, double fpr, std::uint32_t fingerprint_bits,
                                            const filter_options& options = {}) {
        return basic_cuckoo_filter(size_for(capacity, fpr, fingerprint_bits), options);
    }

    /// The shape for_capacity gives (N slots per bucket, 2 hashes, capacity, fpr, F), without
    /// allocating anything (shared files, planning). Throws what for_capacity throws but memory errors.
    static geometry size_for(std::uint64_t capacity, double fpr, std::uint32_t fingerprint_bits = 0) {
        if (capacity == 0) throw error(errc::invalid_argument, "capacity must be at least 1");
        if (!(fpr > 0 && fpr < 1)) throw error(errc::invalid_argument, "false-positive rate must be in (0, 1)");
        if (fingerprint_bits != 0) checked_bits(fingerprint_bits);
        geometry best;
        double best_buckets = 0;
        bool too_many = false;
        for (const std::uint32_t bits : {16u, 14u, 17u}) {  // the plain format first: it wins ties
            if (fingerprint_bits != 0 && bits != fingerprint_bits) continue;
            const unsigned n = slots_for(bits);
            const double load = std::min(max_load, std::log1p(-fpr) / (2.0 * n * log_miss(bits)));  // fpr_at(load, bits) = fpr
            if (load < min_load) continue;
            double buckets = std::ceil(static_cast<double>(capacity) / (n * load));
            while (!holds(buckets, n, capacity)) ++buckets;  // below 5,300 keys only, 19 steps at most
            if (best.slots != 0 && buckets >= best_buckets) continue;
            if (buckets > max_buckets) {  // another format may still fit
                too_many = true;
                continue;
            }
            best = {static_cast<std::uint64_t>(buckets) * n, 2, capacity, fpr, bits};
            best_buckets = buckets;
        }
        if (best.slots == 0 && too_many) throw error(errc::too_large, "capacity needs more than 2^56 buckets");
        if (best.slots == 0) {
            const std::uint32_t bits = fingerprint_bits == 0 ? 17 : fingerprint_bits;
            throw error(errc::invalid_argument, "a cuckoo filter with " + std::to_string(bits) +
                                                    "-bit fingerprints cannot reach a rate below " +
                                                    std::to_string(fpr_at(min_load, bits)) +
                                                    (fingerprint_bits == 0 || bits == 17 ? "; use a Bloom filter" : "; try 17 bits or a Bloom filter"));
        }
        return best;
    }

    /// The filter for_capacity(capacity, fpr, fingerprint_bits) would make, without allocating it
    /// (planned()): its buckets' and stripe words' bytes, and its rate at capacity keys.
    static filter_stats plan(std::uint64_t capacity, double fpr, std::uint32_t fingerprint_bits = 0) {
        const geometry g = size_for(capacity, fpr, fingerprint_bits);
        const std::uint64_t buckets = g.slots / slots_for(g.slot_bits);
        return planned(kind, g.slots, g.slot_bits, g.hashes, (buckets + stripes_for(buckets)) * 8, g.capacity,
                       g.target_fpr, fpr_at(static_cast<double>(g.capacity) / static_cast<double>(g.slots), g.slot_bits));
    }

    /// Exactly `buckets` buckets (1 to 2^56) of 4 x 16-bit slots, all empty; with
    /// options.process_shared, in memory that processes forked later share, with robust stripe
    /// locks (lock_words(buckets) more words). Throws invalid_argument, too_large (over
    /// options.memory_limit or the machine), out_of_memory, or io (the system refused a lock).
    explicit basic_cuckoo_filter(std::uint64_t buckets, const filter_options& options = {})
        : basic_cuckoo_filter(buckets, 16, options) {}

    /// The same in the format of `fingerprint_bits` (14, 16 or 17; else invalid_argument).
    basic_cuckoo_filter(std::uint64_t buckets, std::uint32_t fingerprint_bits, const filter_options& options = {})
        : bits_(checked_bits(fingerprint_bits)),
          buckets_(checked_buckets(buckets, options)),
          stripe_mask_(stripes_for(buckets) - 1),
          seed_(options.seed),
          table_(buckets, 0, options.process_shared),
          stripes_(stripe_mask_ + 1, 0, options.process_shared),
          locks_(options.process_shared ? storage(lock_words(buckets), 0, true) : storage()),
          shared_(options.process_shared) {
        if (shared_) init_locks();
    }

    /// Throws invalid_argument unless a cuckoo filter can have shape g with fingerprints of
    /// `slot_bits` (the file's slot width), as the constructor below checks (a loader checks a
    /// header with it before allocating). Pure.
    static void validate(const geometry& g, std::uint32_t slot_bits) {
        geometry shape = g;
        shape.slot_bits = slot_bits;
        (void)checked_shape(shape);
    }
    /// What a file of this class records (as bloom_filter's): rule 4, fingerprints of 14, 16 or
    /// 17 bits, whole buckets of 4 or 5 slots. Pure.
    static constexpr bool takes_rule(probe_rule r) noexcept { return r == probe_rule::cuckoo; }
    static constexpr bool takes_slot_bits(std::uint32_t slot_bits) noexcept { return slots_for(slot_bits) != 0; }
    static constexpr std::uint64_t line_slots(std::uint32_t slot_bits) noexcept { return slots_for(slot_bits); }

    /// A filter of shape `g` as shape() reports it (loading a file): g.slots / N buckets of the
    /// format of g.slot_bits (0 for 16), two hashes (buckets per key), and the capacity and rate it
    /// was sized for (0 and 0 if none). Throws invalid_argument for a shape no cuckoo filter has,
    /// and what the constructors above throw.
    basic_cuckoo_filter(const geometry& g, const filter_options& options)
        : basic_cuckoo_filter(checked_shape(g) / slots_for(bits_of(g)), bits_of(g), options) {
        capacity_ = g.capacity;
        target_fpr_ = g.target_fpr;
    }

    /// A filter of shape `g` over words the caller mapped (a shared file, shared_memory.hpp):
    /// `table` holds its g.slots / N buckets, `stripes` its stripe_words(g.slots / N) stripe words,
    /// as that file's last user left them, and `locks` its lock_words(g.slots / N) lock records.
    /// Without `locks` (empty storage), only queries may be used: the writer gate throws read_only
    /// (a read-only mapping). The caller makes the locks usable before any write: init_locks()
    /// when no other process maps them, else check_locks(). `lease` is kept while the filter
    /// lives (shared_memory.hpp's open file, whose flock marks the locks in use). Throws
    /// invalid_argument for a bad shape or word count.
    basic_cuckoo_filter(const geometry& g, const filter_options& options, storage table, storage stripes, storage locks,
                        detail::file_lease lease = {})
        : bits_(bits_of(g)),
          buckets_(checked_shape(g) / slots_for(bits_)),
          stripe_mask_(stripes_for(buckets_) - 1),
          seed_(options.seed),
          capacity_(g.capacity),
          target_fpr_(g.target_fpr),
          table_(std::move(table)),
          stripes_(std::move(stripes)),
          locks_(std::move(locks)),
          read_only_(locks_.size() == 0),
          shared_(!read_only_),
          lease_(std::move(lease)) {
        if (buckets_ == 0 || table_.size() != buckets_ || stripes_.size() != stripe_mask_ + 1 ||
            (shared_ && locks_.size() != lock_words(buckets_)))
            throw error(errc::invalid_argument, "the mapped words do not match the cuckoo filter's shape");
    }

    /// The stripe words of a filter of `buckets` buckets (a shared file holds them after the buckets).
    static std::uint64_t stripe_words(std::uint64_t buckets) noexcept { return stripes_for(buckets); }
    /// The lock records' words of a shared filter of `buckets` buckets (lock_record_words a stripe).
    static std::uint64_t lock_words(std::uint64_t buckets) noexcept { return stripes_for(buckets) * lock_record_words; }

    // ---- queries: lock-free, wait-free bar max_read_retries, and they write nothing but the
    // retry statistics on the rare path where they retry ----

    /// True if the key may have been added (see the top of this file for the exact promise).
    bool contains_hash(hash128 h) const noexcept {
        return visit([&](auto format) { return read<decltype(format)>(h, false) != 0; });
    }

    /// The copies of the key's fingerprint in its buckets: at least the number of times it and
    /// keys indistinguishable from it were added and not removed (with adds that happened-before
    /// the call); exact when no write races with the call, else possibly one more per move in
    /// flight. 0 means certainly absent.
    std::uint32_t count_hash(hash128 h) const noexcept {
        return visit([&](auto format) { return read<decltype(format)>(h, true); });
    }

    // ---- writers: lock the stripes they change, one at a time. A shared filter's writers throw
    // error(timeout) after waiting lock_timeout() for a lock, and error(corrupt) for a lock record
    // that is not a lock (a damaged file); an in-process filter's never throw for its locks. ----

    /// Stores a copy of the key's fingerprint (see cuckoo_status). Of racing adds of one absent
    /// key exactly one returns added_new. Blocking: waits for writers of the same stripes.
    cuckoo_status insert_hash(hash128 h) {
        return visit([&](auto format) { return insert_with<decltype(format)>(h); });
    }

    /// key_operations' add: true if added_new, false if added; throws error(full) or
    /// error(too_many_duplicates) for those statuses (add_many stops there: the keys before it
    /// were added).
    bool add_hash(hash128 h) {
        switch (insert_hash(h)) {
            case cuckoo_status::added_new: return true;
            case cuckoo_status::added: return false;
            case cuckoo_status::full: throw error(errc::full, "cuckoo filter is full: no free slot within the search bound");
            case cuckoo_status::too_many_duplicates: break;
        }
        throw error(errc::too_many_duplicates, "cuckoo filter holds " + std::to_string(2 * slots_per_bucket()) +
                                                   " copies of this key's fingerprint in its buckets already");
    }

    /// Erases one copy of the key's fingerprint; false ("not present", nothing changed) if there
    /// is none. Exact (under the stripe's lock), so it never misses a copy a kick is moving.
    /// Removing a key that was not added can erase another key's copy: see the top of this file.
    bool remove_hash(hash128 h) {
        return visit([&](auto format) { return remove_with<decltype(format)>(h); });
    }

    /// True if keys a and b cannot be told apart here: the same fingerprint in the same bucket
    /// pair, so that every copy of either is a copy of both.
    bool same_place(hash128 a, hash128 b) const noexcept {
        const slots x = place(a), y = place(b);
        return x.fp == y.fp && (x.first == y.first || x.first == y.second);
    }

    class key_lock;
    /// Locks the key's bucket pair (its stripe) for writers until the key_lock is destroyed (see
    /// there). Blocking, as remove_hash. Not for a filter mapped read-only.
    key_lock lock_key(hash128 h) { return key_lock(*this, h); }

    /// Prefetches both buckets of the key and its stripe word (batch calls, key_operations).
    void prefetch(hash128 h, bool for_write) const noexcept {
        const slots s = place(h);
        const void* first = &bucket(s.first);
        const void* second = &bucket(s.second);
        const void* stripe = &stripe_of(s.first, s.second);
        if (for_write) {
            __builtin_prefetch(first, 1);
            __builtin_prefetch(second, 1);
            __builtin_prefetch(stripe, 1);
        } else {
            __builtin_prefetch(first, 0);
            __builtin_prefetch(second, 0);
            __builtin_prefetch(stripe, 0);
        }
        // GCC 12 (-O1 and up) found this function free of side effects and deleted its calls
        // before inlining them (its cd-dce pass): no prefetch was ever issued (issue 40). An empty
        // volatile asm is a side effect it must keep; it costs no instruction.
        asm volatile("" : : "r"(first), "r"(second), "r"(stripe));
    }

    /// A batch's second prefetch, for an add: if both of the key's buckets are full now, prefetches
    /// the other buckets of their fingerprints, where make_room's search looks first (its misses
    /// were most of an add's time near capacity, issue 40). Call some keys after prefetch(h, true),
    /// when its lines are in. A hint: it changes nothing, and its loads are relaxed (load_word), as
    /// make_room's search's, whose answers the add re-checks under the stripe lock.
    void prefetch_room(hash128 h) const noexcept {
        visit([&](auto format) {
            using Format = decltype(format);
            const slots s = place(h);
            const std::uint64_t first = load_word(bucket(s.first)), second = load_word(bucket(s.second));
            if (Format::empty(first) != 0 || Format::empty(second) != 0) return;
            for (unsigned slot = 0; slot < Format::slots; ++slot) {
                const void* a = &bucket(other_bucket(s.first, Format::at(first, slot)));
                const void* b = &bucket(other_bucket(s.second, Format::at(second, slot)));
                __builtin_prefetch(a, 0);
                __builtin_prefetch(b, 0);
                asm volatile("" : : "r"(a), "r"(b));  // kept, as in prefetch
            }
        });
    }

    cuckoo_status insert(key_view key) { return insert_hash(this->hash(key)); }
    cuckoo_status insert(std::string_view key) { return insert(as_key(key)); }
    cuckoo_status insert(std::uint64_t key) { return insert_hash(this->hash(key)); }
    /// Copies the buckets into `out` (buckets() words) as one state of the table: takes every
    /// stripe's lock in turn, so no move is half done in the copy (writers wait; readers do not).
    /// Throws invalid_argument if `out` is not buckets() words long.
    void copy_buckets(std::span<std::uint64_t> out) const {
        if (out.size() != buckets_) throw error(errc::invalid_argument, "the copy needs one word per bucket");
        with_writers_paused([&](std::span<const word_type> table) {
            for (std::uint64_t i = 0; i < buckets_; ++i) out[i] = load_word(table[i]);
        });
    }

    /// A private copy (this process's memory, not shared, no memory limit) of the same shape and
    /// seed, holding one state of the table, taken as copy_buckets takes it. Its event counts
    /// (stats) start at 0. Throws read_only for a filter mapped read-only, out_of_memory, too_large.
    basic_cuckoo_filter copy() const {
        refuse_if_read_only();  // before allocating the copy
        basic_cuckoo_filter out(shape(), filter_options{.seed = seed_});
        with_writers_paused([&](std::span<const word_type> table) { detail::copy_words(table, out.words()); });
        return out;
    }

    /// Same buckets, format and seed, and the same table (buckets are canonical, so equal words
    /// are equal fingerprint multisets per bucket); capacity and rate are not compared. Compares
    /// one state of each (copy_buckets of b, then a under its writer gate: never both gates at
    /// once), so racing writers make the answer one of some pair of states. Allocates b's table
    /// once; throws read_only for a filter mapped read-only, out_of_memory.
    friend bool operator==(const basic_cuckoo_filter& a, const basic_cuckoo_filter& b) {
        if (&a == &b) return true;
        if (a.buckets_ != b.buckets_ || a.bits_ != b.bits_ || a.seed_ != b.seed_) return false;
        a.refuse_if_read_only();  // before allocating b's table
        std::vector<std::uint64_t> theirs(b.buckets_);
        b.copy_buckets(theirs);
        return a.with_writers_paused([&](std::span<const word_type> table) {
            // relaxed: under the gate, as in copy()
            for (std::uint64_t i = 0; i < a.buckets_; ++i)
                if (load_word(table[i]) != theirs[i]) return false;
            return true;
        });
    }

    /// The writer gate: takes every stripe's lock in order, calls fn(buckets) (the bucket words,
    /// read them with load_word) while no add, remove or move can change them, and releases the
    /// locks, also if fn throws. Writers wait meanwhile; readers do not. Saving uses it, so a saved
    /// table holds every fingerprint (serialization.hpp). fn must not write to this filter.
    template <class Fn>
    decltype(auto) with_writers_paused(Fn&& fn) const {
        refuse_if_read_only();
        struct gate {
            const basic_cuckoo_filter& f;
            std::uint64_t held = 0;  ///< stripes 0 to held - 1 are locked
            explicit gate(const basic_cuckoo_filter& filter) : f(filter) {
                try {
                    for (; held <= f.stripe_mask_; ++held) f.lock(held);
                } catch (...) {
                    release();
                    throw;
                }
            }
            ~gate() { release(); }
            void release() noexcept {
                for (std::uint64_t i = 0; i < held; ++i) f.unlock(i, load_word(f.stripe_word(i)));  // relaxed: only the holder writes
            }
        } held(*this);
        return std::forward<Fn>(fn)(std::span<const word_type>(table_.data(), buckets_));
    }

    void refuse_if_read_only() const {
        if (read_only_) throw error(errc::read_only, "a cuckoo filter mapped read-only cannot pause its writers (save it from a writer)");
    }

    /// Makes every stripe lock of a shared filter anew (unlocked), first finishing any move a
    /// dead holder left half done (the top of this file), and clears lock bits that an older
    /// lfbloom's pid locks left in the stripe words (with a bump). Only while no other thread or
    /// process uses the locks: a new lock area, or a file its first opener found unused (flock).
    /// Throws io if the system refuses to make a lock.
    void init_locks() {
        for (std::uint64_t i = 0; i <= stripe_mask_; ++i) {
            repair(i);
            if (!Sync::robust_mutex::init(lock_record(i))) throw error(errc::io, "cannot make a process-shared stripe lock");
            const std::uint64_t w = load_word(stripe_word(i));
            if ((w & owner_mask) != 0)  // release: as an unlock
                word_ref(stripe_word(i)).store((w & ~owner_mask) + version_unit, boost::memory_order_release);
        }
    }

    /// Checks a shared filter's stripe words as another process in use left them: their lock bits
    /// are 0 (locks are the records' mutexes). Throws corrupt otherwise: no write could have set them.
    void check_locks() const {
        for (std::uint64_t i = 0; i <= stripe_mask_; ++i)
            if ((load_word(stripe_word(i)) & owner_mask) != 0)
                throw error(errc::corrupt, "stripe word " + std::to_string(i) + " of a shared cuckoo filter has lock bits set");
    }

    /// How long a writer of a shared filter waits for a stripe lock before it throws
    /// error(timeout): default_lock_timeout_ms unless set. Not thread-safe: set it before the
    /// filter is shared between threads. In-process filters never time out.
    std::uint32_t lock_timeout() const noexcept { return lock_timeout_ms_; }
    void set_lock_timeout(std::uint32_t milliseconds) noexcept { lock_timeout_ms_ = milliseconds; }
    /// Whether its stripe locks are robust process-shared mutexes (shared file or memory).
    bool process_shared() const noexcept { return shared_; }

    /// Writes a shared file's buckets and stripe words to disk (msync): durability across a crash
    /// of the machine only (word_array::flush). Thread-safe.
    void flush() const {
        table_.flush();
        stripes_.flush();
    }

    /// Empties the table. Not safe against concurrent writers (their copies may survive or vanish).
    void clear() noexcept {
        for (std::uint64_t i = 0; i < buckets_; ++i) store_word(bucket(i), 0);
    }

    /// Reads every bucket (O(buckets)); thread-safe, a snapshot as loose as filter_stats'.
    cuckoo_stats stats() const noexcept {
        cuckoo_stats st;
        st.buckets = buckets_;
        st.slots_per_bucket = slots_per_bucket();
        st.fingerprint_bits = bits_;
        st.bytes = bytes();
        st.capacity = capacity_;
        st.target_fpr = target_fpr_;
        visit([&](auto format) {
            for (std::uint64_t i = 0; i < buckets_; ++i)
                st.fingerprints += format.slots - format.empty(load_word(bucket(i)));
        });
        st.load = static_cast<double>(st.fingerprints) / static_cast<double>(buckets_ * slots_per_bucket());
        st.expected_fpr = fpr_at(st.load, bits_);
        st.near_capacity = st.load > near_capacity_fraction * max_load;
        st.kicks = kicks_.get();
        st.failed_inserts = failed_inserts_.get();
        st.duplicate_refusals = duplicate_refusals_.get();
        st.reader_retries = reader_retries_.get();
        st.reader_gave_up = reader_gave_up_.get();
        return st;
    }

    std::uint64_t buckets() const noexcept { return buckets_; }
    /// 4, or 5 in the 14-bit format.
    unsigned slots_per_bucket() const noexcept { return slots_for(bits_); }
    /// The fingerprint width, 14, 16 or 17: the bucket format, and the slot width files record
    /// (bloom_filter's counter_bits() is its 1).
    std::uint32_t counter_bits() const noexcept { return bits_; }
    /// Memory of the buckets and the stripe words (as plan() counts it; a shared filter's lock
    /// records add lock_words(buckets()) * 8 bytes).
    std::uint64_t bytes() const noexcept { return table_.bytes() + stripes_.bytes(); }
    std::uint64_t seed() const noexcept { return seed_; }
    /// Its one hash and probe rule (docs/FORMAT.md): the fingerprint and pairing at the top of this file.
    static constexpr probe_rule probes() noexcept { return probe_rule::cuckoo; }
    std::uint64_t capacity() const noexcept { return capacity_; }
    /// As files record it: N slots per bucket, 2 hashes (candidate buckets), capacity, rate, F.
    geometry shape() const noexcept { return {buckets_ * slots_per_bucket(), 2, capacity_, target_fpr_, bits_}; }
    /// The bucket words (tests; a raw view, not a consistent copy: see copy_buckets).
    std::span<word_type> words() noexcept { return {table_.data(), buckets_}; }
    std::span<const word_type> words() const noexcept { return {table_.data(), buckets_}; }

private:
    static constexpr std::uint64_t max_buckets = std::uint64_t{1} << 56;
    static constexpr std::uint64_t max_stripes = 4096;
    static constexpr unsigned owner_bits = 22;  ///< a stripe word's in-process lock (22 bits: older files held pids there)
    static constexpr std::uint64_t owner_mask = (std::uint64_t{1} << owner_bits) - 1;
    static constexpr std::uint64_t version_unit = std::uint64_t{1} << owner_bits;
    using robust_mutex = typename Sync::robust_mutex;
    // A lock record: the robust mutex, then a move's intent: a tag (intent_valid, fp in bits 0-17,
    // the copies of fp in `from` in bits 20-23 and in `to` in bits 24-27), `from`, `to`.
    static constexpr std::uint64_t intent_at = robust_mutex::words;
    static constexpr std::uint64_t intent_valid = std::uint64_t{1} << 63;
    static_assert(intent_at + 3 <= lock_record_words);
    // The small-table rule (holds, the top of this file).
    static constexpr double self_pair_odds = 1e-7;
    static constexpr double small_table_load = 0.96;
    static constexpr double small_table_margin = 1.5;

    /// A key's fingerprint and buckets.
    struct slots {
        std::uint64_t fp;
        std::uint64_t first;
        std::uint64_t second;
    };

    /// Whether `buckets` buckets of `n` slots are enough for `keys` random keys by the small-table
    /// rule at the top of this file: (1) the chance that n + 1 keys have one bucket as both their
    /// buckets, at most buckets * C(keys, n + 1) * buckets^-2(n + 1), is at most self_pair_odds;
    /// (2) the load is at most small_table_load - small_table_margin / sqrt(slots). From 5,625
    /// slots on every load up to max_load passes both: (2) is 0.94 there and rises, and the bound
    /// of (1), about 1e-12 there, falls as buckets^-N.
    static bool holds(double buckets, unsigned n, std::uint64_t keys) noexcept {
        if (keys <= n) return true;  // any table takes n keys: no set of buckets gets more than its slots
        const double slots = buckets * n, k = static_cast<double>(keys);
        if (k > slots * small_table_load - small_table_margin * std::sqrt(slots)) return false;
        double odds = buckets;
        for (unsigned i = 0; i <= n && odds > 0; ++i) odds *= std::max(k - i, 0.0) / ((i + 1) * buckets * buckets);
        return odds <= self_pair_odds;
    }

    /// log(1 - 1 / (2^F - 1)): the log of the chance that an occupied slot does not match an absent key.
    static double log_miss(std::uint32_t fingerprint_bits) noexcept {
        return std::log1p(-1 / (std::ldexp(1.0, static_cast<int>(fingerprint_bits)) - 1));
    }
    static std::uint32_t checked_bits(std::uint32_t fingerprint_bits) {
        if (slots_for(fingerprint_bits) == 0) throw error(errc::invalid_argument, "cuckoo fingerprints are 14, 16 or 17 bits");
        return fingerprint_bits;
    }
    static std::uint32_t bits_of(const geometry& g) { return checked_bits(g.slot_bits == 0 ? 16 : g.slot_bits); }
    static std::uint64_t checked_buckets(std::uint64_t buckets, const filter_options& options) {
        if (buckets == 0 || buckets > max_buckets) throw error(errc::invalid_argument, "bucket count must be in [1, 2^56]");
        check_memory((buckets + stripes_for(buckets) + (options.process_shared ? lock_words(buckets) : 0)) * 8, options.memory_limit);
        return buckets;
    }
    /// The slot count of a valid shape(); throws invalid_argument otherwise.
    static std::uint64_t checked_shape(const geometry& g) {
        const bool sized = g.capacity > 0 && g.target_fpr > 0 && g.target_fpr < 1;  // false for NaN
        if (g.slots % slots_for(bits_of(g)) != 0 || g.hashes != 2 || !(sized || (g.capacity == 0 && g.target_fpr == 0)))
            throw error(errc::invalid_argument,
                        "not the shape of a cuckoo filter (4 or 5 slots per bucket, 2 hashes, a rate in (0, 1))");
        return g.slots;
    }
    /// One stripe per 16 buckets, a power of two, at most max_stripes (32 KiB of stripe words).
    static std::uint64_t stripes_for(std::uint64_t buckets) noexcept {
        return std::bit_ceil(std::clamp<std::uint64_t>(buckets / 16, 1, max_stripes));
    }

    /// Calls fn(bucket format) (cuckoo_buckets.hpp): each operation is compiled once per format.
    template <class Fn>
    decltype(auto) visit(Fn&& fn) const {
        switch (bits_) {
            case 14: return fn(detail::semi_sorted<5>{});
            case 17: return fn(detail::semi_sorted<4>{});
            default: return fn(detail::plain_bucket{});
        }
    }

    slots place(hash128 h) const noexcept {
        const std::uint64_t fp = fastrange64(h.h2, (std::uint64_t{1} << bits_) - 1) + 1;
        const std::uint64_t first = fastrange64(h.h1, buckets_);
        return {fp, first, other_bucket(first, fp)};
    }
    /// (j(fp) - b) mod buckets: an involution, so either bucket of a pair names the other.
    std::uint64_t other_bucket(std::uint64_t b, std::uint64_t fp) const noexcept {
        const std::uint64_t j = fastrange64(fp * 0x9E3779B97F4A7C15ULL, buckets_);
        return j >= b ? j - b : j + buckets_ - b;
    }

    template <class Format>
    static unsigned copies_in(const slots& s, std::uint64_t first, std::uint64_t second) noexcept {
        return Format::count(first, s.fp) + (s.first == s.second ? 0 : Format::count(second, s.fp));
    }

    word_type& bucket(std::uint64_t i) const noexcept { return table_.data()[i]; }
    word_type& stripe_word(std::uint64_t i) const noexcept { return stripes_.data()[i]; }
    /// The stripe of the bucket pair {a, b}.
    std::uint64_t stripe_index(std::uint64_t a, std::uint64_t b) const noexcept { return std::min(a, b) & stripe_mask_; }
    word_type& stripe_of(std::uint64_t a, std::uint64_t b) const noexcept { return stripe_word(stripe_index(a, b)); }
    word_type* lock_record(std::uint64_t i) const noexcept { return locks_.data() + i * lock_record_words; }

    // Bucket loads through load_word are relaxed, though buckets lose bits here (storage.hpp's
    // argument does not apply): each is made under the stripe lock whose acquire orders it after
    // every write to the copies it decides on (insert, remove, move, copy_buckets), or is a hint
    // re-checked under that lock (make_room), or a statistic (stats).

    /// Acquire: see the proof at the top of this file (reader's loads).
    static std::uint64_t load_acquire(const word_type& w) noexcept {
        return word_ref(const_cast<word_type&>(w)).load(boost::memory_order_acquire);
    }

    /// The reader of the proof at the top: copies found (stops at one unless `all`).
    template <class Format>
    std::uint32_t read(hash128 h, bool all) const noexcept {
        const slots s = place(h);
        const word_type& stripe = stripe_of(s.first, s.second);
        for (unsigned attempt = 0;; ++attempt) {
            const std::uint64_t before = load_acquire(stripe) >> owner_bits;
            const std::uint64_t first = load_acquire(bucket(s.first));  // two statements: the order is the model's
            const std::uint32_t found = copies_in<Format>(s, first, load_acquire(bucket(s.second)));
            if (found != 0 && !all) return found;
            // relaxed: the acquire loads above already keep this load after them
            const std::uint64_t after = word_ref(const_cast<word_type&>(stripe)).load(boost::memory_order_relaxed) >> owner_bits;
            if (before == after) return found;
            if (attempt == max_read_retries) {
                reader_gave_up_.add();
                return std::max<std::uint32_t>(found, 1);
            }
            reader_retries_.add();
        }
    }

    /// Holds stripe i's writer lock for its lifetime: the lock bits of its word in one process,
    /// its record's robust mutex when shared (the top of this file).
    class stripe_lock {
    public:
        stripe_lock(const basic_cuckoo_filter& f, std::uint64_t i) : f_(f), i_(i), held_(f.lock(i)) {}
        stripe_lock(const stripe_lock&) = delete;
        stripe_lock& operator=(const stripe_lock&) = delete;
        ~stripe_lock() { f_.unlock(i_, held_); }

        /// Counts up the version before an erase. Release: a reader whose first stripe load returns
        /// it sees every write before it (a move's copy). A plain store: only the holder writes.
        void bump() noexcept {
            held_ += version_unit;
            word_ref(f_.stripe_word(i_)).store(held_, boost::memory_order_release);
        }
        std::uint64_t stripe() const noexcept { return i_; }

    private:
        const basic_cuckoo_filter& f_;
        std::uint64_t i_;
        std::uint64_t held_;
    };

    /// Locks stripe i and returns its word as the holder sees it. In one process: spins (Sync::yield
    /// between looks) until the lock bits were clear and this thread set them, acquire (the
    /// previous holder's writes happen-before this critical section). Shared: the robust mutex, whose
    /// acquire does the same, repairing what a dead holder left first (see the top of this file).
    std::uint64_t lock(std::uint64_t i) const {
        word_type& word = stripe_word(i);
        if (!shared_) {
            auto&& ref = word_ref(word);
            std::uint64_t seen = ref.load(boost::memory_order_relaxed);  // relaxed: only the CAS below must order
            for (;;) {
                if ((seen & owner_mask) == 0) {
                    // failure relaxed: a failed CAS only reloads the word to look again
                    if (ref.compare_exchange_weak(seen, seen | 1, boost::memory_order_acquire, boost::memory_order_relaxed)) return seen | 1;
                    continue;  // seen is the new value
                }
                Sync::yield();
                seen = ref.load(boost::memory_order_relaxed);
            }
        }
        word_type* record = lock_record(i);
        switch (robust_mutex::lock(record, lock_timeout_ms_)) {
            case robust_mutex::outcome::acquired: break;
            case robust_mutex::outcome::owner_died:
                repair(i);
                robust_mutex::consistent(record);
                break;
            case robust_mutex::outcome::timed_out:
                throw error(errc::timeout, "a writer of this shared cuckoo filter waited " + std::to_string(lock_timeout_ms_) +
                                               " ms for a stripe lock another thread or process holds");
            case robust_mutex::outcome::broken:
                throw error(errc::corrupt, "stripe lock " + std::to_string(i) + " of this shared cuckoo filter is not a usable lock");
        }
        return load_word(word);  // relaxed: the mutex's acquire orders it after every holder's stores
    }

    /// Unlocks stripe i, whose word the holder left as `held`. Release: this critical section's
    /// writes happen-before the next holder's and before any reader's acquire load of the value
    /// stored (in one process; shared, the bumps are release stores already, and the mutex orders
    /// the rest for the next holder).
    void unlock(std::uint64_t i, std::uint64_t held) const noexcept {
        if (shared_) robust_mutex::unlock(lock_record(i));
        else word_ref(stripe_word(i)).store(held & ~owner_mask, boost::memory_order_release);
    }

    /// Records, before a move's copy, what repair() needs to finish it. Relaxed: only the lock's
    /// next holder reads it, after the mutex's (or the dead holder's exit's) ordering; the tag last.
    void note_move(std::uint64_t i, std::uint64_t fp, std::uint64_t from, std::uint64_t to, unsigned in_from, unsigned in_to) const noexcept {
        word_type* intent = lock_record(i) + intent_at;
        store_word(intent[1], from);
        store_word(intent[2], to);
        store_word(intent[0], intent_valid | fp | std::uint64_t{in_from} << 20 | std::uint64_t{in_to} << 24);
    }

    /// Finishes the move stripe i's record names, if it was cut between its copy and its erase,
    /// and clears the record. Under the stripe's lock (or with no lock in use: init_locks). An
    /// intent this filter could not have written (a damaged file) is cleared and nothing else.
    void repair(std::uint64_t i) const {
        word_type* intent = lock_record(i) + intent_at;
        const std::uint64_t tag = load_word(intent[0]);  // relaxed: see note_move
        if ((tag & intent_valid) == 0) return;
        const std::uint64_t from = load_word(intent[1]), to = load_word(intent[2]), fp = tag & 0x3FFFF;
        const unsigned in_from = (tag >> 20) & 15, in_to = (tag >> 24) & 15;
        if (from < buckets_ && to < buckets_ && from != to && fp != 0 && fp < (std::uint64_t{1} << bits_) &&
            other_bucket(from, fp) == to && stripe_index(from, to) == i)
            visit([&](auto format) {
                using Format = decltype(format);
                if (Format::count(load_word(bucket(from)), fp) != in_from || Format::count(load_word(bucket(to)), fp) != in_to + 1) return;
                // release: a bump, as in stripe_lock::bump; then the erase the move did not make
                word_ref(stripe_word(i)).store(load_word(stripe_word(i)) + version_unit, boost::memory_order_release);
                erase<Format>(bucket(from), fp);
            });
        store_word(intent[0], 0);
    }

    template <class Format>
    cuckoo_status insert_with(hash128 h) {
        const slots s = place(h);
        for (unsigned round = 0; round < 4; ++round) {
            {
                stripe_lock held(*this, stripe_index(s.first, s.second));
                // exact: the copies of s.fp in this pair change only under this lock
                const unsigned copies = copies_in<Format>(s, load_word(bucket(s.first)), load_word(bucket(s.second)));
                if (copies >= (s.first == s.second ? 1u : 2u) * Format::slots) {
                    duplicate_refusals_.add();
                    return cuckoo_status::too_many_duplicates;
                }
                if (put<Format>(bucket(s.first), s.fp) || put<Format>(bucket(s.second), s.fp))
                    return copies == 0 ? cuckoo_status::added_new : cuckoo_status::added;
            }
            if (!make_room<Format>(s.first, s.second)) break;  // none within the bound; else a slot freed,
                                                               // or the chain changed under us: look again
        }
        failed_inserts_.add();
        return cuckoo_status::full;
    }

    template <class Format>
    bool remove_with(hash128 h) {
        const slots s = place(h);
        stripe_lock held(*this, stripe_index(s.first, s.second));
        return erase_held<Format>(s, held);
    }

    /// Erases one copy of s.fp from its pair, whose stripe lock `held` is; false if it has none.
    template <class Format>
    bool erase_held(const slots& s, stripe_lock& held) noexcept {
        for (const std::uint64_t b : {s.first, s.second}) {
            if (Format::count(load_word(bucket(b)), s.fp) == 0) continue;
            held.bump();
            erase<Format>(bucket(b), s.fp);
            return true;
        }
        return false;
    }

    /// Puts fp into a free slot of `b`; false if it has none. Relaxed: the stripe lock's release
    /// orders it for writers, and readers see it by the caller's ordering of add before query.
    template <class Format>
    static bool put(word_type& b, std::uint64_t fp) noexcept {
        return update_word(b, [&](std::uint64_t old, std::uint64_t& next) { return Format::put(old, fp, next); });
    }

    /// Erases one copy of fp from `b`, which holds one (whose other slots other writers may change
    /// meanwhile, not its copies of fp: they are this stripe's). Release: a reader whose acquire
    /// load returns this value, or a later one, sees the bump before it.
    template <class Format>
    static void erase(word_type& b, std::uint64_t fp) noexcept {
        auto&& ref = word_ref(b);
        std::uint64_t old = ref.load(boost::memory_order_relaxed);  // relaxed: the CAS below checks it
        while (!ref.compare_exchange_weak(old, Format::take(old, fp), boost::memory_order_release, boost::memory_order_relaxed)) {
        }
    }

    /// Moves a copy of fp from `from` to its other bucket `to`: copy, bump, erase, under the pair's
    /// stripe lock (shared: between a note of its intent and the note's clearing, for repair).
    /// False if `from` no longer holds fp or `to` is full.
    template <class Format>
    bool move(std::uint64_t from, std::uint64_t fp, std::uint64_t to) {
        stripe_lock held(*this, stripe_index(from, to));
        // exact: only holders of this lock erase or move this copy
        const unsigned in_from = Format::count(load_word(bucket(from)), fp);
        if (in_from == 0) return false;
        if (shared_) note_move(held.stripe(), fp, from, to, in_from, Format::count(load_word(bucket(to)), fp));
        const bool moved = put<Format>(bucket(to), fp);
        if (moved) {
            held.bump();
            erase<Format>(bucket(from), fp);
            kicks_.add();
        }
        if (shared_) store_word(lock_record(held.stripe())[intent_at], 0);  // relaxed: see note_move
        return moved;
    }

    /// Frees a slot in `first` or `second`: a breadth-first search, over relaxed (unlocked) loads,
    /// for a chain of fingerprints ending in a bucket with a free slot, then the moves along it
    /// from that end. False if no chain was found within max_search_nodes buckets; true if one
    /// was (or a root has a free slot already), whether or not its moves all succeeded.
    template <class Format>
    bool make_room(std::uint64_t first, std::uint64_t second) {
        struct node {
            std::uint64_t bucket;
            std::uint32_t parent;  ///< the node whose bucket's fingerprint moves here
            std::uint32_t fp;      ///< that fingerprint
        };
        node nodes[max_search_nodes];
        unsigned count = 0;
        nodes[count++] = {first, 0, 0};
        if (second != first) nodes[count++] = {second, 0, 0};
        const unsigned roots = count;
        for (unsigned head = 0; head < count; ++head) {
            const std::uint64_t b = nodes[head].bucket;
            const std::uint64_t w = load_word(bucket(b));
            if (Format::empty(w) != 0) {
                for (unsigned at = head; at >= roots; at = nodes[at].parent) {
                    const node& n = nodes[at];
                    if (!move<Format>(nodes[n.parent].bucket, n.fp, n.bucket)) return true;
                }
                return true;
            }
            for (unsigned slot = 0; slot < Format::slots && count < max_search_nodes; ++slot) {
                const std::uint64_t fp = Format::at(w, slot);
                const std::uint64_t to = other_bucket(b, fp);
                if (to == b) continue;
                nodes[count++] = {to, head, static_cast<std::uint32_t>(fp)};
                __builtin_prefetch(&bucket(to), 0);  // read when the search gets there: its misses overlap
            }
        }
        return false;
    }

    std::uint32_t bits_;  ///< fingerprint bits: the bucket format
    std::uint64_t buckets_;
    std::uint64_t stripe_mask_;
    std::uint64_t seed_;
    std::uint64_t capacity_ = 0;
    double target_fpr_ = 0;
    storage table_;
    storage stripes_;
    storage locks_;           ///< shared filters: lock_record_words per stripe; else empty
    bool read_only_ = false;  ///< mapped read-only (no lock records): the stripe locks cannot be taken
    bool shared_ = false;     ///< its stripes lock with the records' robust mutexes
    std::uint32_t lock_timeout_ms_ = default_lock_timeout_ms;
    detail::file_lease lease_;  ///< a shared file's descriptor, kept open (its flock) while the filter lives
    detail::event_count kicks_, failed_inserts_, duplicate_refusals_;
    mutable detail::event_count reader_retries_, reader_gave_up_;

public:
    /// The writer lock of one key's bucket pair (its stripe), held while this lives: no add,
    /// remove or move changes the copies of the key's fingerprint in its buckets meanwhile, so
    /// copies() is exact and stays so but for erase(), which takes one as remove_hash would.
    /// Writers of the stripe wait; readers do not. Whoever holds the pairs of one key in several
    /// filters at once (scalable_bloom_filter.hpp) takes them in one fixed order of the filters, one
    /// holder at a time: every other writer holds one stripe, or (the writer gate) one filter's
    /// stripes in index order, and none waits for another filter's while holding one: no cycle forms.
    class key_lock {
    public:
        key_lock(const key_lock&) = delete;
        key_lock& operator=(const key_lock&) = delete;

        std::uint32_t copies() const noexcept {
            return f_.visit([&](auto format) {
                return copies_in<decltype(format)>(s_, load_word(f_.bucket(s_.first)), load_word(f_.bucket(s_.second)));
            });
        }
        /// Erases one copy; false if there is none.
        bool erase() noexcept {
            return f_.visit([&](auto format) { return f_.template erase_held<decltype(format)>(s_, held_); });
        }

    private:
        friend class basic_cuckoo_filter;
        key_lock(basic_cuckoo_filter& f, hash128 h) : f_(f), s_(f.place(h)), held_(f, f.stripe_index(s_.first, s_.second)) {}

        basic_cuckoo_filter& f_;
        slots s_;
        stripe_lock held_;
    };
};

using cuckoo_filter = basic_cuckoo_filter<>;

/// Any filter's statistics as filter_stats: a Bloom or counting filter's are already.
inline const filter_stats& as_filter_stats(const filter_stats& s) noexcept { return s; }

/// The fields a Bloom filter's statistics share with `s` (composites that hold cuckoo filters):
/// slots are fingerprint slots, set ones the stored fingerprints, the estimated count their number.
inline filter_stats as_filter_stats(const cuckoo_stats& s) noexcept {
    filter_stats f;
    f.kind = layout::cuckoo;
    f.slots = s.buckets * s.slots_per_bucket;
    f.slot_bits = s.fingerprint_bits;
    f.hashes = 2;
    f.bytes = s.bytes;
    f.capacity = s.capacity;
    f.target_fpr = s.target_fpr;
    f.slots_set = s.fingerprints;
    f.fill_ratio = s.load;
    f.estimated_count = static_cast<double>(s.fingerprints);
    f.estimated_fpr = s.expected_fpr;
    f.near_capacity = s.near_capacity;
    return f;
}

}  // namespace lfbloom
