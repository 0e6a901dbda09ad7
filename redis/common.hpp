// What the module's three data types share: the server's settings and live counts, replies and
// arguments, the little-endian blob helpers, and the data-type callbacks (RDB, AOF, digest, copy,
// memory) written once for any value type. Included by module.cpp only (one translation unit).
//
// Thread safety: Redis calls commands and type callbacks one at a time (on its main thread, or a
// background thread for free and for saving in a fork), so nothing here needs a lock.
#pragma once

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cstdlib>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include <strings.h>  // strcasecmp
#include <sys/mman.h>  // madvise

#include "lfbloom/lfbloom.hpp"

extern "C" {
#include "redismodule.h"
}

namespace lfbloom_redis {

/// The words of every filter the module keeps (lfbloom's storage interface, storage.hpp's
/// word_array), from the server's allocator: RedisModule_TryCalloc (RedisModule_Calloc on servers
/// without it, 7.0, which end the server when memory runs out, as for their own data), so
/// used_memory, maxmemory and its eviction, INFO and MEMORY STATS count every byte of them
/// (word_array's mmap was invisible to the server: a 144 MB filter left used_memory at 1 MB).
/// Zeroed (calloc: large blocks come from fresh zero pages, untouched pages cost nothing) and
/// 64-byte aligned (a blocked filter's line is one cache line): 56 bytes more are asked for.
/// Outside a server (the loaders' fuzz target) the C allocator. Never process-shared. Move-only.
class module_words {
public:
    module_words() = default;
    /// Throws too_large (over memory_limit or the machine, before allocating), out_of_memory
    /// (the server's TryCalloc refused), invalid_argument (bad count, process_shared).
    module_words(std::uint64_t words, std::uint64_t memory_limit, bool process_shared) : size_(words) {
        if (process_shared) throw lfbloom::error(lfbloom::errc::invalid_argument, "a module's filter is never process-shared");
        if (words == 0 || words > (std::uint64_t{1} << 58)) throw lfbloom::error(lfbloom::errc::invalid_argument, "bad word count");
        lfbloom::check_memory(words * 8, memory_limit);
        const std::size_t bytes = words * 8 + alignment - 8;
        raw_ = RedisModule_TryCalloc ? RedisModule_TryCalloc(1, bytes) : RedisModule_Calloc ? RedisModule_Calloc(1, bytes) : std::calloc(1, bytes);
        if (raw_ == nullptr) throw lfbloom::error(lfbloom::errc::out_of_memory, "the server has no memory for " + std::to_string(bytes) + " bytes");
        const auto at = (reinterpret_cast<std::uintptr_t>(raw_) + alignment - 1) & ~std::uintptr_t{alignment - 1};
        data_ = reinterpret_cast<std::uint64_t*>(at);
#ifdef MADV_HUGEPAGE
        // Transparent huge pages for the whole 2 MiB pages inside, as word_array asks for its
        // mappings (the server's allocator does not: its blocks were all 4 KiB pages here), since
        // a filter larger than the caches would cost a page walk per probe. A hint; failure is harmless.
        constexpr std::uintptr_t huge = std::uintptr_t{2} << 20;
        const std::uintptr_t from = (at + huge - 1) & ~(huge - 1), to = (at + words * 8) & ~(huge - 1);
        if (to > from) ::madvise(reinterpret_cast<void*>(from), to - from, MADV_HUGEPAGE);
#endif
    }
    module_words(module_words&& other) noexcept
        : raw_(std::exchange(other.raw_, nullptr)), data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
    module_words& operator=(module_words&& other) noexcept {
        if (this != &other) {
            release();
            raw_ = std::exchange(other.raw_, nullptr);
            data_ = std::exchange(other.data_, nullptr);
            size_ = std::exchange(other.size_, 0);
        }
        return *this;
    }
    module_words(const module_words&) = delete;
    module_words& operator=(const module_words&) = delete;
    ~module_words() { release(); }  // also on the server's lazy-free thread: its allocator is thread-safe

