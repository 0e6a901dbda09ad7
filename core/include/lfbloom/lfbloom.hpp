// lfbloom: lock-free Bloom filters for many threads. Include this for everything.
//
// The headers, by role:
//   base/        what every filter stands on: errors, options, keys and MurmurHash3, sizing
//                formulas, the word storage and its atomics, the Sync policy, SIMD helpers
//   layouts/     where a key's bits go: blocked (the default), classic (Guava's), split-block
//                (Parquet's), one-/two-word
//   filters/     the filters: bloom_filter over a layout, the counting filter, the cuckoo filter
//                (and its bucket formats), and bulk builds
//   composites/  filters made of filters: scalable (grows), rotating (forgets), swappable
//   io/          files: the native format and Guava's and Parquet's, composites' files, filters
//                shared between processes
//   kinds.hpp    the one list of kinds, and any_filter over it
//   dynamic_filter.hpp  every kind behind one small interface (the C ABI and the CLI use it)
#pragma once

#include "lfbloom/base/error.hpp"
#include "lfbloom/base/key.hpp"
#include "lfbloom/base/murmur3.hpp"
#include "lfbloom/base/options.hpp"
#include "lfbloom/base/sizing.hpp"
#include "lfbloom/base/storage.hpp"
#include "lfbloom/composites/rotating_bloom_filter.hpp"
#include "lfbloom/composites/scalable_bloom_filter.hpp"
#include "lfbloom/composites/swappable_filter.hpp"
#include "lfbloom/filters/bloom_filter.hpp"
#include "lfbloom/filters/counting_bloom_filter.hpp"
#include "lfbloom/filters/cuckoo_filter.hpp"
#include "lfbloom/io/composite_format.hpp"
#include "lfbloom/io/serialization.hpp"
#include "lfbloom/io/shared_memory.hpp"
#include "lfbloom/kinds.hpp"

namespace lfbloom {
/// The default filter: blocked layout.
using filter = blocked_bloom_filter;
}  // namespace lfbloom
