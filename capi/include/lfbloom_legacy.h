/*
 * lfbloom_legacy.h: the per-kind handles and calls of lfbloom 1.0 to 1.6, part of the stable C ABI
 * of liblfbloom.so.1. lfbloom.h includes this header at its end, so a caller includes lfbloom.h
 * alone, as before; everything here is also reachable through lfbloom.h's one handle.
 */
#ifndef LFBLOOM_LEGACY_H
#define LFBLOOM_LEGACY_H

#include "lfbloom.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- per-kind handles (1.0 to 1.6) ------------------------------------------------------------
 *
 * The calls of lfbloom 1.0 to 1.4 (and lfb_scalable_remove, lfb_scalable_ambiguous_removes of
 * 1.6), kept for their callers. Each handle type is lfb_handle under another name, and each call
 * is one of lfbloom.h's calls, as its comment or the line with its name in capi/src/per_kind.inc
 * says; they differ from those only where said: they take lfb_options instead of lfb_spec,
 * report lfb_stats, lfb_counting_remove answers LFB_ERR_NOT_PRESENT where lfb_remove answers 0,
 * the batch calls report a count instead of filling an lfb_batch, and creating or loading
 * a handle of a kind accepts only that kind's filters (LFB_ERR_INCOMPATIBLE for others). New code
 * should use lfb_handle.
 */
typedef struct lfb_filter lfb_filter;     /* a Bloom filter, blocked or classic */
typedef struct lfb_counting lfb_counting; /* a counting filter */
typedef struct lfb_scalable lfb_scalable; /* since 1.1 */
typedef struct lfb_rotating lfb_rotating; /* since 1.1 */
typedef struct lfb_swap lfb_swap;         /* since 1.1 */

/* Layouts of the per-kind handles: the enum lfb_kind numbers they have. */
enum lfb_layout {
    LFB_LAYOUT_CLASSIC = 1, /* k probes anywhere: bit-exact with Guava's BloomFilter, flaw included */
    LFB_LAYOUT_BLOCKED = 2, /* k probes in one 64-byte cache line: the default, fastest */
    LFB_LAYOUT_COUNTING = 3, /* counting filters (reported by lfb_stats.layout only) */
    LFB_LAYOUT_CUCKOO = 7    /* cuckoo sub-filters of a scalable filter (1.6; lfb_stats.layout of their stats) */
};

/* Creation options. Initialize with lfb_options_init, then change what you need. */
typedef struct lfb_options {
    uint32_t struct_size;  /* sizeof(lfb_options) as the caller compiled it */
    uint32_t layout;       /* lfb_filter: LFB_LAYOUT_BLOCKED (default) or LFB_LAYOUT_CLASSIC; lfb_scalable: BLOCKED or CUCKOO */
    uint64_t memory_limit; /* bytes the filter may use; 0 (default) = only the machine's memory */
    uint64_t seed;         /* hash seed, default 0 (Guava's); filters merge only with equal seeds */
    uint32_t counter_bits; /* lfb_counting only: 4 (default) or 8 */
    uint32_t flags;        /* LFB_OPTION_* bits; 0 by default */
} lfb_options;

/* A snapshot of a filter's parameters and fill. Set struct_size before calling lfb_*_stats. */
typedef struct lfb_stats {
    uint32_t struct_size;    /* sizeof(lfb_stats) as the caller compiled it */
    uint32_t layout;         /* enum lfb_layout */
    uint64_t slots;          /* bits of a bit filter, counters of a counting filter, cuckoo fingerprint slots */
    uint32_t slot_bits;      /* 1, or the counter width 4 or 8; cuckoo: the fingerprint width 14, 16 or 17 */
    uint32_t hashes;         /* k */
    uint64_t bytes;          /* memory of the slot array */
    uint64_t capacity;       /* expected items it was sized for */
    double target_fpr;       /* false-positive rate it was sized for */
    uint64_t slots_set;      /* bits set, counters above zero, or fingerprints stored */
    uint64_t saturated;      /* counters stuck at their maximum (0 for bit filters) */
    double fill_ratio;       /* slots_set / slots */
    double estimated_count;  /* distinct keys estimated from the fill (infinite when full) */
    double estimated_fpr;    /* expected false-positive rate at estimated_count */
    uint32_t near_capacity;  /* 1 when estimated_count > 80% of capacity */
    uint32_t reserved;
} lfb_stats;

