/* hello: the smallest program: one write, its arguments, and an exit status of its choosing. */
#include "ulib.h"

int main(int argc, char **argv, char **envp)
{
	put_str("hello from ring 3\n");
	for (int i = 0; i < argc; i++) {
		put_str("argv[");
		put_num(i);
		put_str("] = ");
		put_str(argv[i]);
		put_str("\n");
	}
	return argc > 1 && !strcmp(argv[1], "fail") ? 3 : 0;
}
