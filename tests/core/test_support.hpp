// Helpers shared by the core tests: reproducible seeds and key generators.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <ostream>
#include <random>
#include <string>

#include <boost/math/distributions/binomial.hpp>
#include <boost/test/unit_test.hpp>

#include "lfbloom/base/error.hpp"

namespace lfbloom {
/// Lets BOOST_CHECK_EQUAL print error codes.
inline std::ostream& boost_test_print_type(std::ostream& os, errc code) { return os << "errc(" << static_cast<int>(code) << ")"; }
}  // namespace lfbloom

namespace lfbloom_test {

/// The seed of a randomized test: LFBLOOM_TEST_SEED if set, else the fixed default. Printed so
/// any failure can be replayed.
inline std::uint64_t seed_from_env(std::uint64_t fallback) {
    const char* env = std::getenv("LFBLOOM_TEST_SEED");
    const std::uint64_t seed = env != nullptr ? std::strtoull(env, nullptr, 10) : fallback;
    BOOST_TEST_MESSAGE("seed " << seed << " (replay with LFBLOOM_TEST_SEED=" << seed << ")");
    return seed;
}

/// Random 16-byte keys; two generators with different seeds give disjoint keys (collision odds 2^-128).
/// The count of false positives among `probes` absent keys that a filter of rate p exceeds with
/// probability `alpha` (a correct filter fails a test against it once in 1/alpha runs).
inline double fp_upper_bound(std::uint64_t probes, double p, double alpha = 1e-6) {
    return boost::math::quantile(
        boost::math::complement(boost::math::binomial_distribution<>(static_cast<double>(probes), p), alpha));
}

class random_keys {
public:
    explicit random_keys(std::uint64_t seed) : rng_(seed) {}
    std::string next() {
        std::string key(16, '\0');
        for (int half = 0; half < 2; ++half) {
            const std::uint64_t v = rng_();
            for (int b = 0; b < 8; ++b) key[half * 8 + b] = static_cast<char>(v >> (8 * b));
        }
        return key;
    }

private:
    std::mt19937_64 rng_;
};

/// The code of the lfbloom::error `body` throws, or errc{} if it throws none.
template <class Body>
lfbloom::errc code_of(Body body) {
    try {
        body();
    } catch (const lfbloom::error& e) {
        return e.code();
    }
    return lfbloom::errc{};
}

}  // namespace lfbloom_test
