/*
 * The console as programs see it (fds 0, 1, 2): the serial line with a small line discipline
 * (Linux: drivers/tty/n_tty.c). In canonical mode a read waits for a whole line, echoing what is
 * typed, with backspace, Ctrl-D (end of file) and Ctrl-C (SIGINT to the reader); without ICANON
 * a read returns each byte as it comes. Writes go out with "\n" as "\r\n" (OPOST|ONLCR).
 */
#include "kernel/fs/file.h"
#include "kernel/jobctl.h"
#include "arch/x86/serial.h"
#include "kernel/printk/printk.h"
#include "kernel/signal.h"
#include "kernel/fs/poll.h"
#include "kernel/uaccess.h"
#include "lib/errno.h"

#define TCGETS 0x5401
#define TCSETS 0x5402
#define TCSETSW 0x5403
#define TCSETSF 0x5404
#define TIOCGWINSZ 0x5413
#define TIOCSWINSZ 0x5414

#define ISIG 0x1
#define ICANON 0x2
#define ECHO 0x8
#define ICRNL 0x100
#define VINTR 0
#define VQUIT 1
#define VSUSP 10
#define VERASE 2
#define VEOF 4

/* Linux's struct termios as the ioctls pass it (not glibc's, which is larger). */
struct termios {
	u32 c_iflag, c_oflag, c_cflag, c_lflag;
	u8 c_line;
	u8 c_cc[19];
};

struct winsize {
	u16 ws_row, ws_col, ws_xpixel, ws_ypixel;
};

/* Linux's defaults for a serial tty: ICRNL|IXON, OPOST|ONLCR, B38400|CS8|CREAD|HUPCL, and
 * ISIG|ICANON|ECHO|ECHOE|ECHOK|ECHOCTL|ECHOKE|IEXTEN, with the usual control characters. */
static struct termios tty_termios = {
	.c_iflag = 0x500,
	.c_oflag = 0x5,
	.c_cflag = 0x4bf,
	.c_lflag = 0x8a3b,
	.c_cc = { 3, 0x1c, 0x7f, 0x15, 4, 0, 1, 0, 0x11, 0x13, 0x1a, 0, 0x12, 0xf, 0x17, 0x16, 0 },
};
static struct winsize tty_winsize = { 24, 80, 0, 0 };

static char line[256];
static size_t line_len, line_pos; /* a line typed, not yet all read */

static void echo(const char *s, size_t n)
{
	if (tty_termios.c_lflag & ECHO)
		console_write(s, n);
}

/* Reads one line into line[]: 0, or -EINTR after a Ctrl-C (SIGINT sent to the reader). */
static int read_line(void)
{
	line_len = line_pos = 0;
	for (;;) {
		int k = console_getc();
		char c = k;
		if (k < 0)
			return -ERESTARTSYS; /* a signal came while waiting */
		if (c == '\r' && (tty_termios.c_iflag & ICRNL))
			c = '\n';
		if (c == tty_termios.c_cc[VINTR] && (tty_termios.c_lflag & ISIG)) {
			echo("^C\n", 3);
			send_sig(SIGINT, current);
			return -EINTR;
		}
		if (c == tty_termios.c_cc[VEOF])
			return 0; /* what is typed so far goes to the reader, without a newline */
		if (c == tty_termios.c_cc[VERASE] || c == '\b') {
			if (line_len) {
				line_len--;
				echo("\b \b", 3);
			}
			continue;
		}
		if (line_len < sizeof(line))
			line[line_len++] = c;
		echo(&c, 1);
		if (c == '\n' || line_len == sizeof(line))
			return 0;
	}
}

static ssize_t tty_read(struct file *f, char __user *buf, size_t count, s64 *pos)
{
	size_t n;
	int err;

	if (!count)
		return 0;
	if (!(tty_termios.c_lflag & ICANON)) {
		int k = console_getc();
		char c = k;
		if (k < 0)
			return -ERESTARTSYS;
		echo(&c, 1);
		return copy_to_user(buf, &c, 1) ? -EFAULT : 1;
	}
	if (line_pos == line_len && (err = read_line()))
		return err;
	n = MIN(count, line_len - line_pos);
	if (copy_to_user(buf, line + line_pos, n))
		return -EFAULT;
	line_pos += n;
	return n;
}

static ssize_t tty_write(struct file *f, const char __user *buf, size_t count, s64 *pos)
{
	char chunk[256];
	size_t done = 0;

	while (done < count) {
		size_t n = MIN(count - done, sizeof(chunk));
		if (copy_from_user(chunk, buf + done, n))
			return done ? (ssize_t)done : -EFAULT;
		console_write(chunk, n);
		done += n;
	}
	return done;
}

static long tty_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
{
	void __user *p = (void __user *)arg;
	struct termios t;
	struct winsize w;

	switch (cmd) {
	case TCGETS:
		return copy_to_user(p, &tty_termios, sizeof(tty_termios)) ? -EFAULT : 0;
	case TCSETS:
	case TCSETSW:
	case TCSETSF:
		if (copy_from_user(&t, p, sizeof(t)))
			return -EFAULT;
		tty_termios =
			t; /* ICANON, ECHO, ISIG, ICRNL and the control characters are honoured */
		return 0;
	case TIOCGWINSZ:
		return copy_to_user(p, &tty_winsize, sizeof(tty_winsize)) ? -EFAULT : 0;
	case TIOCSWINSZ:
		if (copy_from_user(&w, p, sizeof(w)))
			return -EFAULT;
		tty_winsize = w;
		return 0;
	default:
		return tty_jobctl_ioctl(cmd, arg);
	}
}

bool tty_input_ready(void)
{
	return line_pos < line_len || serial_rx_pending();
}

int tty_signal_of(u8 c)
{
	if (!(tty_termios.c_lflag & ISIG) || !c) /* 0 disables a control character */
		return 0;
	if (c == tty_termios.c_cc[VINTR])
		return SIGINT;
	if (c == tty_termios.c_cc[VQUIT])
		return SIGQUIT;
	if (c == tty_termios.c_cc[VSUSP])
		return SIGTSTP;
	return 0;
}

void tty_echo_ctl(u8 c)
{
	char s[2] = { '^', c ^ 0x40 };

	echo(s, 2);
}

static unsigned int tty_poll(struct file *f, poll_table *pt)
{
	return (tty_input_ready() ? EPOLLIN | EPOLLRDNORM : 0) | EPOLLOUT | EPOLLWRNORM;
}

const struct file_operations tty_fops = {
	.read = tty_read,
	.poll = tty_poll,
	.write = tty_write,
	.ioctl = tty_ioctl,
	.mode = 0020620, /* S_IFCHR | 0620, as /dev/console */
};
