// The per-kind calls of lfbloom 1.0 to 1.6, kept for their callers: every one is a line of
// per_kind.inc naming the one-handle call it is. What the old calls do differently (lfb_options
// instead of lfb_spec, lfb_stats, counted batches, kinds a handle type accepts, remove's
// LFB_ERR_NOT_PRESENT) is the few adapters below, each written once.
#include "lfbloom.h"

#include <cstring>

#include "handle.hpp"

using lfbloom::filter_kind;
using namespace lfb_capi;

namespace {

/// lfb_options of whatever version, the defaults where the caller gave none.
lfb_options options_or_default(const lfb_options* options) {
    lfb_options o;
    lfb_options_init(&o);
    if (options != nullptr) read_sized(options, o);
    require((o.flags & ~LFB_OPTION_PROCESS_SHARED) == 0, "lfb_options.flags has unknown bits");
    return o;
}

/// The one handle's spec for a per-kind creation from lfb_options.
template <class Handle>
lfbloom::filter_spec spec_of(const lfb_options* options, std::uint64_t capacity, double fpr) {
    const lfb_options o = options_or_default(options);
    lfbloom::filter_spec s;
    s.capacity = capacity;
    s.fpr = fpr;
    s.seed = o.seed;
    s.memory_limit = o.memory_limit;
    s.process_shared = (o.flags & LFB_OPTION_PROCESS_SHARED) != 0;
    if constexpr (std::is_same_v<Handle, lfb_filter>) {
        require(o.layout == LFB_LAYOUT_BLOCKED || o.layout == LFB_LAYOUT_CLASSIC,
                "layout must be LFB_LAYOUT_BLOCKED or LFB_LAYOUT_CLASSIC");
        s.kind = static_cast<filter_kind>(o.layout);
    } else if constexpr (std::is_same_v<Handle, lfb_counting>) {
        s.kind = filter_kind::counting;
        s.counter_bits = o.counter_bits;
        check_counter_width(s.kind, s.counter_bits);
    } else {
        require(o.flags == 0, "scalable and rotating filters take no lfb_options.flags");
        constexpr bool scalable = std::is_same_v<Handle, lfb_scalable>;
        require(o.layout == LFB_LAYOUT_BLOCKED || (scalable && o.layout == LFB_LAYOUT_CUCKOO),
                scalable ? "scalable filters have blocked or cuckoo sub-filters (LFB_LAYOUT_BLOCKED or LFB_LAYOUT_CUCKOO)"
                         : "rotating filters use the blocked layout only");
        s.kind = scalable ? filter_kind::scalable : filter_kind::rotating;
        s.sub_kind = static_cast<filter_kind>(o.layout);
    }
    return s;
}

/// The kinds a per-kind handle type holds.
template <class Handle>
constexpr lfbloom::kind_set accepted =
    std::is_same_v<Handle, lfb_filter> ? lfbloom::kinds({filter_kind::classic, filter_kind::blocked}) : lfbloom::kinds({filter_kind::counting});

template <class Handle>
std::unique_ptr<lfbloom::dynamic_filter> checked(std::unique_ptr<lfbloom::dynamic_filter> f) {
    if ((accepted<Handle> >> static_cast<std::uint32_t>(f->kind()) & 1) == 0)
        throw lfbloom::error(lfbloom::errc::incompatible, std::string("the file holds a ") + lfbloom::kind_name(f->kind()) +
                                                              " filter: open it with " +
                                                              (f->kind() == filter_kind::counting ? "lfb_counting_*" : "lfb_open_shared"));
    return f;
}

template <class Handle>
int create(std::uint64_t capacity, double fpr, const lfb_options* options, Handle** out) {
    return new_handle(out, [&] { return lfbloom::make_filter(spec_of<Handle>(options, capacity, fpr)); });
}

template <class Handle>
int create_geometry(std::uint64_t slots, std::uint32_t hashes, const lfb_options* options, Handle** out) {
    return new_handle(out, [&] {
        lfbloom::filter_spec s = spec_of<Handle>(options, 0, 0);
        s.slots = slots;
        s.hashes = hashes;
        return lfbloom::make_filter(s);
    });
}

int create_scalable(std::uint64_t capacity, double fpr, double growth, double tightening, std::uint32_t max_filters,
                    const lfb_options* options, lfb_scalable** out) {
    return new_handle(out, [&] {
        lfbloom::filter_spec s = spec_of<lfb_scalable>(options, capacity, fpr);
        s.growth = growth;
        s.tightening = tightening;
        s.max_filters = max_filters;
        return lfbloom::make_filter(s);
    });
}

int create_rotating(std::uint64_t capacity, double fpr, std::uint32_t generations, std::uint64_t period_ns, std::uint32_t flags,
                    const lfb_options* options, lfb_rotating** out) {
    return new_handle(out, [&] {
        check_rotating_flags(flags);
        lfbloom::filter_spec s = spec_of<lfb_rotating>(options, capacity, fpr);
        require(generations != 0, "generations must be in 2..64");  // 1.1 had no default
        s.generations = generations;
        s.period_ns = period_ns;
        s.double_write = (flags & LFB_ROTATING_DOUBLE_WRITE) != 0;
        s.manual_clock = (flags & LFB_ROTATING_MANUAL_TICK) != 0;
        return lfbloom::make_filter(s);
    });
}

template <class Handle>
int load(std::uint32_t format, const void* data, std::uint64_t len, const lfb_options* options, Handle** out) {
    return new_handle(out, [&] { return load_buffer(format, data, len, options_or_default(options).memory_limit, accepted<Handle>); });
}

template <class Handle>
int load_from_fd(std::uint32_t format, int fd, const lfb_options* options, Handle** out) {
    return new_handle(out, [&] { return load_fd(format, fd, options_or_default(options).memory_limit, accepted<Handle>); });
}

template <class Handle>
int load_from_path(std::uint32_t format, const char* path, const lfb_options* options, Handle** out) {
    return new_handle(out, [&] { return load_path(format, path, options_or_default(options).memory_limit, accepted<Handle>); });
}

template <class Handle>
int create_shared(const char* path, std::uint64_t capacity, double fpr, const lfb_options* options, std::uint32_t mode, Handle** out) {
    return new_handle(out, [&] {
        require(path != nullptr, "path is NULL");
        lfbloom::filter_spec s = spec_of<Handle>(options, capacity, fpr);
        s.process_shared = false;  // shared already
        return lfbloom::open_shared(path, &s, lfbloom::open_mode::create, mode);
    });
}

template <class Handle>
int open_shared(const char* path, const lfb_options* options, bool writable, Handle** out) {
    return new_handle(out, [&] {
        require(path != nullptr, "path is NULL");
        const auto how = writable ? lfbloom::open_mode::read_write : lfbloom::open_mode::read_only;
        return checked<Handle>(lfbloom::open_shared(path, nullptr, how, 0, options_or_default(options).memory_limit));
    });
}

lfb_handle* mut(const lfb_handle* handle) { return const_cast<lfb_handle*>(handle); }

/// A batch call of 1.0 to 1.4: one lfb_batch_run (run_batch: the batch needs no reading); *positive (if asked for) is the count of 1
/// answers, also after a refusal (the keys before it). Keys as a buffer with offsets or an array.
int batch(lfb_handle* handle, std::uint32_t op, const void* data, const std::uint64_t* offsets, const lfb_key* keys,
          std::uint64_t count, std::uint8_t* results, std::uint64_t* positive) {
    lfb_batch b{};
    b.struct_size = sizeof b;
    b.op = op;
    b.count = count;
    b.data = data;
    b.offsets = offsets;
    b.keys = keys;
    b.results = results;
    lfbloom::batch_progress progress;
    const int status = run_batch(handle, b, progress);
    if (positive != nullptr && (status >= 0 || lfb_status_class(status) == LFB_CLASS_REFUSAL)) *positive = progress.positive;
    return status;
}
int many(lfb_handle* h, std::uint32_t op, const void* data, const std::uint64_t* offsets, std::uint64_t count, std::uint8_t* results,
         std::uint64_t* positive) {
    return batch(h, op, data, offsets, nullptr, count, results, positive);
}
int keys(lfb_handle* h, std::uint32_t op, const lfb_key* keys, std::uint64_t count, std::uint8_t* results, std::uint64_t* positive) {
    // An array given as NULL with keys to run is refused as NULL, as 1.1 did.
    if (keys == nullptr && count != 0) return fail(LFB_ERR_INVALID_ARGUMENT, "keys is NULL");
    return batch(h, op, nullptr, nullptr, keys, count, results, positive);
}

/// lfb_stats from lfb_info_get or lfb_part_info: the layout of the filter a composite holds.
int stats(const lfb_handle* handle, lfb_stats* out, std::int64_t part = -1, std::uint64_t* items = nullptr) {
    lfb_info i{};
    i.struct_size = sizeof i;
    const int status = part < 0 ? lfb_info_get(handle, &i) : lfb_part_info(handle, static_cast<std::uint32_t>(part), &i);
    if (status < 0) return status;
    if (out == nullptr) return fail(LFB_ERR_INVALID_ARGUMENT, "stats output is NULL");
    if (out->struct_size < sizeof(lfb_stats)) return fail(LFB_ERR_INVALID_ARGUMENT, "lfb_stats.struct_size is too small");
    lfb_stats v{};
    v.struct_size = sizeof v;
    v.layout = i.sub_kind;
    v.slots = i.slots;
    v.slot_bits = i.slot_bits;
    v.hashes = i.hashes;
    v.bytes = i.bytes;
    v.capacity = i.capacity;
    v.target_fpr = i.target_fpr;
    v.slots_set = i.slots_set;
    v.saturated = i.saturated;
    v.fill_ratio = i.fill_ratio;
    v.estimated_count = i.estimated_count;
    v.estimated_fpr = i.expected_fpr;
    v.near_capacity = i.near_capacity;
    std::memcpy(out, &v, sizeof v);  // a newer caller's extra fields stay as they were
    if (items != nullptr) *items = i.items;
    return LFB_OK;
}

/// A counter the geometry reports (a scalable filter's sub-filters, rotations, replacements,
/// ambiguous removes), in *out or as the result.
template <class Field>
int counter(const lfb_handle* handle, Field field, std::uint64_t* out = nullptr, bool as_result = false) {
    return guarded([&]() -> int {
        lfb_info i{};
        i.struct_size = sizeof i;
        const int status = lfb_geometry_get(handle, &i);
        if (status < 0) return status;
        if (as_result) return static_cast<int>(field(i));
        require(out != nullptr, "output pointer is NULL");
        *out = field(i);
        return LFB_OK;
    });
}

/// lfb_counting_remove's answer: LFB_OK, or LFB_ERR_NOT_PRESENT where lfb_remove answers 0.
int removed_or_absent(int answer) {
    if (answer == 0) return fail(LFB_ERR_NOT_PRESENT, "key not present: nothing removed");
    return answer == 1 ? LFB_OK : answer;
}

}  // namespace

int lfb_options_init(lfb_options* options) {
    if (options == nullptr) return fail(LFB_ERR_INVALID_ARGUMENT, "options is NULL");
    *options = lfb_options{};
    options->struct_size = sizeof(lfb_options);
    options->layout = LFB_LAYOUT_BLOCKED;
    options->counter_bits = 4;
    return LFB_OK;
}

// One line a call: LFB_SAME(name, parameters, the one-handle call it is); LFB_FREE(name, handle type).
#define LFB_SAME(name, parameters, call) \
    int name parameters { return call; }
#define LFB_FREE(name, type) \
    void name(type* handle) { lfb_free(handle); }
#include "per_kind.inc"