/** Fills *options with the defaults. LFB_ERR_INVALID_ARGUMENT if options is NULL. */
LFB_API int lfb_options_init(lfb_options* options);

/* ---- bit filters (blocked or classic) --------------------------------------------------------- */

/** A filter sized so the expected FPR after `capacity` distinct adds is <= fpr. options may be NULL. */
LFB_API int lfb_filter_create(uint64_t capacity, double fpr, const lfb_options* options, lfb_filter** out);
/** A filter of exactly `bits` bits (multiple of 512 blocked, 64 classic) and `hashes` probes (1..255). */
LFB_API int lfb_filter_create_geometry(uint64_t bits, uint32_t hashes, const lfb_options* options, lfb_filter** out);
/** Releases the filter. NULL is a no-op. No other thread may be using it. */
LFB_API void lfb_filter_free(lfb_filter* filter);

/** Adds a key. Returns 1 if it was new (some bit changed), 0 if all its bits were set, or an error. */
LFB_API int lfb_filter_add(lfb_filter* filter, const void* key, uint64_t len);
/** Returns 1 if the key may have been added, 0 if it certainly was not, or an error. */
LFB_API int lfb_filter_contains(const lfb_filter* filter, const void* key, uint64_t len);
/**
 * Adds `count` keys in one call: key i is the bytes data[offsets[i]] .. data[offsets[i+1]-1]
 * (offsets has count + 1 non-decreasing entries). If results is not NULL, results[i] is set to 1
 * if key i was new, else 0; if added is not NULL, *added is the number of new keys. Arguments are
 * checked before any key is added.
 */
LFB_API int lfb_filter_add_many(lfb_filter* filter, const void* data, const uint64_t* offsets, uint64_t count,
                                uint8_t* results, uint64_t* added);
/** Queries `count` keys laid out as in lfb_filter_add_many; results[i] 1 or 0; *found the number of 1s. */
LFB_API int lfb_filter_contains_many(const lfb_filter* filter, const void* data, const uint64_t* offsets,
                                     uint64_t count, uint8_t* results, uint64_t* found);
/** As lfb_filter_add_many / _contains_many, with the keys as an array (since 1.1). */
LFB_API int lfb_filter_add_keys(lfb_filter* filter, const lfb_key* keys, uint64_t count, uint8_t* results, uint64_t* added);
LFB_API int lfb_filter_contains_keys(const lfb_filter* filter, const lfb_key* keys, uint64_t count, uint8_t* results,
                                     uint64_t* found);
/** Zeroes the filter. Adds racing with it may be lost. */
LFB_API int lfb_filter_clear(lfb_filter* filter);
/** ORs src into dst. LFB_ERR_INCOMPATIBLE unless layout, bits, hashes and seed are equal. */
LFB_API int lfb_filter_merge(lfb_filter* dst, const lfb_filter* src);
/** Fills *out (out->struct_size must be set); reads the whole filter, O(bits). */
LFB_API int lfb_filter_stats(const lfb_filter* filter, lfb_stats* out);
/**
 * Fills *out (out->struct_size must be set) with where the filter's bits live and how keys map
 * onto them (since 1.2; the probe rule, the file format's id of it, since 1.4). words stays valid,
 * and the other fields unchanged, until lfb_filter_free; no call replaces them. Thread-safe with
 * every call but lfb_filter_free. Experimental, as lfb_bit_array_get: check layout and probe_rule.
 */
LFB_API int lfb_filter_bit_array(const lfb_filter* filter, lfb_bit_array* out);

/*
 * Saving and loading. A save may run while other threads add: it holds every add that completed
 * before the save began. Loads validate everything (and check the memory limit of `options`,
 * NULL = none) before allocating; they fail with LFB_ERR_CORRUPT, LFB_ERR_UNSUPPORTED_VERSION,
 * LFB_ERR_TOO_LARGE, LFB_ERR_IO, or LFB_ERR_INCOMPATIBLE when the data holds a filter other than
 * a blocked or classic one (lfb_load takes every kind).
 */
