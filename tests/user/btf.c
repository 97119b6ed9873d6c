/*
 * btf: BPF_BTF_LOAD from a program, raw: a small blob of types (int, a pointer, a struct, an
 * array) loaded, named by a map and read back with BPF_OBJ_GET_INFO_BY_FD, then the same blob
 * broken one field at a time, each refused with Linux's errno and log line. One check a line,
 * "PASS n/m" last (tests/integration/test_bpf.py runs it). `btf lab` is chapter 23's lab instead:
 * the blob with its pointer aimed at a type it does not have, and Linux's log of the refusal.
 */
#include "bpf_sys.h"

#define KIND(k, vlen) ((unsigned int)(k) << 24 | (vlen))

struct header {
	unsigned short magic;
	unsigned char version, flags;
	unsigned int hdr_len, type_off, type_len, str_off, str_len;
};

/* [1] int, [2] int *, [3] struct s { int a; int *b; }, [4] int[4] */
static const unsigned int good_types[] = {
	1, KIND(1, 0), 4,  0x01000020, /* INT "int" size 4, signed, 32 bits */
	0, KIND(2, 0), 1,	       /* PTR -> 1 */
	5, KIND(4, 2), 16, 7,	       1, 0,
	9, 2,	       64,		     /* STRUCT "s" size 16: a int @0, b int * @64 */
	0, KIND(3, 0), 0,  1,	       1, 4, /* ARRAY of 4 int, indexed by int */
};
static const char good_strs[] = "\0int\0s\0a\0b";
#define NTYPES (sizeof(good_types) / 4)
#define NSTRS sizeof(good_strs) /* the last NUL included */

static struct {
	struct header h;
	unsigned int types[NTYPES + 8];
	char strs[64];
} blob;
static unsigned char raw[sizeof(blob)];
static unsigned int raw_size;
static char log_buf[8192];

/* The good blob, header, types and strings back to back, in blob (to be broken) and raw. */
static void reset(void)
{
	memset(&blob, 0, sizeof(blob));
	blob.h = (struct header){
		0xeB9F, 1, 0, sizeof(struct header), 0, sizeof(good_types), sizeof(good_types),
		NSTRS
	};
	memcpy(blob.types, good_types, sizeof(good_types));
	memcpy(blob.strs, good_strs, NSTRS);
}

/* Lays blob out as its header says (the sections where their offsets put them). */
static void assemble(void)
{
	unsigned int h = sizeof(struct header);

	memset(raw, 0, sizeof(raw));
	memcpy(raw, &blob.h, h);
	memcpy(raw + h + blob.h.type_off, blob.types, sizeof(good_types));
	memcpy(raw + h + blob.h.str_off, blob.strs, NSTRS);
	raw_size = h + blob.h.type_off + sizeof(good_types) + NSTRS;
}

static long btf_load(const void *data, unsigned int size, int level, unsigned int log_size)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.btf = (unsigned long)data;
	a.btf_size = size;
	a.btf_log_level = level;
	a.btf_log_buf = level ? (unsigned long)log_buf : 0;
	a.btf_log_size = log_size;
	log_buf[0] = 0;
	return sys_bpf(BPF_BTF_LOAD, &a, sizeof(a));
}

/* blob as it is now, refused with err and line in the log. */
static void refused(const char *name, long err, const char *line)
{
	long fd;

	assemble();
	fd = btf_load(raw, raw_size, 1, sizeof(log_buf));
	check(name, fd, err);
	check(line, strstr(log_buf, line) != 0, 1);
	if (fd >= 0)
		sys1(NR_close, fd);
	reset();
}

static long map_with_btf(long btf, int key, int value, unsigned int key_id, unsigned int value_id)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_type = BPF_MAP_TYPE_HASH;
	a.key_size = key;
	a.value_size = value;
	a.max_entries = 4;
	a.btf_fd = btf;
	a.btf_key_type_id = key_id;
	a.btf_value_type_id = value_id;
	return sys_bpf(BPF_MAP_CREATE, &a, sizeof(a));
}

