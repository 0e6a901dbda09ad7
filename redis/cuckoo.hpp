// CF.*: RedisBloom's cuckoo filter commands on the core's cuckoo filter, as a Redis type
// ("lfbloomCF"). Included by module.cpp only.
//
// A key is a chain of core cuckoo filters (lfbloom::cuckoo_filter, seed 0): sub-filter i is sized
// for capacity * expansion^i keys (EXPANSION 0: one sub-filter, adds past it answer "Filter is
// full"). Every sub-filter it makes is shape_for(n) (a key loaded from a file of the library
// keeps the file's, of any shape and format: "lfbloom's file" below): the core's plain 16-bit
// format, four fingerprints per 64-bit bucket, at load 0.8 at capacity (load_at_capacity): about 0.01% false positives per
// sub-filter there (RedisBloom: 8-bit fingerprints, about 2 * BUCKETSIZE / 255, 1.6% at its
// default), 2.5 bytes per item. The core's smaller 14-bit format (five to a bucket, 2.0 bytes per
// item, 0.05%) decodes and encodes a bucket through tables on every add: CF.INSERT of 100 items
// ran about 1.2x RedisBloom's items per second with it, against 1.5x asked (issue 40, measured
// here). BUCKETSIZE and MAXITERATIONS are checked and reported as RedisBloom does, but our buckets
// hold four fingerprints and our kick is the core's bounded breadth-first search (512 buckets).
// An add stores a copy of the item's fingerprint in the newest sub-filter, opening a new one when
// the newest refuses it (full, or 8 copies of that fingerprint in its two buckets already: the
// answer to RedisBloom #533, a duplicate is refused rather than grown for). A delete takes one
// copy from the newest sub-filter that has one. CF.DEL of an item that was never added can take
// another item's copy (same fingerprint, same bucket pair): that item then reads as absent.
//
// Replication is deterministic by construction: the core's insert (free slot of the first bucket,
// then of the second, then a breadth-first search for a chain of moves, in bucket and slot order)
// is a pure function of the table's words and the item's hash, with no random choice; a creation
// replicates as an explicit CF.RESERVE with every parameter and an add as CF.INSERT ... NOCREATE
// ITEMS of the items it stored, so a replica's own max-bytes or defaults cannot change its bytes.
//
// Thread safety: Redis calls commands and type callbacks one at a time (its main thread, or a
// background thread for free and for saving in a fork), so nothing here needs a lock.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include <xxhash.h>

#include "common.hpp"

namespace lfbloom_redis {

using cuckoo_filter = lfbloom::basic_cuckoo_filter<module_sync>;

/// One CF key. The counters are RedisBloom's: items = adds - deletes, deletes.
struct cuckoo_chain : tracked {
    /// 7 bytes: the 8th is '1' for a whole value, 'L' for one CF.LOADCHUNK is loading (its pieces so far).
    static constexpr std::string_view magic = "LFBRCF0";
    static inline RedisModuleType* type = nullptr;
    /// The rate each sub-filter is sized for (the 16-bit format reaches it at any load).
    static constexpr double sub_rate = 0.01;
    /// A sub-filter's load when it holds its capacity: below the core's 0.94, so that adds near
    /// capacity rarely need the core's search for a chain of moves (at 0.85-0.94 about half of them
    /// did, a few dependent cache misses each: CF.INSERT of 100 items ran at 0.75x RedisBloom's
    /// items per second, measured here, issue 40). Costs 17.5% more memory per item than 0.94.
    static constexpr double load_at_capacity = 0.8;
    static constexpr std::uint32_t fingerprint_bits = 16;  ///< the format: see the top of this file
    static constexpr std::size_t max_filters = 32;  ///< RedisBloom's cap
    static constexpr std::size_t head_bytes = 8 + 8 + 4 + 4 + 4 + 8 + 8 + 4 + 8 + 8;

    std::uint64_t capacity = 0;  ///< sub-filter 0's
    std::uint32_t bucket_size = 2, max_iterations = 20, expansion = 1;
    std::uint64_t items = 0, deletes = 0;
    std::vector<cuckoo_filter> subs;
    /// While CF.LOADCHUNK loads a dump: the pieces so far (the head first) and the dump's length.
    std::unique_ptr<std::string> loading;
    std::uint64_t loading_total = 0;

    cuckoo_chain() { account(bytes()); }
    /// Brings INFO lfbloom's bytes up to date after the value's memory changed.
    void reaccount() { account(bytes()); }

    std::uint64_t bytes() const {
        std::uint64_t sum = sizeof(cuckoo_chain) + (loading ? loading->capacity() : 0);
        for (const auto& f : subs) sum += sizeof(cuckoo_filter) + f.bytes();
        return sum;
    }
    /// Sub-filter i's capacity; 0 if it overflows.
    std::uint64_t capacity_of(std::size_t i) const {
        std::uint64_t c = capacity;
        for (std::size_t k = 0; k < i; ++k)
            if (__builtin_mul_overflow(c, std::uint64_t{expansion}, &c)) return 0;
        return c;
    }
    /// Opens the next sub-filter; throws lfbloom::error (full at the cap, too_large past max-bytes).
    void grow() {
        const std::uint64_t n = capacity_of(subs.size());
        if (subs.size() >= max_filters || n == 0) throw lfbloom::error(lfbloom::errc::full, "the filter reached its limit of sub-filters");
        lfbloom::filter_options o;
        o.memory_limit = memory_left(bytes() + sizeof(cuckoo_filter));
        subs.reserve(subs.size() + 1);  // so push_back cannot throw after the filter is made
        subs.push_back(cuckoo_filter(shape_for(n), o));
        account(bytes());
    }

