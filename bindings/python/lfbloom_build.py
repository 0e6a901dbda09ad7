"""cffi builder of lfbloom._native (API mode): the C ABI of capi/include/lfbloom.h and a guard.

API mode compiles this module's C source against the real header, so the declarations below name
only what Python calls: cffi takes every struct's layout and every constant's value from the
header (the `...;` ending a struct: the fields listed are those Python touches, at the offsets the
compiler gives them), and the compiler rejects a declaration that disagrees with the header.

The guard (native/guard.h, shared with the hot path native/hot.c): lfb_free needs every other
call on the handle to have finished, but Python code may close a filter while other threads are
inside a call (the GIL is released in every call of this module). So each Python filter holds an
lfbpy_ref, and every call enters and leaves it; closing marks it closed, and whichever of the
close and the last call in flight comes last frees the handle.
"""
import sysconfig

from cffi import FFI

CDEF = """
typedef struct lfb_handle lfb_handle;
typedef struct lfb_spec {
    uint32_t struct_size; uint32_t kind; uint64_t capacity; double fpr; uint64_t seed;
    uint64_t memory_limit; uint32_t counter_bits; uint32_t flags; uint64_t slots; uint32_t hashes;
    uint32_t sub_kind; double growth; double tightening; uint32_t max_filters; uint32_t generations;
    uint64_t period_ns; uint32_t rotating_flags; ...;
} lfb_spec;
typedef struct lfb_info {
    uint32_t struct_size; uint32_t kind; uint64_t slots; uint32_t slot_bits; uint32_t hashes;
    uint64_t bytes; uint64_t capacity; double target_fpr; uint64_t seed; uint64_t slots_set;
    double fill_ratio; double estimated_count; double expected_fpr; uint32_t near_capacity;
    uint64_t saturated; uint64_t kicks; uint64_t failed_adds; uint64_t duplicate_refusals;
    uint32_t sub_kind; uint32_t parts; uint64_t generation; uint64_t ambiguous_removes; ...;
} lfb_info;

#define LFB_FORMAT_NATIVE ...
#define LFB_FORMAT_GUAVA ...
#define LFB_FORMAT_PARQUET ...
#define LFB_KIND_SPLIT_BLOCK ...
#define LFB_OP_ADD ...
#define LFB_OP_CONTAINS ...
#define LFB_OP_REMOVE ...
#define LFB_OP_ADD_STAGED ...
#define LFB_ROTATING_DOUBLE_WRITE ...
#define LFB_SHARED_CREATE ...
#define LFB_SHARED_EXCLUSIVE ...
#define LFB_SHARED_READ_ONLY ...
#define LFB_KIND_SCALABLE ...
#define LFB_KIND_ROTATING ...
#define LFB_KIND_SWAP ...
#define LFB_KIND_CUCKOO ...
#define LFB_KIND_COUNTING ...
#define LFB_KIND_BLOCKED ...
#define LFB_ERR_INVALID_ARGUMENT ...
#define LFB_ERR_INCOMPATIBLE ...
#define LFB_CLASS_ARGUMENT ...
#define LFB_CLASS_REFUSAL ...
#define LFB_CLASS_DATA ...
#define LFB_CLASS_RESOURCE ...
#define LFB_CLASS_STATE ...
#define LFBPY_CLOSED ...
#define LFBPY_IN_USE ...

int lfb_spec_init_size(lfb_spec* spec, uint32_t size);
int lfb_create(const lfb_spec* spec, lfb_handle** out);
int lfb_load(uint32_t format, const void* data, uint64_t len, uint64_t memory_limit, lfb_handle** out);
int lfb_load_file(uint32_t format, const char* path, uint64_t memory_limit, lfb_handle** out);
int lfb_open_shared(const char* path, const lfb_spec* spec, uint32_t flags, uint32_t mode, lfb_handle** out);
void lfb_free(lfb_handle* handle);
const char* lfb_last_error(void);
const char* lfb_strerror(int code);
const char* lfb_status_name(int code);
int lfb_status_class(int code);
const char* lfb_kind_name(uint32_t kind);
int lfb_kind_parse(const char* name);
const char* lfb_version_string(void);

typedef struct lfbpy_ref lfbpy_ref;
lfbpy_ref* lfbpy_wrap(lfb_handle* handle);
void lfbpy_close(lfbpy_ref* ref);
void lfbpy_release(lfbpy_ref* ref);
int lfb_kind(const lfb_handle* handle);
int lfbpy_add(lfbpy_ref* ref, const char* key, uint64_t len);
int lfbpy_contains(lfbpy_ref* ref, const char* key, uint64_t len);
int lfbpy_remove(lfbpy_ref* ref, const char* key, uint64_t len);
int lfbpy_count(lfbpy_ref* ref, const char* key, uint64_t len);
int lfbpy_add_staged(lfbpy_ref* ref, const char* key, uint64_t len);
int lfbpy_batch(lfbpy_ref* ref, uint32_t op, const char* data, const uint64_t* offsets, uint64_t count,
                uint8_t* results, uint64_t* positive, uint64_t* done);
int lfbpy_batch_fixed(lfbpy_ref* ref, uint32_t op, const char* data, uint64_t width, uint64_t count,
                      uint8_t* results, uint64_t* positive, uint64_t* done);
int lfbpy_serialized_size(lfbpy_ref* ref, uint32_t format, uint64_t* size);
int lfbpy_save(lfbpy_ref* ref, uint32_t format, void* buffer, uint64_t capacity, uint64_t* written);
int lfbpy_save_file(lfbpy_ref* ref, uint32_t format, const char* path, uint32_t mode);
int lfbpy_info(lfbpy_ref* ref, lfb_info* out);
int lfbpy_geometry(lfbpy_ref* ref, lfb_info* out);
int lfbpy_copy(lfbpy_ref* ref, lfb_handle** out);
int lfbpy_equal(lfbpy_ref* a, lfbpy_ref* b);
int lfbpy_union(lfbpy_ref* into, lfbpy_ref* other);
int lfbpy_intersect(lfbpy_ref* into, lfbpy_ref* other);
int lfbpy_clear(lfbpy_ref* ref);
int lfbpy_flush(lfbpy_ref* ref);
int lfbpy_rotate(lfbpy_ref* ref);
int lfbpy_create_swap(lfbpy_ref* initial, lfb_handle** out);
int lfbpy_stage(lfbpy_ref* swap, lfbpy_ref* next);
int lfbpy_replace(lfbpy_ref* swap, lfbpy_ref* next);
int lfbpy_publish(lfbpy_ref* swap);
"""

