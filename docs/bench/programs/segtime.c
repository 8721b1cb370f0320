/* Host clock of clsort_sort_segments_buffer on uploaded data: the call alone (enqueue), the call +
 * clFinish, and the stats' device span; also bare OpenCL costs (fill + finish, an empty queue's
 * finish). Args: s values. Median of 31 after 3 warm-ups. */
#define CL_TARGET_OPENCL_VERSION 120
#include <clsort.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <time.h>
#include <dlfcn.h>
static void (*ct_reset)(void); static void (*ct_print)(const char*,double);
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e6+t.tv_nsec*1e-3;}
static int cmpd(const void*a,const void*b){double x=*(const double*)a,y=*(const double*)b;return (x>y)-(x<y);}
static double med(double*v,int n){qsort(v,n,sizeof*v,cmpd);return v[n/2];}
int main(int argc,char**argv){
  ct_reset=(void(*)(void))dlsym(RTLD_DEFAULT,"cltime_reset"); ct_print=(void(*)(const char*,double))dlsym(RTLD_DEFAULT,"cltime_print");
  const size_t n=(size_t)1<<(getenv("SEGN")?atoi(getenv("SEGN")):24); clsort_ctx*ctx; if(clsort_create(&ctx,getenv("SEGDEV")?getenv("SEGDEV"):"gpu")){puts("ctx");return 1;}
  cl_command_queue q=clsort_get_queue(ctx); cl_context c; clGetCommandQueueInfo(q,CL_QUEUE_CONTEXT,sizeof c,&c,NULL);
  uint32_t*k=malloc(n*4); uint64_t s=1; for(size_t i=0;i<n;i++){s^=s<<13;s^=s>>7;s^=s<<17;k[i]=(uint32_t)s;}
  cl_int e; cl_mem bk=clCreateBuffer(c,CL_MEM_READ_WRITE,n*4,NULL,&e);
  enum{R=31};
  { double f[R],z[R]; cl_uint zero=0;
    for(int r=0;r<R+3;r++){ double t0=now(); clEnqueueFillBuffer(q,bk,&zero,4,0,128,0,NULL,NULL); clFinish(q); double t1=now(); clFinish(q); double t2=now(); if(r>=3){f[r-3]=t1-t0; z[r-3]=t2-t1;} }
    printf("bare: fill(128 B)+finish %.1f us, empty finish %.1f us\n",med(f,R),med(z,R)); }
  { double en[R],tot[R]; size_t m=n<((size_t)1<<20)?n:((size_t)1<<20);
    for(int r=0;r<R+3;r++){ clEnqueueWriteBuffer(q,bk,CL_TRUE,0,m*4,k,0,NULL,NULL); if(r==3&&ct_reset)ct_reset();
      double t0=now(); int rc=clsort_sort_buffer(ctx,bk,NULL,0,m,CLSORT_U32,CLSORT_AUTO,0,0,NULL,NULL); double t1=now(); clFinish(q); double t2=now();
      if(rc){printf("rc %d %s\n",rc,clsort_last_error(ctx));return 1;} if(r>=3){en[r-3]=t1-t0;tot[r-3]=t2-t0;} }
    if(ct_print){fflush(stdout);ct_print("one 2^20",R);}
    printf("one array 2^20 clsort_sort_buffer: enqueue %.1f us, enqueue+finish %.1f us\n",med(en,R),med(tot,R)); }
  { /* launch costs: with and without an event, on clsort's profiling queue and on a plain one */
    cl_device_id dev; clGetCommandQueueInfo(q,CL_QUEUE_DEVICE,sizeof dev,&dev,NULL);
    const char*src="__kernel void nop(__global uint*a, uint n){ if(get_global_id(0)>=n) a[0]=1; }";
    cl_program pg=clCreateProgramWithSource(c,1,&src,NULL,&e); clBuildProgram(pg,1,&dev,"",NULL,NULL);
    cl_kernel kn=clCreateKernel(pg,"nop",&e); cl_uint big=1u<<30; clSetKernelArg(kn,0,sizeof bk,&bk); clSetKernelArg(kn,1,sizeof big,&big);
    cl_command_queue qp=clCreateCommandQueue(c,dev,0,&e);
    cl_command_queue qs[2]={q,qp}; const char*qn[2]={"profiling queue","plain queue"};
    for(int qi=0;qi<2;qi++) for(int we=0;we<2;we++) for(int kind=0;kind<2;kind++){
      double t[R]; size_t g=1<<20,l=256; cl_uint zero=0;
      for(int r=0;r<R+3;r++){ clFinish(qs[qi]); double t0=now();
        for(int i=0;i<16;i++){ cl_event ev=NULL;
          if(kind==0) clEnqueueNDRangeKernel(qs[qi],kn,1,NULL,&g,&l,0,NULL,we?&ev:NULL);
          else clEnqueueFillBuffer(qs[qi],bk,&zero,4,0,128,0,NULL,we?&ev:NULL);
          if(ev) clReleaseEvent(ev); }
        double t1=now(); clFinish(qs[qi]); double t2=now(); if(r>=3) t[r-3]=(t1-t0)/16; (void)t2; }
      (void)0;
      printf("micro %-16s %-12s %-6s: %.1f us per enqueue (16 in a row)\n",qn[qi],we?"with event":"no event",kind?"fill":"kernel",med(t,R)); }
  }
  { /* the first command after a blocking 64 MiB write: host time of its enqueue, and to finish */
    cl_device_id dev; clGetCommandQueueInfo(q,CL_QUEUE_DEVICE,sizeof dev,&dev,NULL);
    const char*src="__kernel void nop(__global uint*a, uint n){ if(get_global_id(0)>=n) a[0]=1; }";
    cl_program pg=clCreateProgramWithSource(c,1,&src,NULL,&e); clBuildProgram(pg,1,&dev,"",NULL,NULL);
    cl_kernel kn=clCreateKernel(pg,"nop",&e); cl_uint big=1u<<30; cl_mem small=clCreateBuffer(c,CL_MEM_READ_WRITE,4096,NULL,&e);
    clSetKernelArg(kn,0,sizeof small,&small); clSetKernelArg(kn,1,sizeof big,&big);
    for(int kind=0;kind<6;kind++){ double en[R],tot[R]; size_t g=256,l=256; cl_uint zero=0;
      for(int r=0;r<R+3;r++){
        if(kind<4) clEnqueueWriteBuffer(q,bk,CL_TRUE,0,n*4,k,0,NULL,NULL); else { clEnqueueWriteBuffer(q,small,CL_TRUE,0,64,k,0,NULL,NULL); }
        cl_event ev=NULL; double t0=now();
        if(kind%2==0) clEnqueueFillBuffer(q,small,&zero,4,0,128,0,NULL,kind<2||kind==4?&ev:NULL);
        else clEnqueueNDRangeKernel(q,kn,1,NULL,&g,&l,0,NULL,kind<2||kind==5?&ev:NULL);
        double t1=now(); clFinish(q); double t2=now(); if(ev)clReleaseEvent(ev); if(r>=3){en[r-3]=t1-t0;tot[r-3]=t2-t0;} }
      static const char*kn_[6]={"fill, event, after 64 MiB write","kernel, event, after 64 MiB write","fill, no event, after 64 MiB write","kernel, no event, after 64 MiB write","fill, event, after 64 B write","kernel, event, after 64 B write"};
      printf("first command: %-36s enqueue %.1f us, to finish %.1f us\n",kn_[kind],med(en,R),med(tot,R)); }
  }
  for(int a=1;a<argc;a++){ size_t sl=strtoull(argv[a],0,10), nseg=n/sl; uint64_t*o=malloc((nseg+1)*8); for(size_t i=0;i<=nseg;i++)o[i]=i*sl;
    cl_mem bo=clCreateBuffer(c,CL_MEM_READ_WRITE|CL_MEM_COPY_HOST_PTR,(nseg+1)*8,o,&e);
    double en[R],tot[R],dev[R];
    for(int r=0;r<R+3;r++){ clEnqueueWriteBuffer(q,bk,CL_TRUE,0,n*4,k,0,NULL,NULL);
      if(r==3&&ct_reset)ct_reset();
      double t0=now(); int rc=clsort_sort_segments_buffer(ctx,bk,NULL,0,bo,nseg,CLSORT_U32,CLSORT_AUTO,0,0,NULL,NULL); double t1=now(); clFinish(q); double t2=now();
      if(rc){printf("rc %d %s\n",rc,clsort_last_error(ctx));return 1;}
      clsort_stats st; clsort_get_stats(ctx,&st); if(r>=3){en[r-3]=t1-t0;tot[r-3]=t2-t0;dev[r-3]=st.device_ns/1e3;} }
    if(ct_print){char tag[32];snprintf(tag,sizeof tag,"s=%zu",sl);fflush(stdout);ct_print(tag,R);}
    printf("s=%zu: enqueue %.1f us, enqueue+finish %.1f us, stats device span %.1f us\n",sl,med(en,R),med(tot,R),med(dev,R));
    clReleaseMemObject(bo); free(o); }
  return 0; }
