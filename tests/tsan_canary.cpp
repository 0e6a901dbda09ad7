// The ThreadSanitizer canary: a deliberate data race between a plain read and lfbloom's atomic
// read-modify-write of the same word. TSan reports it only if it sees our RMW, so a TSan build
// that stays silent here means our atomics are invisible to it (as Boost.Atomic's inline-assembly
// opaque_or / bit_test_and_set are) and the rest of the TSan run proves nothing. ctest passes this
// program only when TSan prints its data race report.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <thread>

#include "lfbloom/base/storage.hpp"
#include "lfbloom/filters/counting_bloom_filter.hpp"

int main(int argc, char** argv) {
    const bool counters = argc > 1 && std::strcmp(argv[1], "counters") == 0;
    alignas(64) std::uint64_t word = 0;
    std::uint64_t sum = 0;
    std::thread reader([&] {
        for (int i = 0; i < 1000; ++i) sum += *static_cast<volatile std::uint64_t*>(&word);  // the plain, racy read
    });
    std::thread writer([&] {
        for (unsigned bit = 0; bit < 64; ++bit) {
            if (counters)  // the counting filter's CAS loop
                lfbloom::update_word(word, [&](std::uint64_t old, std::uint64_t& next) { return next = old + 1, true; });
            else  // the bit filters' fetch_or (a new bit each time, so the RMW always runs)
                lfbloom::set_bits(word, std::uint64_t{1} << bit);
        }
    });
    reader.join();
    writer.join();
    std::printf("canary finished (%llu); under TSan a data race must have been reported above\n",
                static_cast<unsigned long long>(sum));
    return 0;
}
