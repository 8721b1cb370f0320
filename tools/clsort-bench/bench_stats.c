/* bench_stats.c - the clock and the median that every measurement and the report share; below
 * bench_measure.c and bench_report.c, so that the report never calls back into the measurements. */
#include <stdlib.h>
#include "bench.h"
#include "clsort_units.h"

/* Milliseconds on the tools' monotonic clock (clsort_units.h). */
double bench_now_ms(void)
{
    return (double)cli_now_ns() / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(double *v, int n)
{
    if (n <= 0) return -1.0;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return (n & 1) ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
