// Fuzz target: build a filter from the input (first bytes pick layout: blocked, classic, counting
// or cuckoo; size, k, counter width and seed; the rest are keys split on zero bytes), save it in
// every format it supports, load it back: the words must be identical and every key present (for
// a cuckoo filter, every key it stored), in the original and in the copy.
#include "fuzz_support.hpp"

namespace {

template <class Filter>
void check_round_trip(Filter& f, std::span<const std::byte> keys_data) {
    std::vector<lfbloom::key_view> keys;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= keys_data.size(); ++i)
        if (i == keys_data.size() || keys_data[i] == std::byte{0}) {
            keys.push_back(keys_data.subspan(start, i - start));
            start = i + 1;
        }
    if constexpr (Filter::kind == lfbloom::layout::cuckoo) {  // keeps the keys stored, not those refused
        std::erase_if(keys, [&](lfbloom::key_view k) {
            const lfbloom::cuckoo_status s = f.insert(k);
            return s == lfbloom::cuckoo_status::full || s == lfbloom::cuckoo_status::too_many_duplicates;
        });
    } else {
        f.add_many(keys);
    }
    std::vector<std::byte> saved;
    lfbloom::save(f, lfbloom::vector_sink(saved));
    const Filter back = lfbloom::load_exact<Filter>(
        saved, [](const lfbloom::byte_source& s, std::uint64_t n) { return lfbloom::load<Filter>(s, 0, n); });
    if (!std::equal(f.words().begin(), f.words().end(), back.words().begin(), back.words().end())) fuzz::fail("words differ");
    for (auto k : keys)
        if (!f.contains(k) || !back.contains(k)) fuzz::fail("false negative after a round trip");
    if constexpr (std::is_same_v<Filter, lfbloom::classic_bloom_filter>) {
        std::vector<std::byte> guava;
        lfbloom::save_guava(f, lfbloom::vector_sink(guava));
        const auto g = lfbloom::load_exact<Filter>(
            guava, [](const lfbloom::byte_source& s, std::uint64_t n) { return lfbloom::load_guava(s, 0, n); });
        if (!std::equal(f.words().begin(), f.words().end(), g.words().begin(), g.words().end())) fuzz::fail("Guava words differ");
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 4) return 0;
    const unsigned kind = data[0] % 4, lines = 1 + data[1] % 64, hashes = 1 + data[2] % 16, width = data[3] % 2 ? 8 : 4;
    const auto keys = fuzz::bytes_of(data + 4, size - 4);
    if (kind == 0) {
        auto f = lfbloom::blocked_bloom_filter::with_geometry(lines * 512, hashes, {.seed = data[1]});
        check_round_trip(f, keys);
    } else if (kind == 1) {
        auto f = lfbloom::classic_bloom_filter::with_geometry(lines * 64, hashes);
        check_round_trip(f, keys);
    } else if (kind == 2) {
        auto f = lfbloom::counting_bloom_filter::with_geometry(lines * 512 / width, hashes, width, {.seed = data[2]});
        check_round_trip(f, keys);
    } else {  // any bucket count: 1 to 1024
        lfbloom::cuckoo_filter f(1 + (data[1] | (data[2] & 3) << 8), {.seed = data[3]});
        check_round_trip(f, keys);
    }
    return 0;
}
