// Short-Weierstrass (a = 0) group law in Jacobian coordinates (x = X/Z², y = Y/Z³, identity: Z = 0),
// instantiated once over Fp (G1) and once over Fp2 (G2). Before including, define:
//   F            the field type            FOP(op)   the field operation, e.g. fp_##op
//   G(name)      the group's name prefix   AFFINE    the affine point type
//   CURVE_B      the constant b            FIELD_ONE the field's 1
// Additions handle P = Q and P = −Q explicitly, so the formulas are complete (needed for points of small
// order during subgroup checks). Variable time: only public data is processed.

typedef struct { F x, y, z; } G(jac);

// Not every instantiation uses every operation.
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wunused-function"

static inline int G(jac_is_infinity)(const G(jac) *a) { return FOP(is_zero)(&a->z); }

static inline void G(jac_set_infinity)(G(jac) *r) {
    r->x = FIELD_ONE;
    r->y = FIELD_ONE;
    r->z = (F){0};
}

static inline void G(from_affine)(G(jac) *r, const AFFINE *a) {
    if (a->infinity) {
        G(jac_set_infinity)(r);
        return;
    }
    r->x = a->x;
    r->y = a->y;
    r->z = FIELD_ONE;
}

/// dbl-2009-l: 1M + 5S.
static void G(dbl)(G(jac) *r, const G(jac) *a) {
    if (G(jac_is_infinity)(a)) {
        *r = *a;
        return;
    }
    F A, B, C, D, E, Fs, t, z3;
    FOP(sqr)(&A, &a->x);
    FOP(sqr)(&B, &a->y);
    FOP(sqr)(&C, &B);
    FOP(add)(&D, &a->x, &B);
    FOP(sqr)(&D, &D);
    FOP(sub)(&D, &D, &A);
    FOP(sub)(&D, &D, &C);
    FOP(dbl)(&D, &D);
    FOP(dbl)(&E, &A);
    FOP(add)(&E, &E, &A);
    FOP(sqr)(&Fs, &E);
    FOP(mul)(&z3, &a->y, &a->z);
    FOP(dbl)(&r->z, &z3);
    FOP(dbl)(&t, &D);
    FOP(sub)(&r->x, &Fs, &t);
    FOP(sub)(&t, &D, &r->x);
    FOP(mul)(&t, &E, &t);
    FOP(dbl)(&C, &C);
    FOP(dbl)(&C, &C);
    FOP(dbl)(&C, &C);
    FOP(sub)(&r->y, &t, &C);
}

/// add-2007-bl: 11M + 5S.
static void G(add)(G(jac) *r, const G(jac) *a, const G(jac) *b) {
    if (G(jac_is_infinity)(a)) {
        *r = *b;
        return;
    }
    if (G(jac_is_infinity)(b)) {
        *r = *a;
        return;
    }
    F z1z1, z2z2, u1, u2, s1, s2, h, i, j, rr, v, t;
    FOP(sqr)(&z1z1, &a->z);
    FOP(sqr)(&z2z2, &b->z);
    FOP(mul)(&u1, &a->x, &z2z2);
    FOP(mul)(&u2, &b->x, &z1z1);
    FOP(mul)(&s1, &a->y, &b->z);
    FOP(mul)(&s1, &s1, &z2z2);
    FOP(mul)(&s2, &b->y, &a->z);
    FOP(mul)(&s2, &s2, &z1z1);
    FOP(sub)(&h, &u2, &u1);
    FOP(sub)(&rr, &s2, &s1);
    if (FOP(is_zero)(&h)) {
        if (FOP(is_zero)(&rr)) G(dbl)(r, a);
        else G(jac_set_infinity)(r);
        return;
    }
    FOP(dbl)(&i, &h);
    FOP(sqr)(&i, &i);
    FOP(mul)(&j, &h, &i);
    FOP(dbl)(&rr, &rr);
    FOP(mul)(&v, &u1, &i);
    F z3;
    FOP(add)(&z3, &a->z, &b->z);
    FOP(sqr)(&z3, &z3);
    FOP(sub)(&z3, &z3, &z1z1);
    FOP(sub)(&z3, &z3, &z2z2);
    FOP(mul)(&r->z, &z3, &h);
    FOP(sqr)(&t, &rr);
    FOP(sub)(&t, &t, &j);
    FOP(sub)(&t, &t, &v);
    FOP(sub)(&r->x, &t, &v);
    FOP(sub)(&t, &v, &r->x);
    FOP(mul)(&t, &rr, &t);
    FOP(mul)(&s1, &s1, &j);
    FOP(dbl)(&s1, &s1);
    FOP(sub)(&r->y, &t, &s1);
}

