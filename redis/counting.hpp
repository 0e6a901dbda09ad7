// CBF.*: counting Bloom filters with a guarded delete, as a Redis type ("lfbloomCB").
//
// A key is one core counting filter (4- or 8-bit counters, saturating) of fixed capacity.
// CBF.DEL removes a key only if all its counters are non-zero, so deleting a key that was never
// added answers 0 and changes nothing (RedisBloom's CF.DEL may delete another key's entry and
// create false negatives). Adds past the capacity are refused ("filter is full"), so the rate
// stays the configured one. Replication: a creation as an explicit CBF.RESERVE with every
// parameter, adds as CBF.MADD of the items processed, deletes only when they removed something.
#pragma once

#include "common.hpp"

namespace lfbloom_redis {

/// One CBF key. items: adds minus deletes (merges add theirs).
struct counter : tracked {
    static constexpr std::string_view magic = "LFBRCB01";
    static inline RedisModuleType* type = nullptr;

    double error;
    std::uint64_t capacity;
    std::uint64_t items = 0;
    counting_bloom_filter filter;

    counter(double e, std::uint64_t n, std::uint64_t held, counting_bloom_filter f)
        : error(e), capacity(n), items(held), filter(std::move(f)) {
        account(bytes());
    }
    /// A new, empty filter; throws lfbloom::error (invalid_argument, too_large past max-bytes).
    static std::unique_ptr<counter> make(double error, std::uint64_t capacity, std::uint32_t bits) {
        lfbloom::filter_options o;
        o.memory_limit = memory_left(sizeof(counter));
        return std::make_unique<counter>(error, capacity, 0, counting_bloom_filter::for_capacity(capacity, error, bits, o));
    }

    std::uint64_t bytes() const { return sizeof(counter) + filter.words().size_bytes(); }

    // magic(8) error(f64) capacity(u64) items(u64), then length(u64) and FORMAT.md's bytes.
    static std::string serialize(const counter& c) {
        std::string out(magic);
        put(out, std::bit_cast<std::uint64_t>(c.error));
        put(out, c.capacity);
        put(out, c.items);
        put_filter(out, c.filter);
        return out;
    }
    static std::unique_ptr<counter> deserialize(std::string_view blob) {
        reader r(blob, magic);
        const double error = r.get_double();
        const auto capacity = r.get<std::uint64_t>();
        const auto items = r.get<std::uint64_t>();
        if (!(error > 0 && error < 1) || capacity == 0 || items > capacity)
            throw lfbloom::error(lfbloom::errc::corrupt, "bad parameters");
        auto f = r.get_filter<counting_bloom_filter>(sizeof(counter));
        r.end();
        check_made_for(f, lfbloom::blocked_geometry(capacity, error, counting_bloom_filter::slots_per_line(f.counter_bits())));
        return std::make_unique<counter>(error, capacity, items, std::move(f));
    }

