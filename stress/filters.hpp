// One interface over the filters the stress programs drive: the C++ core directly, or the same
// filters through the C ABI, so every scenario proves both paths.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "lfbloom.h"
#include "lfbloom/lfbloom.hpp"

namespace stress {

using lfbloom::key_view;

struct filter_spec {
    std::string layout = "blocked";  // blocked, classic, counting
    std::string api = "cpp";         // cpp or c
    std::uint64_t capacity = 1000000;
    double fpr = 0.01;
    std::uint32_t counter_bits = 4;
};

/// What a scenario needs of a filter. All members are as thread-safe as the filter behind them.
class filter_api {
public:
    virtual ~filter_api() = default;
    virtual bool add(key_view key) = 0;
    virtual bool contains(key_view key) const = 0;
    /// found[i] = 1/0 for keys[i]; one batch call.
    virtual void contains_many(std::span<const key_view> keys, std::uint8_t* found) const = 0;
    virtual bool remove(key_view) { throw std::logic_error("remove needs a counting filter"); }
    /// removed[i] = 1/0 for keys[i]; one batch call.
    virtual void remove_many(std::span<const key_view>, std::uint8_t*) { throw std::logic_error("remove needs a counting filter"); }
    virtual std::uint32_t count(key_view) const { throw std::logic_error("count needs a counting filter"); }
    virtual lfb_stats stats() const = 0;
    /// An empty filter of the same kind, geometry and seed.
    virtual std::unique_ptr<filter_api> empty_twin() const = 0;
    /// A counting filter's removes that rolled back (counting_bloom_filter::rollbacks), or -1
    /// where the API does not tell (the C ABI).
    virtual std::int64_t rollbacks() const { return -1; }
    /// A scalable filter's sub-filters as (items counted, capacity); empty for other kinds.
    virtual std::vector<std::pair<std::uint64_t, std::uint64_t>> sub_filters() const { return {}; }
};

/// layout "scalable" is a scalable filter starting at capacity / 1024 (so it grows ~10 times).
std::unique_ptr<filter_api> make_filter(const filter_spec& spec);

/// A rotating filter: capacity per period, `generations`, single or double write; manual rotation.
class rotating_api {
public:
    virtual ~rotating_api() = default;
    virtual void add(key_view key) = 0;
    virtual bool contains(key_view key) const = 0;
    virtual void contains_many(std::span<const key_view> keys, std::uint8_t* found) const = 0;
    virtual void rotate() = 0;
    virtual std::uint64_t rotations() const = 0;
};
std::unique_ptr<rotating_api> make_rotating(const filter_spec& spec, std::uint32_t generations, bool double_write);

/// A hot-swap handle over blocked filters of spec.capacity.
class swap_api {
public:
    virtual ~swap_api() = default;
    virtual void add(key_view key) = 0;
    virtual bool contains(key_view key) const = 0;
    virtual void contains_many(std::span<const key_view> keys, std::uint8_t* found) const = 0;
    virtual void stage_fresh() = 0;  ///< stages an empty filter of the same size
    virtual void add_staged(std::span<const key_view> keys) = 0;
    virtual void publish() = 0;
};
std::unique_ptr<swap_api> make_swap(const filter_spec& spec);

/// A cuckoo filter sized for (spec.capacity, spec.fpr): the core's, or one behind an lfb_handle.
class cuckoo_api {
public:
    virtual ~cuckoo_api() = default;
    /// A refusal (full, too_many_duplicates) is a status, as cuckoo_filter::insert's.
    virtual lfbloom::cuckoo_status insert(key_view key) = 0;
    virtual bool contains(key_view key) const = 0;
    virtual bool remove(key_view key) = 0;
    virtual std::uint32_t count(key_view key) const = 0;
    virtual lfbloom::cuckoo_stats stats() const = 0;
};
std::unique_ptr<cuckoo_api> make_cuckoo(const filter_spec& spec);

}  // namespace stress
