// C shims for the few C APIs Swift cannot call directly.
// Why each group exists is said at the top of its header; every symbol is prefixed omni_.
#ifndef COMNI_SHIMS_H
#define COMNI_SHIMS_H
#include "omni_curl.h"
#include "omni_openssl.h"
#include "omni_build_info.h"
#endif