    std::uint64_t* data() const noexcept { return data_; }
    std::uint64_t size() const noexcept { return size_; }
    std::uint64_t bytes() const noexcept { return size_ * 8; }
    void flush() const noexcept {}

private:
    static constexpr std::size_t alignment = 64;
    void release() noexcept {
        if (raw_ == nullptr) return;
        if (RedisModule_Free) RedisModule_Free(raw_);
        else std::free(raw_);
    }
    void* raw_ = nullptr;  ///< what the allocator returned
    std::uint64_t* data_ = nullptr;
    std::uint64_t size_ = 0;
};

/// The core's concurrency policy with the module's words (the cuckoo filter takes a Sync).
struct module_sync : lfbloom::default_sync {
    using storage = module_words;
};

using blocked_bloom_filter = lfbloom::bloom_filter<lfbloom::blocked_layout, module_words>;
using counting_bloom_filter = lfbloom::basic_counting_bloom_filter<module_words>;

constexpr int encoding_version = 1;

/// The server's settings: load arguments give their start values, module configs (redis.conf,
/// CONFIG SET lfbloom.<name>) change them. Redis reads and writes them on its main thread only.
/// A replica builds what its primary built whatever its own defaults (creations replicate with
/// every parameter), but refuses what exceeds its own max-bytes: give every node the same.
struct settings {
    double error_rate = 0.01;                     ///< lfbloom.error-rate, ERROR_RATE (RedisBloom's name)
    long long initial_size = 100;                 ///< lfbloom.initial-size, INITIAL_SIZE (RedisBloom's name)
    long long expansion = 2;                      ///< lfbloom.expansion, EXPANSION
    long long max_bytes = std::int64_t{4} << 30;  ///< lfbloom.max-bytes, MAX_BYTES: one key's memory, checked before allocating
};
inline settings config;

/// INFO lfbloom's live counts. Relaxed atomics: values are freed on Redis's lazy-free thread too,
/// and the counts order nothing (they are statistics).
struct live_counts {
    std::atomic<long long> filters{0}, bytes{0}, refused{0};
};
inline live_counts live;

/// A value counted in INFO lfbloom: one filter, `accounted` bytes.
class tracked {
public:
    tracked(const tracked&) = delete;
    tracked& operator=(const tracked&) = delete;

protected:
    tracked() { live.filters.fetch_add(1, std::memory_order_relaxed); }  // relaxed: statistics (see live)
    ~tracked() {
        live.filters.fetch_sub(1, std::memory_order_relaxed);  // relaxed: statistics
        live.bytes.fetch_sub(static_cast<long long>(accounted_), std::memory_order_relaxed);  // relaxed: statistics
    }
    /// Brings live.bytes up to date after the value's memory changed to `now`.
    void account(std::uint64_t now) {
        live.bytes.fetch_add(static_cast<long long>(now - accounted_), std::memory_order_relaxed);  // relaxed: statistics
        accounted_ = now;
    }

private:
    std::uint64_t accounted_ = 0;
};

/// Whether max-bytes applies to what is being allocated now: to what clients ask of a primary,
/// not to values loaded from RDB or AOF or sent by a primary (checked when they were made;
/// refusing them would stop a load, or leave a replica without a key its primary has). Set at
/// the start of every command (see guarded) and of rdb_load; Redis runs both on its main thread.
inline bool limit_applies = true;

/// Whether the context's command comes from a client of a primary.
inline bool from_clients(RedisModuleCtx* ctx) {
    const int flags = RedisModule_GetContextFlags(ctx);
    return !(flags & (REDISMODULE_CTX_FLAGS_SLAVE | REDISMODULE_CTX_FLAGS_LOADING | REDISMODULE_CTX_FLAGS_REPLICATED));
}

/// The memory left to a key that uses `used` bytes (0: no limit); throws too_large at the limit.
inline std::uint64_t memory_left(std::uint64_t used) {
    if (!limit_applies) return 0;
    const auto limit = static_cast<std::uint64_t>(config.max_bytes);
    if (used >= limit) throw lfbloom::error(lfbloom::errc::too_large, "the key reached its memory limit");
    return limit - used;
}

/// Refuses a loaded filter unless it is exactly what the module makes for its key's parameters
/// (`expected`: the geometry for them; seed 0; today's probe rule). So keys of equal parameters
/// always merge and dump alike, and a crafted geometry cannot pose as another capacity.
template <class Filter>
void check_made_for(const Filter& f, const lfbloom::geometry& expected) {
    const auto& g = f.shape();
    if (g.slots != expected.slots || g.hashes != expected.hashes || g.capacity != expected.capacity ||
        g.target_fpr != expected.target_fpr || f.seed() != 0 || f.probes() != lfbloom::probe_rule::distinct)
        throw lfbloom::error(lfbloom::errc::corrupt, "a filter's geometry does not match its key");
}

// ---- blobs: little-endian fields and FORMAT.md filters -------------------------------------------

template <class T>
void put(std::string& out, T v) {
    unsigned char b[sizeof(T)];
    lfbloom::detail::put_le(b, v);
    out.append(reinterpret_cast<const char*>(b), sizeof(T));
}

/// Appends length(u64) and the filter's FORMAT.md bytes (checksummed), written in place.
template <class Filter>
void put_filter(std::string& out, const Filter& f) {
    const std::size_t at = out.size();
    put(out, std::uint64_t{0});  // the length, once known
    out.reserve(out.size() + f.words().size_bytes() + 128);  // header and trailer: under 128 bytes
    lfbloom::save(f, [&](const void* data, std::size_t n) { out.append(static_cast<const char*>(data), n); });
    unsigned char length[8];
    lfbloom::detail::put_le<std::uint64_t>(length, out.size() - at - 8);
    out.replace(at, 8, reinterpret_cast<const char*>(length), 8);
}

struct reader {
    std::string_view rest;

