/* lfbloom._hot: the hot path of lfbloom's Python package, hand-written against CPython's limited
 * API of 3.10 (abi3, so the one wheel serves 3.10 to 3.13) over the C ABI of lfbloom.h.
 *
 * Why not cffi for these: a cffi call releases and takes back the GIL (about 160 ns here), while
 * one add or lookup is about 50 ns of work, so single calls were 2 to 5 times slower than rbloom's.
 * Here `key in f` and `f.add(key)` are C slots of the filter's base class that keep the GIL, and a
 * list batch converts its str, bytes and int keys in C, a window at a time, releasing the GIL for
 * each window's lfb_batch_run.
 *
 * Only exact str (UTF-8), bytes and int (8 little-endian bytes, two's complement) take this path;
 * every other key, and every error, goes back to the Python methods of lfbloom._filters
 * (_add_slow, _contains_slow, _fail), so a key's bytes and the exceptions are defined once there.
 * Every call enters and leaves the close-safety guard (guard.h), as the cffi module's calls do.
 */
#include <pyconfig.h> /* Py_GIL_DISABLED: a free-threaded CPython has no limited API (before 3.15) */
#ifndef Py_GIL_DISABLED
#define Py_LIMITED_API 0x030A0000
#endif
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdlib.h>
#include <string.h>

#include "guard.h"

typedef struct {
    PyObject_HEAD
    lfbpy_ref* ref; /* owned by the Python object's cffi guard (Filter._ref), which outlives it */
} Core;

/* A key's bytes: 1 converted, 0 not an exact str, bytes or in-range int (the caller takes the
 * Python way, which converts or raises), -1 with an exception set. */
static int fast_key(PyObject* key, const char** data, Py_ssize_t* len, unsigned char int_bytes[8]) {
    if (PyUnicode_CheckExact(key)) {
        *data = PyUnicode_AsUTF8AndSize(key, len); /* kept inside the str: no copy after the first */
        return *data == NULL ? -1 : 1;
    }
    if (PyBytes_CheckExact(key)) {
        char* bytes;
        if (PyBytes_AsStringAndSize(key, &bytes, len) < 0) return -1;
        *data = bytes;
        return 1;
    }
    if (PyLong_CheckExact(key)) { /* bool is not exact int: refused by the Python way */
        int overflow;
        long long value = PyLong_AsLongLongAndOverflow(key, &overflow);
        unsigned long long bits = (unsigned long long)value;
        if (overflow < 0) return 0;
        if (overflow == 0 && value == -1 && PyErr_Occurred()) return -1;
        if (overflow > 0) {
            bits = PyLong_AsUnsignedLongLong(key);
            if (bits == (unsigned long long)-1 && PyErr_Occurred()) {
                PyErr_Clear(); /* 2**64 or more: the Python way raises ValueError */
                return 0;
            }
        }
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        memcpy(int_bytes, &bits, 8); /* one store (GCC kept the loop below as a loop: 40% of this function) */
#else
        for (int i = 0; i < 8; ++i) int_bytes[i] = (unsigned char)(bits >> (8 * i));
#endif
        *data = (const char*)int_bytes;
        *len = 8;
        return 1;
    }
    return 0;
}

/* One single-key call, under the GIL (it is ~50 ns of work; releasing the GIL costs more). */
static int run_one(Core* self, int (*call)(lfb_handle*, const void*, uint64_t), const char* data,
                   Py_ssize_t len) {
    if (self->ref == NULL) return LFBPY_CLOSED;
    lfb_handle* handle = lfbpy_enter(self->ref);
    if (handle == NULL) return LFBPY_CLOSED;
    int status = call(handle, data, (uint64_t)len);
    lfbpy_leave(self->ref);
    return status;
}

static int contains_call(lfb_handle* handle, const void* key, uint64_t len) {
    return lfb_contains(handle, key, len);
}

/* Raises the exception of a status through the Python method _fail; always NULL. */
static PyObject* fail(PyObject* self, int status, const char* what) {
    PyObject* result = PyObject_CallMethod(self, "_fail", "is", status, what);
    Py_XDECREF(result);
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_SystemError, "lfbloom: _fail returned");
    return NULL;
}