    /// LFBF.MERGE: adds every source's counters (saturating) and items; throws lfbloom::error with
    /// nothing changed if a source has other parameters or the sum would pass the capacity.
    static void merge(counter& into, const std::vector<const counter*>& sources) {
        std::uint64_t items = into.items;
        for (const counter* s : sources) {
            if (s->error != into.error || s->capacity != into.capacity || s->filter.counter_bits() != into.filter.counter_bits())
                throw lfbloom::error(lfbloom::errc::incompatible, "the filters have different parameters");
            if (s->items > into.capacity - items)
                throw lfbloom::error(lfbloom::errc::full, "the merged filter would hold more than its capacity");
            items += s->items;
        }
        for (const counter* s : sources) into.filter.merge(s->filter);  // equal parameters: equal filters (check_made_for)
        into.items = items;
    }
};

namespace counting {

/// The writable filter at `name`, created from the server's defaults (4-bit counters) and
/// replicated as an explicit CBF.RESERVE if the key is empty; null after replying otherwise.
inline counter* open_or_create(RedisModuleCtx* ctx, RedisModuleString* name, double error, long long capacity,
                               std::uint32_t bits, bool must_create = false) {
    RedisModuleKey* key = open(ctx, name, REDISMODULE_READ | REDISMODULE_WRITE);
    bool wrong = false;
    counter* c = lookup<counter>(key, wrong);
    if (wrong) {
        RedisModule_ReplyWithError(ctx, REDISMODULE_ERRORMSG_WRONGTYPE);
        return nullptr;
    }
    if (c != nullptr) {
        if (must_create) RedisModule_ReplyWithError(ctx, "ERR item exists");
        return must_create ? nullptr : c;
    }
    try {
        auto made = counter::make(error, static_cast<std::uint64_t>(capacity), bits);
        c = made.get();
        RedisModule_ModuleTypeSetValue(key, counter::type, made.release());
    } catch (const std::exception& e) {  // lfbloom::error, bad_alloc: nothing was created
        reply_error(ctx, e);
        return nullptr;
    }
    const std::string rate = shortest(c->error);
    RedisModule_Replicate(ctx, "CBF.RESERVE", "sclcl", name, rate.c_str(), capacity, "COUNTER", static_cast<long long>(bits));
    notify(ctx, "cbf.reserve", name);
    return c;
}

/// CBF.RESERVE key error capacity [COUNTER 4|8]
inline int reserve(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
    if (argc != 4 && argc != 6) return RedisModule_WrongArity(ctx);
    double error = 0;
    long long capacity = 0, bits = 4;
    if (RedisModule_StringToDouble(argv[2], &error) != REDISMODULE_OK || !(error > 0 && error < 1))
        return RedisModule_ReplyWithError(ctx, "ERR error rate must be a number in (0, 1)");
    if (RedisModule_StringToLongLong(argv[3], &capacity) != REDISMODULE_OK || capacity <= 0)
        return RedisModule_ReplyWithError(ctx, "ERR capacity must be a positive integer");
    if (argc == 6 && (!is(argv[4], "COUNTER") || RedisModule_StringToLongLong(argv[5], &bits) != REDISMODULE_OK ||
                      (bits != 4 && bits != 8)))
        return RedisModule_ReplyWithError(ctx, "ERR COUNTER must be 4 or 8 (bits per counter)");
    return open_or_create(ctx, argv[1], error, capacity, static_cast<std::uint32_t>(bits), true) == nullptr
               ? REDISMODULE_OK
               : RedisModule_ReplyWithSimpleString(ctx, "OK");
}

/// CBF.ADD key item, CBF.MADD key item [item ...]: 1 for an item that was absent, 0 for one
/// present (its counters go up all the same); MADD stops at the first "full" with an error.
inline int add(RedisModuleCtx* ctx, RedisModuleString** argv, int argc, bool many) {
    if (many ? argc < 3 : argc != 3) return RedisModule_WrongArity(ctx);
    counter* c = open_or_create(ctx, argv[1], config.error_rate, config.initial_size, 4);
    if (c == nullptr) return REDISMODULE_OK;
    if (many) RedisModule_ReplyWithArray(ctx, REDISMODULE_POSTPONED_LEN);
    int done = 0;
    bool fresh = false;
    for (int i = 2; i < argc; ++i) {
        if (c->items >= c->capacity) {
            RedisModule_ReplyWithError(ctx, "ERR filter is full");
            break;
        }
        const bool absent = c->filter.add(view(argv[i]));
        ++c->items;
        ++done;
        fresh |= absent;
        reply_bool(ctx, absent);
    }
    if (many) RedisModule_ReplySetArrayLength(ctx, done + (done < argc - 2 ? 1 : 0));
    if (done > 0) RedisModule_Replicate(ctx, "CBF.MADD", "sv", argv[1], argv + 2, static_cast<std::size_t>(done));
    if (fresh) notify(ctx, "cbf.add", argv[1]);
    return REDISMODULE_OK;
}
inline int add_one(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) { return add(ctx, argv, argc, false); }
inline int add_many(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) { return add(ctx, argv, argc, true); }

/// CBF.DEL key item: 1 if removed; 0 if one of its counters is zero (never added, or removed as
/// often as added), and nothing changed.
inline int del(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
    if (argc != 3) return RedisModule_WrongArity(ctx);
    bool wrong = false;
    counter* c = lookup<counter>(open(ctx, argv[1], REDISMODULE_READ | REDISMODULE_WRITE), wrong);
    if (wrong) return RedisModule_ReplyWithError(ctx, REDISMODULE_ERRORMSG_WRONGTYPE);
    if (c == nullptr) return RedisModule_ReplyWithError(ctx, "ERR not found");
    const bool removed = c->filter.remove(view(argv[2]));
    if (removed) {
        // a key whose counters all saturated can be removed more often than it was added
        if (c->items > 0) --c->items;
        RedisModule_ReplicateVerbatim(ctx);
        notify(ctx, "cbf.del", argv[1]);
    }
    return reply_bool(ctx, removed);
}

/// The key's filter for a read command, null (after replying with the error) if missing or of
/// another type.
inline const counter* readable(RedisModuleCtx* ctx, RedisModuleString* name) {
    bool wrong = false;
    const counter* c = lookup<counter>(open(ctx, name, REDISMODULE_READ), wrong);
    if (wrong) RedisModule_ReplyWithError(ctx, REDISMODULE_ERRORMSG_WRONGTYPE);
    else if (c == nullptr) RedisModule_ReplyWithError(ctx, "ERR not found");
    return c;
}

/// CBF.EXISTS key item, CBF.MEXISTS key item [item ...]: 0 for a missing key.
inline int exists(RedisModuleCtx* ctx, RedisModuleString** argv, int argc, bool many) {
    if (many ? argc < 3 : argc != 3) return RedisModule_WrongArity(ctx);
    bool wrong = false;
    const counter* c = lookup<counter>(open(ctx, argv[1], REDISMODULE_READ), wrong);
    if (wrong) return RedisModule_ReplyWithError(ctx, REDISMODULE_ERRORMSG_WRONGTYPE);
    if (many) RedisModule_ReplyWithArray(ctx, argc - 2);
    for (int i = 2; i < argc; ++i) reply_bool(ctx, c != nullptr && c->filter.contains(view(argv[i])));
    return REDISMODULE_OK;
}
inline int exists_one(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) { return exists(ctx, argv, argc, false); }
inline int exists_many(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) { return exists(ctx, argv, argc, true); }

/// CBF.COUNT key item: the smallest of its counters, an upper bound on adds minus deletes.
inline int count(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
    if (argc != 3) return RedisModule_WrongArity(ctx);
    const counter* c = readable(ctx, argv[1]);
    return c == nullptr ? REDISMODULE_OK : RedisModule_ReplyWithLongLong(ctx, c->filter.count_hash(c->filter.hash(lfbloom::as_key(view(argv[2])))));
}

/// CBF.INFO key: Capacity, Size, Number of items inserted, Error rate, Counter bits.
inline int info(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
    if (argc != 2) return RedisModule_WrongArity(ctx);
    const counter* c = readable(ctx, argv[1]);
    if (c == nullptr) return REDISMODULE_OK;
    reply_fields(ctx, 5);
    RedisModule_ReplyWithSimpleString(ctx, "Capacity");
    RedisModule_ReplyWithLongLong(ctx, static_cast<long long>(c->capacity));
    RedisModule_ReplyWithSimpleString(ctx, "Size");
    RedisModule_ReplyWithLongLong(ctx, static_cast<long long>(c->bytes()));
    RedisModule_ReplyWithSimpleString(ctx, "Number of items inserted");
    RedisModule_ReplyWithLongLong(ctx, static_cast<long long>(c->items));
    RedisModule_ReplyWithSimpleString(ctx, "Error rate");
    RedisModule_ReplyWithDouble(ctx, c->error);
    RedisModule_ReplyWithSimpleString(ctx, "Counter bits");
    return RedisModule_ReplyWithLongLong(ctx, c->filter.counter_bits());
}

/// CBF.CARD key: items held (adds minus deletes); 0 for a missing key.
inline int card(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
    if (argc != 2) return RedisModule_WrongArity(ctx);
    bool wrong = false;
    const counter* c = lookup<counter>(open(ctx, argv[1], REDISMODULE_READ), wrong);
    if (wrong) return RedisModule_ReplyWithError(ctx, REDISMODULE_ERRORMSG_WRONGTYPE);
    return RedisModule_ReplyWithLongLong(ctx, c ? static_cast<long long>(c->items) : 0);
}

}  // namespace counting

inline int register_counting(RedisModuleCtx* ctx) {
    using namespace counting;
    const command commands[] = {
        {"cbf.reserve", guarded<reserve>, "write deny-oom"},    {"cbf.add", guarded<add_one>, "write deny-oom"},
        {"cbf.madd", guarded<add_many>, "write deny-oom"},      {"cbf.del", guarded<del>, "write"},
        {"cbf.exists", guarded<exists_one>, "readonly fast"},   {"cbf.mexists", guarded<exists_many>, "readonly fast"},
        {"cbf.count", guarded<count>, "readonly fast"},         {"cbf.card", guarded<card>, "readonly fast"},
        {"cbf.info", guarded<info>, "readonly fast"},
    };
    return create_commands(ctx, commands, "bloom");
}

}  // namespace lfbloom_redis
