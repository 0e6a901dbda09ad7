// lfbloom's Redis/Valkey module: RedisBloom's BF.* commands served by the core's blocked filter.
//
// A BF key is a chain of blocked sub-filters, as RedisBloom's: sub-filter i holds capacity *
// expansion^i keys at rate error / 2^(i+1) (the sum stays under error); an add first asks every
// sub-filter, so a key present anywhere is not added twice, then goes to the newest, opening a
// new one once the newest holds its capacity (or answering "non scaling filter is full").
// Replies, defaults and error strings follow RedisBloom 2.8.2 (tests/redis compares them);
// BF.INFO's Size reports our bytes and BF.SCANDUMP carries our chunks, which differ. Beyond
// RedisBloom: module configs (lfbloom.*), an INFO section, keyspace events, a per-key memory cap.
//
// Thread safety: Redis calls the commands and type callbacks one at a time (on its main thread,
// or a background thread for free and for saving in a fork), so nothing here needs a lock.
#include <algorithm>
#include <atomic>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <strings.h>  // strcasecmp

#include <xxhash.h>

#include "lfbloom/lfbloom.hpp"

extern "C" {
#include "redismodule.h"
}

namespace {

using lfbloom::blocked_bloom_filter;

constexpr int encoding_version = 1;
constexpr char blob_magic[8] = {'L', 'F', 'B', 'R', 'S', 'B', '0', '1'};

/// The server's settings: load arguments give their start values, module configs (redis.conf,
/// CONFIG SET lfbloom.<name>) change them. Redis reads and writes them on its main thread only.
/// A replica builds what its primary built whatever its own defaults (creations replicate with
/// every parameter), but refuses what exceeds its own max-bytes: give every node the same.
struct settings {
    double error_rate = 0.01;                       ///< lfbloom.error-rate, ERROR_RATE (RedisBloom's name)
    long long initial_size = 100;                   ///< lfbloom.initial-size, INITIAL_SIZE (RedisBloom's name)
    long long expansion = 2;                        ///< lfbloom.expansion, EXPANSION
    long long max_bytes = std::int64_t{4} << 30;    ///< lfbloom.max-bytes, MAX_BYTES: one key's memory, checked before allocating
} config;

/// INFO lfbloom's live counts. Relaxed atomics: values are freed on Redis's lazy-free thread too,
/// and the counts order nothing (they are statistics).
struct {
    std::atomic<long long> filters{0}, bytes{0}, refused{0};
} live;
/// Sub-filters per key. Each halves the rate, so past about 250 the hashes needed exceed 255.
constexpr std::size_t max_chain = 256;
RedisModuleType* chain_type = nullptr;

struct sub_filter {
    blocked_bloom_filter filter;
    std::uint64_t capacity;
    std::uint64_t items = 0;
};

/// One BF key. expansion 0 = NONSCALING.
struct chain {
    double error = 0;
    std::uint32_t expansion = 0;
    std::uint64_t items = 0;
    std::vector<sub_filter> subs;

    chain() { account(); }
    chain(const chain&) = delete;
    chain& operator=(const chain&) = delete;
    ~chain() {
        live.filters.fetch_sub(1, std::memory_order_relaxed);  // relaxed: statistics (see live)
        live.bytes.fetch_sub(static_cast<long long>(accounted), std::memory_order_relaxed);
    }
    /// Brings live.bytes up to date after subs changed.
    void account() {
        if (accounted == 0) live.filters.fetch_add(1, std::memory_order_relaxed);  // relaxed: statistics
        const std::uint64_t now = bytes();
        live.bytes.fetch_add(static_cast<long long>(now - accounted), std::memory_order_relaxed);
        accounted = now;
    }
    std::uint64_t accounted = 0;

    std::uint64_t bytes() const {  // O(sub-filters): no scan of the bits
        std::uint64_t sum = sizeof(chain);
        for (const auto& s : subs) sum += sizeof(sub_filter) + s.filter.words().size_bytes();
        return sum;
    }
    std::uint64_t capacity() const {  // saturates (a loaded value may claim anything)
        std::uint64_t sum = 0;
        for (const auto& s : subs) sum = s.capacity > UINT64_MAX - sum ? UINT64_MAX : sum + s.capacity;
        return sum;
    }
    /// Sub-filter i's rate: error / 2^(i+1) when scaling (the sum stays under error), error when
    /// NONSCALING (one filter), as RedisBloom.
    double rate(std::size_t i) const { return expansion == 0 ? error : std::ldexp(error, -static_cast<int>(i + 1)); }

    /// Opens sub-filter subs.size(); throws lfbloom::error (too_large past max_bytes).
    void grow(std::uint64_t capacity) {
        if (subs.size() >= max_chain) throw lfbloom::error(lfbloom::errc::full, "the filter reached its limit of sub-filters");
        const std::uint64_t used = subs.empty() ? 0 : bytes();
        const auto limit = static_cast<std::uint64_t>(config.max_bytes);
        if (used >= limit) throw lfbloom::error(lfbloom::errc::too_large, "the key reached its memory limit");
        lfbloom::filter_options o;
        o.memory_limit = limit - used;
        subs.reserve(subs.size() + 1);  // so push_back cannot throw after the filter is made
        subs.push_back({blocked_bloom_filter::for_capacity(capacity, rate(subs.size()), o), capacity});
        account();
    }

    bool contains(std::string_view key) const {
        return std::any_of(subs.rbegin(), subs.rend(), [&](const sub_filter& s) { return s.filter.contains(key); });
    }

