/* test_cache_api.c - clsort_cache_path and clsort_clear_cache: the place
 * follows CLSORT_CACHE_DIR, an absolute XDG_CACHE_HOME and HOME, and ignores a relative
 * XDG_CACHE_HOME as the program cache itself does; clearing removes the entries and temporary
 * files this user's clsort wrote and nothing else (other files, links, subdirectories); a
 * missing directory is fine; a real cache filled by a sort is emptied and refilled. With the CLI
 * built ($BUILD/clsort), `XDG_CACHE_HOME=. clsort --clear-cache` deletes nothing in the current
 * directory. Every directory is temporary. */
#include "test_util.h"

#include <sys/stat.h>
#include <unistd.h>

static char root[256];

static void put_file(const char *dir, const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs("x", f);
        fclose(f);
    }
}

static int exists(const char *dir, const char *name)
{
    char path[1024];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return lstat(path, &st) == 0;
}

static void clear_env(void)
{
    unsetenv("CLSORT_CACHE_DIR");
    unsetenv("XDG_CACHE_HOME");
    unsetenv("HOME");
}

static void test_path(void)
{
    char buf[1024], home[512];
    snprintf(home, sizeof home, "%s/home", root);
    clear_env();
    setenv("CLSORT_CACHE_DIR", "/some/where", 1);
    setenv("XDG_CACHE_HOME", "/xdg", 1);
    t_is_status(clsort_cache_path(buf, sizeof buf), CLSORT_OK, "clsort_cache_path");
    t_is_str(buf, "/some/where", "... CLSORT_CACHE_DIR first");
    unsetenv("CLSORT_CACHE_DIR");
    setenv("HOME", home, 1);
    clsort_cache_path(buf, sizeof buf);
    t_is_str(buf, "/xdg/clsort", "... then an absolute XDG_CACHE_HOME");
    setenv("XDG_CACHE_HOME", ".", 1);
    char want[1024];
    snprintf(want, sizeof want, "%s/.cache/clsort", home);
    clsort_cache_path(buf, sizeof buf);
    t_is_str(buf, want, "... a relative XDG_CACHE_HOME is ignored: HOME's");
    setenv("XDG_CACHE_HOME", "", 1);
    clsort_cache_path(buf, sizeof buf);
    t_is_str(buf, want, "... so is an empty one");
    unsetenv("HOME");
    setenv("XDG_CACHE_HOME", "rel/dir", 1);
    strcpy(buf, "garbage");
    t_is_status(clsort_cache_path(buf, sizeof buf), CLSORT_ERR_INVALID_ARG,
                "no CLSORT_CACHE_DIR, a relative XDG_CACHE_HOME and no HOME: no place");
    t_is_str(buf, "", "... and buf is \"\"");
    t_is_status(clsort_clear_cache(NULL), CLSORT_ERR_INVALID_ARG,
                "clsort_clear_cache without a place: CLSORT_ERR_INVALID_ARG");
    setenv("CLSORT_CACHE_DIR", "/some/where", 1);
    char small[6] = "xxxxx";
    t_is_status(clsort_cache_path(small, sizeof small), CLSORT_ERR_INVALID_ARG,
                "clsort_cache_path with a buffer too small");
    t_is_str(small, "", "... leaves it \"\"");
    t_is_status(clsort_cache_path(NULL, 10), CLSORT_ERR_INVALID_ARG, "clsort_cache_path(NULL)");
    t_is_status(clsort_cache_path(small, 0), CLSORT_ERR_INVALID_ARG, "clsort_cache_path(.., 0)");
}

#define ENTRY "0123456789abcdef0123456789ABCDEF.clbin"
#define ENTRY2 "fedcba9876543210fedcba9876543210.clbin"
#define TMPF "0123456789abcdef0123456789abcdef.clbin.123.4.5.tmp"

