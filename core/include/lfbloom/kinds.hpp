// The one list of kinds: the enum (filter_kind, options.hpp) gets its classes, names, variant and
// dispatch here. Adding a layout takes five files: its class in a header of its own (its kind,
// name and what its files record as static members), its number in filter_kind, that header
// included here with the class in layout_classes, its LFB_KIND_ constant in lfbloom.h (a comment
// starting "Bloom," makes Go's constant: bindings/go/generate.sh), and its constant in Java's
// BloomFilter.Layout. The loaders, openers, make_filter, the C ABI and the command-line tool take
// it from these.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include <boost/preprocessor/seq/enum.hpp>

#include "lfbloom/base/error.hpp"
#include "lfbloom/base/options.hpp"
#include "lfbloom/filters/bloom_filter.hpp"
#include "lfbloom/filters/counting_bloom_filter.hpp"
#include "lfbloom/filters/cuckoo_filter.hpp"

namespace lfbloom {

template <class... F>
struct kind_list {};

/// The class of each layout (a kind a file holds as one array), F::kind naming its number. The
/// list is a preprocessor sequence too, for what only the preprocessor can repeat: the explicit
/// instantiations of dynamic_filter.hpp's separate compilation.
#define LFBLOOM_LAYOUT_CLASSES (classic_bloom_filter)(blocked_bloom_filter)(counting_bloom_filter)(split_block_bloom_filter) \
    (one_word_bloom_filter)(two_word_bloom_filter)(cuckoo_filter)
using layout_classes = kind_list<BOOST_PP_SEQ_ENUM(LFBLOOM_LAYOUT_CLASSES)>;

namespace detail {
template <class... F>
std::variant<F...> variant_of(kind_list<F...>);
template <class... F>
constexpr bool listed(filter_kind k, kind_list<F...>) noexcept {
    return ((F::kind == k) || ...);
}

template <class R, class Fn, class First, class... Rest>
R dispatch(filter_kind kind, Fn& fn, kind_list<First, Rest...>) {
    if (kind == First::kind) return fn.template operator()<First>();
    if constexpr (sizeof...(Rest) > 0) return dispatch<R>(kind, fn, kind_list<Rest...>{});
    else throw error(errc::unsupported_version, "unknown layout " + std::to_string(static_cast<std::uint32_t>(kind)));
}
}  // namespace detail

/// True for the kinds a file can hold as one array (the layouts), false for the composites and
/// for numbers that name no kind.
constexpr bool is_layout(filter_kind k) noexcept { return detail::listed(k, layout_classes{}); }

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
template <class... F>
constexpr auto names_of(kind_list<F...>) {
    return std::array<kind_name_entry, sizeof...(F) + 3>{{{F::kind, F::name}...,  // each layout names itself
                                                          {filter_kind::scalable, "scalable"},
                                                          {filter_kind::rotating, "rotating"},
                                                          {filter_kind::swappable, "swappable"}}};
}
inline constexpr auto kind_names = names_of(layout_classes{});
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
