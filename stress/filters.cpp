#include "filters.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "lfbloom.h"

namespace stress {
namespace {

using lfbloom::cuckoo_status;
using lfbloom::errc;
using lfbloom::filter_info;
using lfbloom::filter_kind;

/// A refusal as cuckoo_filter::insert reports it, from the error of an add.
cuckoo_status refusal(errc code) {
    if (code == errc::full) return cuckoo_status::full;
    if (code == errc::too_many_duplicates) return cuckoo_status::too_many_duplicates;
    throw std::logic_error("not a refusal");
}

/// A batch's keys as the (address, length) pairs both interfaces take.
std::vector<lfbloom::key_ref> refs_of(std::span<const key_view> keys) {
    std::vector<lfbloom::key_ref> refs;
    refs.reserve(keys.size());
    for (const key_view k : keys) refs.push_back({k.data(), k.size()});
    return refs;
}

/// The core's spec of a stress spec (kind already parsed).
lfbloom::filter_spec core_spec(const filter_spec& spec, filter_kind kind) {
    lfbloom::filter_spec s;
    s.kind = kind;
    s.capacity = kind == filter_kind::scalable ? std::max<std::uint64_t>(16, spec.capacity / 1024) : spec.capacity;
    s.fpr = spec.fpr;
    s.counter_bits = kind == filter_kind::counting ? spec.counter_bits : 0;
    s.generations = kind == filter_kind::rotating ? spec.generations : 0;
    s.double_write = kind == filter_kind::rotating && spec.double_write;
    return s;
}

/// An empty layout of `shape`'s kind, geometry and seed.
lfbloom::filter_spec twin_of(const filter_info& shape) {
    lfbloom::filter_spec s;
    s.kind = shape.kind;
    s.slots = shape.slots;
    s.hashes = shape.hashes;
    s.seed = shape.seed;
    s.counter_bits = shape.kind == filter_kind::counting ? shape.slot_bits : 0;
    return s;
}

lfbloom::filter_spec fresh_blocked(std::uint64_t capacity) {
    lfbloom::filter_spec s;
    s.capacity = capacity;
    s.fpr = 0.01;
    return s;
}

class core_filter final : public filter_api {
public:
    core_filter(std::unique_ptr<lfbloom::dynamic_filter> f, std::uint64_t capacity) : f_(std::move(f)), capacity_(capacity) {}
    bool add(key_view key) override { return f_->add(key); }
    void add_many(std::span<const key_view> keys) override { run(lfbloom::batch_op::add, keys, nullptr); }
    cuckoo_status insert(key_view key) override {
        try {
            return f_->add(key) ? cuckoo_status::added_new : cuckoo_status::added;
        } catch (const lfbloom::error& e) {
            return refusal(e.code());
        }
    }
    bool contains(key_view key) const override { return f_->contains(key); }
    void contains_many(std::span<const key_view> keys, std::uint8_t* found) const override { run(lfbloom::batch_op::contains, keys, found); }
    bool remove(key_view key) override { return f_->remove(key); }
    void remove_many(std::span<const key_view> keys, std::uint8_t* removed) override { run(lfbloom::batch_op::remove, keys, removed); }
    std::uint32_t count(key_view key) const override { return f_->count(key); }
    filter_info info() const override { return f_->info(); }
    filter_info part(std::uint32_t index) const override { return f_->part_info(index); }
    std::unique_ptr<filter_api> empty_twin() const override {
        return std::make_unique<core_filter>(lfbloom::make_filter(twin_of(f_->geometry())), capacity_);
    }
    void rotate() override { held<lfbloom::rotating_bloom_filter>().rotate(); }
    std::uint64_t rotations() const override { return held<lfbloom::rotating_bloom_filter>().rotations(); }
    void stage_fresh() override { held<lfbloom::dynamic_swappable>().stage(lfbloom::make_filter(fresh_blocked(capacity_))); }
    void add_staged(std::span<const key_view> keys) override { run(lfbloom::batch_op::add_staged, keys, nullptr); }
    void publish() override { held<lfbloom::dynamic_swappable>().publish(); }
    std::int64_t rollbacks() const override {
        const auto* counting = f_->get<lfbloom::counting_bloom_filter>();
        return counting == nullptr ? -1 : static_cast<std::int64_t>(counting->rollbacks());
    }

private:
    void run(lfbloom::batch_op op, std::span<const key_view> keys, std::uint8_t* results) const {
        const std::vector<lfbloom::key_ref> refs = refs_of(keys);
        lfbloom::batch_progress progress;
        f_->run(op, keys.size(), lfbloom::key_refs{refs.data()}, results, progress);
    }
    template <class F>
    F& held() const {
        F* f = f_->get<F>();
        if (f == nullptr) throw std::logic_error(std::string("not a filter of that kind: ") + lfbloom::kind_name(f_->kind()));
        return *f;
    }

