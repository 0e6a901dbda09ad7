// Saving and loading filters: lfbloom's own format (docs/FORMAT.md) and Guava's writeTo format.
//
// Native format v1, little-endian: an 80-byte header, the payload (the slot words), and an 8-byte
// trailer.
//   0  8  magic "LFBLOOM\0"          40  8  capacity
//   8  2  format version (1)         48  8  target FPR (IEEE-754 double)
//  10  1  layout (1-7)               56  8  slots set when the save began
//  11  1  hash and probe rule (1-4)   64  8  payload bytes (= slots * slot bits / 8)
//  12  1  slot bits (1, 4, 8, 16)    72  8  XXH3-64 of bytes 0..71
//  13  3  zero                       payload, then XXH3-64 of the payload
//  16  8  seed
//  24  8  slots
//  32  4  hashes (k)
//  36  4  zero
// A cuckoo filter's file (layout 7, rule 4, 16-bit slots) holds its buckets as words, four slots
// each, `hashes` 2 (buckets per key), and the exact count of fingerprints in "slots set"; its
// capacity and rate are 0 if it was built from a bucket count (docs/FORMAT.md).
// Loading validates the whole header (magic, version, checksum, every field, the payload size
// against the geometry, the memory limit, and the length of the data when it is known) before
// allocating anything, streams the payload into the new filter in 64 KiB chunks, and rejects it if
// its checksum or length is wrong. From data of unknown length (a pipe) the filter is allocated
// only once half its payload has arrived, so a header lying about its size costs no more memory
// than about three times what was really sent.
//
// Files are written atomically (a temporary file, then rename). A file replacing another keeps
// that file's permission bits; a new file gets 0666 (or the caller's mode) less the umask.
//
// Saving while other threads add is allowed: every word is read atomically after the save began,
// so the snapshot holds every add that completed before the save began (racing adds may be in it
// or not). Saving a counting filter while removes run is safe in the same sense: every key held
// throughout the save is in the snapshot; a remove that overlaps the save may be captured in part.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <cstdio>
#include <functional>
#include <random>
#include <span>
#include <string>
#include <variant>
#include <vector>

#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL
#endif
#include <xxhash.h>

#include <boost/endian/conversion.hpp>

#include "lfbloom/base/error.hpp"
#include "lfbloom/base/storage.hpp"
#include "lfbloom/filters/bloom_filter.hpp"
#include "lfbloom/filters/counting_bloom_filter.hpp"
#include "lfbloom/filters/cuckoo_filter.hpp"
#include "lfbloom/kinds.hpp"

