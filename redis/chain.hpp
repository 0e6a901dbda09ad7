// BF.*'s value: a chain of blocked sub-filters (type "lfbloomBF"), its serialized form (RDB, AOF,
// digest) and BF.SCANDUMP's chunks. Shared by module.cpp and the loaders' fuzz target.
//
// A chain is the core's scalable filter (lfbloom::basic_scalable_filter of blocked sub-filters)
// with RedisBloom's rule: sub-filter i holds capacity * expansion^i keys at rate error / 2^(i+1)
// (growth EXPANSION, tightening 1/2: the sum stays under error); an add first asks every
// sub-filter, so a key present anywhere is not added twice, then goes to the newest, which the add
// that finds it full grows itself (grow_ahead off: no thread, the same points on every replica),
// or is answered "non scaling filter is full".
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

/// A BF key's filter: the core's growing filter over the server's memory, with growth ahead off
/// (no thread; the add that finds the newest full opens the next one, so a replica replaying its
/// primary's adds grows at the same points).
using scalable_filter = lfbloom::basic_scalable_filter<blocked_bloom_filter>;

/// Sub-filters per key, and in a key's lfbloom file (its BF.SCANDUMP): the core's limit. Each
/// halves the rate, so a chain ends earlier, when a sub-filter would need more than the hashes or
/// bits a blocked filter may have (after 217 sub-filters with capacity 2, EXPANSION 1 and error 0.5).
constexpr std::uint32_t max_chain = scalable_filter::max_sub_filters;
constexpr std::uint32_t max_file_parts = max_chain;

/// A file being loaded into a chain (BF.LOADCHUNK, LFBF.RESTORE): where the next piece must start,
/// and the record (a header, a trailer, the tail) that has partly arrived.
struct file_import {
    enum class next { part_head, words, trailer, tail, done };
    next expect = next::part_head;
    std::uint64_t at = 0;         ///< bytes taken
    std::uint64_t total = 0;      ///< the file's declared length
    std::uint32_t parts = 0;      ///< declared
    bool may_be_nonscaling = false;  ///< max sub-filters 1: part 0 at the whole rate makes it NONSCALING
    double growth = 0;
    std::uint64_t words_at = 0;   ///< where the current part's words start
    std::uint64_t first_capacity = 0;  ///< part 0's, from the file's header
    std::string record;
};

/// One BF key. expansion 0 = NONSCALING: one sub-filter at the whole error.
struct chain : tracked {
    static constexpr std::string_view magic = "LFBRSB01";
    static inline RedisModuleType* type = nullptr;
    static std::string serialize(const chain& c);
    static std::unique_ptr<chain> deserialize(std::string_view blob);
    static void merge(chain& into, const std::vector<const chain*>& sources);

    double error = 0;
    std::uint32_t expansion = 0;
    /// Null only before the first sub-filter is made (create, a load's first piece).
    std::unique_ptr<scalable_filter> filter;
    /// Set while BF.LOADCHUNK loads a file into the chain; saved with it (put_loading), so the
    /// load goes on across RDB, AOF rewrites, a replica's sync and COPY.
    std::unique_ptr<file_import> loading;

    chain() { account(bytes()); }

    std::uint32_t parts() const { return filter ? filter->filters() : 0; }
    const blocked_bloom_filter& part(std::uint32_t i) const { return filter->filter(i); }
    const blocked_bloom_filter& newest() const { return filter->filter(filter->filters() - 1); }
    std::uint64_t part_capacity(std::uint32_t i) const { return part(i).shape().capacity; }
    std::uint64_t part_items(std::uint32_t i) const { return filter->items(i); }