    /// The shape of a sub-filter of capacity n: the core's, 16-bit, for n / load_at_capacity * max_load keys.
    static lfbloom::geometry shape_for(std::uint64_t n) {
        const double keys = std::ceil(static_cast<double>(n) * (cuckoo_filter::max_load / load_at_capacity));
        if (!(keys < 0x1p63)) throw lfbloom::error(lfbloom::errc::too_large, "capacity too large");
        return cuckoo_filter::size_for(static_cast<std::uint64_t>(keys), sub_rate, fingerprint_bits);
    }
    static lfbloom::hash128 hash(std::string_view item) { return lfbloom::murmur3_x64_128(item.data(), item.size(), 0); }
    /// Prefetches the item's buckets in every sub-filter, the newest first (the one adds go to;
    /// queries look there first): for_each_hashed's batches.
    void prefetch(lfbloom::hash128 h) const {
        for (auto it = subs.rbegin(); it != subs.rend(); ++it) it->prefetch(h, false);
    }
    bool contains(lfbloom::hash128 h) const {
        for (auto it = subs.rbegin(); it != subs.rend(); ++it)
            if (it->contains_hash(h)) return true;
        return false;
    }
    std::uint64_t count(lfbloom::hash128 h) const {
        std::uint64_t n = 0;
        for (const auto& f : subs) n += f.count_hash(h);
        return n;
    }
    /// Stores a copy; false if the filter is full (nothing changed). Throws lfbloom::error when a
    /// new sub-filter cannot be made (max-bytes, the cap on sub-filters).
    bool add(lfbloom::hash128 h) {
        for (;;) {
            const auto s = subs.back().insert_hash(h);
            if (s == lfbloom::cuckoo_status::added_new || s == lfbloom::cuckoo_status::added) break;
            if (expansion == 0) return false;
            if (s == lfbloom::cuckoo_status::too_many_duplicates) return false;
            grow();
        }
        ++items;
        return true;
    }
    /// Takes one copy from the newest sub-filter holding one; false if none does.
    bool del(lfbloom::hash128 h) {
        for (auto it = subs.rbegin(); it != subs.rend(); ++it) {
            if (it->remove_hash(h)) {
                --items;
                ++deletes;
                return true;
            }
        }
        return false;
    }

    // ---- the value's bytes: RDB, AOF (LFBF.RESTORE), digest, copy, CF.SCANDUMP's dump ----
    // magic(7) '1', the head: capacity(u64) bucket_size(u32) max_iterations(u32) expansion(u32)
    // items(u64) deletes(u64) count(u32) total(u64, the whole value's bytes), the XXH3-64 of the
    // head's bytes before it (the sub-filters carry their own checksums), then per sub-filter
    // length(u64) and its FORMAT.md bytes (lfbloom::save: header, bucket words, checksum).
    // Little-endian. A value being loaded is magic(7) 'L', the file's length(u64), the BUCKETSIZE
    // and MAXITERATIONS it gets (u32 each), and the file's bytes so far (see "lfbloom's file" below).

    std::uint64_t serialized_size() const {
        std::uint64_t n = head_bytes;
        for (const auto& f : subs) n += 8 + lfbloom::serialized_size(f);
        return n;
    }
    /// Writes the whole value (not a loading one) to sink(data, n).
    template <class Sink>
    void write(Sink&& sink) const {
        std::string head(magic);
        head += '1';
        put(head, capacity);
        put(head, bucket_size);
        put(head, max_iterations);
        put(head, expansion);
        put(head, items);
        put(head, deletes);
        put(head, static_cast<std::uint32_t>(subs.size()));
        put(head, serialized_size());
        put(head, static_cast<std::uint64_t>(XXH3_64bits(head.data(), head.size())));
        sink(head.data(), head.size());
        for (const auto& f : subs) {
            std::string length;
            put(length, lfbloom::serialized_size(f));
            sink(length.data(), length.size());
            lfbloom::save(f, [&](const void* d, std::size_t n) { sink(static_cast<const char*>(d), n); });
        }
    }
    static std::string serialize(const cuckoo_chain& c) {
        std::string out;
        if (c.loading) {
            out = std::string(magic) + 'L';
            put(out, c.loading_total);
            put(out, c.bucket_size);
            put(out, c.max_iterations);
            return out + *c.loading;
        }
        out.reserve(c.serialized_size());
        c.write([&](const char* d, std::size_t n) { out.append(d, n); });
        return out;
    }

    /// Reads and checks a head (the first head_bytes of a whole value); the sub-filters are to come.
    /// Returns the sub-filter count and the value's declared length. Throws corrupt.
    static std::pair<std::uint32_t, std::uint64_t> get_head(std::string_view blob, cuckoo_chain& c) {
        reader r(blob.substr(0, head_bytes), "LFBRCF01");
        c.capacity = r.get<std::uint64_t>();
        c.bucket_size = r.get<std::uint32_t>();
        c.max_iterations = r.get<std::uint32_t>();
        c.expansion = r.get<std::uint32_t>();
        c.items = r.get<std::uint64_t>();
        c.deletes = r.get<std::uint64_t>();
        const auto count = r.get<std::uint32_t>();
        const auto total = r.get<std::uint64_t>();
        if (r.get<std::uint64_t>() != XXH3_64bits(blob.data(), head_bytes - 8)) throw lfbloom::error(lfbloom::errc::corrupt, "head checksum mismatch");
        if (!c.valid(count) || total < head_bytes) throw lfbloom::error(lfbloom::errc::corrupt, "bad parameters");
        return {count, total};
    }
    /// Whether the parameters are a key's (RedisBloom's ranges, expansion a power of two) for `count` sub-filters.
    bool valid(std::uint64_t count) const {
        return capacity >= 2 * std::uint64_t{bucket_size} && bucket_size >= 1 && bucket_size <= 255 && max_iterations >= 1 &&
               max_iterations <= 65535 && expansion <= 32768 && std::popcount(expansion) <= 1 && count >= 1 && count <= max_filters &&
               (expansion != 0 || count == 1);
    }

