/* The shape of a library without debug information in which a call-site name can lie (as
 * Debian's liblammps.so did): code of a local function placed right after an exported one.
 * With only .dynsym left, the nearest symbol below the local function's code is the exported
 * function, which that code lies past the end of. test_callsite checks both kinds of call site.
 * Built at -O0 with reordering off (CMakeLists.txt): the functions stay in source order and
 * every call stays a call, so each function really holds the call site it returns. */
#define PAPSHIM_TESTSYM_EXPORT __attribute__((visibility("default"), noinline))

static volatile int side_effect; /* different bodies, so no two functions are ever folded */

/* The return address into its caller: the call site inside that caller. */
static __attribute__((noinline)) const void *caller_site(void) {
    side_effect = side_effect + 1;
    return __builtin_return_address(0);
}

PAPSHIM_TESTSYM_EXPORT const void *papshim_testsym_exported(void) {
    side_effect = side_effect + 2;
    return caller_site();
}

/* Local: no .dynsym entry, so once .symtab is stripped nothing names it. */
static __attribute__((noinline)) const void *local_after_exported(void) {
    side_effect = side_effect + 3;
    return caller_site();
}

PAPSHIM_TESTSYM_EXPORT const void *papshim_testsym_local(void) { return local_after_exported(); }