    /// What the key holds besides its sub-filters' words.
    std::uint64_t overhead() const { return sizeof(chain) + sizeof(scalable_filter) + std::uint64_t{parts()} * sizeof(blocked_bloom_filter); }
    std::uint64_t bytes() const {  // O(sub-filters): no scan of the bits
        std::uint64_t sum = overhead();
        for (std::uint32_t i = 0; i < parts(); ++i) sum += part(i).words().size_bytes();
        return sum;
    }
    std::uint64_t items() const {  // loads check that the sum cannot overflow
        std::uint64_t sum = 0;
        for (std::uint32_t i = 0; i < parts(); ++i) sum += part_items(i);
        return sum;
    }
    std::uint64_t capacity() const {  // saturates (a loaded value may claim anything)
        std::uint64_t sum = 0;
        for (std::uint32_t i = 0; i < parts(); ++i) sum = part_capacity(i) > UINT64_MAX - sum ? UINT64_MAX : sum + part_capacity(i);
        return sum;
    }
    /// Sub-filter i's rate: error / 2^(i+1) when scaling (the sum stays under error), error when
    /// NONSCALING (one filter), as RedisBloom. The core's rule with tightening 1/2.
    double rate(std::size_t i) const { return expansion == 0 ? error : std::ldexp(error, -static_cast<int>(i + 1)); }

    /// The core filter's settings for this key: growth EXPANSION, tightening 1/2, no thread.
    lfbloom::scalable_options options() const {
        lfbloom::scalable_options o;
        o.growth = expansion == 0 ? 1.0 : expansion;
        o.tightening = 0.5;
        o.max_filters = expansion == 0 ? 1 : max_chain;
        o.grow_ahead = false;
        return o;
    }
    /// Builds the core filter from saved sub-filters (oldest first, each checked by the caller).
    void restore(std::vector<scalable_filter::saved_part> parts) {
        lfbloom::scalable_options o = options();
        o.filter.memory_limit = memory_left(overhead());
        const std::uint64_t first = parts.front().filter.shape().capacity;
        filter = std::make_unique<scalable_filter>(first, error, o, std::move(parts), std::vector<scalable_filter::pending_remove>{});
        account(bytes());
    }

    /// Opens sub-filter parts() of `capacity` (the caller's: the first one's, or the next by the
    /// growth rule); throws lfbloom::error (too_large or full past max-bytes, full past max_chain).
    void grow(std::uint64_t capacity) {
        if (!filter) {
            lfbloom::filter_options o;
            o.memory_limit = memory_left(overhead());
            std::vector<scalable_filter::saved_part> first;
            first.push_back({blocked_bloom_filter::for_capacity(capacity, rate(0), o), 0});
            restore(std::move(first));
            return;
        }
        limit_growth();
        filter->grow();
        account(bytes());
        if (part_capacity(parts() - 1) != capacity)  // the core's rule, capacity * growth^i, cannot give it
            throw lfbloom::error(lfbloom::errc::corrupt, "a sub-filter's capacity does not follow the growth rule");
    }

    /// Every sub-filter has seed 0, so one hash serves them all.
    static lfbloom::hash128 hash(std::string_view key) { return lfbloom::murmur3_x64_128(key.data(), key.size(), 0); }
    bool contains(lfbloom::hash128 h) const { return filter->contains_hash(h); }
    /// Asks the memory for the key's line in every sub-filter (the newest, to write).
    void prefetch(lfbloom::hash128 h) const { filter->prefetch(h, true); }

    enum class added { fresh, present, full };
    /// Throws lfbloom::error if a new sub-filter cannot be made.
    added add(lfbloom::hash128 key) {
        limit_growth();
        const std::uint32_t before = parts();
        try {
            const bool fresh = filter->add_hash(key);
            if (parts() != before) account(bytes());
            return fresh ? added::fresh : added::present;
        } catch (const lfbloom::error& e) {
            if (e.code() == lfbloom::errc::full && expansion == 0) return added::full;
            throw;
        }
    }

private:
    /// max-bytes as it is now (and whether it applies to this command) for the next growth.
    void limit_growth() {
        std::uint64_t left = 1;  // what the sub-filters may take in all; 1 byte: no more growth
        try {
            left = memory_left(overhead());
        } catch (const lfbloom::error&) {  // the key's overhead alone is at max-bytes
        }
        filter->set_memory_limit(left);
    }
};