    /// Validates everything before and while allocating: lengths against the bytes present, each
    /// sub-filter's checksum and seed (any shape: a key loaded from a file keeps the file's), the
    /// memory limit, the count of fingerprints against the items. Throws lfbloom::error.
    static std::unique_ptr<cuckoo_chain> deserialize(std::string_view blob) {
        auto c = std::make_unique<cuckoo_chain>();
        if (blob.size() > magic.size() && blob[magic.size()] == 'L') {
            reader r(blob, "LFBRCF0L");
            c->loading_total = r.get<std::uint64_t>();
            c->bucket_size = r.get<std::uint32_t>();
            c->max_iterations = r.get<std::uint32_t>();
            if (r.rest.size() < lfbloom::header_size || r.rest.size() >= c->loading_total || c->bucket_size < 1 || c->bucket_size > 255 ||
                c->max_iterations < 1 || c->max_iterations > 65535 || file_length(r.rest.substr(0, lfbloom::header_size)) != c->loading_total)
                throw lfbloom::error(lfbloom::errc::corrupt, "inconsistent load state");
            c->loading = std::make_unique<std::string>(r.rest);
            c->account(c->bytes());
            return c;
        }
        const auto [count, total] = get_head(blob, *c);
        if (total != blob.size()) throw lfbloom::error(lfbloom::errc::corrupt, "inconsistent value length");
        reader r(blob.substr(head_bytes), "");
        std::uint64_t fingerprints = 0;
        c->subs.reserve(count);
        for (std::uint32_t i = 0; i < count; ++i) {
            auto f = r.get_filter<cuckoo_filter>(c->bytes() + sizeof(cuckoo_filter));
            // any shape and bucket format: a key loaded from a file of the library keeps its
            // sub-filters as the file made them (grow() makes the ones after them)
            if (f.seed() != 0) throw lfbloom::error(lfbloom::errc::corrupt, "a sub-filter's seed is not 0");
            fingerprints += f.stats().fingerprints;
            c->subs.push_back(std::move(f));
            c->account(c->bytes());
        }
        r.end();
        if (fingerprints != c->items) throw lfbloom::error(lfbloom::errc::corrupt, "the items do not match the fingerprints");
        return c;
    }

    // ---- lfbloom's file of a key: CF.SCANDUMP's pieces, CF.LOADCHUNK and LFBF.RESTORE of a file ----
    // A key is a scalable filter of cuckoo parts in the library's format (FORMAT.md, "Composites"):
    // seed 0, max sub-filters 32 (EXPANSION 0: 1), growth EXPANSION (0: 1), tightening 0.5 and
    // rate 2 x sub_rate, so that the format's rule gives part 0 the rate it was sized for (the
    // parts' own headers say what each was sized for: a loader does not re-derive them, and grow()
    // makes every part at sub_rate). The tail's add count of a part is its fingerprints, the last
    // part's plus the key's deletes (RedisBloom's count, which the format has no field for; a
    // delete takes its copy from the newest part that has one). BUCKETSIZE and MAXITERATIONS, which
    // the format cannot hold either, travel in the head's cursor (cuckoo::head_cursor).
    // Back from a file: a scalable file of cuckoo parts (seed 0, no pending removes, at most 32
    // parts, a growth that is EXPANSION's power of two, or max sub-filters 1 for EXPANSION 0),
    // whose parts may have any shape and bucket format, or one cuckoo filter's file, which becomes
    // a key of EXPANSION 0 (one filter, as the file) whose capacity is the file's.

    static constexpr const char* not_cuckoo =
        "a CF key loads a cuckoo filter's file (lfbloom build --kind cuckoo, or --kind scalable --sub-kind cuckoo)";

    lfbloom::composite_header file_head() const {
        lfbloom::composite_header h;
        h.parts_layout = lfbloom::layout::cuckoo;
        h.capacity = capacity;
        h.fpr = 2 * sub_rate;
        h.scalable.growth = expansion == 0 ? 1.0 : expansion;
        h.scalable.tightening = 0.5;
        h.scalable.max_filters = expansion == 0 ? 1 : max_filters;
        h.parts = static_cast<std::uint32_t>(subs.size());
        h.bytes = file_size();
        return h;
    }
    std::uint64_t file_size() const {
        std::uint64_t n = lfbloom::header_size + lfbloom::trailer_size;
        for (const auto& f : subs) n += 8 + lfbloom::serialized_size(f);
        return n;
    }
    /// Writes the key's file to sink(data, n).
    template <class Sink>
    void write_file(Sink&& sink) const {
        const lfbloom::byte_sink out = [&](const void* d, std::size_t n) { sink(static_cast<const char*>(d), n); };
        std::vector<std::uint64_t> tail;
        for (const auto& f : subs) tail.push_back(f.stats().fingerprints);
        tail.back() += deletes;
        lfbloom::detail::write_composite(file_head(), out, [&] {
            for (const auto& f : subs) lfbloom::save(f, out);
        }, tail);
    }

    /// Whether `blob` starts as a file of cuckoo filters (LFBF.RESTORE's choice between BF and CF).
    static bool is_cuckoo_file(std::string_view blob) {
        return blob.size() >= 12 && blob.starts_with({lfbloom::detail::magic, 8}) &&
               (static_cast<lfbloom::layout>(blob[10]) == lfbloom::layout::cuckoo ||
                (static_cast<std::uint8_t>(blob[10]) >= 16 && static_cast<lfbloom::layout>(blob[11]) == lfbloom::layout::cuckoo));
    }

