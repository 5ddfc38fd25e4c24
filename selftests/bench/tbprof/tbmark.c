// SPDX-License-Identifier: GPL-2.0
/*
 * tbmark: run one instruction at TBMARK_ADDR, so that the tbcount QEMU
 * plugin started with mark=TBMARK_ADDR writes its counts so far
 * (selftests/bench/tbprof/tbcount.c). Run it in the guest just before and
 * just after what is to be profiled.
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

/* Far from anything a process maps by itself. */
#define TBMARK_ADDR	0x7e5700000000UL

int main(void)
{
	void *p = mmap((void *)TBMARK_ADDR, 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	void (*mark)(void);

	if (p != (void *)TBMARK_ADDR) {
		perror("tbmark: mmap");
		return 1;
	}
	memset(p, 0xc3, 1);	/* ret */
	if (mprotect(p, 4096, PROT_READ | PROT_EXEC)) {
		perror("tbmark: mprotect");
		return 1;
	}
	mark = (void (*)(void))p;
	mark();
	return 0;
}
