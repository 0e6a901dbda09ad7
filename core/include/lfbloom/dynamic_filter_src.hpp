// The one source of dynamic_filter's separate compilation (dynamic_filter.hpp, at the top): a
// program that defines LFBLOOM_SEPARATE_DYNAMIC everywhere includes this in exactly one .cpp file,
// before any other lfbloom header. That file then holds held<F> of every kind and the makers,
// loaders and openers; the other sources only call them.
#pragma once

#ifndef LFBLOOM_SEPARATE_DYNAMIC
#error "dynamic_filter_src.hpp is for programs built with LFBLOOM_SEPARATE_DYNAMIC defined"
#endif
#ifdef LFBLOOM_DYNAMIC_DEFINED_HERE
#error "include dynamic_filter_src.hpp before any other lfbloom header"
#endif

#define LFBLOOM_DYNAMIC_SOURCE
#include "lfbloom/dynamic_filter.hpp"

namespace lfbloom::detail {
#define LFBLOOM_DETAIL_HELD(r, data, F) template class held<F>;
BOOST_PP_SEQ_FOR_EACH(LFBLOOM_DETAIL_HELD, _, LFBLOOM_HELD_CLASSES)
#undef LFBLOOM_DETAIL_HELD
}  // namespace lfbloom::detail
