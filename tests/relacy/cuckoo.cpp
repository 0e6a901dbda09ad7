// Model checks of the cuckoo filter's readers, writers and snapshot (see runner.hpp and the proof
// at the top of cuckoo_filter.hpp). The table has two buckets and one stripe: every key's pair is
// {0, 1} ("cross" fingerprints) or one bucket ("self" fingerprints, whose other bucket is their own).
//
// The scene every check starts from: bucket 0 holds Y's fingerprint F in slot 0 and N - 1 other
// cross fingerprints, all greater than F; bucket 1 is empty. Y's first bucket is 1, so a reader
// loads bucket 1, then 0. Adding W (a self fingerprint of bucket 0) finds bucket 0 full and kicks:
// it copies F (slot 0's, in every format: semi-sorted buckets keep the smallest there) into bucket 1,
// bumps the version, erases F from bucket 0, then stores W there.
//
// Every check runs on each bucket format (cuckoo_buckets.hpp): "cuckoo." the plain 4 x 16 bits,
// "cuckoo14." and "cuckoo17." the semi-sorted ones, whose writes re-encode the whole word.
#include <cstdint>
#include <algorithm>
#include <cstdlib>
#include <vector>

#include "lfbloom/lfbloom.hpp"
#include "model.hpp"
#include "runner.hpp"

namespace {

using namespace lfbloom;
using cuckoo = basic_cuckoo_filter<model::sync>;

/// The key-to-slots rule of cuckoo_filter.hpp, for two buckets and one format, to craft hashes.
template <class Format>
struct scene {
    using format = Format;
    static constexpr std::uint32_t bits = Format::fingerprint_bits;
    static constexpr std::uint64_t values = (std::uint64_t{1} << bits) - 1;

    static std::uint64_t fingerprint(hash128 h) { return fastrange64(h.h2, values) + 1; }
    static bool crosses(std::uint64_t fp) { return fastrange64(fp * 0x9E3779B97F4A7C15ULL, 2) == 1; }  // j(fp) odd: pair {0, 1}
    /// A hash with the given first bucket whose fingerprint is the `nth` (from 0) that crosses or not.
    static hash128 crafted(std::uint64_t first, bool cross, unsigned nth) {
        for (std::uint64_t fp = 1;; ++fp) {
            const hash128 h{first << 63, static_cast<std::uint64_t>((static_cast<unsigned __int128>(fp - 1) << 64) / values + 1)};
            if (fingerprint(h) != fp) std::abort();
            if (crosses(fp) == cross && nth-- == 0) return h;
        }
    }

    static inline const hash128 Y = crafted(1, true, 0);   // lives in bucket 0, its first bucket is 1
    static inline const hash128 X = crafted(0, true, 0);   // same fingerprint and pair as Y (first bucket 0)
    static inline const hash128 W = crafted(0, false, 0);  // self pair {0, 0}: adding it kicks
    static inline const hash128 V = crafted(1, true, 0);   // Y's twin, added by the adder of the churn check

