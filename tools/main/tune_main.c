/* tune_main.c - clsort-tune: finds the fastest kernel parameters of each network for a device,
 * which network AUTO should use per size and where the host sort beats the device, and writes
 * them as the device's config (docs/tuning.md, docs/clsort-tune.1). Uses only clsort.h. */
#include "tune.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "clsort_messages.h"
#include "clsort_options.h"

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: clsort-tune [-d DEVICE] [--quick] [--budget SECONDS] [-o FILE] [-v]\n"
            "                   [--progress]\n"
            "Measures the fastest kernel parameters of every sorting network on an OpenCL device\n"
            "and writes them as the device's config, where clsort looks first.\n"
            "  -d, --device DEVICE  the device: \"gpu\", \"cpu\", \"P:D\" or part of its name\n"
            "                       (default: CLSORT_DEVICE, else the first GPU, else the CPU)\n"
            "      --quick          a short search: keys alone, fewer candidates and sizes\n"
            "                       (under 2 minutes on a 2-core CPU with PoCL)\n"
            "      --budget SECONDS the whole run's time (default 95 with --quick, else 540);\n"
            "                       the search gets 72%%, AUTO 15%%, the host fallback the rest\n"
            "                       (on a GPU shared with the radix sort's crossovers: 50/50;\n"
            "                       on a CPU device with AUTO's host path: 40/60)\n"
            "  -o, --output FILE    write the config to FILE (\"-\": standard output) instead of\n"
            "                       the first place the runtime looks for this device\n"
            "  -v, --verbose        every candidate and measurement on stderr\n"
            "      --progress       progress on stderr even when it is not a terminal\n"
            "  -h, --help           print this help and exit\n"
            "  -V, --version        print the version and exit\n"
            "Exit status: 0 config written, 2 usage error, 3 cannot write the config, 4 no usable\n"
            "device.\n");
}

