//! (tasks: to be built by its issue.)
