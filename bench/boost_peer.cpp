// Boost.Bloom for lfbloom-bench (see boost_peer.hpp). Compiled with -mavx2 (fast_multiblock32's
// vector path), so the lfbloom code it needs, MurmurHash3 alone, is included into an anonymous
// namespace: this file's copy never stands in for the rest of the bench's (no AVX2 leaks into it).
// Without Boost.Bloom's headers on the include path, make() answers null.
#include "boost_peer.hpp"

#if __has_include(<boost/bloom/filter.hpp>)
#include <array>
#include <bit>
#include <cstring>
#include <mutex>
#include <type_traits>

#include <boost/bloom/block.hpp>
#include <boost/bloom/fast_multiblock32.hpp>
#include <boost/bloom/filter.hpp>
#include <boost/endian/conversion.hpp>

namespace {
#include "lfbloom/base/murmur3.hpp"
}

namespace lfbloom_bench {
namespace {

/// Our hash's h1 is already a well-mixed 64-bit value: Boost uses it as is.
struct as_is {
    using is_avalanching = std::true_type;
    std::size_t operator()(std::uint64_t h) const noexcept { return h; }
};

std::uint64_t hash_of(std::span<const std::byte> key) noexcept {
    return lfbloom::murmur3_x64_128(key.data(), key.size()).h1;
}

template <class Subfilter>
class peer final : public boost_peer {
public:
    explicit peer(std::uint64_t bits) : f_(bits) {}

    std::uint64_t run(op o, std::span<const std::span<const std::byte>> keys, unsigned batch, bool locked) override {
        std::uint64_t hits = 0;
        auto guarded = [&](auto&& body) {
            if (!locked) return body();
            std::lock_guard held(m_);
            return body();
        };
        if (batch <= 1) {
            if (o == op::add) {
                for (const auto k : keys) guarded([&] { f_.insert(hash_of(k)); });
            } else {
                for (const auto k : keys) hits += guarded([&] { return f_.may_contain(hash_of(k)); });
            }
            return hits;
        }
        std::array<std::uint64_t, 256> hashes;
        for (std::size_t i = 0; i < keys.size(); i += batch) {
            const std::size_t n = std::min<std::size_t>({batch, hashes.size(), keys.size() - i});
            for (std::size_t j = 0; j < n; ++j) hashes[j] = hash_of(keys[i + j]);
            if (o == op::add) {
                guarded([&] { f_.insert(hashes.begin(), hashes.begin() + n); });
            } else {
                guarded([&] { f_.may_contain(hashes.begin(), hashes.begin() + n, [&](std::uint64_t, bool r) { hits += r; }); });
            }
        }
        return hits;
    }
    void clear() override { f_.clear(); }
    std::uint64_t bytes() const override { return f_.capacity() / 8; }

private:
    boost::bloom::filter<std::uint64_t, 1, Subfilter, 0, as_is> f_;
    std::mutex m_;
};

template <unsigned K = 3>
std::unique_ptr<boost_peer> make_block(std::uint64_t bits, unsigned k) {
    if constexpr (K > 12) {
        return nullptr;
    } else {
        if (k == K) return std::make_unique<peer<boost::bloom::block<std::uint64_t[8], K>>>(bits);
        return make_block<K + 1>(bits, k);
    }
}

}  // namespace

std::unique_ptr<boost_peer> boost_peer::make(shape s, std::uint64_t bits, unsigned k) {
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx2")) return nullptr;  // this file's code needs it
    if (s == shape::block) return make_block(bits, k);
    if (k != 8) return nullptr;
    return std::make_unique<peer<boost::bloom::fast_multiblock32<8>>>(bits);
}

}  // namespace lfbloom_bench
#else
std::unique_ptr<lfbloom_bench::boost_peer> lfbloom_bench::boost_peer::make(shape, std::uint64_t, unsigned) { return nullptr; }
#endif
