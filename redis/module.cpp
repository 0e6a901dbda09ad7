// lfbloom's Redis/Valkey module: RedisBloom's BF.* commands served by the core's blocked filter
// (chain.hpp) and its CF.* commands by the core's cuckoo filter (cuckoo.hpp), and beyond them
// CBF.* counting filters (counting.hpp), RBF.* time-window filters (rotating.hpp), LFBF.MERGE and
// LFBF.RESTORE; common.hpp has what the four types share. This file: the BF.* commands (BF.DEBUG
// too), LFBF.*, settings (load arguments, configs, INFO) and RedisModule_OnLoad.
//
// Replies, defaults and error strings follow RedisBloom 2.8.2 (tests/redis compares them);
// BF.INFO's Size reports our bytes and BF.SCANDUMP carries the key's lfbloom file, which differ. Beyond
// RedisBloom: module configs (lfbloom.*), an INFO section, keyspace events, a per-key memory cap.
//
// Thread safety: Redis calls the commands and type callbacks one at a time (on its main thread,
// or a background thread for free and for saving in a fork), so nothing here needs a lock.
#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <xxhash.h>

#include "chain.hpp"
#include "common.hpp"
#include "counting.hpp"
#include "cuckoo.hpp"
#include "rotating.hpp"

namespace lfbloom_redis {
namespace {

// ---- commands -----------------------------------------------------------------------------------

/// Creates the chain for a new key; replies with the error and returns null if it cannot.
chain* create(RedisModuleCtx* ctx, RedisModuleKey* key, double error, long long capacity, long long expansion) {
    try {
        auto c = std::make_unique<chain>();
        c->error = error;
        c->expansion = static_cast<std::uint32_t>(expansion);
        c->grow(static_cast<std::uint64_t>(capacity));
        chain* raw = c.release();
        RedisModule_ModuleTypeSetValue(key, chain::type, raw);
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
    const std::string capacity = std::to_string(c.part_capacity(0));
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
    chain* c = lookup<chain>(key, wrong);
    if (wrong) {
        RedisModule_ReplyWithError(ctx, REDISMODULE_ERRORMSG_WRONGTYPE);
    } else if (c == nullptr && !may_create) {
        RedisModule_ReplyWithError(ctx, "ERR not found");
    } else if (c != nullptr && c->loading) {  // the pieces to come would overwrite the adds
        RedisModule_ReplyWithError(ctx, "ERR the filter is being loaded (BF.LOADCHUNK)");
        c = nullptr;
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
    for_each_hashed(c, items, n, [&](int, lfbloom::hash128 h) {
        ++replied;
        try {
            const auto r = c.add(h);
            if (r == chain::added::full) {
                RedisModule_ReplyWithError(ctx, "ERR non scaling filter is full");
                return false;
            }
            ++done;
            fresh |= r == chain::added::fresh;
            reply_bool(ctx, r == chain::added::fresh);
            return true;
        } catch (const std::exception& e) {
            reply_error(ctx, e);
            return false;
        }
    });
    RedisModule_ReplySetArrayLength(ctx, replied);
    if (done > 0) RedisModule_Replicate(ctx, "BF.MADD", "sv", name, items, static_cast<std::size_t>(done));
    if (fresh) notify(ctx, "bf.add", name);
    return REDISMODULE_OK;
}

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
    if (lookup<chain>(open(ctx, argv[1], REDISMODULE_READ), wrong) != nullptr) return RedisModule_ReplyWithError(ctx, "ERR item exists");
    return open_or_create(ctx, argv[1], p) == nullptr ? REDISMODULE_OK : RedisModule_ReplyWithSimpleString(ctx, "OK");
}

/// BF.ADD key item: auto-creates with the defaults.
int add(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
    if (argc != 3) return RedisModule_WrongArity(ctx);
    chain* c = open_or_create(ctx, argv[1], creation{});
    if (c == nullptr) return REDISMODULE_OK;
    try {
        const auto r = c->add(chain::hash(view(argv[2])));
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
    const chain* c = lookup<chain>(open(ctx, argv[1], REDISMODULE_READ), wrong);
    return reply_bool(ctx, c != nullptr && c->contains(chain::hash(view(argv[2]))));
}

/// BF.MEXISTS key item [item ...]
int mexists(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
    if (argc < 3) return RedisModule_WrongArity(ctx);
    bool wrong = false;
    const chain* c = lookup<chain>(open(ctx, argv[1], REDISMODULE_READ), wrong);
    RedisModule_ReplyWithArray(ctx, argc - 2);
    if (c == nullptr) {
        for (int i = 2; i < argc; ++i) reply_bool(ctx, false);
    } else {
        for_each_hashed(*c, argv + 2, argc - 2, [&](int, lfbloom::hash128 h) { return reply_bool(ctx, c->contains(h)), true; });
    }
    return REDISMODULE_OK;
}

/// BF.CARD key: items added (0 for a missing key).
int card(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
    if (argc != 2) return RedisModule_WrongArity(ctx);
    bool wrong = false;
    const chain* c = lookup<chain>(open(ctx, argv[1], REDISMODULE_READ), wrong);
    if (wrong) return RedisModule_ReplyWithError(ctx, REDISMODULE_ERRORMSG_WRONGTYPE);
    return RedisModule_ReplyWithLongLong(ctx, c ? static_cast<long long>(c->items()) : 0);
}

/// BF.INFO key [CAPACITY | SIZE | FILTERS | ITEMS | EXPANSION]: RedisBloom's five fields.
int info(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
    if (argc < 2 || argc > 3) return RedisModule_WrongArity(ctx);
    bool wrong = false;
    const chain* c = lookup<chain>(open(ctx, argv[1], REDISMODULE_READ), wrong);
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
            case 2: return RedisModule_ReplyWithLongLong(ctx, static_cast<long long>(c->parts()));
            case 3: return RedisModule_ReplyWithLongLong(ctx, static_cast<long long>(c->items()));
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

/// BF.DEBUG key: RedisBloom's reply shape, "size:<items>" then a line per sub-filter, with our
/// sub-filters' facts (bits: slots of the blocked filter; hashwidth: our hash's 128 bits).
int debug(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
    if (argc != 2) return RedisModule_WrongArity(ctx);
    bool wrong = false;
    const chain* c = lookup<chain>(open(ctx, argv[1], REDISMODULE_READ), wrong);
    if (wrong) return RedisModule_ReplyWithError(ctx, REDISMODULE_ERRORMSG_WRONGTYPE);
    if (c == nullptr) return RedisModule_ReplyWithError(ctx, "ERR not found");
    RedisModule_ReplyWithArray(ctx, static_cast<long>(c->parts() + 1));
    const std::string size = "size:" + std::to_string(c->items());
    RedisModule_ReplyWithStringBuffer(ctx, size.data(), size.size());
    for (std::uint32_t i = 0; i < c->parts(); ++i) {
        const blocked_bloom_filter& f = c->part(i);
        char line[256];
        const int n = std::snprintf(line, sizeof line, "bytes:%llu bits:%llu hashes:%u hashwidth:128 capacity:%llu size:%llu ratio:%g",
                                    static_cast<unsigned long long>(f.words().size_bytes()),
                                    static_cast<unsigned long long>(f.shape().slots), f.shape().hashes,
                                    static_cast<unsigned long long>(c->part_capacity(i)), static_cast<unsigned long long>(c->part_items(i)), c->rate(i));
        RedisModule_ReplyWithStringBuffer(ctx, line, static_cast<std::size_t>(n));
    }
    return REDISMODULE_OK;
}

/// LFBF.RESTORE key blob: recreates a key of any of our types from its serialized form (what AOF
/// rewrite emits), or a BF or CF key from a file of the library (chain.hpp, cuckoo.hpp: CF keys get
/// RedisBloom's BUCKETSIZE 2 and MAXITERATIONS 20); the blob's magic names the type.
int restore(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
    if (argc != 3) return RedisModule_WrongArity(ctx);
    RedisModuleKey* key = open(ctx, argv[1], REDISMODULE_READ | REDISMODULE_WRITE);
    if (RedisModule_KeyType(key) != REDISMODULE_KEYTYPE_EMPTY) return RedisModule_ReplyWithError(ctx, "ERR item exists");
    const std::string_view blob = view(argv[2]);
    try {
        if (cuckoo_chain::is_cuckoo_file(blob))  // a file of the library's: cuckoo filters (cuckoo.hpp)
            RedisModule_ModuleTypeSetValue(key, cuckoo_chain::type, cuckoo_chain::import_file(blob, 2, 20).release());
        else if (blob.starts_with({lfbloom::detail::magic, 8}))  // blocked filters (chain.hpp)
            RedisModule_ModuleTypeSetValue(key, chain::type, import_file(blob).release());
        else if (!callbacks<chain>::restore(key, blob) && !callbacks<counter>::restore(key, blob) &&
                 !callbacks<window>::restore(key, blob) &&
                 !callbacks<cuckoo_chain>::restore(key, blob))
            throw lfbloom::error(lfbloom::errc::corrupt, "not an lfbloom value");
    } catch (const std::exception& e) {
        live.refused.fetch_add(1, std::memory_order_relaxed);  // relaxed: statistics
        return reply_error(ctx, e);
    }
    RedisModule_ReplicateVerbatim(ctx);
    notify(ctx, "lfbf.restore", argv[1]);
    return RedisModule_ReplyWithSimpleString(ctx, "OK");
}

/// LFBF.MERGE for keys of type V: false after replying with the error (a source missing or of
/// another type, or V::merge refusing) if nothing was merged.
template <class V>
bool merge_as(RedisModuleCtx* ctx, V& into, RedisModuleString** sources, int n) {
    std::vector<const V*> from;
    for (int i = 0; i < n; ++i) {
        bool wrong = false;
        const V* v = lfbloom_redis::lookup<V>(open(ctx, sources[i], REDISMODULE_READ), wrong);
        if (wrong || v == nullptr) {
            RedisModule_ReplyWithError(ctx, wrong ? REDISMODULE_ERRORMSG_WRONGTYPE : "ERR not found");
            return false;
        }
        from.push_back(v);
    }
    try {
        V::merge(into, from);
        return true;
    } catch (const std::exception& e) {
        reply_error(ctx, e);
        return false;
    }
}

/// LFBF.MERGE dest src [src ...]: the union of BF keys (or of CBF keys: counters add) into dest,
/// which must exist with the sources' parameters; on any error nothing changes.
int merge(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
    if (argc < 3) return RedisModule_WrongArity(ctx);
    RedisModuleKey* key = open(ctx, argv[1], REDISMODULE_READ | REDISMODULE_WRITE);
    if (RedisModule_KeyType(key) == REDISMODULE_KEYTYPE_EMPTY) return RedisModule_ReplyWithError(ctx, "ERR not found");
    const RedisModuleType* t = RedisModule_ModuleTypeGetType(key);
    void* value = RedisModule_ModuleTypeGetValue(key);
    if (t != chain::type && t != counter::type) return RedisModule_ReplyWithError(ctx, REDISMODULE_ERRORMSG_WRONGTYPE);
    if (!(t == chain::type ? merge_as(ctx, *static_cast<chain*>(value), argv + 2, argc - 2)
                           : merge_as(ctx, *static_cast<counter*>(value), argv + 2, argc - 2)))
        return REDISMODULE_OK;
    RedisModule_ReplicateVerbatim(ctx);
    notify(ctx, "lfbf.merge", argv[1]);
    return RedisModule_ReplyWithSimpleString(ctx, "OK");
}

// ---- BF.SCANDUMP and BF.LOADCHUNK (the chunks: chain.hpp) ---------------------------------------

/// BF.SCANDUMP key cursor: the piece of the key's lfbloom file from byte cursor - 1 (chain.hpp).
int scandump(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
    if (argc != 3) return RedisModule_WrongArity(ctx);
    bool wrong = false;
    chain* c = lookup<chain>(open(ctx, argv[1], REDISMODULE_READ), wrong);
    if (wrong) return RedisModule_ReplyWithError(ctx, REDISMODULE_ERRORMSG_WRONGTYPE);
    if (c == nullptr) return RedisModule_ReplyWithError(ctx, "ERR not found");
    long long cursor = 0;
    if (RedisModule_StringToLongLong(argv[2], &cursor) != REDISMODULE_OK)
        return RedisModule_ReplyWithError(ctx, "Second argument must be numeric");
    try {
        std::uint64_t end = 0;
        const std::string data = cursor < 0 ? std::string() : file_piece(*c, cursor == 0 ? 0 : static_cast<std::uint64_t>(cursor - 1), end);
        RedisModule_ReplyWithArray(ctx, 2);
        RedisModule_ReplyWithLongLong(ctx, data.empty() ? 0 : static_cast<long long>(end + 1));
        return RedisModule_ReplyWithStringBuffer(ctx, data.data(), data.size());
    } catch (const std::exception& e) {  // bad_alloc
        return reply_error(ctx, e);
    }
}

/// BF.LOADCHUNK key cursor data: the piece of an lfbloom file that ends at byte cursor - 1; the
/// first creates the key, the others must follow in order (chain.hpp).
int loadchunk(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
    if (argc != 4) return RedisModule_WrongArity(ctx);
    long long cursor = 0;
    if (RedisModule_StringToLongLong(argv[2], &cursor) != REDISMODULE_OK)
        return RedisModule_ReplyWithError(ctx, "ERR Second argument must be numeric");
    RedisModuleKey* key = open(ctx, argv[1], REDISMODULE_READ | REDISMODULE_WRITE);
    bool wrong = false;
    chain* c = lookup<chain>(key, wrong);
    const std::string_view data = view(argv[3]);
    if (wrong) return RedisModule_ReplyWithError(ctx, REDISMODULE_ERRORMSG_WRONGTYPE);
    // RedisBloom's cursor 1 is the header: so is ours for a new key (a piece that starts the file)
    const bool starts = c == nullptr && (cursor == 1 || (cursor > 1 && static_cast<std::uint64_t>(cursor) - 1 == data.size()));
    if (c == nullptr && !starts) return RedisModule_ReplyWithError(ctx, "ERR not found");
    if (data.empty() || data.size() % 8 != 0 || cursor <= 1 || data.size() >= static_cast<std::uint64_t>(cursor)) {
        live.refused.fetch_add(1, std::memory_order_relaxed);  // relaxed: statistics
        return RedisModule_ReplyWithError(ctx, "ERR received bad data");
    }
    const std::uint64_t start = static_cast<std::uint64_t>(cursor) - 1 - data.size();
    if (c != nullptr && (c->loading == nullptr || start != c->loading->at))
        return RedisModule_ReplyWithError(ctx, "ERR invalid offset - no link found");
    try {
        if (c == nullptr) {
            auto [made, state] = begin_import(data.substr(0, first_piece));
            c = made.get();
            c->loading = std::move(state);
            RedisModule_ModuleTypeSetValue(key, chain::type, made.release());
            take(*c, *c->loading, data.substr(first_piece));
        } else {
            take(*c, *c->loading, data);
        }
        if (c->loading->expect == file_import::next::done) c->loading.reset();
    } catch (const std::exception& e) {
        live.refused.fetch_add(1, std::memory_order_relaxed);  // relaxed: statistics
        if (RedisModule_KeyType(key) != REDISMODULE_KEYTYPE_EMPTY) {  // half loaded: it goes, on replicas too
            RedisModule_DeleteKey(key);
            RedisModule_Replicate(ctx, "DEL", "s", argv[1]);
            RedisModule_NotifyKeyspaceEvent(ctx, REDISMODULE_NOTIFY_GENERIC, "del", argv[1]);
        }
        const auto* lfb = dynamic_cast<const lfbloom::error*>(&e);
        return lfb != nullptr && lfb->code() == lfbloom::errc::corrupt ? RedisModule_ReplyWithError(ctx, "ERR received bad data")
                                                                       : reply_error(ctx, e);
    }
    RedisModule_ReplicateVerbatim(ctx);
    notify(ctx, "bf.loadchunk", argv[1]);
    return RedisModule_ReplyWithSimpleString(ctx, "OK");
}

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
        constexpr std::string_view message = "error-rate must be a number in (0, 1)";
        *err = RedisModule_CreateString(nullptr, message.data(), message.size());
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
    RedisModule_InfoAddFieldLongLong(ctx, "bytes", live.bytes.load(std::memory_order_relaxed));  // relaxed: statistics
    RedisModule_InfoAddFieldLongLong(ctx, "refused_values", live.refused.load(std::memory_order_relaxed));  // relaxed: statistics
    RedisModule_InfoAddFieldDouble(ctx, "error_rate", config.error_rate);
    RedisModule_InfoAddFieldLongLong(ctx, "initial_size", config.initial_size);
    RedisModule_InfoAddFieldLongLong(ctx, "expansion", config.expansion);
    RedisModule_InfoAddFieldLongLong(ctx, "max_bytes", config.max_bytes);
}

}  // namespace
}  // namespace lfbloom_redis

extern "C" __attribute__((visibility("default"))) int RedisModule_OnLoad(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
    using namespace lfbloom_redis;
    // MODULE LIST's version: CMake's project version as Redis modules write it (1.12.0 is 11200).
    if (RedisModule_Init(ctx, "lfbloom", LFBLOOM_MODULE_VERSION, REDISMODULE_APIVER_1) == REDISMODULE_ERR)
        return REDISMODULE_ERR;
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
    if (!callbacks<chain>::create(ctx, "lfbloomBF") || !callbacks<counter>::create(ctx, "lfbloomCB") ||
        !callbacks<window>::create(ctx, "lfbloomRB") || !callbacks<cuckoo_chain>::create(ctx, "lfbloomCF"))
        return REDISMODULE_ERR;
    add_acl_categories(ctx);
    const command commands[] = {
        {"bf.reserve", guarded<reserve>, "write deny-oom"}, {"bf.add", guarded<add>, "write deny-oom"},
        {"bf.madd", guarded<madd>, "write deny-oom"},       {"bf.insert", guarded<insert>, "write deny-oom"},
        {"bf.exists", guarded<exists>, "readonly fast"},    {"bf.mexists", guarded<mexists>, "readonly fast"},
        {"bf.card", guarded<card>, "readonly fast"},        {"bf.info", guarded<info>, "readonly fast"},
        {"bf.scandump", guarded<scandump>, "readonly"},     {"bf.loadchunk", guarded<loadchunk>, "write deny-oom"},
        {"bf.debug", guarded<debug>, "readonly"},
        {"lfbf.restore", guarded<restore>, "write deny-oom"}, {"lfbf.merge", guarded<merge>, "write deny-oom", -1},
    };
    if (create_commands(ctx, commands, "bloom") == REDISMODULE_ERR) return REDISMODULE_ERR;
    if (register_counting(ctx) != REDISMODULE_OK || register_cuckoo(ctx) != REDISMODULE_OK) return REDISMODULE_ERR;
    return register_rotating(ctx);
}
