/* wb2 PATH GiB THREADS PREP MODE: times each phase of writing GiB from memory into PATH.
 * PREP: n none, t ftruncate, f fallocate. MODE: p pwrite (16 MiB pieces, threads take turns of
 * pieces), m MAP_SHARED + memcpy, d the same + MADV_DONTNEED of each piece after its copy. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
static char *src, *map; static size_t total; static int nth, fd; static char mode; static atomic_size_t next;
#define PIECE ((size_t)16 << 20)
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static void *work(void *a){ (void)a; for(;;){ size_t off = atomic_fetch_add(&next, PIECE); if(off>=total) break;
  size_t len = total-off<PIECE?total-off:PIECE;
  if(mode=='p'){ if(pwrite(fd,src+off,len,off)!=(ssize_t)len){perror("pwrite");exit(1);} }
  else { memcpy(map+off,src+off,len); if(mode=='d') madvise(map+off,len,MADV_DONTNEED);} } return 0;}
int main(int argc,char**argv){ if(argc<6)return 2; total=(size_t)atol(argv[2])<<30; nth=atoi(argv[3]); char prep=argv[4][0]; mode=argv[5][0];
 src=malloc(total); for(size_t i=0;i<total;i+=8)*(unsigned long*)(src+i)=i*0x9E3779B97F4A7C15ull;
 unlink(argv[1]); double t0=now(); fd=open(argv[1],O_RDWR|O_CREAT|O_TRUNC,0644); if(fd<0){perror("open");return 1;}
 if(prep=='t'&&ftruncate(fd,total)){perror("ftruncate");return 1;} if(prep=='f'&&fallocate(fd,0,0,total)){perror("fallocate");return 1;}
 if(mode!='p'){ if(prep=='n'&&ftruncate(fd,total)){perror("ftruncate");return 1;} map=mmap(0,total,PROT_READ|PROT_WRITE,MAP_SHARED,fd,0); if(map==MAP_FAILED){perror("mmap");return 1;} }
 double t1=now(); pthread_t t[64]; for(long i=0;i<nth;i++)pthread_create(&t[i],0,work,0); for(int i=0;i<nth;i++)pthread_join(t[i],0);
 double t2=now(); if(mode!='p')munmap(map,total); double t3=now(); close(fd); double t4=now(); unlink(argv[1]); double t5=now();
 printf("WB2 %s %dG th%-2d prep %c mode %c: prep %.3f copy %.3f (%.1f GiB/s) unmap %.3f close %.3f | total %.3f (unlink %.3f)\n",argv[1],atoi(argv[2]),nth,prep,mode,t1-t0,t2-t1,total/(t2-t1)/(1<<30),t3-t2,t4-t3,t4-t0,t5-t4); return 0;}