    enum class added { fresh, present, full };
    /// Throws lfbloom::error if a new sub-filter cannot be made.
    added add(std::string_view key) {
        if (contains(key)) return added::present;
        sub_filter* newest = &subs.back();
        if (newest->items >= newest->capacity) {
            if (expansion == 0) return added::full;
            const long double next = static_cast<long double>(newest->capacity) * expansion;
            if (next > static_cast<long double>(std::numeric_limits<std::uint64_t>::max() / 2))
                throw lfbloom::error(lfbloom::errc::too_large, "the next sub-filter's capacity overflows");
            grow(static_cast<std::uint64_t>(next));
            newest = &subs.back();
        }
        newest->filter.add(key);
        ++newest->items;
        ++items;
        return added::fresh;
    }
};

// ---- serialized form: RDB, AOF (LFBF.RESTORE), DEBUG DIGEST-VALUE ---------------------------------
// magic(8) error(f64) expansion(u32) items(u64) count(u32), then per sub-filter capacity(u64)
// items(u64) length(u64) and FORMAT.md's checksummed bytes. Little-endian.

template <class T>
void put(std::string& out, T v) {
    unsigned char b[sizeof(T)];
    lfbloom::detail::put_le(b, v);
    out.append(reinterpret_cast<const char*>(b), sizeof(T));
}

std::string serialize(const chain& c) {
    std::string out(blob_magic, sizeof(blob_magic));
    put(out, std::bit_cast<std::uint64_t>(c.error));
    put(out, c.expansion);
    put(out, c.items);
    put(out, static_cast<std::uint32_t>(c.subs.size()));
    for (const auto& s : c.subs) {
        std::vector<std::byte> bytes;
        lfbloom::save(s.filter, lfbloom::vector_sink(bytes));
        put(out, s.capacity);
        put(out, s.items);
        put(out, static_cast<std::uint64_t>(bytes.size()));
        out.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    }
    return out;
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
};

/// The checks every loaded chain passes (RDB, RESTORE, LOADCHUNK's header): its parameters and
/// sub-filter count, and then each sub-filter's place in it. Throw lfbloom::error(corrupt).
void check_parameters(const chain& c, std::uint32_t count) {
    if (!(c.error > 0 && c.error < 1) || count == 0 || count > max_chain || (c.expansion == 0 && count != 1))
        throw lfbloom::error(lfbloom::errc::corrupt, "bad parameters");
}
/// Sub-filter c.subs.size() of `count`; `items` is the sum over the ones before it.
void check_link(const chain& c, std::uint32_t count, std::uint64_t capacity, std::uint64_t items, std::uint64_t before) {
    // each but the newest was full when the next opened; none holds more than its capacity
    const std::size_t i = c.subs.size();
    const std::uint64_t expected = i == 0 ? capacity : c.subs.back().capacity * c.expansion;
    if (capacity == 0 || capacity != expected || items > capacity || (i + 1 < count && items != capacity) ||
        items > UINT64_MAX - before)
        throw lfbloom::error(lfbloom::errc::corrupt, "inconsistent sub-filter");
}

/// Validates everything before and while allocating: lengths against the bytes present, each
/// sub-filter's checksum, the memory limit. Throws lfbloom::error.
std::unique_ptr<chain> deserialize(std::string_view blob) {
    using lfbloom::errc;
    if (blob.size() < sizeof(blob_magic) || blob.substr(0, sizeof(blob_magic)) != std::string_view(blob_magic, 8))
        throw lfbloom::error(errc::corrupt, "not an lfbloom BF value");
    reader r{blob.substr(sizeof(blob_magic))};
    auto c = std::make_unique<chain>();
    c->error = std::bit_cast<double>(r.get<std::uint64_t>());
    c->expansion = r.get<std::uint32_t>();
    c->items = r.get<std::uint64_t>();
    const auto count = r.get<std::uint32_t>();
    check_parameters(*c, count);
    c->subs.reserve(count);
    std::uint64_t items = 0, used = sizeof(chain);
    for (std::uint32_t i = 0; i < count; ++i) {
        const auto capacity = r.get<std::uint64_t>();
        const auto sub_items = r.get<std::uint64_t>();
        const auto length = r.get<std::uint64_t>();
        if (length > r.rest.size()) throw lfbloom::error(errc::corrupt, "truncated sub-filter");
        check_link(*c, count, capacity, sub_items, items);
        std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(r.rest.data()), length);
        const auto limit = static_cast<std::uint64_t>(config.max_bytes);
        if (used >= limit) throw lfbloom::error(errc::too_large, "the value exceeds the memory limit");
        auto f = lfbloom::load<blocked_bloom_filter>(lfbloom::span_source(bytes), limit - used, length);
        if (f.shape().capacity != capacity || f.shape().target_fpr != c->rate(i))
            throw lfbloom::error(errc::corrupt, "a sub-filter's geometry does not match its chain");
        used += sizeof(sub_filter) + f.words().size_bytes();
        c->subs.push_back({std::move(f), capacity, sub_items});
        c->account();
        r.rest.remove_prefix(length);
        items += sub_items;
    }
    if (!r.rest.empty() || items != c->items) throw lfbloom::error(errc::corrupt, "inconsistent value");
    return c;
}

// ---- replies and arguments ----------------------------------------------------------------------

std::string_view view(RedisModuleString* s) {
    std::size_t n = 0;
    const char* p = RedisModule_StringPtrLen(s, &n);
    return {p, n};
}

bool is(RedisModuleString* s, const char* word) { return strcasecmp(RedisModule_StringPtrLen(s, nullptr), word) == 0; }

/// The shortest text that reads back as exactly `v`.
std::string shortest(double v) {
    char text[32];
    return {text, std::to_chars(text, text + sizeof text, v).ptr};
}

int reply_bool(RedisModuleCtx* ctx, bool b) {
    // ReplyWithBool is an integer 0/1 under RESP2 and a boolean under RESP3, as RedisBloom's replies
    return RedisModule_ReplyWithBool ? RedisModule_ReplyWithBool(ctx, b) : RedisModule_ReplyWithLongLong(ctx, b);
}

