// One interface over the filters the stress programs drive: the core's one interface
// (lfbloom::dynamic_filter) or the C ABI's one handle (lfb_handle), so every scenario proves both
// paths, for every kind, with one implementation each.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "lfbloom/dynamic_filter.hpp"

namespace stress {

using lfbloom::key_view;

struct filter_spec {
    std::string layout = "blocked";  // a kind's name (lfbloom::parse_kind): blocked, classic, counting, cuckoo, scalable, ...
    std::string api = "cpp";         // cpp or c
    std::uint64_t capacity = 1000000;
    double fpr = 0.01;
    std::uint32_t counter_bits = 4;
    std::uint32_t generations = 2;  // rotating
    bool double_write = false;       // rotating
};

/// What a scenario needs of a filter, of any kind. Every member is as thread-safe as the filter
/// behind it; a call the kind does not offer throws (lfbloom::error, or std::runtime_error from
/// the C ABI's status).
class filter_api {
public:
    virtual ~filter_api() = default;
    /// Adds; a refusal (a full cuckoo or scalable filter) throws.
    virtual bool add(key_view key) = 0;
    /// Adds keys in one batch call; a refusal throws.
    virtual void add_many(std::span<const key_view> keys) = 0;
    /// Adds, a refusal (full, too_many_duplicates) being a status, as cuckoo_filter::insert's.
    virtual lfbloom::cuckoo_status insert(key_view key) = 0;
    virtual bool contains(key_view key) const = 0;
    /// found[i] = 1/0 for keys[i]; one batch call.
    virtual void contains_many(std::span<const key_view> keys, std::uint8_t* found) const = 0;
    virtual bool remove(key_view key) = 0;
    /// removed[i] = 1/0 for keys[i]; one batch call.
    virtual void remove_many(std::span<const key_view> keys, std::uint8_t* removed) = 0;
    virtual std::uint32_t count(key_view key) const = 0;
    virtual lfbloom::filter_info info() const = 0;
    /// A composite's part (lfbloom::dynamic_filter::part_info).
    virtual lfbloom::filter_info part(std::uint32_t index) const = 0;
    /// An empty layout of the same kind, geometry and seed.
    virtual std::unique_ptr<filter_api> empty_twin() const = 0;
    virtual void rotate() = 0;
    /// A rotating filter's rotations so far (read with acquire, as rotating_bloom_filter::rotations).
    virtual std::uint64_t rotations() const = 0;
    /// A swap: stages an empty blocked filter of the spec's capacity; add_staged, publish.
    virtual void stage_fresh() = 0;
    virtual void add_staged(std::span<const key_view> keys) = 0;
    virtual void publish() = 0;
    /// A counting filter's removes that rolled back (counting_bloom_filter::rollbacks), or -1
    /// where the API does not tell (the C ABI).
    virtual std::int64_t rollbacks() const { return -1; }
};

/// The filter of spec.layout sized for (capacity, fpr); "scalable" starts at capacity / 1024 (so
/// it grows about 10 times), "rotating" has spec.generations and spec.double_write (manual
/// rotation), "swappable" holds a blocked filter.
std::unique_ptr<filter_api> make_filter(const filter_spec& spec);

}  // namespace stress
