// SPDX-License-Identifier: GPL-2.0
/*
 * list, stop, monitor, version: control and observation of runs.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/signalfd.h>
#include <netlink/genl/genl.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/family.h>

#include "cli.h"
#include "devinfo.h"
#include "pathmon.h"
#include "units.h"

struct list_state {
	bool json;
	struct bf_json j;
	unsigned int n;
};

static int list_cb(const struct bf_nl_msg *m, void *arg)
{
	struct list_state *ls = arg;
	struct bf_run_info ri;
	char a[BF_FMT_LEN], b[BF_FMT_LEN];

	if (bf_run_info_parse(m, &ri))
		return 0;
	if (ls->json) {
		bf_json_obj_open(&ls->j, NULL);
		bf_json_u64(&ls->j, "schema", BF_JSON_SCHEMA);
		bf_json_u64(&ls->j, "id", ri.id);
		bf_json_str(&ls->j, "device", ri.dev);
		bf_json_str(&ls->j, "op", bf_rw_name(ri.op, ri.pattern));
		bf_json_str(&ls->j, "state", bf_state_name(ri.state));
		bf_json_u64(&ls->j, "bytes", ri.bytes);
		bf_json_double(&ls->j, "elapsed_s", ri.elapsed_ns / 1e9);
		bf_json_double(&ls->j, "mbps", bf_run_bps(&ri) / 1e6);
		if (ri.state == BLKFLOOR_STATE_FAILED)
			bf_json_i64(&ls->j, "errno", ri.err);
		bf_json_u64(&ls->j, "ios", ri.ios);
		bf_json_u64(&ls->j, "errors", ri.errors);
		bf_json_u64(&ls->j, "intervals", ri.intervals);
		bf_json_u64(&ls->j, "dropped", ri.dropped);
		bf_json_u64(&ls->j, "owner_portid", ri.owner);
		bf_json_obj_close(&ls->j);
	} else {
		if (!ls->n)
			printf("%5s  %-16s %-12s %-8s %10s %12s  %s\n", "ID",
			       "DEVICE", "OP", "STATE", "BYTES", "MEAN", "OWNER");
		/* The owner only matters while its socket can still stop it. */
		printf("%5u  %-16s %-12s %-8s %10s %12s  %s\n", ri.id, ri.dev,
		       bf_rw_name(ri.op, ri.pattern), bf_state_name(ri.state),
		       bf_fmt_bytes(a, sizeof(a), ri.bytes),
		       bf_fmt_rate(b, sizeof(b), bf_run_bps(&ri)),
		       ri.owner && !bf_state_ended(ri.state) ?
		       "owned" : "-");
	}
	ls->n++;
	return 0;
}

static int do_list(int argc, char **argv)
{
	struct list_state ls = { 0 };
	struct bf_opts o = { 0 };
	struct nl_msg *msg;
	struct bf_ctx c;
	char err[160];
	int ret;

	if (bf_opts_parse(&o, argc, argv, BF_OPT(JSON), 0, 0, err, sizeof(err)))
		return bf_usage(argv[0], err);
	if (bf_ctx_open(&c, NULL))
		return EXIT_FAIL;
	ls.json = o.json;
	if (ls.json) {
		bf_json_init(&ls.j, stdout);
		bf_json_arr_open(&ls.j, NULL);
	}
	msg = bf_nl_msg(&c.nl, BLKFLOOR_CMD_RUN_GET, true);
	ret = msg ? bf_nl_request(&c.nl, msg, list_cb, &ls) : -ENOMEM;
	if (ls.json)
		bf_json_arr_close(&ls.j);
	else if (!ret && !ls.n)
		printf("no runs\n");
	if (ret)
		fprintf(stderr, "blkfloor: cannot list runs: %s\n",
			strerror(-ret));
	bf_ctx_close(&c);
	return ret ? EXIT_FAIL : EXIT_OK;
}

