#include "omni_build_info.h"
#if __has_include("generated/build_info.h")
#include "generated/build_info.h"
#endif
#ifndef OMNI_BUILD_COMMIT
#define OMNI_BUILD_COMMIT "unknown"
#endif
#ifndef OMNI_BUILD_DATE
#define OMNI_BUILD_DATE "unknown"
#endif
const char *omni_build_commit(void) { return OMNI_BUILD_COMMIT; }
const char *omni_build_date(void) { return OMNI_BUILD_DATE; }
