// Fuzz target: the Redis module's loaders, which take bytes from RDB files, LFBF.RESTORE (AOF),
// and BF.LOADCHUNK. Byte 0 picks one (BF chain, CBF, RBF value, or an lfbloom file of a BF key, as
// BF.SCANDUMP's pieces make it; 4: a CF value, whole or being loaded; 5: an lfbloom file of a CF
// key, as CF.SCANDUMP's pieces make it and CF.LOADCHUNK and LFBF.RESTORE take it); the rest is
// its input. Any input either loads or throws
// lfbloom::error; nothing else (no crash, no sanitizer report, no allocation past the memory
// limit). What loads saves to bytes that load and save again unchanged.
#include <memory>
#include <string>
#include <string_view>

#include "chain.hpp"
#include "counting.hpp"
#include "cuckoo.hpp"
#include "fuzz_support.hpp"
#include "rotating.hpp"

namespace {

/// BF.LOADCHUNK's way: `file` in pieces of `step` bytes after the first, the key saved and loaded
/// again (RDB, AOF rewrite) halfway through.
std::unique_ptr<lfbloom_redis::chain> in_pieces(std::string_view file, std::size_t step) {
    auto [c, f] = lfbloom_redis::begin_import(file.substr(0, lfbloom_redis::first_piece));
    c->loading = std::move(f);
    for (std::size_t at = lfbloom_redis::first_piece; at < file.size(); at += step) {
        if (at / step == file.size() / step / 2) c = lfbloom_redis::chain::deserialize(lfbloom_redis::chain::serialize(*c));
        lfbloom_redis::take(*c, *c->loading, file.substr(at, step));
    }
    if (c->loading->expect != lfbloom_redis::file_import::next::done) fuzz::fail("a whole file left its load unfinished");
    return std::move(c);
}

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
        if (data[0] == 4) {  // a CF value; 4 meant a BF value as 0 does, and no seed starts with it
            round_trip<lfbloom_redis::cuckoo_chain>(input);
            return 0;
        }
        if (data[0] == 5) {  // a CF key's file: what loads writes a file that loads to the same file
            using lfbloom_redis::cuckoo_chain;
            const auto file_of = [](const cuckoo_chain& c) {
                std::string out;
                c.write_file([&](const char* d, std::size_t n) { out.append(d, n); });
                return out;
            };
            const std::string file = file_of(*cuckoo_chain::import_file(input, 2, 20));
            try {
                if (file_of(*cuckoo_chain::import_file(file, 2, 20)) != file) fuzz::fail("a CF key's file does not load back to itself");
            } catch (const lfbloom::error&) {
                fuzz::fail("the file of a CF key does not load");
            }
            return 0;
        }
        switch (data[0] % 4) {
            case 0: round_trip<lfbloom_redis::chain>(input); break;
            case 1: round_trip<lfbloom_redis::counter>(input); break;
            case 2: round_trip<lfbloom_redis::window>(input); break;
            default: {
                const std::string file = lfbloom_redis::file_of(*lfbloom_redis::import_file(input));
                try {
                    if (lfbloom_redis::file_of(*lfbloom_redis::import_file(file)) != file) fuzz::fail("a loaded file does not save back to itself");
                    if (lfbloom_redis::file_of(*in_pieces(file, 8 * (1 + input.size() % 37))) != file)
                        fuzz::fail("a file loaded in pieces differs from the file loaded whole");
                } catch (const lfbloom::error&) {
                    fuzz::fail("the file of a loaded key does not load, whole or in pieces");
                }
            }
        }
    } catch (const lfbloom::error&) {
    }
    return 0;
}