    /// The scene above (slot 1 holds X's copy of F too when `twin`).
    static void set(cuckoo& f, bool twin) {
        std::uint64_t word = 0;
        for (unsigned slot = 0; slot < Format::slots; ++slot) {
            const hash128 h = slot == 0 ? Y : twin && slot == 1 ? X : crafted(0, true, slot);
            if (!Format::put(word, fingerprint(h), word)) std::abort();
        }
        if (Format::at(word, 0) != fingerprint(Y)) std::abort();  // the one a kick moves
        store_word(f.words()[0], word);
    }
    /// The copies of Y's fingerprint in `word`.
    static unsigned copies(std::uint64_t word) { return Format::count(word, fingerprint(Y)); }
};

// Property: a query never misses a resident key while a kick moves its fingerprint past the
// query's two loads (copy-then-erase alone fails this: the reader loads bucket 1 before the copy
// and bucket 0 after the erase). Bounds: 2 threads (query Y, add W), one operation each; every
// schedule with at most 3 preemptions (exhaustive).
template <class S>
struct reader_vs_kick : rl::test_suite<reader_vs_kick<S>, 2> {
    static constexpr unsigned context_bound = 3;
    cuckoo f{2, S::bits};
    reader_vs_kick() { S::set(f, false); }
    void thread(unsigned index) {
        if (index == 0) RL_ASSERT(f.contains_hash(S::Y));
        else RL_ASSERT(f.insert_hash(S::W) == cuckoo_status::added_new);
    }
    void after() {
        const std::uint64_t moved_to = load_word(f.words()[1]);
        RL_ASSERT(f.count_hash(S::Y) == 1 && f.count_hash(S::W) == 1 && S::copies(moved_to) == 1);
        RL_ASSERT(S::format::empty(moved_to) == S::format::slots - 1);
    }
};

// Property: a remove of a present key says so (and takes its copy) while a kick moves that copy.
// Bounds as reader_vs_kick.
template <class S>
struct remove_vs_kick : rl::test_suite<remove_vs_kick<S>, 2> {
    static constexpr unsigned context_bound = 3;
    cuckoo f{2, S::bits};
    remove_vs_kick() { S::set(f, false); }
    void thread(unsigned index) {
        if (index == 0) RL_ASSERT(f.remove_hash(S::Y));
        else RL_ASSERT(f.insert_hash(S::W) == cuckoo_status::added_new);
    }
    void after() { RL_ASSERT(f.count_hash(S::Y) == 0 && f.count_hash(S::W) == 1 && f.stats().fingerprints == S::format::slots); }
};

// Property: a copy of the table taken while a kick runs holds every fingerprint (the copy a
// file is saved from). Bounds as reader_vs_kick.
template <class S>
struct copy_vs_kick : rl::test_suite<copy_vs_kick<S>, 2> {
    static constexpr unsigned context_bound = 3;
    cuckoo f{2, S::bits};
    copy_vs_kick() { S::set(f, false); }
    void thread(unsigned index) {
        if (index == 1) {
            RL_ASSERT(f.insert_hash(S::W) == cuckoo_status::added_new);
            return;
        }
        std::vector<std::uint64_t> copy(2);
        f.copy_buckets(copy);
        RL_ASSERT(S::copies(copy[0]) + S::copies(copy[1]) == 1);
    }
};

// Property: with a reader, a mover, a remover and an adder on one fingerprint and pair, the
// reader finds Y, the remove of X and the add of V (indistinguishable from Y and X) report what
// they did, and the table ends with exactly Y's and V's copies of F, W and the two others.
// Bounds: 4 threads, one operation each; every schedule with at most 1 preemption (exhaustive; 2 would take hours: 1 takes 2.5 minutes).
template <class S>
struct churn : rl::test_suite<churn<S>, 4> {
    static constexpr unsigned context_bound = 1;
    cuckoo f{2, S::bits};
    churn() { S::set(f, true); }
    void thread(unsigned index) {
        switch (index) {
            case 0: RL_ASSERT(f.contains_hash(S::Y)); break;
            case 1: RL_ASSERT(f.insert_hash(S::W) == cuckoo_status::added_new); break;
            case 2: RL_ASSERT(f.remove_hash(S::X)); break;
            default: RL_ASSERT(f.insert_hash(S::V) == cuckoo_status::added); break;  // Y's copy is there throughout
        }
    }
    void after() {
        RL_ASSERT(f.count_hash(S::Y) == 2 && f.count_hash(S::W) == 1 && f.stats().fingerprints == S::format::slots + 1);
    }
};

// Property: writers of two stripes change one bucket's word at once (all copies of one fingerprint
// in a bucket are one stripe's, but a bucket holds fingerprints of several stripes), and neither
// loses the other's write nor hides a third fingerprint from a reader: in the semi-sorted formats
// each write re-sorts the whole word. Scene: 32 buckets, so two stripes; bucket 5 holds A and D
// (of stripe 0). A fingerprint f there pairs bucket 5 with o = (j(f) - 5) mod 32,
// whose stripe is min(5, o) mod 2. One thread reads A, one adds C (stripe 1, first bucket 5), one
// removes D (under stripe 0's lock, while C's add holds stripe 1's). Bounds: 3 threads, one operation each; every schedule with at most 2 preemptions.
template <class S>
struct two_stripes : rl::test_suite<two_stripes<S>, 3> {
    static constexpr unsigned context_bound = 2;
    static constexpr std::uint64_t buckets = 32, home = 5;
    static std::uint64_t other(std::uint64_t fp) { return (fastrange64(fp * 0x9E3779B97F4A7C15ULL, buckets) + buckets - home) % buckets; }
    /// The `nth` hash whose first bucket is `home` and whose fingerprint pairs it with a bucket of `stripe`.
    static hash128 at_home(std::uint64_t stripe, unsigned nth) {
        for (std::uint64_t fp = 1;; ++fp) {
            const hash128 h{home << 59, static_cast<std::uint64_t>((static_cast<unsigned __int128>(fp - 1) << 64) / S::values + 1)};
            if (S::fingerprint(h) != fp) std::abort();
            if (other(fp) != home && (std::min(home, other(fp)) & 1) == stripe && nth-- == 0) return h;
        }
    }
    static inline const hash128 A = at_home(0, 0), C = at_home(1, 0), D = at_home(0, 1);

