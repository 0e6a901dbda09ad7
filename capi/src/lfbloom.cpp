// The C ABI: a thin firewall over the C++ core. Every entry point validates its arguments,
// catches everything, and maps lfbloom::error codes to LFB_ERR_* values.
#include "lfbloom.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <string>
#include <variant>

#include "lfbloom/lfbloom.hpp"

// read_only: opened by lfb_*_open_shared_file_read_only, so its words are mapped PROT_READ and
// every call that writes to them is refused (require_writable) instead of faulting.
struct lfb_filter {
    std::variant<lfbloom::blocked_bloom_filter, lfbloom::classic_bloom_filter> impl;
    bool read_only = false;
};

struct lfb_counting {
    lfbloom::counting_bloom_filter impl;
    bool read_only = false;
};

struct lfb_scalable {
    std::variant<lfbloom::scalable_bloom_filter, lfbloom::scalable_cuckoo_filter> impl;
};

struct lfb_rotating {
    lfbloom::rotating_bloom_filter impl;
};

// read_only: opened by lfb_open_shared with LFB_SHARED_READ_ONLY; lfb_add, lfb_remove and their
// batches are refused (require_writable), queries are not.
struct lfb_handle {
    lfbloom::any_filter impl;
    bool read_only = false;
};

// Since 1.9 the filters a swap holds are handles: the per-kind calls' lfb_filter becomes one as
// it is adopted (adopt), the *_any calls adopt a handle of any kind but cuckoo.
struct lfb_swap {
    lfbloom::swappable_filter<lfb_handle> impl;
};

namespace {

using lfbloom::errc;

thread_local std::string last_error;

int fail(int code, const char* message) noexcept {
    try {
        last_error = message;
    } catch (...) {
        last_error.clear();  // no memory for the message; the code still says what happened
    }
    return code;
}

int status_of(errc code) noexcept {
    switch (code) {
        case errc::invalid_argument: return LFB_ERR_INVALID_ARGUMENT;
        case errc::out_of_memory: return LFB_ERR_OUT_OF_MEMORY;
        case errc::too_large: return LFB_ERR_TOO_LARGE;
        case errc::incompatible: return LFB_ERR_INCOMPATIBLE;
        case errc::corrupt: return LFB_ERR_CORRUPT;
        case errc::unsupported_version: return LFB_ERR_UNSUPPORTED_VERSION;
        case errc::io: return LFB_ERR_IO;
        case errc::full: return LFB_ERR_FULL;
        case errc::read_only: return LFB_ERR_READ_ONLY;
        case errc::too_many_duplicates: return LFB_ERR_TOO_MANY_DUPLICATES;
        case errc::ambiguous: return LFB_ERR_AMBIGUOUS;
    }
    return LFB_ERR_INTERNAL;
}

/// Runs an entry point's body; no exception leaves it.
template <class Body>
int guarded(Body body) noexcept {
    try {
        return body();
    } catch (const lfbloom::error& e) {
        return fail(status_of(e.code()), e.what());
    } catch (const std::bad_alloc&) {
        return fail(LFB_ERR_OUT_OF_MEMORY, "out of memory");
    } catch (const std::exception& e) {
        return fail(LFB_ERR_INTERNAL, e.what());
    } catch (...) {
        return fail(LFB_ERR_INTERNAL, "unknown exception");
    }
}

void require(bool ok, const char* message) {
    if (!ok) throw lfbloom::error(errc::invalid_argument, message);
}

template <class Handle>
Handle& deref(Handle* handle) {
    require(handle != nullptr, "filter handle is NULL");
    return *handle;
}

lfbloom::key_view key_of(const void* key, std::uint64_t len) {
    require(key != nullptr || len == 0, "key is NULL but its length is not 0");
    return {static_cast<const std::byte*>(key), static_cast<std::size_t>(len)};
}

/// Keys of a batch call, validated before any is used.
struct key_batch {
    const std::byte* data;
    const std::uint64_t* offsets;
    std::uint64_t count;

