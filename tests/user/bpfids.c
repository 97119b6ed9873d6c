/*
 * bpfids: the id commands walked as bpftool walks them (BPF_PROG_GET_NEXT_ID, then
 * BPF_PROG_GET_FD_BY_ID and BPF_OBJ_GET_INFO_BY_FD for each id; the same for maps), with Linux's
 * errnos for what is refused. One check a line, "PASS n/m" last (tests/integration/test_bpf.py).
 * `bpfids show` prints the listing the way `bpftool prog show` and `bpftool map show` do, without
 * the lines bpftool reads from elsewhere (loaded_at, memlock, pids): chapter 23's lab.
 */
#include "bpf_sys.h"

enum { NR_setresuid = 117, NR_setresgid = 119 };

static long id_cmd(int cmd, unsigned int id, unsigned int *next, unsigned int flags)
{
	union bpf_attr a;
	long r;

	memset(&a, 0, sizeof(a));
	a.start_id = id;
	a.open_flags = flags;
	r = sys_bpf(cmd, &a, sizeof(a));
	if (next)
		*next = a.next_id;
	return r;
}

static long info_of(long fd, void *info, unsigned int len)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.info.bpf_fd = fd;
	a.info.info_len = len;
	a.info.info = (unsigned long)info;
	return sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &a, sizeof(a));
}

static unsigned int prog_id_of(long fd)
{
	struct bpf_prog_info info;

	memset(&info, 0, sizeof(info));
	return info_of(fd, &info, sizeof(info)) ? 0 : info.id;
}

static unsigned int map_id_of(long fd)
{
	struct bpf_map_info info;

	memset(&info, 0, sizeof(info));
	return info_of(fd, &info, sizeof(info)) ? 0 : info.id;
}

/* How many live ids the walk from 0 meets, and whether want is among them. */
static int walk(int cmd, unsigned int want, int *found)
{
	unsigned int id = 0, next;
	int n = 0;

	*found = 0;
	while (!id_cmd(cmd, id, &next, 0)) {
		n++;
		*found |= next == want;
		id = next;
	}
	return n;
}

static const char *prog_type_name(unsigned int t)
{
	switch (t) {
	case BPF_PROG_TYPE_KPROBE:
		return "kprobe";
	case BPF_PROG_TYPE_TRACEPOINT:
		return "tracepoint";
	case BPF_PROG_TYPE_RAW_TRACEPOINT:
		return "raw_tracepoint";
	case BPF_PROG_TYPE_PERF_EVENT:
		return "perf_event";
	default:
		return "unknown";
	}
}

static const char *map_type_name(unsigned int t)
{
	static const char *const names[] = {
		[BPF_MAP_TYPE_HASH] = "hash",
		[BPF_MAP_TYPE_ARRAY] = "array",
		[BPF_MAP_TYPE_PROG_ARRAY] = "prog_array",
		[BPF_MAP_TYPE_PERF_EVENT_ARRAY] = "perf_event_array",
		[BPF_MAP_TYPE_PERCPU_HASH] = "percpu_hash",
		[BPF_MAP_TYPE_PERCPU_ARRAY] = "percpu_array",
		[BPF_MAP_TYPE_STACK_TRACE] = "stack_trace",
		[BPF_MAP_TYPE_RINGBUF] = "ringbuf",
	};
	return t < sizeof(names) / sizeof(names[0]) && names[t] ? names[t] : "unknown";
}

static void put_byte_hex(unsigned char b)
{
	char s[3] = { "0123456789abcdef"[b >> 4], "0123456789abcdef"[b & 15], 0 };
	put_str(s);
}

