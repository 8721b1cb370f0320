// cpu-path-2026-11-24.cc - the CPU path's figures (docs/bench/cpu-path-2026-11-24.md): clsort_sort with AUTO
// and with BITONIC on PoCL, std::sort and Highway's vqsort, random u32 / f32 (finite) / u64 at
// 2^22 and 2^24, median of 5 fresh random inputs each; wall time and process CPU time.
// Build: c++ -O2 -std=c++17 -Iinclude docs/bench/cpu-path-2026-11-24.cc build/libclsort.a -lOpenCL -lpthread -lm -linih
//        -lhwy_contrib -lhwy -lstdc++
#include <algorithm>
#include <clsort.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <hwy/contrib/sort/vqsort.h>
#include <random>
#include <vector>

static double wall() { timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e3 + t.tv_nsec * 1e-6; }
static double cpu() { timespec t; clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t); return t.tv_sec * 1e3 + t.tv_nsec * 1e-6; }
static double median(std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }

template <typename T> static void fill(std::vector<T> &v, std::mt19937_64 &g)
{
    for (auto &x : v) {
        if constexpr (std::is_same_v<T, float>)
            x = (float)(int32_t)(uint32_t)g() * (1.0f / 65536.0f); // finite, both signs
        else
            x = (T)g();
    }
}

template <typename T> static void run(clsort_ctx *ctx, clsort_type type, const char *name, int lg)
{
    const size_t n = (size_t)1 << lg;
    std::vector<T> src(n), k(n);
    std::mt19937_64 g(lg * 7 + type);
    const char *what[4] = {"clsort AUTO", "clsort BITONIC", "std::sort", "vqsort"};
    std::vector<double> w[4], c[4];
    for (int r = -1; r < 5; ++r) { // one warm-up (PoCL compiles at the first launch of a size)
        fill(src, g);
        for (int m = 0; m < 4; ++m) {
            std::copy(src.begin(), src.end(), k.begin());
            const double w0 = wall(), c0 = cpu();
            int rc = 0;
            if (m == 0) rc = clsort_sort(ctx, k.data(), n, type, CLSORT_AUTO, 0);
            else if (m == 1) rc = clsort_sort(ctx, k.data(), n, type, CLSORT_BITONIC, 0);
            else if (m == 2) std::sort(k.begin(), k.end());
            else hwy::Sorter()(k.data(), n, hwy::SortAscending());
            const double w1 = wall(), c1 = cpu();
            if (rc || !std::is_sorted(k.begin(), k.end())) { fprintf(stderr, "%s %s failed\n", name, what[m]); exit(1); }
            if (m == 0 && r == 0) {
                clsort_stats st; clsort_get_stats(ctx, &st);
                if (!st.host_fallback) fprintf(stderr, "note: AUTO ran a network\n");
            }
            if (r >= 0) { w[m].push_back(w1 - w0); c[m].push_back(c1 - c0); }
        }
    }
    for (int m = 0; m < 4; ++m)
        printf("| %s | 2^%d | %s | %.1f | %.1f |\n", name, lg, what[m], median(w[m]), median(c[m]));
    fflush(stdout);
}

int main(int argc, char **argv)
{
    clsort_ctx *ctx = nullptr;
    if (clsort_create(&ctx, nullptr)) { fprintf(stderr, "no context\n"); return 1; }
    clsort_device_info d; clsort_get_device_info(ctx, &d);
    printf("device: %s (%s), config: %s\n", d.name, d.type, d.config_source);
    printf("| keys | n | sort | wall ms | CPU ms |\n|---|---|---|---|---|\n");
    for (int a = 1; a < argc; ++a) {
        const int lg = atoi(argv[a]);
        run<uint32_t>(ctx, CLSORT_U32, "u32", lg);
        run<float>(ctx, CLSORT_F32, "f32", lg);
        run<uint64_t>(ctx, CLSORT_U64, "u64", lg);
    }
    clsort_destroy(ctx);
}