    /// The length of the file whose first header_size bytes are `head`, if a key can hold it.
    /// Throws lfbloom::error: corrupt or unsupported_version (not a file's head), incompatible
    /// (a file a key cannot hold: the reason), too_large (over max-bytes).
    static std::uint64_t file_length(std::string_view head) {
        using lfbloom::errc;
        lfbloom::native_head h;
        if (head.size() != h.size()) throw lfbloom::error(errc::corrupt, "a file's head is 80 bytes");
        std::memcpy(h.data(), head.data(), h.size());
        if (!lfbloom::is_composite(h)) {
            const lfbloom::file_header p = lfbloom::file_header_of(h);
            if (p.kind != lfbloom::layout::cuckoo) throw lfbloom::error(errc::incompatible, not_cuckoo);
            if (p.seed != 0) throw lfbloom::error(errc::incompatible, "a CF key loads cuckoo filters of seed 0");
            const std::uint64_t total = lfbloom::header_size + p.payload_bytes + lfbloom::trailer_size;
            (void)memory_left(total);  // max-bytes
            return total;
        }
        const lfbloom::composite_header c = lfbloom::composite_header_of(h, memory_left(0));
        if (c.kind != lfbloom::filter_kind::scalable || c.parts_layout != lfbloom::layout::cuckoo) throw lfbloom::error(errc::incompatible, not_cuckoo);
        if (c.seed != 0) throw lfbloom::error(errc::incompatible, "a CF key loads cuckoo filters of seed 0");
        if (c.pending != 0) throw lfbloom::error(errc::incompatible, "a CF key holds no pending removes (the file has " + std::to_string(c.pending) + ")");
        if (c.parts > max_filters) throw lfbloom::error(errc::incompatible, "a CF key holds at most 32 sub-filters");
        const double g = c.scalable.growth;
        if (c.scalable.max_filters > 1 && !(g <= 32768 && g == std::floor(g) && std::has_single_bit(static_cast<std::uint32_t>(g))))
            throw lfbloom::error(errc::incompatible, "a CF key grows by a power of two up to 32768 (EXPANSION), not " + shortest(g));
        return c.bytes;
    }

    /// The key of the file `file` (whole), with RedisBloom's two parameters the file has no field
    /// for. Checks as file_length, then every part (header before allocating, checksum), the tail's
    /// checksum, and the parameters as a value's. Throws lfbloom::error as file_length.
    static std::unique_ptr<cuckoo_chain> import_file(std::string_view file, std::uint32_t bucket_size, std::uint32_t max_iterations) {
        using lfbloom::errc;
        if (file.size() < lfbloom::header_size) throw lfbloom::error(errc::corrupt, "truncated file");
        if (file_length(file.substr(0, lfbloom::header_size)) != file.size())
            throw lfbloom::error(errc::corrupt, "the file's length is not the one its header declares");
        auto c = std::make_unique<cuckoo_chain>();
        c->bucket_size = bucket_size;
        c->max_iterations = max_iterations;
        std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(file.data()), file.size());
        lfbloom::native_head h;
        std::memcpy(h.data(), file.data(), h.size());
        std::uint64_t adds = 0;
        if (!lfbloom::is_composite(h)) {
            auto f = lfbloom::load<cuckoo_filter>(lfbloom::span_source(bytes), memory_left(0), file.size());
            c->capacity = f.shape().capacity;
            c->expansion = 0;
            c->subs.push_back(std::move(f));
        } else {
            const lfbloom::composite_header head = lfbloom::composite_header_of(h, memory_left(0), file.size());
            bytes = bytes.subspan(lfbloom::header_size);
            auto [parts, tail] = lfbloom::detail::read_composite<cuckoo_filter>(head, lfbloom::span_source(bytes), memory_left(0),
                                                                              file.size() - lfbloom::header_size,
                                                                              [](const auto& p) { return p.size(); });
            c->capacity = head.capacity;
            c->expansion = head.scalable.max_filters == 1 ? 0 : static_cast<std::uint32_t>(head.scalable.growth);
            c->subs.reserve(parts.size());
            for (auto& f : parts) c->subs.push_back(std::move(f));
            for (const std::uint64_t t : tail) adds = t > ~adds ? ~std::uint64_t{0} : adds + t;
        }
        for (const auto& f : c->subs) c->items += f.stats().fingerprints;
        c->deletes = adds > c->items ? adds - c->items : 0;
        if (!c->valid(c->subs.size()))
            throw lfbloom::error(errc::incompatible, "a CF key needs a capacity of at least 2 x BUCKETSIZE (the file's is " +
                                                         std::to_string(c->capacity) + ")");
        c->reaccount();
        return c;
    }
};

