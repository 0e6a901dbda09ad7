// The second part of this build's one copy of every kind behind dynamic_filter (dynamic_layouts.cpp
// has the first): held<F> of the composites, and make_filter, plan, load_filter and open_shared.
#define LFBLOOM_DYNAMIC_PART 2
#include "lfbloom/dynamic_filter_src.hpp"