/* bpftool's print_prog_plain(): the first line, then what we have of the others. */
static void show_prog(long fd)
{
	struct bpf_prog_info info;
	unsigned int ids[8];

	memset(&info, 0, sizeof(info));
	if (info_of(fd, &info, sizeof(info)))
		return;
	if (info.nr_map_ids) { /* a second call for the ids, as bpftool's show_prog_maps() */
		unsigned int n = info.nr_map_ids < 8 ? info.nr_map_ids : 8;
		memset(&info, 0, sizeof(info));
		info.nr_map_ids = n;
		info.map_ids = (unsigned long)ids;
		if (info_of(fd, &info, sizeof(info)))
			return;
	}
	put_num(info.id);
	put_str(": ");
	put_str(prog_type_name(info.type));
	if (info.name[0]) {
		put_str("  name ");
		put_str(info.name);
	}
	put_str("  tag ");
	for (int i = 0; i < BPF_TAG_SIZE; i++)
		put_byte_hex(info.tag[i]);
	put_str(info.gpl_compatible ? "  gpl\n\tuid " : "\n\tuid ");
	put_num(info.created_by_uid);
	put_str("\n\txlated ");
	put_num(info.xlated_prog_len);
	if (info.jited_prog_len) {
		put_str("B  jited ");
		put_num(info.jited_prog_len);
		put_str("B");
	} else {
		put_str("B  not jited");
	}
	for (unsigned int i = 0; i < info.nr_map_ids && i < 8; i++) {
		put_str(i ? "," : "  map_ids ");
		put_num(ids[i]);
	}
	put_str("\n");
	if (info.btf_id) {
		put_str("\tbtf_id ");
		put_num(info.btf_id);
		put_str("\n");
	}
}

/* bpftool's show_map_close_plain(), the same way. */
static void show_map(long fd)
{
	struct bpf_map_info info;

	memset(&info, 0, sizeof(info));
	if (info_of(fd, &info, sizeof(info)))
		return;
	put_num(info.id);
	put_str(": ");
	put_str(map_type_name(info.type));
	if (info.name[0]) {
		put_str("  name ");
		put_str(info.name);
	}
	put_str("  flags 0x");
	put_hex(info.map_flags);
	put_str("\n\tkey ");
	put_num(info.key_size);
	put_str("B  value ");
	put_num(info.value_size);
	put_str("B  max_entries ");
	put_num(info.max_entries);
	put_str("\n");
	if (info.btf_id) {
		put_str("\tbtf_id ");
		put_num(info.btf_id);
		put_str("\n");
	}
}

/* bpftool's do_show(): every id in turn, an fd for each, its info; a gone id is skipped. */
static void show_all(int next_cmd, int fd_cmd, void (*show)(long fd))
{
	unsigned int id = 0;

	while (!id_cmd(next_cmd, id, &id, 0)) {
		long fd = id_cmd(fd_cmd, id, 0, 0);
		if (fd < 0)
			continue;
		show(fd);
		sys1(NR_close, fd);
	}
}

static long load_named(long map, const char *name)
{
	struct bpf_insn p[] = { LOOKUP_SLOT(0), MOV64_IMM(0, 0), EXIT };

	return bpf_prog_load_log(BPF_PROG_TYPE_KPROBE, p, sizeof(p) / sizeof(p[0]), map, name, 0, 0,
				 0);
}

static long map_named(const char *name)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_type = BPF_MAP_TYPE_ARRAY;
	a.key_size = 4;
	a.value_size = 8;
	a.max_entries = 4;
	memcpy(a.map_name, name, strlen(name));
	return sys_bpf(BPF_MAP_CREATE, &a, sizeof(a));
}