static int parse_args(int argc, char **argv, tune_opts *o)
{
    enum { OPT_QUICK = 256, OPT_PROGRESS, OPT_BUDGET };
    static const struct option longs[] = {
        {"device", required_argument, NULL, 'd'}, {"quick", no_argument, NULL, OPT_QUICK},
        {"output", required_argument, NULL, 'o'}, {"verbose", no_argument, NULL, 'v'},
        {"progress", no_argument, NULL, OPT_PROGRESS}, {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'}, {"budget", required_argument, NULL, OPT_BUDGET},
        {NULL, 0, NULL, 0}};
    memset(o, 0, sizeof *o);
    opterr = 0;
    int c;
    const char *given;
    while ((c = cli_next_option(argc, argv, ":d:o:vhV", longs, &given)) != -1) {
        switch (c) {
        case 'd':
            o->device = optarg;
            break;
        case 'o':
            if (!*optarg) {
                fprintf(stderr, "clsort-tune: -o needs a file name\n");
                return -1;
            }
            o->output = optarg;
            break;
        case 'v':
            o->verbose = 1;
            break;
        case OPT_QUICK:
            o->quick = 1;
            break;
        case OPT_PROGRESS:
            o->progress = 1;
            break;
        case OPT_BUDGET: {
            char *end;
            const double b = strtod(optarg, &end);
            if (end == optarg || *end || !(b >= 10 && b <= 86400)) {
                fprintf(stderr, "clsort-tune: --budget takes seconds, 10 to 86400 (got '%s')\n",
                        optarg);
                return -1;
            }
            o->budget = b;
            break;
        }
        case 'h':
            usage(stdout);
            exit(TUNE_EXIT_OK);
        case 'V':
            printf("clsort-tune %s (library %s)\n", CLSORT_VERSION_STRING,
                   clsort_version_string());
            exit(TUNE_EXIT_OK);
        default: { /* a usage error, said as every tool says it (clsort_options.h) */
            cli_shared_opts so;
            cli_shared_opts_init(&so);
            cli_shared_option(c, given, "clsort-tune", &so);
            return -1;
        }
        }
    }
    if (optind < argc) {
        fprintf(stderr, "clsort-tune: unexpected argument '%s' (see clsort-tune --help)\n",
                argv[optind]);
        return -1;
    }
    if (isatty(2))
        o->progress = 1;
    return 0;
}

/* Size ranges of one combination: the winner at each smaller size, where it differs from the
 * parameters the next larger size gets, for inputs up to the geometric middle (a power of two)
 * between that size and the next. The runtime takes the first range that covers n. */
static void write_size_ranges(FILE *f, int net, int w, int k, const tune_result *r)
{
    for (int i = r->nsizes - 2; i >= 0; --i) {
        const clsort_params *p = &r->size_best[i], *next = &r->size_best[i + 1];
        if (tune_same_params(p, next))
            continue;
        uint64_t bound = r->size_n[i];
        while (bound * bound * 2 <= r->size_n[i] * r->size_n[i + 1])
            bound <<= 1;
        fprintf(f, "\n[%s.%d.%s@%llu]\n", clsort_algorithm_name(tune_algo(net)), w ? 64 : 32,
                tune_kind_name(k), (unsigned long long)bound);
        fprintf(f, "# %.2f Mkeys/s at n=%llu (start point: %.2f Mkeys/s)\n",
                r->size_rate[i] / 1e6, (unsigned long long)r->size_n[i],
                r->size_start_rate[i] / 1e6);
        tune_write_params(f, p);
    }
}

/* ---- The config file ---------------------------------------------------------------------- */

static void write_config(const tune_state *s, FILE *f, const char *date, double secs)
{
    const clsort_device_info *i = &s->info;
    fprintf(f, "# clsort tuned config, written by clsort-tune %s%s in %.0f s\n",
            clsort_version_string(), s->o->quick ? " --quick" : "", secs);
    fprintf(f, "# device: %s\n# vendor: %s\n# driver: %s\n# platform: %s\n# date: %s\n", i->name,
            i->vendor, i->driver, i->platform, date);
    fprintf(f, "# Sections [network.keybits.kind] (kind: keys, pairs4, pairs8) hold the kernel\n"
               "# parameters; missing ones get clsort's built-in defaults. docs/tuning.md.\n");
    if (s->unsearched)
        fprintf(f, "# %d combination%s not searched within the budget (defaults apply).\n",
                s->unsearched, s->unsearched == 1 ? " was" : "s were");
    fprintf(f, "\n");
    fprintf(f, "[device]\nname = %s\nvendor = %s\ndriver = %s\nplatform = %s\n"
               "clsort_version = %s\ndate = %s\n\n",
            i->name, i->vendor, i->driver, i->platform, clsort_version_string(), date);
    fprintf(f, "[auto]\n");
    if (s->nrules) {
        fprintf(f, "# AUTO: the fastest network per size (32-bit keys, device time):");
        for (int k = 0; k < s->nauto; ++k)
            fprintf(f, "%s%llu %s", k == 0 ? "\n#  " : k % 4 ? ", " : ",\n#  ",
                    (unsigned long long)s->auto_pts[k].n,
                    clsort_algorithm_name(tune_algo(s->auto_pts[k].winner)));
        fprintf(f, "\n");
        for (int r = 0; r < s->nrules; ++r) {
            if (s->rule_max[r] == UINT64_MAX)
                fprintf(f, "rule = max %s\n", clsort_algorithm_name(s->rule_algo[r]));
            else
                fprintf(f, "rule = %llu %s\n", (unsigned long long)s->rule_max[r],
                        clsort_algorithm_name(s->rule_algo[r]));
        }
    }
    if (s->nhost) {
        fprintf(f, "# host sort against the device round trip (us):");
        for (int k = 0; k < s->nhost; ++k)
            fprintf(f, "%s%llu %.0f/%.0f", k == 0 ? "\n#  " : k % 5 ? ", " : ",\n#  ",
                    (unsigned long long)s->host_pts[k].n,
                    s->host_pts[k].host_ns / 1e3, s->host_pts[k].device_ns / 1e3);
        fprintf(f, "\n%shost_fallback_max = %llu\n",
                s->host_wins_all ? "# (the host sort won at every size measured)\n" : "",
                (unsigned long long)s->host_fallback_max);
    }
    if (s->npath) {
        fprintf(f, "# AUTO's host path: the host sort against the device round trip (ms):");
        for (int k = 0; k < s->npath; ++k)
            fprintf(f, "%s%llu %.2f/%.2f", k == 0 ? "\n#  " : k % 4 ? ", " : ",\n#  ",
                    (unsigned long long)s->path_pts[k].n, s->path_pts[k].host_ns / 1e6,
                    s->path_pts[k].device_ns / 1e6);
        if (s->host_path_max == UINT64_MAX)
            fprintf(f, "\nhost_path_max = max\n");
        else
            fprintf(f, "\nhost_path_max = %llu\n", (unsigned long long)s->host_path_max);
    }
    for (int w = 0; w < TUNE_WIDTHS; ++w)
        for (int k = 0; k < TUNE_KINDS; ++k)
            if (s->radix_min[w][k])
                fprintf(f, "# AUTO: the radix sort beat bitonic (device time) from n = %llu on\n"
                           "radix_min_n_k%d%s = %llu\n",
                        (unsigned long long)s->radix_min[w][k], w ? 8 : 4,
                        k == 0 ? "" : k == 1 ? "_v4" : "_v8",
                        (unsigned long long)s->radix_min[w][k]);
    for (int net = 0; net < TUNE_NETS; ++net)
        for (int w = 0; w < TUNE_WIDTHS; ++w)
            for (int k = 0; k < TUNE_KINDS; ++k) {
                const tune_result *r = &s->res[net][w][k];
                if (!r->tuned)
                    continue;
                fprintf(f, "\n[%s.%d.%s]\n", clsort_algorithm_name(tune_algo(net)), w ? 64 : 32,
                        tune_kind_name(k));
                fprintf(f, "# %.2f Mkeys/s at n=%llu (start point: %.2f Mkeys/s); %u tried, %u "
                           "failed\n",
                        r->best_rate / 1e6, (unsigned long long)r->rate_n, r->start_rate / 1e6,
                        r->tried, r->failed);
                tune_write_params(f, &r->best);
                write_size_ranges(f, net, w, k, r);
            }
}

/* mkdir -p of the directory part of path. */
static int make_parent_dirs(const char *path)
{
    char buf[4096];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
        return -1;
    char *slash = strrchr(buf, '/');
    if (!slash || slash == buf)
        return 0;
    *slash = 0;
    for (char *p = buf + 1; *p; ++p)
        if (*p == '/') {
            *p = 0;
            if (mkdir(buf, 0755) != 0 && errno != EEXIST)
                return -1;
            *p = '/';
        }
    return mkdir(buf, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

/* Writes the config to path atomically (a temporary file renamed), or to stdout for "-". */
static int save_config(const tune_state *s, const char *path, const char *date, double secs)
{
    if (!strcmp(path, "-")) {
        write_config(s, stdout, date, secs);
        return fflush(stdout) == 0 ? 0 : -1;
    }
    if (make_parent_dirs(path)) {
        fprintf(stderr, "clsort-tune: cannot create the directory of %s: %s\n", path,
                strerror(errno));
        return -1;
    }
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) {
        fprintf(stderr, "clsort-tune: cannot write %s: %s\n", tmp, strerror(errno));
        return -1;
    }
    write_config(s, f, date, secs);
    const int bad = ferror(f);
    if (fclose(f) != 0 || bad || rename(tmp, path) != 0) {
        fprintf(stderr, "clsort-tune: cannot write %s: %s\n", path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}

/* ---- Summary -------------------------------------------------------------------------------- */

static void print_summary(const tune_state *s, const char *where, double secs)
{
    FILE *f = (s->o->output && !strcmp(s->o->output, "-")) ? stderr : stdout;
    fprintf(f, "\nclsort-tune: %s (%s, driver %s)%s, %.0f s\n", s->info.name, s->info.platform,
            s->info.driver, s->o->quick ? ", --quick" : "", secs);
    fprintf(f, "%-23s %4s %-7s", "network", "key", "kind");
    tune_print_params(f, NULL);
    fprintf(f, " %10s %10s %9s\n", "Mkeys/s", "start", "n");
    for (int net = 0; net < TUNE_NETS; ++net)
        for (int w = 0; w < TUNE_WIDTHS; ++w)
            for (int k = 0; k < TUNE_KINDS; ++k) {
                const tune_result *r = &s->res[net][w][k];
                if (!r->tuned)
                    continue;
                fprintf(f, "%-23s %4d %-7s", clsort_algorithm_name(tune_algo(net)), w ? 64 : 32,
                        tune_kind_name(k));
                tune_print_params(f, &r->best);
                fprintf(f, " %10.2f %10.2f %9llu\n", r->best_rate / 1e6, r->start_rate / 1e6,
                        (unsigned long long)r->rate_n);
                /* The winners at smaller sizes, where they differ (the config's size ranges). */
                for (int i = r->nsizes - 2; i >= 0; --i) {
                    const clsort_params *p = &r->size_best[i];
                    if (!memcmp(p, &r->size_best[i + 1], sizeof *p))
                        continue;
                    fprintf(f, "%-23s %4s %-7s", "  (smaller n)", "", "");
                    tune_print_params(f, p);
                    fprintf(f, " %10.2f %10.2f %9llu\n", r->size_rate[i] / 1e6,
                            r->size_start_rate[i] / 1e6, (unsigned long long)r->size_n[i]);
                }
            }
    if (s->nrules) {
        fprintf(f, "AUTO:");
        for (int r = 0; r < s->nrules; ++r) {
            if (s->rule_max[r] == UINT64_MAX)
                fprintf(f, "%s%s", r ? "; larger: " : " every n: ",
                        clsort_algorithm_name(s->rule_algo[r]));
            else
                fprintf(f, "%sn <= %llu: %s", r ? "; " : " ", (unsigned long long)s->rule_max[r],
                        clsort_algorithm_name(s->rule_algo[r]));
        }
        fprintf(f, "\n");
        if (s->auto_partial)
            fprintf(f, "AUTO: measured up to n = %llu only (budget); bitonic above\n",
                    (unsigned long long)s->auto_pts[s->nauto - 1].n);
    } else {
        fprintf(f, "AUTO: not measured (budget): clsort's default, bitonic\n");
    }
    for (int w = 0; w < TUNE_WIDTHS; ++w)
        for (int k = 0; k < TUNE_KINDS; ++k)
            if (s->radix_done[w][k] && s->radix_min[w][k])
                fprintf(f, "radix: AUTO takes the radix sort for %s %s from n = %llu\n",
                        w ? "u64" : "u32", tune_kind_name(k),
                        (unsigned long long)s->radix_min[w][k]);
            else if (s->radix_done[w][k])
                fprintf(f, "radix: %s %s: no crossover measured (clsort's default stays)\n",
                        w ? "u64" : "u32", tune_kind_name(k));
    if (s->nhost)
        fprintf(f, "host fallback: host arrays up to n = %llu are sorted on the host%s\n",
                (unsigned long long)s->host_fallback_max,
                s->host_wins_all ? " (the host sort won at every size measured)" : "");
    else
        fprintf(f, "host fallback: not measured (budget or a failure above): clsort's default\n");
    if (s->npath && s->host_path_max == UINT64_MAX)
        fprintf(f, "host path: AUTO sorts host arrays of every size on the host (the host sort won "
                   "at every size measured, up to n = %llu)\n",
                (unsigned long long)s->path_pts[s->npath - 1].n);
    else if (s->npath)
        fprintf(f, "host path: AUTO sorts host arrays up to n = %llu on the host\n",
                (unsigned long long)s->host_path_max);
    else if (!strcmp(s->info.type, "cpu"))
        fprintf(f, "host path: not measured (budget or a failure above): clsort's default\n");
    if (s->unsearched)
        fprintf(f, "%d combination%s not searched within the budget: %s clsort's defaults "
                   "(a larger --budget searches them)\n",
                s->unsearched, s->unsearched == 1 ? "" : "s",
                s->unsearched == 1 ? "it keeps" : "they keep");
    if (s->failures)
        fprintf(f, "%u candidate%s failed (reported above) and %s skipped\n", s->failures,
                s->failures == 1 ? "" : "s", s->failures == 1 ? "was" : "were");
    if (where)
        fprintf(f, "config written to %s\n", where);
}

/* The sizes the search measures and the repetitions of each measurement (--quick: fewer). */
static void choose_sizes(tune_state *s)
{
    if (s->o->quick) {
        s->sizes[0] = 1u << 15;
        s->sizes[1] = 1u << 17;
        s->nsizes = 2;
        s->reps = 2;
        return;
    }
    s->sizes[0] = 1u << 16;
    s->sizes[1] = 1u << 20;
    s->sizes[2] = 1u << 24;
    s->nsizes = 3;
    /* The largest size that fits comfortably: 2^26 where the device has 16 GiB or more
     * (tune_search halves it further where one allocation cannot hold it). */
    if (s->info.global_mem >= ((uint64_t)16 << 30))
        s->sizes[s->nsizes++] = 1u << 26;
    s->reps = 3;
}

int main(int argc, char **argv)
{
    cli_set_program_name("clsort-tune");
    tune_opts o;
    if (parse_args(argc, argv, &o))
        return TUNE_EXIT_USAGE;
    /* Candidates are built once each: keep them out of the program cache. */
    setenv("CLSORT_NO_CACHE", "1", 1);

    static tune_state s;
    s.o = &o;
    s.t_start = tune_now();
    int rc = clsort_create(&s.ctx, o.device);
    if (rc != CLSORT_OK) {
        fprintf(stderr, "clsort-tune: no device%s%s: %s\n", o.device ? " matching " : "",
                o.device ? o.device : "", clsort_strerror(rc));
        return TUNE_EXIT_DEVICE;
    }
    clsort_get_device_info(s.ctx, &s.info);
    char path[4096];
    const char *where = o.output;
    if (!where) {
        if (clsort_config_path(s.ctx, path, sizeof path) != CLSORT_OK) {
            fprintf(stderr, "clsort-tune: no place for the config: set CLSORT_CONFIG_DIR, "
                            "XDG_CONFIG_HOME or HOME, or give -o FILE\n");
            clsort_destroy(s.ctx);
            return TUNE_EXIT_IO;
        }
        where = path;
    }
    if (o.verbose) {
        fprintf(stderr, "clsort-tune: device %u:%u %s (%s, %s, driver %s), config in use: %s\n",
                s.info.platform_index, s.info.device_index, s.info.name, s.info.type,
                s.info.platform, s.info.driver, s.info.config_source);
        const char *w = clsort_warnings(s.ctx);
        if (w && *w)
            fprintf(stderr, "clsort-tune: library warnings:\n%s", w);
        fprintf(stderr, "clsort-tune: writing to %s\n", where);
    }

    choose_sizes(&s);
    const double total = o.budget > 0 ? o.budget : o.quick ? 95.0 : 540.0;
    const double search_end = s.t_start + total * 0.72, auto_end = s.t_start + total * 0.87,
                 host_end = s.t_start + total;
    s.hard_end = host_end;
    s.run_limit = o.quick ? 0.4 : 2.0;

    int combos[TUNE_NETS * TUNE_WIDTHS * TUNE_KINDS][3], ncombos = 0;
    for (int k = 0; k < TUNE_KINDS; ++k)
        for (int w = 0; w < TUNE_WIDTHS; ++w)
            for (int net = 0; net < TUNE_NETS; ++net) {
                if (o.quick && k != 0)
                    continue;
                combos[ncombos][0] = net;
                combos[ncombos][1] = w;
                combos[ncombos][2] = k;
                ++ncombos;
            }
    /* The budget is a hard limit: program builds on a cold driver cache can take seconds each, so
     * a combination reached after the search's end is not searched at all (its section is left
     * out and the runtime's defaults apply); the first is always searched, so a config results.
     * Keys alone come first, bitonic first among them: the combinations that matter most. */
    for (int c = 0; c < ncombos; ++c) {
        const double now = tune_now();
        if (c > 0 && now >= search_end) {
            s.unsearched = ncombos - c;
            if (o.verbose)
                fprintf(stderr, "clsort-tune: out of time: %d combination%s not searched "
                                "(defaults)\n", s.unsearched, s.unsearched == 1 ? "" : "s");
            break;
        }
        const double share = (search_end - now) / (ncombos - c);
        tune_search(&s, combos[c][0], combos[c][1], combos[c][2], now + (share > 0 ? share : 0));
    }
    int any = 0;
    for (int c = 0; c < ncombos; ++c)
        any |= s.res[combos[c][0]][combos[c][1]][combos[c][2]].best_rate > 0;
    if (!any) {
        tune_progress_done(&s);
        fprintf(stderr, "clsort-tune: nothing sorted correctly on %s; no config written\n",
                s.info.name);
        clsort_destroy(s.ctx);
        return TUNE_EXIT_DEVICE;
    }
    tune_measure_auto(&s, auto_end);
    /* On a GPU the radix sort's crossovers take half of what is left. */
    tune_measure_radix(&s, auto_end + (host_end - auto_end) * 0.5);
    /* On a CPU device the rest is shared: the fallback's small sizes first, then AUTO's host
     * path (a few large sorts, a second or two each on PoCL). */
    const int cpu = strcmp(s.info.type, "cpu") == 0;
    tune_measure_host_fallback(&s, cpu ? auto_end + (host_end - auto_end) * 0.4 : host_end);
    tune_measure_host_path(&s, host_end);
    tune_progress_done(&s);

    const double secs = tune_now() - s.t_start;
    char date[32];
    const time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    const int saved = save_config(&s, where, date, secs);
    print_summary(&s, saved == 0 && strcmp(where, "-") ? where : NULL, secs);
    clsort_destroy(s.ctx);
    return saved == 0 ? TUNE_EXIT_OK : TUNE_EXIT_IO;
}
