// This build's one copy of every kind behind dynamic_filter (see LFBLOOM_SEPARATE_DYNAMIC in
// lfbloom/dynamic_filter.hpp), in two sources that compile side by side: here held<F> of the
// layouts' classes, in dynamic_composites.cpp the composites' and the makers and loaders. The C
// ABI, the command-line tool, the tests and the stress programs link them.
#define LFBLOOM_DYNAMIC_PART 1
#include "lfbloom/dynamic_filter_src.hpp"
