// OpenSSL, libsodium and SQLite, opened on first use instead of linked.
//
// Linked, the loader maps libcrypto, libssl, libsodium and libsqlite3 at every start and binds them all up front
// (Debian builds them with BIND_NOW): about 5 million instructions and 2 MiB of every start, half of what
// `omni --version` cost, for commands such as `omni --help` or `omni candid encode` that never use them. So omni
// does not link them. lazy_trampolines.S defines every function omni calls (lazy_symbols.h) as a trampoline that,
// on its first call, comes here: the library is opened once (dlopen of its SONAME, the same file the loader would
// have used), the function looked up and stored in the trampoline's slot; later calls jump straight to it. The
// headers and types are still the libraries' own. A library that cannot be opened ends omni with a message that
// names it, as the loader would have refused to start.
#if defined(__linux__) && (defined(__x86_64__) || defined(__aarch64__))
#include "lazy_symbols.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/// Laid out by lazy_trampolines.S: one per function.
struct omni_lazy_slot {
    void *function;
    long library;
    char name[];
};

/// SONAMEs (what the loader would look for); the packages that provide them are named in the error message.
static const struct {
    const char *soname;
    const char *package;
} libraries[] = {
    [OMNI_LAZY_CRYPTO] = {"libcrypto.so.3", "OpenSSL 3 (Debian: libssl3)"},
    [OMNI_LAZY_SSL] = {"libssl.so.3", "OpenSSL 3 (Debian: libssl3)"},
    [OMNI_LAZY_SODIUM] = {"libsodium.so.23", "libsodium (Debian: libsodium23)"},
    [OMNI_LAZY_SQLITE] = {"libsqlite3.so.0", "SQLite 3 (Debian: libsqlite3-0)"},
};
#define OMNI_LAZY_LIBRARY_COUNT (sizeof libraries / sizeof libraries[0])

static void *handles[OMNI_LAZY_LIBRARY_COUNT];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void fail(const char *what, const char *name, const char *soname, const char *package) {
    const char *reason = dlerror();
    // stderr may be buffered by Swift's runtime; write(2) reaches it whatever state stdio is in.
    char message[768];
    int length = snprintf(message, sizeof message, "omni: %s %s (for %s): %s; install %s\n", what, soname, name,
                          reason ? reason : "unknown error", package);
    if (length > 0) (void)!write(2, message, (size_t)length < sizeof message ? (size_t)length : sizeof message - 1);
    _exit(70);
}

__attribute__((visibility("hidden"))) void *omni_lazy_resolve(struct omni_lazy_slot *slot) {
    void *function = __atomic_load_n(&slot->function, __ATOMIC_ACQUIRE);
    if (function != NULL) return function;
    const long library = slot->library;
    pthread_mutex_lock(&lock);
    if (handles[library] == NULL) {
        // libcurl, opened later, loads the same libssl and libcrypto objects (one OpenSSL state): same SONAMEs.
        handles[library] = dlopen(libraries[library].soname, RTLD_NOW | RTLD_LOCAL);
        if (handles[library] == NULL) fail("cannot load", slot->name, libraries[library].soname, libraries[library].package);
    }
    function = dlsym(handles[library], slot->name);
    if (function == NULL) fail("cannot find the function in", slot->name, libraries[library].soname, libraries[library].package);
    __atomic_store_n(&slot->function, function, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&lock);
    return function;
}

#endif