static void test_progs(long map, long prog)
{
	unsigned int pid = prog_id_of(prog), mid = map_id_of(map), next = 0, ids[4] = { 0 };
	struct bpf_prog_info info, orig;
	int found, n, same_tag;
	long fd;

	check("the program and the map have ids", pid > 0 && mid > 0, 1);
	n = walk(BPF_PROG_GET_NEXT_ID, pid, &found);
	check("PROG_GET_NEXT_ID from 0 walks to the program", found, 1);
	check("  and ends (ENOENT) after at least it", n >= 1, 1);
	check("PROG_GET_NEXT_ID from id - 1", id_cmd(BPF_PROG_GET_NEXT_ID, pid - 1, &next, 0), 0);
	check("  next_id is the program's", next, pid);
	check("PROG_GET_NEXT_ID at INT_MAX: EINVAL", id_cmd(BPF_PROG_GET_NEXT_ID, 0x7fffffff, 0, 0),
	      -EINVAL);
	check("PROG_GET_NEXT_ID with a byte past next_id: EINVAL",
	      id_cmd(BPF_PROG_GET_NEXT_ID, 0, 0, 1), -EINVAL);
	fd = id_cmd(BPF_PROG_GET_FD_BY_ID, pid, 0, 0);
	check("PROG_GET_FD_BY_ID: a second fd", fd >= 0 && fd != prog, 1);
	memset(&orig, 0, sizeof(orig));
	info_of(prog, &orig, sizeof(orig));
	memset(&info, 0, sizeof(info));
	info.nr_map_ids = 4;
	info.map_ids = (unsigned long)ids;
	check("  its info", info_of(fd, &info, sizeof(info)), 0);
	same_tag = 1;
	for (int i = 0; i < BPF_TAG_SIZE; i++)
		same_tag &= info.tag[i] == orig.tag[i];
	check("  the same program (id, tag, type)",
	      info.id == pid && same_tag && info.type == BPF_PROG_TYPE_KPROBE, 1);
	check("  named", strcmp(info.name, "ids_prog"), 0);
	check("  one map, its id written", info.nr_map_ids == 1 && ids[0] == mid && !ids[1], 1);
	check("  gpl_compatible (license \"GPL\")", info.gpl_compatible, 1);
	check("  created_by_uid 0", info.created_by_uid, 0);
	check("  xlated_prog_len: 8 insns", info.xlated_prog_len, 8 * 8);
	memset(&info, 0, sizeof(info));
	ids[0] = 0;
	info.map_ids = (unsigned long)ids;
	check("nr_map_ids 0: nothing written", info_of(fd, &info, sizeof(info)) == 0 && !ids[0], 1);
	check("  and the count comes back", info.nr_map_ids, 1);
	check("PROG_GET_FD_BY_ID with open_flags set: EINVAL",
	      id_cmd(BPF_PROG_GET_FD_BY_ID, pid, 0, BPF_F_RDONLY), -EINVAL);
	check("PROG_GET_FD_BY_ID 0: ENOENT", id_cmd(BPF_PROG_GET_FD_BY_ID, 0, 0, 0), -ENOENT);
	check("PROG_GET_FD_BY_ID of an id never given: ENOENT",
	      id_cmd(BPF_PROG_GET_FD_BY_ID, pid + 1000, 0, 0), -ENOENT);
	sys1(NR_close, prog);
	check("the first fd closed: the second still holds it", prog_id_of(fd), pid);
	sys1(NR_close, fd);
	check("both closed: PROG_GET_FD_BY_ID is ENOENT", id_cmd(BPF_PROG_GET_FD_BY_ID, pid, 0, 0),
	      -ENOENT);
	walk(BPF_PROG_GET_NEXT_ID, pid, &found);
	check("  and the walk no longer meets it", found, 0);
	fd = load_named(map, "ids_again");
	check("a program loaded again takes a new id", prog_id_of(fd) > pid, 1);
	memset(&info, 0, sizeof(info));
	info_of(fd, &info, sizeof(info));
	same_tag = 1;
	for (int i = 0; i < BPF_TAG_SIZE; i++)
		same_tag &= info.tag[i] == orig.tag[i];
	check("  the same tag (the map fd is not in it)", same_tag, 1);
	sys1(NR_close, fd);
}

