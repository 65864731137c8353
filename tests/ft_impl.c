/* ft_impl.c - the library as every test links it (build/tests/fgl.o and
 * the sanitizer and valgrind flavours): the private functions that tests
 * call are external (FGL_TEST_PRIVATE, see FGL__PRIVATE in fgl.h), and
 * every allocation goes through the counter of tests/ft_alloc.h. No test
 * compiles the library itself. */
#include "ft_alloc.h"
#include <stdlib.h>

size_t ft_alloc_largest;

void ft_alloc_reset(void) { ft_alloc_largest = 0; }

void *ft_realloc(void *p, size_t n) {
#ifdef _OPENMP
#pragma omp critical(ft_alloc) /* clients allocate from several threads */
#endif
    if (n > ft_alloc_largest) ft_alloc_largest = n;
    if (n > FT_ALLOC_CAP) return NULL;
    return p ? realloc(p, n ? n : 1) : malloc(n); /* realloc(p, 0) may free p */
}

#define FGL_MALLOC(n) ft_realloc(NULL, (n))
#define FGL_REALLOC(p, n) ft_realloc((p), (n))
#define FGL_FREE(p) free(p)
#define FGL_IMPLEMENTATION
#include "../fgl_fed.h"