namespace lfbloom {

/// Writes all `size` bytes or throws error(io).
using byte_sink = std::function<void(const void* data, std::size_t size)>;
/// Reads up to `size` bytes; returns how many (0 only at the end of the data) or throws error(io).
using byte_source = std::function<std::size_t(void* data, std::size_t size)>;

inline constexpr std::uint16_t format_version = 1;
inline constexpr std::size_t header_size = 80;
inline constexpr std::size_t trailer_size = 8;
/// Byte 11 is the hash and probe rule: MurmurHash3 x64_128 and probe_rule 1 or 2 (options.hpp).
/// Classic files are always 1 (Guava's rule); blocked and counting files of lfbloom 1.0-1.3 are
/// 1 and load with that rule, newer ones 2; one-word and two-word files are always 2, split-block
/// files 3. An id this lfbloom does not know, or not for the file's layout, is unsupported_version.
inline constexpr std::uint8_t hash_murmur3_x64_128 = 1;
/// `available` argument of the loaders when the length of the data is not known (a pipe).
inline constexpr std::uint64_t unknown_length = ~std::uint64_t{0};
/// The permission bits of a new file unless the caller gives others; like open(2), the process
/// umask is taken off them: 0644 under the usual umask 022, 0600 under 077.
inline constexpr ::mode_t default_file_mode = 0666;

/// The header of a native file, validated.
struct file_header {
    layout kind = layout::blocked;
    std::uint32_t slot_bits = 1;
    std::uint64_t seed = 0;
    probe_rule probes = current_probe_rule;  ///< always probe_rule::fields for classic
    geometry shape;
    std::uint64_t slots_set = 0;
    std::uint64_t payload_bytes = 0;
};

namespace detail {

inline constexpr char magic[8] = {'L', 'F', 'B', 'L', 'O', 'O', 'M', '\0'};
inline constexpr std::size_t chunk_words = 8192;  // 64 KiB per read or write

[[noreturn]] inline void corrupt(const std::string& what) { throw error(errc::corrupt, "corrupt filter data: " + what); }

template <class T>
void put_le(unsigned char* p, T value) {
    value = boost::endian::native_to_little(value);
    std::memcpy(p, &value, sizeof value);
}
template <class T>
T get_le(const unsigned char* p) {
    T value;
    std::memcpy(&value, p, sizeof value);
    return boost::endian::little_to_native(value);
}

/// Reads exactly `size` bytes or throws corrupt("truncated ...").
inline void read_exact(const byte_source& source, void* data, std::size_t size, const char* what) {
    auto* out = static_cast<unsigned char*>(data);
    while (size > 0) {
        const std::size_t got = source(out, size);
        if (got == 0) corrupt(std::string("truncated ") + what);
        out += got;
        size -= got;
    }
}

inline void check_available(std::uint64_t declared, std::uint64_t available) {
    if (available != unknown_length && declared > available)
        corrupt("truncated: the header declares " + std::to_string(declared) + " bytes, the data has " +
                std::to_string(available));
}

/// The payload bytes of `slots` slots of `slot_bits` (a cuckoo filter's: whole 64-bit buckets of
/// 4 or 5 slots, its slot width being the fingerprint's).
inline std::uint64_t expected_payload(layout kind, std::uint64_t slots, std::uint32_t slot_bits) {
    if (kind == layout::cuckoo) return slots / cuckoo_filter::slots_for(slot_bits) * 8;
    return slots * slot_bits / 8;
}

/// Streams the words out in chunks, each word read atomically, converted to `Endian`. `words`: a
/// span (or vector) of 64-bit words, plain or as a Sync's storage holds them (load_word reads both).
template <class Words, class Convert>
void write_words(const Words& words, const byte_sink& sink, Convert convert, XXH3_state_t* hash) {
    std::vector<std::uint64_t> chunk(std::min<std::size_t>(chunk_words, words.size()));
    for (std::size_t base = 0; base < words.size(); base += chunk.size()) {
        const std::size_t n = std::min(chunk.size(), words.size() - base);
        for (std::size_t i = 0; i < n; ++i) chunk[i] = convert(load_word(words[base + i]));
        if (hash != nullptr) XXH3_64bits_update(hash, chunk.data(), n * 8);
        sink(chunk.data(), n * 8);
    }
}

/// Streams words in, converted from `Endian`, into a filter no other thread sees yet. `words`: a
/// span of 64-bit words, plain or as a Sync's storage holds them (store_word writes both).
template <class Words, class Convert>
void read_words(Words words, const byte_source& source, Convert convert, XXH3_state_t* hash) {
    std::vector<std::uint64_t> chunk(std::min<std::size_t>(chunk_words, words.size()));
    for (std::size_t base = 0; base < words.size(); base += chunk.size()) {
        const std::size_t n = std::min(chunk.size(), words.size() - base);
        read_exact(source, chunk.data(), n * 8, "payload");
        if (hash != nullptr) XXH3_64bits_update(hash, chunk.data(), n * 8);
        for (std::size_t i = 0; i < n; ++i) store_word(words[base + i], convert(chunk[i]));
    }
}

/// make()s the filter and reads its `payload_words` words into it (see read_words). When the
/// length of the data is unknown, nothing has checked that the header's size is true: then the
/// first half of the payload is staged in chunks as it arrives and the filter is made only once
/// that half is in, so a lying header ends as "truncated" having cost memory in proportion to
/// the bytes really sent (at most about three times), never what it declared.
template <class Make, class Convert>
auto read_filter(Make make, std::uint64_t payload_words, std::uint64_t available, const byte_source& source, Convert convert,
                 XXH3_state_t* hash) {
    std::vector<std::vector<std::uint64_t>> staged;
    std::uint64_t at = 0;
    for (const std::uint64_t half = available == unknown_length ? payload_words / 2 : 0; at < half;) {
        staged.emplace_back(std::min<std::uint64_t>(chunk_words, half - at));
        read_exact(source, staged.back().data(), staged.back().size() * 8, "payload");
        at += staged.back().size();
    }
    auto filter = make();
    const auto words = filter.words();
    std::uint64_t i = 0;
    for (std::vector<std::uint64_t>& chunk : staged) {
        if (hash != nullptr) XXH3_64bits_update(hash, chunk.data(), chunk.size() * 8);
        for (const std::uint64_t w : chunk) store_word(words[i++], convert(w));
        std::vector<std::uint64_t>().swap(chunk);  // freed as it is copied: the peak stays at half plus the filter
    }
    read_words(words.subspan(at), source, convert, hash);
    return filter;
}

inline std::uint64_t little(std::uint64_t w) { return boost::endian::native_to_little(w); }

struct xxh3_state {
    XXH3_state_t* state = XXH3_createState();
    xxh3_state() {
        if (state == nullptr) throw error(errc::out_of_memory, "cannot allocate a checksum state");
        XXH3_64bits_reset(state);
    }
    ~xxh3_state() { XXH3_freeState(state); }
    xxh3_state(const xxh3_state&) = delete;
    xxh3_state& operator=(const xxh3_state&) = delete;
};

/// The 80-byte header of `filter` (see the top of this file), with `magic`.
template <class Filter>
std::array<unsigned char, header_size> encode_header(const char (&magic_bytes)[8], const Filter& filter, std::uint64_t set,
                                                     std::uint16_t version = format_version) {
    std::array<unsigned char, header_size> h{};
    std::memcpy(h.data(), magic_bytes, 8);
    put_le<std::uint16_t>(&h[8], version);
    h[10] = static_cast<unsigned char>(Filter::kind);
    h[11] = static_cast<unsigned char>(filter.probes());
    h[12] = static_cast<unsigned char>(filter.counter_bits());
    put_le<std::uint64_t>(&h[16], filter.seed());
    put_le<std::uint64_t>(&h[24], filter.shape().slots);
    put_le<std::uint32_t>(&h[32], filter.shape().hashes);
    put_le<std::uint64_t>(&h[40], filter.shape().capacity);
    put_le<std::uint64_t>(&h[48], std::bit_cast<std::uint64_t>(filter.shape().target_fpr));
    put_le<std::uint64_t>(&h[56], set);
    put_le<std::uint64_t>(&h[64], expected_payload(Filter::kind, filter.shape().slots, filter.counter_bits()));
    put_le<std::uint64_t>(&h[72], XXH3_64bits(h.data(), 72));
    return h;
}

/// Validates every field of a header with `magic` (see the top of this file) and format version
/// `version` (shared cuckoo files have their own: shared_memory.hpp).
inline file_header decode_header(const std::array<unsigned char, header_size>& h, const char (&magic_bytes)[8],
                                 std::uint16_t version = format_version) {
    if (std::memcmp(h.data(), magic_bytes, 8) != 0) corrupt("not an lfbloom filter (bad magic)");
    const auto found = get_le<std::uint16_t>(&h[8]);
    if (found != version)
        throw error(errc::unsupported_version, "filter format version " + std::to_string(found) +
                                                   " is not supported (this lfbloom reads version " + std::to_string(version) + ")");
    if (get_le<std::uint64_t>(&h[72]) != XXH3_64bits(h.data(), 72)) corrupt("header checksum mismatch");
    file_header out;
    if (!is_layout(static_cast<layout>(h[10]))) throw error(errc::unsupported_version, "unknown layout in the header");
    out.kind = static_cast<layout>(h[10]);
    out.probes = static_cast<probe_rule>(h[11]);
    out.slot_bits = h[12];
    std::uint64_t line = 0;  // slots of one line or block (a slot count is a whole number of them); 0: a width the class has not
    with_file_layout<void>(out.kind, [&]<class F>() {  // what the class says a file of it records
        if (!F::takes_rule(out.probes))
            throw error(errc::unsupported_version, "hash and probe rule " + std::to_string(h[11]) + " is unknown for this layout");
        if (F::takes_slot_bits(out.slot_bits)) line = F::line_slots(out.slot_bits);
    });
    if (out.kind == layout::cuckoo) out.shape.slot_bits = out.slot_bits;  // the bucket format
    if (line == 0 || h[13] != 0 || h[14] != 0 || h[15] != 0 || get_le<std::uint32_t>(&h[36]) != 0)
        corrupt("inconsistent slot width or non-zero reserved bytes");
    out.seed = get_le<std::uint64_t>(&h[16]);
    out.shape.slots = get_le<std::uint64_t>(&h[24]);
    out.shape.hashes = get_le<std::uint32_t>(&h[32]);
    out.shape.capacity = get_le<std::uint64_t>(&h[40]);
    out.shape.target_fpr = std::bit_cast<double>(get_le<std::uint64_t>(&h[48]));
    out.slots_set = get_le<std::uint64_t>(&h[56]);
    out.payload_bytes = get_le<std::uint64_t>(&h[64]);
    if (out.shape.slots == 0 || out.shape.slots > max_slots || out.shape.slots % line != 0)
        corrupt("slot count " + std::to_string(out.shape.slots) + " is impossible for this layout");
    if (out.shape.hashes == 0 || out.shape.hashes > max_hashes || (out.kind == layout::cuckoo && out.shape.hashes != 2))
        corrupt("hash count out of range");
    if (out.payload_bytes != expected_payload(out.kind, out.shape.slots, out.slot_bits)) corrupt("payload length does not match the geometry");
    if (out.slots_set > out.shape.slots) corrupt("more slots set than slots");
    with_file_layout<void>(out.kind, [&]<class F>() {  // the class's own rules (split-block: k = 8; rates)
        try {
            F::validate(out.shape, out.slot_bits);
        } catch (const error& e) {
            if (e.code() == errc::invalid_argument) corrupt(e.what());
            throw;
        }
    });
    return out;
}

/// Whether Filter is a counting filter, over any storage (the Redis module's has its own).
template <class Filter>
inline constexpr bool is_counting = false;
template <class Storage>
inline constexpr bool is_counting<basic_counting_bloom_filter<Storage>> = true;

/// Builds an empty filter of the header's kind; geometry errors in a file mean corruption.
template <class Filter, class... Storage>
Filter make_for(const file_header& h, std::uint64_t memory_limit, Storage&&... storage) {
    const filter_options options{.memory_limit = memory_limit, .seed = h.seed, .probes = h.probes};
    try {
        if constexpr (is_counting<Filter>) return Filter(h.shape, h.slot_bits, options, std::forward<Storage>(storage)...);
        else return Filter(h.shape, options, std::forward<Storage>(storage)...);
    } catch (const error& e) {
        if (e.code() == errc::invalid_argument) corrupt(e.what());
        throw;
    }
}

}  // namespace detail

// ---- native format ------------------------------------------------------------------------------

/// Writes `filter` to `sink` in the native format. Thread-safe with concurrent adds, queries and
/// (counting, cuckoo) removes on the filter: see the top of this file for what the snapshot holds.
/// A cuckoo filter is written behind its writer gate (with_writers_paused): its writers wait for
/// the save, and the file holds one state of the table, with every fingerprint (a kick in flight
/// could otherwise be caught half done, its fingerprint in neither bucket the save read).
template <class Filter>
void save(const Filter& filter, const byte_sink& sink) {
    auto write = [&](auto words, std::uint64_t set) {
        const auto h = detail::encode_header(detail::magic, filter, set);
        sink(h.data(), h.size());
        detail::xxh3_state payload;
        detail::write_words(words, sink, detail::little, payload.state);
        std::array<unsigned char, trailer_size> trailer;
        detail::put_le<std::uint64_t>(trailer.data(), XXH3_64bits_digest(payload.state));
        sink(trailer.data(), trailer.size());
    };
    if constexpr (Filter::kind == layout::cuckoo)
        filter.with_writers_paused([&](auto table) { write(table, filter.stats().fingerprints); });
    else
        write(filter.words(), filter.stats().slots_set);
}

/// The bytes save() writes for `filter` (a layout class's).
template <class Filter>
std::uint64_t serialized_size(const Filter& filter) {
    return header_size + detail::expected_payload(Filter::kind, filter.shape().slots, filter.counter_bits()) + trailer_size;
}

/// The first header_size bytes of native data, read as they are (see file_header_of).
using native_head = std::array<unsigned char, header_size>;
inline native_head read_head(const byte_source& source) {
    native_head h;
    detail::read_exact(source, h.data(), h.size(), "header");
    return h;
}

/// Whether a native head is a composite's (composite_format.hpp), by its layout byte alone.
inline bool is_composite(const native_head& h) noexcept { return h[10] >= 16; }

/// Validates a layout's native header; throws corrupt, unsupported_version or too_large (the
/// payload would exceed `memory_limit`, 0 = none, or the machine). `available`, when known, is
/// the length of the data: a header declaring more is refused as truncated. Allocates nothing.
inline file_header file_header_of(const native_head& head, std::uint64_t memory_limit = 0,
                                  std::uint64_t available = unknown_length) {
    const file_header out = detail::decode_header(head, detail::magic);
    check_memory(out.payload_bytes, memory_limit);
    detail::check_available(header_size + out.payload_bytes + trailer_size, available);
    return out;
}

/// Reads and validates a layout's native header (file_header_of says how).
inline file_header read_header(const byte_source& source, std::uint64_t memory_limit = 0,
                               std::uint64_t available = unknown_length) {
    return file_header_of(read_head(source), memory_limit, available);
}

/// Loads the payload of a filter of type Filter after read_header(source, memory_limit,
/// available), with the same `available`; throws incompatible if the data holds another kind.
template <class Filter>
Filter load_payload(const file_header& header, const byte_source& source, std::uint64_t memory_limit = 0,
                    std::uint64_t available = unknown_length) {
    if (header.kind != Filter::kind) throw error(errc::incompatible, "the data holds a filter of another layout");
    detail::xxh3_state payload;
    Filter f = detail::read_filter([&] { return detail::make_for<Filter>(header, memory_limit); }, header.payload_bytes / 8,
                                   available, source, detail::little, payload.state);
    std::array<unsigned char, trailer_size> trailer;
    detail::read_exact(source, trailer.data(), trailer.size(), "checksum");
    if (detail::get_le<std::uint64_t>(trailer.data()) != XXH3_64bits_digest(payload.state))
        detail::corrupt("payload checksum mismatch");
    if constexpr (Filter::kind == layout::cuckoo) {  // saved behind the writer gate: exact
        if (f.stats().fingerprints != header.slots_set) detail::corrupt("fingerprint count does not match the header");
    }
    return f;
}

/// Loads whatever filter the data holds.
inline any_filter load_any(const byte_source& source, std::uint64_t memory_limit = 0,
                           std::uint64_t available = unknown_length) {
    const file_header h = read_header(source, memory_limit, available);
    return with_file_layout<any_filter>(h.kind, [&]<class F>() { return any_filter(load_payload<F>(h, source, memory_limit, available)); });
}

template <class Filter>
Filter load(const byte_source& source, std::uint64_t memory_limit = 0, std::uint64_t available = unknown_length) {
    return load_payload<Filter>(read_header(source, memory_limit, available), source, memory_limit, available);
}

// ---- Guava's format -----------------------------------------------------------------------------

/// The bytes save_guava writes for `filter`; throws incompatible unless the seed is 0 and the
/// filter has at most 2^31 - 1 words (Guava's limits).
inline std::uint64_t guava_size(const classic_bloom_filter& filter) {
    if (filter.seed() != 0 || filter.words().size() > 0x7fffffff)
        throw error(errc::incompatible, "Guava reads only seed-0 filters of at most 2^31-1 words");
    return 6 + filter.words().size() * 8;
}

/// Writes a classic filter as Guava's BloomFilter.writeTo does: strategy ordinal 1
/// (MURMUR128_MITZ_64), k, big-endian int32 word count, big-endian words. Guava's readFrom then
/// answers exactly as this filter does. Throws as guava_size does.
inline void save_guava(const classic_bloom_filter& filter, const byte_sink& sink) {
    guava_size(filter);
    const std::uint64_t words = filter.words().size();
    unsigned char header[6] = {1, static_cast<unsigned char>(filter.shape().hashes)};
    const std::uint32_t count = boost::endian::native_to_big(static_cast<std::uint32_t>(words));
    std::memcpy(header + 2, &count, 4);
    sink(header, sizeof header);
    detail::write_words(filter.words(), sink, [](std::uint64_t w) { return boost::endian::native_to_big(w); }, nullptr);
}

/// The bytes before a Guava stream's words: strategy ordinal, k, big-endian int32 word count.
inline constexpr std::size_t guava_header_size = 6;

/// A Guava stream's header, validated (load_guava says how); allocates nothing.
struct guava_header {
    std::uint32_t hashes;
    std::uint64_t words;
};
inline guava_header read_guava_header(const byte_source& source, std::uint64_t memory_limit = 0,
                                      std::uint64_t available = unknown_length) {
    unsigned char header[guava_header_size];
    detail::read_exact(source, header, sizeof header, "Guava header");
    if (header[0] != 1)
        throw error(errc::unsupported_version, "Guava strategy ordinal " + std::to_string(static_cast<int>(static_cast<signed char>(header[0]))) +
                                                   " is not supported (only 1, MURMUR128_MITZ_64)");
    std::int32_t words;
    std::memcpy(&words, header + 2, 4);
    words = boost::endian::big_to_native(words);
    if (header[1] == 0 || words <= 0) detail::corrupt("Guava stream with zero hashes or a non-positive word count");
    check_memory(static_cast<std::uint64_t>(words) * 8, memory_limit);
    detail::check_available(guava_header_size + static_cast<std::uint64_t>(words) * 8, available);
    return {header[1], static_cast<std::uint64_t>(words)};
}

/// Reads Guava's writeTo format. Guava's stream holds no capacity or rate: capacity is the n for
/// which k is optimal, the rate the expected FPR there. Throws corrupt (truncated, zero k or
/// words), unsupported_version (a strategy other than MURMUR128_MITZ_64) or too_large before
/// allocating (Guava itself trusts the word count: google/guava#8447).
inline classic_bloom_filter load_guava(const byte_source& source, std::uint64_t memory_limit = 0,
                                       std::uint64_t available = unknown_length) {
    const guava_header h = read_guava_header(source, memory_limit, available);
    return detail::read_filter([&] { return classic_bloom_filter::with_geometry(h.words * 64, h.hashes, {.memory_limit = memory_limit}); },
                               h.words, available, source, [](std::uint64_t w) { return boost::endian::big_to_native(w); }, nullptr);
}

// ---- Parquet's bitset ---------------------------------------------------------------------------

/// The most bytes a Parquet bitset has: numBytes of its BloomFilterHeader is a Thrift i32, so the
/// largest multiple of 32 below 2^31 (parquet-mr and Arrow write at most 128 MiB by default).
inline constexpr std::uint64_t parquet_max_bytes = 0x7fffffe0;

/// The bytes save_parquet_bitset writes for `filter` (its numBytes); throws incompatible unless the
/// seed is 0 and the bitset fits Parquet's numBytes.
inline std::uint64_t parquet_bitset_size(const split_block_bloom_filter& filter) {
    if (filter.seed() != 0) throw error(errc::incompatible, "Parquet's split-block filters hash with seed 0");
    const std::uint64_t bytes = filter.words().size() * 8;
    if (bytes > parquet_max_bytes)
        throw error(errc::incompatible, "a Parquet bitset has at most " + std::to_string(parquet_max_bytes) + " bytes (numBytes is an i32); this filter has " +
                                            std::to_string(bytes));
    return bytes;
}

/// Writes a split-block filter's bitset as a Parquet file stores it after the column chunk's
/// BloomFilterHeader (algorithm BLOCK, hash XXHASH, compression UNCOMPRESSED, numBytes = the
/// filter's bytes): the 32-bit words little-endian. Readers that follow the spec answer as this
/// filter does for seed-0 filters (throws as parquet_bitset_size does). Thread-safe with
/// concurrent adds, as save() is. parquet-mr writes only power-of-two sizes but reads any
/// multiple of 32 bytes.
inline void save_parquet_bitset(const split_block_bloom_filter& filter, const byte_sink& sink) {
    parquet_bitset_size(filter);
    detail::write_words(filter.words(), sink, detail::little, nullptr);
}

/// Reads a Parquet split-block bitset of `bytes` bytes (numBytes of its BloomFilterHeader) into a
/// filter of the same bits. Throws invalid_argument (bytes not a positive multiple of 32, or over
/// parquet_max_bytes), too_large (the memory limit) or corrupt (truncated) before allocating or
/// while reading; the capacity and rate it reports are those k = 8 is optimal for.
inline split_block_bloom_filter load_parquet_bitset(const byte_source& source, std::uint64_t bytes, std::uint64_t memory_limit = 0,
                                                    std::uint64_t available = unknown_length) {
    static_assert(parquet_max_bytes / 32 <= split_block_layout::max_blocks);
    if (bytes == 0 || bytes % 32 != 0 || bytes > parquet_max_bytes)
        throw error(errc::invalid_argument, "a Parquet bitset has a positive multiple of 32 bytes, at most " + std::to_string(parquet_max_bytes) +
                                                " (numBytes is an i32); got " + std::to_string(bytes));
    check_memory(bytes, memory_limit);
    detail::check_available(bytes, available);
    return detail::read_filter([&] { return split_block_bloom_filter::with_geometry(bytes * 8, 8, {.memory_limit = memory_limit}); },
                               bytes / 8, available, source, [](std::uint64_t w) { return boost::endian::little_to_native(w); }, nullptr);
}

// ---- sinks and sources --------------------------------------------------------------------------

inline byte_sink vector_sink(std::vector<std::byte>& out) {
    return [&out](const void* data, std::size_t size) {
        const auto* p = static_cast<const std::byte*>(data);
        out.insert(out.end(), p, p + size);
    };
}

/// Reads from `data`, advancing it past what was read.
inline byte_source span_source(std::span<const std::byte>& data) {
    return [&data](void* out, std::size_t size) {
        const std::size_t n = std::min(size, data.size());
        if (n > 0) std::memcpy(out, data.data(), n);
        data = data.subspan(n);
        return n;
    };
}

inline byte_sink fd_sink(int fd) {
    return [fd](const void* data, std::size_t size) {
        const auto* p = static_cast<const char*>(data);
        while (size > 0) {
            const ssize_t n = ::write(fd, p, size);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) throw error(errc::io, std::string("write failed: ") + std::strerror(n < 0 ? errno : EIO));
            p += n;
            size -= static_cast<std::size_t>(n);
        }
    };
}

