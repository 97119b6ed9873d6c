cd $T
echo '=== header_page'; cat events/header_page
echo '=== header_event'; cat events/header_event
for s in sched irq timer kmem ipi irq_vectors preemptirq task signal raw_syscalls ftrace bpf_trace; do
  for d in events/$s/*/; do
    [ -f $d/format ] || continue
    e=$(basename $d)
    echo "=== $s.$e"; cat $d/format
  done
done
echo '=== end'
