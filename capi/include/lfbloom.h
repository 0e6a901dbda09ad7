/*
 * lfbloom.h: the stable C ABI of lfbloom (liblfbloom.so.1), for C and any language with a C FFI.
 *
 * What is where
 * - A filter, of whatever kind, is one opaque handle: lfb_handle. The kinds are the Bloom layouts,
 *   counting and cuckoo filters, and composites made of them (scalable, rotating, swappable); an
 *   lfb_spec names the kind and its size, and every call takes the handle.
 * - The simple API comes first and is all most programs need: lfb_spec_init_size, lfb_create,
 *   lfb_add, lfb_contains, lfb_free; saving and loading (lfb_save, lfb_load and their forms for
 *   files and descriptors); the status codes those calls return, with lfb_strerror and
 *   lfb_last_error to explain one; then enum lfb_kind and the fields of lfb_spec.
 * - Then the conventions and thread-safety rules, which hold for every call, simple or not.
 * - Then the advanced API: what each kind does in detail, removes and counts, batches (many keys
 *   a call, bulk builds), describing and planning a filter, files that several processes map at
 *   once, copies and set operations, the calls only some kinds take (rotation, a swap's stage and
 *   publish), a Bloom filter's words for bindings, and the library's versions and names.
 * - The per-kind handles and calls of lfbloom 1.0 to 1.6 (lfb_filter_*, lfb_counting_*,
 *   lfb_scalable_*, lfb_rotating_*, lfb_swap_*) are in lfbloom_legacy.h, which this header
 *   includes at its end, so their callers compile unchanged. New code needs none of them.
 */
#ifndef LFBLOOM_H
#define LFBLOOM_H

#include <stddef.h>
#include <stdint.h>

#if defined(SWIG)
#define LFB_API
#elif defined(_WIN32)
#define LFB_API __declspec(dllexport)
#else
#define LFB_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define LFB_VERSION_MAJOR 1
#define LFB_VERSION_MINOR 14
#define LFB_VERSION_PATCH 4
/** The ABI version: the SONAME major. It changes only when existing calls would break. */
#define LFB_ABI_VERSION 1

/* ==== simple API ============================================================================== */

typedef struct lfb_handle lfb_handle;
typedef struct lfb_spec lfb_spec; /* what lfb_create builds: defined below, after the statuses */

/** Since 1.9: fills all `size` bytes of *spec (pass sizeof(lfb_spec) as compiled) with the
 *  defaults, every field this library does not know 0, and sets struct_size to `size`. */
LFB_API int lfb_spec_init_size(lfb_spec* spec, uint32_t size);
/** A filter of spec->kind sized for (capacity, fpr), or (since 1.9) of the exact (slots, hashes);
 *  since 1.9 also the composites LFB_KIND_SCALABLE and LFB_KIND_ROTATING. */
LFB_API int lfb_create(const lfb_spec* spec, lfb_handle** out);
/**
 * Adds a key: 1 if it was new (a Bloom filter: some bit changed; counting: some counter was 0;
 * cuckoo: no copy of its fingerprint was in its buckets; a composite: as the filter it adds to),
 * 0 if not. A cuckoo filter may refuse with LFB_ERR_FULL (no free slot within its search bound)
 * or LFB_ERR_TOO_MANY_DUPLICATES, a scalable one with LFB_ERR_FULL at its cap; it then changed
 * nothing and lost nothing. A swap adds to its current filter and to the staged one, if any, and
 * answers for the current one.
 */
LFB_API int lfb_add(lfb_handle* handle, const void* key, uint64_t len);
/** 1 if the key may have been added, 0 if it certainly was not. Lock-free for every kind. */
LFB_API int lfb_contains(const lfb_handle* handle, const void* key, uint64_t len);
/** Releases the filter. NULL is a no-op. No other thread may be using it. */
LFB_API void lfb_free(lfb_handle* handle);

/* Serialized formats. */
enum lfb_format {
    LFB_FORMAT_NATIVE = 1, /* lfbloom's own: versioned, checksummed, every layout (docs/FORMAT.md) */
    LFB_FORMAT_GUAVA = 2,  /* Guava's BloomFilter.writeTo: classic layout, seed 0 only */
    LFB_FORMAT_PARQUET = 3 /* since 1.13: a Parquet split-block bitset: split-block layout, seed 0 only (below) */
};
/* The bytes lfb_load_size needs to tell a saved filter's length. */
#define LFB_NATIVE_HEADER_BYTES 80
#define LFB_GUAVA_HEADER_BYTES 6
/*
 * Since 1.13, LFB_FORMAT_PARQUET: the bitset of a Parquet column chunk's split-block Bloom filter,
 * as a Parquet file stores it after the chunk's BloomFilterHeader (algorithm BLOCK, hash XXHASH,
 * compression UNCOMPRESSED): numBytes bytes, the 32-bit words little-endian, no header of its own.
 * lfb_save, lfb_save_file, lfb_save_fd and lfb_serialized_size take it for an LFB_KIND_SPLIT_BLOCK
 * filter of seed 0 (which hashes keys as Parquet does: XXH64 of the key's bytes, seed 0; a Parquet
 * INT64 value is 8 bytes little-endian, a BYTE_ARRAY its bytes) whose bitset is at most
 * LFB_PARQUET_MAX_BYTES; any other filter gets LFB_ERR_INCOMPATIBLE. The save holds every add that
 * completed before it began, as every save does. lfb_load and lfb_load_file read a split-block
 * filter from exactly `len` bytes (the whole file), which must be a positive multiple of 32 and at
 * most LFB_PARQUET_MAX_BYTES (else LFB_ERR_INVALID_ARGUMENT), checked with memory_limit
 * (LFB_ERR_TOO_LARGE) before anything is allocated; lfb_load_fd reads the rest of a regular file
 * and refuses a pipe or socket, whose length it cannot know (LFB_ERR_INVALID_ARGUMENT), as
 * lfb_load_size refuses the format: the length is numBytes of the header before the bitset.
 * Parquet writers (parquet-mr, Arrow) make powers of two from 32 bytes to 128 MiB; parquet-mr and
 * DuckDB read any multiple of 32, but a reader may expect a power of two: for a bitset of a given
 * size, create the filter with exact `slots` (8 x the bytes) and `hashes` 8.
 */