/** The exact number of bytes lfb_filter_save writes in `format`. */
LFB_API int lfb_filter_serialized_size(const lfb_filter* filter, uint32_t format, uint64_t* size);
/** Writes the filter into buffer[0 .. capacity); *written gets the byte count. */
LFB_API int lfb_filter_save(const lfb_filter* filter, uint32_t format, void* buffer, uint64_t capacity, uint64_t* written);
/** Writes the filter to an open file descriptor, in chunks. */
LFB_API int lfb_filter_save_fd(const lfb_filter* filter, uint32_t format, int fd);
/**
 * Writes the filter to `path` atomically (a temporary file, flushed, then renamed over path). A
 * file replacing an existing one keeps its permission bits; a new one gets 0666 less the umask.
 */
LFB_API int lfb_filter_save_file(const lfb_filter* filter, uint32_t format, const char* path);
/** Loads a filter from exactly `len` bytes. */
LFB_API int lfb_filter_load(uint32_t format, const void* data, uint64_t len, const lfb_options* options, lfb_filter** out);
/** Loads one filter from a file descriptor, from its offset (reading no further than the filter's
 *  end). From a regular file, a header declaring more than the file holds is refused before
 *  anything is allocated; from a pipe, memory grows only with the bytes that really arrive. */
LFB_API int lfb_filter_load_fd(uint32_t format, int fd, const lfb_options* options, lfb_filter** out);
/** Loads a filter from a file that must hold exactly one. */
LFB_API int lfb_filter_load_file(uint32_t format, const char* path, const lfb_options* options, lfb_filter** out);

/*
 * Filters several processes share. The file holds a header page, then the words, mapped shared:
 * every process that opens it adds and queries the same words with the same lock-free atomics.
 * A process killed mid-way loses none of the adds it completed; flush only matters for a crash of
 * the machine. Creation is atomic (an opener sees no file or a complete one) and fails with
 * LFB_ERR_IO if the file exists. Opening validates the header and the file's size.
 */
LFB_API int lfb_filter_create_shared_file(const char* path, uint64_t capacity, double fpr, const lfb_options* options,
                                          lfb_filter** out);
LFB_API int lfb_filter_open_shared_file(const char* path, const lfb_options* options, lfb_filter** out);
/** Writes a file-backed filter's words to disk (msync); a no-op for other filters. */
LFB_API int lfb_filter_flush(const lfb_filter* filter);

/*
 * File permissions and read-only sharing (since 1.4).
 * - Files are created with permission bits `mode` (0 to 0777, else LFB_ERR_INVALID_ARGUMENT) less
 *   the process umask, as open(2) does; the functions without a mode use 0666. A save over an
 *   existing file keeps that file's permission bits whatever the mode.
 * - lfb_*_open_shared_file_read_only opens a shared file with read permission only (another user's
 *   0644 or 0444 file, say) and maps it read-only. The handle queries, reports stats, saves and
 *   sees the adds of the file's writers; every call that would write to it (add, remove, clear,
 *   merge into it, lfb_filter_bit_array, handing it to lfb_swap_*) returns LFB_ERR_READ_ONLY and
 *   changes nothing. Thread safety as for any handle.
 */
LFB_API int lfb_filter_save_file_mode(const lfb_filter* filter, uint32_t format, const char* path, uint32_t mode);
LFB_API int lfb_filter_create_shared_file_mode(const char* path, uint64_t capacity, double fpr, const lfb_options* options,
                                               uint32_t mode, lfb_filter** out);
LFB_API int lfb_filter_open_shared_file_read_only(const char* path, const lfb_options* options, lfb_filter** out);

/* ---- counting filters ------------------------------------------------------------------------- */

/** A counting filter sized for (capacity, fpr); options->counter_bits picks 4 or 8. options may be NULL. */
LFB_API int lfb_counting_create(uint64_t capacity, double fpr, const lfb_options* options, lfb_counting** out);
/** Exactly `counters` counters (a multiple of 128 for 4-bit, 64 for 8-bit) and `hashes` probes. */
LFB_API int lfb_counting_create_geometry(uint64_t counters, uint32_t hashes, const lfb_options* options,
                                         lfb_counting** out);
