#include "omni_openssl.h"

void omni_openssl_free(void *pointer) { OPENSSL_free(pointer); }
STACK_OF(X509) *omni_sk_x509_new_null(void) { return sk_X509_new_null(); }
int omni_sk_x509_push(STACK_OF(X509) *stack, X509 *certificate) { return sk_X509_push(stack, certificate); }
void omni_sk_x509_pop_free(STACK_OF(X509) *stack) { sk_X509_pop_free(stack, X509_free); }
int omni_sk_x509_num(const STACK_OF(X509) *stack) { return sk_X509_num(stack); }
X509 *omni_sk_x509_value(const STACK_OF(X509) *stack, int index) { return sk_X509_value(stack, index); }
void omni_sk_x509_free(STACK_OF(X509) *stack) { sk_X509_free(stack); }
unsigned long omni_xn_flags_rfc4514_utf8(void) { return XN_FLAG_RFC2253 & ~ASN1_STRFLGS_ESC_MSB; }