#define LFB_PARQUET_MAX_BYTES 2147483616u /* numBytes is a Thrift i32: the largest multiple of 32 below 2^31 */

/*
 * Saving and loading. A save may run while other threads add: it holds every add that completed
 * before the save began (a cuckoo filter's adds and removes wait while it is written, its writer
 * gate, docs/FORMAT.md). A swap saves its current filter. Since 1.12 scalable and rotating filters
 * save and load too, with every part (a scalable cuckoo filter's pending removes, a rotating
 * filter's ring and the time left to its next rotation: a clocked one counts the wall-clock time
 * between save and load, a manual-tick one goes on in the caller's time); a scalable filter's save
 * holds its sub-filters of when it began, and a rotating filter's rotations wait for it. Loads
 * validate everything (and the memory limit, 0 = none) before allocating; they fail with
 * LFB_ERR_CORRUPT, LFB_ERR_UNSUPPORTED_VERSION, LFB_ERR_TOO_LARGE or LFB_ERR_IO.
 */
/** The exact number of bytes lfb_save writes in `format` (LFB_FORMAT_NATIVE for every layout;
 *  LFB_FORMAT_GUAVA for classic filters of seed 0). A swap's is its current filter's, which a
 *  replace racing with the two calls can change, as a scalable filter growing between them
 *  changes its own: lfb_save then fails, LFB_ERR_INVALID_ARGUMENT, if it no longer fits the
 *  buffer (ask again). */
LFB_API int lfb_serialized_size(const lfb_handle* handle, uint32_t format, uint64_t* size);
/** Writes the filter into buffer[0 .. capacity); *written (if not NULL) gets the byte count. */
LFB_API int lfb_save(const lfb_handle* handle, uint32_t format, void* buffer, uint64_t capacity, uint64_t* written);
/** Writes the filter to `path` atomically; a new file gets `mode` (0 to 0777) less the umask. */
LFB_API int lfb_save_file(const lfb_handle* handle, uint32_t format, const char* path, uint32_t mode);
/** Since 1.9: writes the filter to an open file descriptor (a pipe, a socket), in chunks. A write
 *  to a pipe or socket whose reader has gone raises SIGPIPE, as write(2) does: a process that
 *  streams to one should ignore SIGPIPE (Go's and Java's runtimes do), then the call fails with
 *  LFB_ERR_IO. */
LFB_API int lfb_save_fd(const lfb_handle* handle, uint32_t format, int fd);
/** Loads whatever filter exactly `len` bytes hold; memory_limit 0 = none. */
LFB_API int lfb_load(uint32_t format, const void* data, uint64_t len, uint64_t memory_limit, lfb_handle** out);
/** Loads whatever filter the file at `path` holds (it must hold exactly one). */
LFB_API int lfb_load_file(uint32_t format, const char* path, uint64_t memory_limit, lfb_handle** out);
/** Since 1.9: loads one filter from a file descriptor, from its offset, reading no further than
 *  the filter's end. From a regular file, a header declaring more than the file holds is refused
 *  before anything is allocated; from a pipe, memory grows only with the bytes that arrive. */
LFB_API int lfb_load_fd(uint32_t format, int fd, uint64_t memory_limit, lfb_handle** out);
/** Since 1.9: the whole length (*total) and the enum lfb_kind (*kind, if not NULL) of the saved
 *  filter whose first `len` bytes are `head` (at least LFB_NATIVE_HEADER_BYTES or
 *  LFB_GUAVA_HEADER_BYTES), from its validated header: so a binding reads exactly one filter from a
 *  stream, and refuses a kind it does not take before reading the rest, without parsing the format
 *  itself. LFB_ERR_CORRUPT or LFB_ERR_UNSUPPORTED_VERSION for a bad header, LFB_ERR_TOO_LARGE past
 *  memory_limit (0 = none). */
LFB_API int lfb_load_size(uint32_t format, const void* head, uint64_t len, uint64_t memory_limit, uint64_t* total,
                          uint32_t* kind);
/** Since 1.14: lfb_load_size, and *sub_kind (if not NULL) gets the sub_kind lfb_info will report of
 *  the loaded filter: a scalable filter's sub-filters' kind (LFB_KIND_BLOCKED or LFB_KIND_CUCKOO),
 *  LFB_KIND_BLOCKED for a rotating filter's generations, a layout's own kind. So a binding refuses a
 *  scalable cuckoo filter offered as a scalable Bloom filter from its header, not once loaded. */
LFB_API int lfb_load_size_kinds(uint32_t format, const void* head, uint64_t len, uint64_t memory_limit, uint64_t* total,
                                uint32_t* kind, uint32_t* sub_kind);

/* Status codes. Values are part of the ABI: never renumbered, never reused. */
enum lfb_status {
    LFB_OK = 0,                       /* success */
    LFB_ERR_INVALID_ARGUMENT = -1,    /* NULL handle or pointer, or a value outside its domain */
    LFB_ERR_OUT_OF_MEMORY = -2,       /* the system refused the allocation */
    LFB_ERR_TOO_LARGE = -3,           /* the filter would exceed the memory limit or the machine */
    LFB_ERR_INCOMPATIBLE = -4,        /* merge of filters of different layout, geometry or seed; a remove from a filter that has none; a file of a layout the handle does not hold
                                         (or not what lfb_open_shared's spec asks, or a cuckoo file in use with another C library's locks) */
    LFB_ERR_NOT_PRESENT = -5,         /* remove of a key that is not in the counting filter */
    LFB_ERR_CORRUPT = -6,             /* serialized data fails validation */
    LFB_ERR_UNSUPPORTED_VERSION = -7, /* struct_size or data from a newer lfbloom */
    LFB_ERR_IO = -8,                  /* reading or writing failed */
    LFB_ERR_INTERNAL = -9,            /* a bug in lfbloom: please report it */
    LFB_ERR_FULL = -10,               /* a scalable filter reached its cap on sub-filters or memory (1.1) */
    LFB_ERR_READ_ONLY = -11,          /* a write to a filter opened read-only (1.4) */
    LFB_ERR_TOO_MANY_DUPLICATES = -12, /* a cuckoo filter holds 8 copies of the key's fingerprint already, 10 with 14-bit fingerprints (1.5) */
    LFB_ERR_AMBIGUOUS = -13,          /* a growing cuckoo filter's remove of a key that matches in two sub-filters, with its list of pending removes full: nothing removed (1.6; since 1.10 only with the list full) */
    LFB_ERR_TIMEOUT = -14             /* a writer of a shared cuckoo filter waited longer than its lock timeout (lfb_set_lock_timeout) for a lock (1.10) */
};

