/* test/ompt/target_probe.c — compiled at configure time: whether clang can build a target region
 * for the host offload target (x86_64-pc-linux-gnu: libomptarget and its host plugin). */
int main(void) {
    int x = 0;
#pragma omp target map(tofrom : x)
    x = 1;
    return x == 1 ? 0 : 1;
}