    key_batch(const void* data_, const std::uint64_t* offsets_, std::uint64_t count_)
        : data(static_cast<const std::byte*>(data_)), offsets(offsets_), count(count_) {
        if (count == 0) return;
        require(offsets != nullptr, "offsets is NULL");
        for (std::uint64_t i = 0; i < count; ++i) require(offsets[i] <= offsets[i + 1], "offsets decrease");
        require(data != nullptr || offsets[count] == offsets[0], "data is NULL but the keys are not empty");
    }
    lfbloom::key_view operator()(std::size_t i) const noexcept {
        return {data + offsets[i], static_cast<std::size_t>(offsets[i + 1] - offsets[i])};
    }
};

/// The smallest size a struct has had: a caller compiled against that header sets it.
template <class Struct>
constexpr std::size_t first_size = sizeof(Struct);
template <>
constexpr std::size_t first_size<lfb_spec> = offsetof(lfb_spec, slots);  // 1.5 to 1.8

/// A struct that starts with its size may come from an older header (its fields are read, the
/// rest of `out` keeps its defaults) or a newer one: accept that if every byte we do not know is
/// zero (the caller asked for nothing we cannot do).
template <class Struct>
void read_sized(const Struct* in, Struct& out) {
    require(in->struct_size >= first_size<Struct>, "struct_size is smaller than this struct has ever been");
    const auto* bytes = reinterpret_cast<const unsigned char*>(in);
    for (std::size_t i = sizeof(Struct); i < in->struct_size; ++i)
        if (bytes[i] != 0)
            throw lfbloom::error(errc::unsupported_version, "struct_size asks for fields this library does not know");
    std::memcpy(&out, in, std::min<std::size_t>(in->struct_size, sizeof(Struct)));
}

lfb_options options_or_default(const lfb_options* options) {
    lfb_options o;
    lfb_options_init(&o);
    if (options != nullptr) read_sized(options, o);
    require((o.flags & ~LFB_OPTION_PROCESS_SHARED) == 0, "lfb_options.flags has unknown bits");
    return o;
}

/// lfb_spec_init's defaults, the 1.9 fields included.
lfb_spec default_spec() noexcept {
    lfb_spec s{};
    s.struct_size = sizeof s;
    s.kind = LFB_KIND_BLOCKED;
    s.counter_bits = 4;
    return s;
}

/// The caller's spec, of whatever version, with the defaults for fields it does not have.
lfb_spec spec_of(const lfb_spec* spec) {
    require(spec != nullptr, "spec is NULL");
    lfb_spec s = default_spec();
    read_sized(spec, s);
    return s;
}

/// The core's options from lfb_options or lfb_spec (the fields they share).
template <class Options>
lfbloom::filter_options core_options(const Options& o) {
    return {.memory_limit = o.memory_limit, .seed = o.seed, .process_shared = (o.flags & LFB_OPTION_PROCESS_SHARED) != 0};
}

/// The fields lfb_stats and lfb_info share, from a Bloom or counting filter's stats.
template <class Out>
void copy_stats(const lfbloom::filter_stats& s, Out& v) {
    v.slots = s.slots;
    v.slot_bits = s.slot_bits;
    v.hashes = s.hashes;
    v.bytes = s.bytes;
    v.capacity = s.capacity;
    v.target_fpr = s.target_fpr;
    v.slots_set = s.slots_set;
    v.saturated = s.saturated;
    v.fill_ratio = s.fill_ratio;
    v.estimated_count = s.estimated_count;
    v.near_capacity = s.near_capacity;
}

int write_stats(const lfbloom::filter_stats& s, lfb_stats* out) {
    require(out != nullptr, "stats output is NULL");
    require(out->struct_size >= sizeof(lfb_stats), "lfb_stats.struct_size is too small");
    lfb_stats v{};
    v.struct_size = sizeof(lfb_stats);
    v.layout = static_cast<std::uint32_t>(s.kind);
    copy_stats(s, v);
    v.estimated_fpr = s.estimated_fpr;
    std::memcpy(out, &v, sizeof v);  // a newer caller's extra fields stay as they were
    return LFB_OK;
}

template <class Handle, class Make>
int create(lfb_options const* options, Handle** out, Make make) {
    return guarded([&] {
        require(out != nullptr, "output handle pointer is NULL");
        *out = new Handle{make(options_or_default(options))};
        return LFB_OK;
    });
}

template <class T>
constexpr bool is_variant = false;
template <class... Ts>
constexpr bool is_variant<std::variant<Ts...>> = true;

/// Refuses to write into a handle opened read-only: its pages are mapped PROT_READ.
template <class Handle>
void require_writable(const Handle& handle) {
    if constexpr (requires { handle.read_only; })
        if (handle.read_only) throw lfbloom::error(errc::read_only, "the filter was opened read-only: it cannot be changed");
}

/// Applies `op` to the filter inside the handle (for lfb_filter, whichever layout it holds). Entry
/// points that take a non-const handle write to it, so those are refused on read-only handles.
template <class Handle, class Op>
int with_filter(Handle* handle, Op op) {
    return guarded([&] {
        if constexpr (!std::is_const_v<Handle>) require_writable(deref(handle));
        auto& impl = deref(handle).impl;
        if constexpr (is_variant<std::remove_const_t<std::remove_reference_t<decltype(impl)>>>) return std::visit(op, impl);
        else return op(impl);
    });
}

// ---- saving and loading --------------------------------------------------------------------------

/// Saves `f` in `format` (Guava only for the classic layout) to `sink`.
template <class Filter>
void save_as(const Filter& f, std::uint32_t format, const lfbloom::byte_sink& sink) {
    if (format == LFB_FORMAT_NATIVE) return lfbloom::save(f, sink);
    require(format == LFB_FORMAT_GUAVA, "format must be LFB_FORMAT_NATIVE or LFB_FORMAT_GUAVA");
    if constexpr (std::is_same_v<Filter, lfbloom::classic_bloom_filter>) return lfbloom::save_guava(f, sink);
    throw lfbloom::error(errc::incompatible, "only classic-layout filters can be saved in Guava's format");
}

template <class Filter>
std::uint64_t serialized_size(const Filter& f, std::uint32_t format) {
    if (format == LFB_FORMAT_NATIVE) return lfbloom::header_size + f.words().size() * 8 + lfbloom::trailer_size;
    require(format == LFB_FORMAT_GUAVA, "format must be LFB_FORMAT_NATIVE or LFB_FORMAT_GUAVA");
    if constexpr (std::is_same_v<Filter, lfbloom::classic_bloom_filter>) return lfbloom::guava_size(f);
    throw lfbloom::error(errc::incompatible, "only classic-layout filters can be saved in Guava's format");
}

template <class Filter>
int save_to_buffer(const Filter& f, std::uint32_t format, void* buffer, std::uint64_t capacity, std::uint64_t* written) {
    const std::uint64_t size = serialized_size(f, format);
    require(buffer != nullptr || capacity == 0, "buffer is NULL but capacity is not 0");
    if (capacity < size)
        throw lfbloom::error(errc::invalid_argument, "buffer too small: the filter needs " + std::to_string(size) + " bytes");
    auto* out = static_cast<std::byte*>(buffer);
    std::uint64_t used = 0;
    save_as(f, format, [&](const void* data, std::size_t n) {
        if (n > size - used) throw std::logic_error("serialized size mismatch");
        std::memcpy(out + used, data, n);
        used += n;
    });
    if (written != nullptr) *written = used;
    return LFB_OK;
}

template <class Filter>
int save_to_fd(const Filter& f, std::uint32_t format, int fd) {
    require(fd >= 0, "file descriptor is negative");
    save_as(f, format, lfbloom::fd_sink(fd));
    return LFB_OK;
}

template <class Filter>
int save_to_file(const Filter& f, std::uint32_t format, const char* path, std::uint32_t mode = lfbloom::default_file_mode) {
    require(path != nullptr, "path is NULL");
    lfbloom::write_file_atomically(path, [&](const lfbloom::byte_sink& sink) { save_as(f, format, sink); }, mode);
    return LFB_OK;
}

/// Why a bit filter of another layout is refused: lfb_filter holds a blocked or classic filter.
constexpr const char* not_offered = "the data holds a split-block, one-word or two-word filter, which the C API does not offer";

/// Loads one filter of kind `Handle` from `source` in `format`; `available` bytes if known.
template <class Handle>
decltype(Handle::impl) load_from(std::uint32_t format, const lfbloom::byte_source& source, std::uint64_t limit,
                                 std::uint64_t available = lfbloom::unknown_length) {
    if constexpr (std::is_same_v<Handle, lfb_counting>) {
        require(format == LFB_FORMAT_NATIVE, "counting filters have only LFB_FORMAT_NATIVE");
        return lfbloom::load<lfbloom::counting_bloom_filter>(source, limit, available);
    } else {
        if (format == LFB_FORMAT_GUAVA) return lfbloom::load_guava(source, limit, available);
        require(format == LFB_FORMAT_NATIVE, "format must be LFB_FORMAT_NATIVE or LFB_FORMAT_GUAVA");
        const lfbloom::file_header h = lfbloom::read_header(source, limit, available);
        if (h.kind == lfbloom::layout::counting)
            throw lfbloom::error(errc::incompatible, "the data holds a counting filter: use lfb_counting_load*");
        if (h.kind == lfbloom::layout::classic)
            return lfbloom::load_payload<lfbloom::classic_bloom_filter>(h, source, limit, available);
        if (h.kind != lfbloom::layout::blocked) throw lfbloom::error(errc::incompatible, not_offered);
        return lfbloom::load_payload<lfbloom::blocked_bloom_filter>(h, source, limit, available);
    }
}

template <class Handle, class Load>
int load_handle(const lfb_options* options, Handle** out, Load load) {
    return create(options, out, [&](const lfb_options& o) { return load(o.memory_limit); });
}

template <class Handle>
int load_buffer(std::uint32_t format, const void* data, std::uint64_t len, const lfb_options* options, Handle** out) {
    return load_handle(options, out, [&](std::uint64_t limit) {
        require(data != nullptr || len == 0, "data is NULL but its length is not 0");
        return lfbloom::load_exact<decltype(Handle::impl)>({static_cast<const std::byte*>(data), len},
                                                          [&](const lfbloom::byte_source& s, std::uint64_t n) { return load_from<Handle>(format, s, limit, n); });
    });
}

template <class Handle>
int load_fd(std::uint32_t format, int fd, const lfb_options* options, Handle** out) {
    return load_handle(options, out, [&](std::uint64_t limit) {
        require(fd >= 0, "file descriptor is negative");
        return load_from<Handle>(format, lfbloom::fd_source(fd), limit, lfbloom::fd_remaining(fd));
    });
}

template <class Handle>
int load_file(std::uint32_t format, const char* path, const lfb_options* options, Handle** out) {
    return load_handle(options, out, [&](std::uint64_t limit) {
        require(path != nullptr, "path is NULL");
        return lfbloom::read_file(path, [&](const lfbloom::byte_source& s, std::uint64_t n) { return load_from<Handle>(format, s, limit, n); });
    });
}

/// The filter in the shared file at `path` for a handle of kind Handle, mapped read-write or
/// read-only.
template <class Handle>
decltype(Handle::impl) open_shared(const char* path, std::uint64_t limit, bool writable) {
    require(path != nullptr, "path is NULL");
    lfbloom::any_filter any = lfbloom::detail::map_shared_file(path, limit, writable);
    if (std::holds_alternative<lfbloom::cuckoo_filter>(any))
        throw lfbloom::error(errc::incompatible, "the file holds a cuckoo filter: use lfb_open_shared");
    if constexpr (std::is_same_v<Handle, lfb_counting>) {
        auto* c = std::get_if<lfbloom::counting_bloom_filter>(&any);
        if (c == nullptr) throw lfbloom::error(errc::incompatible, "the file holds a bit filter: use lfb_filter_open_shared_file");
        return std::move(*c);
    } else {
        if (auto* b = std::get_if<lfbloom::blocked_bloom_filter>(&any)) return std::move(*b);
        if (auto* c = std::get_if<lfbloom::classic_bloom_filter>(&any)) return std::move(*c);
        if (std::holds_alternative<lfbloom::counting_bloom_filter>(any))
            throw lfbloom::error(errc::incompatible, "the file holds a counting filter: use lfb_counting_open_shared_file");
        throw lfbloom::error(errc::incompatible, not_offered);
    }
}

template <class Handle>
int open_shared_handle(const char* path, const lfb_options* options, bool writable, Handle** out) {
    return guarded([&] {
        require(out != nullptr, "output handle pointer is NULL");
        *out = new Handle{open_shared<Handle>(path, options_or_default(options).memory_limit, writable), !writable};
        return LFB_OK;
    });
}

/// Keys of a batch given as an array of lfb_key, validated before any is used.
struct key_array {
    const lfb_key* keys;

