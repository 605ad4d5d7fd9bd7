// libcurl's curl_easy_setopt, curl_easy_getinfo and curl_multi_setopt are variadic, and Swift refuses to call
// variadic C functions ("Variadic function is unavailable"). These wrappers fix one argument type each.
#ifndef OMNI_CURL_H
#define OMNI_CURL_H
#include <curl/curl.h>

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
