// The one list of kinds: the enum (filter_kind, options.hpp) gets its classes, names, variant and
// dispatch here. Adding a layout: its number in filter_kind, its class in layout_classes, its name
// in kind_names; the loaders, openers, make_filter, the C ABI and the command-line tool take it
// from these.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "lfbloom/bloom_filter.hpp"
#include "lfbloom/counting_bloom_filter.hpp"
#include "lfbloom/cuckoo_filter.hpp"
#include "lfbloom/error.hpp"
#include "lfbloom/options.hpp"

namespace lfbloom {

template <class... F>
struct kind_list {};

/// The class of each layout (a kind a file holds as one array), F::kind naming its number.
using layout_classes = kind_list<classic_bloom_filter, blocked_bloom_filter, counting_bloom_filter, split_block_bloom_filter,
                                 one_word_bloom_filter, two_word_bloom_filter, cuckoo_filter>;

namespace detail {
template <class... F>
std::variant<F...> variant_of(kind_list<F...>);

template <class R, class Fn, class First, class... Rest>
R dispatch(filter_kind kind, Fn& fn, kind_list<First, Rest...>) {
    if (kind == First::kind) return fn.template operator()<First>();
    if constexpr (sizeof...(Rest) > 0) return dispatch<R>(kind, fn, kind_list<Rest...>{});
    else throw error(errc::unsupported_version, "unknown layout " + std::to_string(static_cast<std::uint32_t>(kind)));
}
}  // namespace detail

/// Any filter a file can hold.
using any_filter = decltype(detail::variant_of(layout_classes{}));

/// Calls fn.template operator()<F>() for the layout class F of `kind`: the one dispatch from a
/// kind to its class (loaders, openers and make_filter go through it). unsupported_version for a
/// kind that is not a layout.
template <class R, class Fn>
R with_file_layout(filter_kind kind, Fn fn) {
    return detail::dispatch<R>(kind, fn, layout_classes{});
}

namespace detail {
struct kind_name_entry {
    filter_kind kind;
    const char* name;
};
inline constexpr kind_name_entry kind_names[] = {
    {filter_kind::classic, "classic"},       {filter_kind::blocked, "blocked"},   {filter_kind::counting, "counting"},
    {filter_kind::split_block, "split-block"}, {filter_kind::one_word, "one-word"}, {filter_kind::two_word, "two-word"},
    {filter_kind::cuckoo, "cuckoo"},         {filter_kind::scalable, "scalable"}, {filter_kind::rotating, "rotating"},
    {filter_kind::swappable, "swappable"},
};
}  // namespace detail

/// The kind's name as the command-line tool and the bindings spell it ("split-block"), or null.
inline const char* kind_name(filter_kind kind) noexcept {
    for (const auto& e : detail::kind_names)
        if (e.kind == kind) return e.name;
    return nullptr;
}

/// The kind named `name` (kind_name's spelling), if there is one.
inline std::optional<filter_kind> parse_kind(std::string_view name) noexcept {
    for (const auto& e : detail::kind_names)
        if (name == e.name) return e.kind;
    return std::nullopt;
}

}  // namespace lfbloom