    key_array(const lfb_key* keys_, std::uint64_t count) : keys(keys_) {
        if (count == 0) return;
        require(keys != nullptr, "keys is NULL");
        for (std::uint64_t i = 0; i < count; ++i)
            require(keys[i].data != nullptr || keys[i].len == 0, "a key is NULL but its length is not 0");
    }
    lfbloom::key_view operator()(std::size_t i) const noexcept {
        return {static_cast<const std::byte*>(keys[i].data), static_cast<std::size_t>(keys[i].len)};
    }
};

/// A batch call's end: its count of 1 answers into *out when the caller asked for it.
int report_count(std::uint64_t n, std::uint64_t* out) {
    if (out != nullptr) *out = n;
    return LFB_OK;
}

/// A batch add over validated keys (key_batch or key_array).
template <class Filter, class Keys>
int add_batch(Filter& f, const Keys& keys, std::uint64_t count, std::uint8_t* results, std::uint64_t* added) {
    return report_count(f.add_many(count, keys, results), added);
}

template <class Filter, class Keys>
int contains_batch(const Filter& f, const Keys& keys, std::uint64_t count, std::uint8_t* results, std::uint64_t* found) {
    return report_count(f.contains_many(count, keys, results), found);
}

template <class Filter>
int add_many(Filter& f, const void* data, const std::uint64_t* offsets, std::uint64_t count, std::uint8_t* results,
             std::uint64_t* added) {
    return add_batch(f, key_batch(data, offsets, count), count, results, added);
}

template <class Filter>
int contains_many(const Filter& f, const void* data, const std::uint64_t* offsets, std::uint64_t count,
                  std::uint8_t* results, std::uint64_t* found) {
    return contains_batch(f, key_batch(data, offsets, count), count, results, found);
}

/// A batch add that may be refused midway (a full scalable or cuckoo filter): in chunks with our
/// own result bytes, so that a refusal still tells what was added (*added) and where it stopped
/// (*done, if not NULL: the refused key's index).
template <class Filter, class Keys>
int refusable_add_batch(Filter& f, const Keys& keys, std::uint64_t count, std::uint8_t* results, std::uint64_t* added,
                        std::uint64_t* done = nullptr) {
    constexpr std::uint8_t untouched = 2;
    std::uint8_t chunk[lfbloom::batch_size];
    std::uint64_t fresh = 0;
    for (std::uint64_t base = 0; base < count; base += lfbloom::batch_size) {
        const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(lfbloom::batch_size, count - base));
        std::memset(chunk, untouched, sizeof chunk);
        try {
            f.add_many(n, [&](std::size_t i) { return keys(base + i); }, chunk);
        } catch (const lfbloom::error&) {
            std::size_t i = 0;
            for (; i < n && chunk[i] != untouched; ++i) {
                fresh += chunk[i];
                if (results != nullptr) results[base + i] = chunk[i];
            }
            if (added != nullptr) *added = fresh;
            if (done != nullptr) *done = base + i;
            throw;
        }
        for (std::size_t i = 0; i < n; ++i) fresh += chunk[i];
        if (results != nullptr) std::memcpy(results + base, chunk, n);
    }
    return report_count(fresh, added);
}

/// Options of the composite filters (scalable, rotating): a seed and a memory limit only.
lfbloom::filter_options composite_options(const lfb_options& o) {
    require(o.flags == 0, "scalable and rotating filters take no lfb_options.flags");
    return core_options(o);
}

/// Runs a pinned call on a swap handle: op(current filter's impl, staged lfb_handle* or NULL).
template <class Swap, class Op>
int with_swap(Swap* swap, Op op) {
    return guarded([&] {
        const auto pinned = deref(swap).impl.pin();
        // During a publish a call may see staged == current (swappable_filter::add): one filter then.
        lfb_handle* staged = pinned.staged() == &*pinned ? nullptr : pinned.staged();
        return op(pinned->impl, staged);
    });
}

/// Takes over a caller's filter for a swap (which adds to it): `next` itself, or a per-kind
/// lfb_filter's contents moved into a new handle (the lfb_filter is freed once it is adopted).
/// take(owned) moves from `owned` to adopt it; if anything throws while `owned` still holds it,
/// the caller keeps its filter as it was. A cuckoo filter is refused: a swap's adds go to two
/// filters, and one of them could refuse.
template <class Next, class Take>
void adopt(Next* next, Take take) {
    require_writable(deref(next));
    std::unique_ptr<lfb_handle> owned;
    if constexpr (std::is_same_v<Next, lfb_handle>) {
        if (std::holds_alternative<lfbloom::cuckoo_filter>(next->impl))
            throw lfbloom::error(errc::incompatible, "a swap holds Bloom and counting filters, not cuckoo filters (their adds can be refused)");
        owned.reset(next);
    } else {
        owned.reset(new lfb_handle{std::visit([](auto& f) { return lfbloom::any_filter(std::move(f)); }, next->impl)});
    }
    try {
        take(owned);
    } catch (...) {
        if constexpr (std::is_same_v<Next, lfb_handle>) {
            (void)owned.release();
        } else if (owned) {  // move the contents back
            std::visit([&](auto& f) {
                if constexpr (std::is_constructible_v<decltype(next->impl), decltype(std::move(f))>) next->impl = std::move(f);
            }, owned->impl);
        }
        throw;
    }
    if constexpr (!std::is_same_v<Next, lfb_handle>) delete next;
}

/// lfb_swap_create's body, for either kind of initial filter.
template <class Initial>
int create_swap(Initial* initial, lfb_swap** out) {
    return guarded([&] {
        require(out != nullptr, "output handle pointer is NULL");
        adopt(initial, [&](std::unique_ptr<lfb_handle>& owned) {
            *out = new lfb_swap{lfbloom::swappable_filter<lfb_handle>(std::move(owned))};  // allocated before owned is moved from
        });
        return LFB_OK;
    });
}

/// lfb_swap_stage and lfb_swap_replace, for either kind of filter.
template <class Next>
int stage_swap(lfb_swap* swap, Next* next, bool publish) {
    return guarded([&] {
        auto& handle = deref(swap).impl;
        adopt(next, [&](std::unique_ptr<lfb_handle>& owned) {
            if (publish) handle.replace(std::move(owned));
            else handle.stage(std::move(owned));
        });
        return LFB_OK;
    });
}

}  // namespace

// ---- library ------------------------------------------------------------------------------------

#define LFB_STRINGIFY(x) #x
#define LFB_VERSION_TEXT(major, minor, patch) LFB_STRINGIFY(major) "." LFB_STRINGIFY(minor) "." LFB_STRINGIFY(patch)
const char* lfb_version_string(void) { return LFB_VERSION_TEXT(LFB_VERSION_MAJOR, LFB_VERSION_MINOR, LFB_VERSION_PATCH); }
uint32_t lfb_version(void) { return LFB_VERSION_MAJOR * 10000 + LFB_VERSION_MINOR * 100 + LFB_VERSION_PATCH; }
uint32_t lfb_abi_version(void) { return LFB_ABI_VERSION; }

const char* lfb_strerror(int code) {
    switch (code) {
        case LFB_OK: return "success";
        case LFB_ERR_INVALID_ARGUMENT: return "invalid argument";
        case LFB_ERR_OUT_OF_MEMORY: return "out of memory";
        case LFB_ERR_TOO_LARGE: return "filter too large for the memory limit or the machine";
        case LFB_ERR_INCOMPATIBLE: return "incompatible filters";
        case LFB_ERR_NOT_PRESENT: return "key not present";
        case LFB_ERR_CORRUPT: return "corrupt data";
        case LFB_ERR_UNSUPPORTED_VERSION: return "unsupported version";
        case LFB_ERR_IO: return "I/O error";
        case LFB_ERR_INTERNAL: return "internal error";
        case LFB_ERR_FULL: return "filter full: a scalable filter's cap on sub-filters or memory, or no free slot in a cuckoo filter";
        case LFB_ERR_READ_ONLY: return "the filter was opened read-only";
        case LFB_ERR_TOO_MANY_DUPLICATES: return "too many copies of the key's fingerprint in the cuckoo filter";
        case LFB_ERR_AMBIGUOUS: return "the key matches in two sub-filters: nothing removed, so no other key is lost";
    }
    return "unknown status";
}

const char* lfb_last_error(void) { return last_error.c_str(); }

int lfb_options_init(lfb_options* options) {
    if (options == nullptr) return fail(LFB_ERR_INVALID_ARGUMENT, "options is NULL");
    *options = lfb_options{};
    options->struct_size = sizeof(lfb_options);
    options->layout = LFB_LAYOUT_BLOCKED;
    options->counter_bits = 4;
    return LFB_OK;
}

// ---- bit filters ----------------------------------------------------------------------------------

namespace {
template <class Make>
int create_filter(const lfb_options* options, lfb_filter** out, Make make) {
    return create(options, out, [&](const lfb_options& o) -> decltype(lfb_filter::impl) {
        if (o.layout == LFB_LAYOUT_BLOCKED) return make.template operator()<lfbloom::blocked_bloom_filter>(o);
        require(o.layout == LFB_LAYOUT_CLASSIC, "layout must be LFB_LAYOUT_BLOCKED or LFB_LAYOUT_CLASSIC");
        return make.template operator()<lfbloom::classic_bloom_filter>(o);
    });
}
}  // namespace

int lfb_filter_create(uint64_t capacity, double fpr, const lfb_options* options, lfb_filter** out) {
    return create_filter(options, out, [&]<class F>(const lfb_options& o) { return F::for_capacity(capacity, fpr, core_options(o)); });
}

int lfb_filter_create_geometry(uint64_t bits, uint32_t hashes, const lfb_options* options, lfb_filter** out) {
    return create_filter(options, out, [&]<class F>(const lfb_options& o) { return F::with_geometry(bits, hashes, core_options(o)); });
}

void lfb_filter_free(lfb_filter* filter) { delete filter; }

int lfb_filter_add(lfb_filter* filter, const void* key, uint64_t len) {
    return with_filter(filter, [&](auto& f) { return int{f.add(key_of(key, len))}; });
}

int lfb_filter_contains(const lfb_filter* filter, const void* key, uint64_t len) {
    return with_filter(filter, [&](const auto& f) { return int{f.contains(key_of(key, len))}; });
}

int lfb_filter_add_many(lfb_filter* filter, const void* data, const uint64_t* offsets, uint64_t count, uint8_t* results,
                        uint64_t* added) {
    return with_filter(filter, [&](auto& f) { return add_many(f, data, offsets, count, results, added); });
}