/// madd-2007-bl (b affine): 7M + 4S.
static void G(add_affine)(G(jac) *r, const G(jac) *a, const AFFINE *b) {
    if (b->infinity) {
        *r = *a;
        return;
    }
    if (G(jac_is_infinity)(a)) {
        G(from_affine)(r, b);
        return;
    }
    F z1z1, u2, s2, h, hh, i, j, rr, v, t;
    FOP(sqr)(&z1z1, &a->z);
    FOP(mul)(&u2, &b->x, &z1z1);
    FOP(mul)(&s2, &b->y, &a->z);
    FOP(mul)(&s2, &s2, &z1z1);
    FOP(sub)(&h, &u2, &a->x);
    FOP(sub)(&rr, &s2, &a->y);
    if (FOP(is_zero)(&h)) {
        if (FOP(is_zero)(&rr)) G(dbl)(r, a);
        else G(jac_set_infinity)(r);
        return;
    }
    FOP(sqr)(&hh, &h);
    FOP(dbl)(&i, &hh);
    FOP(dbl)(&i, &i);
    FOP(mul)(&j, &h, &i);
    FOP(dbl)(&rr, &rr);
    FOP(mul)(&v, &a->x, &i);
    F z3, y1j;
    FOP(add)(&z3, &a->z, &h);
    FOP(sqr)(&z3, &z3);
    FOP(sub)(&z3, &z3, &z1z1);
    FOP(sub)(&r->z, &z3, &hh);
    FOP(mul)(&y1j, &a->y, &j);
    FOP(sqr)(&t, &rr);
    FOP(sub)(&t, &t, &j);
    FOP(sub)(&t, &t, &v);
    FOP(sub)(&r->x, &t, &v);
    FOP(sub)(&t, &v, &r->x);
    FOP(mul)(&t, &rr, &t);
    FOP(dbl)(&y1j, &y1j);
    FOP(sub)(&r->y, &t, &y1j);
}

static void G(to_affine)(AFFINE *r, const G(jac) *a) {
    if (G(jac_is_infinity)(a)) {
        *r = (AFFINE){0};
        r->infinity = 1;
        return;
    }
    F zi, zi2, zi3;
    FOP(inv)(&zi, &a->z);
    FOP(sqr)(&zi2, &zi);
    FOP(mul)(&zi3, &zi2, &zi);
    FOP(mul)(&r->x, &a->x, &zi2);
    FOP(mul)(&r->y, &a->y, &zi3);
    r->infinity = 0;
}

/// [k]a for a 64-bit k, left to right.
static void G(mul_u64)(G(jac) *r, const G(jac) *a, u64 k) {
    G(jac) acc;
    G(jac_set_infinity)(&acc);
    for (int bit = 63; bit >= 0; bit--) {
        G(dbl)(&acc, &acc);
        if ((k >> bit) & 1) G(add)(&acc, &acc, a);
    }
    *r = acc;
}

static void G(mul_u64_affine)(G(jac) *r, const AFFINE *a, u64 k) {
    G(jac) acc;
    G(jac_set_infinity)(&acc);
    for (int bit = 63; bit >= 0; bit--) {
        G(dbl)(&acc, &acc);
        if ((k >> bit) & 1) G(add_affine)(&acc, &acc, a);
    }
    *r = acc;
}

/// [k]a for a big-endian scalar of any length.
static void G(mul_bytes)(G(jac) *r, const AFFINE *a, const uint8_t *k, size_t len) {
    G(jac) acc;
    G(jac_set_infinity)(&acc);
    for (size_t i = 0; i < len; i++)
        for (int bit = 7; bit >= 0; bit--) {
            G(dbl)(&acc, &acc);
            if ((k[i] >> bit) & 1) G(add_affine)(&acc, &acc, a);
        }
    *r = acc;
}

static int G(jac_equal)(const G(jac) *a, const G(jac) *b) {
    int ia = G(jac_is_infinity)(a), ib = G(jac_is_infinity)(b);
    if (ia || ib) return ia && ib;
    F z1z1, z2z2, l, rgt;
    FOP(sqr)(&z1z1, &a->z);
    FOP(sqr)(&z2z2, &b->z);
    FOP(mul)(&l, &a->x, &z2z2);
    FOP(mul)(&rgt, &b->x, &z1z1);
    if (!FOP(equal)(&l, &rgt)) return 0;
    FOP(mul)(&z1z1, &z1z1, &a->z);
    FOP(mul)(&z2z2, &z2z2, &b->z);
    FOP(mul)(&l, &a->y, &z2z2);
    FOP(mul)(&rgt, &b->y, &z1z1);
    return FOP(equal)(&l, &rgt);
}

static int G(affine_on_curve)(const AFFINE *a) {
    if (a->infinity) return 1;
    F lhs, rhs;
    FOP(sqr)(&lhs, &a->y);
    FOP(sqr)(&rhs, &a->x);
    FOP(mul)(&rhs, &rhs, &a->x);
    FOP(add)(&rhs, &rhs, &CURVE_B);
    return FOP(equal)(&lhs, &rhs);
}

#pragma clang diagnostic pop
