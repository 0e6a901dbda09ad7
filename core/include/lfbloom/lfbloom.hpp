// lfbloom: lock-free Bloom filters for many threads. Include this for everything.
#pragma once

#include "lfbloom/bloom_filter.hpp"
#include "lfbloom/composite_format.hpp"
#include "lfbloom/counting_bloom_filter.hpp"
#include "lfbloom/cuckoo_filter.hpp"
#include "lfbloom/error.hpp"
#include "lfbloom/key.hpp"
#include "lfbloom/kinds.hpp"
#include "lfbloom/murmur3.hpp"
#include "lfbloom/options.hpp"
#include "lfbloom/rotating_bloom_filter.hpp"
#include "lfbloom/scalable_bloom_filter.hpp"
#include "lfbloom/serialization.hpp"
#include "lfbloom/shared_memory.hpp"
#include "lfbloom/sizing.hpp"
#include "lfbloom/storage.hpp"
#include "lfbloom/swappable_filter.hpp"

namespace lfbloom {
/// The default filter: blocked layout.
using filter = blocked_bloom_filter;
}  // namespace lfbloom
