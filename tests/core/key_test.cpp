// Keys of any type (key_traits) and batches over any range of them.
#include <cstring>
#include <list>
#include <ranges>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "lfbloom/lfbloom.hpp"
#include "test_support.hpp"

namespace {

/// A caller's own key type: hashed as its two ids' 16 little-endian bytes.
struct order_line {
    std::uint64_t order, line;
};

}  // namespace

template <>
struct lfbloom::key_traits<order_line> {
    template <class Fn>
    static decltype(auto) with_bytes(const order_line& k, Fn&& fn) {
        std::array<std::uint64_t, 2> le = {boost::endian::native_to_little(k.order), boost::endian::native_to_little(k.line)};
        return fn(std::as_bytes(std::span(le)));
    }
};

using namespace lfbloom;

BOOST_AUTO_TEST_SUITE(keys)

BOOST_AUTO_TEST_CASE(integers_of_every_width_are_one_key_their_8_little_endian_bytes) {
    auto f = blocked_bloom_filter::for_capacity(1000, 0.01);
    const unsigned char bytes[8] = {5, 0, 0, 0, 0, 0, 0, 0};
    BOOST_CHECK(f.hash(5) == f.hash(key_view(std::as_bytes(std::span(bytes)))));
    BOOST_CHECK(f.hash(std::uint8_t{5}) == f.hash(5ULL));
    BOOST_CHECK(f.hash(5u) == f.hash(std::int64_t{5}));
    BOOST_CHECK(f.hash(-1) == f.hash(~0ULL));  // two's complement
    BOOST_CHECK(!(f.hash(5) == f.hash(6)));
    f.add(std::uint16_t{77});
    BOOST_CHECK(f.contains(77ULL));
    BOOST_CHECK(f.contains(77));
}

BOOST_AUTO_TEST_CASE(strings_are_their_bytes_in_every_spelling) {
    auto f = blocked_bloom_filter::for_capacity(1000, 0.01);
    const std::string s = "user:42";
    BOOST_CHECK(f.hash("user:42") == f.hash(s));
    BOOST_CHECK(f.hash(std::string_view(s)) == f.hash(as_key(s)));
    BOOST_CHECK(f.hash(s.c_str()) == f.hash(s));
    f.add(s);
    BOOST_CHECK(f.contains("user:42"));
    BOOST_CHECK(f.contains(std::string_view("user:42")));
}

BOOST_AUTO_TEST_CASE(a_callers_own_key_type_through_key_traits) {
    auto counting = counting_bloom_filter::for_capacity(1000, 0.01);
    const order_line k{12, 3};
    std::array<std::uint64_t, 2> raw = {12, 3};
    BOOST_CHECK(counting.hash(k) == counting.hash(key_view(std::as_bytes(std::span(raw)))));
    BOOST_CHECK(counting.add(k));
    BOOST_CHECK(counting.contains(order_line{12, 3}));
    BOOST_CHECK_EQUAL(counting.count(k), 1u);
    BOOST_CHECK(counting.remove(k));
    BOOST_CHECK(!counting.contains(k));
    static_assert(hashable_key<order_line> && hashable_key<std::string> && hashable_key<int> && !hashable_key<bool> &&
                  !hashable_key<char> && !hashable_key<double> && !hashable_key<__int128>);  // no silent truncation
}

BOOST_AUTO_TEST_CASE(batches_over_any_range_answer_as_the_single_calls) {
    // A list (not random access), a view computed on the fly, and a vector of integers.
    std::list<std::string> names;
    for (int i = 0; i < 300; ++i) names.push_back("name:" + std::to_string(i));
    auto ids = std::views::iota(std::uint64_t{0}, std::uint64_t{300}) | std::views::transform([](std::uint64_t i) { return i * 7919; });
    std::vector<order_line> lines;
    for (std::uint64_t i = 0; i < 300; ++i) lines.push_back({i, i + 1});

    auto batch = blocked_bloom_filter::for_capacity(2000, 0.01), single = blocked_bloom_filter::for_capacity(2000, 0.01);
    std::vector<std::uint8_t> added(300, 9);
    BOOST_CHECK_GE(batch.add_many(names, added.data()), 295u);
    BOOST_CHECK(std::ranges::count(added, 9) == 0);
    batch.add_many(ids);
    batch.add_many(lines);
    for (const auto& n : names) single.add(n);
    for (const std::uint64_t id : ids) single.add(id);
    for (const auto& l : lines) single.add(l);
    BOOST_CHECK(batch == single);  // the same bits

    std::vector<std::uint8_t> found(300, 9);
    BOOST_CHECK_EQUAL(batch.contains_many(ids, found.data()), 300u);
    BOOST_CHECK(std::ranges::count(found, 1) == 300);
    const std::vector<std::uint64_t> absent = {1, 2, 3, 4};
    std::vector<std::uint8_t> absent_found(absent.size());
    batch.contains_many(absent, absent_found.data());
    for (std::size_t i = 0; i < absent.size(); ++i) BOOST_CHECK_EQUAL(absent_found[i], batch.contains(absent[i]));

    auto counting = counting_bloom_filter::for_capacity(2000, 0.01);
    counting.add_many(lines);
    std::vector<std::uint8_t> removed(lines.size());
    BOOST_CHECK_EQUAL(counting.remove_many(lines, removed.data()), lines.size());
    BOOST_CHECK_EQUAL(counting.stats().slots_set, 0u);
}

BOOST_AUTO_TEST_CASE(a_refused_add_in_a_range_batch_reports_where_it_stopped) {
    auto f = cuckoo_filter::for_capacity(1000, 0.01, 16);
    const std::vector<std::string> same(12, "again");
    batch_progress p;
    BOOST_CHECK(lfbloom_test::code_of([&] { f.add_many(same, nullptr, &p); }) == errc::too_many_duplicates);
    BOOST_CHECK_EQUAL(p.done, 8u);
    BOOST_CHECK_EQUAL(f.count("again"), 8u);
}

BOOST_AUTO_TEST_SUITE_END()
