// dynamic_filter: every kind behind the one interface answers as the class inside it does.
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "lfbloom/dynamic_filter.hpp"
#include "test_support.hpp"

using namespace lfbloom;
using lfbloom_test::code_of;

namespace {

filter_spec spec_of(filter_kind kind, std::uint64_t capacity = 2000, double fpr = 0.01) {
    filter_spec s;
    s.kind = kind;
    s.capacity = capacity;
    s.fpr = fpr;
    s.seed = 7;
    if (kind == filter_kind::rotating) s.manual_clock = true;
    return s;
}

const filter_kind every_kind[] = {filter_kind::classic,  filter_kind::blocked,  filter_kind::counting,
                                  filter_kind::split_block, filter_kind::one_word, filter_kind::two_word,
                                  filter_kind::cuckoo,   filter_kind::scalable, filter_kind::rotating};

/// Keys laid out both ways a batch takes them.
struct key_set {
    std::vector<std::string> strings;
    std::vector<std::byte> data;
    std::vector<std::uint64_t> offsets{0};
    std::vector<key_ref> refs;

    key_set(std::uint64_t seed, std::size_t n) {
        lfbloom_test::random_keys gen(seed);
        for (std::size_t i = 0; i < n; ++i) strings.push_back(gen.next());
        for (const auto& s : strings) {
            const auto* b = reinterpret_cast<const std::byte*>(s.data());
            data.insert(data.end(), b, b + s.size());
            offsets.push_back(data.size());
        }
        for (const auto& s : strings) refs.push_back({s.data(), s.size()});
    }
    packed_keys packed() const { return {data.data(), offsets.data()}; }
    key_refs array() const { return {refs.data()}; }
    std::size_t size() const { return strings.size(); }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(dynamic)

BOOST_AUTO_TEST_CASE(kind_names_round_trip) {
    for (const filter_kind k : every_kind) BOOST_CHECK(parse_kind(kind_name(k)) == k);
    BOOST_CHECK(parse_kind("swappable") == filter_kind::swappable);
    BOOST_CHECK(kind_name(filter_kind{8}) == nullptr);
    BOOST_CHECK(!parse_kind("Blocked").has_value());
}

BOOST_AUTO_TEST_CASE(every_kind_keeps_every_key_through_single_and_batch_calls) {
    const key_set added(11, 1500), absent(12, 1500);
    for (const filter_kind k : every_kind) {
        BOOST_TEST_CONTEXT("kind " << kind_name(k)) {
            auto f = make_filter(spec_of(k));
            BOOST_CHECK(f->kind() == k);
            batch_progress p;
            std::vector<std::uint8_t> results(added.size(), 9);
            f->run(batch_op::add, 1000, added.packed(), results.data(), p);
            BOOST_CHECK_EQUAL(p.done, 1000u);
            std::uint64_t fresh = 0;
            for (std::size_t i = 0; i < 1000; ++i) fresh += results[i];
            BOOST_CHECK_EQUAL(p.positive, fresh);
            BOOST_CHECK_GE(fresh, 990u);  // a few of 1000 may collide with keys before them
            for (std::size_t i = 1000; i < added.size(); ++i) f->add(as_key(added.strings[i]));
            f->run(batch_op::contains, added.size(), added.array(), results.data(), p);
            BOOST_CHECK_EQUAL(p.positive, added.size());
            for (const auto& s : added.strings) BOOST_CHECK(f->contains(as_key(s)));
            // Both key shapes give one answer per key, the singles' answers.
            std::vector<std::uint8_t> packed(absent.size()), array(absent.size());
            f->run(batch_op::contains, absent.size(), absent.packed(), packed.data(), p);
            const std::uint64_t false_positives = p.positive;
            f->run(batch_op::contains, absent.size(), absent.array(), array.data(), p);
            BOOST_CHECK(packed == array);
            for (std::size_t i = 0; i < absent.size(); ++i) BOOST_CHECK_EQUAL(packed[i], f->contains(as_key(absent.strings[i])));
            BOOST_CHECK_LT(false_positives, 75u);  // 1500 absent keys at 1%: 15 expected
            const filter_info info = f->info(), shape = f->geometry();
            BOOST_CHECK(info.kind == k);
            BOOST_CHECK_EQUAL(info.seed, 7u);
            BOOST_CHECK_EQUAL(shape.slots, info.slots);
            BOOST_CHECK_EQUAL(shape.bytes, info.bytes);
            BOOST_CHECK_EQUAL(shape.hashes, info.hashes);
            BOOST_CHECK_EQUAL(shape.capacity, info.capacity);
            BOOST_CHECK_EQUAL(shape.slots_set, 0u);
            BOOST_CHECK_GT(info.slots_set, 0u);
        }
    }
}

BOOST_AUTO_TEST_CASE(a_plan_is_the_shape_of_the_filter_made) {
    for (const filter_kind k : every_kind) {
        if (!is_layout(k)) {
            BOOST_CHECK(code_of([&] { plan(spec_of(k)); }) == errc::invalid_argument);
            continue;
        }
        const filter_info p = plan(spec_of(k, 100000, 0.001)), g = make_filter(spec_of(k, 100000, 0.001))->geometry();
        BOOST_CHECK(p.kind == k);
        BOOST_CHECK_EQUAL(p.slots, g.slots);
        BOOST_CHECK_EQUAL(p.bytes, g.bytes);
        BOOST_CHECK_EQUAL(p.hashes, g.hashes);
        BOOST_CHECK_EQUAL(p.slot_bits, g.slot_bits);
        BOOST_CHECK_LE(p.expected_fpr, 0.001);
    }
}

BOOST_AUTO_TEST_CASE(remove_and_count_only_where_a_kind_has_them) {
    for (const filter_kind k : every_kind) {
        BOOST_TEST_CONTEXT("kind " << kind_name(k)) {
            auto f = make_filter(spec_of(k));
            f->add(as_key("k"));
            const bool removes = k == filter_kind::counting || k == filter_kind::cuckoo;
            if (removes) {
                BOOST_CHECK_EQUAL(f->count(as_key("k")), 1u);
                BOOST_CHECK(f->remove(as_key("k")));
                BOOST_CHECK(!f->remove(as_key("k")));  // an answer, not an error
                BOOST_CHECK_EQUAL(f->count(as_key("k")), 0u);
            } else {  // the scalable one here has blocked sub-filters
                BOOST_CHECK(code_of([&] { f->remove(as_key("k")); }) == errc::incompatible);
                BOOST_CHECK(code_of([&] { f->count(as_key("k")); }) == errc::incompatible);
                BOOST_CHECK(f->contains(as_key("k")));  // nothing changed
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(a_refused_add_stops_a_batch_where_it_was_refused) {
    // A cuckoo filter refuses the ninth copy of one key (two buckets of 4 slots): the batch of
    // twelve copies adds eight and stops at index 8.
    filter_spec cuckoo = spec_of(filter_kind::cuckoo, 1000, 0.01);
    cuckoo.counter_bits = 16;
    auto f = make_filter(cuckoo);
    std::vector<key_ref> refs(12, key_ref{"same", 4});
    std::vector<std::uint8_t> results(12, 9);
    batch_progress p;
    BOOST_CHECK(code_of([&] { f->run(batch_op::add, refs.size(), key_refs{refs.data()}, results.data(), p); }) ==
                errc::too_many_duplicates);
    BOOST_CHECK_EQUAL(p.done, 8u);
    BOOST_CHECK_EQUAL(p.positive, 1u);  // the first copy was new
    BOOST_CHECK_EQUAL(results[0], 1);
    BOOST_CHECK_EQUAL(results[7], 0);
    BOOST_CHECK_EQUAL(results[8], 9);  // untouched from the refused key on
    BOOST_CHECK_EQUAL(f->count(as_key("same")), 8u);

    // A scalable filter allowed one sub-filter is full at its capacity.
    filter_spec s = spec_of(filter_kind::scalable, 100, 0.01);
    s.max_filters = 1;
    auto g = make_filter(s);
    const key_set keys(21, 400);
    BOOST_CHECK(code_of([&] { g->run(batch_op::add, keys.size(), keys.packed(), nullptr, p); }) == errc::full);
    BOOST_CHECK_GE(p.done, 100u);
    BOOST_CHECK_LT(p.done, 400u);
    for (std::size_t i = 0; i < p.done; ++i) BOOST_CHECK(g->contains(as_key(keys.strings[i])));
    BOOST_CHECK(g->info().near_capacity);
}

// A scalable cuckoo filter's remove of a key that matches in two sub-filters is deferred and
// answers true (done); only with its list of pending removes full (64 here) is one refused, as
// ambiguous, which stops a batch there.
BOOST_AUTO_TEST_CASE(a_scalable_cuckoo_filter_defers_removes_and_an_ambiguous_one_stops_a_batch) {
    filter_spec s = spec_of(filter_kind::scalable, 100, 0.01);
    s.sub_kind = filter_kind::cuckoo;
    auto f = make_filter(s);
    BOOST_CHECK(f->info().sub_kind == filter_kind::cuckoo);
    // 100 keys fill sub-filter 0 to its capacity, so the second copies of the first 66 go to
    // sub-filter 1, and each of those keys matches in both.
    const key_set keys(31, 100);
    batch_progress p;
    f->run(batch_op::add, keys.size(), keys.array(), nullptr, p);
    f->run(batch_op::add, 66, keys.array(), nullptr, p);
    BOOST_CHECK_EQUAL(f->info().parts, 2u);
    BOOST_CHECK_EQUAL(f->count(as_key(keys.strings[0])), 2u);
    std::vector<std::uint8_t> results(64, 9);
    f->run(batch_op::remove, 64, keys.array(), results.data(), p);  // deferred, all of them
    BOOST_CHECK_EQUAL(p.done, 64u);
    BOOST_CHECK_EQUAL(p.positive, 64u);
    BOOST_CHECK(std::all_of(results.begin(), results.end(), [](std::uint8_t r) { return r == 1; }));
    BOOST_CHECK_EQUAL(f->count(as_key(keys.strings[0])), 2u);  // the copies wait
    BOOST_CHECK_EQUAL(f->info().ambiguous_removes, 0u);
    std::vector<key_ref> refs = {keys.refs[70], keys.refs[64], keys.refs[71]};
    results.assign(3, 9);
    BOOST_CHECK(code_of([&] { f->run(batch_op::remove, refs.size(), key_refs{refs.data()}, results.data(), p); }) ==
                errc::ambiguous);
    BOOST_CHECK_EQUAL(p.done, 1u);
    BOOST_CHECK_EQUAL(p.positive, 1u);
    BOOST_CHECK_EQUAL(results[0], 1);
    BOOST_CHECK_EQUAL(results[2], 9);
    BOOST_CHECK(f->contains(as_key(keys.strings[71])));  // not reached: still there
    BOOST_CHECK_EQUAL(f->info().ambiguous_removes, 1u);
    BOOST_CHECK(code_of([&] { f->remove(as_key(keys.strings[65])); }) == errc::ambiguous);
    BOOST_CHECK_EQUAL(f->part_info(0).items + f->part_info(1).items, 166u - 1u);  // copies stored, less the one removed
    // the second remove of a key with both its copies waiting takes both
    BOOST_CHECK(f->remove(as_key(keys.strings[0])));
    BOOST_CHECK_EQUAL(f->count(as_key(keys.strings[0])), 0u);
}

BOOST_AUTO_TEST_CASE(layouts_save_load_copy_and_compare_composites_refuse) {
    for (const filter_kind k : every_kind) {
        BOOST_TEST_CONTEXT("kind " << kind_name(k)) {
            auto f = make_filter(spec_of(k));
            f->add(as_key("saved"));
            std::vector<std::byte> bytes;
            f->save(file_format::native, vector_sink(bytes));
            BOOST_CHECK_EQUAL(bytes.size(), f->serialized_size(file_format::native));
            std::span<const std::byte> rest(bytes);
            auto loaded = load_filter(file_format::native, span_source(rest), 0, bytes.size());
            BOOST_CHECK(loaded->kind() == k);
            BOOST_CHECK(loaded->contains(as_key("saved")));
            if (!is_layout(k)) {  // composites save and load (composite_format_test.cpp), but neither copy nor compare
                BOOST_CHECK(code_of([&] { f->copy(); }) == errc::incompatible);
                continue;
            }
            std::span<const std::byte> again(bytes);  // a kind outside the accepted set: refused at the header
            BOOST_CHECK(code_of([&] { load_filter(file_format::native, span_source(again), 0, bytes.size(), kinds({filter_kind::blocked == k ? filter_kind::classic : filter_kind::blocked})); }) ==
                        errc::incompatible);
            BOOST_CHECK_EQUAL(again.size(), bytes.size() - header_size);
            const saved_header head = saved_header_of(file_format::native, std::span<const std::byte>(bytes).first(header_size));
            BOOST_CHECK_EQUAL(head.bytes, bytes.size());
            BOOST_CHECK(head.kind == k);
            BOOST_CHECK(code_of([&] { saved_header_of(file_format::native, std::span<const std::byte>(bytes).first(header_size - 1)); }) ==
                        errc::corrupt);
            BOOST_CHECK(loaded->equals(*f));
            auto copy = f->copy();
            BOOST_CHECK(copy->equals(*f));
            copy->add(as_key("only in the copy"));
            BOOST_CHECK(f->equals(*loaded));  // the copy's add changed the copy only
            BOOST_CHECK(code_of([&] { f->save(file_format::guava, vector_sink(bytes)); }) ==
                        errc::incompatible);  // classic too: Guava has seed 0 only
            if (k != filter_kind::cuckoo) {
                auto other = make_filter(spec_of(k));
                other->add(as_key("other"));
                other->merge(*f);
                BOOST_CHECK(other->contains(as_key("saved")) && other->contains(as_key("other")));
                other->intersect(*f);
                BOOST_CHECK(other->contains(as_key("saved")));
            } else {
                BOOST_CHECK(code_of([&] { f->merge(*copy); }) == errc::incompatible);
            }
            auto blocked = make_filter(spec_of(k == filter_kind::blocked ? filter_kind::classic : filter_kind::blocked));
            BOOST_CHECK(!f->equals(*blocked));
            if (k != filter_kind::cuckoo) BOOST_CHECK(code_of([&] { f->merge(*blocked); }) == errc::incompatible);
        }
    }
}

BOOST_AUTO_TEST_CASE(a_swappable_filter_adds_to_the_staged_one_and_publishes_it) {
    auto swap = make_swappable(make_filter(spec_of(filter_kind::blocked)));
    BOOST_CHECK(swap->kind() == filter_kind::swappable);
    swap->add(as_key("before"));
    auto* handle = swap->get<dynamic_swappable>();
    BOOST_REQUIRE(handle != nullptr);
    handle->stage(make_filter(spec_of(filter_kind::counting)));
    BOOST_CHECK_EQUAL(swap->info().parts, 2u);
    swap->add(as_key("during"));
    const key_set batch(42, 64);  // a batch add while staged reaches the staged filter too
    batch_progress added;
    swap->run(batch_op::add, batch.size(), batch.array(), nullptr, added);
    BOOST_CHECK_EQUAL(added.done, 64u);
    const key_set source(41, 100);
    batch_progress p;
    swap->run(batch_op::add_staged, source.size(), source.packed(), nullptr, p);
    BOOST_CHECK_EQUAL(p.done, 100u);
    BOOST_CHECK(swap->part_info(1).sub_kind == filter_kind::counting);
    handle->publish();
    const filter_info info = swap->info();
    BOOST_CHECK(info.kind == filter_kind::swappable);
    BOOST_CHECK(info.sub_kind == filter_kind::counting);
    BOOST_CHECK_EQUAL(info.generation, 1u);
    BOOST_CHECK(swap->contains(as_key("during")));
    for (const auto& k : source.strings) BOOST_CHECK(swap->contains(as_key(k)));
    for (const auto& k : batch.strings) BOOST_CHECK(swap->contains(as_key(k)));
    BOOST_CHECK(code_of([&] { swap->run(batch_op::add_staged, 1, source.packed(), nullptr, p); }) == errc::invalid_argument);
    BOOST_CHECK(code_of([&] { make_swappable(make_filter(spec_of(filter_kind::cuckoo))); }) == errc::incompatible);
    BOOST_CHECK(code_of([&] { handle->stage(nullptr); }) == errc::invalid_argument);
}

BOOST_AUTO_TEST_CASE(a_rotating_filter_forgets_after_its_rotations) {
    filter_spec s = spec_of(filter_kind::rotating);
    s.generations = 3;
    auto f = make_filter(s);
    f->add(as_key("old"));
    auto* ring = f->get<rotating_bloom_filter>();
    BOOST_REQUIRE(ring != nullptr);
    BOOST_CHECK(f->get<blocked_bloom_filter>() == nullptr);
    ring->rotate();
    ring->rotate();
    BOOST_CHECK(f->contains(as_key("old")));
    ring->rotate();
    BOOST_CHECK(!f->contains(as_key("old")));
    const filter_info info = f->info();
    BOOST_CHECK_EQUAL(info.generation, 3u);
    BOOST_CHECK_EQUAL(info.parts, 3u);
    BOOST_CHECK_EQUAL(info.capacity, 2000u);
    BOOST_CHECK_EQUAL(info.slots, 3 * f->part_info(0).slots);
    BOOST_CHECK(code_of([&] { f->part_info(3); }) == errc::invalid_argument);
}

BOOST_AUTO_TEST_CASE(shared_files_open_by_mode_and_read_only_refuses_writes) {
    const std::string path = (std::filesystem::temp_directory_path() / ("lfbloom-dynamic-" + std::to_string(::getpid()))).string();
    std::filesystem::remove(path);
    const filter_spec s = spec_of(filter_kind::counting);
    auto a = open_shared(path, &s, open_mode::open_or_create, 0600);
    auto b = open_shared(path, &s, open_mode::open_or_create, 0600);  // opens what a created
    a->add(as_key("shared"));
    BOOST_CHECK(b->contains(as_key("shared")));
    BOOST_CHECK(code_of([&] { open_shared(path, &s, open_mode::create); }) == errc::io);
    const filter_spec other = spec_of(filter_kind::blocked);
    BOOST_CHECK(code_of([&] { open_shared(path, &other, open_mode::read_write); }) == errc::incompatible);
    auto r = open_shared(path, nullptr, open_mode::read_only);
    BOOST_CHECK(r->read_only());
    BOOST_CHECK(r->contains(as_key("shared")));
    BOOST_CHECK(code_of([&] { r->add(as_key("x")); }) == errc::read_only);
    BOOST_CHECK(code_of([&] { r->remove(as_key("shared")); }) == errc::read_only);
    batch_progress p;
    const key_set keys(51, 3);
    BOOST_CHECK(code_of([&] { r->run(batch_op::add, 3, keys.packed(), nullptr, p); }) == errc::read_only);
    BOOST_CHECK(code_of([&] { r->clear(); }) == errc::read_only);
    BOOST_CHECK(r->contains(as_key("shared")));
    BOOST_CHECK(code_of([&] { open_shared(path, nullptr, open_mode::open_or_create); }) == errc::invalid_argument);
    std::filesystem::remove(path);
}

BOOST_AUTO_TEST_SUITE_END()