/** A static description of a status code ("unknown status" for other values). */
LFB_API const char* lfb_strerror(int code);
/** This thread's message for its most recent failed call ("" if none). Valid until this thread's next failing call. */
LFB_API const char* lfb_last_error(void);

/* Filter kinds: the layouts, numbered as in saved files (docs/FORMAT.md), then the composites. */
enum lfb_kind {
    LFB_KIND_CLASSIC = 1,     /* Bloom, k probes anywhere: bit-exact with Guava's BloomFilter, flaws included */
    LFB_KIND_BLOCKED = 2,     /* Bloom, k probes in one 64-byte cache line: one cache miss per call (the default) */
    LFB_KIND_COUNTING = 3,    /* blocked, with 4- or 8-bit counters: removes */
    LFB_KIND_SPLIT_BLOCK = 4, /* Bloom, Parquet's split-block filter: 8 bits in one 256-bit block, XXH64 (seed 0 is Parquet's) */
    LFB_KIND_ONE_WORD = 5,    /* Bloom, k probes in one 64-bit word: the fastest, at the highest rate for its memory */
    LFB_KIND_TWO_WORD = 6,    /* Bloom, k probes in one pair of 64-bit words */
    LFB_KIND_CUCKOO = 7,      /* cuckoo: removes; smaller than blocked below about 0.2% (14-, 16- or 17-bit fingerprints) */
    LFB_KIND_SCALABLE = 16,   /* since 1.9: grows by sub-filters (blocked, or cuckoo: removes) */
    LFB_KIND_ROTATING = 17,   /* since 1.9: a ring of blocked generations whose keys expire */
    LFB_KIND_SWAP = 18        /* since 1.9: a filter replaced atomically while in use (lfb_create_swap) */
};

/* What lfb_create builds. Initialize with lfb_spec_init_size(&spec, sizeof spec) (kind blocked,
 * 4-bit counters, every other field 0 = its default; since 1.9) or lfb_spec_init (the fields
 * before slots only), then set capacity and fpr, or slots and hashes, and what else you need. */
struct lfb_spec {
    uint32_t struct_size;  /* sizeof(lfb_spec) as the caller compiled it */
    uint32_t kind;         /* enum lfb_kind (not LFB_KIND_SWAP: lfb_create_swap makes those) */
    uint64_t capacity;     /* distinct keys it must hold; > 0 (scalable: its first sub-filter; rotating: per period) */
    double fpr;            /* false-positive rate at capacity, in (0, 1) (composites: of the whole); a cuckoo filter refuses rates below about 0.003% */
    uint64_t seed;         /* hash seed (default 0) */
    uint64_t memory_limit; /* bytes the filter may use (composites: the sum); 0 = only the machine's memory */
    uint32_t counter_bits; /* counting: 4 or 8. Cuckoo (1.7): the fingerprint width, which fixes the bucket
                              format: 14 (5 per bucket), 16 (4, the fastest reads), 17 (4); 0 or
                              lfb_spec_init's 4 = the fewest bytes for fpr (16 on ties): 14 from about
                              0.046% up, 16 down to 0.0115%, 17 below; other values are refused. Before 1.7
                              always 16, and the field ignored. lfb_open_shared with 0 or 4 also
                              opens a file this spec made with another width (a 1.5/1.6 file). */
    uint32_t flags;        /* LFB_OPTION_PROCESS_SHARED (layouts only) */
    /* Since 1.9: an exact geometry instead of a sizing. slots > 0 makes exactly `slots` bits
       (counters of a counting filter) and `hashes` probes (1 to 255); capacity and fpr must then
       be 0, and the filter records the capacity and rate they imply. slots must be a multiple
       of the block: 64 bits (classic, one-word), 128 (two-word), 256 (split-block), 512
       (blocked), 128 counters (4-bit) or 64 (8-bit). Cuckoo filters and composites are sized
       from capacity and fpr only. 0 (lfb_spec_init) = size from capacity and fpr. */
    uint64_t slots;
    uint32_t hashes;
    /* Since 1.9: the composites' own parameters (see enum lfb_kind); 0 = the default. */
    uint32_t sub_kind;     /* scalable: LFB_KIND_BLOCKED (2; 0 means it too) or LFB_KIND_CUCKOO sub-filters */
    double growth;         /* scalable: capacity ratio of consecutive sub-filters, in [1, 2^32] (0 = 2) */
    double tightening;     /* scalable: rate ratio of consecutive sub-filters, in (0, 1) (0 = 0.5) */
    uint32_t max_filters;  /* scalable: cap on sub-filters: 1..255 with Bloom sub-filters, 1..64 with cuckoo ones (0 = 32) */
    uint32_t generations;  /* rotating: G, 2..64 (0 = 2) */
    uint64_t period_ns;    /* rotating: rotate every period_ns nanoseconds (0 = only by lfb_rotate) */
    uint32_t rotating_flags; /* rotating: LFB_ROTATING_DOUBLE_WRITE, LFB_ROTATING_MANUAL_TICK */
    uint32_t reserved;     /* 0 */
};

/* lfb_spec.flags */
#define LFB_OPTION_PROCESS_SHARED 1u /* memory shared with child processes forked after creation */