static PyObject* core_add(PyObject* self, PyObject* key) {
    const char* data;
    Py_ssize_t len;
    unsigned char int_bytes[8];
    int fast = fast_key(key, &data, &len, int_bytes);
    if (fast < 0) return NULL;
    if (fast == 0) return PyObject_CallMethod(self, "_add_slow", "(O)", key);
    int status = run_one((Core*)self, lfb_add, data, len);
    if (status < 0) return fail(self, status, "add");
    return PyBool_FromLong(status == 1);
}

static int core_contains(PyObject* self, PyObject* key) {
    const char* data;
    Py_ssize_t len;
    unsigned char int_bytes[8];
    int fast = fast_key(key, &data, &len, int_bytes);
    if (fast < 0) return -1;
    if (fast == 0) {
        PyObject* result = PyObject_CallMethod(self, "_contains_slow", "(O)", key);
        if (result == NULL) return -1;
        int truth = PyObject_IsTrue(result);
        Py_DECREF(result);
        return truth;
    }
    int status = run_one((Core*)self, contains_call, data, len);
    if (status < 0) {
        fail(self, status, "contains");
        return -1;
    }
    return status == 1;
}

/* _bind(address): the lfbpy_ref this object's calls go through (an int from cffi). */
static PyObject* core_bind(PyObject* self, PyObject* address) {
    void* ref = PyLong_AsVoidPtr(address);
    if (ref == NULL && PyErr_Occurred()) return NULL;
    ((Core*)self)->ref = ref;
    Py_RETURN_NONE;
}

/* A list batch converts its keys with the GIL held and gives them to lfb_batch_run by address
 * (lfb_batch.keys): an int's 8 bytes and a str's UTF-8 or a bytes object's buffer of up to 16
 * bytes copied into the batch's own memory; a longer str's UTF-8 (kept inside it) or bytes
 * object's buffer in place, a reference to the key keeping it alive while the GIL is released for
 * the run (another thread may change the list meanwhile: the keys run are the ones read). Short
 * keys copied, their objects are read once instead of three times (converted, hashed, released):
 * measured in one process against holding references, a Python update of 200,000 `user:N` keys
 * 8-12% less time into a fresh filter, 16% for keys already present. Nothing runs before every
 * key has been checked, so a bad key changes nothing:
 * - up to ONE_PASS keys (scratch memory: 33 bytes a key, 35 MB at most) are converted in one
 *   pass, then run a WINDOW of keys at a time;
 * - a longer list is checked in a first pass over every key (the same conversion, nothing kept),
 *   then converted and run a WINDOW of keys at a time, whose objects are still in the cache when
 *   the library hashes them.
 * Before, every key was converted twice, once to check it and once to copy its bytes into a
 * buffer chunk by chunk, with a libc memcpy call each: in perf, 40% of a list of ints' time went
 * to that, the PyLong conversions and the list reads; one pass and no copy took a list batch of
 * 200,000 ints from 34 to 50 M keys a CPU-second here. (Windows of 2^16 keys after a check ran
 * lookups slower than windows of 2^12 here: about 4 MB of str objects a window, against a 1 MiB
 * L2, where 2^12 take about 250 KB.) */
enum { ONE_PASS = 1 << 20, WINDOW = 1 << 12 };

typedef union {
    PyObject* held;          /* a longer str or bytes key: the reference held while its bytes are read */
    unsigned char bytes[16]; /* the bytes its lfb_key points to: an int's 8 (little-endian), a short key's */
} key_store;

/* Copies len <= 16 bytes with two overlapping loads and stores (no call, nothing read past the key). */
static void copy_short(unsigned char* to, const char* from, Py_ssize_t len) {
    if (len >= 8) {
        uint64_t a, b;
        memcpy(&a, from, 8);
        memcpy(&b, from + len - 8, 8);
        memcpy(to, &a, 8);
        memcpy(to + len - 8, &b, 8);
    } else if (len >= 4) {
        uint32_t a, b;
        memcpy(&a, from, 4);
        memcpy(&b, from + len - 4, 4);
        memcpy(to, &a, 4);
        memcpy(to + len - 4, &b, 4);
    } else {
        for (Py_ssize_t i = 0; i < len; ++i) to[i] = (unsigned char)from[i];
    }
}