int reply_error(RedisModuleCtx* ctx, const std::exception& e) {
    const std::string text = "ERR " + std::string(e.what());
    return RedisModule_ReplyWithError(ctx, text.c_str());
}

/// The key's chain, null if the key is empty; wrong = another type.
chain* lookup(RedisModuleKey* key, bool& wrong) {
    wrong = false;
    const int type = RedisModule_KeyType(key);
    if (type == REDISMODULE_KEYTYPE_EMPTY) return nullptr;
    if (RedisModule_ModuleTypeGetType(key) != chain_type) {
        wrong = true;
        return nullptr;
    }
    return static_cast<chain*>(RedisModule_ModuleTypeGetValue(key));
}

/// Opens a key for this command; automatic memory (every command enables it) closes it on return.
RedisModuleKey* open(RedisModuleCtx* ctx, RedisModuleString* name, int mode) {
    RedisModule_AutoMemory(ctx);
    return static_cast<RedisModuleKey*>(RedisModule_OpenKey(ctx, name, mode));
}

/// Keyspace events (class d, "module"): bf.reserve when a key is created, by any command;
/// bf.add when an add changed a filter; bf.loadchunk, lfbf.restore. RedisBloom 2.8.2 sends none.
void notify(RedisModuleCtx* ctx, const char* event, RedisModuleString* key) {
    RedisModule_NotifyKeyspaceEvent(ctx, REDISMODULE_NOTIFY_MODULE, event, key);
}

/// Creates the chain for a new key; replies with the error and returns null if it cannot.
chain* create(RedisModuleCtx* ctx, RedisModuleKey* key, double error, long long capacity, long long expansion) {
    try {
        auto c = std::make_unique<chain>();
        c->error = error;
        c->expansion = static_cast<std::uint32_t>(expansion);
        c->grow(static_cast<std::uint64_t>(capacity));
        chain* raw = c.release();
        RedisModule_ModuleTypeSetValue(key, chain_type, raw);
        return raw;
    } catch (const std::exception& e) {  // lfbloom::error, bad_alloc: nothing was created
        reply_error(ctx, e);
    }
    return nullptr;
}

/// Replicates a creation as an explicit BF.RESERVE with every parameter (so a replica with other
/// defaults builds the same filter) followed by the adds that changed something.
void replicate_reserve(RedisModuleCtx* ctx, RedisModuleString* name, const chain& c) {
    const std::string error = shortest(c.error);
    const std::string capacity = std::to_string(c.subs.front().capacity);
    if (c.expansion == 0)
        RedisModule_Replicate(ctx, "BF.RESERVE", "sccc", name, error.c_str(), capacity.c_str(), "NONSCALING");
    else
        RedisModule_Replicate(ctx, "BF.RESERVE", "scccl", name, error.c_str(), capacity.c_str(), "EXPANSION",
                              static_cast<long long>(c.expansion));
}

/// A new key's parameters: the server's defaults unless the command gives them.
struct creation {
    double error = config.error_rate;
    long long capacity = config.initial_size;
    long long expansion = config.expansion;
    bool nonscaling = false;
};

/// The writable chain at `name`, created (and replicated as an explicit BF.RESERVE) from `p` if
/// the key is empty and `may_create`; null after replying with the error otherwise.
chain* open_or_create(RedisModuleCtx* ctx, RedisModuleString* name, const creation& p, bool may_create = true) {
    RedisModuleKey* key = open(ctx, name, REDISMODULE_READ | REDISMODULE_WRITE);
    bool wrong = false;
    chain* c = lookup(key, wrong);
    if (wrong) {
        RedisModule_ReplyWithError(ctx, REDISMODULE_ERRORMSG_WRONGTYPE);
    } else if (c == nullptr && !may_create) {
        RedisModule_ReplyWithError(ctx, "ERR not found");
    } else if (c == nullptr && (c = create(ctx, key, p.error, p.capacity, p.nonscaling ? 0 : p.expansion)) != nullptr) {
        replicate_reserve(ctx, name, *c);
        notify(ctx, "bf.reserve", name);
    }
    return c;
}

/// Adds items[0..n) to c, replying with an array that stops at the first "full" (RedisBloom's
/// MADD and INSERT); replicates BF.MADD of every item before the stop, present ones too (a
/// replica whose filter answers differently still ends up holding each of them).
int add_items(RedisModuleCtx* ctx, RedisModuleString* name, chain& c, RedisModuleString** items, int n) {
    RedisModule_ReplyWithArray(ctx, REDISMODULE_POSTPONED_LEN);
    int done = 0;
    long replied = 0;
    bool fresh = false;
    for (int i = 0; i < n; ++i, ++replied) {
        try {
            const auto r = c.add(view(items[i]));
            if (r == chain::added::full) {
                RedisModule_ReplyWithError(ctx, "ERR non scaling filter is full");
                ++replied;
                break;
            }
            ++done;
            fresh |= r == chain::added::fresh;
            reply_bool(ctx, r == chain::added::fresh);
        } catch (const std::exception& e) {
            reply_error(ctx, e);
            ++replied;
            break;
        }
    }
    RedisModule_ReplySetArrayLength(ctx, replied);
    if (done > 0) RedisModule_Replicate(ctx, "BF.MADD", "sv", name, items, static_cast<std::size_t>(done));
    if (fresh) notify(ctx, "bf.add", name);
    return REDISMODULE_OK;
}

// ---- commands -----------------------------------------------------------------------------------

