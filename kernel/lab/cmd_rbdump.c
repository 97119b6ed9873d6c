/* rbdump: the ring buffer's data pages in hex, straight from memory, read without consuming. */
#include "kernel/shell/shell.h"
#include "kernel/mm/mm.h"
#include "kernel/printk/printk.h"
#include "kernel/smp.h"
#include "kernel/trace/trace.h"
#include "lib/errno.h"
#include "lib/printf.h"
#include "lib/string.h"

/*
 * `rbdump CPU`: each page a reader would still visit, header and events up to commit, as the
 * bytes lie in memory. It reads no reader's mark and moves none, so the same pages can then be
 * taken through trace_pipe_raw and compared byte for byte: what the raw file and the serial
 * channel add or lose shows up as a difference.
 */
static int cmd_rbdump(int argc, char **argv)
{
	struct trace_buffer *b = &global_trace.buffer;
	struct ring_buffer_per_cpu *cb;
	unsigned long cpu;
	int *pages, n;
	u8 *copy;

	if (argc != 2 || kstrtoul(argv[1], 10, &cpu)) {
		cprintf("usage: rbdump CPU\n");
		return 2;
	}
	if (cpu >= NR_CPUS || !b->cpu[cpu].pages) {
		cprintf("rbdump: cpu %s: %s\n", argv[1], strerror(ENODEV));
		return 1;
	}
	cb = &b->cpu[cpu];
	pages = kmalloc(cb->nr_pages * sizeof(*pages));
	copy = kmalloc(cb->nr_pages * PAGE_SIZE);
	if (!pages || !copy) {
		kfree(pages);
		kfree(copy);
		cprintf("rbdump: %s\n", strerror(ENOMEM));
		return 1;
	}
	/* Copy first, print after: the console is slow, and the writers wait while we copy. */
	ring_buffer_record_off(b);
	n = ring_buffer_unread_pages(cb, pages, cb->nr_pages);
	for (int i = 0; i < n; i++)
		memcpy(copy + i * PAGE_SIZE, cb->pages[pages[i]].page, PAGE_SIZE);
	ring_buffer_record_on(b);
	for (int i = 0; i < n; i++) {
		const struct buffer_data_page *dp = (void *)(copy + i * PAGE_SIZE);
		u32 end = RB_PAGE_HDR + MIN(dp->commit, (u64)BUF_PAGE_SIZE);

		cprintf("page %d: commit %llu\n", pages[i], dp->commit);
		for (u32 off = 0; off < end; off += 16) {
			char line[8 + 16 * 3 + 2];
			int len = snprintf(line, sizeof(line), "%04x:", off);

			for (u32 j = off; j < off + 16 && j < end; j++)
				len += snprintf(line + len, sizeof(line) - len, " %02x",
						((const u8 *)dp)[j]);
			cprintf("%s\n", line);
		}
	}
	kfree(pages);
	kfree(copy);
	return 0;
}
SHELL_CMD(rbdump, cmd_rbdump,
	  "rbdump CPU: that CPU's unread ring-buffer pages in hex, not consumed");