BLKFLOOR_COMMAND(list, "[--json]", do_list,
	"List the runs the module knows.\n"
	"Id, device, op, state, bytes, mean rate, whether a socket owns it.\n"
	"  --json            a JSON array");

/* The ids of the runs that have not ended (stop --all). */
struct stop_all {
	uint32_t ids[1024];
	unsigned int n;
	bool truncated;
};

static int stop_all_cb(const struct bf_nl_msg *m, void *arg)
{
	struct stop_all *sa = arg;
	struct bf_run_info ri;

	if (bf_run_info_parse(m, &ri) || bf_state_ended(ri.state))
		return 0;
	if (sa->n == sizeof(sa->ids) / sizeof(sa->ids[0]))
		sa->truncated = true;
	else
		sa->ids[sa->n++] = ri.id;
	return 0;
}

/*
 * Wait until run @id has ended: RUN_STOP answers at once, and the run
 * drains for as long as its device takes. A signal (Ctrl-C) ends the
 * wait, not the run, which ends on its own.
 */
static int stop_wait(struct bf_nl *nl, uint32_t id, struct bf_run_info *ri)
{
	struct timespec tick = { 0, 100 * 1000 * 1000 };
	unsigned int waited = 0;
	int ret;

	for (;;) {
		ret = bf_run_get(nl, id, ri);
		if (ret || bf_state_ended(ri->state))
			return ret;
		if (++waited == 10)
			fprintf(stderr, "blkfloor: run %u is stopping: waiting for %s to complete the I/O in flight (Ctrl-C stops waiting; the run ends on its own)\n",
				id, ri->dev);
		nanosleep(&tick, NULL);
	}
}

static int do_stop(int argc, char **argv)
{
	struct stop_all sa = { .n = 0 };
	bool all = false, wait = true;
	struct bf_run_info ri;
	struct bf_ctx c;
	int i, ret = 0, bad = 0;
	uint64_t id;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--all")) {
			all = true;
		} else if (!strcmp(argv[i], "--no-wait")) {
			wait = false;
		} else if (argv[i][0] == '-') {
			return bf_usage(argv[0], "unknown option");
		} else if (bf_parse_uint(argv[i], UINT32_MAX, &id) || !id) {
			return bf_usage(argv[0], "ID must be a run id (see blkfloor list)");
		} else if (sa.n == sizeof(sa.ids) / sizeof(sa.ids[0])) {
			return bf_usage(argv[0], "too many run ids");
		} else {
			sa.ids[sa.n++] = (uint32_t)id;
		}
	}
	if (all == !!sa.n)
		return bf_usage(argv[0], "give run ids or --all");
	if (bf_ctx_open(&c, NULL))
		return EXIT_FAIL;
	if (all) {
		struct nl_msg *msg = bf_nl_msg(&c.nl, BLKFLOOR_CMD_RUN_GET, true);

		ret = msg ? bf_nl_request(&c.nl, msg, stop_all_cb, &sa) : -ENOMEM;
		if (ret) {
			fprintf(stderr, "blkfloor: cannot list runs: %s\n",
				strerror(-ret));
			bf_ctx_close(&c);
			return EXIT_FAIL;
		}
		if (sa.truncated)
			fprintf(stderr, "blkfloor: more than %u runs: stopping the first ones only\n",
				sa.n);
	}
	for (i = 0; i < (int)sa.n; i++) {
		ret = bf_run_stop(&c.nl, sa.ids[i]);
		if (ret) {
			fprintf(stderr, "blkfloor: cannot stop run %u: %s\n",
				sa.ids[i], strerror(-ret));
			sa.ids[i] = 0;
			bad++;
		}
	}
	for (i = 0; i < (int)sa.n; i++) {
		if (!sa.ids[i])
			continue;
		if (!wait) {
			printf("run %u: stopping\n", sa.ids[i]);
			continue;
		}
		ret = stop_wait(&c.nl, sa.ids[i], &ri);
		if (ret) {
			fprintf(stderr, "blkfloor: run %u: %s\n", sa.ids[i],
				strerror(-ret));
			bad++;
			continue;
		}
		if (ri.state == BLKFLOOR_STATE_FAILED)
			printf("run %u: failed: %s\n", sa.ids[i],
			       strerror(-ri.err));
		else
			printf("run %u: %s\n", sa.ids[i],
			       bf_state_name(ri.state));
	}
	bf_ctx_close(&c);
	return bad ? EXIT_FAIL : EXIT_OK;
}

