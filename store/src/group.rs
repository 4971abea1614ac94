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
        let mut state = self.state.lock().expect("group lock");
        let ticket = state.next_ticket;
        state.next_ticket += 1;
        state.queue.push((ticket, item));
        loop {
            if let Some(result) = state.results.remove(&ticket) {
                return result;
            }
            if state.committing {
                state = self.committed.wait(state).expect("group lock");
                continue;
            }
            state.committing = true;
            let (tickets, batch): (Vec<u64>, Vec<T>) = std::mem::take(&mut state.queue).into_iter().unzip();
            drop(state);
            let results = commit(batch);
            state = self.state.lock().expect("group lock");
            debug_assert_eq!(results.len(), tickets.len(), "one result per record");
            state.results.extend(tickets.into_iter().zip(results));
            state.committing = false;
            self.committed.notify_all();
        }
    }
}
