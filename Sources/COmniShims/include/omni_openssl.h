// OpenSSL exposes some operations only as macros (OPENSSL_free, sk_X509_* stack helpers), which Swift cannot
// import. These wrappers make them callable.
#ifndef OMNI_OPENSSL_H
#define OMNI_OPENSSL_H
#include <openssl/crypto.h>
#include <openssl/x509.h>

void omni_openssl_free(void *pointer);
STACK_OF(X509) *omni_sk_x509_new_null(void);
int omni_sk_x509_push(STACK_OF(X509) *stack, X509 *certificate);
void omni_sk_x509_pop_free(STACK_OF(X509) *stack);
int omni_sk_x509_num(const STACK_OF(X509) *stack);
X509 *omni_sk_x509_value(const STACK_OF(X509) *stack, int index);
/// Frees the stack only (the certificates keep their own references).
void omni_sk_x509_free(STACK_OF(X509) *stack);
/// XN_FLAG_RFC2253 without ASN1_STRFLGS_ESC_MSB: RFC 2253/4514 names with non-ASCII kept as UTF-8.
/// (A composite macro Swift cannot import.)
unsigned long omni_xn_flags_rfc4514_utf8(void);
#endif
