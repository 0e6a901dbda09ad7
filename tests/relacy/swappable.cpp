// Model checks of swappable_filter: the rebuild contract and reclamation (see runner.hpp).
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "lfbloom/lfbloom.hpp"
#include "model.hpp"
#include "runner.hpp"

namespace {

using namespace lfbloom;
using blocked = bloom_filter<blocked_layout, model::storage>;

// ---- swappable: no add is lost across a publish, nothing is freed while a reader holds it ----

/// A filter under the checker that can be retired: the replacer marks it (a plain, non-atomic
/// write Relacy watches) where it would free it, and every use reads the mark. A use that is not
/// ordered before the retirement is a data race Relacy reports; one that sees the mark fails.
struct retirable {
    blocked filter{shape(), filter_options{}};
    static const geometry& shape() {  // sized once, outside the model (prepare)
        static const geometry one_line = blocked_bloom_filter::with_geometry(512, 3).shape();
        return one_line;
    }
    rl::var<int> retired{0};

    bool add(std::uint64_t key) {
        RL_ASSERT(retired($) == 0);
        return filter.add(key);
    }
    bool contains(std::uint64_t key) const {
        RL_ASSERT(retired($) == 0);
        return filter.contains(key);
    }
};
using swappable = swappable_filter<retirable, model::sync>;

/// The replacer's side: retire what publish/replace hand back, keeping the memory until the end.
struct retired_list {
    std::vector<std::unique_ptr<retirable>> list;
    void retire(std::unique_ptr<retirable> f) {
        f->retired($) = 1;
        list.push_back(std::move(f));
    }
};

// Property (the rebuild contract at the top of swappable_filter.hpp, and defect 1): a writer
// records its key in the source of truth, then adds it; the rebuilder stages a new filter, reads
// the source (adding what it finds with add_staged), and publishes. The writer's own contains
// after its add, and every query after both finish, find the key. The old filter is retired only
// after the writer has left it (else a race on its mark). Bounds: 2 threads (writer, rebuilder);
// every schedule with at most 2 preemptions (exhaustive, 114k schedules). Defect 1 needs two (the
// rebuilder reads the source before the writer records, then publishes between the writer's two
// loads): 1,000,000 random schedules of this test miss it, the bounded search finds it. Readers
// across a publish and a replace are swappable.reclamation's.
struct swappable_rebuild : rl::test_suite<swappable_rebuild, 2> {
    static constexpr unsigned context_bound = 2;
    static void prepare() { (void)retirable::shape(); }
    static constexpr std::uint64_t key = 42;
    swappable s{std::make_unique<retirable>()};
    model::atomic<bool> recorded{false};  // the source of truth (a seq_cst flag, as a database's commit)
    retired_list retired;

    void thread(unsigned index) {
        if (index == 0) {
            recorded.store(true);
            s.add(key);
            RL_ASSERT(s.contains(key));
        } else {
            s.stage(std::make_unique<retirable>());
            if (recorded.load()) s.add_staged(key);
            retired.retire(s.publish());
        }
    }
    void after() { RL_ASSERT(s.contains(key)); }
};

// Property: publish and replace, after a re-stage, free nothing a reader or writer still holds
// (the bounded proof for re-staging alone is swappable.restage). Retired filters carry the mark;
// the discarded staged one is freed for real, where Relacy reports any later access. Bounds: 3
// threads (adder, replacer: stage, stage again, publish, then replace; reader); 200,000 random
// schedules.
struct swappable_reclamation : rl::test_suite<swappable_reclamation, 3> {
    static void prepare() { (void)retirable::shape(); }
    swappable s{std::make_unique<retirable>()};
    retired_list retired;

    void thread(unsigned index) {
        if (index == 0) {
            for (std::uint64_t key = 1; key <= 2; ++key) {
                s.add(key);
                const auto g = s.pin();
                (void)g->contains(key);
            }
        } else if (index == 1) {
            s.stage(std::make_unique<retirable>());
            auto again = std::make_unique<retirable>();
            s.stage(std::move(again));  // the first staged one is freed inside stage(): after synchronize
            retired.retire(s.publish());
            retired.retire(s.replace(std::make_unique<retirable>()));
        } else {
            (void)s.contains(1);
            (void)s.contains(2);
        }
    }
};

// Property: a re-stage frees the staged filter it discards only after every add that may be
// writing to it has left (stage's synchronize); Relacy reports any access to the freed filter.
// Bounds: 2 threads (adder of two keys; replacer: stage, stage again); every schedule with at most
// 2 preemptions (exhaustive, 228,800 schedules).
struct swappable_restage : rl::test_suite<swappable_restage, 2> {
    static constexpr unsigned context_bound = 2;
    static void prepare() { (void)retirable::shape(); }
    swappable s{std::make_unique<retirable>()};

    void thread(unsigned index) {
        if (index == 0) {
            s.add(1);
            s.add(2);
        } else {
            s.stage(std::make_unique<retirable>());
            s.stage(std::make_unique<retirable>());  // frees the first staged filter
        }
    }
    void after() { RL_ASSERT(s.contains(1) && s.contains(2)); }
};

}  // namespace

LFBLOOM_RELACY_TESTS(lfbloom::relacy::entry<"swappable.rebuild", swappable_rebuild>(),
                     lfbloom::relacy::entry<"swappable.restage", swappable_restage>(),
                     lfbloom::relacy::entry<"swappable.reclamation", swappable_reclamation>())
