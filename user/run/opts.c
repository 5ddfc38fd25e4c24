// SPDX-License-Identifier: GPL-2.0
/*
 * Option parsing for the run-like commands.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <linux/blkfloor.h>

#include "classify.h"
#include "opts.h"
#include "units.h"

struct optdef {
	const char *name;
	enum bf_optid id;
	bool arg;
};

static const struct optdef optdefs[] = {
	{ "rw", BF_O_RW, true },
	{ "bs", BF_O_BS, true },
	{ "qd", BF_O_QD, true },
	{ "offset", BF_O_OFFSET, true },
	{ "size", BF_O_SIZE, true },
	{ "time", BF_O_TIME, true },
	{ "loops", BF_O_LOOPS, true },
	{ "rate", BF_O_RATE, true },
	{ "interval", BF_O_INTERVAL, true },
	{ "data", BF_O_DATA, true },
	{ "seed", BF_O_SEED, true },
	{ "fua", BF_O_FUA, false },
	{ "preflush", BF_O_PREFLUSH, false },
	{ "no-merge", BF_O_NO_MERGE, false },
	{ "failfast", BF_O_FAILFAST, false },
	{ "err-limit", BF_O_ERR_LIMIT, true },
	{ "ring", BF_O_RING, true },
	{ "no-own", BF_O_NO_OWN, false },
	{ "trace", BF_O_TRACE, true },
	{ "json", BF_O_JSON, false },
	{ "quiet", BF_O_QUIET, false },
	{ "yes-destroy-data", BF_O_YES, false },
	{ "percent", BF_O_PERCENT, true },
	{ "min", BF_O_MIN, true },
	{ "format", BF_O_FORMAT, true },
	{ "output", BF_O_OUTPUT, true },
	{ "own", BF_O_OWN, false },
	{ "force", BF_O_FORCE, false },
	{ "temp-file", BF_O_TEMP_FILE, true },
	{ "err-log", BF_O_ERR_LOG, true },
	{ "until", BF_O_UNTIL, true },
	{ "diagnose", BF_O_DIAGNOSE, false },
	{ "trim", BF_O_TRIM, false },
	{ "gaps", BF_O_GAPS, true },
	{ "workload", BF_O_WORKLOAD, true },
};

static const struct {
	const char *name;
	uint8_t op, pattern;
} rws[] = {
	{ "read", BLKFLOOR_OP_READ, BLKFLOOR_PATTERN_SEQ },
	{ "write", BLKFLOOR_OP_WRITE, BLKFLOOR_PATTERN_SEQ },
	{ "randread", BLKFLOOR_OP_READ, BLKFLOOR_PATTERN_RANDOM },
	{ "randwrite", BLKFLOOR_OP_WRITE, BLKFLOOR_PATTERN_RANDOM },
	{ "trim", BLKFLOOR_OP_DISCARD, BLKFLOOR_PATTERN_SEQ },
	{ "write-zeroes", BLKFLOOR_OP_WRITE_ZEROES, BLKFLOOR_PATTERN_SEQ },
	{ "randtrim", BLKFLOOR_OP_DISCARD, BLKFLOOR_PATTERN_RANDOM },
	{ "randwrite-zeroes", BLKFLOOR_OP_WRITE_ZEROES, BLKFLOOR_PATTERN_RANDOM },
};

int bf_parse_rw(const char *s, uint8_t *op, uint8_t *pattern)
{
	size_t i;

	for (i = 0; i < sizeof(rws) / sizeof(rws[0]); i++) {
		if (!strcmp(s, rws[i].name)) {
			*op = rws[i].op;
			*pattern = rws[i].pattern;
			return 0;
		}
	}
	if (!strcmp(s, "discard")) {
		*op = BLKFLOOR_OP_DISCARD;
		*pattern = BLKFLOOR_PATTERN_SEQ;
		return 0;
	}
	return -EINVAL;
}

const char *bf_rw_name(uint8_t op, uint8_t pattern)
{
	size_t i;

	for (i = 0; i < sizeof(rws) / sizeof(rws[0]); i++)
		if (rws[i].op == op && rws[i].pattern == pattern)
			return rws[i].name;
	return "unknown";
}

const char *bf_op_name(uint8_t op)
{
	static const char *const n[] = { "read", "write", "discard",
					 "write-zeroes" };

	return op < __BLKFLOOR_OP_MAX ? n[op] : "unknown";
}

const char *bf_err_class_name(unsigned int class)
{
	static const char *const n[__BLKFLOOR_ERR_MAX] = {
		"io", "timeout", "notsupp", "medium", "transport", "nospc",
		"resource", "protection", "offline",
	};

	return class < __BLKFLOOR_ERR_MAX ? n[class] : "unknown";
}

char *bf_flags_str(char *buf, size_t len, uint32_t flags)
{
	static const struct {
		uint32_t flag;
		const char *name;
	} f[] = {
		{ BLKFLOOR_F_FUA, "fua" },
		{ BLKFLOOR_F_PREFLUSH, "preflush" },
		{ BLKFLOOR_F_NOMERGE, "no-merge" },
		{ BLKFLOOR_F_FAILFAST, "failfast" },
		{ BLKFLOOR_F_NO_STATS, "no-stats" },
	};
	size_t n = 0;
	unsigned int i;

	if (!len)
		return buf;
	buf[0] = 0;
	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		if (!(flags & f[i].flag))
			continue;
		n += snprintf(buf + n, n < len ? len - n : 0, "%s%s",
			      n ? "," : "", f[i].name);
		if (n >= len)
			break;
	}
	if (!buf[0])
		snprintf(buf, len, "none");
	return buf;
}

char *bf_latency_scope(char *buf, size_t len, uint32_t flags)
{
	snprintf(buf, len, "submit_bio() to completion: block-layer queueing, %s, %s",
		 flags & BLKFLOOR_F_NOMERGE ? "no merging (--no-merge)" :
					      "merging",
		 flags & BLKFLOOR_F_FAILFAST ? "no SCSI retries (--failfast)" :
					       "SCSI retries");
	return buf;
}

const char *bf_pattern_name(uint8_t p)
{
	return p == BLKFLOOR_PATTERN_SEQ ? "sequential" :
	       p == BLKFLOOR_PATTERN_RANDOM ? "random" : "unknown";
}

const char *bf_data_name(uint8_t d)
{
	static const char *const n[] = { "random", "zero", "verify", "shared" };

	return d < __BLKFLOOR_DATA_MAX ? n[d] : "unknown";
}

const char *bf_data_desc(uint8_t op, uint8_t d)
{
	if (op != BLKFLOOR_OP_WRITE)
		return d == BLKFLOOR_DATA_VERIFY ?
		       "verify (every block's header and crc32c checked)" :
		       "none written";
	switch (d) {
	case BLKFLOOR_DATA_RANDOM:
		return "random, every 4 KiB unique per LBA and pass";
	case BLKFLOOR_DATA_ZERO:
		return "zeroes";
	case BLKFLOOR_DATA_VERIFY:
		return "verify (header and crc32c in every block)";
	case BLKFLOOR_DATA_SHARED:
		return "shared (one random bs-sized buffer in every write: deduplicates)";
	}
	return "unknown";
}

bool bf_data_per_slot(uint8_t op, uint8_t data)
{
	if (data == BLKFLOOR_DATA_VERIFY)
		return op == BLKFLOOR_OP_READ || op == BLKFLOOR_OP_WRITE;
	return op == BLKFLOOR_OP_WRITE && data == BLKFLOOR_DATA_RANDOM;
}

const char *bf_state_name(uint8_t s)
{
	static const char *const n[] = { "running", "done", "stopped",
					 "failed", "stopping", "preparing" };

	return s < __BLKFLOOR_STATE_MAX ? n[s] : "unknown";
}

bool bf_state_ended(uint8_t s)
{
	/* An unknown state (a newer module) counts as ended (netlink.rst). */
	return s != BLKFLOOR_STATE_RUNNING && s != BLKFLOOR_STATE_STOPPING &&
	       s != BLKFLOOR_STATE_PREPARING;
}