BLKFLOOR_COMMAND(stop, "ID... | --all [--no-wait]", do_stop,
	"Stop runs and wait until they have ended.\n"
	"The module answers at once; a run then drains the I/O it has in\n"
	"flight, for as long as its device takes (a hung device: until it\n"
	"answers or is removed), and ends in state 'stopped'. Its intervals\n"
	"stay readable. The module cannot be unloaded while a run drains.\n"
	"  --all             every run that has not ended\n"
	"  --no-wait         return once asked (state 'stopping')");

/* The path of one run that monitor follows. */
struct mon_run {
	uint32_t id;
	bool used;
	bool sampled;		/* last is the index of the last sample */
	uint64_t last;
	uint64_t start_real_ns;
	struct bf_pathmon pm;
};

#define MON_RUNS 16

struct mon_state {
	bool json;
	struct bf_hist h;
	struct bf_nl *nl;
	struct mon_run runs[MON_RUNS];
};

/* The path of run @id, followed from now on; NULL if it cannot be. */
static struct mon_run *mon_run(struct mon_state *ms, uint32_t id)
{
	struct mon_run *r, *free_slot = NULL;
	struct bf_run_info ri;
	char name[64];
	int i;

	for (i = 0; i < MON_RUNS; i++) {
		r = &ms->runs[i];
		if (r->used && r->id == id)
			return r;
		if (!r->used && !free_slot)
			free_slot = r;
	}
	if (!free_slot || bf_run_get(ms->nl, id, &ri))
		return NULL;
	r = free_slot;
	bf_dev_basename(ri.dev, name, sizeof(name));
	if (bf_pathmon_init(&r->pm, name, NULL))
		return NULL;
	bf_pathmon_start(&r->pm);
	r->used = true;
	r->id = id;
	r->sampled = false;
	r->start_real_ns = ri.start_time_ns;
	return r;
}

static void mon_run_end(struct mon_state *ms, uint32_t id)
{
	int i;

	for (i = 0; i < MON_RUNS; i++) {
		if (ms->runs[i].used && ms->runs[i].id == id) {
			bf_pathmon_free(&ms->runs[i].pm);
			ms->runs[i].used = false;
		}
	}
}

struct mon_ev {
	struct mon_state *ms;
	struct mon_run *r;
};

static void mon_event(void *arg, enum bf_event_kind kind, uint64_t mono_ns,
		      const char *msg, int len)
{
	struct mon_ev *e = arg;
	double t = bf_run_time_of(mono_ns, e->r->start_real_ns);

	if (len > 200)
		len = 200;
	if (e->ms->json) {
		char m[256];
		struct bf_json j;

		snprintf(m, sizeof(m), "%.*s", len, msg);
		bf_json_doc_open(&j, stdout);
		bf_json_str(&j, "event", bf_event_name(kind));
		bf_json_u64(&j, "run", e->r->id);
		bf_json_double(&j, "time_s", t);
		bf_json_str(&j, "message", m);
		bf_json_obj_close(&j);
	} else {
		printf("run %u  event at %.3f s: %s: %.*s\n", e->r->id, t,
		       bf_event_name(kind), len, msg);
	}
	fflush(stdout);
}

