/* SPDX-License-Identifier: GPL-2.0 */
/*
 * LeakSanitizer for tests on kselftest_harness.h (force-included before
 * every tests/test_*.c: see ../Makefile).
 *
 * The harness runs each test in a forked child (TEST_F: in a grandchild)
 * and ends it with _exit(), so LeakSanitizer's check at exit never runs
 * and a leak passes. Built with AddressSanitizer, every _exit() of the
 * harness first checks for leaks; a leak fails the test: the test's
 * metadata is shared (MAP_SHARED) with the harness, so its exit_code
 * reaches the runner even from TEST_F's grandchild, whose exit status the
 * harness does not read. The metadata is found from the jmp_buf the
 * harness passes to setjmp() before it runs the test.
 *
 * Without AddressSanitizer this header does nothing.
 */
#ifndef BF_TESTS_LSAN_H
#define BF_TESTS_LSAN_H

#if defined(__SANITIZE_ADDRESS__)
#include <setjmp.h>
#include <stddef.h>
#include <unistd.h>
#include <sanitizer/lsan_interface.h>

static void *bf_lsan_env __attribute__((unused));

/* exit_code: the running test's, or NULL outside a test. */
static inline __attribute__((unused, noreturn))
void bf_lsan_exit(int code, int *exit_code)
{
	if (__lsan_do_recoverable_leak_check()) {
		/* (the report is on stderr; KSFT_FAIL is 1) */
		if (exit_code)
			*exit_code = 1;
		if (!code)
			code = 1;
	}
	(_exit)(code);
}

#undef setjmp
#define setjmp(env) (bf_lsan_env = (env), _setjmp(env))
/* Expanded in the harness, after struct __test_metadata is defined. */
#define _exit(code) bf_lsan_exit((code), bf_lsan_env ?			\
	(int *)((char *)bf_lsan_env - offsetof(struct __test_metadata, env) + \
		offsetof(struct __test_metadata, exit_code)) : NULL)
#endif

#endif
