/* rus LABEL CMD...: runs CMD, prints LABEL wall user sys minflt majflt nvcsw nivcsw (getrusage). */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int main(int argc,char**argv){ if(argc<3)return 2; double t0=now(); pid_t p=fork();
 if(!p){execvp(argv[2],argv+2);_exit(127);} int st; struct rusage r; wait4(p,&st,0,&r); double t1=now();
 printf("RUS %-26s wall %.3f user %.3f sys %.3f minflt %ld majflt %ld vcsw %ld ivcsw %ld rc %d\n",argv[1],t1-t0,
  r.ru_utime.tv_sec+r.ru_utime.tv_usec*1e-6,r.ru_stime.tv_sec+r.ru_stime.tv_usec*1e-6,r.ru_minflt,r.ru_majflt,r.ru_nvcsw,r.ru_nivcsw,WIFEXITED(st)?WEXITSTATUS(st):128+WTERMSIG(st));
 return 0;}
