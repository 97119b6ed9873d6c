/* kmem: the heap and the page frame allocator, as Linux 6.1's include/trace/events/kmem.h names
 * and prints them. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM kmem
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE "kernel/trace/events/kmem.h"

#if !defined(_TRACE_KMEM_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_KMEM_H

#include "kernel/tracepoint.h"
#include "kernel/mm/mm.h"

#ifndef _TRACE_KMEM_HELPERS
#define _TRACE_KMEM_HELPERS
/*
 * Linux's gfp flag values (6.1). Our allocators take no flags: every request is what Linux calls
 * GFP_KERNEL (may sleep, may do I/O). The others are here for the table below.
 */
#define __GFP_HIGH 0x20UL
#define __GFP_IO 0x40UL
#define __GFP_FS 0x80UL
#define __GFP_ZERO 0x100UL
#define __GFP_ATOMIC 0x200UL
#define __GFP_DIRECT_RECLAIM 0x400UL
#define __GFP_KSWAPD_RECLAIM 0x800UL
#define __GFP_NOWARN 0x2000UL
#define __GFP_ACCOUNT 0x400000UL
#define GFP_KERNEL 0xcc0UL /* __GFP_DIRECT_RECLAIM | __GFP_KSWAPD_RECLAIM | __GFP_IO | __GFP_FS */

/*
 * Linux's show_gfp_flags(), the part of its table our flags can reach, in its order: composite
 * names first, so GFP_KERNEL|__GFP_ZERO prints as that and not as five single bits.
 */
#define show_gfp_flags(flags)                                                                  \
	(flags) ? __print_flags(flags, "|", { 0x400cc0, "GFP_KERNEL_ACCOUNT" },                 \
				{ 0xcc0, "GFP_KERNEL" }, { 0xc40, "GFP_NOFS" },                 \
				{ 0xa20, "GFP_ATOMIC" }, { 0xc00, "GFP_NOIO" },                 \
				{ 0x800, "GFP_NOWAIT" }, { 0x20, "__GFP_HIGH" },                \
				{ 0x200, "__GFP_ATOMIC" }, { 0x40, "__GFP_IO" },                \
				{ 0x80, "__GFP_FS" }, { 0x2000, "__GFP_NOWARN" },               \
				{ 0x100, "__GFP_ZERO" }, { 0x400000, "__GFP_ACCOUNT" },         \
				{ 0x400, "__GFP_DIRECT_RECLAIM" },                              \
				{ 0x800, "__GFP_KSWAPD_RECLAIM" }) : "none"

#define NUMA_NO_NODE (-1)       /* one node, and no caller asks for one */
#define MIGRATE_UNMOVABLE 0     /* kernel memory: never moved */

/* The order Linux would allocate for n pages: ours are runs of exactly n frames. */
static inline unsigned int trace_pages_order(size_t n)
{
	unsigned int order = 0;

	while ((1UL << order) < n)
		order++;
	return order;
}

/*
 * Where Linux prints the struct page of a frame (pfn_to_page) we print the frame's direct-map
 * address: we have no struct page, and this is the address the kernel uses for the frame.
 */
#define trace_pfn_to_virt(pfn) ((void *)(PAGE_OFFSET + ((pfn) << PAGE_SHIFT)))
#endif

/*
 * A kmalloc()/kzalloc() returned ptr (NULL: it failed) for a request of bytes_req; bytes_alloc is
 * what it took (the slab object or the page run). accounted: whether memcg would charge it
 * (__GFP_ACCOUNT), never for us.
 */
TRACE_EVENT(kmalloc,
	TP_PROTO(unsigned long call_site, const void *ptr, size_t bytes_req, size_t bytes_alloc,
		 unsigned long gfp_flags, int node),
	TP_ARGS(call_site, ptr, bytes_req, bytes_alloc, gfp_flags, node),
	TP_STRUCT__entry(
		__field(unsigned long, call_site)
		__field(const void *, ptr)
		__field(size_t, bytes_req)
		__field(size_t, bytes_alloc)
		__field(unsigned long, gfp_flags)
		__field(int, node)
	),
	TP_fast_assign(
		__entry->call_site = call_site;
		__entry->ptr = ptr;
		__entry->bytes_req = bytes_req;
		__entry->bytes_alloc = bytes_alloc;
		__entry->gfp_flags = gfp_flags;
		__entry->node = node;
	),
	TP_printk("call_site=%pS ptr=%p bytes_req=%zu bytes_alloc=%zu gfp_flags=%s node=%d accounted=%s",
		  (void *)__entry->call_site, __entry->ptr, __entry->bytes_req, __entry->bytes_alloc,
		  show_gfp_flags(__entry->gfp_flags), __entry->node,
		  (__entry->gfp_flags & 0x400000) ? "true" : "false")
);

/* kfree(ptr) was called (also with NULL, as in Linux). */
TRACE_EVENT(kfree,
	TP_PROTO(unsigned long call_site, const void *ptr),
	TP_ARGS(call_site, ptr),
	TP_STRUCT__entry(
		__field(unsigned long, call_site)
		__field(const void *, ptr)
	),
	TP_fast_assign(
		__entry->call_site = call_site;
		__entry->ptr = ptr;
	),
	TP_printk("call_site=%pS ptr=%p", (void *)__entry->call_site, __entry->ptr)
);

/* Frames [pa, pa + n pages) go back to the allocator. Linux's takes a struct page and order. */
TRACE_EVENT(mm_page_free,
	TP_PROTO(unsigned long pa, unsigned int order),
	TP_ARGS(pa, order),
	TP_STRUCT__entry(
		__field(unsigned long, pfn)
		__field(unsigned int, order)
	),
	TP_fast_assign(
		__entry->pfn = pa >> PAGE_SHIFT;
		__entry->order = order;
	),
	TP_printk("page=%p pfn=0x%lx order=%d", trace_pfn_to_virt(__entry->pfn), __entry->pfn,
		  __entry->order)
);

/* alloc_pages() returned pa (0: it failed, recorded as pfn -1 and printed as page NULL). */
TRACE_EVENT(mm_page_alloc,
	TP_PROTO(unsigned long pa, unsigned int order, unsigned long gfp_flags, int migratetype),
	TP_ARGS(pa, order, gfp_flags, migratetype),
	TP_STRUCT__entry(
		__field(unsigned long, pfn)
		__field(unsigned int, order)
		__field(unsigned long, gfp_flags)
		__field(int, migratetype)
	),
	TP_fast_assign(
		__entry->pfn = pa ? pa >> PAGE_SHIFT : -1UL;
		__entry->order = order;
		__entry->gfp_flags = gfp_flags;
		__entry->migratetype = migratetype;
	),
	TP_printk("page=%p pfn=0x%lx order=%d migratetype=%d gfp_flags=%s",
		  __entry->pfn != -1UL ? trace_pfn_to_virt(__entry->pfn) : NULL,
		  __entry->pfn != -1UL ? __entry->pfn : 0, __entry->order, __entry->migratetype,
		  show_gfp_flags(__entry->gfp_flags))
);

#endif /* _TRACE_KMEM_H */

#include "kernel/trace/define_trace.h"
