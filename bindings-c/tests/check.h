/*
 * The C test programs' checks: each counts as passed or failed, and a failure prints the line,
 * the context set by CTX and the expression (for a status: what came and what was wanted, with
 * the last error message). Included by one translation unit per program.
 */
#ifndef IDMINT_TESTS_CHECK_H
#define IDMINT_TESTS_CHECK_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "idmint.h"

static unsigned passed, failed;
static char ctx[512];

#define CTX(...) snprintf(ctx, sizeof ctx, __VA_ARGS__)
#define CHECK(cond) check_impl((cond), #cond, __LINE__)

static inline bool check_impl(bool ok, const char *expr, int line) {
    if (ok) {
        passed++;
    } else {
        failed++;
        fprintf(stderr, "FAIL line %d [%s]: %s\n", line, ctx, expr);
    }
    return ok;
}

/* Checks a status and, if `msg` is not NULL, the last error message. */
static inline bool expect_impl(idmint_status got, idmint_status want, const char *msg,
                               const char *expr, int line) {
    bool ok = got == want;
    if (ok && msg != NULL && got != IDMINT_OK) ok = strcmp(idmint_last_error_message(), msg) == 0;
    if (ok) {
        passed++;
    } else {
        failed++;
        fprintf(stderr, "FAIL line %d [%s]: %s\n  got %s (%d) \"%s\"\n  want %s (%d) \"%s\"\n",
                line, ctx, expr, idmint_status_code(got), (int)got,
                got == IDMINT_OK ? "" : idmint_last_error_message(), idmint_status_code(want),
                (int)want, msg ? msg : "");
    }
    return ok;
}

#endif
