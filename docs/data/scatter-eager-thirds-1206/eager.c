#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
int main(int argc,char**argv){
  MPI_Init(&argc,&argv); int r; MPI_Comm_rank(MPI_COMM_WORLD,&r);
  int sizes[]={1024,4096,8192,12288,16384,24576,32768,40960,49152,65536};
  char*buf=malloc(65536); char go=0;
  for(int rep=0;rep<3;rep++) for(int i=0;i<10;i++){ int n=sizes[i];
    if(r==1){MPI_Send(&go,1,MPI_CHAR,0,1,MPI_COMM_WORLD);usleep(2000);MPI_Recv(buf,n,MPI_BYTE,0,2,MPI_COMM_WORLD,MPI_STATUS_IGNORE);}
    else { MPI_Recv(&go,1,MPI_CHAR,1,1,MPI_COMM_WORLD,MPI_STATUS_IGNORE); MPI_Request q; MPI_Isend(buf,n,MPI_BYTE,1,2,MPI_COMM_WORLD,&q);
      double t0=now(); int done=0; while(!done && now()-t0<1e-3){MPI_Test(&q,&done,MPI_STATUS_IGNORE);usleep(20);}
      double t1=now(); if(!done) MPI_Wait(&q,MPI_STATUS_IGNORE);
      printf("rep %d %6d B: %s (%.0f us, done at %.0f us)\n",rep,n,done?"buffered":"waits",(t1-t0)*1e6,(now()-t0)*1e6);}
    MPI_Barrier(MPI_COMM_WORLD);}
  MPI_Finalize(); return 0;}