LFB_API void lfb_counting_free(lfb_counting* filter);
/** Increments the key's counters (saturating). Returns 1 if the key was absent before, else 0. */
LFB_API int lfb_counting_add(lfb_counting* filter, const void* key, uint64_t len);
LFB_API int lfb_counting_contains(const lfb_counting* filter, const void* key, uint64_t len);
/**
 * Decrements the key's counters: LFB_OK, or LFB_ERR_NOT_PRESENT (nothing changed) if one of them
 * is zero. Saturated counters are never decremented. Removing keys never added can cause false
 * negatives for other keys.
 */
LFB_API int lfb_counting_remove(lfb_counting* filter, const void* key, uint64_t len);
/** Returns the smallest of the key's counters (0..255): how often it was added, as an upper bound. */
LFB_API int lfb_counting_count(const lfb_counting* filter, const void* key, uint64_t len);
LFB_API int lfb_counting_add_many(lfb_counting* filter, const void* data, const uint64_t* offsets, uint64_t count,
                                  uint8_t* results, uint64_t* added);
LFB_API int lfb_counting_contains_many(const lfb_counting* filter, const void* data, const uint64_t* offsets,
                                       uint64_t count, uint8_t* results, uint64_t* found);
LFB_API int lfb_counting_add_keys(lfb_counting* filter, const lfb_key* keys, uint64_t count, uint8_t* results,
                                  uint64_t* added); /* since 1.1 */
LFB_API int lfb_counting_contains_keys(const lfb_counting* filter, const lfb_key* keys, uint64_t count, uint8_t* results,
                                       uint64_t* found); /* since 1.1 */
/**
 * Removes each key as lfb_counting_remove does, in order (since 1.3), hashing and prefetching them
 * in groups so their cache misses overlap. results[i] (if not NULL) is 1 if key i was removed, 0
 * if it was not present (nothing changed for it); *removed (if not NULL) counts the 1s. Returns
 * LFB_OK even when some keys were not present; errors only for bad arguments, checked before any
 * key is removed. Keys as one buffer plus offsets (_many) or an array of lfb_key (_keys).
 */
LFB_API int lfb_counting_remove_many(lfb_counting* filter, const void* data, const uint64_t* offsets, uint64_t count,
                                     uint8_t* results, uint64_t* removed);
LFB_API int lfb_counting_remove_keys(lfb_counting* filter, const lfb_key* keys, uint64_t count, uint8_t* results,
                                     uint64_t* removed);
LFB_API int lfb_counting_clear(lfb_counting* filter);
/** Adds src's counters to dst's, saturating. LFB_ERR_INCOMPATIBLE unless counters, hashes, width and seed match. */
LFB_API int lfb_counting_merge(lfb_counting* dst, const lfb_counting* src);
LFB_API int lfb_counting_stats(const lfb_counting* filter, lfb_stats* out);
/** Saving and loading in the native format, as for lfb_filter. A save racing with removes holds
 *  every key held throughout it; a remove that overlaps the save may be captured in part. */
LFB_API int lfb_counting_serialized_size(const lfb_counting* filter, uint64_t* size);
LFB_API int lfb_counting_save(const lfb_counting* filter, void* buffer, uint64_t capacity, uint64_t* written);
LFB_API int lfb_counting_save_fd(const lfb_counting* filter, int fd);
LFB_API int lfb_counting_save_file(const lfb_counting* filter, const char* path);
LFB_API int lfb_counting_load(const void* data, uint64_t len, const lfb_options* options, lfb_counting** out);
LFB_API int lfb_counting_load_fd(int fd, const lfb_options* options, lfb_counting** out);
LFB_API int lfb_counting_load_file(const char* path, const lfb_options* options, lfb_counting** out);
/** Shared files, as for lfb_filter. */
LFB_API int lfb_counting_create_shared_file(const char* path, uint64_t capacity, double fpr, const lfb_options* options,
                                            lfb_counting** out);
LFB_API int lfb_counting_open_shared_file(const char* path, const lfb_options* options, lfb_counting** out);
LFB_API int lfb_counting_flush(const lfb_counting* filter);
/** File permissions and read-only sharing (since 1.4), as for lfb_filter. */
LFB_API int lfb_counting_save_file_mode(const lfb_counting* filter, const char* path, uint32_t mode);
LFB_API int lfb_counting_create_shared_file_mode(const char* path, uint64_t capacity, double fpr,
                                                 const lfb_options* options, uint32_t mode, lfb_counting** out);