/// BF.RESERVE key error_rate capacity [EXPANSION expansion] [NONSCALING]
int reserve(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
    if (argc < 4 || argc > 7) return RedisModule_WrongArity(ctx);
    creation p;
    if (RedisModule_StringToDouble(argv[2], &p.error) != REDISMODULE_OK)
        return RedisModule_ReplyWithError(ctx, "ERR bad error rate");
    if (!(p.error > 0 && p.error < 1)) return RedisModule_ReplyWithError(ctx, "ERR (0 < error rate range < 1) ");
    if (RedisModule_StringToLongLong(argv[3], &p.capacity) != REDISMODULE_OK)
        return RedisModule_ReplyWithError(ctx, "ERR bad capacity");
    if (p.capacity <= 0) return RedisModule_ReplyWithError(ctx, "ERR (capacity should be larger than 0)");
    bool expansion_given = false;
    for (int i = 4; i < argc; ++i) {
        if (is(argv[i], "NONSCALING")) {
            p.nonscaling = true;
        } else if (is(argv[i], "EXPANSION") && i + 1 < argc) {
            expansion_given = true;
            if (RedisModule_StringToLongLong(argv[++i], &p.expansion) != REDISMODULE_OK)
                return RedisModule_ReplyWithError(ctx, "ERR bad expansion");
            if (p.expansion < 1) return RedisModule_ReplyWithError(ctx, "ERR expansion should be greater or equal to 1");
            if (p.expansion > std::numeric_limits<std::uint32_t>::max()) return RedisModule_ReplyWithError(ctx, "ERR bad expansion");
        }  // RedisBloom ignores other words here
    }
    if (p.nonscaling && expansion_given) return RedisModule_ReplyWithError(ctx, "Nonscaling filters cannot expand");
    bool wrong = false;
    if (lookup(open(ctx, argv[1], REDISMODULE_READ), wrong) != nullptr) return RedisModule_ReplyWithError(ctx, "ERR item exists");
    return open_or_create(ctx, argv[1], p) == nullptr ? REDISMODULE_OK : RedisModule_ReplyWithSimpleString(ctx, "OK");
}

/// BF.ADD key item: auto-creates with the defaults.
int add(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
    if (argc != 3) return RedisModule_WrongArity(ctx);
    chain* c = open_or_create(ctx, argv[1], creation{});
    if (c == nullptr) return REDISMODULE_OK;
    try {
        const auto r = c->add(view(argv[2]));
        if (r == chain::added::full) return RedisModule_ReplyWithError(ctx, "ERR non scaling filter is full");
        RedisModule_Replicate(ctx, "BF.MADD", "ss", argv[1], argv[2]);  // present too: see add_items
        if (r == chain::added::fresh) notify(ctx, "bf.add", argv[1]);
        return reply_bool(ctx, r == chain::added::fresh);
    } catch (const std::exception& e) {
        return reply_error(ctx, e);
    }
}

/// BF.MADD key item [item ...]
int madd(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
    if (argc < 3) return RedisModule_WrongArity(ctx);
    chain* c = open_or_create(ctx, argv[1], creation{});
    return c == nullptr ? REDISMODULE_OK : add_items(ctx, argv[1], *c, argv + 2, argc - 2);
}

/// BF.INSERT key [CAPACITY n] [ERROR e] [EXPANSION x] [NOCREATE] [NONSCALING] ITEMS item [item ...]
int insert(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
    if (argc < 4) return RedisModule_WrongArity(ctx);
    creation p;
    bool nocreate = false;
    int i = 2;
    for (; i < argc && !is(argv[i], "ITEMS"); ++i) {
        if (is(argv[i], "NOCREATE")) {
            nocreate = true;
        } else if (is(argv[i], "NONSCALING")) {
            p.nonscaling = true;
        } else if (is(argv[i], "CAPACITY")) {
            if (++i == argc) return RedisModule_WrongArity(ctx);
            if (RedisModule_StringToLongLong(argv[i], &p.capacity) != REDISMODULE_OK)
                return RedisModule_ReplyWithError(ctx, "Bad capacity");
            if (p.capacity <= 0) return RedisModule_ReplyWithError(ctx, "Bad argument received");
        } else if (is(argv[i], "ERROR")) {
            if (++i == argc) return RedisModule_WrongArity(ctx);
            if (RedisModule_StringToDouble(argv[i], &p.error) != REDISMODULE_OK)
                return RedisModule_ReplyWithError(ctx, "Bad error rate");
            if (!(p.error > 0 && p.error < 1)) return RedisModule_ReplyWithError(ctx, "Bad argument received");
        } else if (is(argv[i], "EXPANSION")) {
            if (++i == argc) return RedisModule_WrongArity(ctx);
            if (RedisModule_StringToLongLong(argv[i], &p.expansion) != REDISMODULE_OK)
                return RedisModule_ReplyWithError(ctx, "Bad expansion");
            if (p.expansion < 1 || p.expansion > std::numeric_limits<std::uint32_t>::max())
                return RedisModule_ReplyWithError(ctx, "Bad argument received");
        } else {
            return RedisModule_ReplyWithError(ctx, "Unknown argument received");
        }
    }
    if (i + 1 >= argc) return RedisModule_WrongArity(ctx);  // no ITEMS, or nothing after it
    chain* c = open_or_create(ctx, argv[1], p, !nocreate);
    return c == nullptr ? REDISMODULE_OK : add_items(ctx, argv[1], *c, argv + i + 1, argc - i - 1);
}

/// BF.EXISTS key item: 0 for a missing key and, as RedisBloom, for a key of another type.
int exists(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
    if (argc != 3) return RedisModule_WrongArity(ctx);
    bool wrong = false;
    const chain* c = lookup(open(ctx, argv[1], REDISMODULE_READ), wrong);
    return reply_bool(ctx, c != nullptr && c->contains(view(argv[2])));
}