static void test_good(void)
{
	struct bpf_btf_info info;
	struct bpf_map_info minfo;
	unsigned char back[sizeof(raw)];
	union bpf_attr a;
	long fd, map;

	reset();
	assemble();
	fd = btf_load(raw, raw_size, 1, sizeof(log_buf));
	check("a blob of four types loads", fd >= 0, 1);
	check("  the log shows the header", strstr(log_buf, "magic: 0xeb9f\nversion: 1\n") != 0, 1);
	check("  and each type, Linux's way",
	      strstr(log_buf, "[1] INT int size=4 bits_offset=0 nr_bits=32 encoding=SIGNED\n"
			      "[2] PTR (anon) type_id=1\n"
			      "[3] STRUCT s size=16 vlen=2\n"
			      "\ta type_id=1 bits_offset=0\n"
			      "\tb type_id=2 bits_offset=64\n"
			      "[4] ARRAY (anon) type_id=1 index_type_id=1 nr_elems=4\n") != 0,
	      1);
	memset(&info, 0, sizeof(info));
	memset(back, 0, sizeof(back));
	info.btf = (unsigned long)back;
	info.btf_size = sizeof(back);
	memset(&a, 0, sizeof(a));
	a.info.bpf_fd = fd;
	a.info.info_len = sizeof(info);
	a.info.info = (unsigned long)&info;
	check("OBJ_GET_INFO_BY_FD of the BTF fd", sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &a, sizeof(a)),
	      0);
	check("  btf_size", info.btf_size, raw_size);
	check("  an id", info.id > 0, 1);
	{
		unsigned int same = 0;
		while (same < raw_size && back[same] == raw[same])
			same++;
		check("  the blob itself", same, raw_size);
	}
	map = map_with_btf(fd, 4, 16, 1, 3);
	check("a hash map keyed by int, valued by struct s", map >= 0, 1);
	memset(&minfo, 0, sizeof(minfo));
	a.info.bpf_fd = map;
	a.info.info_len = sizeof(minfo);
	a.info.info = (unsigned long)&minfo;
	sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &a, sizeof(a));
	check("  its info names the BTF and both types",
	      minfo.btf_id == info.id && minfo.btf_key_type_id == 1 && minfo.btf_value_type_id == 3,
	      1);
	check("valued by int[4] (16 bytes) too", map_with_btf(fd, 4, 16, 1, 4) >= 0, 1);
	check("value_size 8 for struct s (16): EINVAL", map_with_btf(fd, 4, 8, 1, 3), -EINVAL);
	check("key type 9 (none): EINVAL", map_with_btf(fd, 4, 16, 9, 3), -EINVAL);
	check("btf_fd a map: EINVAL", map_with_btf(map, 4, 16, 1, 3), -EINVAL);
	check("btf_fd not open: EBADF", map_with_btf(60, 4, 16, 1, 3), -EBADF);
	{
		struct bpf_insn p[] = { MOV64_IMM(0, 0), EXIT };
		memset(&a, 0, sizeof(a));
		a.prog_type = BPF_PROG_TYPE_KPROBE;
		a.insns = (unsigned long)p;
		a.insn_cnt = 2;
		a.license = (unsigned long)"GPL";
		a.func_info_cnt = 1;
		a.prog_btf_fd = map;
		check("func_info with a map as prog_btf_fd: EINVAL",
		      sys_bpf(BPF_PROG_LOAD, &a, sizeof(a)), -EINVAL);
	}
	sys1(NR_close, map);
	sys1(NR_close, fd);
}

static long btf_id_cmd(int cmd, unsigned int id, unsigned int *next, unsigned int tail)
{
	union bpf_attr a;
	long r;

	memset(&a, 0, sizeof(a));
	a.btf_id = id; /* start_id for GET_NEXT_ID: the same word */
	a.open_flags = tail;
	r = sys_bpf(cmd, &a, sizeof(a));
	if (next)
		*next = a.next_id;
	return r;
}

static long btf_info(long fd, struct bpf_btf_info *info)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.info.bpf_fd = fd;
	a.info.info_len = sizeof(*info);
	a.info.info = (unsigned long)info;
	return sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &a, sizeof(a));
}

static unsigned int btf_id_of(long fd, unsigned int *size)
{
	struct bpf_btf_info info;

	memset(&info, 0, sizeof(info));
	if (btf_info(fd, &info))
		return 0;
	*size = info.btf_size;
	return info.id;
}