LFB_API int lfb_counting_open_shared_file_read_only(const char* path, const lfb_options* options, lfb_counting** out);

/* ---- scalable filters (since 1.1) ------------------------------------------------------------ */
/*
 * A filter that grows: a list of sub-filters; sub-filter i holds initial_capacity *
 * growth^i keys at rate fpr * (1 - tightening) * tightening^i, so the total rate stays below fpr
 * however many there are. Adds go to the newest (cuckoo: the oldest with room), queries check all. Growth is lock-free: nobody
 * waits, at most one successor is installed per sub-filter, none is freed before the filter.
 * options: seed and memory_limit (the cap on the sum over sub-filters); flags 0; layout
 * LFB_LAYOUT_BLOCKED (Bloom sub-filters, the default) or, since 1.6, LFB_LAYOUT_CUCKOO: cuckoo
 * sub-filters, which remove keys (lfb_scalable_remove). Their fingerprints (17 bits at most) reach no rate
 * below about 0.003%, so the chain ends (LFB_ERR_FULL) at the first sub-filter that would need a
 * lower one: 5 sub-filters at fpr 0.1% with tightening 0.5, more with a tightening of 0.8-0.9.
 * A cuckoo add stores a copy of the key even if present (1 = no sub-filter matched it before),
 * in the one sub-filter that already matches it if that has room, else in the oldest sub-filter
 * below its capacity (since 1.7: so the room removes free is used again before the chain grows), may be refused with LFB_ERR_TOO_MANY_DUPLICATES, and moves on to a
 * later or a new sub-filter when that one has no free slot. growth in [1, 2^32] (0 = default 2),
 * tightening in (0, 1) (0 = default 0.5), max_filters in 1..255, 1..64 with cuckoo sub-filters (0 = default 32).
 */
LFB_API int lfb_scalable_create(uint64_t initial_capacity, double fpr, double growth, double tightening,
                                uint32_t max_filters, const lfb_options* options, lfb_scalable** out);
LFB_API void lfb_scalable_free(lfb_scalable* filter);
/** 1 if the key was new, 0 if some sub-filter already reports it (cuckoo: it stored one more
 *  copy), LFB_ERR_FULL (nothing changed) when the newest is full and the cap forbids another;
 *  cuckoo sub-filters also LFB_ERR_TOO_MANY_DUPLICATES, as lfb_add. */
LFB_API int lfb_scalable_add(lfb_scalable* filter, const void* key, uint64_t len);
LFB_API int lfb_scalable_contains(const lfb_scalable* filter, const void* key, uint64_t len);
/** As lfb_filter_add_many, except that on LFB_ERR_FULL (or LFB_ERR_TOO_MANY_DUPLICATES) the keys
 *  before the refused one were added (and counted in *added) and the rest were not. */
LFB_API int lfb_scalable_add_many(lfb_scalable* filter, const void* data, const uint64_t* offsets, uint64_t count,
                                  uint8_t* results, uint64_t* added);
LFB_API int lfb_scalable_contains_many(const lfb_scalable* filter, const void* data, const uint64_t* offsets,
                                       uint64_t count, uint8_t* results, uint64_t* found);
LFB_API int lfb_scalable_add_keys(lfb_scalable* filter, const lfb_key* keys, uint64_t count, uint8_t* results,
                                  uint64_t* added);
LFB_API int lfb_scalable_contains_keys(const lfb_scalable* filter, const lfb_key* keys, uint64_t count, uint8_t* results,
                                       uint64_t* found);
/** The number of sub-filters (>= 1), or an error. */
LFB_API int lfb_scalable_filters(const lfb_scalable* filter);
/** The whole filter: sums over sub-filters; target_fpr is the configured bound; near_capacity is 1
 *  once the newest is near capacity and no further sub-filter is allowed. */
LFB_API int lfb_scalable_stats(const lfb_scalable* filter, lfb_stats* out);
/** Sub-filter `index` (0 = oldest), and in *items (if not NULL) the adds it counted as new
 *  (cuckoo: the copies stored in it, less those removed). */
