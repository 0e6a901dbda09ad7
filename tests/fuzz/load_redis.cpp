// Fuzz target: the Redis module's loaders, which take bytes from RDB files, LFBF.RESTORE (AOF),
// and BF.LOADCHUNK. Byte 0 picks one (BF chain, CBF, RBF value, or an lfbloom file of a BF key, as
// BF.SCANDUMP's pieces make it); the rest is its input. Any input either loads or throws
// lfbloom::error; nothing else (no crash, no sanitizer report, no allocation past the memory
// limit). What loads saves to bytes that load and save again unchanged.
#include <string>
#include <string_view>

#include "chain.hpp"
#include "counting.hpp"
#include "fuzz_support.hpp"
#include "rotating.hpp"

namespace {

template <class V>
void round_trip(std::string_view blob) {
    const std::string saved = V::serialize(*V::deserialize(blob));
    if (V::serialize(*V::deserialize(saved)) != saved) fuzz::fail("a loaded value does not save back to itself");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    lfbloom_redis::config.max_bytes = fuzz::memory_limit;
    const std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
    try {
        switch (data[0] % 4) {
            case 0: round_trip<lfbloom_redis::chain>(input); break;
            case 1: round_trip<lfbloom_redis::counter>(input); break;
            case 2: round_trip<lfbloom_redis::window>(input); break;
            default: {
                const std::string file = lfbloom_redis::file_of(*lfbloom_redis::import_file(input));
                try {
                    if (lfbloom_redis::file_of(*lfbloom_redis::import_file(file)) != file) fuzz::fail("a loaded file does not save back to itself");
                } catch (const lfbloom::error&) {
                    fuzz::fail("the file of a loaded key does not load");
                }
            }
        }
    } catch (const lfbloom::error&) {
    }
    return 0;
}