int lfb_filter_contains_many(const lfb_filter* filter, const void* data, const uint64_t* offsets, uint64_t count,
                             uint8_t* results, uint64_t* found) {
    return with_filter(filter, [&](const auto& f) { return contains_many(f, data, offsets, count, results, found); });
}

int lfb_filter_add_keys(lfb_filter* filter, const lfb_key* keys, uint64_t count, uint8_t* results, uint64_t* added) {
    return with_filter(filter, [&](auto& f) { return add_batch(f, key_array(keys, count), count, results, added); });
}

int lfb_filter_contains_keys(const lfb_filter* filter, const lfb_key* keys, uint64_t count, uint8_t* results,
                             uint64_t* found) {
    return with_filter(filter, [&](const auto& f) { return contains_batch(f, key_array(keys, count), count, results, found); });
}

int lfb_filter_clear(lfb_filter* filter) {
    return with_filter(filter, [](auto& f) { return f.clear(), LFB_OK; });
}

int lfb_filter_merge(lfb_filter* dst, const lfb_filter* src) {
    return guarded([&] {
        require_writable(deref(dst));
        const auto& from = deref(src).impl;
        return std::visit(
            [&](auto& f) {
                using F = std::decay_t<decltype(f)>;
                const F* other = std::get_if<F>(&from);
                if (other == nullptr) throw lfbloom::error(errc::incompatible, "cannot merge filters of different layouts");
                f.merge(*other);
                return LFB_OK;
            },
            deref(dst).impl);
    });
}

int lfb_filter_stats(const lfb_filter* filter, lfb_stats* out) {
    return with_filter(filter, [&](const auto& f) { return write_stats(f.stats(), out); });
}

namespace {

/// Where a bit filter's words live (lfb_filter_bit_array, lfb_bit_array_get).
template <class Handle>
int bit_array_of(const Handle* handle, lfb_bit_array* out) {
    return with_filter(handle, [&](const auto& f) -> int {
        using F = std::decay_t<decltype(f)>;
        if constexpr (F::kind == lfbloom::layout::counting || F::kind == lfbloom::layout::cuckoo) {
            throw lfbloom::error(errc::incompatible, "only Bloom filters of one-bit slots have a bit array");
        } else {
            require_writable(*handle);  // whoever takes the words may add through them
            require(out != nullptr, "bit array output is NULL");
            // A 1.2 caller's struct ends before probe_rule: it knows rule 1 only, and would compute
            // another rule's bits wrongly (false negatives), so it gets no words for such a filter.
            constexpr std::size_t size_1_2 = offsetof(lfb_bit_array, probe_rule);
            require(out->struct_size >= size_1_2, "lfb_bit_array.struct_size is too small");
            const auto rule = static_cast<std::uint32_t>(f.probes());
            if (out->struct_size < sizeof(lfb_bit_array) && rule != static_cast<std::uint32_t>(lfbloom::probe_rule::fields))
                throw lfbloom::error(errc::unsupported_version, "the filter's probe rule " + std::to_string(rule) +
                                                                    " needs an lfb_bit_array of lfbloom 1.4 or later");
            lfb_bit_array v{};
            v.struct_size = static_cast<std::uint32_t>(std::min<std::size_t>(out->struct_size, sizeof(lfb_bit_array)));
            v.layout = static_cast<std::uint32_t>(f.kind);
            v.words = f.words().data();
            v.bits = f.shape().slots;
            v.seed = f.seed();
            v.hashes = f.shape().hashes;
            v.probe_rule = rule;
            std::memcpy(out, &v, v.struct_size);  // an older caller's struct gets its fields only, a newer one's extra fields stay
            return LFB_OK;
        }
    });
}

}  // namespace

int lfb_filter_bit_array(const lfb_filter* filter, lfb_bit_array* out) { return bit_array_of(filter, out); }

int lfb_filter_serialized_size(const lfb_filter* filter, uint32_t format, uint64_t* size) {
    return with_filter(filter, [&](const auto& f) {
        require(size != nullptr, "size is NULL");
        *size = serialized_size(f, format);
        return LFB_OK;
    });
}

int lfb_filter_save(const lfb_filter* filter, uint32_t format, void* buffer, uint64_t capacity, uint64_t* written) {
    return with_filter(filter, [&](const auto& f) { return save_to_buffer(f, format, buffer, capacity, written); });
}

int lfb_filter_save_fd(const lfb_filter* filter, uint32_t format, int fd) {
    return with_filter(filter, [&](const auto& f) { return save_to_fd(f, format, fd); });
}

int lfb_filter_save_file(const lfb_filter* filter, uint32_t format, const char* path) {
    return with_filter(filter, [&](const auto& f) { return save_to_file(f, format, path); });
}

int lfb_filter_load(uint32_t format, const void* data, uint64_t len, const lfb_options* options, lfb_filter** out) {
    return load_buffer(format, data, len, options, out);
}

int lfb_filter_load_fd(uint32_t format, int fd, const lfb_options* options, lfb_filter** out) {
    return load_fd(format, fd, options, out);
}

int lfb_filter_load_file(uint32_t format, const char* path, const lfb_options* options, lfb_filter** out) {
    return load_file(format, path, options, out);
}

int lfb_filter_create_shared_file(const char* path, uint64_t capacity, double fpr, const lfb_options* options,
                                  lfb_filter** out) {
    return lfb_filter_create_shared_file_mode(path, capacity, fpr, options, lfbloom::default_file_mode, out);
}

int lfb_filter_open_shared_file(const char* path, const lfb_options* options, lfb_filter** out) {
    return open_shared_handle(path, options, true, out);
}

int lfb_filter_save_file_mode(const lfb_filter* filter, uint32_t format, const char* path, uint32_t mode) {
    return with_filter(filter, [&](const auto& f) { return save_to_file(f, format, path, mode); });
}

int lfb_filter_create_shared_file_mode(const char* path, uint64_t capacity, double fpr, const lfb_options* options,
                                       uint32_t mode, lfb_filter** out) {
    return create_filter(options, out, [&]<class F>(const lfb_options& o) {
        require(path != nullptr, "path is NULL");
        return lfbloom::create_shared_file<F>(path, F::size_for(capacity, fpr), core_options(o), 4, mode);
    });
}

int lfb_filter_open_shared_file_read_only(const char* path, const lfb_options* options, lfb_filter** out) {
    return open_shared_handle(path, options, false, out);
}

int lfb_filter_flush(const lfb_filter* filter) {
    return with_filter(filter, [](const auto& f) { return f.flush(), LFB_OK; });
}

// ---- counting filters -----------------------------------------------------------------------------

int lfb_counting_create(uint64_t capacity, double fpr, const lfb_options* options, lfb_counting** out) {
    return create(options, out, [&](const lfb_options& o) {
        return lfbloom::counting_bloom_filter::for_capacity(capacity, fpr, o.counter_bits, core_options(o));
    });
}

int lfb_counting_create_geometry(uint64_t counters, uint32_t hashes, const lfb_options* options, lfb_counting** out) {
    return create(options, out, [&](const lfb_options& o) {
        return lfbloom::counting_bloom_filter::with_geometry(counters, hashes, o.counter_bits, core_options(o));
    });
}

void lfb_counting_free(lfb_counting* filter) { delete filter; }

int lfb_counting_add(lfb_counting* filter, const void* key, uint64_t len) {
    return with_filter(filter, [&](auto& f) { return int{f.add(key_of(key, len))}; });
}

int lfb_counting_contains(const lfb_counting* filter, const void* key, uint64_t len) {
    return with_filter(filter, [&](const auto& f) { return int{f.contains(key_of(key, len))}; });
}

int lfb_counting_remove(lfb_counting* filter, const void* key, uint64_t len) {
    return with_filter(filter, [&](auto& f) {
        return f.remove(key_of(key, len)) ? LFB_OK : fail(LFB_ERR_NOT_PRESENT, "key not present: nothing removed");
    });
}

int lfb_counting_count(const lfb_counting* filter, const void* key, uint64_t len) {
    return with_filter(filter, [&](const auto& f) { return static_cast<int>(f.count(key_of(key, len))); });
}

int lfb_counting_add_many(lfb_counting* filter, const void* data, const uint64_t* offsets, uint64_t count,
                          uint8_t* results, uint64_t* added) {
    return with_filter(filter, [&](auto& f) { return add_many(f, data, offsets, count, results, added); });
}

int lfb_counting_contains_many(const lfb_counting* filter, const void* data, const uint64_t* offsets, uint64_t count,
                               uint8_t* results, uint64_t* found) {
    return with_filter(filter, [&](const auto& f) { return contains_many(f, data, offsets, count, results, found); });
}

int lfb_counting_add_keys(lfb_counting* filter, const lfb_key* keys, uint64_t count, uint8_t* results, uint64_t* added) {
    return with_filter(filter, [&](auto& f) { return add_batch(f, key_array(keys, count), count, results, added); });
}

