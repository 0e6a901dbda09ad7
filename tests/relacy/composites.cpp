// Model checks of the composite filters: scalable growth and rotation (see runner.hpp).
#include <cmath>
#include <cstdint>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "lfbloom/lfbloom.hpp"
#include "model.hpp"
#include "runner.hpp"

namespace {

using namespace lfbloom;
using blocked = bloom_filter<blocked_layout, model::storage>;
using scalable = basic_scalable_bloom_filter<model::sync>;
using scalable_cuckoo = basic_scalable_cuckoo_filter<model::sync>;
using rotating = basic_rotating_bloom_filter<model::sync>;

/// Sizing keeps its FPR models for the process (sizing.hpp); memory allocated inside a model run
/// must be freed inside it, so the sizings a scalable filter will do are done once before, outside.
void size_sub_filters(std::uint64_t capacity, double fpr, std::uint32_t count, double growth = scalable_options{}.growth) {
    const scalable_options o;
    for (std::uint32_t n = 0; n < count; ++n)
        (void)blocked_bloom_filter::size_for(static_cast<std::uint64_t>(std::ceil(capacity * std::pow(growth, n))),
                                             fpr * (1 - o.tightening) * std::pow(o.tightening, n));
}

// ---- scalable: growth publishes a sub-filter before any add uses it ----

/// A growth race's thread: adds its two keys, then the first again; each add succeeds, is found
/// by its adder at once, and the repeat reports the key present.
void add_own_keys(scalable& f, unsigned index) {
    const std::uint64_t keys[] = {10 * index + 1, 10 * index + 2, 10 * index + 1};
    for (int i = 0; i < 3; ++i) {
        try {
            const bool fresh = f.add(keys[i]);
            RL_ASSERT(f.contains(keys[i]));
            if (i == 2) RL_ASSERT(!fresh);
        } catch (const error&) {
            RL_ASSERT(false);
        }
    }
}
/// After a growth race of three threads: every thread's keys are found.
void found_all_keys(const scalable& f) {
    for (std::uint64_t t = 0; t < 3; ++t) RL_ASSERT(f.contains(10 * t + 1) && f.contains(10 * t + 2));
}

// Property: adds racing through growth (initial capacity 1, growth 2: sub-filters of 1, 2 and 4
// keys, so the six keys here grow it twice; the ahead-of-time build runs on the thread that
// triggers it, one more racer of install) are found by their adder and by every query after all
// finish, re-adding a key reports it present, and no add throws. Bounds: 3 threads, 3 adds each
// (two keys, then the first again); 200,000 random schedules. Not modelled: the builder thread
// itself (model::inline_thread runs it on the triggering add), so its start and joins are not
// checked here; the race it takes part in, install_if_missing against advance, is.
struct scalable_growth : rl::test_suite<scalable_growth, 3> {
    static void prepare() { size_sub_filters(1, 0.1, 8); }
    scalable f{1, 0.1};

    void thread(unsigned index) { add_own_keys(f, index); }
    void after() { found_all_keys(f); }
};

// Property: with grow_ahead off (no builder; the Redis module's mode), adds racing through growth
// past the sub-filters kept in the object (8) install the array of the later ones with one CAS,
// and every key is found by its adder and afterwards. The filter starts with 8 empty sub-filters
// of capacity 1 (grow()), so the first add fills the newest and the next ones race to make
// sub-filter 8, its array and those after. Bounds: 3 threads, 3 adds each (two keys, then the
// first again); 200,000 random schedules.
struct scalable_grown_past_inline : rl::test_suite<scalable_grown_past_inline, 3> {
    static void prepare() { size_sub_filters(1, 0.1, 16, 1.0); }
    scalable f{1, 0.1, options()};
    static scalable_options options() {
        scalable_options o;
        o.growth = 1;
        o.grow_ahead = false;
        return o;
    }
    scalable_grown_past_inline() {
        for (int i = 0; i < 7; ++i) f.grow();
    }

