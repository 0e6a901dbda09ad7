/*
 * The one SWIG interface of lfbloom, shared by the Java and Go bindings. It reads only lfbloom.h
 * and exposes a whitelist; the generated code is private to each binding, whose hand-written
 * layer is the public API.
 */
%module LfbNative

%{
#include "lfbloom.h"
%}

/* LP64: uint64_t is unsigned long, as the C compiler sees it (else casts to unsigned long long). */
#define SWIGWORDSIZE64
%include <stdint.i>

/* ---- the whitelist: nothing but what is renamed back below is wrapped ------------------------ */
%rename("$ignore", regextarget=1) "^lfb_";
%rename("$ignore", regextarget=1) "^LFB_";
%rename("$ignore") lfb_options;
%rename("$ignore") lfb_stats;
%rename("$ignore") lfb_key;
%rename("$ignore") lfb_bit_array;
#define LFB_WRAP(name) %rename("%s") name;
LFB_WRAP(lfb_version_string) LFB_WRAP(lfb_abi_version) LFB_WRAP(lfb_strerror) LFB_WRAP(lfb_last_error)
LFB_WRAP(lfb_filter_create) LFB_WRAP(lfb_filter_create_geometry) LFB_WRAP(lfb_filter_free)
LFB_WRAP(lfb_filter_add) LFB_WRAP(lfb_filter_contains) LFB_WRAP(lfb_filter_add_many) LFB_WRAP(lfb_filter_contains_many)
LFB_WRAP(lfb_filter_clear) LFB_WRAP(lfb_filter_merge) LFB_WRAP(lfb_filter_stats)
LFB_WRAP(lfb_filter_serialized_size) LFB_WRAP(lfb_filter_save) LFB_WRAP(lfb_filter_load)
LFB_WRAP(lfb_counting_create) LFB_WRAP(lfb_counting_create_geometry) LFB_WRAP(lfb_counting_free)
LFB_WRAP(lfb_counting_add) LFB_WRAP(lfb_counting_contains) LFB_WRAP(lfb_counting_add_many) LFB_WRAP(lfb_counting_contains_many)
LFB_WRAP(lfb_counting_remove) LFB_WRAP(lfb_counting_remove_many) LFB_WRAP(lfb_counting_count) LFB_WRAP(lfb_counting_clear) LFB_WRAP(lfb_counting_merge)
LFB_WRAP(lfb_counting_stats) LFB_WRAP(lfb_counting_serialized_size) LFB_WRAP(lfb_counting_save) LFB_WRAP(lfb_counting_load)
LFB_WRAP(lfb_filter_create_shared_file) LFB_WRAP(lfb_filter_open_shared_file) LFB_WRAP(lfb_filter_flush)
LFB_WRAP(lfb_counting_create_shared_file) LFB_WRAP(lfb_counting_open_shared_file) LFB_WRAP(lfb_counting_flush)
/* 1.1 */
LFB_WRAP(lfb_scalable_create) LFB_WRAP(lfb_scalable_free) LFB_WRAP(lfb_scalable_add) LFB_WRAP(lfb_scalable_contains)
LFB_WRAP(lfb_scalable_add_many) LFB_WRAP(lfb_scalable_contains_many) LFB_WRAP(lfb_scalable_filters)
LFB_WRAP(lfb_scalable_stats) LFB_WRAP(lfb_scalable_filter_stats) LFB_WRAP(lfb_rotating_create)
LFB_WRAP(lfb_rotating_free) LFB_WRAP(lfb_rotating_add) LFB_WRAP(lfb_rotating_contains)
LFB_WRAP(lfb_rotating_add_many) LFB_WRAP(lfb_rotating_contains_many) LFB_WRAP(lfb_rotating_rotate)
LFB_WRAP(lfb_rotating_tick) LFB_WRAP(lfb_rotating_rotations) LFB_WRAP(lfb_rotating_stats) LFB_WRAP(lfb_swap_create)
LFB_WRAP(lfb_swap_free) LFB_WRAP(lfb_swap_add) LFB_WRAP(lfb_swap_contains) LFB_WRAP(lfb_swap_add_many)
LFB_WRAP(lfb_swap_contains_many) LFB_WRAP(lfb_swap_stage) LFB_WRAP(lfb_swap_add_staged)
LFB_WRAP(lfb_swap_add_many_staged) LFB_WRAP(lfb_swap_publish) LFB_WRAP(lfb_swap_replace) LFB_WRAP(lfb_swap_stats)
LFB_WRAP(lfb_swap_generation)
/* 1.5: one handle for every kind. lfb_spec and lfb_info cross as proxy structs, their fields by
 * name and type (each language's compiler checks them), not as positional arrays; the
 * constructors below fill in struct_size (and lfb_spec's defaults), so no binding has to know
 * the C sizes. */
LFB_WRAP(lfb_spec) LFB_WRAP(lfb_info)
LFB_WRAP(lfb_create) LFB_WRAP(lfb_free) %rename("%s", %$isfunction) lfb_kind; LFB_WRAP(lfb_add) LFB_WRAP(lfb_contains)
LFB_WRAP(lfb_remove) LFB_WRAP(lfb_count) LFB_WRAP(lfb_info_get) LFB_WRAP(lfb_serialized_size)
LFB_WRAP(lfb_save) LFB_WRAP(lfb_load) LFB_WRAP(lfb_open_shared) LFB_WRAP(lfb_flush)
/* 1.6 */
LFB_WRAP(lfb_scalable_remove) LFB_WRAP(lfb_scalable_ambiguous_removes) LFB_WRAP(lfb_plan)
/* 1.8 */
LFB_WRAP(lfb_copy) LFB_WRAP(lfb_equal) LFB_WRAP(lfb_geometry_get) LFB_WRAP(lfb_union) LFB_WRAP(lfb_intersect)
/* 1.9 */
LFB_WRAP(lfb_clear) LFB_WRAP(lfb_swap_create_any) LFB_WRAP(lfb_swap_stage_any) LFB_WRAP(lfb_swap_replace_any)
%extend lfb_spec {
  lfb_spec() {
    lfb_spec* spec = (lfb_spec*)calloc(1, sizeof *spec);
    if (spec) lfb_spec_init_size(spec, sizeof *spec);
    return spec;
  }
}
%extend lfb_info {
  lfb_info() {
    lfb_info* info = (lfb_info*)calloc(1, sizeof *info);
    if (info) info->struct_size = sizeof *info;
    return info;
  }
}
%immutable lfb_spec::struct_size;
%immutable lfb_info::struct_size;

#if defined(SWIGJAVA)
%include "lfbloom_java.swg"
#elif defined(SWIGGO)
%include "lfbloom_go.swg"
#endif

%include "lfbloom.h"