int lfb_counting_contains_keys(const lfb_counting* filter, const lfb_key* keys, uint64_t count, uint8_t* results,
                               uint64_t* found) {
    return with_filter(filter, [&](const auto& f) { return contains_batch(f, key_array(keys, count), count, results, found); });
}

int lfb_counting_remove_many(lfb_counting* filter, const void* data, const uint64_t* offsets, uint64_t count,
                             uint8_t* results, uint64_t* removed) {
    return with_filter(filter, [&](auto& f) { return report_count(f.remove_many(count, key_batch(data, offsets, count), results), removed); });
}

int lfb_counting_remove_keys(lfb_counting* filter, const lfb_key* keys, uint64_t count, uint8_t* results,
                             uint64_t* removed) {
    return with_filter(filter, [&](auto& f) { return report_count(f.remove_many(count, key_array(keys, count), results), removed); });
}

int lfb_counting_clear(lfb_counting* filter) {
    return with_filter(filter, [](auto& f) { return f.clear(), LFB_OK; });
}

int lfb_counting_merge(lfb_counting* dst, const lfb_counting* src) {
    return guarded([&] {
        require_writable(deref(dst));
        deref(dst).impl.merge(deref(src).impl);
        return LFB_OK;
    });
}

int lfb_counting_stats(const lfb_counting* filter, lfb_stats* out) {
    return with_filter(filter, [&](const auto& f) { return write_stats(f.stats(), out); });
}

int lfb_counting_serialized_size(const lfb_counting* filter, uint64_t* size) {
    return with_filter(filter, [&](const auto& f) {
        require(size != nullptr, "size is NULL");
        *size = serialized_size(f, LFB_FORMAT_NATIVE);
        return LFB_OK;
    });
}

int lfb_counting_save(const lfb_counting* filter, void* buffer, uint64_t capacity, uint64_t* written) {
    return with_filter(filter, [&](const auto& f) { return save_to_buffer(f, LFB_FORMAT_NATIVE, buffer, capacity, written); });
}

int lfb_counting_save_fd(const lfb_counting* filter, int fd) {
    return with_filter(filter, [&](const auto& f) { return save_to_fd(f, LFB_FORMAT_NATIVE, fd); });
}

int lfb_counting_save_file(const lfb_counting* filter, const char* path) {
    return with_filter(filter, [&](const auto& f) { return save_to_file(f, LFB_FORMAT_NATIVE, path); });
}

int lfb_counting_load(const void* data, uint64_t len, const lfb_options* options, lfb_counting** out) {
    return load_buffer(LFB_FORMAT_NATIVE, data, len, options, out);
}

int lfb_counting_load_fd(int fd, const lfb_options* options, lfb_counting** out) {
    return load_fd(LFB_FORMAT_NATIVE, fd, options, out);
}

int lfb_counting_load_file(const char* path, const lfb_options* options, lfb_counting** out) {
    return load_file(LFB_FORMAT_NATIVE, path, options, out);
}

int lfb_counting_create_shared_file(const char* path, uint64_t capacity, double fpr, const lfb_options* options,
                                    lfb_counting** out) {
    return lfb_counting_create_shared_file_mode(path, capacity, fpr, options, lfbloom::default_file_mode, out);
}

int lfb_counting_open_shared_file(const char* path, const lfb_options* options, lfb_counting** out) {
    return open_shared_handle(path, options, true, out);
}

int lfb_counting_save_file_mode(const lfb_counting* filter, const char* path, uint32_t mode) {
    return with_filter(filter, [&](const auto& f) { return save_to_file(f, LFB_FORMAT_NATIVE, path, mode); });
}

int lfb_counting_create_shared_file_mode(const char* path, uint64_t capacity, double fpr, const lfb_options* options,
                                         uint32_t mode, lfb_counting** out) {
    return create(options, out, [&](const lfb_options& o) {
        require(path != nullptr, "path is NULL");
        const std::uint32_t per_line = lfbloom::counting_bloom_filter::slots_per_line(o.counter_bits);
        return lfbloom::create_shared_file<lfbloom::counting_bloom_filter>(
            path, lfbloom::blocked_geometry(capacity, fpr, per_line), core_options(o), o.counter_bits, mode);
    });
}

int lfb_counting_open_shared_file_read_only(const char* path, const lfb_options* options, lfb_counting** out) {
    return open_shared_handle(path, options, false, out);
}

int lfb_counting_flush(const lfb_counting* filter) {
    return with_filter(filter, [](const auto& f) { return f.flush(), LFB_OK; });
}

// ---- scalable filters -----------------------------------------------------------------------------

int lfb_scalable_create(uint64_t initial_capacity, double fpr, double growth, double tightening, uint32_t max_filters,
                        const lfb_options* options, lfb_scalable** out) {
    return guarded([&] {
        require(out != nullptr, "output handle pointer is NULL");
        const lfb_options given = options_or_default(options);
        require(given.layout == LFB_LAYOUT_BLOCKED || given.layout == LFB_LAYOUT_CUCKOO,
                "scalable filters have blocked or cuckoo sub-filters (LFB_LAYOUT_BLOCKED or LFB_LAYOUT_CUCKOO)");
        lfbloom::scalable_options o;
        o.filter = composite_options(given);
        if (growth != 0) o.growth = growth;
        if (tightening != 0) o.tightening = tightening;
        if (max_filters != 0) o.max_filters = max_filters;
        using kinds = decltype(lfb_scalable::impl);
        *out = given.layout == LFB_LAYOUT_CUCKOO
                   ? new lfb_scalable{kinds(std::in_place_type<lfbloom::scalable_cuckoo_filter>, initial_capacity, fpr, o)}
                   : new lfb_scalable{kinds(std::in_place_type<lfbloom::scalable_bloom_filter>, initial_capacity, fpr, o)};
        return LFB_OK;
    });
}

void lfb_scalable_free(lfb_scalable* filter) { delete filter; }

int lfb_scalable_add(lfb_scalable* filter, const void* key, uint64_t len) {
    return with_filter(filter, [&](auto& f) { return int{f.add(key_of(key, len))}; });
}

int lfb_scalable_contains(const lfb_scalable* filter, const void* key, uint64_t len) {
    return with_filter(filter, [&](const auto& f) { return int{f.contains(key_of(key, len))}; });
}

int lfb_scalable_add_many(lfb_scalable* filter, const void* data, const uint64_t* offsets, uint64_t count,
                          uint8_t* results, uint64_t* added) {
    return with_filter(filter, [&](auto& f) { return refusable_add_batch(f, key_batch(data, offsets, count), count, results, added); });
}

int lfb_scalable_add_keys(lfb_scalable* filter, const lfb_key* keys, uint64_t count, uint8_t* results, uint64_t* added) {
    return with_filter(filter, [&](auto& f) { return refusable_add_batch(f, key_array(keys, count), count, results, added); });
}

int lfb_scalable_contains_keys(const lfb_scalable* filter, const lfb_key* keys, uint64_t count, uint8_t* results,
                               uint64_t* found) {
    return with_filter(filter, [&](const auto& f) { return contains_batch(f, key_array(keys, count), count, results, found); });
}

int lfb_scalable_contains_many(const lfb_scalable* filter, const void* data, const uint64_t* offsets, uint64_t count,
                               uint8_t* results, uint64_t* found) {
    return with_filter(filter, [&](const auto& f) { return contains_many(f, data, offsets, count, results, found); });
}

int lfb_scalable_filters(const lfb_scalable* filter) {
    return with_filter(filter, [](const auto& f) { return static_cast<int>(f.filters()); });
}

int lfb_scalable_stats(const lfb_scalable* filter, lfb_stats* out) {
    return with_filter(filter, [&](const auto& f) { return write_stats(f.stats(), out); });
}

int lfb_scalable_filter_stats(const lfb_scalable* filter, uint32_t index, lfb_stats* out, uint64_t* items) {
    return with_filter(filter, [&](const auto& f) {
        const lfbloom::sub_filter_stats s = f.stats(index);
        write_stats(s.filter, out);
        if (items != nullptr) *items = s.items;
        return LFB_OK;
    });
}

int lfb_scalable_remove(lfb_scalable* filter, const void* key, uint64_t len) {
    return with_filter(filter, [&]<class F>(F& f) -> int {
        if constexpr (!F::removes) {
            throw lfbloom::error(errc::incompatible, "only a scalable filter of cuckoo sub-filters removes keys");
        } else {
            const lfbloom::remove_status r = f.erase(key_of(key, len));
            if (r == lfbloom::remove_status::ambiguous)
                throw lfbloom::error(errc::ambiguous, "the key matches in more than one sub-filter: removing a copy could "
                                                      "remove another key's, so nothing was removed");
            return int{r == lfbloom::remove_status::removed};
        }
    });
}

int lfb_scalable_ambiguous_removes(const lfb_scalable* filter, uint64_t* out) {
    return with_filter(filter, [&](const auto& f) {
        require(out != nullptr, "output pointer is NULL");
        *out = f.ambiguous_removes();
        return LFB_OK;
    });
}

// ---- rotating filters -----------------------------------------------------------------------------

