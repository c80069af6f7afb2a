// lambda.cpp - a C++ lambda inlined into a template clone (tests/folded/
// inline-fresh.txt). Its inlined operator() has a DW_AT_name but no linkage
// name, and its ranges start past the symbol of the function around it:
// binutils' addr2line names the innermost frame after that ELF symbol the
// first time it is asked, and after the lambda from then on.
template <class F> __attribute__((noinline)) long apply_n(F f, int n)
{
    long s = 0;
    for (int i = 0; i < n; i++)
        s += f(i);
    return s;
}

int main(int argc, char **argv)
{
    long t = 0;
    (void)argv;
    for (int r = 0; r < 2000 + argc; r++)
        t += apply_n([](int i) -> long {
            long s = 0;
            for (int j = 0; j < 1000; j++)
                s += (i ^ j) & 3;
            return s;
        }, 300);
    return (int)(t & 1);
}