/// BF.MEXISTS key item [item ...]
int mexists(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
    if (argc < 3) return RedisModule_WrongArity(ctx);
    bool wrong = false;
    const chain* c = lookup(open(ctx, argv[1], REDISMODULE_READ), wrong);
    RedisModule_ReplyWithArray(ctx, argc - 2);
    for (int i = 2; i < argc; ++i) reply_bool(ctx, c != nullptr && c->contains(view(argv[i])));
    return REDISMODULE_OK;
}

/// BF.CARD key: items added (0 for a missing key).
int card(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
    if (argc != 2) return RedisModule_WrongArity(ctx);
    bool wrong = false;
    const chain* c = lookup(open(ctx, argv[1], REDISMODULE_READ), wrong);
    if (wrong) return RedisModule_ReplyWithError(ctx, REDISMODULE_ERRORMSG_WRONGTYPE);
    return RedisModule_ReplyWithLongLong(ctx, c ? static_cast<long long>(c->items) : 0);
}

/// BF.INFO key [CAPACITY | SIZE | FILTERS | ITEMS | EXPANSION]: RedisBloom's five fields.
int info(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
    if (argc < 2 || argc > 3) return RedisModule_WrongArity(ctx);
    bool wrong = false;
    const chain* c = lookup(open(ctx, argv[1], REDISMODULE_READ), wrong);
    if (wrong) return RedisModule_ReplyWithError(ctx, REDISMODULE_ERRORMSG_WRONGTYPE);
    if (c == nullptr) return RedisModule_ReplyWithError(ctx, "ERR not found");
    struct field {
        const char *word, *name;
    };
    static constexpr field fields[] = {{"CAPACITY", "Capacity"}, {"SIZE", "Size"}, {"FILTERS", "Number of filters"},
                                       {"ITEMS", "Number of items inserted"}, {"EXPANSION", "Expansion rate"}};
    auto value = [&](std::size_t f) {
        switch (f) {
            case 0: return RedisModule_ReplyWithLongLong(ctx, static_cast<long long>(c->capacity()));
            case 1: return RedisModule_ReplyWithLongLong(ctx, static_cast<long long>(c->bytes()));
            case 2: return RedisModule_ReplyWithLongLong(ctx, static_cast<long long>(c->subs.size()));
            case 3: return RedisModule_ReplyWithLongLong(ctx, static_cast<long long>(c->items));
            default: return c->expansion == 0 ? RedisModule_ReplyWithNull(ctx) : RedisModule_ReplyWithLongLong(ctx, c->expansion);
        }
    };
    const bool resp3 = RedisModule_GetContextFlags(ctx) & REDISMODULE_CTX_FLAGS_RESP3;
    if (argc == 3) {
        for (std::size_t f = 0; f < std::size(fields); ++f) {
            if (!is(argv[2], fields[f].word)) continue;
            if (resp3) {
                RedisModule_ReplyWithMap(ctx, 1);
                RedisModule_ReplyWithSimpleString(ctx, fields[f].name);
            } else {
                RedisModule_ReplyWithArray(ctx, 1);
            }
            return value(f);
        }
        return RedisModule_ReplyWithError(ctx, "Invalid information value");
    }
    if (resp3) RedisModule_ReplyWithMap(ctx, std::size(fields));
    else RedisModule_ReplyWithArray(ctx, 2 * std::size(fields));
    for (std::size_t f = 0; f < std::size(fields); ++f) {
        RedisModule_ReplyWithSimpleString(ctx, fields[f].name);
        value(f);
    }
    return REDISMODULE_OK;
}

/// LFBF.RESTORE key blob: recreates a key from its serialized form (what AOF rewrite emits).
int restore(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
    if (argc != 3) return RedisModule_WrongArity(ctx);
    RedisModuleKey* key = open(ctx, argv[1], REDISMODULE_READ | REDISMODULE_WRITE);
    if (RedisModule_KeyType(key) != REDISMODULE_KEYTYPE_EMPTY) return RedisModule_ReplyWithError(ctx, "ERR item exists");
    try {
        RedisModule_ModuleTypeSetValue(key, chain_type, deserialize(view(argv[2])).release());
    } catch (const std::exception& e) {
        live.refused.fetch_add(1, std::memory_order_relaxed);  // relaxed: statistics
        return reply_error(ctx, e);
    }
    RedisModule_ReplicateVerbatim(ctx);
    notify(ctx, "lfbf.restore", argv[1]);
    return RedisModule_ReplyWithSimpleString(ctx, "OK");
}

// ---- BF.SCANDUMP and BF.LOADCHUNK: RedisBloom's cursor protocol, our own chunks -------------------
// Cursor 0 asks for the header (the reply's cursor is 1). Cursor c > 0 asks for the words from
// word c - 1 of the sub-filters' words laid end to end; the reply holds at most 16 MiB of one
// sub-filter's words and the cursor 1 + the word after them, or 0 and "" past the end. Every
// header and chunk ends with an XXH3 of its content (a chunk's: its start and its words), so
// LOADCHUNK refuses corrupt or misplaced data. Between the header and the last chunk the key
// exists with some bits missing, as with RedisBloom.

constexpr char dump_magic[8] = {'L', 'F', 'B', 'R', 'S', 'D', '0', '1'};
constexpr std::uint64_t chunk_words = std::uint64_t{1} << 21;

void put_checksum(std::string& out) { put(out, static_cast<std::uint64_t>(XXH3_64bits(out.data(), out.size()))); }

/// The sub-filter holding word `w` of the words laid end to end, and w's index in it; null past the end.
std::pair<sub_filter*, std::uint64_t> locate(chain& c, std::uint64_t w) {
    for (auto& s : c.subs) {
        if (w < s.filter.words().size()) return {&s, w};
        w -= s.filter.words().size();
    }
    return {nullptr, 0};
}

