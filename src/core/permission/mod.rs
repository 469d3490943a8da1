//! (permission: to be built by its issue.)
