/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The path figures of a blkfloor trace (what the block layer and the SCSI
 * midlayer did, the trace header's path identity, the events), summed
 * over the run, and their comparison between two traces. Pure
 * computation; the reader takes an open stream.
 */
#ifndef BLKFLOOR_PATHSUM_H
#define BLKFLOOR_PATHSUM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* a per-interval figure: mean, sd and count of the intervals that have it */
struct bf_pstat { double mean, sd, max; size_t n; };

enum bf_pev { BF_PEV_RESET, BF_PEV_ABORT, BF_PEV_TIMEOUT, BF_PEV_DISCONNECT,
	      BF_PEV_OFFLINE, BF_PEV_IO_ERROR, BF_PEV_READ_ONLY, BF_PEV_LINK,
	      BF_PEV_HOST, BF_PEV_BIND,
	      BF_PEV_COUNT };

enum bf_phdr { BF_PH_DRIVER, BF_PH_USB_SPEED, BF_PH_MAX_SECTORS_KB,
	       BF_PH_QUEUE_DEPTH, BF_PH_SCHEDULER, BF_PH_NOMERGES,
	       BF_PH_COUNT };

struct bf_pathsum {
	bool have;			/* any interval carried path figures */
	struct bf_pstat req_per_bio, req_kib, util, in_flight;
	unsigned long long requests, scsi_err, scsi_tmo;
	bool have_scsi;
	unsigned int events[BF_PEV_COUNT];
	char hdr[BF_PH_COUNT][64];	/* "" when absent */
};

const char *bf_pev_name(enum bf_pev k);
const char *bf_phdr_name(enum bf_phdr k);

/* Read the path figures of a trace. Returns 0 or -EINVAL with @err. */
int bf_pathsum_read(FILE *f, struct bf_pathsum *p, char *err, size_t errlen);

/** struct bf_pdiff - one path figure of A and B */
struct bf_pdiff {
	const char *what;
	char a[64], b[64];
	bool differs;		/* beyond the noise (counters: at all) */
	bool worse;		/* and B is the worse one */
	char why[96];
};

#define BF_PDIFF_MAX	(8 + BF_PEV_COUNT + BF_PH_COUNT)

/*
 * Compare the figures both traces have: ratios and sizes by Welch's t
 * (|t| > 3) and 5 % relative, counters and header items exactly. Fills
 * @d (BF_PDIFF_MAX entries) and returns how many.
 */
size_t bf_pathsum_compare(const struct bf_pathsum *A,
			  const struct bf_pathsum *B, struct bf_pdiff *d);

/* Fields of a trace's CSV line, at most BF_CSV_MAXF (split in place). */
#define BF_CSV_MAXF 40
int bf_csv_split(char *line, char **fld);

#endif /* BLKFLOOR_PATHSUM_H */
