// The C ABI: a thin firewall over the core's one interface (lfbloom::dynamic_filter). Every entry
// point validates its arguments, runs under guarded() and maps lfbloom::error codes to LFB_ERR_*
// statuses through the core's status table. The per-kind calls of 1.0 to 1.6 are per_kind.cpp.
#include "lfbloom.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <string>

#include "handle.hpp"

using lfbloom::errc;
using namespace lfb_capi;

namespace lfb_capi {

namespace {
thread_local std::string last_error;
}  // namespace

int fail(int code, const char* message) noexcept {
    try {
        last_error = message;
    } catch (...) {
        last_error.clear();  // no memory for the message; the code still says what happened
    }
    return code;
}

}  // namespace lfb_capi

namespace {

lfbloom::key_view key_of(const void* key, std::uint64_t len) {
    require(key != nullptr || len == 0, "key is NULL but its length is not 0");
    return {static_cast<const std::byte*>(key), static_cast<std::size_t>(len)};
}

/// Writes v into *out up to the caller's struct_size (at least the struct's first size); a newer
/// caller's extra fields stay as they were.
template <class Struct>
int write_sized(Struct v, Struct* out) {
    require(out != nullptr, "output struct is NULL");
    require(out->struct_size >= first_size<Struct>, "struct_size is smaller than this struct has ever been");
    v.struct_size = static_cast<std::uint32_t>(std::min<std::size_t>(out->struct_size, sizeof(Struct)));
    std::memcpy(out, &v, v.struct_size);
    return LFB_OK;
}

/// lfb_spec_init_size's defaults.
lfb_spec default_spec() noexcept {
    lfb_spec s{};
    s.struct_size = sizeof s;
    s.kind = LFB_KIND_BLOCKED;
    s.counter_bits = 4;
    return s;
}

lfbloom::filter_kind kind_value(std::uint32_t kind) {
    require(lfbloom::kind_name(static_cast<lfbloom::filter_kind>(kind)) != nullptr, "not an enum lfb_kind value");
    return static_cast<lfbloom::filter_kind>(kind);
}

/// The core's spec from the caller's lfb_spec of whatever version; the composites' fields are
/// refused for the kinds they do not belong to.
lfbloom::filter_spec spec_of(const lfb_spec* in) {
    require(in != nullptr, "spec is NULL");
    lfb_spec s = default_spec();
    read_sized(in, s);
    require((s.flags & ~LFB_OPTION_PROCESS_SHARED) == 0, "lfb_spec.flags has unknown bits");
    require(s.reserved == 0, "lfb_spec.reserved must be 0");
    check_rotating_flags(s.rotating_flags);
    lfbloom::filter_spec c;
    c.kind = kind_value(s.kind);
    check_counter_width(c.kind, s.counter_bits);
    const bool scalable = c.kind == lfbloom::filter_kind::scalable, rotating = c.kind == lfbloom::filter_kind::rotating;
    require(scalable || (s.sub_kind == 0 && s.growth == 0 && s.tightening == 0 && s.max_filters == 0),
            "sub_kind, growth, tightening and max_filters are a scalable filter's");
    require(rotating || (s.generations == 0 && s.period_ns == 0 && s.rotating_flags == 0),
            "generations, period_ns and rotating_flags are a rotating filter's");
    c.capacity = s.capacity;
    c.fpr = s.fpr;
    c.seed = s.seed;
    c.memory_limit = s.memory_limit;
    // A cuckoo filter's width: lfb_spec_init's 4 leaves it to the rate, as 0 does (lfbloom.h).
    c.counter_bits = c.kind == lfbloom::filter_kind::cuckoo && s.counter_bits == 4 ? 0 : s.counter_bits;
    c.process_shared = (s.flags & LFB_OPTION_PROCESS_SHARED) != 0;
    c.slots = s.slots;
    c.hashes = s.hashes;
    if (s.sub_kind != 0) c.sub_kind = kind_value(s.sub_kind);
    c.growth = s.growth;
    c.tightening = s.tightening;
    c.max_filters = s.max_filters;
    c.generations = s.generations;
    c.period_ns = s.period_ns;
    c.double_write = (s.rotating_flags & LFB_ROTATING_DOUBLE_WRITE) != 0;
    c.manual_clock = (s.rotating_flags & LFB_ROTATING_MANUAL_TICK) != 0;
    return c;
}

int write_info(const lfbloom::filter_info& i, lfb_info* out) {
    lfb_info v{};
    v.kind = static_cast<std::uint32_t>(i.kind);
    v.slots = i.slots;
    v.slot_bits = i.slot_bits;
    v.hashes = i.hashes;
    v.bytes = i.bytes;
    v.capacity = i.capacity;
    v.target_fpr = i.target_fpr;
    v.seed = i.seed;
    v.slots_set = i.slots_set;
    v.fill_ratio = i.fill_ratio;
    v.estimated_count = i.estimated_count;
    v.expected_fpr = i.expected_fpr;
    v.near_capacity = i.near_capacity;
    v.saturated = i.saturated;
    v.kicks = i.kicks;
    v.failed_adds = i.failed_adds;
    v.duplicate_refusals = i.duplicate_refusals;
    v.reader_retries = i.reader_retries;
    v.reader_gave_up = i.reader_gave_up;
    v.sub_kind = static_cast<std::uint32_t>(i.sub_kind);
    v.parts = i.parts;
    v.generation = i.generation;
    v.ambiguous_removes = i.ambiguous_removes;
    v.items = i.items;
    return write_sized(v, out);
}

/// Runs fn over the keys of a batch descriptor, in whichever shape it gives them, validated
/// before any key is used.
template <class Fn>
void with_batch_keys(const lfb_batch& b, Fn fn) {
    if (b.keys != nullptr) {
        require(b.data == nullptr && b.offsets == nullptr, "lfb_batch gives keys both as an array and as a buffer");
        for (std::uint64_t i = 0; i < b.count; ++i)
            require(b.keys[i].data != nullptr || b.keys[i].len == 0, "a key is NULL but its length is not 0");
        static_assert(sizeof(lfb_key) == sizeof(lfbloom::key_ref) && offsetof(lfb_key, len) == offsetof(lfbloom::key_ref, len));
        return fn(lfbloom::key_refs{b.keys});
    }
    if (b.count != 0) {
        require(b.offsets != nullptr, b.data == nullptr ? "lfb_batch gives no keys" : "offsets is NULL");
        for (std::uint64_t i = 0; i < b.count; ++i) require(b.offsets[i] <= b.offsets[i + 1], "offsets decrease");
        require(b.data != nullptr || b.offsets[b.count] == b.offsets[0], "data is NULL but the keys are not empty");
    }
    fn(lfbloom::packed_keys{static_cast<const std::byte*>(b.data), b.offsets});
}

lfbloom::dynamic_swappable& swap_of(lfb_handle* handle) {
    auto* swap = filter_of(handle).get<lfbloom::dynamic_swappable>();
    if (swap == nullptr) throw lfbloom::error(errc::incompatible, "only swaps stage, publish and replace filters");
    return *swap;
}

lfbloom::rotating_bloom_filter& rotating_of(lfb_handle* handle) {
    auto* ring = filter_of(handle).get<lfbloom::rotating_bloom_filter>();
    if (ring == nullptr) throw lfbloom::error(errc::incompatible, "only rotating filters rotate");
    return *ring;
}

}  // namespace

