/* host.h: facts about the host a result carries: kernel, KVM backend and parameters, CPU. */
#ifndef KB_HOST_H
#define KB_HOST_H

#include <json-c/json.h>

#include "kvm.h"

/* kvm may be NULL when /dev/kvm could not be opened. */
json_object *kb_host_json(struct kb_kvm *kvm);
/* Module parameters of 'module' under /sys/module, as an object of strings. */
json_object *kb_module_params_json(const char *module);

#endif
