/* src/alone.h - a file of src/ compiled on its own.
 *
 * fgl ships as four headers that tools/amalgamate writes from the files of
 * src/; no file there is whole by itself, since each is one subject whose
 * declarations, private declarations and implementation go to three places
 * of its header. So that an IDE (clangd), a structure viewer or a compiler
 * can still read one file alone, every file includes this one as its first
 * line, after each of its marker lines (fgl:private, fgl:implementation)
 * and as its last line. In the headers those lines are dropped. Elsewhere
 * this file does nothing unless FGL_ALONE names, as a string, the file's
 * surroundings, which `make alone` writes (tools/amalgamate --alone
 * build/alone, with a compile_commands.json that gives each file its
 * FGL_ALONE): each inclusion then brings in what the header puts at that
 * place, the lower headers and the other files' parts, with #line
 * directives pointing at their sources. `make alone` compiles every file
 * of src/ this way (-Wall -Wextra -Wpedantic -Werror). */
#ifdef FGL_ALONE
#if !defined(FGL__ALONE_AT)
#define FGL__ALONE_AT 1
#elif FGL__ALONE_AT == 1
#undef FGL__ALONE_AT
#define FGL__ALONE_AT 2
#elif FGL__ALONE_AT == 2
#undef FGL__ALONE_AT
#define FGL__ALONE_AT 3
#else
#undef FGL__ALONE_AT
#define FGL__ALONE_AT 4
#endif
#include FGL_ALONE
#endif