/* ==== conventions and thread safety =========================================================== */

/*
 * Conventions
 * - One opaque handle, lfb_handle, holds a filter of any kind (enum lfb_kind): the Bloom layouts, a
 *   counting or cuckoo filter, and the composites (scalable, rotating, swappable). Create one with
 *   lfb_create (or lfb_load*, lfb_open_shared, lfb_copy, lfb_create_swap), release it with
 *   lfb_free; lfb_free(NULL) is a no-op. Every kind takes the same calls; the few whose meaning is
 *   a kind's own (remove and count, rotate and tick, stage, publish and replace) say which kinds
 *   have them and return LFB_ERR_INCOMPATIBLE, changing nothing, for the others.
 * - The per-kind handles of lfbloom 1.0 to 1.4 (lfb_filter, lfb_counting, lfb_scalable,
 *   lfb_rotating, lfb_swap) and their calls stay, in lfbloom_legacy.h: each is the one handle
 *   under another name, and each of their calls is one of the one handle's (since 1.9 a pointer
 *   to any of them may be cast to lfb_handle*).
 * - A handle is owned by its creator; nothing in this API keeps a pointer the caller passed in
 *   after the call returns (a swap takes over the handles given to it, as its calls say).
 * - Keys are bytes: a pointer and a uint64_t length. A NULL pointer is allowed only with length 0.
 *   Strings are passed as their UTF-8 bytes; integers as 8 little-endian bytes (as Guava does).
 * - Sizes and counts are uint64_t. Rates are doubles in the open interval (0, 1).
 * - Every function that can fail returns an int: 0 (LFB_OK) or, for yes/no answers, 1 or 0;
 *   a negative LFB_ERR_* code on failure. A failed call changes nothing. lfb_strerror(code) names
 *   a code, lfb_status_name and lfb_status_class classify it; lfb_last_error() gives this thread's
 *   message for its last failure, with detail.
 * - No C++ exception, abort or C++ type crosses this boundary.
 * - Structs that may grow (lfb_spec, lfb_batch, lfb_info, lfb_bit_array, lfb_options, lfb_stats)
 *   start with their own size: set it (or call the init function) so that old callers keep working
 *   with newer libraries. lfb_spec and lfb_info have grown at their end (1.9); a caller compiled
 *   against an older header gets the fields it knows.
 *
 * Thread safety
 * - Every function on a handle may be called from any number of threads at once, except
 *   lfb_free, which needs every other use of that handle to have finished. Adds, queries and
 *   batches are lock-free (a cuckoo filter's adds and removes lock one stripe of buckets at a time;
 *   queries never wait); the calls that wait say so (a swap's stage, publish and replace wait for
 *   its readers, rotations for each other, a cuckoo filter's save and copy pause its writers).
 * - No false negatives: if an add of a key happens-before a query of it (through the caller's
 *   own synchronization), the query answers 1, until the kind's own way of forgetting takes it (a
 *   remove, a clear, a rotation's expiry, a replace). Adds that race with a query may or may not
 *   be seen; there is no ordering between different keys. A clear racing with adds may lose them.
 * - lfb_last_error is per thread; lfb_strerror, lfb_status_name and the version functions return
 *   static strings.
 */

/* ==== advanced API ============================================================================ */

/* ---- the kinds in detail (enum lfb_kind) ----------------------------------------------------- */

/* Classic filters keep Guava's flaw with its bits: a key whose second hash half is 0 probes one
 * bit k times, and under seed 0 (Guava's, the default) the empty key is such a key, "maybe
 * present" in about half of all full classic filters. Give a classic filter never exchanged with
 * Guava a non-zero seed. The other layouts spread every key's probes (probe rule 2 or their own),
 * whatever the seed.
 *
 * Scalable filters: a list of sub-filters; sub-filter i holds capacity * growth^i keys at rate
 * fpr * (1 - tightening) * tightening^i, so the total rate stays below fpr however many there are.
 * Blocked sub-filters: adds go to the newest; a key some sub-filter reports is not added again.
 * Cuckoo sub-filters (which remove keys): an add stores a copy of the key even if present (1 = no
 * sub-filter matched it before), in the one sub-filter that already matches it if that has room,
 * else in the oldest sub-filter below its capacity (so the room removes free is used again before
 * the chain grows); their fingerprints (17 bits at most) reach no rate below about 0.003%, so the
 * chain ends (LFB_ERR_FULL) at the first sub-filter that would need a lower one. Queries check
 * all. Growth is lock-free: nobody waits, at most one successor is installed per sub-filter, none
 * is freed before the filter. An add refused by the cap (max_filters, memory_limit as the sum
 * over sub-filters) returns LFB_ERR_FULL having changed nothing. A cuckoo remove of a key that
 * matches in two sub-filters (removing a copy there could lose another key) is deferred: it
 * returns 1, and the key's copy is removed once it matches in one (see lfb_scalable_remove); with
 * too many removes waiting already it returns LFB_ERR_AMBIGUOUS and removes nothing. Removing a
 * key never added, or whose add has not returned, can remove another key's copy for good: remove
 * only after the add it cancels.
 *
 * Rotating filters: a ring of G blocked generations (2..64) covering a window W = G * period:
 * keys expire. Each rotation makes the next generation current after clearing it. A key is
 * reported present if at most G-1 rotations overlap the time from the start of its add to the end
 * of the query (with timed rotation: every key added in the last W - W/G), and no longer once G
 * rotations have completed after its add. capacity is the most keys added in one period; a whole
 * query's false-positive rate stays <= fpr. With period_ns 0 it rotates only in lfb_rotate;
 * otherwise every period_ns on CLOCK_MONOTONIC, performed by the first add or query after a
 * deadline (never waiting: if another thread is rotating, it goes on), unless
 * LFB_ROTATING_MANUAL_TICK. memory_limit caps the sum over the ring. */