namespace cuckoo {

constexpr std::uint64_t piece_bytes = std::uint64_t{16} << 20;

/// CF.SCANDUMP's and CF.LOADCHUNK's cursors: 1 + the end of a piece in the file, in the low 39
/// bits (files under 512 GiB); the head's also carries BUCKETSIZE (bits 39-46) and MAXITERATIONS
/// (bits 47-62), which the file has no field for (0: RedisBloom's defaults, 2 and 20).
constexpr int position_bits = 39;
constexpr std::uint64_t position_mask = (std::uint64_t{1} << position_bits) - 1;
inline long long head_cursor(const cuckoo_chain& c) {
    return static_cast<long long>((1 + lfbloom::header_size) | std::uint64_t{c.bucket_size} << position_bits |
                                  std::uint64_t{c.max_iterations} << (position_bits + 8));
}
/// The file offset a positive cursor names (the end of its piece).
inline std::uint64_t position(long long cursor) { return (static_cast<std::uint64_t>(cursor) & position_mask) - 1; }

/// The piece of c's file from byte `at` (the head alone at 0; after it, pieces of piece_bytes) to
/// the piece's end; empty past the file. `end` is set to the piece's end.
inline std::string dump_piece(const cuckoo_chain& c, std::uint64_t at, std::uint64_t& end) {
    const std::uint64_t total = c.file_size();
    if (total > position_mask) throw lfbloom::error(lfbloom::errc::too_large, "a key of 512 GiB or more has no dump");
    if (at >= total) return end = 0, std::string();
    const std::uint64_t from = at < lfbloom::header_size ? 0 : at;
    end = from == 0 ? lfbloom::header_size : std::min(total, from + piece_bytes);
    std::string out;
    out.reserve(end - from);
    std::uint64_t pos = 0;  // of the next byte the writer gives
    c.write_file([&](const char* d, std::size_t n) {
        const std::uint64_t lo = std::max(pos, from), hi = std::min(pos + n, end);
        if (lo < hi) out.append(d + (lo - pos), hi - lo);
        pos += n;
    });
    return out;
}

inline bool wrong_or_missing(RedisModuleCtx* ctx, RedisModuleKey* key, cuckoo_chain*& c) {
    bool wrong = false;
    c = lookup<cuckoo_chain>(key, wrong);
    if (wrong) RedisModule_ReplyWithError(ctx, REDISMODULE_ERRORMSG_WRONGTYPE);
    return wrong;
}

/// A new key's parameters (RedisBloom's defaults).
struct creation {
    long long capacity = 1000, bucket_size = 2, max_iterations = 20, expansion = 1;
};

/// Makes the key's chain and replicates its creation with every parameter; null after replying
/// with the error.
inline cuckoo_chain* create(RedisModuleCtx* ctx, RedisModuleKey* key, RedisModuleString* name, const creation& p) {
    try {
        auto c = std::make_unique<cuckoo_chain>();
        c->capacity = static_cast<std::uint64_t>(p.capacity);
        c->bucket_size = static_cast<std::uint32_t>(p.bucket_size);
        c->max_iterations = static_cast<std::uint32_t>(p.max_iterations);
        c->expansion = static_cast<std::uint32_t>(p.expansion);
        c->grow();
        cuckoo_chain* raw = c.release();
        RedisModule_ModuleTypeSetValue(key, cuckoo_chain::type, raw);
        RedisModule_Replicate(ctx, "CF.RESERVE", "slclclcl", name, p.capacity, "BUCKETSIZE", p.bucket_size, "MAXITERATIONS",
                              p.max_iterations, "EXPANSION", p.expansion);
        notify(ctx, "cf.reserve", name);
        return raw;
    } catch (const std::exception& e) {
        reply_error(ctx, e);
        return nullptr;
    }
}

/// RedisBloom's EXPANSION: rounded up to a power of two (0 stays 0).
inline long long rounded(long long expansion) { return expansion == 0 ? 0 : static_cast<long long>(std::bit_ceil(static_cast<std::uint64_t>(expansion))); }

/// The index of `word` among argv[from..argc), -1 if absent (RedisBloom's options are found anywhere).
inline int find(RedisModuleString** argv, int from, int argc, const char* word) {
    for (int i = from; i < argc; ++i)
        if (is(argv[i], word)) return i;
    return -1;
}

/// CF.RESERVE key capacity [BUCKETSIZE n] [MAXITERATIONS n] [EXPANSION n]
inline int reserve(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
    if (argc < 3 || argc % 2 == 0) return RedisModule_WrongArity(ctx);
    creation p;
    if (RedisModule_StringToLongLong(argv[2], &p.capacity) != REDISMODULE_OK) return RedisModule_ReplyWithError(ctx, "Bad capacity");
    struct option {
        const char* word;
        long long* value;
        long long low, high;
        const char *unparsed, *range;
    };
    const option options[] = {
        {"MAXITERATIONS", &p.max_iterations, 1, 65535, "Couldn't parse MAXITERATIONS",
         "MAXITERATIONS: value must be an integer between 1 and 65535, inclusive."},
        {"BUCKETSIZE", &p.bucket_size, 1, 255, "Couldn't parse BUCKETSIZE", "BUCKETSIZE: value must be an integer between 1 and 255, inclusive."},
        {"EXPANSION", &p.expansion, 0, 32768, "Couldn't parse EXPANSION", "EXPANSION: value must be an integer between 0 and 32768, inclusive."},
    };
    for (const auto& o : options) {
        const int at = find(argv, 3, argc, o.word);
        if (at < 0) continue;
        if (at + 1 >= argc || RedisModule_StringToLongLong(argv[at + 1], o.value) != REDISMODULE_OK) return RedisModule_ReplyWithError(ctx, o.unparsed);
        if (*o.value < o.low || *o.value > o.high) return RedisModule_ReplyWithError(ctx, o.range);
    }
    p.expansion = rounded(p.expansion);
    if (p.capacity < 2 * p.bucket_size) return RedisModule_ReplyWithError(ctx, "Capacity must be at least (BucketSize * 2)");
    RedisModuleKey* key = open(ctx, argv[1], REDISMODULE_READ | REDISMODULE_WRITE);
    cuckoo_chain* c = nullptr;
    if (wrong_or_missing(ctx, key, c)) return REDISMODULE_OK;
    if (c != nullptr) return RedisModule_ReplyWithError(ctx, "ERR item exists");
    return create(ctx, key, argv[1], p) == nullptr ? REDISMODULE_OK : RedisModule_ReplyWithSimpleString(ctx, "OK");
}

/// The writable chain at `name` (created from `p` if empty and `may_create`); null after replying.
inline cuckoo_chain* writable(RedisModuleCtx* ctx, RedisModuleString* name, const creation& p, bool may_create) {
    RedisModuleKey* key = open(ctx, name, REDISMODULE_READ | REDISMODULE_WRITE);
    cuckoo_chain* c = nullptr;
    if (wrong_or_missing(ctx, key, c)) return nullptr;
    if (c == nullptr && !may_create) return RedisModule_ReplyWithError(ctx, "ERR not found"), nullptr;
    if (c != nullptr && c->loading) return RedisModule_ReplyWithError(ctx, "ERR the filter is being loaded (CF.LOADCHUNK)"), nullptr;
    return c != nullptr ? c : create(ctx, key, name, p);
}

enum class outcome { stored, present, full, refused };

/// Adds each item (unless `nx` and present), calling reply(outcome, why) per item until it returns
/// false (`why`: the error when a new sub-filter could not be made, refused). Replicates the
/// command verbatim when it stored every item (the replica's table is the primary's, and the
/// core's insert a pure function of it, so it stores the same copies in the same slots), else the
/// stored items as CF.INSERT NOCREATE ITEMS (a replica ignores max-bytes: it must not store what
/// its primary refused). Items are hashed and prefetched in batches (for_each_hashed).
template <class Reply>
void add_items(RedisModuleCtx* ctx, RedisModuleString* name, cuckoo_chain& c, RedisModuleString** items, int n, bool nx, Reply&& reply) {
    int stored = 0;
    std::vector<RedisModuleString*> kept;  // the stored items, gathered only once one was not stored
    bool all = true;
    // the chain as adds see it: the newest sub-filter's buckets (every sub-filter's for NX, which
    // looks in all of them first), then a second prefetch of the buckets where its search for room
    // looks first (the core's prefetch_room), half the window before each add
    struct adding {
        const cuckoo_chain& c;
        bool nx;
        static lfbloom::hash128 hash(std::string_view item) { return cuckoo_chain::hash(item); }
        void prefetch(lfbloom::hash128 h) const {
            if (nx) c.prefetch(h);
            else c.subs.back().prefetch(h, true);
        }
        void prefetch_late(lfbloom::hash128 h) const { c.subs.back().prefetch_room(h); }
    };
    for_each_hashed(adding{c, nx}, items, n, [&](int i, lfbloom::hash128 h) {
        outcome o = outcome::present;
        std::string why;
        if (!nx || !c.contains(h)) {
            try {
                o = c.add(h) ? outcome::stored : outcome::full;
            } catch (const std::exception& e) {  // max-bytes, the cap on sub-filters: nothing changed
                o = outcome::refused;
                why = "ERR " + std::string(e.what());
            }
        }
        if (o == outcome::stored) {
            ++stored;
            if (!all) kept.push_back(items[i]);
        } else if (all) {
            all = false;
            kept.assign(items, items + i);
        }
        return reply(o, why);
    });
    if (stored == 0) return;
    if (all) {
        RedisModule_ReplicateVerbatim(ctx);
    } else {
        // argv: name NOCREATE ITEMS items...
        std::vector<RedisModuleString*> args{name, RedisModule_CreateString(ctx, "NOCREATE", 8), RedisModule_CreateString(ctx, "ITEMS", 5)};
        args.insert(args.end(), kept.begin(), kept.end());
        RedisModule_Replicate(ctx, "CF.INSERT", "v", args.data(), args.size());
    }
    notify(ctx, "cf.add", name);
}

/// CF.ADD key item, CF.ADDNX key item
template <bool NX>
int add_one(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
    if (argc != 3) return RedisModule_WrongArity(ctx);
    cuckoo_chain* c = writable(ctx, argv[1], creation{}, true);
    if (c == nullptr) return REDISMODULE_OK;
    add_items(ctx, argv[1], *c, argv + 2, 1, NX, [&](outcome o, const std::string& why) {
        if (o == outcome::full) return RedisModule_ReplyWithError(ctx, "Filter is full"), false;
        if (o == outcome::refused) return RedisModule_ReplyWithError(ctx, why.c_str()), false;
        return reply_bool(ctx, o == outcome::stored), true;
    });
    return REDISMODULE_OK;
}

/// CF.INSERT / CF.INSERTNX key [CAPACITY n] [NOCREATE] ITEMS item [item ...]
template <bool NX>
int insert(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
    if (argc < 4) return RedisModule_WrongArity(ctx);
    creation p;
    bool nocreate = false;
    int i = 2;
    for (; i < argc && !is(argv[i], "ITEMS"); ++i) {
        if (is(argv[i], "NOCREATE")) {
            nocreate = true;
        } else if (is(argv[i], "CAPACITY")) {
            if (++i == argc || RedisModule_StringToLongLong(argv[i], &p.capacity) != REDISMODULE_OK)
                return RedisModule_ReplyWithError(ctx, "Bad capacity");
        } else {
            return RedisModule_ReplyWithError(ctx, "Unknown argument received");
        }
    }
    if (i + 1 >= argc) return RedisModule_WrongArity(ctx);
    if (p.capacity < 2 * p.bucket_size) return RedisModule_ReplyWithError(ctx, "Capacity must be at least (BucketSize * 2)");
    cuckoo_chain* c = writable(ctx, argv[1], p, !nocreate);
    if (c == nullptr) return REDISMODULE_OK;
    const bool resp3 = RedisModule_GetContextFlags(ctx) & REDISMODULE_CTX_FLAGS_RESP3;
    RedisModule_ReplyWithArray(ctx, argc - i - 1);
    add_items(ctx, argv[1], *c, argv + i + 1, argc - i - 1, NX, [&](outcome o, const std::string&) {
        // RedisBloom: CF.INSERT answers 1 / -1 (RESP3: true / false), CF.INSERTNX 1 / 0 / -1 in
        // both; ours answers -1 too where a new sub-filter could not be made (max-bytes)
        if (!NX && resp3) reply_bool(ctx, o == outcome::stored);
        else RedisModule_ReplyWithLongLong(ctx, o == outcome::stored ? 1 : o == outcome::present ? 0 : -1);
        return true;
    });
    return REDISMODULE_OK;
}

/// The chain at argv[1] for a query: null if missing or of another type (RedisBloom answers 0 then).
inline const cuckoo_chain* readable(RedisModuleCtx* ctx, RedisModuleString* name) {
    bool wrong = false;
    return lookup<cuckoo_chain>(open(ctx, name, REDISMODULE_READ), wrong);
}

/// CF.EXISTS key item
inline int exists(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
    if (argc != 3) return RedisModule_WrongArity(ctx);
    const cuckoo_chain* c = readable(ctx, argv[1]);
    return reply_bool(ctx, c != nullptr && c->contains(cuckoo_chain::hash(view(argv[2]))));
}

/// CF.MEXISTS key item [item ...]
inline int mexists(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
    if (argc < 3) return RedisModule_WrongArity(ctx);
    const cuckoo_chain* c = readable(ctx, argv[1]);
    RedisModule_ReplyWithArray(ctx, argc - 2);
    if (c == nullptr) {
        for (int i = 2; i < argc; ++i) reply_bool(ctx, false);
    } else {
        for_each_hashed(*c, argv + 2, argc - 2, [&](int, lfbloom::hash128 h) { return reply_bool(ctx, c->contains(h)), true; });
    }
    return REDISMODULE_OK;
}

/// CF.COUNT key item: the copies of the item's fingerprint in its buckets (0 for a missing key).
inline int count(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
    if (argc != 3) return RedisModule_WrongArity(ctx);
    const cuckoo_chain* c = readable(ctx, argv[1]);
    return RedisModule_ReplyWithLongLong(ctx, c == nullptr ? 0 : static_cast<long long>(c->count(cuckoo_chain::hash(view(argv[2])))));
}

/// CF.DEL key item: takes one copy (see the top of this file for the hazard of items never added).
inline int del(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
    if (argc != 3) return RedisModule_WrongArity(ctx);
    bool wrong = false;
    cuckoo_chain* c = lookup<cuckoo_chain>(open(ctx, argv[1], REDISMODULE_READ | REDISMODULE_WRITE), wrong);
    if (c == nullptr) return RedisModule_ReplyWithError(ctx, "Not found");  // RedisBloom: also for another type
    if (c->loading) return RedisModule_ReplyWithError(ctx, "ERR the filter is being loaded (CF.LOADCHUNK)");
    const bool removed = c->del(cuckoo_chain::hash(view(argv[2])));
    if (removed) {
        RedisModule_ReplicateVerbatim(ctx);
        notify(ctx, "cf.del", argv[1]);
    }
    return reply_bool(ctx, removed);
}

/// CF.INFO key: RedisBloom's eight fields. Size is our memory, Number of buckets sub-filter 0's
/// 64-bit buckets (four fingerprints each), not RedisBloom's.
inline int info(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
    if (argc != 2) return RedisModule_WrongArity(ctx);
    RedisModuleKey* key = open(ctx, argv[1], REDISMODULE_READ);
    cuckoo_chain* c = nullptr;
    if (wrong_or_missing(ctx, key, c)) return REDISMODULE_OK;
    if (c == nullptr) return RedisModule_ReplyWithError(ctx, "ERR not found");
    const long long values[] = {static_cast<long long>(c->bytes()), c->subs.empty() ? 0 : static_cast<long long>(c->subs.front().buckets()),
                                static_cast<long long>(c->subs.size()),  static_cast<long long>(c->items),
                                static_cast<long long>(c->deletes),      c->bucket_size,
                                c->expansion,                            c->max_iterations};
    static constexpr const char* names[] = {"Size", "Number of buckets", "Number of filters", "Number of items inserted",
                                            "Number of items deleted", "Bucket size", "Expansion rate", "Max iterations"};
    reply_fields(ctx, std::size(names));
    for (std::size_t f = 0; f < std::size(names); ++f) {
        RedisModule_ReplyWithSimpleString(ctx, names[f]);
        RedisModule_ReplyWithLongLong(ctx, values[f]);
    }
    return REDISMODULE_OK;
}

/// CF.DEBUG key: RedisBloom's one line, with our buckets (sub-filter 0's) and then, beyond it,
/// each sub-filter's fingerprint width, slots per bucket, buckets and fingerprints.
inline int debug(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
    if (argc != 2) return RedisModule_WrongArity(ctx);
    RedisModuleKey* key = open(ctx, argv[1], REDISMODULE_READ);
    cuckoo_chain* c = nullptr;
    if (wrong_or_missing(ctx, key, c)) return REDISMODULE_OK;
    if (c == nullptr) return RedisModule_ReplyWithError(ctx, "ERR not found");
    std::string line = "bktsize:" + std::to_string(c->bucket_size) +
                       " buckets:" + std::to_string(c->subs.empty() ? 0 : c->subs.front().buckets()) + " items:" + std::to_string(c->items) +
                       " deletes:" + std::to_string(c->deletes) + " filters:" + std::to_string(c->subs.size()) +
                       " max_iterations:" + std::to_string(c->max_iterations) + " expansion:" + std::to_string(c->expansion);
    for (const auto& f : c->subs) {
        const auto s = f.stats();
        line += " [fingerprint_bits:" + std::to_string(s.fingerprint_bits) + " slots_per_bucket:" + std::to_string(s.slots_per_bucket) +
                " buckets:" + std::to_string(s.buckets) + " fingerprints:" + std::to_string(s.fingerprints) + "]";
    }
    return RedisModule_ReplyWithStringBuffer(ctx, line.data(), line.size());
}

/// CF.SCANDUMP key cursor: pieces of the key's file (see "lfbloom's file" in cuckoo_chain): the
/// data of the replies, laid end to end, is a file that `lfbloom info` and `query` open. Cursor 0
/// asks for the head (the file's 80-byte header), answered with head_cursor; any other cursor for
/// the piece from the end its cursor names (cursor 1: after the head, as RedisBloom's header
/// cursor), answered with 1 + its end. [0, nil] past the end.
inline int scandump(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
    if (argc != 3) return RedisModule_WrongArity(ctx);
    RedisModuleKey* key = open(ctx, argv[1], REDISMODULE_READ);
    cuckoo_chain* c = nullptr;
    if (wrong_or_missing(ctx, key, c)) return REDISMODULE_OK;
    if (c == nullptr) return RedisModule_ReplyWithError(ctx, "ERR not found");
    long long cursor = 0;
    if (RedisModule_StringToLongLong(argv[2], &cursor) != REDISMODULE_OK || cursor < 0)
        return RedisModule_ReplyWithError(ctx, "Invalid position");
    if (c->loading) return RedisModule_ReplyWithError(ctx, "ERR the filter is being loaded (CF.LOADCHUNK)");
    try {
        std::uint64_t end = 0;
        const std::uint64_t at = cursor == 0 ? 0 : std::max<std::uint64_t>(position(cursor), lfbloom::header_size);
        const std::string data = dump_piece(*c, at, end);
        RedisModule_ReplyWithArray(ctx, 2);
        if (data.empty()) return RedisModule_ReplyWithLongLong(ctx, 0), RedisModule_ReplyWithNull(ctx);  // RedisBloom's end: nil
        RedisModule_ReplyWithLongLong(ctx, cursor == 0 ? head_cursor(*c) : static_cast<long long>(end + 1));
        return RedisModule_ReplyWithStringBuffer(ctx, data.data(), data.size());
    } catch (const std::exception& e) {
        return reply_error(ctx, e);
    }
}

/// CF.LOADCHUNK key cursor data: a file's pieces, in order, each with the cursor 1 + the offset of
/// its end (CF.SCANDUMP's replies, or any pieces of a file of the library). The first (cursor 1,
/// or one whose cursor names its own length) holds at least the file's 80-byte header: checked
/// (a file a key cannot hold is refused with the reason, max-bytes against its whole length)
/// before the key is made, with BUCKETSIZE and MAXITERATIONS from CF.SCANDUMP's head cursor
/// (RedisBloom's defaults for a file's); each other piece must start where the last one ended;
/// the last makes the filters, every part and the tail checked (cuckoo_chain::import_file). A
/// piece that does not fit deletes a key being loaded.
inline int loadchunk(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
    if (argc != 4) return RedisModule_WrongArity(ctx);
    long long cursor = 0;
    if (RedisModule_StringToLongLong(argv[2], &cursor) != REDISMODULE_OK || cursor == 0)
        return RedisModule_ReplyWithError(ctx, "Invalid position");
    RedisModuleKey* key = open(ctx, argv[1], REDISMODULE_READ | REDISMODULE_WRITE);
    cuckoo_chain* c = nullptr;
    if (wrong_or_missing(ctx, key, c)) return REDISMODULE_OK;
    const std::string_view data = view(argv[3]);
    std::unique_ptr<cuckoo_chain> made;  // a key this piece starts, until it is the key's value
    const auto refused = [&](const char* why) {
        live.refused.fetch_add(1, std::memory_order_relaxed);  // relaxed: statistics
        if (c != nullptr && c->loading && !made) {  // half loaded: it goes, on replicas too
            RedisModule_DeleteKey(key);
            RedisModule_Replicate(ctx, "DEL", "s", argv[1]);
            RedisModule_NotifyKeyspaceEvent(ctx, REDISMODULE_NOTIFY_GENERIC, "del", argv[1]);
        }
        return RedisModule_ReplyWithError(ctx, why);
    };
    // a file's reason to refuse (incompatible) is said; anything else wrong with it is RedisBloom's word
    const auto refused_for = [&](const lfbloom::error& e, const char* word) {
        const std::string text = "ERR " + std::string(e.what());
        return refused(e.code() == lfbloom::errc::incompatible ? text.c_str() : word);
    };
    const bool first = cursor == 1 || (cursor > 0 && position(cursor) == data.size());
    try {
        if (c == nullptr) {
            if (!first) return RedisModule_ReplyWithError(ctx, "ERR not found");
            if (data.size() < lfbloom::header_size) return refused("Invalid header");
            made = std::make_unique<cuckoo_chain>();
            const auto param = [&](int shift, std::uint32_t bits, std::uint32_t otherwise) {
                const auto v = static_cast<std::uint32_t>(static_cast<std::uint64_t>(cursor) >> shift) & bits;
                return v == 0 ? otherwise : v;
            };
            made->bucket_size = param(position_bits, 0xff, 2);
            made->max_iterations = param(position_bits + 8, 0xffff, 20);
            try {
                made->loading_total = cuckoo_chain::file_length(data.substr(0, lfbloom::header_size));
            } catch (const lfbloom::error& e) {
                if (e.code() == lfbloom::errc::too_large) throw;
                return refused_for(e, "Invalid header");
            }
            if (data.size() > made->loading_total) return refused("Invalid header");
            made->loading = std::make_unique<std::string>(data);
            c = made.get();
        } else {
            if (cursor == 1) return RedisModule_ReplyWithError(ctx, "ERR item exists");
            if (!c->loading || cursor < 0 || data.empty() || position(cursor) < data.size() ||
                position(cursor) - data.size() != c->loading->size() || data.size() > c->loading_total - c->loading->size())
                return refused("Couldn't load chunk!");
            c->loading->append(data);
        }
        if (c->loading->size() == c->loading_total) {
            std::unique_ptr<cuckoo_chain> whole;
            try {
                whole = cuckoo_chain::import_file(*c->loading, c->bucket_size, c->max_iterations);
            } catch (const lfbloom::error& e) {
                if (e.code() == lfbloom::errc::too_large || e.code() == lfbloom::errc::out_of_memory) throw;
                return refused_for(e, "Couldn't load chunk!");
            }
            RedisModule_ModuleTypeSetValue(key, cuckoo_chain::type, whole.release());  // frees c, or made's
        } else if (made) {
            made->reaccount();
            RedisModule_ModuleTypeSetValue(key, cuckoo_chain::type, made.release());
        } else {
            c->reaccount();
        }
    } catch (const std::exception& e) {  // max-bytes, out of memory
        const std::string text = "ERR " + std::string(e.what());
        return refused(text.c_str());
    }
    RedisModule_ReplicateVerbatim(ctx);
    notify(ctx, "cf.loadchunk", argv[1]);
    return RedisModule_ReplyWithSimpleString(ctx, "OK");
}

}  // namespace cuckoo

inline int register_cuckoo(RedisModuleCtx* ctx) {
    using namespace cuckoo;
    const command commands[] = {
        {"cf.reserve", guarded<reserve>, "write deny-oom"},        {"cf.add", guarded<add_one<false>>, "write deny-oom"},
        {"cf.addnx", guarded<add_one<true>>, "write deny-oom"},    {"cf.insert", guarded<insert<false>>, "write deny-oom"},
        {"cf.insertnx", guarded<insert<true>>, "write deny-oom"},  {"cf.exists", guarded<exists>, "readonly fast"},
        {"cf.mexists", guarded<mexists>, "readonly fast"},         {"cf.count", guarded<count>, "readonly fast"},
        {"cf.del", guarded<del>, "write fast"},                    {"cf.info", guarded<info>, "readonly fast"},
        {"cf.debug", guarded<debug>, "readonly"},                  {"cf.scandump", guarded<scandump>, "readonly"},
        {"cf.loadchunk", guarded<loadchunk>, "write deny-oom"},
    };
    return create_commands(ctx, commands, "cuckoo");
}

}  // namespace lfbloom_redis