    void thread(unsigned index) { add_own_keys(f, index); }
    void after() {
        RL_ASSERT(f.filters() > 8);
        found_all_keys(f);
    }
};

// Property: a growth refused under a memory limit does not outlive that limit. The filter's one
// sub-filter (capacity 1) is full and its limit is its own bytes, so a growth is refused; one
// thread adds a new key (refused as full, or grown if the raise came first) while another raises
// the limit (set_memory_limit(0): none); afterwards an add of another new key grows the filter.
// A refusal that recorded only "refused" (not under which limit) and raced the raise would make
// every later add full. Bounds: 2 threads; 200,000 random schedules.
struct scalable_memory_limit_raised : rl::test_suite<scalable_memory_limit_raised, 2> {
    static void prepare() { size_sub_filters(1, 0.1, 2); }
    scalable f{1, 0.1, options()};
    static scalable_options options() {
        scalable_options o;
        o.grow_ahead = false;
        return o;
    }
    scalable_memory_limit_raised() {
        f.set_memory_limit(f.filter(0).words().size_bytes());  // the first sub-filter fits, no second one
        f.add(1);
    }

    void thread(unsigned index) {
        if (index == 1) {
            f.set_memory_limit(0);
            return;
        }
        try {
            f.add(2);
        } catch (const error& e) {
            RL_ASSERT(e.code() == errc::full);
        }
    }
    void after() {
        try {
            f.add(3);
        } catch (const error&) {
            RL_ASSERT(false);  // refused for good, under a limit no longer in force
        }
        RL_ASSERT(f.filters() == 2 && f.contains(1) && f.contains(3));
    }
};

// Property (defect 4): at the cap (one sub-filter of capacity 1), racing adds either succeed or
// throw full, and a key already present (added by this thread before) is never refused: it is
// in the newest sub-filter, the full one. Every key whose add succeeded is found afterwards.
// Bounds: 2 threads, 3 adds each (two keys, then the first again); 200,000 random schedules.
struct scalable_cap : rl::test_suite<scalable_cap, 2> {
    static void prepare() { size_sub_filters(1, 0.1, 1); }
    scalable f{1, 0.1, options()};
    static scalable_options options() {
        scalable_options o;
        o.max_filters = 1;
        return o;
    }
    bool added[2][2] = {};  // written by thread i only; read in after()