LFB_API int lfb_scalable_filter_stats(const lfb_scalable* filter, uint32_t index, lfb_stats* out, uint64_t* items);
/**
 * Cuckoo sub-filters (since 1.6): 1 if one copy of the key was removed or its removal deferred, 0
 * if no sub-filter holds one (nothing changed). A key may also match in a sub-filter other than
 * the one holding its copy, through another key of the same fingerprint and buckets there (about
 * the sum of the sub-filters' rates), or through its own second copy added while the first one's
 * sub-filter had no room: removing a copy there would lose that other key. Then (since 1.10) the
 * remove is deferred and returns 1: it is done, do not repeat it. The key stays, a false positive,
 * until it matches in one sub-filter (mostly once the other key is removed; later removes retry
 * the waiting ones), or until as many removes wait for its copies as there are copies (a key's own
 * two copies go with its second remove); an add of the key meanwhile takes the waiting remove
 * instead of storing a copy. Only when too many removes wait already (max(64, capacity / 256))
 * is nothing removed and the call returns LFB_ERR_AMBIGUOUS (the key stays, a false positive;
 * lfb_scalable_ambiguous_removes counts them; up to 1.9 every such remove did this). Removing a
 * key that was never added, or whose add has not returned yet, can remove another key's copy, and
 * here for good (the late add lands in another sub-filter): call it only after the add it
 * cancels. Since 1.7 the slots removes free take later adds (the oldest sub-filter with room
 * takes each), and since 1.10 deferred removes complete, so under churn the chain grows only
 * while the live set (and the few removes waiting) outgrows it. Blocked sub-filters:
 * LFB_ERR_INCOMPATIBLE. Thread-safe; blocks only on writers of the same bucket stripe, and to defer
 * a remove on the filter's list of waiting removes.
 */
LFB_API int lfb_scalable_remove(lfb_scalable* filter, const void* key, uint64_t len);
/** Removes refused with LFB_ERR_AMBIGUOUS so far, in *out (always 0 for Bloom sub-filters). */
LFB_API int lfb_scalable_ambiguous_removes(const lfb_scalable* filter, uint64_t* out);

/* ---- rotating (time-window) filters (since 1.1) ------------------------------------------------ */
/*
 * A ring of `generations` (G, 2..64) blocked filters covering a window W = G * period: keys
 * expire. Each rotation makes the next generation current after clearing it. A key is reported
 * present if at most G-1 rotations overlap the time from the start of its add to the end of the
 * query (with timed rotation: every key added in the last W - W/G), and no longer once G
 * rotations have completed after its add (a key older than W). `capacity` is the most keys added
 * in one period; a whole query's false-positive rate stays <= fpr.
 * period_ns: 0 = rotate only in lfb_rotating_rotate; otherwise rotate every period_ns on
 * CLOCK_MONOTONIC, performed by the first add or query after a deadline (never waiting: if
 * another thread is rotating, it goes on), unless LFB_ROTATING_MANUAL_TICK.
 * options: seed and memory_limit (the sum over the ring); layout LFB_LAYOUT_BLOCKED, flags 0.
 */
LFB_API int lfb_rotating_create(uint64_t capacity, double fpr, uint32_t generations, uint64_t period_ns, uint32_t flags,
                                const lfb_options* options, lfb_rotating** out);
LFB_API void lfb_rotating_free(lfb_rotating* filter);
LFB_API int lfb_rotating_add(lfb_rotating* filter, const void* key, uint64_t len);
LFB_API int lfb_rotating_contains(const lfb_rotating* filter, const void* key, uint64_t len);
LFB_API int lfb_rotating_add_many(lfb_rotating* filter, const void* data, const uint64_t* offsets, uint64_t count,
                                  uint8_t* results, uint64_t* added);
LFB_API int lfb_rotating_contains_many(const lfb_rotating* filter, const void* data, const uint64_t* offsets,
                                       uint64_t count, uint8_t* results, uint64_t* found);
LFB_API int lfb_rotating_add_keys(lfb_rotating* filter, const lfb_key* keys, uint64_t count, uint8_t* results,
                                  uint64_t* added);