static void test_maps(long map)
{
	unsigned int mid = map_id_of(map), next = 0, key = 1, nkey;
	unsigned long v = 7, got = 0;
	struct bpf_map_info info;
	long ro, wo;
	int found;

	walk(BPF_MAP_GET_NEXT_ID, mid, &found);
	check("MAP_GET_NEXT_ID from 0 walks to the map", found, 1);
	check("MAP_GET_NEXT_ID from id - 1", id_cmd(BPF_MAP_GET_NEXT_ID, mid - 1, &next, 0) == 0 &&
						     next == mid,
	      1);
	ro = id_cmd(BPF_MAP_GET_FD_BY_ID, mid, 0, BPF_F_RDONLY);
	wo = id_cmd(BPF_MAP_GET_FD_BY_ID, mid, 0, BPF_F_WRONLY);
	check("MAP_GET_FD_BY_ID, read-only and write-only", ro >= 0 && wo >= 0, 1);
	memset(&info, 0, sizeof(info));
	check("  info through the read-only fd", info_of(ro, &info, sizeof(info)), 0);
	check("  the same map", info.id == mid && !strcmp(info.name, "ids_map"), 1);
	check("  array, key 4, value 8, 4 entries",
	      info.type == BPF_MAP_TYPE_ARRAY && info.key_size == 4 && info.value_size == 8 &&
		      info.max_entries == 4,
	      1);
	check("write-only fd: update", bpf_map_cmd(BPF_MAP_UPDATE_ELEM, wo, &key, &v, 0), 0);
	check("write-only fd: lookup is EPERM", bpf_map_cmd(BPF_MAP_LOOKUP_ELEM, wo, &key, &got, 0),
	      -EPERM);
	check("write-only fd: get_next_key is EPERM",
	      bpf_map_cmd(BPF_MAP_GET_NEXT_KEY, wo, &key, &nkey, 0), -EPERM);
	check("read-only fd: lookup sees the write",
	      bpf_map_cmd(BPF_MAP_LOOKUP_ELEM, ro, &key, &got, 0) == 0 && got == 7, 1);
	check("read-only fd: update is EPERM", bpf_map_cmd(BPF_MAP_UPDATE_ELEM, ro, &key, &v, 0),
	      -EPERM);
	check("read-only fd: delete is EPERM", bpf_map_cmd(BPF_MAP_DELETE_ELEM, ro, &key, 0, 0),
	      -EPERM);
	check("MAP_GET_FD_BY_ID with RDONLY and WRONLY: EINVAL",
	      id_cmd(BPF_MAP_GET_FD_BY_ID, mid, 0, BPF_F_RDONLY | BPF_F_WRONLY), -EINVAL);
	check("MAP_GET_FD_BY_ID with another flag: EINVAL",
	      id_cmd(BPF_MAP_GET_FD_BY_ID, mid, 0, BPF_F_NO_PREALLOC), -EINVAL);
	check("MAP_GET_FD_BY_ID of an id never given: ENOENT",
	      id_cmd(BPF_MAP_GET_FD_BY_ID, mid + 1000, 0, 0), -ENOENT);
	sys1(NR_close, ro);
	sys1(NR_close, wo);
	sys1(NR_close, map);
	check("every fd closed: MAP_GET_FD_BY_ID is ENOENT", id_cmd(BPF_MAP_GET_FD_BY_ID, mid, 0, 0),
	      -ENOENT);
	walk(BPF_MAP_GET_NEXT_ID, mid, &found);
	check("  and the walk no longer meets it", found, 0);
}

static int set_unpriv(const char *v)
{
	long fd = sys3(NR_open, "/proc/sys/kernel/unprivileged_bpf_disabled", 1, 0);
	long r = fd < 0 ? fd : sys3(NR_write, fd, v, 1);
	if (fd >= 0)
		sys1(NR_close, fd);
	return r == 1 ? 0 : (int)r;
}

/* With unprivileged bpf() allowed, uid 1000 still may not walk or open ids (CAP_SYS_ADMIN). */
static void test_unprivileged(void)
{
	long pid;
	int status = -1;

	check("unprivileged_bpf_disabled=0", set_unpriv("0"), 0);
	pid = sys0(NR_fork);
	if (!pid) {
		sys3(NR_setresgid, 1000, 1000, 1000);
		sys3(NR_setresuid, 1000, 1000, 1000);
		exit_group(id_cmd(BPF_PROG_GET_NEXT_ID, 0, 0, 0) == -EPERM &&
					   id_cmd(BPF_MAP_GET_NEXT_ID, 0, 0, 0) == -EPERM &&
					   id_cmd(BPF_PROG_GET_FD_BY_ID, 1, 0, 0) == -EPERM &&
					   id_cmd(BPF_MAP_GET_FD_BY_ID, 1, 0, 0) == -EPERM
				   ? 0
				   : 1);
	}
	sys4(NR_wait4, pid, &status, 0, 0);
	check("uid 1000: the id commands are EPERM", status, 0);
	check("unprivileged_bpf_disabled=2 again", set_unpriv("2"), 0);
}

int main(int argc, char **argv, char **envp)
{
	long map = map_named("ids_map"), prog = load_named(map, "ids_prog");

	if (argc > 1 && !strcmp(argv[1], "show")) {
		show_all(BPF_PROG_GET_NEXT_ID, BPF_PROG_GET_FD_BY_ID, show_prog);
		show_all(BPF_MAP_GET_NEXT_ID, BPF_MAP_GET_FD_BY_ID, show_map);
		return 0;
	}
	check("a map and a program using it", map >= 0 && prog >= 0, 1);
	test_progs(map, prog);
	test_maps(map);
	test_unprivileged();
	return check_summary();
}
