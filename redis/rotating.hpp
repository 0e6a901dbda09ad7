// RBF.*: time-window filters, as a Redis type ("lfbloomRB"). Keys expire by rotation.
//
// A key holds the core's rotating filter (lfbloom::basic_rotating_bloom_filter, single write, no
// period of its own): a ring of G blocked filters ("generations", each sized for `capacity` keys
// per period at error / G, so a query over all G stays within error). Adds go to the current
// generation; a rotation makes the next one current after clearing it. The module keeps the clock:
// deadlines in unix ms, and when to rotate (below). With a period P, a key added at t is
// present until at least t + (G-1)·P and gone by t + G·P (the lfbloom rotating filter's promise).
//
// Determinism: only a primary's writes read the clock. The first RBF.ADD/MADD on a primary past
// the deadline performs the due rotations and replicates them (and writes them to the AOF) as an
// explicit RBF.ROTATE key COUNT n NEXT deadline before the add; RBF.RESERVE replicates with its
// NEXT deadline. Replicas and AOF replay apply those commands and never read their clock to
// change a filter. Reads never rotate: they skip the generations that due rotations would clear,
// so an expired key is gone on time even on a filter nobody writes to.
#pragma once

#include <optional>

#include "common.hpp"

namespace lfbloom_redis {

/// One RBF key: the core's rotating filter (period 0: it rotates when the module says), and the
/// module's clock and replication state around it.
struct window : tracked {
    using ring_filter = lfbloom::basic_rotating_bloom_filter<module_sync>;
    static constexpr std::string_view magic = "LFBRRB01";
    static inline RedisModuleType* type = nullptr;
    static constexpr std::uint32_t max_generations = ring_filter::max_generations;
    static constexpr std::uint64_t max_period = std::uint64_t{1} << 40;  // ms, about 35 years: deadlines cannot overflow
    static constexpr std::uint64_t max_rotations = std::uint64_t{1} << 62;  // as the core's files: never reached

    double error;
    std::uint64_t capacity;       ///< keys per period
    std::uint64_t period;         ///< ms; 0 = rotate only with RBF.ROTATE
    std::uint64_t deadline = 0;   ///< unix ms of the next rotation; 0 with no period
    std::unique_ptr<ring_filter> ring;
    std::vector<std::uint64_t> items;  ///< adds to each ring filter since it was cleared ([r % G]: current after r rotations)

    window(double e, std::uint64_t n, std::uint64_t p) : error(e), capacity(n), period(p) { account(bytes()); }

    static lfbloom::rotating_options options(std::uint32_t generations) {
        lfbloom::rotating_options o;
        o.generations = generations;
        o.filter.memory_limit = memory_left(sizeof(window) + sizeof(ring_filter));
        return o;
    }

    /// A new, empty ring; throws lfbloom::error (invalid_argument, too_large past max-bytes).
    static std::unique_ptr<window> make(double error, std::uint64_t capacity, std::uint32_t generations, std::uint64_t period,
                                        std::uint64_t deadline) {
        auto w = std::make_unique<window>(error, capacity, period);
        w->deadline = deadline;
        w->ring = std::make_unique<ring_filter>(capacity, error, options(generations));
        w->items.assign(generations, 0);
        w->account(w->bytes());
        return w;
    }

    std::uint64_t bytes() const {
        std::uint64_t sum = sizeof(window) + items.size() * sizeof(std::uint64_t);
        if (ring) sum += sizeof(ring_filter) + generations() * (sizeof(blocked_bloom_filter) + ring->filter_at(0).words().size_bytes());
        return sum;
    }
    std::uint32_t generations() const { return ring->generations(); }
    std::uint64_t rotations() const { return ring->rotations(); }
    /// The adds to the current generation since it was cleared.
    std::uint64_t& current_items() { return items[rotations() % generations()]; }
    std::uint64_t current_items() const { return items[rotations() % generations()]; }

    /// Rotations due at `now` (unix ms), at most G (more would clear nothing more).
    std::uint64_t due(std::uint64_t now) const {
        if (period == 0 || now < deadline) return 0;
        return std::min<std::uint64_t>((now - deadline) / period + 1, generations());
    }
    /// The deadline after the rotations due at `now`.
    std::uint64_t next_deadline(std::uint64_t now) const { return deadline + ((now - deadline) / period + 1) * period; }

    /// `count` rotations (past G, G: every generation is cleared), then the deadline `next`.
    void rotate(std::uint64_t count, std::uint64_t next) {
        count = std::min<std::uint64_t>(count, generations());
        for (std::uint64_t i = 0; i < count && rotations() < max_rotations; ++i) {  // 2^62: centuries at 1 per ms
            ring->rotate();
            current_items() = 0;
        }
        deadline = next;
    }