    void thread(unsigned index) {
        const std::uint64_t keys[] = {10 * index + 1, 10 * index + 2, 10 * index + 1};
        for (int i = 0; i < 3; ++i) {
            try {
                f.add(keys[i]);
                added[index][i % 2] = true;
            } catch (const error& e) {
                RL_ASSERT(e.code() == errc::full);
                RL_ASSERT(!added[index][i % 2]);  // present already, yet refused
            }
        }
    }
    void after() {
        for (std::uint64_t t = 0; t < 2; ++t)
            for (std::uint64_t i = 0; i < 2; ++i)
                if (added[t][i]) RL_ASSERT(f.contains(10 * t + 1 + i));
    }
};

// ---- scalable cuckoo: a remove never takes another sub-filter's key ----

/// The scenes' filter is `scalable_cuckoo f{scene_capacity, 0.1}`: sub-filters 0 and 1 are sized
/// for 6 and 12 keys at 5% and 2.5%, 5 and 9 buckets of 5 x 14 bits (a twin must share its
/// fingerprint in both, so both have one width). Not 5 and 10 keys: since small tables are sized
/// emptier (issue 37) those get 2 and 8 buckets, and where one bucket count divides the other a
/// key sharing B's pair in the larger table shares it in the smaller (fastrange nests), so the
/// plain scene has no twin.
constexpr std::uint64_t scene_capacity = 6;
const geometry scene_g0 = cuckoo_filter::size_for(scene_capacity, 0.05), scene_g1 = cuckoo_filter::size_for(2 * scene_capacity, 0.025);
const std::uint32_t scene_bits = scene_g0.slot_bits;

/// A hash with fingerprint `fp` (cuckoo_filter.hpp: fastrange(h2, 2^F - 1) + 1) and h1 `h1`.
hash128 with_fingerprint(std::uint64_t h1, std::uint64_t fp) {
    return {h1, static_cast<std::uint64_t>((static_cast<unsigned __int128>(fp - 1) << 64) / ((1u << scene_bits) - 1) + 1)};
}

/// The scenes (scene_g0, scene_g1 above). The twin T has B's fingerprint; in one sub-filter's
/// geometry it has B's pair, in the other's another pair. Found by search, with plain filters of
/// those sizes (T's first bucket must lie where the two tables' buckets straddle each other's).
/// Plain scene: T shares B's pair in sub-filter 1 only; sub-filter 0 holds B and five fillers (C
/// the first), full by count, so T's add grows the filter and T then matches B's remove in
/// sub-filter 1, where only T's copy is. Mirrored scene: T shares B's pair in sub-filter 0 only;
/// sub-filter 0 holds T and five fillers, and B went to sub-filter 1, so B's remove matches T's
/// copy in sub-filter 0.
struct twin_scene {
    hash128 b, t, fillers[scene_capacity - 1];
    explicit twin_scene(bool mirrored) {
        if (scene_g1.slot_bits != scene_bits) std::abort();
        const std::uint64_t slots = cuckoo_filter::slots_for(scene_bits);
        for (std::uint64_t fp = 1;; ++fp) {
            b = with_fingerprint(0, fp);
            for (std::uint64_t cell = 0; cell < 32; ++cell) {  // T's h1 in the middle of each 32nd of the range
                const std::uint64_t h1 = (2 * cell + 1) << 58;
                t = with_fingerprint(h1, fp);
                cuckoo_filter in0(scene_g0.slots / slots, scene_bits), in1(scene_g1.slots / slots, scene_bits);
                in0.add_hash(b);
                in1.add_hash(b);
                if ((mirrored ? in0 : in1).contains_hash(t) && !(mirrored ? in1 : in0).contains_hash(t)) {
                    for (std::uint64_t i = 0; i < scene_capacity - 1; ++i) fillers[i] = with_fingerprint(i % 2 == 0 ? 0 : h1, fp + 1 + i);
                    return;
                }
            }
        }
    }
};
const twin_scene plain_scene(false), mirrored_scene(true);

// Property (the top of scalable_bloom_filter.hpp): a remove of B (added before) never answers
// absent and never erases T's copy. Plain: T's add grows the filter and stores T in the new
// sub-filter (or, if the remove came first, in the slot it freed in sub-filter 0, the oldest with
// room, also when T's add had grown the filter already); after, the
// copies matching B are T's if it grew, plus B's own if the remove was deferred.
// Mirrored: B matches in both sub-filters before the threads start, so the remove must defer
// (erasing nothing) while an add of a fresh key races into sub-filter 1. A reader of C (plain) or T
// (mirrored) never misses it. An erase from the newest match fails the plain scene, one from the
// oldest the mirrored one. Bounds: 3 threads, one operation each; 200,000 random schedules
// (exhaustive search is too slow here: 47 million schedules, 7 minutes, with at most one
// preemption; over ten minutes with two).
template <bool mirrored>
struct scalable_cuckoo_remove : rl::test_suite<scalable_cuckoo_remove<mirrored>, 3> {
    static constexpr const twin_scene& scene = mirrored ? mirrored_scene : plain_scene;
    scalable_cuckoo f{scene_capacity, 0.1};
    remove_status removal = remove_status::absent;  // written by thread 1 only; read in after()