// ---- serialized form: RDB, AOF (LFBF.RESTORE), DEBUG DIGEST-VALUE ---------------------------------
// magic(8), the head: error(f64) expansion(u32) items(u64) count(u32), then per sub-filter its
// link: capacity(u64) items(u64), and length(u64) and FORMAT.md's checksummed bytes. A key that
// BF.LOADCHUNK is loading then has its load's state (put_loading), so a replica's sync, an AOF
// rewrite, DEBUG RELOAD and COPY keep the load going. Little-endian.

inline void put_head(std::string& out, const chain& c) {
    put(out, std::bit_cast<std::uint64_t>(c.error));
    put(out, c.expansion);
    put(out, c.items());
    put(out, c.parts());
}

/// A load's state: at(u64) total(u64) words_at(u64) first_capacity(u64) growth(f64) parts(u32)
/// expect(u8) may_be_nonscaling(u8), then the partial record's length(u32) and bytes.
inline void put_loading(std::string& out, const file_import& f) {
    put(out, f.at);
    put(out, f.total);
    put(out, f.words_at);
    put(out, f.first_capacity);
    put(out, std::bit_cast<std::uint64_t>(f.growth));
    put(out, f.parts);
    put(out, static_cast<std::uint8_t>(f.expect));
    put(out, static_cast<std::uint8_t>(f.may_be_nonscaling));
    put(out, static_cast<std::uint32_t>(f.record.size()));
    out += f.record;
}

inline std::string chain::serialize(const chain& c) {
    std::string out(magic);
    put_head(out, c);
    for (std::uint32_t i = 0; i < c.parts(); ++i) {  // each sub-filter's link: capacity, items; then its bytes
        put(out, c.part_capacity(i));
        put(out, c.part_items(i));
        put_filter(out, c.part(i));
    }
    if (c.loading) put_loading(out, *c.loading);
    return out;
}

/// The checks every loaded chain passes (RDB, LFBF.RESTORE of a value): get_head checks its
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
/// A sub-filter's capacity and items; `previous`: the capacity of the one before it (0: none),
/// `before`: the items of the ones before it.
inline link get_link(reader& r, const chain& c, std::uint64_t previous, std::uint64_t before) {
    const auto capacity = r.get<std::uint64_t>();
    const auto items = r.get<std::uint64_t>();
    // none holds more than its capacity (each but the newest was full when the next opened,
    // unless the chain came from a file of the library, whose growth starts early)
    std::uint64_t expected = capacity;
    if ((previous > 0 && __builtin_mul_overflow(previous, std::uint64_t{c.expansion}, &expected)) || capacity == 0 ||
        capacity != expected || items > capacity || items > UINT64_MAX - before)
        throw lfbloom::error(lfbloom::errc::corrupt, "inconsistent sub-filter");
    return {capacity, items};
}

/// The bytes of the record `expect` names (a part's header, its trailer, the tail).
inline std::size_t record_bytes(file_import::next expect, std::uint32_t parts) {
    return expect == file_import::next::tail      ? 8 * std::size_t{parts} + lfbloom::trailer_size
           : expect == file_import::next::trailer ? lfbloom::trailer_size
                                                  : lfbloom::header_size;
}