int lfb_rotating_create(uint64_t capacity, double fpr, uint32_t generations, uint64_t period_ns, uint32_t flags,
                        const lfb_options* options, lfb_rotating** out) {
    return guarded([&] {
        require(out != nullptr, "output handle pointer is NULL");
        require((flags & ~(LFB_ROTATING_DOUBLE_WRITE | LFB_ROTATING_MANUAL_TICK)) == 0, "unknown LFB_ROTATING_* flags");
        const lfb_options given = options_or_default(options);
        require(given.layout == LFB_LAYOUT_BLOCKED, "rotating filters use the blocked layout only");
        lfbloom::rotating_options o;
        o.filter = composite_options(given);
        o.generations = generations;
        o.double_write = (flags & LFB_ROTATING_DOUBLE_WRITE) != 0;
        o.period_ns = period_ns;
        if ((flags & LFB_ROTATING_MANUAL_TICK) != 0) {
            o.clock = [] { return std::uint64_t{0}; };  // the caller's clock starts at 0 now
            o.auto_tick = false;
        }
        *out = new lfb_rotating{lfbloom::rotating_bloom_filter(capacity, fpr, std::move(o))};
        return LFB_OK;
    });
}

void lfb_rotating_free(lfb_rotating* filter) { delete filter; }

int lfb_rotating_add(lfb_rotating* filter, const void* key, uint64_t len) {
    return with_filter(filter, [&](auto& f) { return int{f.add(key_of(key, len))}; });
}

int lfb_rotating_contains(const lfb_rotating* filter, const void* key, uint64_t len) {
    return with_filter(filter, [&](const auto& f) { return int{f.contains(key_of(key, len))}; });
}

int lfb_rotating_add_many(lfb_rotating* filter, const void* data, const uint64_t* offsets, uint64_t count,
                          uint8_t* results, uint64_t* added) {
    return with_filter(filter, [&](auto& f) { return add_many(f, data, offsets, count, results, added); });
}

int lfb_rotating_contains_many(const lfb_rotating* filter, const void* data, const uint64_t* offsets, uint64_t count,
                               uint8_t* results, uint64_t* found) {
    return with_filter(filter, [&](const auto& f) { return contains_many(f, data, offsets, count, results, found); });
}

int lfb_rotating_add_keys(lfb_rotating* filter, const lfb_key* keys, uint64_t count, uint8_t* results, uint64_t* added) {
    return with_filter(filter, [&](auto& f) { return add_batch(f, key_array(keys, count), count, results, added); });
}

int lfb_rotating_contains_keys(const lfb_rotating* filter, const lfb_key* keys, uint64_t count, uint8_t* results,
                               uint64_t* found) {
    return with_filter(filter, [&](const auto& f) { return contains_batch(f, key_array(keys, count), count, results, found); });
}

int lfb_rotating_rotate(lfb_rotating* filter) {
    return with_filter(filter, [](auto& f) { return f.rotate(), LFB_OK; });
}

int lfb_rotating_tick(lfb_rotating* filter, uint64_t now_ns) {
    return with_filter(filter, [&](auto& f) { return f.tick(now_ns), LFB_OK; });
}

int lfb_rotating_rotations(const lfb_rotating* filter, uint64_t* out) {
    return with_filter(filter, [&](const auto& f) {
        require(out != nullptr, "output is NULL");
        *out = f.rotations();
        return LFB_OK;
    });
}

int lfb_rotating_stats(const lfb_rotating* filter, uint32_t age, lfb_stats* out) {
    return with_filter(filter, [&](const auto& f) { return write_stats(f.stats(age), out); });
}

// ---- hot-swappable filters ------------------------------------------------------------------------

int lfb_swap_create(lfb_filter* initial, lfb_swap** out) { return create_swap(initial, out); }

void lfb_swap_free(lfb_swap* swap) { delete swap; }

int lfb_swap_add(lfb_swap* swap, const void* key, uint64_t len) {
    return with_swap(swap, [&](auto& current, lfb_handle* staged) {
        const lfbloom::key_view k = key_of(key, len);
        if (staged != nullptr) std::visit([&](auto& f) { f.add(k); }, staged->impl);
        return std::visit([&](auto& f) { return int{f.add(k)}; }, current);
    });
}

int lfb_swap_contains(const lfb_swap* swap, const void* key, uint64_t len) {
    return with_swap(swap, [&](const auto& current, lfb_handle*) {
        return std::visit([&](const auto& f) { return int{f.contains(key_of(key, len))}; }, current);
    });
}

int lfb_swap_add_many(lfb_swap* swap, const void* data, const uint64_t* offsets, uint64_t count, uint8_t* results,
                      uint64_t* added) {
    return with_swap(swap, [&](auto& current, lfb_handle* staged) {
        const key_batch keys(data, offsets, count);
        if (staged != nullptr) std::visit([&](auto& f) { add_batch(f, keys, count, nullptr, nullptr); }, staged->impl);
        return std::visit([&](auto& f) { return add_batch(f, keys, count, results, added); }, current);
    });
}

int lfb_swap_add_keys(lfb_swap* swap, const lfb_key* keys, uint64_t count, uint8_t* results, uint64_t* added) {
    return with_swap(swap, [&](auto& current, lfb_handle* staged) {
        const key_array array(keys, count);
        if (staged != nullptr) std::visit([&](auto& f) { add_batch(f, array, count, nullptr, nullptr); }, staged->impl);
        return std::visit([&](auto& f) { return add_batch(f, array, count, results, added); }, current);
    });
}

int lfb_swap_contains_many(const lfb_swap* swap, const void* data, const uint64_t* offsets, uint64_t count,
                           uint8_t* results, uint64_t* found) {
    return with_swap(swap, [&](const auto& current, lfb_handle*) {
        return std::visit([&](const auto& f) { return contains_many(f, data, offsets, count, results, found); }, current);
    });
}

int lfb_swap_contains_keys(const lfb_swap* swap, const lfb_key* keys, uint64_t count, uint8_t* results, uint64_t* found) {
    return with_swap(swap, [&](const auto& current, lfb_handle*) {
        return std::visit([&](const auto& f) { return contains_batch(f, key_array(keys, count), count, results, found); },
                          current);
    });
}

int lfb_swap_stage(lfb_swap* swap, lfb_filter* next) { return stage_swap(swap, next, false); }

int lfb_swap_add_staged(lfb_swap* swap, const void* key, uint64_t len) {
    return with_swap(swap, [&](auto&, lfb_handle* staged) {
        require(staged != nullptr, "nothing is staged: call lfb_swap_stage first");
        return std::visit([&](auto& f) { return int{f.add(key_of(key, len))}; }, staged->impl);
    });
}

int lfb_swap_add_many_staged(lfb_swap* swap, const void* data, const uint64_t* offsets, uint64_t count, uint64_t* added) {
    return with_swap(swap, [&](auto&, lfb_handle* staged) {
        require(staged != nullptr, "nothing is staged: call lfb_swap_stage first");
        return std::visit([&](auto& f) { return add_many(f, data, offsets, count, nullptr, added); }, staged->impl);
    });
}

int lfb_swap_publish(lfb_swap* swap) {
    return guarded([&] { return deref(swap).impl.publish(), LFB_OK; });
}

int lfb_swap_replace(lfb_swap* swap, lfb_filter* next) { return stage_swap(swap, next, true); }

int lfb_swap_stats(const lfb_swap* swap, lfb_stats* out) {
    return with_swap(swap, [&](const auto& current, lfb_handle*) {
        return std::visit([&](const auto& f) { return write_stats(lfbloom::as_filter_stats(f.stats()), out); }, current);
    });
}

int lfb_swap_generation(const lfb_swap* swap, uint64_t* out) {
    return guarded([&] {
        const auto& handle = deref(swap).impl;
        require(out != nullptr, "output is NULL");
        *out = handle.generation();
        return LFB_OK;
    });
}

// ---- any filter (1.5) ---------------------------------------------------------------------------

