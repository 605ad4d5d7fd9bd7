#include "omni_curl.h"
#include <dlfcn.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>
#include <pthread.h>
#include <stdio.h>

// libcurl's SONAME: stable since libcurl 7.16 (2006) for both the OpenSSL and GnuTLS builds Debian ships. The
// extra-CA shim below needs the OpenSSL one, which is what libcurl4-openssl-dev links as libcurl.so.
#ifdef __APPLE__
#define OMNI_CURL_LIBRARY "libcurl.4.dylib"
#else
#define OMNI_CURL_LIBRARY "libcurl.so.4"
#endif

// Every libcurl function omni calls. The table's member types come from <curl/curl.h> through __typeof__, so a
// wrapper cannot disagree with libcurl's own declaration; taking a declaration's type does not link the symbol.
#define OMNI_CURL_FUNCTIONS(X)                                                                                         \
    X(curl_global_init)                                                                                                \
    X(curl_version)                                                                                                    \
    X(curl_version_info)                                                                                               \
    X(curl_easy_init)                                                                                                  \
    X(curl_easy_cleanup)                                                                                               \
    X(curl_easy_perform)                                                                                               \
    X(curl_easy_recv)                                                                                                  \
    X(curl_easy_send)                                                                                                  \
    X(curl_easy_strerror)                                                                                              \
    X(curl_easy_setopt)                                                                                                \
    X(curl_easy_getinfo)                                                                                               \
    X(curl_multi_init)                                                                                                 \
    X(curl_multi_cleanup)                                                                                              \
    X(curl_multi_add_handle)                                                                                           \
    X(curl_multi_remove_handle)                                                                                        \
    X(curl_multi_perform)                                                                                              \
    X(curl_multi_poll)                                                                                                 \
    X(curl_multi_wakeup)                                                                                               \
    X(curl_multi_info_read)                                                                                            \
    X(curl_multi_strerror)                                                                                             \
    X(curl_multi_setopt)                                                                                               \
    X(curl_slist_append)                                                                                               \
    X(curl_slist_free_all)

// Members are prefixed: curl.h may define curl_easy_setopt and friends as function-like macros (its GCC type
// checks), which a call through `table.curl_easy_setopt(` would expand.
typedef struct {
#define OMNI_CURL_MEMBER(name) __typeof__(name) *fn_##name;
    OMNI_CURL_FUNCTIONS(OMNI_CURL_MEMBER)
#undef OMNI_CURL_MEMBER
} omni_curl_table;

static omni_curl_table loaded_table;
static const omni_curl_table *table_or_null;       // set once libcurl is open
static const omni_curl_table *initialised_or_null; // set once curl_global_init succeeded too
static char load_error[512];
static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static pthread_once_t init_once = PTHREAD_ONCE_INIT;