typedef struct {
    lfb_key* keys;
    key_store* store;
    uint8_t* results;
} window;

static PyObject* item(PyObject* keys, int is_list, Py_ssize_t i) {
    return is_list ? PyList_GetItem(keys, i) : PyTuple_GetItem(keys, i);
}

static Py_ssize_t size_of(PyObject* keys, int is_list) {
    return is_list ? PyList_Size(keys) : PyTuple_Size(keys);
}

/* Drops the references a window holds to its keys from .. to - 1 (the GIL held). */
static void release_window(window* w, Py_ssize_t from, Py_ssize_t to) {
    for (Py_ssize_t i = from; i < to; ++i)
        if (w->keys[i].data != w->store[i].bytes) Py_DECREF(w->store[i].held);
}

/* Converts keys first .. first + n - 1 into w, copying short keys, holding a reference to each
 * longer str and bytes key.
 * Returns how many it converted: n, or fewer when it met a key that is not an exact str, bytes or
 * in-range int (*failure 0) or that raised (*failure -1, an exception set). Runs no Python code. */
static Py_ssize_t convert_window(PyObject* keys, int is_list, Py_ssize_t first, Py_ssize_t n, window* w,
                                 int* failure) {
    for (Py_ssize_t i = 0; i < n; ++i) {
        PyObject* key = item(keys, is_list, first + i);
        const char* data;
        Py_ssize_t len;
        int fast = fast_key(key, &data, &len, w->store[i].bytes);
        if (fast <= 0) {
            *failure = fast;
            return i;
        }
        if (data != (const char*)w->store[i].bytes) { /* a str or bytes: its own memory */
            if (len <= (Py_ssize_t)sizeof w->store[i].bytes) {
                copy_short(w->store[i].bytes, data, len);
                data = (const char*)w->store[i].bytes;
            } else {
                Py_INCREF(key);
                w->store[i].held = key;
            }
        }
        w->keys[i].data = data;
        w->keys[i].len = (uint64_t)len;
    }
    return n;
}

/* Whether an add of a list's `count` keys builds in bulk (LFB_BATCH_BULK, one thread): into a
 * Bloom or counting filter of at most 2 MiB (the core's bulk_direct_words, whose bulk build sets
 * the keys' bits in one private copy and merges it with one locked OR a word), with at least a
 * quarter as many keys as the filter has words, of which at most 3 in 4 are present already (64
 * keys spread over the list are looked up). Measured from Python, 200,000 keys into a filter of
 * 10^6 at 1%: new keys 52 -> 38 ns a key (str), 47 -> 34 (int) (bench/fresh.py); keys already
 * present took 8% longer in bulk (31 against 28.5 ns: the copy, and each key's object read
 * twice), so they take the adds one by one. A few keys into a large filter would pay for the copy. */
static int builds_in_bulk(lfbpy_ref* ref, PyObject* keys, int is_list, Py_ssize_t count) {
    enum { SAMPLE = 64 };
    lfb_info info = {.struct_size = sizeof info};
    lfb_handle* handle = lfbpy_enter(ref);
    if (handle == NULL) return 0; /* closed: the batch reports it */
    int bulk = lfb_geometry_get(handle, &info) == LFB_OK && info.kind != LFB_KIND_CUCKOO &&
               info.kind < LFB_KIND_SCALABLE && info.bytes <= (2u << 20) && (uint64_t)count * 4 * 8 >= info.bytes &&
               count >= SAMPLE;
    int present = 0;
    for (Py_ssize_t i = 0; bulk && i < SAMPLE; ++i) {
        const char* data;
        Py_ssize_t len;
        unsigned char int_bytes[8];
        if (fast_key(item(keys, is_list, i * (count / SAMPLE)), &data, &len, int_bytes) != 1) {
            PyErr_Clear(); /* the conversion pass meets the key again and raises or takes the Python way */
            bulk = 0;
        } else {
            present += lfb_contains(handle, data, (uint64_t)len) == 1;
        }
    }
    lfbpy_leave(ref);
    return bulk && present * 4 <= SAMPLE * 3;
}

