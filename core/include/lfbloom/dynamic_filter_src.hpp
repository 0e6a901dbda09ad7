// The source of dynamic_filter's separate compilation (dynamic_filter.hpp, at the top): a program
// that defines LFBLOOM_SEPARATE_DYNAMIC everywhere includes this, before any other lfbloom header,
// either in exactly one .cpp file, or in two with LFBLOOM_DYNAMIC_PART defined as 1 in one and 2
// in the other, which a parallel build compiles side by side. Part 1 holds held<F> of the layouts'
// classes (kinds.hpp's LFBLOOM_LAYOUT_CLASSES); part 2 held<F> of the composites and the makers,
// loaders and openers. The whole, or both parts, define everything the other sources only call.
#pragma once

#ifndef LFBLOOM_SEPARATE_DYNAMIC
#error "dynamic_filter_src.hpp is for programs built with LFBLOOM_SEPARATE_DYNAMIC defined"
#endif
#ifdef LFBLOOM_DYNAMIC_DEFINED_HERE
#error "include dynamic_filter_src.hpp before any other lfbloom header"
#endif
#if defined(LFBLOOM_DYNAMIC_PART) && LFBLOOM_DYNAMIC_PART != 1 && LFBLOOM_DYNAMIC_PART != 2
#error "LFBLOOM_DYNAMIC_PART is 1 or 2"
#endif

#if !defined(LFBLOOM_DYNAMIC_PART) || LFBLOOM_DYNAMIC_PART == 2
#define LFBLOOM_DYNAMIC_SOURCE  // the makers, loaders and openers are defined here
#endif
#include "lfbloom/dynamic_filter.hpp"

// Explicit instantiations, each after dynamic_filter.hpp's extern declaration of the same class.
namespace lfbloom::detail {
#define LFBLOOM_DETAIL_HELD(r, data, F) template class held<F>;
#if !defined(LFBLOOM_DYNAMIC_PART) || LFBLOOM_DYNAMIC_PART == 1
BOOST_PP_SEQ_FOR_EACH(LFBLOOM_DETAIL_HELD, _, LFBLOOM_LAYOUT_CLASSES)
#endif
#if !defined(LFBLOOM_DYNAMIC_PART) || LFBLOOM_DYNAMIC_PART == 2
BOOST_PP_SEQ_FOR_EACH(LFBLOOM_DETAIL_HELD, _, LFBLOOM_COMPOSITE_CLASSES)
#endif
#undef LFBLOOM_DETAIL_HELD
}  // namespace lfbloom::detail
