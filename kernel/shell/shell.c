/* The shell's line editor and main loop: what happens between a key press and shell_exec().
 *
 * Keys: printable characters insert at the cursor; Backspace/DEL erase before it, Delete under
 * it; Left/Right, Ctrl-Left/Ctrl-Right (a word), Home/End move it; Ctrl-U erases the line;
 * Ctrl-C abandons it; Up/Down walk the history; Tab completes a command or a file name (with the
 * cursor at the end). Escape sequences are read whole, CSI (ESC [ params final) and SS3 (ESC O
 * final), as a terminal sends them in either cursor-key mode; those not listed here are ignored.
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
#define CSI_PARAMS_MAX 16

struct line {
	char buf[SHELL_LINE_MAX + 1];
	size_t len;
	size_t cur;	/* the cursor: buf[cur] is under it; len when it is at the end */
	size_t dropped; /* characters typed past SHELL_LINE_MAX: the line will be refused */
};

/* An escape sequence being read: ESC, then '[' (CSI) or 'O' (SS3), then CSI's parameters. */
struct esc_seq {
	enum { ESC_NONE, ESC_START, ESC_CSI, ESC_SS3 } state;
	char params[CSI_PARAMS_MAX + 1];
	size_t n;
};

static char history[HISTORY][SHELL_LINE_MAX + 1];
static int hist_count; /* lines ever stored; the newest is history[(hist_count - 1) % HISTORY] */

static void prompt(void)
{
	char path[FS_PATH_MAX];
	fs_path(shell_cwd, path, sizeof(path));
	cprintf("root@ftrace-os:%s# ", path);
}

static void backspaces(size_t n)
{
	while (n--)
		console_write("\b", 1);
}

static void move_to(struct line *l, size_t pos)
{
	if (pos < l->cur)
		backspaces(l->cur - pos);
	else if (pos > l->cur)
		console_write(l->buf + l->cur, pos - l->cur);
	l->cur = pos;
}

/* Removes n characters under the cursor and redraws what follows them. */
static void delete_at(struct line *l, size_t n)
{
	size_t tail;

	if (n > l->len - l->cur)
		n = l->len - l->cur;
	if (!n)
		return;
	memmove(l->buf + l->cur, l->buf + l->cur + n, l->len - l->cur - n);
	l->len -= n;
	tail = l->len - l->cur;
	console_write(l->buf + l->cur, tail);
	for (size_t i = 0; i < n; i++)
		console_write(" ", 1);
	backspaces(tail + n);
}

/* Erases the n characters before the cursor. */
static void erase(struct line *l, size_t n)
{
	if (n > l->cur)
		n = l->cur;
	move_to(l, l->cur - n);
	delete_at(l, n);
}

static void insert(struct line *l, const char *s, size_t n)
{
	size_t tail = l->len - l->cur, keep = n;

	if (keep > SHELL_LINE_MAX - l->len) {
		keep = SHELL_LINE_MAX - l->len;
		l->dropped += n - keep;
	}
	memmove(l->buf + l->cur + keep, l->buf + l->cur, tail);
	memcpy(l->buf + l->cur, s, keep);
	l->len += keep;
	console_write(l->buf + l->cur, keep + tail);
	l->cur += keep;
	/* At the end refused characters still echo, so that Backspace has them to erase. */
	if (!tail)
		console_write(s + keep, n - keep);
	backspaces(tail);
}

static void replace_line(struct line *l, const char *s)
{
	move_to(l, l->len);
	erase(l, l->len);
	l->dropped = 0;
	insert(l, s, strlen(s));
}

