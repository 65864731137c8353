#!/bin/sh
# Runs one test program under valgrind's memcheck; any memory error or leak
# makes the run fail.
valgrind --quiet --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect "$@"