    /// Whether `key` may be present, skipping the `pending` oldest generations (rotations due).
    bool contains(std::string_view key, std::uint64_t pending) const {
        return ring->contains_hash_unexpired(ring->hash(lfbloom::as_key(key)), pending);
    }
    /// Adds `key`: true if no generation had it (skipping none: adds come after catch_up).
    bool add(std::string_view key) {
        const lfbloom::hash128 h = ring->hash(lfbloom::as_key(key));
        const bool absent = !ring->contains_hash(h);
        ring->add_hash(h);
        ++current_items();
        return absent;
    }

    // magic(8) error(f64) capacity(u64) period(u64) deadline(u64) rotations(u64) current(u32)
    // G(u32), then per generation in ring order: items(u64), length(u64) and FORMAT.md's bytes.
    // current = rotations % G (files of earlier versions may hold another current: the ring is
    // read from it).
    static std::string serialize(const window& w) {
        std::string out(magic);
        const std::uint32_t g = w.generations();
        const std::uint64_t r = w.rotations();
        put(out, std::bit_cast<std::uint64_t>(w.error));
        put(out, w.capacity);
        put(out, w.period);
        put(out, w.deadline);
        put(out, r);
        put(out, static_cast<std::uint32_t>(r % g));
        put(out, g);
        for (std::uint32_t i = 0; i < g; ++i) {  // ring filter i has age (r - i) mod G
            put(out, w.items[i]);
            put_filter(out, w.ring->filter_at(static_cast<std::uint32_t>((r % g + g - i) % g)));
        }
        return out;
    }
    static std::unique_ptr<window> deserialize(std::string_view blob) {
        reader r(blob, magic);
        const double error = r.get_double();
        const auto capacity = r.get<std::uint64_t>();
        const auto period = r.get<std::uint64_t>();
        auto w = std::make_unique<window>(error, capacity, period);
        w->deadline = r.get<std::uint64_t>();
        const auto rotations = r.get<std::uint64_t>();
        const auto current = r.get<std::uint32_t>();
        const auto generations = r.get<std::uint32_t>();
        if (!(error > 0 && error < 1) || capacity == 0 || period > max_period || (period == 0) != (w->deadline == 0) ||
            w->deadline > UINT64_MAX - max_period || generations < 2 || generations > max_generations || current >= generations ||
            rotations > max_rotations)
            throw lfbloom::error(lfbloom::errc::corrupt, "bad parameters");
        // the blob's generation `current` is current: it goes where the core has the current one
        std::vector<std::optional<blocked_bloom_filter>> read(generations);  // in the core's ring order
        w->items.assign(generations, 0);
        std::uint64_t used = w->bytes() + sizeof(ring_filter);
        for (std::uint32_t i = 0; i < generations; ++i) {
            const std::uint32_t at = static_cast<std::uint32_t>((rotations % generations + generations - current + i) % generations);
            w->items[at] = r.get<std::uint64_t>();
            auto f = r.get_filter<blocked_bloom_filter>(used + sizeof(blocked_bloom_filter));
            check_made_for(f, blocked_bloom_filter::size_for(capacity, error / generations));
            used += sizeof(blocked_bloom_filter) + f.words().size_bytes();
            read[at].emplace(std::move(f));
        }
        r.end();
        std::vector<blocked_bloom_filter> ring;
        for (auto& f : read) ring.push_back(std::move(*f));
        w->ring = std::make_unique<ring_filter>(capacity, error, options(generations), std::move(ring), rotations, ring_filter::never, 0);
        w->account(w->bytes());
        return w;
    }
};

namespace rotating {

inline std::uint64_t now() { return static_cast<std::uint64_t>(RedisModule_Milliseconds()); }

/// Rotations due now, which a read skips (reads change nothing, so any node may read its clock).
inline std::uint64_t pending(const window& w) { return w.due(now()); }

/// Replicates a rotation as RBF.ROTATE key COUNT n [NEXT deadline] (NEXT unless no period).
inline void replicate_rotation(RedisModuleCtx* ctx, RedisModuleString* name, const window& w, std::uint64_t count) {
    if (w.period == 0) RedisModule_Replicate(ctx, "RBF.ROTATE", "scl", name, "COUNT", static_cast<long long>(count));
    else RedisModule_Replicate(ctx, "RBF.ROTATE", "sclcl", name, "COUNT", static_cast<long long>(count), "NEXT",
                               static_cast<long long>(w.deadline));
    notify(ctx, "rbf.rotate", name);
}

/// Parses a non-negative integer argument no larger than `most`.
inline bool number(RedisModuleString* s, std::uint64_t most, std::uint64_t& out) {
    long long v = 0;
    if (RedisModule_StringToLongLong(s, &v) != REDISMODULE_OK || v < 0 || static_cast<unsigned long long>(v) > most) return false;
    out = static_cast<std::uint64_t>(v);
    return true;
}

/// RBF.RESERVE key error capacity period_ms [GENERATIONS g] [NEXT unix_ms]
/// capacity: keys per period; period 0: rotate only with RBF.ROTATE. NEXT (the first deadline;
/// default now + period) is what replication and the AOF carry.
inline int reserve(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
    if (argc < 5 || argc % 2 == 0) return RedisModule_WrongArity(ctx);
    double error = 0;
    std::uint64_t capacity = 0, period = 0, generations = 2, next = 0;
    bool next_given = false;
    if (RedisModule_StringToDouble(argv[2], &error) != REDISMODULE_OK || !(error > 0 && error < 1))
        return RedisModule_ReplyWithError(ctx, "ERR error rate must be a number in (0, 1)");
    if (!number(argv[3], UINT64_MAX, capacity) || capacity == 0)
        return RedisModule_ReplyWithError(ctx, "ERR capacity must be a positive integer");
    if (!number(argv[4], window::max_period, period))
        return RedisModule_ReplyWithError(ctx, "ERR period must be milliseconds in 0..2^40");
    for (int i = 5; i < argc; i += 2) {
        if (is(argv[i], "GENERATIONS") && number(argv[i + 1], window::max_generations, generations) && generations >= 2) continue;
        if (is(argv[i], "NEXT") && number(argv[i + 1], UINT64_MAX - window::max_period, next) && next > 0) {
            next_given = true;
            continue;
        }
        return RedisModule_ReplyWithError(ctx, "ERR options are GENERATIONS 2..64 and NEXT unix_ms > 0");
    }
    RedisModuleKey* key = open(ctx, argv[1], REDISMODULE_READ | REDISMODULE_WRITE);
    if (RedisModule_KeyType(key) != REDISMODULE_KEYTYPE_EMPTY) return RedisModule_ReplyWithError(ctx, "ERR item exists");
    if (period == 0) next = 0;
    else if (!next_given) next = now() + period;
    try {
        RedisModule_ModuleTypeSetValue(key, window::type,
                                       window::make(error, capacity, static_cast<std::uint32_t>(generations), period, next).release());
    } catch (const std::exception& e) {
        return reply_error(ctx, e);
    }
    const std::string rate = shortest(error);
    const auto n = static_cast<long long>(capacity), p = static_cast<long long>(period), g = static_cast<long long>(generations);
    if (period == 0) RedisModule_Replicate(ctx, "RBF.RESERVE", "scllcl", argv[1], rate.c_str(), n, p, "GENERATIONS", g);
    else RedisModule_Replicate(ctx, "RBF.RESERVE", "scllclcl", argv[1], rate.c_str(), n, p, "GENERATIONS", g, "NEXT",
                               static_cast<long long>(next));
    notify(ctx, "rbf.reserve", argv[1]);
    return RedisModule_ReplyWithSimpleString(ctx, "OK");
}

/// Performs the rotations due on a primary and replicates them; before an add.
inline void catch_up(RedisModuleCtx* ctx, RedisModuleString* name, window& w) {
    if (!from_clients(ctx)) return;  // replicas and AOF replay get the primary's RBF.ROTATE instead
    const std::uint64_t t = now();
    const std::uint64_t count = w.due(t);
    if (count == 0) return;
    w.rotate(count, w.next_deadline(t));
    replicate_rotation(ctx, name, w, count);
}

/// The key's ring, null (after replying with the error) if missing or of another type.
inline window* existing(RedisModuleCtx* ctx, RedisModuleString* name, int mode) {
    bool wrong = false;
    window* w = lookup<window>(open(ctx, name, mode), wrong);
    if (wrong) RedisModule_ReplyWithError(ctx, REDISMODULE_ERRORMSG_WRONGTYPE);
    else if (w == nullptr) RedisModule_ReplyWithError(ctx, "ERR not found");
    return w;
}

/// RBF.ADD key item, RBF.MADD key item [item ...]: 1 if the item was not present.
inline int add(RedisModuleCtx* ctx, RedisModuleString** argv, int argc, bool many) {
    if (many ? argc < 3 : argc != 3) return RedisModule_WrongArity(ctx);
    window* w = existing(ctx, argv[1], REDISMODULE_READ | REDISMODULE_WRITE);
    if (w == nullptr) return REDISMODULE_OK;
    catch_up(ctx, argv[1], *w);
    if (many) RedisModule_ReplyWithArray(ctx, argc - 2);
    bool fresh = false;
    for (int i = 2; i < argc; ++i) {
        const bool absent = w->add(view(argv[i]));
        fresh |= absent;
        reply_bool(ctx, absent);
    }
    RedisModule_Replicate(ctx, "RBF.MADD", "sv", argv[1], argv + 2, static_cast<std::size_t>(argc - 2));
    if (fresh) notify(ctx, "rbf.add", argv[1]);
    return REDISMODULE_OK;
}
inline int add_one(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) { return add(ctx, argv, argc, false); }
inline int add_many(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) { return add(ctx, argv, argc, true); }

/// RBF.EXISTS key item, RBF.MEXISTS key item [item ...]: 0 for a missing key; never rotates.
inline int exists(RedisModuleCtx* ctx, RedisModuleString** argv, int argc, bool many) {
    if (many ? argc < 3 : argc != 3) return RedisModule_WrongArity(ctx);
    bool wrong = false;
    const window* w = lookup<window>(open(ctx, argv[1], REDISMODULE_READ), wrong);
    if (wrong) return RedisModule_ReplyWithError(ctx, REDISMODULE_ERRORMSG_WRONGTYPE);
    const std::uint64_t skip = w ? pending(*w) : 0;
    if (many) RedisModule_ReplyWithArray(ctx, argc - 2);
    for (int i = 2; i < argc; ++i) reply_bool(ctx, w != nullptr && w->contains(view(argv[i]), skip));
    return REDISMODULE_OK;
}
inline int exists_one(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) { return exists(ctx, argv, argc, false); }
inline int exists_many(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) { return exists(ctx, argv, argc, true); }

/// RBF.ROTATE key [COUNT n] [NEXT unix_ms]: n rotations now (default 1); the next deadline is
/// NEXT, else now + period. Replies with the rotations so far. Replicated with COUNT and NEXT.
inline int rotate(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
    if (argc < 2 || argc % 2 != 0) return RedisModule_WrongArity(ctx);
    std::uint64_t count = 1, next = 0;
    bool next_given = false;
    for (int i = 2; i < argc; i += 2) {
        if (is(argv[i], "COUNT") && number(argv[i + 1], UINT64_MAX >> 1, count)) continue;
        if (is(argv[i], "NEXT") && number(argv[i + 1], UINT64_MAX - window::max_period, next) && next > 0) {
            next_given = true;
            continue;
        }
        return RedisModule_ReplyWithError(ctx, "ERR options are COUNT n and NEXT unix_ms > 0");
    }
    window* w = existing(ctx, argv[1], REDISMODULE_READ | REDISMODULE_WRITE);
    if (w == nullptr) return REDISMODULE_OK;
    catch_up(ctx, argv[1], *w);  // first the rotations already due, or the keys they expired would return
    if (w->period == 0) next = 0;
    else if (!next_given) next = now() + w->period;  // a replica or the AOF always has NEXT
    w->rotate(count, next);
    replicate_rotation(ctx, argv[1], *w, count);
    return RedisModule_ReplyWithLongLong(ctx, static_cast<long long>(w->rotations()));
}

/// RBF.INFO key: Capacity, Size, Generations, Period, Rotations, Next rotation (unix ms, nil
/// without a period), Items (in the current generation).
inline int info(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
    if (argc != 2) return RedisModule_WrongArity(ctx);
    const window* w = existing(ctx, argv[1], REDISMODULE_READ);
    if (w == nullptr) return REDISMODULE_OK;
    reply_fields(ctx, 8);
    const auto field = [&](const char* name, std::uint64_t v) {
        RedisModule_ReplyWithSimpleString(ctx, name);
        RedisModule_ReplyWithLongLong(ctx, static_cast<long long>(v));
    };
    field("Capacity", w->capacity);
    field("Size", w->bytes());
    RedisModule_ReplyWithSimpleString(ctx, "Error rate");
    RedisModule_ReplyWithDouble(ctx, w->error);
    field("Generations", w->generations());
    field("Period", w->period);
    field("Rotations", w->rotations());
    RedisModule_ReplyWithSimpleString(ctx, "Next rotation");
    if (w->period == 0) RedisModule_ReplyWithNull(ctx);
    else RedisModule_ReplyWithLongLong(ctx, static_cast<long long>(w->deadline));
    field("Items", w->current_items());
    return REDISMODULE_OK;
}

}  // namespace rotating

inline int register_rotating(RedisModuleCtx* ctx) {
    using namespace rotating;
    const command commands[] = {
        {"rbf.reserve", guarded<reserve>, "write deny-oom"},  {"rbf.add", guarded<add_one>, "write deny-oom"},
        {"rbf.madd", guarded<add_many>, "write deny-oom"},    {"rbf.rotate", guarded<rotate>, "write"},
        {"rbf.exists", guarded<exists_one>, "readonly fast"}, {"rbf.mexists", guarded<exists_many>, "readonly fast"},
        {"rbf.info", guarded<info>, "readonly fast"},
    };
    return create_commands(ctx, commands, "bloom");
}

}  // namespace lfbloom_redis
