// Fuzz target: the Guava-format loader. Loads or throws lfbloom::error; what loads saves back to
// exactly the same bytes (the format has no field a save could recompute).
#include <algorithm>

#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto input = fuzz::bytes_of(data, size);
    try {
        const auto f = lfbloom::load_exact<lfbloom::classic_bloom_filter>(
            input, [](const lfbloom::byte_source& s, std::uint64_t n) { return lfbloom::load_guava(s, fuzz::memory_limit, n); });
        std::vector<std::byte> out;
        lfbloom::save_guava(f, lfbloom::vector_sink(out));
        if (!std::equal(out.begin(), out.end(), input.begin(), input.end())) fuzz::fail("re-saved Guava bytes differ");
    } catch (const lfbloom::error&) {
    }
    return 0;
}