#define LFB_ROTATING_DOUBLE_WRITE 1u /* add to the current and the next generation; queries check G-1 (one for G = 2) */
#define LFB_ROTATING_MANUAL_TICK 2u  /* time advances only by lfb_tick, whose clock starts at 0 at creation */

/* ---- every kind ------------------------------------------------------------------------------ */

/** Fills the fields of lfbloom 1.5 to 1.8 (those before `slots`) with the defaults and sets
 *  struct_size to their size, so a caller compiled against any version, or an FFI caller that
 *  declared the struct itself, has nothing written past its struct; such a spec cannot give
 *  the 1.9 fields (they are not read): use lfb_spec_init_size for those. */
LFB_API int lfb_spec_init(lfb_spec* spec);
/** The filter's enum lfb_kind (> 0), or an error. */
LFB_API int lfb_kind(const lfb_handle* handle);
/** Counting, cuckoo and scalable cuckoo filters: 1 if a copy of the key was removed, 0 if none
 *  was there (nothing changed); a scalable filter also answers 1 for a remove it deferred, and may
 *  answer LFB_ERR_AMBIGUOUS (see enum lfb_kind). Other kinds: LFB_ERR_INCOMPATIBLE. */
LFB_API int lfb_remove(lfb_handle* handle, const void* key, uint64_t len);
/** Counting: the key's smallest counter (how often it was added, at most); cuckoo: copies of its
 *  fingerprint in its buckets (scalable: summed). 0 means certainly absent. Other kinds:
 *  LFB_ERR_INCOMPATIBLE. */
LFB_API int lfb_count(const lfb_handle* handle, const void* key, uint64_t len);

/* ---- batches --------------------------------------------------------------------------------- */

/* One key of a batch given as an array of keys: for callers whose keys already sit in separate
 * buffers, no copy into one buffer is needed. */
typedef struct lfb_key {
    const void* data; /* NULL only with len 0 */
    uint64_t len;
} lfb_key;

/* One call over many keys (lfb_batch_run). Give the keys either as one buffer plus count + 1 offsets
 * (data, offsets: key i is data[offsets[i]] .. data[offsets[i+1]-1]) or as an array (keys); leave
 * the other NULL. The call fills done and positive. */
typedef struct lfb_batch {
    uint32_t struct_size;  /* sizeof(lfb_batch) as the caller compiled it */
    uint32_t op;           /* enum lfb_batch_op */
    uint64_t count;        /* keys */
    const void* data;      /* with offsets: the keys' bytes, end to end */
    const uint64_t* offsets;
    const lfb_key* keys;   /* or: the keys as an array */
    uint8_t* results;      /* NULL, or count bytes: 1 or 0 per key (new, present, removed) */
    uint64_t done;         /* out: keys processed: count, or the index of the key that stopped the batch
                              (refused, or failing otherwise); 0 after an argument error (none processed) */
    uint64_t positive;     /* out: keys among them whose answer was 1 (0 with LFB_BATCH_BULK) */
    /* since 1.11 (a caller of 1.0 to 1.10 sets the smaller struct_size: both 0) */
    uint32_t flags;        /* LFB_BATCH_BULK, or 0 */
    uint32_t threads;      /* with LFB_BATCH_BULK: threads to build with (1: the caller; more: new ones, the caller waiting; 0 = one per CPU, at most 1024) */
} lfb_batch;

/* lfb_batch.flags (1.11). LFB_BATCH_BULK: a bulk build of LFB_OP_ADD or LFB_OP_ADD_STAGED. The keys
 * are hashed once by `threads` threads, filed by the part of the filter they fall in, set part by
 * part in a private copy of the filter with plain stores, and merged into the filter in order (a
 * locked OR per word that lacks bits, not per key), so a filter larger than the cache builds faster
 * than one add a key can. The filter ends with the same bits as after the adds one by one; results must be
 * NULL (no answer per key) and positive is 0. Safe beside any other call on the handle (from any
 * thread or process); every key is present when the call returns; a query during it may see some
 * keys and not others, until it returns. Temporary memory: the private copy (the filter's size) and
 * up to 4 times the filter's size of hashed keys (16 bytes a key; at least 64 MiB, at most 1 GiB;
 * more keys build in rounds); a filter of at most 2 MiB hashes nothing ahead: each thread
 * sets its keys in a copy of its own (a thread per 65,536 keys at most). Cuckoo, scalable and
 * rotating filters add the keys one by one on the calling thread, as without the flag. */
#define LFB_BATCH_BULK 1u

enum lfb_batch_op {
    LFB_OP_ADD = 1,       /* as lfb_add; a refusal (LFB_ERR_FULL, LFB_ERR_TOO_MANY_DUPLICATES) stops the batch there */
    LFB_OP_CONTAINS = 2,  /* as lfb_contains */
    LFB_OP_REMOVE = 3,    /* as lfb_remove: counting, cuckoo and scalable cuckoo filters (LFB_ERR_AMBIGUOUS stops the batch there) */
    LFB_OP_ADD_STAGED = 4 /* since 1.9: as lfb_add_staged (swaps) */
};

/**
 * Runs batch->op over batch->count keys, hashing and prefetching them in groups so their cache
 * misses overlap. Arguments are checked before any key is used. Returns LFB_OK (also when some
 * keys were absent or not removed), or the error that stopped it: for a key refused midway (an
 * add refused as full, a scalable filter's ambiguous remove), batch->done is that key's index,
 * the keys before it were processed, results (if any) are set for them, and the rest are
 * untouched.
 */
LFB_API int lfb_batch_run(lfb_handle* handle, lfb_batch* batch);

/* ---- describing and planning ----------------------------------------------------------------- */

/* A snapshot of any filter (lfb_info_get, lfb_part_info, lfb_geometry_get, lfb_plan). Fields a
 * kind does not have are 0. */
