#include "omni_curl.h"
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>

CURLcode omni_curl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}
CURLcode omni_curl_easy_setopt_off(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}
CURLcode omni_curl_easy_setopt_pointer(CURL *handle, CURLoption option, const void *value) {
    return curl_easy_setopt(handle, option, value);
}
CURLcode omni_curl_easy_setopt_data_callback(CURL *handle, CURLoption option, omni_curl_data_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}
CURLcode omni_curl_easy_setopt_xferinfo_callback(CURL *handle, omni_curl_xferinfo_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, callback);
}
CURLcode omni_curl_easy_setopt_debug_callback(CURL *handle, omni_curl_debug_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_DEBUGFUNCTION, callback);
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
    CURLcode code = curl_easy_setopt(handle, CURLOPT_SSL_CTX_DATA, (void *)path);
    if (code != CURLE_OK) return code;
    return curl_easy_setopt(handle, CURLOPT_SSL_CTX_FUNCTION, omni_curl_load_ca_file_into_store);
}
CURLcode omni_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}
CURLcode omni_curl_easy_getinfo_string(CURL *handle, CURLINFO info, const char **value) {
    return curl_easy_getinfo(handle, info, value);
}
CURLcode omni_curl_easy_getinfo_socket(CURL *handle, CURLINFO info, curl_socket_t *value) {
    return curl_easy_getinfo(handle, info, value);
}
CURLcode omni_curl_easy_getinfo_off(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}
CURLMcode omni_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}
