// BF.*'s value: a chain of blocked sub-filters (type "lfbloomBF"), its serialized form (RDB, AOF,
// digest) and BF.SCANDUMP's chunks. Shared by module.cpp and the loaders' fuzz target.
//
// A chain is RedisBloom's: sub-filter i holds capacity * expansion^i keys at rate error / 2^(i+1)
// (the sum stays under error); an add first asks every sub-filter, so a key present anywhere is
// not added twice, then goes to the newest, opening a new one once the newest holds its capacity
// (or answering "non scaling filter is full").
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <xxhash.h>

#include "common.hpp"

namespace lfbloom_redis {

/// Sub-filters per key. Each halves the rate, so past about 250 the hashes needed exceed 255.
constexpr std::size_t max_chain = 256;

struct sub_filter {
    blocked_bloom_filter filter;
    std::uint64_t capacity;
    std::uint64_t items = 0;
};

/// One BF key. expansion 0 = NONSCALING.
struct chain : tracked {
    static constexpr std::string_view magic = "LFBRSB01";
    static inline RedisModuleType* type = nullptr;
    static std::string serialize(const chain& c);
    static std::unique_ptr<chain> deserialize(std::string_view blob);
    static void merge(chain& into, const std::vector<const chain*>& sources);

    double error = 0;
    std::uint32_t expansion = 0;
    std::vector<sub_filter> subs;

    chain() { account(bytes()); }

    std::uint64_t bytes() const {  // O(sub-filters): no scan of the bits
        std::uint64_t sum = sizeof(chain);
        for (const auto& s : subs) sum += sizeof(sub_filter) + s.filter.words().size_bytes();
        return sum;
    }
    std::uint64_t items() const {  // loads check that the sum cannot overflow
        std::uint64_t sum = 0;
        for (const auto& s : subs) sum += s.items;
        return sum;
    }
    std::uint64_t capacity() const {  // saturates (a loaded value may claim anything)
        std::uint64_t sum = 0;
        for (const auto& s : subs) sum = s.capacity > UINT64_MAX - sum ? UINT64_MAX : sum + s.capacity;
        return sum;
    }
    /// Sub-filter i's rate: error / 2^(i+1) when scaling (the sum stays under error), error when
    /// NONSCALING (one filter), as RedisBloom.
    double rate(std::size_t i) const { return expansion == 0 ? error : std::ldexp(error, -static_cast<int>(i + 1)); }

    /// Opens sub-filter subs.size(); throws lfbloom::error (too_large past max_bytes).
    void grow(std::uint64_t capacity) {
        if (subs.size() >= max_chain) throw lfbloom::error(lfbloom::errc::full, "the filter reached its limit of sub-filters");
        lfbloom::filter_options o;
        o.memory_limit = memory_left(subs.empty() ? 0 : bytes());
        subs.reserve(subs.size() + 1);  // so push_back cannot throw after the filter is made
        subs.push_back({blocked_bloom_filter::for_capacity(capacity, rate(subs.size()), o), capacity});
        account(bytes());
    }

    /// Every sub-filter has seed 0, so one hash serves them all.
    static lfbloom::hash128 hash(std::string_view key) { return lfbloom::murmur3_x64_128(key.data(), key.size(), 0); }
    bool contains(lfbloom::hash128 h) const {
        return std::any_of(subs.rbegin(), subs.rend(), [&](const sub_filter& s) { return s.filter.contains_hash(h); });
    }
    /// Asks the memory for the key's line in every sub-filter (the newest, to write).
    void prefetch(lfbloom::hash128 h) const {
        for (const auto& s : subs) s.filter.prefetch(h, &s == &subs.back());
    }

