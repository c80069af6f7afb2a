/* spïn: runs wörk() under a UTF-8 comm, then under a comm that is not
 * UTF-8 ("b\xffd\xc3"), so perf records both as COMM records. */
#include <sys/prctl.h>

void wörk(unsigned long n);

int main(void)
{
    wörk(150000000);
    prctl(PR_SET_NAME, "b\xff" "d\xc3" "é");
    wörk(150000000);
    return 0;
}
