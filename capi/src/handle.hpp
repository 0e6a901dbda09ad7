// The C ABI's one handle, and what both of the C layer's sources need: every entry point runs
// its body under guarded(), which catches everything and turns lfbloom::error codes into LFB_ERR_*
// statuses, so no exception crosses extern "C".
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <utility>

#include "lfbloom.h"
#include "lfbloom/dynamic_filter.hpp"

/// Every handle of the ABI: a filter of any kind behind the core's one interface. The destructor
/// is virtual so that a per-kind handle (below) may be freed as an lfb_handle.
struct lfb_handle {
    explicit lfb_handle(std::unique_ptr<lfbloom::dynamic_filter> filter) noexcept : impl(std::move(filter)) {}
    virtual ~lfb_handle() = default;
    std::unique_ptr<lfbloom::dynamic_filter> impl;  ///< never null in a handle a caller holds
};

// The per-kind handles of 1.0 to 1.4 are the one handle under other names (lfbloom_legacy.h).
struct lfb_filter final : lfb_handle {
    using lfb_handle::lfb_handle;
};
struct lfb_counting final : lfb_handle {
    using lfb_handle::lfb_handle;
};
struct lfb_scalable final : lfb_handle {
    using lfb_handle::lfb_handle;
};
struct lfb_rotating final : lfb_handle {
    using lfb_handle::lfb_handle;
};
struct lfb_swap final : lfb_handle {
    using lfb_handle::lfb_handle;
};