/* _batch_list(op, keys, want_results, bulk=False) -> (status, positive, done, results) or None.
 *
 * keys: a list or tuple whose items are all exact str, bytes or in-range int; None for anything
 * else (the caller packs it the Python way, which converts or raises). Every key is checked before
 * the first is processed, so a bad key changes nothing; a window at a time (above), the GIL is
 * released for lfb_batch_run. results: a list of bools, or None. bulk (update, which wants no
 * answer): an add that builds_in_bulk runs as one bulk build per ONE_PASS keys; positive is 0. */
static PyObject* core_batch_list(PyObject* self, PyObject* args) {
    unsigned int op;
    PyObject* keys;
    int want_results, bulk = 0;
    if (!PyArg_ParseTuple(args, "IOp|p", &op, &keys, &want_results, &bulk)) return NULL;
    int is_list = PyList_CheckExact(keys);
    if (!is_list && !PyTuple_CheckExact(keys)) Py_RETURN_NONE;
    Py_ssize_t count = size_of(keys, is_list);
    lfbpy_ref* ref = ((Core*)self)->ref;
    bulk = bulk && !want_results && op == LFB_OP_ADD && ref != NULL && builds_in_bulk(ref, keys, is_list, count);
    if (count > ONE_PASS) { /* more than one window: check every key first (nothing here runs Python code) */
        const char* data;
        Py_ssize_t len;
        unsigned char int_bytes[8];
        for (Py_ssize_t i = 0; i < count; ++i) {
            int fast = fast_key(item(keys, is_list, i), &data, &len, int_bytes);
            if (fast < 0) return NULL;
            if (fast == 0) Py_RETURN_NONE;
        }
    }
    Py_ssize_t size = count <= ONE_PASS ? count : bulk ? ONE_PASS : WINDOW; /* keys converted at once */
    Py_ssize_t run_size = bulk ? size : WINDOW;                             /* keys a run */
    window w;
    char* memory = malloc((size_t)(size > 0 ? size : 1) * (sizeof(lfb_key) + sizeof(key_store) + 1));
    if (memory == NULL) return PyErr_NoMemory();
    w.keys = (lfb_key*)memory;
    w.store = (key_store*)(memory + (size_t)size * sizeof(lfb_key));
    w.results = (uint8_t*)(memory + (size_t)size * (sizeof(lfb_key) + sizeof(key_store)));
    PyObject* answers = want_results ? PyList_New(count) : Py_None;
    if (answers == NULL) {
        free(memory);
        return NULL;
    }
    if (!want_results) Py_INCREF(answers);
    int status = ref == NULL ? LFBPY_CLOSED : LFB_OK;
    uint64_t positive = 0, done = 0;
    int python_error = 0, not_fast = 0; /* an exception is set (or the list changed); a key for the Python way */
    for (Py_ssize_t first = 0; first < count && status == LFB_OK; first += size) {
        Py_ssize_t n = count - first < size ? count - first : size;
        if (size_of(keys, is_list) < first + n) {
            python_error = 1;
            PyErr_SetString(PyExc_RuntimeError, "lfbloom: the list of keys shrank during the batch");
            break;
        }
        int failure = 0;
        Py_ssize_t converted = convert_window(keys, is_list, first, n, &w, &failure);
        if (converted < n) {
            release_window(&w, 0, converted);
            if (failure < 0) {
                python_error = 1;
            } else if (first == 0) {
                not_fast = 1; /* no key processed yet: the Python way takes the whole list */
            } else {
                python_error = 1;
                PyErr_SetString(PyExc_RuntimeError, "lfbloom: the list of keys changed during the batch");
            }
            break;
        }
        /* Run a WINDOW at a time, each window's references dropped right after its run, while its
         * objects are still in the cache (dropped after the whole run, they were 11% of a list of
         * str's time in perf: a cache miss a key). */
        Py_ssize_t ran = 0;
        while (ran < n && status == LFB_OK) {
            Py_ssize_t m = n - ran < run_size ? n - ran : run_size;
            lfb_batch batch = {.struct_size = sizeof batch, .op = op, .count = (uint64_t)m, .keys = w.keys + ran,
                               .results = want_results ? w.results + ran : NULL,
                               .flags = bulk ? LFB_BATCH_BULK : 0, .threads = bulk ? 1 : 0};
            Py_BEGIN_ALLOW_THREADS
            lfb_handle* handle = lfbpy_enter(ref);
            if (handle == NULL) {
                status = LFBPY_CLOSED;
            } else {
                status = lfb_batch_run(handle, &batch);
                lfbpy_leave(ref);
            }
            Py_END_ALLOW_THREADS
            release_window(&w, ran, ran + m);
            Py_ssize_t start = ran;
            ran += m;
            if (status == LFBPY_CLOSED) break;
            positive += batch.positive;
            done = (uint64_t)(first + start) + batch.done;
            for (uint64_t i = 0; want_results && i < batch.done; ++i) {
                PyObject* answer = w.results[start + (Py_ssize_t)i] == 1 ? Py_True : Py_False;
                Py_INCREF(answer);
                PyList_SetItem(answers, first + start + (Py_ssize_t)i, answer); /* steals the reference */
            }
        }
        release_window(&w, ran, n); /* the windows a failure left unrun */
    }
    free(memory);
    if (python_error || not_fast) {
        Py_DECREF(answers);
        if (not_fast) Py_RETURN_NONE;
        return NULL;
    }
    if (status != LFB_OK && answers != Py_None) { /* the caller raises: no list with holes escapes */
        Py_DECREF(answers);
        answers = Py_None;
        Py_INCREF(answers);
    }
    return Py_BuildValue("iKKN", status, (unsigned long long)positive, (unsigned long long)done, answers);
}