bool bf_op_destructive(uint8_t op)
{
	return op != BLKFLOOR_OP_READ;
}

int bf_parse_until(const char *s, struct bf_opts *o)
{
	size_t n = strlen(s);

	if (!strcmp(s, "floor")) {
		o->until = BF_UNTIL_FLOOR;
		return 0;
	}
	if (!strcmp(s, "full")) {
		o->until = BF_UNTIL_FULL;
		return 0;
	}
	/* a plain number could be bytes or seconds: a unit says which */
	if (!n || isdigit((unsigned char)s[n - 1]) || s[n - 1] == '.')
		return -EINVAL;
	/*
	 * A duration first: "30m" is half an hour here, not 30 MiB (sizes
	 * take m as fio does); a size says B or iB (30MB, 30MiB, 100G).
	 */
	if (!bf_parse_duration(s, &o->until_ns) && o->until_ns) {
		o->until = BF_UNTIL_TIME;
		return 0;
	}
	if (!bf_parse_size(s, &o->until_bytes) && o->until_bytes) {
		o->until = BF_UNTIL_SIZE;
		return 0;
	}
	return -EINVAL;
}

int bf_parse_gaps(const char *s, struct bf_opts *o)
{
	char buf[160], *tok, *save = NULL;
	double g[BF_MAX_GAPS];
	unsigned int n = 0;
	uint64_t ns;

	if (snprintf(buf, sizeof(buf), "%s", s) >= (int)sizeof(buf))
		return -EINVAL;
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (n == BF_MAX_GAPS || bf_parse_duration(tok, &ns) || !ns)
			return -EINVAL;
		g[n] = ns / 1e9;
		if (n && g[n] <= g[n - 1])
			return -EINVAL;
		n++;
	}
	if (n < 2)
		return -EINVAL;
	memcpy(o->gaps_s, g, n * sizeof(g[0]));
	o->ngaps = n;
	return 0;
}