SOURCE = r"""
#include <stdlib.h>
#include "guard.h"

enum { CLOSED = LFBPY_STATE_CLOSED, FREED = LFBPY_STATE_FREED };

lfbpy_ref* lfbpy_wrap(lfb_handle* handle) {
    lfbpy_ref* ref = malloc(sizeof *ref);
    if (ref == NULL) return NULL;
    ref->handle = handle;
    atomic_init(&ref->state, 0);
    return ref;
}

void lfbpy_close(lfbpy_ref* ref) {
    atomic_fetch_or(&ref->state, CLOSED);
    lfbpy_free_if_last(ref);
}

/* The Python object's finalizer: no call can be in flight (each holds the object). */
void lfbpy_release(lfbpy_ref* ref) {
    lfbpy_close(ref);
    free(ref);
}

/* Takes the handle over from a filter with no call in flight (closing it without a free), for a
 * swap that will own it; NULL if it is closed or in use. */
static lfb_handle* detach(lfbpy_ref* ref) {
    uint64_t expected = 0;
    return atomic_compare_exchange_strong(&ref->state, &expected, CLOSED | FREED) ? ref->handle : NULL;
}

static void reattach(lfbpy_ref* ref) { atomic_store(&ref->state, 0); }

#define GUARDED(call)                                         \
    lfb_handle* h = lfbpy_enter(ref);                         \
    if (h == NULL) return LFBPY_CLOSED;                       \
    int status = (call);                                      \
    lfbpy_leave(ref);                                         \
    return status

#define GUARDED2(a, b, call)                                  \
    lfb_handle* ha = lfbpy_enter(a);                          \
    if (ha == NULL) return LFBPY_CLOSED;                      \
    lfb_handle* hb = lfbpy_enter(b);                          \
    if (hb == NULL) { lfbpy_leave(a); return LFBPY_CLOSED; }  \
    int status = (call);                                      \
    lfbpy_leave(b);                                           \
    lfbpy_leave(a);                                           \
    return status

int lfbpy_add(lfbpy_ref* ref, const char* key, uint64_t len) { GUARDED(lfb_add(h, key, len)); }
int lfbpy_contains(lfbpy_ref* ref, const char* key, uint64_t len) { GUARDED(lfb_contains(h, key, len)); }
int lfbpy_remove(lfbpy_ref* ref, const char* key, uint64_t len) { GUARDED(lfb_remove(h, key, len)); }
int lfbpy_count(lfbpy_ref* ref, const char* key, uint64_t len) { GUARDED(lfb_count(h, key, len)); }
int lfbpy_add_staged(lfbpy_ref* ref, const char* key, uint64_t len) { GUARDED(lfb_add_staged(h, key, len)); }
int lfbpy_serialized_size(lfbpy_ref* ref, uint32_t format, uint64_t* size) {
    GUARDED(lfb_serialized_size(h, format, size));
}
int lfbpy_save(lfbpy_ref* ref, uint32_t format, void* buffer, uint64_t capacity, uint64_t* written) {
    GUARDED(lfb_save(h, format, buffer, capacity, written));
}
int lfbpy_save_file(lfbpy_ref* ref, uint32_t format, const char* path, uint32_t mode) {
    GUARDED(lfb_save_file(h, format, path, mode));
}
int lfbpy_info(lfbpy_ref* ref, lfb_info* out) {
    out->struct_size = sizeof *out;
    GUARDED(lfb_info_get(h, out));
}
int lfbpy_geometry(lfbpy_ref* ref, lfb_info* out) {
    out->struct_size = sizeof *out;
    GUARDED(lfb_geometry_get(h, out));
}
int lfbpy_copy(lfbpy_ref* ref, lfb_handle** out) { GUARDED(lfb_copy(h, out)); }
int lfbpy_clear(lfbpy_ref* ref) { GUARDED(lfb_clear(h)); }
int lfbpy_flush(lfbpy_ref* ref) { GUARDED(lfb_flush(h)); }
int lfbpy_rotate(lfbpy_ref* ref) { GUARDED(lfb_rotate(h)); }
int lfbpy_publish(lfbpy_ref* ref) { GUARDED(lfb_publish(h)); }
int lfbpy_equal(lfbpy_ref* a, lfbpy_ref* b) { GUARDED2(a, b, lfb_equal(ha, hb)); }
int lfbpy_union(lfbpy_ref* a, lfbpy_ref* b) { GUARDED2(a, b, lfb_union(ha, hb)); }
int lfbpy_intersect(lfbpy_ref* a, lfbpy_ref* b) { GUARDED2(a, b, lfb_intersect(ha, hb)); }

/* The calls that take a filter over: on success the swap owns its handle; on failure it goes
 * back to its Python object unchanged. */
int lfbpy_create_swap(lfbpy_ref* initial, lfb_handle** out) {
    lfb_handle* taken = detach(initial);
    if (taken == NULL) return LFBPY_IN_USE;
    int status = lfb_create_swap(taken, out);
    if (status != LFB_OK) reattach(initial);
    return status;
}

static int take_over(lfbpy_ref* ref, lfbpy_ref* next, int (*call)(lfb_handle*, lfb_handle*)) {
    lfb_handle* h = lfbpy_enter(ref);
    if (h == NULL) return LFBPY_CLOSED;
    lfb_handle* taken = detach(next);
    int status = taken == NULL ? LFBPY_IN_USE : call(h, taken);
    if (taken != NULL && status != LFB_OK) reattach(next);
    lfbpy_leave(ref);
    return status;
}
int lfbpy_stage(lfbpy_ref* ref, lfbpy_ref* next) { return take_over(ref, next, lfb_stage); }
int lfbpy_replace(lfbpy_ref* ref, lfbpy_ref* next) { return take_over(ref, next, lfb_replace); }

int lfbpy_batch(lfbpy_ref* ref, uint32_t op, const char* data, const uint64_t* offsets, uint64_t count,
                uint8_t* results, uint64_t* positive, uint64_t* done) {
    lfb_batch batch = {.struct_size = sizeof batch, .op = op, .count = count, .data = data,
                       .offsets = offsets, .results = results};
    lfb_handle* h = lfbpy_enter(ref);
    if (h == NULL) return LFBPY_CLOSED;
    int status = lfb_batch_run(h, &batch);
    lfbpy_leave(ref);
    *positive = batch.positive;
    *done = batch.done;
    return status;
}

/* Keys of `width` bytes end to end (a NumPy uint64 array, any buffer): the offsets are made here, a
 * chunk at a time, so the caller's buffer is used as it is and nothing of its size is allocated. */
int lfbpy_batch_fixed(lfbpy_ref* ref, uint32_t op, const char* data, uint64_t width, uint64_t count,
                      uint8_t* results, uint64_t* positive, uint64_t* done) {
    enum { CHUNK = 2048 };
    uint64_t offsets[CHUNK + 1];
    *positive = *done = 0;
    lfb_handle* h = lfbpy_enter(ref);
    if (h == NULL) return LFBPY_CLOSED;
    int status = LFB_OK;
    for (uint64_t first = 0; first < count && status == LFB_OK; first += CHUNK) {
        uint64_t n = count - first < CHUNK ? count - first : CHUNK;
        for (uint64_t i = 0; i <= n; ++i) offsets[i] = i * width;
        lfb_batch batch = {.struct_size = sizeof batch, .op = op, .count = n,
                           .data = data + first * width, .offsets = offsets,
                           .results = results == NULL ? NULL : results + first};
        status = lfb_batch_run(h, &batch);
        *positive += batch.positive;
        *done = first + batch.done;
    }
    lfbpy_leave(ref);
    return status;
}
"""

ffibuilder = FFI()
ffibuilder.cdef(CDEF)
# setup.py's build_ext gives the header's and the library's directories.
ffibuilder.set_source(
    "lfbloom._native",
    SOURCE,
    libraries=[":liblfbloom.so.1"],
    extra_compile_args=["-std=c11"],
    # The library sits next to the module in the installed package: no LD_LIBRARY_PATH needed.
    extra_link_args=["-Wl,-rpath,$ORIGIN"],
    # abi3, except on a free-threaded CPython, which has no limited API before 3.15: cffi (2.x)
    # then builds against the full API itself; this says so rather than leave it to cffi's notice.
    py_limited_api=not sysconfig.get_config_var("Py_GIL_DISABLED"),
)