    scalable_cuckoo_remove() {
        f.add_hash(mirrored ? scene.t : scene.b);
        for (const hash128& h : scene.fillers) f.add_hash(h);
        if (mirrored) f.add_hash(scene.b);  // sub-filter 0 is full by count: B grows the filter
    }
    void thread(unsigned index) {
        if (index == 0) {
            const hash128 added = mirrored ? with_fingerprint(0, fingerprint_after_scene()) : scene.t;
            f.add_hash(added);
            RL_ASSERT(f.contains_hash(added));
        } else if (index == 1) {
            removal = f.erase_hash(scene.b);
            RL_ASSERT(removal != remove_status::absent);
        } else {
            RL_ASSERT(f.contains_hash(mirrored ? scene.t : scene.fillers[0]));
        }
    }
    void after() {
        RL_ASSERT(f.contains_hash(scene.t) && f.contains_hash(scene.fillers[0]));
        if (mirrored) {
            RL_ASSERT(removal == remove_status::deferred && f.count_hash(scene.b) == 2);
            return;
        }
        // T went to sub-filter 1 (a growth), unless the remove freed a slot in 0 before T's add
        // chose a sub-filter (then T is in 0, where its pair is not B's, grown or not)
        const unsigned twin_copies = f.filters() == 2 && f.stats(1).items == 1 ? 1 : 0;
        RL_ASSERT(f.count_hash(scene.b) == twin_copies + (removal == remove_status::removed ? 0 : 1));
    }
    /// A fingerprint none of the scene's keys has (the search finds theirs among the first few).
    static std::uint64_t fingerprint_after_scene() { return (std::uint64_t{1} << scene_bits) - 2; }
};

// The plain scene with T's add done before the threads start, so T's copy is in sub-filter 1 and
// B matches in both: the remove must defer (erasing nothing) while a fresh key's add races into
// sub-filter 1 and a reader checks T. An erase from the newest match (T's copy) fails it at once;
// the racing plain scene catches that only when T's add wins its race, which 200,000 random
// schedules stopped finding once adds chose a sub-filter with room (they check every sub-filter).
struct scalable_cuckoo_remove_grown : rl::test_suite<scalable_cuckoo_remove_grown, 3> {
    scalable_cuckoo f{scene_capacity, 0.1};
    remove_status removal = remove_status::absent;  // written by thread 1 only; read in after()

    scalable_cuckoo_remove_grown() {
        f.add_hash(plain_scene.b);
        for (const hash128& h : plain_scene.fillers) f.add_hash(h);
        f.add_hash(plain_scene.t);  // sub-filter 0 is full by count: T grows the filter
    }
    void thread(unsigned index) {
        if (index == 0) {
            const hash128 added = with_fingerprint(0, scalable_cuckoo_remove<false>::fingerprint_after_scene());
            f.add_hash(added);
            RL_ASSERT(f.contains_hash(added));
        } else if (index == 1) {
            removal = f.erase_hash(plain_scene.b);
            RL_ASSERT(removal == remove_status::deferred);
        } else {
            RL_ASSERT(f.contains_hash(plain_scene.t));
        }
    }
    void after() { RL_ASSERT(f.filters() == 2 && f.count_hash(plain_scene.b) == 2 && f.contains_hash(plain_scene.fillers[0])); }
};

/// The plain scene with B's remove deferred: B's copy in sub-filter 0 (full by count with the
/// fillers), T's in 1, matching B there, and B's remove pending.
void defer_b(scalable_cuckoo& f) {
        f.add_hash(plain_scene.b);
        for (const hash128& h : plain_scene.fillers) f.add_hash(h);
        f.add_hash(plain_scene.t);  // sub-filter 0 is full by count: T grows the filter
        if (f.erase_hash(plain_scene.b) != remove_status::deferred) std::abort();
}

// Property (the top of scalable_bloom_filter.hpp: deferred removes): B's remove, deferred before
// the threads start (B's copy in sub-filter 0, T's in 1 matching it there), completes only once
// B matches in one sub-filter, and an add of B that finds it pending takes it; neither loses a
// key while T is removed (then the remover retries every pending remove), T is added again (into
// 1, next to its first copy, or into 0 if B's erase made room there) and B is added again. Each
// adder finds its key, and after all B, T and a filler are there, and the copies are the live
// keys (the fillers, B and T) plus the pending removes. An add that takes the remove but leaves
// it in the list (so its retry erases B's copy) fails it. Bounds: 3 threads, two or one operations
// each; 200,000 random schedules.
struct scalable_cuckoo_deferred : rl::test_suite<scalable_cuckoo_deferred, 3> {
    scalable_cuckoo f{scene_capacity, 0.1};