/* Ctrl-Left/Ctrl-Right: to the start of this or the previous word, past the end of the next. */
static void move_word(struct line *l, int dir)
{
	size_t pos = l->cur;

	if (dir < 0) {
		while (pos && l->buf[pos - 1] == ' ')
			pos--;
		while (pos && l->buf[pos - 1] != ' ')
			pos--;
	} else {
		while (pos < l->len && l->buf[pos] == ' ')
			pos++;
		while (pos < l->len && l->buf[pos] != ' ')
			pos++;
	}
	move_to(l, pos);
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

/* The first two numbers of CSI parameters "n;m" (0 when absent): the key and its modifiers. */
static void csi_numbers(const char *p, unsigned int *key, unsigned int *mod)
{
	*key = *mod = 0;
	for (; *p >= '0' && *p <= '9'; p++)
		*key = *key * 10 + (*p - '0');
	if (*p++ != ';')
		return;
	for (; *p >= '0' && *p <= '9'; p++)
		*mod = *mod * 10 + (*p - '0');
}

/* "ESC [ n ~" keys as the final byte of their other spelling ('X': Delete, which has none). */
static char tilde_key(unsigned int key)
{
	switch (key) {
	case 1:
	case 7:
		return 'H';
	case 4:
	case 8:
		return 'F';
	case 3:
		return 'X';
	default:
		return 0;
	}
}

/* A whole CSI or SS3 sequence: `final` its last byte. Modifier 5 is Ctrl, 3 is Alt (xterm's). */
static void do_escape(struct line *l, int *hist_pos, const struct esc_seq *e, char final)
{
	unsigned int key, mod;

	csi_numbers(e->params, &key, &mod);
	if (final == '~')
		final = tilde_key(key);
	if (l->dropped && final != 'A' && final != 'B')
		return; /* the line will be refused: only erasing or leaving it helps */
	switch (final) {
	case 'A':
		history_move(l, hist_pos, -1);
		break;
	case 'B':
		history_move(l, hist_pos, 1);
		break;
	case 'C':
		if (mod == 5 || mod == 3)
			move_word(l, 1);
		else if (l->cur < l->len)
			move_to(l, l->cur + 1);
		break;
	case 'D':
		if (mod == 5 || mod == 3)
			move_word(l, -1);
		else if (l->cur)
			move_to(l, l->cur - 1);
		break;
	case 'H':
		move_to(l, 0);
		break;
	case 'F':
		move_to(l, l->len);
		break;
	case 'X':
		delete_at(l, 1);
		break;
	default:
		break; /* F-keys, Insert, Page Up/Down and the rest: not ours */
	}
}

/* Feeds one byte to the escape parser; returns false if it ended no sequence and is a key. */
static bool escape_byte(struct line *l, int *hist_pos, struct esc_seq *e, int c)
{
	switch (e->state) {
	case ESC_NONE:
		return false;
	case ESC_START:
		e->n = 0;
		e->params[0] = '\0';
		e->state = c == '[' ? ESC_CSI : c == 'O' ? ESC_SS3 : ESC_NONE;
		return true; /* ESC and any other byte (Alt-key): ignored */
	case ESC_SS3:
		e->state = ESC_NONE;
		do_escape(l, hist_pos, e, c);
		return true;
	case ESC_CSI:
		if (c >= 0x30 && c <= 0x3f) { /* parameter bytes */
			if (e->n < CSI_PARAMS_MAX) {
				e->params[e->n++] = c;
				e->params[e->n] = '\0';
			}
			return true;
		}
		if (c >= 0x20 && c <= 0x2f) /* intermediate bytes */
			return true;
		e->state = ESC_NONE;
		if (c >= 0x40 && c <= 0x7e) {
			do_escape(l, hist_pos, e, c);
			return true;
		}
		return false; /* a control byte cuts the sequence short and counts as a key */
	}
	return false;
}

/* Reads one line; returns false if it was abandoned (Ctrl-C) or too long. */
static bool read_line(struct line *l)
{
	static bool after_cr;
	struct esc_seq esc = { .state = ESC_NONE };
	int hist_pos = 0;

	l->len = l->cur = l->dropped = 0;
	for (;;) {
		int c = console_getc();
		/* A terminal sends "\r", a pipe may send "\r\n": that "\n" is no second line. */
		if (c == '\n' && after_cr) {
			after_cr = false;
			continue;
		}
		after_cr = c == '\r';
		if (escape_byte(l, &hist_pos, &esc, c))
			continue;
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
				if (l->cur == l->len)
					console_puts("\b \b");
			} else {
				erase(l, 1);
			}
			break;
		case KEY_CTRL_U:
			move_to(l, l->len);
			erase(l, l->len);
			l->dropped = 0;
			break;
		case KEY_TAB:
			if (!l->dropped && l->cur == l->len)
				complete(l);
			break;
		case KEY_ESC:
			esc.state = ESC_START;
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