    template <class T>
    T get() {
        if (rest.size() < sizeof(T)) throw lfbloom::error(lfbloom::errc::corrupt, "truncated");
        const T v = lfbloom::detail::get_le<T>(reinterpret_cast<const unsigned char*>(rest.data()));
        rest.remove_prefix(sizeof(T));
        return v;
    }
    double get_double() { return std::bit_cast<double>(get<std::uint64_t>()); }
    /// Reads what put_filter wrote, checking its checksum and the memory a key using `used` bytes
    /// has left before allocating.
    template <class Filter>
    Filter get_filter(std::uint64_t used) {
        const auto length = get<std::uint64_t>();
        if (length > rest.size()) throw lfbloom::error(lfbloom::errc::corrupt, "truncated filter");
        std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(rest.data()), length);
        auto f = lfbloom::load<Filter>(lfbloom::span_source(bytes), memory_left(used), length);
        rest.remove_prefix(length);
        return f;
    }
    /// Starts a blob: its magic must match.
    reader(std::string_view blob, std::string_view magic) : rest(blob) {
        if (!blob.starts_with(magic)) throw lfbloom::error(lfbloom::errc::corrupt, "not this type's value");
        rest.remove_prefix(magic.size());
    }
    /// Ends a blob: nothing may follow.
    void end() const {
        if (!rest.empty()) throw lfbloom::error(lfbloom::errc::corrupt, "inconsistent value");
    }
};

// ---- replies and arguments ----------------------------------------------------------------------

inline std::string_view view(RedisModuleString* s) {
    std::size_t n = 0;
    const char* p = RedisModule_StringPtrLen(s, &n);
    return {p, n};
}

inline bool is(RedisModuleString* s, const char* word) { return strcasecmp(RedisModule_StringPtrLen(s, nullptr), word) == 0; }

/// The shortest text that reads back as exactly `v`.
inline std::string shortest(double v) {
    char text[32];
    return {text, std::to_chars(text, text + sizeof text, v).ptr};
}

inline int reply_bool(RedisModuleCtx* ctx, bool b) {
    // ReplyWithBool is an integer 0/1 under RESP2 and a boolean under RESP3, as RedisBloom's replies
    return RedisModule_ReplyWithBool(ctx, b);
}

inline int reply_error(RedisModuleCtx* ctx, const std::exception& e) {
    const std::string text = "ERR " + std::string(e.what());
    return RedisModule_ReplyWithError(ctx, text.c_str());
}