inline byte_source fd_source(int fd) {
    return [fd](void* data, std::size_t size) -> std::size_t {
        for (;;) {
            const ssize_t n = ::read(fd, data, size);
            if (n >= 0) return static_cast<std::size_t>(n);
            if (errno != EINTR) throw error(errc::io, std::string("read failed: ") + std::strerror(errno));
        }
    };
}

/// Loads a filter from memory that must hold exactly one saved filter: load(source, available).
template <class Result, class Load>
Result load_exact(std::span<const std::byte> data, Load load) {
    const std::uint64_t available = data.size();
    Result r = load(span_source(data), available);
    if (!data.empty()) detail::corrupt(std::to_string(data.size()) + " unexpected bytes after the filter");
    return r;
}

namespace detail {

/// Throws invalid_argument unless `mode` is permission bits only.
inline void check_mode(::mode_t mode) {
    if (mode > 0777) throw error(errc::invalid_argument, "file mode must be permission bits (0 to 0777)");
}

/// Creates and opens (read-write) a new file named `prefix` plus a random suffix, with `mode` as
/// open(2) applies it (less the umask), and stores its name in `name`. Returns the descriptor, or
/// -1 with errno set. (mkstemp cannot do this: it always creates 0600.)
inline int create_unique(const std::string& prefix, ::mode_t mode, std::string& name) {
    std::random_device random;
    for (int attempt = 0; attempt < 100; ++attempt) {
        char suffix[17];
        std::snprintf(suffix, sizeof suffix, "%08x%08x", random(), random());
        name = prefix + suffix;
        const int fd = ::open(name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, mode);
        if (fd >= 0 || errno != EEXIST) return fd;
    }
    return -1;  // errno is EEXIST
}

}  // namespace detail

