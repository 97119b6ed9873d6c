/* /proc/slabinfo (Linux's 2.1 format, one row per kmalloc size class) and /proc/sys/vm/drop_caches. */
#include "kernel/fs/tracefs.h"
#include "kernel/mm/mm.h"
#include "lib/errno.h"
#include "lib/printf.h"

/*
 * active_objs counts live objects, num_objs every slot of every slab; a slab with no live object
 * is cached, not leaked: it counts in num_slabs but not in active_slabs, and drop_caches frees it.
 */
static int slabinfo_show(struct seq_file *m, struct fnode *f)
{
	(void)f;
	seq_puts(m, "slabinfo - version: 2.1\n");
	seq_puts(m,
		 "# name            <active_objs> <num_objs> <objsize> <objperslab> <pagesperslab>"
		 " : tunables <limit> <batchcount> <sharedfactor> : slabdata <active_slabs>"
		 " <num_slabs> <sharedavail>\n");
	for (int i = KMALLOC_NR_CLASSES - 1; i >= 0; i--) {
		struct kmalloc_class_stats st;
		char name[24];

		kmalloc_slab_stats(i, &st);
		snprintf(name, sizeof(name), "kmalloc-%lu", st.obj_size);
		seq_printf(m,
			   "%-17s %6lu %6lu %6lu %4lu %4d : tunables %4d %4d %4d : slabdata %6lu "
			   "%6lu %6d\n",
			   name, st.active_objs, st.nr_slabs * st.objs_per_slab, st.obj_size,
			   st.objs_per_slab, 1, 0, 0, 0, st.active_slabs, st.nr_slabs, 0);
	}
	return 0;
}

/* 2 or 3 (Linux: "free reclaimable slab objects"): gives cached empty slabs back. 1 (the page
 * cache) has nothing to drop here and is accepted. Reads 0, as Linux's. */
static int drop_caches_set(void *data, unsigned long v)
{
	if (v & 2)
		kmalloc_shrink();
	return 0;
}

static unsigned long drop_caches_get(void *data)
{
	return 0;
}

static const struct tracefs_ulong drop_caches = {
	.min = 1, .max = 4, .get = drop_caches_get, .set = drop_caches_set
};
static const struct tracefs_file slab_files[] = {
	TRACEFS_FILE("/proc/slabinfo", slabinfo_show, NULL),
	TRACEFS_ULONG("/proc/sys/vm/drop_caches", &drop_caches),
};

void slabinfo_init(void)
{
	tracefs_create_files(NULL, slab_files, ARRAY_SIZE(slab_files));
}
