//! Applications for magpie (stub).