static int bad(char *err, size_t len, const char *name, const char *val,
	       const char *why)
{
	snprintf(err, len, "invalid --%s '%s': %s", name, val, why);
	return -EINVAL;
}

static int set_u32(const char *name, const char *val, uint64_t min,
		   uint64_t max, uint32_t *out, char *err, size_t len)
{
	uint64_t v;
	int ret = bf_parse_uint(val, max, &v);

	if (ret == -ERANGE || (!ret && v < min)) {
		char why[64];

		snprintf(why, sizeof(why), "must be %llu..%llu",
			 (unsigned long long)min, (unsigned long long)max);
		return bad(err, len, name, val, why);
	}
	if (ret)
		return bad(err, len, name, val, "not a number");
	*out = (uint32_t)v;
	return 0;
}

static int size_err(char *err, size_t len, const char *name, const char *val,
		    int ret)
{
	return bad(err, len, name, val, ret == -ERANGE ? "too large" :
		   "expected a size such as 4096, 128KiB, 1.5GB or 8GiB");
}

static int apply(struct bf_opts *o, const struct optdef *d, const char *v,
		 char *err, size_t len)
{
	uint64_t u;
	int ret = 0;
	int n;

	switch (d->id) {
	case BF_O_RW:
		if (bf_parse_rw(v, &o->op, &o->pattern))
			return bad(err, len, d->name, v,
				   "expected read, write, randread, randwrite, trim or write-zeroes");
		break;
	case BF_O_BS:
		ret = bf_parse_size(v, &u);
		if (ret)
			return size_err(err, len, d->name, v, ret);
		/* a decimal unit (4kB, 1MB) where a binary one was meant */
		n = (int)strcspn(v, "kKMGT");
		if (u % 512 && v[n] && v[n + 1] == 'B') {
			char hint[112];

			snprintf(hint, sizeof(hint),
				 "not a multiple of 512 bytes (kB, MB, GB are powers of 10: did you mean %.*s%c or %.*s%ciB?)",
				 n, v, toupper((unsigned char)v[n]), n, v,
				 toupper((unsigned char)v[n]));
			return bad(err, len, d->name, v, hint);
		}
		if (!u || u % 512 || u > BLKFLOOR_BS_MAX)
			return bad(err, len, d->name, v,
				   "must be a multiple of 512 bytes, at most 64 MiB");
		o->bs = (uint32_t)u;
		break;
	case BF_O_QD:
		return set_u32(d->name, v, 1, BLKFLOOR_QD_MAX, &o->qd, err, len);
	case BF_O_OFFSET:
		ret = bf_parse_size(v, &o->offset);
		if (ret)
			return size_err(err, len, d->name, v, ret);
		break;
	case BF_O_SIZE:
		ret = bf_parse_size(v, &o->size);
		if (ret)
			return size_err(err, len, d->name, v, ret);
		if (!o->size)
			return bad(err, len, d->name, v, "must not be zero");
		break;
	case BF_O_MIN:
		ret = bf_parse_size(v, &o->min);
		if (ret)
			return size_err(err, len, d->name, v, ret);
		if (!o->min)
			return bad(err, len, d->name, v, "must not be zero");
		break;
	case BF_O_TIME:
		ret = bf_parse_duration(v, &o->time_ns);
		if (ret || !o->time_ns)
			return bad(err, len, d->name, v,
				   "expected a duration such as 30s, 5m or 100ms");
		break;
	case BF_O_INTERVAL:
		ret = bf_parse_duration(v, &o->interval_ns);
		if (ret)
			return bad(err, len, d->name, v,
				   "expected a duration such as 1s or 100ms");
		if (o->interval_ns < BLKFLOOR_INTERVAL_MIN_NS)
			return bad(err, len, d->name, v, "must be at least 1ms");
		break;
	case BF_O_LOOPS:
		return set_u32(d->name, v, 1, UINT32_MAX, &o->loops, err, len);
	case BF_O_RATE:
		ret = bf_parse_rate(v, &o->rate_bps, &o->rate_iops);
		if (ret || (!o->rate_bps && !o->rate_iops))
			return bad(err, len, d->name, v,
				   "expected a rate such as 50MB/s, 1GiB/s or 1000iops");
		break;
	case BF_O_DATA:
		if (!strcmp(v, "random"))
			o->data = BLKFLOOR_DATA_RANDOM;
		else if (!strcmp(v, "zero"))
			o->data = BLKFLOOR_DATA_ZERO;
		else if (!strcmp(v, "verify"))
			o->data = BLKFLOOR_DATA_VERIFY;
		else if (!strcmp(v, "shared"))
			o->data = BLKFLOOR_DATA_SHARED;
		else
			return bad(err, len, d->name, v,
				   "expected random, zero, verify or shared");
		break;
	case BF_O_SEED:
		if (bf_parse_uint(v, UINT64_MAX, &o->seed))
			return bad(err, len, d->name, v, "not a number");
		break;
	case BF_O_ERR_LIMIT:
		return set_u32(d->name, v, 0, UINT32_MAX, &o->err_limit, err,
			       len);
	case BF_O_ERR_LOG:
		return set_u32(d->name, v, 0, BLKFLOOR_ERR_LOG_MAX, &o->err_log,
			       err, len);
	case BF_O_RING:
		return set_u32(d->name, v, BLKFLOOR_RING_MIN, BLKFLOOR_RING_MAX,
			       &o->ring, err, len);
	case BF_O_PERCENT:
		return set_u32(d->name, v, 1, 100, &o->percent, err, len);
	case BF_O_FORMAT: {
		enum bf_format f;

		if (bf_format_parse(v, &f))
			return bad(err, len, d->name, v,
				   "expected trace, fio or csv");
		o->format = f;
		break;
	}
	case BF_O_OUTPUT:
		if (!*v)
			return bad(err, len, d->name, v, "empty file name");
		o->output = v;
		break;
	case BF_O_WORKLOAD:
		if (!*v)
			return bad(err, len, d->name, v,
				   "expected randwrite, write, randread, read or a fio job or JSON file");
		o->workload = v;
		break;
	case BF_O_TRACE:
		if (!*v)
			return bad(err, len, d->name, v, "empty file name");
		o->trace = v;
		break;
	case BF_O_TEMP_FILE:
		if (!*v)
			return bad(err, len, d->name, v, "empty file name");
		o->temp_file = v;
		break;
	case BF_O_UNTIL:
		if (bf_parse_until(v, o))
			return bad(err, len, d->name, v,
				   "expected floor, full, a size (100GB) or a duration (30m)");
		break;
	case BF_O_GAPS:
		if (bf_parse_gaps(v, o))
			return bad(err, len, d->name, v,
				   "expected 2 to 6 growing durations, such as 10s,60s,4m");
		break;
	case BF_O_DIAGNOSE:
		o->diagnose = true;
		break;
	case BF_O_TRIM:
		o->trim = true;
		break;
	case BF_O_FUA:
		o->fua = true;
		break;
	case BF_O_PREFLUSH:
		o->preflush = true;
		break;
	case BF_O_NO_MERGE:
		o->no_merge = true;
		break;
	case BF_O_FAILFAST:
		o->failfast = true;
		break;
	case BF_O_NO_OWN:
		o->no_own = true;
		break;
	case BF_O_OWN:
		o->no_own = false;
		break;
	case BF_O_FORCE:
		o->force = true;
		break;
	case BF_O_JSON:
		o->json = true;
		break;
	case BF_O_QUIET:
		o->quiet = true;
		break;
	case BF_O_YES:
		o->yes = true;
		break;
	case BF_O_NR:
		break;
	}
	return 0;
}

