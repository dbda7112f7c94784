/* fiber.c - cooperative contexts for the threads of a simulated block.
 *
 * A fiber is a stack and the stack pointer saved when it was switched out.
 * The switch is a few instructions of assembly on x86-64 and aarch64: push
 * the registers the C calling convention makes the callee keep, store the
 * stack pointer, load the other one, pop, return.  That costs about 15 ns,
 * where swapcontext() costs 350-550 ns because it also saves the signal mask
 * with a system call (reference/kernels.md 3.6); elsewhere, or when built
 * with -DUFN_FIBER_UCONTEXT, ucontext is the fallback.  The floating-point
 * control registers (MXCSR, FPCR) are not switched: kernels never change them.
 *
 * The sanitizers must be told about every switch, or they take a fiber's
 * stack for a buffer overflow of the thread's: ASan through
 * __sanitizer_start/finish_switch_fiber (and its fake stacks, which hold the
 * frames when detect_stack_use_after_return is on), TSan through its fiber
 * objects.  A fiber stack is reused after its fiber exited or was abandoned
 * in mid-frame (a failed check stops a block); the frames it was left with
 * are still poisoned in ASan's shadow, so ufn_fiber_make unpoisons the part
 * of the stack that was in use, from the saved stack pointer up.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "simt.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UFN_ASAN 1
#endif
#if __has_feature(thread_sanitizer)
#define UFN_TSAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) && !defined(UFN_ASAN)
#define UFN_ASAN 1
#endif
#if defined(__SANITIZE_THREAD__) && !defined(UFN_TSAN)
#define UFN_TSAN 1
#endif

#ifdef UFN_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif
#ifdef UFN_TSAN
#include <sanitizer/tsan_interface.h>
#endif

/* valgrind must know every stack, or it takes a fiber's frames for writes
 * below the stack pointer (its client requests cost nothing without it). */
#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define UFN_VALGRIND 1
#endif
#endif

#if defined(UFN_FIBER_UCONTEXT) || !defined(__ELF__) || \
    !(defined(__x86_64__) || defined(__aarch64__))
#define USE_UCONTEXT 1
#include <ucontext.h>
#endif

/* The fiber running on this thread, and the one that switched to it last. */
static _Thread_local ufn_fiber *running;
static _Thread_local ufn_fiber *previous;

/* ---- the switch --------------------------------------------------------------------- */

#if !defined(USE_UCONTEXT)
/* ufn_fiber_swap(void **save, void *sp): push the callee-saved registers,
 * store the stack pointer in *save, load sp, pop, return into the other
 * context.  A new context's frame is laid out by ufn_fiber_make so that the
 * return goes to ufn_fiber_start, which calls fn(arg) from two registers. */
void ufn_fiber_swap(void **save, void *sp);
extern char ufn_fiber_start[];

#if defined(__x86_64__)
__asm__(".text\n"
        ".p2align 4\n"
        ".globl ufn_fiber_swap\n"
        ".hidden ufn_fiber_swap\n"
        ".type ufn_fiber_swap, @function\n"
        "ufn_fiber_swap:\n"
        "    pushq %rbp\n"
        "    pushq %rbx\n"
        "    pushq %r12\n"
        "    pushq %r13\n"
        "    pushq %r14\n"
        "    pushq %r15\n"
        "    movq %rsp, (%rdi)\n"
        "    movq %rsi, %rsp\n"
        "    popq %r15\n"
        "    popq %r14\n"
        "    popq %r13\n"
        "    popq %r12\n"
        "    popq %rbx\n"
        "    popq %rbp\n"
        "    ret\n"
        ".size ufn_fiber_swap, .-ufn_fiber_swap\n"
        ".globl ufn_fiber_start\n"
        ".hidden ufn_fiber_start\n"
        ".type ufn_fiber_start, @function\n"
        "ufn_fiber_start:\n"
        "    movq %r12, %rdi\n"
        "    callq *%r13\n"
        "    ud2\n"
        ".size ufn_fiber_start, .-ufn_fiber_start\n");