namespace {

/// Whether filter type F removes and counts keys (counting and cuckoo filters).
template <class F>
constexpr bool removes = requires(F& f, lfbloom::key_view k) { f.remove(k); };

/// Returns fn.template operator()<F>() for the filter type F of spec `s`.
template <class R, class Fn>
R with_spec_kind(const lfb_spec& s, Fn fn) {
    switch (s.kind) {
        case LFB_KIND_CLASSIC: return fn.template operator()<lfbloom::classic_bloom_filter>();
        case LFB_KIND_BLOCKED: return fn.template operator()<lfbloom::blocked_bloom_filter>();
        case LFB_KIND_COUNTING: return fn.template operator()<lfbloom::counting_bloom_filter>();
        case LFB_KIND_SPLIT_BLOCK: return fn.template operator()<lfbloom::split_block_bloom_filter>();
        case LFB_KIND_ONE_WORD: return fn.template operator()<lfbloom::one_word_bloom_filter>();
        case LFB_KIND_TWO_WORD: return fn.template operator()<lfbloom::two_word_bloom_filter>();
        case LFB_KIND_CUCKOO: return fn.template operator()<lfbloom::cuckoo_filter>();
        default: break;
    }
    throw lfbloom::error(errc::invalid_argument, "lfb_spec.kind is not an enum lfb_kind value");
}

/// A cuckoo spec's fingerprint width: 14, 16 or 17, or 0 (the fewest bytes) for 0 and
/// lfb_spec_init's 4 (lfbloom.h).
std::uint32_t cuckoo_bits(const lfb_spec& s) {
    if (s.counter_bits == 0 || s.counter_bits == 4) return 0;
    require(lfbloom::cuckoo_filter::slots_for(s.counter_bits) != 0,
            "lfb_spec.counter_bits of a cuckoo filter is its fingerprint width: 14, 16 or 17 (or 0: the smallest)");
    return s.counter_bits;
}

/// The geometry lfb_create(s) gives a filter of type F, and its plan; neither allocates.
/// From (capacity, fpr), or since 1.9 an exact (slots, hashes) when slots is set (lfbloom.h).
template <class F>
lfbloom::geometry spec_geometry(const lfb_spec& s) {
    require(s.reserved == 0, "lfb_spec.reserved must be 0");
    constexpr bool counting = F::kind == lfbloom::layout::counting, cuckoo = F::kind == lfbloom::layout::cuckoo;
    if (s.slots == 0) {
        require(s.hashes == 0, "lfb_spec.hashes is set but slots is not (give both for an exact geometry)");
        if constexpr (counting) return F::size_for(s.capacity, s.fpr, s.counter_bits);
        else if constexpr (cuckoo) return F::size_for(s.capacity, s.fpr, cuckoo_bits(s));
        else return F::size_for(s.capacity, s.fpr);
    }
    require(s.capacity == 0 && s.fpr == 0, "lfb_spec gives both a geometry (slots) and a sizing (capacity, fpr)");
    if constexpr (counting) return F::exact(s.slots, s.hashes, s.counter_bits);
    else if constexpr (cuckoo) throw lfbloom::error(errc::invalid_argument, "a cuckoo filter is sized from capacity and fpr, not slots");
    else return F::exact(s.slots, s.hashes);
}
template <class F>
lfbloom::filter_stats spec_plan(const lfb_spec& s) {
    const lfbloom::geometry g = spec_geometry<F>(s);
    if constexpr (F::kind == lfbloom::layout::counting) return F::plan(g, s.counter_bits);
    else if constexpr (F::kind == lfbloom::layout::cuckoo) return F::plan(s.capacity, s.fpr, cuckoo_bits(s));
    else return F::plan(g);
}

lfbloom::any_filter make_any(const lfb_spec& s) {
    require((s.flags & ~LFB_OPTION_PROCESS_SHARED) == 0, "lfb_spec.flags has unknown bits");
    const lfbloom::filter_options o = core_options(s);
    return with_spec_kind<lfbloom::any_filter>(s, [&]<class F>() -> lfbloom::any_filter {
        const lfbloom::geometry g = spec_geometry<F>(s);
        if constexpr (F::kind == lfbloom::layout::counting) return F(g, s.counter_bits, o);
        else if constexpr (F::kind == lfbloom::layout::cuckoo) return F::for_capacity(s.capacity, s.fpr, cuckoo_bits(s), o);
        else return F(g, o);
    });
}

/// lfb_open_shared's filter (see lfbloom.h for the flags).
lfbloom::any_filter open_shared_any(const char* path, const lfb_spec* spec, std::uint32_t flags, std::uint32_t mode) {
    require(path != nullptr, "path is NULL");
    require((flags & ~(LFB_SHARED_CREATE | LFB_SHARED_EXCLUSIVE | LFB_SHARED_READ_ONLY)) == 0, "flags has unknown bits");
    const bool create = (flags & LFB_SHARED_CREATE) != 0, writable = (flags & LFB_SHARED_READ_ONLY) == 0;
    require(create || (flags & LFB_SHARED_EXCLUSIVE) == 0, "LFB_SHARED_EXCLUSIVE needs LFB_SHARED_CREATE");
    require(!create || writable, "a read-only opener cannot create the file");
    require(!create || spec != nullptr, "creating a shared file needs a spec");
    if (create) lfbloom::detail::check_mode(mode);
    if (spec == nullptr) return lfbloom::detail::map_shared_file(path, 0, writable);
    const lfb_spec s = spec_of(spec);
    require(s.flags == 0, "lfb_spec.flags must be 0 for a shared file (it is shared already)");
    const lfbloom::filter_options o = core_options(s);
    return with_spec_kind<lfbloom::any_filter>(s, [&]<class F>() -> lfbloom::any_filter {
        const lfbloom::geometry g = spec_geometry<F>(s);
        constexpr bool cuckoo = F::kind == lfbloom::layout::cuckoo;
        if ((flags & LFB_SHARED_EXCLUSIVE) != 0) return lfbloom::create_shared_file<F>(path, g, o, s.counter_bits, mode);
        if (create) {
            // A cuckoo spec that leaves the width to the rate also opens a file it made with
            // another width (before 1.7 every cuckoo file was 16 bits): open_or_create_shared_cuckoo.
            if constexpr (cuckoo) return lfbloom::open_or_create_shared_cuckoo(path, s.capacity, s.fpr, cuckoo_bits(s), o, mode);
            else return lfbloom::open_or_create_shared_file<F>(path, g, o, s.counter_bits, mode);
        }
        lfbloom::any_filter any = lfbloom::detail::map_shared_file(path, o.memory_limit, writable);
        if constexpr (cuckoo) (void)lfbloom::detail::expect_cuckoo(any, path, s.capacity, s.fpr, cuckoo_bits(s), o);
        else (void)lfbloom::detail::expect_filter<F>(any, path, g, o, s.counter_bits);
        return any;
    });
}

/// with_filter without its up-front refusal of read-only handles, for lfb_batch_run: a batch of
/// queries runs on one, so the batch checks its operation itself.
int with_any_op(lfb_handle* handle, auto op) {
    return guarded([&] { return std::visit(op, deref(handle).impl); });
}

[[noreturn]] void no_removes() {
    throw lfbloom::error(errc::incompatible, "only counting and cuckoo filters remove and count keys");
}

/// The keys of a batch descriptor, in either shape, validated.
template <class Run>
int with_batch_keys(const lfb_batch& b, Run run) {
    const bool as_array = b.keys != nullptr;
    require(!as_array || (b.data == nullptr && b.offsets == nullptr), "lfb_batch gives keys both as an array and as a buffer");
    if (as_array) return run(key_array(b.keys, b.count));
    return run(key_batch(b.data, b.offsets, b.count));
}

/// Writes v to *out, whose struct_size must cover it; a newer caller's extra fields stay as they were.
int write_info(lfb_info v, lfb_info* out) {
    require(out != nullptr, "info output is NULL");
    require(out->struct_size >= sizeof(lfb_info), "lfb_info.struct_size is too small");
    v.struct_size = sizeof(lfb_info);
    std::memcpy(out, &v, sizeof v);
    return LFB_OK;
}

template <class Filter>
int info_of(const Filter& f, lfb_info* out) {
    lfb_info v{};
    v.kind = static_cast<std::uint32_t>(Filter::kind);
    v.seed = f.seed();
    if constexpr (Filter::kind == lfbloom::layout::cuckoo) {
        const lfbloom::cuckoo_stats s = f.stats();
        copy_stats(lfbloom::as_filter_stats(s), v);
        v.expected_fpr = s.expected_fpr;
        v.kicks = s.kicks;
        v.failed_adds = s.failed_inserts;
        v.duplicate_refusals = s.duplicate_refusals;
        v.reader_retries = s.reader_retries;
        v.reader_gave_up = s.reader_gave_up;
    } else {
        const lfbloom::filter_stats s = f.stats();
        copy_stats(s, v);
        v.expected_fpr = s.estimated_fpr;
    }
    return write_info(v, out);
}

/// Any filter from `source` in `format`.
lfbloom::any_filter load_any_format(std::uint32_t format, const lfbloom::byte_source& source, std::uint64_t limit,
                                    std::uint64_t available) {
    if (format == LFB_FORMAT_GUAVA) return lfbloom::load_guava(source, limit, available);
    require(format == LFB_FORMAT_NATIVE, "format must be LFB_FORMAT_NATIVE or LFB_FORMAT_GUAVA");
    return lfbloom::load_any(source, limit, available);
}

template <class Make>
int new_handle(lfb_handle** out, Make make, bool read_only = false) {
    return guarded([&] {
        require(out != nullptr, "output handle pointer is NULL");
        *out = new lfb_handle{make(), read_only};
        return LFB_OK;
    });
}

}  // namespace

int lfb_spec_init(lfb_spec* spec) {
    if (spec == nullptr) return fail(LFB_ERR_INVALID_ARGUMENT, "spec is NULL");
    // Its callers may have compiled (or, through an FFI, declared) the 1.5 struct: only its bytes are theirs.
    lfb_spec s = default_spec();
    s.struct_size = first_size<lfb_spec>;
    std::memcpy(spec, &s, first_size<lfb_spec>);
    return LFB_OK;
}

