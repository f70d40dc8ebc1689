#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
static int cmp(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
int main(int argc,char**argv){
  MPI_Init(&argc,&argv);int r,p;MPI_Comm_rank(MPI_COMM_WORLD,&r);MPI_Comm_size(MPI_COMM_WORLD,&p);
  int n=atoi(argv[1])/8; int iters=atoi(argv[2]); double delay=atof(argv[3]);
  double*s=malloc(n*8),*d=malloc(n*8);for(int i=0;i<n;i++)s[i]=r+i;
  static double hist[16][1000];int cnt=0;
  for(int it=0;it<iters;it++){
    MPI_Barrier(MPI_COMM_WORLD);
    if(r==p-1){double t=now();while(now()-t<delay)usleep(200);}
    double a=now();
    MPI_Allreduce(s,d,n,MPI_DOUBLE,MPI_SUM,MPI_COMM_WORLD);
    double f=now(); double arr[2]={a,f}; double all[32];
    MPI_Gather(arr,2,MPI_DOUBLE,all,2,MPI_DOUBLE,0,MPI_COMM_WORLD);
    if(r==0&&it>=iters/2){double last=0;for(int i=0;i<p;i++)if(all[2*i]>last)last=all[2*i];
      for(int i=0;i<p;i++)hist[i][cnt]=all[2*i+1]-last;cnt++;}
  }
  if(r==0){printf("exit after last arrival, median (max) ms:");for(int i=0;i<p;i++){qsort(hist[i],cnt,8,cmp);printf(" %.2f(%.0f)",hist[i][cnt/2]*1e3,hist[i][cnt-1]*1e3);}printf("\n");}
  MPI_Finalize();}
