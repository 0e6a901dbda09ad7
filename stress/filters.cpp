#include "filters.hpp"

#include <algorithm>
#include <vector>

namespace stress {
namespace {

lfb_stats to_c_stats(const lfbloom::filter_stats& s) {
    lfb_stats c{};
    c.struct_size = sizeof c;
    c.layout = static_cast<std::uint32_t>(s.kind);
    c.slots = s.slots;
    c.slot_bits = s.slot_bits;
    c.hashes = s.hashes;
    c.slots_set = s.slots_set;
    c.saturated = s.saturated;
    return c;
}

template <class Filter>
class core_filter final : public filter_api {
public:
    explicit core_filter(Filter f) : f_(std::move(f)) {}
    bool add(key_view key) override { return f_.add(key); }
    bool contains(key_view key) const override { return f_.contains(key); }
    void contains_many(std::span<const key_view> keys, std::uint8_t* found) const override { f_.contains_many(keys, found); }
    bool remove(key_view key) override {
        if constexpr (requires { f_.remove(key); }) return f_.remove(key);
        else return filter_api::remove(key);
    }
    void remove_many(std::span<const key_view> keys, std::uint8_t* removed) override {
        if constexpr (requires { f_.remove_many(keys, removed); }) f_.remove_many(keys, removed);
        else filter_api::remove_many(keys, removed);
    }
    std::uint32_t count(key_view key) const override {
        if constexpr (requires { f_.count(key); }) return f_.count(key);
        else return filter_api::count(key);
    }
    lfb_stats stats() const override { return to_c_stats(f_.stats()); }
    std::int64_t rollbacks() const override {
        if constexpr (requires { f_.rollbacks(); }) return static_cast<std::int64_t>(f_.rollbacks());
        else return filter_api::rollbacks();
    }
    std::unique_ptr<filter_api> empty_twin() const override {
        if constexpr (std::is_same_v<Filter, lfbloom::counting_bloom_filter>)
            return std::make_unique<core_filter>(Filter(f_.shape(), f_.counter_bits(), {.seed = f_.seed()}));
        else
            return std::make_unique<core_filter>(Filter(f_.shape(), {.seed = f_.seed()}));
    }

private:
    Filter f_;
};

class core_scalable final : public filter_api {
public:
    core_scalable(std::uint64_t initial_capacity, double fpr) : f_(initial_capacity, fpr) {}
    bool add(key_view key) override { return f_.add(key); }
    bool contains(key_view key) const override { return f_.contains(key); }
    void contains_many(std::span<const key_view> keys, std::uint8_t* found) const override { f_.contains_many(keys, found); }
    lfb_stats stats() const override { return to_c_stats(f_.stats()); }
    std::unique_ptr<filter_api> empty_twin() const override { throw std::logic_error("no twin of a scalable filter"); }
    std::vector<std::pair<std::uint64_t, std::uint64_t>> sub_filters() const override {
        std::vector<std::pair<std::uint64_t, std::uint64_t>> out;
        for (std::uint32_t i = 0; i < f_.filters(); ++i) out.emplace_back(f_.stats(i).items, f_.stats(i).filter.capacity);
        return out;
    }

private:
    lfbloom::scalable_bloom_filter f_;
};

/// Any negative status from the C ABI is a failure of the run.
int checked(int status) {
    if (status < 0) throw std::runtime_error(std::string("C ABI error: ") + lfb_strerror(status) + ": " + lfb_last_error());
    return status;
}

/// A batch in the C ABI's layout: one buffer and count + 1 offsets.
struct packed_keys {
    std::vector<std::byte> data;
    std::vector<std::uint64_t> offsets{0};
    explicit packed_keys(std::span<const key_view> keys) {
        for (key_view k : keys) {
            data.insert(data.end(), k.begin(), k.end());
            offsets.push_back(data.size());
        }
    }
};

/// The C ABI's bit filter (blocked or classic) or counting filter, chosen by `counting`.
template <bool counting>
class c_filter final : public filter_api {
    using handle = std::conditional_t<counting, lfb_counting, lfb_filter>;

public:
    c_filter(std::uint64_t slots_or_capacity, std::uint32_t hashes_or_zero, double fpr, const lfb_options& options)
        : options_(options) {
        if constexpr (counting)
            checked(hashes_or_zero != 0 ? lfb_counting_create_geometry(slots_or_capacity, hashes_or_zero, &options_, &h_)
                                        : lfb_counting_create(slots_or_capacity, fpr, &options_, &h_));
        else
            checked(hashes_or_zero != 0 ? lfb_filter_create_geometry(slots_or_capacity, hashes_or_zero, &options_, &h_)
                                        : lfb_filter_create(slots_or_capacity, fpr, &options_, &h_));
    }
    ~c_filter() override {
        if constexpr (counting) lfb_counting_free(h_); else lfb_filter_free(h_);
    }
    c_filter(const c_filter&) = delete;
    c_filter& operator=(const c_filter&) = delete;