    enum class added { fresh, present, full };
    /// Throws lfbloom::error if a new sub-filter cannot be made.
    added add(lfbloom::hash128 key) {
        if (contains(key)) return added::present;
        sub_filter* newest = &subs.back();
        if (newest->items >= newest->capacity) {
            if (expansion == 0) return added::full;
            const long double next = static_cast<long double>(newest->capacity) * expansion;
            if (next > static_cast<long double>(std::numeric_limits<std::uint64_t>::max() / 2))
                throw lfbloom::error(lfbloom::errc::too_large, "the next sub-filter's capacity overflows");
            grow(static_cast<std::uint64_t>(next));
            newest = &subs.back();
        }
        newest->filter.add_hash(key);
        ++newest->items;
        return added::fresh;
    }
};

// ---- serialized form: RDB, AOF (LFBF.RESTORE), DEBUG DIGEST-VALUE ---------------------------------
// magic(8), the head: error(f64) expansion(u32) items(u64) count(u32), then per sub-filter its
// link: capacity(u64) items(u64), and length(u64) and FORMAT.md's checksummed bytes.
// Little-endian. BF.SCANDUMP's header has the same head and links (with word counts).

inline void put_head(std::string& out, const chain& c) {
    put(out, std::bit_cast<std::uint64_t>(c.error));
    put(out, c.expansion);
    put(out, c.items());
    put(out, static_cast<std::uint32_t>(c.subs.size()));
}

inline void put_link(std::string& out, const sub_filter& s) {
    put(out, s.capacity);
    put(out, s.items);
}

inline std::string chain::serialize(const chain& c) {
    std::string out(magic);
    put_head(out, c);
    for (const auto& s : c.subs) {
        put_link(out, s);
        put_filter(out, s.filter);
    }
    return out;
}

/// The checks every loaded chain passes (RDB, RESTORE, LOADCHUNK's header): get_head checks its
/// parameters and sub-filter count, get_link each sub-filter's place in it. Throw lfbloom::error(corrupt).
struct head {
    std::uint32_t count;
    std::uint64_t items;  ///< what the sub-filters' items must sum to
};
inline head get_head(reader& r, chain& c) {
    c.error = r.get_double();
    c.expansion = r.get<std::uint32_t>();
    head h;
    h.items = r.get<std::uint64_t>();
    h.count = r.get<std::uint32_t>();
    if (!(c.error > 0 && c.error < 1) || h.count == 0 || h.count > max_chain || (c.expansion == 0 && h.count != 1))
        throw lfbloom::error(lfbloom::errc::corrupt, "bad parameters");
    return h;
}
struct link {
    std::uint64_t capacity, items;
};
/// Sub-filter c.subs.size()'s capacity and items; `before`: the items of the ones before it.
inline link get_link(reader& r, const chain& c, std::uint32_t count, std::uint64_t before) {
    const auto capacity = r.get<std::uint64_t>();
    const auto items = r.get<std::uint64_t>();
    // each but the newest was full when the next opened; none holds more than its capacity
    const std::size_t i = c.subs.size();
    std::uint64_t expected = capacity;
    if ((i > 0 && __builtin_mul_overflow(c.subs.back().capacity, std::uint64_t{c.expansion}, &expected)) || capacity == 0 ||
        capacity != expected || items > capacity || (i + 1 < count && items != capacity) || items > UINT64_MAX - before)
        throw lfbloom::error(lfbloom::errc::corrupt, "inconsistent sub-filter");
    return {capacity, items};
}

/// Validates everything before and while allocating: lengths against the bytes present, each
/// sub-filter's checksum, the memory limit. Throws lfbloom::error.
inline std::unique_ptr<chain> chain::deserialize(std::string_view blob) {
    reader r(blob, magic);
    auto c = std::make_unique<chain>();
    const head h = get_head(r, *c);
    c->subs.reserve(h.count);
    for (std::uint32_t i = 0; i < h.count; ++i) {
        const link l = get_link(r, *c, h.count, c->items());
        auto f = r.get_filter<blocked_bloom_filter>(c->bytes() + sizeof(sub_filter));
        check_made_for(f, blocked_bloom_filter::size_for(l.capacity, c->rate(i)));
        c->subs.push_back({std::move(f), l.capacity, l.items});
        c->account(c->bytes());
    }
    r.end();
    if (c->items() != h.items) throw lfbloom::error(lfbloom::errc::corrupt, "inconsistent value");
    return c;
}

/// LFBF.MERGE: ORs every source into `into`, sub-filter by sub-filter, and adds their items (an
/// upper bound on the union's). Throws lfbloom::error with nothing changed unless every source
/// has the same error, expansion and sub-filters, and each sub-filter's sum stays within its
/// capacity (so the merged chain keeps its rate and can go on growing). Equal parameters mean
/// equal filters (every loaded one passed check_made_for), so the ORs cannot throw.
inline void chain::merge(chain& into, const std::vector<const chain*>& sources) {
    std::vector<std::uint64_t> items;
    for (const auto& s : into.subs) items.push_back(s.items);
    for (const chain* c : sources) {
        if (c->error != into.error || c->expansion != into.expansion || c->subs.size() != into.subs.size() ||
            c->subs.front().capacity != into.subs.front().capacity)
            throw lfbloom::error(lfbloom::errc::incompatible, "the filters have different parameters or sub-filters");
        for (std::size_t i = 0; i < items.size(); ++i) {
            if (c->subs[i].items > into.subs[i].capacity - items[i])
                throw lfbloom::error(lfbloom::errc::full, "the merged filter would hold more than its capacity");
            items[i] += c->subs[i].items;
        }
    }
    for (const chain* c : sources)
        for (std::size_t i = 0; i < items.size(); ++i) into.subs[i].filter.merge(c->subs[i].filter);  // equal geometry: cannot throw
    for (std::size_t i = 0; i < items.size(); ++i) into.subs[i].items = items[i];
}

// ---- BF.SCANDUMP and BF.LOADCHUNK: RedisBloom's cursor protocol, our own chunks -------------------
// Cursor 0 asks for the header (the reply's cursor is 1). Cursor c > 0 asks for the words from
// word c - 1 of the sub-filters' words laid end to end; the reply holds at most 16 MiB of one
// sub-filter's words and the cursor 1 + the word after them, or 0 and "" past the end. Every
// header and chunk ends with an XXH3 of its content (a chunk's: its start and its words), so
// LOADCHUNK refuses corrupt or misplaced data. Between the header and the last chunk the key
// exists with some bits missing, as with RedisBloom.

constexpr std::string_view dump_magic = "LFBRSD01";
constexpr std::uint64_t chunk_words = std::uint64_t{1} << 21;

inline void put_checksum(std::string& out) { put(out, static_cast<std::uint64_t>(XXH3_64bits(out.data(), out.size()))); }

/// The sub-filter holding word `w` of the words laid end to end, and w's index in it; null past the end.
inline std::pair<sub_filter*, std::uint64_t> locate(chain& c, std::uint64_t w) {
    for (auto& s : c.subs) {
        if (w < s.filter.words().size()) return {&s, w};
        w -= s.filter.words().size();
    }
    return {nullptr, 0};
}

inline std::string dump_header(const chain& c) {
    std::string out(dump_magic);
    put_head(out, c);
    for (const auto& s : c.subs) {
        put_link(out, s);
        put(out, static_cast<std::uint64_t>(s.filter.words().size()));
    }
    put_checksum(out);
    return out;
}

/// The chunk starting at word `start` (which locate() found in `s` at index `at`).
inline std::string dump_chunk(const sub_filter& s, std::uint64_t at, std::uint64_t start) {
    const auto words = s.filter.words().subspan(at, std::min<std::uint64_t>(chunk_words, s.filter.words().size() - at));
    std::string out;
    out.reserve(8 * (words.size() + 2));
    put(out, start);
    for (const auto& w : words) put(out, lfbloom::load_word(w));
    put_checksum(out);
    return out.substr(sizeof(std::uint64_t));  // the start is implied by the cursor
}

/// A chain with zeroed sub-filters of the geometry `header` describes. Throws lfbloom::error
/// (corrupt, or too_large before allocating past MAX_BYTES).
inline std::unique_ptr<chain> load_header(std::string_view header) {
    using lfbloom::errc;
    const auto* end = reinterpret_cast<const unsigned char*>(header.data() + header.size());
    if (header.size() < dump_magic.size() + 8 || XXH3_64bits(header.data(), header.size() - 8) != lfbloom::detail::get_le<std::uint64_t>(end - 8))
        throw lfbloom::error(errc::corrupt, "received bad data");
    reader r(header.substr(0, header.size() - 8), dump_magic);
    auto c = std::make_unique<chain>();
    const head h = get_head(r, *c);
    for (std::uint32_t i = 0; i < h.count; ++i) {
        const link l = get_link(r, *c, h.count, c->items());
        const auto words = r.get<std::uint64_t>();
        c->grow(l.capacity);  // checks MAX_BYTES before allocating
        if (c->subs.back().filter.words().size() != words) throw lfbloom::error(errc::corrupt, "received bad data");
        c->subs.back().items = l.items;
    }
    if (!r.rest.empty() || c->items() != h.items) throw lfbloom::error(errc::corrupt, "received bad data");
    return c;
}

}  // namespace lfbloom_redis
