// Saving and loading the composites: scalable filters (blocked or cuckoo sub-filters) and rotating
// filters, in lfbloom's native format (docs/FORMAT.md, "Composites").
//
// A composite's data is an 80-byte header of the native format's frame (magic, version 1, the
// layout byte 16 scalable or 17 rotating, XXH3-64 of bytes 0..71 at 72), its parts, each a whole
// native file of a layout (header, payload, trailer), then a tail and the XXH3-64 of the tail:
//   0  8  magic "LFBLOOM\0"            24  8  capacity (scalable: the first sub-filter's;
//   8  2  format version (1)                    rotating: keys per period)
//  10  1  16 scalable, 17 rotating     32  8  target FPR of the whole (IEEE-754 double)
//  11  1  the parts' layout (2, 7)     40  8  bytes of the whole saved filter, header to trailer
//  12  1  rotating: flags (1 double    48  8  scalable: growth (double); rotating: period in ns
//         write, 2 manual clock)       56  8  scalable: tightening (double); rotating: rotations
//  13  1  scalable: max sub-filters;   64  8  scalable: pending removes; rotating: 0
//         rotating: generations G      72  8  XXH3-64 of bytes 0..71
//  14  1  scalable: parts; else 0
//  15  1  zero
//  16  8  seed
// Scalable: parts = the sub-filters, oldest first; tail = each part's add count (8 bytes), then
// each pending remove (h1, h2, retries as 4 bytes, 4 zero bytes). Rotating: parts = the ring in
// ring order (ring[e mod ring size] is current after e rotations: G, or G + 1 with double write);
// tail = the nanoseconds left to the next rotation at the save (2^64 - 1: none) and the wall clock
// then (ns since the Unix epoch); with a manual clock, the deadline itself in the caller's time,
// and 0 (the caller's time goes on across the save).
//
// Snapshots: as for layouts, a save running beside adds holds every add that completed before it
// began. A scalable filter's sub-filters are those published when the save began; a cuckoo one's
// list of pending removes is held still through the save (with_pending_paused), so that every
// entry's copy is in the file, and each cuckoo sub-filter is written behind its writer gate. A
// rotating filter's rotations wait for the save (with_rotations_paused); its adds and queries do
// not.
//
// Loading checks the header (magic, version, checksum, every field, the whole length against the
// memory limit and, when known, the data), then each part's header against the composite's (layout,
// seed, a shape the parts share) and the bytes the header declared before allocating that part.
#pragma once

#include <bit>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "lfbloom/composites/rotating_bloom_filter.hpp"
#include "lfbloom/composites/scalable_bloom_filter.hpp"
#include "lfbloom/io/serialization.hpp"

