// The one exception type of lfbloom's C++ core, with a code the C ABI maps one to one.
#pragma once

#include <stdexcept>
#include <string>

namespace lfbloom {

enum class errc {
    invalid_argument = 1,  ///< a parameter is outside its documented domain
    out_of_memory,         ///< the system refused the allocation
    too_large,             ///< the filter would exceed the memory limit or the machine
    incompatible,          ///< merge of filters with different geometry, layout or seed
    corrupt,               ///< serialized data fails validation
    unsupported_version,   ///< serialized data of an unknown format version or kind
    io,                    ///< reading or writing failed
    full,                  ///< a scalable filter reached its cap on sub-filters or memory; a cuckoo filter found no free slot
    read_only,             ///< a write to a filter opened read-only (the C ABI's read-only shared files)
    too_many_duplicates,   ///< a cuckoo filter holds 8 copies of the key's fingerprint in its buckets already
    ambiguous,             ///< a scalable cuckoo filter's remove of a key matching in two sub-filters: nothing removed
};

/// Thrown for every refused request. The filter it was thrown from is unchanged.
class error : public std::runtime_error {
public:
    error(errc code, const std::string& what) : std::runtime_error(what), code_(code) {}
    errc code() const noexcept { return code_; }

private:
    errc code_;
};

}  // namespace lfbloom
