/* `make bench` only: the start-up yardstick for omni. A C program linking the system libraries omni uses
 * (OpenSSL libssl and libcrypto, libsodium, libcurl, SQLite) and printing their versions as `omni version` does,
 * so its start time is what the loader and those libraries cost before any Swift runs. omni itself opens them on
 * first use (COmniShims/lazy_libraries.c), so `omni --version` pays for none of them and `omni version` for all.
 * Compiled by the Makefile into .build/bench/; never committed as a binary. */
#include <curl/curl.h>
#include <openssl/crypto.h>
#include <openssl/ssl.h>
#include <sodium.h>
#include <sqlite3.h>
#include <stdio.h>

int main(void) {
    if (sodium_init() < 0) return 70;
    const curl_version_info_data *curl = curl_version_info(CURLVERSION_NOW);
    /* TLS_method is libssl's: it keeps libssl a real dependency rather than one --as-needed may drop. */
    printf("OpenSSL:   %s (libssl %s)\n", OpenSSL_version(OPENSSL_VERSION), TLS_method() ? "loaded" : "missing");
    printf("libsodium: %s\n", sodium_version_string());
    printf("libcurl:   %s\n", curl ? curl->version : "unknown");
    printf("SQLite:    %s\n", sqlite3_libversion());
    return 0;
}