static PyMethodDef core_methods[] = {
    {"add", core_add, METH_O,
     "add(key) -> bool\n--\n\nAdds a key; True if it was new (some bit or counter changed). Thread-safe, "
     "lock-free (a cuckoo filter locks one stripe); raises RefusalError if a cuckoo or scalable filter "
     "refuses the key (full), having changed nothing. Holds the GIL (a single add is shorter than "
     "releasing it)."},
    {"_bind", core_bind, METH_O, "Binds the object to its guard (an address from cffi)."},
    {"_batch_list", core_batch_list, METH_VARARGS, "A batch over a list or tuple of str, bytes or int keys."},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot core_slots[] = {
    {Py_tp_doc, "The native base of lfbloom.Filter: the single-key calls and list batches."},
    {Py_tp_methods, core_methods},
    {Py_sq_contains, core_contains},
    {0, NULL},
};

static PyType_Spec core_spec = {
    .name = "lfbloom._hot.Core",
    .basicsize = sizeof(Core),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .slots = core_slots,
};

static int exec_module(PyObject* module) {
    PyObject* core = PyType_FromSpec(&core_spec);
    if (core == NULL) return -1;
    if (PyModule_AddObject(module, "Core", core) < 0) {
        Py_DECREF(core);
        return -1;
    }
    /* The longest list a batch converts in one pass (the tests cross it). */
    return PyModule_AddIntConstant(module, "ONE_PASS", ONE_PASS);
}

/* Free-threaded CPython (setup.py builds this against its full API there): nothing here needs the
 * GIL. No mutable global state; a Core's ref is set once, before the object is shared; the guard
 * is atomic; a key's bytes come from the key object the caller holds; a list batch reads borrowed
 * items, so there lfbloom._filters hands it a tuple snapshot instead of a list. */
static PyModuleDef_Slot module_slots[] = {
    {Py_mod_exec, exec_module},
#ifdef Py_GIL_DISABLED
    {Py_mod_gil, Py_MOD_GIL_NOT_USED},
#endif
    {0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "lfbloom._hot",
    .m_doc = "lfbloom's hot path: single-key calls that keep the GIL, list batches converted in C.",
    .m_size = 0,
    .m_slots = module_slots,
};

PyMODINIT_FUNC PyInit__hot(void) { return PyModuleDef_Init(&module_def); }