/// Writes a file at `path` atomically: into a temporary file beside it, flushed to disk, then
/// renamed over `path`. On any failure nothing is left behind and `path` is untouched. A file
/// that replaces an existing one keeps its permission bits (a private filter stays private); a new
/// one gets `mode` (at most 0777) less the umask, as open(2) gives. Thread-safe for different
/// paths; concurrent writers of one path each leave a complete file, the last rename wins.
template <class Write>
void write_file_atomically(const std::string& path, Write write, ::mode_t mode = default_file_mode) {
    detail::check_mode(mode);
    struct stat old;
    const bool replacing = ::stat(path.c_str(), &old) == 0 && S_ISREG(old.st_mode);
    std::string tmp;
    // When replacing, the temporary starts private and takes the old bits before any data is in it.
    const int fd = detail::create_unique(path + ".tmp.", replacing ? 0600 : mode, tmp);
    if (fd < 0) throw error(errc::io, "cannot create a temporary file beside " + path + ": " + std::strerror(errno));
    try {
        // fchmod ignores the umask: exactly the old permission bits (setuid, setgid and sticky
        // bits are not carried over to new contents).
        if (replacing && ::fchmod(fd, old.st_mode & 0777) != 0)
            throw error(errc::io, std::string("fchmod failed: ") + std::strerror(errno));
        write(fd_sink(fd));
        if (::fsync(fd) != 0) throw error(errc::io, std::string("fsync failed: ") + std::strerror(errno));
        if (::close(fd) != 0) throw error(errc::io, std::string("close failed: ") + std::strerror(errno));
    } catch (...) {
        ::close(fd);
        ::unlink(tmp.c_str());
        throw;
    }
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
        const int saved = errno;
        ::unlink(tmp.c_str());
        throw error(errc::io, "cannot rename onto " + path + ": " + std::strerror(saved));
    }
}