typedef struct lfb_info {
    uint32_t struct_size;    /* sizeof(lfb_info) as the caller compiled it */
    uint32_t kind;           /* enum lfb_kind */
    uint64_t slots;          /* bits, counters, or cuckoo fingerprint slots (4 per bucket, 5 with 14-bit fingerprints); composites: summed */
    uint32_t slot_bits;      /* 1, 4 or 8 (counters), 14, 16 or 17 (cuckoo fingerprints) */
    uint32_t hashes;         /* k; 2 for cuckoo (buckets per key) */
    uint64_t bytes;          /* memory of the filter's arrays (composites: summed) */
    uint64_t capacity;       /* keys it was sized for (scalable: summed over sub-filters; rotating: per period) */
    double target_fpr;       /* rate it was sized for (composites: the bound on the whole) */
    uint64_t seed;
    uint64_t slots_set;      /* bits set, counters above zero, fingerprints stored */
    double fill_ratio;       /* slots_set / slots (a cuckoo filter's load) */
    double estimated_count;  /* keys estimated from the fill (rotating: the current generation's); cuckoo: fingerprints stored; infinite when a Bloom filter is full */
    double expected_fpr;     /* of an absent key now */
    uint32_t near_capacity;  /* 1 past 80% of capacity (cuckoo: of its maximum load, 94%; scalable: the newest, with no successor allowed) */
    uint32_t reserved;
    uint64_t saturated;      /* counting: counters stuck at their maximum */
    uint64_t kicks;          /* cuckoo: fingerprints moved to make room, since creation or load */
    uint64_t failed_adds;    /* cuckoo: adds refused as full */
    uint64_t duplicate_refusals; /* cuckoo: adds refused as too many duplicates */
    uint64_t reader_retries; /* cuckoo: queries redone because a writer moved fingerprints meanwhile */
    uint64_t reader_gave_up; /* cuckoo: queries answered "maybe" after 8 retries */
    /* Since 1.9 (a caller compiled before gets the fields above only). */
    uint32_t sub_kind;       /* a layout: its kind; scalable: its sub-filters'; rotating: blocked; swap: its current filter's */
    uint32_t parts;          /* 1; scalable: sub-filters; rotating: filters in the ring; swap: 2 while one is staged */
    uint64_t generation;     /* rotating: rotations so far; swap: replacements so far */
    uint64_t ambiguous_removes; /* scalable cuckoo: removes refused with LFB_ERR_AMBIGUOUS (deferred ones are not) */
    uint64_t items;          /* lfb_part_info of a scalable filter: the adds its sub-filter counted as new (cuckoo: copies stored, less those removed) */
} lfb_info;

/** Fills *out (out->struct_size must be set); reads the whole filter, O(size). */
LFB_API int lfb_info_get(const lfb_handle* handle, lfb_info* out);
/**
 * The fields of lfb_info_get that do not depend on the contents, in O(1) without reading the
 * filter (composites: O(parts)): kind, slots, slot_bits, hashes, bytes, capacity, target_fpr and
 * seed, and the 1.9 fields but items (sub_kind, parts and the counters generation and
 * ambiguous_removes); the rest are 0. Thread-safe.
 */
LFB_API int lfb_geometry_get(const lfb_handle* handle, lfb_info* out);
/**
 * A composite's part `index`, as lfb_info_get reports a filter: a scalable filter's sub-filter
 * (0 = oldest; items = the adds it counted), a rotating filter's generation of that age (0 =
 * current, 1 = the one before, ...; with LFB_ROTATING_DOUBLE_WRITE the last is the next
 * generation), a swap's current (0) or staged (1) filter. A layout has part 0, itself.
 * LFB_ERR_INVALID_ARGUMENT past lfb_info.parts. O(size of the part).
 */
LFB_API int lfb_part_info(const lfb_handle* handle, uint32_t index, lfb_info* out);
/**
 * The filter lfb_create(spec) would make, described without making it (since 1.6): kind, slots,
 * slot_bits, hashes (k), bytes, capacity, target_fpr and seed as lfb_info_get would report them,
 * estimated_count = capacity and expected_fpr its false-positive rate holding that many keys; the
 * fill fields are 0. Fails as lfb_create would for a bad spec (LFB_ERR_INVALID_ARGUMENT,
 * LFB_ERR_TOO_LARGE for a size no filter can have), but ignores memory_limit and allocates
 * nothing. Layouts only: plan a composite's sub-filters with their own kind. Thread-safe.
 */
LFB_API int lfb_plan(const lfb_spec* spec, lfb_info* out);

/* ---- shared files ---------------------------------------------------------------------------- */

/*
 * Shared files of any layout, cuckoo filters included (docs/FORMAT.md): one file that several
 * processes map and use at once. The file holds a header page, then the words, mapped shared:
 * every process that opens it adds and queries the same words with the same lock-free atomics. A
 * process killed mid-way loses none of the adds it completed; flush only matters for a crash of
 * the machine. Creation is atomic (an opener sees no file or a complete one). Opening validates the
 * header and the file's size. Any page size works (4, 16 or 64 KiB). A cuckoo filter's
 * stripe locks live in the file as robust process-shared mutexes (since 1.10): when a process dies
 * holding one (killed at any instruction), the kernel hands it to the next writer, which finishes
 * or undoes what the dead writer left, so every add that returned stays; a writer waits for a lock
 * at most the handle's lock timeout (lfb_set_lock_timeout; 60 s unless set), then gets
 * LFB_ERR_TIMEOUT. Any number of handles, in one process or many, may open one file. The first
 * writer to open a file no writer has open makes its locks anew (a file copied, crafted, or left by
 * a crash or a restart), so a file's lock area never makes a writer wait. Readers never lock. A
 * cuckoo file of 1.9 or older is upgraded by the first writer to open it (stop 1.9 writers first:
 * 1.9 refuses the new file with LFB_ERR_UNSUPPORTED_VERSION).
 */
#define LFB_SHARED_CREATE 1u    /* create the file from spec if it does not exist; else open it */
#define LFB_SHARED_EXCLUSIVE 2u /* with LFB_SHARED_CREATE: fail (LFB_ERR_IO) if it exists */
#define LFB_SHARED_READ_ONLY 4u /* map it read-only (read permission is enough); every call that
                                   would write to it returns LFB_ERR_READ_ONLY */
