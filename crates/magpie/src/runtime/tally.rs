//! The counts a team's barrier rests on (`team.rs`, `task.rs`), kept apart from the runtime
//! so that the loom model `tests/loom_team.rs` checks this very code.
//!
//! - [`Tree`]: a task's *pending* count, one for its own body plus one per child whose
//!   subtree is unfinished. A child is counted in its parent when it is made; when a node's
//!   count reaches zero it counts its parent down, so a root (a member's implicit task)
//!   reaches zero exactly once its body is done and every task of its tree finished.
//! - [`Phase`]: the team's barrier counter, one per member whose tree is not done; the last
//!   member to get there starts the next phase and releases the others.
//!
//! Orderings: a count up is Relaxed (the child it counts is published to other threads
//! through the deques, whose Release/Acquire orders the count before any count down); every
//! count down is AcqRel, so whoever reaches zero sees everything the counted tasks wrote.

use crate::sync::atomic::{AtomicUsize, Ordering};
use crate::sync::Arc;

/// A node of a task tree: anything that holds a [`Tree`] count.
pub(crate) trait Node: Sized {
    fn tree(&self) -> &Tree<Self>;
}

/// A task's pending count and the node it counts in (see the module docs).
pub(crate) struct Tree<N> {
    pending: AtomicUsize,
    parent: Option<Arc<N>>,
}

impl<N: Node> Tree<N> {
    /// A root: counts in no node (a member's implicit task, counted by its team).
    pub(crate) fn root() -> Self {
        Tree {
            pending: AtomicUsize::new(1),
            parent: None,
        }
    }

    /// A child of `parent`, counted there from now on.
    pub(crate) fn child(parent: Arc<N>) -> Self {
        parent.tree().pending.fetch_add(1, Ordering::Relaxed);
        Tree {
            pending: AtomicUsize::new(1),
            parent: Some(parent),
        }
    }

    /// The node this one counts in.
    pub(crate) fn parent(&self) -> Option<&Arc<N>> {
        self.parent.as_ref()
    }

    /// One count of this node is done (its own body, or a child's subtree); a node reaching
    /// zero passes it on to its parent. True when that brought a *root* to zero: its whole
    /// tree finished.
    pub(crate) fn finish(&self) -> bool {
        let mut t = self;
        loop {
            if t.pending.fetch_sub(1, Ordering::AcqRel) != 1 {
                return false;
            }
            match &t.parent {
                // The parent is alive: `t` holds it.
                Some(p) => t = p.tree(),
                None => return true,
            }
        }
    }

    /// A root whose tree finished starts a new phase with its own count back. Only when no
    /// task of its tree exists (after its team's barrier).
    pub(crate) fn restart(&self) {
        debug_assert!(self.parent.is_none(), "only a root restarts");
        self.pending.store(1, Ordering::Release);
    }
}

/// A team's barrier counter: members whose tree is not done in this phase.
pub(crate) struct Phase {
    left: AtomicUsize,
    size: usize,
}

impl Phase {
    /// A phase of `size` members.
    pub(crate) fn new(size: usize) -> Self {
        Phase {
            left: AtomicUsize::new(size),
            size,
        }
    }

    /// A member's tree is done. True for the last one, which has started the next phase
    /// and must now release the others (nobody counts down again before they are released).
    pub(crate) fn done(&self) -> bool {
        if self.left.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.left.store(self.size, Ordering::Release);
            true
        } else {
            false
        }
    }
}
