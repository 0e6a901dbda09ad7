// Boost.Bloom beside lfbloom in lfbloom-bench: the fastest non-concurrent C++ Bloom filter, in the
// shapes of our blocked and split-block layouts, fed the same MurmurHash3 (its h1 half, as an
// avalanching 64-bit hash) and given our filter's exact bits and k. Built only when the headers
// are at ../shared/peers/boost-bloom (bench/CMakeLists.txt); boost_peer.cpp is compiled with AVX2,
// which fast_multiblock32 needs, so this header keeps every lfbloom type out of its interface.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

namespace lfbloom_bench {

class boost_peer {
public:
    enum class shape {
        block,              ///< boost::bloom::block<std::uint64_t[8], K>: our blocked layout's shape
        fast_multiblock32,  ///< boost::bloom::fast_multiblock32<8>: Parquet's, our split-block's
    };
    enum class op { add, contains };

    /// Null if Boost.Bloom was not built in, or k is outside the Ks compiled for `shape`
    /// (block: 3-12; fast_multiblock32: 8), or the CPU lacks AVX2.
    static std::unique_ptr<boost_peer> make(shape s, std::uint64_t bits, unsigned k);
    virtual ~boost_peer() = default;

    /// Runs `o` over the keys, one call per key or in batches of `batch` (Boost's bulk insert and
    /// may_contain, after hashing the batch), with a std::mutex taken per call or batch if
    /// `locked`; returns the hits (contains) or 0 (add: Boost's insert answers nothing).
    virtual std::uint64_t run(op o, std::span<const std::span<const std::byte>> keys, unsigned batch, bool locked) = 0;
    virtual void clear() = 0;
    virtual std::uint64_t bytes() const = 0;
};

}  // namespace lfbloom_bench
