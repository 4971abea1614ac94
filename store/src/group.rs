//! Group commit: writes that arrive while another commit is syncing share the next commit.
//!
//! A durable commit costs one WAL sync, and one sync can carry many rows. A caller queues its
//! record and waits; whoever finds no commit in progress becomes the leader, takes every queued
//! record, writes them in one transaction, hands each caller its own result and wakes them. So a
//! lone writer commits alone (no added latency), and concurrent writers commit together (one sync
//! for many). Every caller still returns only after the transaction holding its record committed.

use std::collections::HashMap;
use std::sync::{Condvar, Mutex};

use crate::StoreError;

/// A queue of records waiting for one commit, and the results of the last ones.
#[derive(Debug)]
pub(crate) struct Group<T> {
    state: Mutex<State<T>>,
    committed: Condvar,
}

#[derive(Debug)]
struct State<T> {
    queue: Vec<(u64, T)>,
    results: HashMap<u64, Result<crate::Written, StoreError>>,
    next_ticket: u64,
    committing: bool,
}

impl<T> Default for Group<T> {
    fn default() -> Self {
        Self {
            state: Mutex::new(State { queue: Vec::new(), results: HashMap::new(), next_ticket: 0, committing: false }),
            committed: Condvar::new(),
        }
    }
}

impl<T> Group<T> {
    /// Queues `item` and returns once a commit holding it finished: its result. `commit` writes a
    /// batch in one transaction and returns one result per item, in order.
    pub(crate) fn submit(
        &self,
        item: T,
        commit: impl Fn(Vec<T>) -> Vec<Result<crate::Written, StoreError>>,
    ) -> Result<crate::Written, StoreError> {
        let mut state = self.lock();
        let ticket = state.next_ticket;
        state.next_ticket += 1;
        state.queue.push((ticket, item));
        loop {
            if let Some(result) = state.results.remove(&ticket) {
                return result;
            }
            if state.committing {
                state = self.committed.wait(state).unwrap_or_else(std::sync::PoisonError::into_inner);
                continue;
            }
            state.committing = true;
            let (tickets, batch): (Vec<u64>, Vec<T>) = std::mem::take(&mut state.queue).into_iter().unzip();
            drop(state);
            let mut leading = Leading { group: self, tickets, results: None };
            leading.results = Some(commit(batch));
            drop(leading);
            state = self.lock();
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State<T>> {
        // Every field is consistent between statements, so a poisoned lock is safe to use.
        self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// The leader's batch: whatever happens to the commit (a panic included), each waiting caller
/// gets a result and the next leader may start.
struct Leading<'a, T> {
    group: &'a Group<T>,
    tickets: Vec<u64>,
    results: Option<Vec<Result<crate::Written, StoreError>>>,
}

impl<T> Drop for Leading<'_, T> {
    fn drop(&mut self) {
        let mut results = self.results.take().unwrap_or_default().into_iter();
        let mut state = self.group.lock();
        for ticket in self.tickets.drain(..) {
            let result = results.next().unwrap_or_else(|| {
                Err(StoreError::Corrupt {
                    path: "receipts".to_owned(),
                    message: "the commit holding this record did not finish; it was not stored".to_owned(),
                })
            });
            state.results.insert(ticket, result);
        }
        state.committing = false;
        self.group.committed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_commit_that_panics_fails_its_batch_and_the_next_one_commits() {
        let group: Group<u32> = Group::default();
        let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            group.submit(1, |_| panic!("the disk went away"))
        }));
        assert!(panicked.is_err());
        let written = group
            .submit(2, |batch| batch.iter().map(|&i| Ok(crate::Written { id: i64::from(i), created: true })).collect());
        assert_eq!(written.unwrap().id, 2, "the group is usable after a failed commit");
    }
}