/// Opens `library` and fills `table`; 1 on success, else 0 with the reason in `error`. RTLD_LAZY as the loader
/// treats linked libraries: libcurl's dependencies bind their functions when first called, not all up front.
static int open_table(const char *library, omni_curl_table *table, char *error, size_t error_size) {
    void *handle = dlopen(library, RTLD_LAZY | RTLD_LOCAL);
    if (handle == NULL) {
        const char *reason = dlerror();
        snprintf(error, error_size, "cannot load libcurl (%s): %s", library, reason ? reason : "unknown error");
        return 0;
    }
#define OMNI_CURL_RESOLVE(name)                                                                                        \
    table->fn_##name = (__typeof__(table->fn_##name))dlsym(handle, #name);                                             \
    if (table->fn_##name == NULL) {                                                                                    \
        snprintf(error, error_size, "%s is not a usable libcurl: it has no %s", library, #name);                        \
        dlclose(handle);                                                                                               \
        return 0;                                                                                                      \
    }
    OMNI_CURL_FUNCTIONS(OMNI_CURL_RESOLVE)
#undef OMNI_CURL_RESOLVE
    return 1;
}

static void load_process_table(void) {
    if (open_table(OMNI_CURL_LIBRARY, &loaded_table, load_error, sizeof load_error)) table_or_null = &loaded_table;
}

/// libcurl, opened (enough for its version and error strings).
static const omni_curl_table *curl_table(void) {
    pthread_once(&load_once, load_process_table);
    return table_or_null;
}

static void initialise_process_table(void) {
    const omni_curl_table *t = curl_table();
    if (t == NULL) return;
    // Under pthread_once, before any handle exists: curl_global_init is not thread-safe in every libcurl build.
    // Not at opening: it initialises TLS and the other backends, which `omni version` does not need.
    CURLcode code = t->fn_curl_global_init(CURL_GLOBAL_DEFAULT);
    if (code != CURLE_OK) {
        const char *reason = t->fn_curl_easy_strerror(code);
        snprintf(load_error, sizeof load_error, "curl_global_init failed: %s", reason ? reason : "unknown error");
        return;
    }
    initialised_or_null = t;
}

/// libcurl, opened and initialised (needed before any handle is made).
static const omni_curl_table *curl_initialised_table(void) {
    pthread_once(&init_once, initialise_process_table);
    return initialised_or_null;
}

int omni_curl_is_available(void) { return curl_initialised_table() != NULL; }
const char *omni_curl_load_error(void) {
    curl_initialised_table();
    return load_error;
}
const char *omni_curl_library_name(void) { return OMNI_CURL_LIBRARY; }

int omni_curl_probe_library(const char *library, char *error, size_t error_size) {
    omni_curl_table table;
    if (error_size > 0) error[0] = '\0';
    return open_table(library, &table, error, error_size);
}

// MARK: - Wrappers. Without libcurl each fails as libcurl would: NULL, CURLE_FAILED_INIT or CURLM_INTERNAL_ERROR.

#define OMNI_CURL_TABLE_OR(failure)                                                                                    \
    const omni_curl_table *t = curl_table();                                                                           \
    if (t == NULL) return failure
// Handles are made only after curl_global_init; every other call takes a handle or needs no initialisation.
#define OMNI_CURL_INITIALISED_TABLE_OR(failure)                                                                        \
    const omni_curl_table *t = curl_initialised_table();                                                               \
    if (t == NULL) return failure

char *omni_curl_version(void) {
    OMNI_CURL_TABLE_OR(NULL);
    return t->fn_curl_version();
}
curl_version_info_data *omni_curl_version_info(CURLversion age) {
    OMNI_CURL_TABLE_OR(NULL);
    return t->fn_curl_version_info(age);
}
CURL *omni_curl_easy_init(void) {
    OMNI_CURL_INITIALISED_TABLE_OR(NULL);
    return t->fn_curl_easy_init();
}
void omni_curl_easy_cleanup(CURL *handle) {
    OMNI_CURL_TABLE_OR();
    t->fn_curl_easy_cleanup(handle);
}
CURLcode omni_curl_easy_perform(CURL *handle) {
    OMNI_CURL_TABLE_OR(CURLE_FAILED_INIT);
    return t->fn_curl_easy_perform(handle);
}
CURLcode omni_curl_easy_recv(CURL *handle, void *buffer, size_t length, size_t *received) {
    OMNI_CURL_TABLE_OR(CURLE_FAILED_INIT);
    return t->fn_curl_easy_recv(handle, buffer, length, received);
}
CURLcode omni_curl_easy_send(CURL *handle, const void *buffer, size_t length, size_t *sent) {
    OMNI_CURL_TABLE_OR(CURLE_FAILED_INIT);
    return t->fn_curl_easy_send(handle, buffer, length, sent);
}
const char *omni_curl_easy_strerror(CURLcode code) {
    OMNI_CURL_TABLE_OR(load_error);
    return t->fn_curl_easy_strerror(code);
}
CURLM *omni_curl_multi_init(void) {
    OMNI_CURL_INITIALISED_TABLE_OR(NULL);
    return t->fn_curl_multi_init();
}
CURLMcode omni_curl_multi_cleanup(CURLM *multi) {
    OMNI_CURL_TABLE_OR(CURLM_INTERNAL_ERROR);
    return t->fn_curl_multi_cleanup(multi);
}
CURLMcode omni_curl_multi_add_handle(CURLM *multi, CURL *handle) {
    OMNI_CURL_TABLE_OR(CURLM_INTERNAL_ERROR);
    return t->fn_curl_multi_add_handle(multi, handle);
}
CURLMcode omni_curl_multi_remove_handle(CURLM *multi, CURL *handle) {
    OMNI_CURL_TABLE_OR(CURLM_INTERNAL_ERROR);
    return t->fn_curl_multi_remove_handle(multi, handle);
}
CURLMcode omni_curl_multi_perform(CURLM *multi, int *running) {
    OMNI_CURL_TABLE_OR(CURLM_INTERNAL_ERROR);
    return t->fn_curl_multi_perform(multi, running);
}
CURLMcode omni_curl_multi_poll(CURLM *multi, struct curl_waitfd extra_fds[], unsigned int extra_count,
                               int timeout_ms, int *ready) {
    OMNI_CURL_TABLE_OR(CURLM_INTERNAL_ERROR);
    return t->fn_curl_multi_poll(multi, extra_fds, extra_count, timeout_ms, ready);
}
CURLMcode omni_curl_multi_wakeup(CURLM *multi) {
    OMNI_CURL_TABLE_OR(CURLM_INTERNAL_ERROR);
    return t->fn_curl_multi_wakeup(multi);
}
CURLMsg *omni_curl_multi_info_read(CURLM *multi, int *queued) {
    OMNI_CURL_TABLE_OR(NULL);
    return t->fn_curl_multi_info_read(multi, queued);
}
const char *omni_curl_multi_strerror(CURLMcode code) {
    OMNI_CURL_TABLE_OR(load_error);
    return t->fn_curl_multi_strerror(code);
}
struct curl_slist *omni_curl_slist_append(struct curl_slist *list, const char *text) {
    OMNI_CURL_TABLE_OR(NULL);
    return t->fn_curl_slist_append(list, text);
}
void omni_curl_slist_free_all(struct curl_slist *list) {
    OMNI_CURL_TABLE_OR();
    t->fn_curl_slist_free_all(list);
}

CURLcode omni_curl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    OMNI_CURL_TABLE_OR(CURLE_FAILED_INIT);
    return t->fn_curl_easy_setopt(handle, option, value);
}
CURLcode omni_curl_easy_setopt_off(CURL *handle, CURLoption option, curl_off_t value) {
    OMNI_CURL_TABLE_OR(CURLE_FAILED_INIT);
    return t->fn_curl_easy_setopt(handle, option, value);
}
CURLcode omni_curl_easy_setopt_pointer(CURL *handle, CURLoption option, const void *value) {
    OMNI_CURL_TABLE_OR(CURLE_FAILED_INIT);
    return t->fn_curl_easy_setopt(handle, option, value);
}
CURLcode omni_curl_easy_setopt_data_callback(CURL *handle, CURLoption option, omni_curl_data_callback callback) {
    OMNI_CURL_TABLE_OR(CURLE_FAILED_INIT);
    return t->fn_curl_easy_setopt(handle, option, callback);
}
CURLcode omni_curl_easy_setopt_xferinfo_callback(CURL *handle, omni_curl_xferinfo_callback callback) {
    OMNI_CURL_TABLE_OR(CURLE_FAILED_INIT);
    return t->fn_curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, callback);
}
CURLcode omni_curl_easy_setopt_debug_callback(CURL *handle, omni_curl_debug_callback callback) {
    OMNI_CURL_TABLE_OR(CURLE_FAILED_INIT);
    return t->fn_curl_easy_setopt(handle, CURLOPT_DEBUGFUNCTION, callback);
}
static CURLcode omni_curl_load_ca_file_into_store(CURL *handle, void *ssl_ctx, void *path) {
    (void)handle;
    X509_STORE *store = SSL_CTX_get_cert_store((SSL_CTX *)ssl_ctx);
    if (store == NULL || X509_STORE_load_file(store, (const char *)path) != 1) {
        ERR_clear_error();
        return CURLE_SSL_CACERT_BADFILE;
    }
    return CURLE_OK;
}
CURLcode omni_curl_easy_add_ca_file(CURL *handle, const char *path) {
    OMNI_CURL_TABLE_OR(CURLE_FAILED_INIT);
    CURLcode code = t->fn_curl_easy_setopt(handle, CURLOPT_SSL_CTX_DATA, (void *)path);
    if (code != CURLE_OK) return code;
    return t->fn_curl_easy_setopt(handle, CURLOPT_SSL_CTX_FUNCTION, omni_curl_load_ca_file_into_store);
}
CURLcode omni_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    OMNI_CURL_TABLE_OR(CURLE_FAILED_INIT);
    return t->fn_curl_easy_getinfo(handle, info, value);
}
CURLcode omni_curl_easy_getinfo_string(CURL *handle, CURLINFO info, const char **value) {
    OMNI_CURL_TABLE_OR(CURLE_FAILED_INIT);
    return t->fn_curl_easy_getinfo(handle, info, value);
}
CURLcode omni_curl_easy_getinfo_socket(CURL *handle, CURLINFO info, curl_socket_t *value) {
    OMNI_CURL_TABLE_OR(CURLE_FAILED_INIT);
    return t->fn_curl_easy_getinfo(handle, info, value);
}
CURLcode omni_curl_easy_getinfo_off(CURL *handle, CURLINFO info, curl_off_t *value) {
    OMNI_CURL_TABLE_OR(CURLE_FAILED_INIT);
    return t->fn_curl_easy_getinfo(handle, info, value);
}
CURLMcode omni_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    OMNI_CURL_TABLE_OR(CURLM_INTERNAL_ERROR);
    return t->fn_curl_multi_setopt(multi, option, value);
}