/// Reads put_loading's state of a load into `c` (its parts so far), checking that it is one that
/// take() can go on from: every offset inside the file and the part it names. Throws corrupt.
inline std::unique_ptr<file_import> get_loading(reader& r, const chain& c) {
    using next = file_import::next;
    auto f = std::make_unique<file_import>();
    f->at = r.get<std::uint64_t>();
    f->total = r.get<std::uint64_t>();
    f->words_at = r.get<std::uint64_t>();
    f->first_capacity = r.get<std::uint64_t>();
    f->growth = r.get_double();
    f->parts = r.get<std::uint32_t>();
    const auto expect = r.get<std::uint8_t>(), nonscaling = r.get<std::uint8_t>();
    const auto length = r.get<std::uint32_t>();
    f->expect = static_cast<next>(expect);
    f->may_be_nonscaling = nonscaling != 0;
    const std::uint64_t words = c.newest().words().size_bytes();
    const bool fits = expect <= static_cast<std::uint8_t>(next::tail) && nonscaling <= 1 && f->at <= f->total &&
                      f->parts >= c.parts() && f->parts <= max_file_parts && f->first_capacity == c.part_capacity(0) &&
                      f->growth == static_cast<double>(c.expansion == 0 ? f->growth : c.expansion) &&
                      length < record_bytes(f->expect, f->parts) && length <= r.rest.size();
    const bool placed = f->expect == next::words     ? f->words_at <= f->at && f->at - f->words_at < words && (f->at - f->words_at) % 8 == 0 && length == 0
                        : f->expect == next::trailer ? f->words_at <= f->at && f->at - f->words_at == words + length
                        : f->expect == next::tail    ? c.parts() == f->parts
                                                     : c.parts() < f->parts;
    if (!fits || !placed) throw lfbloom::error(lfbloom::errc::corrupt, "inconsistent load state");
    f->record.assign(r.rest.substr(0, length));
    r.rest.remove_prefix(length);
    return f;
}

/// Validates everything before and while allocating: lengths against the bytes present, each
/// sub-filter's checksum, the memory limit. Throws lfbloom::error.
inline std::unique_ptr<chain> chain::deserialize(std::string_view blob) {
    reader r(blob, magic);
    auto c = std::make_unique<chain>();
    const head h = get_head(r, *c);
    std::vector<scalable_filter::saved_part> parts;
    std::uint64_t used = c->overhead(), previous = 0, items = 0;  // the key's bytes so far: none past max-bytes
    for (std::uint32_t i = 0; i < h.count; ++i) {
        const link l = get_link(r, *c, previous, items);
        used += sizeof(blocked_bloom_filter);
        auto f = r.get_filter<blocked_bloom_filter>(used);
        check_made_for(f, blocked_bloom_filter::size_for(l.capacity, c->rate(i)));
        used += f.words().size_bytes();
        parts.push_back({std::move(f), l.items});
        previous = l.capacity;
        items += l.items;
    }
    c->restore(std::move(parts));
    if (!r.rest.empty()) c->loading = get_loading(r, *c);
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
    for (std::uint32_t i = 0; i < into.parts(); ++i) items.push_back(into.part_items(i));
    for (const chain* c : sources) {
        if (into.loading || c->loading) throw lfbloom::error(lfbloom::errc::incompatible, "a filter is being loaded (BF.LOADCHUNK)");
        if (c->error != into.error || c->expansion != into.expansion || c->parts() != into.parts() ||
            c->part_capacity(0) != into.part_capacity(0))
            throw lfbloom::error(lfbloom::errc::incompatible, "the filters have different parameters or sub-filters");
        for (std::uint32_t i = 0; i < items.size(); ++i) {
            if (c->part_items(i) > into.part_capacity(i) - items[i])
                throw lfbloom::error(lfbloom::errc::full, "the merged filter would hold more than its capacity");
            items[i] += c->part_items(i);
        }
    }
    // the server's main thread has the key to itself
    for (const chain* c : sources)
        for (std::uint32_t i = 0; i < items.size(); ++i) into.filter->filter_to_fill(i).merge(c->part(i));  // equal geometry: cannot throw
    for (std::uint32_t i = 0; i < items.size(); ++i) into.filter->set_items(i, items[i]);
}

