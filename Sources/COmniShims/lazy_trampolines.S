// One trampoline per function in lazy_symbols.h, under the function's own name, so Swift and C call OpenSSL,
// libsodium and SQLite as if they were linked. Each trampoline jumps through its slot; an empty slot goes to
// omni_lazy_enter, which saves the argument registers, has omni_lazy_resolve (lazy_libraries.c) open the library
// and fill the slot, restores the registers and jumps to the real function: the call proceeds unchanged, whatever
// its signature (variadic ones included). Hidden: the names bind inside omni's own link only, so the libraries'
// calls among themselves never come through here. Slot layout, shared with lazy_libraries.c: the function's address (0
// until resolved), the library number, the function's name (NUL-terminated).
#include "lazy_symbols.h"

#if defined(__linux__) && (defined(__x86_64__) || defined(__aarch64__))

#if defined(__x86_64__)

.macro omni_lazy_trampoline library, name
    .data
    .balign 8
omni_lazy_slot_\name:
    .quad 0
    .quad \library
    .asciz "\name"
    .text
    .globl \name
    .hidden \name
    .type \name, %function
    .balign 16
\name:
    movq omni_lazy_slot_\name(%rip), %r11
    testq %r11, %r11
    jz 1f
    jmpq *%r11
1:
    leaq omni_lazy_slot_\name(%rip), %r11
    jmp omni_lazy_enter
    .size \name, . - \name
.endm

    .text
    .balign 16
    .type omni_lazy_enter, %function
// %r11: the slot. Entered by jmp with the caller's stack (rsp = 8 mod 16); saves the System V argument
// registers (rdi, rsi, rdx, rcx, r8, r9, rax for variadic calls' vector count, xmm0-7).
omni_lazy_enter:
    pushq %rbp
    movq %rsp, %rbp
    subq $192, %rsp
    movq %rdi, 0(%rsp)
    movq %rsi, 8(%rsp)
    movq %rdx, 16(%rsp)
    movq %rcx, 24(%rsp)
    movq %r8, 32(%rsp)
    movq %r9, 40(%rsp)
    movq %rax, 48(%rsp)
    movaps %xmm0, 64(%rsp)
    movaps %xmm1, 80(%rsp)
    movaps %xmm2, 96(%rsp)
    movaps %xmm3, 112(%rsp)
    movaps %xmm4, 128(%rsp)
    movaps %xmm5, 144(%rsp)
    movaps %xmm6, 160(%rsp)
    movaps %xmm7, 176(%rsp)
    movq %r11, %rdi
    call omni_lazy_resolve
    movq %rax, %r11
    movq 0(%rsp), %rdi
    movq 8(%rsp), %rsi
    movq 16(%rsp), %rdx
    movq 24(%rsp), %rcx
    movq 32(%rsp), %r8
    movq 40(%rsp), %r9
    movq 48(%rsp), %rax
    movaps 64(%rsp), %xmm0
    movaps 80(%rsp), %xmm1
    movaps 96(%rsp), %xmm2
    movaps 112(%rsp), %xmm3
    movaps 128(%rsp), %xmm4
    movaps 144(%rsp), %xmm5
    movaps 160(%rsp), %xmm6
    movaps 176(%rsp), %xmm7
    leave
    jmpq *%r11
    .size omni_lazy_enter, . - omni_lazy_enter

#elif defined(__aarch64__)

// x16 and x17 (IP0, IP1) are the registers AAPCS64 lets a call's veneer clobber.
.macro omni_lazy_trampoline library, name
    .data
    .balign 8
omni_lazy_slot_\name:
    .quad 0
    .quad \library
    .asciz "\name"
    .text
    .globl \name
    .hidden \name
    .type \name, %function
    .balign 16
\name:
    adrp x16, omni_lazy_slot_\name
    add x16, x16, :lo12:omni_lazy_slot_\name
    ldr x17, [x16]
    cbz x17, 1f
    br x17
1:
    b omni_lazy_enter
    .size \name, . - \name
.endm

    .text
    .balign 16
    .type omni_lazy_enter, %function
// x16: the slot. Saves the AAPCS64 argument registers (x0-x7, x8 for indirect results, q0-q7).
omni_lazy_enter:
    stp x29, x30, [sp, #-224]!
    mov x29, sp
    stp x0, x1, [sp, #16]
    stp x2, x3, [sp, #32]
    stp x4, x5, [sp, #48]
    stp x6, x7, [sp, #64]
    str x8, [sp, #80]
    stp q0, q1, [sp, #96]
    stp q2, q3, [sp, #128]
    stp q4, q5, [sp, #160]
    stp q6, q7, [sp, #192]
    mov x0, x16
    bl omni_lazy_resolve
    mov x16, x0
    ldp x0, x1, [sp, #16]
    ldp x2, x3, [sp, #32]
    ldp x4, x5, [sp, #48]
    ldp x6, x7, [sp, #64]
    ldr x8, [sp, #80]
    ldp q0, q1, [sp, #96]
    ldp q2, q3, [sp, #128]
    ldp q4, q5, [sp, #160]
    ldp q6, q7, [sp, #192]
    ldp x29, x30, [sp], #224
    br x16
    .size omni_lazy_enter, . - omni_lazy_enter

#endif

#define OMNI_LAZY_EMIT(library, name) omni_lazy_trampoline library, name;
OMNI_LAZY_SYMBOLS(OMNI_LAZY_EMIT)

    .section .note.GNU-stack, "", %progbits

#endif