LFB_API int lfb_rotating_contains_keys(const lfb_rotating* filter, const lfb_key* keys, uint64_t count, uint8_t* results,
                                       uint64_t* found);
/** One rotation now. Waits only for another rotation in progress; adds and queries never wait. */
LFB_API int lfb_rotating_rotate(lfb_rotating* filter);
/** The rotations due at now_ns (one per period passed, at most G); a no-op without a period.
 *  now_ns is CLOCK_MONOTONIC, or with LFB_ROTATING_MANUAL_TICK the caller's clock from creation. */
LFB_API int lfb_rotating_tick(lfb_rotating* filter, uint64_t now_ns);
/** Rotations so far. */
LFB_API int lfb_rotating_rotations(const lfb_rotating* filter, uint64_t* out);
/** Ring filter `age`: 0 = current, 1 = the one before...; G+1 filters with LFB_ROTATING_DOUBLE_WRITE
 *  (the last is the next generation), else G. */
LFB_API int lfb_rotating_stats(const lfb_rotating* filter, uint32_t age, lfb_stats* out);

/* ---- hot-swappable filters (since 1.1) --------------------------------------------------------- */
/*
 * A swap of an lfb_filter (lfb_create_swap over any Bloom or counting filter is the same handle):
 * a handle whose filter is replaced atomically while other threads use it: every call sees
 * the old or the new filter, never a freed one (readers count themselves in per-thread stripes;
 * a replace waits for readers of the old filter, then frees it). Adds and queries never wait.
 * Rebuilding without a gap: lfb_swap_stage(next) makes every add also go to next; fill next with
 * lfb_swap_add_staged from your source of truth (which must record each key before its add), then
 * lfb_swap_publish. Functions that take an lfb_filter* take ownership of it on success (the caller
 * must not use or free it afterwards); on failure it stays the caller's.
 */
LFB_API int lfb_swap_create(lfb_filter* initial, lfb_swap** out);
/** Frees the handle, its filter and any staged one. No other thread may be using it. */
LFB_API void lfb_swap_free(lfb_swap* swap);
/** Adds to the current filter (and the staged one); returns the current one's answer. */
LFB_API int lfb_swap_add(lfb_swap* swap, const void* key, uint64_t len);
LFB_API int lfb_swap_contains(const lfb_swap* swap, const void* key, uint64_t len);
LFB_API int lfb_swap_add_many(lfb_swap* swap, const void* data, const uint64_t* offsets, uint64_t count,
                              uint8_t* results, uint64_t* added);
LFB_API int lfb_swap_contains_many(const lfb_swap* swap, const void* data, const uint64_t* offsets, uint64_t count,
                                   uint8_t* results, uint64_t* found);
LFB_API int lfb_swap_add_keys(lfb_swap* swap, const lfb_key* keys, uint64_t count, uint8_t* results, uint64_t* added);
LFB_API int lfb_swap_contains_keys(const lfb_swap* swap, const lfb_key* keys, uint64_t count, uint8_t* results,
                                   uint64_t* found);
/** Stages next (replacing and freeing an earlier staged filter); waits for readers of that one. */
LFB_API int lfb_swap_stage(lfb_swap* swap, lfb_filter* next);
/** Adds to the staged filter only; LFB_ERR_INVALID_ARGUMENT if nothing is staged. */
LFB_API int lfb_swap_add_staged(lfb_swap* swap, const void* key, uint64_t len);
LFB_API int lfb_swap_add_many_staged(lfb_swap* swap, const void* data, const uint64_t* offsets, uint64_t count,
                                     uint64_t* added);
/** Makes the staged filter current; frees the old one after its readers leave (waiting for them). */
LFB_API int lfb_swap_publish(lfb_swap* swap);
/** Stage + publish of a complete filter. */
LFB_API int lfb_swap_replace(lfb_swap* swap, lfb_filter* next);
/** Statistics of the current filter. */
LFB_API int lfb_swap_stats(const lfb_swap* swap, lfb_stats* out);
/** Replacements so far. */
LFB_API int lfb_swap_generation(const lfb_swap* swap, uint64_t* out);

#ifdef __cplusplus
}
#endif

#endif /* LFBLOOM_LEGACY_H */
