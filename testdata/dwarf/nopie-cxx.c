/* built without -g: addr2line names this from .symtab, mangled (_Z6scaledi),
 * and `addr2line -C` prints it demangled with its parameters: scaled(int) */
int scaled(int) __asm__("_Z6scaledi");

__attribute__((noinline)) int scaled(int x)
{
    return x * 3 + 1;
}
