cd $T
for e in raw_syscalls/sys_enter raw_syscalls/sys_exit syscalls/sys_enter_write syscalls/sys_exit_write syscalls/sys_enter_getppid syscalls/sys_exit_getppid syscalls/sys_enter_openat syscalls/sys_enter_execve syscalls/sys_enter_mmap syscalls/sys_enter_exit_group syscalls/sys_enter_wait4 syscalls/sys_enter_clone syscalls/sys_enter_read syscalls/sys_enter_rt_sigaction sched/sched_process_fork sched/sched_process_exec sched/sched_process_exit sched/sched_process_wait sched/sched_process_free task/task_newtask task/task_rename; do echo "=== $e"; cat events/$e/format; done
echo '=== trace'
echo 1 > events/syscalls/sys_enter_write/enable
echo 1 > events/syscalls/sys_exit_write/enable
echo 1 > events/syscalls/sys_enter_getppid/enable
echo 1 > events/syscalls/sys_exit_getppid/enable
echo 1 > events/raw_syscalls/enable
echo 'common_pid != 1' > events/raw_syscalls/filter 
echo 1 > events/sched/sched_process_fork/enable
echo 1 > events/sched/sched_process_exec/enable
echo 1 > events/sched/sched_process_exit/enable
echo 1 > events/sched/sched_process_wait/enable
echo 1 > events/sched/sched_process_free/enable
echo 1 > events/task/enable
echo 'ptrace' > /dev/null
/bin/echo hello > /dev/null
echo 0 > tracing_on
grep -v '^#' trace | head -80
echo 0 > events/enable
echo > trace
echo '=== uprobe'
echo 'p:myup /bin/busybox:0x1000 %ax' > uprobe_events; echo rc=$?
cat uprobe_events
cat events/uprobes/myup/format
echo 'r:myret /bin/busybox:0x1000 $retval' >> uprobe_events; echo rc=$?
cat events/uprobes/myret/format
echo 'p:bad /bin/nosuch:0x10' >> uprobe_events; echo rc=$?
echo 'p:bad2 /bin/busybox' >> uprobe_events; echo rc=$?
echo 'p:bad3 /bin/busybox:0x10 $retval' >> uprobe_events; echo rc=$?
cat error_log
cat uprobe_profile
echo '=== saved_cmdlines'
cat saved_cmdlines | head
echo '=== options'; cat trace_options | tr '\n' ' '
