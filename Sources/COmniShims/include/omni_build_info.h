// Build facts stamped by the Makefile (git commit, build date) without touching tracked files: `make` writes
// Sources/COmniShims/generated/build_info.h (ignored by git); without it the values read "unknown".
#ifndef OMNI_BUILD_INFO_H
#define OMNI_BUILD_INFO_H
const char *omni_build_commit(void);
const char *omni_build_date(void);
#endif