    cuckoo f{buckets, S::bits};
    two_stripes() {
        std::uint64_t word = 0;
        if (!S::format::put(word, S::fingerprint(A), word) || !S::format::put(word, S::fingerprint(D), word)) std::abort();
        store_word(f.words()[home], word);
    }
    void thread(unsigned index) {
        switch (index) {
            case 0: RL_ASSERT(f.contains_hash(A)); break;
            case 1: RL_ASSERT(f.insert_hash(C) == cuckoo_status::added_new); break;
            default: RL_ASSERT(f.remove_hash(D)); break;
        }
    }
    void after() {
        RL_ASSERT(f.count_hash(A) == 1 && f.count_hash(C) == 1 && f.count_hash(D) == 0 && f.stats().fingerprints == 2);
    }
};

// Process death (cuckoo_filter.hpp, "Processes"): two filter objects over one table, stripe words
// and lock records, as two opens of one shared file, locking with robust mutexes. Thread 0 adds W
// through object a, which kicks Y's F from bucket 0 to 1, and dies just before one of its word
// operations (rl::rand picks which, or none: W's add takes 35-39, so the search covers every
// step); the kernel marks the mutex it held, and the next locker repairs what it left. Thread 1
// adds V (Y's twin) through b, then queries Y. Property: V's add reports Y's copy (a and b exclude
// each other: one mutex), the query finds Y, and once every lock has been taken again (after():
// a copy through the writer gate) the table holds exactly Y's and V's copies of F, W's if its add
// got that far, and the N - 1 others: no copy lost, none left twice. Bounds: 2 threads, every
// death step, every schedule with at most 1 preemption (exhaustive; 2 take over 10 minutes). (The
// reader racing a kick is reader_vs_kick's; a third thread multiplies the search by about 20.)
template <class S>
struct death : rl::test_suite<death<S>, 2> {
    static constexpr unsigned context_bound = 1;
    static constexpr unsigned steps = 40;  // past the end of W's add in every format
    static constexpr std::uint64_t buckets = 2;
    static cuckoo over(const model::storage& table, const model::storage& stripes, const model::storage& locks) {
        return cuckoo(geometry{buckets * S::format::slots, 2, 0, 0, S::bits}, filter_options{}, table.share(), stripes.share(), locks.share());
    }
    model::storage table{buckets, 0, true}, stripes{cuckoo::stripe_words(buckets), 0, true}, locks{cuckoo::lock_words(buckets), 0, true};
    cuckoo a = over(table, stripes, locks), b = over(table, stripes, locks);
    death() {
        model::mortality::reset();
        a.init_locks();
        S::set(a, false);
    }
    void thread(unsigned index) {
        if (index == 0) {
            model::mortality::mortal(rl::rand(steps + 1));
            const cuckoo_status added = a.insert_hash(S::W);
            if (!model::mortality::dead()) RL_ASSERT(added == cuckoo_status::added_new);
            return;
        }
        RL_ASSERT(b.insert_hash(S::V) == cuckoo_status::added);  // Y's copy is there throughout
        RL_ASSERT(b.contains_hash(S::Y));
    }
    void after() {
        model::mortality::reset();  // after() runs as thread 0, which may have died
        std::vector<std::uint64_t> copy(buckets);
        b.copy_buckets(copy);  // takes every lock: repairs what the dead left
        const unsigned w = b.count_hash(S::W);
        RL_ASSERT(S::copies(copy[0]) + S::copies(copy[1]) == 2 && w <= 1);
        RL_ASSERT(b.stats().fingerprints == S::format::slots + 1 + w);
    }
};

using plain = scene<detail::plain_bucket>;
using semi14 = scene<detail::semi_sorted<5>>;
using semi17 = scene<detail::semi_sorted<4>>;

}  // namespace

LFBLOOM_RELACY_TESTS(lfbloom::relacy::entry<"cuckoo.reader_vs_kick", reader_vs_kick<plain>>(),
                     lfbloom::relacy::entry<"cuckoo.remove_vs_kick", remove_vs_kick<plain>>(),
                     lfbloom::relacy::entry<"cuckoo.copy_vs_kick", copy_vs_kick<plain>>(),
                     lfbloom::relacy::entry<"cuckoo.churn", churn<plain>>(),
                     lfbloom::relacy::entry<"cuckoo.death", death<plain>>(),
                     lfbloom::relacy::entry<"cuckoo14.death", death<semi14>>(),
                     lfbloom::relacy::entry<"cuckoo17.death", death<semi17>>(),
                     lfbloom::relacy::entry<"cuckoo.two_stripes", two_stripes<plain>>(),
                     lfbloom::relacy::entry<"cuckoo14.two_stripes", two_stripes<semi14>>(),
                     lfbloom::relacy::entry<"cuckoo14.reader_vs_kick", reader_vs_kick<semi14>>(),
                     lfbloom::relacy::entry<"cuckoo14.remove_vs_kick", remove_vs_kick<semi14>>(),
                     lfbloom::relacy::entry<"cuckoo14.copy_vs_kick", copy_vs_kick<semi14>>(),
                     lfbloom::relacy::entry<"cuckoo14.churn", churn<semi14>>(),
                     lfbloom::relacy::entry<"cuckoo17.reader_vs_kick", reader_vs_kick<semi17>>(),
                     lfbloom::relacy::entry<"cuckoo17.remove_vs_kick", remove_vs_kick<semi17>>(),
                     lfbloom::relacy::entry<"cuckoo17.copy_vs_kick", copy_vs_kick<semi17>>(),
                     lfbloom::relacy::entry<"cuckoo17.churn", churn<semi17>>())
