/* clsort_prepare(max_n) then one clsort_sort of max_n u32 keys from malloc'd memory, timed: does prepare hang at 2^29? */
#define CL_TARGET_OPENCL_VERSION 120
#include <clsort.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int main(int argc,char**argv){
  size_t n=(size_t)1<<atoi(argv[1]); int mode=argc>2?atoi(argv[2]):0;
  clsort_ctx*ctx; if(clsort_create(&ctx,"gpu")){puts("ctx");return 1;}
  double t0=now(); int rc=0;
  if(mode!=1){ rc=clsort_prepare(ctx,CLSORT_U32,0,n,0); printf("prepare(2^%s) rc=%d %s %.3f s\n",argv[1],rc,rc?clsort_last_error(ctx):"",now()-t0); fflush(stdout); }
  uint32_t*k=malloc(n*4); uint64_t s=1; for(size_t i=0;i<n;i++){s^=s<<13;s^=s>>7;s^=s<<17;k[i]=(uint32_t)s;}
  t0=now(); rc=clsort_sort(ctx,k,n,CLSORT_U32,CLSORT_AUTO,0); printf("sort rc=%d %.3f s\n",rc,now()-t0);
  size_t bad=0; for(size_t i=1;i<n;i++) bad+=k[i-1]>k[i]; printf("bad=%zu\n",bad); return 0; }