std::string dump_header(const chain& c) {
    std::string out(dump_magic, sizeof(dump_magic));
    put(out, std::bit_cast<std::uint64_t>(c.error));
    put(out, c.expansion);
    put(out, c.items);
    put(out, static_cast<std::uint32_t>(c.subs.size()));
    for (const auto& s : c.subs) {
        put(out, s.capacity);
        put(out, s.items);
        put(out, static_cast<std::uint64_t>(s.filter.words().size()));
    }
    put_checksum(out);
    return out;
}

/// The chunk starting at word `start` (which locate() found in `s` at index `at`).
std::string dump_chunk(const sub_filter& s, std::uint64_t at, std::uint64_t start) {
    const auto words = s.filter.words().subspan(at, std::min<std::uint64_t>(chunk_words, s.filter.words().size() - at));
    std::string out;
    out.reserve(8 * (words.size() + 2));
    put(out, start);
    for (const auto& w : words) put(out, lfbloom::load_word(w));
    put_checksum(out);
    return out.substr(sizeof(std::uint64_t));  // the start is implied by the cursor
}

/// A chain with zeroed sub-filters of the geometry `header` describes. Throws lfbloom::error
/// (corrupt, or too_large before allocating past MAX_BYTES).
std::unique_ptr<chain> load_header(std::string_view header) {
    using lfbloom::errc;
    if (header.size() < sizeof(dump_magic) + 8 || header.substr(0, sizeof(dump_magic)) != std::string_view(dump_magic, 8) ||
        XXH3_64bits(header.data(), header.size() - 8) !=
            lfbloom::detail::get_le<std::uint64_t>(reinterpret_cast<const unsigned char*>(header.data() + header.size() - 8)))
        throw lfbloom::error(errc::corrupt, "received bad data");
    reader r{header.substr(sizeof(dump_magic), header.size() - sizeof(dump_magic) - 8)};
    auto c = std::make_unique<chain>();
    c->error = std::bit_cast<double>(r.get<std::uint64_t>());
    c->expansion = r.get<std::uint32_t>();
    c->items = r.get<std::uint64_t>();
    const auto count = r.get<std::uint32_t>();
    check_parameters(*c, count);
    std::uint64_t items = 0;
    for (std::uint32_t i = 0; i < count; ++i) {
        const auto capacity = r.get<std::uint64_t>();
        const auto sub_items = r.get<std::uint64_t>();
        const auto words = r.get<std::uint64_t>();
        check_link(*c, count, capacity, sub_items, items);
        c->grow(capacity);  // checks MAX_BYTES before allocating
        if (c->subs.back().filter.words().size() != words) throw lfbloom::error(errc::corrupt, "received bad data");
        c->subs.back().items = sub_items;
        items += sub_items;
    }
    if (!r.rest.empty() || items != c->items) throw lfbloom::error(errc::corrupt, "received bad data");
    return c;
}

/// BF.SCANDUMP key cursor
int scandump(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
    if (argc != 3) return RedisModule_WrongArity(ctx);
    bool wrong = false;
    chain* c = lookup(open(ctx, argv[1], REDISMODULE_READ), wrong);
    if (wrong) return RedisModule_ReplyWithError(ctx, REDISMODULE_ERRORMSG_WRONGTYPE);
    if (c == nullptr) return RedisModule_ReplyWithError(ctx, "ERR not found");
    long long cursor = 0;
    if (RedisModule_StringToLongLong(argv[2], &cursor) != REDISMODULE_OK)
        return RedisModule_ReplyWithError(ctx, "Second argument must be numeric");
    try {
        std::string data;
        long long next = 0;
        if (cursor == 0) {
            data = dump_header(*c);
            next = 1;
        } else if (const auto [s, at] = locate(*c, cursor > 0 ? static_cast<std::uint64_t>(cursor - 1) : UINT64_MAX); s) {
            data = dump_chunk(*s, at, static_cast<std::uint64_t>(cursor - 1));
            next = cursor + static_cast<long long>(data.size() / 8 - 1);
        }
        RedisModule_ReplyWithArray(ctx, 2);
        RedisModule_ReplyWithLongLong(ctx, next);
        return RedisModule_ReplyWithStringBuffer(ctx, data.data(), data.size());
    } catch (const std::exception& e) {  // bad_alloc
        return reply_error(ctx, e);
    }
}

/// BF.LOADCHUNK key cursor data: cursor 1 creates the key from a header, others write a chunk.
int loadchunk(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
    if (argc != 4) return RedisModule_WrongArity(ctx);
    long long cursor = 0;
    if (RedisModule_StringToLongLong(argv[2], &cursor) != REDISMODULE_OK)
        return RedisModule_ReplyWithError(ctx, "ERR Second argument must be numeric");
    RedisModuleKey* key = open(ctx, argv[1], REDISMODULE_READ | REDISMODULE_WRITE);
    bool wrong = false;
    chain* c = lookup(key, wrong);
    const std::string_view data = view(argv[3]);
    try {
        if (wrong) return RedisModule_ReplyWithError(ctx, REDISMODULE_ERRORMSG_WRONGTYPE);
        if (c == nullptr && cursor == 1) {
            RedisModule_ModuleTypeSetValue(key, chain_type, load_header(data).release());
        } else if (c == nullptr) {
            return RedisModule_ReplyWithError(ctx, "ERR not found");
        } else {
            const std::uint64_t words = data.size() / 8 - 1;
            if (cursor <= 1 || data.size() < 16 || data.size() % 8 != 0 || words >= static_cast<std::uint64_t>(cursor))
                return RedisModule_ReplyWithError(ctx, "ERR received bad data");
            const std::uint64_t start = static_cast<std::uint64_t>(cursor) - 1 - words;
            const auto [s, at] = locate(*c, start);
            if (s == nullptr || at + words > s->filter.words().size())
                return RedisModule_ReplyWithError(ctx, "ERR invalid offset - no link found");
            std::string checked;
            put(checked, start);
            checked.append(data.substr(0, data.size() - 8));
            const auto* bytes = reinterpret_cast<const unsigned char*>(data.data());
            if (XXH3_64bits(checked.data(), checked.size()) != lfbloom::detail::get_le<std::uint64_t>(bytes + data.size() - 8))
                return RedisModule_ReplyWithError(ctx, "ERR received bad data");
            auto target = s->filter.words().subspan(at, words);
            for (std::uint64_t i = 0; i < words; ++i) lfbloom::store_word(target[i], lfbloom::detail::get_le<std::uint64_t>(bytes + 8 * i));
        }
    } catch (const lfbloom::error& e) {
        live.refused.fetch_add(1, std::memory_order_relaxed);  // relaxed: statistics
        return e.code() == lfbloom::errc::corrupt ? RedisModule_ReplyWithError(ctx, "ERR received bad data") : reply_error(ctx, e);
    } catch (const std::exception& e) {
        return reply_error(ctx, e);
    }
    RedisModule_ReplicateVerbatim(ctx);
    notify(ctx, "bf.loadchunk", argv[1]);
    return RedisModule_ReplyWithSimpleString(ctx, "OK");
}