#define SAVED_WORDS 7   /* r15 r14 r13 r12 rbx rbp, return address */
#elif defined(__aarch64__)
__asm__(".text\n"
        ".p2align 4\n"
        ".globl ufn_fiber_swap\n"
        ".hidden ufn_fiber_swap\n"
        ".type ufn_fiber_swap, %function\n"
        "ufn_fiber_swap:\n"
        "    sub sp, sp, #176\n"
        "    stp x19, x20, [sp, #0]\n"
        "    stp x21, x22, [sp, #16]\n"
        "    stp x23, x24, [sp, #32]\n"
        "    stp x25, x26, [sp, #48]\n"
        "    stp x27, x28, [sp, #64]\n"
        "    stp x29, x30, [sp, #80]\n"
        "    stp d8, d9, [sp, #96]\n"
        "    stp d10, d11, [sp, #112]\n"
        "    stp d12, d13, [sp, #128]\n"
        "    stp d14, d15, [sp, #144]\n"
        "    mov x9, sp\n"
        "    str x9, [x0]\n"
        "    mov sp, x1\n"
        "    ldp x19, x20, [sp, #0]\n"
        "    ldp x21, x22, [sp, #16]\n"
        "    ldp x23, x24, [sp, #32]\n"
        "    ldp x25, x26, [sp, #48]\n"
        "    ldp x27, x28, [sp, #64]\n"
        "    ldp x29, x30, [sp, #80]\n"
        "    ldp d8, d9, [sp, #96]\n"
        "    ldp d10, d11, [sp, #112]\n"
        "    ldp d12, d13, [sp, #128]\n"
        "    ldp d14, d15, [sp, #144]\n"
        "    add sp, sp, #176\n"
        "    ret\n"
        ".size ufn_fiber_swap, .-ufn_fiber_swap\n"
        ".globl ufn_fiber_start\n"
        ".hidden ufn_fiber_start\n"
        ".type ufn_fiber_start, %function\n"
        "ufn_fiber_start:\n"
        "    mov x0, x19\n"
        "    blr x20\n"
        "    brk #0\n"
        ".size ufn_fiber_start, .-ufn_fiber_start\n");
#define SAVED_WORDS 22  /* x19-x28, x29, x30, d8-d15: 176 bytes */
#endif
#endif /* !USE_UCONTEXT */

const char *ufn_fiber_kind(void)
{
#if defined(USE_UCONTEXT)
    return "ucontext";
#elif defined(__x86_64__)
    return "x86-64";
#else
    return "aarch64";
#endif
}

/* ---- sanitizer annotations ------------------------------------------------------------ */

static void start_switch(ufn_fiber *from, ufn_fiber *to, bool leaving)
{
#ifdef UFN_ASAN
    __sanitizer_start_switch_fiber(leaving ? NULL : &from->fake_stack, to->asan_bottom,
                                   to->asan_size);
#endif
#ifdef UFN_TSAN
    if (!from->tsan)
        from->tsan = __tsan_get_current_fiber();   /* the thread's own context */
    __tsan_switch_to_fiber(to->tsan, 0);
#endif
    (void)from, (void)to, (void)leaving;
}

/* Back on `self`: ASan learns where we came from; the thread's own stack
 * becomes known this way the first time we leave it. */
static void finish_switch(ufn_fiber *self)
{
#ifdef UFN_ASAN
    const void *bottom = NULL;
    size_t size = 0;
    __sanitizer_finish_switch_fiber(self->fake_stack, &bottom, &size);
    if (previous && !previous->stack) {
        previous->asan_bottom = bottom;
        previous->asan_size = size;
    }
#endif
    (void)self;
}

/* The first code a new fiber runs. */
static void fiber_entry(ufn_fiber *f)
{
    finish_switch(f);
    f->fn(f->arg);
    abort();   /* fn must leave with ufn_fiber_exit */
}

#if defined(USE_UCONTEXT)
static void uc_entry(void)
{
    fiber_entry(running);
}
#endif

/* ---- making and switching ---------------------------------------------------------------- */