int lfb_spec_init_size(lfb_spec* spec, uint32_t size) {
    return guarded([&] {
        require(spec != nullptr, "spec is NULL");
        require(size >= first_size<lfb_spec> && size <= 4096, "size is not the size of any lfb_spec (pass sizeof(lfb_spec))");
        lfb_spec s = default_spec();
        s.struct_size = size;
        std::memset(spec, 0, size);  // a newer caller's fields: 0 is their default
        std::memcpy(spec, &s, std::min<std::size_t>(size, sizeof s));
        return LFB_OK;
    });
}

int lfb_create(const lfb_spec* spec, lfb_handle** out) {
    return new_handle(out, [&] {
        return make_any(spec_of(spec));
    });
}

void lfb_free(lfb_handle* handle) { delete handle; }

int lfb_kind(const lfb_handle* handle) {
    return with_filter(handle, [](const auto& f) { return static_cast<int>(std::decay_t<decltype(f)>::kind); });
}

int lfb_add(lfb_handle* handle, const void* key, uint64_t len) {
    return with_filter(handle, [&](auto& f) { return f.add(key_of(key, len)) ? 1 : 0; });
}

int lfb_contains(const lfb_handle* handle, const void* key, uint64_t len) {
    return with_filter(handle, [&](const auto& f) { return f.contains(key_of(key, len)) ? 1 : 0; });
}

int lfb_remove(lfb_handle* handle, const void* key, uint64_t len) {
    return with_filter(handle, [&](auto& f) -> int {
        if constexpr (removes<std::decay_t<decltype(f)>>) return f.remove(key_of(key, len)) ? 1 : 0;
        else no_removes();
    });
}

int lfb_count(const lfb_handle* handle, const void* key, uint64_t len) {
    return with_filter(handle, [&](const auto& f) -> int {
        if constexpr (removes<std::decay_t<decltype(f)>>) return static_cast<int>(f.count(key_of(key, len)));
        else no_removes();
    });
}

int lfb_batch_run(lfb_handle* handle, lfb_batch* batch) {
    return with_any_op(handle, [&](auto& f) -> int {
        require(batch != nullptr, "batch is NULL");
        lfb_batch b;
        read_sized(batch, b);
        b.done = 0;
        b.positive = 0;
        const int status = guarded([&] {
            return with_batch_keys(b, [&](const auto& keys) -> int {
                switch (b.op) {
                    case LFB_OP_ADD:
                        require_writable(*handle);
                        refusable_add_batch(f, keys, b.count, b.results, &b.positive, &b.done);
                        break;
                    case LFB_OP_CONTAINS: b.positive = f.contains_many(b.count, keys, b.results); break;
                    case LFB_OP_REMOVE:
                        require_writable(*handle);
                        if constexpr (removes<std::decay_t<decltype(f)>>) b.positive = f.remove_many(b.count, keys, b.results);
                        else no_removes();
                        break;
                    default: throw lfbloom::error(errc::invalid_argument, "lfb_batch.op is not an enum lfb_batch_op value");
                }
                b.done = b.count;
                return LFB_OK;
            });
        });
        batch->done = b.done;  // also after a refusal: how far it got
        batch->positive = b.positive;
        return status;
    });
}

int lfb_info_get(const lfb_handle* handle, lfb_info* out) {
    return with_filter(handle, [&](const auto& f) { return info_of(f, out); });
}

int lfb_serialized_size(const lfb_handle* handle, uint32_t format, uint64_t* size) {
    return with_filter(handle, [&](const auto& f) {
        require(size != nullptr, "size output is NULL");
        *size = serialized_size(f, format);
        return LFB_OK;
    });
}

int lfb_save(const lfb_handle* handle, uint32_t format, void* buffer, uint64_t capacity, uint64_t* written) {
    return with_filter(handle, [&](const auto& f) { return save_to_buffer(f, format, buffer, capacity, written); });
}

int lfb_save_file(const lfb_handle* handle, uint32_t format, const char* path, uint32_t mode) {
    return with_filter(handle, [&](const auto& f) { return save_to_file(f, format, path, mode); });
}

int lfb_load(uint32_t format, const void* data, uint64_t len, uint64_t memory_limit, lfb_handle** out) {
    return new_handle(out, [&] {
        require(data != nullptr || len == 0, "data is NULL but its length is not 0");
        return lfbloom::load_exact<lfbloom::any_filter>({static_cast<const std::byte*>(data), len}, [&](const lfbloom::byte_source& s, std::uint64_t n) {
            return load_any_format(format, s, memory_limit, n);
        });
    });
}

int lfb_load_file(uint32_t format, const char* path, uint64_t memory_limit, lfb_handle** out) {
    return new_handle(out, [&] {
        require(path != nullptr, "path is NULL");
        return lfbloom::read_file(path, [&](const lfbloom::byte_source& s, std::uint64_t n) { return load_any_format(format, s, memory_limit, n); });
    });
}

int lfb_open_shared(const char* path, const lfb_spec* spec, uint32_t flags, uint32_t mode, lfb_handle** out) {
    return new_handle(out, [&] { return open_shared_any(path, spec, flags, mode); }, (flags & LFB_SHARED_READ_ONLY) != 0);
}

int lfb_plan(const lfb_spec* spec, lfb_info* out) {
    return guarded([&] {
        const lfb_spec s = spec_of(spec);
        require((s.flags & ~LFB_OPTION_PROCESS_SHARED) == 0, "lfb_spec.flags has unknown bits");
        const lfbloom::filter_stats p = with_spec_kind<lfbloom::filter_stats>(s, [&]<class F>() { return spec_plan<F>(s); });
        lfb_info v{};
        v.kind = static_cast<std::uint32_t>(p.kind);
        v.seed = s.seed;
        copy_stats(p, v);
        v.expected_fpr = p.estimated_fpr;
        return write_info(v, out);
    });
}

int lfb_flush(const lfb_handle* handle) {
    return with_filter(handle, [](const auto& f) { return f.flush(), LFB_OK; });
}

namespace {

/// Applies op(a's filter, b's filter) when both handles hold one kind, else answers mixed().
/// A non-const `a` is written to, so it is refused when read-only (with_filter).
template <class Handle, class Op, class Mixed>
int with_both(Handle* a, const lfb_handle* b, Op op, Mixed mixed) {
    return with_filter(a, [&](auto& fa) -> int {
        const auto* fb = std::get_if<std::decay_t<decltype(fa)>>(&deref(b).impl);
        return fb == nullptr ? mixed() : op(fa, *fb);
    });
}

[[noreturn]] void other_kinds() { throw lfbloom::error(errc::incompatible, "the filters are of different kinds"); }

/// Runs a set operation (union or intersection) of two Bloom or counting filters.
int set_operation(lfb_handle* into, const lfb_handle* other, auto operation) {
    return with_both(into, other, [&](auto& a, const auto& b) -> int {
        if constexpr (std::decay_t<decltype(a)>::kind == lfbloom::layout::cuckoo)
            throw lfbloom::error(errc::incompatible, "cuckoo filters offer no union or intersection yet");
        else return operation(a, b), LFB_OK;
    }, []() -> int { other_kinds(); });
}

}  // namespace

int lfb_copy(const lfb_handle* handle, lfb_handle** out) {
    return new_handle(out, [&] {
        return std::visit([](const auto& f) { return lfbloom::any_filter(f.copy()); }, deref(handle).impl);
    });
}

int lfb_equal(const lfb_handle* a, const lfb_handle* b) {
    return with_both(a, b, [](const auto& x, const auto& y) { return x == y ? 1 : 0; }, [] { return 0; });
}

int lfb_union(lfb_handle* into, const lfb_handle* other) {
    return set_operation(into, other, [](auto& a, const auto& b) { a.merge(b); });
}

int lfb_intersect(lfb_handle* into, const lfb_handle* other) {
    return set_operation(into, other, [](auto& a, const auto& b) { a.intersect(b); });
}

int lfb_geometry_get(const lfb_handle* handle, lfb_info* out) {
    return with_filter(handle, [&](const auto& f) {
        using F = std::decay_t<decltype(f)>;
        const lfbloom::geometry g = f.shape();
        lfb_info v{};
        v.kind = static_cast<std::uint32_t>(F::kind);
        v.seed = f.seed();
        v.slots = g.slots;
        v.slot_bits = f.counter_bits();
        v.hashes = g.hashes;
        v.capacity = g.capacity;
        v.target_fpr = g.target_fpr;
        if constexpr (F::kind == lfbloom::layout::cuckoo) v.bytes = f.bytes();
        else v.bytes = f.words().size() * 8;
        return write_info(v, out);
    });
}

int lfb_clear(lfb_handle* handle) {
    return with_filter(handle, [](auto& f) { return f.clear(), LFB_OK; });
}

int lfb_bit_array_get(const lfb_handle* handle, lfb_bit_array* out) { return bit_array_of(handle, out); }

int lfb_swap_create_any(lfb_handle* initial, lfb_swap** out) { return create_swap(initial, out); }

int lfb_swap_stage_any(lfb_swap* swap, lfb_handle* next) { return stage_swap(swap, next, false); }

int lfb_swap_replace_any(lfb_swap* swap, lfb_handle* next) { return stage_swap(swap, next, true); }
