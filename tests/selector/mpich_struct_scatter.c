/* Reproduces, without collsel, the MPICH 4.0.2 (Debian 12, ch4:ucx) failure that makes the
   differential test use a packed reference for the struct family: MPI_Scatter of a resized
   struct {char; double; int} aborts with "Message truncated" in MPIR_Scatter_intra_binomial
   from about 1000 elements per rank on (P = 2..8).
     mpicc mpich_struct_scatter.c -o s && mpiexec -n 4 ./s 1000 0   -> Abort ... Message truncated
     mpiexec -n 4 ./s 100 0                                          -> ok
   Second argument 1 lists the fields in decreasing address order instead. Not run by CTest. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
struct H{char c;double d;int i;};
int main(int c,char**v){MPI_Init(&c,&v);int r,s;MPI_Comm_rank(MPI_COMM_WORLD,&r);MPI_Comm_size(MPI_COMM_WORLD,&s);
int n=atoi(v[1]); int order=atoi(v[2]);
int l[3]={1,1,1}; MPI_Aint d[3]; MPI_Datatype ty[3];
if(order){d[0]=offsetof(struct H,i);d[1]=offsetof(struct H,d);d[2]=offsetof(struct H,c);ty[0]=MPI_INT;ty[1]=MPI_DOUBLE;ty[2]=MPI_CHAR;}
else{d[2]=offsetof(struct H,i);d[1]=offsetof(struct H,d);d[0]=offsetof(struct H,c);ty[2]=MPI_INT;ty[1]=MPI_DOUBLE;ty[0]=MPI_CHAR;}
MPI_Datatype st,t;MPI_Type_create_struct(3,l,d,ty,&st);MPI_Type_create_resized(st,0,sizeof(struct H),&t);MPI_Type_commit(&t);
char*sb=calloc((size_t)n*s,24);char*rb=calloc(n,24);
for(int root=0;root<s;root++){MPI_Scatter(sb,n,t,rb,n,t,root,MPI_COMM_WORLD);}
MPI_Bcast(rb,n,t,0,MPI_COMM_WORLD);
if(r==0)printf("ok n=%d P=%d reversed=%d\n",n,s,order);MPI_Finalize();}
