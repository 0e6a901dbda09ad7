// This build's one copy of every kind behind dynamic_filter (see LFBLOOM_SEPARATE_DYNAMIC in
// lfbloom/dynamic_filter.hpp): the C ABI, the command-line tool, the tests and the stress programs
// link it instead of compiling it into each of their sources.
#include "lfbloom/dynamic_filter_src.hpp"
