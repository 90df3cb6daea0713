// fuzz_check.h — CHECK: a promise the engine makes, trapped when broken
// (abort() is the harness's, never the engine's: it is how libFuzzer is told).
#ifndef FUZZ_CHECK_H
#define FUZZ_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#define CHECK(condition)                                                        \
    do {                                                                        \
        if (!(condition)) {                                                     \
            fprintf(stderr, "fuzz: broken promise: %s (%s:%d)\n", #condition,   \
                    __FILE__, __LINE__);                                        \
            abort();                                                            \
        }                                                                       \
    } while (0)

#endif
