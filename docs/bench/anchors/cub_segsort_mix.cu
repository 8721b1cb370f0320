// CUB DeviceSegmentedSort of N = 2^24 u32 keys and u32+u32 pairs, for each length given on the
// command line: "s" for segments of exactly s keys, "us" for lengths uniform in 1..2s. Device time
// (CUDA events), best of 6 after 2 warm-ups; checked by sampling.
#include <cub/cub.cuh>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#define CK(x) do{cudaError_t e=(x); if(e){printf("CUDA %s at %d\n",cudaGetErrorString(e),__LINE__);exit(1);}}while(0)
int main(int argc, char **argv){
  const int N = 1<<24; std::vector<unsigned> h(N); unsigned long long s=88172645463325252ULL;
  for(int i=0;i<N;i++){s^=s<<13;s^=s>>7;s^=s<<17;h[i]=(unsigned)(s>>11);}
  unsigned *a,*b,*va,*vb; int *off; CK(cudaMalloc(&a,N*4)); CK(cudaMalloc(&b,N*4)); CK(cudaMalloc(&va,N*4)); CK(cudaMalloc(&vb,N*4)); CK(cudaMalloc(&off,(size_t)(N+1)*4));
  CK(cudaMemcpy(a,h.data(),N*4,cudaMemcpyHostToDevice)); CK(cudaMemcpy(va,h.data(),N*4,cudaMemcpyHostToDevice));
  cudaEvent_t e0,e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  for(int ai=1; ai<argc; ai++){ bool uni = argv[ai][0]=='u'; int seg=atoi(argv[ai]+(uni?1:0));
    std::vector<int> ho; ho.push_back(0); unsigned long long st=12345;
    while(ho.back()<N){ int len=seg; if(uni){st^=st<<13;st^=st>>7;st^=st<<17; len=1+(int)((st>>11)%(2*seg));} ho.push_back(std::min(N, ho.back()+len)); }
    int ns=(int)ho.size()-1; CK(cudaMemcpy(off,ho.data(),(size_t)(ns+1)*4,cudaMemcpyHostToDevice));
    for(int pairs=0; pairs<2; pairs++){
      size_t tb=0; void*t=nullptr;
      auto run=[&](void*tp){ return pairs ? cub::DeviceSegmentedSort::SortPairs(tp,tb,a,b,va,vb,N,ns,off,off+1)
                                          : cub::DeviceSegmentedSort::SortKeys(tp,tb,a,b,N,ns,off,off+1); };
      CK(run(nullptr)); CK(cudaMalloc(&t,tb)); float ms,best=1e9;
      for(int r=0;r<8;r++){cudaEventRecord(e0); CK(run(t)); cudaEventRecord(e1); cudaEventSynchronize(e1); cudaEventElapsedTime(&ms,e0,e1); if(r>1) best=std::min(best,ms);}
      std::vector<unsigned> o(N); CK(cudaMemcpy(o.data(),b,N*4,cudaMemcpyDeviceToHost)); bool ok=true;
      for(int i=0;i<ns && ok;i+=997){ std::vector<unsigned> r(h.begin()+ho[i],h.begin()+ho[i+1]); std::sort(r.begin(),r.end()); ok = std::equal(r.begin(),r.end(),o.begin()+ho[i]);}
      printf("seg=%6d%s DeviceSegmentedSort %-5s %.3f ms ok=%d\n", seg, uni?" uniform":"", pairs?"pairs":"keys", best, ok);
      cudaFree(t);
    }
  }
}
