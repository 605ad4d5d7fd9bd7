// BLS12-381 arithmetic in C (Montgomery field, towers, curve groups, pairing). Public API is Swift (OmniBLS).
#ifndef CBLS12381_H
#define CBLS12381_H
#include <stdint.h>
#include <stddef.h>
#endif
