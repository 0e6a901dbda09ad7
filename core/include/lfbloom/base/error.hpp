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
    ambiguous,             ///< a scalable cuckoo filter's remove of a key matching in two sub-filters, its list of pending removes full: nothing removed
    timeout,               ///< a writer of a shared cuckoo filter waited longer than its lock timeout
};

/// How a status should reach a user (the C ABI's enum lfb_status_class).
enum class status_class {
    ok = 0,
    argument = 1,  ///< the caller's mistake: a bad argument
    refusal = 2,   ///< the filter declined, as designed: full, too many duplicates, ambiguous, not present
    data = 3,      ///< the data or filters given do not fit: corrupt, unsupported, incompatible
    resource = 4,  ///< memory, size limits, I/O
    state = 5,     ///< the filter's state forbids it: read-only
    bug = 6,       ///< a bug in lfbloom
};

/// One status of the C ABI (enum lfb_status): its number, the errc it reports (none for ok,
/// not_present and internal), its name (the C name's lower-case tail), class and text.
struct status_entry {
    int status;
    errc code;
    const char* name;
    status_class kind;
    const char* text;
};

/// The one table of statuses: the C ABI's lfb_strerror, lfb_status_name and lfb_status_class read
/// it, and through them every binding's errors. Numbers are never renumbered or reused.
inline constexpr status_entry status_table[] = {
    {0, errc{}, "ok", status_class::ok, "success"},
    {-1, errc::invalid_argument, "invalid_argument", status_class::argument, "invalid argument"},
    {-2, errc::out_of_memory, "out_of_memory", status_class::resource, "out of memory"},
    {-3, errc::too_large, "too_large", status_class::resource, "filter too large for the memory limit or the machine"},
    {-4, errc::incompatible, "incompatible", status_class::data, "incompatible filters"},
    {-5, errc{}, "not_present", status_class::refusal, "key not present"},
    {-6, errc::corrupt, "corrupt", status_class::data, "corrupt data"},
    {-7, errc::unsupported_version, "unsupported_version", status_class::data, "unsupported version"},
    {-8, errc::io, "io", status_class::resource, "I/O error"},
    {-9, errc{}, "internal", status_class::bug, "internal error"},
    {-10, errc::full, "full", status_class::refusal,
     "filter full: a scalable filter's cap on sub-filters or memory, or no free slot in a cuckoo filter"},
    {-11, errc::read_only, "read_only", status_class::state, "the filter was opened read-only"},
    {-12, errc::too_many_duplicates, "too_many_duplicates", status_class::refusal,
     "too many copies of the key's fingerprint in the cuckoo filter"},
    {-13, errc::ambiguous, "ambiguous", status_class::refusal,
     "the key matches in two sub-filters and too many removes wait already: nothing removed, so no other key is lost"},
    {-14, errc::timeout, "timeout", status_class::resource,
     "a writer waited longer than the lock timeout for a lock another thread or process of the shared filter holds"},
};

/// The table's row for `status`, or null.
constexpr const status_entry* find_status(int status) noexcept {
    for (const status_entry& e : status_table)
        if (e.status == status) return &e;
    return nullptr;
}

/// The status an error code is reported as.
constexpr int status_of(errc code) noexcept {
    for (const status_entry& e : status_table)
        if (e.code == code && e.code != errc{}) return e.status;
    return -9;  // internal: every errc has a row, so only a bug gets here
}

/// Thrown for every refused request. The filter it was thrown from is unchanged.
class error : public std::runtime_error {
public:
    error(errc code, const std::string& what) : std::runtime_error(what), code_(code) {}
    errc code() const noexcept { return code_; }

private:
    errc code_;
};

}  // namespace lfbloom