/// Opens a key for this command; automatic memory (every command enables it) closes it on return.
inline RedisModuleKey* open(RedisModuleCtx* ctx, RedisModuleString* name, int mode) {
    RedisModule_AutoMemory(ctx);
    return static_cast<RedisModuleKey*>(RedisModule_OpenKey(ctx, name, mode));
}

/// The key's value of type V, null if the key is empty; wrong = another type.
template <class V>
V* lookup(RedisModuleKey* key, bool& wrong) {
    wrong = false;
    if (RedisModule_KeyType(key) == REDISMODULE_KEYTYPE_EMPTY) return nullptr;
    if (RedisModule_ModuleTypeGetType(key) != V::type) {
        wrong = true;
        return nullptr;
    }
    return static_cast<V*>(RedisModule_ModuleTypeGetValue(key));
}

/// Calls each(i, hash of items[i]) for i in [0, n) until it returns false, hashing and prefetching
/// each item `ahead` items before its turn, so that cache misses overlap (a filter larger than the
/// caches costs a miss or two per item and sub-filter; one item at a time, they would not). A
/// sliding window: every item's lines had `ahead` items' time to come in (in batches of 16, the
/// first of each had none). V has a static hash(string_view) and prefetch(hash128) const (BF's
/// chain, CF's cuckoo_chain); if it has prefetch_late(hash128) const too (CF's adds), that runs
/// `ahead` / 2 items before the item's turn, when prefetch's lines are in.
template <class V, class Each>
void for_each_hashed(const V& value, RedisModuleString** items, int n, Each&& each) {
    constexpr int ahead = 16;  // a power of two: i % ahead is a mask
    lfbloom::hash128 hashes[ahead];
    for (int j = 0; j < std::min(n, ahead); ++j) value.prefetch(hashes[j] = V::hash(view(items[j])));
    for (int i = 0; i < n; ++i) {
        const lfbloom::hash128 h = hashes[i % ahead];
        if (i + ahead < n) value.prefetch(hashes[i % ahead] = V::hash(view(items[i + ahead])));
        if constexpr (requires { value.prefetch_late(h); })
            if (i + ahead / 2 < n) value.prefetch_late(hashes[(i + ahead / 2) % ahead]);
        if (!each(i, h)) return;
    }
}

/// Keyspace event of class d ("module") on `key`.
inline void notify(RedisModuleCtx* ctx, const char* event, RedisModuleString* key) {
    RedisModule_NotifyKeyspaceEvent(ctx, REDISMODULE_NOTIFY_MODULE, event, key);
}

/// Replies with RESP3 map or RESP2 flat array of (name, value) pairs: the head of a reply of `n` fields.
inline void reply_fields(RedisModuleCtx* ctx, long n) {
    if (RedisModule_GetContextFlags(ctx) & REDISMODULE_CTX_FLAGS_RESP3) RedisModule_ReplyWithMap(ctx, n);
    else RedisModule_ReplyWithArray(ctx, 2 * n);
}

// ---- the data-type callbacks, for a value type V ------------------------------------------------
// V has: static constexpr std::string_view magic; static inline RedisModuleType* type;
// static std::string serialize(const V&); static std::unique_ptr<V> deserialize(std::string_view)
// (validates everything before and while allocating; throws lfbloom::error); bytes() const.
// Every type's AOF rewrite emits LFBF.RESTORE key blob, which tells the types apart by magic.

template <class V>
struct callbacks {
    static void* rdb_load(RedisModuleIO* io, int encver) {
        if (encver != encoding_version) return nullptr;
        limit_applies = from_clients(RedisModule_GetContextFromIO(io));  // RESTORE of a DUMP payload: yes
        std::size_t n = 0;
        char* buffer = RedisModule_LoadStringBuffer(io, &n);
        if (RedisModule_IsIOError(io) || buffer == nullptr) {  // a short read (HANDLE_IO_ERRORS)
            if (buffer != nullptr) RedisModule_Free(buffer);
            return nullptr;
        }
        std::unique_ptr<char, void (*)(void*)> owned(buffer, RedisModule_Free);
        try {
            return V::deserialize({buffer, n}).release();
        } catch (const std::exception& e) {
            live.refused.fetch_add(1, std::memory_order_relaxed);  // relaxed: statistics
            RedisModule_LogIOError(io, "warning", "lfbloom: refusing a value: %s", e.what());
            return nullptr;
        }
    }

