// Anchor: CUB DeviceRadixSort on u64 keys and u32+u32 pairs, 2^20..2^26, CUDA events, best of 8.
#include <cub/cub.cuh>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#define CK(x) do{cudaError_t e=(x); if(e){printf("CUDA %s at %d\n",cudaGetErrorString(e),__LINE__);exit(1);}}while(0)
static unsigned long long rng(unsigned long long *s){*s^=*s<<13;*s^=*s>>7;*s^=*s<<17;return *s;}
int main(){
  for(int lg=20; lg<=26; lg+=2){
    size_t n=(size_t)1<<lg; unsigned long long s=88172645463325252ULL+lg;
    std::vector<unsigned long long> h(n); for(size_t i=0;i<n;i++) h[i]=rng(&s);
    unsigned long long *a,*b; CK(cudaMalloc(&a,n*8)); CK(cudaMalloc(&b,n*8));
    CK(cudaMemcpy(a,h.data(),n*8,cudaMemcpyHostToDevice));
    size_t tb=0; cub::DeviceRadixSort::SortKeys(nullptr,tb,a,b,(int)n); void*t; CK(cudaMalloc(&t,tb));
    cudaEvent_t e0,e1; cudaEventCreate(&e0); cudaEventCreate(&e1); float ms, best=1e9;
    for(int r=0;r<10;r++){ cudaEventRecord(e0); cub::DeviceRadixSort::SortKeys(t,tb,a,b,(int)n); cudaEventRecord(e1); cudaEventSynchronize(e1); cudaEventElapsedTime(&ms,e0,e1); if(r>1) best=std::min(best,ms);}
    std::vector<unsigned long long> o(n); CK(cudaMemcpy(o.data(),b,n*8,cudaMemcpyDeviceToHost));
    std::sort(h.begin(),h.end()); int ok = o==h;
    float u64=best; cudaFree(t);
    unsigned *k=(unsigned*)a, *v=k+n, *k2=(unsigned*)b, *v2=k2+n;
    tb=0; cub::DeviceRadixSort::SortPairs(nullptr,tb,k,k2,v,v2,(int)n); CK(cudaMalloc(&t,tb)); best=1e9;
    for(int r=0;r<10;r++){ cudaEventRecord(e0); cub::DeviceRadixSort::SortPairs(t,tb,k,k2,v,v2,(int)n); cudaEventRecord(e1); cudaEventSynchronize(e1); cudaEventElapsedTime(&ms,e0,e1); if(r>1) best=std::min(best,ms);}
    printf("n=2^%d cub_u64 %.3f ms ok=%d | cub_pairs32 %.3f ms\n", lg, u64, ok, best);
    cudaFree(a);cudaFree(b);cudaFree(t);
  }
}
