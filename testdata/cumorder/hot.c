#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
static volatile unsigned long sink;
__attribute__((noinline)) void leaf_a(int n){ for(int i=0;i<n;i++) sink+=i*3; }
__attribute__((noinline)) void leaf_b(int n){ for(int i=0;i<n;i++) sink^=i*7; }
__attribute__((noinline)) void mid_one(int n){ leaf_a(n); leaf_b(n/2); }
__attribute__((noinline)) void mid_two(int n){ leaf_b(n); mid_one(n/3); }
__attribute__((noinline)) void a_function_with_a_really_quite_extraordinarily_long_name_for_column_width_tests(int n){ for(int i=0;i<n;i++) sink+=i; }
static int scale_a=1, scale_b=1;
static void *worker(void *arg){
  char name[16]; snprintf(name,sizeof name,"wrk-%ld",(long)arg);
  pthread_setname_np(pthread_self(), name);
  for(int r=0;r<3000;r++){ if((long)arg&1) mid_one(20000*scale_a); else mid_two(20000*scale_b); }
  return 0;
}
int main(int argc,char**argv){
  if(argc>1) scale_a=atoi(argv[1]); if(argc>2) scale_b=atoi(argv[2]);
  pthread_t t[3];
  for(long i=0;i<3;i++) pthread_create(&t[i],0,worker,(void*)i);
  for(int r=0;r<4000;r++) a_function_with_a_really_quite_extraordinarily_long_name_for_column_width_tests(30000);
  for(int i=0;i<3;i++) pthread_join(t[i],0);
  if (argc>3) { char *p = malloc(1<<24); memset(p, 1, 1<<24); free(p); }
  return 0;
}