// ---- lfbloom's file of a chain: BF.SCANDUMP, BF.LOADCHUNK, LFBF.RESTORE of a file -------------
// A chain is a scalable filter of lfbloom's format (FORMAT.md, "Composites"): blocked parts of
// seed 0, growth EXPANSION, tightening 1/2 (part i at error / 2^(i+1), the module's rule), at most
// 255 parts. Its header says max sub-filters 64 (what 1.13 wrote, and read: so its dumps load
// there), or the key's parts past 64. A NONSCALING chain is one part at the whole error: max
// sub-filters 1, growth 1.
//
// BF.SCANDUMP hands that file out in pieces, in order: the data of its replies, laid end to end,
// are the file, which the library, the CLI, Java and Go open. A reply's cursor is 1 + the offset
// of its piece's end (cursor 0 asks for the first piece: the file's header and the first part's;
// then at most 16 MiB of one part's words, or the records between two parts' words). BF.LOADCHUNK
// takes any such file back, from BF.SCANDUMP or from the library (`lfbloom build --kind
// scalable`, seed 0 by default), in the same pieces or any others of whole 8-byte words, in
// order, the first at least 160 bytes, each with the cursor 1 + the offset of its end;
// LFBF.RESTORE takes it whole.
// Every header is checked before its part is allocated (max-bytes too), each part's words against
// its trailer once they are in (one pass over the part, as the dump's trailer piece costs), and
// the tail's add counts against its checksum. A dump is one state of the key: an add between two
// BF.SCANDUMP calls makes the load fail at that part's trailer. Between the first
// piece and the last the key exists with bits missing, as with RedisBloom; adds to it are refused
// (the pieces to come would overwrite them), and a piece that fails a check deletes it.

constexpr std::uint64_t piece_bytes = std::uint64_t{16} << 20;
constexpr std::uint64_t first_piece = 2 * lfbloom::header_size;  // the file's and part 0's headers

/// The file's header for `c`.
inline lfbloom::composite_header file_head(const chain& c) {
    using lfbloom::errc;
    lfbloom::composite_header h;
    h.parts_layout = lfbloom::layout::blocked;
    h.capacity = c.part_capacity(0);
    h.fpr = c.error;
    h.scalable.growth = c.expansion == 0 ? 1.0 : c.expansion;
    h.scalable.tightening = 0.5;
    h.scalable.max_filters = c.expansion == 0 ? 1 : std::max<std::uint32_t>(64, c.parts());
    h.parts = c.parts();
    h.bytes = lfbloom::header_size + 8 * h.parts + lfbloom::trailer_size;
    for (std::uint32_t i = 0; i < c.parts(); ++i) h.bytes += lfbloom::serialized_size(c.part(i));
    return h;
}

/// The XXH3-64 of a part's words as the file holds them (little-endian).
inline std::uint64_t words_checksum(const blocked_bloom_filter& f) {
    lfbloom::detail::xxh3_state hash;
    lfbloom::detail::write_words(f.words(), [](const void*, std::size_t) {}, lfbloom::detail::little, hash.state);
    return XXH3_64bits_digest(hash.state);
}

inline void put_bytes(std::string& out, std::span<const unsigned char> bytes) {
    out.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}
inline void put_part_head(std::string& out, const blocked_bloom_filter& f) {
    put_bytes(out, lfbloom::detail::encode_header(lfbloom::detail::magic, f, f.stats().slots_set));
}

/// The piece of c's file from byte `at` to the end of the piece holding it; `end` is set to that
/// end. Empty (end 0) past the file.
inline std::string file_piece(const chain& c, std::uint64_t at, std::uint64_t& end) {
    const lfbloom::composite_header h = file_head(c);
    std::string out;
    std::uint64_t start = 0;  // of the piece being built
    if (at < first_piece) {  // start 0
        put_bytes(out, lfbloom::detail::encode_composite(h));
        put_part_head(out, c.part(0));
    }
    std::uint64_t words_at = first_piece;  // where part i's words start
    for (std::uint32_t i = 0; out.empty() && i < c.parts(); ++i) {
        const auto words = c.part(i).words();
        const std::uint64_t words_end = words_at + words.size_bytes();
        const bool last = i + 1 == c.parts();
        // after the words: the trailer, then the next part's header or the tail and its checksum
        const std::uint64_t records = lfbloom::trailer_size + (last ? 8 * h.parts + lfbloom::trailer_size : lfbloom::header_size);
        if (at >= words_at && at < words_end) {  // at most piece_bytes of words, from a multiple of it
            start = words_at + (at - words_at) / piece_bytes * piece_bytes;
            const auto piece = words.subspan((start - words_at) / 8, std::min(piece_bytes, words_end - start) / 8);
            lfbloom::detail::write_words(piece, [&](const void* d, std::size_t n) { out.append(static_cast<const char*>(d), n); },
                                         lfbloom::detail::little, nullptr);
        } else if (at >= words_end && at < words_end + records) {
            start = words_end;
            put(out, words_checksum(c.part(i)));
            if (!last) {
                put_part_head(out, c.part(i + 1));
            } else {
                std::string tail;
                for (std::uint32_t p = 0; p < c.parts(); ++p) put(tail, c.part_items(p));
                out += tail;
                put(out, static_cast<std::uint64_t>(XXH3_64bits(tail.data(), tail.size())));
            }
        }
        words_at = words_end + records;
    }
    if (out.empty()) {
        end = 0;
        return out;
    }
    end = start + out.size();
    return out.substr(at - start);
}