    scalable_cuckoo_deferred() { defer_b(f); }
    void thread(unsigned index) {
        if (index == 0) {
            RL_ASSERT(f.erase_hash(plain_scene.t) == remove_status::removed);  // T matches in 1 only
            f.retry_pending_removes();
        } else if (index == 1) {
            f.add_hash(plain_scene.t);
            RL_ASSERT(f.contains_hash(plain_scene.t));
        } else {
            f.add_hash(plain_scene.b);
            RL_ASSERT(f.contains_hash(plain_scene.b));
        }
    }
    void after() {
        RL_ASSERT(f.contains_hash(plain_scene.b) && f.contains_hash(plain_scene.t) && f.contains_hash(plain_scene.fillers[0]));
        const pending_remove_stats p = f.pending_removes();
        RL_ASSERT(p.deferred == 1 && p.pending + p.resolved + p.taken == 1);
        RL_ASSERT(f.stats(0).items + f.stats(1).items == scene_capacity + 1 + p.pending);  // the fillers, B and T
    }
};

// Property (the top of scalable_bloom_filter.hpp: owed copies): B has copies in both sub-filters
// (added again once sub-filter 0 was full) and one remove deferred before the threads start. Its
// second remove finds two removes owing copies in B's pairs; it erases both copies only if those
// pairs hold exactly two, while an add of B (taking the pending remove, or storing a third copy)
// and an add of T (whose pair in sub-filter 1 is B's) race it, each holding one stripe, against
// the remover holding B's stripe in both sub-filters. Each adder finds its key, and after all B,
// T and a filler are there, and the copies are the live keys (four fillers, B and T) plus the
// pending removes. Erasing while the pairs hold more copies than are owed fails it. Bounds: 3
// threads, one operation each; 200,000 random schedules.
struct scalable_cuckoo_owed : rl::test_suite<scalable_cuckoo_owed, 3> {
    scalable_cuckoo f{scene_capacity, 0.1};

    scalable_cuckoo_owed() {
        f.add_hash(plain_scene.b);
        for (const hash128& h : plain_scene.fillers) f.add_hash(h);
        f.add_hash(plain_scene.b);  // sub-filter 0 is full by count: B's second copy grows the filter
        if (f.filters() != 2 || f.erase_hash(plain_scene.b) != remove_status::deferred) std::abort();
    }
    void thread(unsigned index) {
        if (index == 0) {
            const remove_status r = f.erase_hash(plain_scene.b);
            RL_ASSERT(r == remove_status::removed || r == remove_status::deferred);
        } else if (index == 1) {
            f.add_hash(plain_scene.b);
            RL_ASSERT(f.contains_hash(plain_scene.b));
        } else {
            f.add_hash(plain_scene.t);
            RL_ASSERT(f.contains_hash(plain_scene.t));
        }
    }
    void after() {
        RL_ASSERT(f.contains_hash(plain_scene.b) && f.contains_hash(plain_scene.t) && f.contains_hash(plain_scene.fillers[0]));
        const pending_remove_stats p = f.pending_removes();
        RL_ASSERT(p.deferred == p.pending + p.resolved + p.taken);
        RL_ASSERT(f.stats(0).items + f.stats(1).items == scene_capacity + 1 + p.pending);  // the fillers, B and T
    }
};

// Property (composite_format.hpp: a save holds the list of pending removes still): a file saved
// while removes resolve never holds a pending remove whose copy it lacks. B's remove is deferred
// before the threads start (B's copy in sub-filter 0, T's in 1 matching it there); the saver
// writes the filter while the remover erases T and then retries every pending remove (B's, which
// then erases B's copy), and a reader looks up a filler. The file, loaded after, must keep an add
// of B through a retry of all its pending removes: a pending B without B's copy would erase the
// new copy (a false negative). A save that lets the list change under it (the pause dropped) fails
// it. Bounds: 3 threads, one or two operations each; 200,000 random schedules.
struct scalable_cuckoo_save : rl::test_suite<scalable_cuckoo_save, 3> {
    scalable_cuckoo f{scene_capacity, 0.1};
    std::vector<std::byte> file;  // written by thread 0 only; read in after()