static void test_clear(void)
{
    char dir[512], sub[600], outside[512];
    snprintf(dir, sizeof dir, "%s/cache", root);
    snprintf(sub, sizeof sub, "%s/subdir.clbin", dir);
    snprintf(outside, sizeof outside, "%s/outside", root);
    clear_env();
    setenv("CLSORT_CACHE_DIR", dir, 1);
    unsigned removed = 99;
    t_is_status(clsort_clear_cache(&removed), CLSORT_OK, "clearing a cache that does not exist");
    t_is_int(removed, 0, "... removes nothing");

    mkdir(dir, 0700);
    mkdir(sub, 0700);
    mkdir(outside, 0700);
    put_file(dir, ENTRY);
    put_file(dir, ENTRY2);
    put_file(dir, TMPF);
    put_file(dir, "notes.txt");
    put_file(dir, "short.clbin");
    put_file(outside, "target");
    char link_path[1024], target[1024];
    snprintf(link_path, sizeof link_path, "%s/%s", dir, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.clbin");
    snprintf(target, sizeof target, "%s/target", outside);
    if (symlink(target, link_path) != 0)
        t_diag("symlink failed");
    t_is_status(clsort_clear_cache(&removed), CLSORT_OK, "clsort_clear_cache");
    t_is_int(removed, 3, "... removed two entries and a temporary file");
    t_ok(!exists(dir, ENTRY) && !exists(dir, ENTRY2) && !exists(dir, TMPF), "... they are gone");
    t_ok(exists(dir, "notes.txt") && exists(dir, "short.clbin"),
         "... other files stay (notes.txt, a name that is not an entry's)");
    t_ok(exists(dir, "subdir.clbin"), "... a subdirectory stays");
    t_ok(exists(dir, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.clbin") && exists(outside, "target"),
         "... a link under an entry's name stays, and so does its target");
    t_is_status(clsort_clear_cache(NULL), CLSORT_OK, "clearing again, removed NULL");
}

/* A real cache: a sort fills it, clearing empties it, the next fresh sort builds again. */
static void test_real(void)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s/real", root);
    clear_env();
    setenv("CLSORT_CACHE_DIR", dir, 1);
    enum { N = 3000 };
    static uint32_t keys[N];
    for (int round = 0; round < 2; ++round) {
        t_rng r = t_rng_for(9, N, round, 0);
        for (size_t i = 0; i < N; ++i)
            keys[i] = (uint32_t)t_rand64(&r);
        clsort_ctx *ctx = t_create_ctx();
        const int rc = clsort_sort(ctx, keys, N, CLSORT_U32, CLSORT_BITONIC, CLSORT_NO_HOST_FALLBACK);
        t_is_status(rc, CLSORT_OK, "sort %d with the cache in %s", round + 1, dir);
        clsort_destroy(ctx);
        unsigned removed = 0;
        t_is_status(clsort_clear_cache(&removed), CLSORT_OK, "... clsort_clear_cache");
        t_ok(removed >= 1, "... removed the %u entries the sort stored", removed);
    }
}

/* The CLI's --clear-cache goes through the library: a relative XDG_CACHE_HOME names nothing. */
static void test_cli(void)
{
    const char *build = getenv("BUILD");
    char cli[1024], cwd[1024], home[512], cmd[4096];
    if (!getcwd(cwd, sizeof cwd))
        cwd[0] = 0;
    snprintf(cli, sizeof cli, "%s/%s/clsort", cwd, build && *build ? build : "build");
    if (access(cli, X_OK) != 0) {
        t_skip("no CLI at %s", cli);
        return;
    }
    char work[600];
    snprintf(work, sizeof work, "%s/work", root);
    snprintf(home, sizeof home, "%s/clihome", root);
    mkdir(work, 0700);
    char here[700], theirs[700];
    snprintf(here, sizeof here, "%s/clsort", work);
    snprintf(theirs, sizeof theirs, "%s/.cache", home);
    mkdir(here, 0700);
    mkdir(home, 0700);
    mkdir(theirs, 0700);
    snprintf(theirs, sizeof theirs, "%s/.cache/clsort", home);
    mkdir(theirs, 0700);
    put_file(here, ENTRY);
    put_file(work, ENTRY2);
    put_file(theirs, ENTRY);
    snprintf(cmd, sizeof cmd,
             "cd '%s' && env -u CLSORT_CACHE_DIR XDG_CACHE_HOME=. HOME='%s' '%s' --clear-cache "
             ">/dev/null 2>&1",
             work, home, cli);
    const int st = system(cmd);
    t_ok(st == 0, "XDG_CACHE_HOME=. clsort --clear-cache exits 0 (%d)", st);
    t_ok(exists(here, ENTRY) && exists(work, ENTRY2),
         "... and deletes nothing in . (./clsort/ and . keep their files)");
    t_ok(!exists(theirs, ENTRY), "... it cleared $HOME/.cache/clsort instead");
}

int main(void)
{
    t_init("test_cache_api");
    snprintf(root, sizeof root, "%s/clsort-cacheapi-XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(root))
        t_bail("mkdtemp failed");
    char *home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
    test_path();
    test_clear();
    if (home)
        setenv("HOME", home, 1);
    test_real();
    test_cli();
    t_remove_tree(root);
    free(home);
    return t_done();
}