    /// The callbacks that write a value cannot report failure: if serializing runs out of memory,
    /// they log it and write an empty value, which loading refuses (so the key is lost, not forged).
    static std::string serialize_or_log(RedisModuleCtx* ctx, const void* value) {
        try {
            return V::serialize(*static_cast<const V*>(value));
        } catch (const std::exception& e) {
            RedisModule_Log(ctx, "warning", "lfbloom: cannot serialize a value: %s", e.what());
            return {};
        }
    }

    static void rdb_save(RedisModuleIO* io, void* value) {
        const std::string blob = serialize_or_log(RedisModule_GetContextFromIO(io), value);
        RedisModule_SaveStringBuffer(io, blob.data(), blob.size());
    }

    static void aof_rewrite(RedisModuleIO* aof, RedisModuleString* key, void* value) {
        const std::string blob = serialize_or_log(RedisModule_GetContextFromIO(aof), value);
        RedisModule_EmitAOF(aof, "LFBF.RESTORE", "sb", key, blob.data(), blob.size());
    }

    static void digest(RedisModuleDigest* md, void* value) {
        const std::string blob = serialize_or_log(nullptr, value);
        RedisModule_DigestAddStringBuffer(md, blob.data(), blob.size());
        RedisModule_DigestEndSequence(md);
    }

    static void* copy(RedisModuleString*, RedisModuleString*, const void* value) {
        limit_applies = true;  // COPY: a client's new key
        try {
            return V::deserialize(V::serialize(*static_cast<const V*>(value))).release();
        } catch (const std::exception&) {
            return nullptr;  // Redis answers the COPY with an error
        }
    }

    static std::size_t mem_usage(const void* value) { return static_cast<const V*>(value)->bytes(); }
    // Pages the allocator returns to the system: large keys are freed on the server's background thread
    static std::size_t free_effort(RedisModuleString*, const void* value) { return static_cast<const V*>(value)->bytes() / 4096; }
    static void free(void* value) { delete static_cast<V*>(value); }

    /// Registers the type under its 9-character name; false if Redis refuses.
    static bool create(RedisModuleCtx* ctx, const char* name) {
        RedisModuleTypeMethods m = {};
        m.version = REDISMODULE_TYPE_METHOD_VERSION;
        m.rdb_load = rdb_load;
        m.rdb_save = rdb_save;
        m.aof_rewrite = aof_rewrite;
        m.digest = digest;
        m.mem_usage = mem_usage;
        m.free = free;
        m.copy = copy;
        m.free_effort = free_effort;
        V::type = RedisModule_CreateDataType(ctx, name, encoding_version, &m);
        return V::type != nullptr;
    }

    /// LFBF.RESTORE's part: if `blob` is V's, sets the empty `key` to it (throws if it is corrupt).
    static bool restore(RedisModuleKey* key, std::string_view blob) {
        if (!blob.starts_with(V::magic)) return false;
        RedisModule_ModuleTypeSetValue(key, V::type, V::deserialize(blob).release());
        return true;
    }
};

/// Every command runs through this: it sets whether max-bytes applies, and answers an exception
/// that escaped (bad_alloc while replying, say) with an error instead of letting it end Redis.
template <RedisModuleCmdFunc F>
int guarded(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
    limit_applies = from_clients(ctx);
    try {
        return F(ctx, argv, argc);
    } catch (const std::exception& e) {
        return RedisModule_ReplyWithError(ctx, dynamic_cast<const std::bad_alloc*>(&e) ? "ERR out of memory" : "ERR the command failed");
    }
}

struct command {
    const char* name;
    RedisModuleCmdFunc f;
    const char* flags;
    int last_key = 1;  ///< -1: every argument from the first is a key (LFBF.MERGE)
};

