#!/bin/sh
# Runs one test program under valgrind's memcheck; any memory error or leak
# makes the run fail.
FGL_TEST_QUICK=1 valgrind --quiet --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect "$@"