namespace lfbloom {

/// A composite's header, validated (the top of this file).
struct composite_header {
    filter_kind kind = filter_kind::scalable;  ///< scalable or rotating
    layout parts_layout = layout::blocked;
    std::uint64_t seed = 0;
    std::uint64_t capacity = 0;
    double fpr = 0;
    std::uint64_t bytes = 0;  ///< the whole saved filter
    scalable_options scalable;            ///< growth, tightening, max_filters
    std::uint32_t parts = 0;              ///< scalable: sub-filters; rotating: the ring's filters
    std::uint64_t pending = 0;            ///< scalable: pending removes
    rotating_options rotating;            ///< generations, double_write, manual_clock, period_ns
    std::uint64_t rotations = 0;
};

namespace detail {

inline constexpr std::size_t pending_entry_bytes = 24;
inline constexpr std::uint8_t flag_double_write = 1, flag_manual_clock = 2;

inline native_head encode_composite(const composite_header& c) {
    native_head h{};
    std::memcpy(h.data(), magic, 8);
    put_le<std::uint16_t>(&h[8], format_version);
    h[10] = static_cast<unsigned char>(c.kind);
    h[11] = static_cast<unsigned char>(c.parts_layout);
    put_le<std::uint64_t>(&h[16], c.seed);
    put_le<std::uint64_t>(&h[24], c.capacity);
    put_le<std::uint64_t>(&h[32], std::bit_cast<std::uint64_t>(c.fpr));
    put_le<std::uint64_t>(&h[40], c.bytes);
    if (c.kind == filter_kind::scalable) {
        h[13] = static_cast<unsigned char>(c.scalable.max_filters);
        h[14] = static_cast<unsigned char>(c.parts);
        put_le<std::uint64_t>(&h[48], std::bit_cast<std::uint64_t>(c.scalable.growth));
        put_le<std::uint64_t>(&h[56], std::bit_cast<std::uint64_t>(c.scalable.tightening));
        put_le<std::uint64_t>(&h[64], c.pending);
    } else {
        h[12] = static_cast<unsigned char>((c.rotating.double_write ? flag_double_write : 0) |
                                           (c.rotating.manual_clock ? flag_manual_clock : 0));
        h[13] = static_cast<unsigned char>(c.rotating.generations);
        put_le<std::uint64_t>(&h[48], c.rotating.period_ns);
        put_le<std::uint64_t>(&h[56], c.rotations);
    }
    put_le<std::uint64_t>(&h[72], XXH3_64bits(h.data(), 72));
    return h;
}

/// Validates every field a composite's header holds, as its class's constructor would, without
/// building anything.
inline composite_header decode_composite(const native_head& h) {
    if (std::memcmp(h.data(), magic, 8) != 0) corrupt("not an lfbloom filter (bad magic)");
    const auto version = get_le<std::uint16_t>(&h[8]);
    if (version != format_version)
        throw error(errc::unsupported_version, "filter format version " + std::to_string(version) + " is not supported");
    if (get_le<std::uint64_t>(&h[72]) != XXH3_64bits(h.data(), 72)) corrupt("header checksum mismatch");
    composite_header c;
    c.kind = static_cast<filter_kind>(h[10]);
    if (c.kind != filter_kind::scalable && c.kind != filter_kind::rotating) throw error(errc::unsupported_version, "unknown layout in the header");
    c.parts_layout = static_cast<layout>(h[11]);
    c.seed = get_le<std::uint64_t>(&h[16]);
    c.capacity = get_le<std::uint64_t>(&h[24]);
    c.fpr = std::bit_cast<double>(get_le<std::uint64_t>(&h[32]));
    c.bytes = get_le<std::uint64_t>(&h[40]);
    if (h[15] != 0) corrupt("non-zero reserved bytes");
    try {
        if (c.kind == filter_kind::scalable) {
            if (c.parts_layout != layout::blocked && c.parts_layout != layout::cuckoo) corrupt("a scalable filter's parts are blocked or cuckoo");
            if (h[12] != 0) corrupt("non-zero reserved bytes");
            c.scalable.max_filters = h[13];
            c.parts = h[14];
            c.scalable.growth = std::bit_cast<double>(get_le<std::uint64_t>(&h[48]));
            c.scalable.tightening = std::bit_cast<double>(get_le<std::uint64_t>(&h[56]));
            c.pending = get_le<std::uint64_t>(&h[64]);
            if (c.parts_layout == layout::cuckoo) (void)basic_scalable_filter<cuckoo_filter>::check_options(c.capacity, c.fpr, c.scalable);
            else (void)basic_scalable_bloom_filter<>::check_options(c.capacity, c.fpr, c.scalable);  // max_filters up to 255
            if (c.parts == 0 || c.parts > c.scalable.max_filters) corrupt("the sub-filter count is outside 1..max_filters");
            if (c.pending != 0 && c.parts_layout != layout::cuckoo) corrupt("pending removes in a scalable Bloom filter");
        } else {
            if (c.parts_layout != layout::blocked) corrupt("a rotating filter's generations are blocked");
            if ((h[12] & ~(flag_double_write | flag_manual_clock)) != 0 || h[14] != 0 || get_le<std::uint64_t>(&h[64]) != 0)
                corrupt("unknown flags or non-zero reserved bytes");
            c.rotating.double_write = (h[12] & flag_double_write) != 0;
            c.rotating.manual_clock = (h[12] & flag_manual_clock) != 0;
            c.rotating.generations = h[13];
            c.rotating.period_ns = get_le<std::uint64_t>(&h[48]);
            c.rotations = get_le<std::uint64_t>(&h[56]);
            if (c.rotations > (std::uint64_t{1} << 62)) corrupt("more rotations than a filter can have made");
            (void)rotating_bloom_filter::check_options(c.capacity, c.fpr, c.rotating);
            c.parts = c.rotating.generations + (c.rotating.double_write ? 1 : 0);
        }
    } catch (const error& e) {
        if (e.code() == errc::invalid_argument) corrupt(e.what());
        throw;
    }
    // Each part takes at least a header, a word and a trailer; the tail at least its counts.
    const std::uint64_t least = header_size + c.parts * (header_size + 8 + trailer_size) + 8 * c.parts + trailer_size;
    if (c.bytes < least || c.pending > c.bytes / pending_entry_bytes) corrupt("the declared length is too short for the parts");
    return c;
}

/// Writes a composite: its header, then write_parts(sink) and the tail (each a span of 64-bit
/// values, little-endian), hashed.
template <class Parts>
void write_composite(const composite_header& c, const byte_sink& sink, Parts write_parts, std::span<const std::uint64_t> tail) {
    const native_head h = encode_composite(c);
    sink(h.data(), h.size());
    write_parts();
    xxh3_state hash;
    write_words(tail, sink, little, hash.state);
    std::array<unsigned char, trailer_size> trailer;
    put_le<std::uint64_t>(trailer.data(), XXH3_64bits_digest(hash.state));
    sink(trailer.data(), trailer.size());
}

/// A byte_source that counts what it hands out.
struct counted_source {
    const byte_source& source;
    std::uint64_t taken = 0;
    byte_source counting() {
        return [this](void* data, std::size_t size) {
            const std::size_t n = source(data, size);
            taken += n;
            return n;
        };
    }
};

/// Reads a composite's parts of class Part (each checked against the header before it is
/// allocated: its layout, seed, and length within the bytes declared), then its tail of
/// `tail_words(parts)` words and the tail's checksum; `available` is the data's length from the
/// composite's header on. Returns the parts and the tail.
template <class Part, class TailWords>
std::pair<std::vector<Part>, std::vector<std::uint64_t>> read_composite(const composite_header& c, const byte_source& source,
                                                                        std::uint64_t memory_limit, std::uint64_t available,
                                                                        TailWords tail_words) {
    counted_source counted{source};
    const byte_source in = counted.counting();
    const std::uint64_t body = c.bytes - header_size;  // parts, tail and trailer
    std::vector<Part> parts;
    parts.reserve(c.parts);
    for (std::uint32_t i = 0; i < c.parts; ++i) {
        const file_header p = file_header_of(read_head(in), memory_limit);
        if (p.kind != Part::kind || p.seed != c.seed) corrupt("part " + std::to_string(i) + " is of another layout or seed");
        if (!parts.empty() && c.kind == filter_kind::rotating && !(p.shape == parts[0].shape() && p.probes == parts[0].probes()))
            corrupt("the generations differ in shape");
        // the part's header is read already, and may itself have passed the declared length
        if (counted.taken > body || p.payload_bytes + trailer_size > body - counted.taken)
            corrupt("part " + std::to_string(i) + " is longer than the declared length");
        parts.push_back(load_payload<Part>(p, in, memory_limit, available == unknown_length ? unknown_length : available - counted.taken));
    }
    const std::uint64_t words = tail_words(parts);
    if (counted.taken > body || body - counted.taken != words * 8 + trailer_size) corrupt("the declared length does not match the parts");
    std::vector<std::uint64_t> tail(words);
    xxh3_state hash;
    read_words(std::span<std::uint64_t>(tail), in, little, hash.state);
    std::array<unsigned char, trailer_size> trailer;
    read_exact(in, trailer.data(), trailer.size(), "checksum");
    if (get_le<std::uint64_t>(trailer.data()) != XXH3_64bits_digest(hash.state)) corrupt("tail checksum mismatch");
    return {std::move(parts), std::move(tail)};
}

}  // namespace detail

/// Reads and validates a composite's header (file_header_of's checks, for the whole length).
inline composite_header composite_header_of(const native_head& head, std::uint64_t memory_limit = 0,
                                            std::uint64_t available = unknown_length) {
    const composite_header c = detail::decode_composite(head);
    check_memory(c.bytes, memory_limit);
    detail::check_available(c.bytes, available);
    return c;
}

// ---- scalable filters -----------------------------------------------------------------------------

namespace detail {
/// The bytes of a scalable filter's file with its first `parts` sub-filters and `pending` removes.
template <class Sub, class Sync>
std::uint64_t scalable_bytes(const basic_scalable_filter<Sub, Sync>& f, std::uint32_t parts, std::size_t pending) {
    std::uint64_t bytes = header_size + trailer_size + pending * pending_entry_bytes;
    for (std::uint32_t i = 0; i < parts; ++i) bytes += serialized_size(f.filter(i)) + 8;
    return bytes;
}
}  // namespace detail

template <class Sub, class Sync>
std::uint64_t serialized_size(const basic_scalable_filter<Sub, Sync>& f) {
    return f.with_pending_paused([&](auto pending) { return detail::scalable_bytes(f, f.filters(), pending.size()); });
}

/// Writes a scalable filter (the top of this file). Thread-safe with its adds and queries, and
/// (cuckoo) removes: those that would defer wait for the save, as each sub-filter's writers wait
/// while it is written.
template <class Sub, class Sync>
void save(const basic_scalable_filter<Sub, Sync>& f, const byte_sink& sink) {
    f.with_pending_paused([&](auto pending) {
        const std::uint32_t n = f.filters();
        composite_header c;
        c.parts_layout = Sub::kind;
        c.seed = f.seed();
        c.capacity = f.initial_capacity();
        c.fpr = f.fpr();
        c.scalable = f.options();
        c.parts = n;
        c.pending = pending.size();
        c.bytes = detail::scalable_bytes(f, n, pending.size());
        std::vector<std::uint64_t> tail;
        for (std::uint32_t i = 0; i < n; ++i) tail.push_back(f.items(i));
        for (const auto& p : pending) tail.insert(tail.end(), {p.hash.h1, p.hash.h2, p.retries});
        detail::write_composite(c, sink, [&] {
            for (std::uint32_t i = 0; i < n; ++i) save(f.filter(i), sink);
        }, tail);
    });
}

/// Reads a scalable filter after composite_header_of, with the same `available`; make(capacity,
/// fpr, options, parts, pending) builds it (the filter cannot move: the caller places it). Throws
/// corrupt, unsupported_version or too_large, and incompatible if the data holds another kind.
template <class Sub, class Sync = default_sync, class Make>
auto load_scalable_with(const composite_header& c, const byte_source& source, std::uint64_t memory_limit, std::uint64_t available,
                        Make make) {
    using filter = basic_scalable_filter<Sub, Sync>;
    if (c.kind != filter_kind::scalable || c.parts_layout != Sub::kind)
        throw error(errc::incompatible, "the data holds another kind of filter");
    auto [parts, tail] = detail::read_composite<Sub>(c, source, memory_limit, available,
                                                     [&](const auto& p) { return p.size() + c.pending * 3; });
    std::vector<typename filter::saved_part> saved;
    for (std::size_t i = 0; i < parts.size(); ++i) saved.push_back({std::move(parts[i]), tail[i]});
    std::vector<typename filter::pending_remove> pending;
    for (std::size_t at = parts.size(); at < tail.size(); at += 3) {
        if (tail[at + 2] > 0xffff'ffffu) detail::corrupt("a pending remove's retry count is out of range");
        pending.push_back({{tail[at], tail[at + 1]}, static_cast<std::uint32_t>(tail[at + 2])});
    }
    scalable_options o = c.scalable;
    o.filter = {.memory_limit = memory_limit, .seed = c.seed, .probes = saved[0].filter.probes()};
    try {
        return make(c.capacity, c.fpr, o, std::move(saved), std::move(pending));
    } catch (const error& e) {
        if (e.code() == errc::invalid_argument) detail::corrupt(e.what());
        throw;
    }
}

/// Loads a scalable filter with Sub sub-filters (blocked_bloom_filter or cuckoo_filter, or their
/// forms over another Sync's storage).
template <class Sub, class Sync = default_sync>
std::unique_ptr<basic_scalable_filter<Sub, Sync>> load_scalable(const byte_source& source, std::uint64_t memory_limit = 0,
                                                                std::uint64_t available = unknown_length) {
    const composite_header c = composite_header_of(read_head(source), memory_limit, available);
    return load_scalable_with<Sub, Sync>(c, source, memory_limit, available == unknown_length ? available : available - header_size,
                                         [](auto&&... args) { return std::make_unique<basic_scalable_filter<Sub, Sync>>(std::move(args)...); });
}

// ---- rotating filters -----------------------------------------------------------------------------

inline std::uint64_t serialized_size(const rotating_bloom_filter& f) {
    return header_size + f.ring_size() * serialized_size(f.filter_at(0)) + 2 * 8 + trailer_size;
}

/// Writes a rotating filter (the top of this file). Thread-safe with its adds and queries; its
/// rotations wait for the save.
inline void save(const rotating_bloom_filter& f, const byte_sink& sink) {
    f.with_rotations_paused([&](std::uint64_t rotations, std::uint64_t remaining, std::uint64_t wall) {
        composite_header c;
        c.kind = filter_kind::rotating;
        c.seed = f.seed();
        c.capacity = f.capacity();
        c.fpr = f.fpr();
        c.bytes = serialized_size(f);
        c.parts = f.ring_size();
        c.rotating = f.options();
        c.rotations = rotations;
        const std::uint64_t tail[] = {remaining, wall};
        detail::write_composite(c, sink, [&] {
            for (std::uint32_t i = 0; i < f.ring_size(); ++i) save(f.filter_at(static_cast<std::uint32_t>((rotations + f.ring_size() - i) % f.ring_size())) , sink);
        }, tail);
    });
}

/// Reads a rotating filter after composite_header_of, with the same `available`; `clocks`' clock,
/// wall_clock and auto_tick replace the defaults (the file decides manual_clock). make(capacity,
/// fpr, options, ring, rotations, remaining_ns, saved_at_ns) builds it. Throws as
/// load_scalable_with does.
template <class Make>
auto load_rotating_with(const composite_header& c, const byte_source& source, std::uint64_t memory_limit, std::uint64_t available,
                        const rotating_options& clocks, Make make) {
    if (c.kind != filter_kind::rotating) throw error(errc::incompatible, "the data holds another kind of filter");
    auto [ring, tail] = detail::read_composite<rotating_bloom_filter::generation>(c, source, memory_limit, available,
                                                                                  [](const auto&) { return 2; });
    rotating_options o = c.rotating;
    o.clock = clocks.clock;
    o.wall_clock = clocks.wall_clock;
    o.auto_tick = clocks.auto_tick;
    o.filter = {.memory_limit = memory_limit, .seed = c.seed, .probes = ring[0].probes()};
    try {
        return make(c.capacity, c.fpr, std::move(o), std::move(ring), c.rotations, tail[0], tail[1]);
    } catch (const error& e) {
        if (e.code() == errc::invalid_argument) detail::corrupt(e.what());
        throw;
    }
}

/// Loads a rotating filter; see load_rotating_with for `clocks`.
inline std::unique_ptr<rotating_bloom_filter> load_rotating(const byte_source& source, std::uint64_t memory_limit = 0,
                                                            std::uint64_t available = unknown_length, const rotating_options& clocks = {}) {
    const composite_header c = composite_header_of(read_head(source), memory_limit, available);
    return load_rotating_with(c, source, memory_limit, available == unknown_length ? available : available - header_size, clocks,
                              [](auto&&... args) { return std::make_unique<rotating_bloom_filter>(std::move(args)...); });
}

}  // namespace lfbloom
