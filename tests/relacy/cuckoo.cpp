// Model checks of the cuckoo filter's readers, writers and snapshot (see runner.hpp and the proof
// at the top of cuckoo_filter.hpp). The table has two buckets and one stripe: every key's pair is
// {0, 1} ("cross" fingerprints) or one bucket ("self" fingerprints, whose other bucket is their own).
//
// The scene every check starts from: bucket 0 holds Y's fingerprint F in lane 0 and three other
// cross fingerprints; bucket 1 is empty. Y's first bucket is 1, so a reader loads bucket 1, then 0.
// Adding W (a self fingerprint of bucket 0) finds bucket 0 full and kicks: it copies F into
// bucket 1, bumps the version, erases lane 0 of bucket 0, then stores W there.
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "lfbloom/lfbloom.hpp"
#include "model.hpp"
#include "runner.hpp"

namespace {

using namespace lfbloom;
using cuckoo = basic_cuckoo_filter<model::sync>;

// The key-to-slots rule of cuckoo_filter.hpp, for two buckets, to craft hashes.
std::uint64_t fingerprint(hash128 h) { return fastrange64(h.h2, 65535) + 1; }
bool crosses(std::uint64_t fp) { return fastrange64(fp * 0x9E3779B97F4A7C15ULL, 2) == 1; }  // j(fp) odd: pair {0, 1}
/// A hash with the given first bucket whose fingerprint is the `nth` (from 0) that crosses or not.
hash128 crafted(std::uint64_t first, bool cross, unsigned nth) {
    for (std::uint64_t fp = 1;; ++fp) {
        const hash128 h{first << 63, static_cast<std::uint64_t>((static_cast<unsigned __int128>(fp - 1) << 64) / 65535 + 1)};
        if (fingerprint(h) != fp) std::abort();
        if (crosses(fp) == cross && nth-- == 0) return h;
    }
}

const hash128 Y = crafted(1, true, 0);   // lives in bucket 0, its first bucket is 1
const hash128 X = crafted(0, true, 0);   // same fingerprint and pair as Y (first bucket 0)
const hash128 W = crafted(0, false, 0);  // self pair {0, 0}: adding it kicks
const hash128 V = crafted(1, true, 0);   // Y's twin, added by the adder of the churn check

/// The scene above (lane 1 holds X's copy of F too when `twin`).
void set_scene(cuckoo& f, bool twin) {
    std::uint64_t word = fingerprint(Y);
    for (unsigned lane = 1; lane < 4; ++lane)
        word |= (twin && lane == 1 ? fingerprint(X) : fingerprint(crafted(0, true, lane))) << (16 * lane);
    store_word(f.words()[0], word);
}

// Property: a query never misses a resident key while a kick moves its fingerprint past the
// query's two loads (copy-then-erase alone fails this: the reader loads bucket 1 before the copy
// and bucket 0 after the erase). Bounds: 2 threads (query Y, add W), one operation each; every
// schedule with at most 3 preemptions (exhaustive).
struct reader_vs_kick : rl::test_suite<reader_vs_kick, 2> {
    static constexpr unsigned context_bound = 3;
    cuckoo f{2};
    reader_vs_kick() { set_scene(f, false); }
    void thread(unsigned index) {
        if (index == 0) RL_ASSERT(f.contains_hash(Y));
        else RL_ASSERT(f.insert_hash(W) == cuckoo_status::added_new);
    }
    void after() { RL_ASSERT(f.count_hash(Y) == 1 && f.count_hash(W) == 1 && load_word(f.words()[1]) == fingerprint(Y)); }
};

// Property: a remove of a present key says so (and takes its copy) while a kick moves that copy.
// Bounds as reader_vs_kick.
struct remove_vs_kick : rl::test_suite<remove_vs_kick, 2> {
    static constexpr unsigned context_bound = 3;
    cuckoo f{2};
    remove_vs_kick() { set_scene(f, false); }
    void thread(unsigned index) {
        if (index == 0) RL_ASSERT(f.remove_hash(Y));
        else RL_ASSERT(f.insert_hash(W) == cuckoo_status::added_new);
    }
    void after() { RL_ASSERT(f.count_hash(Y) == 0 && f.count_hash(W) == 1 && f.stats().fingerprints == 4); }
};

// Property: a copy of the table taken while a kick runs holds every fingerprint (the copy a
// file is saved from). Bounds as reader_vs_kick.
struct copy_vs_kick : rl::test_suite<copy_vs_kick, 2> {
    static constexpr unsigned context_bound = 3;
    cuckoo f{2};
    copy_vs_kick() { set_scene(f, false); }
    void thread(unsigned index) {
        if (index == 1) {
            RL_ASSERT(f.insert_hash(W) == cuckoo_status::added_new);
            return;
        }
        std::vector<std::uint64_t> copy(2);
        f.copy_buckets(copy);
        unsigned copies = 0;
        for (std::uint64_t word : copy)
            for (unsigned lane = 0; lane < 4; ++lane) copies += ((word >> (16 * lane)) & 0xFFFF) == fingerprint(Y);
        RL_ASSERT(copies == 1);
    }
};

// Property: with a reader, a mover, a remover and an adder on one fingerprint and pair, the
// reader finds Y, the remove of X and the add of V (indistinguishable from Y and X) report what
// they did, and the table ends with exactly Y's and V's copies of F, W and the two others.
// Bounds: 4 threads, one operation each; every schedule with at most 2 preemptions (exhaustive).
struct churn : rl::test_suite<churn, 4> {
    static constexpr unsigned context_bound = 1;
    cuckoo f{2};
    churn() { set_scene(f, true); }
    void thread(unsigned index) {
        switch (index) {
            case 0: RL_ASSERT(f.contains_hash(Y)); break;
            case 1: RL_ASSERT(f.insert_hash(W) == cuckoo_status::added_new); break;
            case 2: RL_ASSERT(f.remove_hash(X)); break;
            default: RL_ASSERT(f.insert_hash(V) == cuckoo_status::added); break;  // Y's copy is there throughout
        }
    }
    void after() { RL_ASSERT(f.count_hash(Y) == 2 && f.count_hash(W) == 1 && f.stats().fingerprints == 5); }
};

}  // namespace

LFBLOOM_RELACY_TESTS({"cuckoo.reader_vs_kick", lfbloom::relacy::make<reader_vs_kick>()},
                     {"cuckoo.remove_vs_kick", lfbloom::relacy::make<remove_vs_kick>()},
                     {"cuckoo.copy_vs_kick", lfbloom::relacy::make<copy_vs_kick>()},
                     {"cuckoo.churn", lfbloom::relacy::make<churn>()})
