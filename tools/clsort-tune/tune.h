/* tune.h - what the parts of clsort-tune share: options, the results of the search, and the
 * measuring functions (tune_measure.c). Uses only the public clsort.h. */
#ifndef CLSORT_TUNE_H
#define CLSORT_TUNE_H

#include <clsort.h>

#include <stdint.h>
#include <stdio.h>

/* clsort's codes where the meanings meet (docs/clsort.1). */
#define TUNE_EXIT_OK 0
#define TUNE_EXIT_USAGE 2  /* bad option or argument */
#define TUNE_EXIT_IO 3     /* the config could not be written */
#define TUNE_EXIT_DEVICE 4 /* no device, or it cannot sort at all */

typedef struct tune_opts {
    const char *device; /* -d: as clsort_create takes it; NULL for the default */
    int quick;          /* --quick: a short search (under 2 minutes on a 2-core CPU with PoCL) */
    double budget;      /* --budget: the whole run's seconds (0: 95 with --quick, else 540) */
    const char *output; /* -o: where to write; NULL for where the runtime looks first */
    int verbose;        /* -v: every candidate and measurement on stderr */
    int progress;       /* --progress, or stderr is a terminal */
} tune_opts;

#define TUNE_NETS 3
#define TUNE_WIDTHS 2
#define TUNE_KINDS 3 /* keys alone, 4-byte values, 8-byte values */
#define TUNE_MAX_SIZES 4
#define TUNE_MAX_POINTS 24

/* The outcome for one (network, key width, kind). */
typedef struct tune_result {
    int tuned;                  /* searched (quick mode leaves some combinations out) */
    clsort_params best, start;  /* the winner and the starting point (config or defaults) */
    double best_rate, start_rate; /* keys/s at the largest size measured */
    uint64_t rate_n;            /* that size */
    unsigned tried, failed, rejected; /* candidates run, failed (reported), out of range */
    /* The fastest candidate at each size measured (the start point among them), for the
     * config's size ranges: a setting is written only for the sizes where it won. */
    int nsizes;
    uint64_t size_n[TUNE_MAX_SIZES];
    clsort_params size_best[TUNE_MAX_SIZES];
    double size_rate[TUNE_MAX_SIZES], size_start_rate[TUNE_MAX_SIZES];
} tune_result;

/* One size of the AUTO and host-fallback measurements. */
typedef struct tune_point {
    uint64_t n;
    double net_ns[TUNE_NETS]; /* device time per network (0: not measured) */
    int winner;               /* index of the fastest network */
    double host_ns, device_ns; /* end to end: host sort, and device with the winner */
} tune_point;

typedef struct tune_state {
    const tune_opts *o;
    clsort_ctx *ctx;
    clsort_device_info info;
    double t_start;       /* seconds, monotonic */
    double search_budget; /* seconds for the parameter search (0: none) */
    uint64_t sizes[TUNE_MAX_SIZES];
    int nsizes;
    int reps;
    tune_result res[TUNE_NETS][TUNE_WIDTHS][TUNE_KINDS];
    tune_point auto_pts[TUNE_MAX_POINTS];
    int nauto;
    tune_point host_pts[TUNE_MAX_POINTS];
    int nhost;
    clsort_algorithm rule_algo[8];
    uint64_t rule_max[8]; /* UINT64_MAX: the rest */
    int nrules;
    int auto_partial; /* the AUTO measurement stopped early (budget) */
    uint64_t host_fallback_max;
    int host_wins_all; /* the host sort won at every size measured */
    /* AUTO's host path (CPU devices): the host sort against the device round trip at large
     * sizes; host_path_max is UINT64_MAX where the host won at every size measured. */
    tune_point path_pts[TUNE_MAX_POINTS];
    int npath;
    uint64_t host_path_max;
    double last_progress;
    /* AUTO's radix sort (GPU devices): from which n it beats bitonic per key width and kind;
     * 0 where not found (the runtime's default stays), radix_done where measured at all. */
    uint64_t radix_min[TUNE_WIDTHS][TUNE_KINDS];
    int radix_done[TUNE_WIDTHS][TUNE_KINDS];
    unsigned failures; /* candidates that failed, over the whole run */
    int unsearched;    /* combinations the budget left out (not in the config: defaults) */
    double hard_end;   /* tune_now() at the end of the budget */
    double run_limit;  /* seconds one run may take before its size gets no repeats */
} tune_state;

/* tune_measure.c */
double tune_now(void);
void tune_progress(tune_state *s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void tune_progress_done(tune_state *s);
/* Searches the parameters of one combination and fills s->res[net][w][k]. */
void tune_search(tune_state *s, int net, int w, int k, double deadline);
/* Measures which network AUTO should use per size, then the host-fallback crossover. */
void tune_measure_auto(tune_state *s, double deadline);
void tune_measure_host_fallback(tune_state *s, double deadline);
/* On a GPU device: from which n AUTO should take the radix sort (CLSORT_RADIX) per key width and
 * kind (s->radix_min); nothing elsewhere. */
void tune_measure_radix(tune_state *s, double deadline);
/* On a CPU device: up to which n AUTO should sort host arrays with the host's own sort
 * (s->host_path_max, s->path_pts); nothing elsewhere (npath stays 0). */
void tune_measure_host_path(tune_state *s, double deadline);

/* tune_params.c: the parameters by row of CLSORT_PARAM_TABLE (an axis of the search): the
 * field, its config key, the powers of two searched; comparison, "key=v ..." text for messages
 * and "key = v" lines for the config. TUNE_P_<field> names a row. */
enum {
#define TUNE_X(name, DNAME, min, max, pow2, tune_lo, tune_hi, key, what) TUNE_P_##name,
    CLSORT_PARAM_TABLE(TUNE_X)
#undef TUNE_X
};
unsigned *tune_param(clsort_params *p, int a);
unsigned tune_param_of(const clsort_params *p, int a);
const char *tune_param_key(int a);
unsigned tune_param_lo(int a);
unsigned tune_param_hi(int a);
int tune_same_params(const clsort_params *a, const clsort_params *b);
const char *tune_params_text(const clsort_params *p, char *out, size_t out_size);
void tune_write_params(FILE *f, const clsort_params *p);
/* The summary table's parameter columns, each after a space: the keys (p NULL) or p's values. */
void tune_print_params(FILE *f, const clsort_params *p);

clsort_algorithm tune_algo(int net);
clsort_type tune_type(int w);
size_t tune_value_size(int k);
const char *tune_kind_name(int k);

#endif /* CLSORT_TUNE_H */