/**
 * Opens the shared file at `path`, creating it per `flags`. Without LFB_SHARED_CREATE, `spec` may be
 * NULL or (since 1.9) of kind 0 (open whatever the file holds; a kind-0 spec's memory_limit
 * applies: the file's filter is refused, LFB_ERR_TOO_LARGE, before it is mapped if it is larger);
 * of a kind, the file must hold the filter lfb_create(spec) would
 * make (kind, size, seed, counter width), else LFB_ERR_INCOMPATIBLE: so of processes racing to
 * call lfb_open_shared(path, spec, LFB_SHARED_CREATE, ...) one creates the file and all get its
 * filter. spec->flags must be 0; spec->memory_limit applies. A new file gets `mode` (0 to 0777,
 * usually 0666) less the umask. Thread-safe, also across processes.
 */
LFB_API int lfb_open_shared(const char* path, const lfb_spec* spec, uint32_t flags, uint32_t mode, lfb_handle** out);
/** How long a writer through `handle` waits for a shared cuckoo filter's stripe lock before it
 *  returns LFB_ERR_TIMEOUT (milliseconds, 1 or more; 60000 unless set). Other filters never wait
 *  for a lock held by another process: the call does nothing for them. Not thread-safe: set it
 *  before the handle is shared between threads. (1.10) */
LFB_API int lfb_set_lock_timeout(lfb_handle* handle, uint32_t milliseconds);
/** Writes a shared file's pages to disk (msync): only needed to survive a crash of the machine,
 *  not for other processes to see the words (a cuckoo filter's kicks after the flush may then be
 *  lost half-written: snapshot it with lfb_save_file for that). Nothing to do for other filters.
 *  Thread-safe. */
LFB_API int lfb_flush(const lfb_handle* handle);

/* ---- copies, equality, set operations, clearing ---------------------------------------------- */

/*
 * Copies, equality and set operations of layouts (since 1.8): Guava's copy, equals and putAll,
 * Boost.Bloom's ==, |= and &=. Two filters are compatible when they map keys alike: the same kind,
 * slots, k, counter or fingerprint width, seed and probe rule (lfb_create from one spec makes
 * compatible filters; the capacity and rate recorded need not match). All are O(size) and
 * thread-safe: either filter may be in use by other threads meanwhile, and keys added
 * concurrently may or may not be reflected. Composites: LFB_ERR_INCOMPATIBLE.
 */
/**
 * A private copy of the filter in this process's memory (not shared, no memory limit, writable
 * also when the source was opened read-only): same kind, shape, seed and contents. A cuckoo
 * filter's writers wait while it is copied; one mapped read-only cannot pause them and is
 * refused (LFB_ERR_READ_ONLY: copy it from a writer, or lfb_load_file its file).
 */
LFB_API int lfb_copy(const lfb_handle* handle, lfb_handle** out);
/**
 * 1 if the two are compatible and hold the same bits, counters or fingerprints (every key gets
 * the same answer from both), 0 if not (also for different kinds); exact when neither is being
 * written to. A cuckoo filter mapped read-only: LFB_ERR_READ_ONLY, as lfb_copy.
 */
LFB_API int lfb_equal(const lfb_handle* a, const lfb_handle* b);
/**
 * Adds other's keys to `into`: a Bloom filter ORs other's bits in, a counting filter adds its
 * counters (saturating: a multiset sum, as lfb_counting_merge, so lfb_union(a, a) doubles every
 * count). Afterwards `into` holds every key either held. Incompatible filters, and
 * cuckoo filters (not offered yet), give LFB_ERR_INCOMPATIBLE with nothing changed.
 */
LFB_API int lfb_union(lfb_handle* into, const lfb_handle* other);
/**
 * Keeps in `into` only what both hold: a Bloom filter ANDs other's bits in, a counting filter
 * lowers each counter to other's where that is smaller. A key both held stays present (no false
 * negative); a Bloom intersection may answer "maybe" for somewhat more absent keys than a filter
 * built from the common keys would. Adds to `into` racing with it may or may not survive (as with
 * a clear). Incompatible filters and cuckoo filters: LFB_ERR_INCOMPATIBLE, nothing changed.
 */
LFB_API int lfb_intersect(lfb_handle* into, const lfb_handle* other);
/** Empties a layout: zeroes its bits, counters or fingerprint slots. Adds and removes racing
 *  with it may be lost (or survive). A read-only handle: LFB_ERR_READ_ONLY; composites:
 *  LFB_ERR_INCOMPATIBLE. */
LFB_API int lfb_clear(lfb_handle* handle);

/* ---- rotating filters and swaps: their own calls --------------------------------------------- */

/** Rotating filters: one rotation now. Waits only for another rotation in progress; adds and
 *  queries never wait. Other kinds: LFB_ERR_INCOMPATIBLE. */
LFB_API int lfb_rotate(lfb_handle* handle);
/** Rotating filters: the rotations due at now_ns (one per period passed, at most G); a no-op
 *  without a period. now_ns is CLOCK_MONOTONIC, or with LFB_ROTATING_MANUAL_TICK the caller's
 *  clock from creation. Other kinds: LFB_ERR_INCOMPATIBLE. */
LFB_API int lfb_tick(lfb_handle* handle, uint64_t now_ns);

/*
 * Swaps: a handle whose filter is replaced atomically while other threads use it: every call sees
 * the old or the new filter, never a freed one (readers count themselves in per-thread stripes;
 * a replace waits for readers of the old filter, then frees it). Adds and queries never wait.
 * Rebuilding without a gap: lfb_stage(next) makes every add also go to next; fill next with
 * lfb_add_staged (or LFB_OP_ADD_STAGED batches) from your source of truth (which must record each
 * key before its add), then lfb_publish. A swap holds writable Bloom and counting filters (its
 * adds go to two filters at once, and a cuckoo filter's could be refused in one):
 * LFB_ERR_INCOMPATIBLE for others, LFB_ERR_READ_ONLY for a read-only handle. The calls that take
 * a filter take it over on success: the caller must not use or free it again (the swap frees
 * it); on failure it is still the caller's, unchanged. Other kinds than swaps:
 * LFB_ERR_INCOMPATIBLE.
 */