int bf_opts_parse(struct bf_opts *o, int argc, char **argv, uint64_t allowed,
		  int min_pos, int max_pos, char *err, size_t errlen)
{
	bool only_pos = false;
	int i, ret;

	o->npos = 0;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *val = NULL, *eq;
		const struct optdef *d = NULL;
		size_t k, nlen;

		if (only_pos || a[0] != '-' || !a[1]) {
			if (o->npos >= max_pos || o->npos >= BF_MAX_POS) {
				snprintf(err, errlen, "unexpected argument '%s'",
					 a);
				return -EINVAL;
			}
			o->pos[o->npos++] = a;
			continue;
		}
		if (!strcmp(a, "--")) {
			only_pos = true;
			continue;
		}
		if (!strcmp(a, "-o") && (allowed & BF_OPT(OUTPUT)))
			a = "--output";	/* the one short option */
		if (a[1] != '-') {
			snprintf(err, errlen, "unknown option '%s'", a);
			return -EINVAL;
		}
		a += 2;
		eq = strchr(a, '=');
		nlen = eq ? (size_t)(eq - a) : strlen(a);
		for (k = 0; k < sizeof(optdefs) / sizeof(optdefs[0]); k++) {
			if (strlen(optdefs[k].name) == nlen &&
			    !strncmp(optdefs[k].name, a, nlen) &&
			    (allowed & (1ULL << optdefs[k].id))) {
				d = &optdefs[k];
				break;
			}
		}
		if (!d) {
			snprintf(err, errlen, "unknown option '--%.*s'",
				 (int)nlen, a);
			return -EINVAL;
		}
		if (d->arg) {
			if (eq) {
				val = eq + 1;
			} else if (i + 1 < argc) {
				val = argv[++i];
			} else {
				snprintf(err, errlen, "option '--%s' needs a value",
					 d->name);
				return -EINVAL;
			}
		} else if (eq) {
			snprintf(err, errlen, "option '--%s' takes no value",
				 d->name);
			return -EINVAL;
		}
		ret = apply(o, d, val, err, errlen);
		if (ret)
			return ret;
		o->set |= 1ULL << d->id;
		if ((o->set & BF_OPT(OWN)) && (o->set & BF_OPT(NO_OWN))) {
			snprintf(err, errlen, "--own and --no-own contradict each other");
			return -EINVAL;
		}
	}
	if (o->npos < min_pos) {
		snprintf(err, errlen, "missing argument");
		return -EINVAL;
	}
	return 0;
}