// ---- library ------------------------------------------------------------------------------------

#define LFB_STRINGIFY(x) #x
#define LFB_VERSION_TEXT(major, minor, patch) LFB_STRINGIFY(major) "." LFB_STRINGIFY(minor) "." LFB_STRINGIFY(patch)
const char* lfb_version_string(void) { return LFB_VERSION_TEXT(LFB_VERSION_MAJOR, LFB_VERSION_MINOR, LFB_VERSION_PATCH); }
uint32_t lfb_version(void) { return LFB_VERSION_MAJOR * 10000 + LFB_VERSION_MINOR * 100 + LFB_VERSION_PATCH; }
uint32_t lfb_abi_version(void) { return LFB_ABI_VERSION; }

const char* lfb_strerror(int code) {
    const lfbloom::status_entry* e = lfbloom::find_status(code);
    return e == nullptr ? "unknown status" : e->text;
}

const char* lfb_last_error(void) { return last_error.c_str(); }

const char* lfb_status_name(int code) {
    const lfbloom::status_entry* e = lfbloom::find_status(code);
    return e == nullptr ? nullptr : e->name;
}

int lfb_status_class(int code) {
    const lfbloom::status_entry* e = lfbloom::find_status(code);
    return static_cast<int>(e == nullptr ? lfbloom::status_class::bug : e->kind);
}