/// Saves `filter` to `path` with write_file_atomically (its `mode` is for a new file). Thread-safe
/// as save() is.
template <class Filter>
void save_file(const Filter& filter, const std::string& path, ::mode_t mode = default_file_mode) {
    write_file_atomically(path, [&](const byte_sink& sink) { save(filter, sink); }, mode);
}

/// The bytes a regular file behind `fd` holds from the descriptor's offset on, or unknown_length
/// (a pipe, socket or terminal): the `available` argument of the loaders, so that a header
/// declaring more than the file holds is refused before anything is allocated.
inline std::uint64_t fd_remaining(int fd) {
    struct stat st;
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return unknown_length;
    const off_t at = ::lseek(fd, 0, SEEK_CUR);
    if (at < 0) return unknown_length;
    return at < st.st_size ? static_cast<std::uint64_t>(st.st_size - at) : 0;
}

/// Opens `path` and runs load(source, available); the whole file must be one filter.
template <class Load>
auto read_file(const std::string& path, Load load) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw error(errc::io, "cannot open " + path + ": " + std::strerror(errno));
    struct closer {
        int fd;
        ~closer() { ::close(fd); }
    } close_on_exit{fd};
    const byte_source source = fd_source(fd);
    auto result = load(source, fd_remaining(fd));
    char extra;
    if (source(&extra, 1) != 0) detail::corrupt(path + " has unexpected bytes after the filter");
    return result;
}

inline any_filter load_file(const std::string& path, std::uint64_t memory_limit = 0) {
    return read_file(path, [&](const byte_source& s, std::uint64_t available) { return load_any(s, memory_limit, available); });
}

}  // namespace lfbloom