/* BPF_BTF_GET_NEXT_ID walks the live ids; BPF_BTF_GET_FD_BY_ID opens one again, as bpftool does. */
static void test_by_id(void)
{
	unsigned int id, again, size = 0, size2 = 0, next = 0;
	long fd, fd2;

	reset();
	assemble();
	fd = btf_load(raw, raw_size, 0, 0);
	id = btf_id_of(fd, &size);
	check("a BTF loaded, its id", id > 0, 1);
	check("GET_NEXT_ID from id - 1 finds it", btf_id_cmd(BPF_BTF_GET_NEXT_ID, id - 1, &next, 0),
	      0);
	check("  next_id", next, id);
	check("GET_NEXT_ID past the last: ENOENT", btf_id_cmd(BPF_BTF_GET_NEXT_ID, id, 0, 0),
	      -ENOENT);
	check("GET_NEXT_ID with open_flags set: EINVAL",
	      btf_id_cmd(BPF_BTF_GET_NEXT_ID, id - 1, 0, 1), -EINVAL);
	fd2 = btf_id_cmd(BPF_BTF_GET_FD_BY_ID, id, 0, 0);
	check("GET_FD_BY_ID: a second fd", fd2 >= 0 && fd2 != fd, 1);
	again = btf_id_of(fd2, &size2);
	check("  the same BTF (id and size)", again == id && size2 == size, 1);
	check("GET_FD_BY_ID with a byte past btf_id: EINVAL",
	      btf_id_cmd(BPF_BTF_GET_FD_BY_ID, id, 0, 1), -EINVAL);
	check("GET_FD_BY_ID of an id never given: ENOENT",
	      btf_id_cmd(BPF_BTF_GET_FD_BY_ID, id + 1000, 0, 0), -ENOENT);
	sys1(NR_close, fd);
	check("the first fd closed: the second still holds it", btf_id_of(fd2, &size2), id);
	sys1(NR_close, fd2);
	check("both closed: ENOENT", btf_id_cmd(BPF_BTF_GET_FD_BY_ID, id, 0, 0), -ENOENT);
	check("  and GET_NEXT_ID no longer finds it", btf_id_cmd(BPF_BTF_GET_NEXT_ID, id - 1, 0, 0),
	      -ENOENT);
}

/* The kernel's own BTF (kernel/bpf/btf_vmlinux.c): id 1, named "vmlinux", kernel_btf set, its bytes
 * a BTF header; a name buffer too short gets what fits and ENOSPC, as Linux's btf_get_info_by_fd(). */
static void test_vmlinux(void)
{
	struct bpf_btf_info info;
	unsigned char head[4];
	char name[16];
	long fd = btf_id_cmd(BPF_BTF_GET_FD_BY_ID, 1, 0, 0), loaded;

	check("GET_FD_BY_ID 1: the kernel's BTF", fd >= 0, 1);
	memset(&info, 0, sizeof(info));
	info.name = (unsigned long)name;
	info.name_len = sizeof(name);
	info.btf = (unsigned long)head;
	info.btf_size = sizeof(head);
	check("  its info", btf_info(fd, &info), 0);
	check("  id 1, kernel_btf", info.id == 1 && info.kernel_btf == 1, 1);
	check("  named vmlinux", !strcmp(name, "vmlinux") && info.name_len == 7, 1);
	check("  magic 0xeb9f, version 1", head[0] == 0x9f && head[1] == 0xeb && head[2] == 1, 1);
	check("  bigger than the 4 bytes copied", info.btf_size > sizeof(head), 1);
	memset(&info, 0, sizeof(info));
	info.name = (unsigned long)name;
	info.name_len = 4;
	check("  a name buffer of 4: ENOSPC", btf_info(fd, &info), -ENOSPC);
	check("  with what fits, and the whole length", !strcmp(name, "vml") && info.name_len == 7,
	      1);
	memset(&info, 0, sizeof(info));
	info.name_len = 4;
	check("  a name_len without a buffer: EINVAL", btf_info(fd, &info), -EINVAL);
	sys1(NR_close, fd);
	reset();
	assemble();
	loaded = btf_load(raw, raw_size, 0, 0);
	memset(&info, 0, sizeof(info));
	info.name = (unsigned long)name;
	info.name_len = sizeof(name);
	name[0] = 'x';
	check("a loaded BTF: no name, not the kernel's",
	      !btf_info(loaded, &info) && !name[0] && !info.name_len && !info.kernel_btf, 1);
	sys1(NR_close, loaded);
}

static void put_kv(const char *k, long v)
{
	put_str(k);
	put_num(v);
}

/* Chapter 23's lab of section 10: a BTF found by its id, as bpftool's `btf list` and `btf dump id`. */
static int ids_lab(void)
{
	unsigned int id = 0, size = 0;
	long fd, fd2;

	reset();
	assemble();
	fd = btf_load(raw, raw_size, 0, 0);
	put_kv("BPF_BTF_LOAD: fd ", fd);
	while (!btf_id_cmd(BPF_BTF_GET_NEXT_ID, id, &id, 0)) {
		fd2 = btf_id_cmd(BPF_BTF_GET_FD_BY_ID, id, 0, 0);
		put_kv("\nBPF_BTF_GET_NEXT_ID: id ", id);
		put_kv(", BPF_BTF_GET_FD_BY_ID: fd ", fd2);
		put_kv(", OBJ_GET_INFO_BY_FD: id ", btf_id_of(fd2, &size));
		put_kv(" btf_size ", size);
		sys1(NR_close, fd2);
	}
	sys1(NR_close, fd);
	put_kv("\nclosed; BPF_BTF_GET_FD_BY_ID: ", btf_id_cmd(BPF_BTF_GET_FD_BY_ID, id, 0, 0));
	put_str("\n");
	return 0;
}