/** A swap whose current filter is `initial` (taken over). */
LFB_API int lfb_create_swap(lfb_handle* initial, lfb_handle** out);
/** Stages next (taken over; replacing and freeing an earlier staged filter once its readers leave). */
LFB_API int lfb_stage(lfb_handle* swap, lfb_handle* next);
/** Adds to the staged filter only; LFB_ERR_INVALID_ARGUMENT if nothing is staged. */
LFB_API int lfb_add_staged(lfb_handle* swap, const void* key, uint64_t len);
/** Makes the staged filter current; frees the old one after its readers leave (waiting for them).
 *  LFB_ERR_INVALID_ARGUMENT if nothing is staged. */
LFB_API int lfb_publish(lfb_handle* swap);
/** Stage + publish of a complete filter (taken over). */
LFB_API int lfb_replace(lfb_handle* swap, lfb_handle* next);

/* ---- a Bloom filter's words, for bindings ---------------------------------------------------- */

/* Where a Bloom filter's bits live (lfb_bit_array_get; lfb_filter_bit_array since 1.2), for a
 * binding whose calls into this library cost more than a lookup (a cgo call from Go: 40 ns, and
 * its fences keep lookups' cache misses from overlapping). With it the binding answers contains
 * and add itself, bit-exact with lfb_contains and lfb_add: the hash of docs/FORMAT.md for
 * `layout` (MurmurHash3 x64_128, or XXH64 for split-block) with `seed`, then the bits probe rule
 * `probe_rule` assigns for (layout, bits, hashes). A binding must not touch the words of a filter
 * whose layout or rule it does not implement (it can call lfb_add and lfb_contains instead): new
 * blocked filters use rule 2 since 1.4, filters loaded from older files keep rule 1, classic
 * filters are always rule 1, split-block rule 3. A caller compiled before 1.4 (struct_size 40)
 * cannot see the rule, so it gets LFB_ERR_UNSUPPORTED_VERSION for any filter whose rule is not 1
 * rather than words it would read wrongly. Read the words with atomic 64-bit loads, since adds set
 * bits at any time; an add sets its bits with atomic 64-bit ORs and nothing else (the memory is
 * writable; `const` only because a reader needs no more). Set struct_size before the call.
 * Experimental: new layouts and rules may appear; check both. */
typedef struct lfb_bit_array {
    uint32_t struct_size;  /* sizeof(lfb_bit_array) as the caller compiled it */
    uint32_t layout;       /* the enum lfb_kind: 1, 2, 4, 5 or 6 (lfb_filter_bit_array: 1 or 2) */
    const uint64_t* words; /* bits / 64 words: bit b is bit b % 64 of words[b / 64] */
    uint64_t bits;         /* m, a multiple of the layout's block (512 bits blocked, 64 classic; lfb_spec.slots) */
    uint64_t seed;         /* the hash seed */
    uint32_t hashes;       /* k */
    uint32_t reserved;
    uint32_t probe_rule;   /* since 1.4: the hash and probe rule of docs/FORMAT.md: 1, 2 or 3 */
    uint32_t reserved2;
} lfb_bit_array;

/**
 * Where a Bloom layout's words live and how keys map onto them (struct lfb_bit_array), so a
 * binding can add and query without a call into this library. Counting, cuckoo and composite
 * filters: LFB_ERR_INCOMPATIBLE; a read-only handle: LFB_ERR_READ_ONLY (an add through the words
 * would fault). The words stay valid until lfb_free. Experimental. Thread-safe.
 */
LFB_API int lfb_bit_array_get(const lfb_handle* handle, lfb_bit_array* out);

/* ---- library: version, statuses and kinds by name -------------------------------------------- */

/* How a status should reach a binding's user (lfb_status_class), so every binding maps the one
 * table of statuses the same way. */
enum lfb_status_class {
    LFB_CLASS_OK = 0,       /* LFB_OK */
    LFB_CLASS_ARGUMENT = 1, /* the caller's mistake: a bad argument (an IllegalArgumentException, say) */
    LFB_CLASS_REFUSAL = 2,  /* the filter declined, as designed: full, too many duplicates, ambiguous, not present */
    LFB_CLASS_DATA = 3,     /* the data or filters given do not fit: corrupt, unsupported version, incompatible */
    LFB_CLASS_RESOURCE = 4, /* memory, size limits, I/O */
    LFB_CLASS_STATE = 5,    /* the handle's state forbids it: read-only */
    LFB_CLASS_BUG = 6       /* a bug in lfbloom */
};

/** "1.0.0". */
LFB_API const char* lfb_version_string(void);
/** major * 10000 + minor * 100 + patch of the loaded library. */
LFB_API uint32_t lfb_version(void);
/** LFB_ABI_VERSION of the loaded library. */
LFB_API uint32_t lfb_abi_version(void);
/** Since 1.9: the status's name without its prefix, lower case ("ok", "invalid_argument", "full",
 *  ...: LFB_ERR_FULL is "full"), or NULL for a value that is no status. Static. */
LFB_API const char* lfb_status_name(int code);
/** Since 1.9: the enum lfb_status_class of a status; LFB_CLASS_BUG for a value that is no status. */
LFB_API int lfb_status_class(int code);
/** Since 1.9: the kind's name ("classic", "blocked", "counting", "split-block", "one-word",
 *  "two-word", "cuckoo", "scalable", "rotating", "swappable"), or NULL for a value that is no kind. Static. */
LFB_API const char* lfb_kind_name(uint32_t kind);
/** Since 1.9: the enum lfb_kind named `name` (lfb_kind_name's spelling), or LFB_ERR_INVALID_ARGUMENT. */
LFB_API int lfb_kind_parse(const char* name);

#ifdef __cplusplus
}
#endif

/* The per-kind calls of 1.0 to 1.6, for their callers. */
#include "lfbloom_legacy.h"

#endif /* LFBLOOM_H */
