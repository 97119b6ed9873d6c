/* Wait queues (Linux: kernel/sched/wait.c): a list of sleepers under a lock, woken all at once. */
#include "kernel/sched/wait.h"
#include "kernel/sched/sched.h"

void prepare_to_wait(struct wait_queue_head *wq, struct wait_queue_entry *e)
{
	unsigned long flags = spin_lock_irqsave(&wq->lock);

	e->task = current;
	e->func = NULL;
	e->next = wq->head;
	wq->head = e;
	current->state = TASK_SLEEPING;
	spin_unlock_irqrestore(&wq->lock, flags);
}

void finish_wait(struct wait_queue_head *wq, struct wait_queue_entry *e)
{
	unsigned long flags = spin_lock_irqsave(&wq->lock);

	current->state = TASK_RUNNING;
	for (struct wait_queue_entry **pp = &wq->head; *pp; pp = &(*pp)->next)
		if (*pp == e) {
			*pp = e->next;
			break;
		}
	spin_unlock_irqrestore(&wq->lock, flags);
}

void add_wait_queue(struct wait_queue_head *wq, struct wait_queue_entry *e)
{
	unsigned long flags = spin_lock_irqsave(&wq->lock);

	e->next = wq->head;
	wq->head = e;
	spin_unlock_irqrestore(&wq->lock, flags);
}

void remove_wait_queue(struct wait_queue_head *wq, struct wait_queue_entry *e)
{
	unsigned long flags = spin_lock_irqsave(&wq->lock);

	for (struct wait_queue_entry **pp = &wq->head; *pp; pp = &(*pp)->next)
		if (*pp == e) {
			*pp = e->next;
			break;
		}
	spin_unlock_irqrestore(&wq->lock, flags);
}

void wake_up(struct wait_queue_head *wq)
{
	unsigned long flags = spin_lock_irqsave(&wq->lock);

	for (struct wait_queue_entry *e = wq->head; e; e = e->next)
		if (e->func)
			e->func(e);
		else
			wake_up_process(e->task);
	spin_unlock_irqrestore(&wq->lock, flags);
}