/* Events on the paths of every run followed. */
static void mon_events(struct mon_state *ms)
{
	int i;

	for (i = 0; i < MON_RUNS; i++) {
		struct mon_ev e = { ms, &ms->runs[i] };

		if (ms->runs[i].used)
			bf_pathmon_events(&ms->runs[i].pm, mon_event, NULL,
					  &e);
	}
}

/* The path figures of @iv, or false for the first interval seen. */
static bool mon_path(struct mon_state *ms, uint32_t id,
		     const struct bf_iv *iv, struct bf_pathiv *p)
{
	struct mon_run *r = mon_run(ms, id);
	bool next;

	if (!r)
		return false;
	next = r->sampled && iv->index == r->last + 1;
	bf_pathmon_sample(&r->pm, iv->ios, p);
	r->sampled = true;
	r->last = iv->index;
	return next;
}

static void mon_path_text(const struct bf_pathiv *p)
{
	printf("  req/bio %.2f  req %.0f KiB  util %.0f%%  in flight %llu",
	       p->req_per_bio, p->req_bytes / 1024, p->util * 100,
	       (unsigned long long)p->in_flight);
	if (p->scsi && (p->scsi_err || p->scsi_tmo))
		printf("  SCSI errors %llu timeouts %llu",
		       (unsigned long long)p->scsi_err,
		       (unsigned long long)p->scsi_tmo);
	if (p->temp)
		printf("  %.1f C", p->temp_c);
}

static void mon_path_json(struct bf_json *j, const struct bf_pathiv *p)
{
	bf_json_u64(j, "requests", p->requests);
	bf_json_double(j, "req_per_bio", p->req_per_bio);
	bf_json_double(j, "req_kib", p->req_bytes / 1024);
	bf_json_u64(j, "merges", p->merges);
	bf_json_double(j, "util", p->util);
	bf_json_u64(j, "in_flight", p->in_flight);
	if (p->scsi) {
		bf_json_u64(j, "scsi_err", p->scsi_err);
		bf_json_u64(j, "scsi_tmo", p->scsi_tmo);
	}
	if (p->temp)
		bf_json_double(j, "temp_c", p->temp_c);
}