const char* lfb_kind_name(uint32_t kind) { return lfbloom::kind_name(static_cast<lfbloom::filter_kind>(kind)); }

int lfb_kind_parse(const char* name) {
    return guarded([&] {
        require(name != nullptr, "name is NULL");
        const auto kind = lfbloom::parse_kind(name);
        require(kind.has_value(), "not the name of a kind of filter");
        return static_cast<int>(*kind);
    });
}

// ---- every kind -----------------------------------------------------------------------------------

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
    return new_handle(out, [&] { return lfbloom::make_filter(spec_of(spec)); });
}

void lfb_free(lfb_handle* handle) { delete handle; }

int lfb_kind(const lfb_handle* handle) {
    return guarded([&] { return static_cast<int>(filter_of(handle).kind()); });
}

namespace {
/// The filter behind a handle a call writes to: a read-only one is refused before its arguments
/// are looked at, as the per-kind calls of 1.4 did.
lfbloom::dynamic_filter& writable_filter(lfb_handle* handle) {
    lfbloom::dynamic_filter& f = filter_of(handle);
    if (f.read_only()) throw lfbloom::error(errc::read_only, "the filter was opened read-only: it cannot be changed");
    return f;
}
}  // namespace

int lfb_add(lfb_handle* handle, const void* key, uint64_t len) {
    return guarded([&] { return writable_filter(handle).add(key_of(key, len)) ? 1 : 0; });
}

int lfb_contains(const lfb_handle* handle, const void* key, uint64_t len) {
    return guarded([&] { return filter_of(handle).contains(key_of(key, len)) ? 1 : 0; });
}

int lfb_remove(lfb_handle* handle, const void* key, uint64_t len) {
    return guarded([&] { return writable_filter(handle).remove(key_of(key, len)) ? 1 : 0; });
}

int lfb_count(const lfb_handle* handle, const void* key, uint64_t len) {
    return guarded([&] { return static_cast<int>(filter_of(handle).count(key_of(key, len))); });
}

namespace {
/// A batch read already, on the handle's filter; throws what the filter throws.
void run_on(lfb_handle* handle, const lfb_batch& b, lfbloom::batch_progress& progress) {
    lfbloom::dynamic_filter& f = filter_of(handle);
    require((b.flags & ~LFB_BATCH_BULK) == 0, "lfb_batch.flags has unknown bits");
    const bool bulk = (b.flags & LFB_BATCH_BULK) != 0;
    require(bulk || b.threads == 0, "lfb_batch.threads is for LFB_BATCH_BULK");
    require(b.threads <= lfbloom::bulk_max_threads, "lfb_batch.threads: a bulk build takes at most 1024 threads");
    require(!bulk || b.results == nullptr, "a bulk build (LFB_BATCH_BULK) gives no answer per key: results must be NULL");
    with_batch_keys(b, [&](const auto& keys) {
        const auto op = static_cast<lfbloom::batch_op>(b.op);
        if (bulk) f.run_bulk(op, static_cast<std::size_t>(b.count), keys, {.threads = b.threads}, progress);
        else f.run(op, static_cast<std::size_t>(b.count), keys, b.results, progress);
    });
}
}  // namespace

