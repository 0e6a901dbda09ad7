// Fuzz target: the native loader. Any input either loads or throws lfbloom::error; nothing else
// (no crash, no sanitizer report, no allocation past the limit). What loads must save back to the
// same bytes, except the two fields a save recomputes (slots set at 56, header checksum at 72).
#include <algorithm>

#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto input = fuzz::bytes_of(data, size);
    try {
        const lfbloom::any_filter f = lfbloom::load_exact<lfbloom::any_filter>(
            input, [](const lfbloom::byte_source& s, std::uint64_t n) { return lfbloom::load_any(s, fuzz::memory_limit, n); });
        std::vector<std::byte> out;
        std::visit([&](const auto& g) { lfbloom::save(g, lfbloom::vector_sink(out)); }, f);
        if (out.size() != input.size()) fuzz::fail("re-saved size differs");
        for (std::size_t i = 0; i < out.size(); ++i)
            if (out[i] != input[i] && !(i >= 56 && i < 64) && !(i >= 72 && i < 80)) fuzz::fail("re-saved bytes differ");
    } catch (const lfbloom::error&) {
    }
    return 0;
}