/// The part `p` must be to be chain c's next one; throws lfbloom::error(corrupt).
inline std::uint64_t check_part(const chain& c, const lfbloom::file_header& p, std::uint64_t first_capacity) {
    std::uint64_t capacity = first_capacity;
    if (c.parts() > 0 && __builtin_mul_overflow(c.part_capacity(c.parts() - 1), std::uint64_t{c.expansion}, &capacity))
        throw lfbloom::error(lfbloom::errc::corrupt, "a part's capacity overflows");
    const lfbloom::geometry g = blocked_bloom_filter::size_for(capacity, c.rate(c.parts()));
    if (p.kind != lfbloom::layout::blocked || p.seed != 0 || p.probes != lfbloom::probe_rule::distinct || p.shape.slots != g.slots ||
        p.shape.hashes != g.hashes || p.shape.capacity != g.capacity || p.shape.target_fpr != g.target_fpr)
        throw lfbloom::error(lfbloom::errc::corrupt, "part " + std::to_string(c.parts()) +
                                                         " is not the blocked filter of seed 0 a BF key has there");
    return capacity;
}

/// Takes the next bytes of the file into `c` (see the top of this section). Throws lfbloom::error:
/// corrupt for anything out of place (the chain is then unusable), too_large past max-bytes.
inline void take(chain& c, file_import& f, std::string_view data) {
    using lfbloom::errc;
    using next = file_import::next;
    auto bad = [](const char* why) { throw lfbloom::error(errc::corrupt, why); };
    if (data.size() > f.total - f.at) bad("bytes past the file's end");
    while (!data.empty()) {
        if (f.expect == next::words) {
            auto words = c.filter->filter_to_fill(c.parts() - 1).words();  // the key is the loader's (main thread)
            const std::uint64_t index = (f.at - f.words_at) / 8, n = std::min<std::uint64_t>(data.size() / 8, words.size() - index);
            if (n == 0) bad("a piece of the file is not whole words");
            for (std::uint64_t i = 0; i < n; ++i)
                lfbloom::store_word(words[index + i], lfbloom::detail::get_le<std::uint64_t>(reinterpret_cast<const unsigned char*>(data.data()) + 8 * i));
            f.at += 8 * n;
            data.remove_prefix(8 * n);
            if (index + n == words.size()) f.expect = next::trailer;
            continue;
        }
        const std::size_t size = record_bytes(f.expect, f.parts);
        const std::size_t n = std::min(size - f.record.size(), data.size());
        f.record.append(data.substr(0, n));
        f.at += n;
        data.remove_prefix(n);
        if (f.record.size() < size) break;
        const auto* bytes = reinterpret_cast<const unsigned char*>(f.record.data());
        if (f.expect == next::part_head) {
            lfbloom::native_head head;
            std::memcpy(head.data(), bytes, head.size());
            const lfbloom::file_header p = lfbloom::file_header_of(head, memory_left(c.bytes() + sizeof(blocked_bloom_filter)));
            if (c.parts() == 0)  // part 0 decides: NONSCALING if it has the whole rate
                c.expansion = f.may_be_nonscaling && p.shape.target_fpr == c.error ? 0 : static_cast<std::uint32_t>(f.growth);
            const std::uint64_t capacity = check_part(c, p, f.first_capacity);
            if (p.payload_bytes + lfbloom::trailer_size > f.total - f.at) bad("a part is longer than the declared length");
            c.grow(capacity);
            f.words_at = f.at;
            f.expect = next::words;
        } else if (f.expect == next::trailer) {
            if (lfbloom::detail::get_le<std::uint64_t>(bytes) != words_checksum(c.newest())) bad("a part's checksum does not match its words");
            f.expect = c.parts() < f.parts ? next::part_head : next::tail;
        } else {
            if (f.at != f.total) bad("the declared length does not match the parts");
            if (lfbloom::detail::get_le<std::uint64_t>(bytes + 8 * f.parts) != XXH3_64bits(bytes, 8 * std::size_t{f.parts})) bad("tail checksum mismatch");
            for (std::uint32_t i = 0; i < f.parts; ++i)
                // a filter that more than one thread filled may count a few adds past a part's
                // capacity: the chain counts it full, which it is
                c.filter->set_items(i, std::min(lfbloom::detail::get_le<std::uint64_t>(bytes + 8 * i), c.part_capacity(i)));
            f.expect = next::done;
        }
        f.record.clear();
    }
}

