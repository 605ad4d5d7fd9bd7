// libcurl, opened on first use instead of linked.
//
// Most omni commands never touch the network, and linking libcurl made every start map it and its ~30 dependencies
// (GnuTLS, Kerberos, LDAP, SSH, …), relocate them and run their initialisers: about 4 ms and 4 MiB of every
// start. So nothing links libcurl: every omni_curl_* function below opens it with dlopen on first use (once,
// thread-safe) and calls through a table of its functions; curl_global_init runs once, before the first handle
// is made (omni_curl_easy_init, omni_curl_multi_init, omni_curl_is_available). When libcurl cannot be opened each
// function fails the way libcurl itself reports failure (NULL, CURLE_FAILED_INIT, CURLM_INTERNAL_ERROR) and
// omni_curl_load_error() says why. Types and constants still come from <curl/curl.h>.
//
// libcurl's curl_easy_setopt, curl_easy_getinfo and curl_multi_setopt are variadic, and Swift refuses to call
// variadic C functions ("Variadic function is unavailable"). Their wrappers fix one argument type each.
#ifndef OMNI_CURL_H
#define OMNI_CURL_H
#include <curl/curl.h>
#include <stddef.h>

/// 1 when libcurl is loaded and initialised (loading it now if this is the first use), else 0.
int omni_curl_is_available(void);
/// Why libcurl could not be loaded (which library, which symbol, dlerror's text); "" while none failed.
const char *omni_curl_load_error(void);
/// The library name omni opens (its SONAME), for messages.
const char *omni_curl_library_name(void);
/// Opens `library` and resolves every function omni needs, without touching the process-wide table and without
/// initialising it. Returns 1 when all were found, else 0 with the reason in `error`. For tests of the failure
/// paths; a library it found stays loaded.
int omni_curl_probe_library(const char *library, char *error, size_t error_size);

// libcurl's functions, one wrapper each (same arguments and results).
char *omni_curl_version(void);
curl_version_info_data *omni_curl_version_info(CURLversion age);
CURL *omni_curl_easy_init(void);
void omni_curl_easy_cleanup(CURL *handle);
CURLcode omni_curl_easy_perform(CURL *handle);
CURLcode omni_curl_easy_recv(CURL *handle, void *buffer, size_t length, size_t *received);
CURLcode omni_curl_easy_send(CURL *handle, const void *buffer, size_t length, size_t *sent);
const char *omni_curl_easy_strerror(CURLcode code);
CURLM *omni_curl_multi_init(void);
CURLMcode omni_curl_multi_cleanup(CURLM *multi);
CURLMcode omni_curl_multi_add_handle(CURLM *multi, CURL *handle);
CURLMcode omni_curl_multi_remove_handle(CURLM *multi, CURL *handle);
CURLMcode omni_curl_multi_perform(CURLM *multi, int *running);
CURLMcode omni_curl_multi_poll(CURLM *multi, struct curl_waitfd extra_fds[], unsigned int extra_count,
                               int timeout_ms, int *ready);
CURLMcode omni_curl_multi_wakeup(CURLM *multi);
CURLMsg *omni_curl_multi_info_read(CURLM *multi, int *queued);
const char *omni_curl_multi_strerror(CURLMcode code);
struct curl_slist *omni_curl_slist_append(struct curl_slist *list, const char *text);
void omni_curl_slist_free_all(struct curl_slist *list);

typedef size_t (*omni_curl_data_callback)(char *data, size_t size, size_t count, void *userdata);
typedef int (*omni_curl_xferinfo_callback)(void *userdata, curl_off_t dltotal, curl_off_t dlnow,
                                           curl_off_t ultotal, curl_off_t ulnow);
typedef int (*omni_curl_debug_callback)(CURL *handle, curl_infotype type, char *data, size_t size, void *userdata);

CURLcode omni_curl_easy_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode omni_curl_easy_setopt_off(CURL *handle, CURLoption option, curl_off_t value);
/// Strings (copied by libcurl), curl_slist pointers and userdata pointers.
CURLcode omni_curl_easy_setopt_pointer(CURL *handle, CURLoption option, const void *value);
/// WRITEFUNCTION, HEADERFUNCTION and READFUNCTION share this signature.
CURLcode omni_curl_easy_setopt_data_callback(CURL *handle, CURLoption option, omni_curl_data_callback callback);
CURLcode omni_curl_easy_setopt_xferinfo_callback(CURL *handle, omni_curl_xferinfo_callback callback);
CURLcode omni_curl_easy_setopt_debug_callback(CURL *handle, omni_curl_debug_callback callback);
/// Adds the PEM certificates in `path` to the trust store libcurl has already built for each TLS connection
/// (through CURLOPT_SSL_CTX_FUNCTION, OpenSSL backend only), so an extra CA file extends the system store instead
/// of replacing it as CURLOPT_CAINFO would. `path` must stay valid while the handle is in use.
CURLcode omni_curl_easy_add_ca_file(CURL *handle, const char *path);

CURLcode omni_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value);
CURLcode omni_curl_easy_getinfo_string(CURL *handle, CURLINFO info, const char **value);
CURLcode omni_curl_easy_getinfo_socket(CURL *handle, CURLINFO info, curl_socket_t *value);
CURLcode omni_curl_easy_getinfo_off(CURL *handle, CURLINFO info, curl_off_t *value);

CURLMcode omni_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value);
#endif
