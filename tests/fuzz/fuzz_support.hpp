// Shared by the fuzz targets: inputs as byte spans, and a failure that every fuzzer notices.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <vector>

#include "lfbloom/lfbloom.hpp"

namespace fuzz {

/// Loaders must never take more than this, whatever a header claims.
inline constexpr std::uint64_t memory_limit = 64 << 20;

inline std::span<const std::byte> bytes_of(const std::uint8_t* data, std::size_t size) {
    return {reinterpret_cast<const std::byte*>(data), size};
}

[[noreturn]] inline void fail(const char* what) {
    std::fprintf(stderr, "fuzz property violated: %s\n", what);
    std::abort();
}

}  // namespace fuzz