    scalable_cuckoo_save() { defer_b(f); }
    void thread(unsigned index) {
        if (index == 0) {
            save(f, vector_sink(file));
        } else if (index == 1) {
            RL_ASSERT(f.erase_hash(plain_scene.t) == remove_status::removed);  // T matches in 1 only
            f.retry_pending_removes();
        } else {
            RL_ASSERT(f.contains_hash(plain_scene.fillers[0]));
        }
    }
    void after() {
        std::span<const std::byte> data(file);
        const auto loaded = load_scalable<scalable_cuckoo::sub_filter, model::sync>(span_source(data));
        loaded->add_hash(plain_scene.b);
        loaded->retry_pending_removes();
        RL_ASSERT(loaded->contains_hash(plain_scene.b) && loaded->contains_hash(plain_scene.fillers[0]));
    }
};

// ---- rotating: a key lives through G-1 rotations, and is gone after G ----

// Property ("present" in rotating_bloom_filter.hpp): with at most G-1 rotations overlapping an
// add and a later query, the query finds the key; here the rotator performs exactly G-1, racing
// a writer (add A, then contains A) and a reader of B (added before the threads start). "Gone":
// G more rotations after everyone finished leave neither key in any queried generation.
// Bounds: 3 threads; G = 2 and 3, single and double write; every schedule with at most 2
// preemptions (exhaustive, 40k to 615k schedules).
template <std::uint32_t G, bool double_write>
struct rotation : rl::test_suite<rotation<G, double_write>, 3> {
    static constexpr unsigned context_bound = 2;
    static constexpr std::uint64_t a = 1, b = 2;
    static void prepare() { (void)rotating_bloom_filter(1, 0.1, options()); }  // sizes its generations (see size_sub_filters)
    rotating f{1, 0.1, options()};
    static rotating_options options() {
        rotating_options o;
        o.generations = G;
        o.double_write = double_write;
        return o;
    }

    rotation() { f.add(b); }
    void thread(unsigned index) {
        if (index == 0) {
            f.add(a);
            RL_ASSERT(f.contains(a));
        } else if (index == 1) {
            for (std::uint32_t i = 0; i + 1 < G; ++i) f.rotate();
        } else {
            RL_ASSERT(f.contains(b));
        }
    }
    void after() {
        for (std::uint32_t i = 0; i < G; ++i) f.rotate();
        RL_ASSERT(!f.contains(a) && !f.contains(b));
    }
};

}  // namespace

LFBLOOM_RELACY_TESTS(lfbloom::relacy::entry<"scalable.growth", scalable_growth>(),
                     lfbloom::relacy::entry<"scalable.cap", scalable_cap>(),
                     lfbloom::relacy::entry<"scalable.grown_past_inline", scalable_grown_past_inline>(),
                     lfbloom::relacy::entry<"scalable.memory_limit_raised", scalable_memory_limit_raised>(),
                     lfbloom::relacy::entry<"scalable.cuckoo_remove", scalable_cuckoo_remove<false>>(),
                     lfbloom::relacy::entry<"scalable.cuckoo_remove_mirrored", scalable_cuckoo_remove<true>>(),
                     lfbloom::relacy::entry<"scalable.cuckoo_remove_grown", scalable_cuckoo_remove_grown>(),
                     lfbloom::relacy::entry<"scalable.cuckoo_deferred", scalable_cuckoo_deferred>(),
                     lfbloom::relacy::entry<"scalable.cuckoo_owed", scalable_cuckoo_owed>(),
                     lfbloom::relacy::entry<"scalable.cuckoo_save", scalable_cuckoo_save>(),
                     lfbloom::relacy::entry<"rotating.g2", rotation<2, false>>(),
                     lfbloom::relacy::entry<"rotating.g2.double_write", rotation<2, true>>(),
                     lfbloom::relacy::entry<"rotating.g3", rotation<3, false>>(),
                     lfbloom::relacy::entry<"rotating.g3.double_write", rotation<3, true>>())