// ---- the data type's callbacks ------------------------------------------------------------------

void* rdb_load(RedisModuleIO* io, int encver) {
    if (encver != encoding_version) return nullptr;
    std::size_t n = 0;
    char* buffer = RedisModule_LoadStringBuffer(io, &n);
    if (RedisModule_IsIOError(io) || buffer == nullptr) {  // a short read (HANDLE_IO_ERRORS)
        if (buffer != nullptr) RedisModule_Free(buffer);
        return nullptr;
    }
    std::unique_ptr<char, void (*)(void*)> owned(buffer, RedisModule_Free);
    try {
        return deserialize({buffer, n}).release();
    } catch (const std::exception& e) {
        live.refused.fetch_add(1, std::memory_order_relaxed);  // relaxed: statistics
        RedisModule_LogIOError(io, "warning", "lfbloom: refusing a BF value: %s", e.what());
        return nullptr;
    }
}

/// The callbacks that write a value cannot report failure: if serializing runs out of memory,
/// they log it and write an empty value, which loading refuses (so the key is lost, not forged).
std::string serialize_or_log(RedisModuleCtx* ctx, const void* value) {
    try {
        return serialize(*static_cast<const chain*>(value));
    } catch (const std::exception& e) {
        RedisModule_Log(ctx, "warning", "lfbloom: cannot serialize a BF value: %s", e.what());
        return {};
    }
}

void rdb_save(RedisModuleIO* io, void* value) {
    const std::string blob = serialize_or_log(RedisModule_GetContextFromIO(io), value);
    RedisModule_SaveStringBuffer(io, blob.data(), blob.size());
}

void aof_rewrite(RedisModuleIO* aof, RedisModuleString* key, void* value) {
    const std::string blob = serialize_or_log(RedisModule_GetContextFromIO(aof), value);
    RedisModule_EmitAOF(aof, "LFBF.RESTORE", "sb", key, blob.data(), blob.size());
}

void digest(RedisModuleDigest* md, void* value) {
    const std::string blob = serialize_or_log(nullptr, value);
    RedisModule_DigestAddStringBuffer(md, blob.data(), blob.size());
    RedisModule_DigestEndSequence(md);
}

void* copy(RedisModuleString*, RedisModuleString*, const void* value) {
    try {
        return deserialize(serialize(*static_cast<const chain*>(value))).release();
    } catch (const std::exception&) {
        return nullptr;  // Redis answers the COPY with an error
    }
}

std::size_t mem_usage(const void* value) { return static_cast<const chain*>(value)->bytes(); }
// Pages to unmap: large keys are freed on Redis's background thread
std::size_t free_effort(RedisModuleString*, const void* value) { return static_cast<const chain*>(value)->bytes() / 4096; }
void free_chain(void* value) { delete static_cast<chain*>(value); }

// ---- settings: load arguments, module configs, INFO ---------------------------------------------

/// Sets one setting from its load-argument name; false (nothing set) if the name or value is bad.
bool set_argument(RedisModuleString* name, RedisModuleString* value) {
    double rate = 0;
    long long n = 0;
    if (is(name, "ERROR_RATE"))
        return RedisModule_StringToDouble(value, &rate) == REDISMODULE_OK && rate > 0 && rate < 1 && (config.error_rate = rate, true);
    if (RedisModule_StringToLongLong(value, &n) != REDISMODULE_OK || n < 1) return false;
    if (is(name, "INITIAL_SIZE")) return config.initial_size = n, true;
    if (is(name, "EXPANSION")) return n <= std::numeric_limits<std::uint32_t>::max() && (config.expansion = n, true);
    if (is(name, "MAX_BYTES")) return config.max_bytes = n, true;
    return false;
}

// Module configs: lfbloom.initial-size, lfbloom.expansion, lfbloom.max-bytes (numeric; privdata
// points at the setting) and lfbloom.error-rate (a string, as configs have no doubles).
long long get_number(const char*, void* setting) { return *static_cast<long long*>(setting); }
int set_number(const char*, long long v, void* setting, RedisModuleString**) {
    *static_cast<long long*>(setting) = v;  // Redis checked the bounds given at registration
    return REDISMODULE_OK;
}
RedisModuleString* error_rate_text = nullptr;  // what CONFIG GET returns; Redis does not free it
int set_error_rate(const char*, RedisModuleString* v, void*, RedisModuleString** err) {
    double rate = 0;
    if (RedisModule_StringToDouble(v, &rate) != REDISMODULE_OK || !(rate > 0 && rate < 1)) {
        *err = RedisModule_CreateString(nullptr, "error-rate must be a number in (0, 1)", 38);
        return REDISMODULE_ERR;
    }
    config.error_rate = rate;
    if (error_rate_text) RedisModule_FreeString(nullptr, error_rate_text);
    const std::string text = shortest(rate);
    error_rate_text = RedisModule_CreateString(nullptr, text.data(), text.size());
    return REDISMODULE_OK;
}
RedisModuleString* get_error_rate(const char*, void*) { return error_rate_text; }