int lfb_capi::run_batch(lfb_handle* handle, const lfb_batch& b, lfbloom::batch_progress& progress) noexcept {
    return guarded([&] { return run_on(handle, b, progress), LFB_OK; });
}

int lfb_batch_run(lfb_handle* handle, lfb_batch* batch) {
    lfbloom::batch_progress progress;
    bool read = false;
    const int status = guarded([&] {
        require(batch != nullptr, "batch is NULL");
        lfb_batch b{};  // a 1.0 to 1.10 caller's struct ends before flags: they stay 0
        read_sized(batch, b);
        read = true;
        return run_on(handle, b, progress), LFB_OK;
    });
    if (read) {  // also after a refusal: how far it got
        batch->done = progress.done;
        batch->positive = progress.positive;
    }
    return status;
}

int lfb_info_get(const lfb_handle* handle, lfb_info* out) {
    return guarded([&] { return write_info(filter_of(handle).info(), out); });
}

int lfb_plan(const lfb_spec* spec, lfb_info* out) {
    return guarded([&] { return write_info(lfbloom::plan(spec_of(spec)), out); });
}

int lfb_serialized_size(const lfb_handle* handle, uint32_t format, uint64_t* size) {
    return guarded([&] {
        const lfbloom::dynamic_filter& f = filter_of(handle);
        require(size != nullptr, "size output is NULL");
        *size = f.serialized_size(format_of(format));
        return LFB_OK;
    });
}

int lfb_save(const lfb_handle* handle, uint32_t format, void* buffer, uint64_t capacity, uint64_t* written) {
    return guarded([&] {
        const lfbloom::dynamic_filter& f = filter_of(handle);
        const lfbloom::file_format fmt = format_of(format);
        const std::uint64_t size = f.serialized_size(fmt);
        require(buffer != nullptr || capacity == 0, "buffer is NULL but capacity is not 0");
        if (capacity < size)
            throw lfbloom::error(errc::invalid_argument, "buffer too small: the filter needs " + std::to_string(size) + " bytes");
        auto* to = static_cast<std::byte*>(buffer);
        std::uint64_t used = 0;
        f.save(fmt, [&](const void* data, std::size_t n) {
            if (n > capacity - used)  // a swap replaced by a larger filter since its size was read
                throw lfbloom::error(errc::invalid_argument, "buffer too small: the filter grew while it was saved");
            std::memcpy(to + used, data, n);
            used += n;
        });
        if (written != nullptr) *written = used;
        return LFB_OK;
    });
}

int lfb_save_file(const lfb_handle* handle, uint32_t format, const char* path, uint32_t mode) {
    return guarded([&] {
        const lfbloom::dynamic_filter& f = filter_of(handle);
        const lfbloom::file_format fmt = format_of(format);
        require(path != nullptr, "path is NULL");
        lfbloom::write_file_atomically(path, [&](const lfbloom::byte_sink& sink) { f.save(fmt, sink); }, mode);
        return LFB_OK;
    });
}

int lfb_save_fd(const lfb_handle* handle, uint32_t format, int fd) {
    return guarded([&] {
        const lfbloom::dynamic_filter& f = filter_of(handle);
        const lfbloom::file_format fmt = format_of(format);
        require(fd >= 0, "file descriptor is negative");
        f.save(fmt, lfbloom::fd_sink(fd));
        return LFB_OK;
    });
}

int lfb_load(uint32_t format, const void* data, uint64_t len, uint64_t memory_limit, lfb_handle** out) {
    return new_handle(out, [&] { return load_buffer(format, data, len, memory_limit); });
}

int lfb_load_file(uint32_t format, const char* path, uint64_t memory_limit, lfb_handle** out) {
    return new_handle(out, [&] { return load_path(format, path, memory_limit); });
}

int lfb_load_fd(uint32_t format, int fd, uint64_t memory_limit, lfb_handle** out) {
    return new_handle(out, [&] { return load_fd(format, fd, memory_limit); });
}

