/* LD_PRELOAD shim: host time spent in each OpenCL call (count, total us), printed at exit.
 * CLTIME_SKIP=N ignores the first N calls of clsort's segment sorts? no: everything is counted;
 * segtime prints per-call figures by dividing. */
#define _GNU_SOURCE
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e6+t.tv_nsec*1e-3;}
enum{NF=24}; static const char*nm[NF]; static double tt[NF]; static long cnt[NF]; static int on=1;
void cltime_reset(void){memset(tt,0,sizeof tt);memset(cnt,0,sizeof cnt);}
void cltime_print(const char*tag,double div){for(int i=0;i<NF;i++)if(cnt[i])fprintf(stderr,"%s %-28s %7.2f calls %8.1f us\n",tag,nm[i],cnt[i]/div,tt[i]/div);}
#define W(i,ret,name,params,args) \
  ret name params { static ret (*f_) params; if(!f_){f_=(ret(*)params)dlsym(RTLD_NEXT,#name);nm[i]=#name;} \
  double t0_=now(); ret r_=f_ args; tt[i]+=now()-t0_; cnt[i]++; return r_; }
W(0,cl_int,clEnqueueNDRangeKernel,(cl_command_queue q,cl_kernel k,cl_uint d,const size_t*o,const size_t*g,const size_t*l,cl_uint n,const cl_event*w,cl_event*e),(q,k,d,o,g,l,n,w,e))
W(1,cl_int,clSetKernelArg,(cl_kernel k,cl_uint i,size_t s,const void*v),(k,i,s,v))
W(2,cl_int,clEnqueueFillBuffer,(cl_command_queue q,cl_mem b,const void*p,size_t ps,size_t o,size_t s,cl_uint n,const cl_event*w,cl_event*e),(q,b,p,ps,o,s,n,w,e))
W(3,cl_int,clGetMemObjectInfo,(cl_mem m,cl_mem_info p,size_t s,void*v,size_t*r),(m,p,s,v,r))
W(4,cl_int,clReleaseEvent,(cl_event e),(e))
W(5,cl_int,clRetainEvent,(cl_event e),(e))
W(6,cl_int,clFlush,(cl_command_queue q),(q))
W(7,cl_int,clGetEventProfilingInfo,(cl_event e,cl_profiling_info p,size_t s,void*v,size_t*r),(e,p,s,v,r))
W(8,cl_int,clWaitForEvents,(cl_uint n,const cl_event*e),(n,e))
W(9,cl_int,clGetKernelWorkGroupInfo,(cl_kernel k,cl_device_id d,cl_kernel_work_group_info p,size_t s,void*v,size_t*r),(k,d,p,s,v,r))
W(10,cl_int,clEnqueueMarkerWithWaitList,(cl_command_queue q,cl_uint n,const cl_event*w,cl_event*e),(q,n,w,e))
W(11,cl_int,clGetDeviceInfo,(cl_device_id d,cl_device_info p,size_t s,void*v,size_t*r),(d,p,s,v,r))
W(12,cl_int,clFinish,(cl_command_queue q),(q))
W(13,cl_int,clEnqueueWriteBuffer,(cl_command_queue q,cl_mem b,cl_bool bl,size_t o,size_t s,const void*p,cl_uint n,const cl_event*w,cl_event*e),(q,b,bl,o,s,p,n,w,e))
W(14,cl_int,clGetCommandQueueInfo,(cl_command_queue q,cl_command_queue_info p,size_t s,void*v,size_t*r),(q,p,s,v,r))
W(15,cl_int,clGetEventInfo,(cl_event e,cl_event_info p,size_t s,void*v,size_t*r),(e,p,s,v,r))
W(16,cl_int,clEnqueueMigrateMemObjects,(cl_command_queue q,cl_uint nm_,const cl_mem*m,cl_mem_migration_flags f,cl_uint n,const cl_event*w,cl_event*e),(q,nm_,m,f,n,w,e))
W(17,cl_int,clGetKernelInfo,(cl_kernel k,cl_kernel_info p,size_t s,void*v,size_t*r),(k,p,s,v,r))
