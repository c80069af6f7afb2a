/* nocfi-asm.S - spin loops without CFI (no .cfi directives), for nocfi.c.
 * Each returns its argument's count of iterations in rax. */
        .text

        .globl  fp_spin
        .type   fp_spin, @function
fp_spin:                        /* a standard rbp frame */
        push    %rbp
        mov     %rsp, %rbp
        mov     %rdi, %rax
1:      dec     %rdi
        jnz     1b
        pop     %rbp
        ret
        .size   fp_spin, .-fp_spin

        .globl  nofp_spin
        .type   nofp_spin, @function
nofp_spin:                      /* no frame of its own */
        mov     %rdi, %rax
1:      dec     %rdi
        jnz     1b
        ret
        .size   nofp_spin, .-nofp_spin

        .globl  zero_fp_spin
        .type   zero_fp_spin, @function
zero_fp_spin:                   /* rbp 0: the end of the chain for libunwind */
        mov     %rbp, %r8
        xor     %ebp, %ebp
        mov     %rdi, %rax
1:      dec     %rdi
        jnz     1b
        mov     %r8, %rbp
        ret
        .size   zero_fp_spin, .-zero_fp_spin

        .globl  low_fp_spin
        .type   low_fp_spin, @function
low_fp_spin:                    /* rbp below the stack pointer */
        mov     %rbp, %r8
        lea     -64(%rsp), %rbp
        mov     %rdi, %rax
1:      dec     %rdi
        jnz     1b
        mov     %r8, %rbp
        ret
        .size   low_fp_spin, .-low_fp_spin

        .section .note.GNU-stack,"",@progbits