/// Starts loading a file: `first` must hold at least the file's header and part 0's. Returns the
/// chain with part 0 made (zeroed, its words to come) and the import state. Throws lfbloom::error.
inline std::pair<std::unique_ptr<chain>, std::unique_ptr<file_import>> begin_import(std::string_view first) {
    using lfbloom::errc;
    if (first.size() < first_piece || !first.starts_with({lfbloom::detail::magic, 8}))
        throw lfbloom::error(errc::corrupt, "not the start of an lfbloom file");
    lfbloom::native_head head;
    std::memcpy(head.data(), first.data(), head.size());
    if (!lfbloom::is_composite(head)) throw lfbloom::error(errc::incompatible, "a BF key loads a scalable filter's file (lfbloom build --kind scalable)");
    const lfbloom::composite_header h = lfbloom::composite_header_of(head, memory_left(0));  // the whole file's bytes
    if (h.kind != lfbloom::filter_kind::scalable || h.parts_layout != lfbloom::layout::blocked || h.seed != 0 || h.scalable.tightening != 0.5 ||
        h.scalable.growth != std::floor(h.scalable.growth) || h.scalable.growth > std::numeric_limits<std::uint32_t>::max())
        throw lfbloom::error(errc::incompatible, "a BF key loads a scalable filter of blocked parts, seed 0, tightening 0.5 and whole growth");
    auto c = std::make_unique<chain>();
    c->error = h.fpr;
    auto f = std::make_unique<file_import>();
    f->at = lfbloom::header_size;
    f->total = h.bytes;
    f->parts = h.parts;
    f->may_be_nonscaling = h.scalable.max_filters == 1;
    f->growth = h.scalable.growth;
    f->first_capacity = h.capacity;
    take(*c, *f, first.substr(lfbloom::header_size));
    return {std::move(c), std::move(f)};
}

/// LFBF.RESTORE of a file: the whole of it. Throws lfbloom::error.
inline std::unique_ptr<chain> import_file(std::string_view file) {
    auto [c, f] = begin_import(file.substr(0, first_piece));
    take(*c, *f, file.substr(first_piece));
    if (f->expect != file_import::next::done) throw lfbloom::error(lfbloom::errc::corrupt, "truncated file");
    return std::move(c);
}

/// c's whole file, piece by piece (tests, fuzzing).
inline std::string file_of(const chain& c) {
    std::string out;
    for (std::uint64_t end = 0;;) {
        const std::string piece = file_piece(c, out.size(), end);
        if (piece.empty()) return out;
        out += piece;
    }
}

}  // namespace lfbloom_redis
