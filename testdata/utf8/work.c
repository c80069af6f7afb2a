/* libwörk.so: a function with a non-ASCII name, in a non-ASCII path */
volatile unsigned long sink;

void wörk(unsigned long n)
{
    unsigned long i;

    for (i = 0; i < n; i++)
        sink += i * i;
}
