/* The shell's line editor and main loop: what happens between a key press and shell_exec().
 *
 * Keys: printable characters insert at the end; Backspace/DEL erase one; Ctrl-U erases the line;
 * Ctrl-C abandons it; Up/Down walk the history; Tab completes a command or a file name.
 */
#include "kernel/shell/shell.h"
#include "kernel/printk/printk.h"
#include "arch/x86/serial.h"
#include "lib/string.h"

#define HISTORY 16
#define KEY_CTRL_C 0x03
#define KEY_BS 0x08
#define KEY_TAB 0x09
#define KEY_CTRL_U 0x15
#define KEY_ESC 0x1b
#define KEY_DEL 0x7f

struct line {
	char buf[SHELL_LINE_MAX + 1];
	size_t len;
	size_t dropped; /* characters typed past SHELL_LINE_MAX: the line will be refused */
};

static char history[HISTORY][SHELL_LINE_MAX + 1];
static int hist_count; /* lines ever stored; the newest is history[(hist_count - 1) % HISTORY] */

static void prompt(void)
{
	char path[FS_PATH_MAX];
	fs_path(shell_cwd, path, sizeof(path));
	cprintf("root@ftrace-os:%s# ", path);
}

static void erase(struct line *l, size_t n)
{
	while (n-- && l->len) {
		l->len--;
		console_puts("\b \b");
	}
}

static void insert(struct line *l, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (l->len < SHELL_LINE_MAX)
			l->buf[l->len++] = s[i];
		else
			l->dropped++;
	}
	console_write(s, n);
}

static void replace_line(struct line *l, const char *s)
{
	erase(l, l->len);
	l->dropped = 0;
	insert(l, s, strlen(s));
}

static void history_add(const char *s)
{
	if (!*s || (hist_count && !strcmp(history[(hist_count - 1) % HISTORY], s)))
		return;
	strscpy(history[hist_count % HISTORY], s, sizeof(history[0]));
	hist_count++;
}

/* Up (dir -1) and Down (+1): *pos counts back from the newest entry; 0 is the line being typed. */
static void history_move(struct line *l, int *pos, int dir)
{
	int max = hist_count < HISTORY ? hist_count : HISTORY;
	int next = *pos - dir;

	if (next < 0 || next > max)
		return;
	*pos = next;
	replace_line(l, next ? history[(hist_count - next) % HISTORY] : "");
}

static void complete(struct line *l)
{
	char add[SHELL_LINE_MAX + 1];

	l->buf[l->len] = '\0';
	if (shell_complete(l->buf, add, sizeof(add))) {
		prompt();
		console_write(l->buf, l->len);
	}
	insert(l, add, strlen(add));
}

/* Reads one line; returns false if it was abandoned (Ctrl-C) or too long. */
static bool read_line(struct line *l)
{
	static bool after_cr;
	int hist_pos = 0, esc = 0;

	l->len = l->dropped = 0;
	for (;;) {
		int c = console_getc();
		/* A terminal sends "\r", a pipe may send "\r\n": that "\n" is no second line. */
		if (c == '\n' && after_cr) {
			after_cr = false;
			continue;
		}
		after_cr = c == '\r';
		if (esc == 1) {
			esc = c == '[' ? 2 : 0;
			continue;
		}
		if (esc == 2) {
			esc = 0;
			if (c == 'A')
				history_move(l, &hist_pos, -1);
			else if (c == 'B')
				history_move(l, &hist_pos, 1);
			continue; /* left/right and the rest are ignored */
		}
		switch (c) {
		case '\r':
		case '\n':
			console_puts("\n");
			l->buf[l->len] = '\0';
			if (l->dropped) {
				cprintf("line too long: at most %d characters\n", SHELL_LINE_MAX);
				return false;
			}
			return true;
		case KEY_CTRL_C:
			console_puts("^C\n");
			return false;
		case KEY_BS:
		case KEY_DEL:
			if (l->dropped) {
				l->dropped--;
				console_puts("\b \b");
			} else {
				erase(l, 1);
			}
			break;
		case KEY_CTRL_U:
			erase(l, l->len);
			l->dropped = 0;
			break;
		case KEY_TAB:
			if (!l->dropped)
				complete(l);
			break;
		case KEY_ESC:
			esc = 1;
			break;
		default:
			if (c >= 0x20 && c < 0x7f) {
				char ch = c;
				insert(l, &ch, 1);
			}
		}
	}
}

/* Typed-ahead input lost to a full receive ring is never silent: said before the next prompt. */
static void report_lost_input(void)
{
	static unsigned long reported;
	unsigned long lost = READ_ONCE(serial_rx_dropped);

	if (lost != reported)
		cprintf("sh: %lu typed characters lost: input buffer full\n", lost - reported);
	reported = lost;
}

void shell_run(void)
{
	static struct line l;

	for (;;) {
		report_lost_input();
		prompt();
		if (!read_line(&l))
			continue;
		history_add(l.buf);
		shell_exec(l.buf);
	}
}
