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
/* Bindings wrap the one handle (lfb_handle) and its generic calls only; the per-kind handles of
 * 1.0 to 1.4 stay for C callers. lfb_spec and lfb_info cross as proxy structs, their fields by name
 * and type (each language's compiler checks them), never as positional arrays; the constructors
 * below fill in struct_size (and lfb_spec's defaults), so no binding knows the C sizes. The
 * enums' constants are wrapped too, so no binding restates a status, kind or flag number. */
%rename("$ignore", regextarget=1) "^lfb_";
%rename("$ignore", regextarget=1) "^LFB_";
%rename("$ignore") lfb_options;
%rename("$ignore") lfb_stats;
%rename("$ignore") lfb_key;
%rename("$ignore") lfb_bit_array;
%rename("$ignore") lfb_batch;
#define LFB_WRAP(name) %rename("%s") name;
LFB_WRAP(lfb_version_string) LFB_WRAP(lfb_abi_version) LFB_WRAP(lfb_strerror) LFB_WRAP(lfb_last_error)
LFB_WRAP(lfb_status_name) %rename("%s", %$isfunction) lfb_status_class; LFB_WRAP(lfb_kind_name) LFB_WRAP(lfb_kind_parse)
LFB_WRAP(lfb_spec) LFB_WRAP(lfb_info)
LFB_WRAP(lfb_create) LFB_WRAP(lfb_free) %rename("%s", %$isfunction) lfb_kind; LFB_WRAP(lfb_add) LFB_WRAP(lfb_contains)
LFB_WRAP(lfb_remove) LFB_WRAP(lfb_count) LFB_WRAP(lfb_info_get) LFB_WRAP(lfb_geometry_get) LFB_WRAP(lfb_part_info)
LFB_WRAP(lfb_plan) LFB_WRAP(lfb_serialized_size) LFB_WRAP(lfb_save) LFB_WRAP(lfb_save_fd) LFB_WRAP(lfb_load)
LFB_WRAP(lfb_load_fd) LFB_WRAP(lfb_load_size) LFB_WRAP(lfb_load_size_kinds) LFB_WRAP(lfb_open_shared) LFB_WRAP(lfb_set_lock_timeout) LFB_WRAP(lfb_flush)
LFB_WRAP(lfb_copy) LFB_WRAP(lfb_equal) LFB_WRAP(lfb_union) LFB_WRAP(lfb_intersect) LFB_WRAP(lfb_clear)
LFB_WRAP(lfb_rotate) LFB_WRAP(lfb_tick) LFB_WRAP(lfb_create_swap) LFB_WRAP(lfb_stage) LFB_WRAP(lfb_add_staged)
LFB_WRAP(lfb_publish) LFB_WRAP(lfb_replace)
/* Constants: statuses and their classes, kinds, batch operations, formats, flags. */
/* The enum types are named apart from the functions lfb_kind and lfb_status_class. */
%rename("lfb_status_enum", %$isenum) lfb_status; %rename("lfb_status_class_enum", %$isenum) lfb_status_class;
%rename("lfb_kind_enum", %$isenum) lfb_kind; %rename("lfb_batch_op_enum", %$isenum) lfb_batch_op;
%rename("lfb_format_enum", %$isenum) lfb_format;
%rename("%s", regextarget=1) "^LFB_(OK|ERR_|CLASS_|KIND_|OP_|BATCH_|FORMAT_|SHARED_|ROTATING_|OPTION_|NATIVE_HEADER|GUAVA_HEADER)";
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