int lfb_load_size_kinds(uint32_t format, const void* head, uint64_t len, uint64_t memory_limit, uint64_t* total, uint32_t* kind,
                        uint32_t* sub_kind) {
    return guarded([&] {
        require(head != nullptr || len == 0, "head is NULL but its length is not 0");
        require(total != nullptr, "total output is NULL");
        const lfbloom::saved_header h =
            lfbloom::saved_header_of(format_of(format), {static_cast<const std::byte*>(head), len}, memory_limit);
        *total = h.bytes;
        if (kind != nullptr) *kind = static_cast<std::uint32_t>(h.kind);
        if (sub_kind != nullptr) *sub_kind = static_cast<std::uint32_t>(h.sub_kind);
        return LFB_OK;
    });
}

int lfb_load_size(uint32_t format, const void* head, uint64_t len, uint64_t memory_limit, uint64_t* total, uint32_t* kind) {
    return lfb_load_size_kinds(format, head, len, memory_limit, total, kind, nullptr);
}

int lfb_open_shared(const char* path, const lfb_spec* spec, uint32_t flags, uint32_t mode, lfb_handle** out) {
    return new_handle(out, [&] {
        require(path != nullptr, "path is NULL");
        require((flags & ~(LFB_SHARED_CREATE | LFB_SHARED_EXCLUSIVE | LFB_SHARED_READ_ONLY)) == 0, "flags has unknown bits");
        const bool create = (flags & LFB_SHARED_CREATE) != 0, read_only = (flags & LFB_SHARED_READ_ONLY) != 0;
        require(create || (flags & LFB_SHARED_EXCLUSIVE) == 0, "LFB_SHARED_EXCLUSIVE needs LFB_SHARED_CREATE");
        require(!create || !read_only, "a read-only opener cannot create the file");
        require(!create || spec != nullptr, "creating a shared file needs a spec");
        const auto how = read_only                                ? lfbloom::open_mode::read_only
                         : !create                                ? lfbloom::open_mode::read_write
                         : (flags & LFB_SHARED_EXCLUSIVE) != 0    ? lfbloom::open_mode::create
                                                                  : lfbloom::open_mode::open_or_create;
        if (spec == nullptr) return lfbloom::open_shared(path, nullptr, how);
        lfb_spec given = default_spec();
        read_sized(spec, given);
        if (given.kind == 0) {  // whatever the file holds, within the spec's memory limit
            require(!create, "creating a shared file needs a spec of a kind");
            require(given.capacity == 0 && given.fpr == 0 && given.seed == 0 && given.flags == 0 &&
                        (given.counter_bits == 0 || given.counter_bits == 4) && given.slots == 0 && given.hashes == 0 &&
                        given.sub_kind == 0 && given.growth == 0 && given.tightening == 0 && given.max_filters == 0 &&
                        given.generations == 0 && given.period_ns == 0 && given.rotating_flags == 0 && given.reserved == 0,
                    "a spec of kind 0 gives a memory limit only: its other fields must keep their defaults");
            return lfbloom::open_shared(path, nullptr, how, 0, given.memory_limit);
        }
        const lfbloom::filter_spec s = spec_of(spec);
        require(!s.process_shared, "lfb_spec.flags must be 0 for a shared file (it is shared already)");
        return lfbloom::open_shared(path, &s, how, mode);
    });
}

int lfb_flush(const lfb_handle* handle) {
    return guarded([&] { return filter_of(handle).flush(), LFB_OK; });
}

int lfb_copy(const lfb_handle* handle, lfb_handle** out) {
    return new_handle(out, [&] { return filter_of(handle).copy(); });
}

int lfb_equal(const lfb_handle* a, const lfb_handle* b) {
    return guarded([&] {
        const lfbloom::dynamic_filter& fa = filter_of(a);
        const lfbloom::dynamic_filter& fb = filter_of(b);
        return fa.kind() == fb.kind() && fa.equals(fb) ? 1 : 0;
    });
}

int lfb_union(lfb_handle* into, const lfb_handle* other) {
    return guarded([&] {
        lfbloom::dynamic_filter& f = filter_of(into);
        return f.merge(filter_of(other)), LFB_OK;
    });
}