static int mon_cb(const struct bf_nl_msg *m, void *arg)
{
	struct mon_state *ms = arg;
	char a[BF_FMT_LEN], b[BF_FMT_LEN], c[BF_FMT_LEN];
	uint32_t id;

	if (!m->tb[BLKFLOOR_A_RUN_ID])
		return 0;
	id = nla_get_u32(m->tb[BLKFLOOR_A_RUN_ID]);
	if (m->cmd == BLKFLOOR_CMD_INTERVAL_NTF && m->tb[BLKFLOOR_A_INTERVAL]) {
		struct bf_pathiv path;
		struct bf_iv iv;
		bool have;
		double dt;

		if (bf_iv_parse(m->tb[BLKFLOOR_A_INTERVAL], &iv, &ms->h))
			return 0;
		dt = (iv.end_ns - iv.start_ns) / 1e9;
		have = mon_path(ms, id, &iv, &path);
		if (ms->json) {
			struct bf_json j;

			bf_json_doc_open(&j, stdout);
			bf_json_str(&j, "event", "interval");
			bf_json_u64(&j, "run", id);
			bf_json_u64(&j, "index", iv.index);
			bf_json_double(&j, "start_s", iv.start_ns / 1e9);
			bf_json_double(&j, "end_s", iv.end_ns / 1e9);
			bf_json_u64(&j, "bytes", iv.bytes);
			bf_json_u64(&j, "ios", iv.ios);
			bf_json_u64(&j, "errors", iv.errors);
			bf_json_double(&j, "mbps", dt > 0 ? iv.bytes / dt / 1e6 : 0);
			bf_json_double(&j, "lat_p50_us", iv.p50 / 1e3);
			bf_json_double(&j, "lat_p99_us", iv.p99 / 1e3);
			bf_json_double(&j, "lat_max_us", iv.lat_max / 1e3);
			bf_json_u64(&j, "bytes_total", iv.bytes_total);
			bf_json_u64(&j, "inflight", iv.inflight);
			bf_json_double(&j, "oldest_inflight_us",
				       iv.oldest_ns / 1e3);
			if (have)
				mon_path_json(&j, &path);
			bf_json_obj_close(&j);
		} else {
			printf("run %u  #%llu  %.3f-%.3f s  %s  %llu IOs  %llu errors  p99 %s  total %s",
			       id, (unsigned long long)iv.index,
			       iv.start_ns / 1e9, iv.end_ns / 1e9,
			       bf_fmt_rate(a, sizeof(a),
					   dt > 0 ? iv.bytes / dt : 0),
			       (unsigned long long)iv.ios,
			       (unsigned long long)iv.errors,
			       bf_fmt_lat(b, sizeof(b), iv.p99),
			       bf_fmt_bytes(c, sizeof(c), iv.bytes_total));
			if (have)
				mon_path_text(&path);
			putchar('\n');
		}
	} else if (m->cmd == BLKFLOOR_CMD_RUN_END_NTF) {
		struct bf_run_info ri;

		if (bf_run_info_parse(m, &ri))
			return 0;
		mon_events(ms);
		mon_run_end(ms, id);
		if (ms->json) {
			struct bf_json j;

			bf_json_doc_open(&j, stdout);
			bf_json_str(&j, "event", "end");
			bf_json_u64(&j, "run", id);
			bf_json_str(&j, "device", ri.dev);
			bf_json_str(&j, "state", bf_state_name(ri.state));
			bf_json_i64(&j, "errno", ri.err);
			bf_json_u64(&j, "bytes", ri.bytes);
			bf_json_double(&j, "elapsed_s", ri.elapsed_ns / 1e9);
			bf_json_double(&j, "mbps", bf_run_bps(&ri) / 1e6);
			bf_json_obj_close(&j);
		} else {
			printf("run %u on %s ended: %s%s%s, %s in %s (%s)\n", id,
			       ri.dev, bf_state_name(ri.state),
			       ri.state == BLKFLOOR_STATE_FAILED ? ": " : "",
			       ri.state == BLKFLOOR_STATE_FAILED ?
			       strerror(-ri.err) : "",
			       bf_fmt_bytes(a, sizeof(a), ri.bytes),
			       bf_fmt_duration(b, sizeof(b), ri.elapsed_ns / 1e9),
			       bf_fmt_rate(c, sizeof(c), bf_run_bps(&ri)));
		}
	}
	fflush(stdout);
	return 0;
}

static int do_monitor(int argc, char **argv)
{
	struct bf_nl_events ev;
	struct mon_state *ms;
	struct bf_opts o = { 0 };
	sigset_t mask;
	struct bf_ctx c;
	char err[160];
	int sfd, ret = EXIT_OK;

	if (bf_opts_parse(&o, argc, argv, BF_OPT(JSON), 0, 0, err, sizeof(err)))
		return bf_usage(argv[0], err);
	ms = calloc(1, sizeof(*ms));
	if (!ms)
		return EXIT_FAIL;
	ms->json = o.json;
	ms->nl = &c.nl;
	if (bf_ctx_open(&c, NULL)) {
		free(ms);
		return EXIT_FAIL;
	}
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	sfd = signalfd(-1, &mask, SFD_CLOEXEC);
	if (sfd < 0 || bf_nl_events_open(&c.nl, &ev, mon_cb, ms)) {
		if (sfd >= 0)
			close(sfd);
		bf_ctx_close(&c);
		free(ms);
		return EXIT_FAIL;
	}
	for (;;) {
		struct pollfd pfd[2] = {
			{ .fd = bf_nl_events_fd(&ev), .events = POLLIN },
			{ .fd = sfd, .events = POLLIN },
		};

		/* a quarter of a second: the kernel log's events on the
		 * runs' paths are read between notifications */
		if (poll(pfd, 2, 250) < 0 && errno != EINTR) {
			ret = EXIT_FAIL;
			break;
		}
		mon_events(ms);
		if (pfd[1].revents & POLLIN)
			break;
		if (pfd[0].revents & POLLIN) {
			int r = bf_nl_events_read(&ev);

			if (r == -ENOBUFS)
				fprintf(stderr, "blkfloor: monitor fell behind: some notifications were lost\n");
			else if (r < 0) {
				fprintf(stderr, "blkfloor: monitor: %s\n",
					strerror(-r));
				ret = EXIT_FAIL;
				break;
			}
		}
	}
	bf_nl_events_close(&ev);
	close(sfd);
	for (int i = 0; i < MON_RUNS; i++)
		if (ms->runs[i].used)
			bf_pathmon_free(&ms->runs[i].pm);
	bf_ctx_close(&c);
	free(ms);
	return ret;
}

