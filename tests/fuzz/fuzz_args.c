/* fuzz_args.c - libFuzzer harness for the clsort command line: the size parser (cli_parse_size)
 * and the whole option parser (cli_parse_args), compiled from tools/clsort/clsort_args.c unchanged.
 *
 * Input: NUL-separated arguments (argv[0] is "clsort"). The first argument is also given to
 * cli_parse_size on its own. Properties checked besides "no crash, no sanitizer report":
 * a size that parses equals the digits times the suffix's power of 1024, and a successful parse
 * of a sort or check command leaves a key that fits inside its record. */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clsort_args.h"
#include "clsort_messages.h"
#include "clsort_units.h"

#define MAX_ARGS 64

/* glibc's getopt keeps a pointer into the previous argv when a parse stopped inside a cluster
 * of short options ("-rZq" stopped at Z). The CLI parses once per process, so that is harmless
 * there; here the previous argv is freed, so reset getopt completely (optind = 0) between runs. */
static void reset_getopt(void)
{
    static char prog[] = "x";
    char *argv[] = {prog, NULL};
    optind = 0;
    opterr = 0;
    (void)getopt(1, argv, "");
}

/* An independent reading of the size syntax: digits, then K/M/G/T with optional B or iB, or
 * a bare B/b. Returns 0 and *out, or -1. Overflow is checked with 128-bit arithmetic. */
static int reference_size(const char *s, uint64_t *out)
{
    unsigned __int128 v = 0;
    size_t i = 0;
    if (s[0] < '0' || s[0] > '9')
        return -1;
    for (; s[i] >= '0' && s[i] <= '9'; ++i) {
        v = v * 10 + (unsigned)(s[i] - '0');
        if (v > UINT64_MAX)
            return -1;
    }
    const char *rest = s + i;
    static const char *const suffixes[] = {"", "B", "b"};
    for (size_t k = 0; k < 3; ++k)
        if (!strcmp(rest, suffixes[k])) {
            *out = (uint64_t)v;
            return 0;
        }
    static const char units[] = "KMGT";
    for (unsigned u = 0; u < 4; ++u) {
        const char up = units[u], low = (char)(units[u] + ('a' - 'A'));
        if (rest[0] != up && rest[0] != low)
            continue;
        if (strcmp(rest + 1, "") && strcmp(rest + 1, "B") && strcmp(rest + 1, "iB"))
            return -1;
        v <<= 10 * (u + 1);
        if (v > UINT64_MAX)
            return -1;
        *out = (uint64_t)v;
        return 0;
    }
    return -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0;
    char *buf = malloc(size + 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    buf[size] = 0;

    /* 1. The size parser on the first argument. */
    uint64_t got = 0, want = 0;
    const int rc_got = cli_parse_size(buf, &got);
    const int rc_want = reference_size(buf, &want);
    if (rc_got != rc_want || (rc_got == 0 && got != want)) {
        fprintf(stderr, "cli_parse_size(\"%s\"): rc %d value %llu, expected rc %d value %llu\n",
                buf, rc_got, (unsigned long long)got, rc_want, (unsigned long long)want);
        abort();
    }

    /* 2. The option parser on all arguments. */
    static char prog[] = "clsort";
    char *argv[MAX_ARGS + 2];
    int argc = 0;
    argv[argc++] = prog;
    for (size_t at = 0; at <= size && argc <= MAX_ARGS; at += strlen(buf + at) + 1)
        argv[argc++] = buf + at;
    argv[argc] = NULL;
    cli_opts opts;
    cli_display_level = 1;
    const int rc = cli_parse_args(argc, argv, &opts);
    if (rc == CLI_EXIT_OK && (opts.mode == CLI_MODE_SORT || opts.mode == CLI_MODE_CHECK)) {
        if (!opts.key_size || opts.key_size != clsort_type_size(opts.type) ||
            opts.record_size < opts.key_size ||
            opts.key_offset > opts.record_size - opts.key_size || !opts.tmpdir ||
            (opts.mode == CLI_MODE_CHECK && opts.output)) {
            fprintf(stderr, "cli_parse_args accepted an inconsistent command: key %zu at %zu "
                            "in %zu-byte records\n",
                    opts.key_size, opts.key_offset, opts.record_size);
            abort();
        }
    } else if (rc != CLI_EXIT_OK && rc != CLI_EXIT_USAGE) {
        fprintf(stderr, "cli_parse_args returned %d\n", rc);
        abort();
    }
    reset_getopt();
    free(buf);
    return 0;
}
