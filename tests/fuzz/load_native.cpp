// Fuzz target: the native loader, layouts and composites. Any input either loads or throws
// lfbloom::error; nothing else (no crash, no sanitizer report, no allocation past the limit). A
// layout that loads must save back to the same bytes, except the two fields a save recomputes
// (slots set at 56, header checksum at 72); a composite must save back to as many bytes, which
// load again (its parts' headers recompute those fields, and a clock's tail is the save's time).
#include <algorithm>

#include "fuzz_support.hpp"
#include "lfbloom/dynamic_filter.hpp"

namespace {

std::unique_ptr<lfbloom::dynamic_filter> load(std::span<const std::byte> data) {
    return lfbloom::load_exact<std::unique_ptr<lfbloom::dynamic_filter>>(data, [](const lfbloom::byte_source& s, std::uint64_t n) {
        return lfbloom::load_filter(lfbloom::file_format::native, s, fuzz::memory_limit, n);
    });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto input = fuzz::bytes_of(data, size);
    try {
        const auto f = load(input);
        std::vector<std::byte> out;
        f->save(lfbloom::file_format::native, lfbloom::vector_sink(out));
        if (out.size() != input.size()) fuzz::fail("re-saved size differs");
        if (!lfbloom::is_layout(f->kind())) {
            if (load(out)->kind() != f->kind()) fuzz::fail("a re-saved composite loads as another kind");
            return 0;
        }
        for (std::size_t i = 0; i < out.size(); ++i)
            if (out[i] != input[i] && !(i >= 56 && i < 64) && !(i >= 72 && i < 80)) fuzz::fail("re-saved bytes differ");
    } catch (const lfbloom::error&) {
    }
    return 0;
}