static void test_bad(void)
{
	reset();
	assemble();
	check("4 bytes: EINVAL", btf_load(raw, 4, 1, sizeof(log_buf)), -EINVAL);
	check("hdr_len not found", strstr(log_buf, "hdr_len not found") != 0, 1);
	check("over 16 MiB: E2BIG", btf_load(raw, 17 << 20, 0, 0), -E2BIG);
	check("a log of 100 bytes: EINVAL", btf_load(raw, raw_size, 1, 100), -EINVAL);
	blob.h.magic = 0xeB9E;
	refused("magic 0xeb9e: EINVAL", -EINVAL, "Invalid magic");
	blob.h.version = 2;
	refused("version 2: ENOTSUPP", -ENOTSUPP, "Unsupported version");
	blob.h.flags = 1;
	refused("flags 1: ENOTSUPP", -ENOTSUPP, "Unsupported flags");
	blob.h.hdr_len = 1000;
	refused("hdr_len past the blob: EINVAL", -EINVAL, "btf_header not found");
	blob.h.str_len += 4;
	refused("strings past the end: EINVAL", -EINVAL, "Total section length too long");
	blob.h.str_len -= 2;
	refused("a gap after the strings: EINVAL", -EINVAL, "Unsupported section found");
	blob.strs[NSTRS - 1] = 'x';
	refused("strings not NUL-terminated: EINVAL", -EINVAL, "Invalid string section");
	blob.strs[0] = 'x';
	refused("a first string that is not empty: EINVAL", -EINVAL, "Invalid string section");
	blob.types[1] = KIND(20, 0);
	refused("kind 20: EINVAL", -EINVAL, "[1] Invalid kind:20");
	blob.types[1] |= 1 << 16;
	refused("a reserved info bit: EINVAL", -EINVAL, "[1] Invalid btf_info:1010000");
	blob.types[0] = 200;
	refused("name_off 200: EINVAL", -EINVAL, "[1] Invalid name_offset:200");
	blob.types[6] = 9;
	refused("a pointer to type 9 of 4: EINVAL", -EINVAL,
		"[2] PTR (anon) type_id=9 Invalid type_id");
	blob.types[14] = 9;
	refused("a member of type 9: EINVAL", -EINVAL,
		"[3] STRUCT s size=16 vlen=2 Invalid member");
	blob.types[19] = 5;
	refused("an array of type 5: EINVAL", -EINVAL,
		"[4] ARRAY (anon) type_id=5 index_type_id=1 nr_elems=4 Invalid elem");
	blob.types[19] = 4;
	refused("an array of itself: EINVAL", -EINVAL,
		"[4] ARRAY (anon) type_id=4 index_type_id=1 nr_elems=4 Loop detected");
	blob.types[11] = 3;
	refused("a struct with itself as a member: EINVAL", -EINVAL,
		"[3] STRUCT s size=16 vlen=2 Loop detected");
	blob.types[8] = KIND(4, 5);
	refused("a struct of 5 members, room for 4: EINVAL", -EINVAL,
		"[3] STRUCT s meta_left:48 meta_needed:60");
	blob.h.type_len = 0;
	blob.h.str_off = 0;
	memset(raw, 0, sizeof(raw));
	memcpy(raw, &blob.h, sizeof(blob.h));
	memcpy(raw + sizeof(blob.h), blob.strs, NSTRS);
	check("no types: EINVAL", btf_load(raw, sizeof(blob.h) + NSTRS, 1, sizeof(log_buf)),
	      -EINVAL);
	check("No type found", strstr(log_buf, "No type found") != 0, 1);
}

int main(int argc, char **argv, char **envp)
{
	if (argc > 1 && !strcmp(argv[1], "lab")) {
		reset();
		blob.types[6] = 9;
		assemble();
		put_str("bpf(BPF_BTF_LOAD) = ");
		put_num(btf_load(raw, raw_size, 1, sizeof(log_buf)));
		put_str("\n");
		put_str(log_buf);
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "ids"))
		return ids_lab();
	test_good();
	test_by_id();
	test_vmlinux();
	test_bad();
	return check_summary();
}