    std::unique_ptr<lfbloom::dynamic_filter> f_;
    std::uint64_t capacity_;
};

[[noreturn]] void failed(int status, const std::string& message) {
    throw std::runtime_error(std::string("C ABI error: ") + lfb_strerror(status) + ": " + message);
}

/// Any negative status from the C ABI is a failure of the run.
int checked(int status) {
    if (status < 0) failed(status, lfb_last_error());
    return status;
}

lfb_spec c_spec(const lfbloom::filter_spec& s) {
    lfb_spec c;
    checked(lfb_spec_init_size(&c, sizeof c));
    c.kind = static_cast<std::uint32_t>(s.kind);
    c.capacity = s.capacity;
    c.fpr = s.fpr;
    c.seed = s.seed;
    c.counter_bits = s.counter_bits;
    c.slots = s.slots;
    c.hashes = s.hashes;
    c.generations = s.generations;
    c.rotating_flags = s.double_write ? LFB_ROTATING_DOUBLE_WRITE : 0;
    return c;
}

lfb_handle* c_create(const lfbloom::filter_spec& s) {
    const lfb_spec c = c_spec(s);
    lfb_handle* h = nullptr;
    checked(lfb_create(&c, &h));
    return h;
}

filter_info core_info(const lfb_info& i) {
    filter_info v;
    v.kind = static_cast<filter_kind>(i.kind);
    v.sub_kind = static_cast<filter_kind>(i.sub_kind);
    v.slots = i.slots;
    v.slot_bits = i.slot_bits;
    v.hashes = i.hashes;
    v.bytes = i.bytes;
    v.capacity = i.capacity;
    v.seed = i.seed;
    v.slots_set = i.slots_set;
    v.saturated = i.saturated;
    v.fill_ratio = i.fill_ratio;
    v.kicks = i.kicks;
    v.reader_retries = i.reader_retries;
    v.reader_gave_up = i.reader_gave_up;
    v.parts = i.parts;
    v.generation = i.generation;
    v.items = i.items;
    return v;
}

/// The same filters behind the C ABI's one handle.
class c_filter final : public filter_api {
public:
    c_filter(lfb_handle* h, std::uint64_t capacity) : h_(h), capacity_(capacity) {}
    ~c_filter() override { lfb_free(h_); }
    c_filter(const c_filter&) = delete;
    c_filter& operator=(const c_filter&) = delete;

    bool add(key_view k) override { return checked(lfb_add(h_, k.data(), k.size())) == 1; }
    void add_many(std::span<const key_view> keys) override { run(LFB_OP_ADD, keys, nullptr); }
    cuckoo_status insert(key_view k) override {
        const int status = lfb_add(h_, k.data(), k.size());
        if (status == LFB_ERR_FULL) return cuckoo_status::full;
        if (status == LFB_ERR_TOO_MANY_DUPLICATES) return cuckoo_status::too_many_duplicates;
        return checked(status) == 1 ? cuckoo_status::added_new : cuckoo_status::added;
    }
    bool contains(key_view k) const override { return checked(lfb_contains(h_, k.data(), k.size())) == 1; }
    void contains_many(std::span<const key_view> keys, std::uint8_t* found) const override { run(LFB_OP_CONTAINS, keys, found); }
    bool remove(key_view k) override { return checked(lfb_remove(h_, k.data(), k.size())) == 1; }
    void remove_many(std::span<const key_view> keys, std::uint8_t* removed) override { run(LFB_OP_REMOVE, keys, removed); }
    std::uint32_t count(key_view k) const override { return static_cast<std::uint32_t>(checked(lfb_count(h_, k.data(), k.size()))); }
    filter_info info() const override { return read([&](lfb_info* i) { return lfb_info_get(h_, i); }); }
    filter_info part(std::uint32_t index) const override { return read([&](lfb_info* i) { return lfb_part_info(h_, index, i); }); }
    std::unique_ptr<filter_api> empty_twin() const override {
        const filter_info shape = read([&](lfb_info* i) { return lfb_geometry_get(h_, i); });
        return std::make_unique<c_filter>(c_create(twin_of(shape)), capacity_);
    }
    void rotate() override { checked(lfb_rotate(h_)); }
    std::uint64_t rotations() const override { return read([&](lfb_info* i) { return lfb_geometry_get(h_, i); }).generation; }
    void stage_fresh() override {
        lfb_handle* next = c_create(fresh_blocked(capacity_));
        if (const int status = lfb_stage(h_, next); status < 0) {
            const std::string message = lfb_last_error();
            lfb_free(next);  // refused: still ours
            failed(status, message);
        }
    }
    void add_staged(std::span<const key_view> keys) override { run(LFB_OP_ADD_STAGED, keys, nullptr); }
    void publish() override { checked(lfb_publish(h_)); }

private:
    void run(std::uint32_t op, std::span<const key_view> keys, std::uint8_t* results) const {
        std::vector<lfb_key> array;
        array.reserve(keys.size());
        for (const key_view k : keys) array.push_back({k.data(), k.size()});
        lfb_batch b{};
        b.struct_size = sizeof b;
        b.op = op;
        b.count = keys.size();
        b.keys = array.data();
        b.results = results;
        checked(lfb_batch_run(h_, &b));
    }
    template <class Call>
    static filter_info read(Call call) {
        lfb_info i{};
        i.struct_size = sizeof i;
        checked(call(&i));
        return core_info(i);
    }

    lfb_handle* h_;
    std::uint64_t capacity_;
};

}  // namespace

std::unique_ptr<filter_api> make_filter(const filter_spec& spec) {
    const auto kind = lfbloom::parse_kind(spec.layout);
    if (!kind) throw std::invalid_argument("unknown layout " + spec.layout);
    const bool swap = *kind == filter_kind::swappable;
    const lfbloom::filter_spec s = swap ? fresh_blocked(spec.capacity) : core_spec(spec, *kind);
    if (spec.api == "c") {
        lfb_handle* h = c_create(s);
        if (swap) {
            lfb_handle* inner = h;
            if (const int status = lfb_create_swap(inner, &h); status < 0) {
                const std::string message = lfb_last_error();
                lfb_free(inner);  // refused: still ours
                failed(status, message);
            }
        }
        return std::make_unique<c_filter>(h, spec.capacity);
    }
    std::unique_ptr<lfbloom::dynamic_filter> f = lfbloom::make_filter(s);
    if (swap) f = lfbloom::make_swappable(std::move(f));
    return std::make_unique<core_filter>(std::move(f), spec.capacity);
}

}  // namespace stress