bool register_configs(RedisModuleCtx* ctx) {
    if (!RedisModule_RegisterNumericConfig || !RedisModule_LoadConfigs) return true;  // older servers: load arguments only
    const std::string rate = shortest(config.error_rate);
    const long long most = std::numeric_limits<long long>::max();
    error_rate_text = RedisModule_CreateString(nullptr, rate.data(), rate.size());
    return RedisModule_RegisterStringConfig(ctx, "error-rate", rate.c_str(), REDISMODULE_CONFIG_DEFAULT, get_error_rate,
                                            set_error_rate, nullptr, nullptr) == REDISMODULE_OK &&
           RedisModule_RegisterNumericConfig(ctx, "initial-size", config.initial_size, REDISMODULE_CONFIG_DEFAULT, 1, most,
                                             get_number, set_number, nullptr, &config.initial_size) == REDISMODULE_OK &&
           RedisModule_RegisterNumericConfig(ctx, "expansion", config.expansion, REDISMODULE_CONFIG_DEFAULT, 1,
                                             std::numeric_limits<std::uint32_t>::max(), get_number, set_number, nullptr,
                                             &config.expansion) == REDISMODULE_OK &&
           RedisModule_RegisterNumericConfig(ctx, "max-bytes", config.max_bytes, REDISMODULE_CONFIG_MEMORY, 1, most,
                                             get_number, set_number, nullptr, &config.max_bytes) == REDISMODULE_OK &&
           RedisModule_LoadConfigs(ctx) == REDISMODULE_OK;
}

/// INFO lfbloom: the live keys and their bytes, refused values, and the settings.
void info_section(RedisModuleInfoCtx* ctx, int) {
    RedisModule_InfoAddSection(ctx, "");
    RedisModule_InfoAddFieldLongLong(ctx, "filters", live.filters.load(std::memory_order_relaxed));  // relaxed: statistics
    RedisModule_InfoAddFieldLongLong(ctx, "bytes", live.bytes.load(std::memory_order_relaxed));
    RedisModule_InfoAddFieldLongLong(ctx, "refused_values", live.refused.load(std::memory_order_relaxed));
    RedisModule_InfoAddFieldDouble(ctx, "error_rate", config.error_rate);
    RedisModule_InfoAddFieldLongLong(ctx, "initial_size", config.initial_size);
    RedisModule_InfoAddFieldLongLong(ctx, "expansion", config.expansion);
    RedisModule_InfoAddFieldLongLong(ctx, "max_bytes", config.max_bytes);
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int RedisModule_OnLoad(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
    if (RedisModule_Init(ctx, "lfbloom", 1, REDISMODULE_APIVER_1) == REDISMODULE_ERR) return REDISMODULE_ERR;
    if (!RedisModule_ReplyWithMap || !RedisModule_ReplyWithBool || !RedisModule_IsIOError) {
        RedisModule_Log(ctx, "warning", "lfbloom: needs Redis or Valkey 7.0 or later (RESP3 replies)");
        return REDISMODULE_ERR;
    }
    for (int i = 0; i < argc; i += 2) {
        if (i + 1 == argc || !set_argument(argv[i], argv[i + 1])) {
            RedisModule_Log(ctx, "warning",
                            "lfbloom: load arguments are pairs: ERROR_RATE (0, 1), INITIAL_SIZE, EXPANSION, MAX_BYTES (>= 1)");
            return REDISMODULE_ERR;
        }
    }
    if (!register_configs(ctx) || RedisModule_RegisterInfoFunc(ctx, info_section) == REDISMODULE_ERR) return REDISMODULE_ERR;
    RedisModule_SetModuleOptions(ctx, REDISMODULE_OPTIONS_HANDLE_IO_ERRORS);
    RedisModuleTypeMethods methods = {};
    methods.version = REDISMODULE_TYPE_METHOD_VERSION;
    methods.rdb_load = rdb_load;
    methods.rdb_save = rdb_save;
    methods.aof_rewrite = aof_rewrite;
    methods.digest = digest;
    methods.mem_usage = mem_usage;
    methods.free = free_chain;
    methods.copy = copy;
    methods.free_effort = free_effort;
    chain_type = RedisModule_CreateDataType(ctx, "lfbloomBF", encoding_version, &methods);
    if (chain_type == nullptr) return REDISMODULE_ERR;
    struct command {
        const char* name;
        RedisModuleCmdFunc f;
        const char* flags;
    };
    const command commands[] = {
        {"bf.reserve", reserve, "write deny-oom"}, {"bf.add", add, "write deny-oom"},
        {"bf.madd", madd, "write deny-oom"},       {"bf.insert", insert, "write deny-oom"},
        {"bf.exists", exists, "readonly fast"},    {"bf.mexists", mexists, "readonly fast"},
        {"bf.card", card, "readonly fast"},        {"bf.info", info, "readonly fast"},
        {"bf.scandump", scandump, "readonly"},     {"bf.loadchunk", loadchunk, "write deny-oom"},
        {"lfbf.restore", restore, "write deny-oom"},
    };
    for (const auto& c : commands)
        if (RedisModule_CreateCommand(ctx, c.name, c.f, c.flags, 1, 1, 1) == REDISMODULE_ERR) return REDISMODULE_ERR;
    return REDISMODULE_OK;
}