void ufn_fiber_make(ufn_fiber *f, char *stack, size_t size, ufn_fiber_fn fn, void *arg)
{
#if !defined(USE_UCONTEXT) || defined(UFN_ASAN)
    char *top = (char *)((uintptr_t)(stack + size) & ~(uintptr_t)15);
#endif
#ifdef UFN_ASAN
    if (f->dirty) {
        char *lo = f->sp && (char *)f->sp >= stack && (char *)f->sp < top ? (char *)f->sp : stack;
        __asan_unpoison_memory_region(lo, (size_t)(top - lo));
    }
#endif
#ifdef UFN_TSAN
    if (!f->tsan)
        f->tsan = __tsan_create_fiber(0);
#endif
    f->stack = stack;
    f->size = size;
    f->fn = fn;
    f->arg = arg;
    f->dirty = false;
    f->fake_stack = NULL;
    f->asan_bottom = stack;
    f->asan_size = size;
#if defined(USE_UCONTEXT)
    if (!f->uc && !(f->uc = calloc(1, sizeof(ucontext_t))))
        abort();   /* a few hundred bytes once per fiber; the engine has its stacks already */
    ucontext_t *uc = f->uc;
    getcontext(uc);
    uc->uc_stack.ss_sp = stack;
    uc->uc_stack.ss_size = size;
    uc->uc_link = NULL;
    makecontext(uc, uc_entry, 0);
    f->sp = NULL;
#else
    void **sp = (void **)top - SAVED_WORDS;
    memset(sp, 0, SAVED_WORDS * sizeof *sp);
#if defined(__x86_64__)
    /* popped as r15 r14 r13 r12 rbx rbp, then returned to: the return
     * leaves the stack pointer at `top`, 16-byte aligned for the call in
     * ufn_fiber_start */
    sp[2] = (void *)fiber_entry;        /* r13 */
    sp[3] = f;                          /* r12 */
    sp[6] = (void *)ufn_fiber_start;    /* return address; rbp (sp[5]) 0 ends backtraces */
#else
    sp[0] = f;                          /* x19 */
    sp[1] = (void *)fiber_entry;        /* x20 */
    sp[11] = (void *)ufn_fiber_start;   /* x30; x29 (sp[10]) 0 ends backtraces */
#endif
    f->sp = sp;
#endif
}

static void swap(ufn_fiber *from, ufn_fiber *to)
{
#if defined(USE_UCONTEXT)
    if (!from->uc && !(from->uc = calloc(1, sizeof(ucontext_t))))
        abort();
    swapcontext(from->uc, to->uc);
#else
    ufn_fiber_swap(&from->sp, to->sp);
#endif
}

void ufn_fiber_switch(ufn_fiber *from, ufn_fiber *to)
{
    previous = from;
    running = to;
    from->dirty = true;
    start_switch(from, to, false);
    swap(from, to);
    finish_switch(from);
}

void ufn_fiber_exit(ufn_fiber *from, ufn_fiber *to)
{
    previous = from;
    running = to;
    from->dirty = true;
    start_switch(from, to, true);
    swap(from, to);
    abort();   /* nobody switches back to an exited fiber */
}

void ufn_fiber_destroy(ufn_fiber *f)
{
#ifdef UFN_TSAN
    if (f->tsan && f->stack)
        __tsan_destroy_fiber(f->tsan);
#endif
    free(f->uc);
    memset(f, 0, sizeof *f);
}

/* ---- stacks -------------------------------------------------------------------------------- */

int ufn_stacks_alloc(ufn_stacks *s, int n, size_t size)
{
    memset(s, 0, sizeof *s);
    long pg = sysconf(_SC_PAGESIZE);
    size_t page = pg > 0 ? (size_t)pg : 4096;
    size = (size + page - 1) / page * page;
    size_t stride = size + page;
    if (n <= 0 || (size_t)n > SIZE_MAX / stride)
        return -1;
    void *base = mmap(NULL, stride * (size_t)n, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (base == MAP_FAILED)
        return -1;
    /* A guard page below each stack turns an overflow into a fault instead
     * of a write into the next thread's frames.  Each guard splits the
     * mapping; when the process runs out of mappings (vm.max_map_count) the
     * remaining stacks go without. */
    for (int i = 0; i < n; i++)
        if (mprotect((char *)base + (size_t)i * stride, page, PROT_NONE) != 0)
            break;
    s->base = base;
    s->bytes = stride * (size_t)n;
    s->stride = stride;
    s->size = size;
    s->n = n;
#ifdef UFN_VALGRIND
    if (RUNNING_ON_VALGRIND && (s->valgrind = calloc((size_t)n, sizeof *s->valgrind)) != NULL)
        for (int i = 0; i < n; i++) {
            char *lo = ufn_stack_at(s, i);
            s->valgrind[i] = VALGRIND_STACK_REGISTER(lo, lo + size);
        }
#endif
    return 0;
}

void ufn_stacks_free(ufn_stacks *s)
{
#ifdef UFN_VALGRIND
    for (int i = 0; s->valgrind && i < s->n; i++)
        VALGRIND_STACK_DEREGISTER(s->valgrind[i]);
#endif
    free(s->valgrind);
    if (s->base)
        munmap(s->base, s->bytes);
    memset(s, 0, sizeof *s);
}

char *ufn_stack_at(const ufn_stacks *s, int i)
{
    return s->base + (size_t)i * s->stride + (s->stride - s->size);
}