BLKFLOOR_COMMAND(monitor, "[--json]", do_monitor,
	"Print every interval of every run and every run's end, until Ctrl-C.\n"
	"  --json            one JSON object per line");

static int family_version(struct bf_nl *nl)
{
	struct nl_cache *cache;
	struct genl_family *fam;
	int v = -1;

	if (genl_ctrl_alloc_cache(nl->sk, &cache) < 0)
		return -1;
	fam = genl_ctrl_search_by_name(cache, BLKFLOOR_FAMILY_NAME);
	if (fam) {
		v = genl_family_get_version(fam);
		genl_family_put(fam);
	}
	nl_cache_free(cache);
	return v;
}

static int do_version(int argc, char **argv)
{
	struct bf_opts o = { 0 };
	char err[160], modver[64];
	int fv = -1, vret = -ENOENT;
	struct bf_nl nl;
	bool loaded;

	if (bf_opts_parse(&o, argc, argv, BF_OPT(JSON), 0, 0, err, sizeof(err)))
		return bf_usage(argv[0], err);
	loaded = !bf_nl_open(&nl);
	modver[0] = '\0';
	if (loaded) {
		vret = bf_module_version(&nl, modver, sizeof(modver));
		fv = family_version(&nl);
		bf_nl_close(&nl);
	}
	/* INFO_GET needs CAP_NET_ADMIN; sysfs tells anyone. */
	if (loaded && !modver[0]) {
		FILE *f = fopen("/sys/module/blkfloor/version", "r");

		if (f) {
			if (fgets(modver, sizeof(modver), f))
				modver[strcspn(modver, "\n")] = '\0';
			fclose(f);
		}
	}
	if (o.json) {
		struct bf_json j;

		bf_json_doc_open(&j, stdout);
		bf_json_str(&j, "cli_version", BLKFLOOR_CLI_VERSION);
		bf_json_u64(&j, "abi_version", BLKFLOOR_FAMILY_VERSION);
		bf_json_bool(&j, "module_loaded", loaded);
		if (loaded) {
			bf_json_str(&j, "module_version", modver);
			bf_json_i64(&j, "family_version", fv);
		}
		bf_json_obj_close(&j);
	} else {
		printf("blkfloor CLI %s (ABI version %d)\n", BLKFLOOR_CLI_VERSION,
		       BLKFLOOR_FAMILY_VERSION);
		if (loaded && modver[0])
			printf("blkfloor module %s (family version %d)\n",
			       modver, fv);
		else if (loaded)
			printf("blkfloor module: version unknown (%s; family version %d)\n",
			       strerror(-vret), fv);
		else
			printf("blkfloor module: not loaded\n");
	}
	return loaded ? EXIT_OK : EXIT_FAIL;
}

BLKFLOOR_COMMAND(version, "[--json]", do_version,
	"Print the CLI, module, netlink family and ABI versions.\n"
	"Exits 1 (and says so) when the module is not loaded.\n"
	"  --json            one JSON object");
