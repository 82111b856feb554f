# workqueue.insert/.execute: sync(1) after writing a file queues the
# writeback work (wb_workfn) of the disk's bdi from its own context; a
# kworker thread runs that same work item (same address and function).
script='global q, queued, ran, in_worker, ins_thread
probe workqueue.insert {
  if (execname() != "sync") next
  q[work] = symname(work_func)
  if (q[work] == "wb_workfn") queued = 1
  if (wq_thread) ins_thread++
}
probe workqueue.execute {
  if (!(work in q) || symname(work_func) != q[work]) next
  ran++
  if (wq_thread == task_current() && substr(task_execname(wq_thread), 0, 8) == "kworker/") in_worker++
}
probe end {
  printf("sync queued wb_workfn: %d\n", queued)
  printf("its work items ran, each in a kworker: %d\n", ran > 0 && ran == in_worker)
  printf("wq_thread at insert: %d\n", ins_thread)
}'
"$STAP" -e "$script" -c "sh -c 'dd if=/dev/zero of=$CASE_TMP/f bs=64k count=16 status=none; sync; sleep 0.3'"
