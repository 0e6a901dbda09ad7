// The composites' file format (composite_format.hpp): scalable filters of both sub-filter kinds and
// rotating filters of both modes round trip with every answer, their pending removes and clocks;
// a save beside adds holds every completed add; hostile and truncated data is refused before
// anything is allocated; every layout header a loader would refuse is refused by the size probe.
#include <atomic>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "lfbloom/dynamic_filter.hpp"
#include "test_support.hpp"

using namespace lfbloom;
using lfbloom_test::code_of;

namespace {

using bytes = std::vector<std::byte>;

/// `f` saved; unless it may grow meanwhile, as long as serialized_size said.
bytes saved(const dynamic_filter& f, bool growing = false) {
    bytes out;
    f.save(file_format::native, vector_sink(out));
    if (!growing) BOOST_TEST_REQUIRE(out.size() == f.serialized_size(file_format::native));
    return out;
}

std::unique_ptr<dynamic_filter> loaded(const bytes& data, std::uint64_t memory_limit = 0, bool stream = false) {
    std::span<const std::byte> in = data;
    auto f = load_filter(file_format::native, span_source(in), memory_limit, stream ? unknown_length : data.size());
    if (!in.empty()) throw error(errc::corrupt, "bytes left over");
    return f;
}

errc load_error(const bytes& data, std::uint64_t memory_limit = 0) {
    return code_of([&] { (void)loaded(data, memory_limit); });
}

/// The F `f` holds (a test failure, not a null pointer, if it holds another).
template <class F>
F& as(dynamic_filter& f) {
    F* p = f.get<F>();
    if (p == nullptr) throw std::logic_error("the filter is of another class");
    return *p;
}

/// Key i, as the 8 bytes of i (a temporary that outlives the call it is passed to).
struct key {
    explicit key(std::uint64_t i) : value(i) {}
    operator key_view() const { return std::as_bytes(std::span(&value, 1)); }
    std::uint64_t value;
};

/// Every answer for keys [0, n) and absent ones agree, and so do the shapes.
void same_answers(const dynamic_filter& a, const dynamic_filter& b, std::uint64_t n) {
    BOOST_TEST((a.kind() == b.kind()));
    BOOST_TEST(a.info().parts == b.info().parts);
    BOOST_TEST(a.info().bytes == b.info().bytes);
    BOOST_TEST(a.info().slots_set == b.info().slots_set);
    for (std::uint64_t i = 0; i < n + 20000; ++i) BOOST_TEST_REQUIRE(a.contains(key(i)) == b.contains(key(i)), "key " << i);
}

std::unique_ptr<dynamic_filter> scalable(filter_kind sub, std::uint64_t capacity = 1000) {
    filter_spec s;
    s.kind = filter_kind::scalable;
    s.sub_kind = sub;
    s.capacity = capacity;
    s.fpr = 0.01;
    s.seed = 42;
    s.growth = 2;
    return make_filter(s);
}

void patch_u64(bytes& b, std::size_t at, std::uint64_t v) {
    std::memcpy(b.data() + at, &v, 8);  // little-endian machines only, as the other format tests
    const std::uint64_t sum = XXH3_64bits(b.data(), 72);
    std::memcpy(b.data() + 72, &sum, 8);
}
void patch_u8(bytes& b, std::size_t at, std::uint8_t v) {
    b[at] = std::byte{v};
    const std::uint64_t sum = XXH3_64bits(b.data(), 72);
    std::memcpy(b.data() + 72, &sum, 8);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(composite_format)

BOOST_AUTO_TEST_CASE(scalable_filters_round_trip_with_every_part) {
    for (const filter_kind sub : {filter_kind::blocked, filter_kind::cuckoo}) {
        auto f = scalable(sub);
        for (std::uint64_t i = 0; i < 10000; ++i) f->add(key(i));
        BOOST_TEST_REQUIRE(f->info().parts >= 4);
        auto g = loaded(saved(*f));
        same_answers(*f, *g, 10000);
        for (std::uint32_t p = 0; p < f->info().parts; ++p) BOOST_TEST(f->part_info(p).items == g->part_info(p).items);
        // It grows on from where it was, with the saved settings.
        for (std::uint64_t i = 10000; i < 40000; ++i) g->add(key(i));
        BOOST_TEST(g->info().parts > f->info().parts);
        for (std::uint64_t i = 0; i < 40000; ++i) BOOST_TEST_REQUIRE(g->contains(key(i)));
        BOOST_TEST(saved(*loaded(saved(*g))) == saved(*g));  // a loaded filter saves the same bytes
    }
}

// A key added again once its first sub-filter is full matches in two, so its remove defers: the
// list of pending removes is saved, and a loaded filter completes those removes.
BOOST_AUTO_TEST_CASE(pending_removes_survive_a_save) {
    auto f = scalable(filter_kind::cuckoo, 100);
    auto* s = &as<scalable_cuckoo_filter>(*f);
    for (std::uint64_t i = 0; i < 400; ++i) f->add(key(i));
    for (std::uint64_t i = 0; i < 20; ++i) f->add(key(i));  // second copies, in later sub-filters
    std::uint64_t deferred = 0;
    for (std::uint64_t i = 0; i < 20; ++i) deferred += s->erase(key_view(key(i))) == remove_status::deferred;
    BOOST_TEST_REQUIRE(deferred > 0);
    const std::uint64_t pending = s->pending_removes().pending;
    BOOST_TEST_REQUIRE(pending > 0);
    auto g = loaded(saved(*f));
    auto* t = &as<scalable_cuckoo_filter>(*g);
    BOOST_TEST(t->pending_removes().pending == pending);
    for (std::uint64_t i = 0; i < 400; ++i) BOOST_TEST_REQUIRE(t->count(key_view(key(i))) == s->count(key_view(key(i))));
    // The second removes take both copies out, in both filters alike.
    for (std::uint64_t i = 0; i < 20; ++i) BOOST_TEST((s->erase(key_view(key(i))) == t->erase(key_view(key(i)))));
    BOOST_TEST(t->retry_pending_removes() == s->retry_pending_removes());
    for (std::uint64_t i = 0; i < 20000; ++i) BOOST_TEST_REQUIRE(f->contains(key(i)) == g->contains(key(i)));
}

BOOST_AUTO_TEST_CASE(rotating_filters_round_trip_in_both_modes) {
    for (const bool double_write : {false, true}) {
        filter_spec s;
        s.kind = filter_kind::rotating;
        s.capacity = 2000;
        s.fpr = 0.01;
        s.generations = 3;
        s.double_write = double_write;
        auto f = make_filter(s);
        for (std::uint64_t round = 0; round < 5; ++round) {  // the ring's current one moves around
            for (std::uint64_t i = round * 1000; i < round * 1000 + 1000; ++i) f->add(key(i));
            as<rotating_bloom_filter>(*f).rotate();
        }
        auto g = loaded(saved(*f));
        same_answers(*f, *g, 5000);
        BOOST_TEST(g->info().generation == 5);
        for (int step = 0; step < 4; ++step) {  // and they expire alike
            as<rotating_bloom_filter>(*f).rotate();
            as<rotating_bloom_filter>(*g).rotate();
            for (std::uint64_t i = 0; i < 25000; ++i) BOOST_TEST_REQUIRE(f->contains(key(i)) == g->contains(key(i)));
        }
    }
}

// A manual clock is the caller's: a loaded filter goes on in the saved one's time and rotates when
// it would have, neither at once nor a period late.
BOOST_AUTO_TEST_CASE(a_restored_manual_window_expires_on_time) {
    filter_spec s;
    s.kind = filter_kind::rotating;
    s.capacity = 1000;
    s.fpr = 0.01;
    s.generations = 2;
    s.period_ns = 1000;
    s.manual_clock = true;
    auto f = make_filter(s);
    auto* r = &as<rotating_bloom_filter>(*f);
    r->tick(300);
    f->add(key(1));  // added 300 ns into the first period: expires with the second rotation, at 2000
    r->tick(1600);    // one rotation (at 1000); the next is due at 2000
    BOOST_TEST_REQUIRE(r->rotations() == 1);
    auto g = loaded(saved(*f));
    auto* q = &as<rotating_bloom_filter>(*g);
    q->tick(1999);
    BOOST_TEST(q->rotations() == 1);
    BOOST_TEST(g->contains(key(1)));
    q->tick(2000);
    BOOST_TEST(q->rotations() == 2);
    BOOST_TEST(!g->contains(key(1)));
}

// A clocked window counts the wall-clock time between save and load: a load 2.5 periods after a
// save made 0.4 periods before a deadline performs the three rotations due (0.4, 1.4 and 2.4
// periods after the save), and the next comes 0.9 periods after the load.
BOOST_AUTO_TEST_CASE(a_restored_clocked_window_counts_the_time_it_was_saved) {
    std::atomic<std::uint64_t> mono{5'000}, wall{1'700'000'000'000};
    rotating_options o;
    o.generations = 4;
    o.period_ns = 1000;
    o.clock = [&] { return mono.load(); };
    o.wall_clock = [&] { return wall.load(); };
    rotating_bloom_filter f(1000, 0.01, o);  // first deadline at 6,000
    mono = 5'600;
    f.add(key_view(key(7)));
    bytes data;
    save(f, vector_sink(data));
    BOOST_TEST(data.size() == serialized_size(f));
    BOOST_TEST(f.rotations() == 0);
    mono = 0;  // a new process: another monotonic epoch
    wall += 2'500;
    std::span<const std::byte> in = data;
    auto g = load_rotating(span_source(in), 0, data.size(), o);
    BOOST_TEST(g->rotations() == 3);
    BOOST_TEST(g->contains(key_view(key(7))));  // gone at the fourth rotation
    g->tick(899);
    BOOST_TEST(g->rotations() == 3);
    BOOST_TEST(g->contains(key_view(key(7))));
    g->tick(900);
    BOOST_TEST(g->rotations() == 4);
    BOOST_TEST(!g->contains(key_view(key(7))));
}

// Saves run while two threads add and the filter grows; each save's sink is slow, so sub-filters
// are published while it writes. Every add that completed before a save began is in it, and the
// data loads (a save that read the sub-filter count twice would write more parts than its header
// declares: this test caught that, made on purpose).
BOOST_AUTO_TEST_CASE(a_save_beside_adds_holds_every_completed_add) {
    for (const filter_kind sub : {filter_kind::blocked, filter_kind::cuckoo}) {
        auto f = scalable(sub, 500);  // cuckoo: 8 sub-filters at most (the chain's rates), 127,500 keys
        constexpr std::uint64_t keys = 50000;  // per thread
        std::atomic<std::uint64_t> published[2] = {0, 0};
        std::vector<std::jthread> writers;  // joined on the way out, a failure's too
        for (std::uint64_t t = 0; t < 2; ++t)
            writers.emplace_back([&, t] {
                for (std::uint64_t i = 0; i < keys; ++i) {
                    f->add(key(2 * i + t));
                    published[t].store(i + 1, std::memory_order_release);  // the add happens-before a later save
                    if (i % 100 == 0) std::this_thread::sleep_for(std::chrono::microseconds(1));  // saves see it grow
                }
            });
        std::uint32_t saves = 0, grew = 0;
        while (published[0].load(std::memory_order_acquire) < keys || published[1].load(std::memory_order_acquire) < keys) {
            const std::uint64_t done[2] = {published[0].load(std::memory_order_acquire), published[1].load(std::memory_order_acquire)};  // acquire: as above
            const std::uint32_t parts = f->info().parts;
            bytes data;
            const byte_sink into = vector_sink(data);
            f->save(file_format::native, [&](const void* p, std::size_t n) {
                std::this_thread::sleep_for(std::chrono::microseconds(50));
                into(p, n);
            });
            grew += f->info().parts > parts;
            ++saves;
            auto g = loaded(data);
            for (std::uint64_t t = 0; t < 2; ++t)
                for (std::uint64_t i = 0; i < done[t]; ++i) BOOST_TEST_REQUIRE(g->contains(key(2 * i + t)));
        }
        writers.clear();
        BOOST_TEST_MESSAGE(kind_name(sub) << ": " << saves << " saves, " << grew << " while it grew");
        BOOST_TEST(grew > 0u);  // the race this test is about happened
    }
}

BOOST_AUTO_TEST_CASE(truncated_flipped_and_hostile_composites_are_refused) {
    auto f = scalable(filter_kind::cuckoo, 50);
    for (std::uint64_t i = 0; i < 200; ++i) f->add(key(i));
    const bytes good = saved(*f);
    BOOST_TEST((load_error(good) == errc{}));
    for (std::size_t n = 0; n < good.size(); n += 7)
        BOOST_TEST_REQUIRE((load_error(bytes(good.begin(), good.begin() + n)) == errc::corrupt), "prefix " << n);
    for (std::size_t bit = 0; bit < good.size() * 8; bit += 13) {
        bytes bad = good;
        bad[bit / 8] ^= std::byte(1u << (bit % 8));
        const errc code = load_error(bad);
        BOOST_TEST_REQUIRE((code == errc::corrupt || code == errc::unsupported_version), "bit " << bit);
    }
    auto with = [&](auto patch) {
        bytes b = good;
        patch(b);
        return load_error(b);
    };
    const double nan = std::numeric_limits<double>::quiet_NaN();
    for (const double fpr : {0.0, 1.0, 1.5, -0.01, nan})
        BOOST_TEST((with([&](bytes& b) { patch_u64(b, 32, std::bit_cast<std::uint64_t>(fpr)); }) == errc::corrupt), fpr);
    BOOST_TEST((with([](bytes& b) { patch_u64(b, 24, 0); }) == errc::corrupt));                                          // capacity 0
    BOOST_TEST((with([](bytes& b) { patch_u64(b, 48, std::bit_cast<std::uint64_t>(0.5)); }) == errc::corrupt));           // growth < 1
    BOOST_TEST((with([](bytes& b) { patch_u8(b, 14, 0); }) == errc::corrupt));                                            // no parts
    BOOST_TEST((with([](bytes& b) { patch_u8(b, 14, 65); }) == errc::corrupt));                                           // past max_filters
    BOOST_TEST((with([](bytes& b) { patch_u8(b, 13, 65); }) == errc::corrupt));  // max_filters past 64: cuckoo parts
    {  // blocked parts take up to 255 (since 1.14)
        auto blocked = scalable(filter_kind::blocked, 50);
        for (std::uint64_t i = 0; i < 200; ++i) blocked->add(key(i));
        bytes b = saved(*blocked);
        patch_u8(b, 13, 255);
        BOOST_TEST((load_error(b) == errc{}));
        BOOST_TEST(loaded(b)->contains(key(7)));
        patch_u8(b, 13, 0);
        BOOST_TEST((load_error(b) == errc::corrupt));
    }
    BOOST_TEST((with([](bytes& b) { patch_u8(b, 11, 3); }) == errc::corrupt));                                            // counting parts
    BOOST_TEST((with([](bytes& b) { patch_u8(b, 10, 18); }) == errc::unsupported_version));
    BOOST_TEST((with([](bytes& b) { patch_u64(b, 16, 43); }) == errc::corrupt));                                          // the parts' seed differs
    BOOST_TEST((with([](bytes& b) { patch_u64(b, 64, 1'000'000); }) == errc::corrupt));                                   // pending past the length
    // Declared lengths past the data, the memory limit or the machine: refused before allocating.
    bytes big = good;  // 8 GiB: within this machine
    patch_u64(big, 40, std::uint64_t{1} << 33);
    BOOST_TEST((load_error(big) == errc::corrupt));
    BOOST_TEST((load_error(big, 1 << 20) == errc::too_large));
    BOOST_TEST((code_of([&] { (void)loaded(big, 0, true); }) == errc::corrupt));  // a stream that ends early
    BOOST_TEST((with([](bytes& b) { patch_u64(b, 40, std::uint64_t{1} << 50); }) == errc::too_large));  // beyond the machine
    BOOST_TEST((load_error(good, good.size() - 100) == errc::too_large));
    // The size probe answers from the header alone, and refuses what the loader refuses.
    const saved_header h = saved_header_of(file_format::native, std::span(good).first(header_size));
    BOOST_TEST(h.bytes == good.size());
    BOOST_TEST((h.kind == filter_kind::scalable));
    bytes bad = good;
    patch_u8(bad, 14, 0);
    BOOST_TEST((code_of([&] { (void)saved_header_of(file_format::native, std::span(bad).first(header_size)); }) == errc::corrupt));
}

// The header checks of every layout are the class's own, run by the size probe too: it used to
// answer for headers only the loader refused (issue 41).
BOOST_AUTO_TEST_CASE(the_size_probe_refuses_what_the_loader_refuses) {
    auto probe = [](const bytes& b) {
        return code_of([&] { (void)saved_header_of(file_format::native, std::span(b).first(header_size)); });
    };
    auto both = [&](const bytes& b) {
        const errc p = probe(b), l = load_error(b);
        BOOST_TEST((p == l), "probe " << static_cast<int>(p) << ", load " << static_cast<int>(l));
        return l;
    };
    filter_spec split;
    split.kind = filter_kind::split_block;
    split.capacity = 1000;
    split.fpr = 0.01;
    bytes b = saved(*make_filter(split));
    patch_u8(b, 32, 9);  // k = 9
    BOOST_TEST((both(b) == errc::corrupt));
    filter_spec cuckoo = split;
    cuckoo.kind = filter_kind::cuckoo;
    const bytes c = saved(*make_filter(cuckoo));
    const double nan = std::numeric_limits<double>::quiet_NaN();
    for (const double fpr : {1.5, nan, 0.0, -0.01}) {
        bytes bad = c;
        patch_u64(bad, 48, std::bit_cast<std::uint64_t>(fpr));
        BOOST_TEST((both(bad) == errc::corrupt), fpr);
    }
    bytes no_capacity = c;
    patch_u64(no_capacity, 40, 0);  // capacity 0 with a rate
    BOOST_TEST((both(no_capacity) == errc::corrupt));
    BOOST_TEST((both(c) == errc{}));
}

BOOST_AUTO_TEST_SUITE_END()

namespace {

/// The composites of tests/data/format-v1, built the same way each time: keys "golden:0" to
/// "golden:999" (rotating: 0-299 before a rotation, 300-599 after), seed 7. The bindings load the
/// same files (Java, Go, C).
std::unique_ptr<dynamic_filter> golden(const std::string& name) {
    filter_spec s;
    s.capacity = 200;
    s.fpr = 0.01;
    s.seed = 7;
    s.kind = filter_kind::scalable;
    if (name == "scalable-cuckoo.lfb") s.sub_kind = filter_kind::cuckoo;
    if (name == "rotating.lfb") {
        s = {.kind = filter_kind::rotating, .capacity = 500, .fpr = 0.01, .seed = 7};
        s.generations = 3;
        s.period_ns = 1000;
        s.manual_clock = true;
    }
    auto f = make_filter(s);
    const int keys = name == "rotating.lfb" ? 600 : 1000;
    for (int i = 0; i < keys; ++i) {
        if (i == 300 && name == "rotating.lfb") as<rotating_bloom_filter>(*f).tick(1500);
        f->add(as_key("golden:" + std::to_string(i)));
    }
    return f;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(composite_format)

// Files written by the first version of the composites' format load, answer as they did, and are
// what a save writes today, byte for byte (LFBLOOM_WRITE_GOLDEN=1 rewrites them: only for a new
// format version, in a new directory).
BOOST_AUTO_TEST_CASE(golden_composite_files_still_load) {
    const std::filesystem::path dir = std::filesystem::path(LFBLOOM_TEST_DATA) / "format-v1";
    for (const std::string name : {"scalable.lfb", "scalable-cuckoo.lfb", "rotating.lfb"}) {
        BOOST_TEST_CONTEXT(name) {
            const auto f = golden(name);
            const std::string path = (dir / name).string();
            if (std::getenv("LFBLOOM_WRITE_GOLDEN") != nullptr)
                write_file_atomically(path, [&](const byte_sink& sink) { f->save(file_format::native, sink); });
            std::ifstream in(path, std::ios::binary);
            const std::vector<char> file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
            const bytes now = saved(*f);
            BOOST_TEST((bytes(reinterpret_cast<const std::byte*>(file.data()), reinterpret_cast<const std::byte*>(file.data() + file.size())) == now));
            auto g = loaded(now);
            BOOST_TEST(g->info().parts == f->info().parts);
            for (int i = 0; i < 1000; ++i) {
                const auto k = "golden:" + std::to_string(i);
                BOOST_TEST_REQUIRE(g->contains(as_key(k)) == f->contains(as_key(k)));
            }
        }
    }
}

BOOST_AUTO_TEST_SUITE_END()