namespace lfb_capi {

/// Records `message` as this thread's last error and returns `code`.
int fail(int code, const char* message) noexcept;

/// lfb_batch_run's work on a batch read already: `progress` says how far it got, also on failure.
int run_batch(lfb_handle* handle, const lfb_batch& batch, lfbloom::batch_progress& progress) noexcept;

/// Runs an entry point's body; no exception leaves it.
template <class Body>
int guarded(Body body) noexcept {
    try {
        return body();
    } catch (const lfbloom::error& e) {
        return fail(lfbloom::status_of(e.code()), e.what());
    } catch (const std::bad_alloc&) {
        return fail(LFB_ERR_OUT_OF_MEMORY, "out of memory");
    } catch (const std::exception& e) {
        return fail(LFB_ERR_INTERNAL, e.what());
    } catch (...) {
        return fail(LFB_ERR_INTERNAL, "unknown exception");
    }
}

inline void require(bool ok, const char* message) {
    if (!ok) throw lfbloom::error(lfbloom::errc::invalid_argument, message);
}

/// The filter behind a handle of any type.
inline lfbloom::dynamic_filter& filter_of(const lfb_handle* handle) {
    require(handle != nullptr && handle->impl != nullptr, "filter handle is NULL");
    return *handle->impl;
}

/// A new handle of type Handle over what make() returns, in *out.
template <class Handle = lfb_handle, class Make>
int new_handle(Handle** out, Make make) {
    return guarded([&] {
        require(out != nullptr, "output handle pointer is NULL");
        *out = new Handle(make());
        return LFB_OK;
    });
}

/// A counting filter's width as the C ABI takes it: 4 or 8, and no default (0 was refused since 1.0).
inline void check_counter_width(lfbloom::filter_kind kind, std::uint32_t bits) {
    if (kind == lfbloom::filter_kind::counting && bits != 4 && bits != 8)
        throw lfbloom::error(lfbloom::errc::invalid_argument, "counter width must be 4 or 8 bits, got " + std::to_string(bits));
}

inline void check_rotating_flags(std::uint32_t flags) {
    require((flags & ~(LFB_ROTATING_DOUBLE_WRITE | LFB_ROTATING_MANUAL_TICK)) == 0, "unknown LFB_ROTATING_* flags");
}

/// The smallest size a struct has had: a caller compiled against that header sets it.
template <class Struct>
constexpr std::size_t first_size = sizeof(Struct);
template <>
constexpr std::size_t first_size<lfb_spec> = offsetof(lfb_spec, slots);  // 1.5 to 1.8
template <>
constexpr std::size_t first_size<lfb_info> = offsetof(lfb_info, sub_kind);  // 1.5 to 1.8
template <>
constexpr std::size_t first_size<lfb_batch> = offsetof(lfb_batch, flags);  // 1.0 to 1.10

/// A struct that starts with its size may come from an older header (its fields are read, the
/// rest of `out` keeps its defaults) or a newer one: accept that if every byte we do not know is
/// zero (the caller asked for nothing we cannot do).
template <class Struct>
void read_sized(const Struct* in, Struct& out) {
    require(in->struct_size >= first_size<Struct>, "struct_size is smaller than this struct has ever been");
    const auto* bytes = reinterpret_cast<const unsigned char*>(in);
    for (std::size_t i = sizeof(Struct); i < in->struct_size; ++i)
        if (bytes[i] != 0)
            throw lfbloom::error(lfbloom::errc::unsupported_version, "struct_size asks for fields this library does not know");
    std::memcpy(&out, in, std::min<std::size_t>(in->struct_size, sizeof(Struct)));
}

inline lfbloom::file_format format_of(std::uint32_t format) {
    require(format == LFB_FORMAT_NATIVE || format == LFB_FORMAT_GUAVA || format == LFB_FORMAT_PARQUET,
            "format must be LFB_FORMAT_NATIVE, LFB_FORMAT_GUAVA or LFB_FORMAT_PARQUET");
    return static_cast<lfbloom::file_format>(format);
}

/// Loaders of one filter from memory, a file descriptor or a path; `accepted` as lfbloom::load_filter.
inline std::unique_ptr<lfbloom::dynamic_filter> load_buffer(std::uint32_t format, const void* data, std::uint64_t len,
                                                           std::uint64_t limit, lfbloom::kind_set accepted = lfbloom::all_kinds) {
    const lfbloom::file_format fmt = format_of(format);
    require(data != nullptr || len == 0, "data is NULL but its length is not 0");
    return lfbloom::load_exact<std::unique_ptr<lfbloom::dynamic_filter>>(
        {static_cast<const std::byte*>(data), len},
        [&](const lfbloom::byte_source& s, std::uint64_t n) { return lfbloom::load_filter(fmt, s, limit, n, accepted); });
}
inline std::unique_ptr<lfbloom::dynamic_filter> load_fd(std::uint32_t format, int fd, std::uint64_t limit,
                                                       lfbloom::kind_set accepted = lfbloom::all_kinds) {
    const lfbloom::file_format fmt = format_of(format);
    require(fd >= 0, "file descriptor is negative");
    return lfbloom::load_filter(fmt, lfbloom::fd_source(fd), limit, lfbloom::fd_remaining(fd), accepted);
}
inline std::unique_ptr<lfbloom::dynamic_filter> load_path(std::uint32_t format, const char* path, std::uint64_t limit,
                                                         lfbloom::kind_set accepted = lfbloom::all_kinds) {
    const lfbloom::file_format fmt = format_of(format);
    require(path != nullptr, "path is NULL");
    return lfbloom::read_file(path, [&](const lfbloom::byte_source& s, std::uint64_t n) { return lfbloom::load_filter(fmt, s, limit, n, accepted); });
}

/// Takes over `next` for a swap: take(filter) moves the filter out of the handle once nothing can
/// fail (swappable_filter's stage and replace, make_swappable), and the emptied handle is then
/// freed. If take throws, the caller keeps `next` as it was.
template <class Take>
void adopt(lfb_handle* next, Take take) {
    lfbloom::check_swappable(filter_of(next));
    take(next->impl);
    if (next->impl == nullptr) delete next;
}

/// A swap over `initial` (taken over, see adopt), as a new handle of type Handle.
template <class Handle>
int create_swap(lfb_handle* initial, Handle** out) {
    return guarded([&] {
        require(out != nullptr, "output handle pointer is NULL");
        auto swap = std::make_unique<Handle>(nullptr);  // allocated before the filter is taken
        adopt(initial, [&](std::unique_ptr<lfbloom::dynamic_filter>& f) { swap->impl = lfbloom::make_swappable(std::move(f)); });
        *out = swap.release();
        return LFB_OK;
    });
}

}  // namespace lfb_capi
