/* ft_alloc.h - the allocation counter of the library as every test links
 * it (tests/ft_impl.c defines it; tests/ft.h includes this file).
 *
 * Every allocation of that library goes through ft_realloc: ft_alloc_largest
 * is the largest single request since ft_alloc_reset(), and a request over
 * FT_ALLOC_CAP bytes (1 GiB) fails as if memory had run out. Tests of
 * hostile files use it to bound what a loader may allocate, and so that
 * running them on a loader without the check they test costs an error, not
 * the machine's memory. */
#ifndef FT_ALLOC_H
#define FT_ALLOC_H
#include <stddef.h>
#define FT_ALLOC_CAP ((size_t)1 << 30)
#ifdef __cplusplus
extern "C" {
#endif
extern size_t ft_alloc_largest;
void ft_alloc_reset(void);
void *ft_realloc(void *p, size_t n);
#ifdef __cplusplus
}
#endif
#endif
