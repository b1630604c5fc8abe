//! The machine's topology, read from Linux sysfs (placeholder until implemented).
