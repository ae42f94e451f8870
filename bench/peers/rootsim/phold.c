/* PHOLD for ROOT-Sim 3 with the parameters of `tracewarp bench phold`: N LPs, 16 events per LP, remote 0.1,
 * delay = 0.1 + Exp(0.9), end time T. Usage: phold LPS END THREADS(0 = serial) */
#include <ROOT-Sim.h>
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define EVENT 1
static lp_id_t n_lps;
static simtime_t end_time; /* ROOT-Sim may run a little past it: count only events before it */
static const double p_remote = 0.1, lookahead = 0.1, exp_mean = 0.9;
static const int start_events = 16;
static _Atomic uint64_t committed;

struct state { uint64_t x; uint64_t count; };

static double uniform(struct state *s) { /* splitmix64 */
	uint64_t z = (s->x += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	z ^= z >> 31;
	return (double)(z >> 11) * 0x1.0p-53;
}
static double delay(struct state *s) { return lookahead - exp_mean * log1p(-uniform(s)); }

static void process(lp_id_t me, simtime_t now, unsigned type, const void *content, unsigned size, void *st) {
	(void)content; (void)size;
	struct state *s = st;
	long payload = 0;
	switch (type) {
	case LP_INIT:
		s = rs_malloc(sizeof *s);
		s->x = me * 0x2545F4914F6CDD1Dull + 1;
		s->count = 0;
		SetState(s);
		for (int i = 0; i < start_events; i++) ScheduleNewEvent(me, now + delay(s), EVENT, &payload, sizeof payload);
		break;
	case LP_FINI:
		atomic_fetch_add(&committed, s->count);
		break;
	case EVENT: {
		if (now < end_time) s->count++;
		lp_id_t dest = me;
		if (uniform(s) < p_remote) dest = (lp_id_t)(uniform(s) * n_lps);
		ScheduleNewEvent(dest, now + delay(s), EVENT, &payload, sizeof payload);
		break;
	}
	}
}
static bool can_end(lp_id_t me, const void *snapshot) { (void)me; (void)snapshot; return false; }

int main(int argc, char **argv) {
	if (argc < 4) return 2;
	n_lps = strtoull(argv[1], 0, 10);
	end_time = atof(argv[2]);
	struct simulation_configuration conf = {
	    .lps = n_lps, .n_threads = (unsigned)atoi(argv[3]), .termination_time = atof(argv[2]),
	    .gvt_period = 1000, .log_level = LOG_WARN, .stats_file = NULL, .ckpt_interval = 0,
	    .core_binding = true, .serial = atoi(argv[3]) == 0, .dispatcher = process, .committed = can_end};
	if (conf.serial) conf.n_threads = 1;
	RootsimInit(&conf);
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	int rc = RootsimRun();
	clock_gettime(CLOCK_MONOTONIC, &b);
	double wall = (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) * 1e-9;
	printf("{\"committed\":%llu,\"wall_s\":%.3f,\"events_per_s\":%.0f}\n", (unsigned long long)committed, wall,
	       committed / wall);
	return rc;
}
