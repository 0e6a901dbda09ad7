/* lfbloom._hot: the hot path of lfbloom's Python package, hand-written against CPython's limited
 * API of 3.10 (abi3, so the one wheel serves 3.10 to 3.13) over the C ABI of lfbloom.h.
 *
 * Why not cffi for these: a cffi call releases and takes back the GIL (about 160 ns here), while
 * one add or lookup is about 50 ns of work, so single calls were 2 to 5 times slower than rbloom's.
 * Here `key in f` and `f.add(key)` are C slots of the filter's base class that keep the GIL, and a
 * list batch converts its str, bytes and int keys in C, a chunk at a time, releasing the GIL for
 * each chunk's lfb_batch_run.
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
        for (int i = 0; i < 8; ++i) int_bytes[i] = (unsigned char)(bits >> (8 * i));
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

/* Keys a chunk of a list batch: its offsets and answers live on the stack, and its bytes in one
 * buffer reused from chunk to chunk. Large per-call buffers cost more than they save: each was
 * fresh pages from the kernel (zeroed: 11% of a batch's time in perf). The GIL is released once a
 * chunk, about 100 ns against the chunk's ~100 microseconds of work. */
enum { CHUNK = 4096 };

static PyObject* item(PyObject* keys, int is_list, Py_ssize_t i) {
    return is_list ? PyList_GetItem(keys, i) : PyTuple_GetItem(keys, i);
}

static Py_ssize_t size_of(PyObject* keys, int is_list) {
    return is_list ? PyList_Size(keys) : PyTuple_Size(keys);
}

/* _batch_list(op, keys, want_results) -> (status, positive, done, results) or None.
 *
 * keys: a list or tuple whose items are all exact str, bytes or in-range int; None for anything
 * else (the caller packs it the Python way, which converts or raises). Every key is checked before
 * the first is processed, so a bad key changes nothing. Then, a chunk at a time, the keys are
 * copied end to end with the GIL held (a list changed by another thread meanwhile cannot free a key
 * under us) and the GIL is released for lfb_batch_run. results: a list of bools, or None. */
static PyObject* core_batch_list(PyObject* self, PyObject* args) {
    unsigned int op;
    PyObject* keys;
    int want_results;
    if (!PyArg_ParseTuple(args, "IOp", &op, &keys, &want_results)) return NULL;
    int is_list = PyList_CheckExact(keys);
    if (!is_list && !PyTuple_CheckExact(keys)) Py_RETURN_NONE;
    Py_ssize_t count = size_of(keys, is_list);
    const char* data;
    Py_ssize_t len;
    unsigned char int_bytes[8];
    for (Py_ssize_t i = 0; i < count; ++i) { /* nothing here runs Python code: the list holds still */
        int fast = fast_key(item(keys, is_list, i), &data, &len, int_bytes);
        if (fast < 0) return NULL;
        if (fast == 0) Py_RETURN_NONE;
    }
    PyObject* answers = want_results ? PyList_New(count) : Py_None;
    if (answers == NULL) return NULL;
    if (!want_results) Py_INCREF(answers);
    size_t capacity = 1 << 16;
    char* buffer = malloc(capacity);
    if (buffer == NULL) {
        Py_DECREF(answers);
        return PyErr_NoMemory();
    }
    uint64_t offsets[CHUNK + 1];
    uint8_t results[CHUNK];
    lfbpy_ref* ref = ((Core*)self)->ref;
    int status = ref == NULL ? LFBPY_CLOSED : LFB_OK;
    uint64_t positive = 0, done = 0;
    int python_error = 0; /* an exception is set: the list changed, or no memory */
    for (Py_ssize_t first = 0; first < count && status == LFB_OK && !python_error; first += CHUNK) {
        Py_ssize_t n = count - first < CHUNK ? count - first : CHUNK;
        if (size_of(keys, is_list) < first + n) {
            python_error = 1;
            PyErr_SetString(PyExc_RuntimeError, "lfbloom: the list of keys shrank during the batch");
            break;
        }
        offsets[0] = 0;
        for (Py_ssize_t i = 0; i < n && !python_error; ++i) {
            int fast = fast_key(item(keys, is_list, first + i), &data, &len, int_bytes);
            if (fast <= 0) {
                python_error = 1;
                if (fast == 0)
                    PyErr_SetString(PyExc_RuntimeError, "lfbloom: the list of keys changed during the batch");
                break;
            }
            offsets[i + 1] = offsets[i] + (uint64_t)len;
            if (offsets[i + 1] > capacity) {
                while (offsets[i + 1] > capacity) capacity *= 2;
                char* larger = realloc(buffer, capacity);
                if (larger == NULL) {
                    python_error = 1;
                    PyErr_NoMemory();
                    break;
                }
                buffer = larger;
            }
            memcpy(buffer + offsets[i], data, (size_t)len);
        }
        if (python_error) break;
        lfb_batch batch = {.struct_size = sizeof batch, .op = op, .count = (uint64_t)n, .data = buffer,
                           .offsets = offsets, .results = want_results ? results : NULL};
        Py_BEGIN_ALLOW_THREADS
        lfb_handle* handle = lfbpy_enter(ref);
        if (handle == NULL) {
            status = LFBPY_CLOSED;
        } else {
            status = lfb_batch_run(handle, &batch);
            lfbpy_leave(ref);
        }
        Py_END_ALLOW_THREADS
        if (status == LFBPY_CLOSED) break;
        positive += batch.positive;
        done = (uint64_t)first + batch.done;
        for (uint64_t i = 0; want_results && i < batch.done; ++i) {
            PyObject* answer = results[i] == 1 ? Py_True : Py_False;
            Py_INCREF(answer);
            PyList_SetItem(answers, first + (Py_ssize_t)i, answer); /* steals the reference */
        }
    }
    free(buffer);
    if (python_error) {
        Py_DECREF(answers);
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
    return 0;
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