    bool add(key_view k) override {
        if constexpr (counting) return checked(lfb_counting_add(h_, k.data(), k.size())) == 1;
        else return checked(lfb_filter_add(h_, k.data(), k.size())) == 1;
    }
    bool contains(key_view k) const override {
        if constexpr (counting) return checked(lfb_counting_contains(h_, k.data(), k.size())) == 1;
        else return checked(lfb_filter_contains(h_, k.data(), k.size())) == 1;
    }
    void contains_many(std::span<const key_view> keys, std::uint8_t* found) const override {
        const packed_keys p(keys);
        if constexpr (counting)
            checked(lfb_counting_contains_many(h_, p.data.data(), p.offsets.data(), keys.size(), found, nullptr));
        else
            checked(lfb_filter_contains_many(h_, p.data.data(), p.offsets.data(), keys.size(), found, nullptr));
    }
    bool remove(key_view k) override {
        if constexpr (counting) {
            const int status = lfb_counting_remove(h_, k.data(), k.size());
            return status == LFB_ERR_NOT_PRESENT ? false : checked(status) == LFB_OK;
        } else {
            return filter_api::remove(k);
        }
    }
    void remove_many(std::span<const key_view> keys, std::uint8_t* removed) override {
        if constexpr (counting) {
            std::vector<lfb_key> array(keys.size());
            for (std::size_t i = 0; i < keys.size(); ++i) array[i] = {keys[i].data(), keys[i].size()};
            checked(lfb_counting_remove_keys(h_, array.data(), array.size(), removed, nullptr));
        } else {
            filter_api::remove_many(keys, removed);
        }
    }
    std::uint32_t count(key_view k) const override {
        if constexpr (counting) return static_cast<std::uint32_t>(checked(lfb_counting_count(h_, k.data(), k.size())));
        else return filter_api::count(k);
    }
    lfb_stats stats() const override {
        lfb_stats s{};
        s.struct_size = sizeof s;
        if constexpr (counting) checked(lfb_counting_stats(h_, &s)); else checked(lfb_filter_stats(h_, &s));
        return s;
    }
    std::unique_ptr<filter_api> empty_twin() const override {
        const lfb_stats s = stats();
        return std::make_unique<c_filter>(s.slots, s.hashes, 0.0, options_);
    }

private:
    lfb_options options_;
    handle* h_ = nullptr;
};

class c_scalable final : public filter_api {
public:
    c_scalable(std::uint64_t initial_capacity, double fpr) { checked(lfb_scalable_create(initial_capacity, fpr, 0, 0, 0, nullptr, &h_)); }
    ~c_scalable() override { lfb_scalable_free(h_); }
    c_scalable(const c_scalable&) = delete;
    c_scalable& operator=(const c_scalable&) = delete;
    bool add(key_view k) override { return checked(lfb_scalable_add(h_, k.data(), k.size())) == 1; }
    bool contains(key_view k) const override { return checked(lfb_scalable_contains(h_, k.data(), k.size())) == 1; }
    void contains_many(std::span<const key_view> keys, std::uint8_t* found) const override {
        const packed_keys p(keys);
        checked(lfb_scalable_contains_many(h_, p.data.data(), p.offsets.data(), keys.size(), found, nullptr));
    }
    lfb_stats stats() const override {
        lfb_stats s{};
        s.struct_size = sizeof s;
        checked(lfb_scalable_stats(h_, &s));
        return s;
    }
    std::unique_ptr<filter_api> empty_twin() const override { throw std::logic_error("no twin of a scalable filter"); }
    std::vector<std::pair<std::uint64_t, std::uint64_t>> sub_filters() const override {
        std::vector<std::pair<std::uint64_t, std::uint64_t>> out;
        const int n = checked(lfb_scalable_filters(h_));
        for (int i = 0; i < n; ++i) {
            lfb_stats s{};
            s.struct_size = sizeof s;
            std::uint64_t items = 0;
            checked(lfb_scalable_filter_stats(h_, static_cast<std::uint32_t>(i), &s, &items));
            out.emplace_back(items, s.capacity);
        }
        return out;
    }

private:
    lfb_scalable* h_ = nullptr;
};

class core_rotating final : public rotating_api {
public:
    core_rotating(std::uint64_t capacity, double fpr, lfbloom::rotating_options o) : f_(capacity, fpr, std::move(o)) {}
    void add(key_view key) override { f_.add(key); }
    bool contains(key_view key) const override { return f_.contains(key); }
    void contains_many(std::span<const key_view> keys, std::uint8_t* found) const override { f_.contains_many(keys, found); }
    void rotate() override { f_.rotate(); }
    std::uint64_t rotations() const override { return f_.rotations(); }

private:
    lfbloom::rotating_bloom_filter f_;
};

class c_rotating final : public rotating_api {
public:
    c_rotating(std::uint64_t capacity, double fpr, std::uint32_t generations, bool double_write) {
        checked(lfb_rotating_create(capacity, fpr, generations, 0, double_write ? LFB_ROTATING_DOUBLE_WRITE : 0, nullptr, &h_));
    }
    ~c_rotating() override { lfb_rotating_free(h_); }
    c_rotating(const c_rotating&) = delete;
    c_rotating& operator=(const c_rotating&) = delete;
    void add(key_view k) override { checked(lfb_rotating_add(h_, k.data(), k.size())); }
    bool contains(key_view k) const override { return checked(lfb_rotating_contains(h_, k.data(), k.size())) == 1; }
    void contains_many(std::span<const key_view> keys, std::uint8_t* found) const override {
        const packed_keys p(keys);
        checked(lfb_rotating_contains_many(h_, p.data.data(), p.offsets.data(), keys.size(), found, nullptr));
    }
    void rotate() override { checked(lfb_rotating_rotate(h_)); }
    std::uint64_t rotations() const override {
        std::uint64_t n = 0;
        checked(lfb_rotating_rotations(h_, &n));
        return n;
    }

private:
    lfb_rotating* h_ = nullptr;
};

class core_swap final : public swap_api {
public:
    explicit core_swap(std::uint64_t capacity) : capacity_(capacity), h_(fresh()) {}
    void add(key_view key) override { h_.add(key); }
    bool contains(key_view key) const override { return h_.contains(key); }
    void contains_many(std::span<const key_view> keys, std::uint8_t* found) const override {
        h_.pin()->contains_many(keys, found);
    }
    void stage_fresh() override { h_.stage(fresh()); }
    void add_staged(std::span<const key_view> keys) override {
        const auto pinned = h_.pin();
        if (pinned.staged() == nullptr) throw std::logic_error("nothing staged");
        pinned.staged()->add_many(keys);
    }
    void publish() override { h_.publish(); }

private:
    std::unique_ptr<lfbloom::blocked_bloom_filter> fresh() const {
        return std::make_unique<lfbloom::blocked_bloom_filter>(lfbloom::blocked_bloom_filter::for_capacity(capacity_, 0.01));
    }
    std::uint64_t capacity_;
    lfbloom::swappable_filter<lfbloom::blocked_bloom_filter> h_;
};

class c_swap final : public swap_api {
public:
    explicit c_swap(std::uint64_t capacity) : capacity_(capacity) {
        lfb_filter* f = fresh();
        if (lfb_swap_create(f, &h_) != LFB_OK) {
            lfb_filter_free(f);
            checked(LFB_ERR_INTERNAL);
        }
    }
    ~c_swap() override { lfb_swap_free(h_); }
    c_swap(const c_swap&) = delete;
    c_swap& operator=(const c_swap&) = delete;
    void add(key_view k) override { checked(lfb_swap_add(h_, k.data(), k.size())); }
    bool contains(key_view k) const override { return checked(lfb_swap_contains(h_, k.data(), k.size())) == 1; }
    void contains_many(std::span<const key_view> keys, std::uint8_t* found) const override {
        const packed_keys p(keys);
        checked(lfb_swap_contains_many(h_, p.data.data(), p.offsets.data(), keys.size(), found, nullptr));
    }
    void stage_fresh() override { checked(lfb_swap_stage(h_, fresh())); }
    void add_staged(std::span<const key_view> keys) override {
        const packed_keys p(keys);
        checked(lfb_swap_add_many_staged(h_, p.data.data(), p.offsets.data(), keys.size(), nullptr));
    }
    void publish() override { checked(lfb_swap_publish(h_)); }

private:
    lfb_filter* fresh() const {
        lfb_filter* f = nullptr;
        checked(lfb_filter_create(capacity_, 0.01, nullptr, &f));
        return f;
    }
    std::uint64_t capacity_;
    lfb_swap* h_ = nullptr;
};

class core_cuckoo final : public cuckoo_api {
public:
    explicit core_cuckoo(lfbloom::cuckoo_filter f) : f_(std::move(f)) {}
    lfbloom::cuckoo_status insert(key_view k) override { return f_.insert(k); }
    bool contains(key_view k) const override { return f_.contains(k); }
    bool remove(key_view k) override { return f_.remove(k); }
    std::uint32_t count(key_view k) const override { return f_.count(k); }
    lfbloom::cuckoo_stats stats() const override { return f_.stats(); }

private:
    lfbloom::cuckoo_filter f_;
};

/// The cuckoo filter through the C ABI's generic handle (lfb_create, lfb_add, lfb_info_get).
class c_cuckoo final : public cuckoo_api {
public:
    c_cuckoo(std::uint64_t capacity, double fpr) {
        lfb_spec spec;
        checked(lfb_spec_init(&spec));
        spec.kind = LFB_KIND_CUCKOO;
        spec.capacity = capacity;
        spec.fpr = fpr;
        checked(lfb_create(&spec, &h_));
    }
    ~c_cuckoo() override { lfb_free(h_); }
    c_cuckoo(const c_cuckoo&) = delete;
    c_cuckoo& operator=(const c_cuckoo&) = delete;
    lfbloom::cuckoo_status insert(key_view k) override {
        const int status = lfb_add(h_, k.data(), k.size());
        if (status == LFB_ERR_FULL) return lfbloom::cuckoo_status::full;
        if (status == LFB_ERR_TOO_MANY_DUPLICATES) return lfbloom::cuckoo_status::too_many_duplicates;
        return checked(status) == 1 ? lfbloom::cuckoo_status::added_new : lfbloom::cuckoo_status::added;
    }
    bool contains(key_view k) const override { return checked(lfb_contains(h_, k.data(), k.size())) == 1; }
    bool remove(key_view k) override { return checked(lfb_remove(h_, k.data(), k.size())) == 1; }
    std::uint32_t count(key_view k) const override { return static_cast<std::uint32_t>(checked(lfb_count(h_, k.data(), k.size()))); }
    lfbloom::cuckoo_stats stats() const override {
        lfb_info i{};
        i.struct_size = sizeof i;
        checked(lfb_info_get(h_, &i));
        lfbloom::cuckoo_stats s;
        s.buckets = i.slots / 4;
        s.bytes = i.bytes;
        s.capacity = i.capacity;
        s.target_fpr = i.target_fpr;
        s.fingerprints = i.slots_set;
        s.load = i.fill_ratio;
        s.expected_fpr = i.expected_fpr;
        s.near_capacity = i.near_capacity != 0;
        s.kicks = i.kicks;
        s.failed_inserts = i.failed_adds;
        s.duplicate_refusals = i.duplicate_refusals;
        s.reader_retries = i.reader_retries;
        s.reader_gave_up = i.reader_gave_up;
        return s;
    }

private:
    lfb_handle* h_ = nullptr;
};

}  // namespace

std::unique_ptr<cuckoo_api> make_cuckoo(const filter_spec& spec) {
    if (spec.api == "c") return std::make_unique<c_cuckoo>(spec.capacity, spec.fpr);
    return std::make_unique<core_cuckoo>(lfbloom::cuckoo_filter::for_capacity(spec.capacity, spec.fpr));
}

std::unique_ptr<filter_api> make_filter(const filter_spec& spec) {
    if (spec.layout == "scalable") {
        const std::uint64_t initial = std::max<std::uint64_t>(16, spec.capacity / 1024);
        if (spec.api == "c") return std::make_unique<c_scalable>(initial, spec.fpr);
        return std::make_unique<core_scalable>(initial, spec.fpr);
    }
    if (spec.api == "c") {
        lfb_options o;
        lfb_options_init(&o);
        o.counter_bits = spec.counter_bits;
        if (spec.layout == "counting") return std::make_unique<c_filter<true>>(spec.capacity, 0, spec.fpr, o);
        o.layout = spec.layout == "classic" ? LFB_LAYOUT_CLASSIC : LFB_LAYOUT_BLOCKED;
        return std::make_unique<c_filter<false>>(spec.capacity, 0, spec.fpr, o);
    }
    if (spec.layout == "counting")
        return std::make_unique<core_filter<lfbloom::counting_bloom_filter>>(
            lfbloom::counting_bloom_filter::for_capacity(spec.capacity, spec.fpr, spec.counter_bits));
    if (spec.layout == "classic")
        return std::make_unique<core_filter<lfbloom::classic_bloom_filter>>(
            lfbloom::classic_bloom_filter::for_capacity(spec.capacity, spec.fpr));
    return std::make_unique<core_filter<lfbloom::blocked_bloom_filter>>(
        lfbloom::blocked_bloom_filter::for_capacity(spec.capacity, spec.fpr));
}

std::unique_ptr<rotating_api> make_rotating(const filter_spec& spec, std::uint32_t generations, bool double_write) {
    if (spec.api == "c") return std::make_unique<c_rotating>(spec.capacity, spec.fpr, generations, double_write);
    lfbloom::rotating_options o;
    o.generations = generations;
    o.double_write = double_write;
    return std::make_unique<core_rotating>(spec.capacity, spec.fpr, std::move(o));
}

std::unique_ptr<swap_api> make_swap(const filter_spec& spec) {
    if (spec.api == "c") return std::make_unique<c_swap>(spec.capacity);
    return std::make_unique<core_swap>(spec.capacity);
}

}  // namespace stress