int lfb_intersect(lfb_handle* into, const lfb_handle* other) {
    return guarded([&] {
        lfbloom::dynamic_filter& f = filter_of(into);
        return f.intersect(filter_of(other)), LFB_OK;
    });
}

int lfb_geometry_get(const lfb_handle* handle, lfb_info* out) {
    return guarded([&] { return write_info(filter_of(handle).geometry(), out); });
}

int lfb_set_lock_timeout(lfb_handle* handle, uint32_t milliseconds) {
    return guarded([&] {
        require(milliseconds > 0, "the lock timeout must be at least 1 ms");
        return filter_of(handle).set_lock_timeout(milliseconds), LFB_OK;
    });
}

int lfb_clear(lfb_handle* handle) {
    return guarded([&] { return filter_of(handle).clear(), LFB_OK; });
}

int lfb_bit_array_get(const lfb_handle* handle, lfb_bit_array* out) {
    return guarded([&] {
        const lfbloom::bit_words w = filter_of(handle).bit_array();
        require(out != nullptr, "bit array output is NULL");
        // A 1.2 caller's struct ends before probe_rule: it knows rule 1 only, and would compute
        // another rule's bits wrongly (false negatives), so it gets no words for such a filter.
        constexpr std::size_t size_1_2 = offsetof(lfb_bit_array, probe_rule);
        require(out->struct_size >= size_1_2, "lfb_bit_array.struct_size is too small");
        const auto rule = static_cast<std::uint32_t>(w.rule);
        if (out->struct_size < sizeof(lfb_bit_array) && w.rule != lfbloom::probe_rule::fields)
            throw lfbloom::error(errc::unsupported_version,
                                 "the filter's probe rule " + std::to_string(rule) + " needs an lfb_bit_array of lfbloom 1.4 or later");
        lfb_bit_array v{};
        v.struct_size = static_cast<std::uint32_t>(std::min<std::size_t>(out->struct_size, sizeof(lfb_bit_array)));
        v.layout = static_cast<std::uint32_t>(w.kind);
        v.words = w.words;
        v.bits = w.bits;
        v.seed = w.seed;
        v.hashes = w.hashes;
        v.probe_rule = rule;
        std::memcpy(out, &v, v.struct_size);  // an older caller's struct gets its fields only, a newer one's extra fields stay
        return LFB_OK;
    });
}

int lfb_part_info(const lfb_handle* handle, uint32_t index, lfb_info* out) {
    return guarded([&] { return write_info(filter_of(handle).part_info(index), out); });
}

int lfb_rotate(lfb_handle* handle) {
    return guarded([&] { return rotating_of(handle).rotate(), LFB_OK; });
}

int lfb_tick(lfb_handle* handle, uint64_t now_ns) {
    return guarded([&] { return rotating_of(handle).tick(now_ns), LFB_OK; });
}

int lfb_create_swap(lfb_handle* initial, lfb_handle** out) { return create_swap(initial, out); }

int lfb_stage(lfb_handle* swap, lfb_handle* next) {
    return guarded([&] {
        lfbloom::dynamic_swappable& s = swap_of(swap);
        adopt(next, [&](std::unique_ptr<lfbloom::dynamic_filter>& f) { s.stage(std::move(f)); });
        return LFB_OK;
    });
}

int lfb_add_staged(lfb_handle* swap, const void* key, uint64_t len) {
    return guarded([&] { return swap_of(swap).add_staged(key_of(key, len)) ? 1 : 0; });
}

int lfb_publish(lfb_handle* swap) {
    return guarded([&] { return swap_of(swap).publish(), LFB_OK; });
}

int lfb_replace(lfb_handle* swap, lfb_handle* next) {
    return guarded([&] {
        lfbloom::dynamic_swappable& s = swap_of(swap);
        adopt(next, [&](std::unique_ptr<lfbloom::dynamic_filter>& f) { s.replace(std::move(f)); });
        return LFB_OK;
    });
}