/// Adds the module's ACL categories, "bloom" (BF.*, CBF.*, RBF.*, LFBF.*) and "cuckoo" (CF.*),
/// RedisBloom's names on Redis 8, where the server offers RedisModule_AddACLCategory (Valkey 9.1
/// here; not Debian's Redis 7.0). A category the server has already (RedisBloom loaded beside
/// us) is shared. Call before create_commands. A server with SetCommandACLCategories but without
/// AddACLCategory knows neither name: commands are put in no category there (the call would fail,
/// and the module's load with it).
inline bool acl_categories = false;
inline void add_acl_categories(RedisModuleCtx* ctx) {
    if (!RedisModule_AddACLCategory || !RedisModule_SetCommandACLCategories) return;
    for (const char* category : {"bloom", "cuckoo"}) (void)RedisModule_AddACLCategory(ctx, category);
    acl_categories = true;
}

/// A command's tips for clients that cache replies (client-side caching decides by COMMAND INFO:
/// a read-only command of keys is cacheable unless tipped otherwise): "dont-cache" on the replies
/// that report memory or internal state or stream a dump (*.INFO, *.DEBUG, *.SCANDUMP), as
/// RedisBloom tips them (its PR #1009), and "nondeterministic_output" on RBF's reads, whose
/// answers change with the clock with no write to invalidate a cached one. Null: none.
inline const char* tips_for(std::string_view name) {
    if (name.starts_with("rbf.") && (name.ends_with("exists") || name.ends_with(".info"))) return "nondeterministic_output";
    if (name.ends_with(".info") || name.ends_with(".debug") || name.ends_with(".scandump")) return "dont-cache";
    return nullptr;
}

/// Registers commands (their key is argument 1; through `last_key`, for several), each with its
/// key spec and tips (tips_for) where the server offers RedisModule_SetCommandInfo (7.0 and later:
/// COMMAND INFO, COMMAND GETKEYS and clients' routing see read-only keys as such) and, where add_acl_categories could
/// add them, in the ACL category `category` and @read or @write (and @fast) by its flags.
inline int create_commands(RedisModuleCtx* ctx, std::span<const command> commands, const char* category) {
    for (const auto& c : commands) {
        if (RedisModule_CreateCommand(ctx, c.name, c.f, c.flags, 1, c.last_key, 1) == REDISMODULE_ERR) return REDISMODULE_ERR;
        RedisModuleCommand* handle = RedisModule_GetCommand ? RedisModule_GetCommand(ctx, c.name) : nullptr;
        if (handle == nullptr) continue;
        const bool reads = std::string_view(c.flags).starts_with("readonly");
        // the key at 1; for several (LFBF.MERGE dest src...), the sources from 2 on, read only
        RedisModuleCommandKeySpec specs[3] = {};  // ends with one all zero
        const auto spec = [](RedisModuleCommandKeySpec& s, bool read, int from, int last) {
            s.flags = read ? REDISMODULE_CMD_KEY_RO | REDISMODULE_CMD_KEY_ACCESS : REDISMODULE_CMD_KEY_RW | REDISMODULE_CMD_KEY_UPDATE;
            s.begin_search_type = REDISMODULE_KSPEC_BS_INDEX;
            s.bs.index.pos = from;
            s.find_keys_type = REDISMODULE_KSPEC_FK_RANGE;
            s.fk.range = {last, 1, 0};
        };
        spec(specs[0], reads, 1, 0);
        if (c.last_key == -1) spec(specs[1], true, 2, -1);
        RedisModuleCommandInfo info = {};
        info.version = REDISMODULE_COMMAND_INFO_VERSION;
        info.key_specs = specs;
        info.tips = tips_for(c.name);  // a field of every version of the struct: servers with SetCommandInfo report it
        if (RedisModule_SetCommandInfo && RedisModule_SetCommandInfo(handle, &info) == REDISMODULE_ERR) return REDISMODULE_ERR;
        // and @read, @write, @fast by its flags: servers put module commands in none of them
        std::string categories = category;
        categories += reads ? " read" : " write";
        if (std::string_view(c.flags).ends_with("fast")) categories += " fast";
        if (acl_categories && RedisModule_SetCommandACLCategories(handle, categories.c_str()) == REDISMODULE_ERR)
            return REDISMODULE_ERR;
    }
    return REDISMODULE_OK;
}

}  // namespace lfbloom_redis
